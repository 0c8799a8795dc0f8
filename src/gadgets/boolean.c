/*
 * Boolean gadgets, bit decomposition and packing (include/cuzk/gadgets.h).
 *
 * Negations are stripped before a constraint is written wherever the
 * operation commutes with them (xor, xor3), so constraints stay short;
 * constants are folded so that, e.g., the SHA-256 IV costs nothing.
 * Linear equalities are written as 0·0 = lc (A and B rows empty), which
 * keeps the A/B matrices — and so the A/B MSM densities — small.
 */
#include <string.h>

#include "gadgets/bits_internal.h"

static inline cz_fr bit_fr(unsigned v) { return v ? CZ_FR_ONE : CZ_FR_ZERO; }

static cz_bit new_var_bit(cz_var v, unsigned value)
{
    cz_bit b = {v, CZ_BIT_VAR, (uint8_t)(value & 1)};
    return b;
}

/* Allocates an aux bit WITHOUT booleanity (callers whose constraint forces
 * it boolean). */
static cz_bit alloc_implied(cz_cs *cs, unsigned value)
{
    cz_var v;
    cz_fr f = bit_fr(value);
    cz_cs_alloc_aux(cs, &v, &f);
    return new_var_bit(v, cz_cs_has_values(cs) ? value : 0);
}

/* Witness mode: no LC is wanted, so a gadget only appends its values and
 * counts its constraint (enforce with no LCs is one increment there). This
 * keeps witness generation — the per-proof hot path — free of LC set-up. */
static inline bool lean(const cz_cs *cs) { return !cz_cs_wants_lc(cs); }
static inline void count1(cz_cs *cs) { cz_cs_enforce(cs, NULL, NULL, NULL, NULL); }

void cz_bit_to_lc(cz_lc *lc, const cz_bit *b, const cz_fr *coeff)
{
    if (!cz_lc_active(lc))
        return;
    const cz_fr *k = coeff ? coeff : &CZ_FR_ONE;
    switch (b->kind) {
    case CZ_BIT_CONST:
        if (b->value)
            cz_lc_add(lc, CZ_VAR_ONE, k);
        break;
    case CZ_BIT_VAR:
        cz_lc_add(lc, b->var, k);
        break;
    default: {
        cz_fr n;
        cz_fr_neg(&n, k);
        cz_lc_add(lc, CZ_VAR_ONE, k);
        cz_lc_add(lc, b->var, &n);
    }
    }
}

void cz_bit_to_lc_pow2(cz_lc *lc, const cz_bit *b, unsigned k)
{
    if (cz_lc_active(lc))
        cz_bit_to_lc(lc, b, cz_fr_pow2(k));
}

void cz_enforce_boolean(cz_cs *cs, cz_var v)
{
    if (lean(cs)) {
        count1(cs);
        return;
    }
    cz_lc a, b;
    cz_lc_init(&a, cs);
    cz_lc_init(&b, cs);
    cz_lc_add_var(&a, v);
    cz_lc_add_var(&b, CZ_VAR_ONE);
    cz_lc_sub_var(&b, v);
    cz_cs_enforce(cs, &a, &b, NULL, "boolean");
}

void cz_bit_alloc(cz_cs *cs, cz_bit *out, bool value)
{
    cz_var v;
    cz_fr f = bit_fr(value);
    cz_cs_alloc_aux(cs, &v, &f);
    cz_enforce_boolean(cs, v);
    *out = new_var_bit(v, cz_cs_has_values(cs) && value);
}

void cz_bit_alloc_input(cz_cs *cs, cz_bit *out, bool value)
{
    cz_var v;
    cz_fr f = bit_fr(value);
    cz_cs_alloc_input(cs, &v, &f);
    cz_enforce_boolean(cs, v);
    *out = new_var_bit(v, cz_cs_has_values(cs) && value);
}

