/*
 * The production engine back-end (cuzk/prover.h): circuits from the
 * registry, parameters from the store, the CPU Groth16 split prover.
 *
 * Threads: one compute pool (NTTs, MSMs, SpMV) shared by every synthesis
 * and prover worker of the engine — the pool serves concurrent callers —
 * and a small background pool for the B_G2 MSMs that prove_start hands off
 * and prove_finish joins, so a partition's CPU tail overlaps the next
 * partition's work.
 *
 * GPUs (CUZK_HAVE_CUDA, cuzk/prover.h "GPU proving"): one cz_cuda_ctx per
 * GPU; engine device i < n_gpu proves on GPU i with the engine's device
 * lock held only around the device region (region hooks), every other
 * device on the CPU under the same lock. The pinned staging buffers are
 * the context's (two, allocated once at cz_cuda_ctx_create), never per
 * partition.
 */
#include "common/big_alloc.h"
#include "prover_internal.h"
#include "groth16/groth16_internal.h"
#include "cuzk/ntt.h"
#include "cuzk/snarkjs.h"
#include "cuzk/fil_params.h"
#include "cuzk/pairing.h"
#include <unistd.h>
#include "cuzk/msm.h"
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#ifdef CUZK_HAVE_CUDA
#include "cuzk/cuda.h"
#endif
#include "common/mono_clock.h"

/* A recorded circuit, held (refs) by every loaded parameter set that uses
 * it and by the transient calls that need its shape (estimate, sample,
 * setup, wtns). The last release frees it: a recorded circuit costs as
 * much memory as its constraint system, and the engine charges it as part
 * of the parameters (be_estimate), so it must go when they do. */
typedef struct circuit_entry {
    char id[128];
    const circuit_kind *kind;
    void *shape;
    cz_pce *pce;
    unsigned refs; /* under backend_ctx.mu */
    struct circuit_entry *next;
} circuit_entry;

/* Parameters loaded for the offline calls (verify, prove, export), kept
 * until the back-end is destroyed so repeated calls do not re-map and
 * re-checksum the cache each time. Separate from the engine's copies,
 * which the engine's parameter manager loads and evicts itself. */
typedef struct offline_entry {
    char id[128];
    char base[4096];
    struct loaded_t *L;
    struct offline_entry *next;
} offline_entry;

typedef struct {
    char *param_dir;
    cz_pool *pool, *bg;
    bool auto_setup;
    bool params_validate_full; /* ceremony files read fully */
    uint64_t msm_tables_bytes;  /* cz_prover_config.msm_tables_bytes */
    bool msm_tables_no_file;    /* cz_prover_config.msm_tables_no_file */
    pthread_mutex_t tables_mu;  /* the lazy table builds of offline copies */
    FILE *log;
    pthread_mutex_t mu;
    circuit_entry *circuits; /* guarded by mu */
    offline_entry *offline; /* guarded by mu */
    /* the allowlist (cz_prover_config.circuits): n_allow patterns, each an
     * exact id or a prefix ending in '*'; NULL = everything */
    char **allow;
    size_t n_allow;
    char *allow_text;          /* as configured, for messages */
    uint64_t max_constraints;
    /* GPUs: engine device i < n_gpu proves on gpu[i], higher ones on the CPU */
    unsigned n_gpu;
#ifdef CUZK_HAVE_CUDA
    cz_cuda_ctx *gpu[CZ_PROVER_MAX_GPUS];
    int gpu_ord[CZ_PROVER_MAX_GPUS];
    uint64_t gpu_mem[CZ_PROVER_MAX_GPUS];
#endif
    char device_summary[512];
} backend_ctx;

typedef struct loaded_t {
    circuit_entry *c;
    cz_groth16_params *params;
    cz_groth16_pvk *pvk;
    size_t m;
    bool tables_done;  /* offline copies: tables built (or none planned); under tables_mu */
    char tables_path[4100]; /* <base>.tables: the MSM table file ("" = none kept) */
    /* identity of this set on the GPUs (cz_cuda_params_generation): a
     * new load at the address of a freed set never reuses its SRS */
    uint64_t gen;
} loaded_t;

typedef struct {
    const cz_pce *pce;
    cz_witness w;
    cz_fr *a, *b, *c;
    size_t m;
    void *job;       /* the prepared job and partition: a GPU proof is verified in prove_finish */
    uint32_t part;
} synth_t;

/* What prove_start hands the engine. */
typedef struct {
    cz_groth16_pending *p;
    int gpu;         /* the GPU that made it, or -1 (the CPU) */
    void *job;
    uint32_t part;
} pend_t;

static void to_msg(char *msg, size_t msglen, const cz_errbuf *e)
{
    if (msg && msglen) snprintf(msg, msglen, "%s", e->msg);
}

static size_t domain_of(const cz_pce *pce)
{
    size_t m = 1;
    while (m < pce->n_constraints) m <<= 1;
    return m;
}

static bool allowed(const backend_ctx *b, const char *id)
{
    if (!b->allow) return true;
    for (size_t i = 0; i < b->n_allow; i++) {
        const char *p = b->allow[i];
        size_t n = strlen(p);
        if (n && p[n - 1] == '*' ? !strncmp(id, p, n - 1) : !strcmp(id, p)) return true;
    }
    return false;
}

static void free_allow(backend_ctx *b)
{
    for (size_t i = 0; i < b->n_allow; i++) free(b->allow[i]);
    free(b->allow);
    free(b->allow_text);
    b->allow = NULL;
    b->n_allow = 0;
}

/* Parses the allowlist ("a, b*, c") into b->allow. */
static cz_status parse_allow(backend_ctx *b, const char *text, cz_errbuf *err)
{
    if (!text || !*text) return CZ_OK;
    size_t cap = 1;
    for (const char *q = text; *q; q++) cap += *q == ',';
    b->allow = calloc(cap, sizeof *b->allow);
    b->allow_text = strdup(text);
    if (!b->allow || !b->allow_text) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    for (const char *q = text;;) {
        const char *comma = strchr(q, ',');
        size_t n = comma ? (size_t)(comma - q) : strlen(q);
        while (n && (*q == ' ' || *q == '\t')) q++, n--;
        while (n && (q[n - 1] == ' ' || q[n - 1] == '\t')) n--;
        if (!n || n >= 128)
            return cz_err(err, CZ_ERR_INVALID_ARG, "backend.circuits = '%s': %s item", text,
                          n ? "a 128-character or longer" : "an empty");
        for (size_t i = 0; i < n; i++)
            if ((q[i] == '*' && i != n - 1) || q[i] == ' ' || q[i] == '\t')
                return cz_err(err, CZ_ERR_INVALID_ARG,
                              "backend.circuits = '%s': item '%.*s' is neither an exact id nor a prefix "
                              "pattern ending in '*' (no spaces, '*' only at the end)",
                              text, (int)n, q);
        if (!(b->allow[b->n_allow++] = strndup(q, n))) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
        if (!comma) break;
        q = comma + 1;
    }
    return CZ_OK;
}

/* Takes a reference to id's recorded circuit, recording it when no one
 * holds it. Every refusal comes before anything is built: an id outside
 * the allowlist, an unknown or non-canonical one, or one whose
 * constraint count exceeds max_constraints. Release with put_circuit. */
