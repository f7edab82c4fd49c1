/* play_main.c -- tbbt-play: replay a prepared trace against the image
 * tbbt-init built (engine.h says how).
 *
 *   tbbt-play [options] [TRACE.tbbt] [SERVER:/EXPORT]
 *
 * A trace or server not given is the workspace's (lib/workspace.h): the
 * current directory's one trace, the server tbbt-init built its image on,
 * with its manifest and ports; the results then go to the workspace's
 * results directory, one file per run. What it took is said on stderr.
 *
 * Exit: 0 done, 1 failed (cannot start: files, server), 2 bad usage,
 * 3 interrupted (results written and marked partial). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "oom.h"
#include "outfile.h"
#include "clones.h"
#include "engine.h"
#include "deps.h"
#include "mpi_ranks.h"
#include "simrun.h"
#include "opttab.h"
#include "usage.h"
#include "workspace.h"

struct play_cli {
    char *order, *manifest, *json, *cred, *deps, *send_log, *fail_log, *json_rank;
    gdouble speedup, warmup, duration;
    gint window, max_out, connections, clone, clones, loop, timeout, retransmit, nfsport, mountport;
    gint64 limit, seed;
    gboolean strict, quiet, live, no_live, udp;
    gboolean simulate, list_locks;
    char *sim_latency, *sim_windows;
};

static struct play_cli cli;

/* The options, declared once (lib/opttab.h): defaults, bounds, parsing,
 * --help and the man page's list all come from here; the player's own
 * defaults are engine.h's. */
