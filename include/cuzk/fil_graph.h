/*
 * cuzk — Filecoin's SDR graph (storage-proofs-core BucketGraph + the
 * storage-proofs-porep StackedGraph expander), its labelling and the
 * last-layer encoding.
 *
 * Graph: every node has 6 base ("DRG") parents, drawn per node from a
 * ChaCha8 stream seeded by the porep_id (BucketGraph::parents), and 8
 * expander parents from a 3-round Feistel permutation keyed by the porep_id
 * (StackedGraph::expanded_parents). Where 14 parents are listed, the order
 * is the reference's StackedGraph::parents: the 6 base parents, then the 8
 * expander parents. API 1.0 and 1.1/1.2 draw the same base parents but put
 * the immediate predecessor (node − 1) last (1.0) or first (1.1, 1.2); 1.0
 * also truncates the Feistel output to 32 bits before dividing (the
 * "pathology" of legacy 32/64GiB graphs). 1.1 and 1.2 are identical.
 *
 * Labels: label(layer, node) = SHA-256(replica_id ‖ layer u32 BE ‖ node
 * u64 BE ‖ 20 zero bytes ‖ 37 parent labels) with the top two bits of byte
 * 31 cleared; node 0 hashes no parents. The 37 parent labels are, for
 * layer 1, the 6 base parents' labels of layer 1 repeated (6 × 6 + the
 * first), and for later layers the 6 base parents' labels of the same layer
 * and the 8 expander parents' labels of the previous layer, repeated
 * (14 + 14 + the first 9). Layers are counted from 1.
 *
 * Encoding: replica node = key + data in Fr, key = last-layer label
 * (storage-proofs-porep encode::encode); decoding subtracts.
 *
 * Threading: a cz_fil_graph is read-only after init/build_cache and may be
 * shared by any number of threads.
 */
#ifndef CUZK_FIL_GRAPH_H
#define CUZK_FIL_GRAPH_H

#include "cuzk/filecoin.h"
#include "cuzk/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZ_FIL_BASE_DEGREE 6u  /* drgraph BASE_DEGREE */
#define CZ_FIL_EXP_DEGREE 8u   /* stacked graph EXP_DEGREE */
#define CZ_FIL_DEGREE 14u      /* BASE_DEGREE + EXP_DEGREE */
#define CZ_FIL_LABEL_PARENTS 37u /* stacked TOTAL_PARENTS */
#define CZ_FIL_FEISTEL_ROUNDS 3u

/* ---- Feistel permutation (storage-proofs-core crypto::feistel) ----------- */
typedef struct {
    uint64_t left_mask, right_mask, half_bits;
} cz_fil_feistel;

/* feistel::precompute: the smallest even bit width 2k (k >= 1) with
 * 4^k >= num_elements, split into two k-bit halves. */
void cz_fil_feistel_precompute(cz_fil_feistel *f, uint64_t num_elements);
/* feistel::permute / invert_permute: the Feistel encoding (decoding) of
 * index with keys[0..3) (keys[3] is unused, as in the reference), repeated
 * until the value falls below num_elements ("cycle walking"). index must be
 * below 4^half_bits; the result is a permutation of [0, num_elements). */
uint64_t cz_fil_feistel_permute(uint64_t num_elements, uint64_t index, const uint64_t keys[4],
                                const cz_fil_feistel *f);
uint64_t cz_fil_feistel_invert_permute(uint64_t num_elements, uint64_t index,
                                       const uint64_t keys[4], const cz_fil_feistel *f);
/* One Feistel encoding / decoding pass without cycle walking (feistel.rs's
 * private encode / decode); exposed so the reference's tests can be
 * ported. */
uint64_t cz_fil_feistel_encode(uint64_t index, const uint64_t keys[4], const cz_fil_feistel *f);
uint64_t cz_fil_feistel_decode(uint64_t index, const uint64_t keys[4], const cz_fil_feistel *f);

/* ---- seeds from the porep_id ------------------------------------------------ */
/* drgraph::derive_drg_seed: the first 28 bytes of
 * SHA-256("Filecoin_DRSample" ‖ porep_id). */
void cz_fil_derive_drg_seed(uint8_t out[28], const uint8_t porep_id[32]);
/* graph::derive_feistel_keys: SHA-256("Filecoin_Feistel" ‖ porep_id) read
 * as four u64 LE. */
void cz_fil_derive_feistel_keys(uint64_t out[4], const uint8_t porep_id[32]);

/* ---- the graph ----------------------------------------------------------------- */
typedef struct {
    uint64_t nodes;
    cz_fil_api_version api;
    uint8_t drg_seed[28];
    uint64_t feistel_keys[4];
    cz_fil_feistel feistel;  /* precomputed for nodes × EXP_DEGREE */
    /* Parent cache: NULL, or nodes × 14 parents (StackedGraph::parents
     * order), owned by the graph; see cz_fil_graph_build_cache. */
    uint32_t *cache;
} cz_fil_graph;

/* StackedBucketGraph::new_stacked(nodes, 6, 8, porep_id, api). nodes:
 * 1 .. 2^32 − 1 (the reference's u32 bound; sectors use powers of two).
 * Refuses other node counts and unknown api values with CZ_ERR_INVALID_ARG.
 * No cache is built (g->cache = NULL). */
