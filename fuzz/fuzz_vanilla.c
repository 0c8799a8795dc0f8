/* libFuzzer: the vanilla-proof JSON parser of the PoRep-shaped circuit
 * (cz_porep_vanilla_parse). A proof that parses is also serialised again
 * (the round trip must parse to the same text) and natively verified, so
 * every array the parser sized is read end to end. */
#include "cuzk/circuits.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_porep_vanilla *v = NULL;
    cz_errbuf e;
    if (cz_porep_vanilla_parse(&v, (const char *)data, size, &e) != CZ_OK)
        return 0;
    char *s = NULL, *s2 = NULL;
    size_t n = 0;
    if (cz_porep_vanilla_to_json(v, &s, &n) == CZ_OK) {
        cz_porep_vanilla *w = NULL;
        if (cz_porep_vanilla_parse(&w, s, n, &e) != CZ_OK)
            abort(); /* our own output must parse */
        if (cz_porep_vanilla_to_json(w, &s2, NULL) == CZ_OK && strcmp(s, s2) != 0)
            abort(); /* and round-trip exactly */
        cz_porep_vanilla_free(w);
    }
    (void)cz_porep_vanilla_verify(v, &e);
    free(s);
    free(s2);
    cz_porep_vanilla_free(v);
    return 0;
}
