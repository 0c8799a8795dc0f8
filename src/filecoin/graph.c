/*
 * The SDR graph: BucketGraph base parents, StackedGraph expander parents
 * and the parent cache (include/cuzk/fil_graph.h).
 */
#include "cuzk/fil_graph.h"
#include "cuzk/fil_hash.h"
#include "cuzk/sha256.h"

#include <stdlib.h>
#include <string.h>

/* crypto::derive_porep_domain_seed: SHA-256(tag ‖ porep_id) */
static void domain_seed(uint8_t out[32], const char *tag, const uint8_t porep_id[32])
{
    cz_sha256_ctx c;
    cz_sha256_init(&c);
    cz_sha256_update(&c, tag, strlen(tag));
    cz_sha256_update(&c, porep_id, 32);
    cz_sha256_final(&c, out);
}

void cz_fil_derive_drg_seed(uint8_t out[28], const uint8_t porep_id[32])
{
    uint8_t s[32];
    domain_seed(s, "Filecoin_DRSample", porep_id);
    memcpy(out, s, 28);
}

void cz_fil_derive_feistel_keys(uint64_t out[4], const uint8_t porep_id[32])
{
    uint8_t s[32];
    domain_seed(s, "Filecoin_Feistel", porep_id);
    for (int k = 0; k < 4; k++) {
        uint64_t v = 0;
        for (int i = 7; i >= 0; i--)
            v = v << 8 | s[8 * k + i];
        out[k] = v;
    }
}

cz_status cz_fil_graph_init(cz_fil_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                            cz_fil_api_version api)
{
    memset(g, 0, sizeof *g);
    if (nodes == 0 || nodes > UINT32_MAX || !porep_id)
        return CZ_ERR_INVALID_ARG;
    if (api != CZ_FIL_API_1_0 && api != CZ_FIL_API_1_1 && api != CZ_FIL_API_1_2)
        return CZ_ERR_INVALID_ARG;
    g->nodes = nodes;
    g->api = api;
    cz_fil_derive_drg_seed(g->drg_seed, porep_id);
    cz_fil_derive_feistel_keys(g->feistel_keys, porep_id);
    cz_fil_feistel_precompute(&g->feistel, nodes * CZ_FIL_EXP_DEGREE);
    return CZ_OK;
}

void cz_fil_graph_free(cz_fil_graph *g)
{
    free(g->cache);
    g->cache = NULL;
}

/* ceil(log2(x)) for x >= 2, the value BucketGraph::parents takes from
 * `(x as f64).log2().ceil()`. For the metagraph sizes in use (x = 5·node <
 * 2^35, exact as a double) the float form is exact: at a power of two log2
 * is the integer itself, and elsewhere the distance of log2(x) from the
 * nearest integer (≥ log2(1 + 2^-35) ≈ 4e-11) dwarfs the rounding error
 * (≈ 1e-14). So the integer form below agrees for every node count up to
 * 2^32; the test checks this against libm around every power of two. */
static inline uint64_t ceil_log2(uint64_t x) { return 64u - (uint64_t)__builtin_clzll(x - 1); }

/* as BucketGraph::parents (with base_degree 6) */
static void base_parents(const cz_fil_graph *g, uint32_t node, uint32_t out[CZ_FIL_BASE_DEGREE])
{
    const uint32_t m_prime = CZ_FIL_BASE_DEGREE - 1;
    if (node < 2) {
        /* node 0 refers to itself, node 1 only to node 0 */
        for (unsigned i = 0; i < CZ_FIL_BASE_DEGREE; i++)
            out[i] = 0;
        return;
    }
    uint8_t seed[32];
    memcpy(seed, g->drg_seed, 28);
    seed[28] = (uint8_t)node;
    seed[29] = (uint8_t)(node >> 8);
    seed[30] = (uint8_t)(node >> 16);
    seed[31] = (uint8_t)(node >> 24);
    cz_chacha_rng rng;
    cz_chacha_rng_init(&rng, seed, 8);

    uint64_t meta = (uint64_t)node * m_prime;
    uint64_t n_buckets = ceil_log2(meta);
    /* 1.0 puts the predecessor last and draws into parents[0..5); 1.1/1.2
     * put it first and draw into parents[1..6). The draws are the same. */
    unsigned pred = g->api == CZ_FIL_API_1_0 ? m_prime : 0;
    uint32_t *other = g->api == CZ_FIL_API_1_0 ? out : out + 1;
    for (unsigned k = 0; k < m_prime; k++) {
        uint64_t bucket = cz_chacha_rng_next_u64(&rng) % n_buckets + 1;
        uint64_t largest = (uint64_t)1 << bucket;
        if (largest > meta)
            largest = meta;
        uint64_t smallest = largest >> 1;
        if (smallest < 2)
            smallest = 2;
        uint64_t n_dist = largest - smallest + 1;
        uint64_t dist = smallest + cz_chacha_rng_next_u64(&rng) % n_dist;
        uint32_t mapped = (uint32_t)((meta - dist) / m_prime);
        other[k] = mapped == node ? node - 1 : mapped;
    }
    out[pred] = node - 1;
}

