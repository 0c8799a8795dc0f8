/*
 * Engine observability: TIMELINE lines, the status snapshot (struct and
 * JSON), Prometheus text exposition, per-partition timing records and a
 * Chrome trace-event export of them.
 *
 * TIMELINE line format (one line per event, fields separated by spaces):
 *   TIMELINE <ms since engine start> <EVENT> job=<id> part=<index|-> [key=value ...]
 * Events: JOB_SUBMIT, JOB_START (queue_ms), PARAMS_LOAD_START/END (load_ms),
 * PARAMS_EVICT, SYNTH_START, SYNTH_END (synth_ms), PROVE_START, PROVE_END
 * (prove_ms, device_ms), FINISH_END (finish_ms), VERIFY_END (verify_ms),
 * GPU_START (device; at the first device lock of the partition's
 * prove_start, emitted with that lock held), GPU_END (device, gpu_ms = the
 * time the device lock was held, status; after prove_start returns, also
 * when the lock was never taken: gpu_ms=0.000), DEVICE_RETRY (device =
 * the one that failed, error), DEVICE_QUARANTINED (job=0; device,
 * failures, error),
 * PART_DROPPED, JOB_DONE / JOB_FAILED / JOB_CANCELLED (total_ms); back-end
 * phases are appended as <phase>_ms=. job=0 marks engine-wide events
 * (parameters). Lines may be emitted with the engine lock held: the
 * timeline lock is always taken inside it, never around it.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "engine/engine_internal.h"

const double cz_hist_bounds[CZ_HIST_NB] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                           0.05,   0.1,   0.25,   0.5,   1,    2.5,
                                           5,      10,    25,     50,    100,  300,
                                           /* a 32GiB C2 job takes minutes: room above 5 min */
                                           600,    1800,  3600};
const char *const cz_hist_names[H_COUNT] = {"synth", "prove_start", "device", "prove_finish",
                                            "verify", "params_load", "queue_wait", "job"};

void cz_hist_observe(cz_hist *h, double s)
{
    unsigned i = 0;
    while (i < CZ_HIST_NB && s > cz_hist_bounds[i])
        i++;
    h->bucket[i]++;
    h->count++;
    h->sum += s;
}

bool cz_tl_enabled(const cz_engine *e)
{
    return e->cfg.timeline_file || e->cfg.timeline_cb;
}

_Thread_local cz_tl_gpu_ctx *cz_tl_gpu;

void cz_obs_device_locked(cz_engine_device *d)
{
    cz_tl_gpu_ctx *g = cz_tl_gpu;
    if (!g || g->started || g->e != d->e)
        return;
    g->started = true;
    g->first_ns = d->locked_at_ns;
    char extra[32];
    snprintf(extra, sizeof extra, "device=%u", d->index);
    cz_tl_emit(g->e, "GPU_START", g->job, g->part, extra);
}

void cz_tl_emit(cz_engine *e, const char *event, cz_job_id job, int part, const char *extra)
{
    if (!cz_tl_enabled(e))
        return;
    char line[768];
    double ms = cz_ms_since(e, cz_engine_now_ns());
    char ps[16];
    if (part < 0)
        snprintf(ps, sizeof ps, "-");
    else
        snprintf(ps, sizeof ps, "%d", part);
    snprintf(line, sizeof line, "TIMELINE %.3f %s job=%" PRIu64 " part=%s%s%s", ms, event,
             (uint64_t)job, ps, extra && *extra ? " " : "", extra ? extra : "");
    pthread_mutex_lock(&e->tl_mu);
    if (e->cfg.timeline_file) {
        fputs(line, e->cfg.timeline_file);
        fputc('\n', e->cfg.timeline_file);
        fflush(e->cfg.timeline_file);
    }
    if (e->cfg.timeline_cb)
        e->cfg.timeline_cb(e->cfg.timeline_arg, line);
    pthread_mutex_unlock(&e->tl_mu);
}

void cz_tl_phases(char *buf, size_t cap, const cz_engine_timings *t)
{
    size_t off = 0;
    for (unsigned i = 0; i < t->n && i < CZ_ENGINE_MAX_PHASES && off < cap; i++) {
        char name[16];
        memcpy(name, t->phase[i].name, sizeof name);
        name[15] = 0;
        int n = snprintf(buf + off, cap - off, " %s_ms=%.3f", name, t->phase[i].ms);
        if (n < 0)
            break;
        off += (size_t)n;
    }
}

