/* init_main.c -- tbbt-init: build a hierarchy map's initial image on an
 * NFS server, aged (init.h says what it does and what it never touches).
 *
 *   tbbt-init [options] --map TRACE.hmap SERVER:/EXPORT
 *
 * Exit: 0 done, 1 failed (the message names the server or the path),
 * 2 bad usage, 3 interrupted (SIGINT, SIGTERM). A run that did not finish
 * leaves RUN's marker saying "building", no manifest beside the map, and
 * --json's file with "complete": false and the error. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "outfile.h"
#include "init.h"
#include "usage.h"

#define TOOL "tbbt-init"
/* The forms of the command line, for usage errors (lib/usage.h); --help has the options. */
#define SYNOPSIS "tbbt-init --map TRACE.hmap [OPTION...] SERVER:/EXPORT"

struct init_cli {
    char *map, *run, *manifest, *json;
    gint clones, depth, connections, timeout, nfsport, mountport;
    gint64 scope, appends, seed, filler_size;
    gdouble fullness;
    gboolean replace, interleave_dirs, quiet;
    char *cred;
};

static struct init_cli cli = {.clones = 1,
                              .depth = 64,
                              .connections = 1,
                              .timeout = 60,
                              .scope = 1,
                              .appends = 1,
                              .seed = 1,
                              .filler_size = 1 << 20,
                              .fullness = -1};

