/* prep_main.c -- tbbt-prep: a capture in, replay records out.
 *
 * Pass 1 (this file's job today): decode the capture, pair calls with
 * replies, map handles to TBBT-IDs, write NAME.tbbt beside the input (or
 * at -o), and print the summary. Exit codes as in design.md: 0 done
 * (warnings may have been printed), 1 failed, 2 bad usage. */
#include <errno.h>
#include <pthread.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include <glib.h>

#include "outfile.h"
#include "capture.h"
#include "fhmap.h"
#include "pass1.h"
#include "pass2.h"
#include "pass3.h"
#include "pipeline.h"
#include "recfile.h"
#include "rectext.h"
#include "quality.h"
#include "summary.h"
#include "textin.h"
#include "interrupt.h"
#include "opttab.h"
#include "usage.h"
#include "version.h"
#include "clock.h"
#include "workspace.h"
#include "memlimit.h"

#define TOOL "tbbt-prep"
/* The forms of the command line, for usage errors (lib/usage.h); --help has the options. */
#define SYNOPSIS                                                                                             \
    "tbbt-prep [-o OUT.tbbt] [OPTION...] INPUT\n"                                                            \
    "tbbt-prep -o OUT.tbbt [OPTION...] -\n"                                                                  \
    "tbbt-prep [-o OUT.tbbt] [OPTION...] ELLARD-FILE..."

struct prep_opts {
    char *output;
    char **ports;
    double reply_timeout;
    double retrans_span;
    double step_threshold;
    char *summary_json;
    gboolean quiet;
    gint max_warnings;
    gboolean no_correct;
    char *map;
    gboolean no_map;
    char *format;
    char *size_swap;
    char *size_swap_before;
    gint64 seed;
    char *max_memory;
    gint threads;
};

static struct prep_opts opt;

/* The options, declared once (lib/opttab.h): defaults, bounds, parsing and --help. */
static const struct tbbt_opt prep_opts[] = {
    {"output", 'o', TBBT_OPT_FILE, &opt.output, "FILE", .defhelp = "NAME.tbbt beside the capture",
     .help = "Record file to write"},
    {"port", 'p', TBBT_OPT_LIST, &opt.ports, "PORT",
     .help = "Also treat this TCP/UDP port as NFS (NFS is found by RPC program on any port; repeatable)"},
    {"reply-timeout", 0, TBBT_OPT_DOUBLE, &opt.reply_timeout, "SEC", "30", .dlo = 0.001, .dhi = 1e6,
     .help = "Seconds after which a call with no reply is kept as reply-lost"},
    {"retrans-span", 0, TBBT_OPT_DOUBLE, &opt.retrans_span, "SEC", "300", .dlo = 0.001, .dhi = 1e6,
     .help = "Seconds of trace over which a call seen again is known as a retransmission, not a new call "
             "(clients retransmit over TCP after 60 s)"},
    {"step-threshold", 0, TBBT_OPT_DOUBLE, &opt.step_threshold, "SEC", "1", .dlo = 0.001, .dhi = 1e6,
     .help = "A backward clock step larger than this many seconds is repaired"},
    {"summary-json", 0, TBBT_OPT_FILE, &opt.summary_json, "FILE",
     .help = "Also write the summary as JSON to FILE"},
    {"quiet", 'q', TBBT_OPT_FLAG, &opt.quiet, .help = "Print only warnings and errors"},
    {"no-correct", 0, TBBT_OPT_FLAG, &opt.no_correct,
     .help = "Pass 1 only: write the records as captured, without pass 2's pre-play and corrections"},
    {"format", 'f', TBBT_OPT_STRING, &opt.format, "KIND", "auto", .choices = "capture|ellard|text|auto",
     .help = "What the input is: capture, ellard (nfsdump text), text (records' text form), or auto (found "
             "from its first bytes)"},
    {"size-swap", 0, TBBT_OPT_STRING, &opt.size_swap, "WHEN", "date", .choices = "date|always|never",
     .help =
         "Ellard traces: swap back the 32-bit halves of v3 setattr sizes: date (calls before 2003-09-01 UTC, "
         "when nfsdump was fixed), always or never"},
    {"size-swap-before", 0, TBBT_OPT_STRING, &opt.size_swap_before, "DATE", "2003-09-01",
     .help =
         "Ellard traces: the date rule's cutoff, YYYY-MM-DD UTC (nfsdump's notes date its fix 2003-09-09)"},
    {"map", 'm', TBBT_OPT_FILE, &opt.map, "FILE",
     .defhelp = "NAME.hmap beside the records; beside the capture when -o is /dev/null or a FIFO",
     .help = "Hierarchy map to write"},
    {"no-map", 0, TBBT_OPT_FLAG, &opt.no_map,
     .help = "Skip pass 3: no hierarchy map, and no victim IDs in remove, rmdir and rename records"},
    {"seed", 0, TBBT_OPT_INT64, &opt.seed, "N", "1", 0, INT64_MAX,
     .help = "Seed of the corrective records' timestamps"},
    TBBT_MEMLIMIT_OPTION(opt.max_memory, "the passes"),
    {"threads", 'j', TBBT_OPT_INT, &opt.threads, "N", "2", 1, 3,
     .help = "Threads the passes run on: 1 (one after the other on one core), 2 (the capture and pass 1 on "
             "one, passes 2 and 3 and the writer on the other) or 3 (the writer on its own); the records "
             "are the same byte for byte"},
    {"max-warnings", 0, TBBT_OPT_INT, &opt.max_warnings, "N", "10", 0, INT_MAX,
     .help = "Print at most N per-packet warnings (malformed packets, lost framing), then only their count"},
    TBBT_OPT_END};