void cz_rec_push_locked(cz_engine *e, const cz_engine_part_record *r)
{
    if (!e->rec_cap)
        return;
    size_t pos = (e->rec_head + e->rec_count) % e->rec_cap;
    e->recs[pos] = *r;
    if (e->rec_count < e->rec_cap)
        e->rec_count++;
    else
        e->rec_head = (e->rec_head + 1) % e->rec_cap;
}

size_t cz_engine_get_records(cz_engine *e, cz_engine_part_record *out, size_t cap)
{
    pthread_mutex_lock(&e->mu);
    size_t n = e->rec_count;
    if (out) { /* what was copied: a record may land between a count and the copy */
        if (n > cap) n = cap;
        for (size_t i = 0; i < n; i++) out[i] = e->recs[(e->rec_head + i) % e->rec_cap];
    }
    pthread_mutex_unlock(&e->mu);
    return n;
}

void cz_status_fill_locked(cz_engine *e, cz_engine_status *st)
{
    memset(st, 0, sizeof *st);
    st->uptime_ms = (uint64_t)cz_ms_since(e, cz_engine_now_ns());
    st->paused = e->paused;
    st->shutting_down = e->shutting;
    st->jobs_submitted = e->c_submitted;
    st->jobs_refused = e->c_refused;
    st->jobs_completed = e->c_completed;
    st->jobs_failed = e->c_failed;
    st->jobs_cancelled = e->c_cancelled;
    st->jobs_running = e->jobs_running;
    st->jobs_queued = e->jobs_active - e->jobs_running;
    st->jobs_retained = e->fin_count;
    st->partitions_queued = e->parts_queued;
    st->partitions_synthesizing = e->synthesizing;
    st->channel_depth = e->chan.n;
    st->channel_capacity = e->chan_cap;
    st->channel_peak = e->chan_peak;
    st->awaiting_send = e->awaiting_send + e->ovf_count;
    st->awaiting_send_peak = e->awaiting_send_peak;
    st->proving = e->proving;
    st->finalize_queued = e->finq.n;
    st->finalizing = e->finalizing;
    st->partitions_inflight = e->inflight;
    st->partitions_inflight_peak = e->inflight_peak;
    st->synthesized_waiting_peak = e->synth_waiting_peak;
    st->partitions_completed = e->c_parts_completed;
    st->partitions_dropped = e->c_parts_dropped;
    st->budget_total = e->budget;
    st->budget_used = e->used;
    st->budget_peak = e->peak;
    for (cz_pentry *p = e->pentries; p; p = p->next) {
        st->params_resident_bytes += p->charged;
        st->params_resident += p->state == PE_RESIDENT;
    }
    st->params_loading = e->loading;
    st->params_known = e->n_pentries;
    st->shared_bytes = e->shared_bytes;
    st->payload_bytes = e->payload_bytes;
    st->params_loads = e->c_loads;
    st->params_evictions = e->c_evictions;
    st->partition_workers = e->n_synth;
    st->prover_workers = e->n_prover;
    st->finalizers = e->n_fin;
    st->devices = e->n_dev;
    st->device_retries = e->c_device_retries;
    for (unsigned i = 0; i < e->n_dev; i++) {
        const cz_engine_device *d = &e->devs[i];
        double busy = (double)atomic_load(&d->busy_ns) / 1e6;
        st->device_busy_ms += busy;
        st->devices_quarantined += d->quarantined;
        if (i >= CZ_ENGINE_STATUS_DEVICES)
            continue;
        st->device[i].index = d->index;
        snprintf(st->device[i].name, sizeof st->device[i].name, "%s", d->name);
        st->device[i].busy_ms = busy;
        st->device[i].busy_fraction = st->uptime_ms ? busy / (double)st->uptime_ms : 0.0;
        if (st->device[i].busy_fraction > 1.0)
            st->device[i].busy_fraction = 1.0; /* uptime is truncated to whole ms */
        st->device[i].partitions = d->partitions;
        st->device[i].failures = d->failures;
        st->device[i].consecutive_failures = d->consec_failures;
        st->device[i].quarantined = d->quarantined;
        st->device[i].memory_used = d->mem_used;
        st->device[i].memory_total = d->mem_total;
        snprintf(st->device[i].last_error, sizeof st->device[i].last_error, "%s", d->last_err);
    }
}

