#include "binfile.h"
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

cz_status cz_binfile_open(cz_binfile *f, const uint8_t *buf, size_t len, const char *magic,
                          uint32_t min_version, uint32_t max_version, cz_errbuf *err)
{
    memset(f, 0, sizeof *f);
    f->what = magic;
    cz_rd r = {buf, len};
    const uint8_t *m;
    uint32_t nsec;
    if (!cz_rd_bytes(&r, &m, 4) || !cz_rd_u32(&r, &f->version) || !cz_rd_u32(&r, &nsec))
        return cz_err(err, CZ_ERR_TRUNCATED, "%s: file too short for its header (%zu bytes)", magic, len);
    if (memcmp(m, magic, 4) != 0)
        return cz_err(err, CZ_ERR_FORMAT, "%s: bad magic (not a .%s file)", magic, magic);
    if (f->version < min_version || f->version > max_version)
        return cz_err(err, CZ_ERR_FORMAT, "%s: unsupported version %u (supported %u..%u)", magic,
                      f->version, min_version, max_version);
    /* each section header is 12 bytes: bound the table by the file length */
    if ((uint64_t)nsec * 12 > r.left)
        return cz_err(err, CZ_ERR_TRUNCATED, "%s: %u sections announced, file has room for at most %llu",
                      magic, nsec, (unsigned long long)(r.left / 12));
    f->secs = calloc(nsec ? nsec : 1, sizeof *f->secs);
    if (!f->secs) return cz_err(err, CZ_ERR_NOMEM, "%s: out of memory", magic);
    for (uint32_t i = 0; i < nsec; i++) {
        uint32_t id;
        uint64_t slen;
        if (!cz_rd_u32(&r, &id) || !cz_rd_u64(&r, &slen)) {
            cz_binfile_close(f);
            return cz_err(err, CZ_ERR_TRUNCATED, "%s: truncated in header of section %u", magic, i);
        }
        if (slen > r.left) {
            cz_binfile_close(f);
            return cz_err(err, CZ_ERR_TRUNCATED,
                          "%s: section id %u announces %llu bytes but only %llu remain", magic, id,
                          (unsigned long long)slen, (unsigned long long)r.left);
        }
        f->secs[i].id = id;
        f->secs[i].off = (uint64_t)(r.p - buf);
        f->secs[i].len = slen;
        r.p += slen;
        r.left -= slen;
    }
    f->buf = buf;
    f->len = len;
    f->nsec = nsec;
    return CZ_OK;
}

void cz_binfile_close(cz_binfile *f)
{
    free(f->secs);
    f->secs = NULL;
    f->nsec = 0;
}

typedef struct {
    bool (*ok)(void *arg, size_t i);
    void *arg;
    _Atomic size_t first;
} scan_ctx;

static void scan_range(void *arg, size_t lo, size_t hi)
{
    scan_ctx *x = arg;
    for (size_t i = lo; i < hi; i++) {
        if (atomic_load_explicit(&x->first, memory_order_relaxed) < i) return;
        if (x->ok(x->arg, i)) continue;
        size_t cur = atomic_load_explicit(&x->first, memory_order_relaxed);
        while (i < cur && !atomic_compare_exchange_weak(&x->first, &cur, i)) {
        }
        return;
    }
}

size_t cz_bin_first_failing(cz_pool *pool, size_t n, size_t grain, bool (*ok)(void *, size_t), void *arg)
{
    scan_ctx x = {ok, arg, SIZE_MAX};
    cz_pool_parallel_range(pool, 0, n, grain, scan_range, &x);
    return atomic_load(&x.first);
}

cz_status cz_binfile_section(const cz_binfile *f, uint32_t id, const char *name,
                             const uint8_t **p, uint64_t *len, cz_errbuf *err)
{
    int found = -1;
    for (uint32_t i = 0; i < f->nsec; i++) {
        if (f->secs[i].id != id) continue;
        if (found >= 0)
            return cz_err(err, CZ_ERR_FORMAT, "%s: section %u (%s) appears more than once", f->what, id, name);
        found = (int)i;
    }
    if (found < 0) return cz_err(err, CZ_ERR_FORMAT, "%s: section %u (%s) is missing", f->what, id, name);
    *p = f->buf + f->secs[found].off;
    *len = f->secs[found].len;
    return CZ_OK;
}

typedef struct {
    const volatile uint8_t *p;
    size_t len;
} populate_ctx;

#define POPULATE_PIECE ((size_t)2 << 20)

static void populate_range(void *arg, size_t lo, size_t hi)
{
    const populate_ctx *x = arg;
    size_t from = lo * POPULATE_PIECE, to = hi * POPULATE_PIECE < x->len ? hi * POPULATE_PIECE : x->len;
#ifdef MADV_POPULATE_READ
    if (madvise((void *)(uintptr_t)(x->p + from), to - from, MADV_POPULATE_READ) == 0) return;
#endif
    /* a kernel before 5.14: a read fault a page (fault-around maps its
     * neighbours too) */
    long pg = sysconf(_SC_PAGESIZE);
    const size_t step = pg > 0 ? (size_t)pg : 4096;
    for (size_t o = from; o < to; o += step) (void)x->p[o];
}

