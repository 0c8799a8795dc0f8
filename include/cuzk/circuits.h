/*
 * cuzk — concrete circuits (synth functions for cuzk/circuit.h).
 */
#ifndef CUZK_CIRCUITS_H
#define CUZK_CIRCUITS_H

#include "cuzk/circuit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- mulchain: a small generic circuit for engine and sanitizer tests ----
 * x_{i+1} = x_i^2 + (i + 1) for i = 0 .. n_mul-1, starting from the public
 * input x_0 = x0; x_{n_mul} is public too. In addition n_extra_inputs
 * public inputs y_j (j < n_extra_inputs) are bound by y_j · 1 = x_{(j mod
 * n_mul) + 1}, so engine tests can vary the input count.
 * Public inputs, in order: x_0, x_{n_mul}, y_0, ... (after the constant one).
 * Constraints: n_mul + n_extra_inputs, plus the appended input rows
 * (3 + n_extra_inputs). Aux: n_mul − 1. Requires n_mul >= 1. */
typedef struct {
    size_t n_mul;
    size_t n_extra_inputs;
    cz_fr x0; /* Montgomery form */
} cz_mulchain;

cz_status cz_mulchain_synth(cz_cs *cs, const void *ctx);
/* Native twin: the public inputs the circuit allocates (2 + n_extra_inputs
 * values, without the constant one), written to out. */
void cz_mulchain_public_inputs(const cz_mulchain *mc, cz_fr *out);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_CIRCUITS_H */