static const struct tbbt_cmd prep_cmd = {
    TOOL, SYNOPSIS, "INPUT - decode an NFS capture or trace into replay records",
    "Reads pcap/pcapng captures, Ellard's nfsdump text traces and the records' text form (also .gz, .zst). "
    "INPUT - (standard input), a pipe or a FIFO is read once as a capture (plain or .zst; --format for "
    "another kind), and needs -o. Several Ellard files are read in turn as one trace. The records and map "
    "are recorded as the trace of the workspace (the "
    "current directory's " TBBT_WS_FILE ", docs/workspace.md) unless -o writes them elsewhere and there is "
    "no workspace here. Exit: 0 done, 1 failed, 2 usage, 3 interrupted.",
    prep_opts};

/* What the report needs of pass 1, kept when pass 1 is freed: its tables
 * go as soon as its last record is out, while passes 2 and 3 end on the
 * other thread (run_input). */
struct p1_facts {
    struct tbbt_pass1_stats st;
    struct tbbt_fhmap_stats fs;
    struct tbbt_timefix tf;
    struct tbbt_client_loss *loss;
    unsigned nloss;
    tbbt_id *roots; /* export roots MOUNT replies named, for the map */
    unsigned nroots;
};

struct prep {
    const char *in;
    const char *outpath, *mappath; /* the records and the map (end_passes writes the map) */
    const char *const *ins;        /* every INPUT (several: Ellard files, read as one trace) */
    int nin;
    int kind;                 /* TBBT_IN_*: what the input holds */
    struct tbbt_capture *cap; /* a capture's decoder, else NULL */
    struct tbbt_pass1 *p1;    /* pass 1, for a capture, until its last record is out */
    struct p1_facts f1;       /* then what the report needs of it */
    int want_map;             /* the input held records: passes 2 and 3 end with the map */
    uint64_t text_records;    /* records read from a text input */
    uint64_t warnings;
    struct tbbt_pass2 *p2; /* NULL with --no-correct */
    struct tbbt_pass3 *p3; /* NULL with --no-map */
    struct tbbt_recwriter *w;
    struct tbbt_pipe *pipe1; /* --threads 2+: pass 1's records to passes 2 and 3, else NULL */
    struct tbbt_pipe *pipe2; /* --threads 3: records to the writer, else NULL */
    struct tbbt_summary sum;
    struct tbbt_quality quality; /* the capture's verdict, once it is read */
    struct tbbt_ws *ws;          /* the current directory's workspace */
    char err[512];
};

/* The writer's sink: records to the file. */
static int file_sink(void *ctx, const struct tbbt_rec *r) {
    struct prep *p = ctx;
    return tbbt_recw_put(p->w, r);
}

/* The pass-3 sink: records with their victim IDs, to the file (through
 * the writer's thread with --threads 3). */
static int write_sink(void *ctx, const struct tbbt_rec *r) {
    struct prep *p = ctx;
    return p->pipe2 ? tbbt_pipe_put(p->pipe2, r) : file_sink(p, r);
}

/* The pass-2 sink: corrected records, inserted ones among them, through
 * pass 3 to the file. */
static int map_sink(void *ctx, const struct tbbt_rec *r) {
    struct prep *p = ctx;
    return p->p3 ? tbbt_pass3_put(p->p3, r) : write_sink(p, r);
}

/* What follows pass 1 (on the second thread with --threads 2 or 3):
 * every captured record goes to the summary (what the capture saw), then
 * through passes 2 and 3 to the file. The summary is counted here, not
 * on pass 1's thread, which is the busier one. */
static int after_pass1(void *ctx, const struct tbbt_rec *r) {
    struct prep *p = ctx;
    tbbt_summary_add(&p->sum, r);
    return p->p2 ? tbbt_pass2_put(p->p2, r) : map_sink(p, r);
}

/* The pass-1 sink: to the second thread, or on to passes 2 and 3. */
static int prep_sink(void *ctx, const struct tbbt_rec *r) {
    struct prep *p = ctx;
    return p->pipe1 ? tbbt_pipe_put(p->pipe1, r) : after_pass1(p, r);
}

/* Records written: pass 2's output (captured and inserted), or the input's. */
static unsigned long long records_written(const struct prep *p) {
    if (p->p2) return (unsigned long long)tbbt_pass2_stats(p->p2)->records_out;
    return p->cap ? (unsigned long long)p->f1.st.records : (unsigned long long)p->text_records;
}

