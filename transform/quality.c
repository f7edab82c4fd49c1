/* quality.c -- the capture's verdict: calls missing and cut, their causes,
 * and what to do (method in quality.h). */
#include "quality.h"

#include <string.h>

#include "rectext.h"

/* Each cause: its JSON key and how the report names it. */
static const struct {
    const char *key, *what;
} causes[TBBT_C_COUNT_] = {
    [TBBT_C_SNAPLEN] = {"snaplen", "hidden behind snaplen cuts"},
    [TBBT_C_GAPS] = {"stream_gaps", "in holes of TCP streams"},
    [TBBT_C_START] = {"mid_stream_start", "at streams picked up mid-way"},
    [TBBT_C_RESYNC] = {"resync", "in bytes skipped to resynchronise"},
    [TBBT_C_FRAGMENTS] = {"ip_fragments", "in IP datagrams missing fragments"},
    [TBBT_C_UNSEEN] = {"not_captured", "in packets lost whole (kernel, tap or network drops)"},
};

const char *tbbt_quality_verdict_name(enum tbbt_verdict v) {
    return v == TBBT_Q_USABLE ? "usable" : v == TBBT_Q_DEGRADED ? "degraded" : "not usable for replay";
}

/* Sums the clients' estimates; clients with random xids are set apart. */
static void add_clients(struct tbbt_quality *q, const struct tbbt_client_loss *loss, unsigned n) {
    for (unsigned i = 0; i < n; i++) {
        q->clients++;
        if (!loss[i].est.sequential) {
            q->clients_unsequenced++;
            q->calls_unsequenced += loss[i].calls;
            continue;
        }
        q->calls_seen += loss[i].calls;
        q->calls_missing += loss[i].est.missing;
    }
}

/* Shares the missing calls among the causes: what each could hide, at the
 * capture's own calls per byte, scaled down when together they could hide
 * more than is missing; the rest was lost whole. A stream picked up
 * mid-way hides calls before the first xid, which no gap shows: its bytes
 * are reported, not counted. */
static void attribute(struct tbbt_quality *q, const struct tbbt_capstats *cs,
                      const struct tbbt_pass1_stats *s) {
    q->cause_bytes[TBBT_C_SNAPLEN] = cs->skipped_cut;
    q->cause_bytes[TBBT_C_GAPS] = cs->skipped_gap;
    q->cause_bytes[TBBT_C_START] = cs->skipped_start;
    uint64_t known = cs->skipped_cut + cs->skipped_gap + cs->skipped_start;
    q->cause_bytes[TBBT_C_RESYNC] = cs->skipped_bytes > known ? cs->skipped_bytes - known : 0;
    double per_byte = cs->msg_bytes ? (double)s->rpc_calls / (double)cs->msg_bytes : 0;
    double per_msg = cs->messages ? (double)s->rpc_calls / (double)cs->messages : 0;
    double could[TBBT_C_COUNT_] = {0}, sum = 0;
    could[TBBT_C_SNAPLEN] = (double)cs->skipped_cut * per_byte;
    could[TBBT_C_GAPS] = (double)cs->skipped_gap * per_byte;
    could[TBBT_C_RESYNC] = (double)q->cause_bytes[TBBT_C_RESYNC] * per_byte;
    could[TBBT_C_FRAGMENTS] = (double)cs->ip_frag_dropped * per_msg;
    for (int c = 0; c < TBBT_C_COUNT_; c++)
        sum += could[c];
    double m = (double)q->calls_missing, scale = sum > m ? m / sum : 1.0;
    for (int c = 0; c < TBBT_C_COUNT_; c++)
        q->cause_calls[c] = could[c] * scale;
    q->cause_calls[TBBT_C_UNSEEN] = sum < m ? m - sum : 0;
}

void tbbt_quality_assess(struct tbbt_quality *q, const struct tbbt_capstats *cs,
                         const struct tbbt_pass1_stats *s, const struct tbbt_client_loss *loss,
                         unsigned nloss, uint64_t restored) {
    memset(q, 0, sizeof(*q));
    q->cs = cs;
    add_clients(q, loss, nloss);
    /* calls lost after a stream's last captured call, or before its first
     * in a stream seen open: no xid on both sides shows them, the stream's
     * sequence numbers do (its SYN's, its FIN's) */
    double per_call_byte = cs->call_bytes ? (double)cs->call_msgs / (double)cs->call_bytes : 0;
    q->calls_tail = (uint64_t)((double)cs->edge_call_bytes * per_call_byte + 0.5);
    q->calls_missing += q->calls_tail;
    /* and before a stream's first captured call, where its opening was lost too (tcpreasm.c) */
    q->calls_head = cs->head_calls;
    q->calls_missing += cs->head_calls;
    uint64_t all = q->calls_seen + q->calls_missing;
    q->missing_share = all ? (double)q->calls_missing / (double)all : 0;
    uint64_t low = q->calls_missing - q->calls_head, high = low + cs->head_calls_max;
    q->share_low = low ? (double)low / (double)(q->calls_seen + low) : 0;
    q->share_high = high ? (double)high / (double)(q->calls_seen + high) : 0;
    q->records = s->records;
    q->restored = restored < s->args_cut ? restored : s->args_cut;
    q->args_cut = s->args_cut - q->restored;
    q->header_only = s->call_hdr_cut;
    q->replies_missing = s->replies_lost;
    q->cut_share = q->records ? (double)q->args_cut / (double)q->records : 0;
    q->bad_share = q->missing_share > q->cut_share ? q->missing_share : q->cut_share;
    attribute(q, cs, s);
    if (!q->records || q->bad_share > TBBT_Q_DEGRADED_MAX)
        q->verdict = TBBT_Q_UNUSABLE;
    else if (q->bad_share > TBBT_Q_USABLE_MAX)
        q->verdict = TBBT_Q_DEGRADED;
    else
        q->verdict = TBBT_Q_USABLE;
}

