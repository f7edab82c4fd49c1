/* opttab.c -- options declared once, parsed through GLib (see opttab.h). */
#include "opttab.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "usage.h"
#include "version.h"

#define OPT_MAX 128 /* options of one command, built-ins included */

/* The command being parsed, and which of its options were given. One
 * command per process parses once, so this is the whole state. */
static const struct tbbt_cmd *cur;
static gboolean given[OPT_MAX];
static GPtrArray *keep; /* --help's texts and the GOptionEntry array: live as long as the process */

/* The entry of cur named "--name" or "-c", or -1. */
static int find(const char *optname) {
    for (int i = 0; cur->opts[i].name; i++) {
        const struct tbbt_opt *o = &cur->opts[i];
        if (optname[0] == '-' && optname[1] == '-' && !strcmp(optname + 2, o->name)) return i;
        if (optname[0] == '-' && o->short_name && optname[1] == o->short_name && !optname[2]) return i;
    }
    return -1;
}

/* The integer bounds of o: its own, or its type's when it has none. */
static void int_bounds(const struct tbbt_opt *o, int64_t *lo, int64_t *hi) {
    if (o->lo || o->hi) {
        *lo = o->lo, *hi = o->hi;
    } else if (o->type == TBBT_OPT_INT) {
        *lo = INT_MIN, *hi = INT_MAX;
    } else {
        *lo = INT64_MIN, *hi = INT64_MAX;
    }
}

/* What o allows, in words ("an integer from 1 to 64", "conservative or
 * fsdep"), into buf; "" when anything goes. */
