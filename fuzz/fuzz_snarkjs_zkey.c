/* libFuzzer: the snarkjs .zkey parser (subgroup checks on: they are part of
 * what must not crash). */
#include "cuzk/snarkjs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_snarkjs_zkey *z = NULL;
    cz_errbuf e;
    if (cz_snarkjs_zkey_parse(&z, data, size, 0, NULL, &e) == CZ_OK) cz_snarkjs_zkey_free(z);
    return 0;
}
