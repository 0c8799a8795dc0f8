#include "opts.h"
#include "commands.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static size_t n_opts(const cz_cmd *c)
{
    size_t n = 0;
    while (c->opts && c->opts[n].name) n++;
    return n;
}

/* table row of name (or alias; for "--opt=value", only the first len
 * characters are the name), or -1 */
static int find(const cz_cmd *c, const char *name, size_t len)
{
    for (size_t i = 0; c->opts && c->opts[i].name; i++) {
        const cz_opt *o = &c->opts[i];
        if ((strlen(o->name) == len && !strncmp(o->name, name, len)) ||
            (o->alias && strlen(o->alias) == len && !strncmp(o->alias, name, len)))
            return (int)i;
    }
    return -1;
}

static int row(const cz_args *a, const char *name)
{
    int i = find(a->cmd, name, strlen(name));
    if (i < 0) {
        /* a lookup the table does not declare: the parser would have
         * refused the option, so the command could never see it */
        fprintf(stderr, "%s: internal error: option %s is not declared\n", a->cmd->name, name);
        abort();
    }
    return i;
}

int cz_usage_error(const cz_cmd *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", c->name);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, " (see %s --help)\n", c->name);
    va_end(ap);
    return CZ_EXIT_USAGE;
}

static void range_text(char *buf, size_t n, long long lo, long long hi)
{
    if (hi == LLONG_MAX && lo == 0)
        snprintf(buf, n, "a non-negative integer");
    else if (hi == LLONG_MAX)
        snprintf(buf, n, "an integer >= %lld", lo);
    else
        snprintf(buf, n, "an integer %lld..%lld", lo, hi);
}

int cz_parse_num(const cz_cmd *c, const char *what, const char *s, long long lo, long long hi, long long *out)
{
    const char *p = s;
    bool neg = false;
    if (*p == '-' && lo < 0) {
        neg = true;
        p++;
    }
    /* decimal digits only, "0" or no leading zero; accumulate as a
     * negative number so LLONG_MIN fits, refusing overflow */
    bool ok = *p >= '0' && *p <= '9' && !(p[0] == '0' && p[1]);
    long long v = 0;
    for (; ok && *p; p++) {
        if (*p < '0' || *p > '9') {
            ok = false;
            break;
        }
        int d = *p - '0';
        if (v < (LLONG_MIN + d) / 10) {
            ok = false;
            break;
        }
        v = v * 10 - d;
    }
    if (ok && !neg) {
        if (v == LLONG_MIN) ok = false;
        else v = -v;
    }
    if (!ok || v < lo || v > hi) {
        char r[96];
        range_text(r, sizeof r, lo, hi);
        fprintf(stderr, "%s: %s: expected %s, got '%s'\n", c->name, what, r, s);
        return CZ_EXIT_USAGE;
    }
    *out = v;
    return 0;
}

int cz_opts_parse(cz_args *a, const cz_cmd *c, int argc, char **argv)
{
    memset(a, 0, sizeof *a);
    a->cmd = c;
    a->next = argc;
    if (n_opts(c) > CZ_OPTS_MAX) {
        fprintf(stderr, "%s: internal error: more than %d options declared\n", c->name, CZ_OPTS_MAX);
        abort();
    }
    bool only_pos = false;
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        bool is_opt = !only_pos && s[0] == '-' && s[1];
        if (!is_opt) {
            if (c->stop_at_pos) {
                a->next = i;
                return -1;
            }
            if (a->npos >= c->max_pos || a->npos >= CZ_POS_MAX) {
                if (c->max_pos == 0) return cz_usage_error(c, "unexpected argument '%s'", s);
                return cz_usage_error(c, "unexpected argument '%s' (at most %d)", s, c->max_pos);
            }
            a->pos[a->npos++] = s;
            continue;
        }
        if (!strcmp(s, "--")) {
            only_pos = true;
            continue;
        }
        if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
            cz_opts_help(c, stdout);
            return fflush(stdout) == 0 ? CZ_EXIT_OK : CZ_EXIT_FAIL;
        }
        const char *eq = !strncmp(s, "--", 2) ? strchr(s, '=') : NULL;
        size_t len = eq ? (size_t)(eq - s) : strlen(s);
        int k = find(c, s, len);
        if (k < 0) return cz_usage_error(c, "unknown option '%.*s'", (int)len, s);
        const cz_opt *o = &c->opts[k];
        /* two values would leave one silently unused; a repeated flag
         * means the same thing twice */
        if (a->val[k] && o->kind != CZ_OPT_FLAG) return cz_usage_error(c, "%s given twice", o->name);
        const char *v;
        if (o->kind == CZ_OPT_FLAG) {
            if (eq) return cz_usage_error(c, "%s takes no value, got '%s'", o->name, s);
            v = "";
        } else if (eq) {
            v = eq + 1;
        } else {
            /* the next argument is the value, even one starting with '-'
             * (`-o -`, `--threads -5` is then a range error), unless it is
             * one of this command's options: then the value was left out */
            const char *nx = i + 1 < argc ? argv[i + 1] : NULL;
            if (nx && !strncmp(nx, "--", 2) && (find(c, nx, strcspn(nx, "=")) >= 0 || !strcmp(nx, "--help")))
                nx = NULL;
            if (!nx) return cz_usage_error(c, "%s needs a value (%s %s)", o->name, o->name, o->arg ? o->arg : "VALUE");
            v = nx;
            i++;
        }
        if (o->kind == CZ_OPT_NUM && cz_parse_num(c, o->name, v, o->min, o->max, &a->num[k]) != 0)
            return CZ_EXIT_USAGE;
        a->val[k] = v;
    }
    return -1;
}

