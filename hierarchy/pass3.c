/* pass3.c -- tbbt-prep pass 3: the hierarchy map (see pass3.h). */
#include "pass3.h"

#include <stdlib.h>
#include <string.h>

#include "cut.h"
#include "fsmodel.h"
#include "hmap.h"
#include "memlimit.h"
#include "u64map.h"
#include "unconst.h"

#define HAD_ENTRY (1ull << 63) /* p3_dent.ent: the name had an entry once */
#define MAX_DEPTH 4096         /* deeper parent chains are cut (a cycle) */

/* How an entry ended. */
enum { END_OPEN = 0, END_REMOVED, END_RENAMED, END_REPLACED, END_VANISHED };

/* One path of one object: an entry of the map. There are more of them
 * than objects and all live to the end, so it is kept to 48 bytes: the
 * few entries a held record waits on are in tbbt_pass3.pend instead. */
struct p3ent {
    tbbt_id obj;                 /* 0 until known (an ID is given at the end) */
    const struct tbbt_fsdent *d; /* the (directory, name): the model owns it */
    int64_t create, del;
    uint32_t prev; /* index + 1 of the entry a rename moved this object from */
    uint32_t next; /* index + 1 of the entry a rename moved it to */
    uint8_t end;   /* END_* */
    uint8_t type;  /* type the record implied, when the object is not known */
};

/* Pass 3's part of every model object (the model's extension, which the
 * model does not read). */
struct p3_obj {
    uint32_t marks;     /* OM_* */
    uint32_t first_ent; /* index + 1 of its first map entry (settle_entries), as p3ent.prev */
    uint64_t read_end;  /* the furthest byte a successful read reached */
};

/* Pass 3's part of every model entry. */
struct p3_dent {
    uint64_t ent; /* index + 1 of the name's open map entry, | HAD_ENTRY once it had one */
};

/* Pass 3's part of object o. */
static inline struct p3_obj *p3_obj(const struct tbbt_fsobj *o) {
    return tbbt_fsobj_ext(o);
}

/* Pass 3's part of entry d. */
static inline struct p3_dent *p3_dent(const struct tbbt_fsdent *d) {
    return tbbt_fsdent_ext(d);
}

/* Object marks kept in p3_obj.marks. */
enum {
    OM_ENTRY = 1,
    OM_INITIAL = 2,
    OM_EMITTED = 4,
    OM_TOP = 8,
    OM_PARENT = 16,
    OM_HL = 32,
    OM_NAMELESS = 64,
    OM_REFUSED = 128,        /* a directory that refused a non-root caller a name (ACCES) */
    OM_REFUSED_SEARCH = 256, /* ... a lookup: it refuses search too */
    OM_ALLOWED = 512         /* a directory that let a non-root caller look up or make a name */
};

struct tbbt_pass3 {
    struct tbbt_fsmodel *m;
    GArray *ents; /* struct p3ent */
    tbbt_p3_sink sink;
    void *ctx;
    struct tbbt_rec scratch; /* a record being given its victims */
    int64_t now;             /* the latest call time put (at least 1): the map's clock */
    struct tbbt_rec listing; /* a listing without synthetically named objects (listing_as_named) */
    int synth;               /* a record with a synthetic name was met */
    tbbt_id next_fresh;
    GArray *roots; /* tbbt_id */
    /* Entries whose object a held record waits for: index + 1 -> that
     * record's seq + 1 (at most the held records, so apart from ents) */
    struct tbbt_u64map pend;
    /* Records held back behind a rename whose object is not known yet (a
     * later lookup of the new name may reveal it): a ring of copies. */
    struct held *ring;
    uint32_t cap; /* slots of the ring: a power of two, TBBT_P3_WINDOW to TBBT_P3_HELD_MAX */
    uint32_t head, count;
    uint64_t head_seq;  /* seq of the record at head */
    uint32_t pend_from; /* set by apply(): the entry a just-applied record waits to learn the object of */
    uint8_t pend_field; /* the field it will fill: TBBT_F_VICTIM (rename) or TBBT_F_NEWOBJ (create) */
    int failed;         /* the sink failed */
    struct tbbt_pass3_stats st;
};

/* A held record. */
struct held {
    struct tbbt_rec r;
    uint32_t target; /* index + 1 of the entry whose object it waits for, while unknown */
    uint8_t field;   /* where that object goes: TBBT_F_VICTIM or TBBT_F_NEWOBJ */
};

struct tbbt_pass3 *tbbt_pass3_new(tbbt_p3_sink sink, void *ctx) {
    struct tbbt_pass3 *p = g_new0(struct tbbt_pass3, 1);
    p->m = tbbt_fsmodel_new_ext(sizeof(struct p3_obj), sizeof(struct p3_dent));
    p->ents = g_array_sized_new(FALSE, FALSE, sizeof(struct p3ent), 1024);
    p->roots = g_array_new(FALSE, FALSE, sizeof(tbbt_id));
    tbbt_u64map_init(&p->pend);
    p->sink = sink;
    p->ctx = ctx;
    p->next_fresh = TBBT_P3_FRESH_BASE;
    p->now = 1;
    tbbt_rec_init(&p->scratch);
    tbbt_rec_init(&p->listing);
    return p;
}

void tbbt_pass3_add_root(struct tbbt_pass3 *p, tbbt_id id) {
    for (guint i = 0; i < p->roots->len; i++)
        if (g_array_index(p->roots, tbbt_id, i) == id) return;
    g_array_append_val(p->roots, id);
}

/* An ID for an object the trace needs but never names by handle. */
static tbbt_id fresh_id(struct tbbt_pass3 *p) {
    p->st.fresh_ids++;
    return p->next_fresh++;
}

static struct p3ent *ent(struct tbbt_pass3 *p, size_t idx1) {
    return &g_array_index(p->ents, struct p3ent, idx1 - 1);
}

/* Gives the held record seq the object it waited for: a rename's victim,
 * or the new object of a create whose reply the capture lost. */
static void fill_victim(struct tbbt_pass3 *p, uint64_t seq, tbbt_id obj) {
    if (seq < p->head_seq || seq >= p->head_seq + p->count) return;
    struct held *h = &p->ring[(p->head + (seq - p->head_seq)) & (p->cap - 1)];
    tbbt_rec_set_u64(&h->r, h->field, obj);
    h->target = 0;
    if (h->field == TBBT_F_VICTIM)
        p->st.victims++;
    else
        p->st.newobjs++;
}

