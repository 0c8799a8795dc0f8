/*
 * The host double of the CUDA runtime and of the backend's kernels
 * (cuda_double.c): what lets the driver code of the GPU prover — context
 * creation, the pinned double-buffered uploads, resident parameters and
 * their generations, the two streams and their events, the memory checks,
 * every error path — run, unchanged, in the test suite of a machine
 * without a GPU.
 *
 * What it models:
 * - Device memory: host allocations, counted against a device size the
 *   test sets (cudaMemGetInfo reports the rest), so the budget checks and
 *   "device memory is flat over proofs" can be asserted.
 * - Streams run in order; each is either eager (an operation runs when it
 *   is queued, once the events it waits on have been reached) or lazy (its
 *   operations run only when something needs them: a synchronisation of
 *   the stream, of one of its events, a wait from another stream, a
 *   device-wide synchronisation, or cudaFree / cudaFreeHost, which
 *   synchronise the device as the runtime's do). Lazy is the adversary of
 *   host-side reuse: a staging buffer refilled before its copy has run, or
 *   a host array freed too early, gives wrong results (or an ASan report).
 *   An eager consumer of a lazy producer is the adversary of a missing
 *   cross-stream wait: the consumer runs before the data it needs. The
 *   tests run the prover under every combination.
 * - The kernels (czc_* of src/cuda/cuda_internal.h) are operations on
 *   their stream computed by the kernels' own per-thread bodies
 *   (dev_algo.h): the NTT tables, the transforms and the quotient as the
 *   device's launch lists (tests/cuda/ntt_replay.h, with small tiles), the
 *   row check, scalar conversion, density gather; the MSM by the CPU
 *   library. Results are compared bit for bit with the CPU prover.
 * - A hook: the k-th cudaStreamSynchronize can first call the test back,
 *   outside the lock, to interleave another thread's calls at that point.
 * - Faults: the k-th cudaMalloc from now can fail with
 *   cudaErrorMemoryAllocation; the k-th runtime or kernel call can fail
 *   with cudaErrorLaunchFailure, once or sticky (every later call fails,
 *   device synchronisation included, as after an illegal address).
 *
 * Not modelled: concurrency between streams (the order is a sequential
 * interleaving the policy chooses), device pointers dereferenced on the
 * host (same address space), timing.
 *
 * Threads: one recursive lock around every call. Under ThreadSanitizer
 * that lock and the double's bookkeeping are hidden from it, and the
 * happens-before edges are only those the CUDA runtime guarantees (calls
 * before their operations, stream order, event records before their
 * waits, synchronisations; cuda_double.c lists them), so races in the
 * host code between two threads' calls are reported rather than ordered
 * by the double. The tests drive one context at a time.
 */
#ifndef CZ_TEST_CUDA_DOUBLE_H
#define CZ_TEST_CUDA_DOUBLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Without a reset the device has 4 GiB and $CZD_LAZY_MASK (if set) is
 * the lazy mask: what a test of a layer above, which sees only the
 * runtime, gets.
 * Starts afresh: device of total_bytes, every stream created from now on
 * eager, no fault armed, counters zero. Every allocation of the previous
 * session must have been freed (asserted by czd_outstanding first). */
void czd_reset(size_t total_bytes);
/* Streams created from now on: the k-th (0-based, counting since the
 * reset) is lazy when bit k mod 2 of lazy_mask is set (a context creates
 * its compute stream, then its copy stream: bit 0 and bit 1). */
void czd_set_lazy_mask(unsigned lazy_mask);
/* The k-th cudaMalloc from now (1-based) fails; 0 disarms. */
void czd_fail_malloc_at(unsigned k);
/* The k-th runtime or kernel call from now (1-based) fails with
 * cudaErrorLaunchFailure; sticky: that call and every later one. */
void czd_fail_call_at(unsigned k, bool sticky);

/* The k-th cudaStreamSynchronize from now (1-based) first calls fn(arg)
 * on its own thread, outside the double's lock, and then synchronises;
 * once. k = 0 or fn = NULL disarms. What lets a test stop one thread at a
 * known point (a parameter upload's last wait) while others call in. */
void czd_on_stream_sync(unsigned k, void (*fn)(void *), void *arg);

/* Device bytes and allocations outstanding now. */
size_t czd_device_bytes(void);
size_t czd_outstanding(void);
/* cudaMalloc calls, runtime+kernel calls, host->device bytes copied, since the reset. */
uint64_t czd_mallocs(void);
uint64_t czd_calls(void);
uint64_t czd_h2d_bytes(void);
/* Host->device bytes queued (copies not run yet included), since the reset. */
uint64_t czd_h2d_queued_bytes(void);

#endif
