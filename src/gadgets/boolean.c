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

#include "cuzk/gadgets.h"

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

/* Strip a negation; returns 1 if one was stripped. */
static unsigned strip(cz_bit *b)
{
    if (b->kind == CZ_BIT_NOT) {
        *b = cz_bit_not(*b);
        return 1;
    }
    return 0;
}

static cz_bit negate_if(cz_bit b, unsigned n) { return n & 1 ? cz_bit_not(b) : b; }

void cz_bit_and(cz_cs *cs, cz_bit *out, const cz_bit *pa, const cz_bit *pb)
{
    cz_bit a = *pa, b = *pb;
    if (a.kind == CZ_BIT_CONST) {
        *out = a.value ? b : cz_bit_const(false);
        return;
    }
    if (b.kind == CZ_BIT_CONST) {
        *out = b.value ? a : cz_bit_const(false);
        return;
    }
    if (a.var == b.var) {
        *out = a.kind == b.kind ? a : cz_bit_const(false);
        return;
    }
    cz_bit r = alloc_implied(cs, a.value & b.value);
    if (lean(cs)) {
        count1(cs);
        *out = r;
        return;
    }
    cz_lc la, lb, lc;
    cz_lc_init(&la, cs);
    cz_lc_init(&lb, cs);
    cz_lc_init(&lc, cs);
    cz_bit_to_lc(&la, &a, NULL);
    cz_bit_to_lc(&lb, &b, NULL);
    cz_lc_add_var(&lc, r.var);
    cz_cs_enforce(cs, &la, &lb, &lc, "and");
    *out = r;
}

void cz_bit_xor(cz_cs *cs, cz_bit *out, const cz_bit *pa, const cz_bit *pb)
{
    cz_bit a = *pa, b = *pb;
    if (a.kind == CZ_BIT_CONST) {
        *out = negate_if(b, a.value);
        return;
    }
    if (b.kind == CZ_BIT_CONST) {
        *out = negate_if(a, b.value);
        return;
    }
    unsigned neg = strip(&a) + strip(&b);
    if (a.var == b.var) {
        *out = cz_bit_const(neg & 1);
        return;
    }
    /* (2a)·b = a + b − r */
    cz_bit r = alloc_implied(cs, a.value ^ b.value);
    if (lean(cs)) {
        count1(cs);
        *out = negate_if(r, neg);
        return;
    }
    cz_lc la, lb, lc;
    cz_lc_init(&la, cs);
    cz_lc_init(&lb, cs);
    cz_lc_init(&lc, cs);
    cz_lc_add_u64(&la, a.var, 2);
    cz_lc_add_var(&lb, b.var);
    cz_lc_add_var(&lc, a.var);
    cz_lc_add_var(&lc, b.var);
    cz_lc_sub_var(&lc, r.var);
    cz_cs_enforce(cs, &la, &lb, &lc, "xor");
    *out = negate_if(r, neg);
}

void cz_bit_xor3(cz_cs *cs, cz_bit *out, const cz_bit *pa, const cz_bit *pb, const cz_bit *pc)
{
    cz_bit a = *pa, b = *pb, c = *pc;
    /* fold constants and repeated variables down to cz_bit_xor */
    if (a.kind == CZ_BIT_CONST || b.kind == CZ_BIT_CONST || c.kind == CZ_BIT_CONST) {
        cz_bit k = a.kind == CZ_BIT_CONST ? a : b.kind == CZ_BIT_CONST ? b : c;
        const cz_bit *x = a.kind == CZ_BIT_CONST ? &b : &a;
        const cz_bit *y = a.kind == CZ_BIT_CONST ? &c : b.kind == CZ_BIT_CONST ? &c : &b;
        cz_bit r;
        cz_bit_xor(cs, &r, x, y);
        *out = negate_if(r, k.value);
        return;
    }
    unsigned neg = strip(&a) + strip(&b) + strip(&c);
    if (a.var == b.var || a.var == c.var || b.var == c.var) {
        const cz_bit *rest = a.var == b.var ? &c : a.var == c.var ? &b : &a;
        *out = negate_if(*rest, neg);
        return;
    }
    /* s = a + b + c; (2p − s)·s = 3p − 2s forces p = a⊕b⊕c */
    cz_bit p = alloc_implied(cs, a.value ^ b.value ^ c.value);
    if (lean(cs)) {
        count1(cs);
        *out = negate_if(p, neg);
        return;
    }
    cz_lc s, l1, l3;
    cz_lc_init(&s, cs);
    cz_lc_init(&l1, cs);
    cz_lc_init(&l3, cs);
    cz_lc_add_var(&s, a.var);
    cz_lc_add_var(&s, b.var);
    cz_lc_add_var(&s, c.var);
    cz_lc_add_u64(&l1, p.var, 2);
    cz_lc_sub_var(&l1, a.var);
    cz_lc_sub_var(&l1, b.var);
    cz_lc_sub_var(&l1, c.var);
    cz_lc_add_u64(&l3, p.var, 3);
    cz_lc_sub_u64(&l3, a.var, 2);
    cz_lc_sub_u64(&l3, b.var, 2);
    cz_lc_sub_u64(&l3, c.var, 2);
    cz_cs_enforce(cs, &l1, &s, &l3, "xor3");
    *out = negate_if(p, neg);
}

