/*
 * cuzk — concrete circuits (synth functions for cuzk/circuit.h).
 */
#ifndef CUZK_CIRCUITS_H
#define CUZK_CIRCUITS_H

#include "cuzk/circuit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- mulchain: a small generic circuit for engine and sanitizer tests ----
 * x_{i+1} = x_i^2 + (i + 1) for i = 0 .. n_mul-1, starting from the public
 * input x_0 = x0; x_{n_mul} is public too. In addition n_extra_inputs
 * public inputs y_j (j < n_extra_inputs) are bound by y_j · 1 = x_{(j mod
 * n_mul) + 1}, so engine tests can vary the input count.
 * Public inputs, in order: x_0, x_{n_mul}, y_0, ... (after the constant one).
 * Constraints: n_mul + n_extra_inputs, plus the appended input rows
 * (3 + n_extra_inputs). Aux: n_mul − 1. Requires n_mul >= 1. */
typedef struct {
    size_t n_mul;
    size_t n_extra_inputs;
    cz_fr x0; /* Montgomery form */
} cz_mulchain;

cz_status cz_mulchain_synth(cz_cs *cs, const void *ctx);
/* Native twin: the public inputs the circuit allocates (2 + n_extra_inputs
 * values, without the constant one), written to out. */
void cz_mulchain_public_inputs(const cz_mulchain *mc, cz_fr *out);

/* ---- porep: the PoRep-shaped circuit (src/circuits/porep*.c) --------------
 * docs/design.md §5. A sector of n = 2^log_nodes nodes (Fr values: data d_i
 * below 2^254) is labelled in L layers: label(l, i) = H_label(replica_id,
 * l, i, base parent labels of layer l, expander parent labels of layer
 * l − 1 (zeros for l = 0)). The column of node i is its L labels,
 * col_i = Poseidon_{t=L+1}(label(0,i) .. label(L−1,i)); replica
 * r_i = d_i + label(L−1, i) (Fr addition). Trees: tree_d over the data
 * (tree_d hash = the label hash, arity tree_d_arity), tree_c over the column
 * hashes and tree_r over the replica (both Poseidon). comm_d, comm_c,
 * comm_r_last are their roots and comm_r = Poseidon_{t=3}(comm_c,
 * comm_r_last).
 *
 * H_label:
 *   Poseidon: Poseidon_{t=4+P}(replica_id, l, i, parents...) (P = base +
 *     expander parents, in that order) — cuzk/poseidon.h hash convention.
 *   SHA-256 (as Filecoin): SHA-256(replica_id as 32 B LE ‖ l as u32 BE ‖
 *     i as u64 BE ‖ 20 zero bytes ‖ each parent label as 32 B LE), digest
 *     truncated to 254 bits (clear the top 2 bits of byte 31) and read as a
 *     little-endian Fr (docs/design.md §5a). replica_id must then be < 2^254.
 *
 * Graph (deterministic from graph_seed; windows of CZ_POREP_WINDOW nodes so
 * the generator labels a window in parallel): for node i ≥ 1 let
 * h = i when i < W, else h = i − (i mod W) (the start of i's window).
 * Base parent 0 is h − 1, base parent j ≥ 1 is mix(seed, i, j) mod h: every
 * base parent lies in the same layer, before i (and before i's window once
 * past the first). Expander parent j is mix(seed, i, B + j) mod n, in the
 * previous layer. Node 0 has base parents 0 with labels taken as 0 (it is
 * never challenged: challenges lie in [1, n), as in Filecoin).
 * mix = the splitmix64 finaliser applied to seed ^ i·φ ^ (j+1)·c (porep.c).
 *
 * Circuit, per partition (scope "porep"), public inputs in this order
 * (cz_porep_public_inputs; 3 + C·(1 + P) of them, cz_porep_num_public):
 * replica_id, comm_d, comm_r, then for each challenge c = 0 .. C−1: its
 * index, then the indices of its P parents in cz_porep_parents order (base
 * first). A parent index is one public input: it holds log_nodes <= 32
 * bits, and one Fr holds up to 254. The verifier computes every parent
 * index from the graph, never from the proof, as Filecoin's verifier does
 * for each inclusion path's packed index bits.
 *   comm_r:        comm_c, comm_r_last private; Poseidon(comm_c,
 *                  comm_r_last) = comm_r.
 *   challenge[c]:  index   — the challenge decomposed into log_nodes bits
 *                            (so it is < n); these bits are the Merkle
 *                            index bits of tree_d, tree_c and tree_r: the
 *                            public challenge is bound to every opening.
 *                  tree_d  — data leaf included in comm_d.
 *                  parent[p] — index: the public parent index decomposed
 *                            into log_nodes bits (so it is < n);
 *                            the parent's L labels (private), its column
 *                            hash included in comm_c at those index bits:
 *                            every parent label used is bound to tree_c at
 *                            the graph's parent, so none can be invented
 *                            and no other node's column can stand in for
 *                            it. (The circuit does not evaluate the graph
 *                            function; binding its output as a public
 *                            input costs, per parent, 1 packing
 *                            constraint and 1 input with its appended
 *                            row, not a hash.)
 *                  layer[l] — label recomputed from replica_id, l, the
 *                            challenge and the parents' labels, equal to
 *                            the proof's label (private).
 *                  column  — hash of the L labels included in comm_c at
 *                            the challenge.
 *                  encoding — replica (private) = data + label(L−1).
 *                  tree_r  — replica included in comm_r_last.
 * Parameters require log_nodes to be a multiple of log2 of every arity.
 */
