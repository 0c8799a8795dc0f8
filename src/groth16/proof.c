/* Groth16 proof encoding: A ‖ B ‖ C compressed (48 + 96 + 48 bytes). */
#include "cuzk/groth16.h"

void cz_groth16_proof_encode(uint8_t out[CZ_GROTH16_PROOF_BYTES], const cz_groth16_proof *p)
{
    cz_g1_compress(out, &p->a);
    cz_g2_compress(out + 48, &p->b);
    cz_g1_compress(out + 144, &p->c);
}

cz_status cz_groth16_proof_decode(cz_groth16_proof *p, const uint8_t in[CZ_GROTH16_PROOF_BYTES], cz_errbuf *err)
{
    cz_status st = cz_g1_uncompress(&p->a, in);
    if (st == CZ_OK && cz_g1_affine_is_infinity(&p->a)) st = CZ_ERR_IDENTITY;
    if (st != CZ_OK) return cz_err(err, st, "proof point A: %s", cz_status_str(st));
    st = cz_g2_uncompress(&p->b, in + 48);
    if (st == CZ_OK && cz_g2_affine_is_infinity(&p->b)) st = CZ_ERR_IDENTITY;
    if (st != CZ_OK) return cz_err(err, st, "proof point B: %s", cz_status_str(st));
    st = cz_g1_uncompress(&p->c, in + 144);
    if (st == CZ_OK && cz_g1_affine_is_infinity(&p->c)) st = CZ_ERR_IDENTITY;
    if (st != CZ_OK) return cz_err(err, st, "proof point C: %s", cz_status_str(st));
    return CZ_OK;
}