/* Per-packet warnings from the capture layer and pass 1: one line each,
 * naming the file and the packet, up to --max-warnings; the rest are
 * counted and said at the end. */
static void prep_warn(void *ctx, uint64_t pktno, const char *what) {
    struct prep *p = ctx;
    if (p->warnings++ < (uint64_t)opt.max_warnings)
        fprintf(stderr, "tbbt-prep: warning: %s: packet %llu: %s\n", p->in, (unsigned long long)pktno, what);
}

/* NAME.tbbt beside the input: strips .zst/.gz, then .pcap/.pcapng/.cap. */
static char *default_output(const char *in) {
    static const char *sfx[] = {".zst", ".gz", ".pcapng", ".pcap", ".cap", ".dmp", NULL};
    char *s = g_strdup(in);
    for (int round = 0; round < 2; round++)
        for (int i = 0; sfx[i]; i++)
            if (g_str_has_suffix(s, sfx[i]) && strlen(s) > strlen(sfx[i])) {
                s[strlen(s) - strlen(sfx[i])] = 0;
                break;
            }
    char *out = g_strconcat(s, ".tbbt", NULL);
    g_free(s);
    return out;
}

/* NAME.hmap beside the records: NAME.tbbt's suffix replaced. */
static char *map_path(const char *records) {
    size_t n = strlen(records);
    if (n > 5 && g_str_has_suffix(records, ".tbbt")) n -= 5;
    return g_strdup_printf("%.*s.hmap", (int)n, records);
}

/* Pass 3's end: the export roots pass 1 learnt, then the map. Returns 0,
 * or -1 with the message in p->err. */
static int write_map(struct prep *p) {
    for (unsigned i = 0; i < p->f1.nroots; i++)
        tbbt_pass3_add_root(p->p3, p->f1.roots[i]);
    char *b1 = g_path_get_basename(p->in), *b2 = g_path_get_basename(p->outpath);
    char *comment = g_strdup_printf("source %s\nrecords %s\ntool tbbt-prep " TBBT_VERSION, b1, b2);
    int rc = tbbt_pass3_write_map(p->p3, p->mappath, comment, p->err, sizeof(p->err));
    g_free(b1), g_free(b2), g_free(comment);
    return rc;
}

/* Formats an endpoint as the text form does. */
static void endpoint_str(const struct tbbt_endpoint *e, char *buf, size_t n) {
    GString *g = g_string_new(NULL);
    if (tbbt_endpoint_format(g, e) != 0) g_string_assign(g, "?");
    g_strlcpy(buf, g->str, n);
    g_string_free(g, TRUE);
}

/* The figures a user sizes a machine by: peak memory, per object of the
 * trace, and calls per CPU second (docs/prep.md's limits). */
static void print_footprint(FILE *out, uint64_t objects, uint64_t calls, double cpu) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double bytes = (double)ru.ru_maxrss * 1024;
    fprintf(out, "Footprint: peak memory %.1f MiB", bytes / 1048576);
    if (objects >= 10000) /* below, the program itself is most of it */
        fprintf(out, ", %.0f bytes per object (%llu objects)", bytes / (double)objects,
                (unsigned long long)objects);
    if (cpu > 0) fprintf(out, ", %.0f calls per CPU second", (double)calls / cpu);
    char bound[32];
    tbbt_memlimit_format(tbbt_memlimit_get(), bound, sizeof(bound));
    if (tbbt_memlimit_get()) fprintf(out, "; bound %s (--max-memory)", bound);
    fputc('\n', out);
}

