/*
 * FallbackPoSt outside the circuit (cuzk/fil_post.h): the registered PoSt
 * proofs, FallbackPoStSectorProof bincode, the request envelope, the
 * challenges, the native check and the public inputs. Each function names
 * the rust-fil-proofs 19.1 function it mirrors.
 */
#include "cuzk/fil_post.h"
#include "cuzk/fil_poseidon.h"
#include "cuzk/sha256.h"
#include "bincode_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define GiB (1ull << 30)

/* names a sector proof in messages where no field is being read */
#define VANILLA_ROOT "FallbackPoStSectorProof"

/* ---- 1. registered proofs ---------------------------------------------------------- */
/* filecoin-proofs-api RegisteredPoStProof (registry.rs): version(),
 * sector_size(), sector_count(), as_v1_config(); the circuit's counts are
 * winning_post_setup_params / window_post_setup_params (parameters.rs). */
#define WIN(id, nm, cid, sz, sub, top) \
    { id, nm, cid, CZ_FIL_POST_WINNING, sz, CZ_FIL_API_1_0, sub, top, 1, 66, 66, 1 }
#define WDW(id, nm, cid, sz, api, sub, top, sc) \
    { id, nm, cid, CZ_FIL_POST_WINDOW, sz, api, sub, top, sc, 10, sc, 10 }

const cz_fil_post_proof cz_fil_post_proofs[CZ_FIL_POST_PROOF_COUNT] = {
    WIN(0, "StackedDrgWinning2KiBV1", "winning-2k", 2 * KiB, 0, 0),
    WIN(1, "StackedDrgWinning8MiBV1", "winning-8m", 8 * MiB, 0, 0),
    WIN(2, "StackedDrgWinning512MiBV1", "winning-512m", 512 * MiB, 0, 0),
    WIN(3, "StackedDrgWinning32GiBV1", "winning-32g", 32 * GiB, 8, 0),
    WIN(4, "StackedDrgWinning64GiBV1", "winning-64g", 64 * GiB, 8, 2),
    WDW(5, "StackedDrgWindow2KiBV1", "wpost-2k", 2 * KiB, CZ_FIL_API_1_0, 0, 0, 2),
    WDW(6, "StackedDrgWindow8MiBV1", "wpost-8m", 8 * MiB, CZ_FIL_API_1_0, 0, 0, 2),
    WDW(7, "StackedDrgWindow512MiBV1", "wpost-512m", 512 * MiB, CZ_FIL_API_1_0, 0, 0, 2),
    WDW(8, "StackedDrgWindow32GiBV1", "wpost-32g", 32 * GiB, CZ_FIL_API_1_0, 8, 0, 2349),
    WDW(9, "StackedDrgWindow64GiBV1", "wpost-64g", 64 * GiB, CZ_FIL_API_1_0, 8, 2, 2300),
    WDW(10, "StackedDrgWindow2KiBV1_2", "wpost-2k", 2 * KiB, CZ_FIL_API_1_2, 0, 0, 2),
    WDW(11, "StackedDrgWindow8MiBV1_2", "wpost-8m", 8 * MiB, CZ_FIL_API_1_2, 0, 0, 2),
    WDW(12, "StackedDrgWindow512MiBV1_2", "wpost-512m", 512 * MiB, CZ_FIL_API_1_2, 0, 0, 2),
    WDW(13, "StackedDrgWindow32GiBV1_2", "wpost-32g", 32 * GiB, CZ_FIL_API_1_2, 8, 0, 2349),
    WDW(14, "StackedDrgWindow64GiBV1_2", "wpost-64g", 64 * GiB, CZ_FIL_API_1_2, 8, 2, 2300),
};

const cz_fil_post_proof *cz_fil_post_proof_by_id(unsigned id) {
    return id < CZ_FIL_POST_PROOF_COUNT ? &cz_fil_post_proofs[id] : NULL;
}

const cz_fil_post_proof *cz_fil_post_proof_by_name(const char *name) {
    if (!name || !*name) return NULL;
    if (name[0] >= '0' && name[0] <= '9' && strlen(name) <= 2 && (name[0] != '0' || !name[1])) {
        char *end;
        unsigned long v = strtoul(name, &end, 10);
        return *end ? NULL : cz_fil_post_proof_by_id((unsigned)v);
    }
    for (unsigned i = 0; i < CZ_FIL_POST_PROOF_COUNT; i++)
        if (!strcmp(cz_fil_post_proofs[i].name, name)) return &cz_fil_post_proofs[i];
    return NULL;
}