/* ---- the five ops: fold (bits_internal.h), then one core constraint ---- */
void cz_gadget_core_emit(cz_cs *cs, const cz_core *k, cz_var r)
{
    cz_lc la, lb, lc;
    cz_lc_init(&la, cs);
    cz_lc_init(&lb, cs);
    cz_lc_init(&lc, cs);
    cz_fr m1;
    cz_fr_neg(&m1, &CZ_FR_ONE);
    const cz_bit *a = &k->op[0], *b = &k->op[1], *c = &k->op[2];
    const char *name = "core";
    switch (k->kind) {
    case CORE_AND: /* a·b = r */
        cz_bit_to_lc(&la, a, NULL);
        cz_bit_to_lc(&lb, b, NULL);
        cz_lc_add_var(&lc, r);
        name = "and";
        break;
    case CORE_XOR: /* (2a)·b = a + b − r; operands are plain variables */
        cz_lc_add_u64(&la, a->var, 2);
        cz_lc_add_var(&lb, b->var);
        cz_lc_add_var(&lc, a->var);
        cz_lc_add_var(&lc, b->var);
        cz_lc_sub_var(&lc, r);
        name = "xor";
        break;
    case CORE_XOR3: /* s = a + b + c; (2p − s)·s = 3p − 2s */
        cz_lc_add_u64(&la, r, 2);
        cz_lc_sub_var(&la, a->var);
        cz_lc_sub_var(&la, b->var);
        cz_lc_sub_var(&la, c->var);
        cz_lc_add_var(&lb, a->var);
        cz_lc_add_var(&lb, b->var);
        cz_lc_add_var(&lb, c->var);
        cz_lc_add_u64(&lc, r, 3);
        cz_lc_sub_u64(&lc, a->var, 2);
        cz_lc_sub_u64(&lc, b->var, 2);
        cz_lc_sub_u64(&lc, c->var, 2);
        name = "xor3";
        break;
    case CORE_CH: /* a·(b − c) = r − c */
        cz_bit_to_lc(&la, a, NULL);
        cz_bit_to_lc(&lb, b, NULL);
        cz_bit_to_lc(&lb, c, &m1);
        cz_lc_add_var(&lc, r);
        cz_bit_to_lc(&lc, c, &m1);
        name = "ch";
        break;
    case CORE_MAJ: /* s = a + b + c; (4m − s)·s = 6m − s */
        cz_bit_to_lc(&lb, a, NULL);
        cz_bit_to_lc(&lb, b, NULL);
        cz_bit_to_lc(&lb, c, NULL);
        cz_lc_add_u64(&la, r, 4);
        cz_lc_add_lc(&la, &lb, &m1);
        cz_lc_add_u64(&lc, r, 6);
        cz_lc_add_lc(&lc, &lb, &m1);
        name = "maj";
        break;
    default:
        cz_cs_fail(cs, CZ_ERR_INTERNAL, "cz_gadget_core_emit: no core op");
        return;
    }
    cz_cs_enforce(cs, &la, &lb, &lc, name);
    cz_lc_free(&la);
    cz_lc_free(&lb);
    cz_lc_free(&lc);
}

void cz_gadget_core_finish(cz_cs *cs, cz_core *k, cz_bit *out)
{
    if (k->kind == CORE_NONE) {
        *out = k->res;
        return;
    }
    cz_bit r = alloc_implied(cs, k->value);
    if (lean(cs))
        count1(cs);
    else
        cz_gadget_core_emit(cs, k, r.var);
    *out = cz__negate_if(r, k->neg);
}

void cz_bit_and(cz_cs *cs, cz_bit *out, const cz_bit *a, const cz_bit *b)
{
    cz_core k;
    cz__fold_and(&k, *a, *b);
    cz_gadget_core_finish(cs, &k, out);
}

void cz_bit_xor(cz_cs *cs, cz_bit *out, const cz_bit *a, const cz_bit *b)
{
    cz_core k;
    cz__fold_xor(&k, *a, *b);
    cz_gadget_core_finish(cs, &k, out);
}