/* The options, declared once: parsing and --help both come from here. */
static GOptionEntry init_entries[] = {
    {"map", 'm', 0, G_OPTION_ARG_FILENAME, &cli.map, "The hierarchy map (tbbt-prep's NAME.hmap; required)",
     "FILE"},
    {"run-dir", 'r', 0, G_OPTION_ARG_STRING, &cli.run,
     "Run directory in the export, the only place written (default tbbt-run)", "NAME"},
    {"replace", 0, 0, G_OPTION_ARG_NONE, &cli.replace,
     "Empty a run directory tbbt-init made before and build anew (never one it did not make)", NULL},
    {"clones", 'c', 0, G_OPTION_ARG_INT, &cli.clones,
     "Copies of the image side by side, RUN/clone.N (default 1)", "N"},
    {"scope", 's', 0, G_OPTION_ARG_INT64, &cli.scope,
     "Interleaving scope: total size of the files appended concurrently, in 4 KiB blocks (default 1: none; "
     "8192 = 32 MiB)",
     "BLOCKS"},
    {"appends-per-file", 'a', 0, G_OPTION_ARG_INT64, &cli.appends,
     "Appends that build one file, each its own write-and-commit (default 1)", "N"},
    {"interleave-dirs", 0, 0, G_OPTION_ARG_NONE, &cli.interleave_dirs,
     "Interleave files of different directories (default: a directory's files join the scope together)",
     NULL},
    {"fullness", 'f', 0, G_OPTION_ARG_DOUBLE, &cli.fullness,
     "Utilization of the export to leave (FSSTAT), 0..1: filler files fill it while aging and the excess is "
     "removed at the end, fragmenting free space (default: no fillers)",
     "F"},
    {"filler-size", 0, 0, G_OPTION_ARG_INT64, &cli.filler_size, "Bytes per filler file (default 1 MiB)",
     "BYTES"},
    {"seed", 0, 0, G_OPTION_ARG_INT64, &cli.seed, "Seed of the append schedule (default 1)", "N"},
    {"depth", 'd', 0, G_OPTION_ARG_INT, &cli.depth, "NFS calls in flight (default 64)", "N"},
    {"connections", 0, 0, G_OPTION_ARG_INT, &cli.connections, "TCP connections to the server (default 1)",
     "N"},
    {"nfs-port", 0, 0, G_OPTION_ARG_INT, &cli.nfsport, "NFS port (default: ask the portmapper)", "PORT"},
    {"mount-port", 0, 0, G_OPTION_ARG_INT, &cli.mountport, "MOUNT port (default: ask the portmapper)",
     "PORT"},
    {"cred", 0, 0, G_OPTION_ARG_STRING, &cli.cred, "AUTH_SYS uid:gid of tbbt-init's calls (default 0:0)",
     "UID:GID"},
    {"timeout", 0, 0, G_OPTION_ARG_INT, &cli.timeout,
     "Seconds without any reply before giving up (default 60)", "SEC"},
    {"manifest", 0, 0, G_OPTION_ARG_FILENAME, &cli.manifest,
     "Where to write the manifest locally (default: the map's name with .manifest)", "FILE"},
    {"json", 0, 0, G_OPTION_ARG_FILENAME, &cli.json, "Also write the summary as JSON to FILE", "FILE"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &cli.quiet, "Print only errors", NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

/* A usage error (lib/usage.h): the message, the synopsis, exit 2. */
static G_GNUC_NORETURN void usage(const char *what) {
    tbbt_usage_error(TOOL, SYNOPSIS, "%s", what);
}

/* Checks the options' values and fills o. Exits 2 on a bad one. */
static void check(int argc, char **argv, struct tbbt_init_opts *o) {
    tbbt_init_opts_default(o);
    if (argc != 2)
        usage(argc < 2 ? "no server given (HOST:/EXPORT or nfs://HOST/EXPORT)"
                       : "expected one server, HOST:/EXPORT or nfs://HOST/EXPORT");
    if (!cli.map) usage("--map is required");
    if (cli.clones < 1 || cli.clones > 10000) usage("--clones must be 1..10000");
    if (cli.scope < 1 || cli.appends < 1 || cli.depth < 1 || cli.connections < 1 || cli.connections > 64 ||
        cli.timeout < 1 || cli.filler_size < 4096)
        usage("--scope, --appends-per-file, --depth, --connections (<= 64), --timeout must be positive, "
              "--filler-size at least 4096");
    if (cli.fullness != -1 && (cli.fullness < 0 || cli.fullness > 0.99)) usage("--fullness must be 0..0.99");
    if (cli.nfsport < 0 || cli.nfsport > 65535 || cli.mountport < 0 || cli.mountport > 65535)
        usage("ports must be 1..65535");
    if (cli.run && (!*cli.run || strchr(cli.run, '/') || !strcmp(cli.run, ".") || !strcmp(cli.run, "..")))
        usage("--run-dir must be one plain name (no '/', not . or ..)");
    unsigned uid = 0, gid = 0;
    char extra;
    if (cli.cred && sscanf(cli.cred, "%u:%u%c", &uid, &gid, &extra) != 2) usage("--cred must be UID:GID");
    char err[512];
    if (tbbt_nfs_server_parse(argv[1], cli.nfsport, cli.mountport, &o->server, err, sizeof(err)) < 0)
        usage(err);
    o->map = cli.map, o->manifest = cli.manifest, o->clones = cli.clones, o->replace = cli.replace;
    if (cli.run) o->run = cli.run;
    o->scope = (uint64_t)cli.scope, o->appends_per_file = (uint32_t)cli.appends;
    o->interleave_dirs = cli.interleave_dirs, o->fullness = cli.fullness;
    o->filler_size = (uint64_t)cli.filler_size, o->seed = (uint64_t)cli.seed;
    o->depth = cli.depth, o->connections = cli.connections, o->timeout = cli.timeout;
    o->uid = uid, o->gid = gid, o->quiet = cli.quiet;
}

/* SIGINT, SIGTERM: the run stops at its next wait (init.h). */
static void on_signal(int sig) {
    (void)sig;
    tbbt_init_interrupted = 1;
}

/* The summary as JSON into --json's file (written whole: tbbt_out_set_contents
 * renames a temporary into place). Returns 0 or -1 (said). */
static int write_json(const struct tbbt_init_opts *o, const struct tbbt_init_stats *st, const char *error) {
    GString *j = g_string_new(NULL);
    tbbt_init_report_json(o, st, error, j);
    g_string_append_c(j, '\n');
    return tbbt_out_put("tbbt-init", cli.json, j);
}

int main(int argc, char **argv) {
    GOptionContext *ctx =
        g_option_context_new("SERVER:/EXPORT - build a trace's initial image on an NFS server, aged");
    g_option_context_add_main_entries(ctx, init_entries, NULL);
    g_option_context_set_description(
        ctx, "Writes only inside RUN (see --run-dir). Exit: 0 done, 1 failed, 2 usage, 3 interrupted.");
    tbbt_usage_parse(ctx, TOOL, SYNOPSIS, &argc, &argv);
    struct tbbt_init_opts o;
    check(argc, argv, &o);
    struct tbbt_init_stats st;
    char err[600];
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    int failed = tbbt_init_run(&o, &st, err, sizeof(err)) < 0;
    if (failed) fprintf(stderr, "tbbt-init: %s\n", err);
    if (!failed && !o.quiet) tbbt_init_report(&o, &st, stdout);
    if (cli.json && write_json(&o, &st, failed ? err : NULL) < 0) return 1;
    if (failed) return tbbt_init_interrupted ? 3 : 1;
    return 0;
}
