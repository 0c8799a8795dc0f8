/* The circuit families the production back-end knows. */
#include "prover_internal.h"
#include "cuzk/circuits.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- mulchain-N ------------------------------------------------------------ */
static cz_status mc_resolve(const char *id, void **shape, cz_errbuf *err)
{
    const char *n = id + strlen("mulchain-");
    char *end;
    unsigned long v = strtoul(n, &end, 10);
    if (!*n || *end || v < 1 || v > (1ul << 28))
        return cz_err(err, CZ_ERR_NOT_FOUND, "unknown circuit '%s' (mulchain-N needs 1 <= N <= 2^28)", id);
    cz_mulchain *mc = calloc(1, sizeof *mc);
    if (!mc) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    mc->n_mul = v;
    mc->x0 = CZ_FR_ONE;
    *shape = mc;
    return CZ_OK;
}

static void mc_free(void *p) { free(p); }

static cz_status mc_shape(void *shape, cz_synth_fn *fn, const void **ctx)
{
    *fn = cz_mulchain_synth;
    *ctx = shape;
    return CZ_OK;
}

/* payload: empty (x0 = 1) or {"x0": "<decimal>"} (a tiny hand parser: the
 * only field is one decimal string) */
static cz_status mc_parse(void *shape, const uint8_t *payload, size_t len, uint32_t nparts, void **job,
                          cz_errbuf *err)
{
    (void)shape;
    (void)nparts;
    cz_fr *x0 = malloc(sizeof *x0);
    if (!x0) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    *x0 = CZ_FR_ONE;
    if (len) {
        char buf[160];
        if (len >= sizeof buf) {
            free(x0);
            return cz_err(err, CZ_ERR_FORMAT, "mulchain payload: expected {\"x0\": \"<decimal>\"} (too long)");
        }
        memcpy(buf, payload, len);
        buf[len] = 0;
        char *k = strstr(buf, "\"x0\"");
        char *q1 = k ? strchr(k + 4, '"') : NULL;
        char *q2 = q1 ? strchr(q1 + 1, '"') : NULL;
        if (!q2) {
            free(x0);
            return cz_err(err, CZ_ERR_FORMAT, "mulchain payload: expected {\"x0\": \"<decimal>\"}");
        }
        *q2 = 0;
        if (cz_fr_from_dec(x0, q1 + 1) != CZ_OK) {
            free(x0);
            return cz_err(err, CZ_ERR_FORMAT, "mulchain payload: x0 must be a decimal integer < r");
        }
    }
    *job = x0;
    return CZ_OK;
}

static cz_status mc_part(void *shape, void *job, uint32_t part, cz_synth_fn *fn, void **ctx, cz_errbuf *err)
{
    cz_mulchain *mc = malloc(sizeof *mc);
    if (!mc) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    *mc = *(cz_mulchain *)shape;
    cz_fr p;
    cz_fr_from_u64(&p, part);
    cz_fr_add(&mc->x0, (cz_fr *)job, &p);
    *fn = cz_mulchain_synth;
    *ctx = mc;
    return CZ_OK;
}

static cz_status mc_public(void *shape, void *job, uint32_t part, cz_fr *out, size_t n)
{
    cz_mulchain mc = *(cz_mulchain *)shape;
    if (n != 2 + mc.n_extra_inputs) return CZ_ERR_MISMATCH;
    cz_fr p;
    cz_fr_from_u64(&p, part);
    cz_fr_add(&mc.x0, (cz_fr *)job, &p);
    cz_mulchain_public_inputs(&mc, out);
    return CZ_OK;
}

static cz_status mc_sample(void *shape, uint32_t parts, uint64_t seed, cz_pool *pool, uint8_t **payload,
                           size_t *len, cz_errbuf *err)
{
    (void)shape;
    (void)parts;
    (void)pool;
    char *s = malloc(64);
    if (!s) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    *len = (size_t)snprintf(s, 64, "{\"x0\": \"%llu\"}", (unsigned long long)(seed % 1000000007ULL) + 2);
    *payload = (uint8_t *)s;
    return CZ_OK;
}

/* ---- shaped-K: the PoRep-shaped presets --------------------------------------- */
typedef struct {
    const cz_porep_params *p;
    cz_porep_ctx shape_ctx; /* vanilla NULL: shape-only recording */
} porep_shape;

