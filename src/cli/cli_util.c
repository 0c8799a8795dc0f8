/* Helpers shared by the cuzk subcommands (cli_util.h). */
#include "cli_util.h"
#include "commands.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned hex_digit(char c) {
    return c >= '0' && c <= '9'   ? (unsigned)(c - '0')
           : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
           : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                  : 16u;
}

bool cz_hex32_parse(const char *s, uint8_t out[32]) {
    if (!s) return false;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    if (strlen(s) != 64) return false;
    for (int i = 0; i < 32; i++) {
        unsigned hi = hex_digit(s[2 * i]), lo = hex_digit(s[2 * i + 1]);
        if (hi > 15 || lo > 15) return false;
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return true;
}

void cz_hex32_format(char out[65], const uint8_t b[32]) {
    for (int i = 0; i < 32; i++) snprintf(out + 2 * i, 3, "%02x", b[i]);
}

void *cz_read_file(const char *path, size_t *len, bool *opened) {
    FILE *f = fopen(path, "rb");
    if (opened) *opened = f != NULL;
    if (!f) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        if (n == cap) {
            char *nb = realloc(buf, (cap *= 2) + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) break;
    }
    if (buf && ferror(f)) {
        int e = errno;
        free(buf);
        buf = NULL;
        errno = e ? e : EIO;
    }
    int e = errno;
    fclose(f);
    errno = e; /* the read's reason, not the close's */
    if (buf) buf[n] = 0;
    *len = n;
    return buf;
}

int cz_write_file(const char *what, const char *path, const void *buf, size_t len) {
    FILE *f = fopen(path, "wb");
    bool ok = f && fwrite(buf, 1, len, f) == len;
    int e = errno;
    /* closed exactly once, whatever failed */
    if (f && fclose(f) != 0 && ok) {
        ok = false;
        e = errno;
    }
    if (ok) return 0;
    fprintf(stderr, "%s: cannot write %s: %s\n", what, path, strerror(e));
    return CZ_EXIT_IO;
}

int cz_write_file_in(const char *what, const char *dir, const char *name, const void *buf, size_t len) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return cz_write_file(what, path, buf, len);
}

bool cz_parse_size(const char *s, uint64_t *out)
{
    if (!*s) return false;
    uint64_t v = 0;
    const char *p = s;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (p == s) return false;
    unsigned shift = 0;
    if (*p) {
        const char *u = strchr("KMGT", *p);
        if (!u || p[1]) return false;
        shift = 10 * (unsigned)(u - "KMGT" + 1);
    }
    if (shift && v > (UINT64_MAX >> shift)) return false;
    *out = v << shift;
    return true;
}
