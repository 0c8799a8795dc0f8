/*
 * In-memory sealing (PC1, PC2, C1) and the native C1 check; see
 * cuzk/fil_seal.h. Each step names the rust-fil-proofs function it
 * mirrors.
 */
#include "cuzk/fil_seal.h"
#include "cuzk/fil_tree.h"
#include "cuzk/fil_graph.h"
#include "cuzk/fil_poseidon.h"
#include "cuzk/fil_challenge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "common/mono_clock.h"

/* Everything PC1/PC2 leave behind that C1 reads (TemporaryAuxCache). */
typedef struct {
    const cz_fil_seal_proof *proof;
    uint64_t nodes;
    unsigned layers;
    cz_fil_graph graph;
    cz_fil_domain *data;   /* fr32-padded sector, nodes */
    cz_fil_domain *labels; /* layers × nodes, layer 1 first */
    cz_fil_tree tree_d, tree_c, tree_r;
    cz_fil_domain replica_id, comm_c, comm_r_last, comm_r;
} sector;

static void sector_free(sector *s) {
    cz_fil_graph_free(&s->graph);
    free(s->data);
    free(s->labels);
    cz_fil_tree_free(&s->tree_d);
    cz_fil_tree_free(&s->tree_c);
    cz_fil_tree_free(&s->tree_r);
    memset(s, 0, sizeof *s);
}

/* Build the column proof of `node` (Column::into_proof against tree C). */
static cz_status column_proof(const sector *s, uint64_t node, cz_fil_column_proof *out) {
    memset(out, 0, sizeof *out);
    out->column.index = node;
    out->column.nrows = s->layers;
    out->column.rows = malloc(s->layers * sizeof *out->column.rows);
    if (!out->column.rows) return CZ_ERR_NOMEM;
    for (unsigned l = 0; l < s->layers; l++) out->column.rows[l] = s->labels[(size_t)l * s->nodes + node];
    return cz_fil_tree_prove(&s->tree_c, node, &out->inclusion);
}

static cz_status label_proof(const sector *s, unsigned layer, uint64_t node, cz_fil_label_proof *out) {
    memset(out, 0, sizeof *out);
    out->layer_index = layer;
    out->node = node;
    out->nparents = CZ_FIL_LABEL_PARENTS;
    out->parents = malloc(CZ_FIL_LABEL_PARENTS * sizeof *out->parents);
    if (!out->parents) return CZ_ERR_NOMEM;
    const cz_fil_domain *cur = s->labels + (size_t)(layer - 1) * s->nodes;
    const cz_fil_domain *prev = layer > 1 ? s->labels + (size_t)(layer - 2) * s->nodes : NULL;
    return cz_fil_label_parents(&s->graph, layer, node, cur, prev, out->parents);
}

/* prove_layers_generate for one challenge. */
static cz_status prove_challenge(const sector *s, uint64_t c, cz_fil_vanilla_proof *v) {
    memset(v, 0, sizeof *v);
    cz_status st = cz_fil_tree_prove(&s->tree_d, c, &v->comm_d_proofs);
    if (st == CZ_OK) st = cz_fil_tree_prove(&s->tree_r, c, &v->comm_r_last_proof);
    if (st == CZ_OK) st = column_proof(s, c, &v->c_x);
    uint32_t par[CZ_FIL_DEGREE];
    if (st == CZ_OK) st = cz_fil_graph_parents_cached(&s->graph, c, par);
    for (unsigned i = 0; st == CZ_OK && i < CZ_FIL_DRG_PARENTS; i++)
        st = column_proof(s, par[i], &v->drg_parents[i]);
    for (unsigned i = 0; st == CZ_OK && i < CZ_FIL_EXP_PARENTS; i++)
        st = column_proof(s, par[CZ_FIL_DRG_PARENTS + i], &v->exp_parents[i]);
    if (st == CZ_OK) {
        v->labeling_proofs = calloc(s->layers, sizeof *v->labeling_proofs);
        if (!v->labeling_proofs) st = CZ_ERR_NOMEM;
        else v->nlabeling = s->layers;
    }
    for (unsigned l = 1; st == CZ_OK && l <= s->layers; l++)
        st = label_proof(s, l, c, &v->labeling_proofs[l - 1]);
    if (st == CZ_OK) st = label_proof(s, s->layers, c, &v->encoding_proof);
    return st;
}

