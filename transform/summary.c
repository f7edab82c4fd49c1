/* summary.c -- per-procedure counts and response times. */
#include "summary.h"

#include <string.h>

#include "nfsstat.h"

void tbbt_summary_init(struct tbbt_summary *s) {
    memset(s, 0, sizeof(*s));
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < TBBT_OP_COUNT; i++)
            s->op[v][i].srt_min = INT64_MAX;
}

/* Maps an NFS status to its slot: the RFC's codes are below 100 or in
 * BADHANDLE..JUKEBOX (10001..10008), so a small array holds them all. */
static int status_slot(int32_t st) {
    if (st >= 0 && st < 100) return st;
    if (st >= TBBT_NFSERR_BADHANDLE && st <= TBBT_NFSERR_JUKEBOX) return 100 + (st - TBBT_NFSERR_BADHANDLE);
    return 108;
}

int tbbt_summary_slot_status(int slot) {
    if (slot < 100) return slot;
    if (slot < 108) return TBBT_NFSERR_BADHANDLE + (slot - 100);
    return -1;
}

void tbbt_summary_add(struct tbbt_summary *s, const struct tbbt_rec *r) {
    if ((r->vers != 2 && r->vers != 3) || r->op >= TBBT_OP_COUNT) return;
    struct tbbt_sum_op *o = &s->op[r->vers - 2][r->op];
    if (!s->records++) s->first_call = r->call_time;
    s->last_call = r->call_time;
    o->calls++;
    if (r->flags & TBBT_RF_INSERTED) o->inserted++;
    if (r->flags & TBBT_RF_REPLY_LOST) {
        o->lost++;
        return;
    }
    if (r->flags & TBBT_RF_RPC_ERROR) {
        o->rpc_err++;
        return;
    }
    if (r->status < 0) return;
    o->replied++;
    o->status[status_slot(r->status)]++;
    int64_t srt = r->reply_time - r->call_time;
    if (srt < o->srt_min) o->srt_min = srt;
    if (srt > o->srt_max) o->srt_max = srt;
    o->srt_sum += (double)srt;
}

/* Writes "NAME=count" for each status seen, most common first is not
 * needed: status order is stable and greppable. */
static void print_statuses(const struct tbbt_sum_op *o, FILE *out) {
    for (int k = 0; k < TBBT_SUM_NSTAT; k++) {
        if (!o->status[k]) continue;
        int code = tbbt_summary_slot_status(k);
        const char *n = code >= 0 ? tbbt_nfsstat_name(code) : NULL;
        if (n)
            fprintf(out, " %s=%llu", n, (unsigned long long)o->status[k]);
        else
            fprintf(out, " %d=%llu", code, (unsigned long long)o->status[k]);
    }
    if (o->lost) fprintf(out, " no-reply=%llu", (unsigned long long)o->lost);
    if (o->rpc_err) fprintf(out, " rpc-error=%llu", (unsigned long long)o->rpc_err);
}

void tbbt_summary_print(const struct tbbt_summary *s, FILE *out) {
    for (int v = 0; v < 2; v++) {
        uint64_t total = 0;
        for (int i = 0; i < TBBT_OP_COUNT; i++)
            total += s->op[v][i].calls;
        if (!total) continue;
        fprintf(out, "NFS Version %d SRT Statistics:\n", v + 2);
        fprintf(out, "%-12s %10s %12s %12s %12s  %s\n", "Procedure", "Calls", "Min SRT(ms)", "Max SRT(ms)",
                "Avg SRT(ms)", "Statuses");
        for (int i = 0; i < TBBT_OP_COUNT; i++) {
            const struct tbbt_sum_op *o = &s->op[v][i];
            if (!o->calls) continue;
            double mn = o->replied ? o->srt_min / 1e6 : 0, mx = o->replied ? o->srt_max / 1e6 : 0;
            double avg = o->replied ? o->srt_sum / o->replied / 1e6 : 0;
            fprintf(out, "%-12s %10llu %12.3f %12.3f %12.3f ", tbbt_op_info(i)->name,
                    (unsigned long long)o->calls, mn, mx, avg);
            print_statuses(o, out);
            fputc('\n', out);
        }
        fprintf(out, "%-12s %10llu\n\n", "Total", (unsigned long long)total);
    }
}

void tbbt_summary_json(const struct tbbt_summary *s, GString *out) {
    int first = 1;
    g_string_append(out, "\"procedures\":[");
    for (int v = 0; v < 2; v++)
        for (int i = 0; i < TBBT_OP_COUNT; i++) {
            const struct tbbt_sum_op *o = &s->op[v][i];
            if (!o->calls) continue;
            g_string_append_printf(
                out,
                "%s{\"vers\":%d,\"proc\":\"%s\",\"calls\":%llu,\"replied\":%llu,\"lost\":%llu,"
                "\"rpc_error\":%llu,\"inserted\":%llu,\"srt_avg_ms\":%.6f,\"status\":{",
                first ? "" : ",", v + 2, tbbt_op_info(i)->name, (unsigned long long)o->calls,
                (unsigned long long)o->replied, (unsigned long long)o->lost, (unsigned long long)o->rpc_err,
                (unsigned long long)o->inserted, o->replied ? o->srt_sum / o->replied / 1e6 : 0.0);
            first = 0;
            int sf = 1;
            for (int k = 0; k < TBBT_SUM_NSTAT; k++) {
                if (!o->status[k]) continue;
                g_string_append_printf(out, "%s\"%d\":%llu", sf ? "" : ",", tbbt_summary_slot_status(k),
                                       (unsigned long long)o->status[k]);
                sf = 0;
            }
            g_string_append(out, "}}");
        }
    g_string_append(out, "]");
}
