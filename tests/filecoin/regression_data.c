/*
 * Test helper: rust-fil-proofs seal regression records and the seeded
 * generator of their inputs (see regression_data.h).
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include "regression_data.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

const uint8_t CZ_FIL_API_TEST_SEED[16] = {
    0x59, 0x62, 0xbe, 0x5d, 0x76, 0x3d, 0x31, 0x8d,
    0x17, 0xdb, 0x37, 0x32, 0x54, 0x06, 0xbc, 0xe5,
};

/* ---- rand_xorshift 0.3 -------------------------------------------------- */

static uint32_t ld32le(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* As XorShiftRng::from_seed. */
void cz_xorshift_from_seed(cz_xorshift *r, const uint8_t seed[16]) {
    r->x = ld32le(seed);
    r->y = ld32le(seed + 4);
    r->z = ld32le(seed + 8);
    r->w = ld32le(seed + 12);
    /* xorshift's all-zero state is a fixed point; the crate substitutes a
     * preset rather than failing. */
    if ((r->x | r->y | r->z | r->w) == 0) r->x = r->y = r->z = r->w = 0x0BAD5EEDu;
}

/* As XorShiftRng::next_u32 (Marsaglia's xor128). */
uint32_t cz_xorshift_next_u32(cz_xorshift *r) {
    uint32_t t = r->x ^ (r->x << 11);
    r->x = r->y;
    r->y = r->z;
    r->z = r->w;
    r->w = r->w ^ (r->w >> 19) ^ (t ^ (t >> 8));
    return r->w;
}

/* As rand_core impls::next_u64_via_u32: first word low. */
uint64_t cz_xorshift_next_u64(cz_xorshift *r) {
    uint64_t lo = cz_xorshift_next_u32(r);
    uint64_t hi = cz_xorshift_next_u32(r);
    return hi << 32 | lo;
}

/* As rand_core impls::fill_bytes_via_next. */
void cz_xorshift_fill_bytes(cz_xorshift *r, uint8_t *out, size_t len) {
    while (len >= 8) {
        uint64_t v = cz_xorshift_next_u64(r);
        for (int i = 0; i < 8; i++) out[i] = (uint8_t)(v >> (8 * i));
        out += 8;
        len -= 8;
    }
    if (len > 4) {
        uint64_t v = cz_xorshift_next_u64(r);
        for (size_t i = 0; i < len; i++) out[i] = (uint8_t)(v >> (8 * i));
    } else if (len > 0) {
        uint32_t v = cz_xorshift_next_u32(r);
        for (size_t i = 0; i < len; i++) out[i] = (uint8_t)(v >> (8 * i));
    }
}

/* As rand 0.8 Standard for [u8; N]: element-wise gen::<u8>(). */
void cz_xorshift_gen_bytes(cz_xorshift *r, uint8_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)cz_xorshift_next_u32(r);
}

/* BLS12-381 scalar modulus r, little-endian 64-bit limbs. */
static const uint64_t FR_MODULUS[4] = {
    0xffffffff00000001ull, 0x53bda402fffe5bfeull, 0x3339d80809a1d805ull, 0x73eda753299d7d48ull,
};

/* As blstrs 0.7 Field::random for Scalar (rejection sampling). */
void cz_xorshift_fr_random_repr(cz_xorshift *r, uint8_t out[32]) {
    for (;;) {
        uint64_t l[4];
        for (int i = 0; i < 4; i++) l[i] = cz_xorshift_next_u64(r);
        l[3] &= UINT64_MAX >> 1; /* REPR_SHAVE_BITS = 256 − 255 */
        int lt = 0;
        for (int i = 3; i >= 0; i--) {
            if (l[i] != FR_MODULUS[i]) { lt = l[i] < FR_MODULUS[i]; break; }
        }
        if (!lt) continue;
        for (int i = 0; i < 32; i++) out[i] = (uint8_t)(l[i / 8] >> (8 * (i % 8)));
        return;
    }
}

/* seal_lifecycle's draws, in order (the piece bytes in between come from
 * thread_rng and do not advance this rng). */
void cz_fil_regression_gen_inputs(cz_fil_regression_inputs *out) {
    cz_xorshift r;
    cz_xorshift_from_seed(&r, CZ_FIL_API_TEST_SEED);
    cz_xorshift_fr_random_repr(&r, out->prover_id);
    cz_xorshift_gen_bytes(&r, out->ticket, 32);
    cz_xorshift_gen_bytes(&r, out->seed, 32);
    out->sector_id = cz_xorshift_next_u64(&r);
}

/* ---- records ------------------------------------------------------------------ */

static bool bytes_field(json_t *obj, const char *key, uint8_t *out, size_t n, size_t line) {
    json_t *a = json_object_get(obj, key);
    if (!json_is_array(a) || json_array_size(a) != n) {
        fprintf(stderr, "line %zu: %s is not an array of %zu bytes\n", line, key, n);
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(a, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > 255) {
            fprintf(stderr, "line %zu: %s[%zu] is not a byte\n", line, key, i);
            return false;
        }
        out[i] = (uint8_t)json_integer_value(v);
    }
    return true;
}

/* jansson refuses integers above INT64_MAX; the records' sector id is one.
 * Read it from the text and blank it out (a lone 0 and spaces stay valid
 * JSON) before handing the line to jansson. */
