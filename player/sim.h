/* sim.h -- the concurrency simulator: how fast may a trace be played
 * (paper 5.2, Figure 6)?
 *
 * The trace is replayed against a simulated server that answers every
 * request successfully after a fixed latency per procedure, with no
 * network, in virtual time. What may be sent when is decided by the
 * player's own ordering policies (order.h: conservative, fsdep with its
 * deps modes), driven the way the engine drives them: records enter the
 * lookahead window in trace order while it has room (at most `window`
 * records between the oldest not done and the newest added), whatever the
 * policy offers is sent lowest sequence first within the cap on
 * outstanding requests, and a reply is done(ok) at its send time plus its
 * procedure's latency. fsdep's known() says a handle is known unless the
 * object is made by a create, mkdir, symlink or mknod of the trace whose
 * reply (or that of another record naming it as its new object) has not
 * come yet: the real player knows the initial image's handles from the
 * manifest and learns the others from replies.
 *
 * Without a cap, a larger window never sends a record later: a record
 * goes when it is in the window and its locks are granted, both of which
 * depend only on when earlier records went, as long as which locks a
 * record takes does not depend on when it entered the window. That is
 * why fsdep decides a lookup's lock when it is granted (lib/locks.h,
 * TBBT_LK_REVEAL; issue 23); tests/play/figure6.sh checks every trace we
 * have. A cap can break it (list scheduling's anomalies).
 *
 * One simulator runs several windows at once over one stream of records:
 * each record is fed to every window's simulation, which first advances
 * its own virtual time until its window has room. Memory is one slot per
 * window record for each window, plus one entry per object the trace
 * creates (the handles learned, as the player keeps them). */
#ifndef TBBT_SIM_H
#define TBBT_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "order.h"
#include "record.h"

#define TBBT_SIM_MAX_WINDOWS 32
#define TBBT_SIM_MAX_WINDOW 1000000u

struct tbbt_sim_opts {
    const struct tbbt_sched_ops *order;
    int deps;                               /* fsdep: TBBT_SCHED_DEPS_* (deps.h) */
    uint32_t max_outstanding;               /* requests out at most; 0: no cap */
    uint32_t windows[TBBT_SIM_MAX_WINDOWS]; /* lookahead windows, records (each 1..TBBT_SIM_MAX_WINDOW) */
    unsigned nwindows;
    int64_t latency_ns[TBBT_OP_COUNT]; /* the simulated server's latency per procedure (>= 0) */
};

/* One window's result. */
struct tbbt_sim_window {
    uint32_t window;
    uint64_t records;  /* records done (replayed, or not replayable: done at once) */
    uint64_t sent;     /* requests sent to the simulated server */
    double sim_s;      /* virtual time from the start to the last reply */
    double ops_per_s;  /* records / sim_s (0 when sim_s is 0) */
    double mean_out;   /* requests outstanding, time-weighted mean over sim_s */
    uint64_t peak_out; /* requests outstanding at most */
};

/* The trace's own figures, as captured. */
struct tbbt_sim_trace {
    uint64_t records;
    double span_s;     /* first call to the last call or reply */
    double ops_per_s;  /* records / span_s */
    double mean_out;   /* calls awaiting their reply, time-weighted mean over span_s */
    uint64_t peak_out; /* calls awaiting their reply at most (a call counts from its call time) */
};

struct tbbt_sim_result {
    struct tbbt_sim_trace trace;
    struct tbbt_sim_window w[TBBT_SIM_MAX_WINDOWS];
    unsigned nwindows;
};

struct tbbt_sim;

/* A simulator for o's windows (o is copied). Owned by the caller: free
 * with tbbt_sim_free. Never NULL (GLib aborts when memory runs out). */
struct tbbt_sim *tbbt_sim_new(const struct tbbt_sim_opts *o);

/* Feeds the next record of the trace (trace order) to every window:
 * each advances its virtual time until the record fits its window, adds
 * it and sends what may go. r is not kept. Returns 0, or -1 with a
 * message in err when a window can make no progress (an ordering
 * deadlock: records that never become ready). */
int tbbt_sim_feed(struct tbbt_sim *s, const struct tbbt_rec *r, char *err, size_t errlen);

/* Runs every window to the end of the trace and fills res. Returns 0, or
 * -1 with a message in err (an ordering deadlock). */
int tbbt_sim_finish(struct tbbt_sim *s, struct tbbt_sim_result *res, char *err, size_t errlen);

void tbbt_sim_free(struct tbbt_sim *s);

#endif
