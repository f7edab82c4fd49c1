/* stats_load.h -- the number of requests outstanding over time, and how
 * long a run lasted, from each request's start and end: one definition for
 * the trace (a call's traced call and reply times) and the replay (a
 * request's send time and the time its reply was read), so the two can be
 * set side by side (docs/load-fidelity.md).
 *
 * A request is outstanding from its start to its end. The count of
 * requests outstanding is a step function of time; its figures are
 * time-weighted: the mean is its integral over the run divided by the
 * run's duration (first start to last end), p99 is the smallest count the
 * run spent at least 99% of its time at or below, max the highest count it
 * ever reached. The sweep keeps only the requests still outstanding (a
 * heap of their ends) and one counter of time per count reached, so a
 * trace of any length streams through it.
 *
 * Feeding: tbbt_load_add with starts in non-decreasing order and each end
 * known (the trace: records in call order); or tbbt_load_open at each
 * start, in non-decreasing order, and tbbt_load_close later with its end,
 * in any order (the replay: ends come as replies do). Then tbbt_load_end,
 * then the figures. */
#ifndef TBBT_PSTATS_LOAD_H
#define TBBT_PSTATS_LOAD_H

#include <glib.h>
#include <stdint.h>

struct tbbt_load_pend;

/* Plain arrays, not GArrays: the replay feeds two of these per request,
 * and glib's per-element calls were most of their cost. */
struct tbbt_load {
    int64_t *ends;               /* min-heap of the outstanding requests' ends */
    size_t nends, ends_cap;      /* its size and room */
    struct tbbt_load_pend *pend; /* opened, in start order, not yet swept */
    size_t npend, pend_cap;      /* its size and room */
    size_t pend_head;            /* index in pend of the oldest not swept */
    uint64_t tickets;            /* tickets given out (pend[pend_head] has ticket tickets - (len - head)) */
    GArray *level;               /* double: ns spent with k outstanding, at index k */
    int64_t t;                   /* the sweep's position */
    int64_t from;                /* time before it is left out (INT64_MIN: none) */
    int64_t first, last;
    uint64_t n; /* requests counted */
    int started;
};

/* The figures of one load (JSON "load"). summed: how many players' loads
 * were added into it (MPI ranks): 1, exact; more, then mean is the sum of
 * the players' areas over the longest duration (exact when they ran side
 * by side) while p99 and max are the sums of the players' (upper bounds:
 * their peaks need not meet). */
struct tbbt_load_figs {
    uint64_t n;        /* requests */
    double duration_s; /* first start to last end */
    double area;       /* integral of the count over the run, request-seconds */
    double mean;       /* area / duration_s */
    uint64_t p99, max;
    uint32_t summed;
};

void tbbt_load_init(struct tbbt_load *l);
void tbbt_load_free(struct tbbt_load *l);

/* Leaves out of the figures what happens before t (a warm-up): time and
 * requests that end before it. Call before the first start. */
void tbbt_load_from(struct tbbt_load *l, int64_t t);

/* A request from start to end (end < start counts as start). Starts must
 * not decrease from one call to the next. Returns the number of requests
 * outstanding just after start, this one included. */
uint64_t tbbt_load_add(struct tbbt_load *l, int64_t start, int64_t end);

/* The number of requests outstanding at t (not before the last start),
 * none added: the sweep moves to t. */
uint64_t tbbt_load_at(struct tbbt_load *l, int64_t t);

/* A request starts (not before the last start); its ticket for
 * tbbt_load_close. Opened requests are swept in start order once every
 * one before them is closed. */
uint64_t tbbt_load_open(struct tbbt_load *l, int64_t start);

/* Ticket's request ended at end; start, when not 0, is its start known
 * better now (the kernel's transmit time: a little later than opened). A
 * ticket closed twice, or never given, is ignored. */
void tbbt_load_close(struct tbbt_load *l, uint64_t ticket, int64_t start, int64_t end);

/* Ends the sweep: requests still open end at `at` (a replay stopped with
 * requests out), the rest are swept. Call once, after the last start. */
void tbbt_load_end(struct tbbt_load *l, int64_t at);

/* The figures of an ended load. */
void tbbt_load_figs(const struct tbbt_load *l, struct tbbt_load_figs *f);

/* Adds from into into, as for MPI ranks that ran side by side (see struct
 * tbbt_load_figs). An empty from (n 0) changes nothing. */
void tbbt_load_figs_merge(struct tbbt_load_figs *into, const struct tbbt_load_figs *from);

#endif
