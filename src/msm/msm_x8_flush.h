/*
 * Eight-lane batch-affine flush, written once for G1 and G2 (included by
 * msm_x8.c after the lane arithmetic of each field).
 *
 * The including file defines:
 *   AFF, FE, ENTRY      point, field element and batch entry types
 *   F(name)             scalar field function: F(mul) -> cz_fp_mul
 *   LX                  eight field elements in lanes
 *   NCOORD              Fp limbs per coordinate (1: Fp, 2: Fp2)
 *   L(name)             lane function of this field: L(mul) -> f1_mul
 *   FLUSH_NAME          the exported function
 * and the lane functions, each on canonical or "mul-ready" values as
 * documented in msm_x8.c: L(gather), L(scatter), L(neg_mask), L(den),
 * L(num), L(mul), L(x3), L(y3), L(one), L(blend), L(set), and the batch
 * inversion's L(bi_push) (pre[g] and the chain after den[g]) and
 * L(bi_pop) (1/den[g] from pre[g] and the running inverse).
 *
 * Lane l of group g holds entry 8g + l; the prefix products run as eight
 * chains of Fp lanes (G1: the denominators; G2: their norms), inverted
 * together with one Fp inversion; padding lanes of the last group compute
 * on den = 1 and are not stored.
 */

TGT void FLUSH_NAME(AFF *bk, const ENTRY *e, unsigned n, void *scratch)
{
    const unsigned G = (n + 7) / 8;
    LX *pre = (LX *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63);
    LX *den = pre + G, *num = den + G, *x1 = num + G, *y1 = x1 + G, *x2 = y1 + G;
    unsigned char *bbase = (unsigned char *)bk;
    const unsigned char *pbase = (const unsigned char *)e[0].p;
    fx8 acc; /* the eight prefix-product chains, < 2p */
    x8_set(&acc, ONE48);

    /* forward: den, num and the prefix products */
    for (unsigned g = 0; g < G; g++) {
        long long bi[8], pi[8];
        __mmask8 valid = 0, neg = 0, dbl = 0;
        for (int l = 0; l < 8; l++) {
            unsigned i = 8 * g + (unsigned)l;
            const ENTRY *ei = i < n ? &e[i] : &e[0];
            bi[l] = (long long)((size_t)ei->b * sizeof(AFF));
            pi[l] = (long long)((const unsigned char *)ei->p - pbase);
            if (i < n) {
                valid |= (__mmask8)(1u << l);
                if (ei->neg) neg |= (__mmask8)(1u << l);
                if (ei->dbl) dbl |= (__mmask8)(1u << l);
            }
        }
        __m512i ib = _mm512_loadu_si512(bi), ip = _mm512_loadu_si512(pi);
        LX y2;
        L(gather)(&x1[g], ib, bbase);
        L(gather)(&y1[g], ib, bbase + sizeof(FE));
        L(gather)(&x2[g], ip, pbase);
        L(gather)(&y2, ip, pbase + sizeof(FE));
        if (neg) L(neg_mask)(&y2, neg);
        L(den)(&den[g], &x2[g], &x1[g]);
        L(num)(&num[g], &y2, &y1[g]);
        if (valid != 0xff) {
            LX one;
            L(one)(&one);
            L(blend)(&den[g], &one, (__mmask8)~valid);
        }
        for (int l = 0; dbl && l < 8; l++) {
            if (!(dbl >> l & 1)) continue;
            /* doubling (P = B): den = 2·y1, num = 3·x1^2, in scalar */
            const AFF *bb = &bk[e[8 * g + (unsigned)l].b];
            FE d, s, t;
            F(dbl)(&d, &bb->y);
            F(sqr)(&t, &bb->x);
            F(dbl)(&s, &t);
            F(add)(&s, &s, &t);
            L(set)(&den[g], l, &d);
            L(set)(&num[g], l, &s);
        }
        L(bi_push)(&pre[g], &den[g], &acc);
    }

    /* one inversion for the eight chains (batched in scalar) */
    cz_fp a[8], pa[8], inv, ti;
    x8_csub(&acc, P48);
    for (int l = 0; l < 8; l++) lane_get(&a[l], &acc, l);
    pa[0] = a[0];
    for (int l = 1; l < 8; l++) cz_fp_mul(&pa[l], &pa[l - 1], &a[l]);
    cz_fp_inv_var(&inv, &pa[7]);
    fx8 iv;
    for (int l = 7; l > 0; l--) {
        cz_fp_mul(&ti, &inv, &pa[l - 1]);
        cz_fp_mul(&inv, &inv, &a[l]);
        lane_set(&iv, l, &ti);
    }
    lane_set(&iv, 0, &inv);

    /* backward: λ = num/den, x3 = λ^2 - x1 - x2, y3 = λ(x1 - x3) - y1 */
    for (unsigned g = G; g-- > 0;) {
        long long bi[8];
        __mmask8 valid = 0;
        for (int l = 0; l < 8; l++) {
            unsigned i = 8 * g + (unsigned)l;
            bi[l] = (long long)((size_t)(i < n ? e[i].b : e[0].b) * sizeof(AFF));
            if (i < n) valid |= (__mmask8)(1u << l);
        }
        LX ii, lam, x3, y3;
        L(bi_pop)(&pre[g], &den[g], &iv, &ii);
        L(mul)(&lam, &num[g], &ii);
        L(x3)(&x3, &lam, &x1[g], &x2[g]);
        L(y3)(&y3, &lam, &x1[g], &x3, &y1[g]);
        __m512i ib = _mm512_loadu_si512(bi);
        L(scatter)(&x3, ib, bbase, valid);
        L(scatter)(&y3, ib, bbase + sizeof(FE), valid);
    }
}
