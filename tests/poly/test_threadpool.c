/*
 * Thread pool: every index runs exactly once (many n, grains, pool sizes,
 * NULL pool), chunks respect the grain, nested calls, background tasks
 * (many, waited in and out of order, waited from inside workers), destroy
 * with tasks still pending. Run under TSan (label threads).
 */
#include "testutil.h"
#include "cuzk/threadpool.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const unsigned pool_sizes[] = {1, 2, 8};

typedef struct {
    atomic_uint *hits;
    size_t begin, end, grain;
    atomic_size_t calls;
    atomic_size_t small_chunks; /* chunks shorter than grain */
} range_ctx;

static void count_index(void *arg, size_t i)
{
    range_ctx *c = arg;
    atomic_fetch_add_explicit(&c->hits[i], 1, memory_order_relaxed);
}

static void count_range(void *arg, size_t lo, size_t hi)
{
    range_ctx *c = arg;
    assert_true(lo < hi);
    assert_true(lo >= c->begin && hi <= c->end);
    if (hi - lo < c->grain) atomic_fetch_add_explicit(&c->small_chunks, 1, memory_order_relaxed);
    atomic_fetch_add_explicit(&c->calls, 1, memory_order_relaxed);
    for (size_t i = lo; i < hi; i++) atomic_fetch_add_explicit(&c->hits[i], 1, memory_order_relaxed);
}

static void check_pool(cz_pool *p)
{
    static const size_t ns[] = {0, 1, 2, 3, 7, 16, 17, 100, 1000, 4097, 100000};
    static const size_t grains[] = {0, 1, 3, 64, 1000, 200000};
    size_t maxn = 100000 + 64;
    atomic_uint *hits = malloc(maxn * sizeof *hits);
    assert_non_null(hits);
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
        size_t n = ns[a];
        maxn = n + 64; /* indices past the end must stay untouched */
        /* parallel_for */
        for (size_t i = 0; i < maxn; i++) atomic_init(&hits[i], 0);
        range_ctx c = {.hits = hits, .begin = 0, .end = n};
        cz_pool_parallel_for(p, n, count_index, &c);
        for (size_t i = 0; i < maxn; i++) assert_int_equal(atomic_load(&hits[i]), i < n ? 1 : 0);
        /* parallel_range with an offset */
        for (size_t g = 0; g < sizeof grains / sizeof grains[0]; g++) {
            size_t begin = 13;
            for (size_t i = 0; i < maxn; i++) atomic_init(&hits[i], 0);
            range_ctx r = {.hits = hits, .begin = begin, .end = begin + n, .grain = grains[g]};
            atomic_init(&r.calls, 0);
            atomic_init(&r.small_chunks, 0);
            cz_pool_parallel_range(p, begin, begin + n, grains[g], count_range, &r);
            for (size_t i = 0; i < maxn; i++)
                assert_int_equal(atomic_load(&hits[i]), (i >= begin && i < begin + n) ? 1 : 0);
            /* only a range shorter than the grain may come as a short chunk */
            if (n >= grains[g]) assert_int_equal(atomic_load(&r.small_chunks), 0);
            if (n == 0) assert_int_equal(atomic_load(&r.calls), 0);
        }
    }
    free(hits);
}

static void exactly_once(void **state)
{
    (void)state;
    check_pool(NULL);
    assert_int_equal(cz_pool_size(NULL), 1);
    for (size_t k = 0; k < sizeof pool_sizes / sizeof pool_sizes[0]; k++) {
        cz_pool *p;
        assert_int_equal(cz_pool_create(&p, pool_sizes[k], "t-once"), CZ_OK);
        assert_int_equal(cz_pool_size(p), pool_sizes[k]);
        check_pool(p);
        cz_pool_destroy(p);
    }
}

/* ---- nested parallel_for ------------------------------------------------ */
enum { OUTER = 37, INNER = 101 };

typedef struct {
    cz_pool *p;
    atomic_uint hits[OUTER][INNER];
} nest_ctx;

typedef struct {
    nest_ctx *c;
    size_t i;
} inner_ctx;

