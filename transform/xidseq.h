/* xidseq.h -- how many calls a client made that the capture does not hold,
 * estimated from the xids of the calls it does hold.
 *
 * A client numbers its calls on a transport in sequence (Linux and libnfs
 * add one per call; Linux in host order, so a little-endian client's xids
 * count up in their first byte on the wire). A gap in the xids the capture
 * holds is calls it lost, whatever lost them: packets dropped by the kernel
 * or the tap, bursts, messages a snaplen hid inside a GRO super-segment.
 *
 * The estimate is robust to what real captures hold: calls out of order
 * (a window of TBBT_XS_WINDOW xids behind the highest seen), a late call
 * beyond the window (taken back from the missing count), several xid
 * sequences on one endpoint (a client restarting its count, interleaved
 * transports: up to TBBT_XS_RUNS followed at once; a step of TBBT_XS_JUMP
 * or more starts a new one), retransmissions (the caller passes each call
 * once; a repeat inside the window is counted, not seen twice), and either
 * byte order (both are followed; the one with fewer jumps is believed).
 * A client whose xids are not sequential at all (random xids: most steps
 * are jumps) is reported as such, with no estimate.
 *
 * A transport is one client endpoint (address and port). Linux numbers each
 * transport on its own; some kernels (macOS's, Solaris's) and tbbt-play
 * number every call a host makes from one counter, so each of such a host's connections
 * shows gaps that are the other connections' calls. Both views are kept,
 * per transport and per host, and tbbt_xidseq_one_counter says which one
 * explains the host's xids.
 *
 * Memory: fixed per client, TBBT_XS_RUNS windows of TBBT_XS_WINDOW bits in
 * each byte order (1 KiB), whatever the capture's length. */
#ifndef TBBT_XIDSEQ_H
#define TBBT_XIDSEQ_H

#include <stdint.h>

#define TBBT_XS_WINDOW 1024u    /* xids behind the highest that may still arrive */
#define TBBT_XS_JUMP (1u << 16) /* a step this large begins another sequence */
#define TBBT_XS_RUNS 2          /* sequences followed at once, per byte order */

/* One sequence of xids being followed. */
struct tbbt_xs_run {
    uint32_t first, hi;                 /* first xid of the run, highest seen */
    uint64_t last_use;                  /* call count when last extended: the least recent is replaced */
    uint64_t bits[TBBT_XS_WINDOW / 64]; /* seen xids in (hi - WINDOW, hi], bit i = hi - i */
    uint8_t live;
};

/* Per byte order. */
struct tbbt_xs_order {
    struct tbbt_xs_run run[TBBT_XS_RUNS];
    uint64_t missing; /* xids passed over, never seen */
    uint64_t jumps;   /* sequences begun after the first */
    uint64_t repeats; /* xids seen twice inside the window */
};

/* A client's estimate. */
struct tbbt_xidseq {
    struct tbbt_xs_order o[2]; /* [0] as on the wire, [1] byte-swapped */
    uint64_t calls;            /* xids added */
};

/* What a finished estimate says. */
struct tbbt_xs_result {
    uint64_t calls;   /* calls the capture holds */
    uint64_t missing; /* calls estimated lost (0 when !sequential) */
    uint64_t jumps;   /* sequences after the first, in the order believed */
    int sequential;   /* the xids count up: the estimate means something */
    int swapped;      /* the client counts in the other byte order */
};

void tbbt_xidseq_init(struct tbbt_xidseq *s);

/* Counts one call (each call once: retransmissions are the caller's). */
void tbbt_xidseq_add(struct tbbt_xidseq *s, uint32_t xid);

/* The estimate so far, the open windows' unseen xids counted as missing.
 * Does not change s: the capture may go on. */
struct tbbt_xs_result tbbt_xidseq_result(const struct tbbt_xidseq *s);

/* Whether one counter over a host's n (>= 2) transports explains its xids
 * better than one per transport: the host's xids form no more sequences
 * than the transports' together, and leave fewer missing than the
 * transports do (a transport without sequential xids counts all its calls
 * as unexplained). Where each transport counts on its own, the host's view
 * interleaves their sequences and never leaves fewer missing. */
int tbbt_xidseq_one_counter(const struct tbbt_xs_result *host, const struct tbbt_xs_result *per, unsigned n);

#endif