static const struct tbbt_opt play_opts[] = {
    {"order", 'o', TBBT_OPT_STRING, &cli.order, "ORDER", "fsdep", .choices = "conservative|fsdep",
     .help = "conservative (the trace's own concurrency) or fsdep (file-system dependencies)"},
    {"strict-deps", 0, TBBT_OPT_FLAG, &cli.strict, .help = "fsdep: hold every write lock until the reply"},
    {"deps", 0, TBBT_OPT_STRING, &cli.deps, "reply|send|strict", .choices = "reply|send|strict",
     .defhelp = "reply; strict with --strict-deps",
     .help = "fsdep: release locks at the reply, at the send (paper), or strict"},
    {"speedup", 's', TBBT_OPT_DOUBLE, &cli.speedup, "F", "0", .dlo = 0, .dhi = 1e6,
     .help =
         "Send by the trace's timestamps divided by F (below 1 slows down; 0: full speed, no timestamps)"},
    {"window", 'w', TBBT_OPT_INT, &cli.window, "N", G_STRINGIFY(TBBT_PLAY_WINDOW), 1, TBBT_PLAY_WINDOW_MAX,
     .help = "Lookahead window, records"},
    {"max-outstanding", 0, TBBT_OPT_INT, &cli.max_out, "N", G_STRINGIFY(TBBT_PLAY_MAX_OUT), 1,
     TBBT_PLAY_WINDOW_MAX, .help = "Requests out at most (--simulate: no cap unless given)"},
    {"connections", 'c', TBBT_OPT_INT, &cli.connections, "N", "0", 0, TBBT_PLAY_MAX_CONN,
     .help = "connections at most, the traced clients in turn (0: one per traced client)"},
    {"udp", 'u', TBBT_OPT_FLAG, &cli.udp,
     .help = "Send over UDP (one datagram a request; a request too large for one fails) instead of TCP"},
    {"clone", 0, TBBT_OPT_INT, &cli.clone, "I", "0", 0, TBBT_CLONE_MAX - 1,
     .help = "The image clone to play against"},
    {"clones", 0, TBBT_OPT_INT, &cli.clones, "N", NULL, 1, TBBT_CLONE_MAX,
     .defhelp = "1; under mpirun one per rank",
     .help =
         "Replay N copies of the trace, copy i against clone I+i (tbbt-init --clones), interleaved by traced "
         "time; each its own handles, ordering and connections (one per traced client per clone); --window "
         "is per copy (under mpirun the clones are shared out among the ranks)"},
    {"loop", 0, TBBT_OPT_INT, &cli.loop, "N", "1", 1, TBBT_CLONE_MAX,
     .help =
         "Replay the trace N times one after another, copy i against clone I+i (tbbt-init --clones N), "
         "its times shifted past the end of copy i-1: a run N times as long (not with --clones, nor under "
         "mpirun)"},
    {"send-log", 0, TBBT_OPT_FILE, &cli.send_log, "FILE",
     .help =
         "Write \"CLONE RECORD\" (the record's 0-based index in the trace) per request sent, in send order"},
    {"fail-log", 0, TBBT_OPT_FILE, &cli.fail_log, "FILE",
     .help =
         "Write \"CLONE RECORD vV PROC TRACED GOT\" per record that did not get its traced status (GOT: the "
         "NFS status, or timeout, no-handle, skipped, conn-lost, refused)"},
    {"manifest", 'm', TBBT_OPT_FILE, &cli.manifest, "FILE",
     .defhelp = "the workspace's for this trace and server, else the trace's name with .manifest",
     .help = "tbbt-init's manifest"},
    {"warmup", 0, TBBT_OPT_DOUBLE, &cli.warmup, "SEC", "0", .dlo = 0, .dhi = 1e9,
     .help = "Seconds replayed but left out of the figures"},
    {"duration", 0, TBBT_OPT_DOUBLE, &cli.duration, "SEC", "0", .dlo = 0, .dhi = 1e9,
     .help = "Stop sending after SEC seconds (0: no limit)"},
    {"limit", 0, TBBT_OPT_INT64, &cli.limit, "N", "0", 0, INT64_MAX,
     .help = "Replay the first N records only (0: all)"},
    {"timeout", 't', TBBT_OPT_INT, &cli.timeout, "SEC", G_STRINGIFY(TBBT_PLAY_TIMEOUT), 1, 86400,
     .help = "Seconds a request may wait for its reply"},
    {"retransmit", 0, TBBT_OPT_INT, &cli.retransmit, "SEC", G_STRINGIFY(TBBT_PLAY_RETRANSMIT), 0, 86400,
     .help = "Send a request again (once, same XID) after SEC seconds without a reply, as an NFS client "
             "does (0: never)"},
    {"cred", 0, TBBT_OPT_STRING, &cli.cred, "UID:GID", .defhelp = "the trace's",
     .help = "AUTH_SYS uid:gid for every request"},
    {"nfs-port", 0, TBBT_OPT_INT, &cli.nfsport, "PORT", NULL, 1, 65535,
     .defhelp = "the workspace's for this server, else the portmapper's", .help = "NFS port"},
    {"mount-port", 0, TBBT_OPT_INT, &cli.mountport, "PORT", NULL, 1, 65535,
     .defhelp = "the workspace's, else the portmapper's, asked only when --nfs-port is not given",
     .help = "MOUNT port, to check before the replay that the export exists"},
    {"seed", 0, TBBT_OPT_INT64, &cli.seed, "N", G_STRINGIFY(TBBT_PLAY_SEED), 0, INT64_MAX,
     .help = "Seed of the write payload and verifiers"},
    {"json", 'j', TBBT_OPT_FILE, &cli.json, "FILE",
     .defhelp = "in a workspace, " TBBT_WS_RESULTS "/TRACE.SERVER.ORDER.xSPEEDUP.TIME.json",
     .help = "Write the results as one JSON document"},
    {"json-rank", 0, TBBT_OPT_FILE, &cli.json_rank, "FILE",
     .help = "Write this rank's own results as FILE.RANK (under mpirun; alone, FILE.0)"},
    {"live", 0, TBBT_OPT_FLAG, &cli.live, .help = "A live progress line (default when stderr is a terminal)"},
    {"no-live", 0, TBBT_OPT_FLAG, &cli.no_live, .help = "No live progress line"},
    {"quiet", 'q', TBBT_OPT_FLAG, &cli.quiet, .help = "Print only errors"},
    {"list-locks", 0, TBBT_OPT_FLAG, &cli.list_locks,
     .help = "Print fsdep's lock table (what each procedure's request and reply read and write: the paper's "
             "Table 4, extended) and exit"},
    {"simulate", 0, TBBT_OPT_FLAG, &cli.simulate,
     .help = "No server: play TRACE against a simulated one (fixed latency per procedure) and print the "
             "throughput and concurrency each lookahead window allows"},
    {"sim-latency", 0, TBBT_OPT_STRING, &cli.sim_latency, "PROC=USEC,...[,default=USEC]",
     .defhelp = "the trace's median per procedure",
     .help = "--simulate: server latency, us, per procedure and/or default"},
    {"sim-windows", 0, TBBT_OPT_STRING, &cli.sim_windows, "N,N,...", "100,200,500,1000,2000,5000,10000",
     .help = "--simulate: lookahead windows, records"},
    TBBT_OPT_END};

static char *play_desc;

static const struct tbbt_cmd play_cmd = {
    TBBT_PLAY_TOOL, TBBT_PLAY_SYNOPSIS,
    "[TRACE.tbbt] [SERVER:/EXPORT] - replay a trace against an NFS server",
    NULL, /* set in main: it names the MPI support built */
    play_opts};