const cz_fil_post_proof *cz_fil_post_proof_by_circuit(const char *circuit_id) {
    if (!circuit_id) return NULL;
    for (unsigned i = 0; i < CZ_FIL_POST_PROOF_COUNT; i++)
        if (!strcmp(cz_fil_post_proofs[i].circuit_id, circuit_id)) return &cz_fil_post_proofs[i];
    return NULL;
}

uint64_t cz_fil_post_nodes(const cz_fil_post_proof *p) { return p->sector_size / CZ_FIL_NODE_SIZE; }

/* base_path_length (merkle/proof.rs): graph_height of the base tree − 1 */
size_t cz_fil_post_base_path_len(const cz_fil_post_proof *p) {
    uint64_t leaves = cz_fil_post_nodes(p);
    if (p->tree_top_arity) leaves /= p->tree_top_arity;
    if (p->tree_sub_arity) leaves /= p->tree_sub_arity;
    size_t k = 0;
    while (leaves > 1) {
        leaves /= 8;
        k++;
    }
    return k;
}

void cz_fil_prover_id_from_miner(uint64_t miner_id, uint8_t out[32]) {
    memset(out, 0, 32);
    size_t i = 0;
    do { /* unsigned LEB128: 7 bits a byte, high bit = more follow (10 bytes at most) */
        uint8_t b = (uint8_t)(miner_id & 0x7f);
        miner_id >>= 7;
        out[i++] = miner_id ? (uint8_t)(b | 0x80) : b;
    } while (miner_id);
}

/* as_safe_commitment (filecoin-proofs api/util.rs): bytes_into_fr */
cz_status cz_fil_post_safe_commitment(const uint8_t v[32], const char *what, cz_errbuf *err) {
    cz_fr f;
    if (cz_fr_from_bytes_le(&f, v) != CZ_OK)
        return cz_err(err, CZ_ERR_NOT_CANONICAL,
                      "%s is not a canonical field element (32 bytes little-endian below r; Lotus clears the top "
                      "two bits of byte 31): the reference refuses it as \"Invalid commitment (%s)\"",
                      what, what);
    return CZ_OK;
}

/* ---- 2. bincode -------------------------------------------------------------------- */
void cz_fil_post_vanilla_free(cz_fil_post_vanilla *v) {
    if (!v) return;
    for (size_t s = 0; s < v->nsectors; s++) {
        cz_fil_post_sector_proof *sp = &v->sectors[s];
        for (size_t i = 0; i < sp->ninclusion; i++) cz_fil_merkle_proof_free(&sp->inclusion_proofs[i]);
        free(sp->inclusion_proofs);
    }
    free(v->sectors);
    memset(v, 0, sizeof *v);
}

/* MerkleProof { data: ProofData } of the registered proof's tree R shape */
static cz_status rd_merkle(cz_bc_rd *r, const cz_fil_post_proof *p, cz_fil_merkle_proof *mp) {
    char name[64];
    snprintf(name, sizeof name, "tree R 8-%u-%u of %s", p->tree_sub_arity, p->tree_top_arity, p->name);
    cz_bc_tree_shape shape = {
        .kind = p->tree_top_arity ? CZ_FIL_PROOF_TOP : p->tree_sub_arity ? CZ_FIL_PROOF_SUB : CZ_FIL_PROOF_SINGLE,
        .base_len = cz_fil_post_base_path_len(p),
        .base_arity = 8,
        .sub_arity = p->tree_sub_arity,
        .top_arity = p->tree_top_arity,
        .name = name,
    };
    return cz_bc_merkle(r, &shape, mp);
}

