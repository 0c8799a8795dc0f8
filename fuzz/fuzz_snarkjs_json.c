/* libFuzzer: the snarkjs JSON readers (proof, public inputs, vk); the first
 * byte selects which. */
#include "cuzk/snarkjs.h"
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    char *s = malloc(size);
    if (!s) return 0;
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';
    cz_errbuf e;
    switch (data[0] % 3) {
    case 0: {
        cz_groth16_proof_pts p;
        (void)cz_snarkjs_proof_from_json(&p, s, &e);
        break;
    }
    case 1: {
        cz_fr *x = NULL;
        size_t n;
        if (cz_snarkjs_public_from_json(&x, &n, s, &e) == CZ_OK) free(x);
        break;
    }
    default: {
        cz_snarkjs_vk vk;
        if (cz_snarkjs_vk_from_json(&vk, s, &e) == CZ_OK) cz_snarkjs_vk_clear(&vk);
        break;
    }
    }
    free(s);
    return 0;
}
