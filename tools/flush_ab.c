/*
 * The AVX2 + MULX batch flush (src/msm/msm_x16.c) of two revisions timed in
 * one process, batch by batch: tools/flush-ab.sh builds it (the other
 * revision's msm_x16.c compiled with its public names prefixed ab_old_).
 *
 * Why in one process: on a shared VM the core's speed comes in spells (a
 * product block read 25 ns in one second and 45–50 ns in the next), so two
 * binaries run in turn differ by ±20 % from run to run, which hides the
 * few per cent a flush change is worth. Here every batch of random points
 * into random buckets is run by both flushes back to back, in alternating
 * order, on the same entries and on bucket sets that start equal; the
 * median of the per-batch time ratios (thread CPU time) is what counts,
 * since a spell slows both members of a pair alike. The two bucket sets
 * must end equal, or the run fails (exit 1).
 *
 * Usage: flush_ab [batches] [entries]   (defaults 3000 and 1022, the batch
 * the MSM flushes at c >= 13). Prints one line per group and a JSON line.
 */
#include "cuzk/curve.h"
#include "msm/msm_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void ab_old_g1_flush(cz_g1_affine *bk, const cz_msm_g1_entry *e, unsigned n, void *scratch);
void ab_old_g2_flush(cz_g2_affine *bk, const cz_msm_g2_entry *e, unsigned n, void *scratch);
size_t ab_old_g1_scratch(unsigned cap);
size_t ab_old_g2_scratch(unsigned cap);

enum { NB = 1 << 15, NP = 4096 }; /* buckets (c = 16) and distinct points */

static double cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng >> 16);
}

static void *xalloc(size_t n)
{
    void *p = aligned_alloc(64, (n + 63) & ~(size_t)63);
    if (!p) {
        fprintf(stderr, "flush_ab: out of memory\n");
        exit(2);
    }
    return p;
}

/* t[v][i]: batch i's time under flush v (0 old, 1 new); prints and keeps
 * the summary in *ratio. */
static void report(const char *g, double *t0, double *t1, unsigned rounds, unsigned n, double *ratio)
{
    double *r = xalloc(sizeof(double) * rounds);
    for (unsigned i = 0; i < rounds; i++) r[i] = t1[i] / t0[i];
    qsort(r, rounds, sizeof *r, cmp_d);
    qsort(t0, rounds, sizeof *t0, cmp_d);
    qsort(t1, rounds, sizeof *t1, cmp_d);
    printf("%s: old fastest %.1f median %.1f ns an addition, new fastest %.1f median %.1f; "
           "new/old paired median %.4f (quartiles %.4f, %.4f)\n",
           g, t0[0] / n, t0[rounds / 2] / n, t1[0] / n, t1[rounds / 2] / n, r[rounds / 2], r[rounds / 4],
           r[3 * rounds / 4]);
    *ratio = r[rounds / 2];
    free(r);
}

