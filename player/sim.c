/* sim.c -- the concurrency simulator (see sim.h). */
#include "sim.h"

#include <glib.h>
#include <stdio.h>
#include <string.h>

/* ---- a min-heap of (time, seq) ---- */

struct tev {
    int64_t t;
    uint64_t seq;
};

struct theap {
    struct tev *v;
    size_t n, cap;
};

static int tev_less(struct tev a, struct tev b) {
    return a.t < b.t || (a.t == b.t && a.seq < b.seq);
}

static void theap_push(struct theap *h, int64_t t, uint64_t seq) {
    if (h->n == h->cap) h->v = g_renew(struct tev, h->v, h->cap = h->cap ? 2 * h->cap : 256);
    struct tev x = {t, seq};
    size_t i = h->n++;
    while (i && tev_less(x, h->v[(i - 1) / 2])) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = x;
}

static void theap_pop(struct theap *h) {
    struct tev last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && tev_less(h->v[c + 1], h->v[c])) c++;
        if (!tev_less(h->v[c], last)) break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n) h->v[i] = last;
}

/* ---- one window's simulation ---- */

/* A record of the window: what its reply needs. */
struct sslot {
    uint64_t seq;
    int64_t lat;     /* its procedure's latency, ns */
    tbbt_id reveals; /* the object its reply reveals (fsdep's known()), 0 none */
    uint8_t done;
};

/* States of an object the trace creates (the `made` map's values). */
#define MADE_REVEALED ((gpointer)(uintptr_t)1) /* its handle is known */
#define MADE_PENDING ((gpointer)(uintptr_t)2)  /* made by a record whose reply has not come */

struct simw {
    const struct tbbt_sim_opts *o;
    uint32_t window, mask;
    void *sched;
    struct sslot *ring;
    uint64_t head, next_add, ndone, nsent;
    struct theap ev;   /* replies to come, by time */
    struct theap held; /* offered, not sent (the cap): by seq */
    int64_t now, t_area;
    double area; /* integral of outstanding over virtual time, ns */
    uint64_t out, peak;
    GHashTable *made; /* tbbt_id -> MADE_*: objects the trace creates */
};

/* fsdep's known(): an object the trace creates is known once a reply
 * revealed it; every other one is in the initial image (the manifest). */
static int sim_known(void *ctx, tbbt_id id) {
    struct simw *w = ctx;
    return g_hash_table_lookup(w->made, (gpointer)(uintptr_t)id) != MADE_PENDING;
}

static void simw_init(struct simw *w, const struct tbbt_sim_opts *o, uint32_t window) {
    memset(w, 0, sizeof(*w));
    w->o = o, w->window = window;
    uint32_t cap = 64;
    while (cap < window)
        cap *= 2;
    w->mask = cap - 1;
    w->ring = g_new0(struct sslot, cap);
    w->made = g_hash_table_new(g_direct_hash, g_direct_equal);
    /* the engine gives the policy its window rounded up to a power of two */
    struct tbbt_sched_opts so = {.window = cap, .deps = o->deps, .known = sim_known, .known_ctx = w};
    w->sched = o->order->create(&so);
}

static void simw_free(struct simw *w) {
    if (w->sched) w->o->order->destroy(w->sched);
    if (w->made) g_hash_table_destroy(w->made);
    g_free(w->ring), g_free(w->ev.v), g_free(w->held.v);
}

/* The outstanding count changes at now: its integral so far first. */
static void set_out(struct simw *w, uint64_t out) {
    w->area += (double)w->out * (double)(w->now - w->t_area);
    w->t_area = w->now;
    w->out = out;
    if (out > w->peak) w->peak = out;
}

/* Record seq is over (its reply came, or it never goes to the server). */
static void finish_rec(struct simw *w, uint64_t seq, int ok) {
    struct sslot *s = &w->ring[seq & w->mask];
    /* the handle first, as the engine learns it before done(): the locks
     * done() grants ask known() */
    gpointer k = (gpointer)(uintptr_t)s->reveals;
    if (s->reveals && g_hash_table_lookup(w->made, k) == MADE_PENDING)
        g_hash_table_insert(w->made, k, MADE_REVEALED);
    w->o->order->done(w->sched, seq, ok);
    s->done = 1;
    w->ndone++;
    while (w->head < w->next_add && w->ring[w->head & w->mask].done)
        w->head++;
}

/* Sends what the policy offers and the cap allows, until nothing more
 * can go at this instant (a send may free locks: fsdep's send mode). */
static void pump(struct simw *w) {
    uint32_t cap = w->o->max_outstanding ? w->o->max_outstanding : UINT32_MAX;
    for (;;) {
        uint64_t seq;
        int k, moved = 0;
        while ((k = w->o->order->next(w->sched, &seq)) != TBBT_SCHED_NONE) {
            struct sslot *s = &w->ring[seq & w->mask];
            if (k == TBBT_SCHED_SKIP)
                finish_rec(w, seq, 0);
            else if (s->lat < 0) /* not replayable: the engine completes it unsent */
                finish_rec(w, seq, 1);
            else
                theap_push(&w->held, 0, seq);
        }
        while (w->held.n && w->out < cap) {
            seq = w->held.v[0].seq;
            theap_pop(&w->held);
            set_out(w, w->out + 1);
            w->nsent++;
            w->o->order->sent(w->sched, seq);
            theap_push(&w->ev, w->now + w->ring[seq & w->mask].lat, seq);
            moved = 1;
        }
        if (!moved) return;
    }
}

/* Advances virtual time to the next reply and takes every reply due
 * then. Returns 0, or -1 when no reply is to come. */
