/* map_main.c -- tbbt-map: pass 3 on any record file.
 *
 *   tbbt-map [-m OUT.hmap] [-w OUT.tbbt] [--root ID]... [--json FILE] IN.tbbt
 *       Applies the records to the file-system model, writes the hierarchy
 *       map (default: IN's name with .hmap) and, with -w, the records with
 *       their victim IDs. A record file does not keep the MOUNT replies:
 *       give the export root with --root when it is known (tbbt-prep,
 *       which sees them, does this itself).
 *
 * Used after editing a trace (the Perl transforms pass their output
 * through tbbt-check --write and tbbt-map), and by bench/hierarchy.sh.
 * Exit: 0 done, 1 failed (unreadable input, unwritable output), 2 usage. */
#include <glib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "outfile.h"
#include "pass3.h"
#include "recfile.h"
#include "interrupt.h"
#include "memlimit.h"
#include "opttab.h"
#include "usage.h"

#define TOOL "tbbt-map"
/* The forms of the command line, for usage errors (lib/usage.h); --help has the options. */
#define SYNOPSIS "tbbt-map [-m OUT.hmap] [-w OUT.tbbt] [--root ID]... [OPTION...] IN.tbbt"

static char *opt_map, *opt_write, *opt_json, *opt_max_memory;
static char **opt_roots;
static gboolean opt_quiet;

static const struct tbbt_opt map_opts[] = {
    {"map", 'm', TBBT_OPT_FILE, &opt_map, "FILE", .defhelp = "IN with .hmap", .help = "Map to write"},
    {"write", 'w', TBBT_OPT_FILE, &opt_write, "FILE",
     .help = "Also write the records, with victim IDs, to FILE"},
    {"root", 0, TBBT_OPT_LIST, &opt_roots, "ID", .help = "TBBT-ID of the export root (repeatable)"},
    {"json", 0, TBBT_OPT_FILE, &opt_json, "FILE", .help = "Also write the report as JSON to FILE"},
    TBBT_MEMLIMIT_OPTION(opt_max_memory, "pass 3's model and waits"),
    {"quiet", 'q', TBBT_OPT_FLAG, &opt_quiet, .help = "Print only errors"},
    TBBT_OPT_END};

static const struct tbbt_cmd map_cmd = {TOOL, SYNOPSIS,
                                        "IN.tbbt - pass 3: the hierarchy map of a record file",
                                        "Exit: 0 done, 1 failed, 2 usage.", map_opts};

/* Sink into the record writer. */
static int write_sink(void *ctx, const struct tbbt_rec *r) {
    return tbbt_recw_put(ctx, r);
}

/* Parses the options; exits 2 on bad usage. Returns the input path. */
static const char *parse(int argc, char **argv) {
    tbbt_opt_parse(&map_cmd, &argc, &argv);
    if (argc < 2) tbbt_usage_error(TOOL, SYNOPSIS, "no record file given");
    if (argc > 2) tbbt_usage_error(TOOL, SYNOPSIS, "one record file only, got %d operands", argc - 1);
    for (char **r = opt_roots; r && *r; r++) {
        char *end;
        if (!**r || strtoull(*r, &end, 10) == 0 || *end)
            tbbt_usage_error(TOOL, SYNOPSIS, "--root %s: must be a TBBT-ID (a positive integer)", *r);
    }
    if (tbbt_memlimit_option(TOOL, opt_max_memory) != 0)
        tbbt_usage_error(TOOL, SYNOPSIS, "--max-memory %s: must be " TBBT_MEMLIMIT_ALLOWED, opt_max_memory);
    return argv[1];
}

/* Feeds every record to the pass. Returns 0, or -1 with the message printed. */
static int feed(struct tbbt_recreader *rd, struct tbbt_pass3 *p, struct tbbt_recwriter *w) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    int rc;
    while ((rc = tbbt_recr_next(rd, &r)) == 1)
        if (tbbt_pass3_put(p, &r) != 0) break;
    tbbt_rec_free(&r);
    if (rc < 0) fprintf(stderr, "tbbt-map: %s\n", tbbt_recr_error(rd));
    if (rc == 1) fprintf(stderr, "tbbt-map: %s\n", tbbt_recw_error(w));
    return rc == 0 ? 0 : -1;
}

/* Writes the report as JSON to path. Returns 0 or -1. */
static int write_json(const struct tbbt_pass3 *p, const char *path) {
    GString *s = g_string_new(NULL);
    tbbt_pass3_report_json(p, s);
    g_string_append_c(s, '\n');
    return tbbt_out_put("tbbt-map", path, s);
}

int main(int argc, char **argv) {
    tbbt_interrupt_on_signal("tbbt-map"); /* SIGINT, SIGTERM: temporaries removed, exit 3 */
    const char *in = parse(argc, argv);
    char err[512];
    struct tbbt_recreader *rd = tbbt_recr_open(in, err, sizeof(err));
    if (!rd) {
        fprintf(stderr, "tbbt-map: %s\n", err);
        return 1;
    }
    struct tbbt_recwriter *w = NULL;
    if (opt_write && !(w = tbbt_recw_open(opt_write, tbbt_recr_meta(rd), err, sizeof(err)))) {
        fprintf(stderr, "tbbt-map: %s\n", err);
        tbbt_recr_close(rd);
        return 1;
    }
    size_t n = strlen(in);
    if (n > 5 && g_str_has_suffix(in, ".tbbt")) n -= 5;
    char *map = opt_map ? g_strdup(opt_map) : g_strdup_printf("%.*s.hmap", (int)n, in);
    struct tbbt_pass3 *p = tbbt_pass3_new(w ? write_sink : NULL, w);
    for (char **r = opt_roots; r && *r; r++)
        tbbt_pass3_add_root(p, strtoull(*r, NULL, 10));
    char *base = g_path_get_basename(in);
    char *comment = g_strdup_printf("records %s\ntool tbbt-map", base);
    int rc = feed(rd, p, w);
    tbbt_recr_close(rd);
    if (rc == 0 && tbbt_pass3_write_map(p, map, comment, err, sizeof(err)) != 0) {
        fprintf(stderr, "tbbt-map: %s\n", err);
        rc = -1;
    }
    if (w && rc == 0 && tbbt_recw_close(w, err, sizeof(err)) != 0) {
        fprintf(stderr, "tbbt-map: %s\n", err);
        rc = -1;
    } else if (w && rc != 0) {
        tbbt_recw_abort(w);
    }
    if (rc == 0 && !opt_quiet) tbbt_pass3_report(p, stdout);
    if (rc == 0 && opt_json && write_json(p, opt_json) != 0) rc = -1;
    tbbt_pass3_free(p);
    g_free(map), g_free(base), g_free(comment);
    return rc ? 1 : 0;
}
