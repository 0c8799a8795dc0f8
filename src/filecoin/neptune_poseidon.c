/*
 * neptune 11 Poseidon over BLS12-381 Fr: constants (round numbers, Grain
 * round constants, Cauchy MDS, neptune's preprocessing into compressed
 * round constants and sparse matrices), the optimised and plain
 * permutations, the hash and neptune's Simplex sponge for ConstantLength.
 *
 * Why the static optimisation is kept in the constants: neptune's circuit
 * (circuit.rs) evaluates exactly this optimised form, so the gadget that
 * follows it needs the same compressed constants and sparse matrices; the
 * native hash uses it too because it costs about 2t fewer multiplications
 * per partial round than the dense form.
 *
 * The algorithms are neptune's (src/round_numbers.rs, round_constants.rs,
 * mds.rs, preprocessing.rs, poseidon.rs, poseidon_alt.rs, hash_type.rs,
 * sponge/vanilla.rs); the code is cuzk's own. Matrix inversion is plain
 * Gauss–Jordan: an inverse is unique, so the elimination order need not
 * match neptune's.
 */
#include "cuzk/fil_poseidon.h"
#include "cuzk/poseidon.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- round numbers ----------------------------------------------------------- */

/* round_numbers.rs round_numbers_are_secure: the Poseidon paper's
 * inequalities evaluated in f32 like neptune (n = PRIME_BITLEN = 256, not
 * 255: neptune rounds the field up to whole bytes here; M = 128). The
 * ceilings are converted as Rust's `as usize` does (negative -> 0). */
static size_t ceil_to_size(float x)
{
    float c = ceilf(x);
    return c <= 0.0f ? 0 : (size_t)c;
}

static bool rn_secure(unsigned t, size_t rf, size_t rp)
{
    const float n = 256.0f, m = 128.0f;
    float frp = (float)rp, ft = (float)t;
    float rf_stat = (m <= (n - 3.0f) * (ft + 1.0f)) ? 6.0f : 10.0f;
    float rf_interp = 0.43f * m + log2f(ft) - frp;
    float rf_grob_1 = 0.21f * n - frp;
    float rf_grob_2 = (0.14f * n - 1.0f - frp) / (ft - 1.0f);
    size_t mx = ceil_to_size(rf_stat);
    size_t v = ceil_to_size(rf_interp);
    if (v > mx)
        mx = v;
    v = ceil_to_size(rf_grob_1);
    if (v > mx)
        mx = v;
    v = ceil_to_size(rf_grob_2);
    if (v > mx)
        mx = v;
    return rf >= mx;
}

/* As round_numbers.rs calc_round_numbers. In neptune the margin is applied
 * by mutating the loop variables: rp's change lasts one inner iteration,
 * but R_F's `rf_test += 2` mutates the OUTER loop's binding, so it
 * accumulates over the remaining R_P candidates of that R_F. Reproduced
 * literally (it does not change the results for t <= 37, but it is the
 * reference's search). */
bool cz_neptune_calc_round_numbers(unsigned t, bool security_margin, unsigned *r_f, unsigned *r_p)
{
    if (t < 2 || t > 4095 || !r_f || !r_p)
        return false;
    size_t rf = 0, rp = 0, best = SIZE_MAX;
    for (size_t rf_base = 2; rf_base <= 1000; rf_base += 2) {
        size_t rf_test = rf_base;
        for (size_t rp_base = 4; rp_base < 200; rp_base++) {
            size_t rp_test = rp_base;
            if (!rn_secure(t, rf_test, rp_test))
                continue;
            if (security_margin) {
                rf_test += 2;
                rp_test = ceil_to_size(1.075f * (float)rp_test);
            }
            size_t cost = (size_t)t * rf_test + rp_test;
            if (cost < best || (cost == best && rf_test < rf)) {
                rf = rf_test;
                rp = rp_test;
                best = cost;
            }
        }
    }
    *r_f = (unsigned)rf;
    *r_p = (unsigned)rp;
    return true;
}

/* lib.rs round_numbers: round_numbers_base(arity) = calc(arity + 1, true);
 * strengthened: R_P · 1.25 rounded up (in f64). */
