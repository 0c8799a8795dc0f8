/*
 * cuzk — Filecoin C1 output (SealCommitPhase1Output) in memory and as JSON.
 *
 * The in-memory form mirrors rust-fil-proofs' types one to one, so that the
 * JSON reader/writer (src/filecoin/c1_json.c) is a plain walk and the C2
 * circuit reads the same fields the reference's circuit does:
 *   SealCommitPhase1Output  -> cz_fil_c1
 *   stacked::Proof          -> cz_fil_vanilla_proof
 *   MerkleProof (ProofData Single / Sub / Top) -> cz_fil_merkle_proof
 *   InclusionPath / PathElement -> cz_fil_path / cz_fil_path_elem
 *   ColumnProof / Column    -> cz_fil_column_proof / cz_fil_column
 *   LabelingProof / EncodingProof -> cz_fil_label_proof
 *
 * JSON layout (serde, as filecoin-proofs-api writes it): domain elements are
 * arrays of 32 byte values (0..255); the vanilla proofs are
 * {"<vanilla_name>": [[proof per challenge] per partition]}; a column has
 * "index", "rows" and "_h": null. Curio's wrapper is
 * {"SectorNum": n, "Phase1Out": base64(C1 JSON), "SectorSize": bytes}.
 *
 * Ownership: every array in a cz_fil_c1 is owned by it and freed by
 * cz_fil_c1_free (which accepts a zeroed struct).
 */
#ifndef CUZK_FIL_C1_H
#define CUZK_FIL_C1_H

#include "cuzk/filecoin.h"
#include "cuzk/base64.h" /* Curio's wrapper; callers of the C1 API use it too */

#ifdef __cplusplus
extern "C" {
#endif

/* One level of an inclusion path: the arity − 1 sibling hashes and the
 * position (0 .. arity − 1) of the node being proved among its siblings. */
typedef struct {
    unsigned nhashes;
    cz_fil_domain *hashes;
    unsigned index;
} cz_fil_path_elem;

typedef struct {
    size_t len;
    cz_fil_path_elem *elems;  /* leaf level first */
} cz_fil_path;

typedef enum {
    CZ_FIL_PROOF_SINGLE = 0, /* base tree only */
    CZ_FIL_PROOF_SUB = 1,    /* base_proof + sub_proof */
    CZ_FIL_PROOF_TOP = 2     /* base_proof + sub_proof + top_proof */
} cz_fil_proof_kind;

typedef struct {
    cz_fil_proof_kind kind;
    cz_fil_domain root, leaf;
    cz_fil_path base;  /* Single: "path"; Sub/Top: "base_proof" */
    cz_fil_path sub;   /* Sub/Top: "sub_proof" */
    cz_fil_path top;   /* Top: "top_proof" */
} cz_fil_merkle_proof;

typedef struct {
    uint64_t index;      /* node index of the column */
    unsigned nrows;      /* = layers */
    cz_fil_domain *rows; /* label of layer 1 .. layers at that node */
} cz_fil_column;

typedef struct {
    cz_fil_column column;
    cz_fil_merkle_proof inclusion; /* into tree C */
} cz_fil_column_proof;

/* LabelingProof and EncodingProof share one layout. */
typedef struct {
    unsigned layer_index; /* counted from 1 */
    uint64_t node;
    unsigned nparents;    /* 37 for PoRep: the parent labels in hashing order */
    cz_fil_domain *parents;
} cz_fil_label_proof;

#define CZ_FIL_DRG_PARENTS 6u
#define CZ_FIL_EXP_PARENTS 8u

/* stacked::vanilla::Proof: everything proved about one challenge. */
typedef struct {
    cz_fil_merkle_proof comm_d_proofs;     /* tree D (SHA-256, binary) */
    cz_fil_merkle_proof comm_r_last_proof; /* tree R last (Poseidon) */
    cz_fil_column_proof c_x;               /* replica_column_proofs.c_x */
    cz_fil_column_proof drg_parents[CZ_FIL_DRG_PARENTS];
    cz_fil_column_proof exp_parents[CZ_FIL_EXP_PARENTS];
    unsigned nlabeling;                    /* = layers */
    cz_fil_label_proof *labeling_proofs;
    cz_fil_label_proof encoding_proof;
} cz_fil_vanilla_proof;

typedef struct {
    size_t nchallenges;
    cz_fil_vanilla_proof *proofs;
} cz_fil_partition_proofs;

typedef struct {
    const cz_fil_seal_proof *registered_proof;
    size_t npartitions;
    cz_fil_partition_proofs *partitions;
    cz_fil_domain comm_r, comm_d, replica_id;
    uint8_t seed[32], ticket[32];
} cz_fil_c1;

void cz_fil_c1_free(cz_fil_c1 *c1);

/* Parse a C1 output, either the filecoin-proofs-api JSON or Curio's wrapper
 * (detected by its "Phase1Out" member; SectorSize must then agree with the
 * registered proof). On error err names the JSON path of the problem
 * ("vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data.Single.leaf[3]:
 * expected an integer 0..255") and *out is left zeroed. Structural checks
 * only: sizes (32-byte domains, 37 parents, columns of `layers` rows,
 * DRG/expander counts, partitions and challenges of the registered proof,
 * path lengths and arities of its tree shapes); cz_fil_c1_check (cuzk/fil_seal.h) verifies the
 * values. */
CZ_WUR cz_status cz_fil_c1_parse(cz_fil_c1 *out, const char *json, size_t len, cz_errbuf *err);
CZ_WUR cz_status cz_fil_c1_read_file(cz_fil_c1 *out, const char *path, cz_errbuf *err);

/* Write the filecoin-proofs-api JSON (key order as serde writes it, no
 * whitespace). *out is malloc'd and NUL-terminated. */
CZ_WUR cz_status cz_fil_c1_to_json(const cz_fil_c1 *c1, char **out, size_t *len);
/* Curio's wrapper around the JSON above. */
CZ_WUR cz_status cz_fil_c1_to_curio_json(const cz_fil_c1 *c1, uint64_t sector_num, char **out,
                                         size_t *len);
/* Deep equality of two C1 outputs (every field). */
bool cz_fil_c1_equal(const cz_fil_c1 *a, const cz_fil_c1 *b);


#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_C1_H */
