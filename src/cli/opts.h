/*
 * The option parser every `cuzk` command shares. A command declares its
 * options in a table (name, type, range, help); the parser checks the
 * command line against it before anything runs, so a misspelled option,
 * a missing value or a number out of range is an error naming the option
 * instead of being ignored, and `--help` is generated from the same table.
 *
 * Accepted syntax:
 *   --opt value | --opt=value   string and number options (the value of
 *                               `--opt value` may start with '-': `-o -`)
 *   --flag                      flags (`--flag=x` is an error)
 *   -h | --help                 the command's usage on stdout, exit 0
 *   --                          everything after it is positional
 *   -                           a positional (stdin/stdout by convention)
 * An option that takes a value may be given once (a flag may repeat).
 * Numbers are decimal integers: an optional
 * '-' only where the range allows negatives, no leading zeros (except
 * "0"), no other characters, within the declared range.
 */
#ifndef CZ_CLI_OPTS_H
#define CZ_CLI_OPTS_H

#include <stdbool.h>
#include <stdio.h>

typedef enum { CZ_OPT_STR = 1, CZ_OPT_NUM, CZ_OPT_FLAG } cz_opt_kind;

typedef struct {
    const char *name;    /* "--threads" or "-o" */
    cz_opt_kind kind;
    const char *arg;     /* the value's placeholder in the help ("N", "FILE"); NULL for flags */
    long long min, max;  /* CZ_OPT_NUM: accepted range (inclusive) */
    const char *help;
    const char *alias;   /* another spelling of the same option ("--out" for "-o"), or NULL */
    unsigned modes;      /* the command's modes it applies to (bit set, see cz_opts_mode); 0 = all */
} cz_opt;

/* Table entries; a table ends with {0}. */
#define CZ_STR(n, a, h) {.name = (n), .kind = CZ_OPT_STR, .arg = (a), .help = (h)}
#define CZ_NUM(n, a, lo, hi, h) {.name = (n), .kind = CZ_OPT_NUM, .arg = (a), .min = (lo), .max = (hi), .help = (h)}
#define CZ_FLAG(n, h) {.name = (n), .kind = CZ_OPT_FLAG, .help = (h)}

typedef struct {
    const char *name;     /* "cuzk prove": the prefix of every message */
    const char *synopsis; /* the usage line(s) after "usage: <name> " */
    const char *about;    /* text printed after the option list, or NULL */
    const cz_opt *opts;   /* terminated by {0} */
    int max_pos;          /* positional arguments accepted */
    bool stop_at_pos;     /* stop at the first positional (it names a subcommand) */
} cz_cmd;

#define CZ_OPTS_MAX 48
#define CZ_POS_MAX 4

typedef struct {
    const cz_cmd *cmd;
    const char *val[CZ_OPTS_MAX]; /* per table row: the value (flags: ""), NULL if not given */
    long long num[CZ_OPTS_MAX];
    const char *pos[CZ_POS_MAX];
    int npos;
    int next; /* stop_at_pos: argv index of the first positional (argc if none) */
} cz_args;

/* Parses argv[1..argc) (argv[0] is the command's own name) against c.
 * Returns -1 when the command should run; otherwise the exit status to
 * return at once: 0 after printing the help on stdout, CZ_EXIT_USAGE after
 * printing an error naming the argument on stderr. */
int cz_opts_parse(cz_args *a, const cz_cmd *c, int argc, char **argv);

/* Lookups by the option's name (or alias); a name that is not in the
 * command's table is a bug and aborts. */
const char *cz_opt_str(const cz_args *a, const char *name, const char *def);
long long cz_opt_num(const cz_args *a, const char *name, long long def);
bool cz_opt_flag(const cz_args *a, const char *name);
bool cz_opt_given(const cz_args *a, const char *name);

/* Refuses (CZ_EXIT_USAGE, after a message) any option given whose modes
 * exclude `mode`; `context` says which mode was chosen ("with --zkey").
 * Returns 0 when every option given applies. */
int cz_opts_mode(const cz_args *a, unsigned mode, const char *context);

/* "<name>: <message> (see <name> --help)" on stderr; returns CZ_EXIT_USAGE. */
int cz_usage_error(const cz_cmd *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The strict number syntax above for a value that is not an option's (a
 * positional job id). what names it in the error. 0, or CZ_EXIT_USAGE
 * after a message. */
int cz_parse_num(const cz_cmd *c, const char *what, const char *s, long long lo, long long hi, long long *out);

/* The usage generated from the table. */
void cz_opts_help(const cz_cmd *c, FILE *f);

/* An output path of "-" means stdout; binary data is refused when stdout is
 * a terminal. Returns the stream to write (stdout, or the opened file), or
 * NULL after a message (what: "cuzk prove: -o"). Close with cz_out_close,
 * which reports a failed write or close. */
FILE *cz_out_open(const char *path, bool binary, const char *what, int *rc);
int cz_out_close(FILE *f, const char *path, const char *what);

#endif