bool cz_neptune_round_numbers(unsigned arity, cz_neptune_strength s, unsigned *r_f, unsigned *r_p)
{
    if (arity < 1 || arity > CZ_NEPTUNE_ARITY_MAX || !r_f || !r_p)
        return false;
    if (s != CZ_NEPTUNE_STANDARD && s != CZ_NEPTUNE_STRENGTHENED)
        return false;
    if (!cz_neptune_calc_round_numbers(arity + 1, true, r_f, r_p))
        return false;
    if (s == CZ_NEPTUNE_STRENGTHENED)
        *r_p = (unsigned)ceil((double)*r_p * 1.25);
    return true;
}

/* ---- small dense linear algebra (generation only) ---------------------------- */

/* r = a·b (n×n, row-major). r must not alias a or b. */
static void mat_mul(cz_fr *r, const cz_fr *a, const cz_fr *b, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++) {
            cz_fr acc = CZ_FR_ZERO, tmp;
            for (unsigned k = 0; k < n; k++) {
                cz_fr_mul(&tmp, &a[i * n + k], &b[k * n + j]);
                cz_fr_add(&acc, &acc, &tmp);
            }
            r[i * n + j] = acc;
        }
}

/* r = v·m (matrix.rs apply_matrix: r[j] = Σ_i m[i][j]·v[i]). r must not
 * alias v. */
static void vec_mat(cz_fr *r, const cz_fr *v, const cz_fr *m, unsigned n)
{
    for (unsigned j = 0; j < n; j++) {
        cz_fr acc = CZ_FR_ZERO, tmp;
        for (unsigned i = 0; i < n; i++) {
            cz_fr_mul(&tmp, &m[i * n + j], &v[i]);
            cz_fr_add(&acc, &acc, &tmp);
        }
        r[j] = acc;
    }
}

/* inv = a^-1 by Gauss–Jordan with a scratch copy (work: n·n). Returns
 * false when a is singular (never for the matrices neptune builds). */
static bool mat_inv(cz_fr *inv, const cz_fr *a, unsigned n, cz_fr *work)
{
    memcpy(work, a, (size_t)n * n * sizeof *work);
    for (unsigned i = 0; i < n; i++)
        for (unsigned j = 0; j < n; j++)
            inv[i * n + j] = i == j ? CZ_FR_ONE : CZ_FR_ZERO;
    for (unsigned col = 0; col < n; col++) {
        unsigned piv = col;
        while (piv < n && cz_fr_is_zero(&work[piv * n + col]))
            piv++;
        if (piv == n)
            return false;
        if (piv != col)
            for (unsigned j = 0; j < n; j++) {
                cz_fr t = work[piv * n + j];
                work[piv * n + j] = work[col * n + j];
                work[col * n + j] = t;
                t = inv[piv * n + j];
                inv[piv * n + j] = inv[col * n + j];
                inv[col * n + j] = t;
            }
        cz_fr pinv;
        cz_fr_inv_var(&pinv, &work[col * n + col]);
        for (unsigned j = 0; j < n; j++) {
            cz_fr_mul(&work[col * n + j], &work[col * n + j], &pinv);
            cz_fr_mul(&inv[col * n + j], &inv[col * n + j], &pinv);
        }
        for (unsigned i = 0; i < n; i++) {
            if (i == col || cz_fr_is_zero(&work[i * n + col]))
                continue;
            cz_fr f = work[i * n + col], tmp;
            for (unsigned j = 0; j < n; j++) {
                cz_fr_mul(&tmp, &f, &work[col * n + j]);
                cz_fr_sub(&work[i * n + j], &work[i * n + j], &tmp);
                cz_fr_mul(&tmp, &f, &inv[col * n + j]);
                cz_fr_sub(&inv[i * n + j], &inv[i * n + j], &tmp);
            }
        }
    }
    return true;
}

/* ---- generation ------------------------------------------------------------------ */

/* One cached (arity, strength): the struct and, after it, its arrays. */
typedef struct {
    cz_neptune_constants c;
    cz_fr data[];
} nep_entry;

static _Atomic(nep_entry *) g_cache[2][CZ_NEPTUNE_ARITY_MAX + 1];
static pthread_mutex_t g_cache_lock = PTHREAD_MUTEX_INITIALIZER;

