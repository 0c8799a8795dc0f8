/*
 * Group-law tests written once for G1 and G2 (template header: the including
 * file defines TG = g1 / g2, TFE = cz_fp / cz_fp2, TF = fp / fp2 and
 * includes this file once per group).
 */
#define TC_(a, b, c) a##b##c
#define TC(a, b, c) TC_(a, b, c)
#define GF(n) TC(cz_, TG, n)
#define FF(n) TC(cz_, TF, n)
#define TN(n) TC(TG, _, n)

typedef GF(_affine) TN(t_aff);
typedef GF(_jac) TN(t_jac);
typedef GF(_xyzz) TN(t_xyzz);

/* [k]G for a random k: a Jacobian point with a random-looking Z. */
static void TN(rand_point)(TN(t_jac) *p)
{
    cz_scalar k;
    TN(t_jac) g;
    rng_scalar(&k);
    GF(_generator_jac)(&g);
    GF(_jac_mul_var)(p, &g, k.l, 4);
}

/* Same point, other representation: (λ²X, λ³Y, λZ). */
static void TN(rescale)(TN(t_jac) *r, const TN(t_jac) *p)
{
    TFE l, l2, l3;
    do { TC(cz_rng_, TF, )(&l); } while (FF(_is_zero)(&l));
    FF(_sqr)(&l2, &l);
    FF(_mul)(&l3, &l2, &l);
    FF(_mul)(&r->x, &p->x, &l2);
    FF(_mul)(&r->y, &p->y, &l3);
    FF(_mul)(&r->z, &p->z, &l);
}

/* Reference: plain double-and-add over the bits of k, top down. */
static void TN(naive_mul)(TN(t_jac) *r, const TN(t_jac) *p, const uint64_t *k, size_t n)
{
    TN(t_jac) acc;
    GF(_jac_set_infinity)(&acc);
    for (size_t i = 64 * n; i-- > 0;) {
        GF(_jac_dbl)(&acc, &acc);
        if ((k[i / 64] >> (i % 64)) & 1) GF(_jac_add)(&acc, &acc, p);
    }
    *r = acc;
}

static bool TN(naive_in_subgroup)(const TN(t_jac) *p)
{
    TN(t_jac) t;
    GF(_jac_mul_var)(&t, p, CZ_FR_MODULUS, 4);
    return GF(_jac_is_infinity)(&t);
}

static void TN(generator)(void **state)
{
    (void)state;
    TN(t_aff) g, g2;
    TN(t_jac) gj;
    GF(_generator)(&g);
    GF(_generator_jac)(&gj);
    GF(_jac_to_affine)(&g2, &gj);
    assert_true(GF(_affine_eq)(&g, &g2));
    assert_false(GF(_affine_is_infinity)(&g));
    assert_true(GF(_affine_is_on_curve)(&g));
    assert_true(GF(_jac_is_on_curve)(&gj));
    assert_true(GF(_affine_in_subgroup)(&g));
    assert_true(TN(naive_in_subgroup)(&gj));
}

