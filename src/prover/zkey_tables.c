/*
 * MSM tables of a snarkjs .zkey (cuzk prove --zkey --tables), kept in
 * <key>.tables in the format of a parameter set's table file
 * (tables_file.c): the five queries H (§9), L = C (§8), A (§5), B_G1 (§6)
 * and B_G2 (§7), inputs' offsets 0 (the key's A and B queries run over
 * every signal).
 *
 * What is checked before a file is used, and why less than a daemon's:
 * the header, each query's base count against the key, and the digest of
 * the key's bases (a replaced key makes other tables: they are rebuilt,
 * not tried), but not the digest of the whole file. A one-shot process
 * pays that digest at every run (~60 ms for shaped-16's 221 MB on two
 * cores, a third of what the tables save), and it buys nothing here:
 * every proof is verified before it is written, and one made with tables
 * that fails that check is made again without them (cz_snarkjs_prove_tables),
 * so a flipped byte costs a second proof and a rebuilt file, never a wrong
 * proof. The shape is whatever the file holds: a key's tables serve any
 * thread count, and the shape chosen once (for the machine they were built
 * on) is kept until the file is rebuilt.
 */
#include "cuzk/prover.h"
#include "prover_internal.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "common/mono_clock.h"

/* Bases of a query that are not the point at infinity. */
static size_t finite_count(int q, const void *bases, size_t n)
{
    size_t k = 0;
    if (q == CZ_GROTH16_Q_B_G2) {
        for (size_t i = 0; i < n; i++) k += !cz_g2_affine_is_infinity(&((const cz_g2_affine *)bases)[i]);
    } else {
        for (size_t i = 0; i < n; i++) k += !cz_g1_affine_is_infinity(&((const cz_g1_affine *)bases)[i]);
    }
    return k;
}

void cz_prover_zkey_tables_plan(cz_groth16_tables_plan *plan, const cz_snarkjs_zkey *z, uint64_t max_bytes,
                                const cz_pool *pool)
{
    const void *bases[CZ_GROTH16_NQ];
    size_t n[CZ_GROTH16_NQ], pn[CZ_GROTH16_NQ];
    cz_snarkjs_zkey_tables_bases(z, bases, n);
    /* A key's A and B run over every signal, and in many circuits most
     * signals are in no A or no B row: those bases are the point at
     * infinity, which the MSM skips. A query whose bases are mostly that
     * gets no tables: its MSM is small whatever its n, and its tables
     * would be mostly copies of infinity (shaped-18's A, B1 and B2 took
     * 504 of 1,016 MB and saved nothing measurable). */
    for (int q = 0; q < CZ_GROTH16_NQ; q++) pn[q] = 2 * finite_count(q, bases[q], n[q]) >= n[q] ? n[q] : 0;
    cz_groth16_tables_plan_counts(plan, pn, max_bytes, pool);
}

cz_status cz_prover_zkey_tables(cz_groth16_tables **out, const cz_snarkjs_zkey *z, const char *path,
                                uint64_t max_bytes, const cz_groth16_tables_plan *plan, bool build, cz_pool *pool,
                                cz_zkey_tables_info *info, cz_errbuf *err)
{
    *out = NULL;
    memset(info, 0, sizeof *info);
    double t0 = cz_mono_ms();
    const void *bases[CZ_GROTH16_NQ];
    size_t n[CZ_GROTH16_NQ];
    cz_snarkjs_zkey_tables_bases(z, bases, n);
    cz_errbuf fe = {{0}};
    cz_status st = cz__tables_file_map_set(path, bases, n, 0, 0, NULL, false, pool, out, &fe);
    if (st == CZ_OK) {
        info->mapped = true;
        info->ms = cz_mono_ms() - t0;
        return CZ_OK;
    }
    if (st != CZ_ERR_NOT_FOUND) snprintf(info->why, sizeof info->why, "%s", fe.msg);
    if (!build) return CZ_OK;

    cz_groth16_tables_plan pl;
    if (plan) {
        pl = *plan;
        for (int q = 0; q < CZ_GROTH16_NQ; q++)
            if (pl.t[q] && pl.n[q] != n[q])
                return cz_err(err, CZ_ERR_INVALID_ARG, "%s: the plan's query %d has %zu bases, the key %zu", path, q,
                              pl.n[q], n[q]);
    } else {
        cz_prover_zkey_tables_plan(&pl, z, max_bytes, pool);
    }
    if ((st = cz_groth16_tables_build(out, &pl, bases, pool, err)) != CZ_OK) return st;
    if (!*out) { /* nothing pays within max_bytes */
        info->ms = cz_mono_ms() - t0;
        return CZ_OK;
    }
    info->built = true;
    /* kept under a temporary name, then renamed: a reader never sees half
     * a file, and a failed write costs only the next run's build */
    cz__staging s;
    cz__stage_init(&s);
    cz__stage_sweep(path, NULL);
    const char *tmp = cz__stage(&s, path);
    cz_errbuf we = {{0}};
    st = tmp ? cz__tables_file_write_set(tmp, *out, bases, 0, 0, pool, &we)
             : cz_err(&we, CZ_ERR_INVALID_ARG, "%s: path too long", path);
    if (st == CZ_OK) st = cz__stage_commit(&s, false, &we);
    else cz__stage_abort(&s);
    if (st == CZ_OK) info->written = true;
    else snprintf(info->write_error, sizeof info->write_error, "%s", we.msg);
    info->ms = cz_mono_ms() - t0;
    return CZ_OK;
}
