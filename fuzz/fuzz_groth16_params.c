/* libFuzzer: the bellperson .params reader (counts, points, validation). */
#include "cuzk/groth16.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_groth16_params *p = NULL;
    cz_errbuf e;
    if (cz_groth16_params_parse(&p, data, size, NULL, &e) == CZ_OK) cz_groth16_params_free(p);
    return 0;
}