/* Binds the entries a rename chain moved an unknown object through (the
 * entry idx1 and its predecessors still at 0) to obj. When the chain
 * starts before the trace, so did obj: the model, which saw it first
 * under a name the trace made (the rename's target), thought it made by
 * the trace; its attributes then are its initial ones. */
static void bind_chain(struct tbbt_pass3 *p, size_t idx1, tbbt_id obj) {
    int initial = 0;
    for (unsigned n = 0; idx1 && n < MAX_DEPTH; n++) {
        struct p3ent *e = ent(p, idx1);
        if (e->obj) break;
        e->obj = obj;
        uint64_t pend = tbbt_u64map_remove(&p->pend, idx1);
        if (pend) fill_victim(p, pend - 1, obj);
        initial = e->create == 0;
        idx1 = e->prev;
    }
    struct tbbt_fsobj *o = initial ? tbbt_fsmodel_obj_get(p->m, obj) : NULL;
    if (!o || (o->flags & TBBT_FSO_INITIAL)) return;
    o->flags = (o->flags & ~(uint32_t)TBBT_FSO_CREATED) | TBBT_FSO_INITIAL;
    if ((o->flags & TBBT_FSO_ATTRS) && !(o->flags & (TBBT_FSO_CHANGED | TBBT_FSO_INIT_ATTRS))) {
        o->init = o->attr;
        o->flags |= TBBT_FSO_INIT_ATTRS;
    }
}

/* Makes entry d's open map entry agree with what the model says of d now
 * (at time t): a name that appeared opens an entry (at 0 if the model
 * learnt it as initial and it never had one), a name that went or now
 * names another object closes it (how: END_*). A name whose object was
 * not known and now is just binds it, unless the record made the name
 * anew (make). Returns the index + 1 of the open entry, or 0. */
static size_t reconcile(struct tbbt_pass3 *p, struct tbbt_fsdent *d, int64_t t, int make, int how) {
    size_t idx1 = (size_t)(p3_dent(d)->ent & ~HAD_ENTRY);
    int present = d->state == TBBT_NAME_PRESENT;
    if (idx1) {
        struct p3ent *e = ent(p, idx1);
        if (present && e->obj == d->obj) return idx1;
        if (present && !make && (!e->obj || !d->obj)) {
            if (d->obj) bind_chain(p, idx1, d->obj);
            return idx1;
        }
        e->del = t;
        e->end = (uint8_t)how;
        p3_dent(d)->ent = HAD_ENTRY;
    }
    if (!present) return 0;
    struct p3ent n = {.obj = d->obj, .d = d, .del = TBBT_HM_NEVER};
    n.create = !(p3_dent(d)->ent & HAD_ENTRY) && d->init == TBBT_NAME_PRESENT ? 0 : (t > 0 ? t : 1);
    g_array_append_val(p->ents, n);
    p3_dent(d)->ent = HAD_ENTRY | p->ents->len;
    return p->ents->len;
}

/* The model's entry for r's (dir, name) or (dir2, name2), NULL if none. */
static struct tbbt_fsdent *rec_dent(struct tbbt_pass3 *p, const struct tbbt_rec *r, int second) {
    if (second) return tbbt_fsmodel_dent(p->m, r->dir2, tbbt_rec_str(r, r->name2), r->name2.len);
    return tbbt_fsmodel_dent(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len);
}

/* The object (dir, name) names before a record removes or moves it,
 * learnt present (an object of its own, type type, when the model does
 * not know it and the record does not say) so that the initial entry
 * exists before the change. known: the record's victim field, or 0.
 * keep_unknown leaves an unknown object at 0 (a rename's source: a later
 * lookup of its new name may reveal it). */
static tbbt_id take_victim(struct tbbt_pass3 *p, const struct tbbt_rec *r, int second, tbbt_id known,
                           uint32_t type, int keep_unknown) {
    tbbt_id dir = second ? r->dir2 : r->dir;
    struct tbbt_str s = second ? r->name2 : r->name;
    const char *n = tbbt_rec_str(r, s);
    tbbt_id cur = 0;
    enum tbbt_name_state st = tbbt_fsmodel_name(p->m, dir, n, s.len, &cur);
    if (st == TBBT_NAME_PRESENT && cur) {
        reconcile(p, rec_dent(p, r, second), p->now, 0, END_VANISHED);
        return cur;
    }
    if (!known && !keep_unknown) known = fresh_id(p);
    if (known && type) {
        struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(p->m, known);
        if (!o->attr.type) o->attr.type = type;
    }
    struct tbbt_fsdent *d = tbbt_fsmodel_learn_present(p->m, dir, n, s.len, known);
    size_t idx1 = reconcile(p, d, p->now, 0, END_VANISHED);
    if (idx1 && !known && type) ent(p, idx1)->type = (uint8_t)type;
    return known;
}

/* Fills the victims of a remove, rmdir or rename that succeeded into the
 * scratch copy of r, opening the entries they had. Returns the copy. */
static const struct tbbt_rec *with_victims(struct tbbt_pass3 *p, const struct tbbt_rec *r) {
    tbbt_rec_copy(&p->scratch, r);
    struct tbbt_rec *c = &p->scratch;
    tbbt_id had = tbbt_rec_has(r, TBBT_F_VICTIM) ? r->victim : 0;
    if (r->op == TBBT_OP_RENAME) {
        tbbt_id v = take_victim(p, c, 0, had, 0, 1);
        if (v) tbbt_rec_set_u64(c, TBBT_F_VICTIM, v);
        tbbt_id cur2 = 0;
        const char *n2 = tbbt_rec_str(c, c->name2);
        if (tbbt_fsmodel_rename_whole(c) && !tbbt_dot_name(n2, c->name2.len) &&
            tbbt_fsmodel_name(p->m, c->dir2, n2, c->name2.len, &cur2) == TBBT_NAME_PRESENT &&
            (cur2 != v || !v)) {
            tbbt_id had2 = tbbt_rec_has(r, TBBT_F_VICTIM2) ? r->victim2 : 0;
            tbbt_id v2 = take_victim(p, c, 1, had2, 0, 0);
            if (v2 && v2 != v) tbbt_rec_set_u64(c, TBBT_F_VICTIM2, v2);
        }
    } else {
        uint32_t type = r->op == TBBT_OP_RMDIR ? TBBT_FT_DIR : TBBT_FT_REG;
        tbbt_rec_set_u64(c, TBBT_F_VICTIM, take_victim(p, c, 0, had, type, 0));
    }
    if (tbbt_rec_has(c, TBBT_F_VICTIM)) p->st.victims++;
    return c;
}

