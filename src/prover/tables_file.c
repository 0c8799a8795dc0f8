/*
 * MSM table files: a parameter set's precomputed MSM tables
 * (cz_groth16_params_build_tables) kept on disk beside its .cache, so that
 * a restart maps them back in a fraction of a second instead of building
 * them again (13 s for shaped-16's 221 MB on two Zen 4 threads; the build
 * is (t-1)·bits doublings a base).
 *
 * Format (host-specific, like the .cache: the points are the in-memory
 * affine form):
 *   header (4096 bytes, so the points start page-aligned):
 *     0   "CUZKMSMT"
 *     8   u32 version (1)
 *     12  u32 sizeof(cz_g1_affine) | 16 u32 sizeof(cz_g2_affine)
 *     20  u32 digest piece bytes: a power of two, 64 KiB..1 GiB (the
 *         writer's TF_CHUNK, 1 MiB; 16 MiB before)
 *     24  u64 total length
 *     32  u64 a_off | 40 u64 b_off (the circuit's input count and B-dense
 *         input count: where the tables' bases start in A and B)
 *     48  five queries (H, L, A, B_G1, B_G2) × {u64 n, u32 t, u32 bits}
 *         (t = 0: no tables for the query, n = bits = 0)
 *     128 bases digest (32): what the tables were built from
 *     160 zeros to 4096
 *   the points: each query's tables 1..t-1, (t-1)·n affine points (G2 for
 *     B_G2), the queries in order, back to back
 *   file digest (32)
 * Both digests are chunked SHA-256: SHA-256 of the concatenated SHA-256s
 * of consecutive pieces of the bytes covered, of the size the header
 * records (the pool hashes the pieces in parallel; 221 MB take ~60 ms on
 * two threads where one SHA-256 pass takes ~125 ms). The bases digest covers the bases of every
 * query that has tables, in query order; the file digest covers every
 * byte before it.
 *
 * Why each check: the header's shape must equal the plan the loader makes
 * now (same limit, same pool size: a daemon started with other threads
 * plans other tables, and builds them); the bases digest ties the tables
 * to the exact points they multiply (a parameter file replaced under the
 * same name has other bases, and tables of the old ones would give proofs
 * that fail verification); the file digest catches a flipped or torn byte
 * anywhere. Any failure is a rebuild, never a wrong proof.
 */
#include "prover_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cuzk/msm.h"
#include "cuzk/threadpool.h"
#include "interop/binfile.h"

#define TF_MAGIC "CUZKMSMT"
#define TF_VERSION 1u
#define TF_HEADER 4096u
/* The digests' piece size that the writer uses: small enough that a
 * small key's bases (shaped-16's 38 MB) split evenly over the threads
 * (16 MiB pieces gave two of three to one thread: ~13 ms of a 490 ms
 * process where 8 would do), large enough that a 2^27 key's file has
 * only thousands. The reader takes the size the file records, so a file
 * written with other pieces (16 MiB before) stays valid. */
#define TF_CHUNK (1u << 20)
#define TF_CHUNK_MIN (64u << 10)
#define TF_CHUNK_MAX (1u << 30)
#define TF_Q0 48u       /* the first query's record */
#define TF_QREC 16u     /* bytes of a query record */
#define TF_BASES 128u   /* the bases digest, after the five query records */

static const char *const qname[CZ_GROTH16_NQ] = {"H", "L", "A", "B_G1", "B_G2"};

static size_t point_bytes(int q) { return q == CZ_GROTH16_Q_B_G2 ? sizeof(cz_g2_affine) : sizeof(cz_g1_affine); }

/* ---- chunked SHA-256 over a list of byte ranges ------------------------------ */

typedef struct {
    const uint8_t *p;
    size_t n;
} span;

typedef struct {
    const span *sp;
    size_t nsp;
    size_t chunk;
    size_t total;
    uint8_t *digests; /* 32 per chunk */
    int failed;
} chunk_job;

