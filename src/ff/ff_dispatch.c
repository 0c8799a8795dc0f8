/*
 * Back-end selection for the Montgomery kernels.
 *
 * cz__ff_use_adx starts at 0 (portable); a load-time constructor switches
 * to the MULX/ADX kernels when CPUID reports BMI2 and ADX, so every caller
 * gets the fast path without an init call. cz_ff_set_backend() lets tests
 * and benchmarks force either one. The flag is a plain int read on every
 * mul/sqr; it is written only by the constructor and by set_backend, which
 * callers must not run concurrently with field arithmetic.
 */
#include "ff_internal.h"
#include <stdlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int cz__ff_use_adx = 0;

bool cz_ff_adx_supported(void)
{
#if CZ_HAVE_ADX_ASM
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    return (b & (1u << 8)) && (b & (1u << 19)); /* BMI2, ADX */
#else
    return false;
#endif
}

bool cz_ff_ifma_supported(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    /* CUZK_NO_SIMD or CUZK_NO_IFMA (any value): behave as on a CPU
     * without IFMA (CUZK_NO_IFMA leaves the other SIMD paths on: a Zen 3) */
    if (getenv("CUZK_NO_SIMD") || getenv("CUZK_NO_IFMA")) return false;
    /* __builtin_cpu_supports also checks that the OS saves the ZMM state */
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512ifma");
#else
    return false;
#endif
}

cz_status cz_ff_set_backend(cz_ff_backend b)
{
    if (b == CZ_FF_AUTO) b = cz_ff_adx_supported() ? CZ_FF_ADX : CZ_FF_PORTABLE;
    switch (b) {
    case CZ_FF_PORTABLE:
        cz__ff_use_adx = 0;
        return CZ_OK;
    case CZ_FF_ADX:
        if (!cz_ff_adx_supported()) return CZ_ERR_UNSUPPORTED;
        cz__ff_use_adx = 1;
        return CZ_OK;
    default:
        return CZ_ERR_INVALID_ARG;
    }
}

__attribute__((constructor)) static void cz_ff_init_backend(void)
{
    cz__ff_use_adx = cz_ff_adx_supported();
}

cz_ff_backend cz_ff_get_backend(void) { return cz__ff_use_adx ? CZ_FF_ADX : CZ_FF_PORTABLE; }

const char *cz_ff_backend_name(cz_ff_backend b)
{
    switch (b) {
    case CZ_FF_AUTO: return "auto";
    case CZ_FF_PORTABLE: return "portable";
    case CZ_FF_ADX: return "adx";
    }
    return "?";
}