/* Prints what the decoder saw and did, after the per-procedure table. */
static void print_report(FILE *out, const char *in, struct tbbt_capture *cap, struct prep *p, double wall,
                         double cpu) {
    const struct tbbt_capstats *cs = tbbt_capture_stats(cap);
    const struct tbbt_pass1_stats *s = &p->f1.st;
    const struct tbbt_fhmap_stats *fs = &p->f1.fs;
    const struct tbbt_timefix *tf = &p->f1.tf;
    tbbt_quality_print(&p->quality, out);
    fputc('\n', out);
    tbbt_summary_print(&p->sum, out);
    fprintf(out, "Capture %s: %llu packets, %.1f MB; %llu RPC messages (%llu cut short)\n", in,
            (unsigned long long)cs->packets, cs->bytes / 1e6, (unsigned long long)cs->messages,
            (unsigned long long)cs->truncated_msgs);
    fprintf(
        out,
        "RPC: %llu calls, %llu replies; NFS records %llu (v2 %llu, v3 %llu); skipped: v4 %llu, MOUNT %llu, "
        "other programs %llu, unknown procedures %llu, not RPC %llu\n",
        (unsigned long long)s->rpc_calls, (unsigned long long)s->rpc_replies, (unsigned long long)s->records,
        (unsigned long long)s->nfs_v2, (unsigned long long)s->nfs_v3, (unsigned long long)s->nfs_v4,
        (unsigned long long)s->mount_calls, (unsigned long long)s->other_calls,
        (unsigned long long)s->nfs_unknown_proc, (unsigned long long)s->bad_rpc);
    fprintf(out,
            "Pairing: %llu calls without reply, %llu replies without call, %llu reply-before-call, "
            "%llu retransmitted calls, %llu duplicate replies, %llu RPC errors\n",
            (unsigned long long)s->replies_lost, (unsigned long long)s->replies_without_call,
            (unsigned long long)s->reply_first, (unsigned long long)s->retrans_calls,
            (unsigned long long)s->dup_replies, (unsigned long long)s->rpc_errors);
    if (s->retrans_span_cut)
        fprintf(out,
                "Retransmissions: known over %.1f s of trace, not the %.0f s asked: at this call rate the "
                "memory bound forgot %llu calls early\n",
                s->retrans_span_kept / 1e9, opt.retrans_span, (unsigned long long)s->retrans_span_cut);
    fprintf(out,
            "Streams: %llu TCP connections, %llu gaps, %llu resyncs, %llu bytes skipped, %llu retransmitted "
            "and %llu overlapping segments, %llu IP datagrams reassembled\n",
            (unsigned long long)cs->tcp_streams, (unsigned long long)cs->tcp_gaps,
            (unsigned long long)cs->resyncs, (unsigned long long)cs->skipped_bytes,
            (unsigned long long)cs->tcp_retrans, (unsigned long long)cs->tcp_overlap,
            (unsigned long long)cs->ip_reassembled);
    fprintf(out,
            "Objects: %llu TBBT-IDs, %llu handles joined by fileid, %llu retired, %llu roots from MOUNT, "
            "%llu stale handles of retired objects, %llu shown by replies to calls sent before the removal\n",
            (unsigned long long)fs->objects, (unsigned long long)fs->aliases, (unsigned long long)fs->retired,
            (unsigned long long)s->roots_learnt, (unsigned long long)s->stale_dead,
            (unsigned long long)s->overlap_dead);
    if (tf->steps)
        fprintf(out, "Time: %llu backward clock steps removed (%.3f s in all)\n",
                (unsigned long long)tf->steps, tf->removed / 1e9);
    else
        fprintf(out, "Time: no backward clock step\n");
    const struct tbbt_client_loss *l = p->f1.loss;
    for (unsigned i = 0; i < p->f1.nloss; i++) {
        char ep[128];
        endpoint_str(&l[i].client, ep, sizeof(ep));
        if (l[i].transports > 1) { /* a host: its address, and how its calls were numbered */
            char *colon = strrchr(ep, ':');
            if (colon) *colon = '\0';
            size_t k = strlen(ep);
            snprintf(ep + k, sizeof(ep) - k, " (%u connections, one xid counter)", l[i].transports);
        }
        const struct tbbt_xs_result *e = &l[i].est;
        if (e->sequential)
            fprintf(out, "Loss: client %s: %llu calls, est. %llu missing (%.2f%%)%s\n", ep,
                    (unsigned long long)l[i].calls, (unsigned long long)e->missing,
                    100.0 * (double)e->missing / (double)(l[i].calls + e->missing),
                    e->swapped ? ", xids in little-endian order" : "");
        else
            fprintf(out, "Loss: client %s: %llu calls; xids not sequential, loss not estimated\n", ep,
                    (unsigned long long)l[i].calls);
    }
    fprintf(out, "Speed: %.1f MB/s, %.0f calls/s (%.3f s wall, %.3f s CPU)\n", cs->bytes / 1e6 / wall,
            s->records / wall, wall, cpu);
    print_footprint(out, fs->objects, s->records, cpu);
}

/* Appends the capture's and pass 1's figures to the summary JSON. */
static void capture_json(GString *j, const struct prep *p) {
    const struct tbbt_capstats *cs = tbbt_capture_stats(p->cap);
    const struct tbbt_pass1_stats *s = &p->f1.st;
    const struct tbbt_timefix *tf = &p->f1.tf;
    g_string_append_printf(
        j,
        "\"records\":%llu,\"packets\":%llu,\"bytes\":%llu,\"messages\":%llu,\"rpc_calls\":%llu,"
        "\"rpc_replies\":%llu,\"calls_without_reply\":%llu,\"replies_without_call\":%llu,"
        "\"reply_first\":%llu,\"retrans_calls\":%llu,\"dup_replies\":%llu,\"nfs_v4_calls\":%llu,"
        "\"other_calls\":%llu,\"mount_calls\":%llu,\"skipped_bytes\":%llu,\"resyncs\":%llu,"
        "\"tail_cut\":%s,\"time_steps\":%llu,\"time_removed_s\":%.9f,\"retrans_span_s\":%.3f,"
        "\"retrans_span_kept_s\":%.3f,\"retrans_span_cut\":%llu,\"objects\":%llu,",
        (unsigned long long)s->records, (unsigned long long)cs->packets, (unsigned long long)cs->bytes,
        (unsigned long long)cs->messages, (unsigned long long)s->rpc_calls,
        (unsigned long long)s->rpc_replies, (unsigned long long)s->replies_lost,
        (unsigned long long)s->replies_without_call, (unsigned long long)s->reply_first,
        (unsigned long long)s->retrans_calls, (unsigned long long)s->dup_replies,
        (unsigned long long)s->nfs_v4, (unsigned long long)s->other_calls, (unsigned long long)s->mount_calls,
        (unsigned long long)cs->skipped_bytes, (unsigned long long)cs->resyncs,
        cs->tail_cut ? "true" : "false", (unsigned long long)tf->steps, tf->removed / 1e9, opt.retrans_span,
        s->retrans_span_kept / 1e9, (unsigned long long)s->retrans_span_cut,
        (unsigned long long)p->f1.fs.objects);
}