/* After a rename: the target's new entry continues the source's (the
 * same object, maybe not known yet). */
static void after_rename(struct tbbt_pass3 *p, const struct tbbt_rec *r, size_t src1) {
    if (!tbbt_fsmodel_rename_whole(r)) return; /* moved nowhere known: no new entry */
    struct tbbt_fsdent *d2 = rec_dent(p, r, 1);
    if (!d2) return;
    size_t idx1 = reconcile(p, d2, p->now, 1, END_REPLACED);
    if (idx1 && src1 && idx1 != src1) {
        ent(p, idx1)->prev = (uint32_t)src1;
        ent(p, src1)->next = (uint32_t)idx1;
        if (!ent(p, idx1)->type) ent(p, idx1)->type = ent(p, src1)->type;
        if (!tbbt_rec_has(r, TBBT_F_VICTIM) && !ent(p, idx1)->obj)
            p->pend_from = (uint32_t)idx1, p->pend_field = TBBT_F_VICTIM;
    }
}

/* An entry's object for the listing filter: the one its handle names. */
static tbbt_id entry_obj(void *ctx, const struct tbbt_dirent *e) {
    (void)ctx;
    return e->id;
}

/* Listing r as the model may learn it (tbbt_cut_listing_as_named: pass 2
 * leaves the same entries out), in p->listing. */
static const struct tbbt_rec *listing_as_named(struct tbbt_pass3 *p, const struct tbbt_rec *r) {
    if (!p->synth || !r->nentries || (r->op != TBBT_OP_READDIR && r->op != TBBT_OP_READDIRPLUS)) return r;
    return tbbt_cut_listing_as_named(p->m, r, entry_obj, p, &p->listing);
}

/* A directory that refused a non-root caller a name (ACCES) may be known
 * by that handle alone (its mkdir lost): the model learns nothing from a
 * refused call, so the image would miss it and the replay could not send
 * the call. It existed; the marks give it a refusing mode in the image
 * unless a reply shows its attributes (fill_attrs). */
static void note_refusal(struct tbbt_pass3 *p, const struct tbbt_rec *r, int status) {
    if (!(tbbt_op_info(r->op)->flags & TBBT_OPF_DIRNAME) || !tbbt_rec_has(r, TBBT_F_DIR) || !r->dir ||
        r->cred.uid == 0 ||
        (status != TBBT_NFSERR_ACCES && status != TBBT_NFS_OK && status != TBBT_NFSERR_NOENT))
        return;
    struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(p->m, r->dir);
    if (status != TBBT_NFSERR_ACCES) {
        p3_obj(o)->marks |= OM_ALLOWED;
        return;
    }
    if (!(o->flags & (TBBT_FSO_CREATED | TBBT_FSO_INITIAL))) o->flags |= TBBT_FSO_INITIAL;
    if (!o->attr.type) o->attr.type = TBBT_FT_DIR;
    p3_obj(o)->marks |= OM_REFUSED | (r->op == TBBT_OP_LOOKUP ? OM_REFUSED_SEARCH : 0);
}

/* Applies r to the model and the map. Returns the record to pass on. */
static const struct tbbt_rec *apply(struct tbbt_pass3 *p, const struct tbbt_rec *r) {
    unsigned f = tbbt_op_info(r->op)->flags;
    int status = r->status < 0 ? 0 : r->status; /* a lost reply: assumed done, as pass 2 does */
    /* a directory of ID 0 is none (a hand-edited record; found by fuzz/fuzz_pass3): the model ignores it too
     */
    int dirname = (f & TBBT_OPF_DIRNAME) && tbbt_rec_has(r, TBBT_F_DIR) && r->dir &&
                  tbbt_rec_has(r, TBBT_F_NAME) && !tbbt_dot_name(tbbt_rec_str(r, r->name), r->name.len);
    int moves = dirname && status == 0 &&
                (r->op == TBBT_OP_REMOVE || r->op == TBBT_OP_RMDIR || r->op == TBBT_OP_RENAME);
    if (moves) r = with_victims(p, r);
    if (r->op == TBBT_OP_READ && status == 0 && tbbt_rec_has(r, TBBT_F_OFFSET) && r->obj) {
        struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(p->m, r->obj);
        uint64_t end = r->offset + (tbbt_rec_has(r, TBBT_F_RCOUNT) ? r->rcount : 0);
        if (end > p3_obj(o)->read_end) p3_obj(o)->read_end = end;
    }
    if (r->flags & TBBT_RF_NAME_SYNTH) p->synth = 1;
    const struct tbbt_rec *v = listing_as_named(p, r); /* what the model learns; r goes on */
    size_t src1 = 0;
    if (moves && r->op == TBBT_OP_RENAME) {
        struct tbbt_fsdent *d = rec_dent(p, r, 0);
        src1 = d ? (size_t)(p3_dent(d)->ent & ~HAD_ENTRY) : 0;
    }
    /* a name made anew (not a create over a name that was there) */
    int make =
        dirname && status == 0 && ((f & TBBT_OPF_CREATES) || r->op == TBBT_OP_LINK) &&
        tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, NULL) != TBBT_NAME_PRESENT;
    tbbt_fsmodel_apply(p->m, v, status);
    note_refusal(p, r, status);
    if (!dirname || status == TBBT_NFSERR_STALE) return r;
    struct tbbt_fsdent *d = rec_dent(p, r, 0);
    int how = r->op == TBBT_OP_RENAME ? END_RENAMED : moves ? END_REMOVED : END_VANISHED;
    size_t made = d ? reconcile(p, d, p->now, make, how) : 0;
    /* a create whose reply the capture lost names no object: a later
     * lookup of the name may reveal it, and the player needs it */
    if (made && make && r->op != TBBT_OP_LINK && !tbbt_rec_has(r, TBBT_F_NEWOBJ) && !ent(p, made)->obj)
        p->pend_from = (uint32_t)made, p->pend_field = TBBT_F_NEWOBJ;
    if (moves && r->op == TBBT_OP_RENAME) after_rename(p, r, src1);
    return r;
}

/* Gives r to the sink; remembers a failure. */
static void emit(struct tbbt_pass3 *p, const struct tbbt_rec *r) {
    if (!p->failed && p->sink && p->sink(p->ctx, r) != 0) p->failed = 1;
}

