/*
 * Vanilla-proof generator and native verifier for the PoRep-shaped circuit
 * (cuzk/circuits.h).
 *
 * Generation, threads: data and replica id come from a counter-mode mixer
 * of the sector seed (parallel over nodes). Labelling is sequential across
 * layers (expander parents are anywhere in the previous layer) and, within
 * a layer, across windows of CZ_POREP_WINDOW nodes: past the first window
 * every base parent lies before the node's window (the graph is built for
 * it), so the nodes of one window are labelled in parallel. Column hashes,
 * the encoding and the three trees are parallel over nodes.
 */
#include "circuits/porep_internal.h"
#include "cuzk/merkle.h"
#include "cuzk/poseidon.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- allocation -------------------------------------------------------------- */
typedef struct {
    size_t pd, pc, pr; /* path lengths */
    size_t fr_per, u64_per;
} layout;

static layout layout_of(const cz_porep_params *p)
{
    layout y;
    unsigned np = cz_porep_num_parents(p), L = p->layers;
    y.pd = cz_porep_path_len(p, p->tree_d_arity);
    y.pc = cz_porep_path_len(p, p->tree_c_arity);
    y.pr = cz_porep_path_len(p, p->tree_r_arity);
    y.fr_per = y.pd + L + y.pc + y.pr + (size_t)np * L + (size_t)np * y.pc;
    y.u64_per = np;
    return y;
}

cz_status cz_porep_vanilla_alloc_(cz_porep_vanilla **out, const cz_porep_params *p,
                                  size_t n_partitions)
{
    *out = NULL;
    if (cz_porep_params_check(p, NULL) != CZ_OK || n_partitions == 0 ||
        n_partitions > CZ_POREP_MAX_PARTITIONS)
        return CZ_ERR_INVALID_ARG;
    layout y = layout_of(p);
    size_t nch = n_partitions * p->challenges;
    cz_porep_vanilla *v = calloc(1, sizeof *v);
    if (!v)
        return CZ_ERR_NOMEM;
    v->params = *p;
    v->n_partitions = n_partitions;
    v->challenges = calloc(nch, sizeof *v->challenges);
    /* one arena: fr values first (alignment of cz_fr), then the u64 indices */
    size_t frn = nch * y.fr_per, un = nch * y.u64_per;
    v->arena_ = calloc(1, frn * sizeof(cz_fr) + un * sizeof(uint64_t) + 1);
    if (!v->challenges || !v->arena_) {
        cz_porep_vanilla_free(v);
        return CZ_ERR_NOMEM;
    }
    cz_fr *f = v->arena_;
    uint64_t *u = (uint64_t *)(f + frn);
    unsigned np = cz_porep_num_parents(p), L = p->layers;
    for (size_t i = 0; i < nch; i++) {
        cz_porep_challenge_proof *c = &v->challenges[i];
        c->data_path = f;
        f += y.pd;
        c->labels = f;
        f += L;
        c->column_path = f;
        f += y.pc;
        c->replica_path = f;
        f += y.pr;
        c->parent_labels = f;
        f += (size_t)np * L;
        c->parent_paths = f;
        f += (size_t)np * y.pc;
        c->parents = u;
        u += np;
    }
    *out = v;
    return CZ_OK;
}

void cz_porep_vanilla_free(cz_porep_vanilla *v)
{
    if (!v)
        return;
    free(v->challenges);
    free(v->arena_);
    free(v);
}

/* ---- sector ------------------------------------------------------------------- */
static uint64_t mix(uint64_t z)
{
    z ^= z >> 30;
    z *= 0xbf58476d1ce4e5b9ull;
    z ^= z >> 27;
    z *= 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z;
}

/* A pseudo-random Fr below 2^254 from (seed, i): 4 mixed words, top 2 bits
 * cleared (the Fr32 convention of Filecoin data). */
static void random_node(cz_fr *out, uint64_t seed, uint64_t i)
{
    uint64_t raw[4];
    for (int w = 0; w < 4; w++)
        raw[w] = mix(mix(seed ^ 0x6a09e667f3bcc908ull) ^ (i * 4 + (uint64_t)w) * 0x9e3779b97f4a7c15ull);
    raw[3] &= 0x3fffffffffffffffull;
    if (cz_fr_from_raw(out, raw) != CZ_OK) /* < 2^254 < r */
        *out = CZ_FR_ZERO;
}

typedef struct {
    const cz_porep_params *p;
    uint64_t seed;
    cz_fr *data, *labels, *col, *replica;
    cz_fr replica_id;
    uint64_t n;
    unsigned layer;
    uint64_t base; /* first node of the current window */
    cz_porep_graph_fn_ *graph;
    void *graph_arg;
} gen_ctx;