/* mds.rs generate_mds: Cauchy matrix m[i][j] = 1/(x_i + y_j), x_i = i,
 * y_j = t + j (symmetric, since it depends on i + j only). */
static void gen_mds(cz_fr *m, unsigned t)
{
    for (unsigned i = 0; i < t; i++)
        for (unsigned j = 0; j < t; j++) {
            cz_fr s;
            cz_fr_from_u64(&s, (uint64_t)i + t + j);
            cz_fr_inv_var(&m[i * t + j], &s);
        }
}

/* preprocessing.rs compress_round_constants with partial_preprocessed =
 * partial_rounds (what PoseidonConstants::new_with_strength_and_type
 * passes): round constants pushed back through the linear layers so that
 * each S-box is followed by one addition, and a partial round keeps only
 * its lane-0 constant. out: 8t + R_P values (scratch: 2t + R_P). */
static void compress_rc(cz_fr *out, const cz_fr *rc, const cz_fr *m_inv, unsigned t,
                        unsigned half, unsigned rp, cz_fr *scratch)
{
    cz_fr *acc = scratch, *inv = scratch + t, *pk = scratch + 2 * t;
    size_t o = 0;
#define RK(r) (rc + (size_t)(r) * t)
    memcpy(out + o, RK(0), t * sizeof *out);
    o += t;
    /* post-S-box keys of full rounds 1 .. half−1: next round's keys · m^-1;
     * the last round of the first half takes the folded partial keys below. */
    for (unsigned i = 0; i + 1 < half; i++, o += t)
        vec_mat(out + o, RK(i + 1), m_inv, t);
    /* Fold from the first round of the second half back to the first
     * partial round: invert, keep lane 0 as that round's single key, add
     * the rest to the previous round's keys. */
    unsigned final_round = half + rp;
    memcpy(acc, RK(final_round), t * sizeof *acc);
    for (unsigned i = 0; i < rp; i++) {
        vec_mat(inv, acc, m_inv, t);
        pk[i] = inv[0];
        inv[0] = CZ_FR_ZERO;
        const cz_fr *prev = RK(final_round - i - 1);
        for (unsigned j = 0; j < t; j++)
            cz_fr_add(&acc[j], &prev[j], &inv[j]);
    }
    vec_mat(out + o, acc, m_inv, t);
    o += t;
    for (unsigned i = rp; i-- > 0;)
        out[o++] = pk[i];
    for (unsigned i = 1; i < half; i++, o += t)
        vec_mat(out + o, RK(i + final_round), m_inv, t);
#undef RK
}

/* mds.rs factor_to_sparse_matrices(m, R_P): repeatedly split the current
 * matrix C into M'·M'' (M' = diag(1, Ĉ) with Ĉ = C minus row/column 0;
 * M'' sparse: row 0 of C, then column 0 = Ĉ^-1-transformed column 0 of C,
 * identity elsewhere), carry m·M' back as the next C. The sparse factors
 * come out last-round first and are reversed; the final C is pre_sparse.
 * scratch: 5·t·t. */
