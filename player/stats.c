/* stats.c -- the replay's figures and report (see stats.h). */
#include "stats.h"

#include <string.h>

#include "rectext.h"
#include "nfsstat.h"
#include "version.h"

void tbbt_pstats_init(struct tbbt_play_stats *s) {
    memset(s, 0, sizeof(*s));
    tbbt_hist_init(&s->issue_err);
    tbbt_hist_init(&s->outstanding);
    tbbt_hist_init(&s->trace_outstanding);
    s->series = g_array_new(FALSE, TRUE, sizeof(struct tbbt_pstat_sec));
}

void tbbt_pstats_free(struct tbbt_play_stats *s) {
    for (int v = 0; v < 2; v++)
        for (int o = 0; o < TBBT_OP_COUNT; o++)
            g_free(s->proc[v][o]);
    g_array_free(s->series, TRUE);
    if (s->rank_rows) g_array_free(s->rank_rows, TRUE);
    g_free(s->trace), g_free(s->manifest), g_free(s->server), g_free(s->order), g_free(s->timing);
    g_free(s->map_sha256), g_free(s->params), g_free(s->run);
    g_free(s->per_clone);
}

struct tbbt_pstat_proc *tbbt_pstats_proc(struct tbbt_play_stats *s, unsigned vers, unsigned op) {
    unsigned v = vers == 2 ? 0 : 1;
    if (op >= TBBT_OP_COUNT) op = 0;
    if (!s->proc[v][op]) {
        struct tbbt_pstat_proc *p = g_new0(struct tbbt_pstat_proc, 1);
        tbbt_hist_init(&p->lat);
        tbbt_hist_init(&p->lat_sched);
        tbbt_hist_init(&p->trace_lat);
        s->proc[v][op] = p;
    }
    return s->proc[v][op];
}

void tbbt_pstats_mismatch(struct tbbt_pstat_proc *p, int traced, int got) {
    int k;
    for (k = 0; k < 4 && p->top_n[k]; k++)
        if (p->top_traced[k] == (uint32_t)traced && p->top_got[k] == (uint32_t)got) break;
    if (k == 4) k = 3; /* the last one gives way */
    if (p->top_traced[k] != (uint32_t)traced || p->top_got[k] != (uint32_t)got)
        p->top_traced[k] = (uint32_t)traced, p->top_got[k] = (uint32_t)got, p->top_n[k] = 0;
    p->top_n[k]++;
}

struct tbbt_pstat_sec *tbbt_pstats_sec(struct tbbt_play_stats *s, double t) {
    guint i = t < 0 ? 0 : (guint)t;
    if (i >= s->series->len) g_array_set_size(s->series, i + 1);
    return &g_array_index(s->series, struct tbbt_pstat_sec, i);
}

/* Adds one (traced, got, n) entry into p's top list: to its own pair if
 * listed, else a free place, else in place of the smallest when larger. */
static void top_add(struct tbbt_pstat_proc *p, uint32_t traced, uint32_t got, uint64_t n) {
    int k, low = 0;
    for (k = 0; k < 4 && p->top_n[k]; k++) {
        if (p->top_traced[k] == traced && p->top_got[k] == got) {
            p->top_n[k] += n;
            return;
        }
        if (p->top_n[k] < p->top_n[low]) low = k;
    }
    if (k == 4) {
        if (n <= p->top_n[low]) return;
        k = low;
    }
    p->top_traced[k] = traced, p->top_got[k] = got, p->top_n[k] = n;
}

/* Adds procedure from into into (same vers and op). */
static void proc_merge(struct tbbt_pstat_proc *into, const struct tbbt_pstat_proc *from) {
    into->count += from->count, into->matched += from->matched, into->mismatched += from->mismatched;
    into->skipped += from->skipped, into->timeouts += from->timeouts;
    tbbt_hist_merge(&into->lat, &from->lat);
    tbbt_hist_merge(&into->lat_sched, &from->lat_sched);
    tbbt_hist_merge(&into->trace_lat, &from->trace_lat);
    for (int k = 0; k < 4 && from->top_n[k]; k++)
        top_add(into, from->top_traced[k], from->top_got[k], from->top_n[k]);
}

