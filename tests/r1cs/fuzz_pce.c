/*
 * libFuzzer target for the PCE file parser (cz_pce_parse): any input must
 * give a status (never a crash, leak or out-of-bounds access), and an input
 * that parses must re-serialize to exactly the same bytes.
 *
 * Built with -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION the parser skips the
 * checksum and circuit-hash comparisons (so mutations reach the structure
 * checks); the round trip then compares all but those 64 bytes.
 *
 * Build (clang): clang -fsanitize=fuzzer,address,undefined -Iinclude
 *   tests/r1cs/fuzz_pce.c src/r1cs/ *.c src/ff/ *.c src/common/ *.c
 *   src/poly/threadpool.c -Isrc -lcrypto -lpthread -lm
 * Seed corpus: any file written by cz_pce_save (tests write small ones).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuzk/circuit.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_pce *p = NULL;
    char err[256];
    cz_status st = cz_pce_parse(&p, data, size, err, sizeof err);
    if (st != CZ_OK) {
        if (p)
            abort(); /* nothing may be returned on error */
        return 0;
    }
    if (cz_pce_file_size(p) != size)
        abort();
    char path[64];
    snprintf(path, sizeof path, "/tmp/fuzz-pce-%d", (int)getpid());
    if (cz_pce_save(p, path, err, sizeof err) == CZ_OK) {
        FILE *f = fopen(path, "rb");
        uint8_t *back = malloc(size ? size : 1);
        if (f && back && fread(back, 1, size, f) == size) {
            /* round trip must be byte-exact (hash and checksum aside) */
            if (memcmp(back, data, 80) != 0 || memcmp(back + 112, data + 112, size - 112 - 32) != 0)
                abort();
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
            if (memcmp(back, data, size) != 0)
                abort();
#endif
        }
        free(back);
        if (f)
            fclose(f);
        remove(path);
    }
    cz_pce_free(p);
    return 0;
}
