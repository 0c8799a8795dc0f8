/* Internal to src/interop. */
#ifndef CZ_INTEROP_INTERNAL_H
#define CZ_INTEROP_INTERNAL_H
#include <stdint.h>

/* K with w'_32 = w_32^K, where w' are snarkjs's roots of unity (from the
 * non-residue 5) and w cuzk's (from 7); odd. See zkey_prove.c. */
uint64_t cz__snarkjs_root_exponent(void);

#include "cuzk/snarkjs.h"
/* cz_snarkjs_eval_abc with the witness also as plain integers (w_raw[i] =
 * w[i] out of Montgomery form), which a key read with
 * CZ_SNARKJS_COEF_RECORDS needs (NULL otherwise): the prover has them
 * anyway, as its MSM scalars. */
cz_status cz__snarkjs_eval_abc_raw(const cz_snarkjs_zkey *z, const cz_fr *w, const cz_scalar *w_raw, size_t n,
                                   cz_fr *a, cz_fr *b, cz_fr *c, cz_pool *pool, cz_errbuf *err);

#endif