/* Interactive/NI challenges or the synthetic selection, per partition. */
static cz_status derive_challenges(const cz_fil_seal_proof *p, uint64_t nodes,
                                   const cz_fil_domain *replica_id, const cz_fil_domain *comm_r,
                                   const uint8_t seed[32], unsigned k, uint64_t *out) {
    (void)nodes;
    return cz_fil_porep_challenges(out, p, k, replica_id, seed, comm_r, NULL);
}

static cz_status make_c1(const sector *s, const cz_fil_seal_params *p, const cz_fil_domain *comm_d,
                         cz_fil_c1 *c1) {
    memset(c1, 0, sizeof *c1);
    c1->registered_proof = p->proof;
    c1->comm_d = *comm_d;
    c1->comm_r = s->comm_r;
    c1->replica_id = s->replica_id;
    memcpy(c1->seed, p->seed, 32);
    memcpy(c1->ticket, p->ticket, 32);
    c1->partitions = calloc(p->proof->partitions, sizeof *c1->partitions);
    if (!c1->partitions) return CZ_ERR_NOMEM;
    c1->npartitions = p->proof->partitions;
    unsigned cpp = p->proof->challenges_per_partition;
    uint64_t *ch = malloc(cpp * sizeof *ch);
    if (!ch) return CZ_ERR_NOMEM;
    cz_status st = CZ_OK;
    for (unsigned k = 0; st == CZ_OK && k < p->proof->partitions; k++) {
        st = derive_challenges(p->proof, s->nodes, &s->replica_id, &s->comm_r, p->seed, k, ch);
        if (st != CZ_OK) break;
        cz_fil_partition_proofs *pp = &c1->partitions[k];
        pp->proofs = calloc(cpp, sizeof *pp->proofs);
        if (!pp->proofs) { st = CZ_ERR_NOMEM; break; }
        pp->nchallenges = cpp;
        for (unsigned j = 0; st == CZ_OK && j < cpp; j++) st = prove_challenge(s, ch[j], &pp->proofs[j]);
    }
    free(ch);
    return st;
}

