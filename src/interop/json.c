/* snarkjs JSON forms of Groth16 proofs, public inputs and verifying keys. */
#include "cuzk/snarkjs.h"
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

cz_status cz_dec_to_limbs(uint64_t *limbs, size_t n, const char *dec)
{
    if (!dec || !*dec) return CZ_ERR_FORMAT;
    memset(limbs, 0, n * sizeof *limbs);
    size_t len = strlen(dec);
    if (len > 20 * n + 1) return CZ_ERR_NOT_CANONICAL;
    for (const char *c = dec; *c; c++) {
        if (*c < '0' || *c > '9') return CZ_ERR_FORMAT;
        unsigned __int128 carry = (unsigned)(*c - '0');
        for (size_t i = 0; i < n; i++) {
            unsigned __int128 t = (unsigned __int128)limbs[i] * 10 + carry;
            limbs[i] = (uint64_t)t;
            carry = t >> 64;
        }
        if (carry) return CZ_ERR_NOT_CANONICAL; /* overflowed n limbs */
    }
    return CZ_OK;
}

void cz_limbs_to_dec(char *out, const uint64_t *limbs, size_t n)
{
    uint64_t t[8];
    char rev[20 * 8 + 1];
    size_t k = 0;
    memcpy(t, limbs, n * sizeof *t);
    for (;;) {
        bool zero = true;
        for (size_t i = 0; i < n; i++) zero &= t[i] == 0;
        if (zero) break;
        /* t /= 10^19, remainder in rem */
        const uint64_t D = 10000000000000000000ULL;
        unsigned __int128 rem = 0;
        for (size_t i = n; i-- > 0;) {
            unsigned __int128 cur = (rem << 64) | t[i];
            t[i] = (uint64_t)(cur / D);
            rem = cur % D;
        }
        uint64_t r = (uint64_t)rem;
        bool last = true;
        for (size_t i = 0; i < n; i++) last &= t[i] == 0;
        for (int d = 0; d < 19 && (r || !last); d++) {
            rev[k++] = (char)('0' + r % 10);
            r /= 10;
        }
    }
    if (k == 0) rev[k++] = '0';
    for (size_t i = 0; i < k; i++) out[i] = rev[k - 1 - i];
    out[k] = '\0';
}

/* ---- field element <-> JSON string ---- */
static json_t *fp_json(const cz_fp *a)
{
    uint64_t l[6];
    char s[130];
    cz_fp_to_raw(l, a);
    cz_limbs_to_dec(s, l, 6);
    return json_string(s);
}

static json_t *fr_json(const cz_fr *a)
{
    uint64_t l[4];
    char s[90];
    cz_fr_to_raw(l, a);
    cz_limbs_to_dec(s, l, 4);
    return json_string(s);
}

static cz_status fp_from_json(cz_fp *r, const json_t *j)
{
    uint64_t l[6];
    if (!json_is_string(j)) return CZ_ERR_FORMAT;
    cz_status st = cz_dec_to_limbs(l, 6, json_string_value(j));
    if (st != CZ_OK) return st;
    return cz_fp_from_raw(r, l);
}

static cz_status fr_from_json(cz_fr *r, const json_t *j)
{
    uint64_t l[4];
    if (!json_is_string(j)) return CZ_ERR_FORMAT;
    cz_status st = cz_dec_to_limbs(l, 4, json_string_value(j));
    if (st != CZ_OK) return st;
    return cz_fr_from_raw(r, l);
}

static bool is_dec(const json_t *j, const char *v)
{
    return json_is_string(j) && strcmp(json_string_value(j), v) == 0;
}

/* ---- points ---- */
static json_t *g1_json(const cz_g1_affine *p)
{
    if (cz_g1_affine_is_infinity(p))
        return json_pack("[sss]", "0", "1", "0");
    return json_pack("[oos]", fp_json(&p->x), fp_json(&p->y), "1");
}

static json_t *fp2_json(const cz_fp2 *a) { return json_pack("[oo]", fp_json(&a->c0), fp_json(&a->c1)); }

