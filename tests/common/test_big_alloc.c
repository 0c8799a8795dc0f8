/*
 * cz_big_alloc (src/common/big_alloc.h): small requests are plain malloc,
 * large ones start on a 2 MiB boundary and hold every byte asked for; all
 * are released by free(); an overflowing count is refused. Whether the
 * kernel then backs the range with huge pages is its choice (THP may be
 * off), so the huge-page count is printed, not asserted.
 */
#include "testutil.h"
#include "common/big_alloc.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void small_and_zero(void **state)
{
    (void)state;
    void *a = cz_big_alloc(0), *b = cz_big_alloc(0), *c = cz_big_alloc(100);
    assert_non_null(a);
    assert_non_null(b);
    assert_non_null(c);
    assert_ptr_not_equal(a, b);
    memset(c, 0xab, 100);
    free(a);
    free(b);
    free(c);
}

/* AnonHugePages of /proc/self/smaps_rollup in KiB, -1 if unreadable. */
static long anon_huge_kib(void)
{
    FILE *f = fopen("/proc/self/smaps_rollup", "r");
    if (!f) return -1;
    char line[256];
    long v = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "AnonHugePages: %ld kB", &v) == 1) break;
    fclose(f);
    return v;
}

static void large_aligned_whole(void **state)
{
    (void)state;
    /* sizes around and above the threshold, whole and not whole huge pages */
    const size_t sizes[] = {CZ_BIG_ALLOC_MIN, CZ_BIG_ALLOC_MIN + 1, 3 * CZ_BIG_ALLOC_MIN + 4093,
                            (size_t)48 << 20};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t n = sizes[k];
        uint8_t *p = cz_big_alloc(n);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % ((size_t)2 << 20), 0);
        /* every byte is the caller's: a pattern written end to end reads back */
        for (size_t i = 0; i < n; i++) p[i] = (uint8_t)(i * 131 + k);
        for (size_t i = 0; i < n; i += 4097) assert_int_equal(p[i], (uint8_t)(i * 131 + k));
        assert_int_equal(p[n - 1], (uint8_t)((n - 1) * 131 + k));
        if (k == 3) printf("# AnonHugePages with 48 MiB written: %ld KiB\n", anon_huge_kib());
        free(p);
    }
}

static void array_overflow(void **state)
{
    (void)state;
    assert_null(cz_big_alloc_array(SIZE_MAX / 8 + 1, 8));
    assert_null(cz_big_alloc_array(SIZE_MAX, 2));
    void *p = cz_big_alloc_array(3, 0); /* zero bytes: a unique pointer */
    assert_non_null(p);
    free(p);
    uint64_t *q = cz_big_alloc_array((size_t)1 << 20, sizeof *q);
    assert_non_null(q);
    q[0] = 1;
    q[((size_t)1 << 20) - 1] = 2;
    free(q);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_and_zero),
        cmocka_unit_test(large_aligned_whole),
        cmocka_unit_test(array_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