static bool factor_sparse(cz_fr *pre_sparse, cz_fr *w_hat, cz_fr *v_rest, const cz_fr *m, unsigned t,
                          unsigned rp, cz_fr *scratch)
{
    unsigned h = t - 1;
    size_t tt = (size_t)t * t;
    cz_fr *curr = scratch, *mhat = scratch + tt, *mhat_inv = scratch + 2 * tt,
          *work = scratch + 3 * tt, *mprime = scratch + 4 * tt;
    memcpy(curr, m, tt * sizeof *curr);
    for (unsigned k = 0; k < rp; k++) {
        for (unsigned i = 0; i < h; i++)
            for (unsigned j = 0; j < h; j++)
                mhat[i * h + j] = curr[(i + 1) * t + j + 1];
        if (!mat_inv(mhat_inv, mhat, h, work))
            return false;
        /* sparse matrix of factor k, stored at index rp−1−k */
        cz_fr *wh = w_hat + (size_t)(rp - 1 - k) * t;
        cz_fr *vr = v_rest + (size_t)(rp - 1 - k) * h;
        wh[0] = curr[0];
        /* w_hat = w·Ĉ^-1 with w = column 0 of C below row 0 */
        for (unsigned j = 0; j < h; j++) {
            cz_fr acc = CZ_FR_ZERO, tmp;
            for (unsigned i = 0; i < h; i++) {
                cz_fr_mul(&tmp, &mhat_inv[i * h + j], &curr[(i + 1) * t]);
                cz_fr_add(&acc, &acc, &tmp);
            }
            wh[j + 1] = acc;
        }
        for (unsigned j = 0; j < h; j++)
            vr[j] = curr[j + 1];
        /* M' = [[1, 0], [0, Ĉ]] ; next C = m·M' */
        for (unsigned i = 0; i < t; i++)
            for (unsigned j = 0; j < t; j++)
                mprime[i * t + j] = (i == 0 || j == 0) ? ((i == 0 && j == 0) ? CZ_FR_ONE : CZ_FR_ZERO)
                                                       : curr[i * t + j];
        mat_mul(curr, m, mprime, t);
    }
    memcpy(pre_sparse, curr, tt * sizeof *curr);
    return true;
}

static nep_entry *generate(unsigned arity, cz_neptune_strength s)
{
    unsigned t = arity + 1, rf, rp;
    if (!cz_neptune_round_numbers(arity, s, &rf, &rp))
        return NULL;
    unsigned half = rf / 2;
    size_t tt = (size_t)t * t;
    size_t n_rc = (size_t)(rf + rp) * t, n_crc = (size_t)rf * t + rp;
    size_t n_total = n_rc + 2 * tt + n_crc + tt + (size_t)rp * t + (size_t)rp * (t - 1);
    nep_entry *e = malloc(sizeof *e + n_total * sizeof(cz_fr));
    size_t n_scratch = 5 * tt + 2 * t + rp;
    cz_fr *scratch = malloc((n_scratch > tt ? n_scratch : tt) * sizeof *scratch);
    if (!e || !scratch)
        goto fail;
    cz_fr *p = e->data;
    cz_fr *rc = p;
    p += n_rc;
    cz_fr *mds = p;
    p += tt;
    cz_fr *mds_inv = p;
    p += tt;
    cz_fr *crc = p;
    p += n_crc;
    cz_fr *pre = p;
    p += tt;
    cz_fr *wh = p;
    p += (size_t)rp * t;
    cz_fr *vr = p;

    /* lib.rs round_constants: generate_constants(FIELD 1, SBOX 1,
     * field_size = Fr::NUM_BITS = 255, t, R_F, R_P) — the Grain draw that
     * cz_poseidon_generate makes (it also draws its own MDS, discarded). */
    if (cz_poseidon_generate(rc, scratch, t, rf, rp, 1) != CZ_OK)
        goto fail;
    gen_mds(mds, t);
    if (!mat_inv(mds_inv, mds, t, scratch))
        goto fail;
    compress_rc(crc, rc, mds_inv, t, half, rp, scratch);
    if (!factor_sparse(pre, wh, vr, mds, t, rp, scratch))
        goto fail;
    free(scratch);

    cz_neptune_constants *c = &e->c;
    c->arity = arity;
    c->width = t;
    c->strength = s;
    c->hash_type = CZ_NEPTUNE_MERKLE_TREE;
    c->type_param = 0;
    c->full_rounds = rf;
    c->half_full_rounds = half;
    c->partial_rounds = rp;
    cz_fr_from_u64(&c->domain_tag, (UINT64_C(1) << arity) - 1);
    c->round_constants = rc;
    c->mds = mds;
    c->mds_inv = mds_inv;
    c->compressed_round_constants = crc;
    c->pre_sparse = pre;
    c->sparse_w_hat = wh;
    c->sparse_v_rest = vr;
    return e;
fail:
    free(scratch);
    free(e);
    return NULL;
}