void cz_bit_xor3(cz_cs *cs, cz_bit *out, const cz_bit *a, const cz_bit *b, const cz_bit *c)
{
    cz_core k;
    cz__fold_xor3(&k, *a, *b, *c);
    cz_gadget_core_finish(cs, &k, out);
}

void cz_bit_ch(cz_cs *cs, cz_bit *out, const cz_bit *a, const cz_bit *b, const cz_bit *c)
{
    cz_core k;
    cz__fold_ch(&k, *a, *b, *c);
    cz_gadget_core_finish(cs, &k, out);
}

void cz_bit_maj(cz_cs *cs, cz_bit *out, const cz_bit *a, const cz_bit *b, const cz_bit *c)
{
    cz_core k;
    cz__fold_maj(&k, *a, *b, *c);
    cz_gadget_core_finish(cs, &k, out);
}

void cz_bit_enforce_equal(cz_cs *cs, const cz_bit *a, const cz_bit *b, const char *name)
{
    if (a->kind == CZ_BIT_CONST && b->kind == CZ_BIT_CONST) {
        if (a->value != b->value)
            cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "%s: constant bits differ", name ? name : "enforce_equal");
        return;
    }
    cz_lc l;
    cz_fr m1;
    cz_fr_neg(&m1, &CZ_FR_ONE);
    cz_lc_init(&l, cs);
    cz_bit_to_lc(&l, a, NULL);
    cz_bit_to_lc(&l, b, &m1);
    cz_cs_enforce(cs, NULL, NULL, &l, name ? name : "equal");
}

/* Witness mode: n new boolean variables with values get(i) in one
 * allocation (their booleanity constraints counted, not built). */
static bool bulk_bits(cz_cs *cs, cz_bit *bits, size_t n, unsigned (*get)(const void *, size_t), const void *arg)
{
    if (cz_cs_wants_lc(cs))
        return false;
    cz_var first = cz_var_aux(0);
    cz_fr *slots = n ? cz_cs_alloc_aux_n(cs, n, &first) : NULL;
    cz_cs_count_constraints(cs, n);
    for (size_t i = 0; i < n; i++) {
        unsigned v = get(arg, i) & 1;
        if (slots)
            slots[i] = v ? CZ_FR_ONE : CZ_FR_ZERO;
        cz_bit b = {first + (cz_var)i, CZ_BIT_VAR, (uint8_t)v};
        bits[i] = b;
    }
    return true;
}

static unsigned byte_bit(const void *arg, size_t i)
{
    const uint8_t *bytes = arg;
    return (bytes[i / 8] >> (7 - i % 8)) & 1;
}

static unsigned limb_bit(const void *arg, size_t i)
{
    const uint64_t *l = arg;
    return (unsigned)(l[i / 64] >> (i % 64)) & 1;
}

/* ---- numbers <-> bits ------------------------------------------------------ */
void cz_bits_pack_le(cz_lc *lc, const cz_bit *bits, unsigned n)
{
    if (!cz_lc_active(lc))
        return;
    for (unsigned i = 0; i < n; i++)
        cz_bit_to_lc_pow2(lc, &bits[i], i);
}

void cz_bits_value_le(cz_fr *out, const cz_bit *bits, unsigned n)
{
    cz_fr acc = CZ_FR_ZERO;
    for (unsigned i = 0; i < n && i < 256; i++)
        if (bits[i].value)
            cz_fr_add(&acc, &acc, cz_fr_pow2(i));
    *out = acc;
}

void cz_bits_pack_alloc(cz_cs *cs, cz_var *out, const cz_bit *bits, unsigned n)
{
    cz_fr v = CZ_FR_ZERO;
    if (cz_cs_has_values(cs))
        cz_bits_value_le(&v, bits, n);
    cz_cs_alloc_aux(cs, out, &v);
    cz_lc l;
    cz_lc_init(&l, cs);
    cz_bits_pack_le(&l, bits, n);
    cz_lc_sub_var(&l, *out);
    cz_cs_enforce(cs, NULL, NULL, &l, "pack");
    cz_lc_free(&l);
}

