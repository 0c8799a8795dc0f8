/* The circuit families the production back-end knows. */
#include "prover_internal.h"
#include "cuzk/circuits.h"
#include "cuzk/fil_c1.h"
#include "cuzk/fil_params.h"
#include "cuzk/fil_porep_circuit.h"
#include "cuzk/fil_post.h"
#include "cuzk/fil_snap.h"
#include "cuzk/fil_seal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- mulchain-N ------------------------------------------------------------ */
/* N must be written canonically: decimal digits only, no sign, no spaces
 * and no leading zeros. Otherwise "mulchain-0300000" and "mulchain-300000"
 * would be two ids (two engine entries, two recorded circuits, two
 * parameter sets on disk) for one circuit. */
static cz_status mc_resolve(const char *id, void **shape, cz_errbuf *err)
{
    const char *n = id + strlen("mulchain-");
    size_t len = strlen(n);
    bool digits = len > 0 && len <= 12;
    for (size_t i = 0; digits && i < len; i++)
        digits = n[i] >= '0' && n[i] <= '9';
    if (!digits)
        return cz_err(err, CZ_ERR_NOT_FOUND, "unknown circuit '%s' (mulchain-N needs a decimal 1 <= N <= 2^28)", id);
    unsigned long long v = strtoull(n, NULL, 10);
    if (n[0] == '0' && v >= 1 && v <= (1ull << 28))
        return cz_err(err, CZ_ERR_INVALID_ARG, "circuit id '%s' is not canonical: write it 'mulchain-%llu'", id, v);
    if (n[0] == '0' || v < 1 || v > (1ull << 28))
        return cz_err(err, CZ_ERR_NOT_FOUND, "unknown circuit '%s' (mulchain-N needs 1 <= N <= 2^28)", id);
    cz_mulchain *mc = calloc(1, sizeof *mc);
    if (!mc) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    mc->n_mul = (size_t)v;
    mc->x0 = CZ_FR_ONE;
    *shape = mc;
    return CZ_OK;
}

static void mc_free(void *p) { free(p); }

/* cuzk/circuits.h: n_mul + n_extra_inputs constraints plus 3 + n_extra_inputs input rows */
static uint64_t mc_constraints(const void *shape, bool *exact)
{
    const cz_mulchain *mc = shape;
    *exact = true;
    return (uint64_t)mc->n_mul + 2 * (uint64_t)mc->n_extra_inputs + 3;
}

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

/* The preset's own budget: constraints (with input rows) + inputs <= 2^log_domain. */
static uint64_t pr_constraints(const void *shape, bool *exact)
{
    *exact = false;
    return 1ull << ((const porep_shape *)shape)->p->log_domain;
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

/* A sector of deterministic bytes sealed in memory (sizes up to 512MiB):
 * the replica, comm_c and comm_r_last, for the PoSt and SnapDeals sample
 * jobs. The sealing registered proof is the v1.1 interactive one of the
 * size (PoSt and SnapDeals do not depend on how the sector was sealed). */
static cz_status seal_sample(uint64_t sector_size, uint64_t seed, cz_pool *pool, uint8_t **replica,
                             cz_fil_seal_result *res, cz_errbuf *err)
{
    const cz_fil_seal_proof *p = NULL;
    for (size_t i = 0; i < cz_fil_seal_proofs_count && !p; i++)
        if (cz_fil_seal_proofs[i].sector_size == sector_size && cz_fil_seal_proofs[i].api == CZ_FIL_API_1_1 &&
            cz_fil_seal_proofs[i].challenges == CZ_FIL_CHALLENGES_INTERACTIVE)
            p = &cz_fil_seal_proofs[i];
    if (!p || sector_size > (512ull << 20))
        return cz_err(err, CZ_ERR_INVALID_ARG, "no sample job for %llu-byte sectors (in-memory sealing stops at 512MiB)",
                      (unsigned long long)sector_size);
    cz_fil_seal_params sp;
    memset(&sp, 0, sizeof sp);
    sp.proof = p;
    sp.sector_id = seed;
    for (int i = 0; i < 32; i++) {
        sp.prover_id[i] = i < 8 ? (uint8_t)(seed >> (8 * i)) : 0;
        sp.ticket[i] = (uint8_t)(i * 7 + 1) ^ (uint8_t)seed;
        sp.seed[i] = (uint8_t)(i * 13 + 5);
    }
    sp.ticket[31] &= 0x3f;
    uint64_t n = cz_fil_unpadded_size(sector_size);
    uint8_t *data = malloc(n ? n : 1);
    *replica = malloc(sector_size);
    if (!data || !*replica) {
        free(data);
        free(*replica);
        *replica = NULL;
        return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    }
    uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 7;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data[i] = (uint8_t)x;
    }
    sp.sealed_out = *replica;
    cz_status st = cz_fil_seal(&sp, data, n, pool, res, NULL, err);
    free(data);
    if (st != CZ_OK) {
        free(*replica);
        *replica = NULL;
    }
    return st;
}