cz_status cz_fil_seal(const cz_fil_seal_params *p, const uint8_t *data, size_t len, cz_pool *pool,
                      cz_fil_seal_result *res, cz_fil_c1 *c1, cz_errbuf *err) {
    if (c1) memset(c1, 0, sizeof *c1);
    if (!p || !p->proof || !res || (len && !data)) return cz_err(err, CZ_ERR_INVALID_ARG, "seal: missing argument");
    memset(res, 0, sizeof *res);
    const cz_fil_seal_proof *proof = p->proof;
    if (proof->sector_size > (512ull << 20))
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "seal: %s sectors are not sealed in memory (2KiB, 8MiB and 512MiB are)", proof->name);
    uint64_t unpadded = cz_fil_unpadded_size(proof->sector_size);
    if (len > unpadded)
        return cz_err(err, CZ_ERR_INVALID_ARG, "seal: %zu bytes of data do not fit a %s sector (at most %llu unpadded bytes)",
                      len, proof->name, (unsigned long long)unpadded);
    sector s;
    memset(&s, 0, sizeof s);
    s.proof = proof;
    s.nodes = proof->sector_size / CZ_FIL_NODE_SIZE;
    s.layers = proof->layers;
    res->nodes = s.nodes;
    cz_status st = CZ_ERR_NOMEM;
    uint8_t *raw = calloc(1, unpadded);
    s.data = malloc(s.nodes * sizeof *s.data);
    s.labels = malloc((size_t)s.layers * s.nodes * sizeof *s.labels);
    if (!raw || !s.data || !s.labels) goto out;
    if (len) memcpy(raw, data, len);
    cz_fil_fr32_pad(s.data->b, raw, unpadded);

    /* PC1: tree D and comm_d (compute_comm_d over the padded data) */
    double t = cz_mono_ms();
    st = cz_fil_tree_build(&s.tree_d, CZ_FIL_HASHER_SHA256, 2, 0, 0, s.data, s.nodes, pool);
    if (st != CZ_OK) goto out;
    res->comm_d = s.tree_d.root;
    res->ms_tree_d = cz_mono_ms() - t;

    uint8_t porep_id[32];
    cz_fil_api_version api = proof->api;
    if (p->custom_porep) {
        memcpy(porep_id, p->porep_id, 32);
        api = p->api;
    } else {
        cz_fil_porep_id(porep_id, proof);
    }
    cz_fil_replica_id(&s.replica_id, p->prover_id, p->sector_id, p->ticket, &res->comm_d, porep_id);
    res->replica_id = s.replica_id;

    t = cz_mono_ms();
    st = cz_fil_graph_init(&s.graph, s.nodes, porep_id, api);
    if (st == CZ_OK) st = cz_fil_graph_build_cache(&s.graph, pool);
    if (st != CZ_OK) goto out;
    res->ms_graph = cz_mono_ms() - t;

    t = cz_mono_ms();
    st = cz_fil_labels(&s.graph, &s.replica_id, s.layers, s.labels);
    if (st != CZ_OK) goto out;
    res->ms_labels = cz_mono_ms() - t;

    /* PC2: tree C over the column hashes */
    t = cz_mono_ms();
    {
        cz_fil_domain *cols = malloc(s.nodes * sizeof *cols);
        if (!cols) { st = CZ_ERR_NOMEM; goto out; }
        /* hash_single_column of every node's labels (generate_tree_c_cpu) */
        const cz_fil_domain *layer_ptr[16];
        for (unsigned l = 0; l < s.layers; l++) layer_ptr[l] = s.labels + (size_t)l * s.nodes;
        st = cz_fil_poseidon_hash_columns(cols, layer_ptr, s.layers, s.nodes, pool);
        if (st == CZ_OK)
            st = cz_fil_tree_build(&s.tree_c, CZ_FIL_HASHER_POSEIDON, 8, proof->tree_sub_arity,
                               proof->tree_top_arity, cols, s.nodes, pool);
        free(cols);
        if (st != CZ_OK) goto out;
        s.comm_c = s.tree_c.root;
    }
    res->ms_tree_c = cz_mono_ms() - t;

    /* encoding: replica = last layer's label + data (in Fr) */
    t = cz_mono_ms();
    {
        cz_fil_domain *rep = malloc(s.nodes * sizeof *rep);
        if (!rep) { st = CZ_ERR_NOMEM; goto out; }
        st = cz_fil_encode_nodes(rep, s.labels + (size_t)(s.layers - 1) * s.nodes, s.data, s.nodes, pool);
        if (st == CZ_OK && p->sealed_out) memcpy(p->sealed_out, rep, s.nodes * sizeof *rep);
        res->ms_encode = cz_mono_ms() - t;
        t = cz_mono_ms();
        if (st == CZ_OK)
            st = cz_fil_tree_build(&s.tree_r, CZ_FIL_HASHER_POSEIDON, 8, proof->tree_sub_arity,
                                   proof->tree_top_arity, rep, s.nodes, pool);
        free(rep);
        if (st != CZ_OK) goto out;
        s.comm_r_last = s.tree_r.root;
    }
    res->ms_tree_r = cz_mono_ms() - t;
    st = cz_fil_poseidon_hash2(&s.comm_r, &s.comm_c, &s.comm_r_last);
    if (st != CZ_OK) goto out;
    res->comm_c = s.comm_c;
    res->comm_r_last = s.comm_r_last;
    res->comm_r = s.comm_r;

    /* C1 */
    if (c1) {
        t = cz_mono_ms();
        st = make_c1(&s, p, &res->comm_d, c1);
        if (st != CZ_OK) {
            cz_fil_c1_free(c1);
            goto out;
        }
        res->ms_c1 = cz_mono_ms() - t;
    }
    st = CZ_OK;
