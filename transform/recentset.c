/* recentset.c -- the calls already emitted, over a span of trace time.
 *
 * The keys live in a ring in the order they were added (the oldest is
 * forgotten first), found through an open-addressing index of ring
 * positions twice the ring's size, probed linearly from the hash's low
 * bits. A forgotten key's slot is deleted by shifting the slots after it
 * back (no tombstones), so a lookup stays short however long the capture.
 * The ring doubles while its oldest key is still within the span and the
 * memory bound allows; it never shrinks (a burst's rate can come back).
 *
 * At a million calls and more the ring and its index are far larger than
 * the caches, and each add touched two random index slots (the new key's
 * and the evicted one's): two misses to memory per call, about a sixth of
 * pass 1's thread. So both are fetched ahead: a new key is indexed only
 * RS_DEFER adds later (its slot prefetched when it is added; until then
 * lookups find it by a scan of those newest few), and what the deletion of
 * the next oldest keys reads is prefetched at every add
 * (rs_prefetch_evictions); both arrays are on huge pages where the kernel
 * allows, so that a random slot is not also a TLB miss. Which keys are
 * held is exactly as before. */
#include "recentset.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#include "htab.h"

#define RS_FIRST_CAP 1024u /* keys the ring starts with */
#define RS_DEFER 8u        /* newest keys not indexed yet, at most */
#define RS_AHEAD 8u        /* keys behind the oldest whose deletion is prefetched */

struct rent {
    uint64_t h; /* the key's hash */
    int64_t t;  /* when it was added */
};

struct tbbt_recent {
    int64_t span;
    size_t max_bytes;
    struct rent *ring;
    uint32_t cap, head, n; /* cap a power of two; head the oldest */
    uint32_t unidx;        /* the newest keys not yet in the index (RS_DEFER at most) */
    uint32_t *idx;         /* 2 * cap slots: ring position + 1, 0 = empty */
    int64_t latest;
    uint64_t cut;
    int64_t shortest;
};

/* Bytes the set holds with a ring of cap keys. */
static size_t rs_bytes(uint32_t cap) {
    return (size_t)cap * (sizeof(struct rent) + 2 * sizeof(uint32_t));
}

struct tbbt_recent *tbbt_recent_new(int64_t span_ns, size_t max_bytes) {
    struct tbbt_recent *s = g_new0(struct tbbt_recent, 1);
    s->span = span_ns;
    s->max_bytes = max_bytes;
    s->cap = RS_FIRST_CAP;
    s->ring = tbbt_htab_slots_alloc(s->cap * sizeof(struct rent));
    s->idx = tbbt_htab_slots_alloc(2 * s->cap * sizeof(uint32_t));
    s->latest = INT64_MIN;
    s->shortest = span_ns;
    return s;
}

/* The index slot where hash h's probe starts. */
static inline uint32_t rs_home(const struct tbbt_recent *s, uint64_t h) {
    return (uint32_t)h & (2 * s->cap - 1);
}

int tbbt_recent_has(const struct tbbt_recent *s, uint64_t h) {
    for (uint32_t k = 1; k <= s->unidx; k++)
        if (s->ring[(s->head + s->n - k) & (s->cap - 1)].h == h) return 1;
    uint32_t mask = 2 * s->cap - 1;
    for (uint32_t i = rs_home(s, h);; i = (i + 1) & mask) {
        uint32_t v = s->idx[i];
        if (!v) return 0;
        if (s->ring[v - 1].h == h) return 1;
    }
}

/* Indexes ring position pos (its key already in the ring). */
static void rs_index(struct tbbt_recent *s, uint32_t pos) {
    uint32_t mask = 2 * s->cap - 1;
    uint32_t i = rs_home(s, s->ring[pos].h);
    while (s->idx[i])
        i = (i + 1) & mask;
    s->idx[i] = pos + 1;
}

/* Removes the slot naming ring position pos, shifting back the slots
 * whose probe passed over it so that every key stays reachable. */
