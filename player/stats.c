/* stats.c -- the replay's figures and report (see stats.h). */
#include "stats.h"

#include <string.h>

#include "rectext.h"
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
        t->done += f->done, t->matched += f->matched, t->sent += f->sent;
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
    if (from->max_outstanding > into->max_outstanding) into->max_outstanding = from->max_outstanding;
    into->wall_s = dmax(into->wall_s, from->wall_s), into->cpu_s += from->cpu_s;
    into->trace_span_s = dmax(into->trace_span_s, from->trace_span_s);
    into->partial |= from->partial;
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

/* Name of a status for the report ("OK", "NOENT", or a number). */
static const char *st_name(int s, char *buf, size_t n) {
    if (s == -1) return "timeout";
    if (s == -2) return "rpc-error";
    if (s == -3) return "no-handle";
    if (s == -5) return "connection-lost";
    if (s == -6) return "refused";
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
    fprintf(out, "Outstanding: replay mean %.1f, p99 %llu, max %llu; trace mean %.1f, p99 %llu, max %llu\n",
            tbbt_hist_mean(&s->outstanding), (unsigned long long)tbbt_hist_quantile(&s->outstanding, .99),
            (unsigned long long)s->outstanding.max, tbbt_hist_mean(&s->trace_outstanding),
            (unsigned long long)tbbt_hist_quantile(&s->trace_outstanding, .99),
            (unsigned long long)s->trace_outstanding.max);
    if (s->issue_err.n)
        fprintf(out, "Issue error: p50 %.1f us, p99 %.1f us, max %.1f us (actual send minus scheduled)\n",
                (double)tbbt_hist_quantile(&s->issue_err, .5) / 1e3,
                (double)tbbt_hist_quantile(&s->issue_err, .99) / 1e3, (double)s->issue_err.max / 1e3);
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

void tbbt_pstats_json(const struct tbbt_play_stats *s, GString *o) {
    g_string_append(o, "{\"schema\":\"tbbt-play-result/1\",\"meta\":{");
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
        "\"conn_lost\":%llu,\"wall_s\":%.6f,"
        "\"cpu_s\":%.6f,\"trace_span_s\":%.6f,\"ops_per_s\":%.3f},",
        (unsigned long long)s->records, (unsigned long long)s->sent, (unsigned long long)s->replies,
        (unsigned long long)s->matched, (unsigned long long)s->mismatched, (unsigned long long)s->skipped,
        (unsigned long long)s->timeouts, (unsigned long long)s->no_handle, (unsigned long long)s->refused,
        (unsigned long long)s->not_replayable, (unsigned long long)s->warmup,
        (unsigned long long)s->late_replies, (unsigned long long)s->reconnects,
        (unsigned long long)s->conn_lost, s->wall_s, s->cpu_s, s->trace_span_s,
        s->wall_s > 0 ? (double)s->replies / s->wall_s : 0);
    g_string_append(o, "\"issue_error_ns\":");
    tbbt_hist_json(&s->issue_err, o);
    g_string_append(o, ",\"outstanding\":");
    tbbt_hist_json(&s->outstanding, o);
    g_string_append(o, ",\"trace_outstanding\":");
    tbbt_hist_json(&s->trace_outstanding, o);
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
    }
    g_string_append(o, "]");
    if (s->rank_rows) rank_rows_json(s->rank_rows, o);
    g_string_append(o, "}");
}
