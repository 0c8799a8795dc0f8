/*
 * cuzk — base64 (RFC 4648 §4: standard alphabet, '=' padding), used by the
 * daemon's JSON API and by Curio's C1 wrapper (cuzk/fil_c1.h).
 */
#ifndef CUZK_BASE64_H
#define CUZK_BASE64_H

#include "cuzk/common.h"

#ifdef __cplusplus
extern "C" {
#endif

/* *out is malloc'd and NUL-terminated; *outlen (nullable) its length. */
CZ_WUR cz_status cz_base64_encode(const uint8_t *in, size_t len, char **out, size_t *outlen);
/* Strict: refuses characters outside the alphabet, whitespace, a length
 * that is not a multiple of 4, misplaced padding and non-zero unused bits
 * (CZ_ERR_FORMAT), so each byte string has exactly one encoding. *out is
 * malloc'd (never NULL on success, even for empty input). */
CZ_WUR cz_status cz_base64_decode(const char *in, size_t len, uint8_t **out, size_t *outlen);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_BASE64_H */