static void chunk_range(void *arg, size_t lo, size_t hi)
{
    chunk_job *j = arg;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c) {
        __atomic_store_n(&j->failed, 1, __ATOMIC_RELAXED);
        return;
    }
    for (size_t k = lo; k < hi; k++) {
        size_t from = k * j->chunk, to = from + j->chunk < j->total ? from + j->chunk : j->total;
        EVP_DigestInit_ex(c, EVP_sha256(), NULL);
        /* the spans that meet [from, to) */
        size_t at = 0;
        for (size_t s = 0; s < j->nsp && at < to; at += j->sp[s].n, s++) {
            size_t a = from > at ? from : at, b = to < at + j->sp[s].n ? to : at + j->sp[s].n;
            if (a < b) EVP_DigestUpdate(c, j->sp[s].p + (a - at), b - a);
        }
        unsigned dl = 32;
        EVP_DigestFinal_ex(c, j->digests + 32 * k, &dl);
    }
    EVP_MD_CTX_free(c);
}

static cz_status chunked_digest(const span *sp, size_t nsp, uint32_t chunk, cz_pool *pool, uint8_t out[32],
                                cz_errbuf *err)
{
    chunk_job j = {sp, nsp, chunk, 0, NULL, 0};
    for (size_t s = 0; s < nsp; s++) j.total += sp[s].n;
    size_t nchunks = (j.total + chunk - 1) / chunk;
    j.digests = malloc(nchunks ? 32 * nchunks : 1);
    if (!j.digests) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    cz_pool_parallel_range(pool, 0, nchunks, 1, chunk_range, &j);
    unsigned dl = 32;
    int ok = !__atomic_load_n(&j.failed, __ATOMIC_RELAXED) && EVP_Digest(j.digests, 32 * nchunks, out, &dl, EVP_sha256(), NULL);
    free(j.digests);
    return ok ? CZ_OK : cz_err(err, CZ_ERR_NOMEM, "SHA-256: out of memory");
}

/* The digest of the bases that the plan's tables are over. */
static cz_status bases_digest(const void *const bases[CZ_GROTH16_NQ], const cz_groth16_tables_plan *plan,
                              uint32_t chunk, cz_pool *pool, uint8_t out[32], cz_errbuf *err)
{
    span sp[CZ_GROTH16_NQ];
    size_t n = 0;
    for (int q = 0; q < CZ_GROTH16_NQ; q++)
        if (plan->t[q]) sp[n++] = (span){bases[q], plan->n[q] * point_bytes(q)};
    return chunked_digest(sp, n, chunk, pool, out, err);
}

/* ---- the header ------------------------------------------------------------------ */

static bool chunk_ok(uint32_t c) { return c >= TF_CHUNK_MIN && c <= TF_CHUNK_MAX && !(c & (c - 1)); }

static void put32(uint8_t *h, size_t at, uint32_t v) { memcpy(h + at, &v, 4); }
static void put64(uint8_t *h, size_t at, uint64_t v) { memcpy(h + at, &v, 8); }
static uint32_t get32(const uint8_t *h, size_t at)
{
    uint32_t v;
    memcpy(&v, h + at, 4);
    return v;
}
static uint64_t get64(const uint8_t *h, size_t at)
{
    uint64_t v;
    memcpy(&v, h + at, 8);
    return v;
}

