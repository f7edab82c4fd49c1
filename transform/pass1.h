/* pass1.h -- RPC messages in, replay records out (tbbt-prep pass 1).
 *
 * Takes the messages of the capture layer in capture order, repairs their
 * timestamps, decodes NFS calls and replies, pairs them by (client, server,
 * xid), maps file handles to TBBT-IDs, and emits one record per call in
 * call-time order: when its reply arrives, or, marked reply-lost, once the
 * reply is overdue. Retransmitted calls are kept once; a reply seen before
 * its call still pairs; a reply with no call is counted. Memory is bounded
 * by the calls in flight within the reply timeout, not by the capture (the
 * answered ones waiting behind a call unanswered for over 100 ms are held
 * packed: recpark.h), and
 * at most max_pending calls whose records hold max_pending_bytes (beyond,
 * the oldest is emitted early, counted in forced_out); replies captured before their call wait at most the
 * orphan timeout, and at most TBBT_P1_ORPHANS_MAX of them holding TBBT_P1_ORPHAN_BYTES of message data (the
 * oldest is dropped beyond, counted in orphans_evicted), whatever the capture's time stamps say. */
#ifndef TBBT_PASS1_H
#define TBBT_PASS1_H

#include <stdint.h>

#include "capture.h"
#include "record.h"
#include "timefix.h"
#include "xidseq.h"

#define TBBT_P1_ORPHANS_MAX 65536u       /* replies waiting for their call */
#define TBBT_P1_ORPHAN_BYTES (64u << 20) /* their message bytes, together */

struct tbbt_pass1_opts {
    int64_t reply_timeout;    /* ns after which a call's reply counts as lost */
    int64_t orphan_timeout;   /* ns a reply waits for a call captured after it */
    int64_t step_threshold;   /* ns: backward clock step to repair */
    uint32_t max_pending;     /* calls in flight before the oldest is forced out */
    size_t max_pending_bytes; /* their records' names and listings, together, before the same */
    int64_t retrans_span;     /* ns of trace over which a call seen again is a retransmission */
    size_t retrans_max_bytes; /* memory for the calls kept over that span (recentset.h) */
};

/* Defaults: 30 s reply timeout, 2 s orphan wait, 1 s step, 1M in flight
 * holding 256 MiB, retransmissions known over 300 s (five times TCP's
 * 60 s timeout) in at most 128 MiB (5.6M calls, 8 minutes at 12k a second). */
void tbbt_pass1_opts_default(struct tbbt_pass1_opts *o);

/* Receives each record in call order; returns 0, or -1 to stop with an
 * error (e.g. the output disk is full). */
typedef int (*tbbt_rec_sink)(void *ctx, const struct tbbt_rec *r);

/* Per-client loss estimate from the gaps in its xids (xidseq.h): a client
 * is a transport (address and port), or a host (port 0) whose transports
 * share one xid counter. */
struct tbbt_client_loss {
    struct tbbt_endpoint client;
    unsigned transports;       /* 1, or the host's transports numbered by one counter */
    uint64_t calls;            /* distinct calls seen (any RPC program) */
    struct tbbt_xs_result est; /* calls missing, and whether the xids allow saying */
};

struct tbbt_pass1_stats {
    uint64_t rpc_calls, rpc_replies;    /* RPC messages of any program */
    uint64_t bad_rpc;                   /* not parseable as RPC */
    uint64_t nfs_calls;                 /* distinct NFSv2/v3 calls (records) */
    uint64_t nfs_v2, nfs_v3, nfs_v4;    /* calls per version; v4 skipped */
    uint64_t nfs_unknown_proc;          /* v2/v3 procedure numbers we don't know */
    uint64_t mount_calls, roots_learnt; /* MOUNT; MNT replies that taught a root */
    uint64_t other_calls;               /* other programs (NFSACL, NLM, ...) skipped */
    uint64_t retrans_calls;             /* retransmitted calls (kept once) */
    uint64_t dup_replies;               /* replies to calls already answered */
    uint64_t replies_without_call;      /* replies never matched */
    uint64_t reply_first;               /* replies captured before their call */
    uint64_t orphans_evicted;           /* of replies_without_call: dropped waiting, over the caps */
    uint64_t replies_lost;              /* NFS calls emitted with no reply */
    uint64_t rpc_errors;                /* NFS calls answered by an RPC error */
    uint64_t call_trunc, reply_trunc;   /* decoded from a cut-short message */
    uint64_t call_hdr_cut;              /* of call_trunc: cut inside the RPC header (xid, procedure only) */
    uint64_t args_cut;                  /* NFS records whose arguments were cut (TBBT_RF_ARGS_CUT) */
    uint64_t stale_dead;                /* handles of retired objects used again, answered STALE */
    uint64_t overlap_dead;              /* handles of retired objects shown by replies to calls sent before */
    uint64_t call_bad, reply_bad;       /* malformed NFS bodies (record kept) */
    uint64_t out_of_order;              /* records emitted with an earlier call time than the last */
    uint64_t forced_out;                /* emitted early: max_pending or max_pending_bytes reached */
    uint64_t records;                   /* records emitted */
    uint64_t retrans_span_cut;          /* calls forgotten before the retransmission span (memory bound) */
    int64_t retrans_span_kept;          /* ns: the shortest span a call was kept when cut, else the span */
};

struct tbbt_pass1;

struct tbbt_pass1 *tbbt_pass1_new(const struct tbbt_pass1_opts *o, tbbt_rec_sink sink, void *ctx);

/* Feeds one message (a tbbt_msg_cb: pass the pass1 object as ctx). */
void tbbt_pass1_msg(void *pass1, const struct tbbt_msg *m);

/* Sets the callback for per-message warnings (malformed RPC or NFS). */
void tbbt_pass1_set_warn(struct tbbt_pass1 *p, tbbt_warn_cb cb, void *ctx);

/* Emits every call still waiting (reply lost) and drops unmatched replies.
 * Returns 0, or -1 if the sink failed at any point. */
int tbbt_pass1_finish(struct tbbt_pass1 *p);

const struct tbbt_pass1_stats *tbbt_pass1_stats(const struct tbbt_pass1 *p);

/* Bytes the records of the calls in flight hold (names, listings). */
size_t tbbt_pass1_pending_bytes(const struct tbbt_pass1 *p);
const struct tbbt_fhmap_stats *tbbt_pass1_fhstats(const struct tbbt_pass1 *p);
const struct tbbt_timefix *tbbt_pass1_timefix(const struct tbbt_pass1 *p);

/* Loss estimates, one per client, valid until tbbt_pass1_free or the next
 * call (p keeps them, hence not const). */
const struct tbbt_client_loss *tbbt_pass1_loss(struct tbbt_pass1 *p, unsigned *n);

/* The IDs of the export roots MOUNT replies named (n of them), valid
 * until tbbt_pass1_free. */
const tbbt_id *tbbt_pass1_roots(const struct tbbt_pass1 *p, unsigned *n);

void tbbt_pass1_free(struct tbbt_pass1 *p);

#endif
