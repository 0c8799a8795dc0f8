/*
 * cuzk — writing circuits (bellman style) and the constraint-system
 * back-ends that run them.
 *
 * A circuit is one C function
 *
 *     cz_status synth(cz_cs *cs, const void *ctx);
 *
 * written once and run against three back-ends (cz_cs_mode):
 *
 *   CZ_CS_RECORD   the recorder: builds the R1CS as three CSR matrices A, B, C
 *                  (the "PCE", pre-compiled constraint evaluation), the
 *                  counts and the density bitmaps. Values may be absent
 *                  (shape-only recording) or present (then the assignment is
 *                  kept too).
 *   CZ_CS_WITNESS  the witness generator: computes only the assignment
 *                  (inputs, aux). Linear combinations are not built
 *                  (cz_lc_* calls return at once on an inactive LC) and
 *                  cz_cs_enforce only counts; scopes are not formatted.
 *                  Hot gadgets may skip their LCs entirely there and use
 *                  cz_cs_alloc_aux_n / cz_cs_count_constraints (bulk).
 *   CZ_CS_CHECK    the checker: evaluates every constraint as it is enforced
 *                  and remembers the first unsatisfied one with its scope
 *                  path, e.g. "porep/challenge[3]/tree_d/level[7]/sha256/
 *                  round[12]/maj[5]".
 *
 * Shape contract: a circuit must allocate the same variables and enforce the
 * same number of constraints, in the same order, in every mode and for every
 * witness (values change what is computed, never the shape): the
 * witness is matched to the recorded matrices by allocation index, and
 * cz_witness_generate checks the counts against the recording.
 *
 * Synthesis for proving = witness generation + the three sparse mat-vecs
 * a = A·z, b = B·z, c = C·z over the recorded matrices (cz_synthesize).
 *
 * Variables. A cz_var is a 32-bit index: bit 31 clear = public input
 * (index 0 is the constant one, CZ_VAR_ONE), bit 31 set = aux (private).
 * Inputs and aux are numbered in allocation order, each from 0.
 *
 * Values are cz_fr in Montgomery form (cuzk/field.h). cz_cs_has_values()
 * tells a gadget whether it must compute them; when it is false, value
 * pointers passed to the alloc calls are ignored and may be NULL.
 *
 * Errors are sticky: alloc/enforce/scope calls return nothing; the first
 * failure (out of memory, NULL value in a values mode, too many variables,
 * cz_cs_fail from a gadget) is kept and reported by cz_cs_status() and by
 * every driver (cz_pce_record, cz_witness_generate, cz_cs_check), which also
 * return the synth function's own status if that is an error. Calls after an
 * error are harmless no-ops as far as possible.
 *
 * After the circuit's own constraints, the recorder appends one constraint
 * x_i · 0 = 0 per public input i (input 0 included), so every input appears
 * in A (docs/design.md §2.3). They are counted in cz_pce.n_constraints and are the
 * last n_inputs rows of the matrices; the witness generator's and checker's
 * counts include them too.
 *
 * Thread safety: one cz_cs is used by one thread. Recorded cz_pce objects
 * are immutable and may be shared by any number of threads.
 */
#ifndef CUZK_CIRCUIT_H
#define CUZK_CIRCUIT_H

#include "cuzk/common.h"
#include "cuzk/field.h"
#include "cuzk/threadpool.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- variables ------------------------------------------------------------ */
typedef uint32_t cz_var;
#define CZ_VAR_AUX_BIT 0x80000000u
#define CZ_VAR_INDEX_MASK 0x7fffffffu
#define CZ_VAR_ONE ((cz_var)0) /* input 0: the constant one */
/* Most variables of either kind a circuit may allocate (2^31 - 1). */
#define CZ_VAR_MAX_COUNT 0x7fffffffu

static inline bool cz_var_is_aux(cz_var v) { return (v & CZ_VAR_AUX_BIT) != 0; }
static inline uint32_t cz_var_index(cz_var v) { return v & CZ_VAR_INDEX_MASK; }
static inline cz_var cz_var_input(uint32_t i) { return (cz_var)i; }
static inline cz_var cz_var_aux(uint32_t i) { return (cz_var)(i | CZ_VAR_AUX_BIT); }