static json_t *g2_json(const cz_g2_affine *p)
{
    if (cz_g2_affine_is_infinity(p))
        return json_pack("[[ss][ss][ss]]", "0", "0", "1", "0", "0", "0");
    return json_pack("[oo[ss]]", fp2_json(&p->x), fp2_json(&p->y), "1", "0");
}

static cz_status g1_from_json(cz_g1_affine *p, const json_t *j, const char *name, cz_errbuf *err)
{
    if (!json_is_array(j) || json_array_size(j) != 3)
        return cz_err(err, CZ_ERR_FORMAT, "%s: expected an array of 3 decimal strings", name);
    if (!is_dec(json_array_get(j, 2), "1"))
        return cz_err(err, CZ_ERR_FORMAT, "%s: z coordinate must be \"1\" (affine)", name);
    cz_status st = fp_from_json(&p->x, json_array_get(j, 0));
    if (st == CZ_OK) st = fp_from_json(&p->y, json_array_get(j, 1));
    if (st != CZ_OK) return cz_err(err, st, "%s: coordinate: %s", name, cz_status_str(st));
    if (cz_g1_affine_is_infinity(p) || !cz_g1_affine_is_on_curve(p))
        return cz_err(err, CZ_ERR_NOT_ON_CURVE, "%s: point not on the curve", name);
    if (!cz_g1_affine_in_subgroup(p))
        return cz_err(err, CZ_ERR_NOT_IN_SUBGROUP, "%s: point not in the prime-order subgroup", name);
    return CZ_OK;
}

/* ["0","1","0"]: the identity in the projective form snarkjs (and g1_json)
 * writes. Only a vk's IC may hold it: snarkjs emits it for a public signal
 * that appears in no constraint (its query scalar is 0). Everywhere else
 * (proof points, alpha) the identity stays refused by g1_from_json. */
static bool g1_json_is_identity(const json_t *j)
{
    return json_is_array(j) && json_array_size(j) == 3 && is_dec(json_array_get(j, 0), "0") &&
           is_dec(json_array_get(j, 1), "1") && is_dec(json_array_get(j, 2), "0");
}

static cz_status fp2_from_json(cz_fp2 *a, const json_t *j)
{
    if (!json_is_array(j) || json_array_size(j) != 2) return CZ_ERR_FORMAT;
    cz_status st = fp_from_json(&a->c0, json_array_get(j, 0));
    if (st == CZ_OK) st = fp_from_json(&a->c1, json_array_get(j, 1));
    return st;
}

static cz_status g2_from_json(cz_g2_affine *p, const json_t *j, const char *name, cz_errbuf *err)
{
    if (!json_is_array(j) || json_array_size(j) != 3)
        return cz_err(err, CZ_ERR_FORMAT, "%s: expected [[x0,x1],[y0,y1],[\"1\",\"0\"]]", name);
    const json_t *z = json_array_get(j, 2);
    if (!json_is_array(z) || json_array_size(z) != 2 || !is_dec(json_array_get(z, 0), "1") ||
        !is_dec(json_array_get(z, 1), "0"))
        return cz_err(err, CZ_ERR_FORMAT, "%s: z coordinate must be [\"1\",\"0\"] (affine)", name);
    cz_status st = fp2_from_json(&p->x, json_array_get(j, 0));
    if (st == CZ_OK) st = fp2_from_json(&p->y, json_array_get(j, 1));
    if (st != CZ_OK) return cz_err(err, st, "%s: coordinate: %s", name, cz_status_str(st));
    if (cz_g2_affine_is_infinity(p) || !cz_g2_affine_is_on_curve(p))
        return cz_err(err, CZ_ERR_NOT_ON_CURVE, "%s: point not on the curve", name);
    if (!cz_g2_affine_in_subgroup(p))
        return cz_err(err, CZ_ERR_NOT_IN_SUBGROUP, "%s: point not in the prime-order subgroup", name);
    return CZ_OK;
}

