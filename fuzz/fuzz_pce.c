/*
 * libFuzzer: the PCE file parser (cz_pce_parse) must refuse or accept,
 * never crash, leak or read out of bounds; an accepted input re-serializes
 * to exactly the same bytes.
 *
 * Random mutations almost never keep the SHA-256 checksum valid, so half of
 * the inputs are "resealed" first: the stored circuit hash and checksum are
 * recomputed over the mutated bytes (using the header's counts to find the
 * hashed ranges), so mutations reach the structure checks behind them.
 */
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/circuit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

enum { HDR = 8 + 8 + 64, HASH = 32 };

/* Recomputes circuit_hash and checksum in buf (if the counts make sense). */
static void reseal(uint8_t *buf, size_t len)
{
    if (len < HDR + HASH + 32)
        return;
    uint64_t c[8];
    memcpy(c, buf + 16, sizeof c);
    uint64_t n_inp = c[2], n_aux = c[3];
    if (n_inp > (1ull << 40) || n_aux > (1ull << 40))
        return;
    uint64_t dens = ((n_aux + 63) / 64 * 2 + (n_inp + 63) / 64) * 8;
    if (dens > len - HDR - HASH - 32)
        return;
    size_t mat_end = len - 32 - (size_t)dens; /* coefficients + matrices end here */
    static const char domain[] = "cuzk-pce-circuit-v1";
    EVP_MD_CTX *h = EVP_MD_CTX_new();
    unsigned n = 32;
    if (!h || EVP_DigestInit_ex(h, EVP_sha256(), NULL) != 1 || EVP_DigestUpdate(h, domain, sizeof domain) != 1 ||
        EVP_DigestUpdate(h, buf + 16, 64) != 1 ||
        EVP_DigestUpdate(h, buf + HDR + HASH, mat_end - (HDR + HASH)) != 1 ||
        EVP_DigestFinal_ex(h, buf + HDR, &n) != 1)
        abort();
    EVP_MD_CTX_free(h);
    SHA256(buf, len - 32, buf + len - 32);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    if (size && (data[size - 1] & 1))
        reseal(buf, size);
    cz_pce *p = NULL;
    char err[256];
    cz_status st = cz_pce_parse(&p, buf, size, err, sizeof err);
    if (st != CZ_OK) {
        if (p)
            abort(); /* nothing may be returned on error */
        free(buf);
        return 0;
    }
    if (cz_pce_file_size(p) != size)
        abort();
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz-pce-%d", (int)getpid());
    if (cz_pce_save(p, path, err, sizeof err) == CZ_OK) {
        FILE *f = fopen(path, "rb");
        uint8_t *back = malloc(size);
        if (f && back && fread(back, 1, size, f) == size && memcmp(back, buf, size) != 0)
            abort(); /* round trip must be byte-exact */
        free(back);
        if (f)
            fclose(f);
        remove(path);
    }
    cz_pce_free(p);
    free(buf);
    return 0;
}
