#include "ff_internal.h"
#include <string.h>

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

cz_status cz__hex_to_be(uint8_t *out, size_t n, const char *hex)
{
    if (!hex) return CZ_ERR_INVALID_ARG;
    if (hex[0] == '0' && (hex[1] == 'x' || hex[1] == 'X')) hex += 2;
    size_t len = strlen(hex);
    if (len == 0 || len > 2 * n) return CZ_ERR_FORMAT;
    memset(out, 0, n);
    for (size_t i = 0; i < len; i++) {
        int v = hexval(hex[len - 1 - i]);
        if (v < 0) return CZ_ERR_FORMAT;
        out[n - 1 - i / 2] |= (uint8_t)(v << (4 * (i % 2)));
    }
    return CZ_OK;
}

void cz__be_to_hex(char *out, const uint8_t *in, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    out[0] = '0';
    out[1] = 'x';
    for (size_t i = 0; i < n; i++) {
        out[2 + 2 * i] = digits[in[i] >> 4];
        out[3 + 2 * i] = digits[in[i] & 15];
    }
    out[2 + 2 * n] = '\0';
}
