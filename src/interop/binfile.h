/*
 * Internal to src/interop: the iden3 binary container shared by .r1cs,
 * .wtns and .zkey ("magic, version, sections in any order") and a bounds-
 * checked little-endian reader. Nothing here allocates per byte of input:
 * the section table is the only allocation, bounded by the file length.
 */
#ifndef CZ_INTEROP_BINFILE_H
#define CZ_INTEROP_BINFILE_H

#include "cuzk/common.h"
#include "cuzk/curve.h"
#include "cuzk/threadpool.h"
#include <stdio.h>
#include <string.h>

typedef struct { uint32_t id; uint64_t off, len; } cz_bin_section;

typedef struct {
    const uint8_t *buf;
    size_t len;
    uint32_t version;
    uint32_t nsec;
    cz_bin_section *secs;
    const char *what; /* "r1cs", "wtns", "zkey": prefixes error messages */
} cz_binfile;

cz_status cz_binfile_open(cz_binfile *f, const uint8_t *buf, size_t len, const char *magic,
                          uint32_t min_version, uint32_t max_version, cz_errbuf *err);
void cz_binfile_close(cz_binfile *f);
/* The unique section `id`; CZ_ERR_FORMAT when missing or repeated. */
cz_status cz_binfile_section(const cz_binfile *f, uint32_t id, const char *name,
                             const uint8_t **p, uint64_t *len, cz_errbuf *err);

/* ok(arg, i) for every i in [0, n), in ranges of at least grain on pool
 * (NULL: serially); returns the first failing i in index (file) order
 * whatever the thread count, or SIZE_MAX when none fails. ok may write
 * element i's decoded form; a range stops at its first failure, or once a
 * smaller index has failed, so elements after a failure may be left
 * unwritten. The readers name that index in their error. */
size_t cz_bin_first_failing(cz_pool *pool, size_t n, size_t grain, bool (*ok)(void *arg, size_t i), void *arg);

typedef struct { const uint8_t *p; uint64_t left; } cz_rd;

static inline bool cz_rd_bytes(cz_rd *r, const uint8_t **out, uint64_t n)
{
    if (r->left < n) return false;
    *out = r->p;
    r->p += n;
    r->left -= n;
    return true;
}

static inline bool cz_rd_u32(cz_rd *r, uint32_t *v)
{
    const uint8_t *b;
    if (!cz_rd_bytes(r, &b, 4)) return false;
    *v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    return true;
}

static inline bool cz_rd_u64(cz_rd *r, uint64_t *v)
{
    uint32_t lo, hi;
    if (!cz_rd_u32(r, &lo) || !cz_rd_u32(r, &hi)) return false;
    *v = (uint64_t)hi << 32 | lo;
    return true;
}

/* Little-endian values at unaligned addresses, for the parsers' hot
 * loops (a 2^20 key has 5 M records of seven such fields): one load each
 * on a little-endian host, where a loop over the bytes with a count
 * known only at run time compiled to a byte at a time (the section-4
 * check was a third of reading shaped-16's key). */
static inline uint32_t cz_le32(const uint8_t *b)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint32_t v;
    memcpy(&v, b, 4);
    return v;
#else
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
#endif
}

static inline uint64_t cz_le64(const uint8_t *b) { return (uint64_t)cz_le32(b + 4) << 32 | cz_le32(b); }

static inline void cz_put_u32(uint8_t *b, uint32_t v)
{
    for (int i = 0; i < 4; i++) b[i] = (uint8_t)(v >> (8 * i));
}

static inline void cz_put_u64(uint8_t *b, uint64_t v)
{
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
}

/* Maps a whole regular file read-only, every page of it resident on
 * return (*buf = NULL for an empty file), populated by pool's threads
 * (cz_populate_read; NULL: the caller's alone). Undo with
 * cz_unmap_file. */
cz_status cz_map_file(const char *path, const uint8_t **buf, size_t *len, cz_pool *pool, cz_errbuf *err);

/* Makes the pages of [p, p + len) mapped and resident for reading, p
 * page-aligned (a mapping's start): pool's threads (NULL: the caller)
 * map 2 MiB pieces side by side (MADV_POPULATE_READ, or a read of a byte per page where the
 * kernel lacks it). Why in parallel: populating a mapping is the kernel's
 * work on one core, ~60 us a MiB of page cache on the development VM, so
 * one core would spend 7 ms on a 266 MB table file and ~50 ms on a 2^20
 * key while the others waited. */
void cz_populate_read(const void *p, size_t len, cz_pool *pool);
void cz_unmap_file(const uint8_t *buf, size_t len);

/* Checks that the n-byte little-endian prime at p equals the given
 * canonical modulus limbs. */
bool cz_prime_equals(const uint8_t *p, uint32_t n8, const uint64_t *mod, size_t nlimbs);

/* Section writer over a FILE*: begin writes the id and a placeholder length,
 * end patches the length. */
typedef struct { FILE *f; long start; bool failed; } cz_binwriter;
void cz_binw_header(cz_binwriter *w, const char *magic, uint32_t version, uint32_t nsec);
void cz_binw_begin(cz_binwriter *w, uint32_t id);
void cz_binw_end(cz_binwriter *w);
void cz_binw_bytes(cz_binwriter *w, const void *p, size_t n);
void cz_binw_u32(cz_binwriter *w, uint32_t v);

/* snarkjs point forms (LE Montgomery, infinity = zeros). Parsers check the
 * coordinates are < p and, when on_curve, that the point is on its curve
 * (never the subgroup). */
cz_status cz_zk_g1_decode(cz_g1_affine *r, const uint8_t in[96], bool on_curve);
cz_status cz_zk_g2_decode(cz_g2_affine *r, const uint8_t in[192], bool on_curve);
static inline cz_status cz_zk_g1_parse(cz_g1_affine *r, const uint8_t in[96]) { return cz_zk_g1_decode(r, in, true); }
static inline cz_status cz_zk_g2_parse(cz_g2_affine *r, const uint8_t in[192]) { return cz_zk_g2_decode(r, in, true); }
void cz_zk_g1_write(uint8_t out[96], const cz_g1_affine *p);
void cz_zk_g2_write(uint8_t out[192], const cz_g2_affine *p);

#endif
