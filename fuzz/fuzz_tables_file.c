/*
 * libFuzzer: the MSM table file's checks (cz__tables_file_parse, then
 * cz__tables_file_digest_ok) must refuse or accept, never crash or read
 * outside the file; an accepted header describes points that lie inside
 * it, back to back, ending where the digest starts.
 *
 * A random mutation almost never keeps the trailing digest valid, so half
 * of the inputs are "resealed" first (the digest recomputed the way the
 * writer computes it: SHA-256 of the SHA-256s of 16 MiB pieces), and the
 * total length field is set to the input's length in a quarter of them, so
 * mutations reach the checks behind those.
 */
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "prover/prover_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { HDR = 4096, CHUNK = 16 << 20 };

static void reseal(uint8_t *b, size_t len)
{
    if (len < HDR + 32) return;
    size_t body = len - 32, nch = (body + CHUNK - 1) / CHUNK;
    uint8_t *d = malloc(32 * nch);
    if (!d) return;
    for (size_t k = 0; k < nch; k++) {
        size_t from = k * (size_t)CHUNK, n = body - from < CHUNK ? body - from : CHUNK;
        unsigned dl = 32;
        EVP_Digest(b + from, n, d + 32 * k, &dl, EVP_sha256(), NULL);
    }
    unsigned dl = 32;
    EVP_Digest(d, 32 * nch, b + body, &dl, EVP_sha256(), NULL);
    free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    /* the first byte picks the variant; the rest is the file */
    uint8_t mode = data[0];
    size_t len = size - 1;
    uint8_t *b = malloc(len ? len : 1);
    if (!b) return 0;
    memcpy(b, data + 1, len);
    if ((mode & 2) && len >= 32) {
        uint64_t L = len;
        memcpy(b + 24, &L, 8);
    }
    if (mode & 1) reseal(b, len);
    cz__tables_file_info fi;
    cz_errbuf e = {{0}};
    if (cz__tables_file_parse(b, len, &fi, &e) == CZ_OK) {
        /* what the loader relies on: every query's points inside the file,
         * in order, the digest right after them */
        uint64_t at = HDR;
        for (int q = 0; q < CZ_GROTH16_NQ; q++) {
            if (!fi.plan.t[q]) continue;
            if (fi.off[q] != at) abort();
            size_t pb = q == CZ_GROTH16_Q_B_G2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine);
            at += (uint64_t)(fi.plan.t[q] - 1) * fi.plan.n[q] * pb;
        }
        if (at + 32 != len) abort();
        (void)cz__tables_file_digest_ok(b, len, NULL, &e);
    } else if (!e.msg[0]) {
        abort(); /* every refusal names what is wrong */
    }
    free(b);
    return 0;
}