static void rs_unindex(struct tbbt_recent *s, uint32_t pos) {
    uint32_t mask = 2 * s->cap - 1;
    uint32_t i = rs_home(s, s->ring[pos].h);
    while (s->idx[i] != pos + 1)
        i = (i + 1) & mask;
    for (uint32_t j = i;;) {
        j = (j + 1) & mask;
        uint32_t v = s->idx[j];
        if (!v) break;
        uint32_t k = rs_home(s, s->ring[v - 1].h);
        /* the key at j may stay if its home lies cyclically in (i, j] */
        int stays = i <= j ? (i < k && k <= j) : (i < k || k <= j);
        if (stays) continue;
        s->idx[i] = v;
        i = j;
    }
    s->idx[i] = 0;
}

/* Forgets the oldest key (not in the index yet when every key held is
 * among the newest unindexed). */
static void rs_evict(struct tbbt_recent *s) {
    if (s->unidx == s->n)
        s->unidx--;
    else
        rs_unindex(s, s->head);
    s->head = (s->head + 1) & (s->cap - 1);
    s->n--;
}

/* Doubles the ring, its keys moved to the front in age order, and
 * rebuilds the index. */
static void rs_grow(struct tbbt_recent *s) {
    uint32_t cap = s->cap * 2;
    struct rent *ring = tbbt_htab_slots_alloc(cap * sizeof(struct rent));
    for (uint32_t i = 0; i < s->n; i++)
        ring[i] = s->ring[(s->head + i) & (s->cap - 1)];
    free(s->ring); /* tbbt_htab_slots_alloc's blocks */
    free(s->idx);
    s->ring = ring;
    s->cap = cap;
    s->head = 0;
    s->idx = tbbt_htab_slots_alloc(2 * (size_t)cap * sizeof(uint32_t));
    for (uint32_t i = 0; i < s->n; i++)
        rs_index(s, i);
    s->unidx = 0;
}

/* Makes room for one key at time t: by forgetting what the span no longer
 * covers, by growing, or, at the memory bound, by forgetting the oldest
 * early (counted). */
static void rs_make_room(struct tbbt_recent *s, int64_t t) {
    while (s->n && s->ring[s->head].t < t - s->span)
        rs_evict(s);
    if (s->n < s->cap) return;
    if (s->cap < (1u << 30) && rs_bytes(s->cap * 2) <= s->max_bytes) {
        rs_grow(s);
        return;
    }
    int64_t kept = t - s->ring[s->head].t;
    if (kept < s->shortest) s->shortest = kept;
    s->cut++;
    rs_evict(s);
}

/* Fetches ahead what forgetting the oldest keys will read, in two stages:
 * the index slots of the key 2 * RS_AHEAD places behind the oldest, and,
 * for the key RS_AHEAD behind (its slots fetched that many adds ago), the
 * ring entries of the keys in its probe run, whose homes the deletion's
 * shift-back reads. */
static void rs_prefetch_evictions(const struct tbbt_recent *s) {
    uint32_t mask = s->cap - 1, imask = 2 * s->cap - 1;
    if (s->n > 2 * RS_AHEAD)
        __builtin_prefetch(&s->idx[rs_home(s, s->ring[(s->head + 2 * RS_AHEAD) & mask].h)], 1);
    if (s->n <= RS_AHEAD) return;
    uint32_t i = rs_home(s, s->ring[(s->head + RS_AHEAD) & mask].h);
    for (int k = 0; k < 8 && s->idx[i]; k++, i = (i + 1) & imask)
        __builtin_prefetch(&s->ring[s->idx[i] - 1]);
}

void tbbt_recent_add(struct tbbt_recent *s, uint64_t h, int64_t t) {
    if (t < s->latest) t = s->latest;
    s->latest = t;
    rs_make_room(s, t);
    uint32_t mask = s->cap - 1, pos = (s->head + s->n) & mask;
    s->ring[pos] = (struct rent){h, t};
    s->n++;
    __builtin_prefetch(&s->idx[rs_home(s, h)], 1);
    if (++s->unidx > RS_DEFER) {
        rs_index(s, (pos - RS_DEFER) & mask);
        s->unidx--;
    }
    rs_prefetch_evictions(s);
}

void tbbt_recent_stats(const struct tbbt_recent *s, struct tbbt_recent_stats *out) {
    out->keys = s->n;
    out->span_cut = s->cut;
    out->shortest_span = s->shortest;
    out->bytes = rs_bytes(s->cap);
}

void tbbt_recent_free(struct tbbt_recent *s) {
    if (!s) return;
    free(s->ring);
    free(s->idx);
    g_free(s);
}
