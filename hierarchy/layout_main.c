/* layout_main.c -- tbbt-layout: how aged is a file system? Walks PATH,
 * maps every regular file with FIEMAP and prints the TBBT paper's aging
 * metrics (3.3.1) and Smith's layout score, per size bucket and in all,
 * with the free-space fragment histogram when --device names the file
 * system's device or image (layout.h defines every figure).
 *
 *   tbbt-layout PATH [--device DEV|auto] [--json FILE] [--files] [-q]
 *
 * Read-only. Exit codes as in design.md: 0 done, 1 failed (one line naming
 * the path), 2 bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "outfile.h"
#include "layout.h"
#include "interrupt.h"
#include "opttab.h"
#include "usage.h"
#include "version.h"

#define TOOL "tbbt-layout"
/* The forms of the command line, for usage errors (lib/usage.h); --help has the options. */
#define SYNOPSIS "tbbt-layout [--device DEV|auto] [--json FILE] [OPTION...] PATH"

struct layout_opts {
    char *device;
    char *json;
    gboolean files;
    gboolean quiet;
};

static struct layout_opts opt;

/* The options, declared once (lib/opttab.h). */
static const struct tbbt_opt layout_opts[] = {
    {"device", 'd', TBBT_OPT_FILE, &opt.device, "DEV|auto",
     .help =
         "The file system's block device or image file, for the free-space histogram (e2freefrag, xfs_db) "
         "and the inode distance (dumpe2fs); it must hold PATH's file system; auto = the block device PATH "
         "is on"},
    {"json", 'j', TBBT_OPT_FILE, &opt.json, "FILE",
     .help = "Also write the figures as JSON to FILE (- = standard output; the text report then goes to "
             "standard error)"},
    {"files", 'f', TBBT_OPT_FLAG, &opt.files, .help = "Also list every file's figures (text and JSON)"},
    {"quiet", 'q', TBBT_OPT_FLAG, &opt.quiet, .help = "No text report (errors only; with --json)"},
    TBBT_OPT_END};

static const struct tbbt_cmd layout_cmd = {
    TOOL, SYNOPSIS, "PATH - measure how aged a file system's layout is",
    "Per size bucket and in all, over the regular files under PATH (one file system, symbolic links\n"
    "not followed), in file-system blocks:\n"
    "  layout      Smith's layout score: the share of blocks (but each file's first) that follow\n"
    "              their predecessor on disk; 1 = no fragmentation\n"
    "  blk-dist    average block distance |p(next) - p(prev) - 1| over pairs of adjacent blocks\n"
    "  frag-size   average fragment (contiguous run) size, blocks per fragment\n"
    "  frag-dist   average distance between adjacent fragments of a file\n"
    "  inode-dist  |first data block - block of the inode| (ext2/3/4, needs --device)\n"
    "  parent-dist |first data block - first block of its directory|\n"
    "and the free-space fragments (needs --device). Averages are over blocks or fragments,\n"
    "so big files weigh more (TBBT paper 3.3.1). Files are synced (FIEMAP_FLAG_SYNC), never written.\n"
    "Exit: 0 done, 1 failed, 2 usage.",
    layout_opts};

/* A usage error (lib/usage.h): the message, the synopsis, exit 2. */
#define usage_error(...) tbbt_usage_error(TOOL, SYNOPSIS, __VA_ARGS__)

/* Parses the command line; returns PATH. Exits 2 on bad usage. */
static const char *parse_args(int argc, char **argv) {
    tbbt_opt_parse(&layout_cmd, &argc, &argv);
    if (argc < 2) usage_error("no PATH given");
    if (argc > 2) usage_error("one PATH only, got %d operands", argc - 1);
    if (opt.quiet && !opt.json) usage_error("--quiet without --json would print nothing");
    return argv[1];
}

/* Writes the JSON report to path ("-" = stdout). Returns 0 or -1 (message
 * printed). */
static int write_json(const char *path, const struct tbbt_layout *l) {
    GString *j = g_string_new(NULL);
    tbbt_layout_report_json(l, "tbbt-layout " TBBT_VERSION, j);
    g_string_append_c(j, '\n');
    int rc = 0;
    GError *ge = NULL;
    if (!strcmp(path, "-")) {
        fwrite(j->str, 1, j->len, stdout);
    } else if (!tbbt_out_set_contents(path, j->str, (gssize)j->len, &ge)) {
        fprintf(stderr, "tbbt-layout: %s\n", ge->message);
        g_error_free(ge);
        rc = -1;
    }
    g_string_free(j, TRUE);
    return rc;
}

int main(int argc, char **argv) {
    tbbt_interrupt_on_signal("tbbt-layout"); /* SIGINT, SIGTERM: temporaries removed, exit 3 */
    const char *path = parse_args(argc, argv);
    char err[1024];
    struct tbbt_layout_opts o = {path, opt.device, opt.files};
    struct tbbt_layout *l = tbbt_layout_measure(&o, err, sizeof(err));
    if (!l) {
        fprintf(stderr, "tbbt-layout: %s\n", err);
        return 1;
    }
    if (!opt.quiet) tbbt_layout_report(l, opt.json && !strcmp(opt.json, "-") ? stderr : stdout);
    int rc = opt.json ? write_json(opt.json, l) : 0;
    tbbt_layout_free(l);
    return rc == 0 ? 0 : 1;
}
