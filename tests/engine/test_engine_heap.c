/*
 * The engine's indexed priority heap (every queue of the engine is one)
 * against a naive reference: random pushes, removals from the middle (what
 * cancellation does) and pops; each pop must return the reference minimum
 * and every item must always know its own position.
 */
#include "etest.h"
#include "engine/engine_internal.h"

typedef struct {
    uint64_t key;
    size_t idx;
    bool in;
} item;

static int icmp(const void *a, const void *b)
{
    const item *x = a, *y = b;
    return x->key < y->key ? -1 : x->key > y->key;
}

static size_t *iidx(void *a)
{
    return &((item *)a)->idx;
}

static void test_heap_vs_reference(void **state)
{
    (void)state;
    cz_rng_seed(cz_test_seed());
    enum { N = 2000 };
    static item it[N];
    cz_heap h;
    cz_heap_init(&h, icmp, iidx);
    size_t live = 0;
    for (int step = 0; step < 50000; step++) {
        uint64_t r = cz_rng_u64();
        item *x = &it[r % N];
        int op = (int)((r >> 32) % 3);
        if (!x->in && op != 2) {
            x->key = (r >> 40) % 97; /* many equal keys */
            assert_int_equal(cz_heap_push(&h, x), CZ_OK);
            x->in = true;
            live++;
        } else if (x->in && op == 1) {
            cz_heap_remove(&h, x);
            x->in = false;
            live--;
        } else if (op == 2 && live) {
            uint64_t min = UINT64_MAX;
            for (int i = 0; i < N; i++)
                if (it[i].in && it[i].key < min)
                    min = it[i].key;
            item *t = cz_heap_pop(&h);
            assert_non_null(t);
            assert_true(t->in);
            assert_int_equal(t->key, min);
            t->in = false;
            live--;
        }
        assert_int_equal(h.n, live);
        if (step % 997 == 0)
            for (size_t i = 0; i < h.n; i++) {
                assert_int_equal(((item *)h.v[i])->idx, i);
                if (i)
                    assert_true(icmp(h.v[(i - 1) / 2], h.v[i]) <= 0);
            }
    }
    cz_heap_free(&h);
}

static void test_digest(void **state)
{
    (void)state;
    uint64_t a[2], b[2];
    cz_engine_digest("payload", 7, a);
    cz_engine_digest("payload", 7, b);
    assert_memory_equal(a, b, sizeof a);
    cz_engine_digest("payloae", 7, b);
    assert_true(a[0] != b[0] && a[1] != b[1]);
    cz_engine_digest("payload\0", 8, b); /* length is part of the digest */
    assert_true(a[0] != b[0] || a[1] != b[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_heap_vs_reference),
        cmocka_unit_test(test_digest),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
