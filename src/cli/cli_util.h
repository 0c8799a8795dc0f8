/*
 * Small helpers the cuzk subcommands share: 32-byte hex values and whole
 * files. Messages name the command (`what`, e.g. "cuzk seal") and the file.
 */
#ifndef CUZK_CLI_UTIL_H
#define CUZK_CLI_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* 64 hex digits (either case, an optional 0x prefix) into 32 bytes, first
 * digit pair first. false (out unspecified) for NULL or anything else. */
bool cz_hex32_parse(const char *s, uint8_t out[32]);
/* The 32 bytes as 64 lowercase hex digits and a NUL. */
void cz_hex32_format(char out[65], const uint8_t b[32]);
/* "512M", "2G", "1048576": decimal digits and an optional K/M/G/T
 * (powers of 1024), as cuzkd's size keys. False on anything else or an
 * overflow. */
bool cz_parse_size(const char *s, uint64_t *out);

/* The whole file at path, malloc'd, with a NUL after its *len bytes (so a
 * text file can be used as a string). NULL with errno set when it cannot
 * be opened, read or held; *opened (if not NULL) says whether it opened. */
void *cz_read_file(const char *path, size_t *len, bool *opened);

/* path <- buf[0..len). 0, or CZ_EXIT_IO after "<what>: cannot write <path>:
 * <reason>" on stderr. */
int cz_write_file(const char *what, const char *path, const void *buf, size_t len);
/* The same for dir/name. */
int cz_write_file_in(const char *what, const char *dir, const char *name, const void *buf, size_t len);

#endif