const cz_neptune_constants *cz_neptune_constants_get_strength(unsigned arity, cz_neptune_strength s)
{
    if (arity < 1 || arity > CZ_NEPTUNE_ARITY_MAX)
        return NULL;
    if (s != CZ_NEPTUNE_STANDARD && s != CZ_NEPTUNE_STRENGTHENED)
        return NULL;
    nep_entry *e = atomic_load_explicit(&g_cache[s][arity], memory_order_acquire);
    if (e)
        return &e->c;
    pthread_mutex_lock(&g_cache_lock);
    e = atomic_load_explicit(&g_cache[s][arity], memory_order_relaxed);
    if (!e) {
        e = generate(arity, s);
        if (e)
            atomic_store_explicit(&g_cache[s][arity], e, memory_order_release);
    }
    pthread_mutex_unlock(&g_cache_lock);
    return e ? &e->c : NULL;
}

const cz_neptune_constants *cz_neptune_constants_get(unsigned arity)
{
    return cz_neptune_constants_get_strength(arity, CZ_NEPTUNE_STANDARD);
}

/* hash_type.rs domain_tag. */
cz_status cz_neptune_domain_tag(cz_fr *out, unsigned arity, cz_neptune_hash_type type,
                                uint64_t type_param)
{
    if (!out || arity < 1 || arity > CZ_NEPTUNE_ARITY_MAX)
        return CZ_ERR_INVALID_ARG;
    cz_fr p2;
    switch (type) {
    case CZ_NEPTUNE_MERKLE_TREE:
        if (type_param)
            return CZ_ERR_INVALID_ARG;
        cz_fr_from_u64(out, (UINT64_C(1) << arity) - 1);
        return CZ_OK;
    case CZ_NEPTUNE_CONSTANT_LENGTH: {
        /* length · 2^64 */
        const uint64_t e64[1] = {64};
        cz_fr two;
        cz_fr_from_u64(&two, 2);
        cz_fr_pow(&p2, &two, e64, 1);
        cz_fr len;
        cz_fr_from_u64(&len, type_param);
        cz_fr_mul(out, &p2, &len);
        return CZ_OK;
    }
    case CZ_NEPTUNE_ENCRYPTION:
        if (type_param)
            return CZ_ERR_INVALID_ARG;
        cz_fr_from_u64(out, UINT64_C(1) << 32);
        return CZ_OK;
    case CZ_NEPTUNE_CUSTOM:
        /* id · 2^40; neptune asserts 1 <= id <= 256 */
        if (type_param < 1 || type_param > 256)
            return CZ_ERR_INVALID_ARG;
        cz_fr_from_u64(out, type_param << 40);
        return CZ_OK;
    case CZ_NEPTUNE_SPONGE:
        if (type_param)
            return CZ_ERR_INVALID_ARG;
        *out = CZ_FR_ZERO;
        return CZ_OK;
    }
    return CZ_ERR_INVALID_ARG;
}

cz_status cz_neptune_constants_init(cz_neptune_constants *out, unsigned arity, cz_neptune_strength s,
                                    cz_neptune_hash_type type, uint64_t type_param)
{
    if (!out || (s != CZ_NEPTUNE_STANDARD && s != CZ_NEPTUNE_STRENGTHENED))
        return CZ_ERR_INVALID_ARG;
    cz_fr tag;
    cz_status st = cz_neptune_domain_tag(&tag, arity, type, type_param);
    if (st != CZ_OK)
        return st;
    const cz_neptune_constants *base = cz_neptune_constants_get_strength(arity, s);
    if (!base)
        return CZ_ERR_NOMEM;
    *out = *base;
    out->hash_type = type;
    out->type_param = type_param;
    out->domain_tag = tag;
    return CZ_OK;
}

/* ---- permutation ------------------------------------------------------------------ */

static inline void sbox(cz_fr *x)
{
    cz_fr x2, x4;
    cz_fr_sqr(&x2, x);
    cz_fr_sqr(&x4, &x2);
    cz_fr_mul(x, x, &x4);
}

/* Σ_{i<n} c[i·stride]·s[i]. */
static inline void dot(cz_fr *out, const cz_fr *c, size_t stride, const cz_fr *s, unsigned n)
{
    cz_fr acc, tmp;
    cz_fr_mul(&acc, &c[0], &s[0]);
    for (unsigned i = 1; i < n; i++) {
        cz_fr_mul(&tmp, &c[i * stride], &s[i]);
        cz_fr_add(&acc, &acc, &tmp);
    }
    *out = acc;
}