/* ---- winning-* / wpost-*: Filecoin's FallbackPoSt ------------------------------
 * The circuit id names the kind and sector size (Curio's names); the shape
 * is recorded from the first registered proof of the id (the R1CS does not
 * depend on the API version). A job is one partition: a request envelope
 * (cuzk/fil_post.h) with the registered proof, prover id, randomness,
 * partition index and the sector proofs as Curio sends them. */
typedef struct {
    const cz_fil_post_proof *proof;
    cz_fil_post_circuit shape_ctx; /* req NULL: blank circuit */
} post_shape;

static cz_status post_resolve(const char *id, void **shape, cz_errbuf *err)
{
    const cz_fil_post_proof *p = cz_fil_post_proof_by_circuit(id);
    if (!p)
        return cz_err(err, CZ_ERR_NOT_FOUND,
                      "unknown circuit '%s' (Filecoin PoSt: winning-2k, winning-8m, winning-512m, winning-32g, "
                      "winning-64g, wpost-2k .. wpost-64g)",
                      id);
    post_shape *s = calloc(1, sizeof *s);
    if (!s) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    s->proof = p;
    s->shape_ctx.proof = p;
    *shape = s;
    return CZ_OK;
}

static cz_status post_shape_synth(void *shape, cz_synth_fn *fn, const void **ctx)
{
    *fn = cz_fil_post_synth;
    *ctx = &((post_shape *)shape)->shape_ctx;
    return CZ_OK;
}

static void post_free_job(void *job)
{
    if (!job) return;
    cz_fil_post_request_free(job);
    free(job);
}

/* payload: a request envelope of this circuit, one partition; its values
 * checked natively (cz_fil_post_check: comm_r, every path and challenge)
 * so a bad vanilla proof is refused naming the sector and challenge. */
static cz_status post_parse(void *shape, const uint8_t *payload, size_t len, uint32_t nparts, void **job,
                            cz_errbuf *err)
{
    post_shape *s = shape;
    if (nparts != 1)
        return cz_err(err, CZ_ERR_MISMATCH, "a %s job is one partition (the request asks for %u)",
                      s->proof->circuit_id, nparts);
    cz_fil_post_request *r = calloc(1, sizeof *r);
    if (!r) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    cz_status st = cz_fil_post_request_parse(r, payload, len, err);
    if (st != CZ_OK) {
        free(r);
        return st;
    }
    if (strcmp(r->proof->circuit_id, s->proof->circuit_id))
        st = cz_err(err, CZ_ERR_MISMATCH, "the request is for %s (%s), the job's circuit is %s", r->proof->name,
                    r->proof->circuit_id, s->proof->circuit_id);
    else
        st = cz_fil_post_check(r, err);
    if (st != CZ_OK) {
        post_free_job(r);
        return st;
    }
    *job = r;
    return CZ_OK;
}

static cz_status post_part(void *shape, void *job, uint32_t part, cz_synth_fn *fn, void **ctx, cz_errbuf *err)
{
    (void)shape;
    if (part != 0) return cz_err(err, CZ_ERR_INVALID_ARG, "partition %u out of range (a PoSt job has one)", part);
    cz_fil_post_circuit *c = malloc(sizeof *c);
    if (!c) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    c->req = job;
    c->proof = c->req->proof;
    *fn = cz_fil_post_synth;
    *ctx = c;
    return CZ_OK;
}

