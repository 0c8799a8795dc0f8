/*
 * C1 output (SealCommitPhase1Output) reader/writer and Curio's wrapper,
 * against the files rust-fil-proofs and Curio produced
 * (tests/vectors/filecoin/porep-2k-v1.1: c1.json, c1-curio.json,
 * fixture.json), base64 against RFC 4648 §10 and OpenSSL, and a systematic
 * set of tampered inputs whose errors must name the right JSON path.
 */
#include "filtest.h"

#include "cuzk/fil_c1.h"

#include <jansson.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DIR "filecoin/porep-2k-v1.1/"

static char *load(const char *rel, size_t *len)
{
    return (char *)cz_read_file(cz_vector_path(rel), len);
}

static bool is_zeroed(const cz_fil_c1 *c)
{
    static const cz_fil_c1 z;
    return memcmp(c, &z, sizeof z) == 0;
}

/* The path index a Merkle path proves (storage-proofs-core path_index). */
static uint64_t path_index(const cz_fil_path *p, unsigned arity)
{
    uint64_t x = 0;
    for (size_t i = p->len; i-- > 0;) x = x * arity + p->elems[i].index;
    return x;
}

/* ---- the reference file ---------------------------------------------------------------- */

static void check_reference(const cz_fil_c1 *c)
{
    size_t flen;
    char *fx = load(DIR "fixture.json", &flen);
    json_error_t je;
    json_t *f = json_loadb(fx, flen, 0, &je);
    assert_non_null(f);
    free(fx);

    assert_non_null(c->registered_proof);
    assert_string_equal(c->registered_proof->name, json_string_value(json_object_get(f, "registered_proof")));
    assert_string_equal(c->registered_proof->name, "StackedDrg2KiBV1_1");
    uint8_t want[32];
    fil_unhex(want, json_string_value(json_object_get(f, "comm_d_hex")), 32);
    assert_memory_equal(c->comm_d.b, want, 32);
    fil_unhex(want, json_string_value(json_object_get(f, "comm_r_hex")), 32);
    assert_memory_equal(c->comm_r.b, want, 32);
    fil_unhex(want, json_string_value(json_object_get(json_object_get(f, "replica_id"), "le_hex")), 32);
    assert_memory_equal(c->replica_id.b, want, 32);
    fil_unhex(want, json_string_value(json_object_get(f, "seed_hex")), 32);
    assert_memory_equal(c->seed, want, 32);
    fil_unhex(want, json_string_value(json_object_get(f, "ticket_hex")), 32);
    assert_memory_equal(c->ticket, want, 32);

    /* Shapes: 1 partition × 2 challenges, 2 layers, tree D 6 binary
     * levels, tree R/C 8-0-0 with 2 levels of 7 siblings. */
    assert_int_equal(c->npartitions, 1);
    assert_int_equal(c->partitions[0].nchallenges, 2);
    uint8_t comm_r_last[32];
    fil_unhex(comm_r_last, json_string_value(json_object_get(f, "comm_r_last_hex")), 32);
    /* The reference's challenges are nodes 48 and 36: tree D's path, the
     * replica column and the encoding proof all prove that node. */
    static const uint64_t challenge[2] = { 48, 36 };
    for (size_t i = 0; i < 2; i++) {
        const cz_fil_vanilla_proof *v = &c->partitions[0].proofs[i];
        assert_int_equal(v->comm_d_proofs.kind, CZ_FIL_PROOF_SINGLE);
        assert_int_equal(v->comm_d_proofs.base.len, 6);
        assert_int_equal(v->comm_d_proofs.base.elems[0].nhashes, 1);
        assert_memory_equal(v->comm_d_proofs.root.b, c->comm_d.b, 32);
        assert_int_equal(path_index(&v->comm_d_proofs.base, 2), challenge[i]);
        assert_int_equal(v->comm_r_last_proof.kind, CZ_FIL_PROOF_SINGLE);
        assert_int_equal(v->comm_r_last_proof.base.len, 2);
        assert_int_equal(v->comm_r_last_proof.base.elems[1].nhashes, 7);
        assert_memory_equal(v->comm_r_last_proof.root.b, comm_r_last, 32);
        assert_int_equal(path_index(&v->comm_r_last_proof.base, 8), challenge[i]);
        assert_int_equal(v->c_x.column.index, challenge[i]);
        assert_int_equal(v->c_x.column.nrows, 2);
        assert_int_equal(v->nlabeling, 2);
        assert_int_equal(v->labeling_proofs[0].layer_index, 1);
        assert_int_equal(v->labeling_proofs[1].layer_index, 2);
        assert_int_equal(v->labeling_proofs[1].nparents, 37);
        assert_int_equal(v->encoding_proof.layer_index, 2);
        assert_int_equal(v->encoding_proof.node, challenge[i]);
    }
    /* Two values read straight off the reference file. */
    assert_int_equal(c->partitions[0].proofs[0].drg_parents[3].column.index, 13);
    assert_int_equal(c->partitions[0].proofs[0].drg_parents[3].column.rows[1].b[5], 49);
    assert_int_equal(c->partitions[0].proofs[1].drg_parents[3].column.index, 33);
    assert_int_equal(c->partitions[0].proofs[1].labeling_proofs[1].parents[36].b[0], 18);
    json_decref(f);
}

static void test_parse_reference(void **state)
{
    (void)state;
    cz_fil_c1 c;
    cz_errbuf e = { "" };
    cz_status st = cz_fil_c1_read_file(&c, cz_vector_path(DIR "c1.json"), &e);
    if (st) fail_msg("%s", e.msg);
    check_reference(&c);
    cz_fil_c1_free(&c);
    assert_true(is_zeroed(&c));
    cz_fil_c1_free(&c); /* idempotent */
    cz_fil_c1 z;
    memset(&z, 0, sizeof z);
    cz_fil_c1_free(&z);
    cz_fil_c1_free(NULL);
}

