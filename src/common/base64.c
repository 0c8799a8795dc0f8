/*
 * Base64, RFC 4648 §4 (standard alphabet, '=' padding).
 *
 * Used by the daemon's JSON API (payloads, proofs) and by Curio's C1 wrapper
 * {"Phase1Out": base64(C1 JSON), ...}: Go's
 * encoding/json writes a []byte with base64.StdEncoding, i.e. this exact
 * alphabet, always padded. The decoder is strict (RFC 4648 §3.3, §3.5): no
 * whitespace, no characters outside the alphabet, the length a multiple of
 * four, at most two '=' and only at the very end, and the unused low bits of
 * the last symbol zero — so every byte string has one accepted encoding and
 * decode(encode(x)) == x, encode(decode(s)) == s.
 */
#include "cuzk/base64.h"

#include <stdlib.h>
#include <string.h>

static const char b64_alphabet[64] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

cz_status cz_base64_encode(const uint8_t *in, size_t len, char **out, size_t *outlen)
{
    if (!out || (!in && len)) return CZ_ERR_INVALID_ARG;
    *out = NULL;
    if (outlen) *outlen = 0;
    /* 4 output characters per started group of 3 input bytes, plus NUL. */
    size_t groups = len / 3 + (len % 3 != 0);
    if (groups > (SIZE_MAX - 1) / 4) return CZ_ERR_INVALID_ARG;
    size_t n = groups * 4;
    char *s = malloc(n + 1);
    if (!s) return CZ_ERR_NOMEM;
    size_t o = 0, i = 0;
    for (; i + 3 <= len; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        s[o++] = b64_alphabet[v >> 18];
        s[o++] = b64_alphabet[(v >> 12) & 63];
        s[o++] = b64_alphabet[(v >> 6) & 63];
        s[o++] = b64_alphabet[v & 63];
    }
    if (len - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        s[o++] = b64_alphabet[v >> 18];
        s[o++] = b64_alphabet[(v >> 12) & 63];
        s[o++] = '=';
        s[o++] = '=';
    } else if (len - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        s[o++] = b64_alphabet[v >> 18];
        s[o++] = b64_alphabet[(v >> 12) & 63];
        s[o++] = b64_alphabet[(v >> 6) & 63];
        s[o++] = '=';
    }
    s[o] = '\0';
    *out = s;
    if (outlen) *outlen = o;
    return CZ_OK;
}

/* Value of one alphabet character, or -1. */
static int b64_value(unsigned char ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+') return 62;
    if (ch == '/') return 63;
    return -1;
}

cz_status cz_base64_decode(const char *in, size_t len, uint8_t **out, size_t *outlen)
{
    if (!out || (!in && len)) return CZ_ERR_INVALID_ARG;
    *out = NULL;
    if (outlen) *outlen = 0;
    if (len % 4 != 0) return CZ_ERR_FORMAT;
    size_t pad = 0;
    if (len >= 4) {
        if (in[len - 1] == '=') pad = in[len - 2] == '=' ? 2 : 1;
    }
    size_t n = len / 4 * 3 - pad;
    uint8_t *b = malloc(n ? n : 1);
    if (!b) return CZ_ERR_NOMEM;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        bool last = i + 4 == len;
        size_t real = last ? 4 - pad : 4; /* alphabet characters in this quantum */
        uint32_t v = 0;
        for (size_t k = 0; k < 4; k++) {
            int d = 0;
            if (k < real) {
                d = b64_value((unsigned char)in[i + k]);
                if (d < 0) goto bad; /* includes a '=' anywhere but the end */
            }
            v = v << 6 | (uint32_t)d;
        }
        b[o++] = (uint8_t)(v >> 16);
        if (real >= 3) b[o++] = (uint8_t)(v >> 8);
        if (real == 4) b[o++] = (uint8_t)v;
        /* RFC 4648 §3.5: the bits below the last full byte must be zero. */
        if (real == 2 && (v & 0xffff) != 0) goto bad;
        if (real == 3 && (v & 0xff) != 0) goto bad;
    }
    *out = b;
    if (outlen) *outlen = o;
    return CZ_OK;
bad:
    free(b);
    return CZ_ERR_FORMAT;
}