/* bincode::deserialize::<FallbackPoStSectorProof<Tree>> on one buffer */
static cz_status vanilla_read(cz_bc_rd *r, const cz_fil_post_proof *p, cz_fil_post_vanilla *v) {
    memset(v, 0, sizeof *v);
    size_t o = cz_bc_push(r, "sector_id");
    cz_status st = cz_bc_u64(r, &v->sector_id);
    cz_bc_pop(r, o);
    if (st == CZ_OK) st = cz_bc_dom_field(r, "comm_r", &v->comm_r);
    if (st != CZ_OK) return st;
    o = cz_bc_push(r, "vanilla_proof.sectors");
    st = cz_bc_len(r, 1, "generate_single_vanilla_proof makes one SectorProof");
    if (st == CZ_OK) {
        v->sectors = calloc(1, sizeof *v->sectors);
        if (!v->sectors) st = CZ_ERR_NOMEM;
        else v->nsectors = 1;
    }
    if (st == CZ_OK) {
        cz_fil_post_sector_proof *sp = &v->sectors[0];
        size_t o2 = cz_bc_push(r, "[0].inclusion_proofs");
        char why[64];
        snprintf(why, sizeof why, "%u challenges per sector of %s", p->config_challenge_count, p->name);
        st = cz_bc_len(r, p->config_challenge_count, why);
        if (st == CZ_OK) {
            sp->inclusion_proofs = calloc(p->config_challenge_count, sizeof *sp->inclusion_proofs);
            if (!sp->inclusion_proofs) st = CZ_ERR_NOMEM;
            else sp->ninclusion = p->config_challenge_count;
        }
        for (size_t i = 0; st == CZ_OK && i < sp->ninclusion; i++) {
            size_t o3 = cz_bc_push(r, "[%zu]", i);
            st = rd_merkle(r, p, &sp->inclusion_proofs[i]);
            cz_bc_pop(r, o3);
        }
        cz_bc_pop(r, o2);
        if (st == CZ_OK) {
            o2 = cz_bc_push(r, "[0]");
            st = cz_bc_dom_field(r, ".comm_c", &sp->comm_c);
            if (st == CZ_OK) st = cz_bc_dom_field(r, ".comm_r_last", &sp->comm_r_last);
            cz_bc_pop(r, o2);
        }
    }
    cz_bc_pop(r, o);
    if (st == CZ_OK && r->pos != r->len)
        st = cz_bc_fail(r, CZ_ERR_FORMAT, cz_bc_here(r), "%zu bytes after the end of the proof", r->len - r->pos);
    if (st == CZ_ERR_NOMEM) cz_err(r->err, st, "%sout of memory", r->prefix);
    return st;
}

cz_status cz_fil_post_vanilla_parse(cz_fil_post_vanilla *out, const cz_fil_post_proof *p, const uint8_t *buf,
                                    size_t len, cz_errbuf *err) {
    if (!out) return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!p || (!buf && len)) return cz_err(err, CZ_ERR_INVALID_ARG, "vanilla proof: no registered proof or buffer");
    cz_bc_rd r;
    cz_bc_rd_init(&r, buf, len, 0, "", VANILLA_ROOT, false, err);
    cz_status st = vanilla_read(&r, p, out);
    if (st != CZ_OK) cz_fil_post_vanilla_free(out);
    return st;
}

static void wr_vanilla(cz_bc_wr *w, const cz_fil_post_vanilla *v) {
    cz_bc_wu64(w, v->sector_id);
    cz_bc_wbytes(w, v->comm_r.b, 32);
    cz_bc_wu64(w, v->nsectors);
    for (size_t s = 0; s < v->nsectors; s++) {
        const cz_fil_post_sector_proof *sp = &v->sectors[s];
        cz_bc_wu64(w, sp->ninclusion);
        for (size_t i = 0; i < sp->ninclusion; i++) cz_bc_wmerkle(w, &sp->inclusion_proofs[i]);
        cz_bc_wbytes(w, sp->comm_c.b, 32);
        cz_bc_wbytes(w, sp->comm_r_last.b, 32);
    }
}

cz_status cz_fil_post_vanilla_encode(const cz_fil_post_vanilla *v, uint8_t **out, size_t *len) {
    if (!v || !out || !len) return CZ_ERR_INVALID_ARG;
    cz_bc_wr w = { 0 };
    wr_vanilla(&w, v);
    return cz_bc_wfinish(&w, out, len);
}

