/*
 * cuzk store nodes --conninfo C [--json]
 *
 * What an operator of a shared job store (docs/store.md) wants to see
 * first: which cuzkd nodes the database knows, when each last sent a
 * heartbeat, and what each holds (claimed partitions, lapsed leases,
 * assemblies) or has proved. The connection is an observer's
 * (cz_store_config.observer): it neither migrates the schema nor registers
 * itself as a node, so running it changes nothing in the database.
 *
 * Exit status (docs/cli.md): 0 listed, 3 the database could not be reached
 * or read (or holds no store, or a schema of another build), 2 usage.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "opts.h"
#include "cuzk/store.h"

static const cz_opt nodes_opts[] = {
    CZ_STR("--conninfo", "C", "libpq connection string or URI of the store's database (as [store] conninfo)"),
    CZ_FLAG("--json", "one JSON object {\"nodes\": [...]} instead of the table"),
    {0},
};
static const cz_cmd nodes_cmd = {
    .name = "cuzk store nodes",
    .synopsis = "--conninfo C [--json]",
    .about = "  lists the nodes of a shared job store: last heartbeat, claimed partitions (and how many\n"
             "  of those leases have lapsed), assemblies, partitions proved; changes nothing",
    .opts = nodes_opts,
};

static const cz_cmd store_cmd = {
    .name = "cuzk store",
    .synopsis = "nodes --conninfo C [--json]",
    .about = "  the shared PostgreSQL job store of cuzkd nodes (docs/store.md):\n"
             "    nodes   the nodes, their heartbeats and what they hold",
    .opts = (const cz_opt[]){{0}},
    .max_pos = 1,
    .stop_at_pos = true,
};

/* "2026-12-01 20:48:05Z" (UTC) of Unix ms; "-" for 0. */
static void utc(char *out, size_t cap, int64_t ms)
{
    if (ms <= 0) {
        snprintf(out, cap, "-");
        return;
    }
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, cap, "%Y-%m-%d %H:%M:%SZ", &tm);
}

/* A short duration: 850ms, 12.3s, 4m05s, 3h02m, 6d04h. */
static void span(char *out, size_t cap, int64_t ms)
{
    if (ms < 1000)
        snprintf(out, cap, "%lldms", (long long)ms);
    else if (ms < 60000)
        snprintf(out, cap, "%.1fs", (double)ms / 1000);
    else if (ms < 3600000)
        snprintf(out, cap, "%lldm%02llds", (long long)(ms / 60000), (long long)(ms / 1000 % 60));
    else if (ms < 86400000)
        snprintf(out, cap, "%lldh%02lldm", (long long)(ms / 3600000), (long long)(ms / 60000 % 60));
    else
        snprintf(out, cap, "%lldd%02lldh", (long long)(ms / 86400000), (long long)(ms / 3600000 % 24));
}

static int print_json(const cz_store_node_info *v, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, json_pack("{s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "node_id",
                                             v[i].node_id, "address", v[i].address, "started_ms",
                                             (json_int_t)v[i].started_ms, "heartbeat_ms",
                                             (json_int_t)v[i].heartbeat_ms, "silent_ms", (json_int_t)v[i].silent_ms,
                                             "claimed", (json_int_t)v[i].claimed, "claimed_lapsed",
                                             (json_int_t)v[i].claimed_lapsed, "assembling",
                                             (json_int_t)v[i].assembling, "completed", (json_int_t)v[i].completed));
    json_t *o = json_pack("{s:o}", "nodes", arr);
    char *s = o ? json_dumps(o, JSON_INDENT(2)) : NULL;
    json_decref(o);
    if (!s) {
        fprintf(stderr, "cuzk store nodes: out of memory\n");
        return CZ_EXIT_FAIL;
    }
    printf("%s\n", s);
    free(s);
    return CZ_EXIT_OK;
}

static void print_table(const cz_store_node_info *v, size_t n)
{
    printf("%-20s %-21s %-21s %9s %8s %7s %10s %10s  %s\n", "node", "started (UTC)", "last heartbeat (UTC)",
           "silent", "claimed", "lapsed", "assembling", "completed", "address");
    for (size_t i = 0; i < n; i++) {
        char st[32], hb[32], si[32];
        utc(st, sizeof st, v[i].started_ms);
        utc(hb, sizeof hb, v[i].heartbeat_ms);
        span(si, sizeof si, v[i].silent_ms);
        printf("%-20s %-21s %-21s %9s %8u %7u %10u %10llu  %s\n", v[i].node_id, st, hb, si, v[i].claimed,
               v[i].claimed_lapsed, v[i].assembling, (unsigned long long)v[i].completed,
               v[i].address[0] ? v[i].address : "-");
    }
    printf("%zu node%s\n", n, n == 1 ? "" : "s");
}

static int cmd_nodes(int argc, char **argv)
{
    cz_args a;
    int prc = cz_opts_parse(&a, &nodes_cmd, argc, argv);
    if (prc >= 0)
        return prc;
    const char *ci = cz_opt_str(&a, "--conninfo", NULL);
    if (!ci || !*ci)
        return cz_usage_error(&nodes_cmd, "--conninfo C is required (the [store] conninfo of the nodes)");
    cz_store_config sc;
    cz_store_config_default(&sc);
    sc.conninfo = ci;
    sc.observer = true;
    cz_store *s = NULL;
    cz_errbuf e = {{0}};
    cz_status st = cz_store_open(&s, &sc, &e);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk store nodes: %s\n", e.msg[0] ? e.msg : cz_status_str(st));
        return CZ_EXIT_IO;
    }
    cz_store_node_info *v = NULL;
    size_t n = 0;
    st = cz_store_list_nodes(s, &v, &n, &e);
    cz_store_close(s);
    if (st != CZ_OK) {
        fprintf(stderr, "cuzk store nodes: %s\n", e.msg[0] ? e.msg : cz_status_str(st));
        return CZ_EXIT_IO;
    }
    int rc = CZ_EXIT_OK;
    if (cz_opt_flag(&a, "--json"))
        rc = print_json(v, n);
    else
        print_table(v, n);
    free(v);
    return rc;
}

int cz_cmd_store(int argc, char **argv)
{
    cz_args a;
    int prc = cz_opts_parse(&a, &store_cmd, argc, argv);
    if (prc >= 0)
        return prc;
    if (a.next >= argc)
        return cz_usage_error(&store_cmd, "a subcommand is required (nodes)");
    int at = a.next;
    if (!strcmp(argv[at], "nodes"))
        return cmd_nodes(argc - at, argv + at);
    return cz_usage_error(&store_cmd, "unknown subcommand '%s' (nodes)", argv[at]);
}
