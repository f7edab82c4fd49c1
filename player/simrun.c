/* simrun.c -- `tbbt-play --simulate` (see simrun.h). */
#include "simrun.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <glib.h>

#include "outfile.h"
#include "hist.h"
#include "recfile.h"
#include "rectext.h"
#include "clock.h"
#include "usage.h"

static const uint32_t default_windows[] = {100, 200, 500, 1000, 2000, 5000, 10000};

/* A microsecond count ("120", "0.5") as ns. Returns 0, or -1. */
static int parse_usec(const char *s, int64_t *ns) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v >= 0) || v > 3.6e9) return -1;
    *ns = (int64_t)(v * 1000 + .5);
    return 0;
}

int tbbt_simrun_parse_latency(const char *spec, int64_t lat[TBBT_OP_COUNT], int64_t *dflt, char *err,
                              size_t errlen) {
    for (int i = 0; i < TBBT_OP_COUNT; i++)
        lat[i] = -1;
    *dflt = -1;
    char **items = g_strsplit(spec, ",", -1);
    int rc = 0;
    for (int i = 0; items[i] && rc == 0; i++) {
        char *eq = strchr(items[i], '=');
        const char *num = eq ? eq + 1 : items[i];
        int op = -2; /* -2: the default */
        if (eq) {
            *eq = 0;
            if (strcmp(items[i], "default") && (op = tbbt_op_by_name(items[i])) < 0) {
                snprintf(err, errlen, "--sim-latency item %d: unknown procedure '%s'", i + 1, items[i]);
                rc = -1;
                break;
            }
        }
        int64_t ns;
        if (parse_usec(num, &ns) < 0) {
            snprintf(err, errlen, "--sim-latency item %d: '%s' is not a number of microseconds (PROC=USEC)",
                     i + 1, num);
            rc = -1;
        } else if (op == -2) {
            *dflt = ns;
        } else {
            lat[op] = ns;
        }
    }
    g_strfreev(items);
    return rc;
}

int tbbt_simrun_parse_windows(const char *spec, uint32_t *w, char *err, size_t errlen) {
    char **items = g_strsplit(spec, ",", -1);
    int n = 0;
    for (int i = 0; items[i]; i++) {
        char *end;
        errno = 0;
        unsigned long v = strtoul(items[i], &end, 10);
        if (!*items[i] || *end || errno || v < 1 || v > TBBT_SIM_MAX_WINDOW || items[i][0] == '-' ||
            n == TBBT_SIM_MAX_WINDOWS) {
            snprintf(err, errlen, "--sim-windows item %d: '%s': want at most %d windows of 1..%u records",
                     i + 1, items[i], TBBT_SIM_MAX_WINDOWS, TBBT_SIM_MAX_WINDOW);
            n = -1;
            break;
        }
        w[n++] = (uint32_t)v;
    }
    g_strfreev(items);
    if (n == 0) snprintf(err, errlen, "--sim-windows: no window given");
    return n > 0 ? n : -1;
}

/* What a run found, for the report. */
struct run {
    const char *trace;
    struct tbbt_sim_opts so;
    int src[TBBT_OP_COUNT];        /* TBBT_SIMLAT_* */
    uint64_t count[TBBT_OP_COUNT]; /* records per procedure */
    uint64_t nsamples;             /* records with a call and a reply time (when the trace gave latencies) */
    struct tbbt_sim_result res;
    double cpu_s, wall_s;
};

/* Reads the trace's call-to-reply times per procedure (pass 1) and fills
 * the latencies not given. Returns 0, or -1 with err. */
