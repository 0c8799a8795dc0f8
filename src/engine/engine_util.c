/*
 * Engine helpers: an indexed binary heap (so a cancelled job's entries can
 * be removed from the middle of a queue in O(log n)), a payload digest, the
 * monotonic clock and small string/enum helpers.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include "engine/engine_internal.h"

uint64_t cz_engine_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void cz_heap_init(cz_heap *h, int (*cmp)(const void *, const void *), size_t *(*idx)(void *))
{
    h->v = NULL;
    h->n = h->cap = 0;
    h->cmp = cmp;
    h->idx = idx;
}

void cz_heap_free(cz_heap *h)
{
    free(h->v);
    h->v = NULL;
    h->n = h->cap = 0;
}

cz_status cz_heap_reserve(cz_heap *h, size_t cap)
{
    if (cap <= h->cap)
        return CZ_OK;
    void **nv = realloc(h->v, cap * sizeof *nv);
    if (!nv)
        return CZ_ERR_NOMEM;
    h->v = nv;
    h->cap = cap;
    return CZ_OK;
}

static void heap_set(cz_heap *h, size_t i, void *item)
{
    h->v[i] = item;
    *h->idx(item) = i;
}

static void heap_up(cz_heap *h, size_t i)
{
    void *x = h->v[i];
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (h->cmp(x, h->v[p]) >= 0)
            break;
        heap_set(h, i, h->v[p]);
        i = p;
    }
    heap_set(h, i, x);
}

static void heap_down(cz_heap *h, size_t i)
{
    void *x = h->v[i];
    for (;;) {
        size_t l = 2 * i + 1, best = i;
        void *bv = x;
        if (l < h->n && h->cmp(h->v[l], bv) < 0) {
            best = l;
            bv = h->v[l];
        }
        if (l + 1 < h->n && h->cmp(h->v[l + 1], bv) < 0) {
            best = l + 1;
            bv = h->v[l + 1];
        }
        if (best == i)
            break;
        heap_set(h, i, bv);
        i = best;
    }
    heap_set(h, i, x);
}

cz_status cz_heap_push(cz_heap *h, void *item)
{
    if (h->n == h->cap) {
        cz_status st = cz_heap_reserve(h, h->cap ? 2 * h->cap : 16);
        if (st != CZ_OK)
            return st;
    }
    h->v[h->n] = item;
    *h->idx(item) = h->n;
    h->n++;
    heap_up(h, h->n - 1);
    return CZ_OK;
}

void *cz_heap_top(const cz_heap *h)
{
    return h->n ? h->v[0] : NULL;
}

void cz_heap_remove(cz_heap *h, void *item)
{
    size_t i = *h->idx(item);
    h->n--;
    if (i != h->n) {
        void *x = h->v[h->n];
        heap_set(h, i, x);
        heap_down(h, i);
        heap_up(h, *h->idx(x));
    }
    *h->idx(item) = (size_t)-1;
}

void *cz_heap_pop(cz_heap *h)
{
    if (!h->n)
        return NULL;
    void *x = h->v[0];
    cz_heap_remove(h, x);
    return x;
}

/* Two independent 64-bit multiply-xorshift lanes over 8-byte words. */
void cz_engine_digest(const void *p, size_t n, uint64_t out[2])
{
    const uint8_t *b = p;
    uint64_t h1 = 0x9e3779b97f4a7c15ull ^ n, h2 = 0xc2b2ae3d27d4eb4full + n;
    size_t i = 0;
    while (i < n) {
        uint64_t w = 0;
        size_t k = n - i < 8 ? n - i : 8;
        memcpy(&w, b + i, k);
        i += k;
        h1 = (h1 ^ w) * 0xff51afd7ed558ccdull;
        h1 ^= h1 >> 32;
        h2 = (h2 + w) * 0xc4ceb9fe1a85ec53ull;
        h2 ^= h2 >> 29;
        h2 += h1 << 7 | h1 >> 57;
    }
    h1 ^= h1 >> 33;
    h1 *= 0xff51afd7ed558ccdull;
    h1 ^= h1 >> 33;
    h2 ^= h2 >> 31;
    h2 *= 0x94d049bb133111ebull;
    h2 ^= h2 >> 31;
    out[0] = h1;
    out[1] = h2;
}

const char *cz_job_state_str(cz_job_state s)
{
    switch (s) {
    case CZ_JOB_QUEUED: return "queued";
    case CZ_JOB_RUNNING: return "running";
    case CZ_JOB_DONE: return "done";
    case CZ_JOB_FAILED: return "failed";
    case CZ_JOB_CANCELLED: return "cancelled";
    }
    return "unknown";
}

static const char *const prio_names[] = {"low", "normal", "high", "critical"};

const char *cz_priority_str(cz_priority p)
{
    return (unsigned)p < 4 ? prio_names[p] : "unknown";
}

cz_status cz_priority_parse(const char *s, cz_priority *out)
{
    if (!s || !out)
        return CZ_ERR_INVALID_ARG;
    for (unsigned i = 0; i < 4; i++)
        if (!strcasecmp(s, prio_names[i])) {
            *out = (cz_priority)i;
            return CZ_OK;
        }
    return CZ_ERR_INVALID_ARG;
}

void cz_engine_timings_add(cz_engine_timings *t, const char *name, double ms)
{
    if (!t || t->n >= CZ_ENGINE_MAX_PHASES)
        return;
    size_t l = strlen(name);
    if (l > sizeof t->phase[0].name - 1)
        l = sizeof t->phase[0].name - 1;
    memcpy(t->phase[t->n].name, name, l);
    t->phase[t->n].name[l] = 0;
    t->phase[t->n].ms = ms;
    t->n++;
}

bool cz_engine_cancel_requested(const cz_engine_cancel_token *c)
{
    return c && atomic_load_explicit(&((cz_engine_cancel_token *)c)->flag, memory_order_relaxed) != 0;
}

/* Time the caller's thread held a device lock, accumulated per thread so a
 * prover worker can attribute device time to the partition it is proving. */
_Thread_local uint64_t cz_tl_device_ns;

unsigned cz_engine_device_index(const cz_engine_device *d)
{
    return d->index;
}

void cz_engine_device_lock(cz_engine_device *d)
{
    pthread_mutex_lock(&d->mu);
    d->locked_at_ns = cz_engine_now_ns();
    cz_obs_device_locked(d); /* the partition's GPU_START line (engine_obs.c) */
}

void cz_engine_device_unlock(cz_engine_device *d)
{
    uint64_t held = cz_engine_now_ns() - d->locked_at_ns;
    pthread_mutex_unlock(&d->mu);
    atomic_fetch_add(&d->busy_ns, held);
    cz_tl_device_ns += held;
}
