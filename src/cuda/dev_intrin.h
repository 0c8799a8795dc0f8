/*
 * cuzk CUDA backend — the macro layer between the code written once for
 * the device and the host (dev_arith.h, dev_algo.h) and the CUDA
 * intrinsics it needs.
 *
 * Why: the host tests (tests/cuda) replay the kernels' per-thread code on
 * the CPU. If that code branched on __CUDA_ARCH__ to use an intrinsic on
 * the device and a different C expression on the host, the device branch
 * would never run anywhere but on a GPU. So the code calls these macros
 * only; each maps to the intrinsic in the device pass and to a host
 * emulation bit-exact to the intrinsic's documented semantics otherwise.
 * Only this file differs between the two compilations.
 *
 *   CZ_UMUL64HI(a, b)       __umul64hi: high 64 bits of the 128-bit a·b
 *   CZ_POPCLL(v)            __popcll: number of set bits of v (int)
 *   CZ_BREVLL(v)            __brevll: bit i of v moved to bit 63 - i
 *   CZ_ATOMIC_ADD_U32(p, v) atomicAdd on a 32-bit word: *p += v, returns
 *                           the old value. The host replay runs the
 *                           threads of a launch one after the other, so a
 *                           plain read-modify-write is the same operation
 *                           in one of the orders the device may pick.
 *
 * The emulations (czh_*) deliberately avoid unsigned __int128 and compiler
 * builtins: tests/cuda/test_cuda_arith.c checks them against those
 * independent definitions. They are CZ_HD so the device check can also run
 * them on the GPU and compare with the real intrinsics (czc_check_intrin).
 *
 * Also defines CZ_HD / CZ_HD_PT / CZ_UNROLL (see dev_arith.h).
 */
#ifndef CUZK_CUDA_DEV_INTRIN_H
#define CUZK_CUDA_DEV_INTRIN_H

#include <stdint.h>

#ifdef __CUDACC__
#define CZ_HD static __host__ __device__ __forceinline__
/* point formulas: one out-of-line copy per kernel file instead of one per
 * call site (each is ~10 inlined Montgomery multiplications; inlining them
 * everywhere multiplied ptxas time and code size). The price: an
 * accumulator passed to an out-of-line call lives in local memory, not
 * registers. CZ_CUDA_INLINE_POINTS (CMake -DCUZK_CUDA_INLINE_POINTS=ON)
 * inlines them so the device check can time both builds; same results. */
#ifdef CZ_CUDA_INLINE_POINTS
#define CZ_HD_PT static __host__ __device__ __forceinline__
#else
#define CZ_HD_PT static inline __host__ __device__ __noinline__
#endif
#else
#define CZ_HD static inline
#define CZ_HD_PT static inline
#endif
/* full unrolling of the limb loops: device pass only (gcc, also as nvcc's
 * host compiler, would warn about the unknown pragma) */
#ifdef __CUDA_ARCH__
#define CZ_UNROLL _Pragma("unroll")
#else
#define CZ_UNROLL
#endif

/* high word of a·b from four 32x32->64 partial products */
CZ_HD uint64_t czh_umul64hi(uint64_t a, uint64_t b)
{
    uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    /* < 3·2^32: no overflow */
    uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    return p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* SWAR population count */
CZ_HD int czh_popcll(uint64_t v)
{
    v = v - ((v >> 1) & 0x5555555555555555ULL);
    v = (v & 0x3333333333333333ULL) + ((v >> 2) & 0x3333333333333333ULL);
    v = (v + (v >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((v * 0x0101010101010101ULL) >> 56);
}

/* bit reversal by swapping ever larger halves */
CZ_HD uint64_t czh_brevll(uint64_t v)
{
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
    v = ((v >> 8) & 0x00ff00ff00ff00ffULL) | ((v & 0x00ff00ff00ff00ffULL) << 8);
    v = ((v >> 16) & 0x0000ffff0000ffffULL) | ((v & 0x0000ffff0000ffffULL) << 16);
    return (v >> 32) | (v << 32);
}

CZ_HD uint32_t czh_atomic_add_u32(uint32_t *p, uint32_t v)
{
    uint32_t old = *p;
    *p = old + v;
    return old;
}

#ifdef __CUDA_ARCH__
#define CZ_UMUL64HI(a, b) ((uint64_t)__umul64hi((unsigned long long)(a), (unsigned long long)(b)))
#define CZ_POPCLL(v) __popcll((unsigned long long)(v))
#define CZ_BREVLL(v) ((uint64_t)__brevll((unsigned long long)(v)))
#define CZ_ATOMIC_ADD_U32(p, v) atomicAdd((unsigned int *)(p), (unsigned int)(v))
#else
#define CZ_UMUL64HI(a, b) czh_umul64hi((a), (b))
#define CZ_POPCLL(v) czh_popcll(v)
#define CZ_BREVLL(v) czh_brevll(v)
#define CZ_ATOMIC_ADD_U32(p, v) czh_atomic_add_u32((p), (v))
#endif

#endif /* CUZK_CUDA_DEV_INTRIN_H */