bool cz_fil_post_vanilla_equal(const cz_fil_post_vanilla *a, const cz_fil_post_vanilla *b) {
    if (a->sector_id != b->sector_id || memcmp(a->comm_r.b, b->comm_r.b, 32) || a->nsectors != b->nsectors)
        return false;
    for (size_t s = 0; s < a->nsectors; s++) {
        const cz_fil_post_sector_proof *x = &a->sectors[s], *y = &b->sectors[s];
        if (x->ninclusion != y->ninclusion || memcmp(x->comm_c.b, y->comm_c.b, 32) ||
            memcmp(x->comm_r_last.b, y->comm_r_last.b, 32))
            return false;
        for (size_t i = 0; i < x->ninclusion; i++)
            if (!cz_bc_merkle_equal(&x->inclusion_proofs[i], &y->inclusion_proofs[i])) return false;
    }
    return true;
}

/* ---- 3. the request ------------------------------------------------------------------ */
void cz_fil_post_request_free(cz_fil_post_request *r) {
    if (!r) return;
    for (size_t i = 0; i < r->nvanilla; i++) cz_fil_post_vanilla_free(&r->vanilla[i]);
    free(r->vanilla);
    memset(r, 0, sizeof *r);
}

#define ENV_HEADER (8u + 4u + 4u + 32u + 32u + 4u + 4u)

static void env_header(cz_bc_wr *w, unsigned id, const uint8_t prover_id[32], const uint8_t randomness[32],
                       uint32_t partition, uint32_t n) {
    cz_bc_wbytes(w, CZ_FIL_POST_REQUEST_MAGIC, 8);
    cz_bc_wu32(w, CZ_FIL_POST_REQUEST_VERSION);
    cz_bc_wu32(w, id);
    cz_bc_wbytes(w, prover_id, 32);
    cz_bc_wbytes(w, randomness, 32);
    cz_bc_wu32(w, partition);
    cz_bc_wu32(w, n);
}

cz_status cz_fil_post_request_encode_raw(unsigned registered_proof, const uint8_t prover_id[32],
                                         const uint8_t randomness[32], uint32_t partition,
                                         const uint8_t *const *proofs, const size_t *lens, size_t n, uint8_t **out,
                                         size_t *out_len) {
    if (!prover_id || !randomness || !out || !out_len || (n && (!proofs || !lens)) || n > UINT32_MAX)
        return CZ_ERR_INVALID_ARG;
    cz_bc_wr w = { 0 };
    env_header(&w, registered_proof, prover_id, randomness, partition, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        if (!proofs[i] && lens[i]) {
            free(w.b);
            return CZ_ERR_INVALID_ARG;
        }
        cz_bc_wu64(&w, lens[i]);
        if (lens[i]) cz_bc_wbytes(&w, proofs[i], lens[i]);
    }
    return cz_bc_wfinish(&w, out, out_len);
}

cz_status cz_fil_post_request_encode(const cz_fil_post_request *r, uint8_t **out, size_t *len) {
    if (!r || !r->proof || !out || !len || r->nvanilla > UINT32_MAX) return CZ_ERR_INVALID_ARG;
    cz_bc_wr w = { 0 };
    env_header(&w, r->proof->id, r->prover_id, r->randomness, r->partition, (uint32_t)r->nvanilla);
    for (size_t i = 0; i < r->nvanilla; i++) {
        size_t at = w.len;
        cz_bc_wu64(&w, 0); /* patched below */
        wr_vanilla(&w, &r->vanilla[i]);
        if (w.oom) break;
        cz_bc_wpatch_u64(&w, at, w.len - at - 8);
    }
    return cz_bc_wfinish(&w, out, len);
}

/* The sector proof count rules of generate_winning_post_with_vanilla
 * ("invalid amount of vanilla proofs") and generate_single_window_post_
 * with_vanilla (empty list; more than sector_count: "can only prove a
 * single partition"). */
static cz_status count_ok(const cz_fil_post_proof *p, size_t n, cz_errbuf *err) {
    if (p->type == CZ_FIL_POST_WINNING && n != 1)
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "%s: %zu sector proofs, WinningPoSt takes exactly 1 (invalid amount of vanilla proofs)", p->name,
                      n);
    if (p->type == CZ_FIL_POST_WINDOW && (n == 0 || n > p->sector_count))
        return cz_err(err, CZ_ERR_INVALID_ARG,
                      "%s: %zu sector proofs, a WindowPoSt partition takes 1 to %u (%s)", p->name, n, p->sector_count,
                      n ? "can only prove a single partition" : "vanilla_proofs cannot be an empty list");
    return CZ_OK;
}

