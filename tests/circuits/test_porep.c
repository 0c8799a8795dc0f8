/*
 * PoRep-shaped circuit and vanilla proofs (cuzk/circuits.h):
 *  - presets: shaped-12/14 (and 16 outside sanitizers) recorded, constraints
 *    + inputs <= 2^k, and the count equals an independent formula built
 *    from the gadget costs documented in poseidon.h / merkle.h;
 *  - the graph obeys its documented contract for every node;
 *  - generated vanilla proofs verify natively and satisfy the circuit for
 *    every partition (checker), cz_synthesize's a·b = c row by row, the
 *    recorded-with-values assignment equals the witness generator's, the
 *    witness's public inputs equal cz_porep_public_inputs;
 *  - tampering each field of a vanilla proof makes the checker fail at the
 *    expected scope, cz_pce_is_satisfied fail too, and the native verifier
 *    reject it;
 *  - the parents[] field alone is redundant (the circuit reads the graph)
 *    but the native verifier names it;
 *  - changing any public input in a valid witness makes it unsatisfied
 *    (checker with the witness, and the matrices), in the documented order:
 *    replica_id, comm_d, comm_r, per challenge its index and its parents';
 *  - graph binding: a proof of a sector labelled with one parent of a
 *    challenged node replaced by another node (consistent otherwise: that
 *    node's column with a valid tree_c path, labels computed from it) is
 *    refused natively and does not satisfy the circuit (checker at the
 *    parent's tree_c root, and the matrices), both when it names the other
 *    node and when it claims the graph's index; every parent of shaped-14's
 *    challenges, and a SHA-256 shape;
 *  - SHA-256 labels (a tiny non-preset shape): the native label equals
 *    OpenSSL SHA-256 over the documented byte layout, and the circuit is
 *    satisfied and catches a tampered label;
 *  - JSON round trip; malformed JSON (missing field, wrong length, value
 *    >= r, bad hex, wrong partition count, truncated at every length, bad
 *    indices, unknown preset, params mismatch) gives the documented error
 *    naming the field;
 *  - generation with a thread pool equals generation without one (sector
 *    of several label windows).
 */
#include "testutil.h"
#include "circuits/porep_internal.h" /* cz_porep_generate_graph_: a cheating prover's sector */
#include "cuzk/circuits.h"
#include "cuzk/merkle.h"
#include "cuzk/poseidon.h"

#include <jansson.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- helpers ---------------------------------------------------------------- */
static cz_porep_vanilla *gen(const cz_porep_params *p, uint64_t seed, size_t parts, cz_pool *pool)
{
    cz_porep_vanilla *v = NULL;
    cz_errbuf e = {{0}};
    cz_status s = cz_porep_generate(&v, p, seed, seed + 1, parts, pool, &e);
    if (s != CZ_OK)
        fprintf(stderr, "generate: %s\n", e.msg);
    assert_int_equal(s, CZ_OK);
    return v;
}

static cz_status check(const cz_porep_vanilla *v, size_t part, cz_check_report *rep)
{
    cz_porep_ctx ctx;
    assert_int_equal(cz_porep_ctx_init(&ctx, v, part), CZ_OK);
    return cz_cs_check(cz_porep_synth, &ctx, rep);
}

/* Poseidon hash constraints for width t (poseidon.h: 3(8t + R_P) − 3). */
static uint64_t h_cost(unsigned t) { return 3ull * (8 * t + (t <= 5 ? 56 : 57)) - 3; }
/* Merkle level, Poseidon arity a (merkle.h). */
static uint64_t level_cost(unsigned a)
{
    return a == 2 ? 238 : a == 4 ? 289 : a == 8 ? 395 : 602;
}
static unsigned lg(unsigned a) { return a == 2 ? 1 : a == 4 ? 2 : a == 8 ? 3 : 4; }

/* The constraint count of a Poseidon preset from the construction in
 * circuits.h and the documented gadget costs (with the appended input rows). */
static uint64_t model_constraints(const cz_porep_params *p)
{
    unsigned k = p->log_nodes, L = p->layers, P = p->base_parents + p->exp_parents;
    uint64_t dd = k / lg(p->tree_d_arity), dc = k / lg(p->tree_c_arity), dr = k / lg(p->tree_r_arity);
    uint64_t per = (k + 1)                                                   /* index */
                   + dd * level_cost(p->tree_d_arity) + 1                    /* tree_d */
                   + P * ((k + 1) + h_cost(L + 1) + dc * level_cost(p->tree_c_arity) + 1) /* parents */
                   + L * (h_cost(4 + P) + 1)                                 /* labels */
                   + h_cost(L + 1) + dc * level_cost(p->tree_c_arity) + 1    /* column */
                   + 1 + dr * level_cost(p->tree_r_arity) + 1;               /* encoding, tree_r */
    /* appended input rows: one, replica_id, comm_d, comm_r, and per
     * challenge its index and its P parent indices */
    return h_cost(3) + 1 + p->challenges * per + 4 + (uint64_t)p->challenges * (1 + P);
}