static void test_roundtrip(void **state)
{
    (void)state;
    size_t n, m;
    char *ref = load(DIR "c1.json", &n);
    char *cur = load(DIR "c1-curio.json", &m);
    cz_fil_c1 a, b;
    cz_errbuf e = { "" };
    if (cz_fil_c1_parse(&a, ref, n, &e)) fail_msg("%s", e.msg);
    if (cz_fil_c1_parse(&b, cur, m, &e)) fail_msg("%s", e.msg);
    check_reference(&b);
    assert_true(cz_fil_c1_equal(&a, &b));

    char *out = NULL;
    size_t olen = 0;
    assert_int_equal(cz_fil_c1_to_json(&a, &out, &olen), CZ_OK);
    assert_int_equal(olen, n);
    assert_int_equal(strlen(out), olen);
    assert_memory_equal(out, ref, n);
    free(out);

    assert_int_equal(cz_fil_c1_to_curio_json(&b, 42, &out, &olen), CZ_OK);
    assert_int_equal(olen, m);
    assert_memory_equal(out, cur, m);
    free(out);

    /* Equality sees a single changed byte anywhere. */
    a.partitions[0].proofs[1].exp_parents[7].inclusion.base.elems[1].hashes[6].b[31] ^= 1;
    assert_false(cz_fil_c1_equal(&a, &b));
    a.partitions[0].proofs[1].exp_parents[7].inclusion.base.elems[1].hashes[6].b[31] ^= 1;
    assert_true(cz_fil_c1_equal(&a, &b));
    a.partitions[0].proofs[0].labeling_proofs[0].node ^= 1;
    assert_false(cz_fil_c1_equal(&a, &b));
    a.partitions[0].proofs[0].labeling_proofs[0].node ^= 1;
    a.ticket[0] ^= 1;
    assert_false(cz_fil_c1_equal(&a, &b));
    a.ticket[0] ^= 1;
    assert_true(cz_fil_c1_equal(&a, &b));

    /* Trailing whitespace is JSON; anything else after the value is not. */
    char *ws = malloc(n + 2);
    memcpy(ws, ref, n);
    memcpy(ws + n, "\n", 2);
    cz_fil_c1 c;
    assert_int_equal(cz_fil_c1_parse(&c, ws, n + 1, &e), CZ_OK);
    assert_true(cz_fil_c1_equal(&a, &c));
    cz_fil_c1_free(&c);
    ws[n] = 'x';
    assert_int_equal(cz_fil_c1_parse(&c, ws, n + 1, &e), CZ_ERR_FORMAT);
    assert_true(is_zeroed(&c));
    free(ws);

    cz_fil_c1_free(&a);
    cz_fil_c1_free(&b);
    free(ref);
    free(cur);
}

/* ---- base64 ------------------------------------------------------------------------------- */

static void test_base64(void **state)
{
    (void)state;
    static const char *const rfc[][2] = { /* RFC 4648 §10 */
        { "", "" }, { "f", "Zg==" }, { "fo", "Zm8=" }, { "foo", "Zm9v" },
        { "foob", "Zm9vYg==" }, { "fooba", "Zm9vYmE=" }, { "foobar", "Zm9vYmFy" },
    };
    for (size_t i = 0; i < sizeof rfc / sizeof rfc[0]; i++) {
        char *s;
        size_t sl;
        assert_int_equal(cz_base64_encode((const uint8_t *)rfc[i][0], strlen(rfc[i][0]), &s, &sl), CZ_OK);
        assert_string_equal(s, rfc[i][1]);
        assert_int_equal(sl, strlen(rfc[i][1]));
        free(s);
        uint8_t *d;
        size_t dl;
        assert_int_equal(cz_base64_decode(rfc[i][1], strlen(rfc[i][1]), &d, &dl), CZ_OK);
        assert_int_equal(dl, strlen(rfc[i][0]));
        assert_memory_equal(d, rfc[i][0], dl);
        free(d);
    }
    static const char *const bad[] = {
        "Zg=", "Zg", "Z", "Zh==", "Zm9=", "Zm9v\n", " Zm9v", "Z===", "====", "=Zg=", "Zm=v",
        "Zm9-", "Zm9_", "Zm8=Zm8=", "Zg==Zm9v", "Zm9vY===", "Zm\0v",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        uint8_t *d = (uint8_t *)"x";
        size_t dl = 7;
        size_t len = strlen(bad[i]);
        if (i == sizeof bad / sizeof bad[0] - 1) len = 4; /* embedded NUL */
        cz_status st = cz_base64_decode(bad[i], len, &d, &dl);
        if (st != CZ_ERR_FORMAT) fail_msg("\"%s\" was accepted", bad[i]);
        assert_null(d);
        assert_int_equal(dl, 0);
    }
    /* Random data against OpenSSL's encoder (an independent one). */
    cz_test_seed();
    uint8_t buf[300];
    unsigned char ref[404];
    for (size_t len = 0; len < sizeof buf; len += 1 + len / 8) {
        cz_rng_bytes(buf, len);
        int rl = EVP_EncodeBlock(ref, buf, (int)len);
        char *s;
        size_t sl;
        assert_int_equal(cz_base64_encode(buf, len, &s, &sl), CZ_OK);
        assert_int_equal(sl, (size_t)rl);
        assert_memory_equal(s, ref, sl);
        uint8_t *d;
        size_t dl;
        assert_int_equal(cz_base64_decode(s, sl, &d, &dl), CZ_OK);
        assert_int_equal(dl, len);
        if (len) assert_memory_equal(d, buf, len);
        free(d);
        free(s);
    }
}

/* ---- tampering ---------------------------------------------------------------------------- */