static void inner_fn(void *arg, size_t j)
{
    inner_ctx *ic = arg;
    atomic_fetch_add_explicit(&ic->c->hits[ic->i][j], 1, memory_order_relaxed);
}

static void inner_range(void *arg, size_t lo, size_t hi)
{
    for (size_t j = lo; j < hi; j++) inner_fn(arg, j);
}

static void outer_fn(void *arg, size_t i)
{
    nest_ctx *c = arg;
    inner_ctx ic = {c, i};
    if (i % 2)
        cz_pool_parallel_for(c->p, INNER, inner_fn, &ic);
    else
        cz_pool_parallel_range(c->p, 0, INNER, 4, inner_range, &ic);
}

static void nested(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof pool_sizes / sizeof pool_sizes[0]; k++) {
        cz_pool *p;
        assert_int_equal(cz_pool_create(&p, pool_sizes[k], "t-nest"), CZ_OK);
        for (int rep = 0; rep < 20; rep++) {
            nest_ctx *c = calloc(1, sizeof *c);
            assert_non_null(c);
            c->p = p;
            cz_pool_parallel_for(p, OUTER, outer_fn, c);
            for (size_t i = 0; i < OUTER; i++)
                for (size_t j = 0; j < INNER; j++) assert_int_equal(atomic_load(&c->hits[i][j]), 1);
            free(c);
        }
        cz_pool_destroy(p);
    }
}

/* ---- background tasks ----------------------------------------------------- */
typedef struct {
    atomic_uint runs;
    unsigned value, result;
    unsigned sleep_us;
} task_arg;

static void sleep_us(unsigned us)
{
    struct timespec ts = {0, (long)us * 1000};
    nanosleep(&ts, NULL);
}

static void task_fn(void *argp)
{
    task_arg *a = argp;
    if (a->sleep_us) sleep_us(a->sleep_us);
    a->result = a->value * 3 + 1; /* plain write: the wait must order it */
    atomic_fetch_add(&a->runs, 1);
}

static void tasks_many(void **state)
{
    (void)state;
    enum { NT = 300 };
    cz_pool *pools[4] = {NULL};
    for (size_t k = 0; k < 3; k++) assert_int_equal(cz_pool_create(&pools[k + 1], pool_sizes[k], "t-task"), CZ_OK);
    for (size_t k = 0; k < 4; k++) {
        cz_pool *p = pools[k];
        task_arg *args = calloc(NT, sizeof *args);
        cz_task **ts = calloc(NT, sizeof *ts);
        assert_non_null(args);
        assert_non_null(ts);
        for (unsigned i = 0; i < NT; i++) {
            args[i].value = i;
            args[i].sleep_us = (i % 50 == 0) ? 200 : 0;
            assert_int_equal(cz_pool_submit(p, task_fn, &args[i], &ts[i]), CZ_OK);
        }
        /* wait in a scrambled order: some still queued (waited inline),
         * some running, some done */
        for (unsigned i = 0; i < NT; i++) {
            unsigned idx = (i * 7919u) % NT;
            cz_task_wait(ts[idx]);
            assert_int_equal(atomic_load(&args[idx].runs), 1);
            assert_int_equal(args[idx].result, idx * 3 + 1);
        }
        for (unsigned i = 0; i < NT; i++) assert_int_equal(atomic_load(&args[i].runs), 1);
        free(args);
        free(ts);
    }
    for (size_t k = 1; k < 4; k++) cz_pool_destroy(pools[k]);
}

/* A parallel_for body that submits a task and waits on it: with every
 * worker inside the loop, the wait must run the task itself. */
typedef struct {
    cz_pool *p;
    task_arg args[64];
} sub_ctx;

static void submit_and_wait(void *argp, size_t i)
{
    sub_ctx *c = argp;
    cz_task *t;
    c->args[i].value = (unsigned)i;
    assert_int_equal(cz_pool_submit(c->p, task_fn, &c->args[i], &t), CZ_OK);
    cz_task_wait(t);
    assert_int_equal(c->args[i].result, i * 3 + 1);
}