/* What to do, one piece of advice per cause present; calls fn(ctx, text)
 * for each. */
static void advise(const struct tbbt_quality *q, void (*fn)(void *, const char *), void *ctx) {
    const struct tbbt_capstats *cs = q->cs;
    char b[320];
    if (q->args_cut || q->cause_calls[TBBT_C_SNAPLEN] >= 0.5)
        fn(ctx, "recapture with whole packets: tcpdump -s 0 (or tbbt-capture), so no name, handle or "
                "message is cut");
    if (cs->big_packets && q->cause_calls[TBBT_C_SNAPLEN] >= 0.5) {
        snprintf(b, sizeof(b),
                 "%llu packets are larger than an Ethernet frame: GRO/TSO hand tcpdump super-segments; turn "
                 "the offloads off on the capture interface (ethtool -K IF gro off lro off tso off gso off) "
                 "or capture on a mirror port",
                 (unsigned long long)cs->big_packets);
        fn(ctx, b);
    }
    if (q->cause_calls[TBBT_C_GAPS] + q->cause_calls[TBBT_C_UNSEEN] + q->cause_calls[TBBT_C_FRAGMENTS] >=
            0.5 ||
        cs->kernel_drops)
        fn(ctx, "packets were lost before or while the capture was taken: a larger kernel buffer (tcpdump "
                "-B 262144), a filter for NFS and MOUNT only, a faster disk, or a mirror (SPAN) port");
    if (q->records && (double)q->replies_missing / (double)q->records > 0.05)
        fn(ctx, "many calls have no reply: check that the capture sees both directions (asymmetric routes, "
                "a one-way mirror)");
    if (q->calls_unsequenced)
        fn(ctx, "some clients do not number their calls in sequence: their losses are not estimated");
}

/* advise() callback printing one indented line. */
static void print_advice(void *ctx, const char *text) {
    fprintf((FILE *)ctx, "  do: %s\n", text);
}

void tbbt_quality_print(const struct tbbt_quality *q, FILE *out) {
    fprintf(
        out,
        "Capture verdict: %s (usable: at most %.0f%% of calls missing or cut; degraded: at most %.0f%%)\n",
        tbbt_quality_verdict_name(q->verdict), 100 * TBBT_Q_USABLE_MAX, 100 * TBBT_Q_DEGRADED_MAX);
    fprintf(out, "  calls: %llu seen, est. %llu missing (%.2f%%) over %llu clients",
            (unsigned long long)q->calls_seen, (unsigned long long)q->calls_missing, 100 * q->missing_share,
            (unsigned long long)q->clients);
    if (q->calls_head)
        fprintf(out,
                "; %llu of them before the first packet of streams whose opening was lost, a guess at "
                "their pace: %.2f-%.2f%% missing",
                (unsigned long long)q->calls_head, 100 * q->share_low, 100 * q->share_high);
    if (q->clients_unsequenced)
        fprintf(out, " (%llu clients, %llu calls, with random xids: not estimated)",
                (unsigned long long)q->clients_unsequenced, (unsigned long long)q->calls_unsequenced);
    fprintf(out,
            "\n  records: %llu, %llu cut before an argument the replay needs (%.2f%%; %llu inside the RPC "
            "header; %llu more completed by pass 2), %llu without reply\n",
            (unsigned long long)q->records, (unsigned long long)q->args_cut, 100 * q->cut_share,
            (unsigned long long)q->header_only, (unsigned long long)q->restored,
            (unsigned long long)q->replies_missing);
    if (q->cs->cut_packets)
        fprintf(out, "  snaplen: %llu packets cut, %llu bytes cut off, %llu messages cut short\n",
                (unsigned long long)q->cs->cut_packets, (unsigned long long)q->cs->cut_bytes,
                (unsigned long long)q->cs->truncated_msgs);
    for (int c = 0; c < TBBT_C_COUNT_; c++) {
        if (q->cause_calls[c] < 0.5 && !q->cause_bytes[c]) continue;
        fprintf(out, "  missing %s: est. %.0f calls", causes[c].what, q->cause_calls[c]);
        if (q->cause_bytes[c]) fprintf(out, ", %llu bytes skipped", (unsigned long long)q->cause_bytes[c]);
        if (c == TBBT_C_GAPS) fprintf(out, ", %llu holes", (unsigned long long)q->cs->tcp_gaps);
        if (c == TBBT_C_FRAGMENTS)
            fprintf(out, ", %llu datagrams", (unsigned long long)q->cs->ip_frag_dropped);
        if (c == TBBT_C_UNSEEN && q->cs->drops_known)
            fprintf(out, "; the capture records %llu packets dropped by the kernel",
                    (unsigned long long)q->cs->kernel_drops);
        fputc('\n', out);
    }
    advise(q, print_advice, out);
}

