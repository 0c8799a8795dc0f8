/*
 * bincode (1.x legacy options: little-endian, fixint, u64 sequence lengths,
 * u32 enum variants) as the Filecoin vanilla proofs use it, shared by the
 * PoSt (post.c) and SnapDeals (snap_bincode.c) readers and writers; not
 * installed, not part of the public API.
 *
 * Every message a reader writes has one format:
 *
 *     <prefix><serde path> at byte <offset>: <what is wrong>
 *
 * for instance
 *
 *     sector proof 0: vanilla_proof.sectors[0].inclusion_proofs[7].data.Sub.sub_proof.path[0].hashes[1]
 *         at byte 1234: truncated (need 32 bytes, 20 left)
 *
 * (one line). The prefix names the enclosing message (may be ""); the
 * serde path names the field being read, in the Rust structure's field
 * names, "[i]" for sequence elements and the variant's name for enum
 * payloads (…data.Sub.base_proof.path[2]…); where no field is being read
 * (trailing bytes) the reader's root name stands there instead. The offset
 * is where the offending value starts, counted from the start of the
 * caller's whole buffer (the reader's `base` plus its position), so a
 * sub-reader over one length-prefixed part still names the outer byte.
 * Truncation always reads "truncated (need N bytes, M left)".
 */
#ifndef CUZK_BINCODE_INTERNAL_H
#define CUZK_BINCODE_INTERNAL_H

#include "cuzk/fil_c1.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#if defined(__GNUC__) || defined(__clang__)
#define CZ_BC_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CZ_BC_PRINTF(f, a)
#endif

/* ---- reader ------------------------------------------------------------------------ */

/* A cursor over one bincode value. */
typedef struct {
    const uint8_t *b;
    size_t len, pos;
    size_t base;        /* offset of b within the caller's whole buffer (for messages) */
    char path[200];     /* serde path of the field being read (truncated if longer) */
    size_t plen;
    const char *prefix; /* put before every message; "" for none */
    const char *root;   /* names the value where path is empty */
    bool canonical;     /* domain elements must be canonical Fr (CZ_ERR_NOT_CANONICAL otherwise) */
    cz_errbuf *err;
} cz_bc_rd;

void cz_bc_rd_init(cz_bc_rd *r, const uint8_t *b, size_t len, size_t base, const char *prefix, const char *root,
                   bool canonical, cz_errbuf *err);

/* Appends to the path; returns the old length for cz_bc_pop. */
size_t cz_bc_push(cz_bc_rd *r, const char *fmt, ...) CZ_BC_PRINTF(2, 3);
void cz_bc_pop(cz_bc_rd *r, size_t old);
/* Replaces the whole path. */
void cz_bc_at(cz_bc_rd *r, const char *fmt, ...) CZ_BC_PRINTF(2, 3);

/* The offset messages name for the reader's current position. */
static inline size_t cz_bc_here(const cz_bc_rd *r) { return r->base + r->pos; }

/* Writes "<prefix><path or root> at byte <at>: <fmt…>" into r->err and
 * returns st. `at` is an offset in the whole buffer (cz_bc_here before the
 * value was read). */
cz_status cz_bc_fail(const cz_bc_rd *r, cz_status st, size_t at, const char *fmt, ...) CZ_BC_PRINTF(4, 5);

/* Each reads at r->pos and advances it; on error r->err holds the message
 * (CZ_ERR_FORMAT, or CZ_ERR_NOT_CANONICAL for a domain element). */
cz_status cz_bc_need(cz_bc_rd *r, size_t n);
cz_status cz_bc_u64(cz_bc_rd *r, uint64_t *v);
cz_status cz_bc_u32(cz_bc_rd *r, uint32_t *v);
cz_status cz_bc_dom(cz_bc_rd *r, cz_fil_domain *d);
/* cz_bc_dom with `field` appended to the path while it reads. */
cz_status cz_bc_dom_field(cz_bc_rd *r, const char *field, cz_fil_domain *d);
/* A sequence length that must equal `want` (the proof's shape), checked
 * before anything is allocated from it; `why` (or NULL) says where the
 * number comes from. */
cz_status cz_bc_len(cz_bc_rd *r, uint64_t want, const char *why);

/* The shape one MerkleProof must have. */
typedef struct {
    cz_fil_proof_kind kind;
    size_t base_len;       /* levels of the base path */
    unsigned base_arity;   /* 8 for tree R, 2 for tree D */
    unsigned sub_arity, top_arity;
    const char *name;      /* for messages: "tree R 8-8-0 of StackedDrgWindow32GiBV1" */
} cz_bc_tree_shape;

/* MerkleProof { data: ProofData::{Single { root, leaf, path }, Sub { base_proof,
 * sub_proof, root, leaf }, Top { base_proof, sub_proof, top_proof, root, leaf }} }
 * of `shape`, each InclusionPath { path: Vec<PathElement { hashes, index }> }.
 * The path is extended by ".data…" while reading. On error (CZ_ERR_NOMEM
 * without a message) mp may hold allocations: cz_fil_merkle_proof_free it. */
cz_status cz_bc_merkle(cz_bc_rd *r, const cz_bc_tree_shape *shape, cz_fil_merkle_proof *mp);

/* ---- writer ------------------------------------------------------------------------ */

/* bincode::serialize into a growing buffer; `oom` sticks once an allocation
 * failed (every later write is dropped), so callers check it once. */
typedef struct {
    uint8_t *b;
    size_t len, cap;
    bool oom;
} cz_bc_wr;

void cz_bc_wbytes(cz_bc_wr *w, const void *src, size_t n);
void cz_bc_wu64(cz_bc_wr *w, uint64_t v);
void cz_bc_wu32(cz_bc_wr *w, uint32_t v);
/* Overwrites the 8 bytes at `at` (written earlier) with v; no-op after oom. */
void cz_bc_wpatch_u64(cz_bc_wr *w, size_t at, uint64_t v);
void cz_bc_wmerkle(cz_bc_wr *w, const cz_fil_merkle_proof *mp);
/* Hands the buffer to *out / *len: CZ_OK, or CZ_ERR_NOMEM (buffer freed). */
cz_status cz_bc_wfinish(cz_bc_wr *w, uint8_t **out, size_t *len);

/* Same kind, root, leaf and paths (levels, indices, siblings). */
bool cz_bc_merkle_equal(const cz_fil_merkle_proof *a, const cz_fil_merkle_proof *b);

#endif
