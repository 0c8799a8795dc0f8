/*
 * filecoin-hashers' PoseidonHasher (filecoin-hashers/src/poseidon.rs) and
 * storage-proofs-porep's column hash, on top of neptune_poseidon.c.
 *
 * Every domain element is converted as the reference does with
 * Fr::from_repr_vartime(..).expect(..): canonical or refused (the
 * reference panics; we return CZ_ERR_NOT_CANONICAL).
 */
#include "cuzk/fil_poseidon.h"

#include <stdatomic.h>
#include <string.h>

static cz_status dom_to_fr(cz_fr *out, const cz_fil_domain *d)
{
    return cz_fr_from_bytes_le(out, d->b) == CZ_OK ? CZ_OK : CZ_ERR_NOT_CANONICAL;
}

/* shared_hash_frs: POSEIDON_CONSTANTS_{2,4,8,16} by preimage length. */
static const cz_neptune_constants *node_constants(unsigned n)
{
    switch (n) {
    case 2: case 4: case 8: case 16:
        return cz_neptune_constants_get(n);
    default:
        return NULL;
    }
}

/* n domain elements -> n Fr, then the MerkleTree hash with c. */
static cz_status hash_domains(cz_fil_domain *out, const cz_neptune_constants *c,
                              const cz_fil_domain *in, unsigned n)
{
    cz_fr fr[CZ_NEPTUNE_ARITY_MAX];
    for (unsigned i = 0; i < n; i++) {
        cz_status st = dom_to_fr(&fr[i], &in[i]);
        if (st != CZ_OK)
            return st;
    }
    cz_fr h;
    cz_neptune_hash(&h, c, fr);
    cz_fil_domain_from_fr(out, &h);
    return CZ_OK;
}

/* PoseidonFunction::hash2. */
cz_status cz_fil_poseidon_hash2(cz_fil_domain *out, const cz_fil_domain *a, const cz_fil_domain *b)
{
    if (!out || !a || !b)
        return CZ_ERR_INVALID_ARG;
    const cz_neptune_constants *c = cz_neptune_constants_get(2);
    if (!c)
        return CZ_ERR_NOMEM;
    cz_fil_domain in[2] = {*a, *b};
    return hash_domains(out, c, in, 2);
}

/* LightAlgorithm::node / ::multi_node for PoseidonFunction. */
cz_status cz_fil_poseidon_hash_node(cz_fil_domain *out, const cz_fil_domain *parts, unsigned n)
{
    if (!out || !parts)
        return CZ_ERR_INVALID_ARG;
    if (n != 2 && n != 4 && n != 8 && n != 16)
        return CZ_ERR_INVALID_ARG;
    const cz_neptune_constants *c = node_constants(n);
    if (!c)
        return CZ_ERR_NOMEM;
    return hash_domains(out, c, parts, n);
}

typedef struct {
    cz_fil_domain *out;
    const cz_fil_domain *in;
    const cz_neptune_constants *c;
    unsigned arity;
    _Atomic int bad;
} nodes_arg;

static void nodes_range(void *arg, size_t lo, size_t hi)
{
    nodes_arg *a = arg;
    for (size_t k = lo; k < hi; k++)
        if (hash_domains(&a->out[k], a->c, a->in + k * a->arity, a->arity) != CZ_OK) {
            atomic_store_explicit(&a->bad, 1, memory_order_relaxed);
            return;
        }
}

cz_status cz_fil_poseidon_hash_nodes(cz_fil_domain *out, const cz_fil_domain *in, size_t count,
                                unsigned arity, cz_pool *pool)
{
    if ((!out || !in) && count)
        return CZ_ERR_INVALID_ARG;
    if (arity != 2 && arity != 4 && arity != 8 && arity != 16)
        return CZ_ERR_INVALID_ARG;
    const cz_neptune_constants *c = node_constants(arity);
    if (!c)
        return CZ_ERR_NOMEM;
    nodes_arg a = {.out = out, .in = in, .c = c, .arity = arity};
    atomic_init(&a.bad, 0);
    cz_pool_parallel_range(pool, 0, count, 64, nodes_range, &a);
    return atomic_load(&a.bad) ? CZ_ERR_NOT_CANONICAL : CZ_OK;
}

/* PoseidonFunction::hash (shared_hash): 32-byte chunks as domain elements. */
cz_status cz_fil_poseidon_hash_bytes(cz_fil_domain *out, const uint8_t *data, size_t len)
{
    if (!out || !data || len % 32 != 0)
        return CZ_ERR_INVALID_ARG;
    size_t n = len / 32;
    if (n != 2 && n != 4 && n != 8 && n != 16)
        return CZ_ERR_INVALID_ARG;
    cz_fil_domain d[16];
    memcpy(d, data, len);
    return cz_fil_poseidon_hash_node(out, d, (unsigned)n);
}

