/*
 * cuzk bench merkle --log-leaves K --threads T [--samples S] [--json]
 *
 * Native hashing and tree building, the generator's hot path (the
 * PoRep-shaped circuit's vanilla-proof generator builds tree_d, tree_c and
 * tree_r over a sector of 2^K nodes):
 *   - one Poseidon permutation, optimised and plain, for t = 3, 5, 9, 12, 17
 *     (single thread; ns/op);
 *   - one SHA-256 tree node (two compressions + encodings; ns/op);
 *   - building a tree (ms, and ns per internal node): SHA-256 binary and
 *     Poseidon binary over 2^K leaves, Poseidon arity 4 over 4^⌊K/2⌋ and
 *     arity 8 over 8^⌊K/3⌋ leaves.
 * T threads = the calling thread + T−1 pool workers (T = 1: NULL pool).
 */
#include "bench_util.h"
#include "opts.h"
#include "cuzk/merkle.h"
#include "cuzk/poseidon.h"
#include "cuzk/threadpool.h"

#include <stdio.h>
#include <stdlib.h>

int cz_bench_merkle(int argc, char **argv);

typedef struct {
    const cz_poseidon_params *p;
    cz_fr s[CZ_POSEIDON_T_MAX];
    bool plain;
} perm_arg;

static void perm_loop(void *argp, size_t iters)
{
    perm_arg *a = argp;
    for (size_t i = 0; i < iters; i++) {
        if (a->plain)
            cz_poseidon_permute_plain(a->p, a->s);
        else
            cz_poseidon_permute(a->p, a->s);
    }
}

typedef struct {
    cz_fr l, r;
} node_arg;

static void node_loop(void *argp, size_t iters)
{
    node_arg *a = argp;
    for (size_t i = 0; i < iters; i++)
        cz_merkle_sha256_node(&a->l, &a->l, &a->r);
}

typedef struct {
    cz_merkle_hash h;
    unsigned arity;
    const cz_fr *leaves;
    uint64_t n;
    cz_pool *pool;
    int failed;
} build_arg;

static void build_loop(void *argp, size_t iters)
{
    build_arg *a = argp;
    for (size_t i = 0; i < iters; i++) {
        cz_merkle_tree *t = NULL;
        if (cz_merkle_build(&t, a->h, a->arity, a->leaves, a->n, a->pool) != CZ_OK)
            a->failed = 1;
        cz_merkle_free(t);
    }
}

static const cz_opt merkle_opts[] = {
    CZ_NUM("--log-leaves", "K", 3, 30, "2^K leaves (default 16)"),
    CZ_NUM("--threads", "T", 1, 1024, "threads, the calling one included (default 1)"),
    CZ_NUM("--samples", "S", 1, 1000, "samples (default 3)"),
    CZ_FLAG("--json", "JSON instead of a table"),
    {0},
};
static const cz_cmd merkle_cmd = {
    .name = "cuzk bench merkle",
    .synopsis = "--log-leaves K --threads T [--samples S] [--json]",
    .opts = merkle_opts,
};

int cz_bench_merkle(int argc, char **argv)
{
    cz_args oa;
    int prc = cz_opts_parse(&oa, &merkle_cmd, argc, argv);
    if (prc >= 0) return prc;
    long log_n = cz_opt_num(&oa, "--log-leaves", 16);
    long threads = cz_opt_num(&oa, "--threads", 1);
    long samples = cz_opt_num(&oa, "--samples", 3);
    bool json = cz_opt_flag(&oa, "--json");
    if (log_n < 3 || log_n > 30 || threads < 1 || threads > 1024 || samples < 1) {
        fprintf(stderr, "cuzk bench merkle: --log-leaves 3..30, --threads >= 1, --samples >= 1\n");
        return 2;
    }
    cz_pool *pool = NULL;
    if (threads > 1 && cz_pool_create(&pool, (unsigned)(threads - 1), "bench-mkl") != CZ_OK) {
        fprintf(stderr, "cuzk bench merkle: cannot create a pool of %ld threads\n", threads);
        return 1;
    }
    uint64_t n = 1ull << log_n;
    cz_fr *leaves = malloc(n * sizeof(cz_fr));
    if (!leaves) {
        fprintf(stderr, "cuzk bench merkle: out of memory for 2^%ld leaves\n", log_n);
        cz_pool_destroy(pool);
        return 1;
    }
    /* deterministic leaves below 2^254 (valid for SHA-256 trees) */
    for (uint64_t i = 0; i < n; i++) {
        uint64_t raw[4] = {i * 0x9e3779b97f4a7c15ull, ~i, i ^ 0x5555, (i * 7) & 0x3fffffffffffffffull};
        if (cz_fr_from_raw(&leaves[i], raw) != CZ_OK)
            leaves[i] = CZ_FR_ZERO;
    }
    cz_bench_report *rep = cz_bench_report_new("merkle", json);
    char name[64], extra[96];

    static const unsigned ts[] = {3, 5, 9, 12, 17};
    for (size_t k = 0; k < sizeof ts / sizeof ts[0]; k++) {
        perm_arg a = {.p = cz_poseidon_params_get(ts[k])};
        if (!a.p)
            continue;
        for (int plain = 0; plain < 2; plain++) {
            a.plain = plain != 0;
            double ns = cz_bench_median_ns(perm_loop, &a, 200, (int)samples);
            snprintf(name, sizeof name, "poseidon_t%u_%s", ts[k], plain ? "plain" : "opt");
            snprintf(extra, sizeof extra, "\"t\":%u", ts[k]);
            cz_bench_report_add(rep, name, ns, "ns/op", extra);
        }
    }
    node_arg na = {.l = leaves[1], .r = leaves[2]};
    cz_bench_report_add(rep, "sha256_node", cz_bench_median_ns(node_loop, &na, 20000, (int)samples),
                        "ns/op", NULL);

    static const struct {
        cz_merkle_hash h;
        unsigned arity, bits;
        const char *name;
    } kinds[] = {{CZ_MERKLE_SHA256, 2, 1, "sha256"},
                 {CZ_MERKLE_POSEIDON, 2, 1, "poseidon2"},
                 {CZ_MERKLE_POSEIDON, 4, 2, "poseidon4"},
                 {CZ_MERKLE_POSEIDON, 8, 3, "poseidon8"}};
    int rc = 0;
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        unsigned lg = (unsigned)log_n / kinds[k].bits * kinds[k].bits;
        build_arg b = {.h = kinds[k].h, .arity = kinds[k].arity, .leaves = leaves,
                       .n = 1ull << lg, .pool = pool};
        double ns = cz_bench_median_ns(build_loop, &b, 1, (int)samples);
        if (b.failed) {
            fprintf(stderr, "cuzk bench merkle: building %s failed\n", kinds[k].name);
            rc = 1;
            break;
        }
        uint64_t internal = (b.n - 1) / (kinds[k].arity - 1);
        snprintf(extra, sizeof extra, "\"log_leaves\":%u,\"threads\":%ld,\"ns_per_node\":%.0f", lg,
                 threads, ns / (double)internal);
        snprintf(name, sizeof name, "build_%s_2^%u", kinds[k].name, lg);
        cz_bench_report_add(rep, name, ns / 1e6, "ms", extra);
    }
    cz_bench_report_finish(rep);
    free(leaves);
    cz_pool_destroy(pool);
    return rc;
}
