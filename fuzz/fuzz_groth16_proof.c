/* libFuzzer: Groth16 proof decoding (192 compressed bytes). */
#include "cuzk/groth16.h"
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t buf[CZ_GROTH16_PROOF_BYTES] = {0};
    memcpy(buf, data, size < sizeof buf ? size : sizeof buf);
    cz_groth16_proof p;
    cz_errbuf e;
    (void)cz_groth16_proof_decode(&p, buf, &e);
    return 0;
}