out:
    free(raw);
    sector_free(&s);
    if (st == CZ_ERR_NOMEM) return cz_err(err, st, "seal: out of memory");
    if (st != CZ_OK) return cz_err(err, st, "seal failed: %s", cz_status_str(st));
    return CZ_OK;
}

/* ---- C1 check ----------------------------------------------------------------- */
typedef struct {
    const cz_fil_c1 *c1;
    const cz_fil_graph *graph;
    unsigned sub, top, layers;
    cz_fil_domain comm_c, comm_r_last;
} check_ctx;

#define CHK(cond, st_, ...) do { if (!(cond)) return cz_err(err, st_, __VA_ARGS__); } while (0)

static cz_status check_column(const check_ctx *x, const cz_fil_column_proof *cp, uint64_t node,
                              const char *what, const char *pre, cz_errbuf *err) {
    CHK(cp->column.index == node, CZ_ERR_MISMATCH, "%s%s: column of node %llu, expected node %llu", pre, what,
        (unsigned long long)cp->column.index, (unsigned long long)node);
    CHK(cp->column.nrows == x->layers, CZ_ERR_FORMAT, "%s%s: %u rows, expected %u", pre, what, cp->column.nrows, x->layers);
    cz_fil_domain h;
    CHK(cz_fil_poseidon_hash_column(&h, cp->column.rows, cp->column.nrows) == CZ_OK, CZ_ERR_MISMATCH,
        "%s%s: a row is not a canonical field element", pre, what);
    CHK(memcmp(h.b, cp->inclusion.leaf.b, 32) == 0, CZ_ERR_MISMATCH,
        "%s%s: column hash does not equal its tree C leaf", pre, what);
    cz_errbuf e2;
    cz_status st = cz_fil_merkle_proof_check(&cp->inclusion, CZ_FIL_HASHER_POSEIDON, 8, x->sub, x->top, node, &e2);
    CHK(st == CZ_OK, st, "%s%s.inclusion_proof: %s", pre, what, e2.msg);
    CHK(memcmp(cp->inclusion.root.b, x->comm_c.b, 32) == 0, CZ_ERR_MISMATCH,
        "%s%s.inclusion_proof: root is not comm_c", pre, what);
    return CZ_OK;
}

