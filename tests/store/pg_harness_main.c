/*
 * pg_harness_main: the test PostgreSQL server (pg_harness.h) for tests
 * written in another language (tests/store/test_store_nodes.py).
 *
 * Starts a server and creates one database, prints "conninfo <conninfo>"
 * on stdout, then reads commands, one a line, answering each with one
 * line:
 *   restart        fast shutdown and start again ("restarted" | "error")
 *   stop           fast shutdown, left stopped ("stopped")
 *   start          start it again after stop ("started" | "error")
 *   query <SQL>    the first column of the first row as a number
 *                  (-1 on failure or NULL)
 *   exec <SQL>     "ok" | "error"
 *   submit-uri <circuit> <partitions> <uri>
 *                  a job whose payload is a reference (what the HTTP API
 *                  cannot submit), through the store library: its id, or
 *                  "error: ..."
 * and stops the server and deletes its directory at end of input, on
 * SIGTERM or SIGINT (the server also dies with this process: see
 * pg_harness.h).
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cuzk/store.h"
#include "pg_harness.h"

static volatile sig_atomic_t stop_sig;

static void on_sig(int sig)
{
    stop_sig = sig;
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sig;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    cz_pg pg;
    if (cz_pg_start(&pg) != 0) {
        fprintf(stderr, "pg_harness_main: cannot start PostgreSQL (see above)\n");
        return 1;
    }
    char conninfo[600];
    if (cz_pg_create_db(&pg, conninfo, sizeof conninfo) != 0) {
        fprintf(stderr, "pg_harness_main: cannot create the test database\n");
        cz_pg_destroy(&pg);
        return 1;
    }
    printf("conninfo %s\n", conninfo);
    char line[8192];
    for (;;) {
        /* wait for input or a signal (fgets alone would be restarted) */
        struct pollfd p = {STDIN_FILENO, POLLIN, 0};
        if (stop_sig)
            break;
        int pr = poll(&p, 1, 200);
        if (pr <= 0)
            continue;
        if (!fgets(line, sizeof line, stdin))
            break;
        line[strcspn(line, "\n")] = 0;
        if (!strcmp(line, "restart")) {
            puts(cz_pg_restart(&pg) == 0 ? "restarted" : "error");
        } else if (!strcmp(line, "stop")) {
            cz_pg_stop(&pg);
            puts("stopped");
        } else if (!strcmp(line, "start")) {
            puts(cz_pg_resume(&pg) == 0 ? "started" : "error");
        } else if (!strncmp(line, "query ", 6)) {
            printf("%lld\n", cz_pg_query_ll(conninfo, line + 6));
        } else if (!strncmp(line, "submit-uri ", 11)) {
            char circ[128], uri[4096];
            unsigned parts;
            cz_store_config c;
            cz_store_config_default(&c);
            c.conninfo = conninfo;
            c.node_id = "pg-harness";
            cz_store *s = NULL;
            cz_errbuf e = {{0}};
            cz_job_id id = 0;
            if (sscanf(line + 11, "%127s %u %4095s", circ, &parts, uri) != 3) {
                puts("error: submit-uri <circuit> <partitions> <uri>");
            } else if (cz_store_open(&s, &c, &e) != CZ_OK) {
                printf("error: %s\n", e.msg);
            } else {
                cz_store_job_request rq = {.circuit_id = circ, .payload_uri = uri, .num_partitions = parts,
                                           .priority = CZ_PRIO_NORMAL};
                if (cz_store_submit(s, &rq, &id, NULL, &e) != CZ_OK)
                    printf("error: %s\n", e.msg);
                else
                    printf("%llu\n", (unsigned long long)id);
            }
            cz_store_close(s);
        } else if (!strncmp(line, "exec ", 5)) {
            puts(cz_pg_exec(conninfo, line + 5) == 0 ? "ok" : "error");
        } else if (line[0]) {
            printf("error: unknown command '%.100s' (restart | stop | start | query SQL | exec SQL | submit-uri C N URI)\n", line);
        }
    }
    cz_pg_destroy(&pg);
    return 0;
}