/* Writes the summary JSON used by tests and benchmarks. */
static int write_summary_json(const char *path, struct prep *p, double wall, double cpu) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    GString *j = g_string_new("{\"input\":");
    tbbt_json_str(j, tbbt_input_kind_name(p->kind), strlen(tbbt_input_kind_name(p->kind)));
    g_string_append_c(j, ',');
    if (p->cap) {
        capture_json(j, p);
        tbbt_quality_json(&p->quality, j);
        g_string_append_c(j, ',');
    } else
        g_string_append_printf(j, "\"records\":%llu,", (unsigned long long)p->text_records);
    g_string_append_printf(j, "\"wall_s\":%.6f,\"cpu_s\":%.6f,\"maxrss_kb\":%ld,", wall, cpu, ru.ru_maxrss);
    tbbt_summary_json(&p->sum, j);
    if (p->p2) {
        g_string_append(j, ",\"correct\":");
        tbbt_pass2_report_json(p->p2, j);
    }
    if (p->p3) {
        g_string_append(j, ",\"map\":");
        tbbt_pass3_report_json(p->p3, j);
    }
    g_string_append(j, "}\n");
    return tbbt_out_put("tbbt-prep", path, j);
}

/* The --format option as an input kind (0 = auto; the table allows no other). */
static int forced_kind(void) {
    if (!strcmp(opt.format, "capture")) return TBBT_IN_CAPTURE;
    if (!strcmp(opt.format, "ellard")) return TBBT_IN_ELLARD;
    if (!strcmp(opt.format, "text")) return TBBT_IN_RECTEXT;
    return 0;
}

/* The --size-swap-before day as seconds since the epoch (00:00 UTC); exits
 * 2 when it is not a day YYYY-MM-DD. */
static int64_t swap_before_epoch(void) {
    int y, m, d;
    char tail;
    GDateTime *t = NULL;
    if (sscanf(opt.size_swap_before, "%4d-%2d-%2d%c", &y, &m, &d, &tail) == 3 &&
        strlen(opt.size_swap_before) == 10)
        t = g_date_time_new_utc(y, m, d, 0, 0, 0);
    if (!t)
        tbbt_opt_usage(&prep_cmd, "--size-swap-before %s: must be a day, YYYY-MM-DD", opt.size_swap_before);
    int64_t s = g_date_time_to_unix(t);
    g_date_time_unref(t);
    return s;
}

/* The --max-memory bound (memlimit.h), the default when not given; exits
 * 2 when it is not a size. */
static void set_max_memory(void) {
    if (tbbt_memlimit_option(TOOL, opt.max_memory) != 0)
        tbbt_opt_usage(&prep_cmd, "--max-memory %s: must be " TBBT_MEMLIMIT_ALLOWED, opt.max_memory);
}

/* Parses and checks every option before touching a file (bad usage exits
 * 2 whatever the file), then finds what the input holds and, for a
 * capture, opens it (exit 1 if it cannot). Returns the input path. */
static const char *parse_args(int argc, char **argv, struct prep *p) {
    tbbt_opt_parse(&prep_cmd, &argc, &argv);
    if (argc < 2) tbbt_opt_usage(&prep_cmd, "no INPUT given");
    if (strcmp(argv[1], "-") == 0 && !opt.output)
        tbbt_opt_usage(&prep_cmd, "reading standard input (-) needs -o OUT.tbbt");
    int kind = forced_kind();
    swap_before_epoch();
    set_max_memory();
    uint16_t ports[64];
    unsigned nports = 0;
    for (char **s = opt.ports; s && *s; s++) {
        char *end;
        long v = strtol(*s, &end, 10);
        if (!**s || *end || v <= 0 || v > 65535)
            tbbt_opt_usage(&prep_cmd, "--port %s: must be a port number from 1 to 65535", *s);
        if (nports == 64) tbbt_opt_usage(&prep_cmd, "--port %s: 64 ports at most", *s);
        ports[nports++] = (uint16_t)v;
    }
    char err[1024];
    if (!(p->ws = tbbt_ws_load(err, sizeof(err)))) { /* a broken workspace is said before any work */
        fprintf(stderr, "tbbt-prep: %s\n", err);
        exit(1);
    }
    if (!kind && (kind = tbbt_input_kind(argv[1], err, sizeof(err))) < 0) {
        fprintf(stderr, "tbbt-prep: %s\n", err);
        exit(1);
    }
    p->kind = kind ? kind : TBBT_IN_CAPTURE; /* unknown: the capture decoder says what is wrong */
    if (argc > 2 && p->kind != TBBT_IN_ELLARD)
        tbbt_opt_usage(&prep_cmd, "one INPUT only, got %d operands (several only for Ellard traces)",
                       argc - 1);
    p->ins = (const char *const *)argv + 1;
    p->nin = argc - 1;
    if (p->kind != TBBT_IN_CAPTURE) return argv[1];
    p->cap = tbbt_capture_open(argv[1], err, sizeof(err));
    if (!p->cap) {
        fprintf(stderr, "tbbt-prep: %s\n", err);
        exit(1);
    }
    for (unsigned i = 0; i < nports; i++)
        tbbt_capture_add_port(p->cap, ports[i]);
    return argv[1];
}