static cz_status check_challenge(const check_ctx *x, const cz_fil_vanilla_proof *v, uint64_t c,
                                 const char *pre, cz_errbuf *err) {
    const cz_fil_c1 *c1 = x->c1;
    cz_errbuf e2;
    cz_status st;
    /* tree D */
    st = cz_fil_merkle_proof_check(&v->comm_d_proofs, CZ_FIL_HASHER_SHA256, 2, 0, 0, c, &e2);
    CHK(st == CZ_OK, st, "%scomm_d_proofs: %s", pre, e2.msg);
    CHK(memcmp(v->comm_d_proofs.root.b, c1->comm_d.b, 32) == 0, CZ_ERR_MISMATCH, "%scomm_d_proofs: root is not comm_d", pre);
    /* tree R last */
    st = cz_fil_merkle_proof_check(&v->comm_r_last_proof, CZ_FIL_HASHER_POSEIDON, 8, x->sub, x->top, c, &e2);
    CHK(st == CZ_OK, st, "%scomm_r_last_proof: %s", pre, e2.msg);
    CHK(memcmp(v->comm_r_last_proof.root.b, x->comm_r_last.b, 32) == 0, CZ_ERR_MISMATCH,
        "%scomm_r_last_proof: root differs from the first challenge's comm_r_last", pre);
    /* columns */
    st = check_column(x, &v->c_x, c, "replica_column_proofs.c_x", pre, err);
    if (st != CZ_OK) return st;
    uint32_t par[CZ_FIL_DEGREE];
    st = cz_fil_graph_parents(x->graph, c, par);
    CHK(st == CZ_OK, st, "%sparents of node %llu: %s", pre, (unsigned long long)c, cz_status_str(st));
    char what[64];
    for (unsigned i = 0; i < CZ_FIL_DRG_PARENTS; i++) {
        snprintf(what, sizeof what, "replica_column_proofs.drg_parents[%u]", i);
        st = check_column(x, &v->drg_parents[i], par[i], what, pre, err);
        if (st != CZ_OK) return st;
    }
    for (unsigned i = 0; i < CZ_FIL_EXP_PARENTS; i++) {
        snprintf(what, sizeof what, "replica_column_proofs.exp_parents[%u]", i);
        st = check_column(x, &v->exp_parents[i], par[CZ_FIL_DRG_PARENTS + i], what, pre, err);
        if (st != CZ_OK) return st;
    }
    /* labels: parents are the columns' rows in hashing order (layer 1:
     * base parents of layer 1; later: base parents of the layer, expander
     * parents of the layer below), repeated to 37 */
    CHK(v->nlabeling == x->layers, CZ_ERR_FORMAT, "%slabeling_proofs: %u proofs, expected %u", pre, v->nlabeling, x->layers);
    cz_fil_domain want[CZ_FIL_LABEL_PARENTS];
    for (unsigned l = 1; l <= x->layers; l++) {
        const cz_fil_label_proof *lp = &v->labeling_proofs[l - 1];
        CHK(lp->layer_index == l && lp->node == c, CZ_ERR_MISMATCH,
            "%slabeling_proofs[%u]: labels layer %u node %llu, expected layer %u node %llu", pre, l - 1,
            lp->layer_index, (unsigned long long)lp->node, l, (unsigned long long)c);
        CHK(lp->nparents == CZ_FIL_LABEL_PARENTS, CZ_ERR_FORMAT, "%slabeling_proofs[%u]: %u parents, expected %u", pre,
            l - 1, lp->nparents, CZ_FIL_LABEL_PARENTS);
        unsigned nb = l == 1 ? CZ_FIL_DRG_PARENTS : CZ_FIL_DEGREE;
        for (unsigned i = 0; i < CZ_FIL_LABEL_PARENTS; i++) {
            unsigned q = i % nb;
            want[i] = q < CZ_FIL_DRG_PARENTS ? v->drg_parents[q].column.rows[l - 1]
                                             : v->exp_parents[q - CZ_FIL_DRG_PARENTS].column.rows[l - 2];
        }
        for (unsigned i = 0; i < CZ_FIL_LABEL_PARENTS; i++)
            CHK(memcmp(want[i].b, lp->parents[i].b, 32) == 0, CZ_ERR_MISMATCH,
                "%slabeling_proofs[%u].parents[%u]: not the label of parent %u in the columns", pre, l - 1, i, i % nb);
        cz_fil_domain lab;
        cz_fil_label_from_parents(&lab, &c1->replica_id, l, c, lp->parents, lp->nparents);
        CHK(memcmp(lab.b, v->c_x.column.rows[l - 1].b, 32) == 0, CZ_ERR_MISMATCH,
            "%slabeling_proofs[%u]: label of layer %u does not equal the challenged column's row", pre, l - 1, l);
    }
    /* encoding */
    const cz_fil_label_proof *ep = &v->encoding_proof;
    CHK(ep->layer_index == x->layers && ep->node == c && ep->nparents == CZ_FIL_LABEL_PARENTS, CZ_ERR_MISMATCH,
        "%sencoding_proof: layer %u node %llu, expected layer %u node %llu", pre, ep->layer_index,
        (unsigned long long)ep->node, x->layers, (unsigned long long)c);
    for (unsigned i = 0; i < CZ_FIL_LABEL_PARENTS; i++)
        CHK(memcmp(ep->parents[i].b, v->labeling_proofs[x->layers - 1].parents[i].b, 32) == 0, CZ_ERR_MISMATCH,
            "%sencoding_proof.parents[%u]: differs from the last labeling proof", pre, i);
    cz_fil_domain key, enc;
    cz_fil_label_from_parents(&key, &c1->replica_id, ep->layer_index, c, ep->parents, ep->nparents);
    st = cz_fil_encode(&enc, &key, &v->comm_d_proofs.leaf);
    CHK(st == CZ_OK, CZ_ERR_MISMATCH, "%scomm_d_proofs.leaf: not a field element", pre);
    CHK(memcmp(enc.b, v->comm_r_last_proof.leaf.b, 32) == 0, CZ_ERR_MISMATCH,
        "%sencoding_proof: label + data leaf does not equal the replica leaf (comm_r_last_proof.leaf)", pre);
    return CZ_OK;
}

