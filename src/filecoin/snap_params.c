/*
 * SnapDeals constants (storage-proofs-update constants.rs, vanilla.rs
 * PublicParams::from_sector_size, filecoin-proofs-api RegisteredUpdateProof)
 * and the randomness of the update: challenges (challenges.rs), phi and
 * rho (vanilla.rs). See cuzk/fil_snap.h.
 */
#include "cuzk/fil_snap.h"
#include "cuzk/fil_poseidon.h"

#include <stdlib.h>
#include <string.h>

#define HS_SMALL { 1, 1, 1, 1, 1, 1 }
#define HS_PROD { 7, 8, 9, 10, 11, 12 }

/* One row per constants.rs ALLOWED_SECTOR_SIZES entry. Columns: id, name,
 * circuit id, parameter file, bytes, nodes, bits, partitions, partition
 * bits, challenges, apex leaves, apex bits, hs, h_default, sub, top, base
 * levels of tree R. partition_count(): 1 up to 8KiB, 2 up to 32KiB, 4 up
 * to 16MiB, else 16; challenge_count(): 10 up to 16MiB, else 86;
 * apex_leaf_count(): 8 up to 8KiB, else 128. */
const cz_fil_snap_proof cz_fil_snap_proofs[] = {
    { 0, "StackedDrg2KiBV1", "snap-2k",
      "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
      "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194",
      2048, 1u << 6, 6, 1, 0, 10, 8, 3, HS_SMALL, 1, 0, 0, 2 },
    { 1, "StackedDrg8MiBV1", "snap-8m",
      "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
      "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63",
      8u << 20, 1u << 18, 18, 4, 2, 10, 128, 7, HS_PROD, 10, 0, 0, 6 },
    { 2, "StackedDrg512MiBV1", "snap-512m",
      "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
      "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c",
      512u << 20, 1u << 24, 24, 16, 4, 86, 128, 7, HS_PROD, 10, 0, 0, 8 },
    { 3, "StackedDrg32GiBV1", "snap-32g",
      "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
      "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18",
      32ull << 30, 1ull << 30, 30, 16, 4, 86, 128, 7, HS_PROD, 10, 8, 0, 9 },
    { 4, "StackedDrg64GiBV1", "snap-64g",
      "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
      "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7",
      64ull << 30, 1ull << 31, 31, 16, 4, 86, 128, 7, HS_PROD, 10, 8, 2, 9 },
};
const size_t cz_fil_snap_proofs_count = sizeof cz_fil_snap_proofs / sizeof cz_fil_snap_proofs[0];

/* The reference's test-only sizes, with validate_tree_r_shape's shapes. */
static const cz_fil_snap_proof test_shapes[] = {
    { CZ_FIL_SNAP_NOT_REGISTERED, "1KiB (test)", NULL, NULL, 1024, 1u << 5, 5, 1, 0, 10, 8, 3, HS_SMALL, 1, 4, 0, 1 },
    { CZ_FIL_SNAP_NOT_REGISTERED, "4KiB (test)", NULL, NULL, 4096, 1u << 7, 7, 1, 0, 10, 8, 3, HS_SMALL, 1, 2, 0, 2 },
    { CZ_FIL_SNAP_NOT_REGISTERED, "8KiB (test)", NULL, NULL, 8192, 1u << 8, 8, 1, 0, 10, 8, 3, HS_SMALL, 1, 4, 0, 2 },
    { CZ_FIL_SNAP_NOT_REGISTERED, "16KiB (test)", NULL, NULL, 16384, 1u << 9, 9, 2, 1, 10, 128, 7, HS_SMALL, 1, 8, 0, 2 },
    { CZ_FIL_SNAP_NOT_REGISTERED, "32KiB (test)", NULL, NULL, 32768, 1u << 10, 10, 2, 1, 10, 128, 7, HS_SMALL, 1, 8, 2, 2 },
    { CZ_FIL_SNAP_NOT_REGISTERED, "16MiB (test)", NULL, NULL, 16u << 20, 1u << 19, 19, 4, 2, 10, 128, 7, HS_PROD, 10, 2, 0, 6 },
};

const cz_fil_snap_proof *cz_fil_snap_proof_by_id(unsigned id) {
    return id < cz_fil_snap_proofs_count ? &cz_fil_snap_proofs[id] : NULL;
}

const cz_fil_snap_proof *cz_fil_snap_proof_by_name(const char *name) {
    if (!name || !*name) return NULL;
    for (size_t i = 0; i < cz_fil_snap_proofs_count; i++)
        if (!strcmp(name, cz_fil_snap_proofs[i].name) || !strcmp(name, cz_fil_snap_proofs[i].circuit_id))
            return &cz_fil_snap_proofs[i];
    char *end;
    unsigned long v = strtoul(name, &end, 10);
    if (*end == '\0' && name[0] >= '0' && name[0] <= '9') return cz_fil_snap_proof_by_id((unsigned)v);
    return NULL;
}

