/* opttab.h -- a command's options, declared once, in a table.
 *
 * Each C command describes its options in one array of struct tbbt_opt
 * (fio's options table is the model: name, type, where the value goes,
 * default, bounds, allowed values, help). Everything else comes from it:
 *   - the defaults, set into the variables before parsing (so a default
 *     is written in the table and nowhere else);
 *   - parsing, through GLib's GOptionContext (every option a callback
 *     that parses and checks the value itself);
 *   - range errors: "--window 0: must be an integer from 1 to 268435456",
 *     naming the option, the value and what is allowed, as a usage error
 *     (lib/usage.h: exit 2);
 *   - --help (GLib's, the help text plus "(default X)");
 *   - --version (every command: "TOOL (tbbt) VERSION", lib/version.h);
 *   - --list-options, hidden: one tab-separated line per option that the
 *     command accepts (long name, short name, value name, default, allowed
 *     values, help) for the man pages' test;
 *   - --help-man, hidden: the same as a man page's OPTIONS list (roff);
 *   - an unknown long option close to one of the table's (a typo, a
 *     shortened name) is a usage error that names it: "Unknown option
 *     --grow (did you mean --gro?)"; GLib's words otherwise.
 * The table is checked when parsing starts (a default outside its bounds,
 * a name used twice): a programming error, so it aborts. */
#ifndef TBBT_OPTTAB_H
#define TBBT_OPTTAB_H

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

enum tbbt_opt_type {
    TBBT_OPT_FLAG,   /* gboolean; no value */
    TBBT_OPT_INT,    /* gint, in lo..hi */
    TBBT_OPT_INT64,  /* gint64, in lo..hi */
    TBBT_OPT_DOUBLE, /* gdouble, in dlo..dhi */
    TBBT_OPT_STRING, /* char * (g_strdup'd); one of choices when given */
    TBBT_OPT_FILE,   /* char *, a file name: the bytes as given */
    TBBT_OPT_LIST,   /* char **, NULL-terminated: the option is repeatable */
    TBBT_OPT_PORTS,  /* struct tbbt_opt_ports: "P1,P2,...", each in 1..65535 */
};

/* A list of TCP/UDP ports (TBBT_OPT_PORTS): n of them in v, in the order
 * given, at most TBBT_OPT_MAX_PORTS. */
#define TBBT_OPT_MAX_PORTS 16
struct tbbt_opt_ports {
    int n;
    uint16_t v[TBBT_OPT_MAX_PORTS];
};

#define TBBT_OPT_HIDDEN 1u /* accepted, not listed (--help, --list-options) */

struct tbbt_opt {
    const char *name; /* long name, without "--"; NULL ends the table */
    char short_name;  /* 0: none */
    enum tbbt_opt_type type;
    void *var;           /* where the value goes (the type above) */
    const char *arg;     /* the value's name in --help ("N", "FILE") */
    const char *def;     /* the default as it would be typed, set into var before
                          * parsing; NULL: none (var keeps its zero) */
    int64_t lo, hi;      /* INT, INT64: allowed range (both 0: the type's) */
    double dlo, dhi;     /* DOUBLE: allowed range (both 0: any finite number) */
    const char *choices; /* STRING: the allowed values, "a|b|c" (NULL: any) */
    const char *help;
    const char *defhelp; /* --help's default when def does not say it ("one
                          * per traced client"); NULL: def */
    unsigned flags;      /* TBBT_OPT_HIDDEN */
};

/* The entry that ends a table. Designated, so that no compiler counts
 * the fields it leaves zero as forgotten (clang's
 * -Wmissing-field-initializers does for a plain {NULL}). */
#define TBBT_OPT_END                                                                                         \
    { .name = NULL }

/* A command: its name, the forms of its command line (for usage errors,
 * lib/usage.h), GLib's parameter string ("TRACE.tbbt - replay a trace"),
 * the text after the options in --help, and its option table. */
struct tbbt_cmd {
    const char *tool, *synopsis, *params, *description;
    const struct tbbt_opt *opts;
};

/* Sets every option's default, parses the command line (removing the
 * options from argv), and returns with argv holding the program and its
 * operands. Returns only on success: a bad option or value is a usage
 * error (exit 2); --help, --version, --list-options and --help-man print
 * and exit 0. Call once per process. */
void tbbt_opt_parse(const struct tbbt_cmd *cmd, int *argc, char ***argv);

/* True when the option whose variable is var was on the command line
 * (after tbbt_opt_parse): a default that was not asked for can then be
 * taken from elsewhere (the workspace, another option). */
gboolean tbbt_opt_given(const struct tbbt_cmd *cmd, const void *var);

/* A usage error of cmd (lib/usage.h): "TOOL: message", the synopsis,
 * exit 2. For checks a single option's bounds cannot make (two options
 * together, an operand). */
G_GNUC_NORETURN G_GNUC_PRINTF(2, 3) void tbbt_opt_usage(const struct tbbt_cmd *cmd, const char *fmt, ...);

/* Parses "P1,P2,..." (decimal, each in 1..65535, 1 to TBBT_OPT_MAX_PORTS
 * of them, no spaces) into *out. Returns 0, or -1 (out then unspecified). */
int tbbt_opt_parse_ports(const char *text, struct tbbt_opt_ports *out);

/* The name (without "--") of the visible option of the table opts that
 * the long option name typed (without "--", up to any '=') most likely
 * meant: the one fewest edits away (insert, delete, replace or swap two
 * neighbours), when that is at most 2 edits or typed and it share their
 * first 3 characters; NULL when none is that close. */
const char *tbbt_opt_suggest(const struct tbbt_opt *opts, const char *typed);

/* Prints "TOOL (tbbt) VERSION\n" on out: what --version prints. */
void tbbt_opt_print_version(const char *tool, FILE *out);

/* What --list-options and --help-man print (see the top comment). */
void tbbt_opt_print_list(const struct tbbt_cmd *cmd, FILE *out);
void tbbt_opt_print_man(const struct tbbt_cmd *cmd, FILE *out);

#endif
