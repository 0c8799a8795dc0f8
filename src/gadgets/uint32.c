/*
 * 32-bit word gadgets (include/cuzk/gadgets.h). Words are 32 cz_bits, LSB
 * first; the value field is kept in step with the bits' values so callers
 * and tests can read words directly.
 */
#include <string.h>

#include "gadgets/bits_internal.h"

static uint32_t value_of(const cz_bit b[32])
{
    uint32_t v = 0;
    for (unsigned i = 0; i < 32; i++)
        v |= (uint32_t)(b[i].value & 1) << i;
    return v;
}

void cz_u32_const(cz_u32 *out, uint32_t v)
{
    for (unsigned i = 0; i < 32; i++)
        out->b[i] = cz_bit_const((v >> i) & 1);
    out->value = v;
}

void cz_u32_alloc(cz_cs *cs, cz_u32 *out, uint32_t v)
{
    if (!cz_cs_wants_lc(cs)) { /* witness mode: 32 booleans in one go */
        cz_var first = cz_var_aux(0);
        cz_fr *slots = cz_cs_alloc_aux_n(cs, 32, &first);
        cz_cs_count_constraints(cs, 32);
        for (unsigned i = 0; i < 32; i++) {
            unsigned b = (v >> i) & 1;
            if (slots)
                slots[i] = b ? CZ_FR_ONE : CZ_FR_ZERO;
            cz_bit x = {first + (cz_var)i, CZ_BIT_VAR, (uint8_t)b};
            out->b[i] = x;
        }
        out->value = v;
        return;
    }
    for (unsigned i = 0; i < 32; i++)
        cz_bit_alloc(cs, &out->b[i], (v >> i) & 1);
    out->value = value_of(out->b);
}

void cz_u32_from_bits_be(cz_u32 *out, const cz_bit bits[32])
{
    cz_u32 t;
    for (unsigned i = 0; i < 32; i++)
        t.b[31 - i] = bits[i];
    t.value = value_of(t.b);
    *out = t;
}

void cz_u32_to_bits_be(cz_bit bits[32], const cz_u32 *a)
{
    cz_u32 t = *a;
    for (unsigned i = 0; i < 32; i++)
        bits[i] = t.b[31 - i];
}

void cz_u32_rotr(cz_u32 *out, const cz_u32 *a, unsigned k)
{
    cz_u32 t;
    k &= 31;
    for (unsigned i = 0; i < 32; i++)
        t.b[i] = a->b[(i + k) & 31];
    t.value = k ? (a->value >> k) | (a->value << (32 - k)) : a->value;
    *out = t;
}

void cz_u32_shr(cz_u32 *out, const cz_u32 *a, unsigned k)
{
    cz_u32 t;
    for (unsigned i = 0; i < 32; i++)
        t.b[i] = i + k < 32 ? a->b[i + k] : cz_bit_const(false);
    t.value = k < 32 ? a->value >> k : 0;
    *out = t;
}

/* Witness mode: fold the 32 bits, allocate every core result with one
 * cz_cs_alloc_aux_n call, count their constraints — no LC, no per-bit call
 * chain. Other modes: per bit, with a "bit[i]" scope for the checker. */
static void finish_word(cz_cs *cs, cz_u32 *out, cz_core k[32])
{
    cz_u32 t;
    if (!cz_cs_wants_lc(cs)) {
        size_t n = 0;
        for (unsigned i = 0; i < 32; i++)
            n += k[i].kind != CORE_NONE;
        cz_var first = cz_var_aux(0);
        cz_fr *vals = n ? cz_cs_alloc_aux_n(cs, n, &first) : NULL;
        cz_cs_count_constraints(cs, n);
        size_t j = 0;
        for (unsigned i = 0; i < 32; i++) {
            if (k[i].kind == CORE_NONE) {
                t.b[i] = k[i].res;
                continue;
            }
            if (vals)
                vals[j] = k[i].value ? CZ_FR_ONE : CZ_FR_ZERO;
            cz_bit r = {first + (cz_var)j, CZ_BIT_VAR, k[i].value};
            t.b[i] = cz__negate_if(r, k[i].neg);
            j++;
        }
    } else {
        bool named = cz_cs_get_mode(cs) == CZ_CS_CHECK;
        for (unsigned i = 0; i < 32; i++) {
            if (named)
                cz_cs_push_scope(cs, "bit[%u]", i);
            cz_gadget_core_finish(cs, &k[i], &t.b[i]);
            if (named)
                cz_cs_pop_scope(cs);
        }
    }
    t.value = value_of(t.b);
    *out = t;
}

void cz_u32_xor(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b)
{
    cz_core k[32];
    for (unsigned i = 0; i < 32; i++)
        cz__fold_xor(&k[i], a->b[i], b->b[i]);
    finish_word(cs, out, k);
}

