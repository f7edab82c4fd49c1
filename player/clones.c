/* clones.c -- TBBT-ID namespacing and per-clone ordering (see clones.h). */
#include "clones.h"

#include <glib.h>

#define RANGE_BITS 40
#define CLONE_SHIFT 42

int tbbt_clone_id(uint32_t clone, tbbt_id id, tbbt_id *out) {
    if (!id) {
        *out = 0;
        return 0;
    }
    uint64_t range = id >> 56 ? 2 : id >> 48 ? 1 : 0;
    uint64_t off = id - (range == 2 ? 1ull << 56 : range == 1 ? 1ull << 48 : 0);
    if (off >> RANGE_BITS || id >> 57 || clone >= TBBT_CLONE_MAX) return -1;
    *out = (uint64_t)clone << CLONE_SHIFT | range << RANGE_BITS | off;
    return 0;
}

/* Namespaces one ID in place; remembers the first that cannot be. */
static void ns(tbbt_id *id, uint32_t clone, int *rc, tbbt_id *bad) {
    tbbt_id traced = *id;
    if (tbbt_clone_id(clone, traced, id) == 0 || *rc) return;
    *rc = -1, *bad = traced;
}

int tbbt_clone_rec(struct tbbt_rec *r, uint32_t clone, tbbt_id *bad) {
    int rc = 0;
    tbbt_id *f[] = {&r->obj, &r->dir, &r->dir2, &r->newobj, &r->victim, &r->victim2};
    for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
        ns(f[i], clone, &rc, bad);
    for (uint32_t i = 0; i < r->nentries; i++)
        ns(&r->entries[i].id, clone, &rc, bad);
    return rc;
}

/* ---- one policy instance per clone ---- */

struct clones {
    const struct tbbt_sched_ops *inner;
    uint32_t n, cursor; /* cursor: the clone next() asks first (fairness) */
    void **sub;
};

static void *clones_create(const struct tbbt_sched_opts *o) {
    struct clones *c = g_new0(struct clones, 1);
    c->inner = o->per_clone;
    c->n = o->clones ? o->clones : 1;
    c->sub = g_new0(void *, c->n);
    /* a window of W records over all clones holds at most W/N + 1 of one */
    struct tbbt_sched_opts so = *o;
    so.window = o->window / c->n + 1;
    for (uint32_t i = 0; i < c->n; i++)
        c->sub[i] = c->inner->create(&so);
    return c;
}

static void clones_destroy(void *s) {
    struct clones *c = s;
    for (uint32_t i = 0; i < c->n; i++)
        c->inner->destroy(c->sub[i]);
    g_free(c->sub), g_free(c);
}

static void clones_add(void *s, uint64_t seq, const struct tbbt_rec *r) {
    struct clones *c = s;
    c->inner->add(c->sub[seq % c->n], seq / c->n, r);
}

/* The clones take turns offering, so a busy clone does not starve the
 * others of the send cap. */
static int clones_next(void *s, uint64_t *seq) {
    struct clones *c = s;
    for (uint32_t k = 0; k < c->n; k++) {
        uint32_t i = (c->cursor + k) % c->n;
        uint64_t local;
        int rc = c->inner->next(c->sub[i], &local);
        if (rc == TBBT_SCHED_NONE) continue;
        c->cursor = (i + 1) % c->n;
        *seq = local * c->n + i;
        return rc;
    }
    return TBBT_SCHED_NONE;
}

static void clones_sent(void *s, uint64_t seq) {
    struct clones *c = s;
    c->inner->sent(c->sub[seq % c->n], seq / c->n);
}

static void clones_done(void *s, uint64_t seq, int ok) {
    struct clones *c = s;
    c->inner->done(c->sub[seq % c->n], seq / c->n, ok);
}

const struct tbbt_sched_ops tbbt_sched_clones = {"clones",    clones_create, clones_destroy, clones_add,
                                                 clones_next, clones_sent,   clones_done,    NULL};