/* ---- presets -------------------------------------------------------------------- */
static void test_presets_fit(void **state)
{
    (void)state;
    const char *names[] = {"shaped-12", "shaped-14",
#ifndef CUZK_SANITIZED
                           "shaped-16"
#endif
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const cz_porep_params *p = cz_porep_preset_get(names[i]);
        assert_non_null(p);
        assert_int_equal(cz_porep_params_check(p, NULL), CZ_OK);
        cz_porep_shape sh;
        assert_int_equal(cz_porep_count(p, &sh), CZ_OK);
        char line[512];
        cz_porep_describe(p, &sh, line, sizeof line);
        printf("%s\n", line);
        assert_int_equal(sh.inputs, 4 + p->challenges * (1 + p->base_parents + p->exp_parents));
        assert_int_equal(sh.inputs, 1 + cz_porep_num_public(p));
        assert_true(sh.constraints + sh.inputs <= (1ull << p->log_domain));
        /* and not wastefully small: within 10% of the budget */
        assert_true((sh.constraints + sh.inputs) * 10 >= (1ull << p->log_domain) * 9);
        assert_int_equal(sh.constraints, model_constraints(p));
    }
    assert_null(cz_porep_preset_get("shaped-13"));
    assert_null(cz_porep_preset_get(NULL));
    assert_non_null(cz_porep_preset_get("shaped-18"));
    assert_non_null(cz_porep_preset_get("shaped-20"));
    assert_int_equal(cz_porep_preset_get("shaped-20")->hash, CZ_POREP_SHA256);
    /* bad parameters are refused with a message */
    cz_porep_params bad = *cz_porep_preset_get("shaped-14");
    bad.log_nodes = 5; /* not a multiple of log2(8) */
    cz_errbuf e = {{0}};
    assert_int_equal(cz_porep_params_check(&bad, &e), CZ_ERR_INVALID_ARG);
    assert_non_null(strstr(e.msg, "arity"));
}

static void test_graph(void **state)
{
    (void)state;
    cz_porep_params p = *cz_porep_preset_get("shaped-16");
    uint64_t n = 1ull << p.log_nodes, par[CZ_POREP_MAX_PARENTS];
    for (uint64_t i = 0; i < n; i++) {
        cz_porep_parents(&p, i, par);
        uint64_t h = i < CZ_POREP_WINDOW ? i : i - i % CZ_POREP_WINDOW;
        for (unsigned j = 0; j < p.base_parents; j++) {
            if (i == 0)
                assert_int_equal(par[j], 0);
            else
                assert_true(par[j] < h);
        }
        if (i > 0)
            assert_int_equal(par[0], h - 1);
        for (unsigned j = 0; j < p.exp_parents; j++)
            assert_true(par[p.base_parents + j] < n);
    }
    /* deterministic, seed-dependent */
    uint64_t a[CZ_POREP_MAX_PARENTS], b[CZ_POREP_MAX_PARENTS];
    cz_porep_parents(&p, 1000, a);
    p.graph_seed ^= 1;
    cz_porep_parents(&p, 1000, b);
    assert_memory_not_equal(a + 1, b + 1, sizeof(uint64_t) * 3);
}

/* ---- satisfaction and synthesis ------------------------------------------------------ */
static void check_synthesis(const cz_porep_vanilla *v, size_t part, const cz_pce *pce)
{
    cz_porep_ctx ctx;
    assert_int_equal(cz_porep_ctx_init(&ctx, v, part), CZ_OK);
    size_t m = 1;
    while (m < pce->n_constraints)
        m <<= 1;
    cz_fr *a = malloc(m * sizeof(cz_fr)), *b = malloc(m * sizeof(cz_fr)), *c = malloc(m * sizeof(cz_fr));
    assert_true(a && b && c);
    cz_witness w = {0};
    assert_int_equal(cz_synthesize(pce, cz_porep_synth, &ctx, NULL, &w, a, b, c, m), CZ_OK);
    for (size_t j = 0; j < pce->n_constraints; j++) {
        cz_fr t;
        cz_fr_mul(&t, &a[j], &b[j]);
        assert_true(cz_fr_eq(&t, &c[j]));
    }
    uint64_t row = 0;
    assert_int_equal(cz_pce_is_satisfied(pce, &w, &row), CZ_OK);
    /* public inputs as the verifier computes them */
    size_t np = cz_porep_num_public(&v->params);
    cz_fr *pub = malloc(np * sizeof(cz_fr));
    assert_int_equal(cz_porep_public_inputs(v, part, pub), CZ_OK);
    assert_int_equal(w.n_inputs, np + 1);
    assert_true(cz_fr_is_one(&w.inputs[0]));
    for (size_t i = 0; i < np; i++)
        assert_true(cz_fr_eq(&pub[i], &w.inputs[1 + i]));
    /* the recorder with values computes the same assignment */
    cz_witness w2 = {0};
    cz_pce *pce2 = NULL;
    assert_int_equal(cz_pce_record(&pce2, cz_porep_synth, &ctx, &w2), CZ_OK);
    assert_memory_equal(pce2->circuit_hash, pce->circuit_hash, 32);
    assert_int_equal(w2.n_aux, w.n_aux);
    assert_memory_equal(w2.aux, w.aux, w.n_aux * sizeof(cz_fr));
    cz_pce_free(pce2);
    cz_witness_free(&w2);
    cz_witness_free(&w);
    free(pub);
    free(a);
    free(b);
    free(c);
}

