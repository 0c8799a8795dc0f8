/* Large arrays on transparent huge pages (big_alloc.h). */
#include "common/big_alloc.h"
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#define HUGE_PAGE ((size_t)2 << 20)

void *cz_big_alloc(size_t n)
{
    if (n < CZ_BIG_ALLOC_MIN) return malloc(n ? n : 1);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, n) != 0) return NULL;
    /* Only the whole huge pages of the array: a huge page is resident as
     * soon as one byte of it is touched, so a tail advised too could make
     * up to 2 MiB resident that the array never uses (memory budgets
     * count what is written). Advice only: a kernel without THP, or a
     * range it declines, gives 4 KiB pages; the result is not checked. */
#ifdef MADV_HUGEPAGE
    (void)madvise(p, n & ~(HUGE_PAGE - 1), MADV_HUGEPAGE);
#endif
    return p;
}

void *cz_big_alloc_array(size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size) return NULL;
    return cz_big_alloc(count * size);
}
