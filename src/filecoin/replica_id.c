/*
 * Filecoin replica id (storage-proofs-porep stacked/vanilla/params.rs
 * generate_replica_id).
 */
#include "cuzk/fil_challenge.h"
#include "cuzk/sha256.h"

/* As storage-proofs-porep generate_replica_id: one SHA-256 over the five
 * inputs. The sector id is the only integer and it goes in big-endian —
 * unlike every counter in the challenge derivations, which are
 * little-endian — because the reference writes u64::to_be_bytes here. The
 * digest becomes a domain element by bytes_into_fr_repr_safe, i.e. clearing
 * the top two bits of the last (most significant) byte. */
void cz_fil_replica_id(cz_fil_domain *out, const uint8_t prover_id[32], uint64_t sector_id,
                       const uint8_t ticket[32], const cz_fil_domain *comm_d,
                       const uint8_t porep_id[32]) {
    uint8_t sid[8];
    for (int i = 0; i < 8; i++) sid[i] = (uint8_t)(sector_id >> (56 - 8 * i));
    cz_sha256_ctx c;
    cz_sha256_init(&c);
    cz_sha256_update(&c, prover_id, 32);
    cz_sha256_update(&c, sid, sizeof sid);
    cz_sha256_update(&c, ticket, 32);
    cz_sha256_update(&c, comm_d->b, 32);
    cz_sha256_update(&c, porep_id, 32);
    cz_sha256_final(&c, out->b);
    cz_fil_trim_254(out->b);
}
