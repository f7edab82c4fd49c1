/* stats.h -- what a replay measured, and its report (an aligned table
 * for people, one JSON document for tbbt-report).
 *
 * Per procedure: requests, status matches and mismatches with the trace,
 * skipped (a dependency failed), timeouts, and the latency of the matched
 * ones (send to reply; in timestamp mode also scheduled time to reply).
 * Overall: the issue error (actual minus scheduled send), the requests
 * outstanding at each send against the trace's own concurrency, and a
 * per-second series. Requests sent during the warm-up are replayed but
 * left out of every figure.
 *
 * The load beside the trace's (docs/load-fidelity.md): the requests
 * outstanding over time and the duration, one definition for both
 * (stats_load.h); the trace's latency of the records whose replay matched,
 * per procedure; in timestamp mode the trace's calls per second of the
 * schedule beside the requests sent. */
#ifndef TBBT_PSTATS_H
#define TBBT_PSTATS_H

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

#include "hist.h"
#include "nfs_ops.h"
#include "stats_load.h"

/* What became of a request that got no NFS status, in the status fields
 * (NFS's own are >= 0, lib/nfsstat.h). */
enum {
    TBBT_PST_TIMEOUT = -1,
    TBBT_PST_RPC_ERROR = -2,
    TBBT_PST_NO_HANDLE = -3,
    TBBT_PST_SKIPPED = -4,
    TBBT_PST_CONN_LOST = -5,
    TBBT_PST_REFUSED = -6
};

struct tbbt_pstat_proc {
    uint64_t count, matched, mismatched, skipped, timeouts;
    struct tbbt_hist lat;       /* matched: reply - send, ns */
    struct tbbt_hist lat_sched; /* matched, timestamp mode: reply - scheduled send */
    struct tbbt_hist trace_lat; /* matched: the same records' traced reply - call (captured ones) */
    uint32_t top_traced[4], top_got[4];
    uint64_t top_n[4]; /* the most frequent (traced, got) status mismatches */
};

/* One second of the replay. */
struct tbbt_pstat_sec {
    uint64_t done, matched, sent;
    uint64_t traced;                          /* timestamp mode: the trace's calls scheduled in this second */
    double lat_sum;                           /* ns, matched */
    double outstanding_sum;                   /* at each send */
    int64_t behind_max;                       /* ns behind schedule, worst send */
    uint64_t timeouts, conn_lost, reconnects; /* when the server failed: records timed out, failed with
                                                 their connection; connections made again */
};

/* One clone's counts (tbbt-play --clones): warm-up left out, as in the totals. */
struct tbbt_pstat_clone {
    uint64_t records, sent, matched, failed, skipped; /* failed: mismatched, timed out, no handle */
};

/* One rank's own counters in a merged report (MPI, player/mpi_ranks.h). */
struct tbbt_pstat_rank {
    int rank, rc;      /* rc: the rank's tbbt_play_run result */
    int clone, clones; /* its share of the image clones */
    char host[64];
    uint64_t records, sent, replies, matched, mismatched, skipped, timeouts, no_handle, not_replayable;
    double wall_s, cpu_s;
    int partial;
};

struct tbbt_play_stats {
    struct tbbt_pstat_proc *proc[2][TBBT_OP_COUNT]; /* [vers 2,3][op], made on first use */
    struct tbbt_hist issue_err;                     /* ns late, timestamp mode */
    struct tbbt_hist outstanding;                   /* requests out at each send (itself included) */
    struct tbbt_hist trace_outstanding;             /* the trace's calls out at each call (itself included) */
    struct tbbt_load_figs load_trace, load_replay;  /* requests outstanding over time, duration */
    GArray *series;                                 /* struct tbbt_pstat_sec, one a second */
    uint64_t records, sent, replies, matched, mismatched, skipped, timeouts, no_handle, not_replayable;
    uint64_t refused; /* not sent: a name that could leave the run directory (safename.h) */
    uint64_t warmup, late_replies, unmatched_replies;
    uint64_t reconnects, conn_lost; /* connections made again; requests lost with one */
    uint64_t retransmits;           /* requests sent again after --retransmit seconds unanswered */
    uint64_t conns_opened;          /* connections the player opened to the server (ranks: summed) */
    uint64_t max_outstanding;
    double wall_s, cpu_s;
    double trace_span_s; /* traced time of the records replayed */
    int partial;
    /* metadata for the JSON document */
    char *trace, *manifest, *server, *order, *timing, *map_sha256, *params, *run;
    double speedup;
    uint32_t window;
    int clone, connections;
    uint32_t clones;                    /* copies played, against clones clone.. */
    struct tbbt_pstat_clone *per_clone; /* [clones] (NULL: none counted) */
    uint64_t seed;
    char started[32], ended[32];
    int ranks;         /* MPI: the number of ranks merged here (0: a single player) */
    GArray *rank_rows; /* MPI: struct tbbt_pstat_rank, one per rank (NULL: none) */
};

void tbbt_pstats_init(struct tbbt_play_stats *s);
void tbbt_pstats_free(struct tbbt_play_stats *s);

/* The procedure's entry (made on first use). */
struct tbbt_pstat_proc *tbbt_pstats_proc(struct tbbt_play_stats *s, unsigned vers, unsigned op);

/* Counts a (traced, got) mismatch for the procedure's top list. */
void tbbt_pstats_mismatch(struct tbbt_pstat_proc *p, int traced, int got);

/* The second t (from the start) of the series, made if needed. */
struct tbbt_pstat_sec *tbbt_pstats_sec(struct tbbt_play_stats *s, double t);

/* Adds from's figures into into, as if one player had measured both:
 * counters and CPU summed, histograms (latency, issue error, outstanding)
 * the union of the samples, per-second series added second by second
 * (behind_max the worst), wall time and traced span the longer (ranks run
 * side by side), max_outstanding the larger, partial if either is, the
 * mismatch top lists merged by count, the loads over time summed
 * (tbbt_load_figs_merge). into's metadata and rank rows stay; from is not
 * changed. */
void tbbt_pstats_merge(struct tbbt_play_stats *into, const struct tbbt_play_stats *from);

/* Appends a row of from's own counters (rank, rc, share, host) to
 * s->rank_rows (made on first use). host may be NULL. */
void tbbt_pstats_add_rank(struct tbbt_play_stats *s, const struct tbbt_play_stats *from, int rank, int rc,
                          int clones, const char *host);

/* The requests per second of the schedule, the replay's against the
 * trace's (timestamp mode): over the seconds of the series from the first
 * with a request to the last before the replay's end, each side's mean and
 * the distribution of the difference (sent minus traced) per second. */
struct tbbt_pstat_rate {
    uint32_t seconds;
    double trace_mean, replay_mean;                      /* requests a second */
    double diff_mean;                                    /* sent - traced, mean over the seconds */
    double abs_mean, abs_p50, abs_p90, abs_p99, abs_max; /* |sent - traced| */
};

/* Fills r from s's series; returns 0, or -1 when there is none (not in
 * timestamp mode, or no second with a request). */
int tbbt_pstats_rate(const struct tbbt_play_stats *s, struct tbbt_pstat_rate *r);

void tbbt_pstats_report(const struct tbbt_play_stats *s, FILE *out);
void tbbt_pstats_json(const struct tbbt_play_stats *s, GString *out);

#endif