static void TN(infinity)(void **state)
{
    (void)state;
    TN(t_aff) a, b;
    TN(t_jac) j, k, p;
    GF(_affine_set_infinity)(&a);
    assert_true(GF(_affine_is_infinity)(&a));
    assert_true(FF(_is_zero)(&a.x) && FF(_is_zero)(&a.y));
    assert_true(GF(_affine_is_on_curve)(&a));
    assert_true(GF(_affine_in_subgroup)(&a));
    GF(_jac_from_affine)(&j, &a);
    assert_true(GF(_jac_is_infinity)(&j));
    GF(_jac_set_infinity)(&k);
    assert_true(GF(_jac_eq)(&j, &k));
    assert_true(GF(_jac_is_on_curve)(&k));
    assert_true(GF(_jac_in_subgroup)(&k));
    GF(_jac_to_affine)(&b, &k);
    assert_true(FF(_is_zero)(&b.x) && FF(_is_zero)(&b.y));
    GF(_affine_neg)(&b, &a);
    assert_true(GF(_affine_is_infinity)(&b));
    GF(_jac_dbl)(&p, &k);
    assert_true(GF(_jac_is_infinity)(&p));
    GF(_jac_add)(&p, &k, &j);
    assert_true(GF(_jac_is_infinity)(&p));
    GF(_jac_add_affine)(&p, &k, &a);
    assert_true(GF(_jac_is_infinity)(&p));
    TN(rand_point)(&p);
    assert_false(GF(_jac_eq)(&p, &k));
    assert_false(GF(_jac_eq)(&k, &p));
    cz_scalar zero = {{0}};
    GF(_jac_mul_ct)(&j, &p, &zero);
    assert_true(GF(_jac_is_infinity)(&j));
    GF(_jac_mul_var)(&j, &p, zero.l, 4);
    assert_true(GF(_jac_is_infinity)(&j));
    GF(_jac_mul_var)(&j, &p, zero.l, 0);
    assert_true(GF(_jac_is_infinity)(&j));
}

static void TN(laws)(void **state)
{
    (void)state;
    int iters = EC_ITERS(40, 8);
    for (int it = 0; it < iters; it++) {
        TN(t_jac) p, q, s, t, u, v, o, np, ps;
        TN(t_aff) pa, qa, npa, oa;
        TN(rand_point)(&p);
        TN(rand_point)(&q);
        TN(rand_point)(&s);
        GF(_jac_set_infinity)(&o);
        GF(_affine_set_infinity)(&oa);
        assert_true(GF(_jac_is_on_curve)(&p));
        /* associativity and commutativity */
        GF(_jac_add)(&t, &p, &q);
        GF(_jac_add)(&t, &t, &s);
        GF(_jac_add)(&u, &q, &s);
        GF(_jac_add)(&u, &p, &u);
        assert_true(GF(_jac_eq)(&t, &u));
        assert_true(GF(_jac_is_on_curve)(&t));
        GF(_jac_add)(&t, &p, &q);
        GF(_jac_add)(&u, &q, &p);
        assert_true(GF(_jac_eq)(&t, &u));
        /* identity */
        GF(_jac_add)(&t, &p, &o);
        assert_true(GF(_jac_eq)(&t, &p));
        GF(_jac_add)(&t, &o, &p);
        assert_true(GF(_jac_eq)(&t, &p));
        /* inverse */
        GF(_jac_neg)(&np, &p);
        assert_false(GF(_jac_eq)(&np, &p));
        GF(_jac_add)(&t, &p, &np);
        assert_true(GF(_jac_is_infinity)(&t));
        /* equality across representations; doubling = self-addition, also
         * when the two operands are the same point in different coordinates */
        TN(rescale)(&ps, &p);
        assert_true(GF(_jac_eq)(&ps, &p));
        GF(_jac_dbl)(&t, &p);
        GF(_jac_add)(&u, &p, &p);
        assert_true(GF(_jac_eq)(&t, &u));
        GF(_jac_add)(&u, &p, &ps);
        assert_true(GF(_jac_eq)(&t, &u));
        assert_false(GF(_jac_eq)(&t, &p));
        /* 2P + P = 3P = P + P + P computed another way */
        GF(_jac_add)(&u, &t, &p);
        GF(_jac_add)(&v, &p, &t);
        assert_true(GF(_jac_eq)(&u, &v));
        /* aliasing: r == a, r == b */
        v = p;
        GF(_jac_add)(&v, &v, &q);
        GF(_jac_add)(&t, &p, &q);
        assert_true(GF(_jac_eq)(&v, &t));
        v = q;
        GF(_jac_add)(&v, &p, &v);
        assert_true(GF(_jac_eq)(&v, &t));
        /* mixed addition == full addition, all special cases */
        GF(_jac_to_affine)(&pa, &p);
        GF(_jac_to_affine)(&qa, &q);
        assert_true(GF(_affine_is_on_curve)(&pa));
        GF(_jac_add_affine)(&u, &p, &qa);
        assert_true(GF(_jac_eq)(&u, &t));
        GF(_jac_add_affine)(&u, &ps, &pa);           /* P + P */
        GF(_jac_dbl)(&v, &p);
        assert_true(GF(_jac_eq)(&u, &v));
        GF(_affine_neg)(&npa, &pa);
        GF(_jac_add_affine)(&u, &ps, &npa);          /* P - P */
        assert_true(GF(_jac_is_infinity)(&u));
        GF(_jac_add_affine)(&u, &o, &qa);            /* O + Q */
        assert_true(GF(_jac_eq)(&u, &q));
        GF(_jac_add_affine)(&u, &p, &oa);            /* P + O */
        assert_true(GF(_jac_eq)(&u, &p));
        /* the _var additions agree with the complete ones on every case */
        {
            const TN(t_jac) *ops[] = {&p, &q, &ps, &np, &o};
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 5; j++) {
                    TN(t_aff) bj;
                    GF(_jac_add)(&u, ops[i], ops[j]);
                    GF(_jac_add_var)(&v, ops[i], ops[j]);
                    assert_true(GF(_jac_eq)(&u, &v));
                    GF(_jac_to_affine)(&bj, ops[j]);
                    GF(_jac_add_affine)(&u, ops[i], &bj);
                    assert_true(GF(_jac_eq)(&u, &v));
                    GF(_jac_add_affine_var)(&u, ops[i], &bj);
                    assert_true(GF(_jac_eq)(&u, &v));
                }
        }
        /* jac <-> affine round trip */
        GF(_jac_from_affine)(&u, &pa);
        assert_true(GF(_jac_eq)(&u, &p));
    }
}

