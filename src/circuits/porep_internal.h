/*
 * Internals shared by porep_gen.c and porep_json.c: allocating a vanilla
 * proof whose per-challenge arrays all live in one arena sized from the
 * parameters (so a parsed proof can never be shorter than the circuit
 * reads); and generation with a replaced graph, for tests.
 */
#ifndef CZ_CIRCUITS_POREP_INTERNAL_H
#define CZ_CIRCUITS_POREP_INTERNAL_H

#include "cuzk/circuits.h"

#define CZ_POREP_MAX_PARTITIONS 1024u

/* Allocates *out with params copied and every array sized; values zero.
 * params must pass cz_porep_params_check. */
cz_status cz_porep_vanilla_alloc_(cz_porep_vanilla **out, const cz_porep_params *p,
                                  size_t n_partitions);

/* cz_porep_generate with the graph replaced: graph(p, node, parents, arg)
 * writes node's P parents, used both to label the sector and as the
 * proof's parent indices. It must keep the labelling order valid: every
 * base parent below the node in the first window, below the node's window
 * start after it (expander parents: any node). cz_porep_generate is this
 * with cz_porep_parents. Tests use it to make an internally consistent
 * proof of a sector labelled with a wrong graph — what a cheating prover
 * would produce — which only the graph binding can refuse. */
typedef void cz_porep_graph_fn_(const cz_porep_params *p, uint64_t node, uint64_t *parents,
                                void *arg);
cz_status cz_porep_generate_graph_(cz_porep_vanilla **out, const cz_porep_params *p,
                                   uint64_t sector_seed, uint64_t challenge_seed,
                                   size_t n_partitions, cz_pool *pool, cz_porep_graph_fn_ *graph,
                                   void *graph_arg, cz_errbuf *err);

#endif
