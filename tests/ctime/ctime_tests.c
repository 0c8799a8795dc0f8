/*
 * Constant-time checks under valgrind (the approach of libsecp256k1's
 * ctime tests): every secret is marked undefined with
 * VALGRIND_MAKE_MEM_UNDEFINED, then the code that handles it runs. Memcheck
 * reports each conditional branch and each memory address computed from an
 * undefined value ("Conditional jump or move depends on uninitialised
 * value(s)", "Use of uninitialised value of size 8"), so a secret-dependent
 * branch or table index fails the test (ctest runs it as
 * `valgrind --error-exitcode=42 ...`). Outside valgrind the requests are
 * no-ops and the program only exercises the paths.
 *
 * Covered: cz_g1/g2_jac_mul_ct (secret scalar; and secret point, as for
 * C = [s]A), the setup's fixed-base comb and batch conversion (secret query
 * scalars), cz_fr_inv / cz_fp_inv (setup inverts gamma, delta and the
 * Lagrange denominators; to_affine inverts the secret Z), and
 * cz_groth16_prove_finish with secret r, s.
 *
 * How to see it fail: make a covered path branch on a secret bit, e.g. in
 * GFN(_jac_mul_ct) (src/ec/ec_impl.h) replace the table scan by
 * `if (digit) GFN(_jac_add)(&acc, &acc, &tab[digit]);`, rebuild and run
 * `ctest -R ctime_tests`: valgrind reports the jump in cz_g1_jac_mul_ct
 * and the test fails with exit status 42.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <valgrind/memcheck.h>
#include "cuzk/curve.h"
#include "cuzk/field.h"
#include "cuzk/groth16.h"
#include "groth16/groth16_internal.h"
#include "testutil.h"

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED((p), (n))
/* Results derived from secrets: made defined again only to print them /
 * compare them after the constant-time region (a declassification). */
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED((p), (n))

static int failures;

#define CHECK(c)                                                                     \
    do {                                                                             \
        if (!(c)) {                                                                  \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c);    \
            failures++;                                                              \
        }                                                                            \
    } while (0)

static void scalar_rand(cz_scalar *k)
{
    cz_fr f;
    cz_rng_fr(&f);
    cz_scalar_from_fr(k, &f);
}

static void ctime_mul_ct(void)
{
    cz_g1_jac g1, p1, r1, ref1;
    cz_g2_jac g2, p2, r2, ref2;
    cz_scalar k;
    cz_g1_generator_jac(&g1);
    cz_g2_generator_jac(&g2);
    for (int it = 0; it < 4; it++) {
        scalar_rand(&k);
        cz_g1_jac_mul_var(&ref1, &g1, k.l, 4);
        cz_g2_jac_mul_var(&ref2, &g2, k.l, 4);
        SECRET(&k, sizeof k);
        cz_g1_jac_mul_ct(&r1, &g1, &k);
        cz_g2_jac_mul_ct(&r2, &g2, &k);
        PUBLIC(&r1, sizeof r1);
        PUBLIC(&r2, sizeof r2);
        CHECK(cz_g1_jac_eq(&r1, &ref1));
        CHECK(cz_g2_jac_eq(&r2, &ref2));
        /* secret point too (prove_finish multiplies A and B1, which carry r) */
        p1 = ref1;
        p2 = ref2;
        scalar_rand(&k);
        SECRET(&k, sizeof k);
        SECRET(&p1, sizeof p1);
        SECRET(&p2, sizeof p2);
        cz_g1_jac_mul_ct(&r1, &p1, &k);
        cz_g2_jac_mul_ct(&r2, &p2, &k);
        PUBLIC(&r1, sizeof r1);
        PUBLIC(&r2, sizeof r2);
        PUBLIC(&k, sizeof k);
        cz_g1_jac_mul_var(&ref1, &ref1, k.l, 4);
        cz_g2_jac_mul_var(&ref2, &ref2, k.l, 4);
        CHECK(cz_g1_jac_eq(&r1, &ref1));
        CHECK(cz_g2_jac_eq(&r2, &ref2));
    }
}

