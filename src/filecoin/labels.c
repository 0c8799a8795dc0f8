/*
 * SDR labelling and the last-layer encoding (include/cuzk/fil_graph.h).
 *
 * A label is SHA-256 of a 1248-byte message: a 64-byte header (replica_id,
 * layer u32 BE, node u64 BE, zeros) and 37 parent labels, so 20 blocks with
 * the padding. cz_fil_label_layer keeps one 1280-byte buffer with the
 * replica_id, layer and padding written once, per node writes the node
 * number and gathers the parent labels into it, and compresses the 20
 * blocks in one call (SHA-NI where the CPU has it) — the reference's
 * multi.rs does the same with its own buffer.
 */
#include "cuzk/fil_graph.h"
#include "cuzk/sha256.h"

#include <string.h>

#define HDR 64u
#define MSG_LEN (HDR + CZ_FIL_LABEL_PARENTS * 32u) /* 1248 */
#define MSG_BLOCKS ((MSG_LEN + 1u + 8u + 63u) / 64u) /* 20 */

static void write_header(uint8_t h[64], const cz_fil_domain *replica_id, uint32_t layer, uint64_t node)
{
    memcpy(h, replica_id->b, 32);
    for (int i = 0; i < 4; i++)
        h[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        h[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    memset(h + 44, 0, 20);
}

static void state_to_domain(cz_fil_domain *out, const uint32_t st[8])
{
    for (int i = 0; i < 8; i++) {
        out->b[4 * i] = (uint8_t)(st[i] >> 24);
        out->b[4 * i + 1] = (uint8_t)(st[i] >> 16);
        out->b[4 * i + 2] = (uint8_t)(st[i] >> 8);
        out->b[4 * i + 3] = (uint8_t)st[i];
    }
    cz_fil_trim_254(out->b);
}

/* as LabelingProof::create_label / EncodingProof::create_key (and
 * create_label for node 0, which hashes the header alone) */
void cz_fil_label_from_parents(cz_fil_domain *out, const cz_fil_domain *replica_id, uint32_t layer,
                               uint64_t node, const cz_fil_domain *parents, size_t nparents)
{
    uint8_t h[64];
    write_header(h, replica_id, layer, node);
    cz_sha256_ctx c;
    cz_sha256_init(&c);
    cz_sha256_update(&c, h, sizeof h);
    for (size_t i = 0; i < nparents; i++)
        cz_sha256_update(&c, parents[i].b, 32);
    uint8_t d[32];
    cz_sha256_final(&c, d);
    memcpy(out->b, d, 32);
    cz_fil_trim_254(out->b);
}

/* The 37-label layout of StackedGraph::copy_parents_data(_exp): dst gets
 * the labels of the first `deg` parents (6 in layer 1, 14 later) and then
 * repeats them until 37 are written. */
static void gather(uint8_t *dst, const uint32_t par[CZ_FIL_DEGREE], uint32_t layer,
                   const cz_fil_domain *cur, const cz_fil_domain *prev)
{
    unsigned deg = layer == 1 ? CZ_FIL_BASE_DEGREE : CZ_FIL_DEGREE;
    for (unsigned i = 0; i < deg; i++) {
        const cz_fil_domain *src = i < CZ_FIL_BASE_DEGREE ? &cur[par[i]] : &prev[par[i]];
        memcpy(dst + 32 * i, src->b, 32);
    }
    for (unsigned done = deg; done < CZ_FIL_LABEL_PARENTS;) {
        unsigned k = CZ_FIL_LABEL_PARENTS - done < done ? CZ_FIL_LABEL_PARENTS - done : done;
        memcpy(dst + 32 * done, dst, 32 * (size_t)k);
        done += k;
    }
}

static cz_status get_parents(const cz_fil_graph *g, uint32_t layer, uint64_t node,
                             uint32_t par[CZ_FIL_DEGREE])
{
    if (g->cache || layer != 1)
        return cz_fil_graph_parents_cached(g, node, par);
    return cz_fil_graph_base_parents(g, node, par); /* layer 1 needs no expander */
}

/* the parent labels a LabelingProof carries (prove_layers_generate) */
cz_status cz_fil_label_parents(const cz_fil_graph *g, uint32_t layer, uint64_t node,
                               const cz_fil_domain *cur, const cz_fil_domain *prev,
                               cz_fil_domain out[CZ_FIL_LABEL_PARENTS])
{
    if (layer == 0 || node >= g->nodes || !cur || (layer > 1 && !prev))
        return CZ_ERR_INVALID_ARG;
    uint32_t par[CZ_FIL_DEGREE];
    cz_status st = get_parents(g, layer, node, par);
    if (st != CZ_OK)
        return st;
    uint8_t tmp[CZ_FIL_LABEL_PARENTS * 32];
    gather(tmp, par, layer, cur, prev);
    memcpy(out, tmp, sizeof tmp);
    return CZ_OK;
}

/* as create_label (layer 1) / create_label_exp (later layers) for every
 * node of the layer in order */
cz_status cz_fil_label_layer(const cz_fil_graph *g, const cz_fil_domain *replica_id, uint32_t layer,
                             const cz_fil_domain *prev, cz_fil_domain *out)
{
    if (layer == 0 || !replica_id || !out || (layer > 1 && !prev))
        return CZ_ERR_INVALID_ARG;
    if (g->nodes == 0)
        return CZ_ERR_INVALID_ARG;

    uint8_t msg[MSG_BLOCKS * 64];
    memset(msg, 0, sizeof msg);
    write_header(msg, replica_id, layer, 0);
    msg[MSG_LEN] = 0x80;
    uint64_t bits = (uint64_t)MSG_LEN * 8;
    for (int i = 0; i < 8; i++)
        msg[sizeof msg - 8 + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));

    /* node 0 hashes no parents */
    cz_fil_label_from_parents(&out[0], replica_id, layer, 0, NULL, 0);
    for (uint64_t node = 1; node < g->nodes; node++) {
        uint32_t par[CZ_FIL_DEGREE];
        cz_status st = get_parents(g, layer, node, par);
        if (st != CZ_OK)
            return st;
        for (int i = 0; i < 8; i++)
            msg[36 + i] = (uint8_t)(node >> (56 - 8 * i));
        gather(msg + HDR, par, layer, out, prev);
        uint32_t s[8];
        memcpy(s, CZ_SHA256_IV, sizeof s);
        cz_sha256_compress_blocks(s, msg, MSG_BLOCKS);
        state_to_domain(&out[node], s);
    }
    return CZ_OK;
}

cz_status cz_fil_labels(const cz_fil_graph *g, const cz_fil_domain *replica_id, unsigned layers,
                        cz_fil_domain *labels)
{
    if (layers == 0 || !labels)
        return CZ_ERR_INVALID_ARG;
    for (unsigned l = 1; l <= layers; l++) {
        cz_fil_domain *cur = labels + (size_t)(l - 1) * g->nodes;
        const cz_fil_domain *prev = l > 1 ? cur - g->nodes : NULL;
        cz_status st = cz_fil_label_layer(g, replica_id, l, prev, cur);
        if (st != CZ_OK)
            return st;
    }
    return CZ_OK;
}

/* ---- encoding ------------------------------------------------------------------ */
/* as encode::encode: key + value in Fr */
cz_status cz_fil_encode(cz_fil_domain *out, const cz_fil_domain *key, const cz_fil_domain *data)
{
    cz_fr k, d;
    cz_status st = cz_fil_domain_to_fr(&k, key);
    if (st != CZ_OK)
        return st;
    if ((st = cz_fil_domain_to_fr(&d, data)) != CZ_OK)
        return st;
    cz_fr_add(&k, &k, &d);
    cz_fil_domain_from_fr(out, &k);
    return CZ_OK;
}

/* as encode::decode: value − key in Fr */
cz_status cz_fil_decode(cz_fil_domain *out, const cz_fil_domain *key, const cz_fil_domain *replica)
{
    cz_fr k, r;
    cz_status st = cz_fil_domain_to_fr(&k, key);
    if (st != CZ_OK)
        return st;
    if ((st = cz_fil_domain_to_fr(&r, replica)) != CZ_OK)
        return st;
    cz_fr_sub(&r, &r, &k);
    cz_fil_domain_from_fr(out, &r);
    return CZ_OK;
}

typedef struct {
    cz_fil_domain *out;
    const cz_fil_domain *key, *in;
    bool decode;
    int failed; /* accessed atomically */
} coder_job;

static void coder_range(void *arg, size_t lo, size_t hi)
{
    coder_job *j = arg;
    for (size_t i = lo; i < hi; i++) {
        cz_status st = j->decode ? cz_fil_decode(&j->out[i], &j->key[i], &j->in[i])
                                 : cz_fil_encode(&j->out[i], &j->key[i], &j->in[i]);
        if (st != CZ_OK)
            __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
    }
}

static cz_status code_nodes(cz_fil_domain *out, const cz_fil_domain *key, const cz_fil_domain *in,
                            size_t n, cz_pool *pool, bool decode)
{
    if (n && (!out || !key || !in))
        return CZ_ERR_INVALID_ARG;
    coder_job j = {out, key, in, decode, 0};
    cz_pool_parallel_range(pool, 0, n, 4096, coder_range, &j);
    return __atomic_load_n(&j.failed, __ATOMIC_RELAXED) ? CZ_ERR_NOT_CANONICAL : CZ_OK;
}

cz_status cz_fil_encode_nodes(cz_fil_domain *out, const cz_fil_domain *key, const cz_fil_domain *data,
                              size_t n, cz_pool *pool)
{
    return code_nodes(out, key, data, n, pool, false);
}

cz_status cz_fil_decode_nodes(cz_fil_domain *out, const cz_fil_domain *key,
                              const cz_fil_domain *replica, size_t n, cz_pool *pool)
{
    return code_nodes(out, key, replica, n, pool, true);
}