static cz_status post_public(void *shape, void *job, uint32_t part, cz_fr *out, size_t n)
{
    (void)shape;
    (void)part;
    size_t got = 0;
    cz_status st = cz_fil_post_public_inputs(job, out, n, &got, NULL);
    if (st != CZ_OK) return st;
    return got == n ? CZ_OK : CZ_ERR_MISMATCH;
}

/* A sample job: sectors sealed in memory (as many as one partition holds,
 * at most 2; winning: 1), randomness and prover id from the seed. */
static cz_status post_sample(void *shape, uint32_t parts, uint64_t seed, cz_pool *pool, uint8_t **payload,
                             size_t *len, cz_errbuf *err)
{
    post_shape *s = shape;
    if (parts != 1) return cz_err(err, CZ_ERR_INVALID_ARG, "a %s job is one partition", s->proof->circuit_id);
    const cz_fil_post_proof *p = s->proof;
    size_t n = p->type == CZ_FIL_POST_WINNING ? 1 : (p->config_sector_count < 2 ? p->config_sector_count : 2);
    cz_fil_post_replica reps[2];
    memset(reps, 0, sizeof reps);
    cz_status st = CZ_OK;
    size_t made = 0;
    for (; made < n && st == CZ_OK; made++) {
        uint8_t *replica = NULL;
        cz_fil_seal_result res;
        st = seal_sample(p->sector_size, seed + made, pool, &replica, &res, err);
        if (st == CZ_OK)
            st = cz_fil_post_replica_init(&reps[made], p, seed + made, replica, p->sector_size, &res.comm_c,
                                          &res.comm_r_last, pool, err);
        free(replica);
        if (st != CZ_OK) break;
    }
    uint8_t prover[32], rnd[32];
    cz_fil_prover_id_from_miner(1000 + seed % 100000, prover);
    for (int i = 0; i < 32; i++) rnd[i] = (uint8_t)(seed * 31 + (uint64_t)i * 101);
    rnd[31] &= 0x3f;
    cz_fil_post_request r;
    memset(&r, 0, sizeof r);
    if (st == CZ_OK) st = cz_fil_post_request_generate(&r, p, prover, rnd, 0, reps, n, err);
    for (size_t i = 0; i < n; i++) cz_fil_post_replica_free(&reps[i]);
    if (st != CZ_OK) return st;
    st = cz_fil_post_request_encode(&r, payload, len);
    cz_fil_post_request_free(&r);
    if (st != CZ_OK) return cz_err(err, st, "cannot encode the PoSt request");
    return CZ_OK;
}

/* ---- snap-*: Filecoin's SnapDeals (EmptySectorUpdate) ------------------------
 * One circuit per partition (16 for 32GiB and 64GiB, 1 below); a job's
 * payload is a request envelope (cuzk/fil_snap.h) with the registered
 * update proof, comm_r_old, comm_r_new, comm_d_new and every partition's
 * vanilla proof, as Curio sends them. */
typedef struct {
    const cz_fil_snap_proof *proof;
    cz_fil_snap_circuit shape_ctx; /* request NULL: blank circuit */
} snap_shape;

static cz_status snap_resolve(const char *id, void **shape, cz_errbuf *err)
{
    const cz_fil_snap_proof *p = cz_fil_snap_proof_by_name(id);
    if (!p || !p->circuit_id || strcmp(p->circuit_id, id))
        return cz_err(err, CZ_ERR_NOT_FOUND,
                      "unknown circuit '%s' (Filecoin SnapDeals: snap-2k, snap-8m, snap-512m, snap-32g, snap-64g)", id);
    snap_shape *s = calloc(1, sizeof *s);
    if (!s) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    s->proof = p;
    s->shape_ctx.proof = p;
    *shape = s;
    return CZ_OK;
}