/* as StackedGraph::generate_expanded_parents / correspondent */
static void exp_parents(const cz_fil_graph *g, uint64_t node, uint32_t out[CZ_FIL_EXP_DEGREE])
{
    uint64_t n = g->nodes * CZ_FIL_EXP_DEGREE;
    for (unsigned i = 0; i < CZ_FIL_EXP_DEGREE; i++) {
        uint64_t a = node * CZ_FIL_EXP_DEGREE + i;
        uint64_t t = cz_fil_feistel_permute(n, a, g->feistel_keys, &g->feistel);
        /* 1.0 casts to u32 before dividing: the legacy truncation that
         * keeps 32/64GiB expander parents out of the upper part of the
         * sector. 1.1/1.2 divide the full value (always < 2^32 after). */
        out[i] = g->api == CZ_FIL_API_1_0 ? (uint32_t)t / CZ_FIL_EXP_DEGREE
                                          : (uint32_t)(t / CZ_FIL_EXP_DEGREE);
    }
}

cz_status cz_fil_graph_base_parents(const cz_fil_graph *g, uint64_t node,
                                    uint32_t out[CZ_FIL_BASE_DEGREE])
{
    if (node >= g->nodes)
        return CZ_ERR_INVALID_ARG;
    base_parents(g, (uint32_t)node, out);
    return CZ_OK;
}

cz_status cz_fil_graph_exp_parents(const cz_fil_graph *g, uint64_t node,
                                   uint32_t out[CZ_FIL_EXP_DEGREE])
{
    if (node >= g->nodes)
        return CZ_ERR_INVALID_ARG;
    exp_parents(g, node, out);
    return CZ_OK;
}

cz_status cz_fil_graph_parents(const cz_fil_graph *g, uint64_t node, uint32_t out[CZ_FIL_DEGREE])
{
    if (node >= g->nodes)
        return CZ_ERR_INVALID_ARG;
    base_parents(g, (uint32_t)node, out);
    exp_parents(g, node, out + CZ_FIL_BASE_DEGREE);
    return CZ_OK;
}

cz_status cz_fil_graph_parents_cached(const cz_fil_graph *g, uint64_t node,
                                      uint32_t out[CZ_FIL_DEGREE])
{
    if (node >= g->nodes)
        return CZ_ERR_INVALID_ARG;
    if (!g->cache)
        return cz_fil_graph_parents(g, node, out);
    memcpy(out, g->cache + node * CZ_FIL_DEGREE, CZ_FIL_DEGREE * sizeof *out);
    return CZ_OK;
}

static void cache_range(void *arg, size_t lo, size_t hi)
{
    cz_fil_graph *g = arg;
    for (size_t i = lo; i < hi; i++) {
        uint32_t *p = g->cache + i * CZ_FIL_DEGREE;
        base_parents(g, (uint32_t)i, p);
        exp_parents(g, i, p + CZ_FIL_BASE_DEGREE);
    }
}

/* as ParentCache::generate (kept in memory rather than in a file) */
cz_status cz_fil_graph_build_cache(cz_fil_graph *g, cz_pool *pool)
{
    if (g->cache)
        return CZ_OK;
    if (g->nodes == 0)
        return CZ_ERR_INVALID_ARG;
    if (g->nodes > SIZE_MAX / (CZ_FIL_DEGREE * sizeof(uint32_t)))
        return CZ_ERR_NOMEM;
    uint32_t *c = malloc((size_t)g->nodes * CZ_FIL_DEGREE * sizeof(uint32_t));
    if (!c)
        return CZ_ERR_NOMEM;
    g->cache = c;
    cz_pool_parallel_range(pool, 0, (size_t)g->nodes, 1024, cache_range, g);
    return CZ_OK;
}