static cz_status get_circuit(backend_ctx *b, const char *id, circuit_entry **out, cz_errbuf *err)
{
    pthread_mutex_lock(&b->mu);
    for (circuit_entry *c = b->circuits; c; c = c->next) {
        if (!strcmp(c->id, id)) {
            c->refs++;
            *out = c;
            pthread_mutex_unlock(&b->mu);
            return CZ_OK;
        }
    }
    cz_status st;
    const circuit_kind *k = cz__find_kind(id);
    if (!k || strlen(id) >= sizeof((circuit_entry *)0)->id) {
        pthread_mutex_unlock(&b->mu);
        return cz_err(err, CZ_ERR_NOT_FOUND,
                      "unknown circuit '%s' (known: mulchain-N, shaped-12..shaped-20, porep-, winning-, wpost-, "
                      "snap- followed by 2k, 8m, 512m, 32g or 64g)",
                      id);
    }
    if (!allowed(b, id)) {
        pthread_mutex_unlock(&b->mu);
        return cz_err(err, CZ_ERR_NOT_FOUND, "circuit '%s' is not served here (backend.circuits = %s)", id,
                      b->allow_text);
    }
    circuit_entry *c = calloc(1, sizeof *c);
    if (!c) {
        pthread_mutex_unlock(&b->mu);
        return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    }
    snprintf(c->id, sizeof c->id, "%s", id);
    c->kind = k;
    if ((st = k->resolve(id, &c->shape, err)) != CZ_OK) {
        free(c);
        pthread_mutex_unlock(&b->mu);
        return st;
    }
    bool exact;
    uint64_t nc = k->constraints(c->shape, &exact);
    if (nc > b->max_constraints) {
        k->free_shape(c->shape);
        free(c);
        pthread_mutex_unlock(&b->mu);
        return cz_err(err, CZ_ERR_NOT_FOUND,
                      "circuit '%s' has %s%llu constraints, more than backend.max_constraints = %llu allows", id,
                      exact ? "" : "up to ", (unsigned long long)nc, (unsigned long long)b->max_constraints);
    }
    cz_synth_fn fn;
    const void *ctx;
    /* recording under the lock: concurrent first uses of one circuit must
     * not record twice (it can take seconds at PoRep scale) */
    if ((st = k->shape_synth(c->shape, &fn, &ctx)) != CZ_OK) {
        k->free_shape(c->shape);
        free(c);
        pthread_mutex_unlock(&b->mu);
        return st;
    }
    if ((st = cz_pce_record(&c->pce, fn, ctx, NULL)) != CZ_OK) {
        k->free_shape(c->shape);
        free(c);
        pthread_mutex_unlock(&b->mu);
        return cz_err(err, st, "circuit %s: recording failed: %s", id, cz_status_str(st));
    }
    c->refs = 1;
    c->next = b->circuits;
    b->circuits = c;
    *out = c;
    pthread_mutex_unlock(&b->mu);
    return CZ_OK;
}

static void free_entry(circuit_entry *c)
{
    cz_pce_free(c->pce);
    c->kind->free_shape(c->shape);
    free(c);
}

/* Drops a reference; the last one frees the recorded circuit. */
static void put_circuit(backend_ctx *b, circuit_entry *c)
{
    if (!c) return;
    pthread_mutex_lock(&b->mu);
    bool last = --c->refs == 0;
    if (last)
        for (circuit_entry **pp = &b->circuits; *pp; pp = &(*pp)->next)
            if (*pp == c) {
                *pp = c->next;
                break;
            }
    pthread_mutex_unlock(&b->mu);
    if (last) free_entry(c);
}

size_t cz_prover_recorded_circuits(const cz_engine_backend *be, uint64_t *bytes)
{
    backend_ctx *b = be->ctx;
    size_t n = 0;
    uint64_t sum = 0;
    pthread_mutex_lock(&b->mu);
    for (const circuit_entry *c = b->circuits; c; c = c->next) {
        n++;
        sum += cz_pce_bytes(c->pce);
    }
    pthread_mutex_unlock(&b->mu);
    if (bytes) *bytes = sum;
    return n;
}

/* ---- vtable ---- */

/* The name check of get_circuit without its node-local parts
 * (backend.circuits, backend.max_constraints) and without recording:
 * resolving a shape only parses the id. */
static cz_status be_check_circuit(void *ctx, const char *id, char *msg, size_t msglen)
{
    (void)ctx;
    cz_errbuf e = {{0}};
    const circuit_kind *k = cz__find_kind(id);
    if (!k || strlen(id) >= sizeof((circuit_entry *)0)->id) {
        cz_status st = cz_err(&e, CZ_ERR_NOT_FOUND,
                              "unknown circuit '%s' (known: mulchain-N, shaped-12..shaped-20, porep-, winning-, "
                              "wpost-, snap- followed by 2k, 8m, 512m, 32g or 64g)",
                              id);
        to_msg(msg, msglen, &e);
        return st;
    }
    void *shape = NULL;
    cz_status st = k->resolve(id, &shape, &e);
    if (st != CZ_OK) {
        to_msg(msg, msglen, &e);
        return st;
    }
    k->free_shape(shape);
    return CZ_OK;
}

static cz_status be_estimate(void *ctx, const char *id, cz_engine_estimate *out, char *msg, size_t msglen)
{
    backend_ctx *b = ctx;
    cz_errbuf e = {{0}};
    circuit_entry *c;
    cz_status st = get_circuit(b, id, &c, &e);
    if (st != CZ_OK) {
        to_msg(msg, msglen, &e);
        return st;
    }
    uint64_t m = domain_of(c->pce), nvars = c->pce->n_inputs + c->pce->n_aux;
    unsigned logm = 0;
    while ((1ULL << logm) < m) logm++;
    /* The recorded circuit is part of the parameters: loading records it
     * (unless something else holds it) and unloading frees it. The NTT
     * domain is not: the prover keeps one per size for the life of the
     * process, so it is the shared part, charged once per size. */
    cz_groth16_tables_plan tp;
    cz_groth16_tables_plan_for(&tp, c->pce, b->msm_tables_bytes, b->pool);
    out->params_bytes = cz__params_bytes_for(c->pce) + cz_pce_bytes(c->pce) + tp.bytes;
    out->shared_bytes = cz_ntt_domain_memory(logm);
    out->shared_key = logm + 1;
    out->abc_bytes = 3 * 32 * m;
    /* The rest, at the worst moment of a partition's life (measured by
     * test_memory_budget, BENCHMARKS.md "Peak RSS vs the budget"):
     *  - synthesized, waiting for a prover: a, b, c (abc) + witness (32 B/var);
     *  - inside prove_start: b and c are freed after the quotient, before
     *    the H MSM allocates its scratch S1; the canonical scalars (32 B/var)
     *    join the witness: 64·nvars + max(0, S1 - 64·m) beyond abc;
     *  - after prove_start (abc returned): scalars + the B_G2 scratch S2.
     * S1 and S2 are the scratch of the H + L MSM (one call over both
     * queries, m - 1 + n_aux points) and of the B_G2 MSM for the whole
     * compute pool: the B_G2 job runs on a background thread but its MSMs
     * (cz__groth16_b2_job: cz_msm_g2_density on p->pool) are parallel
     * calls on the compute pool, every worker with its own buckets. Both
     * as the part normally written (cz_msm_gX_scratch_resident: RSS counts
     * touched pages only, and the rarely used overflow buckets are most of
     * the allocation bound). */
    uint64_t nb = c->pce->dens_b_input_count + c->pce->dens_b_aux_count;
    uint64_t s1 = cz_msm_g1_scratch_resident(m - 1 + c->pce->n_aux, b->pool, NULL), s2 = cz_msm_g2_scratch_resident(nb, b->pool, NULL);
    /* a table MSM may plan a wider window: its allocation bound (not its
     * resident part: no figure for that yet, so the estimate errs high) */
    for (int q = CZ_GROTH16_Q_H; q <= CZ_GROTH16_Q_L; q++)
        if (tp.t[q]) {
            uint64_t tsz = cz_msm_g1_tables_scratch_size(m - 1 + c->pce->n_aux, tp.t[q], tp.bits[q], b->pool, NULL);
            if (tsz > s1) s1 = tsz;
        }
    if (tp.t[CZ_GROTH16_Q_B_G2]) {
        uint64_t tsz = cz_msm_g2_tables_scratch_size(c->pce->dens_b_aux_count, tp.t[CZ_GROTH16_Q_B_G2],
                                                     tp.bits[CZ_GROTH16_Q_B_G2], b->pool, NULL);
        if (tsz > s2) s2 = tsz;
    }
    uint64_t in_start = 64 * nvars + (s1 > 64 * m ? s1 - 64 * m : 0), after = 32 * nvars + s2;
    out->rest_bytes = in_start > after ? in_start : after;
    out->proof_bytes = CZ_GROTH16_PROOF_BYTES;
    out->device_params_bytes = out->device_partition_bytes = 0; /* the CPU: no device accounting */
#ifdef CUZK_HAVE_CUDA
    if (b->n_gpu) cz_cuda_device_bytes_for(c->pce, &out->device_params_bytes, &out->device_partition_bytes);
#endif
    /* estimating holds nothing: the circuit is recorded again by the load
     * (cheap next to the load itself) rather than kept uncharged */
    put_circuit(b, c);
    return CZ_OK;
}