static cz_status snap_shape_synth(void *shape, cz_synth_fn *fn, const void **ctx)
{
    *fn = cz_fil_snap_synth;
    *ctx = &((snap_shape *)shape)->shape_ctx;
    return CZ_OK;
}

static void snap_free_job(void *job)
{
    if (!job) return;
    cz_fil_snap_request_free(job);
    free(job);
}

/* payload: a request envelope of this sector size with every partition;
 * checked natively (cz_fil_snap_check) before any synthesis. */
static cz_status snap_parse(void *shape, const uint8_t *payload, size_t len, uint32_t nparts, void **job,
                            cz_errbuf *err)
{
    snap_shape *s = shape;
    if (nparts != s->proof->partitions)
        return cz_err(err, CZ_ERR_MISMATCH, "a %s job has %u partitions (the request asks for %u)",
                      s->proof->circuit_id, s->proof->partitions, nparts);
    cz_fil_snap_request *r = calloc(1, sizeof *r);
    if (!r) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    cz_status st = cz_fil_snap_request_parse(r, payload, len, err);
    if (st != CZ_OK) {
        free(r);
        return st;
    }
    if (r->proof != s->proof)
        st = cz_err(err, CZ_ERR_MISMATCH, "the request is for %s (%s), the job's circuit is %s", r->proof->name,
                    r->proof->circuit_id ? r->proof->circuit_id : "a test-only size", s->proof->circuit_id);
    else
        st = cz_fil_snap_check(r, err);
    if (st != CZ_OK) {
        snap_free_job(r);
        return st;
    }
    *job = r;
    return CZ_OK;
}

static cz_status snap_part(void *shape, void *job, uint32_t part, cz_synth_fn *fn, void **ctx, cz_errbuf *err)
{
    snap_shape *s = shape;
    if (part >= s->proof->partitions) return cz_err(err, CZ_ERR_INVALID_ARG, "partition %u out of range", part);
    cz_fil_snap_circuit *c = calloc(1, sizeof *c);
    if (!c) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    c->proof = s->proof;
    c->request = job;
    c->partition = part;
    c->h = 0; /* h_default, as filecoin-proofs */
    *fn = cz_fil_snap_synth;
    *ctx = c;
    return CZ_OK;
}

static cz_status snap_public(void *shape, void *job, uint32_t part, cz_fr *out, size_t n)
{
    (void)shape;
    size_t got = 0;
    cz_status st = cz_fil_snap_public_inputs(job, part, out, n, &got, NULL);
    if (st != CZ_OK) return st;
    return got == n ? CZ_OK : CZ_ERR_MISMATCH;
}

/* A sample job: a sector sealed in memory, updated with deterministic new
 * data, every partition's vanilla proof. */
static cz_status snap_sample(void *shape, uint32_t parts, uint64_t seed, cz_pool *pool, uint8_t **payload,
                             size_t *len, cz_errbuf *err)
{
    snap_shape *s = shape;
    const cz_fil_snap_proof *p = s->proof;
    if (parts != p->partitions)
        return cz_err(err, CZ_ERR_INVALID_ARG, "a %s job has %u partitions", p->circuit_id, p->partitions);
    uint8_t *old = NULL;
    cz_fil_seal_result res;
    cz_status st = seal_sample(p->sector_size, seed, pool, &old, &res, err);
    if (st != CZ_OK) return st;
    uint64_t n = cz_fil_unpadded_size(p->sector_size);
    uint8_t *data = malloc(n ? n : 1);
    if (!data) {
        free(old);
        return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    }
    uint64_t x = seed * 0xd1b54a32d192ed03ULL + 3;
    for (uint64_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        data[i] = (uint8_t)x;
    }
    cz_fil_snap_update u;
    memset(&u, 0, sizeof u);
    st = cz_fil_snap_encode(&u, p, old, &res.comm_c, data, n, 0, pool, err);
    free(old);
    free(data);
    if (st != CZ_OK) return st;
    cz_fil_snap_request r;
    memset(&r, 0, sizeof r);
    st = cz_fil_snap_prove(&u, &r, err);
    cz_fil_snap_update_free(&u);
    if (st != CZ_OK) return st;
    st = cz_fil_snap_request_encode(&r, payload, len);
    cz_fil_snap_request_free(&r);
    if (st != CZ_OK) return cz_err(err, st, "cannot encode the SnapDeals request");
    return CZ_OK;
}