static void test_generated_satisfies(void **state)
{
    (void)state;
    const char *names[] = {"shaped-12", "shaped-14"};
    for (size_t i = 0; i < 2; i++) {
        const cz_porep_params *p = cz_porep_preset_get(names[i]);
        cz_porep_vanilla *v = gen(p, cz_test_seed() + i, 2, NULL);
        cz_errbuf e = {{0}};
        assert_int_equal(cz_porep_vanilla_verify(v, &e), CZ_OK);
        cz_porep_ctx shape = {.params = p};
        cz_pce *pce = NULL;
        assert_int_equal(cz_pce_record(&pce, cz_porep_synth, &shape, NULL), CZ_OK);
        for (size_t part = 0; part < v->n_partitions; part++) {
            cz_check_report rep;
            cz_status s = check(v, part, &rep);
            if (s != CZ_OK)
                fprintf(stderr, "%s partition %zu: %s\n", names[i], part, rep.where);
            assert_int_equal(s, CZ_OK);
            assert_int_equal(rep.n_constraints, pce->n_constraints);
            check_synthesis(v, part, pce);
            const cz_porep_challenge_proof *cp = cz_porep_vanilla_challenge(v, part, 0);
            assert_true(cp->index >= 1 && cp->index < (1ull << p->log_nodes));
        }
        /* a partition out of range is refused */
        cz_porep_ctx ctx;
        assert_int_equal(cz_porep_ctx_init(&ctx, v, 2), CZ_ERR_INVALID_ARG);
        cz_pce_free(pce);
        cz_porep_vanilla_free(v);
    }
}

/* ---- tampering ---------------------------------------------------------------------------- */
static const cz_pce *g_pce;

/* Checks a tampered proof: the checker fails at a scope containing `want`,
 * the matrices agree that the proof's witness is bad, and the native
 * verifier rejects it. */
static void expect_fail(const cz_porep_vanilla *v, size_t part, const char *want, const char *what)
{
    cz_check_report rep;
    cz_status s = check(v, part, &rep);
    if (s != CZ_ERR_UNSATISFIED || !strstr(rep.where, want))
        fprintf(stderr, "tamper %s: status %d at '%s', expected '%s'\n", what, s, rep.where, want);
    assert_int_equal(s, CZ_ERR_UNSATISFIED);
    assert_non_null(strstr(rep.where, want));
    cz_porep_ctx ctx;
    assert_int_equal(cz_porep_ctx_init(&ctx, v, part), CZ_OK);
    cz_witness w = {0};
    assert_int_equal(cz_witness_generate(&w, cz_porep_synth, &ctx, g_pce), CZ_OK);
    uint64_t row = 0;
    assert_int_equal(cz_pce_is_satisfied(g_pce, &w, &row), CZ_ERR_UNSATISFIED);
    assert_int_equal(row, rep.first_failure);
    cz_witness_free(&w);
    cz_errbuf e = {{0}};
    assert_int_not_equal(cz_porep_vanilla_verify(v, &e), CZ_OK);
}

static void bump(cz_fr *x)
{
    cz_fr_add(x, x, &CZ_FR_ONE);
}

#define TAMPER(field, want, what)                                                                  \
    do {                                                                                           \
        cz_fr save_ = (field);                                                                     \
        bump(&(field));                                                                            \
        expect_fail(v, part, want, what);                                                          \
        (field) = save_;                                                                           \
    } while (0)

static void test_tamper(void **state)
{
    (void)state;
    const cz_porep_params *p = cz_porep_preset_get("shaped-14");
    cz_porep_vanilla *v = gen(p, cz_test_seed() ^ 0x55, 2, NULL);
    cz_porep_ctx shape = {.params = p};
    cz_pce *pce = NULL;
    assert_int_equal(cz_pce_record(&pce, cz_porep_synth, &shape, NULL), CZ_OK);
    g_pce = pce;
    unsigned L = p->layers, np = cz_porep_num_parents(p);
    size_t pd = cz_porep_path_len(p, p->tree_d_arity), pc = cz_porep_path_len(p, p->tree_c_arity),
           pr = cz_porep_path_len(p, p->tree_r_arity);
    char want[160], what[96];
    size_t part = 1;
    for (unsigned c = 0; c < p->challenges; c++) {
        cz_porep_challenge_proof *cp = &v->challenges[part * p->challenges + c];
        snprintf(want, sizeof want, "porep/challenge[%u]/tree_d/merkle/root", c);
        TAMPER(cp->data, want, "data");
        for (size_t j = 0; j < pd; j += pd / 2 ? pd / 2 : 1)
            TAMPER(cp->data_path[j], want, "data_path");
        for (unsigned l = 0; l < L; l++) {
            snprintf(want, sizeof want, "porep/challenge[%u]/layer[%u]/label", c, l);
            TAMPER(cp->labels[l], want, "label");
        }
        for (unsigned j = 0; j < np; j++) {
            snprintf(want, sizeof want, "porep/challenge[%u]/parent[%u]/tree_c/merkle/root", c, j);
            for (unsigned l = 0; l < L; l++) {
                snprintf(what, sizeof what, "parent %u label %u", j, l);
                TAMPER(cp->parent_labels[(size_t)j * L + l], want, what);
            }
            TAMPER(cp->parent_paths[(size_t)j * pc + pc - 1], want, "parent path");
            /* the parents[] field is redundant with the graph: the circuit
             * takes the index from the graph (a public input), so a wrong
             * field alone leaves it satisfied; the native verifier names it
             * (a wrong column is test_wrong_parent_refused) */
            uint64_t save = cp->parents[j];
            cp->parents[j] = (save + 1) % (1ull << p->log_nodes);
            assert_int_equal(check(v, part, NULL), CZ_OK);
            cz_errbuf pe = {{0}};
            assert_int_equal(cz_porep_vanilla_verify(v, &pe), CZ_ERR_UNSATISFIED);
            snprintf(what, sizeof what, "partitions[%zu].challenges[%u].parents[%u].index", part, c, j);
            assert_non_null(strstr(pe.msg, what));
            cp->parents[j] = save;
        }
        snprintf(want, sizeof want, "porep/challenge[%u]/tree_c/merkle/root", c);
        TAMPER(cp->column_path[0], want, "column path");
        snprintf(want, sizeof want, "porep/challenge[%u]/encoding/replica", c);
        TAMPER(cp->replica, want, "replica");
        snprintf(want, sizeof want, "porep/challenge[%u]/tree_r/merkle/root", c);
        TAMPER(cp->replica_path[pr - 1], want, "replica path");
        /* the challenge itself (a public input): every opening moves */
        uint64_t save = cp->index;
        cp->index = save == 1 ? 2 : save - 1;
        snprintf(want, sizeof want, "porep/challenge[%u]/tree_d/merkle/root", c);
        expect_fail(v, part, want, "challenge index");
        cp->index = save;
    }
    TAMPER(v->comm_c, "porep/comm_r/comm_r", "comm_c");
    TAMPER(v->comm_r_last, "porep/comm_r/comm_r", "comm_r_last");
    TAMPER(v->comm_r, "porep/comm_r/comm_r", "comm_r");
    TAMPER(v->comm_d, "porep/challenge[0]/tree_d/merkle/root", "comm_d");
    TAMPER(v->replica_id, "porep/challenge[0]/layer[0]/label", "replica_id");
    /* untouched again: satisfied */
    assert_int_equal(check(v, part, NULL), CZ_OK);
    cz_pce_free(pce);
    cz_porep_vanilla_free(v);
}

