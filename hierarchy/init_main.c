/* init_main.c -- tbbt-init: build a hierarchy map's initial image on an
 * NFS server, aged (init.h says what it does and what it never touches).
 *
 *   tbbt-init [options] [--map TRACE.hmap] SERVER:/EXPORT
 *
 * Without --map, the workspace's one trace (lib/workspace.h); with a map
 * that is the workspace's, the server is recorded there after the run,
 * with its own manifest (TRACE.SERVER.manifest), for tbbt-play.
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

#include "oom.h"
#include "outfile.h"
#include "init.h"
#include "opttab.h"
#include "workspace.h"

#define TOOL "tbbt-init"
/* The forms of the command line, for usage errors (lib/usage.h); --help has the options. */
#define SYNOPSIS "tbbt-init [--map TRACE.hmap] [OPTION...] SERVER:/EXPORT"

struct init_cli {
    char *map, *run, *manifest, *json;
    gint clones, depth, connections, timeout, nfsport, mountport;
    gint64 scope, appends, seed, filler_size;
    gdouble fullness;
    gboolean replace, interleave_dirs, quiet;
    char *cred;
};

static struct init_cli cli;

/* The options, declared once (lib/opttab.h); the defaults are init.h's. */
static const struct tbbt_opt init_opts[] = {
    {"map", 'm', TBBT_OPT_FILE, &cli.map, "FILE", .defhelp = "the workspace's trace's",
     .help = "The hierarchy map (tbbt-prep's NAME.hmap)"},
    {"run-dir", 'r', TBBT_OPT_STRING, &cli.run, "NAME", TBBT_INIT_RUN,
     .help = "Run directory in the export, the only place written (one plain name)"},
    {"replace", 0, TBBT_OPT_FLAG, &cli.replace,
     .help = "Empty a run directory tbbt-init made before and build anew (never one it did not make)"},
    {"clones", 'c', TBBT_OPT_INT, &cli.clones, "N", G_STRINGIFY(TBBT_INIT_CLONES), 1, 10000,
     .help = "Copies of the image side by side, RUN/clone.N"},
    {"scope", 's', TBBT_OPT_INT64, &cli.scope, "BLOCKS", G_STRINGIFY(TBBT_INIT_SCOPE), 1, INT64_C(1) << 40,
     .help = "Interleaving scope: total size of the files appended concurrently, in 4 KiB blocks (1: none; "
             "8192 = 32 MiB)"},
    {"appends-per-file", 'a', TBBT_OPT_INT64, &cli.appends, "N", G_STRINGIFY(TBBT_INIT_APPENDS), 1,
     UINT32_MAX, .help = "Appends that build one file, each its own write-and-commit"},
    {"interleave-dirs", 0, TBBT_OPT_FLAG, &cli.interleave_dirs,
     .help = "Interleave files of different directories (default: a directory's files join the scope "
             "together)"},
    {"fullness", 'f', TBBT_OPT_DOUBLE, &cli.fullness, "F", .dlo = 0, .dhi = 0.99, .defhelp = "no fillers",
     .help =
         "Utilization of the export to leave (FSSTAT): filler files fill it while aging and the excess is "
         "removed at the end, fragmenting free space"},
    {"filler-size", 0, TBBT_OPT_INT64, &cli.filler_size, "BYTES", G_STRINGIFY(TBBT_INIT_FILLER_SIZE), 4096,
     INT64_C(1) << 40, .help = "Bytes per filler file"},
    {"seed", 0, TBBT_OPT_INT64, &cli.seed, "N", G_STRINGIFY(TBBT_INIT_SEED), 0, INT64_MAX,
     .help = "Seed of the append schedule"},
    {"depth", 'd', TBBT_OPT_INT, &cli.depth, "N", G_STRINGIFY(TBBT_INIT_DEPTH), 1, 65536,
     .help = "NFS calls in flight"},
    {"connections", 0, TBBT_OPT_INT, &cli.connections, "N", G_STRINGIFY(TBBT_INIT_CONNECTIONS), 1, 64,
     .help = "TCP connections to the server"},
    {"nfs-port", 0, TBBT_OPT_INT, &cli.nfsport, "PORT", NULL, 1, 65535, .defhelp = "the portmapper's",
     .help = "NFS port"},
    {"mount-port", 0, TBBT_OPT_INT, &cli.mountport, "PORT", NULL, 1, 65535, .defhelp = "the portmapper's",
     .help = "MOUNT port"},
    {"cred", 0, TBBT_OPT_STRING, &cli.cred, "UID:GID", "0:0",
     .help = "AUTH_SYS uid:gid of tbbt-init's calls"},
    {"timeout", 0, TBBT_OPT_INT, &cli.timeout, "SEC", G_STRINGIFY(TBBT_INIT_TIMEOUT), 1, 86400,
     .help = "Seconds without any reply before giving up"},
    {"manifest", 0, TBBT_OPT_FILE, &cli.manifest, "FILE",
     .defhelp = "in a workspace, TRACE.SERVER.manifest there; else the map's name with .manifest",
     .help = "Where to write the manifest locally"},
    {"json", 0, TBBT_OPT_FILE, &cli.json, "FILE", .help = "Also write the summary as JSON to FILE"},
    {"quiet", 'q', TBBT_OPT_FLAG, &cli.quiet, .help = "Print only errors"},
    TBBT_OPT_END};

static const struct tbbt_cmd init_cmd = {
    TOOL, SYNOPSIS, "SERVER:/EXPORT - build a trace's initial image on an NFS server, aged",
    "Writes only inside RUN (see --run-dir). With no --map, the workspace's trace (the current "
    "directory's " TBBT_WS_FILE
    ", docs/workspace.md); the server is then recorded there, with its manifest, for tbbt-play.\n"
    "Exit: 0 done, 1 failed, 2 usage, 3 interrupted.",
    init_opts};