/* What the replay works on: the operands, or the workspace's (said on
 * stderr); freed by main. */
struct target {
    struct tbbt_ws *ws;
    const struct tbbt_ws_server *entry; /* the workspace's line for this trace and server, or NULL */
    char *trace, *server, *manifest, *json;
};

/* A usage error (lib/usage.h): the message, the synopsis, exit 2. */
static G_GNUC_NORETURN void usage(const char *what) {
    tbbt_opt_usage(&play_cmd, "%s", what);
}

/* A failure before the replay: one line, exit 1. */
static G_GNUC_NORETURN void fail(const char *what) {
    fprintf(stderr, "tbbt-play: %s\n", what);
    exit(1);
}

/* Says on stderr what the command took that it was not given. */
static void took(const char *what, const char *value, const char *from) {
    /* under mpirun every rank takes the same: rank 0 says it (MPI is not up yet: the launchers' variables) */
    const char *rank = getenv("OMPI_COMM_WORLD_RANK") ? getenv("OMPI_COMM_WORLD_RANK") : getenv("PMI_RANK");
    if (!cli.quiet && (!rank || !strcmp(rank, "0")))
        fprintf(stderr, "tbbt-play: %s: %s (%s)\n", what, value, from);
}

/* SIGINT, SIGTERM: stop sending, finish, report, exit 3. */
static void on_signal(int sig) {
    (void)sig;
    tbbt_play_interrupt();
}

/* True when s names a server (HOST:/EXPORT, nfs://...) rather than a file
 * that exists. */
static int is_server(const char *s) {
    return !g_file_test(s, G_FILE_TEST_EXISTS) &&
           (g_str_has_prefix(s, "nfs://") || (strstr(s, ":/") && !g_str_has_suffix(s, ".tbbt")));
}

/* The trace: the operand, else the workspace's one trace (exit 2 when
 * there is none or several, 1 when a file it names is missing). */
static void take_trace(struct target *t, const char *given) {
    char err[1024];
    if (given) {
        t->trace = g_strdup(given);
        return;
    }
    const struct tbbt_ws_trace *w =
        tbbt_ws_pick_trace(t->ws, "name the trace: tbbt-play TRACE.tbbt", err, sizeof(err));
    if (!w) usage(err);
    if (tbbt_ws_check_trace(w, err, sizeof(err)) < 0) fail(err);
    t->trace = g_strdup(w->records);
    took("trace", w->records, t->ws->exists ? "the workspace's" : "the only NAME.tbbt with its .hmap here");
}

/* The server: the operand, else the one the workspace's trace was
 * initialised on; and the workspace's line for both, if any. */
static void take_server(struct target *t, const char *given) {
    if (given) {
        t->server = g_strdup(given);
        t->entry = tbbt_ws_find_server(t->ws, t->trace, given, cli.nfsport);
        return;
    }
    const struct tbbt_ws_server *s[8];
    int n = tbbt_ws_servers_of(t->ws, t->trace, s, 8);
    if (n == 0 && !t->ws->exists) usage("no SERVER:/EXPORT given, and no workspace here to take one from");
    if (n == 0)
        usage(g_strdup_printf(
            "no SERVER:/EXPORT given, and no server initialised for %s in this workspace (%s): "
            "run tbbt-init SERVER:/EXPORT first, or name the server",
            t->trace, TBBT_WS_FILE));
    if (n > 1) {
        GString *l = g_string_new(NULL);
        for (int i = 0; i < n && i < 8; i++)
            g_string_append_printf(l, "%s%s", i ? ", " : "", s[i]->server);
        usage(
            g_strdup_printf("%d servers initialised for %s in this workspace: %s%s; name one: tbbt-play [%s] "
                            "SERVER:/EXPORT",
                            n, t->trace, l->str, n > 8 ? ", ..." : "", t->trace));
    }
    t->entry = s[0];
    t->server = g_strdup(s[0]->server);
    took("server", s[0]->server, "the workspace's, initialised by tbbt-init");
}

/* The ports and manifest not given: the workspace line's, else the
 * defaults of old (the portmapper, the trace's name with .manifest). */
