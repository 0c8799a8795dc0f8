/*
 * Large arrays on transparent huge pages.
 *
 * A one-shot `cuzk prove --zkey` writes ~0.3-1.5 GB of fresh memory at
 * 2^18-2^20 (the key's points, the witness, the prover's vectors). On
 * 4 KiB pages that is a page fault every 4 KiB, and a fault is costly in
 * a VM: a 2^18 process on the development VM took 60k of them, ~12 % of
 * its CPU time in the fault path, and its key read went 270-310 ms ->
 * 110-195 ms with the arrays on 2 MiB pages. Kernels set to THP
 * "madvise" (Debian's default) back memory with huge pages only where
 * asked, hence the advice here; under "never" it is a no-op, under
 * "always" redundant.
 */
#ifndef CZ_COMMON_BIG_ALLOC_H
#define CZ_COMMON_BIG_ALLOC_H
#include <stddef.h>

/* n bytes that free() releases (NULL when out of memory; n = 0 gives a
 * unique pointer as malloc(1) would). From CZ_BIG_ALLOC_MIN bytes up
 * aligned to 2 MiB, and the whole 2 MiB pages of the range advised
 * MADV_HUGEPAGE before anything touches them (the tail keeps 4 KiB
 * pages); below, plain malloc. The contents are undefined, as malloc's.
 * For arrays that are written whole: one byte touched makes a huge page
 * resident, so a sparsely written buffer (an MSM's overflow buckets)
 * would grow the resident set. */
void *cz_big_alloc(size_t n);

/* cz_big_alloc of count elements of size bytes, NULL on overflow. */
void *cz_big_alloc_array(size_t count, size_t size);

enum { CZ_BIG_ALLOC_MIN = 4u << 20 };
#endif