static void allowed(const struct tbbt_opt *o, char *buf, size_t n) {
    int64_t lo, hi;
    *buf = 0;
    switch (o->type) {
    case TBBT_OPT_INT:
    case TBBT_OPT_INT64:
        int_bounds(o, &lo, &hi);
        g_snprintf(buf, n, "an integer from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT, lo, hi);
        break;
    case TBBT_OPT_DOUBLE:
        if (o->dlo || o->dhi)
            g_snprintf(buf, n, "a number from %.15g to %.15g", o->dlo, o->dhi);
        else
            g_snprintf(buf, n, "a number");
        break;
    case TBBT_OPT_PORTS:
        g_snprintf(buf, n, "a comma-separated list of up to %d ports from 1 to 65535", TBBT_OPT_MAX_PORTS);
        break;
    case TBBT_OPT_STRING:
        if (o->choices) {
            char **v = g_strsplit(o->choices, "|", -1);
            GString *s = g_string_new(NULL);
            for (int i = 0; v[i]; i++)
                g_string_append_printf(s, "%s%s", i == 0 ? "" : v[i + 1] ? ", " : " or ", v[i]);
            g_strlcpy(buf, s->str, n);
            g_string_free(s, TRUE);
            g_strfreev(v);
        }
        break;
    default: break;
    }
}

/* True when v is one of o's choices (or o has none). */
static gboolean is_choice(const struct tbbt_opt *o, const char *v) {
    if (!o->choices) return TRUE;
    char **c = g_strsplit(o->choices, "|", -1);
    gboolean ok = g_strv_contains((const char *const *)c, v);
    g_strfreev(c);
    return ok;
}

/* Parses an integer of o's type and bounds. Returns 0, or -1. */
static int parse_int(const struct tbbt_opt *o, const char *v, int64_t *out) {
    if (!*v || g_ascii_isspace(*v)) return -1;
    char *end;
    errno = 0;
    long long x = strtoll(v, &end, 10);
    int64_t lo, hi;
    int_bounds(o, &lo, &hi);
    if (*end || errno || x < lo || x > hi) return -1;
    *out = x;
    return 0;
}

/* Parses a number of o's bounds. Returns 0, or -1. */
static int parse_double(const struct tbbt_opt *o, const char *v, double *out) {
    if (!*v || g_ascii_isspace(*v)) return -1;
    char *end;
    double x = g_ascii_strtod(v, &end);
    if (*end || !isfinite(x)) return -1;
    if ((o->dlo || o->dhi) && (x < o->dlo || x > o->dhi)) return -1;
    *out = x;
    return 0;
}

/* Stores value v (NULL for a flag) into o's variable. Returns 0, or -1
 * when v is not allowed (the variable is left as it was). */
static int set_value(const struct tbbt_opt *o, const char *v) {
    int64_t i;
    double d;
    switch (o->type) {
    case TBBT_OPT_FLAG: *(gboolean *)o->var = TRUE; return 0;
    case TBBT_OPT_INT:
        if (parse_int(o, v, &i) < 0) return -1;
        *(gint *)o->var = (gint)i;
        return 0;
    case TBBT_OPT_INT64:
        if (parse_int(o, v, &i) < 0) return -1;
        *(gint64 *)o->var = i;
        return 0;
    case TBBT_OPT_DOUBLE:
        if (parse_double(o, v, &d) < 0) return -1;
        *(gdouble *)o->var = d;
        return 0;
    case TBBT_OPT_STRING:
        if (!is_choice(o, v)) return -1;
        /* fall through */
    case TBBT_OPT_FILE:
        g_free(*(char **)o->var);
        *(char **)o->var = g_strdup(v);
        return 0;
    case TBBT_OPT_PORTS: {
        struct tbbt_opt_ports p;
        if (tbbt_opt_parse_ports(v, &p) < 0) return -1;
        *(struct tbbt_opt_ports *)o->var = p;
        return 0;
    }
    case TBBT_OPT_LIST: {
        char ***l = o->var;
        guint n = *l ? g_strv_length(*l) : 0;
        *l = g_renew(char *, *l, n + 2);
        (*l)[n] = g_strdup(v), (*l)[n + 1] = NULL;
        return 0;
    }
    }
    return -1;
}

/* Every option's value goes through here: parsed, checked against the
 * table, stored, marked given; a value not allowed is GLib's error, which
 * tbbt_usage_parse makes the usage error. */
static gboolean on_option(const gchar *name, const gchar *value, gpointer data, GError **error) {
    (void)data;
    int i = find(name);
    if (i < 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_UNKNOWN_OPTION, "unknown option %s", name);
        return FALSE;
    }
    const struct tbbt_opt *o = &cur->opts[i];
    if (set_value(o, value) < 0) {
        char a[200];
        allowed(o, a, sizeof(a));
        /* "--parts (-k) x" when typed short: the name the user typed and the one --help shows */
        char typed[8] = "";
        if (name[1] != '-') g_snprintf(typed, sizeof(typed), " (%s)", name);
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE, "--%s%s %s: must be %s", o->name, typed,
                    value, *a ? a : "a value");
        return FALSE;
    }
    given[i] = TRUE;
    return TRUE;
}

/* --version, --list-options, --help-man: print and exit 0. */
static gboolean on_version(const gchar *n, const gchar *v, gpointer d, GError **e) {
    (void)n, (void)v, (void)d, (void)e;
    tbbt_opt_print_version(cur->tool, stdout);
    exit(fflush(stdout) == 0 ? 0 : 1);
}
static gboolean on_list(const gchar *n, const gchar *v, gpointer d, GError **e) {
    (void)n, (void)v, (void)d, (void)e;
    tbbt_opt_print_list(cur, stdout);
    exit(fflush(stdout) == 0 ? 0 : 1);
}
static gboolean on_man(const gchar *n, const gchar *v, gpointer d, GError **e) {
    (void)n, (void)v, (void)d, (void)e;
    tbbt_opt_print_man(cur, stdout);
    exit(fflush(stdout) == 0 ? 0 : 1);
}

/* The help text of o as --help shows it: its help and its default. */
static char *help_text(const struct tbbt_opt *o) {
    if (o->defhelp) return g_strdup_printf("%s (default: %s)", o->help, o->defhelp);
    if (o->def) return g_strdup_printf("%s (default %s)", o->help, o->def);
    return g_strdup(o->help);
}

