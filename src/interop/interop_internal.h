/* Internal to src/interop. */
#ifndef CZ_INTEROP_INTERNAL_H
#define CZ_INTEROP_INTERNAL_H
#include <stdint.h>

/* K with w'_32 = w_32^K, where w' are snarkjs's roots of unity (from the
 * non-residue 5) and w cuzk's (from 7); odd. See zkey_prove.c. */
uint64_t cz__snarkjs_root_exponent(void);

#endif
