/* quality.h -- is a capture fit to replay? What it lost, why, and what to
 * do about it.
 *
 * The calls missing are estimated per client from the gaps in its xids
 * (xidseq.h): whatever lost a call, its xid is missing. Calls lost after
 * the last call a TCP stream shows have no later xid to show the gap; the
 * stream's own length does (its FIN's sequence number): those bytes are
 * turned into calls at the capture's mean call size. The estimate is
 * then shared among the causes the capture layer saw, in proportion to
 * the calls each could hide: stream bytes skipped after a snaplen cut
 * (messages a GRO super-segment held past the cut), in holes of the TCP
 * sequence (packets never captured), at a stream picked up mid-way, or
 * while resynchronising on bytes that were not RPC; IP datagrams never
 * completed (missing fragments). Bytes are turned into calls at the
 * capture's own rate (RPC calls per byte of RPC messages it holds). What
 * no cause explains is packets lost whole before the capture saw them
 * (the kernel's buffer, the tap, the network); a pcapng file's own count
 * of the kernel's drops is reported beside it (pcapng_drops.h). Beside the missing calls:
 * records the snaplen cut before an argument the replay needs (kept for
 * the summary, not replayed unless pass 2 restores the field), and calls
 * whose reply is missing.
 *
 * The verdict: usable when at most TBBT_Q_USABLE_MAX of the calls are
 * missing or cut, degraded up to TBBT_Q_DEGRADED_MAX, not usable for
 * replay beyond (or when no NFS call was found). */
#ifndef TBBT_QUALITY_H
#define TBBT_QUALITY_H

#include <stdint.h>
#include <stdio.h>

#include <glib.h>

#include "capture.h"
#include "pass1.h"

#define TBBT_Q_USABLE_MAX 0.01
#define TBBT_Q_DEGRADED_MAX 0.10

enum tbbt_verdict { TBBT_Q_USABLE, TBBT_Q_DEGRADED, TBBT_Q_UNUSABLE };

/* The causes, in the order reports list them. */
enum tbbt_cause {
    TBBT_C_SNAPLEN,   /* messages hidden behind a snaplen cut */
    TBBT_C_GAPS,      /* holes in TCP streams */
    TBBT_C_START,     /* streams picked up mid-way */
    TBBT_C_RESYNC,    /* bytes skipped that were not RPC */
    TBBT_C_FRAGMENTS, /* IP datagrams never completed */
    TBBT_C_UNSEEN,    /* packets lost whole: no trace in the capture but the xids */
    TBBT_C_COUNT_
};

struct tbbt_quality {
    uint64_t calls_seen;    /* RPC calls of the clients whose xids count up */
    uint64_t calls_missing; /* estimated, of those clients */
    uint64_t calls_tail; /* of which after a TCP stream's last call or before the first of one seen open (from
                            its length, not xids) */
    double missing_share;         /* calls_missing / (calls_seen + calls_missing) */
    uint64_t calls_head;          /* of which before the first packet of streams whose opening was lost: a
                                     guess at their pace (capture.h), in a range: */
    double share_low, share_high; /* missing_share were none or the most of them lost */
    uint64_t clients, clients_unsequenced, calls_unsequenced; /* clients with random xids: no estimate */
    uint64_t records;                                         /* NFS records */
    uint64_t args_cut;        /* records cut before an argument the replay needs */
    uint64_t header_only;     /* of those, cut inside the RPC header */
    uint64_t restored;        /* cut records pass 2 completed (a name, attributes): not in args_cut */
    uint64_t replies_missing; /* NFS calls with no reply */
    double cut_share;         /* args_cut / records */
    double bad_share;         /* the larger of missing_share and cut_share: what the verdict judges */
    double cause_calls[TBBT_C_COUNT_]; /* the missing calls, shared among the causes */
    uint64_t cause_bytes[TBBT_C_COUNT_];
    enum tbbt_verdict verdict;
    const struct tbbt_capstats *cs; /* the figures it came from, for the report */
};

/* Judges a capture from its counters and pass 1's. restored: the cut
 * records pass 2 completed, when it ran (they are not counted as cut: the
 * replay sends them). */
void tbbt_quality_assess(struct tbbt_quality *q, const struct tbbt_capstats *cs,
                         const struct tbbt_pass1_stats *s, const struct tbbt_client_loss *loss,
                         unsigned nloss, uint64_t restored);

/* "usable", "degraded", "not usable for replay". */
const char *tbbt_quality_verdict_name(enum tbbt_verdict v);

/* The report's opening: the verdict with its thresholds, the missing
 * calls and their causes, and what to do. */
void tbbt_quality_print(const struct tbbt_quality *q, FILE *out);

/* One line for standard error when the capture is not usable as it is, or
 * NULL: said even with --quiet. */
char *tbbt_quality_warning(const struct tbbt_quality *q, const char *path);

/* Appends "capture":{...} (no comma around it). */
void tbbt_quality_json(const struct tbbt_quality *q, GString *out);

#endif
