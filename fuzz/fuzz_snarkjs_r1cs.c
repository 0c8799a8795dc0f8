/* libFuzzer: the circom .r1cs parser must refuse or accept, never crash. */
#include "cuzk/snarkjs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_snarkjs_r1cs *r = NULL;
    cz_errbuf e;
    if (cz_snarkjs_r1cs_parse(&r, data, size, &e) == CZ_OK) cz_snarkjs_r1cs_free(r);
    return 0;
}