/* A usage error (lib/usage.h): the message, the synopsis, exit 2. */
#define usage(...) tbbt_opt_usage(&init_cmd, __VA_ARGS__)

/* A failure before the run: one line, exit 1. */
static G_GNUC_NORETURN void fail(const char *what) {
    fprintf(stderr, "tbbt-init: %s\n", what);
    exit(1);
}

/* The map: --map, else the workspace's one trace's (said on stderr).
 * Returns the workspace's trace line of the map, or NULL when the map is
 * not the workspace's (nothing is then recorded). */
static const struct tbbt_ws_trace *take_map(const struct tbbt_ws *ws) {
    char err[1024];
    if (cli.map) return tbbt_ws_find_trace(ws, cli.map);
    const struct tbbt_ws_trace *t = tbbt_ws_pick_trace(ws, "name its map with --map FILE", err, sizeof(err));
    if (!t) usage("%s", err);
    if (tbbt_ws_check_trace(t, err, sizeof(err)) < 0) fail(err);
    cli.map = g_strdup(t->map);
    if (!cli.quiet)
        fprintf(stderr, "tbbt-init: map: %s (the %s trace %s)\n", t->map,
                ws->exists ? "workspace's" : "directory's only", t->records);
    return t;
}

/* Checks the options' values and fills o (single options' bounds are the
 * table's; what is checked here is operands and forms). Exits 2 on a bad
 * one. */
static void check(int argc, char **argv, struct tbbt_init_opts *o) {
    tbbt_init_opts_default(o);
    if (argc != 2)
        usage(argc < 2 ? "no server given (HOST:/EXPORT or nfs://HOST/EXPORT)"
                       : "expected one server, HOST:/EXPORT or nfs://HOST/EXPORT");
    if (!*cli.run || strchr(cli.run, '/') || !strcmp(cli.run, ".") || !strcmp(cli.run, ".."))
        usage("--run-dir %s: must be one plain name (no '/', not . or ..)", cli.run);
    unsigned uid = 0, gid = 0;
    char extra;
    if (sscanf(cli.cred, "%u:%u%c", &uid, &gid, &extra) != 2)
        usage("--cred %s: must be UID:GID (two numbers)", cli.cred);
    char err[512];
    if (tbbt_nfs_server_parse(argv[1], cli.nfsport, cli.mountport, &o->server, err, sizeof(err)) < 0)
        usage("%s", err);
    o->map = cli.map, o->manifest = cli.manifest, o->clones = cli.clones, o->replace = cli.replace;
    o->run = cli.run;
    o->scope = (uint64_t)cli.scope, o->appends_per_file = (uint32_t)cli.appends;
    o->interleave_dirs = cli.interleave_dirs;
    o->fullness = tbbt_opt_given(&init_cmd, &cli.fullness) ? cli.fullness : -1; /* -1: no fillers */
    o->filler_size = (uint64_t)cli.filler_size, o->seed = (uint64_t)cli.seed;
    o->depth = cli.depth, o->connections = cli.connections, o->timeout = cli.timeout;
    o->uid = uid, o->gid = gid, o->quiet = cli.quiet;
}

/* Records the server the image was built on in the workspace, for
 * tbbt-play. Returns 0, or -1 (said). */
static int record(struct tbbt_ws *ws, const struct tbbt_ws_trace *t, const char *server,
                  const struct tbbt_init_opts *o) {
    /* a server line owns its strings (char *): copies of ours */
    struct tbbt_ws_server s = {g_strdup(t->records),
                               g_strdup(server),
                               g_strdup(o->run),
                               g_strdup(o->manifest),
                               cli.nfsport,
                               cli.mountport,
                               0};
    char err[1024];
    int rc = tbbt_ws_add_server(ws, &s, err, sizeof(err));
    g_free(s.trace), g_free(s.server), g_free(s.run), g_free(s.manifest);
    if (rc < 0 || tbbt_ws_save(ws, err, sizeof(err)) < 0) {
        fprintf(stderr, "tbbt-init: %s\n", err);
        return -1;
    }
    if (!cli.quiet)
        fprintf(stderr, "tbbt-init: recorded %s (manifest %s) in %s\n", server, o->manifest, TBBT_WS_FILE);
    return 0;
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
    tbbt_oom_on_failure("tbbt-init"); /* a failed allocation: one line, exit 1 (lib/oom.h) */
    tbbt_opt_parse(&init_cmd, &argc, &argv);
    char err[1024];
    struct tbbt_ws *ws = tbbt_ws_load(err, sizeof(err));
    if (!ws) fail(err);
    const struct tbbt_ws_trace *wt = take_map(ws);
    struct tbbt_init_opts o;
    check(argc, argv, &o);
    if (wt && !cli.manifest) { /* one manifest per server, so that a second server keeps the first's */
        o.manifest = cli.manifest = tbbt_ws_manifest_name(wt->records, argv[1], cli.nfsport);
        if (!cli.quiet)
            fprintf(stderr, "tbbt-init: manifest: %s (the workspace's, one per server)\n", o.manifest);
    }
    struct tbbt_init_stats st;
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    int failed = tbbt_init_run(&o, &st, err, sizeof(err)) < 0;
    if (failed) fprintf(stderr, "tbbt-init: %s\n", err);
    if (!failed && !o.quiet) tbbt_init_report(&o, &st, stdout);
    int rc = failed ? (tbbt_init_interrupted ? 3 : 1) : 0;
    if (cli.json && write_json(&o, &st, failed ? err : NULL) < 0 && !rc) rc = 1;
    if (!failed && wt && record(ws, wt, argv[1], &o) < 0) rc = 1;
    tbbt_ws_free(ws);
    return rc;
}