/* ---- constraint system handle ---------------------------------------------- */
typedef struct cz_cs cz_cs;

typedef enum { CZ_CS_RECORD = 1, CZ_CS_WITNESS = 2, CZ_CS_CHECK = 3 } cz_cs_mode;

typedef cz_status (*cz_synth_fn)(cz_cs *cs, const void *ctx);

cz_cs_mode cz_cs_get_mode(const cz_cs *cs);
/* True when variable values are computed (witness, checker, and the
 * recorder when asked to keep values). Gadgets compute values only then. */
bool cz_cs_has_values(const cz_cs *cs);
/* True when linear combinations matter (recorder, checker). A gadget may
 * skip building LCs when false; cz_lc_* calls already do nothing then. */
bool cz_cs_wants_lc(const cz_cs *cs);

/* Allocate a private variable / a public input with the given value
 * (Montgomery form). value is ignored (may be NULL) when !has_values; in a
 * values mode a NULL value is an error (CZ_ERR_INVALID_ARG, sticky) and the
 * variable gets 0. *out always receives a valid variable id (aux 0 / input 0
 * after an error), so callers need not check each call. */
void cz_cs_alloc_aux(cz_cs *cs, cz_var *out, const cz_fr *value);
void cz_cs_alloc_input(cz_cs *cs, cz_var *out, const cz_fr *value);

/* Witness-mode fast path for gadgets that skip building constraints when
 * !cz_cs_wants_lc(cs). alloc_aux_n allocates n consecutive aux variables
 * (ids *first, *first+1, ...) and returns their n value slots for the caller
 * to fill (valid until the next allocation); count_constraints accounts for
 * n constraints without LCs. Both are for CZ_CS_WITNESS only: in another
 * mode they fail the cs (CZ_ERR_INVALID_ARG) and alloc_aux_n returns NULL,
 * as it does after any error. */
cz_fr *cz_cs_alloc_aux_n(cz_cs *cs, size_t n, cz_var *first);
void cz_cs_count_constraints(cz_cs *cs, size_t n);

/* Current value of a variable (0 when !has_values or v is out of range). */
void cz_cs_value(const cz_cs *cs, cz_var v, cz_fr *out);

/* Counts so far (constraints exclude the appended input rows until the
 * driver finishes; inputs include the constant one). */
size_t cz_cs_num_constraints(const cz_cs *cs);
size_t cz_cs_num_inputs(const cz_cs *cs);
size_t cz_cs_num_aux(const cz_cs *cs);

/* Scopes name constraints for the checker: push "sha256", then "round[%u]".
 * Formatted only in checker mode (cheap elsewhere). Scope path components
 * are truncated to keep the whole path under CZ_CS_PATH_MAX bytes. */
#define CZ_CS_PATH_MAX 512
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 2, 3)))
#endif
void cz_cs_push_scope(cz_cs *cs, const char *fmt, ...);
void cz_cs_pop_scope(cz_cs *cs);

/* Record an error from a gadget (e.g. a value that violates its contract);
 * only the first error is kept. The message is prefixed with the scope path
 * in checker mode. */
#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 3, 4)))
#endif
void cz_cs_fail(cz_cs *cs, cz_status st, const char *fmt, ...);
/* First error so far, CZ_OK if none. */
cz_status cz_cs_status(const cz_cs *cs);
/* Message of the first error ("" if none). */
const char *cz_cs_error_message(const cz_cs *cs);

/* ---- linear combinations ---------------------------------------------------
 * A cz_lc is a small list of (variable, coefficient) terms. It lives on the
 * stack: the first CZ_LC_INLINE terms are stored inside the struct, more go
 * to the heap, so call cz_lc_free() when done (always safe). Do not copy a
 * cz_lc by value (use cz_lc_add_lc into a fresh one). Duplicate variables and
 * zero coefficients are allowed; the recorder merges and drops them.
 *
 * An LC initialised from a cs that does not want LCs (witness mode) is
 * inactive: every cz_lc_* call returns at once, so gadgets build LCs
 * unconditionally at ~no cost. An allocation failure marks the LC; enforcing
 * it makes the cs fail with CZ_ERR_NOMEM. */
