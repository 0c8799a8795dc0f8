/* The circuit families the production back-end knows. */
#include "prover_internal.h"
#include "cuzk/circuits.h"
#include "cuzk/fil_c1.h"
#include "cuzk/fil_params.h"
#include "cuzk/fil_porep_circuit.h"
#include "cuzk/fil_seal.h"
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

/* ---- porep-2k ... porep-64g: Filecoin's StackedDrg PoRep C2 ---------------------
 * The circuit id names a sector size (Curio's names); the R1CS is the same
 * for every registered proof of that size (API versions and challenge
 * mechanisms change values, not shape), so the shape is recorded from the
 * interactive v1.1 proof. A job's payload is a C1 output (filecoin-proofs-api
 * JSON or Curio's wrapper) of any registered proof of that size; its
 * partitions are the proof's. */
typedef struct {
    const cz_fil_seal_proof *proof; /* the v1.1 interactive proof of the size */
    cz_fil_porep_circuit shape_ctx; /* c1 NULL: blank circuit */
} fil_shape;

static cz_status fil_resolve(const char *id, void **shape, cz_errbuf *err)
{
    const cz_fil_seal_proof *p = NULL;
    for (size_t i = 0; i < cz_fil_seal_proofs_count; i++)
        if (cz_fil_seal_proofs[i].api == CZ_FIL_API_1_1 && !strcmp(cz_fil_seal_proofs[i].circuit_id, id))
            p = &cz_fil_seal_proofs[i];
    if (!p)
        return cz_err(err, CZ_ERR_NOT_FOUND,
                      "unknown circuit '%s' (Filecoin PoRep: porep-2k, porep-8m, porep-512m, porep-32g, porep-64g)", id);
    fil_shape *s = calloc(1, sizeof *s);
    if (!s) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    s->proof = p;
    s->shape_ctx.proof = p;
    *shape = s;
    return CZ_OK;
}

static cz_status fil_shape_synth(void *shape, cz_synth_fn *fn, const void **ctx)
{
    *fn = cz_fil_porep_synth;
    *ctx = &((fil_shape *)shape)->shape_ctx;
    return CZ_OK;
}

static void fil_free_job(void *job)
{
    if (!job) return;
    cz_fil_c1_free(job);
    free(job);
}

/* payload: a C1 output of this sector size with nparts = its partitions;
 * checked natively (cz_fil_c1_check: challenges, paths, labels, encoding)
 * so a bad one is refused with the value that is wrong, before synthesis. */
static cz_status fil_parse(void *shape, const uint8_t *payload, size_t len, uint32_t nparts, void **job,
                           cz_errbuf *err)
{
    fil_shape *s = shape;
    cz_fil_c1 *c1 = calloc(1, sizeof *c1);
    if (!c1) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    cz_status st = cz_fil_c1_parse(c1, (const char *)payload, len, err);
    if (st != CZ_OK) {
        free(c1);
        return st;
    }
    const cz_fil_seal_proof *rp = c1->registered_proof;
    if (rp->sector_size != s->proof->sector_size)
        st = cz_err(err, CZ_ERR_MISMATCH, "C1 output is for %s (%s), the job's circuit is %s", rp->name,
                    rp->circuit_id, s->proof->circuit_id);
    else if (c1->npartitions != nparts)
        st = cz_err(err, CZ_ERR_MISMATCH, "C1 output of %s has %zu partitions, the job asks for %u", rp->name,
                    c1->npartitions, nparts);
    else
        st = cz_fil_c1_check(c1, NULL, err);
    if (st != CZ_OK) {
        fil_free_job(c1);
        return st;
    }
    *job = c1;
    return CZ_OK;
}

static cz_status fil_part(void *shape, void *job, uint32_t part, cz_synth_fn *fn, void **ctx, cz_errbuf *err)
{
    fil_shape *s = shape;
    const cz_fil_c1 *c1 = job;
    if (part >= c1->npartitions) return cz_err(err, CZ_ERR_INVALID_ARG, "partition %u out of range", part);
    cz_fil_porep_circuit *c = malloc(sizeof *c);
    if (!c) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    c->proof = s->proof;
    c->c1 = c1;
    c->partition = part;
    *fn = cz_fil_porep_synth;
    *ctx = c;
    return CZ_OK;
}

static cz_status fil_public(void *shape, void *job, uint32_t part, cz_fr *out, size_t n)
{
    (void)shape;
    size_t got = 0;
    cz_status st = cz_fil_porep_public_inputs(job, part, out, n, &got, NULL);
    if (st != CZ_OK) return st;
    return got == n ? CZ_OK : CZ_ERR_MISMATCH;
}

/* A sample job: a sector of ChaCha20 bytes sealed in memory (sizes up to
 * 512MiB), as the C1 JSON of the registered proof with `parts`
 * partitions (1 for interactive, 13 for non-interactive small sectors). */
static cz_status fil_sample(void *shape, uint32_t parts, uint64_t seed, cz_pool *pool, uint8_t **payload,
                            size_t *len, cz_errbuf *err)
{
    fil_shape *s = shape;
    const cz_fil_seal_proof *p = NULL;
    for (size_t i = 0; i < cz_fil_seal_proofs_count; i++)
        if (cz_fil_seal_proofs[i].sector_size == s->proof->sector_size && cz_fil_seal_proofs[i].partitions == parts &&
            cz_fil_seal_proofs[i].api != CZ_FIL_API_1_0)
            p = p ? p : &cz_fil_seal_proofs[i];
    if (!p)
        return cz_err(err, CZ_ERR_INVALID_ARG, "no %s registered proof has %u partitions", s->proof->circuit_id, parts);
    cz_fil_seal_params sp;
    memset(&sp, 0, sizeof sp);
    sp.proof = p;
    sp.sector_id = seed;
    for (int i = 0; i < 32; i++) {
        sp.prover_id[i] = (uint8_t)(seed >> (8 * (i % 8))) ^ (uint8_t)i;
        sp.ticket[i] = (uint8_t)(i * 7 + 1);
        sp.seed[i] = (uint8_t)(i * 13 + 5) ^ (uint8_t)seed;
    }
    uint64_t n = cz_fil_unpadded_size(p->sector_size);
    uint8_t *data = malloc(n ? n : 1);
    if (!data) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 1;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data[i] = (uint8_t)x;
    }
    cz_fil_seal_result res;
    cz_fil_c1 c1;
    cz_status st = cz_fil_seal(&sp, data, n, pool, &res, &c1, err);
    free(data);
    if (st != CZ_OK) return st;
    char *json = NULL;
    st = cz_fil_c1_to_json(&c1, &json, len);
    cz_fil_c1_free(&c1);
    if (st != CZ_OK) return cz_err(err, st, "cannot serialise the C1 output");
    *payload = (uint8_t *)json;
    return CZ_OK;
}

static void fil_free_part(void *ctx) { free(ctx); }

static const circuit_kind KINDS[] = {
    {"mulchain-", mc_resolve, mc_free, mc_shape, mc_parse, free, mc_part, free, mc_public, mc_sample},
    {"shaped-", pr_resolve, free, pr_shape, pr_parse, pr_free_job, pr_part, free, pr_public, pr_sample},
    {"porep-", fil_resolve, free, fil_shape_synth, fil_parse, fil_free_job, fil_part, fil_free_part, fil_public,
     fil_sample},
};

const circuit_kind *cz__find_kind(const char *id)
{
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
        if (!strncmp(id, KINDS[i].prefix, strlen(KINDS[i].prefix))) return &KINDS[i];
    return NULL;
}