static cz_status request_parse(cz_fil_post_request *out, const uint8_t *buf, size_t len, cz_errbuf *err) {
    if (!buf && len) return cz_err(err, CZ_ERR_INVALID_ARG, "PoSt request: no buffer");
    cz_bc_rd r;
    cz_bc_rd_init(&r, buf, len, 0, "PoSt request: ", "request", false, err);
    cz_status st;
    cz_bc_at(&r, "magic");
    if ((st = cz_bc_need(&r, 8)) != CZ_OK) return st;
    if (memcmp(buf, CZ_FIL_POST_REQUEST_MAGIC, 8))
        return cz_bc_fail(&r, CZ_ERR_FORMAT, 0, "bad magic (not a \"%s\" envelope)", CZ_FIL_POST_REQUEST_MAGIC);
    r.pos = 8;
    uint32_t version, id, partition, n;
    cz_bc_at(&r, "version");
    if ((st = cz_bc_u32(&r, &version)) != CZ_OK) return st;
    if (version != CZ_FIL_POST_REQUEST_VERSION)
        return cz_bc_fail(&r, CZ_ERR_FORMAT, 8, "version %u, this build reads version %u", version,
                          CZ_FIL_POST_REQUEST_VERSION);
    cz_bc_at(&r, "registered_proof");
    if ((st = cz_bc_u32(&r, &id)) != CZ_OK) return st;
    const cz_fil_post_proof *p = cz_fil_post_proof_by_id(id);
    if (!p) return cz_bc_fail(&r, CZ_ERR_FORMAT, 12, "%u is not a RegisteredPoStProof (0..14)", id);
    cz_bc_at(&r, "prover_id");
    if ((st = cz_bc_need(&r, 64)) != CZ_OK) return st; /* prover_id and randomness */
    memcpy(out->prover_id, buf + r.pos, 32);
    memcpy(out->randomness, buf + r.pos + 32, 32);
    r.pos += 64;
    cz_bc_at(&r, "partition");
    if ((st = cz_bc_u32(&r, &partition)) != CZ_OK) return st;
    cz_bc_at(&r, "count");
    if ((st = cz_bc_u32(&r, &n)) != CZ_OK) return st;
    if ((st = cz_fil_post_safe_commitment(out->randomness, "randomness", err)) != CZ_OK) return st;
    if ((st = cz_fil_post_safe_commitment(out->prover_id, "prover_id", err)) != CZ_OK) return st;
    if (p->type == CZ_FIL_POST_WINNING && partition != 0)
        return cz_err(err, CZ_ERR_INVALID_ARG, "PoSt request: partition %u, WinningPoSt has one partition (0)",
                      partition);
    if ((st = count_ok(p, n, err)) != CZ_OK) return st;
    out->proof = p;
    out->partition = partition;
    out->vanilla = calloc(n, sizeof *out->vanilla);
    if (!out->vanilla) {
        memset(out, 0, sizeof *out);
        return cz_err(err, CZ_ERR_NOMEM, "PoSt request: out of memory");
    }
    for (uint32_t i = 0; i < n; i++) {
        uint64_t l;
        size_t at = r.pos;
        cz_bc_at(&r, "sector proof %u length", i);
        st = cz_bc_u64(&r, &l);
        if (st == CZ_OK && l > r.len - r.pos)
            st = cz_bc_fail(&r, CZ_ERR_FORMAT, at, "%llu bytes, %zu left", (unsigned long long)l, r.len - r.pos);
        if (st == CZ_OK) {
            char prefix[40];
            snprintf(prefix, sizeof prefix, "sector proof %u: ", i);
            cz_bc_rd sub;
            cz_bc_rd_init(&sub, buf + r.pos, (size_t)l, r.pos, prefix, VANILLA_ROOT, false, err);
            st = vanilla_read(&sub, p, &out->vanilla[i]);
            if (st != CZ_OK) cz_fil_post_vanilla_free(&out->vanilla[i]);
            r.pos += (size_t)l;
        }
        if (st != CZ_OK) {
            cz_fil_post_request_free(out);
            return st;
        }
        out->nvanilla = i + 1;
    }
    if (r.pos != r.len) {
        cz_fil_post_request_free(out);
        cz_bc_pop(&r, 0);
        return cz_bc_fail(&r, CZ_ERR_FORMAT, r.pos, "%zu bytes after the last sector proof", r.len - r.pos);
    }
    return CZ_OK;
}