/* The object a held rename waited for was never revealed: it gets an ID
 * of its own, bound at the end of its chain of renames (in the model too
 * when that name still names no known object), which fills the record. */
static void give_fresh(struct tbbt_pass3 *p, uint32_t idx1) {
    for (unsigned n = 0; ent(p, idx1)->next && n < MAX_DEPTH; n++)
        idx1 = ent(p, idx1)->next;
    struct p3ent *e = ent(p, idx1);
    if (e->obj) return; /* bound meanwhile through another path */
    tbbt_id id = fresh_id(p);
    const struct tbbt_fsdent *d = e->d;
    if (e->del == TBBT_HM_NEVER && d->state == TBBT_NAME_PRESENT && !d->obj)
        tbbt_fsmodel_learn_present(p->m, d->dir, d->name, d->len, id);
    bind_chain(p, idx1, id);
}

/* Does the held rename h (at seq) still wait for its object: fewer than
 * TBBT_P3_WINDOW records or TBBT_P3_WAIT_NS of trace time since it? */
static int still_waits(const struct tbbt_pass3 *p, const struct held *h, uint64_t seq) {
    return seq + TBBT_P3_WINDOW > p->st.records || p->now - h->r.call_time < TBBT_P3_WAIT_NS;
}

/* Gives the sink the held records that need wait no more: all of them
 * when force is set, else those before the first rename still waiting. */
static void flush(struct tbbt_pass3 *p, int force) {
    while (p->count) {
        struct held *h = &p->ring[p->head];
        if (h->target) {
            if (!force && still_waits(p, h, p->head_seq)) return;
            uint32_t target = h->target; /* give_fresh fills the record and clears it */
            if (h->field == TBBT_F_VICTIM) give_fresh(p, target); /* a create's object stays unnamed */
            tbbt_u64map_remove(&p->pend, target);
            h->target = 0;
        }
        emit(p, &h->r);
        p->head = (p->head + 1) & (p->cap - 1);
        p->head_seq++;
        p->count--;
    }
}

/* Doubles the ring of held records, keeping their order from slot 0: a
 * busy trace's records within TBBT_P3_WAIT_NS outnumber TBBT_P3_WINDOW.
 * The records move by value (none points into itself); the new slots are
 * zeroed, which is a record's initial state. */
static void grow(struct tbbt_pass3 *p) {
    struct held *ring = g_new0(struct held, 2 * (size_t)p->cap);
    for (uint32_t i = 0; i < p->cap; i++)
        ring[i] = p->ring[(p->head + i) & (p->cap - 1)];
    g_free(p->ring);
    p->ring = ring;
    p->head = 0;
    p->cap *= 2;
}

/* Holds a copy of r (seq = the record count before it); target: the
 * entry its victim waits for, 0 if none. */
static void hold(struct tbbt_pass3 *p, const struct tbbt_rec *r, uint32_t target) {
    if (!p->ring) p->ring = g_new0(struct held, p->cap = TBBT_P3_WINDOW);
    if (p->count == p->cap && p->cap < TBBT_P3_HELD_MAX) grow(p);
    if (p->count == p->cap) {
        p->st.wait_cut++;
        flush(p, 1);
    }
    if (!p->count) p->head_seq = p->st.records - 1;
    struct held *h = &p->ring[(p->head + p->count) & (p->cap - 1)];
    tbbt_rec_copy(&h->r, r);
    h->target = target;
    h->field = p->pend_field;
    if (target) tbbt_u64map_put(&p->pend, target, p->st.records);
    p->count++;
}

int tbbt_pass3_put(void *ctx, const struct tbbt_rec *r) {
    struct tbbt_pass3 *p = ctx;
    tbbt_memlimit_check("pass 3"); /* the --max-memory bound (memlimit.h) */
    p->st.records++;
    p->pend_from = 0;
    /* a record called before one already put (a hand-edited file; found by
     * fuzz/fuzz_pass3) counts as made at the latest call time: a path is
     * never deleted before it was created, which tbbt-init's reader refuses */
    if (r->call_time > p->now) p->now = r->call_time;
    /* a record the player does not send (an RPC error, a call the snaplen
     * cut before a name or handle pass 2 could not restore) changes
     * nothing on the server, and its missing name is no name; a cut one
     * that changes nothing still shows its object's attributes (pass 2
     * places a change it reveals after it) */
    if (tbbt_rec_replayable(r))
        r = apply(p, r);
    else if ((r->flags & TBBT_RF_ARGS_CUT) && r->status == 0 && r->op < TBBT_OP_COUNT &&
             !(tbbt_op_info(r->op)->flags & TBBT_OPF_MODIFIES))
        tbbt_fsmodel_learn_attrs(p->m, tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : r->obj, r);
    if (p->pend_from || p->count)
        hold(p, r, p->pend_from);
    else
        emit(p, r);
    flush(p, 0);
    return p->failed ? -1 : 0;
}

int tbbt_pass3_finish(struct tbbt_pass3 *p) {
    flush(p, 1);
    return p->failed ? -1 : 0;
}

/* ---- the map ---- */

/* Things the initial part of the map lists, besides entries. */
enum { IT_ENTRY, IT_ROOT, IT_TOP, IT_NAMELESS_DIR, IT_NAMELESS };

/* One line of the initial part, sorted by path. */
struct item {
    size_t off; /* path in the path arena */
    uint32_t len;
    uint8_t kind; /* IT_* */
    uint64_t ref; /* IT_ENTRY: entry index; else the object's ID */
};

/* State of one map writing. */
struct mapw {
    struct tbbt_pass3 *p;
    uint32_t *next_same;   /* per entry: index + 1 of the next entry of the same object */
    tbbt_id root;          /* the image root ("."), 0 if none */
    tbbt_id nameless;      /* the nameless placeholder's ID, 0 if none */
    GArray *tops;          /* tbbt_id: placeholder tops */
    GArray *nameless_objs; /* tbbt_id */
    GString *paths;        /* arena of the initial part's paths */
    GArray *items;         /* struct item */
    GPtrArray *parts;      /* scratch: path components */
    struct tbbt_hmapw *w;
};

/* The model's object for id (made if missing: fresh IDs are not in it). */
static struct tbbt_fsobj *mobj(struct mapw *mw, tbbt_id id) {
    return tbbt_fsmodel_obj_get(mw->p->m, id);
}

