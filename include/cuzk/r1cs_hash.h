/*
 * cuzk — the R1CS fingerprint of bellpepper-core's
 * TestConstraintSystem::hash() (bellpepper-core 0.2.x, the version
 * rust-fil-proofs 19.1 / bellperson 0.27 use), for checking that a cuzk
 * circuit is the *same* R1CS as the reference's (Filecoin's ceremony
 * parameters only fit an identical one).
 *
 * Digest: BLAKE2s-256 (unkeyed, 32-byte output) over
 *   u64 BE number of inputs (the constant ONE included),
 *   u64 BE number of aux,
 *   u64 BE number of constraints (the circuit's own: the rows the prover
 *       appends, one per input, are NOT part of it),
 * then, per constraint in enforce order, its A, B and C linear combinations,
 * each normalised (terms on the same variable merged by summing their
 * coefficients, zero sums dropped, every Input(i) before every Aux(j), each
 * kind in ascending index) and written as u64 BE term count followed, per
 * term, by a tag byte 'I' (0x49) or 'A' (0x41), the index as u64 BE and the
 * coefficient as 32 bytes big-endian canonical. Names and values are not
 * hashed. Shown as 64 lower-case hex digits (as the reference prints it).
 *
 * Two ways to compute it, with equal results for the same circuit:
 *   cz_r1cs_fingerprint_pce     from a recording (cz_pce_record): its CSR
 *                               rows are already normalised this way; the
 *                               appended input rows are skipped.
 *   cz_r1cs_fingerprint_stream  from the synth function, without storing
 *                               any matrix: two shape-only recorder passes
 *                               (the first only counts, because the counts
 *                               open the hash; the second normalises and
 *                               hashes each constraint as it is enforced).
 *                               Memory: the largest single linear
 *                               combination, independent of the number of
 *                               constraints (the 32GiB PoRep circuit has
 *                               130M of them); time: about two shape-only
 *                               recordings.
 *
 * The streaming passes run the circuit in CZ_CS_RECORD mode without values
 * (cz_cs_get_mode() reports CZ_CS_RECORD, cz_cs_has_values() false), i.e.
 * exactly as cz_pce_record(…, NULL) does, so a circuit cannot tell the two
 * apart and both see the same R1CS.
 *
 * BLAKE2s comes from OpenSSL (EVP "BLAKE2S-256"), which the r1cs layer
 * already links; this keeps the fingerprint in the r1cs layer, below
 * cz_filecoin (whose cz_blake2s the tests cross-check it against).
 */
#ifndef CUZK_R1CS_HASH_H
#define CUZK_R1CS_HASH_H

#include <stdio.h>

#include "cuzk/circuit.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    uint64_t constraints; /* the circuit's own (no appended input rows) */
    uint64_t inputs;      /* with the constant ONE */
    uint64_t aux;
    /* nonzeros after normalisation, circuit rows only */
    uint64_t nnz_a, nnz_b, nnz_c;
    /* nnz_a + inputs: A with the appended rows x_i (one term each), the
     * number circuits.json calls nnz_a_plus_input_rows (B and C gain no
     * term from those rows) */
    uint64_t nnz_a_with_input_rows;
    uint8_t digest[32];
} cz_r1cs_fingerprint;

/* What the streaming computation held, for checking its memory claim: the
 * capacities (in bytes) of every growable buffer of the constraint system
 * and of the hasher when it finished (buffers only grow, so these are the
 * peaks). matrix_bytes covers the recorder's matrices, coefficient table
 * and assignment arrays: always 0 in streaming mode. scratch_bytes is the
 * normalisation buffer: proportional to the longest linear combination. */
typedef struct {
    size_t matrix_bytes;
    size_t scratch_bytes;
    size_t max_lc_terms; /* longest LC seen (before merging) */
} cz_r1cs_stream_stats;

/* Fingerprint of a recording. Uses the rows 0 .. n_circuit_constraints-1
 * (the appended input rows are excluded). CZ_ERR_INVALID_ARG on NULL
 * arguments or an inconsistent PCE (n_constraints != n_circuit_constraints
 * + n_inputs), CZ_ERR_INTERNAL if OpenSSL fails. */
CZ_WUR cz_status cz_r1cs_fingerprint_pce(const cz_pce *pce, cz_r1cs_fingerprint *out);

/* Streaming fingerprint of synth(cs, ctx) (see above). stats may be NULL.
 * Returns the synthesis error (sticky cs error or synth's status) if any,
 * CZ_ERR_MISMATCH if the two passes disagree on the counts (the circuit
 * broke the shape contract), CZ_ERR_NOMEM, CZ_ERR_INTERNAL (OpenSSL). */
CZ_WUR cz_status cz_r1cs_fingerprint_stream(cz_synth_fn synth, const void *ctx, cz_r1cs_fingerprint *out,
                                            cz_r1cs_stream_stats *stats);

/* The counting pass alone: constraints, inputs and aux of synth (one
 * shape-only recorder pass, nothing stored); nnz_* and digest are zeroed. */
CZ_WUR cz_status cz_r1cs_count_stream(cz_synth_fn synth, const void *ctx, cz_r1cs_fingerprint *out);

/* Streams synth's constraints to f as JSON, raw: every linear combination
 * exactly as the circuit enforced it (term order, duplicate variables and
 * zero coefficients kept, NOT normalised), so that an independent
 * implementation (tools/r1cs_fingerprint.py) must do the normalisation
 * itself. One pass, one constraint in memory at a time. Format:
 *   {"format":"cuzk-r1cs-raw-v1",
 *    "rows":[[A,B,C], ...],           one entry per constraint, in order;
 *                                     an LC is a list of terms
 *                                     [tag, index, coeff]: tag "I" | "A",
 *                                     coeff canonical lower-case hex
 *                                     without "0x" or leading zeros ("0"
 *                                     for zero)
 *    "inputs":N,"aux":M,"constraints":K}   (N with ONE; K without the
 *                                     appended rows), after the rows.
 * CZ_ERR_IO on a write error, else as cz_r1cs_fingerprint_stream; after an
 * error what was written is incomplete (not valid JSON). Meant for small
 * circuits: the text is ~50-90 bytes per term. */
CZ_WUR cz_status cz_r1cs_dump_json(cz_synth_fn synth, const void *ctx, FILE *f);

/* 64 lower-case hex digits + NUL. */
void cz_r1cs_fingerprint_hex(const cz_r1cs_fingerprint *fp, char out[65]);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_R1CS_HASH_H */
