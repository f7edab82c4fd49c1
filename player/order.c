/* order.c -- the ordering policies (see order.h). */
#include "order.h"

#include <glib.h>
#include <string.h>

#include "htab.h"

/* ---- a min-heap of (key, seq) ---- */

struct hent {
    int64_t key;
    uint64_t seq;
};

struct heap {
    struct hent *v;
    size_t n, cap;
};

static void heap_push(struct heap *h, int64_t key, uint64_t seq) {
    if (h->n == h->cap) h->v = g_renew(struct hent, h->v, h->cap = h->cap ? 2 * h->cap : 256);
    size_t i = h->n++;
    while (i &&
           (h->v[(i - 1) / 2].key > key || (h->v[(i - 1) / 2].key == key && h->v[(i - 1) / 2].seq > seq))) {
        h->v[i] = h->v[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->v[i] = (struct hent){key, seq};
}

static void heap_pop(struct heap *h) {
    struct hent last = h->v[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n) break;
        if (c + 1 < h->n && (h->v[c + 1].key < h->v[c].key ||
                             (h->v[c + 1].key == h->v[c].key && h->v[c + 1].seq < h->v[c].seq)))
            c++;
        if (h->v[c].key > last.key || (h->v[c].key == last.key && h->v[c].seq >= last.seq)) break;
        h->v[i] = h->v[c];
        i = c;
    }
    if (h->n) h->v[i] = last;
}

/* Ring capacity for a window: a power of two, twice the window at least. */
static uint32_t ring_cap(uint32_t window) {
    uint32_t c = 64;
    while (c < 2 * window)
        c *= 2;
    return c;
}

/* ---- conservative ---- */

/* What a record touches, so that a later record that conflicts with an
 * outstanding one waits for its reply: the objects it locks
 * (lib/locks.h), and the (directory, name) pairs it names, hashed. A
 * pair is written by a call that changes names (create, remove, rename,
 * link...), read by a lookup. Two records conflict where they touch one
 * thing and one of them writes it, as fsdep's locks do. Today every call
 * that names a pair also locks its directory, written by the calls that
 * change names, so the pair adds no conflict the directory lock has not;
 * it is here so that the rule says what it means whatever the lock table
 * does with directories. all and w summarise the keys (one bit each) so
 * that most outstanding records are passed over with one AND
 * (touch_may). */
#define TOUCH_MAX (TBBT_MAX_LOCKS + 2)
enum { TOUCH_W = 1, TOUCH_NAME = 2 };

struct touch {
    uint8_t n;
    uint8_t kind[TOUCH_MAX]; /* TOUCH_* */
    uint64_t key[TOUCH_MAX]; /* an object's ID, or a pair's hash */
    uint64_t all, w;         /* a bit per key touched, per key written */
};

/* An offered record not done: its seq and its touch's summary bits, side
 * by side, so that the scan over them (touch_held) reads one array. */
struct holder {
    uint64_t seq, all, w;
};

#define NOT_HELD UINT32_MAX

struct cons {
    uint32_t mask;
    int64_t *call, *reply;
    uint64_t *slot_seq;
    uint8_t *done;
    struct touch *touch;       /* per slot: what the record touches */
    uint32_t *pos;             /* per slot: its index in holders[], or NOT_HELD */
    struct holder *holders;    /* the offered records not done, in no order */
    uint32_t nholders;         /* in holders[] */
    uint64_t held_by;          /* 1 + the holder found holding next_send, 0: none known */
    uint64_t next_send, added; /* next_send: the next record to offer */
    struct heap out;           /* offered, maybe not done: by traced reply time */
};

static void *cons_create(const struct tbbt_sched_opts *o) {
    struct cons *c = g_new0(struct cons, 1);
    uint32_t cap = ring_cap(o->window);
    c->mask = cap - 1;
    c->call = g_new0(int64_t, cap), c->reply = g_new0(int64_t, cap);
    c->slot_seq = g_new0(uint64_t, cap), c->done = g_new0(uint8_t, cap);
    c->touch = g_new0(struct touch, cap), c->holders = g_new0(struct holder, cap);
    c->pos = g_new0(uint32_t, cap);
    return c;
}

static void cons_destroy(void *s) {
    struct cons *c = s;
    g_free(c->call), g_free(c->reply), g_free(c->slot_seq), g_free(c->done), g_free(c->out.v);
    g_free(c->touch), g_free(c->holders), g_free(c->pos), g_free(c);
}

/* Adds key to t (once: a key met again keeps the stronger kind). */
static void touch_put(struct touch *t, uint64_t key, uint8_t kind) {
    for (unsigned k = 0; k < t->n; k++)
        if (t->key[k] == key && !((t->kind[k] ^ kind) & TOUCH_NAME)) {
            t->kind[k] |= kind;
            return;
        }
    if (t->n < TOUCH_MAX) t->key[t->n] = key, t->kind[t->n++] = kind;
}

/* The hash of the pair (dir, name): FNV-1a over the name, from the
 * directory's mixed ID. Two pairs with one hash conflict, which at worst
 * holds a record that need not wait. */
static uint64_t name_key(tbbt_id dir, const char *name, uint32_t len) {
    return tbbt_htab_fnv1a(name, len, tbbt_htab_mix(dir) ^ TBBT_HTAB_FNV1A_BASIS);
}

/* Sets t's summary bits from its keys (after touch_put: a kind may grow
 * to a write): one of 64 bits per key, from the top of a multiplicative
 * hash, so that IDs 1, 2, 3... spread. */
static void touch_sum(struct touch *t) {
    t->all = t->w = 0;
    for (unsigned k = 0; k < t->n; k++) {
        uint64_t bit = 1ULL << ((t->key[k] * 0x9e3779b97f4a7c15ULL) >> 58);
        t->all |= bit;
        if (t->kind[k] & TOUCH_W) t->w |= bit;
    }
}

/* Fills t with what r touches (see struct touch): the lock table's
 * objects, then its (dir, name) and (dir2, name2) pairs. */
static void touch_of(const struct tbbt_rec *r, struct touch *t) {
    struct tbbt_lock l[TBBT_MAX_LOCKS];
    unsigned n = tbbt_locks_of(r, l);
    t->n = 0;
    for (unsigned k = 0; k < n; k++)
        touch_put(t, l[k].obj, l[k].write ? TOUCH_W : 0);
    if (r->op < TBBT_OP_COUNT) {
        uint8_t kind = TOUCH_NAME | ((tbbt_op_info(r->op)->flags & TBBT_OPF_MODIFIES) ? TOUCH_W : 0);
        if (tbbt_rec_has(r, TBBT_F_DIR) && tbbt_rec_has(r, TBBT_F_NAME))
            touch_put(t, name_key(r->dir, tbbt_rec_str(r, r->name), r->name.len), kind);
        if (tbbt_rec_has(r, TBBT_F_DIR2) && tbbt_rec_has(r, TBBT_F_NAME2))
            touch_put(t, name_key(r->dir2, tbbt_rec_str(r, r->name2), r->name2.len), kind);
    }
    touch_sum(t);
}

/* May a (summary bits all_a, w_a) and b touch one thing, one of them
 * writing it? 0: they do not; 1: touch_conflict decides. */
static int touch_may(uint64_t all_a, uint64_t w_a, uint64_t all_b, uint64_t w_b) {
    return ((w_a & all_b) | (all_a & w_b)) != 0;
}

/* Do a and b touch one thing, one of them writing it? */
static int touch_conflict(const struct touch *a, const struct touch *b) {
    for (unsigned i = 0; i < a->n; i++)
        for (unsigned j = 0; j < b->n; j++)
            if (a->key[i] == b->key[j] && !((a->kind[i] ^ b->kind[j]) & TOUCH_NAME) &&
                ((a->kind[i] | b->kind[j]) & TOUCH_W))
                return 1;
    return 0;
}

static void cons_add(void *s, uint64_t seq, const struct tbbt_rec *r) {
    struct cons *c = s;
    uint32_t i = (uint32_t)(seq & c->mask);
    c->call[i] = r->call_time;
    /* A reply the trace never saw still reached its client, at a time
     * nobody knows: its reply time holds nothing back by itself (what
     * touches what it touches waits for it anyway: touch_held). One that
     * showed a handle (a create's, a lookup's: the trace goes on to use
     * it) holds every later record, and so does a corrective record (pass
     * 2), as it is there to make the next ones go as traced and its times
     * are drawn, not seen. */
    int lost = tbbt_sched_reply_lost(r);
    int all = (r->flags & TBBT_RF_INSERTED) || (lost && tbbt_rec_has(r, TBBT_F_NEWOBJ));
    c->reply[i] = all ? INT64_MIN : lost ? INT64_MAX : r->reply_time;
    touch_of(r, &c->touch[i]);
    c->slot_seq[i] = seq, c->done[i] = 0, c->pos[i] = NOT_HELD;
    c->added = seq + 1;
}

/* Is the sent record seq done (or gone from the ring: long done)? */
static int cons_is_done(const struct cons *c, uint64_t seq) {
    uint32_t i = (uint32_t)(seq & c->mask);
    return c->slot_seq[i] != seq || c->done[i];
}

/* Is record seq (next_send) held by an offered record, not done, that
 * touches what it touches, one of the two writing it? *by: that record.
 * Issue 21: a server runs pipelined requests at once (nfs-ganesha does),
 * so two that the trace had outstanding together would meet on the
 * server in either order; the earlier-called one goes first and the
 * later waits for its reply, whether the trace saw that reply (the two
 * overlapped) or lost it. A scan of the outstanding records (the cap on
 * them bounds it), most passed over by their summary bits. The holder
 * found is kept: the holders of next_send only shrink until it goes, so
 * a later call asks that one first. */
static int touch_held(struct cons *c, uint64_t seq, uint64_t *by) {
    if (c->held_by && !cons_is_done(c, c->held_by - 1)) {
        *by = c->held_by - 1;
        return 1;
    }
    const struct touch *t = &c->touch[seq & c->mask];
    for (uint32_t k = 0; k < c->nholders; k++) {
        const struct holder *h = &c->holders[k];
        if (touch_may(h->all, h->w, t->all, t->w) && touch_conflict(&c->touch[h->seq & c->mask], t)) {
            c->held_by = h->seq + 1;
            *by = h->seq;
            return 1;
        }
    }
    c->held_by = 0;
    return 0;
}

/* Is the next record (added) held back, and by which record (*by)? By
 * the offered record, not done, with the earliest traced reply, when
 * that reply came before the next one's call; else by an outstanding
 * record it conflicts with. */
static int cons_held(struct cons *c, uint64_t *by) {
    while (c->out.n && cons_is_done(c, c->out.v[0].seq))
        heap_pop(&c->out);
    if (c->out.n && c->out.v[0].key < c->call[c->next_send & c->mask]) {
        *by = c->out.v[0].seq;
        return 1;
    }
    return touch_held(c, c->next_send, by);
}

static int cons_next(void *s, uint64_t *seq) {
    struct cons *c = s;
    uint64_t by;
    if (c->next_send >= c->added || cons_held(c, &by)) return TBBT_SCHED_NONE;
    /* offered records go in trace order (the engine sends what it is
     * offered in that order); the reply each will get holds later ones,
     * and so does the record itself until then (touch_held). The list
     * holds the offered records not done: a window at most. */
    *seq = c->next_send++;
    uint32_t i = (uint32_t)(*seq & c->mask);
    heap_push(&c->out, c->reply[i], *seq);
    c->pos[i] = c->nholders;
    c->holders[c->nholders++] = (struct holder){*seq, c->touch[i].all, c->touch[i].w};
    return TBBT_SCHED_SEND;
}

static void cons_sent(void *s, uint64_t seq) {
    (void)s, (void)seq;
}

/* Drops slot i's record from the holders (the last one takes its place). */
static void holder_drop(struct cons *c, uint32_t i) {
    uint32_t k = c->pos[i];
    if (k == NOT_HELD) return;
    struct holder last = c->holders[--c->nholders];
    c->holders[k] = last;
    c->pos[last.seq & c->mask] = k;
    c->pos[i] = NOT_HELD;
}

static void cons_done(void *s, uint64_t seq, int ok) {
    struct cons *c = s;
    (void)ok;
    uint32_t i = (uint32_t)(seq & c->mask);
    if (c->slot_seq[i] != seq || c->done[i]) return;
    c->done[i] = 1;
    holder_drop(c, i);
}

/* The record whose reply holds the next one back (what cons_next
 * checks). Not when the next record is not added yet. */
static int cons_blocker(void *s, uint64_t *seq) {
    struct cons *c = s;
    return c->next_send < c->added && cons_held(c, seq);
}

const struct tbbt_sched_ops tbbt_sched_conservative = {
    "conservative", cons_create, cons_destroy, cons_add, cons_next, cons_sent, cons_done, cons_blocker};

/* ---- fsdep ---- */

struct objq;

/* One lock in an object's queue. reveal: a lookup's lock whose kind is
 * decided when it is granted (lib/locks.h, TBBT_LK_REVEAL). */
struct lockent {
    uint64_t seq;
    uint8_t write, until_reply, granted, released, reveal;
    struct lockent *next;
};

/* One object's queue of locks, in trace order: granted (or released)
 * ones, then from `wait` on the ones not granted yet. */
struct objq {
    tbbt_id id;
    struct lockent *head, *tail;
    struct lockent *wait; /* the first lock not granted, NULL: none */
    uint32_t held, wheld; /* locks granted and not released; writers among them */
    uint64_t poison;      /* seq + 1 of the latest failed record that changed it, 0 none */
    uint32_t refs;        /* live requests locking it */
    struct objq *next;    /* in the free list, once dropped */
};

/* A record in the window. */
struct req {
    uint64_t seq;
    uint8_t nlocks, ungranted, live;
    struct objq *oq[TBBT_MAX_LOCKS];
    struct lockent *ent[TBBT_MAX_LOCKS]; /* NULL once released */
    uint8_t principal[TBBT_MAX_LOCKS];
    uint8_t creates[TBBT_MAX_LOCKS];
};

struct fsdep {
    struct tbbt_sched_opts o;
    uint32_t mask;
    struct req *reqs;
    struct tbbt_htab objs; /* struct objq by id (tbbt_htab_mix: IDs run 1, 2, 3...; owned) */
    struct heap ready;     /* by seq */
    struct lockent *free_ents;
    struct objq *free_objs; /* dropped queues, for the next object */
};

static void *fsdep_create(const struct tbbt_sched_opts *o) {
    struct fsdep *f = g_new0(struct fsdep, 1);
    f->o = *o;
    uint32_t cap = ring_cap(o->window);
    f->mask = cap - 1;
    f->reqs = g_new0(struct req, cap);
    tbbt_htab_init(&f->objs, tbbt_htab_eq_mixed);
    return f;
}

/* Frees a list of lock entries. */
static void free_ents(struct lockent *e) {
    for (struct lockent *n; e; e = n) {
        n = e->next;
        g_free(e);
    }
}

static void fsdep_destroy(void *s) {
    struct fsdep *f = s;
    size_t pos = 0;
    for (struct objq *q; (q = tbbt_htab_next(&f->objs, &pos));) {
        free_ents(q->head);
        g_free(q);
    }
    tbbt_htab_clear(&f->objs);
    free_ents(f->free_ents);
    for (struct objq *q, *n = f->free_objs; (q = n);) {
        n = q->next;
        g_free(q);
    }
    g_free(f->reqs), g_free(f->ready.v), g_free(f);
}

static struct req *req_of(struct fsdep *f, uint64_t seq) {
    struct req *q = &f->reqs[seq & f->mask];
    return q->live && q->seq == seq ? q : NULL;
}

/* A lock was granted: its request may become ready. */
static void granted(struct fsdep *f, struct lockent *e) {
    e->granted = 1;
    struct req *q = req_of(f, e->seq);
    if (q && --q->ungranted == 0) heap_push(&f->ready, (int64_t)q->seq, q->seq);
}

/* Is the handle of id known now (the options' known(); none: yes)? */
static int handle_known(const struct fsdep *f, tbbt_id id) {
    return !f->o.known || f->o.known(f->o.known_ctx, id);
}

/* Grants what can be granted in q, in order: a writer when nothing before
 * it is unreleased, a reader when no writer before it is; the first that
 * cannot be granted stops. Everything before it is granted or released,
 * so the counts of those held say what is unreleased before it, and the
 * walk starts there, not at the head: a busy directory's queue holds
 * hundreds of locks, and this runs on every lock added or released.
 * Released entries at the head go. A lookup's reveal lock is a reader
 * when its object's handle is known by the time every lock before it is
 * granted (the create before it replied, or the manifest has it), else a
 * writer until the reply that reveals it. Decided here, not when the
 * record entered the window: a larger window adds a lookup earlier,
 * before its create's reply, and took it as a writer that serialised
 * every reader of the new object behind it (issue 23). */
static void advance(struct fsdep *f, struct objq *q) {
    while (q->head && q->head->released) {
        struct lockent *e = q->head;
        if (q->wait == e) q->wait = e->next;
        q->head = e->next;
        e->next = f->free_ents;
        f->free_ents = e;
    }
    if (!q->head) q->tail = NULL;
    for (struct lockent *e; (e = q->wait); q->wait = e->next) {
        if (e->released) continue;
        int w = e->write || (e->reveal && !handle_known(f, q->id));
        if (w ? q->held : q->wheld) break;
        if (w && !e->write) e->write = 1, e->until_reply = 1;
        e->reveal = 0;
        granted(f, e);
        q->held++, q->wheld += e->write;
    }
}

/* Drops an object's queue nobody needs any more (most objects, between
 * two bursts of requests on them), keeping it for the next one. */
static void maybe_drop(struct fsdep *f, struct objq *q) {
    if (q->refs || q->head || q->poison) return;
    tbbt_htab_remove_item(&f->objs, tbbt_htab_mix(q->id), q);
    q->next = f->free_objs;
    f->free_objs = q;
}

/* The queue of object id, made if new: a lookup per lock of every record
 * added, in a table that compares stored hashes, its comparison inlined. */
static struct objq *objq_get(struct fsdep *f, tbbt_id id) {
    uint64_t h = tbbt_htab_mix(id);
    struct objq *q = tbbt_htab_find_inline(&f->objs, h, &id, tbbt_htab_eq_mixed);
    if (q) return q;
    if ((q = f->free_objs))
        f->free_objs = q->next;
    else
        q = g_new(struct objq, 1);
    *q = (struct objq){.id = id};
    tbbt_htab_put(&f->objs, h, q);
    return q;
}

static void fsdep_add(void *s, uint64_t seq, const struct tbbt_rec *r) {
    struct fsdep *f = s;
    struct tbbt_lock l[TBBT_MAX_LOCKS];
    unsigned n = tbbt_sched_locks(r, f->o.deps, l);
    struct req *q = &f->reqs[seq & f->mask];
    *q = (struct req){.seq = seq, .nlocks = (uint8_t)n, .ungranted = (uint8_t)n, .live = 1};
    for (unsigned i = 0; i < n; i++) {
        struct lockent *e = f->free_ents;
        if (e)
            f->free_ents = e->next;
        else
            e = g_new(struct lockent, 1);
        struct objq *oq = objq_get(f, l[i].obj);
        *e = (struct lockent){
            .seq = seq, .write = l[i].write, .until_reply = l[i].until_reply, .reveal = l[i].reveal};
        if (oq->tail)
            oq->tail->next = e;
        else
            oq->head = e;
        oq->tail = e;
        if (!oq->wait) oq->wait = e;
        oq->refs++;
        q->oq[i] = oq, q->ent[i] = e, q->principal[i] = l[i].principal, q->creates[i] = l[i].creates;
    }
    if (!n) heap_push(&f->ready, (int64_t)seq, seq);
    for (unsigned i = 0; i < n; i++)
        advance(f, q->oq[i]);
}

/* Did a dependency of q fail (an object it locks poisoned by an earlier
 * record)? Not the object q makes anew: a failure on an earlier object
 * under that ID (a server that reused a handle the capture could not tell
 * apart) is no dependency of making it. */
static int poisoned(const struct req *q) {
    for (unsigned i = 0; i < q->nlocks; i++) {
        if (q->creates[i]) continue;
        uint64_t p = q->oq[i]->poison;
        if (p && p - 1 < q->seq) return 1;
    }
    return 0;
}

static int fsdep_next(void *s, uint64_t *seq) {
    struct fsdep *f = s;
    while (f->ready.n) {
        uint64_t sq = f->ready.v[0].seq;
        heap_pop(&f->ready);
        struct req *q = req_of(f, sq);
        if (!q) continue;
        *seq = sq;
        return poisoned(q) ? TBBT_SCHED_SKIP : TBBT_SCHED_SEND;
    }
    return TBBT_SCHED_NONE;
}

/* Releases q's locks: those that go at the send (at_send), or all left. */
static void release(struct fsdep *f, struct req *q, int at_send) {
    for (unsigned i = 0; i < q->nlocks; i++) {
        struct lockent *e = q->ent[i];
        if (!e || (at_send && e->until_reply)) continue;
        e->released = 1;
        if (e->granted) q->oq[i]->held--, q->oq[i]->wheld -= e->write;
        q->ent[i] = NULL;
        advance(f, q->oq[i]);
    }
}

static void fsdep_sent(void *s, uint64_t seq) {
    struct fsdep *f = s;
    struct req *q = req_of(f, seq);
    if (q) release(f, q, 1);
}

static void fsdep_done(void *s, uint64_t seq, int ok) {
    struct fsdep *f = s;
    struct req *q = req_of(f, seq);
    if (!q) return;
    for (unsigned i = 0; i < q->nlocks; i++) {
        if (!ok && q->principal[i]) q->oq[i]->poison = seq + 1;
        if (ok && q->creates[i]) q->oq[i]->poison = 0; /* made anew: what failed before is past */
    }
    q->live = 0; /* before the release: granting its own locks must not make it ready */
    release(f, q, 0);
    for (unsigned i = 0; i < q->nlocks; i++) {
        q->oq[i]->refs--;
        maybe_drop(f, q->oq[i]);
    }
}

const struct tbbt_sched_ops tbbt_sched_fsdep = {"fsdep",    fsdep_create, fsdep_destroy, fsdep_add,
                                                fsdep_next, fsdep_sent,   fsdep_done,    NULL};

/* Contract in order.h. */
int tbbt_sched_diverged(int traced, int got) {
    return !(traced > 0 && got > 0);
}

const struct tbbt_sched_ops *tbbt_sched_find(const char *name) {
    if (!strcmp(name, "conservative")) return &tbbt_sched_conservative;
    if (!strcmp(name, "fsdep")) return &tbbt_sched_fsdep;
    return NULL;
}