/* Records the trace just written in the workspace of the current
 * directory, so that tbbt-init and tbbt-play find it: when there is a
 * workspace here already, or the records are here or in their default
 * place (no -o). Not for records or a map that are not regular files
 * (/dev/null, a FIFO) or with --no-map. Returns 0, or -1 (said). */
static int record_trace(struct prep *p, const char *outpath, const char *mappath) {
    if (!p->p3 || !tbbt_out_replaceable(outpath) || !tbbt_out_replaceable(mappath)) return 0;
    char *dir = g_path_get_dirname(outpath);
    gboolean here = tbbt_ws_same_path(dir, ".");
    g_free(dir);
    if (!p->ws->exists && opt.output && !here) return 0;
    char err[1024];
    if (tbbt_ws_add_trace(p->ws, outpath, mappath, err, sizeof(err)) < 0 ||
        tbbt_ws_save(p->ws, err, sizeof(err)) < 0) {
        fprintf(stderr, "tbbt-prep: %s\n", err);
        return -1;
    }
    if (!opt.quiet)
        fprintf(stderr, "tbbt-prep: recorded %s (map %s) in %s\n", outpath, mappath, TBBT_WS_FILE);
    return 0;
}

/* The record file's metadata: the source and the passes it went through. */
static char *record_meta(const char *in, int kind) {
    char *base = g_path_get_basename(in);
    GString *mj = g_string_new("{\"source\":");
    tbbt_json_str(mj, base, strlen(base));
    g_string_append_printf(mj,
                           ",\"input\":\"%s\",\"tool\":\"tbbt-prep " TBBT_VERSION "\",\"passes\":\"1%s%s\"}",
                           tbbt_input_kind_name(kind), opt.no_correct ? "" : ",2", opt.no_map ? "" : ",3");
    g_free(base);
    return g_string_free(mj, FALSE);
}

/* The end of passes 2 and 3, after pass 1's last record: pass 2's last
 * records, then the map (when the input held records). On the second
 * thread with --threads 2 or 3 (the pipe's end), while pass 1's thread
 * frees pass 1. Returns 0, or -1 (the map's message in p->err; a
 * writer's failure is said by run_input). */
static int end_passes(void *ctx) {
    struct prep *p = ctx;
    if (p->p2 && tbbt_pass2_finish(p->p2) != 0) return -1;
    return p->want_map && p->p3 ? write_map(p) : 0;
}

/* Starts the threads --threads asks for: pass 1's records go to passes
 * 2 and 3 through pipe1, and with 3 threads pass 3's to the writer
 * through pipe2 (pipeline.h). Returns 0, or -1 with the message in p->err. */
static int start_threads(struct prep *p) {
    if (opt.threads >= 3 && !(p->pipe2 = tbbt_pipe_new(file_sink, NULL, p, p->err, sizeof(p->err))))
        return -1;
    if (opt.threads >= 2 && !(p->pipe1 = tbbt_pipe_new(after_pass1, end_passes, p, p->err, sizeof(p->err))))
        return -1;
    return 0;
}

/* Ends a pipe (pipeline.h): its records sunk when the work went well
 * (rc 0), else dropped. Returns rc, or -1 when the pipe's sink failed. */
static int end_pipe(struct tbbt_pipe *pipe, int rc) {
    if (pipe && tbbt_pipe_close(pipe, rc == 0) != 0) rc = -1;
    return rc;
}

/* Sets up passes 1 (for a capture), 2 and 3 in front of the writer. */
static void setup_passes(struct prep *p) {
    if (!opt.no_correct) {
        struct tbbt_pass2_opts o2;
        tbbt_pass2_opts_default(&o2);
        o2.seed = (uint64_t)opt.seed;
        p->p2 = tbbt_pass2_new(&o2, map_sink, p);
    }
    if (!opt.no_map) p->p3 = tbbt_pass3_new(write_sink, p);
    if (!p->cap) return;
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    o.reply_timeout = (int64_t)(opt.reply_timeout * 1e9);
    o.retrans_span = (int64_t)(opt.retrans_span * 1e9);
    o.step_threshold = (int64_t)(opt.step_threshold * 1e9);
    p->p1 = tbbt_pass1_new(&o, prep_sink, p);
    tbbt_capture_set_warn(p->cap, prep_warn, p);
    tbbt_pass1_set_warn(p->p1, prep_warn, p);
}

