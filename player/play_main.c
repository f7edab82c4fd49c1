/* play_main.c -- tbbt-play: replay a prepared trace against the image
 * tbbt-init built (engine.h says how).
 *
 *   tbbt-play [options] TRACE.tbbt SERVER:/EXPORT
 *
 * Exit: 0 done, 1 failed (cannot start: files, server), 2 bad usage,
 * 3 interrupted (results written and marked partial). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "outfile.h"
#include "clones.h"
#include "engine.h"
#include "locks.h"
#include "mpi_ranks.h"
#include "simrun.h"
#include "usage.h"

struct play_cli {
    char *order, *manifest, *json, *cred, *deps, *send_log, *fail_log, *json_rank;
    gdouble speedup, warmup, duration;
    gint window, max_out, connections, clone, clones, loop, timeout, nfsport, mountport;
    gint64 limit, seed;
    gboolean strict, quiet, live, no_live, udp;
    gboolean simulate, list_locks;
    char *sim_latency, *sim_windows;
};

/* max_out 0: not given (the player's default is 1024; --simulate has no cap) */
static struct play_cli cli = {.window = 4096, .max_out = 0, .timeout = 30, .seed = 1};

/* The options, declared once: parsing and --help both come from here. */
static GOptionEntry play_entries[] = {
    {"order", 'o', 0, G_OPTION_ARG_STRING, &cli.order,
     "conservative (the trace's own concurrency) or fsdep (file-system dependencies; default)", "ORDER"},
    {"strict-deps", 0, 0, G_OPTION_ARG_NONE, &cli.strict, "fsdep: hold every write lock until the reply",
     NULL},
    {"deps", 0, 0, G_OPTION_ARG_STRING, &cli.deps,
     "fsdep: release locks at the reply (default), at the send (paper), or strict", "reply|send|strict"},
    {"speedup", 's', 0, G_OPTION_ARG_DOUBLE, &cli.speedup,
     "Send by the trace's timestamps divided by F (below 1 slows down); default: full speed", "F"},
    {"window", 'w', 0, G_OPTION_ARG_INT, &cli.window, "Lookahead window, records (default 4096)", "N"},
    {"max-outstanding", 0, 0, G_OPTION_ARG_INT, &cli.max_out, "Requests out at most (default 1024)", "N"},
    {"connections", 'c', 0, G_OPTION_ARG_INT, &cli.connections,
     "TCP connections (default: one per traced client)", "N"},
    {"udp", 'u', 0, G_OPTION_ARG_NONE, &cli.udp,
     "Send over UDP (one datagram a request; a request too large for one fails) instead of TCP", NULL},
    {"clone", 0, 0, G_OPTION_ARG_INT, &cli.clone, "The image clone to play against (default 0)", "I"},
    {"clones", 0, 0, G_OPTION_ARG_INT, &cli.clones,
     "Replay N copies of the trace, copy i against clone I+i (tbbt-init --clones), interleaved by traced "
     "time; each its own handles, ordering and connections (one per traced client per clone, 64 at most "
     "in all); --window is per copy (default 1; under mpirun the clones are shared out among the ranks, one "
     "per rank by default)",
     "N"},
    {"loop", 0, 0, G_OPTION_ARG_INT, &cli.loop,
     "Replay the trace N times one after another, copy i against clone I+i (tbbt-init --clones N), its times "
     "shifted past the end of copy i-1: a run N times as long (not with --clones, nor under mpirun)",
     "N"},
    {"send-log", 0, 0, G_OPTION_ARG_FILENAME, &cli.send_log,
     "Write \"CLONE RECORD\" (the record's 0-based index in the trace) per request sent, in send order",
     "FILE"},
    {"fail-log", 0, 0, G_OPTION_ARG_FILENAME, &cli.fail_log,
     "Write \"CLONE RECORD vV PROC TRACED GOT\" per record that did not get its traced status (GOT: the "
     "NFS status, or timeout, no-handle, skipped, conn-lost, refused)",
     "FILE"},
    {"manifest", 'm', 0, G_OPTION_ARG_FILENAME, &cli.manifest,
     "tbbt-init's manifest (default: the trace's name with .manifest)", "FILE"},
    {"warmup", 0, 0, G_OPTION_ARG_DOUBLE, &cli.warmup, "Seconds replayed but left out of the figures", "SEC"},
    {"duration", 0, 0, G_OPTION_ARG_DOUBLE, &cli.duration, "Stop sending after SEC seconds", "SEC"},
    {"limit", 0, 0, G_OPTION_ARG_INT64, &cli.limit, "Replay the first N records only", "N"},
    {"timeout", 't', 0, G_OPTION_ARG_INT, &cli.timeout,
     "Seconds a request may wait for its reply (default 30)", "SEC"},
    {"cred", 0, 0, G_OPTION_ARG_STRING, &cli.cred,
     "AUTH_SYS uid:gid for every request (default: the trace's)", "UID:GID"},
    {"nfs-port", 0, 0, G_OPTION_ARG_INT, &cli.nfsport, "NFS port (default: ask the portmapper)", "PORT"},
    {"mount-port", 0, 0, G_OPTION_ARG_INT, &cli.mountport,
     "MOUNT port, to check before the replay that the export exists (default: the portmapper's, asked only "
     "when --nfs-port is not given)",
     "PORT"},
    {"seed", 0, 0, G_OPTION_ARG_INT64, &cli.seed, "Seed of the write payload and verifiers (default 1)", "N"},
    {"json", 'j', 0, G_OPTION_ARG_FILENAME, &cli.json, "Write the results as one JSON document", "FILE"},
    {"json-rank", 0, 0, G_OPTION_ARG_FILENAME, &cli.json_rank,
     "Write this rank's own results as FILE.RANK (under mpirun; alone, FILE.0)", "FILE"},
    {"live", 0, 0, G_OPTION_ARG_NONE, &cli.live, "A live progress line (default when stderr is a terminal)",
     NULL},
    {"no-live", 0, 0, G_OPTION_ARG_NONE, &cli.no_live, "No live progress line", NULL},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &cli.quiet, "Print only errors", NULL},
    {"list-locks", 0, 0, G_OPTION_ARG_NONE, &cli.list_locks,
     "Print fsdep's lock table (what each procedure's request and reply read and write: the paper's Table 4, "
     "extended) and exit",
     NULL},
    {"simulate", 0, 0, G_OPTION_ARG_NONE, &cli.simulate,
     "No server: play TRACE against a simulated one (fixed latency per procedure) and print the throughput "
     "and concurrency each lookahead window allows",
     NULL},
    {"sim-latency", 0, 0, G_OPTION_ARG_STRING, &cli.sim_latency,
     "--simulate: server latency, us, per procedure and/or default (default: the trace's median per "
     "procedure)",
     "PROC=USEC,...[,default=USEC]"},
    {"sim-windows", 0, 0, G_OPTION_ARG_STRING, &cli.sim_windows,
     "--simulate: lookahead windows, records (default 100,200,500,1000,2000,5000,10000)", "N,N,..."},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