static void TN(xyzz)(void **state)
{
    (void)state;
    enum { N = 24 };
    int iters = EC_ITERS(10, 3);
    for (int it = 0; it < iters; it++) {
        /* A bucket-like sequence with repeats, negations and infinity so
         * every special case of the _var formulas is hit. */
        TN(t_aff) pts[N];
        TN(t_jac) pj[N];
        for (int i = 0; i < N; i++) TN(rand_point)(&pj[i]);
        GF(_batch_to_affine)(pts, pj, N);
        pts[3] = pts[1];
        GF(_affine_neg)(&pts[5], &pts[4]);
        GF(_affine_set_infinity)(&pts[7]);
        pts[9] = pts[8];
        TN(t_xyzz) acc, acc2, b, c;
        TN(t_jac) ref, t;
        GF(_xyzz_set_infinity)(&acc);
        assert_true(GF(_xyzz_is_infinity)(&acc));
        GF(_jac_set_infinity)(&ref);
        for (int i = 0; i < N; i++) {
            if (i % 5 == 4) {
                GF(_xyzz_sub_affine_var)(&acc, &acc, &pts[i]);
                TN(t_aff) n;
                GF(_affine_neg)(&n, &pts[i]);
                GF(_jac_add_affine)(&ref, &ref, &n);
            } else {
                GF(_xyzz_add_affine_var)(&acc, &acc, &pts[i]);
                GF(_jac_add_affine)(&ref, &ref, &pts[i]);
            }
            GF(_xyzz_to_jac)(&t, &acc);
            assert_true(GF(_jac_eq)(&t, &ref));
        }
        /* P + P and P - P through add_affine from a non-affine bucket */
        GF(_jac_to_xyzz)(&acc, &pj[0]);
        GF(_xyzz_add_affine_var)(&acc2, &acc, &pts[0]);
        GF(_jac_dbl)(&ref, &pj[0]);
        GF(_xyzz_to_jac)(&t, &acc2);
        assert_true(GF(_jac_eq)(&t, &ref));
        GF(_xyzz_sub_affine_var)(&acc2, &acc, &pts[0]);
        assert_true(GF(_xyzz_is_infinity)(&acc2));
        GF(_xyzz_to_jac)(&t, &acc2);
        assert_true(GF(_jac_is_infinity)(&t));
        /* xyzz + xyzz == jacobian add, incl. equal and opposite operands */
        GF(_jac_to_xyzz)(&b, &pj[1]);
        GF(_jac_to_xyzz)(&c, &pj[2]);
        GF(_xyzz_add_var)(&acc, &b, &c);
        GF(_jac_add)(&ref, &pj[1], &pj[2]);
        GF(_xyzz_to_jac)(&t, &acc);
        assert_true(GF(_jac_eq)(&t, &ref));
        TN(t_jac) r1;
        TN(rescale)(&r1, &pj[1]);
        GF(_jac_to_xyzz)(&c, &r1);
        GF(_xyzz_add_var)(&acc, &b, &c);              /* P + P */
        GF(_jac_dbl)(&ref, &pj[1]);
        GF(_xyzz_to_jac)(&t, &acc);
        assert_true(GF(_jac_eq)(&t, &ref));
        GF(_xyzz_dbl_var)(&acc, &b);
        GF(_xyzz_to_jac)(&t, &acc);
        assert_true(GF(_jac_eq)(&t, &ref));
        GF(_jac_neg)(&r1, &r1);
        GF(_jac_to_xyzz)(&c, &r1);
        GF(_xyzz_add_var)(&acc, &b, &c);              /* P - P */
        assert_true(GF(_xyzz_is_infinity)(&acc));
        GF(_xyzz_set_infinity)(&c);
        GF(_xyzz_add_var)(&acc, &b, &c);
        GF(_xyzz_to_jac)(&t, &acc);
        assert_true(GF(_jac_eq)(&t, &pj[1]));
        GF(_xyzz_add_var)(&acc, &c, &b);
        GF(_xyzz_to_jac)(&t, &acc);
        assert_true(GF(_jac_eq)(&t, &pj[1]));
        GF(_xyzz_dbl_var)(&acc, &c);
        assert_true(GF(_xyzz_is_infinity)(&acc));
        /* aliasing r == a in add_var */
        GF(_jac_to_xyzz)(&c, &pj[2]);
        acc = b;
        GF(_xyzz_add_var)(&acc, &acc, &c);
        GF(_jac_add)(&ref, &pj[1], &pj[2]);
        GF(_xyzz_to_jac)(&t, &acc);
        assert_true(GF(_jac_eq)(&t, &ref));
        acc = c;
        GF(_xyzz_add_var)(&acc, &b, &acc);
        GF(_xyzz_to_jac)(&t, &acc);
        assert_true(GF(_jac_eq)(&t, &ref));
    }
}