/* Entries of names the trace only read (lookups in listings, names that
 * were there and stayed): present at the end, initial, never entered. */
static void sweep_name(void *ctx, const struct tbbt_fsdent *cd) {
    struct tbbt_pass3 *p = ctx;
    if ((p3_dent(cd)->ent & HAD_ENTRY) || cd->state != TBBT_NAME_PRESENT) return;
    /* the pass owns the model: the entry, writable, from it */
    struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, cd->dir, cd->name, cd->len);
    struct p3ent n = {.obj = d->obj, .d = d, .create = 0, .del = TBBT_HM_NEVER};
    g_array_append_val(p->ents, n);
    p3_dent(d)->ent = HAD_ENTRY | p->ents->len;
}

/* Gives every entry an object: the one its rename chain reached, else an
 * ID of its own; chains the entries of each object and marks objects. */
static void settle_entries(struct mapw *mw) {
    struct tbbt_pass3 *p = mw->p;
    mw->next_same = g_new0(uint32_t, p->ents->len + 1);
    GHashTable *last = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (guint i = 0; i < p->ents->len; i++) {
        struct p3ent *e = &g_array_index(p->ents, struct p3ent, i);
        if (!e->obj) e->obj = e->prev && ent(p, e->prev)->obj ? ent(p, e->prev)->obj : fresh_id(p);
        struct tbbt_fsobj *o = mobj(mw, e->obj);
        if (e->create == 0 && (p3_obj(o)->marks & OM_INITIAL)) {
            p->st.hard_linked += !(p3_obj(o)->marks & OM_HL);
            p3_obj(o)->marks |= OM_HL;
        }
        p3_obj(o)->marks |= OM_ENTRY | (e->create == 0 ? OM_INITIAL : 0);
        if (!o->attr.type && e->type) o->attr.type = e->type;
        p3_obj(mobj(mw, e->d->dir))->marks |= OM_PARENT;
        gpointer prev = g_hash_table_lookup(last, &e->obj);
        if (prev)
            mw->next_same[GPOINTER_TO_UINT(prev) - 1] = i + 1;
        else
            p3_obj(o)->first_ent = i + 1; /* first entry of the object */
        g_hash_table_insert(last, &e->obj, GUINT_TO_POINTER(i + 1));
    }
    g_hash_table_destroy(last);
}

/* Adds id to the tops once. */
static void add_top(struct mapw *mw, tbbt_id id) {
    struct tbbt_fsobj *o = mobj(mw, id);
    if (p3_obj(o)->marks & OM_TOP) return;
    p3_obj(o)->marks |= OM_TOP;
    g_array_append_val(mw->tops, id);
}

/* The tops: directories whose own name the trace never shows, holding a
 * name (or an initial name when they have no initial one). */
static void find_tops(struct mapw *mw) {
    struct tbbt_pass3 *p = mw->p;
    for (guint i = 0; i < p->ents->len; i++) {
        const struct p3ent *e = &g_array_index(p->ents, struct p3ent, i);
        struct tbbt_fsobj *po = mobj(mw, e->d->dir);
        if (!(p3_obj(po)->marks & OM_ENTRY) || (e->create == 0 && !(p3_obj(po)->marks & OM_INITIAL)))
            add_top(mw, e->d->dir);
    }
    for (guint i = 0; i < p->roots->len; i++) {
        tbbt_id r = g_array_index(p->roots, tbbt_id, i);
        if (!(p3_obj(mobj(mw, r))->marks & OM_INITIAL)) add_top(mw, r);
    }
    unsigned roots = 0;
    for (guint i = 0; i < mw->tops->len; i++)
        for (guint k = 0; k < p->roots->len; k++)
            if (g_array_index(mw->tops, tbbt_id, i) == g_array_index(p->roots, tbbt_id, k)) {
                roots++;
                mw->root = g_array_index(mw->tops, tbbt_id, i);
            }
    if (roots != 1) mw->root = 0;
    p->st.root_known = mw->root != 0;
    p->st.subtrees = mw->tops->len;
}

/* Objects the trace used by handle that existed before it, had no name
 * then and hold nothing (foreach callback): never named in the trace, or
 * named only by names the trace made later (a link, a rename onto them:
 * the object was used before, so it was there). One that died nameless
 * (a later call found it stale) is there too when a reply showed it alive
 * first (its attributes): its calls until then need it. */
static void find_nameless(void *ctx, const struct tbbt_fsobj *o) {
    struct mapw *mw = ctx;
    if (!(o->flags & TBBT_FSO_INITIAL) || (o->flags & TBBT_FSO_CREATED)) return;
    if (p3_obj(o)->marks & (OM_INITIAL | OM_TOP | OM_PARENT) || o->id >= TBBT_P3_FRESH_BASE) return;
    if ((o->flags & TBBT_FSO_GONE) && !(p3_obj(o)->marks & OM_ENTRY) && !(o->flags & TBBT_FSO_ATTRS)) return;
    p3_obj(mobj(mw, o->id))->marks |= OM_NAMELESS; /* o, writable: the pass owns the model */
    g_array_append_val(mw->nameless_objs, o->id);
}

/* The entry of object id valid at time t: open at t, else the last one
 * made by t, else its first. NULL if it has none. */
static const struct p3ent *entry_at(struct mapw *mw, tbbt_id id, int64_t t) {
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(mw->p->m, id);
    if (!o || !(p3_obj(o)->marks & OM_ENTRY)) return NULL;
    const struct p3ent *best = NULL, *first = NULL;
    for (uint32_t i1 = (uint32_t)p3_obj(o)->first_ent; i1; i1 = mw->next_same[i1 - 1]) {
        const struct p3ent *e = ent(mw->p, i1);
        if (!first) first = e;
        if (e->create <= t && t < e->del) return e;
        if (e->create <= t) best = e;
    }
    return best ? best : first;
}

/* Appends the placeholder path of an object with no name: a top, a
 * nameless object, the nameless directory. Returns its components. */
static unsigned placeholder_path(struct mapw *mw, tbbt_id id, GString *out) {
    if (id == mw->nameless) {
        g_string_append(out, "tbbt-nameless");
        return 1;
    }
    if (p3_obj(mobj(mw, id))->marks & OM_NAMELESS) {
        g_string_append_printf(out, "tbbt-nameless/%llu", (unsigned long long)id);
        return 2;
    }
    g_string_append_printf(out, "tbbt-subtree-%llu", (unsigned long long)id);
    return 1;
}