/* s = s·m for the symmetric mds: s'[j] = Σ_i m[j][i]·s[i] (row access). */
static inline void mix_mds(const cz_fr *m, cz_fr *s, unsigned t)
{
    cz_fr r[CZ_NEPTUNE_WIDTH_MAX];
    for (unsigned j = 0; j < t; j++)
        dot(&r[j], m + (size_t)j * t, 1, s, t);
    memcpy(s, r, t * sizeof *s);
}

/* s = s·p for a general matrix (pre_sparse): column j, stride t. */
static inline void mix_general(const cz_fr *p, cz_fr *s, unsigned t)
{
    cz_fr r[CZ_NEPTUNE_WIDTH_MAX];
    for (unsigned j = 0; j < t; j++)
        dot(&r[j], p + j, t, s, t);
    memcpy(s, r, t * sizeof *s);
}

/* poseidon.rs product_mds_with_sparse_matrix. */
static inline void mix_sparse(const cz_fr *wh, const cz_fr *vr, cz_fr *s, unsigned t)
{
    cz_fr s0 = s[0], acc, tmp;
    dot(&acc, wh, 1, s, t);
    for (unsigned j = 1; j < t; j++) {
        cz_fr_mul(&tmp, &vr[j - 1], &s0);
        cz_fr_add(&s[j], &s[j], &tmp);
    }
    s[0] = acc;
}

/* Everything of Poseidon::hash_optimized_static except the last linear
 * layer, which the caller applies (whole, or only the lane it needs). */
static void permute_opt_but_last_mix(const cz_neptune_constants *c, cz_fr *s)
{
    const unsigned t = c->width, half = c->half_full_rounds, rp = c->partial_rounds;
    const cz_fr *k = c->compressed_round_constants;
    for (unsigned i = 0; i < t; i++)
        cz_fr_add(&s[i], &s[i], &k[i]);
    k += t;
    for (unsigned r = 0; r < half; r++, k += t) {
        for (unsigned i = 0; i < t; i++) {
            sbox(&s[i]);
            cz_fr_add(&s[i], &s[i], &k[i]);
        }
        if (r + 1 == half)
            mix_general(c->pre_sparse, s, t);
        else
            mix_mds(c->mds, s, t);
    }
    const cz_fr *wh = c->sparse_w_hat, *vr = c->sparse_v_rest;
    for (unsigned r = 0; r < rp; r++, wh += t, vr += t - 1) {
        sbox(&s[0]);
        cz_fr_add(&s[0], &s[0], k++);
        mix_sparse(wh, vr, s, t);
    }
    for (unsigned r = 1; r < half; r++, k += t) {
        for (unsigned i = 0; i < t; i++) {
            sbox(&s[i]);
            cz_fr_add(&s[i], &s[i], &k[i]);
        }
        mix_mds(c->mds, s, t);
    }
    for (unsigned i = 0; i < t; i++)
        sbox(&s[i]);
}

void cz_neptune_permute(const cz_neptune_constants *c, cz_fr *state)
{
    permute_opt_but_last_mix(c, state);
    mix_mds(c->mds, state, c->width);
}

/* poseidon_alt.rs hash_correct: full rounds add the round keys before
 * their S-boxes, partial rounds add all t keys, then S-box lane 0. */
void cz_neptune_permute_plain(const cz_neptune_constants *c, cz_fr *s)
{
    const unsigned t = c->width, half = c->half_full_rounds, rp = c->partial_rounds;
    const cz_fr *k = c->round_constants;
    for (unsigned r = 0; r < half; r++, k += t) {
        for (unsigned i = 0; i < t; i++) {
            cz_fr_add(&s[i], &s[i], &k[i]);
            sbox(&s[i]);
        }
        mix_mds(c->mds, s, t);
    }
    for (unsigned r = 0; r < rp; r++, k += t) {
        for (unsigned i = 0; i < t; i++)
            cz_fr_add(&s[i], &s[i], &k[i]);
        sbox(&s[0]);
        mix_mds(c->mds, s, t);
    }
    for (unsigned r = 0; r < half; r++, k += t) {
        for (unsigned i = 0; i < t; i++) {
            cz_fr_add(&s[i], &s[i], &k[i]);
            sbox(&s[i]);
        }
        mix_mds(c->mds, s, t);
    }
}

