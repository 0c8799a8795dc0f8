/*
 * Back-end selection for the Montgomery kernels.
 *
 * The pointers start on the portable kernels; a constructor switches them
 * to the MULX/ADX kernels when the CPU has BMI2+ADX, so every caller gets
 * the fast path without an init call. cz_ff_set_backend() lets tests and
 * benchmarks force either one.
 */
#include "ff_internal.h"
#include <cpuid.h>

cz_mul_fn cz__fp_mul_fn = cz__fp_mul_portable;
cz_sqr_fn cz__fp_sqr_fn = cz__fp_sqr_portable;
cz_mul_fn cz__fr_mul_fn = cz__fr_mul_portable;
cz_sqr_fn cz__fr_sqr_fn = cz__fr_sqr_portable;

static cz_ff_backend current = CZ_FF_PORTABLE;

bool cz_ff_adx_supported(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
    return (b & (1u << 8)) && (b & (1u << 19)); /* BMI2, ADX */
}

cz_status cz_ff_set_backend(cz_ff_backend b)
{
    if (b == CZ_FF_AUTO) b = CZ_FF_PORTABLE; /* TODO(ff): ADX when supported */
    switch (b) {
    case CZ_FF_PORTABLE:
        cz__fp_mul_fn = cz__fp_mul_portable;
        cz__fp_sqr_fn = cz__fp_sqr_portable;
        cz__fr_mul_fn = cz__fr_mul_portable;
        cz__fr_sqr_fn = cz__fr_sqr_portable;
        current = b;
        return CZ_OK;
    case CZ_FF_ADX:
    default:
        return CZ_ERR_UNSUPPORTED;
    }
}

cz_ff_backend cz_ff_get_backend(void) { return current; }

const char *cz_ff_backend_name(cz_ff_backend b)
{
    switch (b) {
    case CZ_FF_AUTO: return "auto";
    case CZ_FF_PORTABLE: return "portable";
    case CZ_FF_ADX: return "adx";
    }
    return "?";
}
