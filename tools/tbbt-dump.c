/* tbbt-dump -- prints a record file as the canonical text form (default)
 * or JSON lines, and turns the text form back into a record file.
 *
 *   tbbt-dump [--jsonl] [-o OUT] FILE.tbbt      records -> text / JSON lines
 *   tbbt-dump --meta FILE.tbbt                  the file's metadata string
 *   tbbt-dump --text-in -o OUT.tbbt FILE|-      text form -> records
 *
 * Exit codes: 0 done, 1 failed (one line naming the file and line or
 * offset), 2 bad usage. */
#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "recfile.h"
#include "rectext.h"
#include "interrupt.h"
#include "opttab.h"
#include "usage.h"

#define TOOL "tbbt-dump"
/* The forms of the command line, for usage errors (lib/usage.h); --help has the options. */
#define SYNOPSIS                                                                                             \
    "tbbt-dump [--jsonl] [-o OUT] FILE.tbbt\n"                                                               \
    "tbbt-dump --meta FILE.tbbt\n"                                                                           \
    "tbbt-dump --text-in -o OUT.tbbt [--set-meta JSON] FILE|-"

#define FLUSH_AT (64 * 1024)

/* Command-line options, declared once in the table below. */
struct opts {
    gboolean jsonl, text_in, meta;
    gchar *out, *set_meta;
};

static struct opts o;

/* The options, declared once (lib/opttab.h). */
static const struct tbbt_opt dump_opts[] = {
    {"jsonl", 'j', TBBT_OPT_FLAG, &o.jsonl, .help = "Print JSON lines instead of the text form"},
    {"text-in", 't', TBBT_OPT_FLAG, &o.text_in,
     .help = "Read the text form (FILE or -) and write a record file to -o"},
    {"output", 'o', TBBT_OPT_FILE, &o.out, "OUT", .defhelp = "standard output",
     .help = "Write to OUT (required with --text-in)"},
    {"meta", 'm', TBBT_OPT_FLAG, &o.meta, .help = "Print the file's metadata (JSON text) and exit"},
    {"set-meta", 0, TBBT_OPT_STRING, &o.set_meta, "JSON", .defhelp = "names the input",
     .help = "With --text-in: metadata to store"},
    TBBT_OPT_END};

static const struct tbbt_cmd dump_cmd = {
    TOOL, SYNOPSIS, "FILE - print a record file as text or JSON lines, or turn the text form back into one",
    "Exit: 0 done, 1 failed (one line naming the file and line or offset), 2 usage.", dump_opts};

/* Writes buf to f and empties it. Returns 0 or -1 (message printed). */
static int flush_out(GString *buf, FILE *f, const char *name) {
    if (buf->len && fwrite(buf->str, 1, buf->len, f) != buf->len) {
        fprintf(stderr, "tbbt-dump: %s: write failed: %s\n", name, g_strerror(errno));
        return -1;
    }
    g_string_truncate(buf, 0);
    return 0;
}

/* Prints every record of path as text or JSON. Returns the exit code. */
static int dump(const char *path) {
    char err[600];
    struct tbbt_recreader *rd = tbbt_recr_open(path, err, sizeof(err));
    if (!rd) {
        fprintf(stderr, "tbbt-dump: %s\n", err);
        return 1;
    }
    if (o.meta) {
        printf("%s\n", tbbt_recr_meta(rd));
        tbbt_recr_close(rd);
        return 0;
    }
    /* a file is written under a temporary name and renamed when whole */
    struct tbbt_outf *of = tbbt_outf_open(o.out ? o.out : "-", err, sizeof(err));
    if (!of) {
        fprintf(stderr, "tbbt-dump: %s\n", err);
        tbbt_recr_close(rd);
        return 1;
    }
    FILE *f = of->f;
    const char *oname = o.out ? o.out : "stdout";
    struct tbbt_rec r;
    GString *buf = g_string_sized_new(FLUSH_AT + 4096);
    int rc = 0, got;
    uint64_t n = 0;
    tbbt_rec_init(&r);
    while ((got = tbbt_recr_next(rd, &r)) == 1 && rc == 0) {
        n++;
        if (o.jsonl) {
            tbbt_rec_format_json(&r, buf);
        } else if (tbbt_rec_format_text(&r, buf) < 0) {
            fprintf(stderr, "tbbt-dump: %s: record %" G_GUINT64_FORMAT ": cannot be written as text\n", path,
                    n);
            rc = 1;
        }
        g_string_append_c(buf, '\n');
        if (buf->len >= FLUSH_AT && flush_out(buf, f, oname) < 0) rc = 1;
    }
    if (got < 0) {
        fprintf(stderr, "tbbt-dump: %s\n", tbbt_recr_error(rd));
        rc = 1;
    }
    if (flush_out(buf, f, oname) < 0) rc = 1;
    if (tbbt_outf_close(of, rc == 0, err, sizeof(err)) < 0 && rc == 0) {
        fprintf(stderr, "tbbt-dump: %s\n", err);
        rc = 1;
    }
    g_string_free(buf, TRUE);
    tbbt_rec_free(&r);
    tbbt_recr_close(rd);
    return rc;
}