#define CZ_LC_INLINE 6
typedef struct {
    cz_fr coeff;
    cz_var var;
} cz_term;

typedef struct {
    cz_term *heap;      /* NULL while the terms fit in inl[] */
    uint32_t n, cap;
    uint8_t active, oom;
    cz_term inl[CZ_LC_INLINE];
} cz_lc;

void cz_lc_init(cz_lc *lc, const cz_cs *cs);
void cz_lc_free(cz_lc *lc);          /* back to empty; keeps it usable */
void cz_lc_clear(cz_lc *lc);         /* empty, keeps capacity */
static inline bool cz_lc_active(const cz_lc *lc) { return lc->active != 0; }
static inline const cz_term *cz_lc_terms(const cz_lc *lc, size_t *n)
{
    *n = lc->n;
    return lc->heap ? lc->heap : lc->inl;
}
/* lc += coeff · v */
void cz_lc_add(cz_lc *lc, cz_var v, const cz_fr *coeff);
void cz_lc_add_var(cz_lc *lc, cz_var v);                /* + v  */
void cz_lc_sub_var(cz_lc *lc, cz_var v);                /* - v  */
void cz_lc_add_u64(cz_lc *lc, cz_var v, uint64_t k);    /* + k·v */
void cz_lc_sub_u64(cz_lc *lc, cz_var v, uint64_t k);    /* - k·v */
void cz_lc_add_pow2(cz_lc *lc, cz_var v, unsigned k);   /* + 2^k·v, k < 256 */
void cz_lc_sub_pow2(cz_lc *lc, cz_var v, unsigned k);   /* - 2^k·v, k < 256 */
void cz_lc_add_const(cz_lc *lc, const cz_fr *c);        /* + c·ONE */
void cz_lc_add_const_u64(cz_lc *lc, uint64_t k);        /* + k·ONE */
/* lc += coeff · src (coeff NULL means 1). src must not alias lc. */
void cz_lc_add_lc(cz_lc *lc, const cz_lc *src, const cz_fr *coeff);
/* 2^k in Montgomery form, k < 256 (table shared by the gadgets). */
const cz_fr *cz_fr_pow2(unsigned k);
/* Value of an LC under the current assignment (0 when !has_values or the
 * LC is inactive). */
void cz_lc_eval(const cz_cs *cs, const cz_lc *lc, cz_fr *out);

/* Enforce <a,z>·<b,z> = <c,z>. Any of a, b, c may be NULL (empty LC = 0).
 * name: the constraint's last path component (may be NULL); read only in
 * checker mode. In witness mode this only counts. The LCs are not consumed. */
void cz_cs_enforce(cz_cs *cs, const cz_lc *a, const cz_lc *b, const cz_lc *c, const char *name);

/* ---- recorded circuit: the PCE --------------------------------------------
 * CSR matrix: row j has terms row_ptr[j] .. row_ptr[j+1]-1, each a column
 * col[k] (a cz_var: bit 31 = aux) and a coefficient coeffs[coef[k]] of the
 * owning cz_pce. Within a row, columns are strictly increasing as u32 (all
 * inputs before all aux), duplicates merged, no zero coefficient.
 * Memory: 8 bytes per nonzero (u32 column + u32 interned coefficient index)
 * + 8 bytes per row per matrix; the coefficient table holds each distinct
 * coefficient once (32 B each). coeffs[0] = 1 and coeffs[1] = -1 always,
 * so SpMV adds/subtracts without multiplying for those. */
typedef struct {
    uint64_t *row_ptr; /* n_constraints + 1 entries */
    uint32_t *col;     /* nnz entries */
    uint32_t *coef;    /* nnz entries, index into cz_pce.coeffs */
    uint64_t nnz;
} cz_csr;