cz_status cz__tables_file_parse(const uint8_t *m, size_t len, cz__tables_file_info *fi, cz_errbuf *err)
{
    memset(fi, 0, sizeof *fi);
    if (len < TF_HEADER + 32)
        return cz_err(err, CZ_ERR_TRUNCATED, "%zu bytes, shorter than a header and a digest (%u)", len,
                      TF_HEADER + 32);
    if (memcmp(m, TF_MAGIC, 8)) return cz_err(err, CZ_ERR_FORMAT, "not a cuzk MSM table file (magic)");
    uint32_t v = get32(m, 8);
    if (v != TF_VERSION)
        return cz_err(err, CZ_ERR_FORMAT, "table file format version %u, this cuzk reads %u", v, TF_VERSION);
    if (get32(m, 12) != sizeof(cz_g1_affine) || get32(m, 16) != sizeof(cz_g2_affine))
        return cz_err(err, CZ_ERR_FORMAT, "points of %u and %u bytes, this build's are %zu and %zu", get32(m, 12),
                      get32(m, 16), sizeof(cz_g1_affine), sizeof(cz_g2_affine));
    fi->chunk = get32(m, 20);
    if (!chunk_ok(fi->chunk))
        return cz_err(err, CZ_ERR_FORMAT, "digest chunks of %u bytes, expected a power of two from %u to %u",
                      fi->chunk, TF_CHUNK_MIN, TF_CHUNK_MAX);
    uint64_t total = get64(m, 24);
    if (total != len)
        return cz_err(err, CZ_ERR_TRUNCATED, "%zu bytes, the header says %llu", len, (unsigned long long)total);
    fi->a_off = get64(m, 32);
    fi->b_off = get64(m, 40);
    uint64_t at = TF_HEADER;
    for (int q = 0; q < CZ_GROTH16_NQ; q++) {
        const uint8_t *r = m + TF_Q0 + (size_t)q * TF_QREC;
        uint64_t n = get64(r, 0);
        uint32_t t = get32(r, 8), bits = get32(r, 12);
        if (!t) {
            if (n || bits) return cz_err(err, CZ_ERR_FORMAT, "query %s: no tables but n = %llu, bits = %u", qname[q],
                                         (unsigned long long)n, bits);
            continue;
        }
        if (t > CZ_MSM_MAX_TABLES || bits < 1 || bits > 256 || (uint64_t)t * bits < 256)
            return cz_err(err, CZ_ERR_FORMAT, "query %s: %u tables of %u bits is no table shape", qname[q], t, bits);
        /* at <= len - 32 holds: the points so far fit before the digest */
        if (t > 1 && n > (len - 32 - at) / point_bytes(q) / (t - 1))
            return cz_err(err, CZ_ERR_TRUNCATED, "query %s: %u tables of %llu points do not fit in %zu bytes",
                          qname[q], t, (unsigned long long)n, len);
        fi->plan.n[q] = (size_t)n;
        fi->plan.t[q] = t;
        fi->plan.bits[q] = bits;
        fi->off[q] = at;
        uint64_t bytes = (uint64_t)(t - 1) * n * point_bytes(q);
        at += bytes;
        fi->plan.bytes += q == CZ_GROTH16_Q_B_G2 ? cz_msm_g2_tables_bytes((size_t)n, t)
                                                 : cz_msm_g1_tables_bytes((size_t)n, t);
    }
    if (at + 32 != len)
        return cz_err(err, CZ_ERR_FORMAT, "%zu bytes, the tables and the digest take %llu", len,
                      (unsigned long long)(at + 32));
    for (size_t k = TF_BASES + 32; k < TF_HEADER; k++)
        if (m[k]) return cz_err(err, CZ_ERR_FORMAT, "header byte %zu is not zero", k);
    memcpy(fi->bases_sha, m + TF_BASES, 32);
    return CZ_OK;
}

cz_status cz__tables_file_digest_ok(const uint8_t *m, size_t len, cz_pool *pool, cz_errbuf *err)
{
    uint8_t d[32];
    span sp = {m, len - 32};
    const uint32_t chunk = get32(m, 20);
    if (!chunk_ok(chunk)) return cz_err(err, CZ_ERR_FORMAT, "digest chunks of %u bytes", chunk);
    cz_status st = chunked_digest(&sp, 1, chunk, pool, d, err);
    if (st != CZ_OK) return st;
    if (memcmp(d, m + len - 32, 32)) return cz_err(err, CZ_ERR_FORMAT, "digest mismatch (a corrupt file)");
    return CZ_OK;
}

/* ---- write and map ----------------------------------------------------------- */