static bool take_sector_id(char *line, uint64_t *out, size_t lineno) {
    static const char key[] = "\"sector_id\":";
    char *p = strstr(line, key);
    if (!p) {
        fprintf(stderr, "line %zu: no sector_id\n", lineno);
        return false;
    }
    p += sizeof key - 1;
    while (*p == ' ') p++;
    if (*p < '0' || *p > '9') {
        fprintf(stderr, "line %zu: sector_id is not an unsigned integer\n", lineno);
        return false;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p, &end, 10);
    if (errno) {
        fprintf(stderr, "line %zu: sector_id out of range\n", lineno);
        return false;
    }
    *out = v;
    *p = '0';
    for (char *q = p + 1; q < end; q++) *q = ' ';
    return true;
}

static bool parse_record(char *line, size_t lineno, cz_fil_regression_record *r) {
    memset(r, 0, sizeof *r);
    if (!take_sector_id(line, &r->sector_id, lineno)) return false;
    json_error_t e;
    json_t *o = json_loads(line, 0, &e);
    if (!o) {
        fprintf(stderr, "line %zu: %s\n", lineno, e.text);
        return false;
    }
    bool ok = false;
    json_t *pc = json_object_get(o, "porep_config");
    json_t *ss = json_object_get(pc, "sector_size");
    json_t *pa = json_object_get(pc, "partitions");
    json_t *av = json_object_get(pc, "api_version");
    json_t *af = json_object_get(pc, "api_features");
    json_t *pf = json_object_get(o, "proof");
    if (!json_is_integer(ss) || !json_is_integer(pa) || !json_is_string(av) || !json_is_array(af) ||
        !json_is_array(pf)) {
        fprintf(stderr, "line %zu: porep_config or proof malformed\n", lineno);
        goto out;
    }
    r->sector_size = (uint64_t)json_integer_value(ss);
    r->partitions = (unsigned)json_integer_value(pa);
    const char *v = json_string_value(av);
    if (strcmp(v, "V1_0_0") == 0) r->api = CZ_FIL_API_1_0;
    else if (strcmp(v, "V1_1_0") == 0) r->api = CZ_FIL_API_1_1;
    else if (strcmp(v, "V1_2_0") == 0) r->api = CZ_FIL_API_1_2;
    else {
        fprintf(stderr, "line %zu: api_version %s\n", lineno, v);
        goto out;
    }
    r->mode = CZ_FIL_CHALLENGES_INTERACTIVE;
    for (size_t i = 0; i < json_array_size(af); i++) {
        const char *f = json_string_value(json_array_get(af, i));
        if (f && strcmp(f, "SyntheticPoRep") == 0) r->mode = CZ_FIL_CHALLENGES_SYNTHETIC;
        else if (f && strcmp(f, "NonInteractivePoRep") == 0) r->mode = CZ_FIL_CHALLENGES_NON_INTERACTIVE;
        else {
            fprintf(stderr, "line %zu: unknown api feature\n", lineno);
            goto out;
        }
    }
    if (!bytes_field(pc, "porep_id", r->porep_id, 32, lineno) ||
        !bytes_field(o, "comm_r", r->comm_r.b, 32, lineno) ||
        !bytes_field(o, "comm_d", r->comm_d.b, 32, lineno) ||
        !bytes_field(o, "prover_id", r->prover_id, 32, lineno) ||
        !bytes_field(o, "ticket", r->ticket, 32, lineno) ||
        !bytes_field(o, "seed", r->seed, 32, lineno))
        goto out;
    r->proof_len = json_array_size(pf);
    r->proof = malloc(r->proof_len ? r->proof_len : 1);
    if (!r->proof || !bytes_field(o, "proof", r->proof, r->proof_len, lineno)) goto out;
    ok = true;
out:
    json_decref(o);
    if (!ok) {
        free(r->proof);
        r->proof = NULL;
    }
    return ok;
}

bool cz_fil_regression_load(const char *path, cz_fil_regression_record **recs, size_t *n) {
    *recs = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return false;
    }
    char *line = NULL;
    size_t cap = 0, count = 0, lineno = 0, have = 0;
    cz_fil_regression_record *out = NULL;
    bool ok = true;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len == 0 || line[0] == '\n') continue;
        if (count == have) {
            have = have ? 2 * have : 64;
            cz_fil_regression_record *t = realloc(out, have * sizeof *out);
            if (!t) { ok = false; break; }
            out = t;
        }
        if (!parse_record(line, lineno, &out[count])) { ok = false; break; }
        count++;
    }
    free(line);
    fclose(f);
    if (!ok) {
        cz_fil_regression_free(out, count);
        return false;
    }
    *recs = out;
    *n = count;
    return true;
}

void cz_fil_regression_free(cz_fil_regression_record *recs, size_t n) {
    if (!recs) return;
    for (size_t i = 0; i < n; i++) free(recs[i].proof);
    free(recs);
}

/* As filecoin-proofs constants.rs get_porep_{interactive,non_interactive}
 * _minimum_challenges and parameters.rs select_challenges. */
unsigned cz_fil_regression_challenges_per_partition(const cz_fil_regression_record *r) {
#define KiB (1ull << 10)
#define MiB (1ull << 20)
#define GiB (1ull << 30)
    unsigned min;
    bool ni = r->mode == CZ_FIL_CHALLENGES_NON_INTERACTIVE;
    switch (r->sector_size) {
    case 2 * KiB: case 4 * KiB: case 16 * KiB: case 32 * KiB:
    case 8 * MiB: case 16 * MiB: case 512 * MiB: case 1 * GiB:
        min = ni ? 26 : 2;
        break;
    case 32 * GiB: case 64 * GiB:
        min = ni ? 2253 : 176;
        break;
    default:
        return 0;
    }
#undef KiB
#undef MiB
#undef GiB
    if (r->partitions == 0) return 0;
    return (min + r->partitions - 1) / r->partitions;
}