char *tbbt_quality_warning(const struct tbbt_quality *q, const char *path) {
    if (q->verdict == TBBT_Q_USABLE) return NULL;
    return g_strdup_printf("%s: capture %s: est. %.1f%% of calls missing, %.1f%% cut before an argument the "
                           "replay needs (tbbt-prep's summary says why and what to do)",
                           path, tbbt_quality_verdict_name(q->verdict), 100 * q->missing_share,
                           100 * q->cut_share);
}

/* advise() callback appending a JSON string to an array. */
static void json_advice(void *ctx, const char *text) {
    GString *j = ctx;
    if (j->str[j->len - 1] != '[') g_string_append_c(j, ',');
    tbbt_json_str(j, text, strlen(text));
}

/* One cause's object: its share of the missing calls and its own figures. */
static void json_cause(const struct tbbt_quality *q, GString *j, int c) {
    const struct tbbt_capstats *cs = q->cs;
    g_string_append_printf(j, "%s\"%s\":{\"calls_missing_estimated\":%.1f,\"bytes_skipped\":%llu",
                           c ? "," : "", causes[c].key, q->cause_calls[c],
                           (unsigned long long)q->cause_bytes[c]);
    if (c == TBBT_C_SNAPLEN)
        g_string_append_printf(
            j,
            ",\"packets_cut\":%llu,\"bytes_cut\":%llu,\"messages_cut\":%llu,"
            "\"records_args_cut\":%llu,\"records_header_only\":%llu,\"records_restored\":%llu,"
            "\"big_packets\":%llu",
            (unsigned long long)cs->cut_packets, (unsigned long long)cs->cut_bytes,
            (unsigned long long)cs->truncated_msgs, (unsigned long long)q->args_cut,
            (unsigned long long)q->header_only, (unsigned long long)q->restored,
            (unsigned long long)cs->big_packets);
    if (c == TBBT_C_GAPS) g_string_append_printf(j, ",\"holes\":%llu", (unsigned long long)cs->tcp_gaps);
    if (c == TBBT_C_RESYNC) g_string_append_printf(j, ",\"resyncs\":%llu", (unsigned long long)cs->resyncs);
    if (c == TBBT_C_FRAGMENTS)
        g_string_append_printf(j, ",\"datagrams_incomplete\":%llu", (unsigned long long)cs->ip_frag_dropped);
    if (c == TBBT_C_UNSEEN) {
        if (cs->drops_known)
            g_string_append_printf(j, ",\"kernel_drops\":%llu", (unsigned long long)cs->kernel_drops);
        else
            g_string_append(j, ",\"kernel_drops\":null"); /* a pcap file does not record them */
    }
    g_string_append_c(j, '}');
}

void tbbt_quality_json(const struct tbbt_quality *q, GString *j) {
    g_string_append(j, "\"capture\":{\"verdict\":");
    const char *v = tbbt_quality_verdict_name(q->verdict);
    tbbt_json_str(j, v, strlen(v));
    g_string_append_printf(
        j,
        ",\"thresholds\":{\"usable\":%.2f,\"degraded\":%.2f},\"calls_seen\":%llu,\"calls_missing_estimated\":"
        "%llu,"
        "\"missing_share\":%.6f,\"missing_share_range\":[%.6f,%.6f],\"calls_missing_before_openings\":%llu,"
        "\"clients\":%llu,\"clients_unsequenced\":%llu,\"calls_unsequenced\":%llu,"
        "\"records\":%llu,\"records_args_cut\":%llu,\"cut_share\":%.6f,\"replies_missing\":%llu,\"causes\":{",
        TBBT_Q_USABLE_MAX, TBBT_Q_DEGRADED_MAX, (unsigned long long)q->calls_seen,
        (unsigned long long)q->calls_missing, q->missing_share, q->share_low, q->share_high,
        (unsigned long long)q->calls_head, (unsigned long long)q->clients,
        (unsigned long long)q->clients_unsequenced, (unsigned long long)q->calls_unsequenced,
        (unsigned long long)q->records, (unsigned long long)q->args_cut, q->cut_share,
        (unsigned long long)q->replies_missing);
    for (int c = 0; c < TBBT_C_COUNT_; c++)
        json_cause(q, j, c);
    g_string_append_printf(j, ",\"unanswered\":{\"calls\":%llu}},\"advice\":[",
                           (unsigned long long)q->replies_missing);
    advise(q, json_advice, j);
    g_string_append(j, "]}");
}