/* Appends the path of object id at time t ("" for the image root), and
 * returns its depth in components. */
static unsigned path_at(struct mapw *mw, tbbt_id id, int64_t t, GString *out) {
    g_ptr_array_set_size(mw->parts, 0);
    tbbt_id top = 0;
    for (unsigned depth = 0; depth < MAX_DEPTH; depth++) {
        if (id == mw->root) break;
        const struct tbbt_fsobj *o = tbbt_fsmodel_obj(mw->p->m, id);
        const struct p3ent *e =
            o && (p3_obj(o)->marks & OM_TOP) && (t == 0 || !entry_at(mw, id, t)) ? NULL : entry_at(mw, id, t);
        if (e && o && (p3_obj(o)->marks & OM_NAMELESS) && e->create > t) e = NULL; /* before its first name */
        if (!e) {
            top = id;
            break;
        }
        g_ptr_array_add(mw->parts, tbbt_unconst(e));
        if (e->create > t) t = e->create;
        id = e->d->dir;
    }
    size_t start = out->len;
    unsigned n = top ? placeholder_path(mw, top, out) : 0;
    for (guint i = mw->parts->len; i-- > 0;) {
        const struct p3ent *e = mw->parts->pdata[i];
        if (out->len > start) g_string_append_c(out, '/');
        g_string_append_len(out, e->d->name, e->d->len);
        n++;
    }
    return n;
}

/* Appends the path of entry e (its directory's path when it was made,
 * then its name); returns its depth. */
static unsigned entry_path(struct mapw *mw, const struct p3ent *e, GString *out) {
    size_t start = out->len;
    unsigned n = path_at(mw, e->d->dir, e->create, out);
    if (out->len > start) g_string_append_c(out, '/');
    g_string_append_len(out, e->d->name, e->d->len);
    return n + 1;
}

/* Fills h's type, size, mode, uid, gid and target from object id: the
 * attributes before the trace changed them when initial. */
static void fill_attrs(struct mapw *mw, struct tbbt_hm_entry *h, tbbt_id id, int initial) {
    struct tbbt_pass3 *p = mw->p;
    const struct tbbt_fsobj *o = mobj(mw, id);
    const struct tbbt_fsattr *a = (o->flags & TBBT_FSO_INIT_ATTRS) ? &o->init
                                  : (o->flags & TBBT_FSO_ATTRS)    ? &o->attr
                                                                   : NULL;
    h->type = a && a->type ? a->type : o->attr.type ? o->attr.type : TBBT_FT_REG;
    if (h->type > TBBT_FT_FIFO) h->type = TBBT_FT_REG; /* no such type (a hand-edited record; fuzz_pass3) */
    if (p3_obj(o)->marks & (OM_PARENT | OM_TOP)) h->type = TBBT_FT_DIR; /* it holds names */
    h->known = 0;
    if (a) {
        h->mode = a->mode & 07777, h->uid = a->uid, h->gid = a->gid;
        h->known |= TBBT_HM_MODE | TBBT_HM_UID | TBBT_HM_GID;
    } else if (h->type == TBBT_FT_DIR && (p3_obj(o)->marks & (OM_REFUSED | OM_ALLOWED)) == OM_REFUSED) {
        /* it refused a user and let none: root's, closed to others (note_refusal) */
        h->mode = p3_obj(o)->marks & OM_REFUSED_SEARCH ? 0700 : 0755, h->uid = 0, h->gid = 0;
        h->known |= TBBT_HM_MODE | TBBT_HM_UID | TBBT_HM_GID;
    }
    if (initial && (o->flags & TBBT_FSO_INIT_ATTRS)) {
        h->size = o->init.size;
        h->known |= TBBT_HM_SIZE;
    } else if (initial && p3_obj(o)->read_end) {
        h->size = p3_obj(o)->read_end;
        h->known |= TBBT_HM_SIZE;
        if (h->type == TBBT_FT_REG) p->st.size_from_reads++;
    } else if (initial && h->type == TBBT_FT_REG) {
        p->st.size_unknown++;
    }
    h->target = o->target;
}

/* Counts an initial line into the stats. */
static void count_initial(struct tbbt_pass3_stats *s, const struct tbbt_hm_entry *h, unsigned depth) {
    s->initial++;
    if (depth > s->max_depth) s->max_depth = depth;
    switch (h->type) {
    case TBBT_FT_DIR: s->initial_dirs++; break;
    case TBBT_FT_REG:
        s->initial_files++;
        if (h->known & TBBT_HM_SIZE) s->initial_bytes += h->size;
        break;
    case TBBT_FT_LNK: s->initial_symlinks++; break;
    default: s->initial_other++;
    }
}

/* Writes one line and marks its object written. Returns 0 or -1. */
static int put_line(struct mapw *mw, struct tbbt_hm_entry *h) {
    p3_obj(mobj(mw, h->id))->marks |= OM_EMITTED;
    mw->p->st.entries++;
    return tbbt_hmapw_put(mw->w, h);
}

/* Adds one line of the initial part: its path goes to the arena. */
static void add_item(struct mapw *mw, uint8_t kind, uint64_t ref, const char *path) {
    struct item it = {.off = mw->paths->len, .kind = kind, .ref = ref};
    if (path) {
        g_string_append(mw->paths, path);
    } else if (kind == IT_ENTRY) {
        entry_path(mw, &g_array_index(mw->p->ents, struct p3ent, ref), mw->paths);
    } else {
        placeholder_path(mw, ref, mw->paths);
    }
    it.len = (uint32_t)(mw->paths->len - it.off);
    g_array_append_val(mw->items, it);
}

static GString *sort_paths; /* qsort has no context argument */

/* Orders items by path bytes: a parent's path is a prefix of its
 * children's, so parents come first. */
