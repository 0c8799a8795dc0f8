/* libFuzzer: the snarkjs .wtns parser. */
#include "cuzk/snarkjs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_snarkjs_wtns *w = NULL;
    cz_errbuf e;
    if (cz_snarkjs_wtns_parse(&w, data, size, NULL, &e) == CZ_OK) cz_snarkjs_wtns_free(w);
    return 0;
}
