/* faillog.c -- --fail-log and --send-log lines (see engine_int.h).
 *
 * One line per record that did not get its traced status, and one per
 * request sent, each naming the record by clone and index in the trace,
 * so that a shortfall can be traced to its records. Apart from the send
 * thread, which only says when. */
#include "engine_int.h"

#include <stdio.h>

#include "nfsstat.h"

/* The 0-based index in the trace of a slot's record, for the logs. */
static uint64_t rec_index(const struct engine *e, const struct slot *s) {
    if (e->loop) return s->seq - (uint64_t)s->clone * atomic_load(&e->loop_len);
    return s->seq / e->nclones;
}

/* The word --fail-log prints for a status: the NFS status number, or what
 * became of a request that got none. */
static const char *status_word(int status, char *buf, size_t len) {
    switch (status) {
    case TBBT_PST_TIMEOUT: return "timeout";
    case TBBT_PST_RPC_ERROR: return "rpc-error";
    case TBBT_PST_NO_HANDLE: return "no-handle";
    case TBBT_PST_SKIPPED: return "skipped";
    case TBBT_PST_CONN_LOST: return "conn-lost";
    case TBBT_PST_REFUSED: return "refused";
    }
    const char *n = tbbt_nfsstat_name(status);
    if (n) return n;
    snprintf(buf, len, "%d", status);
    return buf;
}

/* --fail-log: "CLONE RECORD vV PROC TRACED GOT" for a record that did not
 * get its traced status (TRACED "lost" where the trace has no reply), so
 * a shortfall can be traced to its records (tbbt-dump --limit/--skip). */
void eng_fail_log(struct engine *e, const struct slot *s, int status) {
    const struct tbbt_rec *r = &s->r;
    char tb[16], gb[16];
    const char *traced =
        (r->flags & TBBT_RF_REPLY_LOST) && r->status < 0 ? "lost" : status_word(r->status, tb, sizeof(tb));
    fprintf(e->flog, "%u %llu v%u %s %s %s\n", (unsigned)e->o->clone + s->clone,
            (unsigned long long)rec_index(e, s), (unsigned)r->vers,
            r->op < TBBT_OP_COUNT ? tbbt_op_info(r->op)->name : "?", traced,
            status_word(status, gb, sizeof(gb)));
}

/* --send-log: "CLONE RECORD" for a request sent. */
void eng_send_log(struct engine *e, const struct slot *s) {
    fprintf(e->slog, "%u %llu\n", (unsigned)e->o->clone + s->clone, (unsigned long long)rec_index(e, s));
}