/* Public inputs are bound: a valid witness with one input changed fails. */
static void test_public_inputs_bound(void **state)
{
    (void)state;
    const cz_porep_params *p = cz_porep_preset_get("shaped-14");
    cz_porep_vanilla *v = gen(p, cz_test_seed() ^ 0x77, 1, NULL);
    cz_porep_ctx ctx;
    assert_int_equal(cz_porep_ctx_init(&ctx, v, 0), CZ_OK);
    cz_pce *pce = NULL;
    assert_int_equal(cz_pce_record(&pce, cz_porep_synth, &ctx, NULL), CZ_OK);
    cz_witness w = {0};
    assert_int_equal(cz_witness_generate(&w, cz_porep_synth, &ctx, pce), CZ_OK);
    /* the documented order: replica_id, comm_d, comm_r, then per challenge
     * its index and its parents' indices */
    unsigned np = cz_porep_num_parents(p);
    char want[16][64] = {"porep/challenge[0]/layer[0]/", "porep/challenge[0]/tree_d/merkle/root",
                         "porep/comm_r/comm_r"};
    size_t nw = 3;
    for (unsigned c = 0; c < p->challenges; c++) {
        snprintf(want[nw++], sizeof want[0], "porep/challenge[%u]/index/pack", c);
        for (unsigned j = 0; j < np; j++)
            snprintf(want[nw++], sizeof want[0], "porep/challenge[%u]/parent[%u]/index/pack", c, j);
    }
    assert_int_equal(nw, 13);
    assert_int_equal(w.n_inputs, 1 + nw);
    for (size_t i = 1; i < w.n_inputs; i++) {
        cz_fr save = w.inputs[i];
        bump(&w.inputs[i]);
        cz_check_report rep;
        cz_status s = cz_cs_check_witness(cz_porep_synth, &ctx, &w, &rep);
        if (s != CZ_ERR_UNSATISFIED || !strstr(rep.where, want[i - 1]))
            fprintf(stderr, "input %zu: status %d at '%s'\n", i, s, rep.where);
        assert_int_equal(s, CZ_ERR_UNSATISFIED);
        assert_non_null(strstr(rep.where, want[i - 1]));
        uint64_t row;
        assert_int_equal(cz_pce_is_satisfied(pce, &w, &row), CZ_ERR_UNSATISFIED);
        w.inputs[i] = save;
    }
    uint64_t row;
    assert_int_equal(cz_pce_is_satisfied(pce, &w, &row), CZ_OK);
    /* also: a proof for one partition does not satisfy another's public inputs */
    cz_witness_free(&w);
    cz_pce_free(pce);
    cz_porep_vanilla_free(v);
}

/* ---- graph binding ------------------------------------------------------------------------------ */
/* A cheating prover's graph: the real one, except that parent `j` of node
 * `node` is `other`. */
typedef struct {
    uint64_t node, other;
    unsigned j;
} swap_graph;

static void swapped_parents(const cz_porep_params *p, uint64_t node, uint64_t *parents, void *arg)
{
    const swap_graph *sg = arg;
    cz_porep_parents(p, node, parents);
    if (node == sg->node)
        parents[sg->j] = sg->other;
}

/* Challenge c (partition 0), parent j: the sector is labelled with that
 * parent of the challenged node replaced by another node, so the proof is
 * consistent in everything but the graph — the challenged labels are
 * computed from the opened columns and every path is valid — and opens the
 * other node's column as parent j. The native verifier and the circuit
 * must both refuse it, whether the proof names the other node as the
 * parent or claims the graph's index for it. pce: the shape's matrices
 * (NULL: checker only). Returns false (nothing checked) when the parent has
 * no other valid choice (base parents of node 1). */