static cz_status dump(char **out, json_t *root)
{
    if (!root) return CZ_ERR_NOMEM;
    *out = json_dumps(root, JSON_INDENT(1));
    json_decref(root);
    return *out ? CZ_OK : CZ_ERR_NOMEM;
}

static json_t *parse(const char *text, const char *what, cz_errbuf *err)
{
    json_error_t je;
    json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, &je);
    if (!root) cz_err(err, CZ_ERR_FORMAT, "%s: invalid JSON at line %d: %s", what, je.line, je.text);
    return root;
}

static cz_status check_header(const json_t *root, const char *what, cz_errbuf *err)
{
    const json_t *proto = json_object_get(root, "protocol");
    const json_t *curve = json_object_get(root, "curve");
    if (proto && !is_dec(proto, "groth16"))
        return cz_err(err, CZ_ERR_UNSUPPORTED, "%s: protocol is not groth16", what);
    if (curve && !is_dec(curve, "bls12381"))
        return cz_err(err, CZ_ERR_MISMATCH, "%s: curve is not bls12381", what);
    return CZ_OK;
}

cz_status cz_snarkjs_proof_to_json(char **json, const cz_groth16_proof_pts *p)
{
    return dump(json, json_pack("{s:o,s:o,s:o,s:s,s:s}", "pi_a", g1_json(&p->a), "pi_b", g2_json(&p->b), "pi_c",
                                g1_json(&p->c), "protocol", "groth16", "curve", "bls12381"));
}

cz_status cz_snarkjs_proof_from_json(cz_groth16_proof_pts *p, const char *json, cz_errbuf *err)
{
    json_t *root = parse(json, "proof", err);
    if (!root) return CZ_ERR_FORMAT;
    cz_status st = CZ_OK;
    if (!json_is_object(root)) st = cz_err(err, CZ_ERR_FORMAT, "proof: top level must be an object");
    if (st == CZ_OK) st = check_header(root, "proof", err);
    if (st == CZ_OK) st = g1_from_json(&p->a, json_object_get(root, "pi_a"), "proof pi_a", err);
    if (st == CZ_OK) st = g2_from_json(&p->b, json_object_get(root, "pi_b"), "proof pi_b", err);
    if (st == CZ_OK) st = g1_from_json(&p->c, json_object_get(root, "pi_c"), "proof pi_c", err);
    json_decref(root);
    return st;
}

cz_status cz_snarkjs_public_to_json(char **json, const cz_fr *x, size_t n)
{
    json_t *a = json_array();
    if (!a) return CZ_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) json_array_append_new(a, fr_json(&x[i]));
    return dump(json, a);
}

cz_status cz_snarkjs_public_from_json(cz_fr **x, size_t *n, const char *json, cz_errbuf *err)
{
    *x = NULL;
    *n = 0;
    json_t *root = parse(json, "public inputs", err);
    if (!root) return CZ_ERR_FORMAT;
    cz_status st = CZ_OK;
    if (!json_is_array(root)) {
        st = cz_err(err, CZ_ERR_FORMAT, "public inputs: expected an array of decimal strings");
        goto done;
    }
    size_t cnt = json_array_size(root);
    *x = malloc((cnt ? cnt : 1) * sizeof **x);
    if (!*x) {
        st = cz_err(err, CZ_ERR_NOMEM, "public inputs: out of memory");
        goto done;
    }
    for (size_t i = 0; i < cnt; i++) {
        st = fr_from_json(&(*x)[i], json_array_get(root, i));
        if (st != CZ_OK) {
            st = cz_err(err, st, "public input %zu: %s", i,
                        st == CZ_ERR_NOT_CANONICAL ? "value >= r (refused, not reduced)" : "not a decimal string");
            free(*x);
            *x = NULL;
            goto done;
        }
    }
    *n = cnt;
done:
    json_decref(root);
    return st;
}

static json_t *fp6_json(const cz_fp6 *a)
{
    return json_pack("[ooo]", fp2_json(&a->c0), fp2_json(&a->c1), fp2_json(&a->c2));
}

