/*
 * Accounting under load: thousands of tiny jobs (zero delays) submitted
 * from two threads with random priorities, duplicate request ids (same
 * payload: the same job comes back; other payload: refused) and random
 * cancels. Every accepted job ends exactly once with the state its history
 * implies (cancel accepted -> CANCELLED, else DONE with a correct proof),
 * and the counters add up. Then priority order: with one synthesis worker
 * and a paused start, partitions are synthesized in (priority desc, FIFO,
 * partition) order exactly.
 */
#include <pthread.h>
#include <stdatomic.h>
#include "etest.h"

#define PB 8
#define MAXID 20000

typedef struct {
    pthread_mutex_t mu;
    int done_calls[MAXID];
    cz_job_state done_state[MAXID];
    /* expectations recorded by the submitters */
    char payload[MAXID][40];
    bool accepted[MAXID];
    bool cancel_ok[MAXID];
    bool cancel_busy[MAXID];
    bool cancelling[MAXID];   /* a cancel was started (it may not have returned yet) */
    cz_job_state busy_state[MAXID];
    cz_job_id hot_id[64];
    char hot_payload[64][40]; /* payload of the job owning hot-<k> */
    cz_engine *e;
    uint64_t seed;
    int njobs_per_thread;
    int dup_same, dup_refused, cancels_ok;
    atomic_int failures; /* cmocka asserts must not run on other threads */
} acct;

#define TCHECK(c)                                                                      \
    do {                                                                               \
        if (!(c)) {                                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);       \
            atomic_fetch_add(&a->failures, 1);                                         \
        }                                                                              \
    } while (0)

static void on_done(void *arg, cz_job_id id, cz_job_state s)
{
    acct *a = arg;
    pthread_mutex_lock(&a->mu);
    if (id < MAXID) {
        a->done_calls[id]++;
        a->done_state[id] = s;
    }
    pthread_mutex_unlock(&a->mu);
}