static int trace_latency(struct run *u, int64_t dflt, uint64_t limit, char *err, size_t errlen) {
    struct tbbt_recreader *rd = tbbt_recr_open(u->trace, err, errlen);
    if (!rd) return -1;
    struct tbbt_hist *h = g_new(struct tbbt_hist, TBBT_OP_COUNT + 1); /* the last: all procedures */
    for (int i = 0; i <= TBBT_OP_COUNT; i++)
        tbbt_hist_init(&h[i]);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    int rc = 0;
    for (uint64_t n = 0; n < limit && (rc = tbbt_recr_next(rd, &r)) == 1; n++) {
        if ((r.flags & TBBT_RF_REPLY_LOST) || r.op >= TBBT_OP_COUNT || r.reply_time < r.call_time) continue;
        tbbt_hist_add(&h[r.op], (uint64_t)(r.reply_time - r.call_time));
        tbbt_hist_add(&h[TBBT_OP_COUNT], (uint64_t)(r.reply_time - r.call_time));
    }
    if (rc < 0) snprintf(err, errlen, "%s", tbbt_recr_error(rd));
    u->nsamples = h[TBBT_OP_COUNT].n;
    if (rc >= 0 && dflt < 0 && !u->nsamples) {
        snprintf(err, errlen, "%s: no record has both a call and a reply time: give --sim-latency", u->trace);
        rc = -1;
    }
    for (int i = 0; rc >= 0 && i < TBBT_OP_COUNT; i++) {
        if (u->src[i]) continue;
        u->src[i] = h[i].n ? TBBT_SIMLAT_TRACE : TBBT_SIMLAT_TRACE_ALL;
        u->so.latency_ns[i] = (int64_t)tbbt_hist_quantile(h[i].n ? &h[i] : &h[TBBT_OP_COUNT], .5);
    }
    tbbt_rec_free(&r);
    tbbt_recr_close(rd);
    g_free(h);
    return rc < 0 ? -1 : 0;
}

/* The simulation's pass over the trace. Returns 0, or -1 with err. */
static int simulate(struct run *u, uint64_t limit, char *err, size_t errlen) {
    struct tbbt_recreader *rd = tbbt_recr_open(u->trace, err, errlen);
    if (!rd) return -1;
    struct tbbt_sim *s = tbbt_sim_new(&u->so);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    int rc = 0;
    for (uint64_t n = 0; n < limit && rc == 0; n++) {
        int k = tbbt_recr_next(rd, &r);
        if (k <= 0) {
            if (k < 0) snprintf(err, errlen, "%s", tbbt_recr_error(rd)), rc = -1;
            break;
        }
        if (r.op < TBBT_OP_COUNT) u->count[r.op]++;
        rc = tbbt_sim_feed(s, &r, err, errlen);
    }
    if (rc == 0) rc = tbbt_sim_finish(s, &u->res, err, errlen);
    tbbt_rec_free(&r);
    tbbt_sim_free(s);
    tbbt_recr_close(rd);
    return rc < 0 ? -1 : 0;
}

static const char *src_name(int src) {
    switch (src) {
    case TBBT_SIMLAT_GIVEN: return "given";
    case TBBT_SIMLAT_DEFAULT: return "given (default)";
    case TBBT_SIMLAT_TRACE: return "trace median";
    default: return "trace median, all procedures (none of its own)";
    }
}

static const char *deps_name(int deps) {
    return deps == TBBT_SCHED_DEPS_SEND ? "send" : deps == TBBT_SCHED_DEPS_STRICT ? "strict" : "reply";
}