void cz_engine_get_status(cz_engine *e, cz_engine_status *st)
{
    pthread_mutex_lock(&e->mu);
    cz_status_fill_locked(e, st);
    pthread_mutex_unlock(&e->mu);
}

/* snprintf-style appender: keeps counting past the end of the buffer. */
typedef struct {
    char *buf;
    size_t cap, len;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *dst = b->len < b->cap ? b->buf + b->len : NULL;
    size_t room = b->len < b->cap ? b->cap - b->len : 0;
    int n = vsnprintf(dst, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        b->len += (size_t)n;
}

/* A JSON string's contents: quote, backslash and control characters
 * escaped (device names and errors come from drivers). */
static void sb_json_str(sbuf *b, const char *v)
{
    for (const unsigned char *p = (const unsigned char *)v; *p; p++) {
        if (*p == '"' || *p == '\\')
            sb_printf(b, "\\%c", *p);
        else if (*p < 0x20)
            sb_printf(b, "\\u%04x", *p);
        else
            sb_printf(b, "%c", *p);
    }
}

/* A Prometheus label value: backslash, double quote and newline escaped
 * (the text format's rules); circuit ids come from clients. */
static void sb_label(sbuf *b, const char *v)
{
    for (const char *p = v; *p; p++) {
        if (*p == '\\' || *p == '"')
            sb_printf(b, "\\%c", *p);
        else if (*p == '\n')
            sb_printf(b, "\\n");
        else
            sb_printf(b, "%c", *p);
    }
}

size_t cz_engine_status_json(const cz_engine_status *st, char *buf, size_t cap)
{
    sbuf b = {buf, cap, 0};
    if (cap)
        buf[0] = 0;
#define U(k) sb_printf(&b, "%s\"" #k "\":%" PRIu64, first ? "" : ",", (uint64_t)st->k), first = false
    bool first = true;
    sb_printf(&b, "{");
    U(uptime_ms);
    sb_printf(&b, ",\"paused\":%s,\"shutting_down\":%s", st->paused ? "true" : "false",
              st->shutting_down ? "true" : "false");
    U(jobs_submitted); U(jobs_refused); U(jobs_completed); U(jobs_failed); U(jobs_cancelled);
    U(jobs_queued); U(jobs_running); U(jobs_retained);
    U(partitions_queued); U(partitions_synthesizing); U(channel_depth); U(channel_capacity);
    U(channel_peak); U(awaiting_send); U(awaiting_send_peak); U(proving); U(finalize_queued);
    U(finalizing); U(partitions_inflight); U(partitions_inflight_peak);
    U(synthesized_waiting_peak); U(partitions_completed); U(partitions_dropped);
    U(budget_total); U(budget_used); U(budget_peak); U(params_resident_bytes);
    U(params_resident); U(params_loads); U(params_evictions);
    U(params_loading); U(params_known); U(shared_bytes); U(payload_bytes);
    U(partition_workers); U(prover_workers); U(finalizers); U(devices);
    sb_printf(&b, ",\"device_busy_ms\":%.3f", st->device_busy_ms);
    U(devices_quarantined); U(device_retries);
    sb_printf(&b, ",\"device\":[");
    for (unsigned i = 0; i < st->devices && i < CZ_ENGINE_STATUS_DEVICES; i++) {
        const cz_engine_device_status *d = &st->device[i];
        sb_printf(&b, "%s{\"index\":%u,\"name\":\"", i ? "," : "", d->index);
        sb_json_str(&b, d->name);
        sb_printf(&b,
                  "\",\"busy_ms\":%.3f,\"busy_fraction\":%.4f,\"partitions\":%" PRIu64
                  ",\"failures\":%" PRIu64 ",\"consecutive_failures\":%" PRIu64
                  ",\"quarantined\":%s,\"memory_used\":%" PRIu64 ",\"memory_total\":%" PRIu64
                  ",\"last_error\":\"",
                  d->busy_ms, d->busy_fraction, d->partitions, d->failures, d->consecutive_failures,
                  d->quarantined ? "true" : "false", d->memory_used, d->memory_total);
        sb_json_str(&b, d->last_error);
        sb_printf(&b, "\"}");
    }
    sb_printf(&b, "]}");
#undef U
    return b.len;
}

void cz_obs_job_end_locked(cz_engine *e, const cz_job *j)
{
    (void)e;
    cz_pentry *pe = j->pe;
    if (!pe)
        return;
    int k = j->state == CZ_JOB_DONE ? 0 : j->state == CZ_JOB_FAILED ? 1 : 2;
    pe->jobs_ended[k]++;
    cz_hist_observe(&pe->job_hist, (double)(j->t_end - j->t_submit) / 1e9);
}

/* One circuit's share of the metrics, copied out of the engine lock. */
typedef struct {
    char circuit[128];
    uint64_t ended[3];
    cz_hist hist;
    uint32_t queued, running;
    bool active; /* has had jobs (ended or unfinished) */
} circ_snap;

static int circ_cmp(const void *a, const void *b)
{
    return strcmp(((const circ_snap *)a)->circuit, ((const circ_snap *)b)->circuit);
}

size_t cz_engine_metrics_prometheus(cz_engine *e, char *buf, size_t cap)
{
    cz_engine_status st;
    cz_hist h[H_COUNT];
    circ_snap *cs = NULL;
    size_t ncs = 0;
    pthread_mutex_lock(&e->mu);
    cz_status_fill_locked(e, &st);
    memcpy(h, e->hist, sizeof h);
    size_t npe = 0;
    for (const cz_pentry *p = e->pentries; p; p = p->next)
        npe++;
    cs = npe ? calloc(npe, sizeof *cs) : NULL; /* NULL: the per-circuit part is left out */
    if (cs) {
        for (const cz_pentry *p = e->pentries; p && ncs < npe; p = p->next, ncs++) {
            snprintf(cs[ncs].circuit, sizeof cs[ncs].circuit, "%s", p->circuit);
            memcpy(cs[ncs].ended, p->jobs_ended, sizeof cs[ncs].ended);
            cs[ncs].hist = p->job_hist;
            cs[ncs].active = p->jobs_ended[0] + p->jobs_ended[1] + p->jobs_ended[2] > 0;
        }
    }
    pthread_mutex_unlock(&e->mu);
    if (cs) {
        /* unfinished jobs per circuit (its own lock; a job that ends in
         * between is counted in neither or both: a scrape is a snapshot) */
        cz_engine_circuit_load *ld = calloc(ncs + 1, sizeof *ld);
        size_t nl = ld ? cz_engine_circuit_loads(e, ld, ncs + 1) : 0;
        for (size_t i = 0; i < nl; i++)
            for (size_t k = 0; k < ncs; k++)
                if (!strcmp(cs[k].circuit, ld[i].circuit_id)) {
                    cs[k].queued = ld[i].queued;
                    cs[k].running = ld[i].running;
                    cs[k].active = true;
                }
        free(ld);
        qsort(cs, ncs, sizeof *cs, circ_cmp);
    }

    sbuf b = {buf, cap, 0};
    if (cap)
        buf[0] = 0;
#define G(name, help, val)                                                                   \
    sb_printf(&b, "# HELP cuzk_" name " " help "\n# TYPE cuzk_" name " gauge\ncuzk_" name    \
                  " %" PRIu64 "\n", (uint64_t)(val))
#define C(name, help, val)                                                                   \
    sb_printf(&b, "# HELP cuzk_" name " " help "\n# TYPE cuzk_" name " counter\ncuzk_" name  \
                  " %" PRIu64 "\n", (uint64_t)(val))
    C("jobs_submitted_total", "Jobs accepted.", st.jobs_submitted);
    C("jobs_refused_total", "Submissions refused.", st.jobs_refused);
    C("jobs_completed_total", "Jobs finished with a proof.", st.jobs_completed);
    C("jobs_failed_total", "Jobs failed.", st.jobs_failed);
    C("jobs_cancelled_total", "Jobs cancelled.", st.jobs_cancelled);
    G("jobs_queued", "Jobs waiting for their first partition.", st.jobs_queued);
    G("jobs_running", "Jobs with partitions in flight.", st.jobs_running);
    G("jobs_retained", "Finished jobs whose results are retained.", st.jobs_retained);
    G("partitions_queued", "Partitions waiting for a reservation.", st.partitions_queued);
    G("partitions_synthesizing", "Partitions in synthesis.", st.partitions_synthesizing);
    G("channel_depth", "Synthesized partitions in the prover channel.", st.channel_depth);
    G("channel_capacity", "Capacity of the prover channel.", st.channel_capacity);
    G("awaiting_send", "Synthesized partitions waiting for channel space.", st.awaiting_send);
    G("partitions_proving", "Partitions in prove_start.", st.proving);
    G("finalize_queued", "Partitions waiting for prove_finish.", st.finalize_queued);
    G("partitions_finalizing", "Partitions in prove_finish.", st.finalizing);
    G("partitions_inflight", "Partitions holding a memory reservation.", st.partitions_inflight);
    G("partitions_inflight_peak", "Peak partitions holding a reservation.",
      st.partitions_inflight_peak);
    C("partitions_completed_total", "Partitions proved.", st.partitions_completed);
    C("partitions_dropped_total", "Partitions dropped (failed or job ended).",
      st.partitions_dropped);
    G("budget_bytes", "Memory budget.", st.budget_total);
    G("budget_used_bytes", "Memory budget in use.", st.budget_used);
    G("budget_peak_bytes", "Peak memory budget use.", st.budget_peak);
    G("params_resident_bytes", "Bytes of resident parameters.", st.params_resident_bytes);
    G("params_resident", "Resident parameter sets.", st.params_resident);
    C("params_loads_total", "Parameter loads.", st.params_loads);
    C("params_evictions_total", "Parameter evictions.", st.params_evictions);
    G("params_loading", "Parameter loads and unloads queued or running.", st.params_loading);
    G("params_known", "Parameter entries (accepted circuit ids).", st.params_known);
    G("shared_bytes", "Back-end caches charged to the budget for good.", st.shared_bytes);
    G("payload_bytes", "Payloads of unfinished jobs, charged to the budget.", st.payload_bytes);
    /* Per device only: an unlabelled total in the same family would be
     * counted twice by sum(cuzk_device_busy_seconds_total). */
    sb_printf(&b, "# HELP cuzk_device_busy_seconds_total Device lock hold time, per device.\n"
                  "# TYPE cuzk_device_busy_seconds_total counter\n");
    unsigned nd = st.devices < CZ_ENGINE_STATUS_DEVICES ? st.devices : CZ_ENGINE_STATUS_DEVICES;
    for (unsigned i = 0; i < nd; i++)
        sb_printf(&b, "cuzk_device_busy_seconds_total{device=\"%u\"} %.6f\n", i,
                  st.device[i].busy_ms / 1e3);
    C("device_retries_total", "Partitions retried on another device after a device failure.",
      st.device_retries);
    sb_printf(&b, "# HELP cuzk_device_failures_total Device failures (CZ_ERR_DEVICE), per device.\n"
                  "# TYPE cuzk_device_failures_total counter\n");
    for (unsigned i = 0; i < nd; i++)
        sb_printf(&b, "cuzk_device_failures_total{device=\"%u\"} %" PRIu64 "\n", i,
                  st.device[i].failures);
    sb_printf(&b, "# HELP cuzk_device_quarantined Whether the device is quarantined (1) or in use (0).\n"
                  "# TYPE cuzk_device_quarantined gauge\n");
    for (unsigned i = 0; i < nd; i++)
        sb_printf(&b, "cuzk_device_quarantined{device=\"%u\"} %d\n", i, st.device[i].quarantined ? 1 : 0);
    sb_printf(&b, "# HELP cuzk_device_memory_used_bytes Device memory charged to the device budget.\n"
                  "# TYPE cuzk_device_memory_used_bytes gauge\n");
    for (unsigned i = 0; i < nd; i++)
        sb_printf(&b, "cuzk_device_memory_used_bytes{device=\"%u\"} %" PRIu64 "\n", i,
                  st.device[i].memory_used);
    sb_printf(&b, "# HELP cuzk_device_memory_budget_bytes Device memory budget (0 = no accounting).\n"
                  "# TYPE cuzk_device_memory_budget_bytes gauge\n");
    for (unsigned i = 0; i < nd; i++)
        sb_printf(&b, "cuzk_device_memory_budget_bytes{device=\"%u\"} %" PRIu64 "\n", i,
                  st.device[i].memory_total);
#undef G
#undef C
    sb_printf(&b, "# HELP cuzk_stage_duration_seconds Per-partition stage durations (job: "
                  "submit to end).\n# TYPE cuzk_stage_duration_seconds histogram\n");
    for (int k = 0; k < H_COUNT; k++) {
        uint64_t cum = 0;
        for (int i = 0; i < CZ_HIST_NB; i++) {
            cum += h[k].bucket[i];
            sb_printf(&b, "cuzk_stage_duration_seconds_bucket{stage=\"%s\",le=\"%g\"} %" PRIu64 "\n",
                      cz_hist_names[k], cz_hist_bounds[i], cum);
        }
        cum += h[k].bucket[CZ_HIST_NB];
        sb_printf(&b, "cuzk_stage_duration_seconds_bucket{stage=\"%s\",le=\"+Inf\"} %" PRIu64 "\n",
                  cz_hist_names[k], cum);
        sb_printf(&b, "cuzk_stage_duration_seconds_sum{stage=\"%s\"} %.6f\n", cz_hist_names[k],
                  h[k].sum);
        sb_printf(&b, "cuzk_stage_duration_seconds_count{stage=\"%s\"} %" PRIu64 "\n",
                  cz_hist_names[k], h[k].count);
    }
    /* Per circuit (only circuits that have had jobs: a preload alone adds
     * no series). The unlabelled totals above stay for existing dashboards;
     * these are the same counts split by circuit id. */
    static const char *const state_names[3] = {"done", "failed", "cancelled"};
    sb_printf(&b, "# HELP cuzk_jobs_ended_total Jobs ended, by circuit and final state.\n"
                  "# TYPE cuzk_jobs_ended_total counter\n");
    for (size_t i = 0; i < ncs; i++) {
        if (!cs[i].active)
            continue;
        for (int k = 0; k < 3; k++) {
            sb_printf(&b, "cuzk_jobs_ended_total{circuit=\"");
            sb_label(&b, cs[i].circuit);
            sb_printf(&b, "\",state=\"%s\"} %" PRIu64 "\n", state_names[k], cs[i].ended[k]);
        }
    }
    sb_printf(&b, "# HELP cuzk_circuit_jobs_queued Jobs of a circuit waiting for their first partition.\n"
                  "# TYPE cuzk_circuit_jobs_queued gauge\n");
    for (size_t i = 0; i < ncs; i++) {
        if (!cs[i].active)
            continue;
        sb_printf(&b, "cuzk_circuit_jobs_queued{circuit=\"");
        sb_label(&b, cs[i].circuit);
        sb_printf(&b, "\"} %u\n", cs[i].queued);
    }
    sb_printf(&b, "# HELP cuzk_circuit_jobs_running Jobs of a circuit with partitions in flight.\n"
                  "# TYPE cuzk_circuit_jobs_running gauge\n");
    for (size_t i = 0; i < ncs; i++) {
        if (!cs[i].active)
            continue;
        sb_printf(&b, "cuzk_circuit_jobs_running{circuit=\"");
        sb_label(&b, cs[i].circuit);
        sb_printf(&b, "\"} %u\n", cs[i].running);
    }
    sb_printf(&b, "# HELP cuzk_job_duration_seconds Job duration from submission to its end, by "
                  "circuit.\n# TYPE cuzk_job_duration_seconds histogram\n");
    for (size_t i = 0; i < ncs; i++) {
        if (!cs[i].active)
            continue;
        const cz_hist *x = &cs[i].hist;
        uint64_t cum = 0;
        for (int k = 0; k <= CZ_HIST_NB; k++) {
            cum += x->bucket[k];
            sb_printf(&b, "cuzk_job_duration_seconds_bucket{circuit=\"");
            sb_label(&b, cs[i].circuit);
            if (k < CZ_HIST_NB)
                sb_printf(&b, "\",le=\"%g\"} %" PRIu64 "\n", cz_hist_bounds[k], cum);
            else
                sb_printf(&b, "\",le=\"+Inf\"} %" PRIu64 "\n", cum);
        }
        sb_printf(&b, "cuzk_job_duration_seconds_sum{circuit=\"");
        sb_label(&b, cs[i].circuit);
        sb_printf(&b, "\"} %.6f\n", x->sum);
        sb_printf(&b, "cuzk_job_duration_seconds_count{circuit=\"");
        sb_label(&b, cs[i].circuit);
        sb_printf(&b, "\"} %" PRIu64 "\n", x->count);
    }
    free(cs);
    return b.len;
}

static void trace_event(FILE *f, bool *first, const char *name, const char *cat, double start_ms,
                        double end_ms, int tid, cz_job_id job, uint32_t part)
{
    if (start_ms <= 0 || end_ms < start_ms)
        return;
    fprintf(f,
            "%s\n{\"name\":\"%s j%" PRIu64 "p%u\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%.3f,"
            "\"dur\":%.3f,\"pid\":1,\"tid\":%d,\"args\":{\"job\":%" PRIu64 ",\"partition\":%u}}",
            *first ? "" : ",", name, (uint64_t)job, part, cat, start_ms * 1e3,
            (end_ms - start_ms) * 1e3, tid, (uint64_t)job, part);
    *first = false;
}

cz_status cz_engine_write_chrome_trace(cz_engine *e, FILE *f)
{
    if (!e || !f)
        return CZ_ERR_INVALID_ARG;
    pthread_mutex_lock(&e->mu);
    size_t n = e->rec_count;
    unsigned ns = e->n_synth, np = e->n_prover, nf = e->n_fin, nd = e->n_dev;
    pthread_mutex_unlock(&e->mu);
    cz_engine_part_record *r = n ? malloc(n * sizeof *r) : NULL;
    if (n && !r)
        return CZ_ERR_NOMEM;
    if (n) {
        size_t got = cz_engine_get_records(e, r, n); /* the ring may have moved on */
        if (got < n)
            n = got;
    }
    /* tids: synth workers 1000+i, provers 2000+i, finalizers 3000+i,
     * devices 4000+d (the device-lock region of each partition) */
    fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
    bool first = true;
    for (unsigned i = 0; i < ns + np + nf + nd; i++) {
        unsigned b1 = ns, b2 = ns + np, b3 = ns + np + nf;
        int tid = i < b1 ? 1000 + (int)i
                  : i < b2 ? 2000 + (int)(i - b1)
                  : i < b3 ? 3000 + (int)(i - b2)
                           : 4000 + (int)(i - b3);
        const char *kind = i < b1 ? "synth" : i < b2 ? "prover" : i < b3 ? "finalizer" : "device";
        unsigned idx = i < b1 ? i : i < b2 ? i - b1 : i < b3 ? i - b2 : i - b3;
        fprintf(f, "%s\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":%d,"
                   "\"args\":{\"name\":\"%s %u\"}}",
                first ? "" : ",", tid, kind, idx);
        first = false;
    }
    for (size_t i = 0; i < n; i++) {
        const cz_engine_part_record *x = &r[i];
        if (x->synth_worker >= 0)
            trace_event(f, &first, "synth", "synth", x->synth_start_ms, x->synth_end_ms,
                        1000 + x->synth_worker, x->job, x->partition);
        if (x->prover_worker >= 0)
            trace_event(f, &first, "prove", "prove", x->prove_start_ms, x->prove_end_ms,
                        2000 + x->prover_worker, x->job, x->partition);
        if (x->finalizer >= 0)
            trace_event(f, &first, "finish", "finish", x->finish_start_ms, x->finish_end_ms,
                        3000 + x->finalizer, x->job, x->partition);
        if (x->gpu_start_ms > 0)
            trace_event(f, &first, "gpu", "gpu", x->gpu_start_ms, x->gpu_start_ms + x->device_ms,
                        4000 + (int)x->device, x->job, x->partition);
    }
    fprintf(f, "\n]}\n");
    free(r);
    return ferror(f) ? CZ_ERR_IO : CZ_OK;
}
