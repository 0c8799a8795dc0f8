/*
 * cuzk — Filecoin sealing in memory: pre-commit phase 1 (tree D, replica
 * id, SDR labels), pre-commit phase 2 (tree C, encoding, tree R last,
 * comm_r) and commit phase 1 (the vanilla proofs of the challenged nodes,
 * as a cz_fil_c1), and the native check of a C1 output.
 *
 * Mirrors filecoin-proofs seal_pre_commit_phase1 / _phase2 /
 * seal_commit_phase1 over storage-proofs-porep's StackedDrg
 * (replicate_phase1/2, prove_layers). Everything is held in memory — the
 * sizes sealed here are 2KiB, 8MiB and 512MiB (about 7× the sector size
 * at the peak: data, labels of every layer, trees D, C and R); 32/64GiB
 * sectors need the reference's on-disk layer store and are not sealed by
 * cuzk (it proves their C1 outputs).
 *
 * Sector data: the unpadded bytes of the sector's content (sector_size ·
 * 127/128 bytes); shorter data is zero-filled, which is what a sector
 * whose free space is filled with zero pieces holds when the data is a
 * single piece of a power-of-two padded size.
 */
#ifndef CUZK_FIL_SEAL_H
#define CUZK_FIL_SEAL_H

#include "cuzk/filecoin.h"
#include "cuzk/fil_c1.h"
#include "cuzk/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const cz_fil_seal_proof *proof;
    uint8_t prover_id[32];
    uint64_t sector_id;
    uint8_t ticket[32];
    uint8_t seed[32];   /* interactive seed (ignored by non-interactive proofs) */
    /* A PoRepConfig other than the registered proof's (filecoin-proofs'
     * regression records use porep ids such as [127; 32]): when set, the
     * graph and replica_id use porep_id and api instead. */
    bool custom_porep;
    uint8_t porep_id[32];
    cz_fil_api_version api;
    /* Optional output: when non-NULL, receives the sealed sector (the
     * replica: sector_size bytes, node i = last layer's label + data node
     * i, as the sealed-sector file rust-fil-proofs writes). */
    uint8_t *sealed_out;
} cz_fil_seal_params;

typedef struct {
    cz_fil_domain replica_id, comm_d, comm_c, comm_r_last, comm_r;
    uint64_t nodes;
    /* wall-clock milliseconds per phase */
    double ms_tree_d, ms_graph, ms_labels, ms_tree_c, ms_encode, ms_tree_r, ms_c1;
} cz_fil_seal_result;

/* Unpadded capacity of a sector: sector_size / 128 · 127 bytes. */
static inline uint64_t cz_fil_unpadded_size(uint64_t sector_size) { return sector_size / 128 * 127; }

/* Seal `data` (len <= unpadded size) and, when c1 is non-NULL, produce the
 * C1 output (owned by the caller; cz_fil_c1_free). pool may be NULL.
 * Errors: CZ_ERR_INVALID_ARG (data too long, unsupported sector size for
 * in-memory sealing: above 512MiB), CZ_ERR_NOMEM. */
CZ_WUR cz_status cz_fil_seal(const cz_fil_seal_params *p, const uint8_t *data, size_t len,
                             cz_pool *pool, cz_fil_seal_result *res, cz_fil_c1 *c1,
                             cz_errbuf *err);

/* Verify a C1 output natively, as the reference's vanilla verifier and
 * more strictly: every challenge is the one derived for its partition,
 * every Merkle path (tree D to comm_d; columns to one comm_c; tree R to
 * one comm_r_last) opens the challenged or parent node, comm_r =
 * Poseidon(comm_c, comm_r_last), each column's parents are the graph's,
 * every labeling proof's parents are the columns' labels in hashing order
 * and its label is the column's row, and the encoding proof turns the
 * data leaf into the replica leaf. The first failure is named in err
 * ("partition 0, challenge 1 (node 48): labeling_proofs[1]: ...") and
 * returned as CZ_ERR_MISMATCH (values) or CZ_ERR_FORMAT (shape). */
CZ_WUR cz_status cz_fil_c1_check(const cz_fil_c1 *c1, cz_pool *pool, cz_errbuf *err);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_SEAL_H */
