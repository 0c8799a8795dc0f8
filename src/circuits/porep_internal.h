/*
 * Internals shared by porep_gen.c and porep_json.c: allocating a vanilla
 * proof whose per-challenge arrays all live in one arena sized from the
 * parameters (so a parsed proof can never be shorter than the circuit
 * reads).
 */
#ifndef CZ_CIRCUITS_POREP_INTERNAL_H
#define CZ_CIRCUITS_POREP_INTERNAL_H

#include "cuzk/circuits.h"

#define CZ_POREP_MAX_PARTITIONS 1024u

/* Allocates *out with params copied and every array sized; values zero.
 * params must pass cz_porep_params_check. */
cz_status cz_porep_vanilla_alloc_(cz_porep_vanilla **out, const cz_porep_params *p,
                                  size_t n_partitions);

#endif