static int item_cmp(const void *a, const void *b) {
    const struct item *x = a, *y = b;
    uint32_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(sort_paths->str + x->off, sort_paths->str + y->off, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* Counts the components of a path. */
static unsigned depth_of(const char *s, size_t len) {
    unsigned n = len > 0;
    for (size_t i = 0; i < len; i++)
        n += s[i] == '/';
    return n;
}

/* Writes the initial image: the root, the placeholders, the nameless
 * objects and every entry made at 0, parents before children. */
static int write_initial(struct mapw *mw) {
    struct tbbt_pass3 *p = mw->p;
    struct tbbt_hm_entry h;
    if (mw->root) {
        h = (struct tbbt_hm_entry){.id = mw->root, .del = TBBT_HM_NEVER, .origin = TBBT_HM_ROOT, .path = "."};
        fill_attrs(mw, &h, mw->root, 1);
        count_initial(&p->st, &h, 0);
        if (put_line(mw, &h) < 0) return -1;
    }
    for (guint i = 0; i < mw->tops->len; i++)
        if (g_array_index(mw->tops, tbbt_id, i) != mw->root)
            add_item(mw, IT_TOP, g_array_index(mw->tops, tbbt_id, i), NULL);
    if (mw->nameless_objs->len) {
        mw->nameless = fresh_id(p);
        add_item(mw, IT_NAMELESS_DIR, mw->nameless, NULL);
        for (guint i = 0; i < mw->nameless_objs->len; i++)
            add_item(mw, IT_NAMELESS, g_array_index(mw->nameless_objs, tbbt_id, i), NULL);
        p->st.nameless = mw->nameless_objs->len;
    }
    for (guint i = 0; i < p->ents->len; i++)
        if (g_array_index(p->ents, struct p3ent, i).create == 0) add_item(mw, IT_ENTRY, i, NULL);
    sort_paths = mw->paths;
    if (mw->items->len > 1) qsort(mw->items->data, mw->items->len, sizeof(struct item), item_cmp);
    GString *path = g_string_new(NULL);
    int rc = 0;
    for (guint i = 0; i < mw->items->len && rc == 0; i++) {
        const struct item *it = &g_array_index(mw->items, struct item, i);
        g_string_assign(path, "");
        g_string_append_len(path, mw->paths->str + it->off, it->len);
        h = (struct tbbt_hm_entry){.del = TBBT_HM_NEVER, .origin = TBBT_HM_PLACEHOLDER, .path = path->str};
        if (it->kind == IT_ENTRY) {
            const struct p3ent *e = &g_array_index(p->ents, struct p3ent, it->ref);
            /* a parent's path sorts before its children's, so a directory not
             * written by now never will be: a cycle (a listing that shows a
             * directory's ancestor inside it; found by fuzz/fuzz_pass3). Left
             * out, as the later entries of a directory never placed are. */
            if (!(p3_obj(mobj(mw, e->d->dir))->marks & OM_EMITTED)) {
                p->st.unplaced++;
                continue;
            }
            h.id = e->obj, h.parent = e->d->dir, h.del = e->del, h.origin = TBBT_HM_TRACE;
        } else {
            h.id = it->ref;
            h.parent = it->kind == IT_NAMELESS ? mw->nameless : mw->root;
            if (it->kind == IT_NAMELESS_DIR) h.origin = TBBT_HM_ORPHANS;
            if (it->kind == IT_NAMELESS) h.origin = TBBT_HM_TRACE;
        }
        fill_attrs(mw, &h, h.id, 1);
        if (it->kind == IT_NAMELESS_DIR) h.type = TBBT_FT_DIR, h.known = 0, h.target = NULL;
        count_initial(&p->st, &h, depth_of(path->str, path->len));
        rc = put_line(mw, &h);
    }
    g_string_free(path, TRUE);
    return rc;
}

/* Orders entry indices by create time, then by index (record order). */
static GArray *sort_ents;
static int created_cmp(const void *a, const void *b) {
    const struct p3ent *x = &g_array_index(sort_ents, struct p3ent, *(const guint *)a);
    const struct p3ent *y = &g_array_index(sort_ents, struct p3ent, *(const guint *)b);
    if (x->create != y->create) return x->create < y->create ? -1 : 1;
    return (*(const guint *)a > *(const guint *)b) - (*(const guint *)a < *(const guint *)b);
}

/* Writes entry i made during the trace. */
static int write_created(struct mapw *mw, guint i, GString *path) {
    const struct p3ent *e = &g_array_index(mw->p->ents, struct p3ent, i);
    g_string_truncate(path, 0);
    entry_path(mw, e, path);
    struct tbbt_hm_entry h = {.id = e->obj,
                              .parent = e->d->dir,
                              .create = e->create,
                              .del = e->del,
                              .origin = TBBT_HM_TRACE,
                              .path = path->str};
    fill_attrs(mw, &h, e->obj, 0);
    mw->p->st.created++;
    return put_line(mw, &h);
}

/* Writes the entries made during the trace in time order; an entry whose
 * directory has no line yet waits for it. */
static int write_later(struct mapw *mw) {
    struct tbbt_pass3 *p = mw->p;
    GArray *order = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint i = 0; i < p->ents->len; i++)
        if (g_array_index(p->ents, struct p3ent, i).create != 0) g_array_append_val(order, i);
    sort_ents = p->ents;
    if (order->len > 1) qsort(order->data, order->len, sizeof(guint), created_cmp);
    GHashTable *waiting =
        g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, (GDestroyNotify)g_array_unref);
    GArray *ready = g_array_new(FALSE, FALSE, sizeof(guint));
    GString *path = g_string_new(NULL);
    int rc = 0;
    for (guint k = 0; k < order->len && rc == 0; k++) {
        g_array_append_val(ready, g_array_index(order, guint, k));
        while (ready->len && rc == 0) {
            guint i = g_array_index(ready, guint, ready->len - 1);
            g_array_set_size(ready, ready->len - 1);
            struct p3ent *e = &g_array_index(p->ents, struct p3ent, i);
            if (!(p3_obj(mobj(mw, e->d->dir))->marks & OM_EMITTED)) {
                GArray *w = g_hash_table_lookup(waiting, &e->d->dir);
                if (!w)
                    g_hash_table_insert(waiting, tbbt_unconst(&e->d->dir),
                                        w = g_array_new(FALSE, FALSE, sizeof(guint)));
                g_array_append_val(w, i);
                continue;
            }
            rc = write_created(mw, i, path);
            GArray *w = g_hash_table_lookup(waiting, &e->obj);
            if (w) {
                for (guint j = w->len; j-- > 0;)
                    g_array_append_val(ready, g_array_index(w, guint, j));
                g_hash_table_remove(waiting, &e->obj);
            }
        }
    }
    GHashTableIter it;
    gpointer key, val;
    g_hash_table_iter_init(&it, waiting);
    while (g_hash_table_iter_next(&it, &key, &val))
        p->st.unplaced += ((GArray *)val)->len;
    g_hash_table_destroy(waiting);
    g_array_free(ready, TRUE);
    g_array_free(order, TRUE);
    g_string_free(path, TRUE);
    return rc;
}