#define CZ_PCE_COEF_ONE 0u
#define CZ_PCE_COEF_MINUS_ONE 1u

/* A row that repeats an earlier one term for term: row `row` of its
 * matrix equals row row − back of matrix `from` (0..2: A, B, C). SpMV
 * copies the earlier value instead of evaluating the row again. */
typedef struct {
    uint32_t row;
    uint16_t from;
    uint16_t back;
} cz_pce_repeat;

typedef struct cz_pce {
    uint64_t n_constraints;         /* rows, including the appended input rows */
    uint64_t n_circuit_constraints; /* rows enforced by the circuit itself */
    uint64_t n_inputs;              /* including the constant one */
    uint64_t n_aux;
    cz_csr a, b, c;
    cz_fr *coeffs; /* Montgomery form */
    uint32_t n_coeffs;
    /* Density bitmaps, bit i of word i/64: variable has a nonzero
     * coefficient in some row of A (resp. B), after merging. */
    uint64_t *dens_a_aux;   /* (n_aux + 63) / 64 words */
    uint64_t *dens_b_aux;   /* (n_aux + 63) / 64 words */
    uint64_t *dens_b_input; /* (n_inputs + 63) / 64 words */
    uint64_t dens_a_aux_count, dens_b_aux_count, dens_b_input_count; /* popcounts */
    /* Stable circuit id: SHA-256 of the counts, coefficient table and the
     * three matrices in the file serialization (see cz_pce_save). Equal for
     * equal recordings; recorded in the parameter sidecar. */
    uint8_t circuit_hash[32];
    /* Derived from the matrices when a PCE is recorded or loaded, not
     * serialised (cz_pce_eval): rep[k] lists by increasing row the rows of
     * matrix k (A, B, C) that repeat a row evaluated before them in a row
     * range's A-then-B-then-C order (from < k, or from == k and back > 0;
     * back <= 65535) and cost more than a copy (a coefficient other than
     * ±1, or three terms or more). NULL / 0 when there are none, which is
     * always valid: such a row is then evaluated from its terms. */
    cz_pce_repeat *rep[3];
    uint64_t n_rep[3];
} cz_pce;

/* Runs synth in recorder mode. w_out NULL: shape only (no values). w_out
 * non-NULL: values are computed and the assignment is returned there too
 * (free with cz_witness_free). On error nothing is returned. */
typedef struct cz_witness cz_witness;
CZ_WUR cz_status cz_pce_record(cz_pce **out, cz_synth_fn synth, const void *ctx, cz_witness *w_out);
void cz_pce_free(cz_pce *pce);
/* Bytes held by the PCE (for the memory budget). */
size_t cz_pce_bytes(const cz_pce *pce);
/* Hex of circuit_hash: 64 digits + NUL. */
void cz_pce_hash_hex(const cz_pce *pce, char out[65]);

/* PCE file (little-endian):
 *   magic "CUZKPCE\0" (8) | u32 version (=1) | u32 flags (=0)
 *   u64 n_constraints, n_circuit_constraints, n_inputs, n_aux,
 *       n_coeffs, nnz_a, nnz_b, nnz_c                   (64)
 *   circuit_hash (32)
 *   coeffs: n_coeffs × 32 B canonical little-endian
 *   A: row_ptr (n_constraints+1) × u64, col nnz × u32, coef nnz × u32; B; C
 *   density: dens_a_aux, dens_b_aux, dens_b_input (u64 words)
 *   checksum: SHA-256 of every byte before it (32)
 * Load checks magic, version, that the sizes the header implies equal the
 * file length (before allocating), the checksum, and the structure (row
 * pointers monotone, columns/coefficients in range and sorted, coefficients
 * canonical and nonzero, density equal to what the matrices imply).
 * err (may be NULL) receives a message naming the offending field. Errors:
 * CZ_ERR_IO, CZ_ERR_TRUNCATED (file shorter than the header or than its
 * sizes imply), CZ_ERR_FORMAT (magic, version, trailing bytes, checksum,
 * structure), CZ_ERR_NOT_CANONICAL, CZ_ERR_NOMEM. */