static void TN(scalar_mul)(void **state)
{
    (void)state;
    int iters = EC_ITERS(12, 3);
    TN(t_jac) p, a, b, c, o;
    GF(_jac_set_infinity)(&o);
    for (int it = 0; it < iters; it++) {
        TN(rand_point)(&p);
        /* [r]P = O */
        GF(_jac_mul_var)(&a, &p, CZ_FR_MODULUS, 4);
        assert_true(GF(_jac_is_infinity)(&a));
        cz_scalar rs;
        memcpy(rs.l, CZ_FR_MODULUS, sizeof rs.l);
        GF(_jac_mul_ct)(&a, &p, &rs);
        assert_true(GF(_jac_is_infinity)(&a));
        /* mul_ct == mul_var == naive, on random and edge scalars */
        cz_scalar k;
        rng_scalar(&k);
        if (it == 1) { memset(k.l, 0xff, sizeof k.l); }          /* 2^256 - 1 */
        if (it == 2) { memset(k.l, 0, sizeof k.l); k.l[0] = 1; }
        if (it == 3) { memcpy(k.l, CZ_FR_MODULUS, sizeof k.l); k.l[0] -= 1; } /* r - 1 */
        if (it == 4) { memset(k.l, 0, sizeof k.l); k.l[3] = 1ULL << 63; }
        GF(_jac_mul_ct)(&a, &p, &k);
        GF(_jac_mul_var)(&b, &p, k.l, 4);
        TN(naive_mul)(&c, &p, k.l, 4);
        assert_true(GF(_jac_eq)(&a, &c));
        assert_true(GF(_jac_eq)(&b, &c));
        if (it == 3) {                                            /* [r-1]P = -P */
            GF(_jac_neg)(&c, &p);
            assert_true(GF(_jac_eq)(&a, &c));
        }
        /* aliasing r == p */
        c = p;
        GF(_jac_mul_ct)(&c, &c, &k);
        assert_true(GF(_jac_eq)(&a, &c));
        c = p;
        GF(_jac_mul_var)(&c, &c, k.l, 4);
        assert_true(GF(_jac_eq)(&a, &c));
        /* long scalars (5 limbs) for mul_var */
        uint64_t kl[5];
        for (int i = 0; i < 5; i++) kl[i] = cz_rng_u64();
        GF(_jac_mul_var)(&b, &p, kl, 5);
        TN(naive_mul)(&c, &p, kl, 5);
        assert_true(GF(_jac_eq)(&b, &c));
        /* small scalars against repeated addition */
        TN(t_jac) acc = o;
        for (uint64_t s = 0; s < 20; s++) {
            cz_scalar ks = {{s, 0, 0, 0}};
            GF(_jac_mul_var)(&b, &p, &s, 1);
            GF(_jac_mul_ct)(&a, &p, &ks);
            assert_true(GF(_jac_eq)(&b, &acc));
            assert_true(GF(_jac_eq)(&a, &acc));
            GF(_jac_add)(&acc, &acc, &p);
        }
        /* [a]([b]P) = [ab]P and [a]P + [b]P = [a+b]P, scalars mod r */
        cz_fr fa, fb, fab;
        cz_scalar sa, sb, sab;
        cz_rng_fr(&fa);
        cz_rng_fr(&fb);
        cz_fr_mul(&fab, &fa, &fb);
        cz_scalar_from_fr(&sa, &fa);
        cz_scalar_from_fr(&sb, &fb);
        cz_scalar_from_fr(&sab, &fab);
        GF(_jac_mul_var)(&a, &p, sb.l, 4);
        GF(_jac_mul_ct)(&a, &a, &sa);
        GF(_jac_mul_var)(&b, &p, sab.l, 4);
        assert_true(GF(_jac_eq)(&a, &b));
        cz_fr_add(&fab, &fa, &fb);
        cz_scalar_from_fr(&sab, &fab);
        GF(_jac_mul_ct)(&a, &p, &sa);
        GF(_jac_mul_ct)(&b, &p, &sb);
        GF(_jac_add)(&a, &a, &b);
        GF(_jac_mul_ct)(&b, &p, &sab);
        assert_true(GF(_jac_eq)(&a, &b));
    }
    /* the scalar of an Fr element is its canonical value */
    cz_fr f;
    cz_scalar s;
    cz_fr_from_u64(&f, 12345);
    cz_scalar_from_fr(&s, &f);
    assert_true(s.l[0] == 12345 && s.l[1] == 0 && s.l[2] == 0 && s.l[3] == 0);
}