void cz_num_to_bits_le(cz_cs *cs, cz_bit *bits, const cz_lc *num, const cz_fr *value, unsigned n)
{
    if (n < 1 || n > 255) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "cz_num_to_bits_le: n = %u not in 1..255", n);
        return;
    }
    uint64_t raw[4] = {0, 0, 0, 0};
    bool vals = cz_cs_has_values(cs);
    if (vals) {
        cz_fr_to_raw(raw, value);
        unsigned top = 0;
        for (int w = 3; w >= 0; w--)
            if (raw[w]) {
                top = 64 * (unsigned)w + 64 - (unsigned)__builtin_clzll(raw[w]);
                break;
            }
        if (top > n) {
            cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "cz_num_to_bits_le: value has %u bits, more than %u", top, n);
            memset(raw, 0, sizeof raw);
        }
    }
    if (!bulk_bits(cs, bits, n, limb_bit, raw))
        for (unsigned i = 0; i < n; i++)
            cz_bit_alloc(cs, &bits[i], (raw[i / 64] >> (i % 64)) & 1);
    cz_lc l;
    cz_lc_init(&l, cs);
    cz_bits_pack_le(&l, bits, n);
    cz_fr m1;
    cz_fr_neg(&m1, &CZ_FR_ONE);
    if (num)
        cz_lc_add_lc(&l, num, &m1);
    cz_cs_enforce(cs, NULL, NULL, &l, "pack");
    cz_lc_free(&l);
}

void cz_num_to_bits_le_strict(cz_cs *cs, cz_bit bits[255], const cz_lc *num, const cz_fr *value)
{
    cz_num_to_bits_le(cs, bits, num, value, 255);
    /* bits <= r − 1, compared MSB first (r − 1 has bit 254 set). At each
     * 0 bit of r − 1, if the prefix so far equals that of r − 1 (last_run:
     * AND of the bits where r − 1 has ones, chained), this bit must be 0. */
    uint64_t rm1[4];
    memcpy(rm1, CZ_FR_MODULUS, sizeof rm1);
    rm1[0] -= 1; /* r is odd: no borrow */
    cz_bit run = cz_bit_const(true);
    bool have = false;
    cz_cs_push_scope(cs, "strict");
    for (int i = 254; i >= 0; i--) {
        unsigned rb = (rm1[i / 64] >> (i % 64)) & 1;
        if (rb) {
            cz_bit_and(cs, &run, &run, &bits[i]);
            have = true;
        } else if (have) {
            cz_lc la, lb;
            cz_lc_init(&la, cs);
            cz_lc_init(&lb, cs);
            cz_bit_to_lc(&la, &bits[i], NULL);
            cz_bit_to_lc(&lb, &run, NULL);
            cz_cs_enforce(cs, &la, &lb, NULL, "below_modulus");
        }
    }
    cz_cs_pop_scope(cs);
}

void cz_bits_alloc_bytes(cz_cs *cs, cz_bit *bits, const uint8_t *bytes, size_t len)
{
    if (bulk_bits(cs, bits, 8 * len, byte_bit, bytes))
        return;
    bool vals = cz_cs_has_values(cs);
    for (size_t i = 0; i < len; i++)
        for (unsigned j = 0; j < 8; j++)
            cz_bit_alloc(cs, &bits[8 * i + j], vals && ((bytes[i] >> (7 - j)) & 1));
}

void cz_bits_to_bytes(uint8_t *bytes, const cz_bit *bits, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        uint8_t v = 0;
        for (unsigned j = 0; j < 8; j++)
            v = (uint8_t)((v << 1) | (bits[8 * i + j].value & 1));
        bytes[i] = v;
    }
}
