/*
 * r1cs layer internals: the cz_cs object shared by the three back-ends and
 * the recorder's matrix builder.
 */
#ifndef CZ_R1CS_INTERNAL_H
#define CZ_R1CS_INTERNAL_H

#include "cuzk/circuit.h"

/* Growable CSR matrix under construction. */
typedef struct {
    uint64_t *row_ptr; /* rows + 1 */
    size_t rows, row_cap;
    uint32_t *col, *coef;
    size_t nnz, nnz_cap;
} cz_csr_builder;

/* Coefficient interning: open addressing, keys are cz_fr values. */
typedef struct {
    cz_fr *vals;     /* the table, index = coefficient id */
    uint32_t n, cap; /* entries in vals */
    uint32_t *slots; /* hash slots: id + 1, 0 = empty */
    size_t nslots;   /* power of two */
} cz_coef_table;

#define CZ_CS_MAX_DEPTH 128

/* Streaming sink (fingerprint.c): when set on a recorder, every enforced
 * constraint (already validated) goes to it instead of the matrix builder,
 * so nothing proportional to the number of constraints is stored. */
typedef void (*cz_cs_sink_fn)(cz_cs *cs, void *sink_ctx, const cz_lc *lcs[3]);

struct cz_cs {
    cz_cs_mode mode;
    bool values;  /* assignments are stored */
    bool want_lc; /* recorder or checker */
    cz_status err;
    char errmsg[CZ_CS_PATH_MAX + 256];

    cz_fr *inp, *aux;
    size_t n_inp, cap_inp, n_aux, cap_aux;
    size_t n_constraints;

    /* scope path (checker mode only) */
    char path[CZ_CS_PATH_MAX];
    size_t path_len;
    size_t depth;                  /* pushes minus pops */
    size_t saved[CZ_CS_MAX_DEPTH]; /* path_len before push i */

    /* checker */
    const cz_witness *override; /* values stored instead of the circuit's */
    bool failed;
    uint64_t first_fail;
    char where[CZ_CS_PATH_MAX];

    /* recorder */
    cz_csr_builder mat[3];
    cz_coef_table coefs;
    cz_term *scratch;
    size_t scratch_cap;

    /* streaming recorder (NULL: build the matrices) */
    cz_cs_sink_fn sink;
    void *sink_ctx;
};

cz_status cz_cs_init(cz_cs *cs, cz_cs_mode mode, bool values);
void cz_cs_release(cz_cs *cs);
void cz_cs_set_error(cz_cs *cs, cz_status st, const char *msg);
/* Runs synth on an initialised cs the way every driver does: returns the
 * sticky error, else synth's status, else checks the scopes are balanced. */
cz_status cz_cs_run_synth(cz_cs *cs, cz_synth_fn synth, const void *ctx);

/* recorder (pce.c) */
void cz_rec_enforce(cz_cs *cs, const cz_lc *lcs[3]);
cz_status cz_rec_finish(cz_cs *cs, cz_pce **out);
void cz_rec_release(cz_cs *cs);

/* density bitmaps + popcounts from the A and B matrices (pce.c) */
cz_status cz_pce_compute_density(cz_pce *p);
void cz_pce_compute_hash(const cz_pce *p, uint8_t out[32]);
/* rep / n_rep from the matrices (pce.c): CZ_ERR_NOMEM, else CZ_OK. */
cz_status cz_pce_compute_repeats(cz_pce *p);

static inline const cz_fr *cz_z_value(const cz_fr *inp, const cz_fr *aux, uint32_t col)
{
    return (col & CZ_VAR_AUX_BIT) ? &aux[col & CZ_VAR_INDEX_MASK] : &inp[col];
}

/* Normalise n terms in place as the recorder stores a row (and as
 * bellpepper's proc_lc does): sorted by variable id as u32 (inputs before
 * aux), equal variables merged by summing, zero sums dropped. Returns the
 * number of terms left. */
size_t cz__terms_normalize(cz_term *t, size_t n);

#endif
