/* xidseq.c -- calls a capture lost, from the gaps in each client's xids
 * (see xidseq.h for the method and its limits). */
#include "xidseq.h"

#include <string.h>

#include <glib.h>

#define NWORDS (TBBT_XS_WINDOW / 64)

void tbbt_xidseq_init(struct tbbt_xidseq *s) {
    memset(s, 0, sizeof(*s));
}

/* Bits set in positions [lo, hi] of the window. */
static unsigned count_set(const uint64_t *bits, unsigned lo, unsigned hi) {
    unsigned n = 0;
    for (unsigned w = lo / 64; w <= hi / 64; w++) {
        uint64_t m = ~0ull;
        if (w == lo / 64) m &= ~0ull << (lo % 64);
        if (w == hi / 64 && hi % 64 != 63) m &= (1ull << (hi % 64 + 1)) - 1;
        n += (unsigned)__builtin_popcountll(bits[w] & m);
    }
    return n;
}

/* Positions of the window that belong to the run (xids from first on). */
static unsigned valid(const struct tbbt_xs_run *r) {
    uint32_t span = r->hi - r->first;
    return span >= TBBT_XS_WINDOW - 1 ? TBBT_XS_WINDOW : span + 1;
}

/* The run's xids in the window that were never seen. */
static uint64_t unseen(const struct tbbt_xs_run *r) {
    unsigned v = valid(r);
    return v - count_set(r->bits, 0, v - 1);
}

/* Moves the window up by d (0 < d < TBBT_XS_JUMP): the xids that leave it
 * unseen are missing. */
static void advance(struct tbbt_xs_order *o, struct tbbt_xs_run *r, uint32_t d) {
    unsigned v = valid(r);
    if (d >= TBBT_XS_WINDOW) { /* the whole window leaves, and xids pass that never entered it */
        o->missing += unseen(r) + (d - TBBT_XS_WINDOW);
        memset(r->bits, 0, sizeof(r->bits));
    } else {
        unsigned lo = TBBT_XS_WINDOW - d; /* positions at or above lo leave */
        if (lo < v) o->missing += (v - lo) - count_set(r->bits, lo, v - 1);
        unsigned ws = d / 64, bs = d % 64;
        for (int j = NWORDS - 1; j >= 0; j--) {
            uint64_t a = j - (int)ws >= 0 ? r->bits[j - ws] : 0;
            uint64_t b = j - (int)ws - 1 >= 0 ? r->bits[j - ws - 1] : 0;
            r->bits[j] = bs ? a << bs | b >> (64 - bs) : a;
        }
    }
    r->hi += d;
}

/* Starts a new run at xid in place of a free or the least recently used one. */
static void start_run(struct tbbt_xs_order *o, uint32_t xid, uint64_t now, int first) {
    struct tbbt_xs_run *r = &o->run[0];
    for (int i = 0; i < TBBT_XS_RUNS; i++) {
        if (!o->run[i].live) {
            r = &o->run[i];
            break;
        }
        if (o->run[i].last_use < r->last_use) r = &o->run[i];
    }
    if (r->live) o->missing += unseen(r);
    if (!first) o->jumps++;
    memset(r, 0, sizeof(*r));
    r->live = 1;
    r->first = r->hi = xid;
    r->bits[0] = 1;
    r->last_use = now;
}

/* Counts xid in one byte order. */
static void add(struct tbbt_xs_order *o, uint32_t xid, uint64_t now) {
    struct tbbt_xs_run *best = NULL;
    int64_t bestd = 0;
    int late = 0;
    for (int i = 0; i < TBBT_XS_RUNS; i++) {
        struct tbbt_xs_run *r = &o->run[i];
        if (!r->live) continue;
        int64_t d = (int32_t)(xid - r->hi);
        if (d > -(int64_t)TBBT_XS_WINDOW && d < (int64_t)TBBT_XS_JUMP) {
            if (!best || (d < 0 ? -d : d) < (bestd < 0 ? -bestd : bestd)) best = r, bestd = d;
        } else if (d <= -(int64_t)TBBT_XS_WINDOW && d > -(int64_t)TBBT_XS_JUMP &&
                   (int32_t)(xid - r->first) >= 0) {
            late = 1;
        }
    }
    if (!best) {
        if (late) { /* counted missing when it left the window: it was not */
            if (o->missing) o->missing--;
            return;
        }
        start_run(o, xid, now, now == 1);
        return;
    }
    best->last_use = now;
    if (bestd > 0) {
        advance(o, best, (uint32_t)bestd);
        best->bits[0] |= 1;
        return;
    }
    unsigned i = (unsigned)-bestd;
    if ((int32_t)(xid - best->first) < 0) { /* below the run's start: the run began late */
        best->first = xid;
    }
    if (best->bits[i / 64] >> (i % 64) & 1)
        o->repeats++;
    else
        best->bits[i / 64] |= 1ull << (i % 64);
}

void tbbt_xidseq_add(struct tbbt_xidseq *s, uint32_t xid) {
    s->calls++;
    add(&s->o[0], xid, s->calls);
    add(&s->o[1], GUINT32_SWAP_LE_BE(xid), s->calls);
}

/* Missing xids of one order, the open windows counted. */
static uint64_t order_missing(const struct tbbt_xs_order *o) {
    uint64_t m = o->missing;
    for (int i = 0; i < TBBT_XS_RUNS; i++)
        if (o->run[i].live) m += unseen(&o->run[i]);
    return m;
}

struct tbbt_xs_result tbbt_xidseq_result(const struct tbbt_xidseq *s) {
    struct tbbt_xs_result r = {.calls = s->calls};
    uint64_t m0 = order_missing(&s->o[0]), m1 = order_missing(&s->o[1]);
    int k = s->o[1].jumps < s->o[0].jumps || (s->o[1].jumps == s->o[0].jumps && m1 < m0);
    r.swapped = k;
    r.jumps = s->o[k].jumps;
    /* random xids jump at nearly every call; a counting client seldom */
    r.sequential = r.jumps * 4 <= s->calls;
    r.missing = r.sequential ? (k ? m1 : m0) : 0;
    return r;
}

int tbbt_xidseq_one_counter(const struct tbbt_xs_result *host, const struct tbbt_xs_result *per, unsigned n) {
    uint64_t seqs = 0, missing = 0;
    if (n < 2 || !host->sequential) return 0;
    for (unsigned i = 0; i < n; i++) {
        seqs += per[i].jumps + 1;
        missing += per[i].sequential ? per[i].missing : per[i].calls;
    }
    return host->jumps + 1 <= seqs && host->missing < missing;
}