static void ctime_comb(void)
{
    enum { N = 5 };
    cz_fr s[N];
    cz_g1_affine o1[N];
    cz_g2_affine o2[N];
    for (int i = 0; i < N; i++) cz_rng_fr(&s[i]);
    SECRET(s, sizeof s);
    CHECK(cz__groth16_comb_batch(o1, o2, s, N) == CZ_OK);
    PUBLIC(s, sizeof s);
    PUBLIC(o1, sizeof o1);
    PUBLIC(o2, sizeof o2);
    cz_g1_jac g1, r1, a1;
    cz_g2_jac g2, r2, a2;
    cz_g1_generator_jac(&g1);
    cz_g2_generator_jac(&g2);
    for (int i = 0; i < N; i++) {
        cz_scalar k;
        cz_scalar_from_fr(&k, &s[i]);
        cz_g1_jac_mul_var(&r1, &g1, k.l, 4);
        cz_g2_jac_mul_var(&r2, &g2, k.l, 4);
        cz_g1_jac_from_affine(&a1, &o1[i]);
        cz_g2_jac_from_affine(&a2, &o2[i]);
        CHECK(cz_g1_jac_eq(&r1, &a1));
        CHECK(cz_g2_jac_eq(&r2, &a2));
    }
}

static void ctime_inv(void)
{
    for (int it = 0; it < 4; it++) {
        cz_fr a, ai, prod;
        cz_rng_fr(&a);
        SECRET(&a, sizeof a);
        cz_fr_inv(&ai, &a);
        cz_fr_mul(&prod, &ai, &a);
        PUBLIC(&prod, sizeof prod);
        CHECK(cz_fr_is_one(&prod));
        cz_fp b, bi, pb;
        cz_rng_fp(&b);
        SECRET(&b, sizeof b);
        cz_fp_inv(&bi, &b);
        cz_fp_mul(&pb, &bi, &b);
        PUBLIC(&pb, sizeof pb);
        CHECK(cz_fp_is_one(&pb));
    }
}

/* prove_finish on a pending proof with random (public) MSM results: r and s
 * are the secrets. The proof is checked against the same formula computed
 * here in variable time. */