static char *default_manifest; /* made by check(), freed by main() */

/* A usage error (lib/usage.h): the message, the synopsis, exit 2. */
static G_GNUC_NORETURN void usage(const char *what) {
    tbbt_usage_error(TBBT_PLAY_TOOL, TBBT_PLAY_SYNOPSIS, "%s", what);
}

/* SIGINT, SIGTERM: stop sending, finish, report, exit 3. */
static void on_signal(int sig) {
    (void)sig;
    tbbt_play_interrupt();
}

/* Checks the options and fills o; exits 2 on a bad one. */
static void check(int argc, char **argv, struct tbbt_play_opts *o) {
    tbbt_play_opts_default(o);
    if (!cli.max_out) cli.max_out = 1024; /* not given */
    if (argc != 3)
        usage(argc < 3 ? "expected TRACE.tbbt and SERVER:/EXPORT (--simulate for no server)"
                       : "expected TRACE.tbbt and SERVER:/EXPORT only");
    if (cli.order && !(o->order = tbbt_sched_find(cli.order))) usage("--order must be conservative or fsdep");
    if (cli.speedup < 0 || cli.window < 1 || cli.max_out < 1 || cli.timeout < 1 || cli.connections < 0 ||
        cli.connections > 64 || cli.clone < 0 || cli.clones < 0 || cli.warmup < 0 || cli.duration < 0 ||
        cli.limit < 0)
        usage("--speedup, --window, --max-outstanding, --timeout must be positive; --connections 0..64");
    gint64 nclones = cli.clones ? cli.clones : 1; /* 0: not given (under mpirun: one per rank) */
    if ((gint64)cli.clone + nclones > TBBT_CLONE_MAX || (gint64)cli.window * nclones > (1 << 28))
        usage("--clones must be 1 or more, --clone + --clones at most 4194304, --window x --clones at most "
              "2^28");
    o->send_log = cli.send_log;
    o->fail_log = cli.fail_log;
    char err[512];
    if (cli.nfsport < 0 || cli.nfsport > 65535 || cli.mountport < 0 || cli.mountport > 65535)
        usage("--nfs-port and --mount-port must be 1..65535");
    if (tbbt_nfs_server_parse(argv[2], cli.nfsport, cli.mountport, &o->server, err, sizeof(err)) < 0)
        usage(err);
    unsigned uid, gid;
    char extra;
    if (cli.cred) {
        if (sscanf(cli.cred, "%u:%u%c", &uid, &gid, &extra) != 2) usage("--cred must be UID:GID");
        o->cred_set = 1, o->uid = uid, o->gid = gid;
    }
    o->trace = argv[1];
    if (cli.manifest) {
        o->manifest = cli.manifest;
    } else {
        size_t n = strlen(argv[1]);
        if (n > 5 && g_str_has_suffix(argv[1], ".tbbt")) n -= 5;
        o->manifest = default_manifest = g_strdup_printf("%.*s.manifest", (int)n, argv[1]);
    }
    o->deps = cli.strict ? TBBT_DEPS_STRICT : TBBT_DEPS_REPLY;
    if (cli.deps && (o->deps = tbbt_sched_deps(cli.deps)) < 0) usage("--deps must be reply, send or strict");
    o->speedup = cli.speedup, o->window = (uint32_t)cli.window;
    o->max_outstanding = (uint32_t)cli.max_out, o->connections = cli.connections, o->clone = cli.clone;
    o->clones = cli.clones; /* 0: unset, tbbt_mpi_setup decides */
    if (cli.loop < 0 || (cli.loop > 1 && cli.clones > 1))
        usage("--loop must be 1 or more, and not with --clones");
    o->loop = cli.loop;
    o->warmup_s = cli.warmup, o->duration_s = cli.duration, o->limit = (uint64_t)cli.limit;
    o->udp = cli.udp;
    o->timeout_s = cli.timeout, o->seed = (uint64_t)cli.seed;
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
    GOptionContext *ctx =
        g_option_context_new("TRACE.tbbt SERVER:/EXPORT - replay a trace against an NFS server");
    g_option_context_add_main_entries(ctx, play_entries, NULL);
    char *desc = g_strdup_printf("Exit: 0 done, 1 failed, 2 usage, 3 interrupted (partial results).\n"
                                 "MPI (mpirun -np N tbbt-play ...): %s.",
                                 tbbt_mpi_built());
    g_option_context_set_description(ctx, desc);
    tbbt_usage_parse(ctx, TBBT_PLAY_TOOL, TBBT_PLAY_SYNOPSIS, &argc, &argv);
    g_free(desc);
    if (cli.list_locks) {
        tbbt_locks_print(stdout);
        return fflush(stdout) == 0 ? 0 : 1;
    }
    if (cli.simulate)
        return tbbt_simrun_main(argc, argv,
                                &(struct tbbt_simrun_args){cli.order, cli.deps, cli.strict, cli.sim_latency,
                                                           cli.sim_windows, cli.json, cli.max_out, cli.limit,
                                                           cli.speedup, cli.quiet});
    struct tbbt_play_opts o;
    check(argc, argv, &o);
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
    if (replayed && cli.json && tbbt_mpi_rank() == 0 && write_json(&st, cli.json) < 0) rc = -1;
    tbbt_pstats_free(&st);
    g_free(default_manifest);
    return rc < 0 ? 1 : rc;
}
