/* engine.h -- tbbt-play's engine: three threads (paper 3.4, design.md).
 *
 *   I/O thread      streams records from the trace into a ring of `window`
 *                   slots (the lookahead window); counts the trace's own
 *                   concurrency as it goes.
 *   send thread     (the caller's) adds records to the ordering policy in
 *                   trace order, takes the records it offers, holds each
 *                   until its scheduled time (timestamp mode), maps TBBT-IDs
 *                   to the live handles (the manifest's, then what replies
 *                   reveal), encodes (lib/nfsenc) and sends; applies the
 *                   replies the receive thread hands over (handles, readdir
 *                   cookies, locks, statistics); times requests out.
 *   receive thread  reads replies from every connection, matches XIDs to
 *                   slots, decodes them (lib/nfsdec) and queues them for
 *                   the send thread, waking it.
 * No call waits for its reply anywhere: the send thread owns every piece
 * of replay state, the receive thread only decodes. */
#ifndef TBBT_ENGINE_H
#define TBBT_ENGINE_H

#include <stdint.h>

#include "nfsconn.h"
#include "order.h"
#include "stats.h"

struct tbbt_play_opts {
    const char *trace;    /* NAME.tbbt */
    const char *manifest; /* NAME.manifest (tbbt-init's) */
    struct tbbt_nfs_server server;
    const struct tbbt_sched_ops *order;
    int deps;                 /* fsdep: TBBT_SCHED_DEPS_* (deps.h) */
    double speedup;           /* 0: full speed; else timestamps divided by it */
    uint32_t window;          /* lookahead window, records */
    uint32_t max_outstanding; /* requests out at most */
    int connections;          /* 0: one per traced client; else at most that many, the clients in turn */
    int udp;                  /* UDP instead of TCP */
    int clone;                /* the image clone to play against (the first of clones) */
    int clones;               /* copies of the trace, against clones clone..clone+clones-1 (0: 1) */
    int loop;                 /* 2 or more: that many copies one after another, copy i against clone
                                 clone+i, its times shifted past copy i-1 (clones must be 1 then) */
    const char *send_log;     /* "CLONE RECORD" per request sent, in send order (NULL: none) */
    const char *fail_log;     /* "CLONE RECORD vV PROC TRACED GOT" per record that failed (NULL: none) */
    double warmup_s;          /* seconds left out of the figures */
    double duration_s;        /* stop sending after (0: no limit) */
    uint64_t limit;           /* records at most (0: all) */
    int timeout_s;            /* per request */
    int retransmit_s;         /* send a request again after, once (0: never) */
    int cred_set;             /* override the trace's credentials */
    uint32_t uid, gid;
    uint64_t seed; /* payload, verifiers */
    int live;      /* a live progress line on stderr */
    int quiet;     /* no notes on stderr (what --connections merges) */
    /* Called once setup is done (trace open, manifest loaded, fixed
     * connections made; setup_rc 0) or failed (-1, err set), just before
     * the first request: MPI's start barrier. Returns 0 to go on, -1 to
     * stop (with err set when setup_rc was 0). NULL: none. */
    int (*ready)(void *ctx, int setup_rc, char *err, size_t errlen);
    void *ready_ctx;
};

/* The player's defaults, written once: tbbt_play_opts_default sets them and
 * tbbt-play's option table (play_main.c) shows and parses them. Plain
 * numbers, so that the table can quote them (G_STRINGIFY). */
#define TBBT_PLAY_WINDOW 4096          /* lookahead window, records */
#define TBBT_PLAY_MAX_OUT 1024         /* requests out at most */
#define TBBT_PLAY_TIMEOUT 30           /* seconds a request may wait */
#define TBBT_PLAY_RETRANSMIT 10        /* seconds before a request goes again */
#define TBBT_PLAY_SEED 1               /* write payload and verifiers */
#define TBBT_PLAY_WINDOW_MAX 268435456 /* 2^28: window x clones at most */
#define TBBT_PLAY_MAX_CONN 16384       /* connections at most (--connections, or one per traced client) */

/* Sets o to the defaults above (fsdep order, full speed, one clone). */
void tbbt_play_opts_default(struct tbbt_play_opts *o);

/* Replays the trace; fills st (tbbt_pstats_init'ed by the caller).
 * Returns 0 (done), 3 (interrupted: st->partial set), or -1 with a
 * one-line message in err (cannot start: files, server). */
int tbbt_play_run(const struct tbbt_play_opts *o, struct tbbt_play_stats *st, char *err, size_t errlen);

/* Asks a running replay to stop (from a signal handler). */
void tbbt_play_interrupt(void);

#endif
