/* stats_load.c -- requests outstanding over time (see stats_load.h). */
#include "stats_load.h"

#include <string.h>

/* An opened request, waiting for those before it to close. */
struct tbbt_load_pend {
    int64_t start, end;
    int closed;
};

void tbbt_load_init(struct tbbt_load *l) {
    memset(l, 0, sizeof(*l));
    l->level = g_array_new(FALSE, TRUE, sizeof(double));
    l->from = INT64_MIN;
}

void tbbt_load_free(struct tbbt_load *l) {
    if (l->level) g_array_free(l->level, TRUE);
    g_free(l->ends), g_free(l->pend);
    memset(l, 0, sizeof(*l));
}

void tbbt_load_from(struct tbbt_load *l, int64_t t) {
    l->from = t;
}

/* Counts [a, b) as time spent with k outstanding, the part before from
 * left out. */
static void account(struct tbbt_load *l, int64_t a, int64_t b, guint k) {
    if (a < l->from) a = l->from;
    if (b <= a) return;
    if (k >= l->level->len) g_array_set_size(l->level, k + 1);
    g_array_index(l->level, double, k) += (double)(b - a);
}

/* Removes the earliest end from the heap. */
static void heap_pop(struct tbbt_load *l) {
    int64_t *h = l->ends;
    int64_t last = h[--l->nends];
    size_t i = 0, n = l->nends;
    for (;;) { /* sift down */
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && h[c + 1] < h[c]) c++;
        if (h[c] >= last) break;
        h[i] = h[c], i = c;
    }
    if (n) h[i] = last;
}

static void heap_push(struct tbbt_load *l, int64_t v) {
    if (l->nends == l->ends_cap)
        l->ends = g_renew(int64_t, l->ends, l->ends_cap = l->ends_cap ? 2 * l->ends_cap : 1024);
    int64_t *h = l->ends;
    size_t i = l->nends++;
    for (; i && h[(i - 1) / 2] > v; i = (i - 1) / 2) /* sift up */
        h[i] = h[(i - 1) / 2];
    h[i] = v;
}

/* Moves the sweep to t: every end up to t leaves, the time between
 * events counted at the count that held then. */
static void sweep_to(struct tbbt_load *l, int64_t t) {
    while (l->nends && l->ends[0] <= t) {
        int64_t e = l->ends[0];
        if (e > l->t) account(l, l->t, e, (guint)l->nends), l->t = e;
        heap_pop(l);
    }
    account(l, l->t, t, (guint)l->nends);
    if (t > l->t) l->t = t;
}

uint64_t tbbt_load_add(struct tbbt_load *l, int64_t start, int64_t end) {
    if (end < start) end = start;
    if (!l->started) l->started = 1, l->t = l->first = l->last = start;
    sweep_to(l, start);
    heap_push(l, end);
    if (end > l->last) l->last = end;
    if (end >= l->from) l->n++;
    return l->nends;
}

uint64_t tbbt_load_at(struct tbbt_load *l, int64_t t) {
    if (!l->started) return 0;
    sweep_to(l, t);
    return l->nends;
}

/* Sweeps the opened requests at the head that are closed. */
static void drain(struct tbbt_load *l) {
    while (l->pend_head < l->npend) {
        struct tbbt_load_pend *p = &l->pend[l->pend_head];
        if (!p->closed) break;
        tbbt_load_add(l, p->start, p->end);
        l->pend_head++;
    }
    if (l->pend_head > 4096 && l->pend_head > l->npend / 2) { /* keep the array small */
        memmove(l->pend, l->pend + l->pend_head, (l->npend - l->pend_head) * sizeof(*l->pend));
        l->npend -= l->pend_head;
        l->pend_head = 0;
    }
}

uint64_t tbbt_load_open(struct tbbt_load *l, int64_t start) {
    if (l->npend == l->pend_cap)
        l->pend = g_renew(struct tbbt_load_pend, l->pend, l->pend_cap = l->pend_cap ? 2 * l->pend_cap : 1024);
    l->pend[l->npend++] = (struct tbbt_load_pend){start, start, 0};
    return l->tickets++;
}

void tbbt_load_close(struct tbbt_load *l, uint64_t ticket, int64_t start, int64_t end) {
    uint64_t waiting = l->npend - l->pend_head; /* tickets tickets-waiting .. tickets-1 */
    if (ticket >= l->tickets || ticket < l->tickets - waiting) return;
    struct tbbt_load_pend *p = &l->pend[l->pend_head + (size_t)(ticket - (l->tickets - waiting))];
    if (p->closed) return;
    if (start) p->start = start;
    p->end = end, p->closed = 1;
    drain(l);
}

void tbbt_load_end(struct tbbt_load *l, int64_t at) {
    for (size_t i = l->pend_head; i < l->npend; i++) {
        struct tbbt_load_pend *p = &l->pend[i];
        if (!p->closed) p->end = at, p->closed = 1;
    }
    drain(l);
    if (l->started) sweep_to(l, l->last);
}

void tbbt_load_figs(const struct tbbt_load *l, struct tbbt_load_figs *f) {
    memset(f, 0, sizeof(*f));
    f->summed = 1;
    f->n = l->n;
    double total = 0, area = 0;
    for (guint k = 0; k < l->level->len; k++) {
        double d = g_array_index(l->level, double, k);
        total += d, area += d * k;
        if (d > 0) f->max = k;
    }
    if (total <= 0) return;
    double below = 0;
    for (guint k = 0; k < l->level->len; k++) {
        below += g_array_index(l->level, double, k);
        if (below >= 0.99 * total) {
            f->p99 = k;
            break;
        }
    }
    f->duration_s = total / 1e9;
    f->area = area / 1e9;
    f->mean = area / total;
}

void tbbt_load_figs_merge(struct tbbt_load_figs *into, const struct tbbt_load_figs *from) {
    if (!from->n && from->duration_s <= 0) return;
    if (!into->n && into->duration_s <= 0) {
        *into = *from;
        return;
    }
    into->n += from->n, into->area += from->area;
    if (from->duration_s > into->duration_s) into->duration_s = from->duration_s;
    into->mean = into->duration_s > 0 ? into->area / into->duration_s : 0;
    into->p99 += from->p99, into->max += from->max;
    into->summed += from->summed;
}