static bool expect_wrong_parent_refused(const cz_porep_params *p, uint64_t seed, unsigned c,
                                        unsigned j, const cz_pce *pce)
{
    uint64_t n = 1ull << p->log_nodes, par[CZ_POREP_MAX_PARENTS];
    cz_porep_vanilla *v = gen(p, seed, 1, NULL);
    uint64_t node = v->challenges[c].index;
    /* Two challenges may draw the same node (a few seeds do on the small
     * presets): the swapped parent then shows in both, and both verifiers
     * must stop at the first of them. */
    for (unsigned k = 0; k < c; k++)
        if (v->challenges[k].index == node) {
            c = k;
            break;
        }
    cz_porep_vanilla_free(v);
    cz_porep_parents(p, node, par);
    uint64_t h = node < CZ_POREP_WINDOW ? node : node - node % CZ_POREP_WINDOW;
    swap_graph sg = {.node = node, .j = j};
    if (j < p->base_parents) { /* another node the labelling order allows: below h */
        if (h < 2)
            return false;
        sg.other = (par[j] + 1) % h;
    } else {
        sg.other = (par[j] + 1) % n;
    }
    cz_errbuf e = {{0}};
    v = NULL;
    assert_int_equal(cz_porep_generate_graph_(&v, p, seed, seed + 1, 1, NULL, swapped_parents, &sg, &e),
                     CZ_OK);
    cz_porep_challenge_proof *cp = &v->challenges[c];
    assert_int_equal(cp->index, node); /* challenges do not depend on the labels */
    assert_int_equal(cp->parents[j], sg.other);

    /* consistent apart from the graph: the opened column is sg.other's in
     * comm_c, and the challenged labels follow from the opened columns (all
     * the circuit checked before it bound the parent indices) */
    unsigned L = p->layers, np = cz_porep_num_parents(p);
    size_t pc = cz_porep_path_len(p, p->tree_c_arity);
    cz_fr col, lab, pl[CZ_POREP_MAX_PARENTS];
    cz_poseidon_hash(&col, cz_poseidon_params_get(L + 1), &cp->parent_labels[(size_t)j * L]);
    assert_true(cz_merkle_verify(CZ_MERKLE_POSEIDON, p->tree_c_arity, cz_porep_depth(p, p->tree_c_arity),
                                 &col, sg.other, &cp->parent_paths[(size_t)j * pc], &v->comm_c));
    for (unsigned l = 0; l < L; l++) {
        for (unsigned q = 0; q < np; q++)
            pl[q] = cp->parent_labels[(size_t)q * L + (q < p->base_parents ? l : (l ? l - 1 : 0))];
        cz_porep_label(p, &lab, &v->replica_id, l, node, pl);
        assert_true(cz_fr_eq(&lab, &cp->labels[l]));
    }

    char want[160], where[160];
    snprintf(where, sizeof where, "porep/challenge[%u]/parent[%u]/tree_c/merkle/root", c, j);
    for (int claim_graph = 0; claim_graph < 2; claim_graph++) {
        /* second round: the proof lies that the opened column is the graph's parent */
        if (claim_graph)
            cp->parents[j] = par[j];
        assert_int_equal(cz_porep_vanilla_verify(v, &e), CZ_ERR_UNSATISFIED);
        if (claim_graph)
            snprintf(want, sizeof want, "partitions[0].challenges[%u].parents[%u]: column not included",
                     c, j);
        else
            snprintf(want, sizeof want,
                     "partitions[0].challenges[%u].parents[%u].index: %llu, the graph says %llu", c, j,
                     (unsigned long long)sg.other, (unsigned long long)par[j]);
        if (!strstr(e.msg, want))
            fprintf(stderr, "wrong parent: native says '%s', expected '%s'\n", e.msg, want);
        assert_non_null(strstr(e.msg, want));
        cz_check_report rep;
        cz_status s = check(v, 0, &rep);
        if (s != CZ_ERR_UNSATISFIED || !strstr(rep.where, where))
            fprintf(stderr,
                    "wrong parent (challenge %u parent %u, node %llu instead of %llu): status %d at "
                    "'%s', expected '%s'\n",
                    c, j, (unsigned long long)sg.other, (unsigned long long)par[j], s,
                    s == CZ_OK ? "(satisfied)" : rep.where, where);
        assert_int_equal(s, CZ_ERR_UNSATISFIED);
        assert_non_null(strstr(rep.where, where));
        if (pce) { /* the matrices agree */
            cz_porep_ctx ctx;
            assert_int_equal(cz_porep_ctx_init(&ctx, v, 0), CZ_OK);
            cz_witness w = {0};
            assert_int_equal(cz_witness_generate(&w, cz_porep_synth, &ctx, pce), CZ_OK);
            uint64_t row = 0;
            assert_int_equal(cz_pce_is_satisfied(pce, &w, &row), CZ_ERR_UNSATISFIED);
            assert_int_equal(row, rep.first_failure);
            cz_witness_free(&w);
        }
    }
    cz_porep_vanilla_free(v);
    return true;
}

