/*
 * The public inputs of a StackedDrg (PoRep) C2 partition, as
 * storage-proofs-porep StackedCompound::generate_public_inputs.
 *
 * Every inclusion proof contributes PoRCompound::generate_public_inputs
 * with private params, which is Fr::from(leaf index): the circuit packs the
 * auth-path bits of that index (multipack::compute_multipacking of
 * challenge_into_auth_path_bits, the index's log2(leaves) bits, leaf
 * level first) into one input; a path has at most 31 bits, one multipack
 * chunk of up to 254 (Fr::CAPACITY), so the packed value is the index
 * itself and no bits need packing here.
 */
#include "cuzk/fil_params.h"
#include "cuzk/fil_challenge.h"

#include <stdlib.h>

size_t cz_fil_porep_public_input_count(const cz_fil_seal_proof *p) {
    if (!p) return 0;
    return 3u + (size_t)CZ_FIL_POREP_INPUTS_PER_CHALLENGE * cz_fil_challenges_per_partition(p);
}

/* As generate_inclusion_inputs (proof.rs) -> PoRCompound::
 * generate_public_inputs: ensure!(challenge < leaves), then the index. */
static cz_status inclusion_input(cz_fr *out, uint64_t leaf, uint64_t leaves) {
    if (leaf >= leaves) return CZ_ERR_INVALID_ARG;
    cz_fr_from_u64(out, leaf);
    return CZ_OK;
}

/* The per-challenge body of StackedCompound::generate_public_inputs. */
cz_status cz_fil_porep_challenge_inputs(const cz_fil_graph *g, uint64_t challenge,
                                        cz_fr out[CZ_FIL_POREP_INPUTS_PER_CHALLENGE]) {
    if (!g || !out) return CZ_ERR_INVALID_ARG;
    const uint64_t leaves = g->nodes;
    uint32_t drg[CZ_FIL_BASE_DEGREE], exp[CZ_FIL_EXP_DEGREE];
    cz_status st;
    size_t i = 0;
    /* comm_d inclusion proof of the data leaf (BinaryMerkleTree<G>) */
    if ((st = inclusion_input(&out[i++], challenge, leaves)) != CZ_OK) return st;
    /* drg parents: graph.base_graph().parents(challenge) */
    if ((st = cz_fil_graph_base_parents(g, challenge, drg)) != CZ_OK) return st;
    for (unsigned j = 0; j < CZ_FIL_BASE_DEGREE; j++)
        if ((st = inclusion_input(&out[i++], drg[j], leaves)) != CZ_OK) return st;
    /* exp parents: graph.expanded_parents(challenge) */
    if ((st = cz_fil_graph_exp_parents(g, challenge, exp)) != CZ_OK) return st;
    for (unsigned j = 0; j < CZ_FIL_EXP_DEGREE; j++)
        if ((st = inclusion_input(&out[i++], exp[j], leaves)) != CZ_OK) return st;
    /* u64_into_fr(challenge) */
    cz_fr_from_u64(&out[i++], challenge);
    /* comm_r_last inclusion of the encoded node, then comm_c inclusion of
     * its column: both the challenge's index in Tree */
    if ((st = inclusion_input(&out[i++], challenge, leaves)) != CZ_OK) return st;
    if ((st = inclusion_input(&out[i++], challenge, leaves)) != CZ_OK) return st;
    return CZ_OK;
}

static cz_status domain_input(cz_fr *out, const cz_fil_domain *d, const char *what,
                              cz_errbuf *err) {
    if (!d) return cz_err(err, CZ_ERR_INVALID_ARG, "porep inputs: %s missing", what);
    if (cz_fil_domain_to_fr(out, d) != CZ_OK)
        return cz_err(err, CZ_ERR_NOT_CANONICAL, "porep inputs: %s is not a canonical Fr element",
                      what);
    return CZ_OK;
}

/* StackedCompound::generate_public_inputs(pub_in, pub_params, Some(k)). */
cz_status cz_fil_porep_public_inputs_ex(const cz_fil_seal_proof *p, const cz_fil_graph *g,
                                        const cz_fil_domain *replica_id,
                                        const cz_fil_domain *comm_d,
                                        const cz_fil_domain *comm_r, const uint8_t *seed,
                                        unsigned k, cz_fr *out, size_t cap, size_t *n,
                                        cz_errbuf *err) {
    if (n) *n = 0;
    if (!p || !out || !n) return cz_err(err, CZ_ERR_INVALID_ARG, "porep inputs: NULL argument");
    const size_t count = cz_fil_porep_public_input_count(p);
    if (cap < count)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep inputs: %s needs room for %zu inputs, got %zu",
                      p->name, count, cap);
    if (k >= p->partitions)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep inputs: %s has %u partitions; asked for %u",
                      p->name, p->partitions, k);
    const uint64_t nodes = cz_fil_sector_nodes(p);
    cz_fil_graph own = {0};
    cz_status st;
    if (g) {
        if (g->nodes != nodes)
            return cz_err(err, CZ_ERR_INVALID_ARG,
                          "porep inputs: graph has %llu nodes, %s sectors have %llu",
                          (unsigned long long)g->nodes, p->name, (unsigned long long)nodes);
    } else {
        uint8_t porep_id[32];
        cz_fil_porep_id(porep_id, p);
        if ((st = cz_fil_graph_init(&own, nodes, porep_id, p->api)) != CZ_OK)
            return cz_err(err, st, "porep inputs: cannot set up the %s graph", p->name);
        g = &own;
    }
    const size_t nch = cz_fil_challenges_per_partition(p);
    uint64_t *ch = malloc(nch * sizeof *ch);
    if (!ch) {
        st = cz_err(err, CZ_ERR_NOMEM, "porep inputs: out of memory");
        goto done;
    }
    if ((st = domain_input(&out[0], replica_id, "replica_id", err)) != CZ_OK ||
        (st = domain_input(&out[1], comm_d, "comm_d", err)) != CZ_OK ||
        (st = domain_input(&out[2], comm_r, "comm_r", err)) != CZ_OK)
        goto done;
    /* pub_in.challenges(&pub_params.challenges, graph.size(), Some(k)) */
    if ((st = cz_fil_porep_challenges(ch, p, k, replica_id, seed, comm_r, err)) != CZ_OK) goto done;
    for (size_t i = 0; i < nch; i++) {
        st = cz_fil_porep_challenge_inputs(g, ch[i], &out[3 + CZ_FIL_POREP_INPUTS_PER_CHALLENGE * i]);
        if (st != CZ_OK) {
            st = cz_err(err, st, "porep inputs: challenge %zu (node %llu) out of range", i,
                        (unsigned long long)ch[i]);
            goto done;
        }
    }
    *n = count;
done:
    free(ch);
    cz_fil_graph_free(&own);
    return st;
}

cz_status cz_fil_porep_public_inputs(const cz_fil_c1 *c1, unsigned partition, cz_fr *out,
                                     size_t cap, size_t *n, cz_errbuf *err) {
    if (n) *n = 0;
    if (!c1 || !c1->registered_proof)
        return cz_err(err, CZ_ERR_INVALID_ARG, "porep inputs: C1 output without a registered proof");
    return cz_fil_porep_public_inputs_ex(c1->registered_proof, NULL, &c1->replica_id, &c1->comm_d,
                                         &c1->comm_r, c1->seed, partition, out, cap, n, err);
}