/* Loads circuit id's parameters from base (NULL: the store) into a new
 * loaded_t. local_setup: `cuzk setup` (a fresh local set, never the
 * ceremony's file); otherwise a Filecoin id without <base>.params is
 * served by its ceremony file (a missing one is an error, whatever
 * auto_setup says). */
static cz_status load_at(backend_ctx *b, const char *id, const char *base, bool auto_setup, bool local_setup,
                         cz_g1_affine **h_odd, loaded_t **out, cz_errbuf *e)
{
    circuit_entry *c;
    cz_status st = get_circuit(b, id, &c, e);
    if (st != CZ_OK) return st;
    loaded_t *L = calloc(1, sizeof *L);
    if (!L) {
        put_circuit(b, c);
        return cz_err(e, CZ_ERR_NOMEM, "out of memory");
    }
    char def[4096];
    if (!base) {
        snprintf(def, sizeof def, "%s/%s", b->param_dir, id);
        base = def;
    }
    char v28[4096], digest[33];
    cz__store_opts so = {.auto_setup = auto_setup,
                         .digest_full = b->params_validate_full,
                         .v28_mode = b->params_validate_full ? CZ_PARAMS_VALIDATE_FULL : CZ_PARAMS_VALIDATE_TRUSTED};
    if (!local_setup) {
        if ((st = cz__fil_v28_source(id, v28, sizeof v28, digest, e)) != CZ_OK) {
            put_circuit(b, c);
            free(L);
            return st;
        }
        if (v28[0]) {
            so.v28_path = v28;
            so.v28_digest = digest;
        }
    }
    st = cz__store_load_ex(base, id, c->pce, &so, b->pool, b->log, h_odd, &L->params, e);
    if (st == CZ_OK && (st = cz_groth16_pvk_create(&L->pvk, &L->params->vk)) != CZ_OK)
        cz_err(e, st, "cannot prepare the verifying key");
    if (st != CZ_OK) {
        cz_groth16_params_free(L->params);
        put_circuit(b, c);
        free(L);
        return st;
    }
    L->c = c; /* L holds c's reference until be_unload */
    L->m = domain_of(c->pce);
    size_t bl = strlen(base);
    if (!b->msm_tables_no_file && bl + sizeof ".tables" <= sizeof L->tables_path) { /* else none kept */
        memcpy(L->tables_path, base, bl);
        memcpy(L->tables_path + bl, ".tables", sizeof ".tables");
    }
#ifdef CUZK_HAVE_CUDA
    L->gen = cz_cuda_params_generation();
#endif
    *out = L;
    return CZ_OK;
}

static void be_unload(void *ctx, const char *id, void *params);

/* Keeps L's freshly built tables in L->tables_path (temporary name, then
 * renamed): a failure is logged and costs only the next start's build. */
static void save_tables(backend_ctx *b, const char *id, loaded_t *L)
{
    cz_errbuf e = {{0}};
    cz__staging s;
    cz__stage_init(&s);
    cz__stage_sweep(L->tables_path, b->log);
    const char *tmp = cz__stage(&s, L->tables_path);
    double t0 = cz_mono_ms();
    cz_status st = tmp ? cz__tables_file_write(tmp, L->params, L->c->pce, b->pool, &e)
                       : cz_err(&e, CZ_ERR_INVALID_ARG, "%s: path too long", L->tables_path);
    if (st == CZ_OK) st = cz__stage_commit(&s, false, &e);
    else cz__stage_abort(&s);
    if (b->log) {
        if (st == CZ_OK)
            fprintf(b->log, "cuzk: %s: MSM tables kept in %s (%.1f s)\n", id, L->tables_path, (cz_mono_ms() - t0) / 1e3);
        else
            fprintf(b->log, "cuzk: %s: cannot keep the MSM tables: %s\n", id, e.msg);
        fflush(b->log);
    }
}

/* Gives L its MSM tables (b->msm_tables_bytes): mapped from
 * L->tables_path when that file holds the tables planned now for these
 * very bases (cz__tables_file_map checks it all), built otherwise and then
 * kept there; one log line says which. *ms: the time taken. */
static cz_status build_tables(backend_ctx *b, const char *id, loaded_t *L, double *ms, cz_errbuf *e)
{
    double t0 = cz_mono_ms();
    bool mapped = false;
    cz_status st = CZ_ERR_NOT_FOUND;
    cz_groth16_tables_plan plan;
    cz_groth16_tables_plan_for(&plan, L->c->pce, b->msm_tables_bytes, b->pool);
    if (plan.bytes && L->tables_path[0]) {
        cz_errbuf fe = {{0}};
        st = cz__tables_file_map(L->tables_path, L->params, L->c->pce, &plan, b->pool, &fe);
        if (st == CZ_OK) mapped = true;
        else if (st != CZ_ERR_NOT_FOUND && b->log) {
            fprintf(b->log, "cuzk: %s: %s; building the MSM tables again\n", id, fe.msg);
            fflush(b->log);
        }
    }
    if (st != CZ_OK) st = cz_groth16_params_build_tables(L->params, L->c->pce, b->msm_tables_bytes, b->pool, e);
    double dt = cz_mono_ms() - t0;
    if (ms) *ms = dt;
    if (st != CZ_OK) return st;
    const cz_groth16_tables *t = L->params->tables;
    if (b->log) {
        if (!t) {
            fprintf(b->log, "cuzk: %s: no MSM tables pay within backend.msm_tables = %llu bytes\n", id,
                    (unsigned long long)b->msm_tables_bytes);
        } else {
            static const char *const names[CZ_GROTH16_NQ] = {"H", "L", "A", "B_G1", "B_G2"};
            char parts[256] = "";
            size_t off = 0;
            for (int q = 0; q < CZ_GROTH16_NQ; q++) {
                unsigned tq = q == CZ_GROTH16_Q_B_G2 ? cz_msm_g2_tables_count(t->b_g2) : cz_msm_g1_tables_count(t->g1[q]);
                unsigned bq = q == CZ_GROTH16_Q_B_G2 ? cz_msm_g2_tables_bits(t->b_g2) : cz_msm_g1_tables_bits(t->g1[q]);
                if (tq && off < sizeof parts)
                    off += (size_t)snprintf(parts + off, sizeof parts - off, "%s%s %ux%u", off ? ", " : "", names[q],
                                            tq, bq);
            }
            fprintf(b->log, "cuzk: %s: MSM tables %s (%.1f MB) %s in %.1f s\n", id, parts,
                    (double)t->bytes / 1e6, mapped ? "read from the table file" : "built", dt / 1e3);
        }
        fflush(b->log);
    }
    if (t && !mapped && L->tables_path[0]) save_tables(b, id, L);
    return CZ_OK;
}

static cz_status be_load(void *ctx, const char *id, void **params, char *msg, size_t msglen)
{
    backend_ctx *b = ctx;
    cz_errbuf e = {{0}};
    loaded_t *L;
    cz_status st = load_at(b, id, NULL, b->auto_setup, false, NULL, &L, &e);
    if (st == CZ_OK && b->msm_tables_bytes && (st = build_tables(b, id, L, NULL, &e)) != CZ_OK)
        be_unload(b, id, L);
    if (st != CZ_OK) {
        to_msg(msg, msglen, &e);
        return st;
    }
    *params = L;
    return CZ_OK;
}