cz_status cz_fil_post_request_parse(cz_fil_post_request *out, const uint8_t *buf, size_t len, cz_errbuf *err) {
    if (!out) return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    cz_status st = request_parse(out, buf, len, err);
    if (st != CZ_OK) {
        cz_fil_post_request_free(out); /* and zeroed: nothing half-read escapes */
        memset(out, 0, sizeof *out);
    }
    return st;
}

/* ---- 4. challenges ----------------------------------------------------------------- */
uint64_t cz_fil_post_challenge_index(cz_fil_api_version api, uint64_t sector_index, uint64_t challenge_count,
                                     uint64_t n) {
    return api == CZ_FIL_API_1_2 ? n : sector_index * challenge_count + n;
}

static uint64_t le64(const uint8_t *b) {
    uint64_t x = 0;
    for (int i = 7; i >= 0; i--) x = x << 8 | b[i];
    return x;
}
static void put_le64(uint8_t *b, uint64_t v) {
    for (int i = 0; i < 8; i++) b[i] = (uint8_t)(v >> (8 * i));
}

/* generate_leaf_challenge / generate_leaf_challenge_inner */
uint64_t cz_fil_post_leaf_challenge(const cz_fil_post_proof *p, const uint8_t randomness[32], uint64_t sector_id,
                                    uint64_t challenge_index) {
    uint8_t msg[48], h[32];
    memcpy(msg, randomness, 32);
    put_le64(msg + 32, sector_id);
    put_le64(msg + 40, challenge_index);
    cz_sha256(h, msg, sizeof msg);
    return le64(h) % cz_fil_post_nodes(p);
}

void cz_fil_post_sector_challenges(const cz_fil_post_proof *p, const uint8_t randomness[32], uint64_t sector_id,
                                   uint64_t sector_index, uint64_t *out) {
    for (unsigned n = 0; n < p->config_challenge_count; n++)
        out[n] = cz_fil_post_leaf_challenge(
            p, randomness, sector_id, cz_fil_post_challenge_index(p->api, sector_index, p->config_challenge_count, n));
}

/* generate_winning_post_sector_challenge -> generate_sector_challenges */
cz_status cz_fil_post_winning_sectors(const cz_fil_post_proof *p, const uint8_t randomness[32],
                                      const uint8_t prover_id[32], uint64_t sector_set_len, uint64_t *out,
                                      cz_errbuf *err) {
    if (!p || !randomness || !prover_id || !out) return CZ_ERR_INVALID_ARG;
    if (sector_set_len == 0) return cz_err(err, CZ_ERR_INVALID_ARG, "empty sector set is invalid");
    if (p->type != CZ_FIL_POST_WINNING) return cz_err(err, CZ_ERR_INVALID_ARG, "%s: invalid post config type", p->name);
    cz_status st = cz_fil_post_safe_commitment(prover_id, "prover_id", err);
    if (st == CZ_OK) st = cz_fil_post_safe_commitment(randomness, "randomness", err);
    if (st != CZ_OK) return st;
    for (unsigned n = 0; n < p->config_sector_count; n++) {
        uint8_t msg[72], h[32];
        memcpy(msg, prover_id, 32);
        memcpy(msg + 32, randomness, 32);
        put_le64(msg + 64, n); /* n: usize, to_le_bytes on a 64-bit target */
        cz_sha256(h, msg, sizeof msg);
        out[n] = le64(h) % sector_set_len;
    }
    return CZ_OK;
}

/* The circuit's sector i: single_partition_vanilla_proofs (which sector
 * proof) + FallbackPoStCompound::circuit (which public sector). */