static void test_wrong_parent_refused(void **state)
{
    (void)state;
    const cz_porep_params *p = cz_porep_preset_get("shaped-14");
    cz_porep_ctx shape = {.params = p};
    cz_pce *pce = NULL;
    assert_int_equal(cz_pce_record(&pce, cz_porep_synth, &shape, NULL), CZ_OK);
    uint64_t seed = cz_test_seed() ^ 0x3c;
    unsigned tried = 0;
    for (unsigned c = 0; c < p->challenges; c++)
        for (unsigned j = 0; j < cz_porep_num_parents(p); j++)
            tried += expect_wrong_parent_refused(p, seed, c, j, pce);
    /* every expander parent, and base parents unless the challenge is node 1 */
    assert_true(tried >= p->challenges * p->exp_parents);
    cz_pce_free(pce);
    /* the identity "swap" is the honest proof: the hook itself changes nothing */
    uint64_t par1[CZ_POREP_MAX_PARENTS];
    cz_porep_parents(p, 1, par1);
    swap_graph id = {.node = 1, .j = 0, .other = par1[0]};
    cz_porep_vanilla *a = gen(p, seed, 1, NULL), *b = NULL;
    cz_errbuf e = {{0}};
    assert_int_equal(
        cz_porep_generate_graph_(&b, p, seed, seed + 1, 1, NULL, swapped_parents, &id, &e), CZ_OK);
    char *ja = NULL, *jb = NULL;
    assert_int_equal(cz_porep_vanilla_to_json(a, &ja, NULL), CZ_OK);
    assert_int_equal(cz_porep_vanilla_to_json(b, &jb, NULL), CZ_OK);
    assert_string_equal(ja, jb);
    free(ja);
    free(jb);
    cz_porep_vanilla_free(a);
    cz_porep_vanilla_free(b);
    /* SHA-256 labels: the expander parent of node 1 of a two-node sector */
    cz_porep_params sp = {"sha-tiny", 18, 1, 2, 1, 1, 1, 2, 2, 2, CZ_POREP_SHA256, 12345};
#ifdef CUZK_SANITIZED
    sp.layers = 1;
#endif
    assert_true(expect_wrong_parent_refused(&sp, seed, 0, 1, NULL));
}

/* ---- SHA-256 labels -------------------------------------------------------------------------------- */
static void test_sha_label(void **state)
{
    (void)state;
    cz_porep_params p = {"sha-tiny", 18, 1, 2, 1, 1, 1, 2, 2, 2, CZ_POREP_SHA256, 12345};
#ifdef CUZK_SANITIZED
    p.layers = 1;
#endif
    assert_int_equal(cz_porep_params_check(&p, NULL), CZ_OK);
    /* native label = OpenSSL SHA-256 over the documented layout */
    cz_fr rid, pl[2], lab;
    uint64_t raw[4];
    for (int t = 0; t < 4; t++) {
        for (int w = 0; w < 4; w++)
            raw[w] = cz_rng_u64();
        raw[3] &= 0x3fffffffffffffffull;
        assert_int_equal(cz_fr_from_raw(&rid, raw), CZ_OK);
        cz_rng_fr(&pl[0]);
        cz_rng_fr(&pl[1]);
        unsigned layer = (unsigned)t % 2;
        uint64_t node = cz_rng_u64();
        cz_porep_label(&p, &lab, &rid, layer, node, pl);
        uint8_t msg[128], dig[32], got[32];
        memset(msg, 0, sizeof msg);
        cz_fr_to_bytes_le(msg, &rid);
        msg[35] = (uint8_t)layer;
        for (int q = 0; q < 8; q++)
            msg[36 + q] = (uint8_t)(node >> (56 - 8 * q));
        cz_fr_to_bytes_le(msg + 64, &pl[0]);
        if (layer) /* expander parents read the previous layer; zeros at layer 0 */
            cz_fr_to_bytes_le(msg + 96, &pl[1]);
        SHA256(msg, sizeof msg, dig);
        dig[31] &= 0x3f;
        cz_fr_to_bytes_le(got, &lab);
        assert_memory_equal(got, dig, 32);
    }
    cz_porep_vanilla *v = gen(&p, cz_test_seed(), 1, NULL);
    cz_errbuf e = {{0}};
    assert_int_equal(cz_porep_vanilla_verify(v, &e), CZ_OK);
    cz_check_report rep;
    assert_int_equal(check(v, 0, &rep), CZ_OK);
    printf("sha-tiny (L=%u): %zu constraints\n", p.layers, rep.n_constraints);
    bump(&v->challenges[0].labels[p.layers - 1]);
    assert_int_equal(check(v, 0, &rep), CZ_ERR_UNSATISFIED);
    char want[64];
    snprintf(want, sizeof want, "porep/challenge[0]/layer[%u]/label", p.layers - 1);
    assert_non_null(strstr(rep.where, want));
    cz_porep_vanilla_free(v);
}

/* ---- JSON ------------------------------------------------------------------------------------------- */
static char *dump(json_t *root)
{
    char *s = json_dumps(root, JSON_COMPACT | JSON_PRESERVE_ORDER);
    assert_non_null(s);
    return s;
}

/* Parses a modified copy: edit(root) changes it; expects status st and a
 * message containing want. */
static void expect_parse(const char *good, void (*edit)(json_t *), cz_status st, const char *want)
{
    json_error_t je;
    json_t *root = json_loads(good, 0, &je);
    assert_non_null(root);
    edit(root);
    char *s = dump(root);
    cz_porep_vanilla *v = NULL;
    cz_errbuf e = {{0}};
    cz_status got = cz_porep_vanilla_parse(&v, s, strlen(s), &e);
    if (got != st || !strstr(e.msg, want))
        fprintf(stderr, "parse: status %d '%s', expected %d '%s'\n", got, e.msg, st, want);
    assert_int_equal(got, st);
    assert_non_null(strstr(e.msg, want));
    assert_null(v);
    free(s);
    json_decref(root);
}