/* The offline copy's tables, built once at its first proof. */
static cz_status offline_tables(backend_ctx *b, const char *id, loaded_t *L, uint64_t *bytes, double *ms,
                                cz_errbuf *e)
{
    cz_status st = CZ_OK;
    if (ms) *ms = 0;
    pthread_mutex_lock(&b->tables_mu);
    if (!L->tables_done && b->msm_tables_bytes) {
        st = build_tables(b, id, L, ms, e);
        L->tables_done = st == CZ_OK;
    }
    pthread_mutex_unlock(&b->tables_mu);
    if (bytes) *bytes = cz_groth16_params_tables_bytes(L->params);
    return st;
}

static void be_unload(void *ctx, const char *id, void *params)
{
    (void)id;
    loaded_t *L = params;
    if (!L) return;
#ifdef CUZK_HAVE_CUDA
    /* off every GPU before the host copy goes (cuzk/cuda.h: identity) */
    backend_ctx *b = ctx;
    for (unsigned i = 0; i < b->n_gpu; i++) cz_cuda_params_release_set(b->gpu[i], L->params, L->gen);
#endif
    cz_groth16_pvk_free(L->pvk);
    cz_groth16_params_free(L->params);
    put_circuit(ctx, L->c); /* the recorded circuit goes with the parameters */
    free(L);
}

/* The offline copy of circuit id's parameters at base (NULL: the store),
 * loaded on first use. */
static cz_status get_offline(backend_ctx *b, const char *id, const char *base, loaded_t **out, cz_errbuf *err)
{
    char def[4096];
    if (!base) {
        snprintf(def, sizeof def, "%s/%s", b->param_dir, id);
        base = def;
    }
    pthread_mutex_lock(&b->mu);
    for (offline_entry *o = b->offline; o; o = o->next) {
        if (!strcmp(o->id, id) && !strcmp(o->base, base)) {
            *out = o->L;
            pthread_mutex_unlock(&b->mu);
            return CZ_OK;
        }
    }
    pthread_mutex_unlock(&b->mu);
    offline_entry *o = calloc(1, sizeof *o);
    if (!o) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    cz_status st = load_at(b, id, base, false, false, NULL, &o->L, err);
    if (st != CZ_OK) {
        free(o);
        return st;
    }
    snprintf(o->id, sizeof o->id, "%s", id);
    snprintf(o->base, sizeof o->base, "%s", base);
    pthread_mutex_lock(&b->mu);
    o->next = b->offline;
    b->offline = o;
    pthread_mutex_unlock(&b->mu);
    *out = o->L;
    return CZ_OK;
}

/* Drops the offline copy at base (a new setup replaced the files). */
static void drop_offline(backend_ctx *b, const char *id, const char *base)
{
    offline_entry *dropped = NULL;
    pthread_mutex_lock(&b->mu);
    for (offline_entry **pp = &b->offline; *pp;) {
        offline_entry *o = *pp;
        if (!strcmp(o->id, id) && (!base || !strcmp(o->base, base))) {
            *pp = o->next;
            o->next = dropped;
            dropped = o;
        } else {
            pp = &o->next;
        }
    }
    pthread_mutex_unlock(&b->mu);
    /* unloaded without mu: be_unload releases the circuit, which takes it */
    for (offline_entry *o = dropped, *n; o; o = n) {
        n = o->next;
        be_unload(b, id, o->L);
        free(o);
    }
}

/* What prepare_job hands the engine: the parsed payload and the circuit
 * kind that knows how to free it (release_job gets only this pointer). */
typedef struct {
    const circuit_kind *kind;
    void *job;
} prepared_t;

static void *job_of(const cz_engine_job_view *job)
{
    return job->prepared ? ((prepared_t *)job->prepared)->job : NULL;
}

static cz_status be_prepare(void *ctx, void *params, const cz_engine_job_view *job, void **prepared, char *msg,
                            size_t msglen)
{
    (void)ctx;
    loaded_t *L = params;
    cz_errbuf e = {{0}};
    prepared_t *w = malloc(sizeof *w);
    if (!w) return CZ_ERR_NOMEM;
    cz_status st =
        L->c->kind->parse_job(L->c->shape, job->payload, job->payload_len, job->num_partitions, &w->job, &e);
    if (st != CZ_OK) {
        free(w);
        to_msg(msg, msglen, &e);
        return st;
    }
    w->kind = L->c->kind;
    *prepared = w;
    return CZ_OK;
}

static void be_release(void *ctx, void *prepared)
{
    (void)ctx;
    prepared_t *w = prepared;
    if (!w) return;
    w->kind->free_job(w->job);
    free(w);
}

static void free_synth_obj(synth_t *s)
{
    if (!s) return;
    free(s->a);
    free(s->b);
    free(s->c);
    cz_witness_free(&s->w);
    free(s);
}

static cz_status be_synth(void *ctx, void *params, const cz_engine_job_view *job, uint32_t part,
                          const cz_engine_cancel_token *cancel, void **out, cz_engine_timings *t, char *msg,
                          size_t msglen)
{
    backend_ctx *b = ctx;
    loaded_t *L = params;
    cz_errbuf e = {{0}};
    if (cz_engine_cancel_requested(cancel)) return CZ_ERR_CANCELLED;
    cz_synth_fn fn;
    void *pctx = NULL;
    cz_status st = L->c->kind->partition(L->c->shape, job_of(job), part, &fn, &pctx, &e);
    if (st != CZ_OK) {
        to_msg(msg, msglen, &e);
        return st;
    }
    synth_t *s = calloc(1, sizeof *s);
    if (!s || !(s->a = cz_big_alloc_array(L->m, sizeof(cz_fr))) ||
        !(s->b = cz_big_alloc_array(L->m, sizeof(cz_fr))) || !(s->c = cz_big_alloc_array(L->m, sizeof(cz_fr)))) {
        free_synth_obj(s);
        L->c->kind->free_part(pctx);
        snprintf(msg, msglen, "out of memory for a/b/c (3 x %zu elements)", L->m);
        return CZ_ERR_NOMEM;
    }
    s->pce = L->c->pce;
    s->m = L->m;
    s->job = job_of(job);
    s->part = part;
    double t0 = cz_mono_ms();
    st = cz_synthesize(L->c->pce, fn, pctx, b->pool, &s->w, s->a, s->b, s->c, L->m);
    L->c->kind->free_part(pctx);
    if (st != CZ_OK) {
        free_synth_obj(s);
        snprintf(msg, msglen, "synthesis failed: %s", cz_status_str(st));
        return st;
    }
    cz_engine_timings_add(t, "wit_spmv", cz_mono_ms() - t0);
    *out = s;
    return CZ_OK;
}

#ifdef CUZK_HAVE_CUDA
static void region_lock(void *dev) { cz_engine_device_lock(dev); }
static void region_unlock(void *dev) { cz_engine_device_unlock(dev); }

/* A GPU call's status for the engine: input errors stay what they are
 * (the job is wrong, another device would say the same); everything else
 * is the device's (CUDA errors, device out of memory or over its size
 * check, a broken context, the resident set replaced under us). */
static cz_status gpu_status(cz_status st)
{
    switch (st) {
    case CZ_OK:
    case CZ_ERR_UNSATISFIED:
    case CZ_ERR_INVALID_ARG:
    case CZ_ERR_MISMATCH:
    case CZ_ERR_CANCELLED:
        return st;
    default:
        return CZ_ERR_DEVICE;
    }
}
#endif