/* PoseidonFunction::hash_md: Poseidon::new(POSEIDON_MD_CONSTANTS), and
 * for each chunk reset() (lanes 1.. zeroed), input(acc), input(chunk...),
 * hash() — the MerkleTree tag, zero lanes after a short last chunk. All
 * inputs are converted up front, as the reference collects them first. */
cz_status cz_fil_poseidon_hash_md(cz_fil_domain *out, const cz_fil_domain *in, size_t n)
{
    if (!out || !in || n < 2)
        return CZ_ERR_INVALID_ARG;
    const unsigned arity = 36;
    const cz_neptune_constants *c = cz_neptune_constants_get(arity);
    if (!c)
        return CZ_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        cz_fr tmp;
        cz_status st = dom_to_fr(&tmp, &in[i]);
        if (st != CZ_OK)
            return st;
    }
    cz_fr acc, buf[36];
    if (dom_to_fr(&acc, &in[0]) != CZ_OK)
        return CZ_ERR_INTERNAL;
    for (size_t i = 1; i < n; i += arity - 1) {
        size_t m = n - i < arity - 1 ? n - i : arity - 1;
        buf[0] = acc;
        for (size_t j = 0; j < arity - 1; j++) {
            if (j < m) {
                if (dom_to_fr(&buf[j + 1], &in[i + j]) != CZ_OK)
                    return CZ_ERR_INTERNAL;
            } else {
                buf[j + 1] = CZ_FR_ZERO;
            }
        }
        cz_neptune_hash(&acc, c, buf);
    }
    cz_fil_domain_from_fr(out, &acc);
    return CZ_OK;
}

/* storage-proofs-porep stacked::vanilla::hash::hash_single_column. */
cz_status cz_fil_hash_single_column(cz_fr *out, const cz_fr *column, unsigned n)
{
    if (!out || !column || (n != 2 && n != 11))
        return CZ_ERR_INVALID_ARG;
    const cz_neptune_constants *c = cz_neptune_constants_get(n);
    if (!c)
        return CZ_ERR_NOMEM;
    cz_neptune_hash(out, c, column);
    return CZ_OK;
}

cz_status cz_fil_poseidon_hash_column(cz_fil_domain *out, const cz_fil_domain *rows, unsigned n)
{
    if (!out || !rows || (n != 2 && n != 11))
        return CZ_ERR_INVALID_ARG;
    const cz_neptune_constants *c = cz_neptune_constants_get(n);
    if (!c)
        return CZ_ERR_NOMEM;
    return hash_domains(out, c, rows, n);
}

typedef struct {
    cz_fil_domain *out;
    const cz_fil_domain *const *layers;
    const cz_neptune_constants *c;
    unsigned nlayers;
    _Atomic int bad;
} columns_arg;

static void columns_range(void *arg, size_t lo, size_t hi)
{
    columns_arg *a = arg;
    cz_fr col[11], h;
    for (size_t k = lo; k < hi; k++) {
        for (unsigned l = 0; l < a->nlayers; l++)
            if (dom_to_fr(&col[l], &a->layers[l][k]) != CZ_OK) {
                atomic_store_explicit(&a->bad, 1, memory_order_relaxed);
                return;
            }
        cz_neptune_hash(&h, a->c, col);
        cz_fil_domain_from_fr(&a->out[k], &h);
    }
}

cz_status cz_fil_poseidon_hash_columns(cz_fil_domain *out, const cz_fil_domain *const *layers, unsigned nlayers,
                              size_t count, cz_pool *pool)
{
    if (nlayers != 2 && nlayers != 11)
        return CZ_ERR_INVALID_ARG;
    if (count && (!out || !layers))
        return CZ_ERR_INVALID_ARG;
    for (unsigned l = 0; count && l < nlayers; l++)
        if (!layers[l])
            return CZ_ERR_INVALID_ARG;
    const cz_neptune_constants *c = cz_neptune_constants_get(nlayers);
    if (!c)
        return CZ_ERR_NOMEM;
    columns_arg a = {.out = out, .layers = layers, .c = c, .nlayers = nlayers};
    atomic_init(&a.bad, 0);
    cz_pool_parallel_range(pool, 0, count, 64, columns_range, &a);
    return atomic_load(&a.bad) ? CZ_ERR_NOT_CANONICAL : CZ_OK;
}