typedef enum { CZ_POREP_SHA256 = 1, CZ_POREP_POSEIDON = 2 } cz_porep_hash;

#define CZ_POREP_WINDOW 64u
#define CZ_POREP_MAX_PARENTS 20u /* Poseidon label width 4 + P <= 24 */
#define CZ_POREP_MAX_LAYERS 23u  /* column width L + 1 <= 24 */
#define CZ_POREP_MAX_LOG_NODES 32u

typedef struct {
    char name[24];
    unsigned log_domain;   /* budget: constraints (with input rows) + inputs <= 2^log_domain */
    unsigned log_nodes;    /* sector: 2^log_nodes nodes, 1..32 */
    unsigned layers;       /* L, 1..CZ_POREP_MAX_LAYERS */
    unsigned base_parents; /* B >= 1 */
    unsigned exp_parents;  /* E >= 0, B + E <= CZ_POREP_MAX_PARENTS */
    unsigned challenges;   /* per partition, >= 1 */
    unsigned tree_d_arity; /* 2 (SHA-256) or 2/4/8/16 (Poseidon) */
    unsigned tree_c_arity; /* Poseidon 2/4/8/16 */
    unsigned tree_r_arity; /* Poseidon 2/4/8/16 */
    cz_porep_hash hash;    /* labels and tree_d */
    uint64_t graph_seed;
} cz_porep_params;

/* Presets by name: "shaped-12", "shaped-14", "shaped-16" (Poseidon),
 * "shaped-18", "shaped-20" (SHA-256). NULL when unknown. The pointers are
 * static. cz_porep_preset_at(i) for i < cz_porep_preset_count(). */
const cz_porep_params *cz_porep_preset_get(const char *name);
size_t cz_porep_preset_count(void);
const cz_porep_params *cz_porep_preset_at(size_t i);
/* Checks the parameter contract above; err names the bad field. */
CZ_WUR cz_status cz_porep_params_check(const cz_porep_params *p, cz_errbuf *err);
static inline unsigned cz_porep_num_parents(const cz_porep_params *p)
{
    return p->base_parents + p->exp_parents;
}
/* Public inputs without the constant one: 3 + challenges · (1 + P). */
static inline size_t cz_porep_num_public(const cz_porep_params *p)
{
    return 3u + (size_t)p->challenges * (1u + cz_porep_num_parents(p));
}
/* Merkle depth / path length (elements) of a tree of the given arity. */
unsigned cz_porep_depth(const cz_porep_params *p, unsigned arity);
size_t cz_porep_path_len(const cz_porep_params *p, unsigned arity);
/* The P = B + E parents of node (< 2^log_nodes): base parents first. */
void cz_porep_parents(const cz_porep_params *p, uint64_t node, uint64_t *parents);
/* Native label: parent_labels holds P values (expander ones ignored and
 * taken as 0 when layer == 0). */
void cz_porep_label(const cz_porep_params *p, cz_fr *out, const cz_fr *replica_id, unsigned layer,
                    uint64_t node, const cz_fr *parent_labels);
/* Challenge c of partition `partition`: 1 + (first 8 bytes, LE, of
 * SHA-256("cuzk-porep-challenge" ‖ replica_id 32 B LE ‖ seed u64 LE ‖
 * partition u64 LE ‖ c u64 LE)) mod (n − 1). */
uint64_t cz_porep_challenge(const cz_porep_params *p, const cz_fr *replica_id, uint64_t seed,
                            uint64_t partition, uint64_t c);

/* Exact shape by recording the circuit (no values): constraints with the
 * appended input rows, inputs with the constant one, aux. */
typedef struct {
    uint64_t constraints, inputs, aux;
} cz_porep_shape;
CZ_WUR cz_status cz_porep_count(const cz_porep_params *p, cz_porep_shape *out);
/* One line: the parameters, then (if shape non-NULL) the exact counts and
 * whether constraints + inputs fit 2^log_domain. Written to buf (NUL-terminated). */
void cz_porep_describe(const cz_porep_params *p, const cz_porep_shape *shape, char *buf, size_t len);

/* ---- vanilla proofs (the "C1 output") ---------------------------------------
 * All cz_fr in Montgomery form. Per challenge, the arrays live in the
 * proof's single allocation. JSON format: docs/vanilla-proof.md and the
 * comment at the top of src/circuits/porep_json.c. */