static void TN(batch_affine)(void **state)
{
    (void)state;
    enum { N = 37 };
    TN(t_jac) in[N];
    TN(t_aff) out[N], one;
    for (int i = 0; i < N; i++) TN(rand_point)(&in[i]);
    GF(_jac_set_infinity)(&in[0]);
    GF(_jac_set_infinity)(&in[17]);
    GF(_jac_set_infinity)(&in[N - 1]);
    GF(_batch_to_affine)(out, in, N);
    for (int i = 0; i < N; i++) {
        GF(_jac_to_affine)(&one, &in[i]);
        assert_true(GF(_affine_eq)(&one, &out[i]));
    }
    assert_true(GF(_affine_is_infinity)(&out[17]));
    GF(_batch_to_affine)(out, in, 0);                 /* n = 0 is a no-op */
    GF(_batch_to_affine)(out, in + 1, 1);
    GF(_jac_to_affine)(&one, &in[1]);
    assert_true(GF(_affine_eq)(&one, &out[0]));
    GF(_jac_set_infinity)(&in[0]);                    /* all infinity */
    GF(_batch_to_affine)(out, in, 1);
    assert_true(GF(_affine_is_infinity)(&out[0]));
}

static void TN(subgroup)(void **state)
{
    (void)state;
    int iters = EC_ITERS(16, 4);
    for (int it = 0; it < iters; it++) {
        TN(t_jac) p, q;
        TN(t_aff) pa;
        TN(rand_point)(&p);
        assert_true(GF(_jac_in_subgroup)(&p));
        GF(_jac_to_affine)(&pa, &p);
        assert_true(GF(_affine_in_subgroup)(&pa));
        /* on the curve, cofactor not cleared */
        TC(t_, TG, _random_curve_point)(&pa);
        assert_true(GF(_affine_is_on_curve)(&pa));
        GF(_jac_from_affine)(&q, &pa);
        assert_true(GF(_jac_is_on_curve)(&q));
        bool naive = TN(naive_in_subgroup)(&q);
        assert_false(naive);                          /* probability ~2^-128 */
        assert_int_equal(GF(_affine_in_subgroup)(&pa), naive);
        assert_int_equal(GF(_jac_in_subgroup)(&q), naive);
        /* P + (outside point) is outside as well */
        GF(_jac_add)(&q, &q, &p);
        assert_false(GF(_jac_in_subgroup)(&q));
    }
}