static cz_status be_prove_start(void *ctx, void *params, void *synth, cz_engine_device *dev, void **pending,
                                cz_engine_timings *t, char *msg, size_t msglen)
{
    backend_ctx *b = ctx;
    loaded_t *L = params;
    synth_t *s = synth;
    cz_errbuf e = {{0}};
    pend_t *pd = malloc(sizeof *pd);
    if (!pd) {
        free_synth_obj(s);
        snprintf(msg, msglen, "out of memory");
        return CZ_ERR_NOMEM;
    }
    pd->job = s->job;
    pd->part = s->part;
    pd->gpu = -1;
    cz_groth16_input in = {s->a, s->b, s->c, s->m, &s->w};
    s->a = s->b = s->c = NULL; /* prove_start owns and frees them */
    double t0 = cz_mono_ms();
    cz_groth16_pending *p = NULL;
    cz_status st;
    unsigned di = cz_engine_device_index(dev);
#ifdef CUZK_HAVE_CUDA
    if (di < b->n_gpu) {
        cz_cuda_region_hooks hooks = {region_lock, region_unlock, dev};
        pd->gpu = (int)di;
        st = cz_cuda_prove_start_ex(&p, b->gpu[di], L->params, L->gen, L->c->pce, &in, b->pool, b->bg, &hooks, &e);
        free_synth_obj(s);
        if (st != CZ_OK) {
            cz_status gst = gpu_status(st);
            if (msg && msglen)
                snprintf(msg, msglen, "GPU %u (CUDA device %d): %s", di, b->gpu_ord[di], e.msg[0] ? e.msg : cz_status_str(st));
            free(pd);
            return gst;
        }
        cz_engine_timings_add(t, "gpu_start", cz_mono_ms() - t0);
        pd->p = p;
        *pending = pd;
        return CZ_OK;
    }
#endif
    /* The CPU: with GPUs the back-end holds the device lock itself
     * (backend_locks_device), here around the whole call as the engine
     * would. */
    if (b->n_gpu) cz_engine_device_lock(dev);
    st = cz_groth16_prove_start(&p, L->params, L->c->pce, &in, b->pool, b->bg, &e);
    if (b->n_gpu) cz_engine_device_unlock(dev);
    (void)di;
    free_synth_obj(s); /* the witness: prove_start kept what B_G2 needs */
    if (st != CZ_OK) {
        free(pd);
        to_msg(msg, msglen, &e);
        return st;
    }
    cz_engine_timings_add(t, "start", cz_mono_ms() - t0);
    pd->p = p;
    *pending = pd;
    return CZ_OK;
}

/* One partition's proof against its public inputs (a GPU's result, before
 * it leaves the back-end). */
static cz_status verify_one(const loaded_t *L, void *job, uint32_t part, const uint8_t *proof, cz_errbuf *err)
{
    size_t npub = L->c->pce->n_inputs - 1;
    cz_groth16_proof pr;
    cz_fr *x = malloc((npub ? npub : 1) * sizeof *x);
    if (!x) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    cz_status st = cz_groth16_proof_decode(&pr, proof, err);
    if (st == CZ_OK && (st = L->c->kind->public_inputs(L->c->shape, job, part, x, npub)) != CZ_OK)
        cz_err(err, st, "cannot compute the public inputs of partition %u", part);
    const cz_fr *xs[1] = {x};
    if (st == CZ_OK) st = cz_groth16_verify_batch(L->pvk, &pr, xs, npub, 1, err);
    free(x);
    return st;
}

static cz_status be_prove_finish(void *ctx, void *params, void *pending, uint8_t *proof, cz_engine_timings *t,
                                 char *msg, size_t msglen)
{
    (void)ctx;
    pend_t *pd = pending;
    cz_errbuf e = {{0}};
    cz_groth16_timings gt;
    cz_status st = cz_groth16_prove_finish(pd->p, NULL, proof, &gt, &e);
    pd->p = NULL;
    if (st != CZ_OK) {
        free(pd);
        to_msg(msg, msglen, &e);
        return st;
    }
    cz_engine_timings_add(t, "ntt", gt.ntt_ms);
    cz_engine_timings_add(t, "msm_h", gt.msm_h_ms);
    cz_engine_timings_add(t, "msm_l", gt.msm_l_ms);
    cz_engine_timings_add(t, "msm_a", gt.msm_a_ms);
    cz_engine_timings_add(t, "msm_b1", gt.msm_b_g1_ms);
    cz_engine_timings_add(t, "b_g2", gt.b_g2_ms);
    cz_engine_timings_add(t, "assemble", gt.finish_ms);
    if (pd->gpu >= 0) {
        /* A GPU result is checked here, at the cost of one pairing check
         * (milliseconds, next to seconds of proving): a wrong proof then
         * names the GPU instead of failing the job's self-verification
         * as if the job were bad. */
        double v0 = cz_mono_ms();
        cz_errbuf ve = {{0}};
        cz_status vst = verify_one(params, pd->job, pd->part, proof, &ve);
        cz_engine_timings_add(t, "gpu_check", cz_mono_ms() - v0);
        if (vst != CZ_OK) {
            if (msg && msglen)
                snprintf(msg, msglen, "GPU %d produced a proof of partition %u that does not verify: %s", pd->gpu,
                         pd->part, ve.msg[0] ? ve.msg : cz_status_str(vst));
            free(pd);
            return vst == CZ_ERR_NOMEM ? vst : CZ_ERR_DEVICE;
        }
    }
    free(pd);
    return CZ_OK;
}

static void be_free_synth(void *ctx, void *synth)
{
    (void)ctx;
    free_synth_obj(synth);
}

static void be_free_pending(void *ctx, void *pending)
{
    (void)ctx;
    pend_t *pd = pending;
    if (!pd) return;
    cz_groth16_pending_free(pd->p);
    free(pd);
}

static cz_status verify_parts(const loaded_t *L, void *job, uint32_t nparts, const uint8_t *proof, size_t proof_len,
                              cz_errbuf *err)
{
    if (proof_len != (size_t)nparts * CZ_GROTH16_PROOF_BYTES)
        return cz_err(err, CZ_ERR_MISMATCH, "proof has %zu bytes, %u partitions need %zu", proof_len, nparts,
                      (size_t)nparts * CZ_GROTH16_PROOF_BYTES);
    size_t npub = L->c->pce->n_inputs - 1;
    cz_groth16_proof *pr = malloc(nparts * sizeof *pr);
    cz_fr *x = malloc((size_t)nparts * (npub ? npub : 1) * sizeof *x);
    const cz_fr **xs = malloc(nparts * sizeof *xs);
    cz_status st = CZ_OK;
    if (!pr || !x || !xs) st = cz_err(err, CZ_ERR_NOMEM, "out of memory");
    for (uint32_t p = 0; st == CZ_OK && p < nparts; p++) {
        if ((st = cz_groth16_proof_decode(&pr[p], proof + (size_t)p * CZ_GROTH16_PROOF_BYTES, err)) != CZ_OK) break;
        if ((st = L->c->kind->public_inputs(L->c->shape, job, p, x + p * npub, npub)) != CZ_OK) {
            cz_err(err, st, "partition %u: cannot compute the public inputs", p);
            break;
        }
        xs[p] = x + p * npub;
    }
    if (st == CZ_OK) st = cz_groth16_verify_batch(L->pvk, pr, xs, npub, nparts, err);
    free(pr);
    free(x);
    free(xs);
    return st;
}

static cz_status be_verify(void *ctx, void *params, const cz_engine_job_view *job, const uint8_t *proof,
                           size_t proof_len, char *msg, size_t msglen)
{
    (void)ctx;
    cz_errbuf e = {{0}};
    cz_status st = verify_parts(params, job_of(job), job->num_partitions, proof, proof_len, &e);
    if (st != CZ_OK) to_msg(msg, msglen, &e);
    return st;
}

static void be_device_name(void *ctx, unsigned index, char *name, size_t len)
{
    backend_ctx *b = ctx;
    (void)index;
#ifdef CUZK_HAVE_CUDA
    if (index < b->n_gpu) {
        snprintf(name, len, "GPU %d: %s", b->gpu_ord[index], cz_cuda_ctx_name(b->gpu[index]));
        return;
    }
#endif
    snprintf(name, len, "%s", b->n_gpu ? "CPU" : "CPU (no GPU)");
}

/* Parses backend.gpus: NULL/""/"auto" (*all), "none" (0 ordinals) or a
 * comma-separated list of distinct CUDA ordinals 0..CZ_PROVER_MAX_GPUS-1. */
