/* tbbt-check.c -- pre-play a record file against the file-system model and
 * report its replay failures (pass 2's check, on any .tbbt).
 *
 *   tbbt-check [--json FILE] FILE.tbbt
 *       Exit 0 when the pre-play finds no replay failure, 1 when it finds
 *       some or cannot read the file, 2 bad usage.
 *   tbbt-check --write OUT.tbbt [--seed N] [--window N] [--window-time SEC] FILE.tbbt
 *       Also runs the corrections and writes the corrected records to
 *       OUT.tbbt; exit 0 when the file was written and every failure was
 *       corrected (none unexplained), 1 otherwise.
 *   tbbt-check --write OUT.tbbt --copy FILE.tbbt
 *       Reads and writes the records with no pass in between (the floor
 *       bench/correct.sh measures pass 2 against). */
#include <glib.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "outfile.h"
#include "pass2.h"
#include "recfile.h"
#include "interrupt.h"
#include "memlimit.h"
#include "opttab.h"
#include "usage.h"

#define TOOL "tbbt-check"
/* The forms of the command line, for usage errors (lib/usage.h); --help has the options. */
#define SYNOPSIS                                                                                             \
    "tbbt-check [--json FILE] [--write OUT.tbbt] [OPTION...] FILE.tbbt\n"                                    \
    "tbbt-check --write OUT.tbbt --copy FILE.tbbt"

static char *opt_json, *opt_write, *opt_max_memory;
static gint64 opt_seed;
static gint opt_window;
static gdouble opt_window_time;
static gboolean opt_quiet, opt_all, opt_copy;

/* The options, declared once (lib/opttab.h). */
static const struct tbbt_opt check_opts[] = {
    {"json", 0, TBBT_OPT_FILE, &opt_json, "FILE", .help = "Also write the report as JSON to FILE"},
    {"write", 'w', TBBT_OPT_FILE, &opt_write, "FILE", .help = "Write the corrected records to FILE"},
    {"seed", 0, TBBT_OPT_INT64, &opt_seed, "N", "1", 0, INT64_MAX,
     .help = "Seed of the inserted records' times"},
    {"window", 0, TBBT_OPT_INT, &opt_window, "N", NULL, 0, INT_MAX, .defhelp = "pass 2's",
     .help = "Records held back for placing insertions"},
    {"window-time", 0, TBBT_OPT_DOUBLE, &opt_window_time, "SEC", "5", .dlo = 0, .dhi = 3600,
     .help = "Trace time held back as well: more records at a busy call rate, up to 65536 (0: records "
             "only)"},
    {"copy", 0, TBBT_OPT_FLAG, &opt_copy,
     .help = "With --write: copy the records without the pre-play (the benchmark's floor)"},
    {"list-all", 0, TBBT_OPT_FLAG, &opt_all, .help = "List corrected failures too, with their rule"},
    TBBT_MEMLIMIT_OPTION(opt_max_memory, "pass 2's model and window"),
    {"quiet", 'q', TBBT_OPT_FLAG, &opt_quiet, .help = "Print only the summary line and errors"},
    TBBT_OPT_END};

static const struct tbbt_cmd check_cmd = {
    TOOL, SYNOPSIS, "FILE.tbbt - pre-play records and report replay failures",
    "Exit: 0 no replay failure (with --write: all corrected), 1 failures or error, 2 usage.", check_opts};

/* Sink into the record writer. */
static int write_sink(void *ctx, const struct tbbt_rec *r) {
    return tbbt_recw_put(ctx, r);
}

/* --copy: every record of rd straight to w. Returns 0, or -1 with a
 * message printed. */
static int copy(struct tbbt_recreader *rd, struct tbbt_recwriter *w, const char *out) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    int rc;
    uint64_t n = 0;
    while ((rc = tbbt_recr_next(rd, &r)) == 1) {
        if (tbbt_recw_put(w, &r) != 0) break;
        n++;
    }
    tbbt_rec_free(&r);
    if (rc < 0) fprintf(stderr, "tbbt-check: %s\n", tbbt_recr_error(rd));
    if (rc == 1) fprintf(stderr, "tbbt-check: %s\n", tbbt_recw_error(w));
    if (rc != 0) {
        tbbt_recw_abort(w);
        return -1;
    }
    char err[512];
    if (tbbt_recw_close(w, err, sizeof(err)) != 0) {
        fprintf(stderr, "tbbt-check: %s\n", err);
        return -1;
    }
    printf("%s: %" G_GUINT64_FORMAT " records copied\n", out, n);
    return 0;
}