/* Keeps what the report and the map need of pass 1 (struct p1_facts),
 * before end_passes may read it. */
static void keep_pass1(struct prep *p) {
    if (!p->p1) return;
    p->f1.st = *tbbt_pass1_stats(p->p1);
    p->f1.fs = *tbbt_pass1_fhstats(p->p1);
    p->f1.tf = *tbbt_pass1_timefix(p->p1);
    const struct tbbt_client_loss *l = tbbt_pass1_loss(p->p1, &p->f1.nloss);
    p->f1.loss = g_memdup2(l, p->f1.nloss * sizeof(*l));
    const tbbt_id *roots = tbbt_pass1_roots(p->p1, &p->f1.nroots);
    p->f1.roots = g_memdup2(roots, p->f1.nroots * sizeof(*roots));
}

/* Runs the input through the passes to the writer: pass 1's records,
 * then the end of passes 2 and 3 (end_passes). With --threads 2 or 3
 * pass 1 is freed on this thread while the other drains the records in
 * flight and ends passes 2 and 3: the end, where one thread worked
 * alone, is shorter. Returns 0, or -1 with the message in p->err. */
static int run_input(struct prep *p) {
    int rc;
    uint64_t n;
    if (p->cap) {
        rc = tbbt_capture_run(p->cap, tbbt_pass1_msg, p->p1, p->err, sizeof(p->err));
        if (rc == 0 && tbbt_pass1_finish(p->p1) != 0) rc = -1, *p->err = 0;
        n = tbbt_pass1_stats(p->p1)->records;
    } else {
        int swap = !strcmp(opt.size_swap, "always") ? 1 : !strcmp(opt.size_swap, "never") ? -1 : 0;
        struct tbbt_textin_opts to = {
            opt.reply_timeout, opt.step_threshold, opt.max_warnings, opt.quiet, swap, swap_before_epoch()};
        rc = tbbt_textin_run(p->ins, p->nin, p->kind, &to, prep_sink, p, &p->text_records, p->err,
                             sizeof(p->err));
        n = p->text_records;
    }
    if (rc == 0) *p->err = 0;
    p->want_map = n > 0; /* read by end_passes, after the pipe's hand-off, as f1 */
    keep_pass1(p);
    if (p->pipe1) tbbt_pipe_end(p->pipe1, rc == 0);
    tbbt_pass1_free(p->p1); /* its handle table and rings: most of its memory */
    p->p1 = NULL;
    if (p->pipe1) { /* passes 2 and 3 done: joined */
        if (end_pipe(p->pipe1, rc) != 0 && rc == 0) rc = -1;
    } else if (rc == 0 && end_passes(p) != 0)
        rc = -1;
    if (rc != 0 && !*p->err)
        g_snprintf(p->err, sizeof(p->err), "%s",
                   *tbbt_recw_error(p->w) ? tbbt_recw_error(p->w) : "cannot write records");
    if (rc == 0 && n == 0) {
        g_snprintf(p->err, sizeof(p->err), "%s: no NFSv2 or NFSv3 calls found", p->in);
        rc = -1;
    }
    return rc;
}

/* Prints the report of a text input: what it held, then the passes'. */
static void print_text_report(FILE *out, struct prep *p, double wall, double cpu) {
    tbbt_summary_print(&p->sum, out);
    fprintf(out, "Input %s (%s): %llu records\n", p->in, tbbt_input_kind_name(p->kind),
            (unsigned long long)p->text_records);
    fprintf(out, "Speed: %.0f records/s (%.3f s wall, %.3f s CPU)\n", p->text_records / wall, wall, cpu);
    print_footprint(out, 0, p->text_records, cpu);
}

/* Warnings said once at the end: packets past --max-warnings, a cut tail. */
static void end_warnings(struct prep *p) {
    if (p->warnings > (uint64_t)opt.max_warnings)
        fprintf(stderr,
                "tbbt-prep: warning: %s: %llu more packets with warnings not shown (--max-warnings)\n", p->in,
                (unsigned long long)(p->warnings - (uint64_t)opt.max_warnings));
    const struct tbbt_capstats *cs = p->cap ? tbbt_capture_stats(p->cap) : NULL;
    if (cs && cs->tail_cut)
        fprintf(
            stderr,
            "tbbt-prep: warning: %s: capture cut short after packet %llu; kept every record before the cut\n",
            p->in, (unsigned long long)cs->packets);
}

/* Judges the capture read (quality.h) and, when it is not usable as it
 * is, says so on standard error even with --quiet. */