void cz_populate_read(const void *p, size_t len, cz_pool *pool)
{
    if (!p || !len) return;
    populate_ctx x = {p, len};
    cz_pool_parallel_range(pool, 0, (len + POPULATE_PIECE - 1) / POPULATE_PIECE, 1, populate_range, &x);
}

cz_status cz_map_file(const char *path, const uint8_t **buf, size_t *len, cz_pool *pool, cz_errbuf *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return cz_err(err, CZ_ERR_IO, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return cz_err(err, CZ_ERR_IO, "%s: not a regular file", path);
    }
    *len = (size_t)st.st_size;
    if (*len == 0) {
        close(fd);
        *buf = NULL;
        return CZ_OK;
    }
    /* Every caller parses the whole file, and populating the mapping at
     * once costs far less than a fault every few pages (a 2^18 key is
     * 200 MB; faults are dear in a VM: common/big_alloc.h). */
    void *m = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (m == MAP_FAILED) return cz_err(err, CZ_ERR_IO, "%s: mmap: %s", path, strerror(e));
    cz_populate_read(m, *len, pool);
    *buf = m;
    return CZ_OK;
}

void cz_unmap_file(const uint8_t *buf, size_t len)
{
    if (buf && len) munmap((void *)buf, len);
}

bool cz_prime_equals(const uint8_t *p, uint32_t n8, const uint64_t *mod, size_t nlimbs)
{
    if (n8 != nlimbs * 8) return false;
    for (uint32_t i = 0; i < n8; i++)
        if (p[i] != (uint8_t)(mod[i / 8] >> (8 * (i % 8)))) return false;
    return true;
}

void cz_binw_header(cz_binwriter *w, const char *magic, uint32_t version, uint32_t nsec)
{
    cz_binw_bytes(w, magic, 4);
    cz_binw_u32(w, version);
    cz_binw_u32(w, nsec);
}

void cz_binw_bytes(cz_binwriter *w, const void *p, size_t n)
{
    if (!w->failed && n && fwrite(p, 1, n, w->f) != n) w->failed = true;
}

void cz_binw_u32(cz_binwriter *w, uint32_t v)
{
    uint8_t b[4];
    cz_put_u32(b, v);
    cz_binw_bytes(w, b, 4);
}

void cz_binw_begin(cz_binwriter *w, uint32_t id)
{
    uint8_t b[12] = {0};
    cz_put_u32(b, id);
    cz_binw_bytes(w, b, 12);
    w->start = ftell(w->f);
    if (w->start < 0) w->failed = true;
}

void cz_binw_end(cz_binwriter *w)
{
    if (w->failed) return;
    long end = ftell(w->f);
    uint8_t b[8];
    cz_put_u64(b, (uint64_t)(end - w->start));
    if (end < 0 || fseek(w->f, w->start - 8, SEEK_SET) != 0 || fwrite(b, 1, 8, w->f) != 8 ||
        fseek(w->f, end, SEEK_SET) != 0)
        w->failed = true;
}

static bool fp_from_mont_le(cz_fp *r, const uint8_t in[48])
{
    for (int i = 0; i < 6; i++) r->l[i] = cz_le64(in + 8 * i);
    /* the stored Montgomery value must itself be reduced */
    for (int i = 5; i >= 0; i--) {
        if (r->l[i] < CZ_FP_MODULUS[i]) return true;
        if (r->l[i] > CZ_FP_MODULUS[i]) return false;
    }
    return false;
}

static void fp_to_mont_le(uint8_t out[48], const cz_fp *a)
{
    for (int i = 0; i < 48; i++) out[i] = (uint8_t)(a->l[i / 8] >> (8 * (i % 8)));
}

cz_status cz_zk_g1_decode(cz_g1_affine *r, const uint8_t in[96], bool on_curve)
{
    if (!fp_from_mont_le(&r->x, in) || !fp_from_mont_le(&r->y, in + 48)) return CZ_ERR_NOT_CANONICAL;
    if (on_curve && !cz_g1_affine_is_on_curve(r)) return CZ_ERR_NOT_ON_CURVE;
    return CZ_OK;
}

cz_status cz_zk_g2_decode(cz_g2_affine *r, const uint8_t in[192], bool on_curve)
{
    if (!fp_from_mont_le(&r->x.c0, in) || !fp_from_mont_le(&r->x.c1, in + 48) ||
        !fp_from_mont_le(&r->y.c0, in + 96) || !fp_from_mont_le(&r->y.c1, in + 144))
        return CZ_ERR_NOT_CANONICAL;
    if (on_curve && !cz_g2_affine_is_on_curve(r)) return CZ_ERR_NOT_ON_CURVE;
    return CZ_OK;
}

void cz_zk_g1_write(uint8_t out[96], const cz_g1_affine *p)
{
    fp_to_mont_le(out, &p->x);
    fp_to_mont_le(out + 48, &p->y);
}

void cz_zk_g2_write(uint8_t out[192], const cz_g2_affine *p)
{
    fp_to_mont_le(out, &p->x.c0);
    fp_to_mont_le(out + 48, &p->x.c1);
    fp_to_mont_le(out + 96, &p->y.c0);
    fp_to_mont_le(out + 144, &p->y.c1);
}