static cz_status pr_resolve(const char *id, void **shape, cz_errbuf *err)
{
    const cz_porep_params *p = cz_porep_preset_get(id);
    if (!p) return cz_err(err, CZ_ERR_NOT_FOUND, "unknown circuit '%s' (PoRep presets: shaped-12 .. shaped-20)", id);
    porep_shape *s = calloc(1, sizeof *s);
    if (!s) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    s->p = p;
    s->shape_ctx.params = p;
    *shape = s;
    return CZ_OK;
}

static cz_status pr_shape(void *shape, cz_synth_fn *fn, const void **ctx)
{
    *fn = cz_porep_synth;
    *ctx = &((porep_shape *)shape)->shape_ctx;
    return CZ_OK;
}

/* payload: a vanilla proof (JSON) of this preset with exactly nparts
 * partitions; checked natively (hashes, paths, challenges, graph) so a bad
 * one is refused with the field that is wrong, before any synthesis. */
static cz_status pr_parse(void *shape, const uint8_t *payload, size_t len, uint32_t nparts, void **job,
                          cz_errbuf *err)
{
    porep_shape *s = shape;
    cz_porep_vanilla *v = NULL;
    cz_status st = cz_porep_vanilla_parse(&v, (const char *)payload, len, err);
    if (st != CZ_OK) return st;
    if (strcmp(v->params.name, s->p->name)) {
        st = cz_err(err, CZ_ERR_MISMATCH, "vanilla proof is for preset %s, the job's circuit is %s", v->params.name,
                    s->p->name);
    } else if (v->n_partitions != nparts) {
        st = cz_err(err, CZ_ERR_MISMATCH, "vanilla proof has %zu partitions, the job asks for %u", v->n_partitions,
                    nparts);
    } else {
        st = cz_porep_vanilla_verify(v, err);
    }
    if (st != CZ_OK) {
        cz_porep_vanilla_free(v);
        return st;
    }
    *job = v;
    return CZ_OK;
}

static void pr_free_job(void *job) { cz_porep_vanilla_free(job); }

static cz_status pr_part(void *shape, void *job, uint32_t part, cz_synth_fn *fn, void **ctx, cz_errbuf *err)
{
    (void)shape;
    cz_porep_ctx *c = malloc(sizeof *c);
    if (!c) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    cz_status st = cz_porep_ctx_init(c, job, part);
    if (st != CZ_OK) {
        free(c);
        return cz_err(err, st, "partition %u out of range", part);
    }
    *fn = cz_porep_synth;
    *ctx = c;
    return CZ_OK;
}

static cz_status pr_public(void *shape, void *job, uint32_t part, cz_fr *out, size_t n)
{
    porep_shape *s = shape;
    if (n != cz_porep_num_public(s->p)) return CZ_ERR_MISMATCH;
    return cz_porep_public_inputs(job, part, out);
}

static cz_status pr_sample(void *shape, uint32_t parts, uint64_t seed, cz_pool *pool, uint8_t **payload,
                           size_t *len, cz_errbuf *err)
{
    porep_shape *s = shape;
    cz_porep_vanilla *v;
    cz_status st = cz_porep_generate(&v, s->p, seed, seed ^ 0x9e3779b97f4a7c15ULL, parts, pool, err);
    if (st != CZ_OK) return st;
    char *json = NULL;
    st = cz_porep_vanilla_to_json(v, &json, len);
    cz_porep_vanilla_free(v);
    if (st != CZ_OK) return cz_err(err, st, "cannot serialise the vanilla proof");
    *payload = (uint8_t *)json;
    return CZ_OK;
}

static const circuit_kind KINDS[] = {
    {"mulchain-", mc_resolve, mc_free, mc_shape, mc_parse, free, mc_part, free, mc_public, mc_sample},
    {"shaped-", pr_resolve, free, pr_shape, pr_parse, pr_free_job, pr_part, free, pr_public, pr_sample},
};

const circuit_kind *cz__find_kind(const char *id)
{
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
        if (!strncmp(id, KINDS[i].prefix, strlen(KINDS[i].prefix))) return &KINDS[i];
    return NULL;
}
