/*
 * The schema migrations embedded at build time (embed_migrations.cmake
 * generates their definition from migrations/NNNN_name.sql).
 */
#ifndef CZ_STORE_MIGRATIONS_H
#define CZ_STORE_MIGRATIONS_H

#include <stddef.h>

typedef struct {
    int version;       /* 1, 2, 3, ...: the order of application */
    const char *name;  /* "initial" for 0001_initial.sql */
    const char *sql;   /* the file's text, NUL-terminated */
} cz_store_migration;

/* In version order; cz_store_migrations[i].version == i + 1. */
extern const cz_store_migration cz_store_migrations[];
extern const size_t cz_store_migrations_count;

#endif