/* Counts deletions and renames over all entries. */
static void count_ends(struct tbbt_pass3 *p) {
    for (guint i = 0; i < p->ents->len; i++) {
        const struct p3ent *e = &g_array_index(p->ents, struct p3ent, i);
        if (e->del != TBBT_HM_NEVER) p->st.deleted++;
        if (e->end == END_RENAMED) p->st.renamed++;
    }
}

int tbbt_pass3_write_map(struct tbbt_pass3 *p, const char *path, const char *comment, char *err,
                         size_t errlen) {
    struct mapw mw = {.p = p};
    tbbt_pass3_finish(p);
    tbbt_fsmodel_foreach_initial_name(p->m, sweep_name, p);
    settle_entries(&mw);
    mw.tops = g_array_new(FALSE, FALSE, sizeof(tbbt_id));
    mw.nameless_objs = g_array_new(FALSE, FALSE, sizeof(tbbt_id));
    find_tops(&mw);
    tbbt_fsmodel_foreach_obj(p->m, find_nameless, &mw);
    mw.paths = g_string_new(NULL);
    mw.items = g_array_new(FALSE, FALSE, sizeof(struct item));
    mw.parts = g_ptr_array_new();
    count_ends(p);
    int rc = -1;
    mw.w = tbbt_hmapw_open(path, comment, err, errlen);
    if (mw.w && write_initial(&mw) == 0 && write_later(&mw) == 0) {
        rc = tbbt_hmapw_close(mw.w, err, errlen);
    } else if (mw.w) {
        tbbt_hmapw_close(mw.w, err, errlen); /* says why; removes the file */
        rc = -1;
    }
    g_free(mw.next_same);
    g_array_free(mw.tops, TRUE);
    g_array_free(mw.nameless_objs, TRUE);
    g_string_free(mw.paths, TRUE);
    g_array_free(mw.items, TRUE);
    g_ptr_array_free(mw.parts, TRUE);
    return rc;
}

const struct tbbt_pass3_stats *tbbt_pass3_stats(const struct tbbt_pass3 *p) {
    return &p->st;
}

void tbbt_pass3_report(const struct tbbt_pass3 *p, FILE *out) {
    const struct tbbt_pass3_stats *s = &p->st;
    fprintf(out,
            "Map: %llu entries; initial image %llu (%llu dirs, %llu files, %llu symlinks, %llu other; "
            "%.1f MB in files, max depth %llu)\n",
            (unsigned long long)s->entries, (unsigned long long)s->initial,
            (unsigned long long)s->initial_dirs, (unsigned long long)s->initial_files,
            (unsigned long long)s->initial_symlinks, (unsigned long long)s->initial_other,
            s->initial_bytes / 1e6, (unsigned long long)s->max_depth);
    fprintf(out,
            "Map: %llu paths made and %llu removed during the trace (%llu by rename); %llu objects "
            "hard-linked at the start\n",
            (unsigned long long)s->created, (unsigned long long)s->deleted, (unsigned long long)s->renamed,
            (unsigned long long)s->hard_linked);
    fprintf(out,
            "Map: %llu disjoint subtrees (export root %s), %llu nameless objects; sizes: %llu files by the "
            "largest read, %llu unknown; %llu IDs given, %llu records given victim IDs, %llu lost creates "
            "given their object",
            (unsigned long long)s->subtrees, s->root_known ? "from MOUNT" : "not in the capture",
            (unsigned long long)s->nameless, (unsigned long long)s->size_from_reads,
            (unsigned long long)s->size_unknown, (unsigned long long)s->fresh_ids,
            (unsigned long long)s->victims, (unsigned long long)s->newobjs);
    if (s->unplaced)
        fprintf(out, "; %llu paths left out (directory never placed)", (unsigned long long)s->unplaced);
    if (s->wait_cut)
        fprintf(out, "; renames' wait for their object cut short %llu times (%u records held)",
                (unsigned long long)s->wait_cut, TBBT_P3_HELD_MAX);
    fputc('\n', out);
}

void tbbt_pass3_report_json(const struct tbbt_pass3 *p, GString *o) {
    const struct tbbt_pass3_stats *s = &p->st;
    g_string_append_printf(
        o,
        "{\"entries\":%llu,\"initial\":%llu,\"initial_dirs\":%llu,\"initial_files\":%llu,"
        "\"initial_symlinks\":%llu,\"initial_other\":%llu,\"initial_bytes\":%llu,\"max_depth\":%llu,"
        "\"created\":%llu,\"deleted\":%llu,\"renamed\":%llu,\"hard_linked\":%llu,\"subtrees\":%llu,"
        "\"root_known\":%s,\"nameless\":%llu,\"size_from_reads\":%llu,\"size_unknown\":%llu,"
        "\"fresh_ids\":%llu,\"victims\":%llu,\"newobjs\":%llu,\"unplaced\":%llu,\"wait_cut\":%llu}",
        (unsigned long long)s->entries, (unsigned long long)s->initial, (unsigned long long)s->initial_dirs,
        (unsigned long long)s->initial_files, (unsigned long long)s->initial_symlinks,
        (unsigned long long)s->initial_other, (unsigned long long)s->initial_bytes,
        (unsigned long long)s->max_depth, (unsigned long long)s->created, (unsigned long long)s->deleted,
        (unsigned long long)s->renamed, (unsigned long long)s->hard_linked, (unsigned long long)s->subtrees,
        s->root_known ? "true" : "false", (unsigned long long)s->nameless,
        (unsigned long long)s->size_from_reads, (unsigned long long)s->size_unknown,
        (unsigned long long)s->fresh_ids, (unsigned long long)s->victims, (unsigned long long)s->newobjs,
        (unsigned long long)s->unplaced, (unsigned long long)s->wait_cut);
}

void tbbt_pass3_free(struct tbbt_pass3 *p) {
    if (!p) return;
    tbbt_fsmodel_free(p->m);
    g_array_free(p->ents, TRUE);
    g_array_free(p->roots, TRUE);
    tbbt_u64map_clear(&p->pend);
    tbbt_rec_free(&p->scratch);
    tbbt_rec_free(&p->listing);
    for (uint32_t i = 0; p->ring && i < p->cap; i++)
        tbbt_rec_free(&p->ring[i].r);
    g_free(p->ring);
    g_free(p);
}