/* Walk "a.b[0][1].c" to the parent of its last step. */
static json_t *parent_of(json_t *root, const char *path, char *key, size_t *idx, bool *is_idx)
{
    json_t *cur = root, *par = NULL;
    const char *p = path;
    while (*p) {
        par = cur;
        if (*p == '[') {
            char *end;
            *idx = strtoul(p + 1, &end, 10);
            assert_true(*end == ']');
            p = end + 1;
            *is_idx = true;
            cur = json_array_get(par, *idx);
        } else {
            if (*p == '.') p++;
            size_t n = strcspn(p, ".[");
            memcpy(key, p, n);
            key[n] = '\0';
            p += n;
            *is_idx = false;
            cur = json_object_get(par, key);
        }
        if (*p && !cur) fail_msg("no %s in the reference file", path);
    }
    return par;
}

static json_t *get_at(json_t *root, const char *path)
{
    char key[128];
    size_t idx = 0;
    bool is_idx = false;
    json_t *par = parent_of(root, path, key, &idx, &is_idx);
    json_t *v = is_idx ? json_array_get(par, idx) : json_object_get(par, key);
    if (!v) fail_msg("no %s in the reference file", path);
    return v;
}

static void set_at(json_t *root, const char *path, json_t *val)
{
    char key[128];
    size_t idx = 0;
    bool is_idx = false;
    json_t *par = parent_of(root, path, key, &idx, &is_idx);
    if (is_idx) assert_int_equal(json_array_set_new(par, idx, val), 0);
    else assert_int_equal(json_object_set_new(par, key, val), 0);
}

static void del_at(json_t *root, const char *path)
{
    char key[128];
    size_t idx = 0;
    bool is_idx = false;
    json_t *par = parent_of(root, path, key, &idx, &is_idx);
    if (is_idx) assert_int_equal(json_array_remove(par, idx), 0);
    else assert_int_equal(json_object_del(par, key), 0);
}

typedef enum { M_DEL, M_SET, M_RENAME, M_POP, M_DUP } mut_kind;

typedef struct {
    mut_kind kind;
    const char *path;
    const char *arg;    /* M_SET: JSON text; M_RENAME: new key */
    cz_status want;
    const char *msg;    /* must occur in the error message */
} mutation;

#define VP "vanilla_proofs.StackedDrg2KiBV1"
#define P01 VP "[0][1]"