static int step(struct simw *w) {
    if (!w->ev.n) return -1;
    w->now = w->ev.v[0].t;
    uint64_t out = w->out;
    while (w->ev.n && w->ev.v[0].t == w->now) {
        uint64_t seq = w->ev.v[0].seq;
        theap_pop(&w->ev);
        set_out(w, --out);
        finish_rec(w, seq, 1);
    }
    pump(w);
    return 0;
}

static int deadlock(struct simw *w, char *err, size_t errlen) {
    snprintf(err, errlen, "window %u: record %llu never became ready (ordering deadlock)", w->window,
             (unsigned long long)w->head);
    return -1;
}

/* The latency of r on the simulated server, or -1: not replayable. */
static int64_t rec_latency(const struct tbbt_sim_opts *o, const struct tbbt_rec *r) {
    if (!tbbt_rec_replayable(r)) return -1;
    return o->latency_ns[r->op];
}

/* The object r's reply reveals, and notes one the trace creates. */
static tbbt_id note_reveal(struct simw *w, const struct tbbt_rec *r) {
    if (!tbbt_rec_has(r, TBBT_F_NEWOBJ) || !r->newobj) return 0;
    gpointer k = (gpointer)(uintptr_t)r->newobj;
    if ((tbbt_op_info(r->op)->flags & TBBT_OPF_CREATES) && !g_hash_table_lookup(w->made, k))
        g_hash_table_insert(w->made, k, MADE_PENDING);
    return r->newobj;
}

static int simw_feed(struct simw *w, const struct tbbt_rec *r, char *err, size_t errlen) {
    while (w->next_add - w->head >= w->window)
        if (step(w) < 0) return deadlock(w, err, errlen);
    uint64_t seq = w->next_add;
    struct sslot *s = &w->ring[seq & w->mask];
    *s = (struct sslot){.seq = seq, .lat = rec_latency(w->o, r)};
    /* the object it makes is pending from now until its reply (known()) */
    w->o->order->add(w->sched, seq, r);
    if (r->op < TBBT_OP_COUNT) s->reveals = note_reveal(w, r);
    w->next_add++;
    pump(w);
    return 0;
}

static int simw_finish(struct simw *w, struct tbbt_sim_window *res, char *err, size_t errlen) {
    while (step(w) == 0)
        ;
    set_out(w, w->out);
    if (w->ndone < w->next_add) return deadlock(w, err, errlen);
    *res = (struct tbbt_sim_window){.window = w->window,
                                    .records = w->ndone,
                                    .sent = w->nsent,
                                    .sim_s = (double)w->now / 1e9,
                                    .peak_out = w->peak};
    if (w->now > 0) {
        res->ops_per_s = (double)w->ndone / res->sim_s;
        res->mean_out = w->area / (double)w->now;
    }
    return 0;
}

/* ---- the trace's own figures ---- */

struct traceown {
    uint64_t records;
    int64_t first, last; /* first call; last call or reply */
    double area;         /* sum of call-to-reply times, ns */
    struct theap out;    /* replies to come at the current call */
    uint64_t peak;
};

static void traceown_add(struct traceown *t, const struct tbbt_rec *r) {
    if (!t->records++) t->first = t->last = r->call_time;
    if (r->call_time > t->last) t->last = r->call_time;
    while (t->out.n && t->out.v[0].t <= r->call_time)
        theap_pop(&t->out);
    if ((r->flags & TBBT_RF_REPLY_LOST) || r->status < 0 || r->reply_time < r->call_time) return;
    theap_push(&t->out, r->reply_time, 0);
    if (t->out.n > t->peak) t->peak = t->out.n;
    t->area += (double)(r->reply_time - r->call_time);
    if (r->reply_time > t->last) t->last = r->reply_time;
}

static void traceown_result(const struct traceown *t, struct tbbt_sim_trace *res) {
    *res = (struct tbbt_sim_trace){.records = t->records, .peak_out = t->peak};
    if (t->last > t->first) {
        res->span_s = (double)(t->last - t->first) / 1e9;
        res->ops_per_s = (double)t->records / res->span_s;
        res->mean_out = t->area / (double)(t->last - t->first);
    }
}

/* ---- the simulator ---- */

struct tbbt_sim {
    struct tbbt_sim_opts o;
    struct simw w[TBBT_SIM_MAX_WINDOWS];
    struct traceown own;
};

struct tbbt_sim *tbbt_sim_new(const struct tbbt_sim_opts *o) {
    struct tbbt_sim *s = g_new0(struct tbbt_sim, 1);
    s->o = *o;
    if (s->o.nwindows > TBBT_SIM_MAX_WINDOWS) s->o.nwindows = TBBT_SIM_MAX_WINDOWS;
    for (unsigned i = 0; i < s->o.nwindows; i++)
        simw_init(&s->w[i], &s->o, s->o.windows[i] ? s->o.windows[i] : 1);
    return s;
}

int tbbt_sim_feed(struct tbbt_sim *s, const struct tbbt_rec *r, char *err, size_t errlen) {
    traceown_add(&s->own, r);
    for (unsigned i = 0; i < s->o.nwindows; i++)
        if (simw_feed(&s->w[i], r, err, errlen) < 0) return -1;
    return 0;
}

int tbbt_sim_finish(struct tbbt_sim *s, struct tbbt_sim_result *res, char *err, size_t errlen) {
    memset(res, 0, sizeof(*res));
    traceown_result(&s->own, &res->trace);
    res->nwindows = s->o.nwindows;
    for (unsigned i = 0; i < s->o.nwindows; i++)
        if (simw_finish(&s->w[i], &res->w[i], err, errlen) < 0) return -1;
    return 0;
}

void tbbt_sim_free(struct tbbt_sim *s) {
    if (!s) return;
    for (unsigned i = 0; i < s->o.nwindows; i++)
        simw_free(&s->w[i]);
    g_free(s->own.out.v);
    g_free(s);
}
