/*
 * MSM over G1 and G2: one body (msm_impl.h) instantiated twice.
 */
#include "msm_internal.h"

#define AFF cz_g1_affine
#define XYZZ cz_g1_xyzz
#define JAC cz_g1_jac
#define FT cz_fp
#define E(name) cz_g1_##name
#define F(name) cz_fp_##name
#define F_INV cz_fp_inv_var
#define S(name) g1_msm_##name
#define MSM_PUB(x) cz_msm_g1##x
#define AFFINE_MIN CZ_MSM_AFFINE_MIN_WINDOW_G1
#define L2_KB 14
#define ENTRY_T cz_msm_g1_entry
#define SEG_T cz_msm_g1_seg
#define TAB_T cz_msm_g1_tables
#define TAB_S cz_msm_g1_tables
#if CZ_MSM_HAVE_X8
#define FLUSH_X8 cz__msm_g1_flush_lanes
#define X8_SCRATCH(cap) cz__msm_g1_lanes_scratch(cap)
#define X8_USABLE() (cz__msm_lanes_begin() != CZ_MSM_LANES_NONE)
#define X8_PLAN() (cz__msm_lanes() == CZ_MSM_LANES_IFMA)
#define X8_MIN_BATCH() (cz__msm_lanes() == CZ_MSM_LANES_AVX2 ? CZ_MSM_X16_MIN_BATCH : CZ_MSM_X8_MIN_BATCH)
#define X8_BATCH(cap) cz__msm_lanes_batch(cap)
#endif
#include "msm_impl.h"
#undef X8_PLAN
#undef X8_MIN_BATCH
#undef X8_BATCH
#undef ENTRY_T
#undef SEG_T
#undef TAB_T
#undef TAB_S
#undef FLUSH_X8
#undef X8_SCRATCH
#undef X8_USABLE
#undef AFF
#undef XYZZ
#undef JAC
#undef FT
#undef E
#undef F
#undef F_INV
#undef S
#undef MSM_PUB
#undef AFFINE_MIN
#undef L2_KB


#define AFF cz_g2_affine
#define XYZZ cz_g2_xyzz
#define JAC cz_g2_jac
#define FT cz_fp2
#define E(name) cz_g2_##name
#define F(name) cz_fp2_##name
#define F_INV cz_fp2_inv_var
#define S(name) g2_msm_##name
#define FLUSH_NORM 1
#define MSM_PUB(x) cz_msm_g2##x
#define AFFINE_MIN CZ_MSM_AFFINE_MIN_WINDOW_G2
#define L2_KB 13
#define ENTRY_T cz_msm_g2_entry
#define SEG_T cz_msm_g2_seg
#define TAB_T cz_msm_g2_tables
#define TAB_S cz_msm_g2_tables
#if CZ_MSM_HAVE_X8
#define FLUSH_X8 cz__msm_g2_flush_lanes
#define X8_SCRATCH(cap) cz__msm_g2_lanes_scratch(cap)
#define X8_USABLE() (cz__msm_lanes_begin() != CZ_MSM_LANES_NONE)
#define X8_PLAN() (cz__msm_lanes() == CZ_MSM_LANES_IFMA)
#define X8_MIN_BATCH() (cz__msm_lanes() == CZ_MSM_LANES_AVX2 ? CZ_MSM_X16_MIN_BATCH : CZ_MSM_X8_MIN_BATCH)
#define X8_BATCH(cap) cz__msm_lanes_batch(cap)
#endif
#include "msm_impl.h"
#undef FLUSH_NORM