static const mutation mutations[] = {
    { M_DEL, "comm_d", NULL, CZ_ERR_FORMAT, "comm_d: missing" },
    { M_DEL, "registered_proof", NULL, CZ_ERR_FORMAT, "registered_proof: missing" },
    { M_DEL, P01 ".encoding_proof.node", NULL, CZ_ERR_FORMAT, P01 ".encoding_proof.node: missing" },
    { M_DEL, P01 ".replica_column_proofs.c_x.column._h", NULL, CZ_ERR_FORMAT,
      P01 ".replica_column_proofs.c_x.column._h: missing" },
    { M_DEL, VP "[0][0].comm_d_proofs.data.Single.path", NULL, CZ_ERR_FORMAT,
      VP "[0][0].comm_d_proofs.data.Single.path: missing" },
    { M_SET, "extra", "1", CZ_ERR_FORMAT, "extra: unexpected member" },
    { M_SET, P01 ".labeling_proofs[0].extra", "null", CZ_ERR_FORMAT,
      P01 ".labeling_proofs[0].extra: unexpected member" },
    { M_SET, "seed", "\"2fdda4d4\"", CZ_ERR_FORMAT, "seed: expected an array of 32 integers 0..255" },
    { M_SET, "registered_proof", "5", CZ_ERR_FORMAT, "registered_proof: expected a registered proof name" },
    { M_SET, VP, "{}", CZ_ERR_FORMAT, VP ": expected an array of 1 partitions, got an object" },
    { M_SET, VP "[0]", "7", CZ_ERR_FORMAT, VP "[0]: expected an array of 2 challenge proofs" },
    { M_SET, P01, "[]", CZ_ERR_FORMAT, P01 ": expected an object {comm_d_proofs" },
    { M_POP, P01 ".comm_r_last_proof.data.Single.root", NULL, CZ_ERR_FORMAT,
      P01 ".comm_r_last_proof.data.Single.root: expected an array of 32 integers 0..255 (a 32-byte value), got 31 elements" },
    { M_DUP, "ticket", NULL, CZ_ERR_FORMAT, "ticket: expected an array of 32 integers" },
    { M_SET, P01 ".replica_column_proofs.drg_parents[3].column.rows[1][5]", "256", CZ_ERR_FORMAT,
      P01 ".replica_column_proofs.drg_parents[3].column.rows[1][5]: expected an integer 0..255, got 256" },
    { M_SET, "comm_r[0]", "-1", CZ_ERR_FORMAT, "comm_r[0]: expected an integer 0..255, got -1" },
    { M_SET, "replica_id[31]", "1.0", CZ_ERR_FORMAT, "replica_id[31]: expected an integer 0..255, got a real number" },
    { M_SET, "comm_d[2]", "\"7\"", CZ_ERR_FORMAT, "comm_d[2]: expected an integer 0..255, got a string" },
    { M_DUP, VP, NULL, CZ_ERR_FORMAT, VP ": expected an array of 1 partitions, got 2 elements" },
    { M_POP, VP, NULL, CZ_ERR_FORMAT, VP ": expected an array of 1 partitions, got 0 elements" },
    { M_DUP, VP "[0]", NULL, CZ_ERR_FORMAT, VP "[0]: expected an array of 2 challenge proofs, got 3 elements" },
    { M_SET, "registered_proof", "\"StackedDrg2KiBV9\"", CZ_ERR_FORMAT,
      "registered_proof: unknown registered proof \"StackedDrg2KiBV9\"" },
    { M_SET, "registered_proof", "\"\"", CZ_ERR_FORMAT, "registered_proof: unknown registered proof" },
    { M_RENAME, "vanilla_proofs.StackedDrg2KiBV1", "StackedDrg2KiBV1_1", CZ_ERR_FORMAT,
      "vanilla_proofs.StackedDrg2KiBV1_1: expected the key \"StackedDrg2KiBV1\"" },
    /* A valid name of another size: the vanilla key no longer fits. */
    { M_SET, "registered_proof", "\"StackedDrg8MiBV1_1\"", CZ_ERR_FORMAT,
      "vanilla_proofs.StackedDrg2KiBV1: expected the key \"StackedDrg8MiBV1\"" },
    /* The 1.0 / synthetic variants of 2KiB share the key and the counts. */
    { M_SET, "registered_proof", "\"StackedDrg2KiBV1\"", CZ_OK, NULL },
    { M_SET, "registered_proof", "\"StackedDrg2KiBV1_1_Feat_SyntheticPoRep\"", CZ_OK, NULL },
    /* Non-interactive 2KiB wants 13 partitions. */
    { M_SET, "registered_proof", "\"StackedDrg2KiBV1_2_Feat_NonInteractivePoRep\"", CZ_ERR_FORMAT,
      VP ": expected an array of 13 partitions, got 1 elements" },
    { M_SET, "vanilla_proofs.StackedDrg8MiBV1", "[]", CZ_ERR_FORMAT,
      "vanilla_proofs: expected an object with the single member \"StackedDrg2KiBV1\"" },
    { M_POP, P01 ".labeling_proofs[1].parents", NULL, CZ_ERR_FORMAT,
      P01 ".labeling_proofs[1].parents: expected an array of 37 parent labels, got 36 elements" },
    { M_DUP, VP "[0][0].encoding_proof.parents", NULL, CZ_ERR_FORMAT,
      VP "[0][0].encoding_proof.parents: expected an array of 37 parent labels, got 38 elements" },
    { M_POP, P01 ".replica_column_proofs.drg_parents", NULL, CZ_ERR_FORMAT,
      P01 ".replica_column_proofs.drg_parents: expected an array of 6 column proofs" },
    { M_DUP, P01 ".replica_column_proofs.exp_parents", NULL, CZ_ERR_FORMAT,
      P01 ".replica_column_proofs.exp_parents: expected an array of 8 column proofs (expander parents), got 9" },
    { M_DUP, P01 ".replica_column_proofs.exp_parents[2].column.rows", NULL, CZ_ERR_FORMAT,
      P01 ".replica_column_proofs.exp_parents[2].column.rows: expected an array of 2 rows (one label per layer), got 3" },
    { M_DUP, P01 ".labeling_proofs", NULL, CZ_ERR_FORMAT,
      P01 ".labeling_proofs: expected an array of 2 labeling proofs (one per layer), got 3" },
    { M_POP, VP "[0][0].comm_d_proofs.data.Single.path.path", NULL, CZ_ERR_FORMAT,
      VP "[0][0].comm_d_proofs.data.Single.path.path: expected an array of 6 path elements (levels of an arity-2 tree), got 5" },
    { M_DUP, VP "[0][0].comm_d_proofs.data.Single.path.path[3].hashes", NULL, CZ_ERR_FORMAT,
      VP "[0][0].comm_d_proofs.data.Single.path.path[3].hashes: expected an array of 1 sibling hashes, got 2" },
    { M_POP, VP "[0][0].comm_r_last_proof.data.Single.path.path[1].hashes", NULL, CZ_ERR_FORMAT,
      VP "[0][0].comm_r_last_proof.data.Single.path.path[1].hashes: expected an array of 7 sibling hashes, got 6" },
    { M_DUP, P01 ".replica_column_proofs.c_x.inclusion_proof.data.Single.path.path", NULL, CZ_ERR_FORMAT,
      P01 ".replica_column_proofs.c_x.inclusion_proof.data.Single.path.path: expected an array of 2 path elements (levels of an arity-8 tree), got 3" },
    /* Indices out of range. */
    { M_SET, VP "[0][0].comm_d_proofs.data.Single.path.path[0].index", "2", CZ_ERR_FORMAT,
      VP "[0][0].comm_d_proofs.data.Single.path.path[0].index: expected an integer 0..1, got 2" },
    { M_SET, VP "[0][0].comm_r_last_proof.data.Single.path.path[1].index", "8", CZ_ERR_FORMAT,
      VP "[0][0].comm_r_last_proof.data.Single.path.path[1].index: expected an integer 0..7, got 8" },
    { M_SET, P01 ".replica_column_proofs.exp_parents[7].column.index", "64", CZ_ERR_FORMAT,
      P01 ".replica_column_proofs.exp_parents[7].column.index: expected an integer 0..63, got 64" },
    { M_SET, P01 ".encoding_proof.node", "18446744073709551615", CZ_ERR_FORMAT, "invalid JSON" },
    { M_SET, P01 ".encoding_proof.node", "64", CZ_ERR_FORMAT, P01 ".encoding_proof.node: expected an integer 0..63, got 64" },
    { M_SET, P01 ".labeling_proofs[0].layer_index", "0", CZ_ERR_FORMAT,
      P01 ".labeling_proofs[0].layer_index: expected an integer 1..2, got 0" },
    { M_SET, P01 ".encoding_proof.layer_index", "3", CZ_ERR_FORMAT,
      P01 ".encoding_proof.layer_index: expected an integer 1..2, got 3" },
    /* Wrong variant / wrong enum shape. */
    { M_RENAME, P01 ".comm_r_last_proof.data.Single", "Sub", CZ_ERR_FORMAT,
      P01 ".comm_r_last_proof.data.Sub: expected the variant \"Single\" for a 8-0-0 tree" },
    { M_SET, P01 ".comm_d_proofs.data.Top", "{}", CZ_ERR_FORMAT,
      P01 ".comm_d_proofs.data: expected an object with the single member \"Single\" (a binary tree)" },
    { M_SET, P01 ".replica_column_proofs.drg_parents[0].column._h", "0", CZ_ERR_FORMAT,
      P01 ".replica_column_proofs.drg_parents[0].column._h: expected null" },
};

