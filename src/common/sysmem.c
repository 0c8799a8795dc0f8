/*
 * The memory limit of this process: MemTotal, lowered by every cgroup v1
 * or v2 limit on its group's path (see cuzk/sysmem.h).
 */
#include "cuzk/sysmem.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PATH_CAP 4096

static void join(char *out, const char *root, const char *path)
{
    size_t rl = strlen(root);
    while (rl > 1 && root[rl - 1] == '/') rl--;
    if (rl == 1 && root[0] == '/') rl = 0;
    /* a path that does not fit is cut; it then names no file, which reads
     * as "no limit there" */
    int n = snprintf(out, PATH_CAP, "%.*s%s", (int)rl, root, path);
    if (n < 0 || n >= PATH_CAP) out[0] = 0;
}

/* The first line of a small file, without its newline; false if absent. */
static bool read_line(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) return false;
    bool ok = fgets(buf, (int)cap, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = 0;
    return ok;
}

/* A limit file's value in bytes: false for "max", unreadable or junk. */
static bool read_limit(const char *path, uint64_t *v)
{
    char buf[64];
    if (!read_line(path, buf, sizeof buf) || !strcmp(buf, "max")) return false;
    char *end;
    unsigned long long x = strtoull(buf, &end, 10);
    if (end == buf || *end) return false;
    /* v1 reports "no limit" as PAGE_COUNTER_MAX pages (0x7ffffffffffff000
     * on x86-64 with 4 KiB pages); nobody limits a group to 4 EiB. */
    if (x >= (1ull << 62)) return false;
    *v = x;
    return true;
}

static void consider(cz_sys_memory *out, const char *file)
{
    uint64_t v;
    if (!read_limit(file, &v)) return;
    if (!out->cgroup || v < out->cgroup) {
        out->cgroup = v;
        if (!out->meminfo || v < out->meminfo) snprintf(out->source, sizeof out->source, "%s", file);
    }
}

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape(char *s)
{
    char *w = s;
    for (char *r = s; *r; r++) {
        if (r[0] == '\\' && r[1] >= '0' && r[1] <= '7' && r[2] >= '0' && r[2] <= '7' && r[3] >= '0' && r[3] <= '7') {
            *w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
            r += 3;
        } else {
            *w++ = *r;
        }
    }
    *w = 0;
}

static bool has_token(const char *list, const char *tok)
{
    size_t tl = strlen(tok);
    for (const char *p = list; p && *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        if (n == tl && !strncmp(p, tok, tl)) return true;
        p = c ? c + 1 : NULL;
    }
    return false;
}

/* The mount of the v2 hierarchy (v2 true) or of the v1 memory controller:
 * its mount point and the part of the hierarchy it shows. */
static bool find_mount(const char *root, bool v2, char *mnt, char *mroot)
{
    char path[PATH_CAP];
    join(path, root, "/proc/self/mountinfo");
    FILE *f = fopen(path, "r");
    if (!f) return false;
    char *line = NULL;
    size_t cap = 0;
    bool found = false;
    while (!found && getline(&line, &cap, f) > 0) {
        char *save = NULL, *fields[12];
        int n = 0;
        for (char *t = strtok_r(line, " \n", &save); t && n < 12; t = strtok_r(NULL, " \n", &save)) fields[n++] = t;
        /* id parent dev root mountpoint options [optional...] - fstype source superopts */
        int dash = -1;
        for (int i = 6; i < n; i++)
            if (!strcmp(fields[i], "-")) {
                dash = i;
                break;
            }
        if (dash < 0 || dash + 3 > n) continue;
        const char *fstype = fields[dash + 1], *sopts = dash + 3 < n ? fields[dash + 3] : "";
        bool match = v2 ? !strcmp(fstype, "cgroup2") : (!strcmp(fstype, "cgroup") && has_token(sopts, "memory"));
        if (!match) continue;
        unescape(fields[3]);
        unescape(fields[4]);
        snprintf(mroot, PATH_CAP, "%s", fields[3]);
        snprintf(mnt, PATH_CAP, "%s", fields[4]);
        found = true;
    }
    free(line);
    fclose(f);
    return found;
}

/* Every limit file of the group at `gpath` and its ancestors up to the
 * mount. */
static void scan_group(cz_sys_memory *out, const char *root, bool v2, const char *gpath)
{
    char mnt[PATH_CAP], mroot[PATH_CAP], top[PATH_CAP], dir[PATH_CAP], file[PATH_CAP + 32];
    if (!find_mount(root, v2, mnt, mroot)) return;
    join(top, root, mnt);
    size_t ml = strlen(mroot);
    while (ml > 0 && mroot[ml - 1] == '/') ml--;
    const char *rel = "";
    if (!strncmp(gpath, mroot, ml) && (gpath[ml] == '/' || gpath[ml] == 0)) rel = gpath + ml;
    /* else: a cgroup namespace; the mount point is the group itself */
    snprintf(dir, sizeof dir, "%s%s", top, rel);
    size_t tl = strlen(top);
    for (;;) {
        size_t dl = strlen(dir);
        while (dl > tl && dir[dl - 1] == '/') dir[--dl] = 0;
        if (v2) {
            snprintf(file, sizeof file, "%s/memory.max", dir);
            consider(out, file);
            snprintf(file, sizeof file, "%s/memory.high", dir);
            consider(out, file);
        } else {
            snprintf(file, sizeof file, "%s/memory.limit_in_bytes", dir);
            consider(out, file);
        }
        if (dl <= tl) break;
        char *slash = strrchr(dir + tl, '/');
        if (!slash) break;
        *slash = 0;
    }
}

cz_status cz_sys_memory_limit(cz_sys_memory *out, const char *root)
{
    if (!out) return CZ_ERR_INVALID_ARG;
    memset(out, 0, sizeof *out);
    if (!root) root = "/";
    char path[PATH_CAP];

    join(path, root, "/proc/meminfo");
    FILE *f = fopen(path, "r");
    if (f) {
        char line[256];
        unsigned long long kb;
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "MemTotal: %llu kB", &kb) == 1) {
                out->meminfo = (uint64_t)kb * 1024u;
                snprintf(out->source, sizeof out->source, "/proc/meminfo");
                break;
            }
        fclose(f);
    }

    join(path, root, "/proc/self/cgroup");
    f = fopen(path, "r");
    if (f) {
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, f) > 0) {
            line[strcspn(line, "\n")] = 0;
            char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
            if (!c2) continue;
            *c1 = 0;
            *c2 = 0;
            const char *ctrl = c1 + 1, *gpath = c2 + 1;
            if (!strcmp(line, "0") && !*ctrl)
                scan_group(out, root, true, gpath);
            else if (has_token(ctrl, "memory"))
                scan_group(out, root, false, gpath);
        }
        free(line);
        fclose(f);
    }

    out->limit = out->meminfo;
    if (out->cgroup && (!out->limit || out->cgroup < out->limit)) out->limit = out->cgroup;
    if (out->limit == out->meminfo && out->meminfo) snprintf(out->source, sizeof out->source, "/proc/meminfo");
    return out->limit ? CZ_OK : CZ_ERR_NOT_FOUND;
}