static void tasks_from_workers(void **state)
{
    (void)state;
    for (size_t k = 0; k < 3; k++) {
        cz_pool *p;
        assert_int_equal(cz_pool_create(&p, pool_sizes[k], "t-tw"), CZ_OK);
        sub_ctx *c = calloc(1, sizeof *c);
        assert_non_null(c);
        c->p = p;
        cz_pool_parallel_for(p, 64, submit_and_wait, c);
        for (size_t i = 0; i < 64; i++) assert_int_equal(atomic_load(&c->args[i].runs), 1);
        free(c);
        cz_pool_destroy(p);
    }
}

/* A long background task does not block parallel_for on the same pool
 * (the caller participates), even on a 1-worker pool. */
typedef struct {
    atomic_int release;
    atomic_int started;
} gate;

static void gate_task(void *argp)
{
    gate *g = argp;
    atomic_store(&g->started, 1);
    while (!atomic_load(&g->release)) sleep_us(100);
}

static void background_overlap(void **state)
{
    (void)state;
    cz_pool *p;
    assert_int_equal(cz_pool_create(&p, 1, "t-bg"), CZ_OK);
    gate g;
    atomic_init(&g.release, 0);
    atomic_init(&g.started, 0);
    cz_task *t;
    assert_int_equal(cz_pool_submit(p, gate_task, &g, &t), CZ_OK);
    while (!atomic_load(&g.started)) sleep_us(100);
    /* the only worker is busy: this must complete on the caller alone */
    check_pool(p);
    atomic_store(&g.release, 1);
    cz_task_wait(t);
    cz_pool_destroy(p);
}

/* destroy with queued tasks: all of them run before destroy returns, and
 * their handles can still be waited (and freed) afterwards. */
static void destroy_drains(void **state)
{
    (void)state;
    enum { NT = 100 };
    for (size_t k = 0; k < 3; k++) {
        cz_pool *p;
        assert_int_equal(cz_pool_create(&p, pool_sizes[k], "t-drain"), CZ_OK);
        task_arg *args = calloc(NT, sizeof *args);
        cz_task **ts = calloc(NT, sizeof *ts);
        assert_non_null(args);
        assert_non_null(ts);
        for (unsigned i = 0; i < NT; i++) {
            args[i].value = i;
            args[i].sleep_us = 300;
            assert_int_equal(cz_pool_submit(p, task_fn, &args[i], &ts[i]), CZ_OK);
        }
        /* wait a few before destroy, the rest after */
        cz_task_wait(ts[0]);
        cz_task_wait(ts[NT - 1]);
        cz_pool_destroy(p);
        for (unsigned i = 0; i < NT; i++) {
            assert_int_equal(atomic_load(&args[i].runs), 1);
            assert_int_equal(args[i].result, i * 3 + 1);
        }
        for (unsigned i = 1; i < NT - 1; i++) cz_task_wait(ts[i]);
        free(args);
        free(ts);
    }
}

/* Many create/destroy cycles, including with no work at all. */
static void create_destroy(void **state)
{
    (void)state;
    for (int i = 0; i < 30; i++) {
        cz_pool *p;
        assert_int_equal(cz_pool_create(&p, (unsigned)(i % 5) + 1, "t-cd"), CZ_OK);
        if (i % 2) check_pool(p);
        cz_pool_destroy(p);
    }
    cz_pool *p;
    assert_int_equal(cz_pool_create(&p, 0, NULL), CZ_OK); /* one per CPU */
    assert_true(cz_pool_size(p) >= 1);
    cz_pool_destroy(p);
    cz_pool_destroy(NULL);
    assert_int_equal(cz_pool_create(NULL, 1, "x"), CZ_ERR_INVALID_ARG);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exactly_once),     cmocka_unit_test(nested),
        cmocka_unit_test(tasks_many),       cmocka_unit_test(tasks_from_workers),
        cmocka_unit_test(background_overlap), cmocka_unit_test(destroy_drains),
        cmocka_unit_test(create_destroy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
