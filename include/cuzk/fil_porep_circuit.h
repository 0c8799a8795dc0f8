/*
 * cuzk — Filecoin's PoRep C2 circuit (storage-proofs-porep StackedCircuit),
 * byte-exact: the same R1CS as rust-fil-proofs, so that the ceremony's v28
 * parameter files fit it.
 *
 * One partition of a registered seal proof: replica_id, comm_d and comm_r
 * are public inputs (each allocated, then inputized), comm_r_last and
 * comm_c private; comm_r = Poseidon(comm_c, comm_r_last) is enforced; then
 * per challenge (params.rs Proof::synthesize): the data leaf and its tree D
 * inclusion, the 6 DRG and 8 expander parent columns with their tree C
 * inclusions, the challenge as a UInt64 packed into an input, the labels of
 * every layer recomputed from the parents (create_label_circuit), the
 * encoding of the last label with the data leaf and its tree R inclusion,
 * and the challenged column's hash and its tree C inclusion. Every
 * inclusion packs its path index bits into public inputs.
 *
 * With c1 == NULL the circuit is blank (bellperson's blank_circuit): the
 * shape only, for recording and setup. Otherwise values come from the C1
 * output's partition `partition`; the shape never depends on them.
 */
#ifndef CUZK_FIL_POREP_CIRCUIT_H
#define CUZK_FIL_POREP_CIRCUIT_H

#include "cuzk/circuit.h"
#include "cuzk/fil_c1.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const cz_fil_seal_proof *proof; /* registered proof: sector size, layers, shape, challenges */
    const cz_fil_c1 *c1;            /* NULL: blank circuit */
    unsigned partition;
} cz_fil_porep_circuit;

/* cz_synth_fn for a cz_fil_porep_circuit (ctx). Errors: CZ_ERR_INVALID_ARG
 * (c1 of another registered proof or sector size, partition out of range),
 * CZ_ERR_FORMAT (a vanilla proof of the wrong shape), CZ_ERR_NOT_CANONICAL
 * (a domain value >= r). */
CZ_WUR cz_status cz_fil_porep_synth(cz_cs *cs, const void *ctx);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_FIL_POREP_CIRCUIT_H */