static cz_status parse_gpus(const char *text, int *ord, unsigned *n, bool *all, cz_errbuf *err)
{
    *n = 0;
    *all = !text || !*text || !strcmp(text, "auto");
    if (*all || !strcmp(text, "none")) return CZ_OK;
    for (const char *q = text;;) {
        while (*q == ' ') q++;
        char *end;
        long v = strtol(q, &end, 10);
        if (end == q || v < 0 || v >= CZ_PROVER_MAX_GPUS || *n >= CZ_PROVER_MAX_GPUS)
            return cz_err(err, CZ_ERR_INVALID_ARG,
                          "backend.gpus = '%s': expected auto, none or a comma-separated list of CUDA device "
                          "numbers 0..%d",
                          text, CZ_PROVER_MAX_GPUS - 1);
        for (unsigned i = 0; i < *n; i++)
            if (ord[i] == (int)v)
                return cz_err(err, CZ_ERR_INVALID_ARG, "backend.gpus = '%s': device %ld listed twice", text, v);
        ord[(*n)++] = (int)v;
        q = end;
        while (*q == ' ') q++;
        if (!*q) break;
        if (*q != ',')
            return cz_err(err, CZ_ERR_INVALID_ARG, "backend.gpus = '%s': unexpected '%c' (expected a comma)", text,
                          *q);
        q++;
    }
    return CZ_OK;
}

/* Opens the configured GPUs (none found or none asked: the CPU) and writes
 * the one summary line. */
static cz_status open_gpus(backend_ctx *b, const char *text, FILE *log, cz_errbuf *err)
{
    int ord[CZ_PROVER_MAX_GPUS];
    unsigned n;
    bool all;
    cz_status st = parse_gpus(text, ord, &n, &all, err);
    if (st != CZ_OK) return st;
#ifdef CUZK_HAVE_CUDA
    int present = cz_cuda_device_count();
    if (all) {
        n = 0;
        for (int i = 0; i < present && n < CZ_PROVER_MAX_GPUS; i++) ord[n++] = i;
    }
    for (unsigned i = 0; i < n; i++) {
        if (ord[i] >= present)
            return cz_err(err, CZ_ERR_NOT_FOUND, "backend.gpus = '%s': CUDA device %d requested, %d present", text,
                          ord[i], present);
        cz_cuda_opts o = {.device = ord[i]};
        cz_errbuf ce = {{0}};
        cz_cuda_ctx *g = NULL;
        if ((st = cz_cuda_ctx_create(&g, &o, &ce)) != CZ_OK) {
            if (!all)
                return cz_err(err, st, "backend.gpus = '%s': cannot open CUDA device %d: %s", text, ord[i], ce.msg);
            if (log) fprintf(log, "cuzk: skipping CUDA device %d: %s\n", ord[i], ce.msg);
            continue;
        }
        size_t fr = 0, tot = 0;
        uint64_t reserve = 512ull << 20;
        if (cz_cuda_mem_info(g, &fr, &tot) != CZ_OK) fr = 0;
        b->gpu_ord[b->n_gpu] = ord[i];
        b->gpu_mem[b->n_gpu] = fr > reserve ? fr - reserve : 0;
        b->gpu[b->n_gpu++] = g;
    }
    if (b->n_gpu) {
        size_t off = (size_t)snprintf(b->device_summary, sizeof b->device_summary, "proving on %u GPU(s):", b->n_gpu);
        for (unsigned i = 0; i < b->n_gpu && off < sizeof b->device_summary; i++)
            off += (size_t)snprintf(b->device_summary + off, sizeof b->device_summary - off, "%s %d: %s",
                                    i ? ";" : "", b->gpu_ord[i], cz_cuda_ctx_name(b->gpu[i]));
    } else {
        snprintf(b->device_summary, sizeof b->device_summary, "%s",
                 all ? "no CUDA device: proving on the CPU" : "backend.gpus = none: proving on the CPU");
    }
#else
    if (!all && n)
        return cz_err(err, CZ_ERR_UNSUPPORTED,
                      "backend.gpus = '%s': this build has no CUDA backend (CUDA not built; cmake -DCUZK_CUDA=ON "
                      "with nvcc)",
                      text);
    snprintf(b->device_summary, sizeof b->device_summary, "%s",
             all ? "CUDA not built: proving on the CPU" : "backend.gpus = none: proving on the CPU");
#endif
    if (log) fprintf(log, "cuzk: %s\n", b->device_summary);
    return CZ_OK;
}

static void close_gpus(backend_ctx *b)
{
#ifdef CUZK_HAVE_CUDA
    for (unsigned i = 0; i < b->n_gpu; i++) cz_cuda_ctx_free(b->gpu[i]);
#endif
    b->n_gpu = 0;
}

unsigned cz_prover_backend_gpus(const cz_engine_backend *be)
{
    const backend_ctx *b = be->ctx;
    return b ? b->n_gpu : 0;
}

uint64_t cz_prover_backend_gpu_memory(const cz_engine_backend *be, unsigned i)
{
    const backend_ctx *b = be->ctx;
    if (!b || i >= b->n_gpu) return 0;
#ifdef CUZK_HAVE_CUDA
    return b->gpu_mem[i];
#else
    return 0;
#endif
}

const char *cz_prover_backend_device_summary(const cz_engine_backend *be)
{
    const backend_ctx *b = be->ctx;
    return b ? b->device_summary : "";
}

cz_status cz_prover_backend_create(cz_engine_backend *out, const cz_prover_config *cfg, cz_errbuf *err)
{
    memset(out, 0, sizeof *out);
    backend_ctx *b = calloc(1, sizeof *b);
    if (!b) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    b->max_constraints = cfg->max_constraints ? cfg->max_constraints : CZ_PROVER_DEFAULT_MAX_CONSTRAINTS;
    cz_status ast = parse_allow(b, cfg->circuits, err);
    if (ast != CZ_OK) {
        free_allow(b);
        free(b);
        return ast;
    }
    b->param_dir = strdup(cfg->param_dir && *cfg->param_dir ? cfg->param_dir : ".");
    b->auto_setup = cfg->auto_setup;
    b->params_validate_full = cfg->params_validate_full;
    b->msm_tables_bytes = cfg->msm_tables_bytes;
    b->msm_tables_no_file = cfg->msm_tables_no_file;
    b->log = cfg->log;
    pthread_mutex_init(&b->mu, NULL);
    pthread_mutex_init(&b->tables_mu, NULL);
    cz_status st = CZ_OK;
    /* cfg->threads counts the calling thread, which takes part in every
     * parallel call (cz_pool): T threads = T - 1 workers. (A pool of T
     * workers put T + 1 threads on T cores: 18% slower proofs at 2^20.) */
    long total = cfg->threads ? (long)cfg->threads : sysconf(_SC_NPROCESSORS_ONLN);
    unsigned workers = total > 1 ? (unsigned)(total - 1) : 0;
    if (!b->param_dir || (workers && (st = cz_pool_create(&b->pool, workers, "cz-prove")) != CZ_OK) ||
        (st = cz_pool_create(&b->bg, 2, "cz-bg2")) != CZ_OK) {
        cz_pool_destroy(b->pool);
        free(b->param_dir);
        free_allow(b);
        free(b);
        return cz_err(err, CZ_ERR_NOMEM, "cannot create the compute pools");
    }
    if ((st = open_gpus(b, cfg->gpus, cfg->log, err)) != CZ_OK) {
        close_gpus(b);
        cz_pool_destroy(b->bg);
        cz_pool_destroy(b->pool);
        pthread_mutex_destroy(&b->mu);
        pthread_mutex_destroy(&b->tables_mu);
        free(b->param_dir);
        free_allow(b);
        free(b);
        return st;
    }
    mkdir(b->param_dir, 0755);
    /* Keep glibc's mmap threshold at 128 KiB: otherwise it rises after the
     * first large free (up to 32 MiB) and later a/b/c buffers come from
     * arenas that keep their high-water mark, so RSS stops following the
     * memory budget (measured: +70% at 2^15). Process-wide, by design: the
     * back-end owns the process's big buffers. */
    mallopt(M_MMAP_THRESHOLD, 128 * 1024);
    out->ctx = b;
    out->estimate = be_estimate;
    out->load_params = be_load;
    out->unload_params = be_unload;
    out->prepare_job = be_prepare;
    out->release_job = be_release;
    out->synthesize = be_synth;
    out->prove_start = be_prove_start;
    out->prove_finish = be_prove_finish;
    out->free_synth = be_free_synth;
    out->free_pending = be_free_pending;
    out->verify = be_verify;
    /* with GPUs the back-end takes the engine's device lock itself,
     * around the device region only (be_prove_start) */
    out->backend_locks_device = b->n_gpu > 0;
    out->device_name = be_device_name;
    out->check_circuit = be_check_circuit;
    return CZ_OK;
}

