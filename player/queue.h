/* queue.h -- the send thread's two queues: the requests out in send order
 * (a growable ring, for timeouts and repairs) and the records offered
 * waiting for their time (a min-heap by time, then sequence number).
 * Inline: both are used once or twice per request on the send thread's
 * path; a file of their own because they are data structures, not replay. */
#ifndef TBBT_QUEUE_H
#define TBBT_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

/* Seqs in send order: a growable ring (no allocation per request). */
struct eng_fifo {
    uint64_t *v;
    size_t head, len, cap;
};

static inline void eng_fifo_push(struct eng_fifo *f, uint64_t x) {
    if (f->len == f->cap) { /* grow, unrolling the ring */
        size_t cap = f->cap ? 2 * f->cap : 4096;
        uint64_t *v = g_new(uint64_t, cap);
        for (size_t i = 0; i < f->len; i++)
            v[i] = f->v[(f->head + i) % f->cap];
        g_free(f->v);
        f->v = v, f->cap = cap, f->head = 0;
    }
    f->v[(f->head + f->len++) % f->cap] = x;
}

/* The i-th oldest seq (i < len). */
static inline uint64_t eng_fifo_at(const struct eng_fifo *f, size_t i) {
    return f->v[(f->head + i) % f->cap];
}

static inline void eng_fifo_pop(struct eng_fifo *f) {
    f->head = (f->head + 1) % f->cap;
    f->len--;
}

/* Records offered, waiting for their time: a min-heap by (time, seq). */
struct eng_held {
    int64_t t;
    uint64_t seq;
};
struct eng_heap {
    struct eng_held *v; /* v[0] is the next due */
    size_t n, cap;
};

/* Pushes an offered record on the heap. */
static inline void eng_heap_push(struct eng_heap *h, int64_t t, uint64_t seq) {
    if (h->n == h->cap) h->v = g_renew(struct eng_held, h->v, h->cap = h->cap ? 2 * h->cap : 1024);
    size_t i = h->n++;
    while (i && (h->v[(i - 1) / 2].t > t || (h->v[(i - 1) / 2].t == t && h->v[(i - 1) / 2].seq > seq))) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = (struct eng_held){t, seq};
}

/* Removes v[0] (n > 0). */
static inline void eng_heap_pop(struct eng_heap *h) {
    struct eng_held last = h->v[--h->n];
    size_t i = 0, n = h->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n &&
            (h->v[c + 1].t < h->v[c].t || (h->v[c + 1].t == h->v[c].t && h->v[c + 1].seq < h->v[c].seq)))
            c++;
        if (h->v[c].t > last.t || (h->v[c].t == last.t && h->v[c].seq >= last.seq)) break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (n) h->v[i] = last;
}

#endif