static void test_tamper(void **state)
{
    (void)state;
    size_t n;
    char *ref = load(DIR "c1.json", &n);
    json_error_t je;
    for (size_t i = 0; i < sizeof mutations / sizeof mutations[0]; i++) {
        const mutation *mu = &mutations[i];
        json_t *root = json_loadb(ref, n, 0, &je);
        assert_non_null(root);
        switch (mu->kind) {
        case M_DEL: del_at(root, mu->path); break;
        case M_SET: {
            json_t *v = json_loads(mu->arg, JSON_DECODE_ANY, &je);
            if (!v) { /* out of jansson's range: splice the text in below */
                json_t *mark = json_string("@@MARK@@");
                set_at(root, mu->path, mark);
                break;
            }
            set_at(root, mu->path, v);
            break;
        }
        case M_RENAME: {
            json_t *v = json_incref(get_at(root, mu->path));
            del_at(root, mu->path);
            char np[512];
            snprintf(np, sizeof np, "%.*s%s", (int)(strrchr(mu->path, '.') + 1 - mu->path), mu->path, mu->arg);
            set_at(root, np, v);
            break;
        }
        case M_POP: {
            json_t *a = get_at(root, mu->path);
            assert_true(json_array_size(a) > 0);
            assert_int_equal(json_array_remove(a, json_array_size(a) - 1), 0);
            break;
        }
        case M_DUP: {
            json_t *a = get_at(root, mu->path);
            assert_int_equal(json_array_append_new(a, json_deep_copy(json_array_get(a, 0))), 0);
            break;
        }
        }
        char *text = json_dumps(root, JSON_COMPACT);
        assert_non_null(text);
        json_decref(root);
        char *mark = strstr(text, "\"@@MARK@@\"");
        if (mark) {
            char *t2 = malloc(strlen(text) + strlen(mu->arg) + 1);
            sprintf(t2, "%.*s%s%s", (int)(mark - text), text, mu->arg, mark + 10);
            free(text);
            text = t2;
        }
        cz_fil_c1 c;
        cz_errbuf e = { "" };
        cz_status st = cz_fil_c1_parse(&c, text, strlen(text), &e);
        if (st != mu->want || (mu->msg && !strstr(e.msg, mu->msg)))
            fail_msg("mutation %zu (%s): status %s, message \"%s\"; wanted %s with \"%s\"", i, mu->path,
                     cz_status_str(st), e.msg, cz_status_str(mu->want), mu->msg ? mu->msg : "");
        if (st) assert_true(is_zeroed(&c));
        /* The same tampering seen through Curio's wrapper is reported with
         * the same path, inside Phase1Out. */
        if (st && mu->msg && strstr(mu->msg, "invalid JSON") == NULL) {
            char *b64;
            size_t bl;
            assert_int_equal(cz_base64_encode((const uint8_t *)text, strlen(text), &b64, &bl), CZ_OK);
            char *w = malloc(bl + 100);
            int wl = sprintf(w, "{\"SectorNum\": 1, \"Phase1Out\": \"%s\", \"SectorSize\": 2048}", b64);
            cz_status st2 = cz_fil_c1_parse(&c, w, (size_t)wl, &e);
            assert_int_equal(st2, st);
            assert_non_null(strstr(e.msg, "Phase1Out"));
            if (strlen(mu->msg) < 120 && !strstr(e.msg, mu->msg))
                fail_msg("mutation %zu via Curio: \"%s\"", i, e.msg);
            assert_true(is_zeroed(&c));
            free(w);
            free(b64);
        }
        cz_fil_c1_free(&c);
        free(text);
    }

    /* Raw text damage: truncation anywhere, a duplicate key, not JSON. */
    cz_fil_c1 c;
    cz_errbuf e = { "" };
    static const size_t cuts[] = { 0, 1, 100, 50000, 100000 };
    for (size_t i = 0; i < sizeof cuts / sizeof cuts[0]; i++) {
        size_t cut = cuts[i] < n ? cuts[i] : n - 1;
        assert_int_equal(cz_fil_c1_parse(&c, ref, cut, &e), CZ_ERR_FORMAT);
        assert_non_null(strstr(e.msg, "invalid JSON"));
        assert_true(is_zeroed(&c));
    }
    assert_int_equal(cz_fil_c1_parse(&c, ref, n - 1, &e), CZ_ERR_FORMAT);
    char *dup = malloc(n + 32);
    int dl = sprintf(dup, "{\"comm_d\":[],%s", ref + 1);
    assert_int_equal(cz_fil_c1_parse(&c, dup, (size_t)dl, &e), CZ_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "duplicate"));
    free(dup);
    assert_int_equal(cz_fil_c1_parse(&c, "[]", 2, &e), CZ_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "(top level): expected an object {registered_proof"));
    assert_int_equal(cz_fil_c1_parse(NULL, ref, n, &e), CZ_ERR_INVALID_ARG);
    assert_int_equal(cz_fil_c1_read_file(&c, "/nonexistent/c1.json", &e), CZ_ERR_IO);
    free(ref);
}