static void ctime_prove_finish(void)
{
    cz_groth16_params params;
    memset(&params, 0, sizeof params);
    cz_g1_jac g1, t1;
    cz_g2_jac g2, t2;
    cz_g1_generator_jac(&g1);
    cz_g2_generator_jac(&g2);
    cz_scalar k;
#define RAND_G1(dst) do { scalar_rand(&k); cz_g1_jac_mul_var(&t1, &g1, k.l, 4); cz_g1_jac_to_affine(dst, &t1); } while (0)
#define RAND_G2(dst) do { scalar_rand(&k); cz_g2_jac_mul_var(&t2, &g2, k.l, 4); cz_g2_jac_to_affine(dst, &t2); } while (0)
    RAND_G1(&params.vk.alpha_g1);
    RAND_G1(&params.vk.beta_g1);
    RAND_G1(&params.vk.delta_g1);
    RAND_G2(&params.vk.beta_g2);
    RAND_G2(&params.vk.gamma_g2);
    RAND_G2(&params.vk.delta_g2);
    for (int it = 0; it < 2; it++) {
        cz_groth16_pending *p = calloc(1, sizeof *p);
        CHECK(p != NULL);
        if (!p) return;
        p->params = &params;
        p->b2_status = CZ_OK;
        cz_g1_affine h, l, a, b1;
        cz_g2_affine b2;
        RAND_G1(&h);
        RAND_G1(&l);
        RAND_G1(&a);
        RAND_G1(&b1);
        RAND_G2(&b2);
        cz_g1_jac_from_affine(&p->h, &h);
        cz_g1_jac_from_affine(&p->l, &l);
        cz_g1_jac_from_affine(&p->a, &a);
        cz_g1_jac_from_affine(&p->b1, &b1);
        cz_g2_jac_from_affine(&p->b2, &b2);
        cz_fr rs[2];
        cz_rng_fr(&rs[0]);
        cz_rng_fr(&rs[1]);
        cz_fr rs_copy[2] = {rs[0], rs[1]};
        uint8_t proof[CZ_GROTH16_PROOF_BYTES];
        cz_errbuf err = {{0}};
        SECRET(rs, sizeof rs);
        cz_status st = cz_groth16_prove_finish(p, rs, proof, NULL, &err); /* frees p */
        PUBLIC(proof, sizeof proof);
        CHECK(st == CZ_OK);
        /* expected: A = alpha + a + r delta, B = beta2 + b2 + s delta2,
         * C = s A + r (beta1 + b1 + s delta1) - r s delta1 + h + l */
        cz_scalar r, s, rsk;
        cz_fr rsf;
        cz_fr_mul(&rsf, &rs_copy[0], &rs_copy[1]);
        cz_scalar_from_fr(&r, &rs_copy[0]);
        cz_scalar_from_fr(&s, &rs_copy[1]);
        cz_scalar_from_fr(&rsk, &rsf);
        cz_g1_jac d1, A, B1, C, x;
        cz_g2_jac d2, B, y;
        cz_g1_jac_from_affine(&d1, &params.vk.delta_g1);
        cz_g2_jac_from_affine(&d2, &params.vk.delta_g2);
        cz_g1_jac_mul_var(&x, &d1, r.l, 4);
        cz_g1_jac_from_affine(&A, &params.vk.alpha_g1);
        cz_g1_jac_add_affine(&A, &A, &a);
        cz_g1_jac_add(&A, &A, &x);
        cz_g2_jac_mul_var(&y, &d2, s.l, 4);
        cz_g2_jac_from_affine(&B, &params.vk.beta_g2);
        cz_g2_jac_add_affine(&B, &B, &b2);
        cz_g2_jac_add(&B, &B, &y);
        cz_g1_jac_mul_var(&x, &d1, s.l, 4);
        cz_g1_jac_from_affine(&B1, &params.vk.beta_g1);
        cz_g1_jac_add_affine(&B1, &B1, &b1);
        cz_g1_jac_add(&B1, &B1, &x);
        cz_g1_jac_mul_var(&C, &A, s.l, 4);
        cz_g1_jac_mul_var(&x, &B1, r.l, 4);
        cz_g1_jac_add(&C, &C, &x);
        cz_g1_jac_mul_var(&x, &d1, rsk.l, 4);
        cz_g1_jac_neg(&x, &x);
        cz_g1_jac_add(&C, &C, &x);
        cz_g1_jac_add_affine(&C, &C, &h);
        cz_g1_jac_add_affine(&C, &C, &l);
        cz_groth16_proof want;
        cz_g1_jac_to_affine(&want.a, &A);
        cz_g2_jac_to_affine(&want.b, &B);
        cz_g1_jac_to_affine(&want.c, &C);
        uint8_t want_bytes[CZ_GROTH16_PROOF_BYTES];
        cz_groth16_proof_encode(want_bytes, &want);
        CHECK(memcmp(proof, want_bytes, sizeof proof) == 0);
    }
#undef RAND_G1
#undef RAND_G2
}

int main(void)
{
    fprintf(stderr, "ctime_tests: %s valgrind\n", RUNNING_ON_VALGRIND ? "under" : "NOT under");
    ctime_mul_ct();
    ctime_comb();
    ctime_inv();
    ctime_prove_finish();
    if (failures) {
        fprintf(stderr, "ctime_tests: %d check(s) failed\n", failures);
        return 1;
    }
    fprintf(stderr, "ctime_tests: all checks passed\n");
    return 0;
}