static void judge_capture(struct prep *p) {
    const struct tbbt_pass2_stats *s2 = p->p2 ? tbbt_pass2_stats(p->p2) : NULL;
    uint64_t restored = s2 ? s2->cut - s2->cut_unreplayable : 0;
    tbbt_quality_assess(&p->quality, tbbt_capture_stats(p->cap), &p->f1.st, p->f1.loss, p->f1.nloss,
                        restored);
    char *w = tbbt_quality_warning(&p->quality, p->in);
    if (w) fprintf(stderr, "tbbt-prep: warning: %s\n", w);
    g_free(w);
}

/* Frees pass 3 (its model: tens of millions of small blocks on a big
 * trace). */
static void *free_pass3(void *arg) {
    struct prep *p = arg;
    tbbt_pass3_free(p->p3);
    return NULL;
}

/* Frees what main made, whatever the outcome; returns rc. With --threads
 * 2 or 3 pass 3's model is freed on a second thread while this one frees
 * pass 2's (and pass 1's, on a failure before run_input freed it): the
 * end, where nothing else runs, is shorter. */
static int finish(struct prep *p, char *outpath, char *mappath, char *meta, int rc) {
    tbbt_pipe_free(p->pipe1);
    tbbt_pipe_free(p->pipe2);
    pthread_t th;
    int two = opt.threads >= 2 && pthread_create(&th, NULL, free_pass3, p) == 0;
    tbbt_pass1_free(p->p1);
    if (p->p2) tbbt_pass2_free(p->p2);
    if (two)
        pthread_join(th, NULL);
    else
        free_pass3(p);
    g_free(p->f1.loss), g_free(p->f1.roots);
    if (p->cap) tbbt_capture_close(p->cap);
    tbbt_ws_free(p->ws);
    g_free(mappath), g_free(outpath), g_free(meta);
    return rc;
}

/* The map's default name: beside the records, unless the records go to
 * /dev/null or a FIFO (not a regular file): then beside the capture, as
 * with no -o, not to /dev/null.hmap. */
static char *default_map(const char *in, const char *outpath) {
    if (tbbt_out_replaceable(outpath)) return map_path(outpath);
    char *d = default_output(in);
    char *m = map_path(d);
    g_free(d);
    return m;
}

int main(int argc, char **argv) {
    tbbt_interrupt_on_signal("tbbt-prep"); /* SIGINT, SIGTERM: temporaries removed, exit 3 */
    struct prep p;
    memset(&p, 0, sizeof(p));
    const char *in = parse_args(argc, argv, &p);
    p.in = in;
    char *outpath = opt.output ? g_strdup(opt.output) : default_output(in);
    char *mappath = opt.map ? g_strdup(opt.map) : default_map(in, outpath);
    p.outpath = outpath, p.mappath = mappath;
    tbbt_summary_init(&p.sum);
    char *meta = record_meta(in, p.kind);
    p.w = tbbt_recw_open(outpath, meta, p.err, sizeof(p.err));
    if (!p.w) {
        fprintf(stderr, "tbbt-prep: %s\n", p.err);
        return finish(&p, outpath, mappath, meta, 1);
    }
    setup_passes(&p);
    double w0 = tbbt_now_s(), c0 = tbbt_clock_s(CLOCK_PROCESS_CPUTIME_ID);
    int rc = start_threads(&p);
    if (rc == 0) rc = run_input(&p);           /* the map written too */
    if (end_pipe(p.pipe2, rc) != 0 && rc == 0) /* the writer's thread done: joined */
        g_snprintf(p.err, sizeof(p.err), "%s",
                   *tbbt_recw_error(p.w) ? tbbt_recw_error(p.w) : "cannot write records"),
            rc = -1;
    double wall = tbbt_now_s() - w0, cpu = tbbt_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (rc != 0) {
        fprintf(stderr, "tbbt-prep: %s\n", p.err);
        tbbt_recw_abort(p.w);
        return finish(&p, outpath, mappath, meta, 1);
    }
    if (tbbt_recw_close(p.w, p.err, sizeof(p.err)) != 0) {
        fprintf(stderr, "tbbt-prep: %s\n", p.err);
        unlink(mappath);
        return finish(&p, outpath, mappath, meta, 1);
    }
    end_warnings(&p);
    if (p.cap) judge_capture(&p);
    if (!opt.quiet) {
        if (p.cap)
            print_report(stdout, in, p.cap, &p, wall, cpu);
        else
            print_text_report(stdout, &p, wall, cpu);
        if (p.p2) {
            printf("\nPass 2 (pre-play against the file-system model, corrections):\n");
            tbbt_pass2_report(p.p2, stdout);
        }
        if (p.p3) {
            printf("\nPass 3 (hierarchy map):\n");
            tbbt_pass3_report(p.p3, stdout);
        }
        printf("Wrote %llu records to %s\n", records_written(&p), outpath);
        if (p.p3) printf("Wrote the hierarchy map to %s\n", mappath);
    }
    if (opt.summary_json && write_summary_json(opt.summary_json, &p, wall, cpu) != 0) rc = 1;
    if (record_trace(&p, outpath, mappath) != 0) rc = 1;
    return finish(&p, outpath, mappath, meta, rc);
}
