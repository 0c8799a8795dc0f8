/* libFuzzer: the C1 output reader (cz_fil_c1_parse, both the plain
 * filecoin-proofs-api JSON and Curio's base64 wrapper). An input that
 * parses is written again in both forms; each must parse back to an equal
 * value and the plain text must be a fixed point, so every array the
 * reader sized is walked end to end. */
#include "cuzk/fil_c1.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_fil_c1 c, d, e;
    cz_errbuf err;
    if (cz_fil_c1_parse(&c, (const char *)data, size, &err) != CZ_OK) {
        /* a failed parse leaves *out zeroed */
        static const cz_fil_c1 zero;
        if (memcmp(&c, &zero, sizeof c) != 0) abort();
        return 0;
    }
    char *s = NULL, *s2 = NULL, *w = NULL;
    size_t n = 0, n2 = 0, wn = 0;
    if (cz_fil_c1_to_json(&c, &s, &n) == CZ_OK) {
        if (cz_fil_c1_parse(&d, s, n, &err) != CZ_OK) abort(); /* our own output parses */
        if (!cz_fil_c1_equal(&c, &d)) abort();
        if (cz_fil_c1_to_json(&d, &s2, &n2) == CZ_OK && (n != n2 || memcmp(s, s2, n) != 0)) abort();
        cz_fil_c1_free(&d);
    }
    if (cz_fil_c1_to_curio_json(&c, 7, &w, &wn) == CZ_OK) {
        if (cz_fil_c1_parse(&e, w, wn, &err) != CZ_OK) abort();
        if (!cz_fil_c1_equal(&c, &e)) abort();
        cz_fil_c1_free(&e);
    }
    free(s);
    free(s2);
    free(w);
    cz_fil_c1_free(&c);
    cz_fil_c1_free(&c); /* idempotent */
    return 0;
}
