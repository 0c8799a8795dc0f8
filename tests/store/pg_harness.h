/*
 * A throw-away PostgreSQL server for the store's tests: initdb into a
 * scratch directory, a postmaster listening only on a unix socket in that
 * directory (listen_addresses = '', fsync off: nothing here must survive a
 * machine crash, but every acknowledged commit survives the server's own
 * death), started and stopped by the test itself, never a system service.
 *
 * PostgreSQL refuses to run as root. Run as root (CI is), the server runs
 * as the user "nobody" (setuid in the forked child; the scratch directory
 * is handed to it); root still reaches the socket. The postmaster gets
 * SIGQUIT (immediate shutdown) when the thread that started it dies
 * (PR_SET_PDEATHSIG), so a crashed or killed test leaves no server behind;
 * start and restart it from the test's main thread for that reason.
 *
 * The server binaries: $CZ_PG_BINDIR, else the directory CMake found at
 * configure time (CZ_PG_BINDIR_DEFAULT), else the highest
 * /usr/lib/postgresql/<v>/bin.
 */
#ifndef CZ_PG_HARNESS_H
#define CZ_PG_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct {
    char dir[256];       /* scratch directory: data/, the socket, postgres.log */
    char bindir[256];
    char admin[512];     /* conninfo of the maintenance database "postgres" */
    pid_t pid;           /* the postmaster, 0 when stopped */
    bool drop;           /* run the server as uid/gid (we are root) */
    uid_t uid;
    gid_t gid;
    unsigned dbs;        /* databases created, for unique names */
} cz_pg;

/* initdb + start; 0 on success, else -1 with the reason on stderr (and
 * the server log's tail). */
int cz_pg_start(cz_pg *pg);
/* Fast shutdown then start again on the same directory and socket:
 * every open connection breaks. 0 on success. */
int cz_pg_restart(cz_pg *pg);
/* Stops the server (fast shutdown) and leaves it stopped, for tests of an
 * outage; cz_pg_resume starts it again on the same directory and socket
 * (0 on success; nothing to do when it runs). */
void cz_pg_stop(cz_pg *pg);
int cz_pg_resume(cz_pg *pg);
/* Stops the server (if running) and deletes the scratch directory. */
void cz_pg_destroy(cz_pg *pg);
/* Creates a fresh database and writes its conninfo into out (cap bytes).
 * 0 on success. */
int cz_pg_create_db(cz_pg *pg, char *out, size_t cap);
/* Runs sql (one or more statements) on conninfo; 0 on success, else -1
 * with the server's message on stderr. */
int cz_pg_exec(const char *conninfo, const char *sql);
/* The first column of the first row of a query, as a number (-1 on
 * failure or NULL). */
long long cz_pg_query_ll(const char *conninfo, const char *sql);

#endif