int main(int argc, char **argv)
{
    unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 3000;
    unsigned n = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1022;
    if (!cz__msm_x16_supported()) {
        fprintf(stderr, "flush_ab: this CPU has no AVX2 + FMA + ADX: nothing to time\n");
        return 2;
    }
    if (rounds < 4 || n < 1 || n > CZ_MSM_MAX_BATCH) {
        fprintf(stderr, "flush_ab: batches >= 4 and 1 <= entries <= %u\n", CZ_MSM_MAX_BATCH);
        return 2;
    }
    /* distinct points 2^k-spaced multiples of G (affine, canonical) */
    cz_g1_jac *j1 = xalloc(sizeof(cz_g1_jac) * (NB + NP));
    cz_g2_jac *j2 = xalloc(sizeof(cz_g2_jac) * (NB + NP));
    cz_g1_jac a, g;
    cz_g2_jac b, h;
    cz_g1_generator_jac(&g);
    cz_g2_generator_jac(&h);
    a = g, b = h;
    for (unsigned i = 0; i < NB + NP; i++) {
        j1[i] = a, j2[i] = b;
        cz_g1_jac_add(&a, &a, &a), cz_g1_jac_add(&a, &a, &g);
        cz_g2_jac_add(&b, &b, &b), cz_g2_jac_add(&b, &b, &h);
    }
    cz_g1_affine *p1 = xalloc(sizeof(cz_g1_affine) * (NB + NP)), *bk1[2];
    cz_g2_affine *p2 = xalloc(sizeof(cz_g2_affine) * (NB + NP)), *bk2[2];
    cz_g1_batch_to_affine(p1, j1, NB + NP);
    cz_g2_batch_to_affine(p2, j2, NB + NP);
    for (int v = 0; v < 2; v++) {
        bk1[v] = xalloc(sizeof(cz_g1_affine) * NB);
        bk2[v] = xalloc(sizeof(cz_g2_affine) * NB);
        memcpy(bk1[v], p1, sizeof(cz_g1_affine) * NB);
        memcpy(bk2[v], p2, sizeof(cz_g2_affine) * NB);
    }
    size_t s1 = cz__msm_g1_x16_scratch(n), s2 = cz__msm_g2_x16_scratch(n);
    if (ab_old_g1_scratch(n) > s1) s1 = ab_old_g1_scratch(n);
    if (ab_old_g2_scratch(n) > s2) s2 = ab_old_g2_scratch(n);
    void *sc1 = xalloc(s1), *sc2 = xalloc(s2);
    cz_msm_g1_entry *e1 = xalloc(sizeof *e1 * n);
    cz_msm_g2_entry *e2 = xalloc(sizeof *e2 * n);
    unsigned char *used = xalloc(NB);
    double *t[2][2];
    for (int gi = 0; gi < 2; gi++)
        for (int v = 0; v < 2; v++) t[gi][v] = xalloc(sizeof(double) * rounds);
    for (unsigned r = 0; r < rounds; r++) {
        memset(used, 0, NB);
        for (unsigned i = 0; i < n; i++) {
            uint32_t bi;
            do bi = rnd() % NB;
            while (used[bi]);
            used[bi] = 1;
            uint32_t pi = NB + rnd() % NP;
            uint8_t neg = rnd() & 1;
            e1[i] = (cz_msm_g1_entry){.p = &p1[pi], .b = bi, .neg = neg, .dbl = 0};
            e2[i] = (cz_msm_g2_entry){.p = &p2[pi], .b = bi, .neg = neg, .dbl = 0};
        }
        for (unsigned k = 0; k < 2; k++) {
            unsigned v = (r + k) & 1;
            double t0 = cpu_ns();
            if (v) cz__msm_g1_flush_x16(bk1[1], e1, n, sc1);
            else ab_old_g1_flush(bk1[0], e1, n, sc1);
            t[0][v][r] = cpu_ns() - t0;
        }
        for (unsigned k = 0; k < 2; k++) {
            unsigned v = (r + k) & 1;
            double t0 = cpu_ns();
            if (v) cz__msm_g2_flush_x16(bk2[1], e2, n, sc2);
            else ab_old_g2_flush(bk2[0], e2, n, sc2);
            t[1][v][r] = cpu_ns() - t0;
        }
    }
    if (memcmp(bk1[0], bk1[1], sizeof(cz_g1_affine) * NB) || memcmp(bk2[0], bk2[1], sizeof(cz_g2_affine) * NB)) {
        fprintf(stderr, "flush_ab: the two flushes left different buckets\n");
        return 1;
    }
    double q1, q2;
    report("G1", t[0][0], t[0][1], rounds, n, &q1);
    report("G2", t[1][0], t[1][1], rounds, n, &q2);
    printf("{\"batches\":%u,\"entries\":%u,\"g1_new_over_old\":%.4f,\"g2_new_over_old\":%.4f}\n", rounds, n, q1, q2);
    return 0;
}
