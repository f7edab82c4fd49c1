/* recentset.h -- the calls already emitted, over a span of trace time.
 *
 * A client retransmits a call whose reply it did not get after its
 * timeout: over TCP, Linux waits 60 s (timeo=600) and then longer, over
 * UDP from 1.1 s up to 60 s. Pass 1 must know such a late copy as the call
 * it already emitted, or it becomes a second record (a second REMOVE that
 * replays NOENT, a CREATE of a file that existed). So the set keeps every
 * emitted call for a span of trace time, not a count of calls: at a busy
 * site's 12k calls a second a count of 65,536 was 5.6 s.
 *
 * A call is kept as its 64-bit key hash and its time: 24 bytes with its
 * index slots, whatever the key. Two different calls agree in all 64 bits
 * with a chance of n / 2^64 per lookup (n the keys held): below 10^-12 at
 * ten million keys, and pass 1 only looks up calls whose xid is within
 * what its client already sent. Memory grows with the call rate times the
 * span, up to max_bytes; beyond, the oldest keys are forgotten before
 * their span ends, and the set says so (span_cut, shortest_span). */
#ifndef TBBT_RECENTSET_H
#define TBBT_RECENTSET_H

#include <stddef.h>
#include <stdint.h>

struct tbbt_recent;

/* A set keeping keys span_ns of trace time after they were added, in at
 * most about max_bytes. */
struct tbbt_recent *tbbt_recent_new(int64_t span_ns, size_t max_bytes);

/* Returns 1 when the key of hash h was added and is still kept. */
int tbbt_recent_has(const struct tbbt_recent *s, uint64_t h);

/* Adds the key of hash h at trace time t (ns; times are expected not to
 * decrease, as pass 1 emits in call order: an earlier t is taken as the
 * latest seen). Forgets keys older than the span, and, when the memory
 * bound is reached, the oldest key whatever its age. */
void tbbt_recent_add(struct tbbt_recent *s, uint64_t h, int64_t t);

struct tbbt_recent_stats {
    uint64_t keys;         /* keys held now */
    uint64_t span_cut;     /* keys forgotten before their span ended (memory bound) */
    int64_t shortest_span; /* ns: the shortest span a key was kept when cut, else span_ns */
    size_t bytes;          /* memory held */
};

void tbbt_recent_stats(const struct tbbt_recent *s, struct tbbt_recent_stats *out);

void tbbt_recent_free(struct tbbt_recent *s);

#endif