/* The report, for people. */
static void report(const struct run *u, FILE *f) {
    const struct tbbt_sim_trace *t = &u->res.trace;
    fprintf(f, "Simulated: %s, %llu records, order %s", u->trace, (unsigned long long)t->records,
            u->so.order->name);
    if (u->so.order == &tbbt_sched_fsdep) fprintf(f, " (deps %s)", deps_name(u->so.deps));
    if (u->so.max_outstanding)
        fprintf(f, ", at most %u outstanding\n", u->so.max_outstanding);
    else
        fprintf(f, ", no cap on outstanding requests\n");
    fprintf(f, "Server latency per procedure, us");
    if (u->nsamples)
        fprintf(f,
                " ('trace median': of the trace's call-to-reply times, %llu records with both, within 1%%)",
                (unsigned long long)u->nsamples);
    fprintf(f, ":\n");
    for (int i = 0; i < TBBT_OP_COUNT; i++)
        if (u->count[i])
            fprintf(f, "  %-12s %10.1f  %-16s %llu records\n", tbbt_op_info((enum tbbt_op)i)->name,
                    (double)u->so.latency_ns[i] / 1e3, src_name(u->src[i]), (unsigned long long)u->count[i]);
    fprintf(f, "As captured: %.1f ops/s over %.3f s; outstanding mean %.2f, peak %llu\n", t->ops_per_s,
            t->span_s, t->mean_out, (unsigned long long)t->peak_out);
    fprintf(f, "%8s %12s %10s %10s %10s %9s\n", "window", "ops/s", "x captured", "sim s", "mean out",
            "peak out");
    for (unsigned i = 0; i < u->res.nwindows; i++) {
        const struct tbbt_sim_window *w = &u->res.w[i];
        fprintf(f, "%8u %12.1f %10.2f %10.3f %10.2f %9llu\n", w->window, w->ops_per_s,
                t->ops_per_s > 0 ? w->ops_per_s / t->ops_per_s : 0, w->sim_s, w->mean_out,
                (unsigned long long)w->peak_out);
    }
    fprintf(f,
            "(outstanding: requests sent and not answered, time-weighted mean; simulated in %.2f s, CPU %.2f "
            "s)\n",
            u->wall_s, u->cpu_s);
}

/* The same as one JSON document. */
static void json(const struct run *u, GString *o) {
    const struct tbbt_sim_trace *t = &u->res.trace;
    g_string_append(o, "{\"schema\":\"tbbt-play-simulate/1\",\"trace\":");
    tbbt_json_str(o, u->trace, strlen(u->trace));
    g_string_append_printf(o, ",\"records\":%llu,\"order\":\"%s\",\"deps\":\"%s\",\"max_outstanding\":%u,",
                           (unsigned long long)t->records, u->so.order->name, deps_name(u->so.deps),
                           u->so.max_outstanding);
    g_string_append_printf(o, "\"latency_samples\":%llu,\"latency_us\":{", (unsigned long long)u->nsamples);
    int first = 1;
    for (int i = 0; i < TBBT_OP_COUNT; i++)
        if (u->count[i]) {
            g_string_append_printf(o, "%s\"%s\":{\"us\":%.3f,\"source\":\"%s\",\"records\":%llu}",
                                   first ? "" : ",", tbbt_op_info((enum tbbt_op)i)->name,
                                   (double)u->so.latency_ns[i] / 1e3,
                                   u->src[i] == TBBT_SIMLAT_GIVEN     ? "given"
                                   : u->src[i] == TBBT_SIMLAT_DEFAULT ? "default"
                                   : u->src[i] == TBBT_SIMLAT_TRACE   ? "trace"
                                                                      : "trace_all",
                                   (unsigned long long)u->count[i]);
            first = 0;
        }
    g_string_append_printf(o,
                           "},\"captured\":{\"ops_per_s\":%.3f,\"span_s\":%.6f,\"mean_outstanding\":%.4f,"
                           "\"peak_outstanding\":%llu},\"windows\":[",
                           t->ops_per_s, t->span_s, t->mean_out, (unsigned long long)t->peak_out);
    for (unsigned i = 0; i < u->res.nwindows; i++) {
        const struct tbbt_sim_window *w = &u->res.w[i];
        g_string_append_printf(
            o,
            "%s{\"window\":%u,\"records\":%llu,\"sent\":%llu,\"sim_s\":%.6f,\"ops_per_s\":%.3f,"
            "\"x_captured\":%.4f,\"mean_outstanding\":%.4f,\"peak_outstanding\":%llu}",
            i ? "," : "", w->window, (unsigned long long)w->records, (unsigned long long)w->sent, w->sim_s,
            w->ops_per_s, t->ops_per_s > 0 ? w->ops_per_s / t->ops_per_s : 0, w->mean_out,
            (unsigned long long)w->peak_out);
    }
    g_string_append_printf(o, "],\"wall_s\":%.3f,\"cpu_s\":%.3f}\n", u->wall_s, u->cpu_s);
}