/* Checks the table (names, defaults within bounds) and sets the defaults.
 * A bad table is the program's bug: abort. */
static void check_and_default(const struct tbbt_cmd *cmd) {
    int n = 0;
    for (; cmd->opts[n].name; n++) {
        const struct tbbt_opt *o = &cmd->opts[n];
        if (n >= OPT_MAX - 4 || !o->var || !o->help)
            g_error("%s: option table: entry %d incomplete", cmd->tool, n);
        for (int j = 0; j < n; j++)
            if (!strcmp(cmd->opts[j].name, o->name) ||
                (o->short_name && cmd->opts[j].short_name == o->short_name))
                g_error("%s: option table: --%s declared twice", cmd->tool, o->name);
        if (!strcmp(o->name, "version") || !strcmp(o->name, "help") || o->short_name == 'h')
            g_error("%s: option table: --%s is built in", cmd->tool, o->name);
        if (o->def && (o->type == TBBT_OPT_FLAG || o->type == TBBT_OPT_LIST || set_value(o, o->def) < 0))
            g_error("%s: option table: --%s: default %s not allowed", cmd->tool, o->name, o->def);
    }
}

/* The GOptionEntry array for cmd: every option a callback, then the
 * built-ins. */
static GOptionEntry *make_entries(const struct tbbt_cmd *cmd) {
    int n = 0;
    while (cmd->opts[n].name)
        n++;
    GOptionEntry *e = g_new0(GOptionEntry, n + 4);
    g_ptr_array_add(keep, e);
    for (int i = 0; i < n; i++) {
        const struct tbbt_opt *o = &cmd->opts[i];
        char *help = help_text(o);
        g_ptr_array_add(keep, help);
        e[i].long_name = o->name;
        e[i].short_name = o->short_name;
        e[i].flags = (o->flags & TBBT_OPT_HIDDEN ? G_OPTION_FLAG_HIDDEN : 0) |
                     (o->type == TBBT_OPT_FLAG ? G_OPTION_FLAG_NO_ARG : 0) |
                     (o->type == TBBT_OPT_FILE || o->type == TBBT_OPT_LIST ? G_OPTION_FLAG_FILENAME : 0);
        e[i].arg = G_OPTION_ARG_CALLBACK;
        e[i].arg_data = (gpointer)on_option;
        e[i].description = help;
        e[i].arg_description = o->type == TBBT_OPT_FLAG ? NULL : o->arg;
    }
    e[n] = (GOptionEntry){"version",
                          0,
                          G_OPTION_FLAG_NO_ARG,
                          G_OPTION_ARG_CALLBACK,
                          (gpointer)on_version,
                          "Print the version and exit",
                          NULL};
    e[n + 1] = (GOptionEntry){"list-options",
                              0,
                              G_OPTION_FLAG_NO_ARG | G_OPTION_FLAG_HIDDEN,
                              G_OPTION_ARG_CALLBACK,
                              (gpointer)on_list,
                              "List the options, tab-separated",
                              NULL};
    e[n + 2] = (GOptionEntry){"help-man",
                              0,
                              G_OPTION_FLAG_NO_ARG | G_OPTION_FLAG_HIDDEN,
                              G_OPTION_ARG_CALLBACK,
                              (gpointer)on_man,
                              "List the options as a man page's OPTIONS (roff)",
                              NULL};
    return e;
}

/* Contract in opttab.h. */
int tbbt_opt_parse_ports(const char *text, struct tbbt_opt_ports *out) {
    const char *s = text;
    out->n = 0;
    for (;;) {
        long v = 0;
        const char *d = s;
        while (*s >= '0' && *s <= '9' && v <= 65535)
            v = v * 10 + (*s++ - '0');
        if (s == d || v < 1 || v > 65535 || out->n == TBBT_OPT_MAX_PORTS) return -1;
        out->v[out->n++] = (uint16_t)v;
        if (*s == '\0') return 0;
        if (*s++ != ',') return -1;
    }
}