/* The larger of two doubles. */
static double dmax(double a, double b) {
    return a > b ? a : b;
}

void tbbt_pstats_merge(struct tbbt_play_stats *into, const struct tbbt_play_stats *from) {
    for (int v = 0; v < 2; v++)
        for (int o = 0; o < TBBT_OP_COUNT; o++)
            if (from->proc[v][o])
                proc_merge(tbbt_pstats_proc(into, v ? 3 : 2, (unsigned)o), from->proc[v][o]);
    tbbt_hist_merge(&into->issue_err, &from->issue_err);
    tbbt_hist_merge(&into->outstanding, &from->outstanding);
    tbbt_hist_merge(&into->trace_outstanding, &from->trace_outstanding);
    for (guint i = 0; i < from->series->len; i++) {
        const struct tbbt_pstat_sec *f = &g_array_index(from->series, struct tbbt_pstat_sec, i);
        struct tbbt_pstat_sec *t = tbbt_pstats_sec(into, (double)i);
        t->done += f->done, t->matched += f->matched, t->sent += f->sent, t->traced += f->traced;
        t->lat_sum += f->lat_sum, t->outstanding_sum += f->outstanding_sum;
        if (f->behind_max > t->behind_max) t->behind_max = f->behind_max;
        t->timeouts += f->timeouts, t->conn_lost += f->conn_lost, t->reconnects += f->reconnects;
    }
    into->records += from->records, into->sent += from->sent, into->replies += from->replies;
    into->matched += from->matched, into->mismatched += from->mismatched, into->skipped += from->skipped;
    into->timeouts += from->timeouts, into->no_handle += from->no_handle, into->refused += from->refused;
    into->not_replayable += from->not_replayable, into->warmup += from->warmup;
    into->late_replies += from->late_replies, into->unmatched_replies += from->unmatched_replies;
    into->reconnects += from->reconnects, into->conn_lost += from->conn_lost;
    into->conns_opened += from->conns_opened, into->retransmits += from->retransmits;
    if (from->max_outstanding > into->max_outstanding) into->max_outstanding = from->max_outstanding;
    into->wall_s = dmax(into->wall_s, from->wall_s), into->cpu_s += from->cpu_s;
    into->trace_span_s = dmax(into->trace_span_s, from->trace_span_s);
    into->partial |= from->partial;
    tbbt_load_figs_merge(&into->load_trace, &from->load_trace);
    tbbt_load_figs_merge(&into->load_replay, &from->load_replay);
}

void tbbt_pstats_add_rank(struct tbbt_play_stats *s, const struct tbbt_play_stats *from, int rank, int rc,
                          int clones, const char *host) {
    struct tbbt_pstat_rank r = {.rank = rank, .rc = rc, .clone = from->clone, .clones = clones};
    snprintf(r.host, sizeof(r.host), "%s", host ? host : "");
    r.records = from->records, r.sent = from->sent, r.replies = from->replies, r.matched = from->matched;
    r.mismatched = from->mismatched, r.skipped = from->skipped, r.timeouts = from->timeouts;
    r.no_handle = from->no_handle, r.not_replayable = from->not_replayable;
    r.wall_s = from->wall_s, r.cpu_s = from->cpu_s, r.partial = from->partial;
    if (!s->rank_rows) s->rank_rows = g_array_new(FALSE, TRUE, sizeof(struct tbbt_pstat_rank));
    g_array_append_val(s->rank_rows, r);
}