const cz_fil_snap_proof *cz_fil_snap_shape_by_size(uint64_t sector_size) {
    for (size_t i = 0; i < cz_fil_snap_proofs_count; i++)
        if (cz_fil_snap_proofs[i].sector_size == sector_size) return &cz_fil_snap_proofs[i];
    for (size_t i = 0; i < sizeof test_shapes / sizeof test_shapes[0]; i++)
        if (test_shapes[i].sector_size == sector_size) return &test_shapes[i];
    return NULL;
}

/* constants.rs h_select: position() of the first hs entry equal to h. */
cz_status cz_fil_snap_h_select(const cz_fil_snap_proof *p, unsigned h, uint64_t *out) {
    if (!p || !out) return CZ_ERR_INVALID_ARG;
    for (unsigned i = 0; i < CZ_FIL_SNAP_HS; i++)
        if (p->hs[i] == h) {
            *out = 1ull << i;
            return CZ_OK;
        }
    return CZ_ERR_INVALID_ARG;
}

/* circuit.rs PublicInputs::new: k | h_select << partition_bit_len. */
cz_status cz_fil_snap_k_and_h_select(const cz_fil_snap_proof *p, unsigned k, unsigned h, uint64_t *out) {
    if (!p || !out || k >= p->partitions) return CZ_ERR_INVALID_ARG;
    uint64_t hsel;
    cz_status st = cz_fil_snap_h_select(p, h, &hsel);
    if (st != CZ_OK) return st;
    *out = (uint64_t)k | (hsel << p->partition_bit_len);
    return CZ_OK;
}

/* POSEIDON_CONSTANTS_GEN_RANDOMNESS: arity 2, Standard, Custom(Arbitrary(1)). */
static cz_status gen_constants(cz_neptune_constants *c) {
    return cz_neptune_constants_init(c, 2, CZ_NEPTUNE_STANDARD, CZ_NEPTUNE_CUSTOM, 1);
}

static cz_status gen_hash(cz_fr *out, const cz_fr *a, const cz_fr *b) {
    cz_neptune_constants c;
    cz_status st = gen_constants(&c);
    if (st != CZ_OK) return st;
    cz_fr in[2] = { *a, *b };
    cz_neptune_hash(out, &c, in);
    return CZ_OK;
}

/* vanilla.rs phi */
cz_status cz_fil_snap_phi(cz_fil_domain *out, const cz_fil_domain *comm_d_new, const cz_fil_domain *comm_r_old) {
    if (!out || !comm_d_new || !comm_r_old) return CZ_ERR_INVALID_ARG;
    cz_fr d, r, h;
    cz_status st = cz_fil_domain_to_fr(&d, comm_d_new);
    if (st == CZ_OK) st = cz_fil_domain_to_fr(&r, comm_r_old);
    if (st == CZ_OK) st = gen_hash(&h, &d, &r);
    if (st == CZ_OK) cz_fil_domain_from_fr(out, &h);
    return st;
}

/* vanilla.rs rho */
cz_status cz_fil_snap_rho(cz_fr *out, const cz_fil_domain *phi, uint32_t high) {
    if (!out || !phi) return CZ_ERR_INVALID_ARG;
    cz_fr f, hi;
    cz_status st = cz_fil_domain_to_fr(&f, phi);
    if (st != CZ_OK) return st;
    cz_fr_from_u64(&hi, high);
    return gen_hash(out, &f, &hi);
}

/* challenges.rs Challenges::new + Iterator::next. digests_per_partition is
 * computed there as ceil(count as f32 / per_digest as f32); for the
 * counts in use (10, 86 over 9..42 per digest) that equals the integer
 * ceiling, which is what is used here. */
cz_status cz_fil_snap_challenges(const cz_fil_snap_proof *p, const cz_fil_domain *comm_r_new, unsigned k,
                                 uint32_t *out) {
    if (!p || !comm_r_new || !out || k >= p->partitions) return CZ_ERR_INVALID_ARG;
    cz_fr comm;
    cz_status st = cz_fil_domain_to_fr(&comm, comm_r_new);
    if (st != CZ_OK) return st;
    unsigned bits = p->challenge_bit_len - p->partition_bit_len;
    unsigned per_digest = 254u / bits;
    unsigned dpp = (p->challenges + per_digest - 1) / per_digest;
    uint64_t digest_index = (uint64_t)k * dpp;
    uint32_t partition_bits = (uint32_t)k << bits;
    unsigned i = 0;
    uint8_t le[32];
    for (unsigned n = 0; n < p->challenges; n++) {
        if (i == 0) {
            cz_fr idx, dg;
            cz_fr_from_u64(&idx, digest_index);
            st = gen_hash(&dg, &comm, &idx);
            if (st != CZ_OK) return st;
            cz_fr_to_bytes_le(le, &dg);
        }
        uint32_t c = 0;
        for (unsigned b = 0; b < bits; b++) {
            unsigned pos = i * bits + b;
            if ((le[pos / 8] >> (pos % 8)) & 1) c |= 1u << b;
        }
        out[n] = c | partition_bits;
        if (++i == per_digest) {
            i = 0;
            digest_index++;
        }
    }
    return CZ_OK;
}
