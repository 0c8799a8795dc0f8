/* libFuzzer: the snarkjs .zkey parser, with every point test on (they are
 * part of what must not crash), and as `cuzk prove --zkey` reads a key
 * (the query points' tests left out, the coefficients kept as records)
 * followed by the separate point test. */
#include "cuzk/snarkjs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_snarkjs_zkey *z = NULL;
    cz_errbuf e;
    if (cz_snarkjs_zkey_parse(&z, data, size, 0, NULL, &e) == CZ_OK) cz_snarkjs_zkey_free(z);
    z = NULL;
    if (cz_snarkjs_zkey_parse(&z, data, size, CZ_SNARKJS_NO_QUERY_CHECK | CZ_SNARKJS_COEF_RECORDS, NULL, &e) ==
        CZ_OK) {
        (void)cz_snarkjs_zkey_check_points(z, NULL, &e);
        cz_snarkjs_zkey_free(z);
    }
    return 0;
}
