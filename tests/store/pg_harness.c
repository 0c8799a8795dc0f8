/* The test PostgreSQL server (pg_harness.h). */
#include "pg_harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "testutil.h"

#ifndef CZ_PG_BINDIR_DEFAULT
#define CZ_PG_BINDIR_DEFAULT ""
#endif

static void sleep_ms(long ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static bool is_exec(const char *dir, const char *name)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, X_OK) == 0;
}

static int find_bindir(cz_pg *pg)
{
    const char *env = getenv("CZ_PG_BINDIR");
    if (env && *env) {
        snprintf(pg->bindir, sizeof pg->bindir, "%s", env);
    } else if (*CZ_PG_BINDIR_DEFAULT && is_exec(CZ_PG_BINDIR_DEFAULT, "postgres")) {
        snprintf(pg->bindir, sizeof pg->bindir, "%s", CZ_PG_BINDIR_DEFAULT);
    } else {
        /* the highest /usr/lib/postgresql/<major>/bin */
        int best = -1;
        DIR *d = opendir("/usr/lib/postgresql");
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            int v = atoi(e->d_name);
            char bin[200];
            snprintf(bin, sizeof bin, "/usr/lib/postgresql/%.100s/bin", e->d_name);
            if (v > best && is_exec(bin, "postgres")) {
                best = v;
                snprintf(pg->bindir, sizeof pg->bindir, "%s", bin);
            }
        }
        if (d)
            closedir(d);
    }
    if (!is_exec(pg->bindir, "postgres") || !is_exec(pg->bindir, "initdb")) {
        fprintf(stderr, "pg_harness: no PostgreSQL server binaries (initdb, postgres) in '%s': "
                "install the postgresql package (tools/install-deps.sh) or set CZ_PG_BINDIR\n",
                pg->bindir[0] ? pg->bindir : "/usr/lib/postgresql/<version>/bin");
        return -1;
    }
    return 0;
}

/* Child side of a spawn: become the server's user, send stdout/stderr to
 * the log, die with the parent thread (server only), exec. Only
 * async-signal-safe calls: the parent may have other threads. */
static void child_exec(const cz_pg *pg, char *const argv[], const char *log, bool pdeath, pid_t parent)
{
    if (pg->drop && (setgroups(0, NULL) != 0 || setgid(pg->gid) != 0 || setuid(pg->uid) != 0))
        _exit(126);
    /* after setuid: a credential change clears the death signal */
    if (pdeath && (prctl(PR_SET_PDEATHSIG, SIGQUIT) != 0 || getppid() != parent))
        _exit(126);
    int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (fd >= 0) {
        dup2(fd, 1);
        dup2(fd, 2);
        close(fd);
    }
    int devnull = open("/dev/null", O_RDONLY);
    if (devnull >= 0) {
        dup2(devnull, 0);
        close(devnull);
    }
    execv(argv[0], argv);
    _exit(127);
}

static void print_log_tail(const cz_pg *pg)
{
    char p[300], buf[4096];
    snprintf(p, sizeof p, "%s/postgres.log", pg->dir);
    FILE *f = fopen(p, "r");
    if (!f)
        return;
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fseek(f, sz > (long)sizeof buf - 1 ? sz - (long)sizeof buf + 1 : 0, SEEK_SET);
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    fprintf(stderr, "pg_harness: tail of %s:\n%s\n", p, buf);
}

static int run_initdb(cz_pg *pg)
{
    char exe[320], data[300], log[300];
    snprintf(exe, sizeof exe, "%s/initdb", pg->bindir);
    snprintf(data, sizeof data, "%s/data", pg->dir);
    snprintf(log, sizeof log, "%s/postgres.log", pg->dir);
    char *argv[] = {exe, "-D", data, "-U", "cuzk", "-A", "trust", "-E", "UTF8", "--locale=C", "-N", NULL};
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        child_exec(pg, argv, log, false, 0);
    int wst;
    while (waitpid(pid, &wst, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(wst) || WEXITSTATUS(wst) != 0) {
        fprintf(stderr, "pg_harness: initdb -D %s failed (status %d)\n", data, wst);
        print_log_tail(pg);
        return -1;
    }
    return 0;
}

static int spawn_server(cz_pg *pg)
{
    char exe[320], data[300], log[300];
    snprintf(exe, sizeof exe, "%s/postgres", pg->bindir);
    snprintf(data, sizeof data, "%s/data", pg->dir);
    snprintf(log, sizeof log, "%s/postgres.log", pg->dir);
    char sockdir[300];
    snprintf(sockdir, sizeof sockdir, "unix_socket_directories=%s", pg->dir);
    /* synchronous_commit stays on (the server's default): the tests
     * restart the server under load, and a stop that outlasts its 30 s is
     * a SIGKILL (stop_server). A commit acknowledged to the store must
     * survive that, as on any real server: with synchronous_commit off it
     * may still sit in the server's WAL buffers and be lost (a job the
     * store had accepted, then "unknown" after the restart: seen once,
     * with two other suites running beside). With fsync off the commit
     * costs a write() of the WAL, not a flush. */
    char *argv[] = {exe, "-D", data, "-p", "5432",
                    "-c", "listen_addresses=", "-c", sockdir,
                    "-c", "fsync=off", "-c", "full_page_writes=off",
                    "-c", "shared_buffers=16MB", "-c", "max_connections=64",
                    "-c", "unix_socket_permissions=0777", "-c", "logging_collector=off", NULL};
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0)
        child_exec(pg, argv, log, true, parent);
    pg->pid = pid;
    /* ready when it accepts connections (bounded: 30 s) */
    for (int i = 0; i < 600; i++) {
        if (PQping(pg->admin) == PQPING_OK)
            return 0;
        int wst;
        if (waitpid(pid, &wst, WNOHANG) == pid) {
            pg->pid = 0;
            fprintf(stderr, "pg_harness: postgres exited during start-up (status %d)\n", wst);
            print_log_tail(pg);
            return -1;
        }
        sleep_ms(50);
    }
    fprintf(stderr, "pg_harness: postgres did not accept connections within 30 s\n");
    print_log_tail(pg);
    return -1;
}