cz_status cz_fil_post_circuit_sector_of(const cz_fil_post_request *r, size_t i, cz_fil_post_circuit_sector *out) {
    if (!r || !r->proof || !out || i >= r->proof->sector_count || r->nvanilla == 0) return CZ_ERR_INVALID_ARG;
    const cz_fil_post_proof *p = r->proof;
    memset(out, 0, sizeof *out);
    if (p->type == CZ_FIL_POST_WINNING) {
        const cz_fil_post_vanilla *v = &r->vanilla[0];
        if (v->nsectors != 1 || v->sectors[0].ninclusion == 0) return CZ_ERR_INVALID_ARG;
        const cz_fil_post_sector_proof *sp = &v->sectors[0];
        /* the inclusion proofs unrolled into one-challenge sectors, the
         * last repeated up to sector_count */
        size_t j = i < sp->ninclusion ? i : sp->ninclusion - 1;
        out->sector_id = v->sector_id;
        out->comm_r = &v->comm_r;
        out->comm_c = &sp->comm_c;
        out->comm_r_last = &sp->comm_r_last;
        out->ninclusion = 1;
        out->inclusion = &sp->inclusion_proofs[j];
        out->sector_index = i; /* partition 0 · 66 + i */
        return CZ_OK;
    }
    size_t k = i < r->nvanilla ? i : r->nvanilla - 1;
    const cz_fil_post_vanilla *pub = &r->vanilla[k], *v = NULL;
    for (size_t j = 0; j < r->nvanilla && !v; j++)
        if (r->vanilla[j].sector_id == pub->sector_id) v = &r->vanilla[j];
    if (!v || v->nsectors != 1) return CZ_ERR_INVALID_ARG;
    out->sector_id = pub->sector_id;
    out->comm_r = &pub->comm_r;
    out->comm_c = &v->sectors[0].comm_c;
    out->comm_r_last = &v->sectors[0].comm_r_last;
    out->ninclusion = v->sectors[0].ninclusion;
    out->inclusion = v->sectors[0].inclusion_proofs;
    out->sector_index = (uint64_t)r->partition * p->sector_count + k;
    return CZ_OK;
}

/* Number of distinct circuit sectors to check: winning's 66 unrolled
 * challenges, or the window partition's sectors (the padding repeats). */
static size_t real_sectors(const cz_fil_post_request *r) {
    return r->proof->type == CZ_FIL_POST_WINNING ? r->proof->sector_count : r->nvanilla;
}

static cz_status request_shape_ok(const cz_fil_post_request *r, cz_errbuf *err) {
    if (!r || !r->proof) return cz_err(err, CZ_ERR_INVALID_ARG, "PoSt request: no registered proof");
    const cz_fil_post_proof *p = r->proof;
    cz_status st = count_ok(p, r->nvanilla, err);
    if (st != CZ_OK) return st;
    if (p->type == CZ_FIL_POST_WINNING && r->partition)
        return cz_err(err, CZ_ERR_INVALID_ARG, "PoSt request: partition %u, WinningPoSt has one partition (0)",
                      r->partition);
    for (size_t i = 0; i < r->nvanilla; i++) {
        const cz_fil_post_vanilla *v = &r->vanilla[i];
        if (v->nsectors != 1 || v->sectors[0].ninclusion != p->config_challenge_count)
            return cz_err(err, CZ_ERR_INVALID_ARG,
                          "sector proof %zu: %zu SectorProofs with %zu inclusion proofs, %s needs 1 with %u", i,
                          v->nsectors, v->nsectors ? v->sectors[0].ninclusion : 0, p->name,
                          p->config_challenge_count);
    }
    return CZ_OK;
}

/* FallbackPoSt::verify for the partition, plus what the circuit needs
 * (the comm_r_last field is the roots' value; every sector checked). */