static json_t *ch(json_t *root, size_t part, size_t c)
{
    return json_array_get(json_object_get(json_array_get(json_object_get(root, "partitions"), part),
                                          "challenges"),
                          c);
}
static void ed_missing_comm_d(json_t *r) { json_object_del(r, "comm_d"); }
static void ed_missing_replica(json_t *r) { json_object_del(ch(r, 1, 0), "replica"); }
static void ed_short_path(json_t *r)
{
    json_t *a = json_object_get(ch(r, 0, 0), "data_path");
    json_array_remove(a, json_array_size(a) - 1);
}
static void ed_label_ge_r(json_t *r)
{
    /* r in 32-byte little-endian hex */
    json_array_set_new(json_object_get(ch(r, 1, 0), "labels"), 1,
                       json_string("01000000fffffffffe5bfeff02a4bd5305d8a10908d83933487d9d2953a7ed73"));
}
static void ed_ff(json_t *r)
{
    json_object_set_new(r, "comm_r",
                        json_string("ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"));
}
static void ed_bad_hex(json_t *r)
{
    json_object_set_new(ch(r, 0, 0), "data",
                        json_string("zz00000000000000000000000000000000000000000000000000000000000000"));
}
static void ed_short_hex(json_t *r) { json_object_set_new(r, "comm_c", json_string("00")); }
static void ed_num_parts(json_t *r) { json_object_set_new(r, "num_partitions", json_integer(3)); }
static void ed_drop_part(json_t *r)
{
    json_array_remove(json_object_get(r, "partitions"), 1);
}
static void ed_index0(json_t *r) { json_object_set_new(ch(r, 0, 0), "index", json_integer(0)); }
static void ed_index_big(json_t *r) { json_object_set_new(ch(r, 0, 0), "index", json_integer(8)); }
static void ed_parent_big(json_t *r)
{
    json_object_set_new(json_array_get(json_object_get(ch(r, 1, 0), "parents"), 1), "index",
                        json_integer(1000));
}
static void ed_parent_label_str(json_t *r)
{
    json_array_set_new(json_object_get(json_array_get(json_object_get(ch(r, 0, 0), "parents"), 0),
                                       "labels"),
                       2, json_integer(5));
}
static void ed_preset(json_t *r) { json_object_set_new(r, "preset", json_string("shaped-99")); }
static void ed_layers(json_t *r)
{
    json_object_set_new(json_object_get(r, "params"), "layers", json_integer(4));
}
static void ed_format(json_t *r) { json_object_set_new(r, "format", json_string("other")); }
static void ed_not_object(json_t *r)
{
    json_array_set_new(json_object_get(r, "partitions"), 0, json_string("x"));
}

static void ed_sha_label_big(json_t *r)
{
    /* 2^254: canonical, but too wide for the SHA-256 label bits */
    json_array_set_new(json_object_get(ch(r, 0, 0), "labels"), 0,
                       json_string("0000000000000000000000000000000000000000000000000000000000000040"));
}
static void ed_sha_parent_label_big(json_t *r)
{
    json_array_set_new(json_object_get(json_array_get(json_object_get(ch(r, 0, 0), "parents"), 2),
                                       "labels"),
                       1, json_string("0000000000000000000000000000000000000000000000000000000000000040"));
}