#define CZ_PCE_VERSION 1u
CZ_WUR cz_status cz_pce_save(const cz_pce *pce, const char *path, char *err, size_t errlen);
CZ_WUR cz_status cz_pce_load(cz_pce **out, const char *path, char *err, size_t errlen);
/* Same parser on a memory buffer (fuzzing, tests). */
CZ_WUR cz_status cz_pce_parse(cz_pce **out, const uint8_t *buf, size_t len, char *err, size_t errlen);
/* Serialized size of pce in bytes. */
uint64_t cz_pce_file_size(const cz_pce *pce);

/* ---- witness ------------------------------------------------------------------ */
struct cz_witness {
    cz_fr *inputs; /* n_inputs values, inputs[0] = 1 */
    cz_fr *aux;    /* n_aux values */
    size_t n_inputs, n_aux;
    size_t n_constraints; /* as counted, including the appended input rows */
};
/* Runs synth in witness mode. shape (may be NULL): a recording of the same
 * circuit; its counts pre-size the arrays and are checked afterwards
 * (CZ_ERR_MISMATCH when they differ). */
CZ_WUR cz_status cz_witness_generate(cz_witness *out, cz_synth_fn synth, const void *ctx,
                                     const cz_pce *shape);
void cz_witness_free(cz_witness *w);

/* ---- checker ----------------------------------------------------------------- */
typedef struct {
    bool satisfied;
    uint64_t first_failure;        /* constraint index (0-based) if !satisfied */
    char where[CZ_CS_PATH_MAX];    /* scope path + "/" + constraint name */
    size_t n_constraints, n_inputs, n_aux; /* counts (with appended rows) */
} cz_check_report;
/* Runs synth in checker mode. Returns CZ_OK when every constraint holds,
 * CZ_ERR_UNSATISFIED when one does not (rep names the first), or the
 * synthesis error. rep may be NULL. */
CZ_WUR cz_status cz_cs_check(cz_synth_fn synth, const void *ctx, cz_check_report *rep);

/* Checker with a given assignment: runs synth in checker mode but stores
 * w's values (by allocation index) instead of the ones the circuit computes,
 * so a tampered or externally produced witness is located by scope. The
 * circuit's counts must match w's (CZ_ERR_MISMATCH otherwise). */
CZ_WUR cz_status cz_cs_check_witness(cz_synth_fn synth, const void *ctx, const cz_witness *w,
                                     cz_check_report *rep);

/* ---- synthesis for proving ---------------------------------------------------
 * a[j] = <A_j, z>, b[j] = <B_j, z>, c[j] = <C_j, z> for every row j <
 * n_constraints (appended input rows included), z = inputs ‖ aux; entries
 * n_constraints .. m-1 are set to zero. m >= n_constraints (CZ_ERR_INVALID_ARG
 * otherwise). a, b, c: caller-owned, m elements each, must not alias.
 * The witness counts must equal the PCE's (CZ_ERR_MISMATCH). Multi-threaded
 * over rows with pool (NULL: the calling thread). Variable time. */
CZ_WUR cz_status cz_pce_eval(const cz_pce *pce, const cz_witness *w, cz_pool *pool,
                             cz_fr *a, cz_fr *b, cz_fr *c, size_t m);
/* Witness generation + cz_pce_eval. w receives the assignment (free with
 * cz_witness_free). */
CZ_WUR cz_status cz_synthesize(const cz_pce *pce, cz_synth_fn synth, const void *ctx, cz_pool *pool,
                               cz_witness *w, cz_fr *a, cz_fr *b, cz_fr *c, size_t m);
/* Checks a_j·b_j = c_j row by row from the matrices (no scope names).
 * Returns CZ_OK or CZ_ERR_UNSATISFIED with *row set to the first bad row. */
CZ_WUR cz_status cz_pce_is_satisfied(const cz_pce *pce, const cz_witness *w, uint64_t *row);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_CIRCUIT_H */