cz_status cz_fil_post_check(const cz_fil_post_request *r, cz_errbuf *err) {
    cz_status st = request_shape_ok(r, err);
    if (st != CZ_OK) return st;
    const cz_fil_post_proof *p = r->proof;
    if ((st = cz_fil_post_safe_commitment(r->randomness, "randomness", err)) != CZ_OK) return st;
    if ((st = cz_fil_post_safe_commitment(r->prover_id, "prover_id", err)) != CZ_OK) return st;
    size_t nsec = real_sectors(r);
    for (size_t i = 0; i < nsec; i++) {
        cz_fil_post_circuit_sector s;
        if ((st = cz_fil_post_circuit_sector_of(r, i, &s)) != CZ_OK)
            return cz_err(err, st, "PoSt request: circuit sector %zu cannot be formed", i);
        size_t vi = p->type == CZ_FIL_POST_WINNING ? 0 : i;
        char who[64];
        snprintf(who, sizeof who, "sector proof %zu (sector %llu)", vi, (unsigned long long)s.sector_id);
        cz_fil_domain h;
        st = cz_fil_poseidon_hash2(&h, s.comm_c, s.comm_r_last);
        if (st != CZ_OK) return cz_err(err, st, "%s: comm_c or comm_r_last is not a canonical field element", who);
        if (memcmp(h.b, s.comm_r->b, 32))
            return cz_err(err, CZ_ERR_MISMATCH, "%s: comm_r is not Poseidon(comm_c, comm_r_last)", who);
        for (size_t n = 0; n < s.ninclusion; n++) {
            const cz_fil_merkle_proof *mp = &s.inclusion[n];
            size_t cn = p->type == CZ_FIL_POST_WINNING ? i : n;
            uint64_t leaf = cz_fil_post_leaf_challenge(
                p, r->randomness, s.sector_id, cz_fil_post_challenge_index(p->api, s.sector_index, p->challenge_count, n));
            if (memcmp(mp->root.b, s.comm_r_last->b, 32))
                return cz_err(err, CZ_ERR_MISMATCH, "%s: challenge %zu (leaf %llu): inclusion proof root is not "
                              "comm_r_last", who, cn, (unsigned long long)leaf);
            cz_errbuf e2 = { { 0 } };
            st = cz_fil_merkle_proof_check(mp, CZ_FIL_HASHER_POSEIDON, 8, p->tree_sub_arity, p->tree_top_arity, leaf,
                                           &e2);
            if (st == CZ_OK) {
                cz_fr f;
                if (cz_fil_domain_to_fr(&f, &mp->leaf) != CZ_OK) {
                    st = CZ_ERR_NOT_CANONICAL;
                    snprintf(e2.msg, sizeof e2.msg, "the leaf is not a canonical field element");
                }
            }
            if (st != CZ_OK)
                return cz_err(err, st == CZ_ERR_FORMAT ? CZ_ERR_INVALID_ARG : st, "%s: challenge %zu (leaf %llu): %s",
                              who, cn, (unsigned long long)leaf, e2.msg);
        }
    }
    return CZ_OK;
}

size_t cz_fil_post_public_input_count(const cz_fil_post_proof *p) {
    return (size_t)p->sector_count * (1u + p->challenge_count);
}

/* FallbackPoStCompound::generate_public_inputs(pub_inputs, pub_params, Some(k)) */
cz_status cz_fil_post_public_inputs(const cz_fil_post_request *r, cz_fr *out, size_t cap, size_t *n,
                                    cz_errbuf *err) {
    cz_status st = request_shape_ok(r, err);
    if (st != CZ_OK) return st;
    if (!out || !n) return CZ_ERR_INVALID_ARG;
    const cz_fil_post_proof *p = r->proof;
    size_t need = cz_fil_post_public_input_count(p);
    if (cap < need) return cz_err(err, CZ_ERR_INVALID_ARG, "%s: %zu public inputs, room for %zu", p->name, need, cap);
    if ((st = cz_fil_post_safe_commitment(r->randomness, "randomness", err)) != CZ_OK) return st;
    size_t k = 0;
    for (size_t i = 0; i < p->sector_count; i++) {
        cz_fil_post_circuit_sector s;
        if ((st = cz_fil_post_circuit_sector_of(r, i, &s)) != CZ_OK) return st;
        if (cz_fil_domain_to_fr(&out[k++], s.comm_r) != CZ_OK)
            return cz_err(err, CZ_ERR_NOT_CANONICAL, "sector %llu: comm_r is not a canonical field element",
                          (unsigned long long)s.sector_id);
        for (unsigned c = 0; c < p->challenge_count; c++) {
            uint64_t leaf = cz_fil_post_leaf_challenge(
                p, r->randomness, s.sector_id, cz_fil_post_challenge_index(p->api, s.sector_index, p->challenge_count, c));
            cz_fr_from_u64(&out[k++], leaf);
        }
    }
    *n = k;
    return CZ_OK;
}