cz_status cz__tables_file_write_set(const char *path, const cz_groth16_tables *t,
                                    const void *const bases[CZ_GROTH16_NQ], uint64_t a_off, uint64_t b_off,
                                    cz_pool *pool, cz_errbuf *err)
{
    if (!t) return cz_err(err, CZ_ERR_INVALID_ARG, "%s: no MSM tables to keep", path);
    cz_groth16_tables_plan plan = {0};
    span sp[1 + CZ_GROTH16_NQ];
    size_t nsp = 0;
    uint8_t *h = calloc(1, TF_HEADER);
    if (!h) return cz_err(err, CZ_ERR_NOMEM, "out of memory");
    sp[nsp++] = (span){h, TF_HEADER};
    uint64_t total = TF_HEADER + 32;
    for (int q = 0; q < CZ_GROTH16_NQ; q++) {
        const void *pts = cz_groth16_tables_points(t, q, &plan.n[q], &plan.t[q], &plan.bits[q]);
        put64(h, TF_Q0 + (size_t)q * TF_QREC, plan.n[q]);
        put32(h, TF_Q0 + (size_t)q * TF_QREC + 8, plan.t[q]);
        put32(h, TF_Q0 + (size_t)q * TF_QREC + 12, plan.bits[q]);
        if (plan.t[q] > 1 && plan.n[q]) {
            sp[nsp] = (span){pts, (size_t)(plan.t[q] - 1) * plan.n[q] * point_bytes(q)};
            total += sp[nsp++].n;
        }
    }
    memcpy(h, TF_MAGIC, 8);
    put32(h, 8, TF_VERSION);
    put32(h, 12, sizeof(cz_g1_affine));
    put32(h, 16, sizeof(cz_g2_affine));
    put32(h, 20, TF_CHUNK);
    put64(h, 24, total);
    put64(h, 32, a_off);
    put64(h, 40, b_off);
    uint8_t d[32];
    cz_status st = bases_digest(bases, &plan, TF_CHUNK, pool, h + TF_BASES, err);
    if (st == CZ_OK) st = chunked_digest(sp, nsp, TF_CHUNK, pool, d, err);
    if (st != CZ_OK) {
        free(h);
        return st;
    }
    FILE *f = fopen(path, "wb");
    if (!f) {
        free(h);
        return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    }
    bool ok = true;
    for (size_t s = 0; s < nsp && ok; s++) ok = fwrite(sp[s].p, 1, sp[s].n, f) == sp[s].n;
    ok = ok && fwrite(d, 1, 32, f) == 32;
    int e = errno;
    free(h);
    if (fclose(f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        unlink(path);
        return cz_err(err, CZ_ERR_IO, "%s: write failed: %s", path, strerror(e));
    }
    return CZ_OK;
}

cz_status cz__tables_file_write(const char *path, const cz_groth16_params *p, const cz_pce *pce, cz_pool *pool,
                                cz_errbuf *err)
{
    const void *qb[CZ_GROTH16_NQ];
    cz_groth16_params_tables_bases(p, pce, qb);
    return cz__tables_file_write_set(path, p->tables, qb, pce->n_inputs, pce->dens_b_input_count, pool, err);
}

/* Maps path and checks it for these bases: its header; the inputs'
 * offsets; each query's count against n (where the file has tables for
 * it); the shape against plan (NULL: any sound shape); the bases digest;
 * with file_digest, the whole file's digest. On success the caller owns
 * the mapping *m of *len bytes and *fi says where each query's points lie. */
static cz_status map_checked(const char *path, const void *const bases[CZ_GROTH16_NQ], const size_t n[CZ_GROTH16_NQ],
                             uint64_t a_off, uint64_t b_off, const cz_groth16_tables_plan *plan, bool file_digest,
                             cz_pool *pool, cz__tables_file_info *fi, uint8_t **mo, size_t *lo, cz_errbuf *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cz_err(err, errno == ENOENT ? CZ_ERR_NOT_FOUND : CZ_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        int e = errno;
        close(fd);
        return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(e));
    }
    size_t len = (size_t)sb.st_size;
    if (len < TF_HEADER + 32) {
        close(fd);
        return cz_err(err, CZ_ERR_TRUNCATED, "%s: %zu bytes, shorter than a header and a digest", path, len);
    }
    /* Populated at once, by the pool's threads side by side
     * (cz_populate_read): the digests read every page anyway (and the
     * MSMs do without them), and mapping them in large steps costs far
     * less than a fault each. */
    uint8_t *m = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (m == MAP_FAILED) return cz_err(err, CZ_ERR_IO, "%s: mmap: %s", path, strerror(errno));
    cz_populate_read(m, len, pool);
    cz_errbuf e2 = {{0}};
    cz_status st = cz__tables_file_parse(m, len, fi, &e2);
    if (st != CZ_OK) {
        cz_err(err, st, "%s: %s", path, e2.msg);
        goto fail;
    }
    if (fi->a_off != a_off || fi->b_off != b_off) {
        st = cz_err(err, CZ_ERR_MISMATCH, "%s: made for a circuit with other inputs", path);
        goto fail;
    }
    for (int q = 0; q < CZ_GROTH16_NQ; q++) {
        if (plan && (fi->plan.t[q] != plan->t[q] || fi->plan.bits[q] != plan->bits[q] ||
                     (plan->t[q] && fi->plan.n[q] != plan->n[q]))) {
            st = cz_err(err, CZ_ERR_MISMATCH,
                        "%s: query %s has %u tables of %u bits for %zu bases, the plan now %u of %u for %zu (another "
                        "limit or thread count)",
                        path, qname[q], fi->plan.t[q], fi->plan.bits[q], fi->plan.n[q], plan->t[q], plan->bits[q],
                        plan->n[q]);
            goto fail;
        }
        if (fi->plan.t[q] && fi->plan.n[q] != n[q]) {
            st = cz_err(err, CZ_ERR_MISMATCH, "%s: query %s has tables for %zu bases, the key %zu", path, qname[q],
                        fi->plan.n[q], n[q]);
            goto fail;
        }
    }
    uint8_t bd[32];
    if ((st = bases_digest(bases, &fi->plan, fi->chunk, pool, bd, err)) != CZ_OK) goto fail;
    if (memcmp(bd, fi->bases_sha, 32)) {
        st = cz_err(err, CZ_ERR_MISMATCH, "%s: built from other bases (the parameters changed)", path);
        goto fail;
    }
    if (file_digest && (st = cz__tables_file_digest_ok(m, len, pool, &e2)) != CZ_OK) {
        cz_err(err, st, "%s: %s", path, e2.msg);
        goto fail;
    }
    *mo = m;
    *lo = len;
    return CZ_OK;
fail:
    munmap(m, len);
    return st;
}