/* The edits from a[0..n) to b[0..m): insertions, deletions, replacements
 * and swaps of two neighbours (optimal string alignment), each costing 1.
 * Option names are short: anything past 63 bytes counts as far. */
static int edit_distance(const char *a, size_t n, const char *b, size_t m) {
    int d[64][64];
    if (n > 63 || m > 63) return 99;
    for (size_t i = 0; i <= n; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int best = MIN(d[i - 1][j] + 1, d[i][j - 1] + 1);
            best = MIN(best, d[i - 1][j - 1] + (a[i - 1] != b[j - 1]));
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                best = MIN(best, d[i - 2][j - 2] + 1);
            d[i][j] = best;
        }
    return d[n][m];
}

/* Contract in opttab.h. */
const char *tbbt_opt_suggest(const struct tbbt_opt *opts, const char *typed) {
    size_t n = strcspn(typed, "=");
    const char *best = NULL;
    int best_d = 0;
    for (int i = 0; opts[i].name; i++) {
        const char *name = opts[i].name;
        if (opts[i].flags & TBBT_OPT_HIDDEN) continue;
        int d = edit_distance(typed, n, name, strlen(name));
        int close = d <= 2 || (n >= 3 && strncmp(typed, name, 3) == 0);
        if (close && (!best || d < best_d)) best = name, best_d = d;
    }
    return best;
}

/* True when the long option name (without "--", up to any '=') is cmd's or
 * a built-in one; *takes_value says whether it takes a value. */
static gboolean known_long(const struct tbbt_cmd *cmd, const char *name, gboolean *takes_value) {
    static const char *const builtin[] = {"help", "help-all", "version", "list-options", "help-man"};
    size_t n = strcspn(name, "=");
    *takes_value = FALSE;
    for (size_t i = 0; i < G_N_ELEMENTS(builtin); i++)
        if (strlen(builtin[i]) == n && !strncmp(builtin[i], name, n)) return TRUE;
    for (int i = 0; cmd->opts[i].name; i++)
        if (strlen(cmd->opts[i].name) == n && !strncmp(cmd->opts[i].name, name, n)) {
            *takes_value = cmd->opts[i].type != TBBT_OPT_FLAG;
            return TRUE;
        }
    return FALSE;
}

/* The first unknown long option of argv (before "--") that is close to one
 * of the table's: a usage error with the suggestion. Others are left to
 * GLib, whose words the commands share (tests/install/opts.t). */
static void suggest_unknown(const struct tbbt_cmd *cmd, int argc, char **argv) {
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        gboolean takes_value;
        if (!strcmp(arg, "--")) return;
        if (strncmp(arg, "--", 2) != 0) {
            if (arg[0] == '-' && arg[1] && arg[2] == 0) { /* "-c VALUE" */
                for (int i = 0; cmd->opts[i].name; i++)
                    if (cmd->opts[i].short_name == arg[1] && cmd->opts[i].type != TBBT_OPT_FLAG) a++;
            }
            continue;
        }
        if (known_long(cmd, arg + 2, &takes_value)) {
            if (takes_value && !strchr(arg, '=')) a++; /* its value, whatever it looks like */
            continue;
        }
        const char *hint = tbbt_opt_suggest(cmd->opts, arg + 2);
        if (hint)
            tbbt_usage_error(cmd->tool, cmd->synopsis, "Unknown option --%.*s (did you mean --%s?)",
                             (int)strcspn(arg + 2, "="), arg + 2, hint);
        return;
    }
}

/* Contract in opttab.h. */
void tbbt_opt_parse(const struct tbbt_cmd *cmd, int *argc, char ***argv) {
    cur = cmd;
    memset(given, 0, sizeof(given));
    if (!keep) keep = g_ptr_array_new();
    check_and_default(cmd);
    suggest_unknown(cmd, *argc, *argv);
    GOptionContext *ctx = g_option_context_new(cmd->params);
    g_option_context_add_main_entries(ctx, make_entries(cmd), NULL);
    if (cmd->description) g_option_context_set_description(ctx, cmd->description);
    tbbt_usage_parse(ctx, cmd->tool, cmd->synopsis, argc, argv);
}