static void data_range(void *arg, size_t lo, size_t hi)
{
    gen_ctx *g = arg;
    for (size_t i = lo; i < hi; i++)
        random_node(&g->data[i], g->seed, i);
}

static void label_node(gen_ctx *g, uint64_t i)
{
    const cz_porep_params *p = g->p;
    unsigned np = cz_porep_num_parents(p), l = g->layer;
    uint64_t par[CZ_POREP_MAX_PARENTS];
    cz_fr pl[CZ_POREP_MAX_PARENTS];
    g->graph(p, i, par, g->graph_arg);
    const cz_fr *cur = g->labels + (size_t)l * g->n;
    const cz_fr *prev = l ? g->labels + (size_t)(l - 1) * g->n : NULL;
    for (unsigned j = 0; j < np; j++) {
        if (j < p->base_parents)
            pl[j] = i == 0 ? CZ_FR_ZERO : cur[par[j]];
        else
            pl[j] = prev ? prev[par[j]] : CZ_FR_ZERO;
    }
    cz_porep_label(p, &g->labels[(size_t)l * g->n + i], &g->replica_id, l, i, pl);
}

static void label_window(void *arg, size_t i)
{
    gen_ctx *g = arg;
    label_node(g, g->base + i);
}

static void column_range(void *arg, size_t lo, size_t hi)
{
    gen_ctx *g = arg;
    unsigned L = g->p->layers;
    const cz_poseidon_params *pp = cz_poseidon_params_get(L + 1);
    cz_fr in[CZ_POSEIDON_T_MAX];
    for (size_t i = lo; i < hi; i++) {
        for (unsigned l = 0; l < L; l++)
            in[l] = g->labels[(size_t)l * g->n + i];
        cz_poseidon_hash(&g->col[i], pp, in);
        cz_fr_add(&g->replica[i], &g->data[i], &g->labels[(size_t)(L - 1) * g->n + i]);
    }
}

static cz_merkle_hash tree_d_hash(const cz_porep_params *p)
{
    return p->hash == CZ_POREP_SHA256 ? CZ_MERKLE_SHA256 : CZ_MERKLE_POSEIDON;
}

static void graph_of_params(const cz_porep_params *p, uint64_t node, uint64_t *parents, void *arg)
{
    (void)arg;
    cz_porep_parents(p, node, parents);
}

cz_status cz_porep_generate(cz_porep_vanilla **out, const cz_porep_params *p, uint64_t sector_seed,
                            uint64_t challenge_seed, size_t n_partitions, cz_pool *pool,
                            cz_errbuf *err)
{
    return cz_porep_generate_graph_(out, p, sector_seed, challenge_seed, n_partitions, pool,
                                    graph_of_params, NULL, err);
}