void cz_bit_ch(cz_cs *cs, cz_bit *out, const cz_bit *pa, const cz_bit *pb, const cz_bit *pc)
{
    cz_bit a = *pa, b = *pb, c = *pc;
    if (a.kind == CZ_BIT_CONST) {
        *out = a.value ? b : c;
        return;
    }
    if (b.kind == CZ_BIT_CONST && c.kind == CZ_BIT_CONST) {
        *out = b.value == c.value ? b : negate_if(a, c.value); /* b=1,c=0: a; b=0,c=1: ¬a */
        return;
    }
    if (b.kind == CZ_BIT_CONST) {
        cz_bit na = cz_bit_not(a), nc = cz_bit_not(c), r;
        if (!b.value) { /* ¬a ∧ c */
            cz_bit_and(cs, out, &na, &c);
        } else { /* a ∨ c = ¬(¬a ∧ ¬c) */
            cz_bit_and(cs, &r, &na, &nc);
            *out = cz_bit_not(r);
        }
        return;
    }
    if (c.kind == CZ_BIT_CONST) {
        cz_bit nb = cz_bit_not(b), r;
        if (!c.value) { /* a ∧ b */
            cz_bit_and(cs, out, &a, &b);
        } else { /* ¬a ∨ b = ¬(a ∧ ¬b) */
            cz_bit_and(cs, &r, &a, &nb);
            *out = cz_bit_not(r);
        }
        return;
    }
    /* a·(b − c) = r − c */
    cz_bit r = alloc_implied(cs, a.value ? b.value : c.value);
    if (lean(cs)) {
        count1(cs);
        *out = r;
        return;
    }
    cz_lc la, lb, lc;
    cz_lc_init(&la, cs);
    cz_lc_init(&lb, cs);
    cz_lc_init(&lc, cs);
    cz_fr m1;
    cz_fr_neg(&m1, &CZ_FR_ONE);
    cz_bit_to_lc(&la, &a, NULL);
    cz_bit_to_lc(&lb, &b, NULL);
    cz_bit_to_lc(&lb, &c, &m1);
    cz_lc_add_var(&lc, r.var);
    cz_bit_to_lc(&lc, &c, &m1);
    cz_cs_enforce(cs, &la, &lb, &lc, "ch");
    *out = r;
}

void cz_bit_maj(cz_cs *cs, cz_bit *out, const cz_bit *pa, const cz_bit *pb, const cz_bit *pc)
{
    cz_bit a = *pa, b = *pb, c = *pc;
    if (a.kind != CZ_BIT_CONST && b.kind == CZ_BIT_CONST) {
        cz_bit t = a;
        a = b;
        b = t;
    } else if (a.kind != CZ_BIT_CONST && c.kind == CZ_BIT_CONST) {
        cz_bit t = a;
        a = c;
        c = t;
    }
    if (a.kind == CZ_BIT_CONST) {
        /* maj(1, b, c) = b ∨ c = ¬(¬b ∧ ¬c); maj(0, b, c) = b ∧ c */
        if (a.value) {
            cz_bit nb = cz_bit_not(b), nc = cz_bit_not(c), r;
            cz_bit_and(cs, &r, &nb, &nc);
            *out = cz_bit_not(r);
        } else {
            cz_bit_and(cs, out, &b, &c);
        }
        return;
    }
    /* s = a + b + c; (4m − s)·s = 6m − s forces m = maj(a, b, c) */
    unsigned mv = (unsigned)(a.value + b.value + c.value) >= 2;
    cz_bit m = alloc_implied(cs, mv);
    if (lean(cs)) {
        count1(cs);
        *out = m;
        return;
    }
    cz_fr m1;
    cz_fr_neg(&m1, &CZ_FR_ONE);
    cz_lc s, l1, l3;
    cz_lc_init(&s, cs);
    cz_lc_init(&l1, cs);
    cz_lc_init(&l3, cs);
    cz_bit_to_lc(&s, &a, NULL);
    cz_bit_to_lc(&s, &b, NULL);
    cz_bit_to_lc(&s, &c, NULL);
    cz_lc_add_u64(&l1, m.var, 4);
    cz_lc_add_lc(&l1, &s, &m1);
    cz_lc_add_u64(&l3, m.var, 6);
    cz_lc_add_lc(&l3, &s, &m1);
    cz_cs_enforce(cs, &l1, &s, &l3, "maj");
    cz_lc_free(&s);
    cz_lc_free(&l1);
    cz_lc_free(&l3);
    *out = m;
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
