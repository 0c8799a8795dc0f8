/*
 * bellperson's verifying-key file (groth16/verifying_key.rs
 * VerifyingKey::read / write) and the verification of a C2 PoRep proof
 * (storage-proofs-core CompoundProof::verify for StackedCompound: the
 * partition proofs against generate_public_inputs(k)).
 *
 * This file needs cz_groth16 (verifier, proof decoding) and cz_ec (point
 * decoding); the rest of cz_filecoin does not, which is why it is apart.
 */
#include "cuzk/fil_params.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cz_bp_vk_free(cz_groth16_vk *vk) {
    if (!vk) return;
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

/* read_uncompressed_point (from_uncompressed: flags, canonical
 * coordinates, on curve, subgroup) plus the identity refusal. */
static cz_status g1_at(cz_g1_affine *p, const uint8_t *b, const char *name, cz_errbuf *err) {
    cz_status st = cz_g1_deserialize(p, b);
    if (st == CZ_OK && cz_g1_affine_is_infinity(p)) st = CZ_ERR_IDENTITY;
    return st == CZ_OK ? CZ_OK : cz_err(err, st, "vk: %s: %s", name, cz_status_str(st));
}

static cz_status g2_at(cz_g2_affine *p, const uint8_t *b, const char *name, cz_errbuf *err) {
    cz_status st = cz_g2_deserialize(p, b);
    if (st == CZ_OK && cz_g2_affine_is_infinity(p)) st = CZ_ERR_IDENTITY;
    return st == CZ_OK ? CZ_OK : cz_err(err, st, "vk: %s: %s", name, cz_status_str(st));
}

/* VerifyingKey::read, same field order. */
cz_status cz_bp_vk_parse(cz_groth16_vk *out, const uint8_t *buf, size_t len, cz_errbuf *err) {
    if (!out || (!buf && len)) return cz_err(err, CZ_ERR_INVALID_ARG, "vk: NULL argument");
    memset(out, 0, sizeof *out);
    if (len < CZ_BP_VK_FIXED_BYTES)
        return cz_err(err, CZ_ERR_TRUNCATED, "vk: %zu bytes, the fixed part alone is %u", len,
                      CZ_BP_VK_FIXED_BYTES);
    cz_groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    const uint8_t *cur = buf;
    cz_status st;
    if ((st = g1_at(&vk.alpha_g1, cur, "alpha_g1", err)) != CZ_OK) return st;
    cur += 96;
    if ((st = g1_at(&vk.beta_g1, cur, "beta_g1", err)) != CZ_OK) return st;
    cur += 96;
    if ((st = g2_at(&vk.beta_g2, cur, "beta_g2", err)) != CZ_OK) return st;
    cur += 192;
    if ((st = g2_at(&vk.gamma_g2, cur, "gamma_g2", err)) != CZ_OK) return st;
    cur += 192;
    if ((st = g1_at(&vk.delta_g1, cur, "delta_g1", err)) != CZ_OK) return st;
    cur += 96;
    if ((st = g2_at(&vk.delta_g2, cur, "delta_g2", err)) != CZ_OK) return st;
    cur += 192;
    const uint32_t n = (uint32_t)cur[0] << 24 | (uint32_t)cur[1] << 16 | (uint32_t)cur[2] << 8 | cur[3];
    cur += 4;
    const size_t rest = len - CZ_BP_VK_FIXED_BYTES;
    if ((uint64_t)n * 96u > rest)
        return cz_err(err, CZ_ERR_TRUNCATED, "vk: announces %u ic points (%llu bytes), %zu bytes remain",
                      n, (unsigned long long)n * 96u, rest);
    if ((uint64_t)n * 96u < rest)
        return cz_err(err, CZ_ERR_FORMAT, "vk: %zu bytes after the %u ic points",
                      rest - (size_t)n * 96u, n);
    if (n == 0) return cz_err(err, CZ_ERR_FORMAT, "vk: no ic points (the constant input needs one)");
    vk.ic = malloc((size_t)n * sizeof *vk.ic);
    if (!vk.ic) return cz_err(err, CZ_ERR_NOMEM, "vk: out of memory for %u ic points", n);
    vk.n_ic = n;
    for (uint32_t i = 0; i < n; i++, cur += 96) {
        char name[24];
        snprintf(name, sizeof name, "ic[%u]", i);
        if ((st = g1_at(&vk.ic[i], cur, name, err)) != CZ_OK) {
            cz_bp_vk_free(&vk);
            return st;
        }
    }
    *out = vk;
    return CZ_OK;
}

cz_status cz_bp_vk_read_file(cz_groth16_vk *out, const char *path, cz_errbuf *err) {
    if (!out || !path) return cz_err(err, CZ_ERR_INVALID_ARG, "vk: NULL argument");
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) return cz_err(err, CZ_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    cz_status st = CZ_OK;
    for (;;) {
        if (len == cap) {
            /* a vk is a few KiB (PoSt's a few MiB at most); refuse absurd sizes */
            if (cap >= ((size_t)1 << 30)) {
                st = cz_err(err, CZ_ERR_FORMAT, "%s: larger than 1 GiB, not a verifying key", path);
                break;
            }
            size_t ncap = cap ? 2 * cap : 8192;
            uint8_t *nb = realloc(buf, ncap);
            if (!nb) {
                st = cz_err(err, CZ_ERR_NOMEM, "%s: out of memory", path);
                break;
            }
            buf = nb;
            cap = ncap;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) st = cz_err(err, CZ_ERR_IO, "%s: read error: %s", path, strerror(errno));
            break;
        }
    }
    fclose(f);
    if (st == CZ_OK) {
        cz_errbuf e = {{0}};
        st = cz_bp_vk_parse(out, buf, len, &e);
        if (st != CZ_OK) cz_err(err, st, "%s: %s", path, e.msg);
    }
    free(buf);
    return st;
}