static void test_json(void **state)
{
    (void)state;
    const cz_porep_params *p = cz_porep_preset_get("shaped-12");
    cz_porep_vanilla *v = gen(p, cz_test_seed() ^ 0x99, 2, NULL);
    char *js = NULL;
    size_t len = 0;
    assert_int_equal(cz_porep_vanilla_to_json(v, &js, &len), CZ_OK);
    /* round trip, through a file */
    char path[] = "/tmp/cz_test_porep_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    cz_errbuf e = {{0}};
    assert_int_equal(cz_porep_vanilla_save(v, path, &e), CZ_OK);
    cz_porep_vanilla *v2 = NULL;
    assert_int_equal(cz_porep_vanilla_load(&v2, path, &e), CZ_OK);
    unlink(path);
    char *js2 = NULL;
    assert_int_equal(cz_porep_vanilla_to_json(v2, &js2, NULL), CZ_OK);
    assert_string_equal(js, js2);
    assert_int_equal(cz_porep_vanilla_verify(v2, &e), CZ_OK);
    assert_int_equal(check(v2, 1, NULL), CZ_OK);
    free(js2);
    cz_porep_vanilla_free(v2);

    expect_parse(js, ed_missing_comm_d, CZ_ERR_FORMAT, "comm_d: missing");
    expect_parse(js, ed_missing_replica, CZ_ERR_FORMAT, "partitions[1].challenges[0].replica: missing");
    expect_parse(js, ed_short_path, CZ_ERR_FORMAT,
                 "partitions[0].challenges[0].data_path: 6 elements, expected 7");
    expect_parse(js, ed_label_ge_r, CZ_ERR_NOT_CANONICAL,
                 "partitions[1].challenges[0].labels[1]: value >= r");
    expect_parse(js, ed_ff, CZ_ERR_NOT_CANONICAL, "comm_r: value >= r");
    expect_parse(js, ed_bad_hex, CZ_ERR_FORMAT, "partitions[0].challenges[0].data: character 0");
    expect_parse(js, ed_short_hex, CZ_ERR_FORMAT, "comm_c: 2 characters, expected 64");
    expect_parse(js, ed_num_parts, CZ_ERR_FORMAT, "partitions: 2 entries, num_partitions says 3");
    expect_parse(js, ed_drop_part, CZ_ERR_FORMAT, "partitions: 1 entries, num_partitions says 2");
    expect_parse(js, ed_index0, CZ_ERR_FORMAT, "partitions[0].challenges[0].index: 0");
    expect_parse(js, ed_index_big, CZ_ERR_FORMAT, "partitions[0].challenges[0].index: 8 out of range");
    expect_parse(js, ed_parent_big, CZ_ERR_FORMAT,
                 "partitions[1].challenges[0].parents[1].index: 1000 out of range");
    expect_parse(js, ed_parent_label_str, CZ_ERR_FORMAT,
                 "partitions[0].challenges[0].parents[0].labels[2]: not a string");
    expect_parse(js, ed_preset, CZ_ERR_NOT_FOUND, "unknown preset");
    expect_parse(js, ed_layers, CZ_ERR_MISMATCH, "params.layers: 4");
    expect_parse(js, ed_format, CZ_ERR_FORMAT, "format");
    expect_parse(js, ed_not_object, CZ_ERR_FORMAT, "partitions[0]: not an object");

    /* truncated at every length (a stride under sanitizers): a clear error, no crash */
    size_t stride = 1;
#ifdef CUZK_SANITIZED
    stride = 13;
#endif
    for (size_t n = 0; n < len; n += stride) {
        cz_porep_vanilla *t = NULL;
        cz_status s = cz_porep_vanilla_parse(&t, js, n, &e);
        assert_int_equal(s, CZ_ERR_FORMAT);
        assert_null(t);
    }
    cz_porep_vanilla *t = NULL;
    assert_int_equal(cz_porep_vanilla_parse(&t, js, len / 2, &e), CZ_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "invalid JSON"));
    assert_int_equal(cz_porep_vanilla_load(&t, "/nonexistent/vanilla.json", &e), CZ_ERR_IO);
    free(js);
    cz_porep_vanilla_free(v);

    /* a SHA-256 preset: round trip, and labels must fit 254 bits */
    v = gen(cz_porep_preset_get("shaped-18"), cz_test_seed() ^ 0x18, 1, NULL);
    assert_int_equal(cz_porep_vanilla_to_json(v, &js, &len), CZ_OK);
    assert_int_equal(cz_porep_vanilla_parse(&t, js, len, &e), CZ_OK);
    assert_int_equal(cz_porep_vanilla_to_json(t, &js2, NULL), CZ_OK);
    assert_string_equal(js, js2);
    assert_int_equal(cz_porep_vanilla_verify(t, &e), CZ_OK);
    cz_porep_vanilla_free(t);
    free(js2);
    expect_parse(js, ed_sha_label_big, CZ_ERR_FORMAT,
                 "partitions[0].challenges[0].labels[0]: not below 2^254");
    expect_parse(js, ed_sha_parent_label_big, CZ_ERR_FORMAT,
                 "partitions[0].challenges[0].parents[2].labels[1]: not below 2^254");
    free(js);
    cz_porep_vanilla_free(v);
}

/* ---- threads --------------------------------------------------------------------------------------- */
static void test_generate_threads(void **state)
{
    (void)state;
    /* 512 nodes: the first window sequential, seven windows in parallel */
    cz_porep_params p = {"threads", 16, 9, 2, 2, 1, 2, 8, 8, 8, CZ_POREP_POSEIDON, 99};
    cz_pool *pool = NULL;
    assert_int_equal(cz_pool_create(&pool, 3, "t-porep"), CZ_OK);
    uint64_t seed = cz_test_seed();
    cz_porep_vanilla *a = gen(&p, seed, 2, NULL), *b = gen(&p, seed, 2, pool);
    char *ja = NULL, *jb = NULL;
    assert_int_equal(cz_porep_vanilla_to_json(a, &ja, NULL), CZ_OK);
    assert_int_equal(cz_porep_vanilla_to_json(b, &jb, NULL), CZ_OK);
    assert_string_equal(ja, jb);
    cz_errbuf e = {{0}};
    assert_int_equal(cz_porep_vanilla_verify(b, &e), CZ_OK);
    assert_int_equal(check(b, 1, NULL), CZ_OK);
    /* a different seed gives a different sector */
    cz_porep_vanilla *c = gen(&p, seed + 1, 2, pool);
    assert_false(cz_fr_eq(&c->comm_d, &a->comm_d));
    free(ja);
    free(jb);
    cz_porep_vanilla_free(a);
    cz_porep_vanilla_free(b);
    cz_porep_vanilla_free(c);
    cz_pool_destroy(pool);
}

int main(void)
{
    cz_rng_seed(cz_test_seed());
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_presets_fit),        cmocka_unit_test(test_graph),
        cmocka_unit_test(test_generated_satisfies), cmocka_unit_test(test_tamper),
        cmocka_unit_test(test_public_inputs_bound), cmocka_unit_test(test_wrong_parent_refused),
        cmocka_unit_test(test_sha_label),
        cmocka_unit_test(test_json),               cmocka_unit_test(test_generate_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
