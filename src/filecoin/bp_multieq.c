/*
 * bellperson 0.27 gadgets/multieq.rs (cuzk/fil_bp_sha256.h): equalities
 * packed into one constraint up to Fr::CAPACITY bits.
 */
#include "cuzk/fil_bp_sha256.h"

void cz_bp_multieq_init(cz_bp_multieq *m, cz_cs *cs) {
    m->cs = cs;
    m->ops = 0;
    m->bits_used = 0;
    cz_lc_init(&m->lhs, cs);
    cz_lc_init(&m->rhs, cs);
}

/* As MultiEq::accumulate: lhs · ONE = rhs, then start afresh. */
static void accumulate(cz_bp_multieq *m) {
    cz_lc one;
    cz_lc_init(&one, m->cs);
    cz_lc_add_var(&one, CZ_VAR_ONE);
    cz_cs_enforce(m->cs, &m->lhs, &one, &m->rhs, "multieq");
    cz_lc_free(&one);
    cz_lc_clear(&m->lhs);
    cz_lc_clear(&m->rhs);
    m->bits_used = 0;
    m->ops++;
}

/* As MultiEq::enforce_equal. */
void cz_bp_multieq_enforce_equal(cz_bp_multieq *m, size_t num_bits, const cz_lc *lhs,
                                 const cz_lc *rhs) {
    if (num_bits >= CZ_BP_FR_CAPACITY) {
        cz_cs_fail(m->cs, CZ_ERR_INVALID_ARG, "multieq: %zu bits do not fit", num_bits);
        return;
    }
    /* Flush when the packed width would reach CAPACITY. */
    if (CZ_BP_FR_CAPACITY <= m->bits_used + num_bits) accumulate(m);
    const cz_fr *coeff = cz_fr_pow2((unsigned)m->bits_used);
    cz_lc_add_lc(&m->lhs, lhs, coeff);
    cz_lc_add_lc(&m->rhs, rhs, coeff);
    m->bits_used += num_bits;
}

/* As Drop for MultiEq. */
void cz_bp_multieq_finish(cz_bp_multieq *m) {
    if (!m->cs) return;
    if (m->bits_used > 0) accumulate(m);
    cz_lc_free(&m->lhs);
    cz_lc_free(&m->rhs);
    m->cs = NULL;
}