cz_status cz_porep_generate_graph_(cz_porep_vanilla **out, const cz_porep_params *p,
                                   uint64_t sector_seed, uint64_t challenge_seed,
                                   size_t n_partitions, cz_pool *pool, cz_porep_graph_fn_ *graph,
                                   void *graph_arg, cz_errbuf *err)
{
    if (!out || !graph)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep generate: %s is NULL", out ? "graph" : "out");
    *out = NULL;
    cz_status s = cz_porep_params_check(p, err);
    if (s != CZ_OK)
        return s;
    if (n_partitions == 0 || n_partitions > CZ_POREP_MAX_PARTITIONS)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep generate: partitions %zu not in 1..%u",
                      n_partitions, CZ_POREP_MAX_PARTITIONS);
    unsigned L = p->layers, np = cz_porep_num_parents(p);
    if (!cz_poseidon_params_get(3) || !cz_poseidon_params_get(L + 1) ||
        (p->hash == CZ_POREP_POSEIDON && !cz_poseidon_params_get(4 + np)))
        return cz_err(err, CZ_ERR_NOMEM, "porep generate: Poseidon parameters");
    uint64_t n = 1ull << p->log_nodes;
    gen_ctx g = {.p = p, .seed = sector_seed, .n = n, .graph = graph, .graph_arg = graph_arg};
    g.data = malloc(n * sizeof(cz_fr));
    g.labels = malloc((size_t)L * n * sizeof(cz_fr));
    g.col = malloc(n * sizeof(cz_fr));
    g.replica = malloc(n * sizeof(cz_fr));
    cz_merkle_tree *td = NULL, *tc = NULL, *tr = NULL;
    cz_porep_vanilla *v = NULL;
    if (!g.data || !g.labels || !g.col || !g.replica) {
        s = cz_err(err, CZ_ERR_NOMEM, "porep generate: out of memory for 2^%u nodes", p->log_nodes);
        goto done;
    }
    random_node(&g.replica_id, sector_seed ^ 0x7265706c6963615full, 0xffffffffull);
    cz_pool_parallel_range(pool, 0, n, 1024, data_range, &g);

    for (unsigned l = 0; l < L; l++) {
        g.layer = l;
        uint64_t first = n < CZ_POREP_WINDOW ? n : CZ_POREP_WINDOW;
        for (uint64_t i = 0; i < first; i++) /* first window: sequential */
            label_node(&g, i);
        for (g.base = first; g.base < n; g.base += CZ_POREP_WINDOW)
            cz_pool_parallel_for(pool, CZ_POREP_WINDOW, label_window, &g);
    }
    cz_pool_parallel_range(pool, 0, n, 256, column_range, &g);

    if ((s = cz_merkle_build(&td, tree_d_hash(p), p->tree_d_arity, g.data, n, pool)) != CZ_OK ||
        (s = cz_merkle_build(&tc, CZ_MERKLE_POSEIDON, p->tree_c_arity, g.col, n, pool)) != CZ_OK ||
        (s = cz_merkle_build(&tr, CZ_MERKLE_POSEIDON, p->tree_r_arity, g.replica, n, pool)) != CZ_OK) {
        cz_err(err, s, "porep generate: building the trees failed (%s)", cz_status_str(s));
        goto done;
    }
    if ((s = cz_porep_vanilla_alloc_(&v, p, n_partitions)) != CZ_OK) {
        cz_err(err, s, "porep generate: out of memory for the vanilla proof");
        goto done;
    }
    v->sector_seed = sector_seed;
    v->challenge_seed = challenge_seed;
    v->replica_id = g.replica_id;
    v->comm_d = *cz_merkle_root(td);
    v->comm_c = *cz_merkle_root(tc);
    v->comm_r_last = *cz_merkle_root(tr);
    cz_fr cr[2] = {v->comm_c, v->comm_r_last};
    cz_poseidon_hash(&v->comm_r, cz_poseidon_params_get(3), cr);
    size_t pc = cz_porep_path_len(p, p->tree_c_arity);
    for (size_t part = 0; part < n_partitions; part++)
        for (unsigned c = 0; c < p->challenges; c++) {
            cz_porep_challenge_proof *cp = &v->challenges[part * p->challenges + c];
            uint64_t i = cz_porep_challenge(p, &v->replica_id, challenge_seed, part, c);
            cp->index = i;
            cp->data = g.data[i];
            cp->replica = g.replica[i];
            for (unsigned l = 0; l < L; l++)
                cp->labels[l] = g.labels[(size_t)l * n + i];
            graph(p, i, cp->parents, graph_arg);
            bool ok = cz_merkle_path(td, i, cp->data_path) == CZ_OK &&
                      cz_merkle_path(tc, i, cp->column_path) == CZ_OK &&
                      cz_merkle_path(tr, i, cp->replica_path) == CZ_OK;
            for (unsigned j = 0; j < np; j++) {
                uint64_t q = cp->parents[j];
                for (unsigned l = 0; l < L; l++)
                    cp->parent_labels[(size_t)j * L + l] = g.labels[(size_t)l * n + q];
                ok = ok && cz_merkle_path(tc, q, &cp->parent_paths[(size_t)j * pc]) == CZ_OK;
            }
            if (!ok) {
                s = cz_err(err, CZ_ERR_INTERNAL, "porep generate: path of node %llu",
                           (unsigned long long)i);
                goto done;
            }
        }
    *out = v;
    v = NULL;
    s = CZ_OK;
done:
    cz_porep_vanilla_free(v);
    cz_merkle_free(td);
    cz_merkle_free(tc);
    cz_merkle_free(tr);
    free(g.data);
    free(g.labels);
    free(g.col);
    free(g.replica);
    return s;
}

/* ---- native verification ------------------------------------------------------------- */
static bool below_2_254(const cz_fr *a)
{
    uint64_t raw[4];
    cz_fr_to_raw(raw, a);
    return (raw[3] >> 62) == 0;
}