cz_status cz__tables_file_map(const char *path, cz_groth16_params *p, const cz_pce *pce,
                              const cz_groth16_tables_plan *plan, cz_pool *pool, cz_errbuf *err)
{
    cz_errbuf e2 = {{0}};
    cz_status st = cz_groth16_params_check_shape(p, pce, &e2);
    if (st != CZ_OK) return cz_err(err, st, "%s: %s", path, e2.msg);
    const void *qb[CZ_GROTH16_NQ];
    cz_groth16_params_tables_bases(p, pce, qb);
    cz__tables_file_info fi;
    uint8_t *m;
    size_t len;
    if ((st = map_checked(path, qb, plan->n, pce->n_inputs, pce->dens_b_input_count, plan, true, pool, &fi, &m,
                          &len, err)) != CZ_OK)
        return st;
    const void *pts[CZ_GROTH16_NQ] = {0};
    for (int q = 0; q < CZ_GROTH16_NQ; q++)
        if (fi.plan.t[q]) pts[q] = m + fi.off[q];
    /* the tables own the mapping from here, on success or not */
    return cz_groth16_params_wrap_tables(p, pce, &fi.plan, pts, m, len, err);
}

cz_status cz__tables_file_map_set(const char *path, const void *const bases[CZ_GROTH16_NQ],
                                  const size_t n[CZ_GROTH16_NQ], uint64_t a_off, uint64_t b_off,
                                  const cz_groth16_tables_plan *plan, bool file_digest, cz_pool *pool,
                                  cz_groth16_tables **out, cz_errbuf *err)
{
    *out = NULL;
    cz__tables_file_info fi;
    uint8_t *m;
    size_t len;
    cz_status st = map_checked(path, bases, n, a_off, b_off, plan, file_digest, pool, &fi, &m, &len, err);
    if (st != CZ_OK) return st;
    const void *pts[CZ_GROTH16_NQ] = {0};
    for (int q = 0; q < CZ_GROTH16_NQ; q++)
        if (fi.plan.t[q]) pts[q] = m + fi.off[q];
    return cz_groth16_tables_wrap(out, &fi.plan, bases, pts, m, len, err);
}