/* Contract in opttab.h. */
gboolean tbbt_opt_given(const struct tbbt_cmd *cmd, const void *var) {
    if (!cur || cmd->opts != cur->opts) return FALSE; /* the same table, if not the same struct */
    for (int i = 0; cmd->opts[i].name; i++)
        if (cmd->opts[i].var == var) return given[i];
    return FALSE;
}

/* Contract in opttab.h. */
void tbbt_opt_usage(const struct tbbt_cmd *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    tbbt_usage_error(cmd->tool, cmd->synopsis, "%s", msg); /* exits; msg goes with the process */
}

/* Contract in opttab.h. */
void tbbt_opt_print_version(const char *tool, FILE *out) {
    fprintf(out, "%s (tbbt) %s\n", tool, TBBT_VERSION);
}

/* Contract in opttab.h: "--name TAB -c TAB ARG TAB DEFAULT TAB ALLOWED TAB
 * HELP" per listed option, then --help and --version. */
void tbbt_opt_print_list(const struct tbbt_cmd *cmd, FILE *out) {
    for (int i = 0; cmd->opts[i].name; i++) {
        const struct tbbt_opt *o = &cmd->opts[i];
        if (o->flags & TBBT_OPT_HIDDEN) continue;
        char a[200], s[3] = {0};
        allowed(o, a, sizeof(a));
        if (o->short_name) s[0] = '-', s[1] = o->short_name;
        fprintf(out, "--%s\t%s\t%s\t%s\t%s\t%s\n", o->name, s,
                o->type == TBBT_OPT_FLAG ? ""
                : o->arg                 ? o->arg
                                         : "",
                o->defhelp ? o->defhelp
                : o->def   ? o->def
                           : "",
                a, o->help);
    }
    fprintf(out, "--help\t-h\t\t\t\tShow the options and exit\n");
    fprintf(out, "--version\t\t\t\t\tPrint the version and exit\n");
}

/* s for roff: backslashes and dashes escaped, a leading dot or quote
 * guarded. */
static void roff(FILE *out, const char *s) {
    if (*s == '.' || *s == '\'') fputs("\\&", out);
    for (; *s; s++) {
        if (*s == '\\')
            fputs("\\e", out);
        else if (*s == '-')
            fputs("\\-", out);
        else
            fputc(*s, out);
    }
}

/* Contract in opttab.h: ".TP", the option's forms, its help, default and
 * allowed values. */
void tbbt_opt_print_man(const struct tbbt_cmd *cmd, FILE *out) {
    for (int i = 0; cmd->opts[i].name; i++) {
        const struct tbbt_opt *o = &cmd->opts[i];
        if (o->flags & TBBT_OPT_HIDDEN) continue;
        char a[200];
        allowed(o, a, sizeof(a));
        fputs(".TP\n", out);
        if (o->short_name) fprintf(out, "\\fB\\-%c\\fR, ", o->short_name);
        fputs("\\fB\\-\\-", out);
        roff(out, o->name);
        fputs("\\fR", out);
        if (o->type != TBBT_OPT_FLAG && o->arg) {
            fputs(" \\fI", out);
            roff(out, o->arg);
            fputs("\\fR", out);
        }
        fputc('\n', out);
        roff(out, o->help);
        const char *d = o->defhelp ? o->defhelp : o->def;
        if (d || *a) {
            fputs(" (", out);
            if (d) fputs("default: ", out), roff(out, d);
            if (d && *a) fputs("; ", out);
            if (*a) roff(out, a);
            fputc(')', out);
        }
        fputs(".\n", out);
    }
    fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nShow the options and exit.\n", out);
    fputs(".TP\n\\fB\\-\\-version\\fR\nPrint the version and exit.\n", out);
}