typedef struct {
    uint64_t index;          /* challenged node, 1 <= index < n */
    cz_fr data;              /* tree_d leaf */
    cz_fr *data_path;        /* cz_porep_path_len(tree_d_arity) */
    cz_fr *labels;           /* L labels of the challenged node (its column) */
    cz_fr *column_path;      /* tree_c path */
    cz_fr replica;           /* tree_r leaf */
    cz_fr *replica_path;     /* tree_r path */
    uint64_t *parents;       /* P parent indices (graph order); the circuit and
                              * cz_porep_public_inputs take them from the
                              * graph, cz_porep_vanilla_verify checks these
                              * equal it */
    cz_fr *parent_labels;    /* P × L, parent-major: parent p's label of layer l at p·L + l */
    cz_fr *parent_paths;     /* P × tree_c path length, parent-major */
} cz_porep_challenge_proof;

typedef struct {
    cz_porep_params params;  /* copy of the preset */
    uint64_t sector_seed, challenge_seed;
    cz_fr replica_id, comm_d, comm_c, comm_r_last, comm_r;
    size_t n_partitions;
    cz_porep_challenge_proof *challenges; /* n_partitions × params.challenges, partition-major */
    void *arena_;                         /* internal */
} cz_porep_vanilla;

static inline const cz_porep_challenge_proof *cz_porep_vanilla_challenge(const cz_porep_vanilla *v,
                                                                         size_t partition, size_t c)
{
    return &v->challenges[partition * v->params.challenges + c];
}

/* Makes a random sector from sector_seed (data and replica_id), labels it,
 * builds the trees and writes the vanilla proof of n_partitions partitions
 * (challenges from challenge_seed). Multi-threaded with pool (NULL: calling
 * thread). Memory: about (L + 4)·32 B per node. Errors: CZ_ERR_INVALID_ARG
 * (params, n_partitions = 0 or > 1024), CZ_ERR_NOMEM. */
CZ_WUR cz_status cz_porep_generate(cz_porep_vanilla **out, const cz_porep_params *p,
                                   uint64_t sector_seed, uint64_t challenge_seed,
                                   size_t n_partitions, cz_pool *pool, cz_errbuf *err);
void cz_porep_vanilla_free(cz_porep_vanilla *v);
/* Native verification of everything the circuit checks, plus what the
 * circuit takes as public inputs (challenges derived from the seed, parent
 * indices per the graph: the parents[] field must equal the graph's and
 * each column is checked at the graph's index). err says
 * which field of which partition/challenge. CZ_ERR_UNSATISFIED on a bad
 * proof. */
CZ_WUR cz_status cz_porep_vanilla_verify(const cz_porep_vanilla *v, cz_errbuf *err);

/* JSON: *out is malloc'ed, NUL-terminated (free it). */
CZ_WUR cz_status cz_porep_vanilla_to_json(const cz_porep_vanilla *v, char **out, size_t *len);
CZ_WUR cz_status cz_porep_vanilla_save(const cz_porep_vanilla *v, const char *path, cz_errbuf *err);
/* Parses and validates the structure (never crashes on any input): known
 * preset and matching params, lengths, every field element canonical (< r)
 * and 64 hex digits, replica_id (and for SHA-256: data, data_path, labels,
 * parent labels) < 2^254, path
 * lengths, partition count equal to num_partitions (1..1024), challenge
 * indices in [1, n), parent indices < n. It does not check hashes (see
 * cz_porep_vanilla_verify). err names the field, e.g. "partitions[3].
 * challenges[1].parents[0].labels[2]: value >= r". Errors: CZ_ERR_FORMAT,
 * CZ_ERR_NOT_CANONICAL, CZ_ERR_NOT_FOUND (unknown preset), CZ_ERR_IO,
 * CZ_ERR_NOMEM. */
CZ_WUR cz_status cz_porep_vanilla_parse(cz_porep_vanilla **out, const char *json, size_t len,
                                        cz_errbuf *err);
CZ_WUR cz_status cz_porep_vanilla_load(cz_porep_vanilla **out, const char *path, cz_errbuf *err);

/* ---- synthesis of one partition ---------------------------------------------
 * ctx for cz_porep_synth: params always; vanilla NULL for shape-only
 * recording (then the cs must not want values); partition < n_partitions. */
typedef struct {
    const cz_porep_params *params;
    const cz_porep_vanilla *vanilla;
    size_t partition;
} cz_porep_ctx;

/* ctx for partition `partition` of v (CZ_ERR_INVALID_ARG when out of range). */
CZ_WUR cz_status cz_porep_ctx_init(cz_porep_ctx *ctx, const cz_porep_vanilla *v, size_t partition);
cz_status cz_porep_synth(cz_cs *cs, const void *ctx);
/* The partition's public inputs in circuit order, without the constant one:
 * out receives cz_porep_num_public(&v->params) values. The parent indices
 * are computed from the graph (cz_porep_parents of each challenge index),
 * not read from the proof's parents[]. */
CZ_WUR cz_status cz_porep_public_inputs(const cz_porep_vanilla *v, size_t partition, cz_fr *out);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_CIRCUITS_H */