cz_status cz_snarkjs_vk_to_json(char **json, const cz_g1_affine *alpha1, const cz_g2_affine *beta2,
                                const cz_g2_affine *gamma2, const cz_g2_affine *delta2, const cz_g1_affine *ic,
                                size_t n_ic, const cz_fp12 *alphabeta)
{
    if (n_ic == 0) return CZ_ERR_INVALID_ARG;
    json_t *icj = json_array();
    if (!icj) return CZ_ERR_NOMEM;
    for (size_t i = 0; i < n_ic; i++) json_array_append_new(icj, g1_json(&ic[i]));
    json_t *root = json_pack("{s:s,s:s,s:I,s:o,s:o,s:o,s:o}", "protocol", "groth16", "curve", "bls12381", "nPublic",
                             (json_int_t)(n_ic - 1), "vk_alpha_1", g1_json(alpha1), "vk_beta_2", g2_json(beta2),
                             "vk_gamma_2", g2_json(gamma2), "vk_delta_2", g2_json(delta2));
    if (!root) {
        json_decref(icj);
        return CZ_ERR_NOMEM;
    }
    if (alphabeta)
        json_object_set_new(root, "vk_alphabeta_12", json_pack("[oo]", fp6_json(&alphabeta->c0), fp6_json(&alphabeta->c1)));
    json_object_set_new(root, "IC", icj);
    return dump(json, root);
}

void cz_snarkjs_vk_clear(cz_snarkjs_vk *vk)
{
    free(vk->ic);
    vk->ic = NULL;
}

cz_status cz_snarkjs_vk_from_json(cz_snarkjs_vk *vk, const char *json, cz_errbuf *err)
{
    memset(vk, 0, sizeof *vk);
    json_t *root = parse(json, "verification key", err);
    if (!root) return CZ_ERR_FORMAT;
    cz_status st = CZ_OK;
    if (!json_is_object(root)) st = cz_err(err, CZ_ERR_FORMAT, "verification key: top level must be an object");
    if (st == CZ_OK) st = check_header(root, "verification key", err);
    if (st == CZ_OK) st = g1_from_json(&vk->alpha1, json_object_get(root, "vk_alpha_1"), "vk_alpha_1", err);
    if (st == CZ_OK) st = g2_from_json(&vk->beta2, json_object_get(root, "vk_beta_2"), "vk_beta_2", err);
    if (st == CZ_OK) st = g2_from_json(&vk->gamma2, json_object_get(root, "vk_gamma_2"), "vk_gamma_2", err);
    if (st == CZ_OK) st = g2_from_json(&vk->delta2, json_object_get(root, "vk_delta_2"), "vk_delta_2", err);
    const json_t *ic = json_object_get(root, "IC");
    if (st == CZ_OK && (!json_is_array(ic) || json_array_size(ic) == 0))
        st = cz_err(err, CZ_ERR_FORMAT, "verification key: IC must be a non-empty array");
    const json_t *np = json_object_get(root, "nPublic");
    if (st == CZ_OK && np && (!json_is_integer(np) || (size_t)json_integer_value(np) + 1 != json_array_size(ic)))
        st = cz_err(err, CZ_ERR_MISMATCH, "verification key: nPublic does not match the IC length");
    if (st == CZ_OK) {
        size_t n = json_array_size(ic);
        vk->ic = malloc(n * sizeof *vk->ic);
        if (!vk->ic) st = cz_err(err, CZ_ERR_NOMEM, "verification key: out of memory");
        for (size_t i = 0; st == CZ_OK && i < n; i++) {
            char name[32];
            snprintf(name, sizeof name, "IC[%zu]", i);
            if (g1_json_is_identity(json_array_get(ic, i)))
                cz_g1_affine_set_infinity(&vk->ic[i]); /* what our writer emits for it too */
            else
                st = g1_from_json(&vk->ic[i], json_array_get(ic, i), name, err);
        }
        vk->n_public = n - 1;
    }
    if (st != CZ_OK) cz_snarkjs_vk_clear(vk);
    json_decref(root);
    return st;
}