static void test_curio_tamper(void **state)
{
    (void)state;
    size_t n;
    char *ref = load(DIR "c1-curio.json", &n);
    cz_fil_c1 c;
    cz_errbuf e = { "" };
    char *t = malloc(n + 64);
    /* SectorSize of another sector. */
    memcpy(t, ref, n);
    t[n] = '\0';
    char *ss = strstr(t, "\"SectorSize\": 2048");
    assert_non_null(ss);
    strcpy(ss, "\"SectorSize\": 4096}");
    assert_int_equal(cz_fil_c1_parse(&c, t, strlen(t), &e), CZ_ERR_MISMATCH);
    assert_non_null(strstr(e.msg, "SectorSize: 4096"));
    assert_non_null(strstr(e.msg, "StackedDrg2KiBV1_1 (2048 bytes)"));
    assert_true(is_zeroed(&c));
    strcpy(ss, "\"SectorSize\": \"2048\"}");
    assert_int_equal(cz_fil_c1_parse(&c, t, strlen(t), &e), CZ_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "SectorSize: expected an integer"));
    /* A character outside the alphabet, and a dropped '=' of the padding. */
    memcpy(t, ref, n);
    t[n] = '\0';
    char *p1 = strstr(t, "\"Phase1Out\": \"") + 14;
    p1[100] = '*';
    assert_int_equal(cz_fil_c1_parse(&c, t, n, &e), CZ_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "Phase1Out: expected base64"));
    memcpy(t, ref, n);
    char *eq = strstr(t, "=\", \"SectorSize\"");
    assert_non_null(eq);
    memmove(eq, eq + 1, n - (size_t)(eq + 1 - t));
    assert_int_equal(cz_fil_c1_parse(&c, t, n - 1, &e), CZ_ERR_FORMAT);
    assert_non_null(strstr(e.msg, "Phase1Out: expected base64"));
    /* Missing / extra / mistyped members of the wrapper. */
    static const char *const bad[][2] = {
        { "{\"SectorNum\": 1, \"Phase1Out\": \"\", \"SectorSize\": 2048}", "Phase1Out (decoded): invalid JSON" },
        { "{\"SectorNum\": 1, \"Phase1Out\": \"e30=\", \"SectorSize\": 2048}",
          "Phase1Out (decoded): registered_proof: missing" },
        { "{\"Phase1Out\": \"e30=\", \"SectorSize\": 2048}", "SectorNum: missing" },
        { "{\"SectorNum\": -1, \"Phase1Out\": \"e30=\", \"SectorSize\": 2048}", "SectorNum: expected an integer" },
        { "{\"SectorNum\": 1, \"Phase1Out\": 5, \"SectorSize\": 2048}", "Phase1Out: expected a base64 string" },
        { "{\"SectorNum\": 1, \"Phase1Out\": \"e30=\", \"SectorSize\": 2048, \"x\": 0}", "x: unexpected member" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(cz_fil_c1_parse(&c, bad[i][0], strlen(bad[i][0]), &e), CZ_ERR_FORMAT);
        if (!strstr(e.msg, bad[i][1])) fail_msg("case %zu: \"%s\"", i, e.msg);
        assert_true(is_zeroed(&c));
    }
    free(t);
    free(ref);
}

/* ---- tree shapes of the large sectors ------------------------------------------------------ */

static json_t *jdom(void)
{
    json_t *a = json_array();
    for (int i = 0; i < 32; i++) json_array_append_new(a, json_integer(i));
    return a;
}

static json_t *jdoms(size_t n)
{
    json_t *a = json_array();
    for (size_t i = 0; i < n; i++) json_array_append_new(a, jdom());
    return a;
}

static json_t *jincl(unsigned arity, unsigned levels)
{
    json_t *p = json_array();
    for (unsigned l = 0; l < levels; l++)
        json_array_append_new(p, json_pack("{s:o,s:i}", "hashes", jdoms(arity - 1), "index", (int)(l % arity)));
    return json_pack("{s:o}", "path", p);
}

/* A Merkle proof of the shape storage-proofs-core writes for a tree with
 * `levels` base levels of `arity` and optional sub/top levels. */
static json_t *jmerkle(unsigned arity, unsigned levels, unsigned sub, unsigned top)
{
    json_t *body;
    if (top)
        body = json_pack("{s:o,s:o,s:o,s:o,s:o}", "base_proof", jincl(arity, levels), "sub_proof", jincl(sub, 1),
                         "top_proof", jincl(top, 1), "root", jdom(), "leaf", jdom());
    else if (sub)
        body = json_pack("{s:o,s:o,s:o,s:o}", "base_proof", jincl(arity, levels), "sub_proof", jincl(sub, 1),
                         "root", jdom(), "leaf", jdom());
    else
        body = json_pack("{s:o,s:o,s:o}", "root", jdom(), "leaf", jdom(), "path", jincl(arity, levels));
    return json_pack("{s:{s:o}}", "data", top ? "Top" : sub ? "Sub" : "Single", body);
}

static json_t *jcolproof(unsigned layers, unsigned levels, unsigned sub, unsigned top)
{
    return json_pack("{s:{s:i,s:o,s:n},s:o}", "column", "index", 5, "rows", jdoms(layers), "_h",
                     "inclusion_proof", jmerkle(8, levels, sub, top));
}

static json_t *jlabel(int layer)
{
    return json_pack("{s:o,s:i,s:i}", "parents", jdoms(37), "layer_index", layer, "node", 7);
}

/* A C1 output for `name` whose first challenge proof is complete and
 * whose second is null: the parser must accept the first one's shapes and
 * stop at [0][1]. tree D has d_levels binary levels; trees R/C have
 * rc_levels base levels and the given sub/top arities. */