static void take_rest(struct target *t) {
    char err[1024];
    const struct tbbt_ws_server *e = t->entry;
    char port[16];
    if (e && !tbbt_opt_given(&play_cmd, &cli.nfsport) && e->nfsport) {
        cli.nfsport = e->nfsport;
        g_snprintf(port, sizeof(port), "%d", e->nfsport);
        took("nfs-port", port, "the workspace's for this server");
    }
    if (e && !tbbt_opt_given(&play_cmd, &cli.mountport) && e->mountport) {
        cli.mountport = e->mountport;
        g_snprintf(port, sizeof(port), "%d", e->mountport);
        took("mount-port", port, "the workspace's for this server");
    }
    if (cli.manifest) {
        t->manifest = g_strdup(cli.manifest);
    } else if (e) {
        if (tbbt_ws_check_server(e, err, sizeof(err)) < 0) fail(err);
        t->manifest = g_strdup(e->manifest);
        took("manifest", e->manifest, "the workspace's for this trace and server");
    } else {
        size_t n = strlen(t->trace);
        if (n > 5 && g_str_has_suffix(t->trace, ".tbbt")) n -= 5;
        t->manifest = g_strdup_printf("%.*s.manifest", (int)n, t->trace);
    }
    t->json = g_strdup(cli.json);
}

/* No --json, a trace of the workspace: the run's own result file there
 * (its directory made), said on stderr. After every check: a usage error
 * makes nothing. */
static void take_result(struct target *t) {
    char err[1024];
    if (t->json || !tbbt_ws_find_trace(t->ws, t->trace)) return;
    t->json = tbbt_ws_result_name(t->trace, t->server, cli.nfsport, cli.order, cli.speedup, err, sizeof(err));
    if (!t->json) fail(err);
    took("results", t->json, "the workspace's, one file per run");
}

/* The operands, completed from the workspace of the current directory:
 * [TRACE.tbbt] [SERVER:/EXPORT] (with --simulate, [TRACE.tbbt]). */
static void resolve(int argc, char **argv, struct target *t) {
    char err[1024];
    if (argc > 3 || (cli.simulate && argc > 2))
        usage(cli.simulate ? "--simulate takes TRACE.tbbt only (no server)"
                           : "expected [TRACE.tbbt] [SERVER:/EXPORT] only");
    if (!(t->ws = tbbt_ws_load(err, sizeof(err)))) fail(err);
    const char *trace = NULL, *server = NULL;
    if (argc == 3) trace = argv[1], server = argv[2];
    if (argc == 2 && !cli.simulate && is_server(argv[1]))
        server = argv[1];
    else if (argc == 2)
        trace = argv[1];
    take_trace(t, trace);
    if (cli.simulate) return;
    take_server(t, server);
    take_rest(t);
}

/* Checks the options and fills o; exits 2 on a bad one. Single options'
 * bounds are the table's; what is checked here is options together. */
static void check(const struct target *t, struct tbbt_play_opts *o) {
    tbbt_play_opts_default(o);
    o->order = tbbt_sched_find(cli.order);        /* one of the table's choices */
    gint64 nclones = cli.clones ? cli.clones : 1; /* not given (under mpirun: one per rank) */
    if ((gint64)cli.clone + nclones > TBBT_CLONE_MAX)
        usage(g_strdup_printf("--clone %d with --clones %" G_GINT64_FORMAT ": clone numbers end at %u",
                              cli.clone, nclones, TBBT_CLONE_MAX - 1));
    if ((gint64)cli.window * nclones > TBBT_PLAY_WINDOW_MAX)
        usage(g_strdup_printf("--window %d x --clones %" G_GINT64_FORMAT ": at most %d records in all",
                              cli.window, nclones, TBBT_PLAY_WINDOW_MAX));
    o->send_log = cli.send_log;
    o->fail_log = cli.fail_log;
    char err[512];
    if (tbbt_nfs_server_parse(t->server, cli.nfsport, cli.mountport, &o->server, err, sizeof(err)) < 0)
        usage(err);
    unsigned uid, gid;
    char extra;
    if (cli.cred) {
        if (sscanf(cli.cred, "%u:%u%c", &uid, &gid, &extra) != 2)
            usage(g_strdup_printf("--cred %s: must be UID:GID (two numbers)", cli.cred));
        o->cred_set = 1, o->uid = uid, o->gid = gid;
    }
    o->trace = t->trace;
    o->manifest = t->manifest;
    o->deps = cli.strict ? TBBT_SCHED_DEPS_STRICT : TBBT_SCHED_DEPS_REPLY;
    if (cli.deps) o->deps = tbbt_sched_deps(cli.deps);
    o->speedup = cli.speedup, o->window = (uint32_t)cli.window;
    o->max_outstanding = (uint32_t)cli.max_out, o->connections = cli.connections, o->clone = cli.clone;
    o->clones = cli.clones; /* 0: not given, tbbt_mpi_setup decides */
    if (cli.loop > 1 && cli.clones > 1) usage("--loop and --clones exclude each other");
    o->loop = cli.loop;
    o->warmup_s = cli.warmup, o->duration_s = cli.duration, o->limit = (uint64_t)cli.limit;
    o->udp = cli.udp;
    o->timeout_s = cli.timeout, o->retransmit_s = cli.retransmit, o->seed = (uint64_t)cli.seed;
    o->quiet = cli.quiet;
    o->live = !cli.quiet && !cli.no_live && (cli.live || isatty(2));
}