/* Writes the JSON report to path. Returns 0, or -1 with a message. */
static int write_json(const struct tbbt_pass2 *p, const char *path) {
    GString *s = g_string_new(NULL);
    tbbt_pass2_report_json(p, s);
    g_string_append_c(s, '\n');
    return tbbt_out_put("tbbt-check", path, s);
}

/* Feeds every record of rd to the pass. Returns 0, or -1 with a message
 * printed. */
static int run(struct tbbt_recreader *rd, struct tbbt_pass2 *p, const char *path) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    int rc, ok = 0;
    while ((rc = tbbt_recr_next(rd, &r)) == 1) {
        if (tbbt_pass2_put(p, &r) != 0) {
            ok = -1;
            break;
        }
    }
    if (rc < 0) {
        fprintf(stderr, "tbbt-check: %s\n", tbbt_recr_error(rd));
        ok = -1;
    }
    if (tbbt_pass2_finish(p) != 0) ok = -1;
    if (ok && rc >= 0) fprintf(stderr, "tbbt-check: %s: cannot write the corrected records\n", path);
    tbbt_rec_free(&r);
    return ok;
}

/* Parses the options, runs the pre-play (or the copy) and reports; exit codes above. */
int main(int argc, char **argv) {
    tbbt_interrupt_on_signal("tbbt-check"); /* SIGINT, SIGTERM: temporaries removed, exit 3 */
    tbbt_opt_parse(&check_cmd, &argc, &argv);
    if (argc < 2) tbbt_usage_error(TOOL, SYNOPSIS, "no record file given");
    if (argc > 2) tbbt_usage_error(TOOL, SYNOPSIS, "one record file only, got %d operands", argc - 1);
    if (opt_copy && !opt_write) tbbt_usage_error(TOOL, SYNOPSIS, "--copy needs --write");
    if (tbbt_memlimit_option(TOOL, opt_max_memory) != 0)
        tbbt_usage_error(TOOL, SYNOPSIS, "--max-memory %s: must be " TBBT_MEMLIMIT_ALLOWED, opt_max_memory);
    char err[512];
    struct tbbt_recreader *rd = tbbt_recr_open(argv[1], err, sizeof(err));
    if (!rd) {
        fprintf(stderr, "tbbt-check: %s\n", err);
        return 1;
    }
    struct tbbt_recwriter *w = NULL;
    if (opt_write && !(w = tbbt_recw_open(opt_write, tbbt_recr_meta(rd), err, sizeof(err)))) {
        fprintf(stderr, "tbbt-check: %s\n", err);
        tbbt_recr_close(rd);
        return 1;
    }
    if (opt_copy) { /* w is open: --copy without --write is a usage error */
        int crc = copy(rd, w, opt_write);
        tbbt_recr_close(rd);
        return crc ? 1 : 0;
    }
    struct tbbt_pass2_opts o;
    tbbt_pass2_opts_default(&o);
    o.seed = (uint64_t)opt_seed;
    if (tbbt_opt_given(&check_cmd, &opt_window)) o.window = (uint32_t)opt_window;
    o.window_ns = (int64_t)(opt_window_time * 1e9);
    if (opt_all) {
        o.list_corrected = 1;
        o.max_listed = 1000000;
    }
    struct tbbt_pass2 *p = tbbt_pass2_new(&o, w ? write_sink : NULL, w);
    int rc = run(rd, p, opt_write);
    tbbt_recr_close(rd);
    if (w && rc == 0 && tbbt_recw_close(w, err, sizeof(err)) != 0) {
        fprintf(stderr, "tbbt-check: %s\n", err);
        rc = -1;
    } else if (w && rc != 0) {
        if (*tbbt_recw_error(w)) fprintf(stderr, "tbbt-check: %s\n", tbbt_recw_error(w));
        tbbt_recw_abort(w);
    }
    const struct tbbt_pass2_stats *s = tbbt_pass2_stats(p);
    if (opt_quiet)
        printf("%s: %" G_GUINT64_FORMAT " records, %" G_GUINT64_FORMAT " replay failures, %" G_GUINT64_FORMAT
               " unexplained, %" G_GUINT64_FORMAT " inserted\n",
               argv[1], s->records_in, s->failures, s->unexplained, s->inserted);
    else
        tbbt_pass2_report(p, stdout);
    if (opt_json && write_json(p, opt_json) != 0) rc = -1;
    int bad = opt_write ? s->unexplained != 0 : s->failures != 0;
    tbbt_pass2_free(p);
    return rc != 0 || bad ? 1 : 0;
}
