/* Internal to src/prover: the circuit registry and the parameter store. */
#ifndef CZ_PROVER_INTERNAL_H
#define CZ_PROVER_INTERNAL_H

#include "cuzk/prover.h"
#include "cuzk/circuit.h"

/* A family of circuits ("mulchain", "porep") and how to run its jobs. */
typedef struct circuit_kind {
    const char *prefix;
    /* id -> shape descriptor (owned by the caller, freed with free_shape) */
    cz_status (*resolve)(const char *id, void **shape, cz_errbuf *err);
    void (*free_shape)(void *shape);
    /* synth function and a context that produce the circuit's shape */
    cz_status (*shape_synth)(void *shape, cz_synth_fn *fn, const void **ctx);
    cz_status (*parse_job)(void *shape, const uint8_t *payload, size_t len, uint32_t nparts, void **job,
                           cz_errbuf *err);
    void (*free_job)(void *job);
    /* per-partition synth context (freed with free_part) */
    cz_status (*partition)(void *shape, void *job, uint32_t part, cz_synth_fn *fn, void **ctx, cz_errbuf *err);
    void (*free_part)(void *ctx);
    /* the partition's public inputs without the constant one (n of them) */
    cz_status (*public_inputs)(void *shape, void *job, uint32_t part, cz_fr *out, size_t n);
    cz_status (*sample)(void *shape, uint32_t parts, uint64_t seed, cz_pool *pool, uint8_t **payload, size_t *len,
                        cz_errbuf *err);
} circuit_kind;

const circuit_kind *cz__find_kind(const char *id);

/* ---- parameter store (store.c) ---- */
/* Loads (cache, then .params) or creates (auto_setup) the parameters of
 * circuit `id` recorded as pce, at <base>.params/.meta/.cache/.pce. When a
 * setup runs and h_odd is not NULL, it also receives the odd-coset H query
 * (for a snarkjs export); otherwise *h_odd is left untouched. */
cz_status cz__store_load(const char *base, const char *id, const cz_pce *pce, bool auto_setup, cz_pool *pool,
                         FILE *log, cz_g1_affine **h_odd, cz_groth16_params **out, cz_errbuf *err);
/* In-memory bytes of parameters for this circuit, from its counts. */
uint64_t cz__params_bytes_for(const cz_pce *pce);

#endif
