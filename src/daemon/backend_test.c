/*
 * The test-double back-end of cuzkd (backend = test): deterministic fake
 * proofs with configurable delays and injected failures, so the daemon's
 * API, scheduling and shutdown paths can be tested through a real cuzkd
 * process in milliseconds. Never used for real proofs.
 *
 * Proof of partition k (proof_bytes bytes): byte i = (d + 7k + i) & 0xff
 * where d = FNV-1a-32 of the payload. The job id is deliberately not part
 * of it, so a client can check a proof knowing only what it submitted.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "cuzk/daemon.h"

typedef struct {
    unsigned load_ms, synth_ms, prove_ms, finish_ms;
    uint64_t params_bytes, partition_bytes;
    size_t proof_bytes;
} tb_ctx;

typedef struct {
    int synth_ms, prove_ms, finish_ms;
    char fail_stage[16];
    long fail_part;
    uint32_t digest;
} tb_prep;

typedef struct {
    const tb_prep *prep;
    uint32_t part;
} tb_obj;

static void tb_sleep_ms(int ms)
{
    if (ms <= 0)
        return;
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static uint32_t fnv1a32(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 16777619u;
    return h;
}

/* "test", "test-*", and Filecoin's ids (porep-, winning-, wpost-, snap-
 * with 2k .. 64g): a client of the gRPC API (which maps Curio's requests
 * onto those ids) can then be tested against the fake proofs with real
 * vanilla payloads. */
static bool known(const char *cid)
{
    static const char *const kinds[] = {"porep-", "winning-", "wpost-", "snap-"};
    static const char *const sizes[] = {"2k", "8m", "512m", "32g", "64g"};
    for (size_t k = 0; k < 4; k++) {
        size_t kl = strlen(kinds[k]);
        if (strncmp(cid, kinds[k], kl)) continue;
        for (size_t z = 0; z < 5; z++)
            if (!strcmp(cid + kl, sizes[z])) return true;
    }
    return !strcmp(cid, "test") || !strncmp(cid, "test-", 5);
}

static cz_status tb_check(void *ctx, const char *cid, char *msg, size_t len)
{
    (void)ctx;
    if (!known(cid)) {
        snprintf(msg, len, "unknown circuit '%s' (the test back-end knows 'test', 'test-*' and the Filecoin ids porep-/winning-/wpost-/snap- 2k .. 64g)",
                 cid);
        return CZ_ERR_NOT_FOUND;
    }
    return CZ_OK;
}

static cz_status tb_estimate(void *ctx, const char *cid, cz_engine_estimate *out, char *msg, size_t len)
{
    tb_ctx *t = ctx;
    cz_status cst = tb_check(ctx, cid, msg, len);
    if (cst != CZ_OK)
        return cst;
    out->params_bytes = t->params_bytes;
    out->abc_bytes = t->partition_bytes / 2;
    out->rest_bytes = t->partition_bytes - t->partition_bytes / 2;
    if (!strcmp(cid, "test-huge"))
        out->abc_bytes = out->rest_bytes = 1ull << 49;
    out->proof_bytes = t->proof_bytes;
    return CZ_OK;
}

static cz_status tb_load(void *ctx, const char *cid, void **params, char *msg, size_t len)
{
    tb_ctx *t = ctx;
    if (!known(cid)) {
        snprintf(msg, len, "no parameters for '%s'", cid);
        return CZ_ERR_NOT_FOUND;
    }
    if (!strcmp(cid, "test-noparams")) {
        snprintf(msg, len, "injected parameter load failure for '%s'", cid);
        return CZ_ERR_IO;
    }
    tb_sleep_ms((int)t->load_ms);
    *params = t; /* any non-NULL marker */
    return CZ_OK;
}

/* Reads "key=<int>" from the payload's first 512 bytes. */
static int tok_int(const char *buf, const char *key, int def)
{
    const char *k = strstr(buf, key);
    if (!k)
        return def;
    long v = strtol(k + strlen(key), NULL, 10);
    if (v < 0 || v > 600000)
        return def;
    return (int)v;
}

static cz_status tb_prepare(void *ctx, void *params, const cz_engine_job_view *job, void **out,
                            char *msg, size_t len)
{
    tb_ctx *t = ctx;
    (void)params;
    tb_prep *p = calloc(1, sizeof *p);
    if (!p)
        return CZ_ERR_NOMEM;
    char buf[512];
    size_t n = job->payload_len < sizeof buf - 1 ? job->payload_len : sizeof buf - 1;
    if (n)
        memcpy(buf, job->payload, n);
    buf[n] = 0;
    for (size_t i = 0; i < n; i++)
        if (!buf[i])
            buf[i] = ' ';
    p->synth_ms = tok_int(buf, "synth_ms=", (int)t->synth_ms);
    p->prove_ms = tok_int(buf, "prove_ms=", (int)t->prove_ms);
    p->finish_ms = tok_int(buf, "finish_ms=", (int)t->finish_ms);
    p->fail_part = -1;
    p->digest = fnv1a32(job->payload, job->payload_len);
    const char *fl = strstr(buf, "fail=");
    if (fl && sscanf(fl + 5, "%15[a-z]:%ld", p->fail_stage, &p->fail_part) == 2 &&
        !strcmp(p->fail_stage, "prepare")) {
        free(p);
        snprintf(msg, len, "injected prepare failure (payload rejected)");
        return CZ_ERR_FORMAT;
    }
    *out = p;
    return CZ_OK;
}