cz_status cz_fil_c1_check(const cz_fil_c1 *c1, cz_pool *pool, cz_errbuf *err) {
    (void)pool;
    if (!c1 || !c1->registered_proof) return cz_err(err, CZ_ERR_INVALID_ARG, "c1 check: no C1 output");
    const cz_fil_seal_proof *p = c1->registered_proof;
    CHK(c1->npartitions == p->partitions, CZ_ERR_FORMAT, "vanilla_proofs: %zu partitions, %s has %u", c1->npartitions,
        p->name, p->partitions);
    CHK(c1->npartitions > 0 && c1->partitions[0].nchallenges > 0, CZ_ERR_FORMAT, "vanilla_proofs: empty");
    uint64_t nodes = p->sector_size / CZ_FIL_NODE_SIZE;
    check_ctx x;
    memset(&x, 0, sizeof x);
    x.c1 = c1;
    x.sub = p->tree_sub_arity;
    x.top = p->tree_top_arity;
    x.layers = p->layers;
    /* comm_c and comm_r_last are fixed by the first challenge's proofs and
     * must reproduce comm_r; every later proof must share them */
    const cz_fil_vanilla_proof *v0 = &c1->partitions[0].proofs[0];
    x.comm_c = v0->c_x.inclusion.root;
    x.comm_r_last = v0->comm_r_last_proof.root;
    cz_fil_domain cr;
    CHK(cz_fil_poseidon_hash2(&cr, &x.comm_c, &x.comm_r_last) == CZ_OK, CZ_ERR_MISMATCH,
        "comm_c or comm_r_last (tree roots of the first challenge) is not a canonical field element");
    CHK(memcmp(cr.b, c1->comm_r.b, 32) == 0, CZ_ERR_MISMATCH,
        "comm_r: not Poseidon(comm_c, comm_r_last) of the proofs' tree roots");
    uint8_t porep_id[32];
    cz_fil_porep_id(porep_id, p);
    cz_fil_graph g;
    cz_status st = cz_fil_graph_init(&g, nodes, porep_id, p->api);
    if (st != CZ_OK) return cz_err(err, st, "graph: %s", cz_status_str(st));
    x.graph = &g;
    uint64_t *ch = malloc(p->challenges_per_partition * sizeof *ch);
    if (!ch) {
        cz_fil_graph_free(&g);
        return cz_err(err, CZ_ERR_NOMEM, "c1 check: out of memory");
    }
    for (unsigned k = 0; st == CZ_OK && k < c1->npartitions; k++) {
        const cz_fil_partition_proofs *pp = &c1->partitions[k];
        if (pp->nchallenges != p->challenges_per_partition) {
            st = cz_err(err, CZ_ERR_FORMAT, "vanilla_proofs[%u]: %zu challenges, expected %u", k, pp->nchallenges,
                        p->challenges_per_partition);
            break;
        }
        st = derive_challenges(p, nodes, &c1->replica_id, &c1->comm_r, c1->seed, k, ch);
        if (st != CZ_OK) {
            st = cz_err(err, st, "challenges of partition %u: %s", k, cz_status_str(st));
            break;
        }
        for (size_t j = 0; st == CZ_OK && j < pp->nchallenges; j++) {
            char pre[96];
            snprintf(pre, sizeof pre, "partition %u, challenge %zu (node %llu): ", k, j, (unsigned long long)ch[j]);
            st = check_challenge(&x, &pp->proofs[j], ch[j], pre, err);
        }
    }
    free(ch);
    cz_fil_graph_free(&g);
    return st;
}