/* Returns the default metadata for a file converted from text (caller
 * frees): {"tool":"tbbt-dump --text-in","source":PATH}. */
static char *default_meta(const char *path) {
    GString *m = g_string_new("{\"tool\":\"tbbt-dump --text-in\",\"source\":\"");
    for (const char *p = path; *p; p++) {
        if (*p == '"' || *p == '\\') g_string_append_c(m, '\\');
        if ((unsigned char)*p < 0x20)
            g_string_append_printf(m, "\\u%04x", *p);
        else
            g_string_append_c(m, *p);
    }
    g_string_append(m, "\"}");
    return g_string_free(m, FALSE);
}

/* Reads text lines from path ("-" = stdin) and writes them as a record
 * file to o.out. Blank lines and lines starting with '#' are skipped.
 * Returns the exit code. */
static int undump(const char *path) {
    char err[600], msg[400];
    int is_stdin = strcmp(path, "-") == 0;
    const char *name = is_stdin ? "stdin" : path;
    FILE *in = is_stdin ? stdin : fopen(path, "r");
    if (!in) {
        fprintf(stderr, "tbbt-dump: %s: cannot open: %s\n", path, g_strerror(errno));
        return 1;
    }
    char *meta = o.set_meta ? g_strdup(o.set_meta) : default_meta(name);
    struct tbbt_recwriter *w = tbbt_recw_open(o.out, meta, err, sizeof(err));
    g_free(meta);
    if (!w) {
        fprintf(stderr, "tbbt-dump: %s\n", err);
        if (!is_stdin) fclose(in);
        return 1;
    }
    struct tbbt_rec r;
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    uint64_t lineno = 0;
    int rc = 0, put_failed = 0;
    tbbt_rec_init(&r);
    while (rc == 0 && (len = getline(&line, &cap, in)) >= 0) {
        lineno++;
        if (len == 0 || line[0] == '#' || line[0] == '\n') continue;
        if (tbbt_rec_parse_text(&r, line, (size_t)len, msg, sizeof(msg)) < 0) {
            fprintf(stderr, "tbbt-dump: %s:%" G_GUINT64_FORMAT ": %s\n", name, lineno, msg);
            rc = 1;
        } else if (tbbt_recw_put(w, &r) < 0) {
            rc = 1;
            put_failed = 1;
        }
    }
    if (ferror(in)) {
        fprintf(stderr, "tbbt-dump: %s: read error: %s\n", name, g_strerror(errno));
        rc = 1;
    }
    if (rc == 0 || put_failed) {
        /* close writes the file, or reports the writer's error and removes it */
        if (tbbt_recw_close(w, err, sizeof(err)) < 0) {
            fprintf(stderr, "tbbt-dump: %s: line %" G_GUINT64_FORMAT ": %s\n", name, lineno, err);
            rc = 1;
        }
    } else {
        tbbt_recw_abort(w);
    }
    free(line);
    tbbt_rec_free(&r);
    if (!is_stdin) fclose(in);
    return rc;
}

/* Parses the command line into o; exits 2 on bad usage (lib/usage.h). */
static void parse_args(int *argc, char ***argv) {
    tbbt_opt_parse(&dump_cmd, argc, argv);
    if (*argc < 2) tbbt_usage_error(TOOL, SYNOPSIS, "no FILE given");
    if (*argc > 2) tbbt_usage_error(TOOL, SYNOPSIS, "one FILE only, got %d operands", *argc - 1);
    if (o.text_in && (!o.out || o.jsonl || o.meta))
        tbbt_usage_error(TOOL, SYNOPSIS, "--text-in needs -o OUT and excludes --jsonl and --meta");
    if (o.set_meta && !o.text_in) tbbt_usage_error(TOOL, SYNOPSIS, "--set-meta only applies with --text-in");
}

/* Parses the options and runs the chosen conversion; returns the exit code. */
int main(int argc, char **argv) {
    tbbt_interrupt_on_signal("tbbt-dump"); /* SIGINT, SIGTERM: temporaries removed, exit 3 */
    parse_args(&argc, &argv);
    int rc = o.text_in ? undump(argv[1]) : dump(argv[1]);
    g_free(o.out);
    g_free(o.set_meta);
    return rc;
}