/* ---- constraint counts of the Filecoin ids ----------------------------------
 * Exact where the reference's counts are checked (docs/filecoin.md, input
 * rows included); the others are upper bounds derived from the nearest
 * counted size: smaller sectors have shallower trees (and PoSt below 32GiB
 * proves 2 sectors, not 2349), and 64GiB adds one arity-2 level of tree R
 * per challenge (about 250 constraints each; for SnapDeals also one SHA-256
 * level of tree D per challenge, about 27,000). */
static const struct {
    const char *id;
    uint64_t n;
    bool exact;
} FIL_COUNTS[] = {
    {"porep-2k", 2687921, true},      {"porep-8m", 3844929, true},       {"porep-512m", 4423433, true},
    {"porep-32g", 130278541, true},   {"porep-64g", 131185849, true},    {"winning-2k", 1u << 19, false},
    {"winning-8m", 1u << 19, false},  {"winning-512m", 1u << 19, false}, {"winning-32g", 370590, true},
    {"winning-64g", 1u << 19, false}, {"wpost-2k", 1u << 18, false},     {"wpost-8m", 1u << 18, false},
    {"wpost-512m", 1u << 18, false},  {"wpost-32g", 125279217, true},    {"wpost-64g", 1u << 27, false},
    {"snap-2k", 1705039, true},       {"snap-8m", 81049499, false},      {"snap-512m", 81049499, false},
    {"snap-32g", 81049499, true},     {"snap-64g", 90000000, false},
};

static uint64_t fil_count_of(const char *id, bool *exact)
{
    for (size_t i = 0; i < sizeof FIL_COUNTS / sizeof FIL_COUNTS[0]; i++)
        if (!strcmp(FIL_COUNTS[i].id, id)) {
            *exact = FIL_COUNTS[i].exact;
            return FIL_COUNTS[i].n;
        }
    *exact = false;
    return UINT64_MAX; /* unreachable for a resolved id: refused by any bound */
}

static uint64_t fil_constraints(const void *shape, bool *exact)
{
    return fil_count_of(((const fil_shape *)shape)->proof->circuit_id, exact);
}

static uint64_t post_constraints(const void *shape, bool *exact)
{
    return fil_count_of(((const post_shape *)shape)->proof->circuit_id, exact);
}

static uint64_t snap_constraints(const void *shape, bool *exact)
{
    return fil_count_of(((const snap_shape *)shape)->proof->circuit_id, exact);
}

static const circuit_kind KINDS[] = {
    {"mulchain-", mc_resolve, mc_free, mc_shape, mc_parse, free, mc_part, free, mc_public, mc_sample,
     mc_constraints},
    {"shaped-", pr_resolve, free, pr_shape, pr_parse, pr_free_job, pr_part, free, pr_public, pr_sample,
     pr_constraints},
    {"porep-", fil_resolve, free, fil_shape_synth, fil_parse, fil_free_job, fil_part, fil_free_part, fil_public,
     fil_sample, fil_constraints},
    {"winning-", post_resolve, free, post_shape_synth, post_parse, post_free_job, post_part, fil_free_part,
     post_public, post_sample, post_constraints},
    {"wpost-", post_resolve, free, post_shape_synth, post_parse, post_free_job, post_part, fil_free_part,
     post_public, post_sample, post_constraints},
    {"snap-", snap_resolve, free, snap_shape_synth, snap_parse, snap_free_job, snap_part, fil_free_part,
     snap_public, snap_sample, snap_constraints},
};

const circuit_kind *cz__find_kind(const char *id)
{
    for (size_t i = 0; i < sizeof KINDS / sizeof KINDS[0]; i++)
        if (!strncmp(id, KINDS[i].prefix, strlen(KINDS[i].prefix))) return &KINDS[i];
    return NULL;
}