void cz_u32_xor3(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c)
{
    cz_core k[32];
    for (unsigned i = 0; i < 32; i++)
        cz__fold_xor3(&k[i], a->b[i], b->b[i], c->b[i]);
    finish_word(cs, out, k);
}

void cz_u32_and(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b)
{
    cz_core k[32];
    for (unsigned i = 0; i < 32; i++)
        cz__fold_and(&k[i], a->b[i], b->b[i]);
    finish_word(cs, out, k);
}

void cz_u32_ch(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c)
{
    cz_core k[32];
    for (unsigned i = 0; i < 32; i++)
        cz__fold_ch(&k[i], a->b[i], b->b[i], c->b[i]);
    finish_word(cs, out, k);
}

void cz_u32_maj(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b, const cz_u32 *c)
{
    cz_core k[32];
    for (unsigned i = 0; i < 32; i++)
        cz__fold_maj(&k[i], a->b[i], b->b[i], c->b[i]);
    finish_word(cs, out, k);
}

void cz_u32_add_many(cz_cs *cs, cz_u32 *out, const cz_u32 *const *ops, size_t n)
{
    if (n < 1 || n > 64) {
        cz_cs_fail(cs, CZ_ERR_INVALID_ARG, "cz_u32_add_many: %zu operands, need 1..64", n);
        cz_u32_const(out, 0);
        return;
    }
    /* max: constant bits count with their value, variable bits as 1 */
    uint64_t max = 0, sum = 0;
    bool all_const = true;
    for (size_t k = 0; k < n; k++) {
        for (unsigned i = 0; i < 32; i++) {
            const cz_bit *b = &ops[k]->b[i];
            if (b->kind == CZ_BIT_CONST)
                max += (uint64_t)b->value << i;
            else {
                max += 1ull << i;
                all_const = false;
            }
        }
        sum += value_of(ops[k]->b);
    }
    if (all_const) {
        cz_u32_const(out, (uint32_t)sum);
        return;
    }
    unsigned nb = 64 - (unsigned)__builtin_clzll(max); /* max > 0 here */
    bool vals = cz_cs_has_values(cs);
    cz_bit r[64];
    if (!cz_cs_wants_lc(cs)) { /* witness mode: nb booleans + the sum, values only */
        cz_var first = cz_var_aux(0);
        cz_fr *slots = cz_cs_alloc_aux_n(cs, nb, &first);
        cz_cs_count_constraints(cs, nb + 1);
        cz_u32 t;
        for (unsigned i = 0; i < 32; i++) {
            unsigned v = (sum >> i) & 1;
            if (i < nb) {
                if (slots)
                    slots[i] = v ? CZ_FR_ONE : CZ_FR_ZERO;
                cz_bit b = {first + (cz_var)i, CZ_BIT_VAR, (uint8_t)v};
                t.b[i] = b;
            } else {
                t.b[i] = cz_bit_const(false);
            }
        }
        for (unsigned i = 32; i < nb; i++)
            if (slots)
                slots[i] = ((sum >> i) & 1) ? CZ_FR_ONE : CZ_FR_ZERO;
        t.value = (uint32_t)sum;
        *out = t;
        return;
    }
    for (unsigned i = 0; i < nb; i++)
        cz_bit_alloc(cs, &r[i], vals && ((sum >> i) & 1));
    /* Σ ops − Σ 2^i r_i = 0, one linear constraint (A, B empty) */
    cz_lc l;
    cz_lc_init(&l, cs);
    if (cz_lc_active(&l)) { /* witness mode: only the count */
        for (size_t k = 0; k < n; k++)
            for (unsigned i = 0; i < 32; i++)
                cz_bit_to_lc_pow2(&l, &ops[k]->b[i], i);
        for (unsigned i = 0; i < nb; i++)
            cz_lc_sub_pow2(&l, r[i].var, i);
    }
    cz_cs_enforce(cs, NULL, NULL, &l, "sum");
    cz_lc_free(&l);
    cz_u32 t;
    for (unsigned i = 0; i < 32; i++)
        t.b[i] = i < nb ? r[i] : cz_bit_const(false);
    t.value = value_of(t.b);
    *out = t;
}

void cz_u32_add(cz_cs *cs, cz_u32 *out, const cz_u32 *a, const cz_u32 *b)
{
    const cz_u32 *ops[2] = {a, b};
    cz_u32_add_many(cs, out, ops, 2);
}

void cz_u32_enforce_equal(cz_cs *cs, const cz_u32 *a, const cz_u32 *b, const char *name)
{
    for (unsigned i = 0; i < 32; i++)
        cz_bit_enforce_equal(cs, &a->b[i], &b->b[i], name);
}