cz_status cz_porep_vanilla_verify(const cz_porep_vanilla *v, cz_errbuf *err)
{
    if (!v)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep verify: NULL proof");
    const cz_porep_params *p = &v->params;
    cz_status s = cz_porep_params_check(p, err);
    if (s != CZ_OK)
        return s;
    unsigned L = p->layers, np = cz_porep_num_parents(p);
    const cz_poseidon_params *p3 = cz_poseidon_params_get(3), *pcol = cz_poseidon_params_get(L + 1);
    if (!p3 || !pcol)
        return cz_err(err, CZ_ERR_NOMEM, "porep verify: Poseidon parameters");
    if (p->hash == CZ_POREP_SHA256 && !below_2_254(&v->replica_id))
        return cz_err(err, CZ_ERR_UNSATISFIED, "replica_id: not below 2^254 (SHA-256 labels)");
    cz_fr cr[2] = {v->comm_c, v->comm_r_last}, h;
    cz_poseidon_hash(&h, p3, cr);
    if (!cz_fr_eq(&h, &v->comm_r))
        return cz_err(err, CZ_ERR_UNSATISFIED, "comm_r: not Poseidon(comm_c, comm_r_last)");
    cz_merkle_hash hd = tree_d_hash(p);
    unsigned dd = cz_porep_depth(p, p->tree_d_arity), dc = cz_porep_depth(p, p->tree_c_arity),
             dr = cz_porep_depth(p, p->tree_r_arity);
    size_t pc = cz_porep_path_len(p, p->tree_c_arity);
    uint64_t n = 1ull << p->log_nodes;
    for (size_t part = 0; part < v->n_partitions; part++)
        for (unsigned c = 0; c < p->challenges; c++) {
            const cz_porep_challenge_proof *cp = cz_porep_vanilla_challenge(v, part, c);
#define BAD(...)                                                                                   \
    do {                                                                                           \
        char m_[200];                                                                              \
        snprintf(m_, sizeof m_, __VA_ARGS__);                                                      \
        return cz_err(err, CZ_ERR_UNSATISFIED, "partitions[%zu].challenges[%u].%s", part, c, m_); \
    } while (0)
            if (cp->index != cz_porep_challenge(p, &v->replica_id, v->challenge_seed, part, c))
                BAD("index: %llu is not the challenge derived from challenge_seed",
                    (unsigned long long)cp->index);
            if (cp->index == 0 || cp->index >= n)
                BAD("index: out of range");
            uint64_t par[CZ_POREP_MAX_PARENTS];
            cz_porep_parents(p, cp->index, par);
            if (hd == CZ_MERKLE_SHA256 && !below_2_254(&cp->data))
                BAD("data: not below 2^254");
            if (!cz_merkle_verify(hd, p->tree_d_arity, dd, &cp->data, cp->index, cp->data_path,
                                  &v->comm_d))
                BAD("data_path: data not included in comm_d");
            cz_fr pl[CZ_POREP_MAX_PARENTS];
            for (unsigned j = 0; j < np; j++) {
                if (cp->parents[j] != par[j])
                    BAD("parents[%u].index: %llu, the graph says %llu", j,
                        (unsigned long long)cp->parents[j], (unsigned long long)par[j]);
                cz_poseidon_hash(&h, pcol, &cp->parent_labels[(size_t)j * L]);
                if (!cz_merkle_verify(CZ_MERKLE_POSEIDON, p->tree_c_arity, dc, &h, par[j],
                                      &cp->parent_paths[(size_t)j * pc], &v->comm_c))
                    BAD("parents[%u]: column not included in comm_c", j);
            }
            for (unsigned l = 0; l < L; l++) {
                for (unsigned j = 0; j < np; j++) {
                    unsigned src = j < p->base_parents ? l : (l ? l - 1 : 0);
                    pl[j] = cp->parent_labels[(size_t)j * L + src];
                }
                cz_porep_label(p, &h, &v->replica_id, l, cp->index, pl);
                if (!cz_fr_eq(&h, &cp->labels[l]))
                    BAD("labels[%u]: not the label computed from the parents", l);
            }
            cz_poseidon_hash(&h, pcol, cp->labels);
            if (!cz_merkle_verify(CZ_MERKLE_POSEIDON, p->tree_c_arity, dc, &h, cp->index,
                                  cp->column_path, &v->comm_c))
                BAD("column_path: column not included in comm_c");
            cz_fr_add(&h, &cp->data, &cp->labels[L - 1]);
            if (!cz_fr_eq(&h, &cp->replica))
                BAD("replica: not data + last label");
            if (!cz_merkle_verify(CZ_MERKLE_POSEIDON, p->tree_r_arity, dr, &cp->replica, cp->index,
                                  cp->replica_path, &v->comm_r_last))
                BAD("replica_path: replica not included in comm_r_last");
#undef BAD
        }
    return CZ_OK;
}