void cz_prover_backend_destroy(cz_engine_backend *be)
{
    if (!be || !be->ctx) return;
    backend_ctx *b = be->ctx;
    cz_pool_destroy(b->bg);
    cz_pool_destroy(b->pool);
    for (offline_entry *o = b->offline, *n; o; o = n) {
        n = o->next;
        be_unload(b, o->id, o->L);
        free(o);
    }
    close_gpus(b); /* after the offline unloads, which release their sets from the GPUs */
    /* circuits still held by parameters nobody unloaded (an engine
     * destroyed without unload_params, a leak on the caller's side) */
    for (circuit_entry *c = b->circuits, *n; c; c = n) {
        n = c->next;
        free_entry(c);
    }
    pthread_mutex_destroy(&b->mu);
    pthread_mutex_destroy(&b->tables_mu);
    free(b->param_dir);
    free_allow(b);
    free(b);
    be->ctx = NULL;
}

cz_status cz_prover_ensure_params(const cz_engine_backend *be, const char *id, const char *base, cz_errbuf *err)
{
    backend_ctx *b = be->ctx;
    loaded_t *L;
    cz_status st = load_at(b, id, base, b->auto_setup, false, NULL, &L, err);
    if (st == CZ_OK) be_unload(b, id, L);
    return st;
}

cz_status cz_prover_build_tables(const cz_engine_backend *be, const char *id, const char *base, uint64_t *bytes,
                                 double *ms, cz_errbuf *err)
{
    backend_ctx *b = be->ctx;
    loaded_t *L;
    cz_status st = get_offline(b, id, base, &L, err);
    if (st != CZ_OK) return st;
    return offline_tables(b, id, L, bytes, ms, err);
}

cz_status cz_prover_sample_payload(const cz_engine_backend *be, const char *id, uint32_t parts, uint64_t seed,
                                   uint8_t **payload, size_t *len, cz_errbuf *err)
{
    backend_ctx *b = be->ctx;
    circuit_entry *c;
    cz_status st = get_circuit(b, id, &c, err);
    if (st != CZ_OK) return st;
    st = c->kind->sample(c->shape, parts, seed, b->pool, payload, len, err);
    put_circuit(b, c);
    return st;
}

cz_status cz_prover_verify(const cz_engine_backend *be, const char *id, const char *base, const uint8_t *payload,
                           size_t payload_len, uint32_t parts, const uint8_t *proof, size_t proof_len, cz_errbuf *err)
{
    backend_ctx *b = be->ctx;
    loaded_t *L;
    cz_status st = get_offline(b, id, base, &L, err);
    if (st != CZ_OK) return st;
    void *job = NULL;
    st = L->c->kind->parse_job(L->c->shape, payload, payload_len, parts, &job, err);
    if (st == CZ_OK) st = verify_parts(L, job, parts, proof, proof_len, err);
    if (job) L->c->kind->free_job(job);
    return st;
}

cz_status cz_prover_setup(const cz_engine_backend *be, const char *id, const char *base, const char *zkey_path,
                          bool force, cz_errbuf *err)
{
    backend_ctx *b = be->ctx;
    char def[4096], pp[4200];
    if (!base) {
        snprintf(def, sizeof def, "%s/%s", b->param_dir, id);
        base = def;
    }
    snprintf(pp, sizeof pp, "%s.params", base);
    /* everything that can be refused is refused before the setup's work
     * (minutes to hours at PoRep scale) */
    cz_status st;
    if ((st = cz__ensure_dir_of(pp, err)) != CZ_OK || (zkey_path && (st = cz__ensure_dir_of(zkey_path, err)) != CZ_OK))
        return st;
    struct stat sb;
    if (!force && stat(pp, &sb) == 0)
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "%s already exists: a new setup would replace these parameters (pass --force to do so)", pp);
    if (!force && zkey_path && stat(zkey_path, &sb) == 0)
        return cz_err(err, CZ_ERR_INVALID_ARG, "%s already exists (pass --force to replace it)", zkey_path);
    circuit_entry *c;
    if ((st = get_circuit(b, id, &c, err)) != CZ_OK) return st;
    cz__stage_sweep(base, b->log);
    if (zkey_path) cz__stage_sweep(zkey_path, b->log);
    if (b->log) {
        fprintf(b->log, "params %s: local setup to %s\n", id, pp);
        fflush(b->log);
    }
    /* the new set is written beside the old one under temporary names and
     * replaces it only once complete: an interrupted setup leaves the old
     * files as they were */
    cz__staging *s = malloc(sizeof *s);
    if (s) cz__stage_init(s);
    cz_g1_affine *h_odd = NULL;
    cz_groth16_params *params = NULL;
    if (!s) put_circuit(b, c);
    if (!s) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    st = cz__store_setup(base, id, c->pce, true, b->pool, b->log, zkey_path ? &h_odd : NULL, s, &params, err);
    if (st == CZ_OK) {
        /* <base>.vk: bellperson's VerifyingKey::write, the file Filecoin
         * nodes verify with; staged with the rest, so it always belongs
         * to the .params beside it */
        char vp[4200];
        snprintf(vp, sizeof vp, "%s.vk", base);
        const char *tv = cz__stage(s, vp);
        uint8_t *vk = NULL;
        size_t vlen = 0;
        if (!tv)
            st = cz_err(err, CZ_ERR_INVALID_ARG, "%s: path too long", vp);
        else if ((st = cz_bp_vk_serialize(&params->vk, &vk, &vlen)) != CZ_OK)
            cz_err(err, st, "%s: cannot serialize the verifying key", vp);
        else {
            FILE *f = fopen(tv, "wb");
            bool ok = f && fwrite(vk, 1, vlen, f) == vlen;
            if (f && fclose(f) != 0) ok = false;
            if (!ok) st = cz_err(err, CZ_ERR_IO, "cannot write %s", tv);
        }
        free(vk);
        if (st != CZ_OK) cz__stage_abort(s);
    }
    if (st == CZ_OK && zkey_path) {
        const char *tz = cz__stage(s, zkey_path);
        cz_snarkjs_zkey *z = NULL;
        if (!tz)
            st = cz_err(err, CZ_ERR_INVALID_ARG, "%s: path too long", zkey_path);
        else if ((st = cz_snarkjs_zkey_from_params(&z, params, c->pce, h_odd, err)) == CZ_OK)
            st = cz_snarkjs_zkey_write(tz, z, err);
        cz_snarkjs_zkey_free(z);
        if (st != CZ_OK) cz__stage_abort(s);
    }
    /* without force, a .params that appeared meanwhile is not replaced */
    if (st == CZ_OK) st = cz__stage_commit(s, !force, err);
    /* the offline copies of the old set: stale once the new one is in place */
    if (st == CZ_OK) drop_offline(b, id, base);
    free(h_odd);
    free(s);
    cz_groth16_params_free(params);
    put_circuit(b, c);
    return st;
}