static uint64_t xs(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

typedef struct {
    acct *a;
    int t;
} targ;

static void *submitter(void *arg)
{
    targ *ta = arg;
    acct *a = ta->a;
    uint64_t rng = a->seed * 2654435761u + (uint64_t)ta->t * 7919 + 1;
    cz_job_id mine[MAXID / 2];
    int nmine = 0;
    for (int i = 0; i < a->njobs_per_thread; i++) {
        uint64_t r = xs(&rng);
        cz_priority prio = (cz_priority)(r % 4);
        char payload[40], rid[32];
        const char *ridp = NULL;
        int kind = (int)((r >> 8) % 100);
        int hot = -1;
        if (kind < 15) { /* a hot request id shared by both threads */
            hot = (int)((r >> 16) % 64);
            snprintf(rid, sizeof rid, "hot-%d", hot);
            snprintf(payload, sizeof payload, "hot payload %d", hot);
            ridp = rid;
        } else if (kind < 20) { /* hot id, wrong payload: must be refused if live */
            hot = (int)((r >> 16) % 64);
            snprintf(rid, sizeof rid, "hot-%d", hot);
            snprintf(payload, sizeof payload, "other payload %d/%d", ta->t, i);
            ridp = rid;
        } else {
            snprintf(payload, sizeof payload, "t%d job %d", ta->t, i);
            if (kind < 60) {
                snprintf(rid, sizeof rid, "t%d-%d", ta->t, i);
                ridp = rid;
            }
        }
        cz_job_request rq = {.circuit_id = "tiny",
                             .payload = payload,
                             .payload_len = strlen(payload),
                             .num_partitions = 1 + (uint32_t)((r >> 24) % 3),
                             .priority = prio,
                             .request_id = ridp};
        if (hot >= 0)
            rq.num_partitions = 2; /* the idempotency key includes the partition count */
        cz_job_id id = 0;
        bool existing = false;
        char msg[512];
        /* hold the test lock so the hot-id bookkeeping matches the engine's order */
        pthread_mutex_lock(&a->mu);
        cz_status st = cz_engine_submit(a->e, &rq, &id, &existing, msg, sizeof msg);
        if (kind < 20 && a->hot_id[hot] && a->cancelling[a->hot_id[hot]]) {
            /* The owner may be cancelled already: a CANCELLED job gives its
             * request id up, so either the old job answers (cancel not yet
             * effective, or it lost to DONE) or a new job owns the id. */
            cz_job_id old = a->hot_id[hot];
            bool same = !strcmp(a->hot_payload[hot], payload);
            if (st == CZ_OK && existing) {
                TCHECK(same && id == old);
                a->dup_same++;
            } else if (st == CZ_OK) {
                a->hot_id[hot] = id;
                snprintf(a->hot_payload[hot], sizeof a->hot_payload[hot], "%s", payload);
            } else {
                TCHECK(st == CZ_ERR_BUSY && !same);
                a->dup_refused++;
            }
        } else if (kind < 20) {
            if (a->hot_id[hot] && !strcmp(a->hot_payload[hot], payload)) {
                TCHECK(st == CZ_OK);
                TCHECK(existing);
                TCHECK(id == a->hot_id[hot]);
                a->dup_same++;
            } else if (a->hot_id[hot]) {
                TCHECK(st == CZ_ERR_BUSY);
                TCHECK(strstr(msg, rid) != NULL);
                a->dup_refused++;
            } else {
                TCHECK(st == CZ_OK); /* the id was free: this payload owns it now */
                TCHECK(!existing);
                a->hot_id[hot] = id;
                snprintf(a->hot_payload[hot], sizeof a->hot_payload[hot], "%s", payload);
            }
        } else {
            TCHECK(st == CZ_OK);
            TCHECK(!existing);
        }
        if (st == CZ_OK && !existing) {
            TCHECK(id < MAXID);
            a->accepted[id] = true;
            snprintf(a->payload[id], sizeof a->payload[id], "%s", payload);
            mine[nmine++] = id;
        }
        pthread_mutex_unlock(&a->mu);

        if ((r >> 40) % 100 < 10 && nmine) { /* cancel one of ours at random */
            cz_job_id v = mine[(r >> 48) % (uint64_t)nmine];
            cz_job_state s;
            pthread_mutex_lock(&a->mu);
            bool had = a->cancel_ok[v] || a->cancel_busy[v];
            if (had || a->cancelling[v]) {
                pthread_mutex_unlock(&a->mu);
                continue;
            }
            a->cancelling[v] = true;
            pthread_mutex_unlock(&a->mu);
            cz_status cs = cz_engine_cancel(a->e, v, &s);
            pthread_mutex_lock(&a->mu);
            if (cs == CZ_OK) {
                TCHECK((s) == (CZ_JOB_CANCELLED));
                a->cancel_ok[v] = true;
                a->cancels_ok++;
            } else {
                TCHECK((cs) == (CZ_ERR_BUSY));
                TCHECK((s) == (CZ_JOB_DONE)); /* nothing else ends these jobs */
                a->cancel_busy[v] = true;
                a->busy_state[v] = s;
            }
            pthread_mutex_unlock(&a->mu);
        }
    }
    return NULL;
}

static void test_thousands_of_jobs(void **state)
{
    (void)state;
    static acct a; /* large: keep it off the stack */
    memset(&a, 0, sizeof a);
    pthread_mutex_init(&a.mu, NULL);
    a.seed = cz_test_seed();
    a.njobs_per_thread = ET_SCALE(2500, 400);
    fake_backend f;
    fake_init(&f);
    /* sizes in 64 KiB units: the queued payloads (thousands of ~30-byte
     * ones, charged to the budget) must stay small beside them */
    const uint64_t u = 1u << 16;
    fake_add_circuit(&f, "tiny", 64 * u, 16 * u, 16 * u, PB);
    cz_engine_config c;
    et_config(&c, &f);
    c.partition_workers = 2;
    c.workers_per_device = 2;
    c.finalizers = 2;
    c.memory_budget = (64 + 5 * 32) * u;
    c.on_job_done = on_done;
    c.on_job_done_arg = &a;
    a.e = et_create(&c);

    pthread_t th[2];
    targ ta[2] = {{&a, 0}, {&a, 1}};
    for (int t = 0; t < 2; t++)
        assert_int_equal(pthread_create(&th[t], NULL, submitter, &ta[t]), 0);
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    assert_int_equal(atomic_load(&a.failures), 0);
    assert_int_equal(cz_engine_wait_idle(a.e, 60000), CZ_OK);

    int accepted = 0, done = 0, cancelled = 0;
    for (cz_job_id id = 1; id < MAXID; id++) {
        if (!a.accepted[id])
            continue;
        accepted++;
        assert_int_equal(a.done_calls[id], 1); /* exactly once */
        cz_job_state s = et_await_check(a.e, id, a.payload[id], PB);
        assert_int_equal(s, a.done_state[id]);
        if (a.cancel_ok[id])
            assert_int_equal(s, CZ_JOB_CANCELLED);
        else
            assert_int_equal(s, CZ_JOB_DONE);
        done += s == CZ_JOB_DONE;
        cancelled += s == CZ_JOB_CANCELLED;
    }
    for (cz_job_id id = 1; id < MAXID; id++)
        if (!a.accepted[id])
            assert_int_equal(a.done_calls[id], 0);
    cz_engine_status st;
    cz_engine_get_status(a.e, &st);
    fprintf(stderr, "accepted %d: done %d, cancelled %d; duplicate ids answered %d, refused %d\n",
            accepted, done, cancelled, a.dup_same, a.dup_refused);
    assert_int_equal(st.jobs_submitted, (uint64_t)accepted);
    assert_int_equal(st.jobs_completed, (uint64_t)done);
    assert_int_equal(st.jobs_cancelled, (uint64_t)cancelled);
    assert_int_equal(st.jobs_failed, 0);
    assert_int_equal(st.jobs_refused, (uint64_t)a.dup_refused);
    assert_true(a.dup_same > 0 && a.dup_refused > 0 && cancelled > 0);
    et_check_idle(a.e, &f);
    cz_engine_destroy(a.e);
    assert_int_equal(f.bytes_alive, 0);
    assert_int_equal(f.prepared_alive, 0);
    pthread_mutex_destroy(&a.mu);
    fake_destroy(&f);
}

typedef struct {
    cz_job_id id;
    cz_priority prio;
    uint32_t parts;
} pjob;

static int pjob_cmp(const void *x, const void *y)
{
    const pjob *a = x, *b = y;
    if (a->prio != b->prio)
        return a->prio > b->prio ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

static void test_priority_order(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "c", 64, 16, 16, PB);
    cz_engine_config c;
    et_config(&c, &f);
    c.partition_workers = 1;
    c.start_paused = true;
    cz_engine *e = et_create(&c);
    cz_rng_seed(cz_test_seed());
    enum { N = 300 };
    pjob jobs[N];
    size_t total = 0;
    for (int i = 0; i < N; i++) {
        jobs[i].prio = (cz_priority)(cz_rng_u64() % 4);
        jobs[i].parts = 1 + (uint32_t)(cz_rng_u64() % 3);
        jobs[i].id = et_submit(e, "c", "p", jobs[i].parts, jobs[i].prio, NULL);
        total += jobs[i].parts;
    }
    cz_engine_resume(e);
    assert_int_equal(cz_engine_wait_idle(e, 30000), CZ_OK);
    qsort(jobs, N, sizeof jobs[0], pjob_cmp);
    assert_int_equal(f.order_n, total);
    size_t k = 0;
    for (int i = 0; i < N; i++)
        for (uint32_t p = 0; p < jobs[i].parts; p++, k++)
            assert_int_equal(f.order[k], jobs[i].id << 20 | p);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

/* A later, more urgent job overtakes the queued partitions of a running one. */
static void test_priority_preempts_queued_partitions(void **state)
{
    (void)state;
    fake_backend f;
    fake_init(&f);
    fake_add_circuit(&f, "c", 64, 16, 16, PB);
    f.synth_ms = 5;
    cz_engine_config c;
    et_config(&c, &f);
    c.partition_workers = 1;
    cz_engine *e = et_create(&c);
    cz_job_id low = et_submit(e, "c", "low", 40, CZ_PRIO_LOW, NULL);
    fake_sleep_ms(12);
    cz_job_id crit = et_submit(e, "c", "crit", 2, CZ_PRIO_CRITICAL, NULL);
    assert_int_equal(et_await_check(e, crit, "crit", PB), CZ_JOB_DONE);
    cz_job_result r;
    assert_int_equal(cz_engine_job_info(e, low, &r), CZ_OK);
    assert_true(r.partitions_done < 40); /* critical did not wait for all of low */
    assert_int_equal(et_await_check(e, low, "low", PB), CZ_JOB_DONE);
    cz_engine_destroy(e);
    fake_destroy(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thousands_of_jobs),
        cmocka_unit_test(test_priority_order),
        cmocka_unit_test(test_priority_preempts_queued_partitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