/* Writes st as one JSON document to path. Returns 0, or -1 (said). */
static int write_json(const struct tbbt_play_stats *st, const char *path) {
    GString *j = g_string_new(NULL);
    GError *ge = NULL;
    tbbt_pstats_json(st, j);
    g_string_append_c(j, '\n');
    int rc = 0;
    if (!tbbt_out_set_contents(path, j->str, (gssize)j->len, &ge)) {
        fprintf(stderr, "tbbt-play: %s%s\n", tbbt_mpi_tag(), ge->message);
        g_error_free(ge);
        rc = -1;
    }
    g_string_free(j, TRUE);
    return rc;
}

int main(int argc, char **argv) {
    tbbt_oom_on_failure("tbbt-play"); /* a failed allocation: one line, exit 1 (lib/oom.h) */
    play_desc =
        g_strdup_printf("With no TRACE or SERVER, the workspace's (the current directory's %s, "
                        "docs/workspace.md): its one trace and the server tbbt-init built its image on; "
                        "the results then go to %s/, one file per run.\n"
                        "Exit: 0 done, 1 failed, 2 usage, 3 interrupted (partial results).\n"
                        "MPI (mpirun -np N tbbt-play ...): %s.",
                        TBBT_WS_FILE, TBBT_WS_RESULTS, tbbt_mpi_built());
    struct tbbt_cmd cmd = play_cmd;
    cmd.description = play_desc;
    tbbt_opt_parse(&cmd, &argc, &argv);
    if (cli.list_locks) {
        g_free(play_desc);
        tbbt_sched_locks_print(stdout);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    struct target t = {0};
    resolve(argc, argv, &t);
    if (cli.simulate) {
        char *sargv[] = {argv[0], t.trace, NULL};
        int max_out = tbbt_opt_given(&cmd, &cli.max_out) ? cli.max_out : 0; /* not given: no cap */
        int src = tbbt_simrun_main(2, sargv,
                                   &(struct tbbt_simrun_args){cli.order, cli.deps, cli.strict,
                                                              cli.sim_latency, cli.sim_windows, cli.json,
                                                              max_out, cli.limit, cli.speedup, cli.quiet});
        g_free(t.trace);
        tbbt_ws_free(t.ws);
        g_free(play_desc);
        return src;
    }
    struct tbbt_play_opts o;
    check(&t, &o);
    take_result(&t);
    char err[600];
    if (tbbt_mpi_init(&argc, &argv, err, sizeof(err)) < 0 || tbbt_mpi_setup(&o, err, sizeof(err)) < 0)
        usage(err);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);
    struct tbbt_play_stats st;
    tbbt_pstats_init(&st);
    int rc = tbbt_play_run(&o, &st, err, sizeof(err));
    if (rc < 0) {
        fprintf(stderr, "tbbt-play: %s%s\n", tbbt_mpi_tag(), err);
        st.partial = 1; /* what was measured before the failure still goes out */
    }
    if (cli.json_rank && st.started[0]) { /* not when it never started (below) */
        char *path = g_strdup_printf("%s.%d", cli.json_rank, tbbt_mpi_rank());
        if (write_json(&st, path) < 0) rc = -1;
        g_free(path);
    }
    int job = tbbt_mpi_gather(&st, rc, err, sizeof(err)); /* rank 0: every rank's figures merged */
    if (job < 0 && rc >= 0) fprintf(stderr, "tbbt-play: %s\n", err);
    rc = job;
    /* A replay that never started (a file, the server, the export refused
     * in setup) has no figures: its one line says why, no report follows. */
    int replayed = st.started[0] != 0;
    if (replayed && !cli.quiet && tbbt_mpi_rank() == 0) tbbt_pstats_report(&st, stdout);
    if (replayed && t.json && tbbt_mpi_rank() == 0 && write_json(&st, t.json) < 0) rc = -1;
    tbbt_pstats_free(&st);
    g_free(t.trace), g_free(t.server), g_free(t.manifest), g_free(t.json);
    tbbt_ws_free(t.ws);
    g_free(play_desc);
    return rc < 0 ? 1 : rc;
}