/* A usage error (lib/usage.h): the message, tbbt-play's synopsis, exit 2. */
static G_GNUC_NORETURN void usage(const char *what) {
    tbbt_usage_error(TBBT_PLAY_TOOL, TBBT_PLAY_SYNOPSIS, "%s", what);
}

/* Fills u's options from a; returns 0 (a bad one exits 2, lib/usage.h). */
static int check(struct run *u, const struct tbbt_simrun_args *a, int64_t *dflt) {
    char err[512];
    u->so.order = &tbbt_sched_fsdep;
    if (a->order && !(u->so.order = tbbt_sched_find(a->order)))
        usage("--order must be conservative or fsdep");
    u->so.deps = a->strict ? TBBT_SCHED_DEPS_STRICT : TBBT_SCHED_DEPS_REPLY;
    if (a->deps && (u->so.deps = tbbt_sched_deps(a->deps)) < 0) usage("--deps must be reply, send or strict");
    if (a->speedup > 0) usage("--simulate plays at full speed: --speedup is not simulated");
    if (a->max_outstanding < 0 || a->limit < 0) usage("--max-outstanding and --limit must be positive");
    u->so.max_outstanding = (uint32_t)a->max_outstanding;
    int n = a->windows ? tbbt_simrun_parse_windows(a->windows, u->so.windows, err, sizeof(err))
                       : (int)G_N_ELEMENTS(default_windows);
    if (n < 0) usage(err);
    if (!a->windows) memcpy(u->so.windows, default_windows, sizeof(default_windows));
    u->so.nwindows = (unsigned)n;
    *dflt = -1;
    for (int i = 0; i < TBBT_OP_COUNT; i++)
        u->so.latency_ns[i] = -1;
    if (a->latency && tbbt_simrun_parse_latency(a->latency, u->so.latency_ns, dflt, err, sizeof(err)) < 0)
        usage(err);
    for (int i = 0; i < TBBT_OP_COUNT; i++) {
        if (u->so.latency_ns[i] >= 0)
            u->src[i] = TBBT_SIMLAT_GIVEN;
        else if (*dflt >= 0)
            u->so.latency_ns[i] = *dflt, u->src[i] = TBBT_SIMLAT_DEFAULT;
    }
    return 0;
}

static double cpu_now(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

int tbbt_simrun_main(int argc, char **argv, const struct tbbt_simrun_args *a) {
    if (argc != 2) usage(argc < 2 ? "no TRACE.tbbt given" : "--simulate takes TRACE.tbbt only (no server)");
    struct run *u = g_new0(struct run, 1);
    u->trace = argv[1];
    int64_t dflt;
    int rc = check(u, a, &dflt);
    char err[600] = "";
    double c0 = cpu_now(), w0 = tbbt_now_s();
    uint64_t limit = a->limit > 0 ? (uint64_t)a->limit : UINT64_MAX;
    if (rc == 0 && dflt < 0 && trace_latency(u, dflt, limit, err, sizeof(err)) < 0) rc = 1;
    if (rc == 0 && simulate(u, limit, err, sizeof(err)) < 0) rc = 1;
    u->cpu_s = cpu_now() - c0, u->wall_s = tbbt_now_s() - w0;
    if (rc == 1) fprintf(stderr, "tbbt-play: %s\n", err);
    if (rc == 0 && !a->quiet) report(u, stdout);
    if (rc == 0 && a->json) {
        GString *j = g_string_new(NULL);
        json(u, j);
        GError *ge = NULL;
        if (!tbbt_out_set_contents(a->json, j->str, (gssize)j->len, &ge)) {
            fprintf(stderr, "tbbt-play: %s\n", ge->message);
            g_error_free(ge);
            rc = 1;
        }
        g_string_free(j, TRUE);
    }
    g_free(u);
    return rc;
}