static char *large_c1(const char *name, const char *vname, unsigned layers, unsigned partitions,
                      unsigned cpp, unsigned d_levels, unsigned rc_levels, unsigned sub, unsigned top)
{
    json_t *drg = json_array(), *exp = json_array(), *lab = json_array();
    for (int i = 0; i < 6; i++) json_array_append_new(drg, jcolproof(layers, rc_levels, sub, top));
    for (int i = 0; i < 8; i++) json_array_append_new(exp, jcolproof(layers, rc_levels, sub, top));
    for (unsigned i = 0; i < layers; i++) json_array_append_new(lab, jlabel((int)i + 1));
    json_t *proof = json_pack("{s:o,s:o,s:{s:o,s:o,s:o},s:o,s:o}", "comm_d_proofs", jmerkle(2, d_levels, 0, 0),
                              "comm_r_last_proof", jmerkle(8, rc_levels, sub, top), "replica_column_proofs",
                              "c_x", jcolproof(layers, rc_levels, sub, top), "drg_parents", drg, "exp_parents", exp,
                              "labeling_proofs", lab, "encoding_proof", jlabel((int)layers));
    json_t *parts = json_array();
    for (unsigned p = 0; p < partitions; p++) {
        json_t *pa = json_array();
        if (p == 0) {
            json_array_append_new(pa, proof);
            for (unsigned i = 1; i < cpp; i++) json_array_append_new(pa, json_null());
        }
        json_array_append_new(parts, pa);
    }
    json_t *root = json_pack("{s:s,s:{s:o},s:o,s:o,s:o,s:o,s:o}", "registered_proof", name, "vanilla_proofs", vname,
                             parts, "comm_r", jdom(), "comm_d", jdom(), "replica_id", jdom(), "seed", jdom(), "ticket",
                             jdom());
    assert_non_null(root);
    char *s = json_dumps(root, JSON_COMPACT);
    json_decref(root);
    return s;
}

static void expect_err(const char *text, const char *msg)
{
    cz_fil_c1 c;
    cz_errbuf e = { "" };
    assert_int_equal(cz_fil_c1_parse(&c, text, strlen(text), &e), CZ_ERR_FORMAT);
    if (!strstr(e.msg, msg)) fail_msg("\"%s\" does not contain \"%s\"", e.msg, msg);
    assert_true(is_zeroed(&c));
}

static void test_large_shapes(void **state)
{
    (void)state;
    /* 2KiB through the same generator (the first proof is accepted). */
    char *s = large_c1("StackedDrg2KiBV1_1", "StackedDrg2KiBV1", 2, 1, 1, 6, 2, 0, 0);
    expect_err(s, "vanilla_proofs.StackedDrg2KiBV1[0]: expected an array of 2 challenge proofs, got 1");
    free(s);
    s = large_c1("StackedDrg2KiBV1_1", "StackedDrg2KiBV1", 2, 1, 2, 6, 2, 0, 0);
    expect_err(s, "vanilla_proofs.StackedDrg2KiBV1[0][1]: expected an object {comm_d_proofs");
    free(s);

    /* 512MiB: 2^24 nodes, tree D 24 levels, 8-0-0 with 8 levels. */
    s = large_c1("StackedDrg512MiBV1_1", "StackedDrg512MiBV1", 2, 1, 2, 24, 8, 0, 0);
    expect_err(s, "vanilla_proofs.StackedDrg512MiBV1[0][1]: expected an object");
    free(s);
    /* 32GiB: 2^30 nodes, 11 layers, 10 partitions × 18; tree D 30 levels;
     * 8-8-0: base trees of 2^27 leaves (9 levels) and one sub level. */
    s = large_c1("StackedDrg32GiBV1_1", "StackedDrg32GiBV1", 11, 10, 18, 30, 9, 8, 0);
    expect_err(s, "vanilla_proofs.StackedDrg32GiBV1[0][1]: expected an object");
    free(s);
    /* 64GiB: 2^31 nodes, 8-8-2: base 2^27 leaves (9 levels), sub, top. */
    s = large_c1("StackedDrg64GiBV1_1", "StackedDrg64GiBV1", 11, 10, 18, 31, 9, 8, 2);
    expect_err(s, "vanilla_proofs.StackedDrg64GiBV1[0][1]: expected an object");
    free(s);
    /* NI-PoRep 32GiB: 126 partitions. */
    s = large_c1("StackedDrg32GiBV1_2_Feat_NonInteractivePoRep", "StackedDrg32GiBV1", 11, 126, 18, 30, 9, 8, 0);
    expect_err(s, "vanilla_proofs.StackedDrg32GiBV1[0][1]: expected an object");
    free(s);

    /* Wrong shapes for the sector are refused at the first proof. */
    s = large_c1("StackedDrg32GiBV1_1", "StackedDrg32GiBV1", 11, 10, 18, 30, 9, 0, 0);
    expect_err(s, "vanilla_proofs.StackedDrg32GiBV1[0][0].comm_r_last_proof.data.Single: expected the variant "
                  "\"Sub\" for a 8-8-0 tree");
    free(s);
    s = large_c1("StackedDrg64GiBV1_1", "StackedDrg64GiBV1", 11, 10, 18, 31, 9, 8, 0);
    expect_err(s, "vanilla_proofs.StackedDrg64GiBV1[0][0].comm_r_last_proof.data.Sub: expected the variant "
                  "\"Top\" for a 8-8-2 tree");
    free(s);
    s = large_c1("StackedDrg32GiBV1_1", "StackedDrg32GiBV1", 11, 10, 18, 30, 10, 8, 0);
    expect_err(s, "vanilla_proofs.StackedDrg32GiBV1[0][0].comm_r_last_proof.data.Sub.base_proof.path: expected an "
                  "array of 9 path elements");
    free(s);
    s = large_c1("StackedDrg64GiBV1_1", "StackedDrg64GiBV1", 11, 10, 18, 31, 9, 8, 8);
    expect_err(s, "vanilla_proofs.StackedDrg64GiBV1[0][0].comm_r_last_proof.data.Top.top_proof.path[0].hashes: "
                  "expected an array of 1 sibling hashes, got 7");
    free(s);
    s = large_c1("StackedDrg64GiBV1_1", "StackedDrg64GiBV1", 11, 10, 18, 31, 9, 2, 2);
    expect_err(s, "vanilla_proofs.StackedDrg64GiBV1[0][0].comm_r_last_proof.data.Top.sub_proof.path[0].hashes: "
                  "expected an array of 7 sibling hashes, got 1");
    free(s);
    s = large_c1("StackedDrg32GiBV1_1", "StackedDrg32GiBV1", 2, 10, 18, 30, 9, 8, 0);
    expect_err(s, "vanilla_proofs.StackedDrg32GiBV1[0][0].replica_column_proofs.c_x.column.rows: expected an array "
                  "of 11 rows");
    free(s);
    s = large_c1("StackedDrg32GiBV1_1", "StackedDrg32GiBV1", 11, 10, 18, 31, 9, 8, 0);
    expect_err(s, "vanilla_proofs.StackedDrg32GiBV1[0][0].comm_d_proofs.data.Single.path.path: expected an array of "
                  "30 path elements");
    free(s);
}