const char *cz_opt_str(const cz_args *a, const char *name, const char *def)
{
    const char *v = a->val[row(a, name)];
    return v ? v : def;
}

long long cz_opt_num(const cz_args *a, const char *name, long long def)
{
    int k = row(a, name);
    return a->val[k] ? a->num[k] : def;
}

bool cz_opt_flag(const cz_args *a, const char *name) { return a->val[row(a, name)] != NULL; }

bool cz_opt_given(const cz_args *a, const char *name) { return a->val[row(a, name)] != NULL; }

int cz_opts_mode(const cz_args *a, unsigned mode, const char *context)
{
    for (size_t i = 0; a->cmd->opts[i].name; i++) {
        const cz_opt *o = &a->cmd->opts[i];
        if (a->val[i] && o->modes && !(o->modes & mode))
            return cz_usage_error(a->cmd, "%s does not apply %s", o->name, context);
    }
    return 0;
}

void cz_opts_help(const cz_cmd *c, FILE *f)
{
    fprintf(f, "usage: %s %s\n", c->name, c->synopsis ? c->synopsis : "[options]");
    if (n_opts(c)) fprintf(f, "\noptions:\n");
    for (size_t i = 0; c->opts && c->opts[i].name; i++) {
        const cz_opt *o = &c->opts[i];
        char head[96];
        int n = snprintf(head, sizeof head, "%s%s%s%s%s", o->name, o->alias ? ", " : "", o->alias ? o->alias : "",
                         o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(f, "  %-26s%s%s", head, n > 26 ? "\n                            " : "", o->help ? o->help : "");
        if (o->kind == CZ_OPT_NUM) {
            if (o->max == LLONG_MAX) fprintf(f, " [>= %lld]", o->min);
            else fprintf(f, " [%lld..%lld]", o->min, o->max);
        }
        fputc('\n', f);
    }
    fprintf(f, "  %-26s%s\n", "-h, --help", "this text");
    if (c->about) fprintf(f, "\n%s\n", c->about);
}

FILE *cz_out_open(const char *path, bool binary, const char *what, int *rc)
{
    if (!strcmp(path, "-")) {
        if (binary && isatty(STDOUT_FILENO)) {
            fprintf(stderr, "%s -: refusing to write binary data to a terminal (redirect stdout or name a file)\n",
                    what);
            *rc = CZ_EXIT_USAGE;
            return NULL;
        }
        return stdout;
    }
    FILE *f = fopen(path, binary ? "wb" : "w");
    if (!f) {
        fprintf(stderr, "%s %s: cannot create: %s\n", what, path, strerror(errno));
        *rc = CZ_EXIT_IO;
    }
    return f;
}

int cz_out_close(FILE *f, const char *path, const char *what)
{
    bool bad = ferror(f) != 0;
    if (f == stdout) bad |= fflush(f) != 0;
    else bad |= fclose(f) != 0;
    if (bad) {
        fprintf(stderr, "%s %s: write failed: %s\n", what, path, strerror(errno));
        return CZ_EXIT_IO;
    }
    return 0;
}