static void TN(cofactor)(void **state)
{
    (void)state;
    int iters = EC_ITERS(6, 2);
    for (int it = 0; it < iters; it++) {
        TN(t_aff) pa;
        TN(t_jac) p, c, ref, t;
        TC(t_, TG, _random_curve_point)(&pa);
        GF(_jac_from_affine)(&p, &pa);
        GF(_clear_cofactor)(&c, &p);
        assert_false(GF(_jac_is_infinity)(&c));
        assert_true(GF(_jac_is_on_curve)(&c));
        assert_true(TN(naive_in_subgroup)(&c));
        assert_true(GF(_jac_in_subgroup)(&c));
        /* equals [h_eff]P by plain multiplication (RFC 9380 h_eff) */
        GF(_jac_mul_var)(&ref, &p, TN(h_eff), sizeof TN(h_eff) / 8);
        assert_true(GF(_jac_eq)(&c, &ref));
        /* aliasing */
        t = p;
        GF(_clear_cofactor)(&t, &t);
        assert_true(GF(_jac_eq)(&t, &ref));
    }
    TN(t_jac) o, r;
    GF(_jac_set_infinity)(&o);
    GF(_clear_cofactor)(&r, &o);
    assert_true(GF(_jac_is_infinity)(&r));
}

#define TN_TESTS(G)                               \
    cmocka_unit_test(G##_generator),              \
    cmocka_unit_test(G##_infinity),               \
    cmocka_unit_test(G##_laws),                   \
    cmocka_unit_test(G##_xyzz),                   \
    cmocka_unit_test(G##_scalar_mul),             \
    cmocka_unit_test(G##_batch_affine),           \
    cmocka_unit_test(G##_subgroup),               \
    cmocka_unit_test(G##_cofactor)

#undef GF
#undef FF
#undef TN