/* The writer's Sub/Top output: a 64GiB challenge proof built in memory
 * must be written exactly as jansson writes the generator's object of the
 * same values (whose member order is serde's). The whole 10 × 18 proof
 * set is not built: the comparison is of one proof's text. */
static void test_large_roundtrip(void **state)
{
    (void)state;
    char *s = large_c1("StackedDrg64GiBV1_1", "StackedDrg64GiBV1", 11, 10, 18, 31, 9, 8, 2);
    char *a = strstr(s, "[[{") + 2;   /* the first proof: from "[[" to ",null" */
    char *b = strstr(a, ",null");
    assert_non_null(b);
    size_t plen = (size_t)(b - a);
    cz_fil_c1 one;
    memset(&one, 0, sizeof one);
    one.registered_proof = cz_fil_seal_proof_by_name("StackedDrg64GiBV1_1");
    assert_non_null(one.registered_proof);
    one.npartitions = 1;
    one.partitions = calloc(1, sizeof *one.partitions);
    one.partitions[0].nchallenges = 1;
    one.partitions[0].proofs = calloc(1, sizeof *one.partitions[0].proofs);
    cz_fil_vanilla_proof *v = &one.partitions[0].proofs[0];
    /* Fill v to mirror the generator: domains 0..31, index l % arity. */
    cz_fil_domain d;
    for (int i = 0; i < 32; i++) d.b[i] = (uint8_t)i;
    cz_fil_merkle_proof *mps[17];
    size_t nm = 0;
    mps[nm++] = &v->comm_r_last_proof;
    mps[nm++] = &v->c_x.inclusion;
    for (int i = 0; i < 6; i++) mps[nm++] = &v->drg_parents[i].inclusion;
    for (int i = 0; i < 8; i++) mps[nm++] = &v->exp_parents[i].inclusion;
    struct { cz_fil_path *p; unsigned arity, levels; } paths[3 * 16 + 1];
    size_t np = 0;
    for (size_t i = 0; i < nm; i++) {
        mps[i]->kind = CZ_FIL_PROOF_TOP;
        mps[i]->root = mps[i]->leaf = d;
        paths[np].p = &mps[i]->base, paths[np].arity = 8, paths[np++].levels = 9;
        paths[np].p = &mps[i]->sub, paths[np].arity = 8, paths[np++].levels = 1;
        paths[np].p = &mps[i]->top, paths[np].arity = 2, paths[np++].levels = 1;
    }
    v->comm_d_proofs.kind = CZ_FIL_PROOF_SINGLE;
    v->comm_d_proofs.root = v->comm_d_proofs.leaf = d;
    paths[np].p = &v->comm_d_proofs.base, paths[np].arity = 2, paths[np++].levels = 31;
    for (size_t i = 0; i < np; i++) {
        cz_fil_path *p = paths[i].p;
        p->len = paths[i].levels;
        p->elems = calloc(p->len, sizeof *p->elems);
        for (size_t l = 0; l < p->len; l++) {
            p->elems[l].nhashes = paths[i].arity - 1;
            p->elems[l].index = (unsigned)(l % paths[i].arity);
            p->elems[l].hashes = calloc(p->elems[l].nhashes, sizeof d);
            for (unsigned k = 0; k < p->elems[l].nhashes; k++) p->elems[l].hashes[k] = d;
        }
    }
    cz_fil_column_proof *cps[15];
    cps[0] = &v->c_x;
    for (int i = 0; i < 6; i++) cps[1 + i] = &v->drg_parents[i];
    for (int i = 0; i < 8; i++) cps[7 + i] = &v->exp_parents[i];
    for (int i = 0; i < 15; i++) {
        cps[i]->column.index = 5;
        cps[i]->column.nrows = 11;
        cps[i]->column.rows = calloc(11, sizeof d);
        for (int k = 0; k < 11; k++) cps[i]->column.rows[k] = d;
    }
    v->nlabeling = 11;
    v->labeling_proofs = calloc(11, sizeof *v->labeling_proofs);
    cz_fil_label_proof *lps[12];
    for (int i = 0; i < 11; i++) lps[i] = &v->labeling_proofs[i], lps[i]->layer_index = (unsigned)i + 1;
    lps[11] = &v->encoding_proof;
    lps[11]->layer_index = 11;
    for (int i = 0; i < 12; i++) {
        lps[i]->node = 7;
        lps[i]->nparents = 37;
        lps[i]->parents = calloc(37, sizeof d);
        for (int k = 0; k < 37; k++) lps[i]->parents[k] = d;
    }
    char *out;
    size_t olen;
    assert_int_equal(cz_fil_c1_to_json(&one, &out, &olen), CZ_OK);
    char *oa = strstr(out, "[[{") + 2;
    char *ob = strstr(oa, "]]},\"comm_r\"");
    assert_non_null(ob);
    /* jansson kept the generator's member order, which is serde's. */
    assert_int_equal((size_t)(ob - oa), plen);
    assert_memory_equal(oa, a, plen);
    free(out);
    cz_fil_c1_free(&one);
    assert_true(is_zeroed(&one));
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_reference), cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_base64),          cmocka_unit_test(test_tamper),
        cmocka_unit_test(test_curio_tamper),    cmocka_unit_test(test_large_shapes),
        cmocka_unit_test(test_large_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