/* Lane 1 of s·mds (column 1 = row 1, mds being symmetric). */
static inline void mds_lane1(cz_fr *out, const cz_neptune_constants *c, const cz_fr *s)
{
    dot(out, c->mds + c->width, 1, s, c->width);
}

void cz_neptune_hash(cz_fr *out, const cz_neptune_constants *c, const cz_fr *in)
{
    cz_fr s[CZ_NEPTUNE_WIDTH_MAX];
    s[0] = c->domain_tag;
    memcpy(s + 1, in, c->arity * sizeof *s);
    permute_opt_but_last_mix(c, s);
    mds_lane1(out, c, s);
}

void cz_neptune_hash_plain(cz_fr *out, const cz_neptune_constants *c, const cz_fr *in)
{
    cz_fr s[CZ_NEPTUNE_WIDTH_MAX];
    s[0] = c->domain_tag;
    memcpy(s + 1, in, c->arity * sizeof *s);
    cz_neptune_permute_plain(c, s);
    *out = s[1];
}

cz_status cz_neptune_hash_preimage(cz_fr *out, const cz_neptune_constants *c, const cz_fr *in,
                                   size_t n)
{
    if (!out || !c || (n && !in))
        return CZ_ERR_INVALID_ARG;
    if (c->hash_type == CZ_NEPTUNE_CONSTANT_LENGTH) {
        if (n != c->type_param || n > c->arity)
            return CZ_ERR_INVALID_ARG;
    } else if (n != c->arity) {
        return CZ_ERR_INVALID_ARG;
    }
    cz_fr s[CZ_NEPTUNE_WIDTH_MAX];
    s[0] = c->domain_tag;
    for (unsigned i = 1; i < c->width; i++)
        s[i] = i <= n ? in[i - 1] : CZ_FR_ZERO;
    permute_opt_but_last_mix(c, s);
    mds_lane1(out, c, s);
    return CZ_OK;
}

/* sponge/vanilla.rs Sponge in Simplex mode, one squeeze, ConstantLength(n). */
cz_status cz_neptune_sponge_hash(cz_fr *out, const cz_neptune_constants *c, const cz_fr *in, size_t n)
{
    if (!out || !c || !in || n == 0)
        return CZ_ERR_INVALID_ARG;
    if (c->hash_type != CZ_NEPTUNE_CONSTANT_LENGTH || c->type_param != n)
        return CZ_ERR_INVALID_ARG;
    const unsigned rate = c->arity;
    cz_fr s[CZ_NEPTUNE_WIDTH_MAX];
    s[0] = c->domain_tag;
    for (unsigned i = 1; i < c->width; i++)
        s[i] = CZ_FR_ZERO;
    unsigned pos = 0; /* absorb_pos */
    for (size_t k = 0; k < n; k++) {
        cz_fr_add(&s[1 + pos], &s[1 + pos], &in[k]);
        if (++pos == rate) {
            cz_neptune_permute(c, s);
            pos = 0;
        }
    }
    /* squeeze: a partially absorbed block is padded (lanes after it set to
     * zero) and permuted; a full last block was permuted when it filled. */
    if (pos > 0) {
        for (unsigned i = 1 + pos; i < c->width; i++)
            s[i] = CZ_FR_ZERO;
        cz_neptune_permute(c, s);
    }
    *out = s[1];
    return CZ_OK;
}

typedef struct {
    cz_fr *out;
    const cz_neptune_constants *c;
    const cz_fr *in;
} hash_batch_arg;

static void hash_batch_range(void *arg, size_t lo, size_t hi)
{
    const hash_batch_arg *a = arg;
    for (size_t k = lo; k < hi; k++)
        cz_neptune_hash(&a->out[k], a->c, a->in + k * a->c->arity);
}

void cz_neptune_hash_batch(cz_fr *out, const cz_neptune_constants *c, const cz_fr *in, size_t count,
                           cz_pool *pool)
{
    hash_batch_arg a = {out, c, in};
    cz_pool_parallel_range(pool, 0, count, 256, hash_batch_range, &a);
}