/* VerifyingKey::write */
cz_status cz_bp_vk_serialize(const cz_groth16_vk *vk, uint8_t **out, size_t *len) {
    if (!vk || !out || !len || (vk->n_ic && !vk->ic) || vk->n_ic > UINT32_MAX) return CZ_ERR_INVALID_ARG;
    *out = NULL;
    *len = 0;
    const size_t n = cz_bp_vk_bytes(vk->n_ic);
    uint8_t *b = malloc(n), *cur = b;
    if (!b) return CZ_ERR_NOMEM;
    cz_g1_serialize(cur, &vk->alpha_g1); cur += 96;
    cz_g1_serialize(cur, &vk->beta_g1); cur += 96;
    cz_g2_serialize(cur, &vk->beta_g2); cur += 192;
    cz_g2_serialize(cur, &vk->gamma_g2); cur += 192;
    cz_g1_serialize(cur, &vk->delta_g1); cur += 96;
    cz_g2_serialize(cur, &vk->delta_g2); cur += 192;
    const uint32_t c = (uint32_t)vk->n_ic;
    *cur++ = (uint8_t)(c >> 24);
    *cur++ = (uint8_t)(c >> 16);
    *cur++ = (uint8_t)(c >> 8);
    *cur++ = (uint8_t)c;
    for (size_t i = 0; i < vk->n_ic; i++, cur += 96) cz_g1_serialize(cur, &vk->ic[i]);
    *out = b;
    *len = n;
    return CZ_OK;
}

/* CompoundProof::verify (compound_proof.rs): the proof count must be the
 * partition count, then each circuit proof against
 * generate_public_inputs(pub_in, pub_params, Some(k)). The reference
 * batch-verifies (verify_proofs_batch); one check per partition accepts the
 * same proofs and says which partition is bad. */
cz_status cz_fil_porep_verify(const cz_groth16_vk *vk, const cz_fil_c1 *c1, const uint8_t *proof,
                              size_t proof_len, unsigned *bad_partition, cz_errbuf *err) {
    if (bad_partition) *bad_partition = UINT_MAX;
    if (!vk || !c1 || !c1->registered_proof || (!proof && proof_len))
        return cz_err(err, CZ_ERR_INVALID_ARG, "verify: NULL argument");
    const cz_fil_seal_proof *p = c1->registered_proof;
    const size_t n_in = cz_fil_porep_public_input_count(p);
    if (proof_len != (size_t)p->partitions * CZ_GROTH16_PROOF_BYTES)
        return cz_err(err, CZ_ERR_MISMATCH, "verify: %s proofs have %u partitions of %u bytes (%zu), got %zu bytes%s",
                      p->name, p->partitions, CZ_GROTH16_PROOF_BYTES,
                      (size_t)p->partitions * CZ_GROTH16_PROOF_BYTES, proof_len,
                      p->challenges == CZ_FIL_CHALLENGES_NON_INTERACTIVE
                          ? " (a SnarkPack aggregate is not verified here: give the partition proofs)"
                          : "");
    if (vk->n_ic != n_in + 1)
        return cz_err(err, CZ_ERR_MISMATCH,
                      "verify: the key has %zu ic points, %s needs %zu (%zu public inputs + ONE): "
                      "not this circuit's key", vk->n_ic, p->name, n_in + 1, n_in);
    cz_fr *in = malloc(n_in * sizeof *in);
    if (!in) return cz_err(err, CZ_ERR_NOMEM, "verify: out of memory");
    cz_groth16_pvk *pvk = NULL;
    cz_status st = cz_groth16_pvk_create(&pvk, vk);
    if (st != CZ_OK) {
        free(in);
        return cz_err(err, st, "verify: cannot prepare the key: %s", cz_status_str(st));
    }
    for (unsigned k = 0; k < p->partitions && st == CZ_OK; k++) {
        cz_errbuf e = {{0}};
        size_t n = 0;
        cz_groth16_proof pr;
        st = cz_fil_porep_public_inputs(c1, k, in, n_in, &n, &e);
        if (st == CZ_OK) st = cz_groth16_proof_decode(&pr, proof + (size_t)k * CZ_GROTH16_PROOF_BYTES, &e);
        if (st == CZ_OK) st = cz_groth16_verify(pvk, &pr, in, n, &e);
        if (st != CZ_OK) {
            if (bad_partition) *bad_partition = k;
            cz_err(err, st, "partition %u of %u: %s", k, p->partitions, e.msg);
        }
    }
    cz_groth16_pvk_free(pvk);
    free(in);
    return st;
}