static void tb_release(void *ctx, void *prepared)
{
    (void)ctx;
    free(prepared);
}

static bool fails(const tb_prep *p, const char *stage, uint32_t part)
{
    return p->fail_part == (long)part && !strcmp(p->fail_stage, stage);
}

static cz_status tb_synth(void *ctx, void *params, const cz_engine_job_view *job, uint32_t part,
                          const cz_engine_cancel_token *cancel, void **synth, cz_engine_timings *tm,
                          char *msg, size_t len)
{
    (void)ctx;
    (void)params;
    const tb_prep *p = job->prepared;
    for (int i = 0; i < p->synth_ms; i++) {
        if (cz_engine_cancel_requested(cancel))
            return CZ_ERR_CANCELLED;
        tb_sleep_ms(1);
    }
    cz_engine_timings_add(tm, "witness", p->synth_ms);
    if (fails(p, "synth", part)) {
        snprintf(msg, len, "injected synthesis failure");
        return CZ_ERR_UNSATISFIED;
    }
    tb_obj *o = malloc(sizeof *o);
    if (!o)
        return CZ_ERR_NOMEM;
    o->prep = p;
    o->part = part;
    *synth = o;
    return CZ_OK;
}

static cz_status tb_prove_start(void *ctx, void *params, void *synth, cz_engine_device *dev,
                                void **pending, cz_engine_timings *tm, char *msg, size_t len)
{
    (void)ctx;
    (void)params;
    (void)dev;
    tb_obj *o = synth;
    tb_sleep_ms(o->prep->prove_ms);
    cz_engine_timings_add(tm, "msm", o->prep->prove_ms);
    if (fails(o->prep, "prove", o->part)) {
        free(o);
        snprintf(msg, len, "injected prover failure");
        return CZ_ERR_INTERNAL;
    }
    *pending = o; /* same object carries on */
    return CZ_OK;
}

static cz_status tb_prove_finish(void *ctx, void *params, void *pending, uint8_t *proof,
                                 cz_engine_timings *tm, char *msg, size_t len)
{
    tb_ctx *t = ctx;
    (void)params;
    tb_obj *o = pending;
    tb_sleep_ms(o->prep->finish_ms);
    cz_engine_timings_add(tm, "b_g2", o->prep->finish_ms);
    bool fail = fails(o->prep, "finish", o->part);
    for (size_t i = 0; i < t->proof_bytes; i++)
        proof[i] = (uint8_t)(o->prep->digest + 7u * o->part + i);
    free(o);
    if (fail) {
        snprintf(msg, len, "injected finish failure");
        return CZ_ERR_INTERNAL;
    }
    return CZ_OK;
}

static void tb_free(void *ctx, void *obj)
{
    (void)ctx;
    free(obj);
}

static cz_status tb_verify(void *ctx, void *params, const cz_engine_job_view *job, const uint8_t *proof,
                           size_t plen, char *msg, size_t mlen)
{
    tb_ctx *t = ctx;
    (void)params;
    const tb_prep *p = job->prepared;
    if (plen != t->proof_bytes * job->num_partitions) {
        snprintf(msg, mlen, "proof length %zu, expected %zu", plen, t->proof_bytes * job->num_partitions);
        return CZ_ERR_MISMATCH;
    }
    for (uint32_t k = 0; k < job->num_partitions; k++)
        for (size_t i = 0; i < t->proof_bytes; i++)
            if (proof[k * t->proof_bytes + i] != (uint8_t)(p->digest + 7u * k + i)) {
                snprintf(msg, mlen, "partition %u: proof byte %zu wrong", k, i);
                return CZ_ERR_MISMATCH;
            }
    if (!strcmp(p->fail_stage, "verify")) {
        snprintf(msg, mlen, "injected verification failure");
        return CZ_ERR_MISMATCH;
    }
    return CZ_OK;
}

cz_status cz_daemon_test_backend_create(cz_engine_backend *b, const cz_daemon_config *cfg)
{
    tb_ctx *t = calloc(1, sizeof *t);
    if (!t)
        return CZ_ERR_NOMEM;
    t->load_ms = cfg->test_load_ms;
    t->synth_ms = cfg->test_synth_ms;
    t->prove_ms = cfg->test_prove_ms;
    t->finish_ms = cfg->test_finish_ms;
    t->params_bytes = cfg->test_params_bytes;
    t->partition_bytes = cfg->test_partition_bytes;
    t->proof_bytes = cfg->test_proof_bytes;
    memset(b, 0, sizeof *b);
    b->ctx = t;
    b->estimate = tb_estimate;
    b->check_circuit = tb_check;
    b->load_params = tb_load;
    b->unload_params = NULL;
    b->prepare_job = tb_prepare;
    b->release_job = tb_release;
    b->synthesize = tb_synth;
    b->prove_start = tb_prove_start;
    b->prove_finish = tb_prove_finish;
    b->free_synth = tb_free;
    b->free_pending = tb_free;
    b->verify = tb_verify;
    b->backend_locks_device = false;
    return CZ_OK;
}

void cz_daemon_test_backend_destroy(cz_engine_backend *b)
{
    if (b && b->ctx) {
        free(b->ctx);
        b->ctx = NULL;
    }
}
