/*
 * The Feistel permutation behind the SDR expander (storage-proofs-core
 * crypto::feistel, include/cuzk/fil_graph.h).
 *
 * The round function is BLAKE2b-512 of (right u64 BE ‖ key u64 BE), whose
 * first 8 bytes, read big-endian, are masked to the half width. The
 * reference has a 4-byte variant behind a constant condition that is never
 * taken for its u64 Index, so only the 16-byte form exists here.
 */
#include "cuzk/fil_graph.h"
#include "cuzk/fil_hash.h"

void cz_fil_feistel_precompute(cz_fil_feistel *f, uint64_t num_elements)
{
    /* as feistel::precompute: start from 4 (one bit per half), so even a
     * 1-element set gets a 2-bit domain */
    uint64_t next_pow4 = 4, log4 = 1;
    while (next_pow4 < num_elements) {
        next_pow4 *= 4;
        log4++;
    }
    f->right_mask = ((uint64_t)1 << log4) - 1;
    f->left_mask = f->right_mask << log4;
    f->half_bits = log4;
}

/* feistel.rs feistel(): F(R, K) */
static uint64_t round_fn(uint64_t right, uint64_t key, uint64_t right_mask)
{
    uint8_t data[16], h[64];
    for (int i = 0; i < 8; i++) {
        data[i] = (uint8_t)(right >> (56 - 8 * i));
        data[8 + i] = (uint8_t)(key >> (56 - 8 * i));
    }
    cz_blake2b_512(h, data, sizeof data);
    uint64_t r = 0;
    for (int i = 0; i < 8; i++)
        r = r << 8 | h[i];
    return r & right_mask;
}

uint64_t cz_fil_feistel_encode(uint64_t index, const uint64_t keys[4], const cz_fil_feistel *f)
{
    uint64_t left = (index & f->left_mask) >> f->half_bits;
    uint64_t right = index & f->right_mask;
    for (unsigned i = 0; i < CZ_FIL_FEISTEL_ROUNDS; i++) {
        uint64_t nl = right;
        right = left ^ round_fn(right, keys[i], f->right_mask);
        left = nl;
    }
    return left << f->half_bits | right;
}

uint64_t cz_fil_feistel_decode(uint64_t index, const uint64_t keys[4], const cz_fil_feistel *f)
{
    uint64_t left = (index & f->left_mask) >> f->half_bits;
    uint64_t right = index & f->right_mask;
    for (unsigned i = CZ_FIL_FEISTEL_ROUNDS; i-- > 0;) {
        uint64_t nr = left;
        left = right ^ round_fn(left, keys[i], f->right_mask);
        right = nr;
    }
    return left << f->half_bits | right;
}

uint64_t cz_fil_feistel_permute(uint64_t num_elements, uint64_t index, const uint64_t keys[4],
                                const cz_fil_feistel *f)
{
    /* cycle walking: the 4^k domain is larger than the set, so re-encode
     * until the value lands inside it (terminates because encode is a
     * permutation of the domain and index itself is inside) */
    uint64_t u = cz_fil_feistel_encode(index, keys, f);
    while (u >= num_elements)
        u = cz_fil_feistel_encode(u, keys, f);
    return u;
}

uint64_t cz_fil_feistel_invert_permute(uint64_t num_elements, uint64_t index,
                                       const uint64_t keys[4], const cz_fil_feistel *f)
{
    uint64_t u = cz_fil_feistel_decode(index, keys, f);
    while (u >= num_elements)
        u = cz_fil_feistel_decode(u, keys, f);
    return u;
}