CZ_WUR cz_status cz_fil_graph_init(cz_fil_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                                   cz_fil_api_version api);
/* Frees the cache; accepts a zeroed struct. */
void cz_fil_graph_free(cz_fil_graph *g);

/* Fills g->cache with every node's 14 parents, computed in parallel on pool
 * (NULL: serially). nodes × 56 bytes (14 MiB for 8MiB sectors, 56 GiB for
 * 32GiB ones); CZ_ERR_NOMEM if that cannot be allocated. A no-op if the
 * cache is already there. Not thread safe against other calls on g. */
CZ_WUR cz_status cz_fil_graph_build_cache(cz_fil_graph *g, cz_pool *pool);

/* As BucketGraph::parents: the 6 base parents of node (nodes 0 and 1: all
 * 0). As StackedGraph::expanded_parents: the 8 expander parents. As
 * StackedGraph::parents: both, 6 + 8. These never read the cache (so they
 * can check it); cz_fil_graph_parents_cached does. CZ_ERR_INVALID_ARG when
 * node >= nodes. */
CZ_WUR cz_status cz_fil_graph_base_parents(const cz_fil_graph *g, uint64_t node,
                                           uint32_t out[CZ_FIL_BASE_DEGREE]);
CZ_WUR cz_status cz_fil_graph_exp_parents(const cz_fil_graph *g, uint64_t node,
                                          uint32_t out[CZ_FIL_EXP_DEGREE]);
CZ_WUR cz_status cz_fil_graph_parents(const cz_fil_graph *g, uint64_t node,
                                      uint32_t out[CZ_FIL_DEGREE]);
/* The 14 parents from the cache if built, else computed. */
CZ_WUR cz_status cz_fil_graph_parents_cached(const cz_fil_graph *g, uint64_t node,
                                             uint32_t out[CZ_FIL_DEGREE]);

/* ---- labelling (storage-proofs-porep stacked::vanilla::create_label) ------- */
/* One label from its parents' labels in hashing order, as
 * LabelingProof::create_label / EncodingProof::create_key: SHA-256 of the
 * 64-byte header and the nparents labels, top two bits cleared. A C1
 * labeling proof has nparents = 37; node 0's label is this with nparents =
 * 0. parents may be NULL when nparents = 0. */
void cz_fil_label_from_parents(cz_fil_domain *out, const cz_fil_domain *replica_id,
                               uint32_t layer, uint64_t node, const cz_fil_domain *parents,
                               size_t nparents);

/* The 37 parent labels of (layer, node) in hashing order, as
 * prove_layers_generate assembles a LabelingProof: layer 1 reads base
 * parents from cur (the layer's own labels); later layers read base
 * parents from cur and expander parents from prev (layer − 1; NULL for
 * layer 1). CZ_ERR_INVALID_ARG on node >= nodes, layer 0, or a missing
 * prev. */
CZ_WUR cz_status cz_fil_label_parents(const cz_fil_graph *g, uint32_t layer, uint64_t node,
                                      const cz_fil_domain *cur, const cz_fil_domain *prev,
                                      cz_fil_domain out[CZ_FIL_LABEL_PARENTS]);

/* All labels of one layer (create_label / create_label_exp over every
 * node in order): out[node], nodes elements; prev is layer − 1's labels
 * (NULL for layer 1), which must not overlap out. Uses the cache when
 * built (much faster for large graphs). Labelling is sequential by nature
 * (each node reads earlier labels of its own layer), so it runs on the
 * calling thread. CZ_ERR_INVALID_ARG on layer 0 or a missing prev. */
CZ_WUR cz_status cz_fil_label_layer(const cz_fil_graph *g, const cz_fil_domain *replica_id,
                                    uint32_t layer, const cz_fil_domain *prev,
                                    cz_fil_domain *out);

/* Every layer 1 .. layers: labels[(layer − 1) · nodes + node], caller-owned
 * (layers × nodes × 32 bytes), as StackedDrg's generate_labels. */
CZ_WUR cz_status cz_fil_labels(const cz_fil_graph *g, const cz_fil_domain *replica_id,
                               unsigned layers, cz_fil_domain *labels);

/* ---- encoding (storage-proofs-porep encode) ------------------------------- */
/* out = key + data (encode) / out = replica − key (decode), in Fr. Inputs
 * must be canonical (CZ_ERR_NOT_CANONICAL otherwise; the reference panics).
 * out may alias either input. */
CZ_WUR cz_status cz_fil_encode(cz_fil_domain *out, const cz_fil_domain *key,
                               const cz_fil_domain *data);
CZ_WUR cz_status cz_fil_decode(cz_fil_domain *out, const cz_fil_domain *key,
                               const cz_fil_domain *replica);
/* The same over n nodes, in parallel on pool (NULL: serially); out may
 * alias data/replica (in place), not key. On a non-canonical input, returns
 * CZ_ERR_NOT_CANONICAL and out is partly written. */
CZ_WUR cz_status cz_fil_encode_nodes(cz_fil_domain *out, const cz_fil_domain *key,
                                     const cz_fil_domain *data, size_t n, cz_pool *pool);
CZ_WUR cz_status cz_fil_decode_nodes(cz_fil_domain *out, const cz_fil_domain *key,
                                     const cz_fil_domain *replica, size_t n, cz_pool *pool);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_GRAPH_H */