/* ns as milliseconds. */
static double ms(uint64_t ns) {
    return (double)ns / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The value at quantile q of n sorted values (the one at rank floor(q n)). */
static double sorted_q(const double *v, size_t n, double q) {
    size_t i = (size_t)(q * (double)n);
    return v[i < n ? i : n - 1];
}

int tbbt_pstats_rate(const struct tbbt_play_stats *s, struct tbbt_pstat_rate *r) {
    memset(r, 0, sizeof(*r));
    if (s->speedup <= 0) return -1;
    guint lo = 0, hi = s->series->len, end = (guint)(s->wall_s > 0 ? s->wall_s + 0.999999999 : 0);
    if (hi > end) hi = end; /* what was scheduled after a stop was not the replay's to send */
    const struct tbbt_pstat_sec *c = (const struct tbbt_pstat_sec *)(void *)s->series->data;
    while (lo < hi && !c[lo].sent && !c[lo].traced)
        lo++;
    while (hi > lo && !c[hi - 1].sent && !c[hi - 1].traced)
        hi--;
    if (lo == hi) return -1;
    size_t n = hi - lo;
    double *d = g_new(double, n), st = 0, ss = 0, sd = 0, sa = 0;
    for (guint i = lo; i < hi; i++) {
        double x = (double)c[i].sent - (double)c[i].traced;
        st += (double)c[i].traced, ss += (double)c[i].sent, sd += x;
        d[i - lo] = x < 0 ? -x : x, sa += d[i - lo];
    }
    qsort(d, n, sizeof(double), cmp_double);
    r->seconds = (uint32_t)n;
    r->trace_mean = st / (double)n, r->replay_mean = ss / (double)n, r->diff_mean = sd / (double)n;
    r->abs_mean = sa / (double)n;
    r->abs_p50 = sorted_q(d, n, .5), r->abs_p90 = sorted_q(d, n, .9), r->abs_p99 = sorted_q(d, n, .99);
    r->abs_max = d[n - 1];
    g_free(d);
    return 0;
}

/* replay / trace, or 0 when the trace's figure is 0. */
static double ratio(double replay, double trace) {
    return trace > 0 ? replay / trace : 0;
}

/* The load beside the trace's: duration, requests outstanding over time
 * (time-weighted), the rate per second of the schedule (timestamp mode),
 * the latency of each procedure (docs/load-fidelity.md). */
static void report_load(const struct tbbt_play_stats *s, FILE *out) {
    const struct tbbt_load_figs *t = &s->load_trace, *r = &s->load_replay;
    if (!t->n && !r->n) return;
    fprintf(out, "Load, the trace against the replay (outstanding: time-weighted over the run%s):\n",
            r->summed > 1 ? "; p99 and max summed over the ranks, an upper bound" : "");
    fprintf(out, "  %-18s %12s %12s %9s\n", "", "trace", "replay", "ratio");
    fprintf(out, "  %-18s %12llu %12llu %9.3f\n", "requests", (unsigned long long)t->n,
            (unsigned long long)r->n, ratio((double)r->n, (double)t->n));
    fprintf(out, "  %-18s %12.3f %12.3f %9.3f\n", "duration s", t->duration_s, r->duration_s,
            ratio(r->duration_s, t->duration_s));
    fprintf(out, "  %-18s %12.1f %12.1f %9.3f\n", "requests/s",
            t->duration_s > 0 ? (double)t->n / t->duration_s : 0,
            r->duration_s > 0 ? (double)r->n / r->duration_s : 0,
            ratio(r->duration_s > 0 ? (double)r->n / r->duration_s : 0,
                  t->duration_s > 0 ? (double)t->n / t->duration_s : 0));
    fprintf(out, "  %-18s %12.3f %12.3f %9.3f\n", "outstanding mean", t->mean, r->mean,
            ratio(r->mean, t->mean));
    fprintf(out, "  %-18s %12llu %12llu %9.3f\n", "outstanding p99", (unsigned long long)t->p99,
            (unsigned long long)r->p99, ratio((double)r->p99, (double)t->p99));
    fprintf(out, "  %-18s %12llu %12llu %9.3f\n", "outstanding max", (unsigned long long)t->max,
            (unsigned long long)r->max, ratio((double)r->max, (double)t->max));
    struct tbbt_pstat_rate rt;
    if (tbbt_pstats_rate(s, &rt) == 0)
        fprintf(
            out,
            "  requests/s per second of the schedule, over %u s: trace mean %.1f, replay mean %.1f; replay "
            "minus trace mean %+.1f, |difference| mean %.1f (%.1f%% of the trace's), p50 %.0f, p90 %.0f, "
            "p99 %.0f, max %.0f\n",
            rt.seconds, rt.trace_mean, rt.replay_mean, rt.diff_mean, rt.abs_mean,
            rt.trace_mean > 0 ? 100 * rt.abs_mean / rt.trace_mean : 0, rt.abs_p50, rt.abs_p90, rt.abs_p99,
            rt.abs_max);
    int head = 0;
    for (int v = 0; v < 2; v++)
        for (int o = 0; o < TBBT_OP_COUNT; o++) {
            const struct tbbt_pstat_proc *p = s->proc[v][o];
            if (!p || !p->trace_lat.n || !p->lat.n) continue;
            if (!head++)
                fprintf(out, "  %-4s %-12s %9s %11s %11s %7s %11s %11s %7s\n", "vers", "latency", "n",
                        "trace p50", "replay p50", "ratio", "trace p90", "replay p90", "ratio");
            double t50 = ms(tbbt_hist_quantile(&p->trace_lat, .5)), r50 = ms(tbbt_hist_quantile(&p->lat, .5));
            double t90 = ms(tbbt_hist_quantile(&p->trace_lat, .9)), r90 = ms(tbbt_hist_quantile(&p->lat, .9));
            fprintf(out, "  v%-3d %-12s %9llu %8.3f ms %8.3f ms %7.3f %8.3f ms %8.3f ms %7.3f\n", v ? 3 : 2,
                    tbbt_op_info((unsigned)o)->name, (unsigned long long)p->trace_lat.n, t50, r50,
                    ratio(r50, t50), t90, r90, ratio(r90, t90));
        }
}

/* Name of a status for the report ("OK", "NOENT", or a number). */
static const char *st_name(int s, char *buf, size_t n) {
    if (s == TBBT_PST_TIMEOUT) return "timeout";
    if (s == TBBT_PST_RPC_ERROR) return "rpc-error";
    if (s == TBBT_PST_NO_HANDLE) return "no-handle";
    if (s == TBBT_PST_CONN_LOST) return "connection-lost";
    if (s == TBBT_PST_REFUSED) return "refused";
    const char *nm = tbbt_nfsstat_name(s);
    if (nm) return nm;
    snprintf(buf, n, "%d", s);
    return buf;
}

/* With several clones, one line each: a clone that lagged or failed shows. */
static void report_clones(const struct tbbt_play_stats *s, FILE *out) {
    for (uint32_t i = 0; s->per_clone && s->clones > 1 && i < s->clones; i++) {
        const struct tbbt_pstat_clone *c = &s->per_clone[i];
        fprintf(out, "Clone %u: %llu records, %llu sent, %llu matched, %llu failed, %llu skipped\n",
                (unsigned)s->clone + i, (unsigned long long)c->records, (unsigned long long)c->sent,
                (unsigned long long)c->matched, (unsigned long long)c->failed,
                (unsigned long long)c->skipped);
    }
}

void tbbt_pstats_report(const struct tbbt_play_stats *s, FILE *out) {
    double span = s->wall_s > 0 ? s->wall_s : 1;
    fprintf(out, "%-4s %-12s %9s %9s %9s %9s %9s %9s %9s %9s %8s %8s %7s %7s\n", "vers", "procedure", "count",
            "ops/s", "mean ms", "p50 ms", "p90 ms", "p99 ms", "p99.9 ms", "max ms", "match", "mismatch",
            "skipped", "timeout");
    for (int v = 0; v < 2; v++)
        for (int o = 0; o < TBBT_OP_COUNT; o++) {
            const struct tbbt_pstat_proc *p = s->proc[v][o];
            if (!p || !p->count) continue;
            const struct tbbt_hist *h = &p->lat;
            fprintf(out,
                    "v%-3d %-12s %9llu %9.0f %9.3f %9.3f %9.3f %9.3f %9.3f %9.3f %8llu %8llu %7llu %7llu\n",
                    v ? 3 : 2, tbbt_op_info((unsigned)o)->name, (unsigned long long)p->count,
                    (double)p->count / span, tbbt_hist_mean(h) / 1e6, ms(tbbt_hist_quantile(h, .5)),
                    ms(tbbt_hist_quantile(h, .9)), ms(tbbt_hist_quantile(h, .99)),
                    ms(tbbt_hist_quantile(h, .999)), ms(h->n ? h->max : 0), (unsigned long long)p->matched,
                    (unsigned long long)p->mismatched, (unsigned long long)p->skipped,
                    (unsigned long long)p->timeouts);
            for (int k = 0; k < 4 && p->top_n[k]; k++) {
                char a[16], b[16];
                fprintf(out, "       mismatch: traced %s, got %s: %llu\n",
                        st_name((int)p->top_traced[k], a, sizeof(a)),
                        st_name((int)p->top_got[k], b, sizeof(b)), (unsigned long long)p->top_n[k]);
            }
        }
    uint64_t all = s->matched + s->mismatched;
    fprintf(out,
            "Replayed %llu records in %.3f s: %.0f ops/s (trace: %.0f ops/s over %.3f s); %s order, %s%s\n",
            (unsigned long long)s->sent, s->wall_s, (double)s->replies / span,
            s->trace_span_s > 0 ? (double)s->records / s->trace_span_s : 0, s->trace_span_s, s->order,
            s->timing, s->partial ? "; PARTIAL (interrupted)" : "");
    fprintf(
        out,
        "Status: %llu of %llu records matched the trace (%.3f%%); %llu mismatched, %llu skipped, %llu timed "
        "out, %llu without a live handle, %llu refused (a name leaving the run directory); %llu not "
        "replayable "
        "(RPC errors in the trace)\n",
        (unsigned long long)s->matched, (unsigned long long)(all + s->skipped),
        all + s->skipped ? 100.0 * (double)s->matched / (double)(all + s->skipped) : 0,
        (unsigned long long)s->mismatched, (unsigned long long)s->skipped, (unsigned long long)s->timeouts,
        (unsigned long long)s->no_handle, (unsigned long long)s->refused,
        (unsigned long long)s->not_replayable);
    report_load(s, out);
    fprintf(out,
            "Outstanding at each send, itself included: replay mean %.1f, p99 %llu, max %llu; trace (at each "
            "call) mean %.1f, p99 %llu, max %llu\n",
            tbbt_hist_mean(&s->outstanding), (unsigned long long)tbbt_hist_quantile(&s->outstanding, .99),
            (unsigned long long)s->outstanding.max, tbbt_hist_mean(&s->trace_outstanding),
            (unsigned long long)tbbt_hist_quantile(&s->trace_outstanding, .99),
            (unsigned long long)s->trace_outstanding.max);
    if (s->issue_err.n)
        fprintf(out, "Issue error: p50 %.1f us, p99 %.1f us, max %.1f us (actual send minus scheduled)\n",
                (double)tbbt_hist_quantile(&s->issue_err, .5) / 1e3,
                (double)tbbt_hist_quantile(&s->issue_err, .99) / 1e3, (double)s->issue_err.max / 1e3);
    if (s->conns_opened) fprintf(out, "Connections opened: %llu\n", (unsigned long long)s->conns_opened);
    if (s->retransmits)
        fprintf(out, "Retransmitted: %llu requests unanswered after --retransmit seconds, sent again\n",
                (unsigned long long)s->retransmits);
    if (s->reconnects)
        fprintf(out,
                "Connections: %llu lost and made again; %llu requests lost with them (reads are not sent "
                "again)\n",
                (unsigned long long)s->reconnects, (unsigned long long)s->conn_lost);
    report_clones(s, out);
    fprintf(out, "CPU: %.3f s (%.2f us per request)%s\n", s->cpu_s,
            s->sent ? s->cpu_s * 1e6 / (double)s->sent : 0,
            s->warmup ? "; warm-up requests left out of the figures" : "");
    if (s->ranks) fprintf(out, "Ranks: %d, merged above; each rank's own:\n", s->ranks);
    for (guint i = 0; s->rank_rows && i < s->rank_rows->len; i++) {
        const struct tbbt_pstat_rank *r = &g_array_index(s->rank_rows, struct tbbt_pstat_rank, i);
        fprintf(out,
                "  rank %d on %s, clones %d..%d: %llu records, %llu matched, %llu mismatched, %llu skipped, "
                "%llu timed out; %.0f ops/s over %.3f s%s%s\n",
                r->rank, r->host, r->clone, r->clone + r->clones - 1, (unsigned long long)r->records,
                (unsigned long long)r->matched, (unsigned long long)r->mismatched,
                (unsigned long long)r->skipped, (unsigned long long)r->timeouts,
                r->wall_s > 0 ? (double)r->replies / r->wall_s : 0, r->wall_s, r->partial ? "; PARTIAL" : "",
                r->rc < 0 ? "; FAILED" : "");
    }
}

/* Appends "key":"value" with JSON escaping (value may be NULL: null). */
static void jstr(GString *o, const char *key, const char *v) {
    g_string_append_printf(o, "\"%s\":", key);
    if (v)
        tbbt_json_str(o, v, strlen(v));
    else
        g_string_append(o, "null");
    g_string_append_c(o, ',');
}

/* Appends ,"rank_totals":[{...},...]: each MPI rank's own counters. */
static void rank_rows_json(const GArray *rows, GString *o) {
    g_string_append(o, ",\"rank_totals\":[");
    for (guint i = 0; i < rows->len; i++) {
        const struct tbbt_pstat_rank *r = &g_array_index(rows, struct tbbt_pstat_rank, i);
        g_string_append_printf(o, "%s{\"rank\":%d,", i ? "," : "", r->rank);
        jstr(o, "host", r->host);
        g_string_append_printf(
            o,
            "\"clone\":%d,\"clones\":%d,\"failed\":%s,\"partial\":%s,\"records\":%llu,\"sent\":%llu,"
            "\"replies\":%llu,\"matched\":%llu,\"mismatched\":%llu,\"skipped\":%llu,\"timeouts\":%llu,"
            "\"no_handle\":%llu,\"not_replayable\":%llu,\"wall_s\":%.6f,\"cpu_s\":%.6f,\"ops_per_s\":%.3f}",
            r->clone, r->clones, r->rc < 0 ? "true" : "false", r->partial ? "true" : "false",
            (unsigned long long)r->records, (unsigned long long)r->sent, (unsigned long long)r->replies,
            (unsigned long long)r->matched, (unsigned long long)r->mismatched, (unsigned long long)r->skipped,
            (unsigned long long)r->timeouts, (unsigned long long)r->no_handle,
            (unsigned long long)r->not_replayable, r->wall_s, r->cpu_s,
            r->wall_s > 0 ? (double)r->replies / r->wall_s : 0);
    }
    g_string_append_c(o, ']');
}

/* Appends "NAME":{...} of one load's figures. */
static void load_figs_json(GString *o, const char *name, const struct tbbt_load_figs *f) {
    g_string_append_printf(o,
                           "\"%s\":{\"requests\":%llu,\"duration_s\":%.6f,\"requests_per_s\":%.3f,"
                           "\"outstanding_mean\":%.4f,\"outstanding_p99\":%llu,\"outstanding_max\":%llu,"
                           "\"outstanding_area_s\":%.6f,\"summed\":%u}",
                           name, (unsigned long long)f->n, f->duration_s,
                           f->duration_s > 0 ? (double)f->n / f->duration_s : 0, f->mean,
                           (unsigned long long)f->p99, (unsigned long long)f->max, f->area, f->summed);
}

/* Appends ,"load":{"trace":{..},"replay":{..},"rate":{..}|null}: the load
 * beside the trace's (docs/load-fidelity.md). */
static void load_json(const struct tbbt_play_stats *s, GString *o) {
    g_string_append(o, ",\"load\":{\"outstanding\":\"time-weighted\",");
    load_figs_json(o, "trace", &s->load_trace);
    g_string_append_c(o, ',');
    load_figs_json(o, "replay", &s->load_replay);
    struct tbbt_pstat_rate r;
    if (tbbt_pstats_rate(s, &r) < 0) {
        g_string_append(o, ",\"rate\":null}");
        return;
    }
    g_string_append_printf(o,
                           ",\"rate\":{\"seconds\":%u,\"trace_mean\":%.3f,\"replay_mean\":%.3f,"
                           "\"diff_mean\":%.3f,\"abs_diff_mean\":%.3f,\"abs_diff_p50\":%.1f,"
                           "\"abs_diff_p90\":%.1f,\"abs_diff_p99\":%.1f,\"abs_diff_max\":%.1f}}",
                           r.seconds, r.trace_mean, r.replay_mean, r.diff_mean, r.abs_mean, r.abs_p50,
                           r.abs_p90, r.abs_p99, r.abs_max);
}

void tbbt_pstats_json(const struct tbbt_play_stats *s, GString *o) {
    g_string_append(o, "{\"schema\":\"tbbt-play-result/1\",\"hist_layout\":");
    tbbt_hist_layout_json(o);
    g_string_append(o, ",\"meta\":{");
    jstr(o, "trace", s->trace), jstr(o, "manifest", s->manifest), jstr(o, "server", s->server);
    jstr(o, "run", s->run), jstr(o, "map_sha256", s->map_sha256), jstr(o, "order", s->order);
    jstr(o, "timing", s->timing), jstr(o, "started", s->started), jstr(o, "ended", s->ended);
    g_string_append_printf(o, "\"clones\":%u,", s->clones ? s->clones : 1); /* from clone on */
    g_string_append_printf(o,
                           "\"init_params\":%s,\"speedup\":%g,\"window\":%u,\"clone\":%d,\"connections\":%d,"
                           "\"seed\":%llu,\"tool\":\"tbbt-play " TBBT_VERSION "\",\"partial\":%s},",
                           s->params ? s->params : "null", s->speedup, s->window, s->clone, s->connections,
                           (unsigned long long)s->seed, s->partial ? "true" : "false");
    if (s->ranks) { /* MPI: "ranks":n in the metadata */
        g_string_truncate(o, o->len - 2);
        g_string_append_printf(o, ",\"ranks\":%d},", s->ranks);
    }
    g_string_append_printf(
        o,
        "\"totals\":{\"records\":%llu,\"sent\":%llu,\"replies\":%llu,\"matched\":%llu,"
        "\"mismatched\":%llu,\"skipped\":%llu,\"timeouts\":%llu,\"no_handle\":%llu,\"refused\":%llu,"
        "\"not_replayable\":%llu,\"warmup\":%llu,\"late_replies\":%llu,\"reconnects\":%llu,"
        "\"conn_lost\":%llu,\"connections_opened\":%llu,\"retransmits\":%llu,\"wall_s\":%.6f,"
        "\"cpu_s\":%.6f,\"trace_span_s\":%.6f,\"ops_per_s\":%.3f},",
        (unsigned long long)s->records, (unsigned long long)s->sent, (unsigned long long)s->replies,
        (unsigned long long)s->matched, (unsigned long long)s->mismatched, (unsigned long long)s->skipped,
        (unsigned long long)s->timeouts, (unsigned long long)s->no_handle, (unsigned long long)s->refused,
        (unsigned long long)s->not_replayable, (unsigned long long)s->warmup,
        (unsigned long long)s->late_replies, (unsigned long long)s->reconnects,
        (unsigned long long)s->conn_lost, (unsigned long long)s->conns_opened,
        (unsigned long long)s->retransmits, s->wall_s, s->cpu_s, s->trace_span_s,
        s->wall_s > 0 ? (double)s->replies / s->wall_s : 0);
    g_string_append(o, "\"issue_error_ns\":");
    tbbt_hist_json(&s->issue_err, o);
    g_string_append(o, ",\"outstanding\":");
    tbbt_hist_json(&s->outstanding, o);
    g_string_append(o, ",\"trace_outstanding\":");
    tbbt_hist_json(&s->trace_outstanding, o);
    load_json(s, o);
    g_string_append(o, ",\"procedures\":[");
    int first = 1;
    for (int v = 0; v < 2; v++)
        for (int op = 0; op < TBBT_OP_COUNT; op++) {
            const struct tbbt_pstat_proc *p = s->proc[v][op];
            if (!p || !p->count) continue;
            g_string_append_printf(
                o,
                "%s{\"vers\":%d,\"proc\":\"%s\",\"count\":%llu,\"matched\":%llu,\"mismatched\":%llu,"
                "\"skipped\":%llu,\"timeouts\":%llu,\"latency_ns\":",
                first ? "" : ",", v ? 3 : 2, tbbt_op_info((unsigned)op)->name, (unsigned long long)p->count,
                (unsigned long long)p->matched, (unsigned long long)p->mismatched,
                (unsigned long long)p->skipped, (unsigned long long)p->timeouts);
            tbbt_hist_json(&p->lat, o);
            g_string_append(o, ",\"latency_from_schedule_ns\":");
            tbbt_hist_json(&p->lat_sched, o);
            g_string_append(o, ",\"trace_latency_ns\":");
            tbbt_hist_json(&p->trace_lat, o);
            g_string_append(o, ",\"mismatches\":[");
            for (int k = 0; k < 4 && p->top_n[k]; k++)
                g_string_append_printf(o, "%s{\"traced\":%d,\"got\":%d,\"n\":%llu}", k ? "," : "",
                                       (int)p->top_traced[k], (int)p->top_got[k],
                                       (unsigned long long)p->top_n[k]);
            g_string_append(o, "]}");
            first = 0;
        }
    g_string_append(o, "],\"per_clone\":[");
    for (uint32_t i = 0; s->per_clone && i < s->clones; i++) {
        const struct tbbt_pstat_clone *c = &s->per_clone[i];
        g_string_append_printf(o,
                               "%s{\"clone\":%u,\"records\":%llu,\"sent\":%llu,\"matched\":%llu,"
                               "\"failed\":%llu,\"skipped\":%llu}",
                               i ? "," : "", (unsigned)s->clone + i, (unsigned long long)c->records,
                               (unsigned long long)c->sent, (unsigned long long)c->matched,
                               (unsigned long long)c->failed, (unsigned long long)c->skipped);
    }
    g_string_append(o, "],\"series\":[");
    for (guint i = 0; i < s->series->len; i++) {
        const struct tbbt_pstat_sec *c = &g_array_index(s->series, struct tbbt_pstat_sec, i);
        g_string_append_printf(
            o,
            "%s{\"t\":%u,\"done\":%llu,\"matched\":%llu,\"sent\":%llu,\"lat_mean_ns\":%.0f,"
            "\"outstanding_mean\":%.2f,\"behind_max_ns\":%lld,\"timeouts\":%llu,\"conn_lost\":%llu,"
            "\"reconnects\":%llu}",
            i ? "," : "", i, (unsigned long long)c->done, (unsigned long long)c->matched,
            (unsigned long long)c->sent, c->matched ? c->lat_sum / (double)c->matched : 0,
            c->sent ? c->outstanding_sum / (double)c->sent : 0, (long long)c->behind_max,
            (unsigned long long)c->timeouts, (unsigned long long)c->conn_lost,
            (unsigned long long)c->reconnects);
        if (s->speedup > 0) { /* the trace's calls that second, inside the object */
            g_string_truncate(o, o->len - 1);
            g_string_append_printf(o, ",\"traced\":%llu}", (unsigned long long)c->traced);
        }
    }
    g_string_append(o, "]");
    if (s->rank_rows) rank_rows_json(s->rank_rows, o);
    g_string_append(o, "}");
}