static void stop_server(cz_pg *pg)
{
    if (pg->pid <= 0)
        return;
    kill(pg->pid, SIGINT); /* fast shutdown: roll back and disconnect everyone */
    for (int i = 0; i < 600; i++) {
        int wst;
        pid_t r = waitpid(pg->pid, &wst, WNOHANG);
        if (r == pg->pid || (r < 0 && errno == ECHILD)) {
            pg->pid = 0;
            return;
        }
        sleep_ms(50);
    }
    fprintf(stderr, "pg_harness: postgres (pid %d) ignored a fast shutdown for 30 s: killing it\n", (int)pg->pid);
    kill(pg->pid, SIGKILL);
    waitpid(pg->pid, NULL, 0);
    pg->pid = 0;
}

int cz_pg_start(cz_pg *pg)
{
    memset(pg, 0, sizeof *pg);
    if (find_bindir(pg) != 0)
        return -1;
    if (cz_test_dir_make(pg->dir, sizeof pg->dir, "cz-pg-") != 0) {
        fprintf(stderr, "pg_harness: cannot create a scratch directory in /tmp: %s\n", strerror(errno));
        return -1;
    }
    if (geteuid() == 0) {
        struct passwd *pw = getpwnam("nobody");
        if (!pw) {
            fprintf(stderr, "pg_harness: running as root and there is no user 'nobody' to run postgres as\n");
            return -1;
        }
        pg->drop = true;
        pg->uid = pw->pw_uid;
        pg->gid = pw->pw_gid;
        if (chown(pg->dir, pg->uid, pg->gid) != 0) {
            fprintf(stderr, "pg_harness: chown %s to nobody: %s\n", pg->dir, strerror(errno));
            return -1;
        }
    }
    chmod(pg->dir, 0700);
    snprintf(pg->admin, sizeof pg->admin, "host=%s port=5432 user=cuzk dbname=postgres", pg->dir);
    if (run_initdb(pg) != 0 || spawn_server(pg) != 0)
        return -1;
    return 0;
}

int cz_pg_restart(cz_pg *pg)
{
    stop_server(pg);
    return spawn_server(pg);
}

void cz_pg_stop(cz_pg *pg)
{
    stop_server(pg);
}

int cz_pg_resume(cz_pg *pg)
{
    return pg->pid ? 0 : spawn_server(pg);
}

void cz_pg_destroy(cz_pg *pg)
{
    stop_server(pg);
    if (pg->dir[0])
        cz_test_dir_remove(pg->dir);
    pg->dir[0] = 0;
}

int cz_pg_exec(const char *conninfo, const char *sql)
{
    PGconn *c = PQconnectdb(conninfo);
    if (PQstatus(c) != CONNECTION_OK) {
        fprintf(stderr, "pg_harness: connect '%s': %s", conninfo, PQerrorMessage(c));
        PQfinish(c);
        return -1;
    }
    PGresult *r = PQexec(c, sql);
    int rc = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK ? 0 : -1;
    if (rc)
        fprintf(stderr, "pg_harness: '%s': %s", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    return rc;
}

long long cz_pg_query_ll(const char *conninfo, const char *sql)
{
    PGconn *c = PQconnectdb(conninfo);
    long long v = -1;
    if (PQstatus(c) == CONNECTION_OK) {
        PGresult *r = PQexec(c, sql);
        if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
            v = strtoll(PQgetvalue(r, 0, 0), NULL, 10);
        else
            fprintf(stderr, "pg_harness: '%s': %s", sql, PQerrorMessage(c));
        PQclear(r);
    } else {
        fprintf(stderr, "pg_harness: connect '%s': %s", conninfo, PQerrorMessage(c));
    }
    PQfinish(c);
    return v;
}

int cz_pg_create_db(cz_pg *pg, char *out, size_t cap)
{
    char sql[128], name[64];
    snprintf(name, sizeof name, "t%u", ++pg->dbs);
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    if (cz_pg_exec(pg->admin, sql) != 0)
        return -1;
    snprintf(out, cap, "host=%s port=5432 user=cuzk dbname=%s", pg->dir, name);
    return 0;
}