/* Witness of one partition (checked by the constraint checker first). */
static cz_status partition_witness(circuit_entry *c, void *job, uint32_t part, cz_pool *pool, synth_t **out,
                                   bool abc, bool check, cz_prover_timings *t, cz_errbuf *err)
{
    cz_synth_fn fn;
    void *pctx = NULL;
    cz_status st = c->kind->partition(c->shape, job, part, &fn, &pctx, err);
    if (st != CZ_OK) return st;
    cz_check_report rep;
    double t0 = cz_mono_ms();
    st = check ? cz_cs_check(fn, pctx, &rep) : CZ_OK;
    if (t) t->check_ms += cz_mono_ms() - t0;
    if (st != CZ_OK) {
        c->kind->free_part(pctx);
        if (st == CZ_ERR_UNSATISFIED)
            return cz_err(err, st, "partition %u: witness does not satisfy constraint %llu (%s)", part,
                          (unsigned long long)rep.first_failure, rep.where);
        return cz_err(err, st, "partition %u: synthesis failed: %s", part, cz_status_str(st));
    }
    synth_t *s = calloc(1, sizeof *s);
    size_t m = domain_of(c->pce);
    if (!s || (abc && (!(s->a = cz_big_alloc_array(m, sizeof(cz_fr))) ||
                       !(s->b = cz_big_alloc_array(m, sizeof(cz_fr))) ||
                       !(s->c = cz_big_alloc_array(m, sizeof(cz_fr)))))) {
        free_synth_obj(s);
        c->kind->free_part(pctx);
        return cz_err(err, CZ_ERR_NOMEM, "out of memory for a/b/c (3 x %zu)", m);
    }
    s->pce = c->pce;
    s->m = m;
    t0 = cz_mono_ms();
    if (abc)
        st = cz_synthesize(c->pce, fn, pctx, pool, &s->w, s->a, s->b, s->c, m);
    else
        st = cz_witness_generate(&s->w, fn, pctx, c->pce);
    if (t) t->synth_ms += cz_mono_ms() - t0;
    c->kind->free_part(pctx);
    if (st != CZ_OK) {
        free_synth_obj(s);
        return cz_err(err, st, "partition %u: synthesis failed: %s", part, cz_status_str(st));
    }
    *out = s;
    return CZ_OK;
}

cz_status cz_prover_prove(const cz_engine_backend *be, const char *id, const char *base, const uint8_t *payload,
                          size_t payload_len, uint32_t parts, bool check, uint8_t *proof, cz_prover_timings *timings,
                          cz_errbuf *err)
{
    backend_ctx *b = be->ctx;
    loaded_t *L;
    cz_status st = get_offline(b, id, base, &L, err);
    if (st == CZ_OK) st = offline_tables(b, id, L, NULL, NULL, err);
    if (st != CZ_OK) return st;
    void *job = NULL;
    if (timings) memset(timings, 0, sizeof *timings);
    st = L->c->kind->parse_job(L->c->shape, payload, payload_len, parts, &job, err);
    for (uint32_t p = 0; st == CZ_OK && p < parts; p++) {
        synth_t *s;
        if ((st = partition_witness(L->c, job, p, b->pool, &s, true, check, timings, err)) != CZ_OK) break;
        cz_groth16_input in = {s->a, s->b, s->c, s->m, &s->w};
        s->a = s->b = s->c = NULL;
        cz_groth16_timings t;
        st = cz_groth16_prove(L->params, L->c->pce, &in, b->pool, NULL, proof + (size_t)p * CZ_GROTH16_PROOF_BYTES,
                              &t, err);
        free_synth_obj(s);
        if (st == CZ_OK && timings) {
            timings->g.ntt_ms += t.ntt_ms;
            timings->g.msm_h_ms += t.msm_h_ms;
            timings->g.msm_l_ms += t.msm_l_ms;
            timings->g.msm_a_ms += t.msm_a_ms;
            timings->g.msm_b_g1_ms += t.msm_b_g1_ms;
            timings->g.b_g2_ms += t.b_g2_ms;
            timings->g.finish_ms += t.finish_ms;
        }
    }
    if (job) L->c->kind->free_job(job);
    return st;
}

cz_status cz_prover_write_wtns(const cz_engine_backend *be, const char *id, const uint8_t *payload,
                               size_t payload_len, uint32_t parts, uint32_t part, const char *path, cz_errbuf *err)
{
    backend_ctx *b = be->ctx;
    circuit_entry *c;
    cz_status st = get_circuit(b, id, &c, err);
    if (st != CZ_OK) return st;
    void *job = NULL;
    if (part >= parts)
        st = cz_err(err, CZ_ERR_INVALID_ARG, "partition %u of %u", part, parts);
    else
        st = c->kind->parse_job(c->shape, payload, payload_len, parts, &job, err);
    synth_t *s = NULL;
    if (st == CZ_OK) {
        st = partition_witness(c, job, part, b->pool, &s, false, true, NULL, err);
        c->kind->free_job(job);
    }
    put_circuit(b, c); /* s keeps no pointer into c that is used below */
    if (st != CZ_OK) return st;
    size_t n = s->w.n_inputs + s->w.n_aux;
    cz_fr *all = malloc(n * sizeof *all);
    if (!all) {
        free_synth_obj(s);
        return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    }
    memcpy(all, s->w.inputs, s->w.n_inputs * sizeof *all);
    memcpy(all + s->w.n_inputs, s->w.aux, s->w.n_aux * sizeof *all);
    st = cz_snarkjs_wtns_write(path, all, n, err);
    free(all);
    free_synth_obj(s);
    return st;
}

static cz_status write_text(const char *dir, const char *name, const char *text, cz_errbuf *err)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) return cz_err(err, CZ_ERR_IO, "%s: write failed", path);
    return CZ_OK;
}

cz_status cz_prover_export_json(const cz_engine_backend *be, const char *id, const char *base, const uint8_t *payload,
                                size_t payload_len, uint32_t parts, const uint8_t *proof, size_t proof_len,
                                const char *dir, cz_errbuf *err)
{
    backend_ctx *b = be->ctx;
    loaded_t *L;
    cz_status st = get_offline(b, id, base, &L, err);
    if (st != CZ_OK) return st;
    const cz_groth16_vk *vk = &L->params->vk;
    cz_fp12 ab;
    cz_pairing(&ab, &vk->alpha_g1, &vk->beta_g2);
    char *json = NULL;
    mkdir(dir, 0755);
    if ((st = cz_snarkjs_vk_to_json(&json, &vk->alpha_g1, &vk->beta_g2, &vk->gamma_g2, &vk->delta_g2, vk->ic,
                                    vk->n_ic, &ab)) == CZ_OK)
        st = write_text(dir, "vk.json", json, err);
    free(json);
    void *job = NULL;
    size_t npub = L->c->pce->n_inputs - 1;
    cz_fr *x = malloc((npub ? npub : 1) * sizeof *x);
    if (st == CZ_OK && proof) {
        if (proof_len != (size_t)parts * CZ_GROTH16_PROOF_BYTES)
            st = cz_err(err, CZ_ERR_MISMATCH, "proof has %zu bytes, %u partitions need %zu", proof_len, parts,
                        (size_t)parts * CZ_GROTH16_PROOF_BYTES);
        else if (!x)
            st = cz_err(err, CZ_ERR_NOMEM, "out of memory");
        else
            st = L->c->kind->parse_job(L->c->shape, payload, payload_len, parts, &job, err);
        for (uint32_t p = 0; st == CZ_OK && p < parts; p++) {
            cz_groth16_proof pr;
            char name[64];
            if ((st = cz_groth16_proof_decode(&pr, proof + (size_t)p * CZ_GROTH16_PROOF_BYTES, err)) != CZ_OK) break;
            cz_groth16_proof_pts pts = {pr.a, pr.b, pr.c};
            if ((st = L->c->kind->public_inputs(L->c->shape, job, p, x, npub)) != CZ_OK) break;
            if ((st = cz_snarkjs_proof_to_json(&json, &pts)) != CZ_OK) break;
            snprintf(name, sizeof name, "proof_%u.json", p);
            st = write_text(dir, name, json, err);
            free(json);
            if (st != CZ_OK || (st = cz_snarkjs_public_to_json(&json, x, npub)) != CZ_OK) break;
            snprintf(name, sizeof name, "public_%u.json", p);
            st = write_text(dir, name, json, err);
            free(json);
        }
    }
    free(x);
    if (job) L->c->kind->free_job(job);
    return st;
}
