/* pass2.c -- the pre-play of pass 2: prediction, correction, insertion in
 * order with seeded times, lost-reply resolution (see pass2.h). */
#include "pass2.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

/* A corrective record waiting for its place: it goes out just before the
 * held record with sequence number before_seq. */
struct ins {
    struct tbbt_rec r;
    uint64_t before_seq;
    uint64_t order; /* insertion order, breaks ties */
};

/* Key of a name a plain readdir listed without its object: (directory,
 * the entry's fileid). */
struct listed_key {
    tbbt_id dir;
    uint64_t fileid;
};

/* GHashTable hash of a struct listed_key. */
static guint listed_hash(gconstpointer k) {
    const struct listed_key *x = k;
    return g_int64_hash(&x->dir) * 31u ^ g_int64_hash(&x->fileid);
}

/* GHashTable equality of two struct listed_key. */
static gboolean listed_eq(gconstpointer a, gconstpointer b) {
    const struct listed_key *x = a, *y = b;
    return x->dir == y->dir && x->fileid == y->fileid;
}

/* A held rename the snaplen cut after its source directory: its target
 * (and maybe its source name) is not known yet (hold_move). */
struct move {
    uint64_t seq; /* the held rename (or link) */
    tbbt_id dir;  /* its source directory (a link: 0) */
    tbbt_id obj;  /* the object its source named (its name known), or 0 (its name cut) */
    int link;     /* a link whose directory the snaplen cut: the object keeps its names */
    int placed;   /* the record went whole to a guessed place (place_held), until a record shows another */
};

/* A name a held cut remove or rmdir may have removed (struct rmcut). */
struct rmcand {
    char *name; /* owned, NUL-terminated */
    size_t len;
    tbbt_id obj; /* the object the model held under it (0: not known) */
    int used;    /* a later record named that object */
    int left;    /* not ruled out yet */
    int remade;  /* a later record made the name again: a use of it is no proof */
};

/* A held successful remove or rmdir whose name the snaplen cut: the
 * names of its directory it may have removed, until later records tell
 * which (hold_remove). */
struct rmcut {
    uint64_t seq; /* the held record */
    tbbt_id dir;
    GArray *cands; /* struct rmcand */
    int picked;    /* a later record showed that the one left is gone */
};

/* A placed cut rename or link (struct move) a held cut removal may have
 * taken the target of (struct rmbind), and what later records said. */
struct bindcand {
    uint64_t mvseq;  /* the held rename or link */
    tbbt_id obj;     /* its object */
    uint32_t nlink0; /* the object's link count when the removal was held (0: not known) */
    int says;        /* 1 a later record showed it lost a name, -1 that it did not, 0 nothing yet */
};

/* A held successful remove, rmdir or rename whose cut name no name of its
 * directory agrees with, where several placed cut renames or links may
 * have made it (bind_to_move): later records tell which (bind_evidence). */
struct rmbind {
    uint64_t seq;   /* the held record */
    int whole;      /* its name is whole: the move takes that name, the record stays as it is */
    int incomplete; /* a candidate left with nothing said of it: only a sign names one */
    GArray *cands;  /* struct bindcand */
};

/* Frees a held binding. */
static void rmbind_free(struct rmbind *b) {
    g_array_free(b->cands, TRUE);
    g_free(b);
}

/* Frees a held cut removal. */
static void rmcut_free(struct rmcut *c) {
    for (guint i = 0; i < c->cands->len; i++)
        g_free(g_array_index(c->cands, struct rmcand, i).name);
    g_array_free(c->cands, TRUE);
    g_free(c);
}

/* A lost chmod, chown or truncate a reply revealed, waiting until every
 * record that could have explained it has been met (settle_attrs): a
 * call made before that reply came (another client's setattr the server
 * ran first) shows the same thing. */
struct attrfix {
    uint64_t seq;        /* the record whose reply showed the change */
    int row;             /* its rule */
    int64_t reply_time;  /* when that reply came */
    uint64_t lo_seq;     /* the last record that showed the old values (0: none held) */
    int64_t lo_time;     /* its reply time */
    struct tbbt_rec set; /* the object (obj) and the new values (mode, uid, gid, size) */
};

/* Records pass 2 reads ahead of the one it pre-plays, at most: the calls
 * made before that record's reply came (another client's call the server
 * may have run first, explained_later). */
#define LOOKAHEAD 64

/* Predictions of a held record made before an overlapping earlier call
 * of another client was applied (note_alternatives): what the record
 * would get had the server run it first. */
#define ALT_MAX 4
struct alt {
    uint64_t q[ALT_MAX]; /* the earlier records */
    uint8_t oc[ALT_MAX]; /* enum tbbt_oc predicted before each */
    uint8_t n;
};

/* A record the server ran after a later call (explained_later): the
 * model applies it once that call has been pre-played. */
struct deferral {
    uint64_t after; /* the later record */
    struct tbbt_rec r;
};

/* A record that goes out beside another than its neighbours in call
 * order: two overlapping calls of two clients the server ran in the
 * other order (concurrent), which a replay, sending in the records'
 * order, must run so too (reorder). */
struct reorder {
    uint64_t seq;          /* the record moved */
    uint64_t anchor;       /* it goes out just before this held record, or just after */
    int after;             /* 1: after the anchor */
    int gone;              /* before: sent already (its own turn passes) */
    int stashed;           /* after: its copy waits in stash for the anchor */
    struct tbbt_rec stash; /* after: the copy */
};

/* Frees a waiting change. */
static void attrfix_free(struct attrfix *f) {
    tbbt_rec_free(&f->set);
    g_free(f);
}

/* Frees a record moved out of call order. */
static void reorder_free(struct reorder *o) {
    tbbt_rec_free(&o->stash);
    g_free(o);
}

struct tbbt_pass2 {
    struct tbbt_pass2_opts o;
    tbbt_p2_sink sink;
    void *ctx;
    struct tbbt_fsmodel *m;
    GRand *rng;
    struct tbbt_rec *ring; /* held records; seq s lives in ring[s % cap] */
    struct alt *alts;      /* per ring slot: its predictions under another order */
    GPtrArray *deferred;   /* struct deferral *: records applied after a later call */
    uint32_t cap;
    uint64_t head_seq;  /* oldest held record */
    uint64_t next_seq;  /* sequence number of the next record put (from 1) */
    uint64_t played;    /* last record pre-played (one behind the last put) */
    GPtrArray *pending; /* struct ins *, sorted by (before_seq, call_time, order) */
    uint64_t ins_order;
    uint64_t unbound_makes; /* inserted makes with no object yet, maybe still pending (mend_made) */
    uint64_t unbound_lost;  /* lost makes resolved without their object, maybe still held (resolve_name) */
    int64_t last_out_time;  /* call time of the last record given to the sink */
    int have_out;
    int failed;
    /* the correction being built */
    GPtrArray *group; /* struct ins * */
    int64_t group_lo;
    uint64_t group_after;
    int group_rule;
    struct tbbt_rec scratch;
    struct tbbt_rec look;     /* a listed name, as the lookup that would have shown it */
    GHashTable *by_fileid;    /* fileid -> TBBT-ID, of objects whose attributes a reply showed */
    GHashTable *listed_names; /* struct listed_key -> the model's entry: plain readdir (remember_listed) */
    struct tbbt_rec filtered; /* a listing without the entries of synthetically named objects */
    struct tbbt_rec unshown;  /* a record without attributes that may predate a change (stale_attrs) */
    struct tbbt_rec cut_undo; /* a cut record before a guess the model refutes (restore_failed) */
    struct tbbt_rec unmade;   /* a listing without names an overlapping later call made (made_later) */
    struct tbbt_rec early;    /* a make under a name of its own, before its object's first use
                                 (make_early_elsewhere) */
    int synth_seen;           /* a synthetic name was given or met (listing_as_named, rename_to_alias) */
    GHashTable *aliases;      /* "dir/name" -> the synthetic name the replay knows it by (learn_alias) */
    GHashTable *cut_infos;    /* "dir/name" -> struct tbbt_cut_info: what the capture kept of the real
                                 name of an object named synthetically (note_cut_info) */
    GArray *moves;            /* struct move: held cut renames whose target is not known (hold_move) */
    GPtrArray *rmcuts;        /* struct rmcut *: held cut removes whose name is not known (hold_remove) */
    GPtrArray *rm_ghosts;     /* struct rmcut *: cut removals gone out unnamed (rm_drop) */
    GPtrArray *rmbinds;       /* struct rmbind *: cut removals waiting for the move they undo */
    GHashTable *rm_tainted;   /* directories of ghosts forgotten: names there may be gone */
    GPtrArray *attrfixes;     /* struct attrfix *: revealed changes waiting to be placed (settle_attrs) */
    GPtrArray *reorders;      /* struct reorder *: records going out out of call order (reorder) */
    struct tbbt_pass2_stats st;
    GString *listed; /* unexplained failures, text */
    uint32_t nlisted;
};

/* Contract in pass2.h. */
void tbbt_pass2_opts_default(struct tbbt_pass2_opts *o) {
    memset(o, 0, sizeof(*o));
    o->seed = 1;
    o->window = 4096;
    o->max_listed = 50;
}

/* Contract in pass2.h. */
struct tbbt_pass2 *tbbt_pass2_new(const struct tbbt_pass2_opts *o, tbbt_p2_sink sink, void *ctx) {
    struct tbbt_pass2 *p = g_new0(struct tbbt_pass2, 1);
    if (o)
        p->o = *o;
    else
        tbbt_pass2_opts_default(&p->o);
    p->sink = sink;
    p->ctx = ctx;
    p->m = tbbt_pass2_model_new();
    p->rng = g_rand_new_with_seed((guint32)(p->o.seed ^ (p->o.seed >> 32)));
    /* the window, the record being pre-played, the ones read ahead */
    p->cap = p->o.window + 2 + LOOKAHEAD;
    p->ring = g_new0(struct tbbt_rec, p->cap);
    p->alts = g_new0(struct alt, p->cap);
    p->deferred = g_ptr_array_new();
    for (uint32_t i = 0; i < p->cap; i++)
        tbbt_rec_init(&p->ring[i]);
    p->head_seq = p->next_seq = 1;
    p->pending = g_ptr_array_new();
    p->group = g_ptr_array_new();
    tbbt_rec_init(&p->scratch);
    tbbt_rec_init(&p->look);
    p->by_fileid = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    p->listed_names = g_hash_table_new_full(listed_hash, listed_eq, g_free, NULL);
    tbbt_rec_init(&p->filtered);
    tbbt_rec_init(&p->unshown);
    tbbt_rec_init(&p->cut_undo);
    tbbt_rec_init(&p->unmade);
    tbbt_rec_init(&p->early);
    p->aliases = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    p->cut_infos = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    p->moves = g_array_new(FALSE, FALSE, sizeof(struct move));
    p->rmcuts = g_ptr_array_new_with_free_func((GDestroyNotify)rmcut_free);
    p->rm_ghosts = g_ptr_array_new_with_free_func((GDestroyNotify)rmcut_free);
    p->rmbinds = g_ptr_array_new_with_free_func((GDestroyNotify)rmbind_free);
    p->rm_tainted = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    p->attrfixes = g_ptr_array_new();
    p->reorders = g_ptr_array_new();
    p->listed = g_string_new(NULL);
    G_STATIC_ASSERT(G_N_ELEMENTS(p->st.rule_failures) >= 32);
    g_assert(tbbt_nrules <= G_N_ELEMENTS(p->st.rule_failures));
    return p;
}

/* Frees one waiting corrective record. */
static void ins_free(struct ins *x) {
    tbbt_rec_free(&x->r);
    g_free(x);
}

/* Contract in pass2.h. */
void tbbt_pass2_free(struct tbbt_pass2 *p) {
    if (!p) return;
    for (uint32_t i = 0; i < p->cap; i++)
        tbbt_rec_free(&p->ring[i]);
    g_free(p->ring);
    g_free(p->alts);
    for (guint i = 0; i < p->deferred->len; i++) {
        struct deferral *d = p->deferred->pdata[i];
        tbbt_rec_free(&d->r);
        g_free(d);
    }
    g_ptr_array_free(p->deferred, TRUE);
    for (guint i = 0; i < p->pending->len; i++)
        ins_free(p->pending->pdata[i]);
    for (guint i = 0; i < p->group->len; i++)
        ins_free(p->group->pdata[i]);
    g_ptr_array_free(p->pending, TRUE);
    g_ptr_array_free(p->group, TRUE);
    tbbt_rec_free(&p->scratch);
    tbbt_rec_free(&p->look);
    g_hash_table_destroy(p->by_fileid);
    g_hash_table_destroy(p->listed_names);
    tbbt_rec_free(&p->filtered);
    tbbt_rec_free(&p->unshown);
    tbbt_rec_free(&p->cut_undo);
    tbbt_rec_free(&p->unmade);
    tbbt_rec_free(&p->early);
    g_hash_table_destroy(p->aliases);
    g_hash_table_destroy(p->cut_infos);
    g_array_free(p->moves, TRUE);
    g_ptr_array_free(p->rmcuts, TRUE);
    g_ptr_array_free(p->rm_ghosts, TRUE);
    g_ptr_array_free(p->rmbinds, TRUE);
    g_hash_table_destroy(p->rm_tainted);
    for (guint i = 0; i < p->attrfixes->len; i++)
        attrfix_free(p->attrfixes->pdata[i]);
    g_ptr_array_free(p->attrfixes, TRUE);
    for (guint i = 0; i < p->reorders->len; i++)
        reorder_free(p->reorders->pdata[i]);
    g_ptr_array_free(p->reorders, TRUE);
    tbbt_fsmodel_free(p->m);
    g_rand_free(p->rng);
    g_string_free(p->listed, TRUE);
    g_free(p);
}

/* Gives one record to the sink. */
static void out_rec(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    p->st.records_out++;
    p->last_out_time = r->call_time;
    p->have_out = 1;
    if (!p->failed && p->sink && p->sink(p->ctx, r) != 0) p->failed = 1;
}

/* The held record seq goes out: a cut rename or link of it that no record
 * resolved (resolve_move) no longer can; one placed by a guess
 * (place_held) stays there. */
static void drop_move(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (r->op != TBBT_OP_RENAME && r->op != TBBT_OP_LINK) return;
    for (guint i = 0; i < p->moves->len; i++) {
        struct move mv = g_array_index(p->moves, struct move, i);
        if (mv.seq != seq) continue;
        g_array_remove_index(p->moves, i--);
    }
}

static void rm_window_end(struct tbbt_pass2 *p, uint64_t seq);
static void bind_window_end(struct tbbt_pass2 *p, uint64_t seq);
static void out_moved_before(struct tbbt_pass2 *p, uint64_t seq);
static int hold_moved(struct tbbt_pass2 *p, uint64_t seq);
static void out_moved_after(struct tbbt_pass2 *p, uint64_t seq);
static void settle_lost_lookup(struct tbbt_pass2 *p, struct tbbt_rec *r);

/* Gives the oldest held record to the sink, after the corrective records
 * that go before it -- and the records that go out beside it out of
 * call order (reorder) -- unless it goes out elsewhere. */
static void out_oldest(struct tbbt_pass2 *p) {
    uint64_t s = p->head_seq;
    guint k = 0;
    while (k < p->pending->len && ((struct ins *)p->pending->pdata[k])->before_seq <= s) {
        out_rec(p, &((struct ins *)p->pending->pdata[k])->r);
        k++;
    }
    for (guint i = 0; i < k; i++)
        ins_free(p->pending->pdata[i]);
    if (k) g_ptr_array_remove_range(p->pending, 0, k);
    if (p->reorders->len) out_moved_before(p, s);
    if (p->rmbinds->len) bind_window_end(p, s);
    drop_move(p, &p->ring[s % p->cap], s);
    if (p->rmcuts->len) rm_window_end(p, s);
    settle_lost_lookup(p, &p->ring[s % p->cap]);
    if (!p->reorders->len || !hold_moved(p, s)) out_rec(p, &p->ring[s % p->cap]);
    if (p->reorders->len) out_moved_after(p, s);
    p->head_seq++;
}

/* Time a record last touched an object: its reply when there was one. */
static int64_t touch_time(const struct tbbt_rec *r) {
    return (r->flags & TBBT_RF_REPLY_LOST) || r->reply_time < r->call_time ? r->call_time : r->reply_time;
}

/* Marks object id as touched at time t by record seq. */
static struct tbbt_fsobj *touch(struct tbbt_pass2 *p, tbbt_id id, int64_t t, uint64_t seq) {
    if (!id) return NULL;
    struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(p->m, id);
    if (t > tbbt_pass2_obj(o)->last_time) tbbt_pass2_obj(o)->last_time = t;
    if (seq > tbbt_pass2_obj(o)->last_seq) tbbt_pass2_obj(o)->last_seq = seq;
    if (!tbbt_pass2_obj(o)->first_seq) tbbt_pass2_obj(o)->first_seq = seq;
    return o;
}

/* The objects a record names: handle, directories, new object, and the
 * object (dir, name) holds now. */
static void record_objects(const struct tbbt_fsmodel *m, const struct tbbt_rec *r, tbbt_id ids[5]) {
    ids[0] = tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0;
    ids[1] = tbbt_rec_has(r, TBBT_F_DIR) ? r->dir : 0;
    ids[2] = tbbt_rec_has(r, TBBT_F_DIR2) ? r->dir2 : 0;
    ids[3] = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0;
    ids[4] = 0;
    if (ids[1] && tbbt_rec_has(r, TBBT_F_NAME))
        tbbt_fsmodel_name(m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &ids[4]);
}

/* Whether a lost reply waits at some name for a record that shows it:
 * its outcome (lost_unresolved) or the object it made (unbound_lost). */
static int names_await(const struct tbbt_pass2 *p) {
    return p->st.lost_unresolved || p->unbound_lost;
}

/* Nothing waits at (dir, name) any more (forget_lost). */
static void forget_at(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len) {
    struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, dir, name, len);
    if (d) tbbt_pass2_dent(d)->lost_seq = 0;
}

/* A record other than the lost one changed (dir, name), or a rename's
 * (dir2, name2): a lost reply waiting there can no longer be resolved by
 * a later lookup (after a rename onto a lost create's name, the lookup
 * shows the renamed object, not the one the create made). */
static void forget_lost(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (tbbt_rec_has(r, TBBT_F_NAME) && tbbt_rec_has(r, TBBT_F_DIR))
        forget_at(p, r->dir, tbbt_rec_str(r, r->name), r->name.len);
    if (tbbt_rec_has(r, TBBT_F_NAME2) && tbbt_rec_has(r, TBBT_F_DIR2))
        forget_at(p, r->dir2, tbbt_rec_str(r, r->name2), r->name2.len);
}

/* Flags mkdir x -- a corrective one, or one whose reply was lost and
 * whose object a later record just showed -- TBBT_RF_MADE_EMPTY when no
 * record taught a name in its directory as there before the trace: then
 * every name in it was made since, and the model (this pass and every
 * later one, which meet the mkdir before those records) judges a name it
 * never met there as a lost create, not as one pass 3 should place in a
 * directory that did not exist at the start. */
static void mark_made_empty(const struct tbbt_fsmodel *m, struct tbbt_rec *x) {
    if (x->op == TBBT_OP_MKDIR && tbbt_rec_has(x, TBBT_F_NEWOBJ) && x->newobj &&
        tbbt_fsmodel_may_begin_empty(m, x->newobj))
        x->flags |= TBBT_RF_MADE_EMPTY;
}

/* Is x a make (create, mkdir, symlink, mknod) that does not say the
 * object it makes? Inserted for a name a plain readdir listed before any
 * reply showed the object (make_listed), or a traced one whose reply was
 * lost: a later record that shows the object gives it (mend_made,
 * resolve_name). */
static int unbound_make(const struct tbbt_rec *x) {
    return x->op < TBBT_OP_COUNT && (tbbt_op_info(x->op)->flags & TBBT_OPF_CREATES) &&
           !tbbt_rec_has(x, TBBT_F_NEWOBJ) && tbbt_rec_has(x, TBBT_F_DIR) && tbbt_rec_has(x, TBBT_F_NAME);
}

/* fix_out.emit: notes the range the corrective record may take, applies
 * it to the model, and keeps it in the group being built. */
static void group_emit(void *ctx, struct tbbt_rec *x) {
    struct tbbt_pass2 *p = ctx;
    mark_made_empty(p->m, x);
    tbbt_id ids[5];
    record_objects(p->m, x, ids);
    for (int i = 0; i < 5; i++) {
        const struct tbbt_fsobj *o = ids[i] ? tbbt_fsmodel_obj(p->m, ids[i]) : NULL;
        if (!o) continue;
        if (tbbt_pass2_obj(o)->last_time > p->group_lo) p->group_lo = tbbt_pass2_obj(o)->last_time;
        if (tbbt_pass2_obj(o)->last_seq > p->group_after) p->group_after = tbbt_pass2_obj(o)->last_seq;
    }
    tbbt_fsmodel_apply(p->m, x, TBBT_NFS_OK);
    if (names_await(p)) forget_lost(p, x);
    if (unbound_make(x)) p->unbound_makes++;
    struct ins *n = g_new0(struct ins, 1);
    tbbt_rec_init(&n->r);
    tbbt_rec_copy(&n->r, x);
    n->order = p->ins_order++;
    g_ptr_array_add(p->group, n);
    /* an object this removal took away remembers it (rule used-after-removal) */
    struct tbbt_fsobj *v =
        ids[4] && (x->op == TBBT_OP_REMOVE || x->op == TBBT_OP_RMDIR) ? tbbt_fsmodel_obj(p->m, ids[4]) : NULL;
    if (v && (v->flags & TBBT_FSO_GONE))
        tbbt_pass2_obj(v)->removed_by = TBBT_PASS2_GONE_BY_INSERTED | n->order;
}

/* Does r set its object's mode, owner or size: a setattr of those, a make
 * of a known object? */
static int sets_attrs(const struct tbbt_rec *r) {
    if (r->op == TBBT_OP_SETATTR)
        return (r->has & ((1ull << TBBT_F_SET_MODE) | (1ull << TBBT_F_SET_UID) | (1ull << TBBT_F_SET_GID) |
                          (1ull << TBBT_F_SET_SIZE))) != 0;
    return r->op < TBBT_OP_COUNT && (tbbt_op_info(r->op)->flags & TBBT_OPF_CREATES) &&
           tbbt_rec_has(r, TBBT_F_NEWOBJ);
}

/* Corrective record x, placed just before held record seq + 1 at time t,
 * set its object's attributes there: a change revealed later goes after
 * it (attrs_reveal), not after the last traced record that showed them. */
static void note_set(struct tbbt_pass2 *p, const struct tbbt_rec *x, uint64_t seq, int64_t t) {
    if (!sets_attrs(x)) return;
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x->op == TBBT_OP_SETATTR ? x->obj : x->newobj);
    if (!o || seq < tbbt_pass2_obj(o)->shown_seq ||
        (seq == tbbt_pass2_obj(o)->shown_seq && t <= tbbt_pass2_obj(o)->shown_time))
        return;
    tbbt_pass2_obj(o)->shown_seq = seq;
    tbbt_pass2_obj(o)->shown_time = t;
}

/* Corrective make x, placed just after held record seq, made its object
 * there: that is the object's first touch when the records that touched
 * it so far come later (a lost mkdir placed before its first use that a
 * later record revealed). A lost make of a name in it, revealed later
 * still, may then go before the first use of its own object, which the
 * directory's first traced record followed (made_before_use). */
static void made_first(struct tbbt_pass2 *p, const struct tbbt_rec *x, uint64_t seq) {
    if (!sets_attrs(x) || x->op == TBBT_OP_SETATTR || !seq) return;
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x->newobj);
    if (o && tbbt_pass2_obj(o)->first_seq > seq) tbbt_pass2_obj(o)->first_seq = seq;
}

/* Orders waiting records by (before_seq, call time, insertion order). */
static int ins_before(const struct ins *a, const struct ins *b) {
    if (a->before_seq != b->before_seq) return a->before_seq < b->before_seq;
    if (a->r.call_time != b->r.call_time) return a->r.call_time < b->r.call_time;
    return a->order < b->order;
}

/* Adds x to the waiting records in order. */
static void pending_add(struct tbbt_pass2 *p, struct ins *x) {
    guint i = p->pending->len;
    g_ptr_array_add(p->pending, x);
    while (i > 0 && ins_before(x, p->pending->pdata[i - 1])) {
        p->pending->pdata[i] = p->pending->pdata[i - 1];
        i--;
    }
    p->pending->pdata[i] = x;
}

/* Compares two times (qsort). */
static int cmp_time(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Gives the group's records their times, drawn from [lo, hi] where hi
 * is the failing record's call time, and their places among the held
 * records; moves them to the waiting list. */
static void group_place(struct tbbt_pass2 *p, uint64_t seq, int64_t hi) {
    guint n = p->group->len;
    int64_t floor = p->have_out ? p->last_out_time : p->ring[p->head_seq % p->cap].call_time;
    int64_t lo = p->group_lo;
    if (lo < floor) {
        if (lo) p->st.late_inserts += n; /* the valid range began before the window */
        lo = floor;
    }
    if (lo > hi) lo = hi;
    int64_t *t = g_new(int64_t, n);
    for (guint i = 0; i < n; i++)
        t[i] = lo + (int64_t)(g_rand_double(p->rng) * (double)(hi - lo));
    qsort(t, n, sizeof(*t), cmp_time);
    uint64_t from = p->group_after + 1 > p->head_seq ? p->group_after + 1 : p->head_seq;
    for (guint i = 0; i < n; i++) {
        struct ins *x = p->group->pdata[i];
        x->r.call_time = x->r.reply_time = t[i];
        x->before_seq = seq;
        for (uint64_t s = from; s < seq; s++)
            if (p->ring[s % p->cap].call_time > t[i]) {
                x->before_seq = s;
                break;
            }
        from = x->before_seq > from ? x->before_seq : from;
        tbbt_id ids[5];
        record_objects(p->m, &x->r, ids);
        for (int k = 0; k < 4; k++)
            touch(p, ids[k], t[i], x->before_seq - 1);
        made_first(p, &x->r, x->before_seq - 1);
        note_set(p, &x->r, x->before_seq - 1, t[i]);
        pending_add(p, x);
    }
    g_free(t);
    g_ptr_array_set_size(p->group, 0);
}

/* Lists an unexplained failure with its record for the report. */
static void list_failure(struct tbbt_pass2 *p, const struct tbbt_rec *r, enum tbbt_oc pred,
                         enum tbbt_oc traced, const char *what) {
    p->st.unexplained++;
    if (p->nlisted >= p->o.max_listed) return;
    p->nlisted++;
    g_string_append_printf(p->listed, "  %s %s: predicted %s, traced %s: ", tbbt_op_info(r->op)->name, what,
                           tbbt_oc_name(pred), tbbt_oc_name(traced));
    if (tbbt_rec_format_text(r, p->listed) != 0) g_string_append(p->listed, "(record not printable)");
    g_string_append_c(p->listed, '\n');
}

/* Queues corrective record x (a copy is kept) to go out just before the
 * held record seq, at time t. */
static void queue_before(struct tbbt_pass2 *p, const struct tbbt_rec *x, uint64_t seq, int64_t t) {
    struct ins *n = g_new0(struct ins, 1);
    tbbt_rec_init(&n->r);
    tbbt_rec_copy(&n->r, x);
    n->r.call_time = n->r.reply_time = t;
    n->before_seq = seq;
    n->order = p->ins_order++;
    pending_add(p, n);
}

/* The gone object record r uses (handle, directory, second directory)
 * that a held record removed, or NULL. */
static struct tbbt_fsobj *gone_held(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    tbbt_id ids[3] = {tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0, tbbt_rec_has(r, TBBT_F_DIR) ? r->dir : 0,
                      tbbt_rec_has(r, TBBT_F_DIR2) ? r->dir2 : 0};
    for (int i = 0; i < 3; i++) {
        struct tbbt_fsobj *o = ids[i] ? tbbt_fsmodel_obj(p->m, ids[i]) : NULL;
        if (!o || !(o->flags & TBBT_FSO_GONE) || !tbbt_pass2_obj(o)->removed_by) continue;
        if ((tbbt_pass2_obj(o)->removed_by & TBBT_PASS2_GONE_BY_INSERTED) ||
            (tbbt_pass2_obj(o)->removed_by >= p->head_seq && tbbt_pass2_obj(o)->removed_by < p->next_seq))
            return o;
    }
    return NULL;
}

/* The name under which object g is kept: ".tbbt-kept-ID". Returns its
 * length. */
static int kept_name(char *buf, size_t len, tbbt_id id) {
    return g_snprintf(buf, len, ".tbbt-kept-%" PRIu64, id);
}

/* A directory to keep an object in: the nearest directory up the chain
 * of latest names from dir that existed before the trace and that the
 * model holds alive now, so it exists wherever in the held records the
 * keeping rename goes, and no record since depends on its entries. 0 when
 * there is none. */
static tbbt_id keep_dir(const struct tbbt_fsmodel *m, tbbt_id dir) {
    for (int depth = 0; dir && depth < 64; depth++) {
        const struct tbbt_fsobj *o = tbbt_fsmodel_obj(m, dir);
        if (!o) return 0;
        if ((o->flags & TBBT_FSO_INITIAL) && !(o->flags & TBBT_FSO_GONE) &&
            (!o->attr.type || o->attr.type == TBBT_FT_DIR))
            return dir;
        dir = o->parent;
    }
    return 0;
}

/* TBBT_FIX_KEEP_OBJ when an inserted remove or rmdir, still waiting to
 * go out, took g away: it becomes a rename of the name to
 * ".tbbt-kept-ID", and the model gets g back under that name. Returns 0
 * (records added), or -1 when the record has gone out already. */
static int keep_inserted(struct tbbt_pass2 *p, struct tbbt_fsobj *g) {
    uint64_t order = tbbt_pass2_obj(g)->removed_by & ~TBBT_PASS2_GONE_BY_INSERTED;
    struct ins *x = NULL;
    for (guint i = 0; i < p->pending->len && !x; i++)
        if (((struct ins *)p->pending->pdata[i])->order == order) x = p->pending->pdata[i];
    if (!x) return -1;
    tbbt_id kd = keep_dir(p->m, x->r.dir);
    if (!kd) return -1;
    char hidden[48];
    int hl = kept_name(hidden, sizeof(hidden), g->id);
    x->r.op = TBBT_OP_RENAME;
    x->r.cred = (struct tbbt_cred){.flavor = TBBT_AUTH_SYS}; /* root: the keeping directory may be anyone's */
    tbbt_rec_set_u64(&x->r, TBBT_F_DIR2, kd);
    tbbt_rec_set_str(&x->r, TBBT_F_NAME2, hidden, (size_t)hl);
    uint32_t nl = g->attr.nlink, type = g->attr.type;
    tbbt_fsmodel_link(p->m, kd, hidden, (size_t)hl, g->id, type);
    if (type != TBBT_FT_DIR && nl) g->attr.nlink = nl;
    tbbt_pass2_obj(g)->removed_by = 0;
    return 0; /* no record added: one was changed */
}

/* Rule action TBBT_FIX_KEEP_OBJ: r uses object g that the held record
 * tbbt_pass2_obj(g)->removed_by removed. Before that record, the name it removed is renamed to
 * ".tbbt-kept-ID" (in the same directory, or its nearest ancestor the
 * model holds alive) and a new object (file, or directory) made under the
 * name, so the removal takes the new object and g lives on. The model
 * gets g's new name. The rename goes as root (the keeping directory may be
 * anyone's), the new object as the remover. Returns the number of records added, or -1 when the
 * removal is no longer held (or is not a remove, rmdir or rename). */
static int keep_obj(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    struct tbbt_fsobj *g = gone_held(p, r);
    if (!g) return -1;
    if (tbbt_pass2_obj(g)->removed_by & TBBT_PASS2_GONE_BY_INSERTED) return keep_inserted(p, g);
    uint64_t s = tbbt_pass2_obj(g)->removed_by;
    const struct tbbt_rec *gr = &p->ring[s % p->cap];
    tbbt_id d;
    struct tbbt_str nm;
    if (gr->op == TBBT_OP_REMOVE || gr->op == TBBT_OP_RMDIR) {
        d = gr->dir;
        nm = gr->name;
    } else if (gr->op == TBBT_OP_RENAME) {
        d = gr->dir2;
        nm = gr->name2;
    } else {
        return -1;
    }
    tbbt_id kd = keep_dir(p->m, d);
    if (!kd) return -1;
    char hidden[48];
    int hl = kept_name(hidden, sizeof(hidden), g->id);
    int isdir = g->attr.type == TBBT_FT_DIR || gr->op == TBBT_OP_RMDIR;
    int64_t lo = s > p->head_seq ? p->ring[(s - 1) % p->cap].call_time
                                 : (p->have_out ? p->last_out_time : gr->call_time);
    int64_t hi = gr->call_time;
    if (lo > hi) lo = hi;
    int64_t t[2];
    for (int i = 0; i < 2; i++)
        t[i] = lo + (int64_t)(g_rand_double(p->rng) * (double)(hi - lo));
    if (t[0] > t[1]) {
        int64_t x = t[0];
        t[0] = t[1];
        t[1] = x;
    }
    struct tbbt_rec *x = &p->scratch;
    tbbt_rec_clear(x);
    x->client = gr->client;
    x->server = gr->server;
    x->vers = gr->vers;
    x->cred = (struct tbbt_cred){.flavor = TBBT_AUTH_SYS}; /* root: the keeping directory may be anyone's */
    x->flags = TBBT_RF_INSERTED | (gr->flags & TBBT_RF_TCP);
    x->status = TBBT_NFS_OK;
    x->op = TBBT_OP_RENAME;
    tbbt_rec_set_u64(x, TBBT_F_DIR, d);
    tbbt_rec_set_str(x, TBBT_F_NAME, tbbt_rec_str(gr, nm), nm.len);
    tbbt_rec_set_u64(x, TBBT_F_DIR2, kd);
    tbbt_rec_set_str(x, TBBT_F_NAME2, hidden, (size_t)hl);
    queue_before(p, x, s, t[0]);
    x->op = isdir ? TBBT_OP_MKDIR : TBBT_OP_CREATE;
    x->cred = gr->cred; /* the new object is the remover's */
    x->has &= ~((1ull << TBBT_F_DIR2) | (1ull << TBBT_F_NAME2));
    if (!isdir) tbbt_rec_set_u64(x, TBBT_F_CREATEHOW, 0);
    tbbt_rec_set_u64(x, TBBT_F_SET_MODE, isdir ? 0755 : 0644);
    tbbt_rec_set_u64(x, TBBT_F_TYPE, isdir ? TBBT_FT_DIR : TBBT_FT_REG);
    queue_before(p, x, s, t[1]);
    uint32_t nl = g->attr.nlink;
    tbbt_fsmodel_link(p->m, kd, hidden, (size_t)hl, g->id, isdir ? TBBT_FT_DIR : g->attr.type);
    if (!isdir && nl) g->attr.nlink = nl;
    tbbt_pass2_obj(g)->removed_by = 0;
    return 2;
}

/* The last held record before seq that names (dir, name) (as its name
 * or a rename's target), or 0. */
static uint64_t last_named(const struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len,
                           uint64_t seq) {
    for (uint64_t s = seq; s-- > p->head_seq;) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if ((tbbt_rec_has(q, TBBT_F_DIR) && q->dir == dir && q->name.len == len &&
             !memcmp(tbbt_rec_str(q, q->name), name, len)) ||
            (tbbt_rec_has(q, TBBT_F_DIR2) && q->dir2 == dir && q->name2.len == len &&
             !memcmp(tbbt_rec_str(q, q->name2), name, len)))
            return s;
    }
    return 0;
}

/* The waiting inserted make of object id (its entry), or NULL. */
static struct ins *pending_make_ins(struct tbbt_pass2 *p, tbbt_id id) {
    for (guint i = p->pending->len; i-- > 0;) {
        struct ins *x = p->pending->pdata[i];
        if (x->r.op < TBBT_OP_COUNT && (tbbt_op_info(x->r.op)->flags & TBBT_OPF_CREATES) &&
            tbbt_rec_has(&x->r, TBBT_F_NEWOBJ) && x->r.newobj == id)
            return x;
    }
    return NULL;
}

/* Directory id, made by an inserted mkdir still waiting to go out, must
 * exist before held record seq (a lost make in it goes before the first
 * use of the object it made, made_before_use): that mkdir, placed after
 * seq (anywhere between its parent's making and id's first use: the
 * capture does not say where), moves to just before seq -- unless its
 * parent is not known to exist there or a held record between named it
 * (found the name absent). Returns 1 when id is made before seq. */
static int make_earlier(struct tbbt_pass2 *p, tbbt_id id, uint64_t seq) {
    struct ins *x = pending_make_ins(p, id);
    if (!x || x->r.op != TBBT_OP_MKDIR || !tbbt_rec_has(&x->r, TBBT_F_DIR) || seq <= p->head_seq ||
        seq > p->played)
        return 0;
    if (x->before_seq <= seq) return 1;
    const struct tbbt_fsobj *pd = tbbt_fsmodel_obj(p->m, x->r.dir);
    int parent_there = pd && (pd->flags & TBBT_FSO_CREATED)
                           ? tbbt_pass2_obj(pd)->first_seq && tbbt_pass2_obj(pd)->first_seq < seq
                           : pd && (pd->flags & TBBT_FSO_INITIAL);
    if (!parent_there ||
        last_named(p, x->r.dir, tbbt_rec_str(&x->r, x->r.name), x->r.name.len, x->before_seq) >= seq)
        return 0;
    g_ptr_array_remove(p->pending, x);
    int64_t hi = p->ring[seq % p->cap].call_time, lo = p->ring[(seq - 1) % p->cap].call_time;
    if (p->have_out && lo < p->last_out_time) lo = p->last_out_time;
    if (lo > hi) lo = hi;
    x->r.call_time = x->r.reply_time = lo; /* before what goes there for names in it */
    x->before_seq = seq;
    made_first(p, &x->r, seq - 1);
    pending_add(p, x);
    return 1;
}

/* The held record before which a correction that makes (r->dir, r->name)
 * as r->newobj must go, when that object was used before r revealed it:
 * its first use, if the object was never named nor made, the name never
 * met (or met absent, before that use, and not since), and the directory
 * made by the trace (so it began empty) before that use -- then the call
 * that made it was lost, and it went before the object's first use (and
 * after the record that found the name absent). Returns that record's
 * seq, or 0 (place as usual). */
static uint64_t made_before_use(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (!tbbt_rec_has(r, TBBT_F_NEWOBJ) || !r->newobj || !tbbt_rec_has(r, TBBT_F_NAME)) return 0;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, r->newobj);
    const struct tbbt_fsobj *d = tbbt_fsmodel_obj(p->m, r->dir);
    if (!o || !d || o->links || (o->flags & TBBT_FSO_CREATED) || tbbt_pass2_obj(o)->first_seq >= seq ||
        tbbt_pass2_obj(o)->first_seq < p->head_seq || !tbbt_fsmodel_dir_fresh(p->m, r->dir) ||
        (tbbt_pass2_obj(d)->first_seq >= tbbt_pass2_obj(o)->first_seq &&
         !make_earlier(p, r->dir, tbbt_pass2_obj(o)->first_seq)))
        return 0;
    /* the name never met, or met only absent before that use */
    const struct tbbt_fsdent *n = tbbt_fsmodel_dent(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len);
    if (n && (n->state != TBBT_NAME_ABSENT || last_named(p, r->dir, tbbt_rec_str(r, r->name), r->name.len,
                                                         seq) >= tbbt_pass2_obj(o)->first_seq))
        return 0;
    return tbbt_pass2_obj(o)->first_seq;
}

/* The inserted make of object id waiting to go out (the last one), or
 * NULL. */
static struct tbbt_rec *pending_make(struct tbbt_pass2 *p, tbbt_id id) {
    for (guint i = p->pending->len; i-- > 0;) {
        struct tbbt_rec *x = &((struct ins *)p->pending->pdata[i])->r;
        if (x->op < TBBT_OP_COUNT && (tbbt_op_info(x->op)->flags & TBBT_OPF_CREATES) &&
            tbbt_rec_has(x, TBBT_F_NEWOBJ) && x->newobj == id)
            return x;
    }
    return NULL;
}

/* A make placed before the first use of the object it makes (early),
 * whose mode no reply showed (make_name's usual one): the mode the held
 * records from there to seq, whose permission the model judges (a read,
 * a write, a truncate by another than root), need -- the bit each needs
 * set where it succeeded, cleared where it was denied, in the class that
 * applies to its caller -- is the make's, and the model's. */
static void fit_made_mode(struct tbbt_pass2 *p, tbbt_id id, uint64_t early, uint64_t seq) {
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, id);
    struct tbbt_rec *x = o && o->attr.type == TBBT_FT_REG ? pending_make(p, id) : NULL;
    if (!x || !tbbt_rec_has(x, TBBT_F_SET_MODE)) return;
    uint32_t mode = (uint32_t)x->set_mode;
    for (uint64_t s = early; s < seq; s++) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        uint32_t need = tbbt_fsmodel_access_need(q);
        if (!need || !tbbt_rec_has(q, TBBT_F_OBJ) || q->obj != id || q->cred.flavor != TBBT_AUTH_SYS ||
            q->cred.uid == 0 || (q->flags & TBBT_RF_REPLY_LOST))
            continue;
        uint32_t bit = need << tbbt_fsmodel_mode_shift(&o->attr, &q->cred);
        if (q->status == TBBT_NFS_OK) mode |= bit;
        if (q->status == TBBT_NFSERR_ACCES || q->status == TBBT_NFSERR_PERM) mode &= ~bit;
    }
    if (mode == x->set_mode) return;
    tbbt_rec_set_u64(x, TBBT_F_SET_MODE, mode);
    o->rmode = mode;
}

/* The type a held readdirplus of dir shows (name, len) as, else a
 * regular file. */
static uint32_t listed_type(const struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len) {
    for (uint64_t s = p->head_seq; s <= p->played && s < p->next_seq; s++) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (q->op != TBBT_OP_READDIRPLUS || !tbbt_rec_has(q, TBBT_F_OBJ) || q->obj != dir) continue;
        for (uint32_t i = 0; i < q->nentries; i++)
            if (q->entries[i].type && q->entries[i].name.len == len &&
                !memcmp(tbbt_rec_str(q, q->entries[i].name), name, len))
                return q->entries[i].type;
    }
    return TBBT_FT_REG;
}

/* p's lookup scratch record cleared for a successful lookup as r's
 * client would send it (its server, version, credentials, transport). */
static struct tbbt_rec *lookup_like(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    struct tbbt_rec *x = &p->look;
    tbbt_rec_clear(x);
    x->client = r->client, x->server = r->server, x->vers = r->vers, x->cred = r->cred;
    x->flags = r->flags & TBBT_RF_TCP;
    x->op = TBBT_OP_LOOKUP;
    x->status = TBBT_NFS_OK;
    return x;
}

/* foreach_initial_name: collects into c the names of directory c->dir
 * there before the trace that a held record has removed since. */
struct gone_names {
    tbbt_id dir;
    GPtrArray *names;
    GArray *objs;
};
static void gone_name(void *ctx, const struct tbbt_fsdent *d) {
    struct gone_names *c = ctx;
    if (d->dir != c->dir || d->state != TBBT_NAME_ABSENT) return;
    g_ptr_array_add(c->names, g_strndup(d->name, d->len));
    g_array_append_val(c->objs, d->init_obj);
}

/* The type of the object of (dir, name, len) as the last held record
 * before seq that named it shows it: a directory for an rmdir, else 0. */
static uint32_t named_type(const struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len,
                           uint64_t seq) {
    uint64_t s = last_named(p, dir, name, len, seq);
    return s && p->ring[s % p->cap].op == TBBT_OP_RMDIR ? TBBT_FT_DIR : 0;
}

/* An early mkdir (fix_place) made directory id before records that
 * listed or found names in it, which the model took as there before the
 * trace: they were made since, by calls the capture lost (a directory
 * made in the trace began empty) -- those a held record removed since
 * too. Each is made as the lookup that shows it would be, right after the
 * mkdir (before the directory's first use), and the directory began
 * empty; a directory among them, with its names (depth: of the
 * recursion). Returns the records added. */
static int remake_names(struct tbbt_pass2 *p, tbbt_id id, uint64_t early, unsigned depth) {
    struct tbbt_rec *mk = pending_make(p, id);
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, id);
    if (!mk || mk->op != TBBT_OP_MKDIR || !o || depth > 16) return 0;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    GArray *objs = g_array_new(FALSE, FALSE, sizeof(tbbt_id));
    for (const struct tbbt_fsdent *d = o->children; d; d = d->child_next) {
        if (d->init != TBBT_NAME_PRESENT) continue;
        g_ptr_array_add(names, g_strndup(d->name, d->len));
        g_array_append_val(objs, d->obj);
    }
    /* and the ones removed since (an rmdir or remove that found them
     * there): made too, the removal takes them away again */
    guint present = names->len;
    struct gone_names gn = {id, names, objs};
    tbbt_fsmodel_foreach_initial_name(p->m, gone_name, &gn);
    o->flags = (o->flags & ~(uint32_t)TBBT_FSO_INIT_NAMES) | TBBT_FSO_MADE_EMPTY;
    mk->flags |= TBBT_RF_MADE_EMPTY;
    int64_t lo = mk->call_time;
    int n = 0;
    for (guint i = 0; i < names->len; i++) {
        const char *name = names->pdata[i];
        size_t len = strlen(name);
        tbbt_id obj = g_array_index(objs, tbbt_id, i);
        /* not there before the trace: the make puts it there */
        tbbt_fsmodel_unlink(p->m, id, name, len);
        struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, id, name, len);
        if (d) d->init = TBBT_NAME_ABSENT;
        struct tbbt_fsobj *c = obj ? tbbt_fsmodel_obj(p->m, obj) : NULL;
        if (c) c->flags &= ~(uint32_t)(TBBT_FSO_INITIAL | TBBT_FSO_INIT_ATTRS);
        struct tbbt_rec *x = lookup_like(p, mk);
        tbbt_rec_set_u64(x, TBBT_F_DIR, id);
        tbbt_rec_set_str(x, TBBT_F_NAME, name, len);
        if (obj) tbbt_rec_set_u64(x, TBBT_F_NEWOBJ, obj);
        uint32_t gone_type = i >= present ? named_type(p, id, name, len, p->next_seq) : 0;
        uint32_t type = c && c->attr.type   ? c->attr.type
                        : c && c->nchildren ? TBBT_FT_DIR
                        : gone_type         ? gone_type
                                            : listed_type(p, id, name, len);
        tbbt_rec_set_u64(x, TBBT_F_TYPE, type);
        struct tbbt_fix_out fo = {p->m, group_emit, p, &p->scratch};
        p->group_lo = lo;
        p->group_after = 0;
        if (tbbt_fix_run(TBBT_FIX_MAKE_BY_REPLY, x, &fo) < 0 || !p->group->len) continue;
        n += (int)p->group->len;
        group_place(p, early, p->ring[early % p->cap].call_time);
        if (i >= present) { /* removed since */
            tbbt_fsmodel_unlink(p->m, id, name, len);
            continue;
        }
        if (type == TBBT_FT_DIR && obj) n += remake_names(p, obj, early, depth + 1); /* its names too */
    }
    g_ptr_array_free(names, TRUE);
    g_array_free(objs, TRUE);
    return n;
}

static int fix_place(struct tbbt_pass2 *p, enum tbbt_fix_act act, const struct tbbt_rec *r, uint64_t seq);

/* Object r->newobj, which r reveals under (r->dir, r->name), was used by
 * handle before, never named nor made, and a record between that use and
 * r found the name absent: it existed then under a name the capture never
 * showed, and a lost rename gave it this one. It is made before its first
 * use under a name of its own (".tbbt-early-ID", made_before_use places
 * it), and renamed onto r's name before r (TBBT_FIX_MOVE_BY_REPLY: its
 * one name). Returns the records placed, or 0 when that does not apply. */
static int make_early_elsewhere(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (!tbbt_rec_has(r, TBBT_F_NEWOBJ) || !r->newobj || !tbbt_rec_has(r, TBBT_F_NAME)) return 0;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, r->newobj);
    if (!o || o->links || (o->flags & TBBT_FSO_CREATED) || tbbt_pass2_obj(o)->first_seq >= seq ||
        tbbt_pass2_obj(o)->first_seq < p->head_seq ||
        last_named(p, r->dir, tbbt_rec_str(r, r->name), r->name.len, seq) < tbbt_pass2_obj(o)->first_seq)
        return 0;
    struct tbbt_rec *x = &p->early;
    tbbt_rec_copy(x, r);
    char name[48];
    int len = g_snprintf(name, sizeof(name), ".tbbt-early-%" G_GUINT64_FORMAT, (guint64)r->newobj);
    tbbt_rec_set_str(x, TBBT_F_NAME, name, (size_t)len);
    if (!made_before_use(p, x, seq)) return 0;
    int k = fix_place(p, TBBT_FIX_MAKE_BY_REPLY, x, seq);
    if (k <= 0) return 0;
    int m = fix_place(p, TBBT_FIX_MOVE_BY_REPLY, r, seq);
    return m > 0 ? k + m : k;
}

/* Builds the records of action act for record r and places them: before
 * the failing record seq, or, for a name made as an object used before r
 * revealed it, before that use (made_before_use), or under a name of its
 * own before that use when the name was absent since (make_early_elsewhere).
 * Returns the number of records, or -1 when the action cannot be built. */
static int fix_place(struct tbbt_pass2 *p, enum tbbt_fix_act act, const struct tbbt_rec *r, uint64_t seq) {
    struct tbbt_fix_out fo = {p->m, group_emit, p, &p->scratch};
    uint64_t early = act == TBBT_FIX_MAKE_BY_REPLY ? made_before_use(p, r, seq) : 0;
    if (act == TBBT_FIX_MAKE_BY_REPLY && !early && r != &p->early) {
        int n = make_early_elsewhere(p, r, seq);
        if (n > 0) return n;
    }
    struct tbbt_fsobj *eo = early ? tbbt_fsmodel_obj(p->m, r->newobj) : NULL;
    uint32_t rmode = eo ? eo->rmode : 0, had_rmode = eo ? eo->flags & TBBT_FSO_RMODE : 0;
    if (early) /* made by the trace, not there at the start */
        eo->flags &= ~(uint32_t)(TBBT_FSO_INITIAL | TBBT_FSO_INIT_ATTRS);
    p->group_lo = 0;
    p->group_after = 0;
    int k = tbbt_fix_run(act, r, &fo);
    if (k < 0 || p->group->len == 0) return -1;
    if (early && had_rmode) { /* the records since the first use left the mode as it is */
        eo = tbbt_fsmodel_obj(p->m, r->newobj);
        eo->rmode = rmode;
        eo->flags |= TBBT_FSO_RMODE;
    }
    k = (int)p->group->len;
    if (early) {
        /* after the directory was made (and the last record that found
         * the name absent), before the object's first use */
        uint64_t made = tbbt_pass2_obj(tbbt_fsmodel_obj(p->m, r->dir))->first_seq;
        uint64_t absent = last_named(p, r->dir, tbbt_rec_str(r, r->name), r->name.len, early);
        if (absent > made) made = absent;
        p->group_after = made >= p->head_seq ? made : 0;
        p->group_lo = made >= p->head_seq ? touch_time(&p->ring[made % p->cap]) : 0;
        /* and after the directory's own make, when one was inserted there
         * (its first touch, made_first: not a held record) */
        const struct ins *dm = pending_make_ins(p, r->dir);
        if (dm && dm->r.call_time > p->group_lo) p->group_lo = dm->r.call_time;
        group_place(p, early, p->ring[early % p->cap].call_time);
        if (!tbbt_rec_has(r, TBBT_F_MODE)) fit_made_mode(p, r->newobj, early, seq);
        k += remake_names(p, r->newobj, early, 0);
    } else {
        group_place(p, seq, r->call_time);
    }
    return k;
}

/* The object a reply showed with this fileid, while it lives: once its
 * last name is gone the server may give the fileid to a new object (a
 * file made where a directory was removed), which a plain readdir's entry
 * cannot tell apart. 0 when none. */
static tbbt_id live_by_fileid(struct tbbt_pass2 *p, uint64_t fileid) {
    tbbt_id id = (tbbt_id)GPOINTER_TO_SIZE(g_hash_table_lookup(p->by_fileid, &fileid));
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    return o && !(o->flags & TBBT_FSO_GONE) ? id : 0;
}

/* The object a plain readdir's entry shows by its fileid alone: the live
 * object a reply showed with it, unless the listing's link count tells
 * the entry's type (by_nlink, listed_type_by_nlink) and that object is of
 * the other kind: a directory's fileid listed where only files can be is
 * a new file in the inode of a directory whose removal the capture lost. */
static tbbt_id listed_by_fileid(struct tbbt_pass2 *p, uint64_t fileid, uint32_t by_nlink) {
    tbbt_id id = live_by_fileid(p, fileid);
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    if (o && by_nlink && o->attr.type && (o->attr.type == TBBT_FT_DIR) != (by_nlink == TBBT_FT_DIR)) return 0;
    return id;
}

/* The caller of the lookup make_listed builds: the owner of the listed
 * directory, when the model knows it. The owner of a made object no reply
 * shows is guessed from the caller (make_name), and the one who lists a
 * directory is often not the one who fills it; its owner more likely is. */
static void lister_as_owner(struct tbbt_pass2 *p, struct tbbt_rec *x, tbbt_id dir) {
    const struct tbbt_fsobj *d = tbbt_fsmodel_obj(p->m, dir);
    if (!d || !(d->flags & TBBT_FSO_ATTRS) || x->cred.flavor != TBBT_AUTH_SYS) return;
    x->cred.uid = d->attr.uid;
    x->cred.gid = d->attr.gid;
    x->cred.ngids = 0;
}

/* The type of the untyped names a whole plain readdir listing shows that
 * the model never met, when the directory's link count tells: it has
 * nlink - 2 subdirectories (on servers that count them), so if the names
 * the model knows account for all of them, the others are files; if for
 * all but as many as there are unmet names, those are directories. 0 when
 * it cannot tell (a partial listing, a name of unknown type, a count that
 * does not fit). */
static uint32_t listed_type_by_nlink(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->op != TBBT_OP_READDIR || !tbbt_rec_has(r, TBBT_F_NLINK) || r->nlink < 2 ||
        !tbbt_rec_has(r, TBBT_F_EOF) || !r->eof || !tbbt_rec_has(r, TBBT_F_COOKIE) || r->cookie)
        return 0;
    uint32_t dirs = 0, unmet = 0;
    for (uint32_t i = 0; i < r->nentries; i++) {
        const struct tbbt_dirent *e = &r->entries[i];
        const char *en = tbbt_rec_str(r, e->name);
        if (tbbt_dot_name(en, e->name.len)) continue;
        if (tbbt_fsmodel_entry_unmet(p->m, r, e)) {
            unmet++;
            continue;
        }
        tbbt_id id = 0;
        tbbt_fsmodel_name(p->m, r->obj, en, e->name.len, &id);
        const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
        if (!o || !o->attr.type) return 0;
        dirs += o->attr.type == TBBT_FT_DIR;
    }
    uint32_t left = r->nlink - 2;
    if (left == dirs) return TBBT_FT_REG;
    return unmet && left == dirs + unmet ? TBBT_FT_DIR : 0;
}

/* TBBT_FIX_MAKE_LISTED: each name listing r shows that the model has
 * absent (tbbt_fsmodel_entry_unmet) is made as the lookup that would have shown
 * it would be corrected: as the entry's object (a readdir's entries show
 * only fileids: the object a reply showed with that fileid) and type
 * (else the type the model knows for the object, else the one the
 * directory's link count tells, else a file). Returns
 * the records added, or -1. */
static int make_listed(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    int n = 0;
    uint32_t by_nlink = listed_type_by_nlink(p, r);
    for (uint32_t i = 0; i < r->nentries; i++) {
        const struct tbbt_dirent *e = &r->entries[i];
        if (!tbbt_fsmodel_entry_unmet(p->m, r, e)) continue;
        struct tbbt_rec *x = lookup_like(p, r);
        lister_as_owner(p, x, r->obj);
        x->call_time = r->call_time, x->reply_time = r->reply_time;
        tbbt_rec_set_u64(x, TBBT_F_DIR, r->obj);
        tbbt_rec_set_str(x, TBBT_F_NAME, tbbt_rec_str(r, e->name), e->name.len);
        tbbt_id id = e->id;
        if (!id && e->fileid) id = listed_by_fileid(p, e->fileid, by_nlink);
        if (id) tbbt_rec_set_u64(x, TBBT_F_NEWOBJ, id);
        const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
        uint32_t type = e->type             ? e->type
                        : o && o->attr.type ? o->attr.type
                        : o && o->nchildren ? TBBT_FT_DIR /* it holds names */
                        : by_nlink          ? by_nlink
                                            : TBBT_FT_REG;
        tbbt_rec_set_u64(x, TBBT_F_TYPE, type);
        int k = fix_place(p, TBBT_FIX_MAKE_BY_REPLY, x, seq);
        if (k > 0) n += k;
    }
    return n ? n : -1;
}

/* Does listing r show the name (name, len)? */
static int listing_shows(const struct tbbt_rec *r, const char *name, size_t len) {
    for (uint32_t i = 0; i < r->nentries; i++)
        if (r->entries[i].name.len == len && !memcmp(tbbt_rec_str(r, r->entries[i].name), name, len))
            return 1;
    return 0;
}

/* TBBT_FIX_MOVE_LISTED: each name readdirplus r shows holding another
 * object than the model's (tbbt_listing_entry_other) is corrected as the
 * lookup that would have shown it: the object's one other name renamed
 * onto it (TBBT_FIX_MOVE_BY_REPLY) -- unless that name is in this
 * directory and the listing shows it still: then the name was removed and
 * made a hard link of the object (TBBT_FIX_REPLACE). Returns the records
 * added, or -1. */
static int move_listed(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    int n = 0;
    for (uint32_t i = 0; i < r->nentries; i++) {
        const struct tbbt_dirent *e = &r->entries[i];
        if (!tbbt_listing_entry_other(p->m, r, e)) continue;
        struct tbbt_rec *x = lookup_like(p, r);
        x->call_time = r->call_time, x->reply_time = r->reply_time;
        tbbt_rec_set_u64(x, TBBT_F_DIR, r->obj);
        tbbt_rec_set_str(x, TBBT_F_NAME, tbbt_rec_str(r, e->name), e->name.len);
        tbbt_rec_set_u64(x, TBBT_F_NEWOBJ, e->id);
        const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, e->id);
        tbbt_rec_set_u64(x, TBBT_F_TYPE, e->type ? e->type : o && o->attr.type ? o->attr.type : TBBT_FT_REG);
        const struct tbbt_fsdent *other = o ? o->links : NULL;
        int linked = other && other->dir == r->obj && listing_shows(r, other->name, other->len);
        int k = fix_place(p, linked ? TBBT_FIX_REPLACE : TBBT_FIX_MOVE_BY_REPLY, x, seq);
        if (k > 0) n += k;
    }
    return n ? n : -1;
}

/* Does the model know nothing of object id but that records used its
 * handle (no name, no attributes, not made; taken as there before the
 * trace only for that)? */
static int nameless_unknown(const struct tbbt_fsmodel *m, tbbt_id id) {
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(m, id);
    return !o || (!o->links && !o->nchildren &&
                  !(o->flags & (TBBT_FSO_CREATED | TBBT_FSO_ATTRS | TBBT_FSO_RMODE | TBBT_FSO_GONE)));
}

/* The first held record before seq that used object id, when every held
 * one that did is a lost reply (they saw it gone too); else seq. */
static uint64_t first_lost_use(const struct tbbt_pass2 *p, tbbt_id id, uint64_t seq) {
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, id);
    if (!o || tbbt_pass2_obj(o)->first_seq < p->head_seq || tbbt_pass2_obj(o)->first_seq >= seq) return seq;
    for (uint64_t s = tbbt_pass2_obj(o)->first_seq; s < seq; s++) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (tbbt_rec_has(q, TBBT_F_OBJ) && q->obj == id && !(q->flags & TBBT_RF_REPLY_LOST)) return seq;
    }
    return tbbt_pass2_obj(o)->first_seq;
}

/* An operation on a handle, r (held as seq), of an object the model
 * knows nothing of (nameless_unknown), traced stale: the object was made
 * and removed where the capture lost it, and the replay, which never
 * learns its handle, could not send r. It is made and removed
 * (TBBT_FIX_MAKE_GONE) in a directory that exists wherever the records
 * go: the one the records before r named last that keep_dir finds (the
 * nearest there before the trace); before r, or before the first record
 * that used it when all that did are lost replies, which get "stale" as
 * their outcome. Counted under its rule; listed when there is no such
 * directory. */
static void stale_unknown(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    int row = tbbt_rule_find(r->op, TBBT_OC_ANY, TBBT_OC_STALE);
    if (row < 0 || !tbbt_rec_has(r, TBBT_F_OBJ) || !r->obj || !nameless_unknown(p->m, r->obj)) return;
    tbbt_id dir = 0;
    uint64_t at = first_lost_use(p, r->obj, seq);
    for (uint64_t s = at; !dir && s-- > p->head_seq;) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (tbbt_rec_has(q, TBBT_F_DIR)) dir = keep_dir(p->m, q->dir);
    }
    p->st.failures++;
    p->st.rule_failures[row]++;
    struct tbbt_rec *x = &p->look;
    tbbt_rec_copy(x, r);
    x->flags &= ~(uint32_t)TBBT_RF_REPLY_LOST;
    x->status = TBBT_NFS_OK;
    x->call_time = p->ring[at % p->cap].call_time;
    if (dir) tbbt_rec_set_u64(x, TBBT_F_DIR, dir);
    struct tbbt_fsobj *o = dir ? tbbt_fsmodel_obj(p->m, r->obj) : NULL;
    if (o) o->flags &= ~(uint32_t)(TBBT_FSO_INITIAL | TBBT_FSO_INIT_ATTRS); /* made by the trace */
    int k = dir ? fix_place(p, TBBT_FIX_MAKE_GONE, x, at) : -1;
    if (k <= 0) {
        list_failure(p, r, TBBT_OC_ANY, TBBT_OC_STALE, tbbt_rules[row].name);
        return;
    }
    for (uint64_t s = at; s < seq; s++) {
        struct tbbt_rec *q = &p->ring[s % p->cap];
        if (!tbbt_rec_has(q, TBBT_F_OBJ) || q->obj != r->obj || q->status >= 0) continue;
        q->status = TBBT_NFSERR_STALE;
        p->st.lost_unresolved -= p->st.lost_unresolved > 0;
        p->st.lost_by_model++;
    }
    p->st.corrected++;
    p->st.rule_inserted[row] += (unsigned)k;
    p->st.inserted += (unsigned)k;
}

/* Runs the correction of row for record r (held as seq). Returns the
 * number of records inserted (or changed into a rename: 0), or -1 when
 * the row's action cannot be built. */
static int run_fix(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq, int row) {
    if (tbbt_rules[row].fix == TBBT_FIX_KEEP_OBJ) return keep_obj(p, r);
    if (tbbt_rules[row].fix == TBBT_FIX_MAKE_LISTED) return make_listed(p, r, seq);
    if (tbbt_rules[row].fix == TBBT_FIX_MOVE_LISTED) return move_listed(p, r, seq);
    return fix_place(p, tbbt_rules[row].fix, r, seq);
}

/* A replay failure of record r (held as seq): runs the rule for
 * (op, predicted, traced); when the model then predicts another outcome
 * that still differs (a removed object kept alive whose mode denies the
 * call, say), the rule for that pair runs too, up to three rules. */
static void correct_failure(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq, enum tbbt_oc pred,
                            enum tbbt_oc traced) {
    int row = tbbt_rule_find(r->op, pred, traced);
    if (row >= 0 && tbbt_rules[row].fix == TBBT_FIX_AGREE) {
        p->st.agreed++;
        return;
    }
    p->st.failures++;
    for (int round = 0; round < 3; round++) {
        if (row < 0) {
            list_failure(p, r, pred, traced, round ? "still failing after correction: no rule" : "no rule");
            return;
        }
        p->st.rule_failures[row]++;
        int k = run_fix(p, r, seq, row);
        if (k < 0) {
            list_failure(p, r, pred, traced, tbbt_rules[row].name);
            return;
        }
        p->st.rule_inserted[row] += (unsigned)k;
        p->st.inserted += (unsigned)k;
        enum tbbt_oc again = tbbt_oc_predict(p->m, r);
        if (again == TBBT_OC_ANY || again == traced) {
            p->st.corrected++;
            if (p->o.list_corrected && p->nlisted < p->o.max_listed) {
                p->nlisted++;
                g_string_append_printf(p->listed, "  corrected by %s (%d records): ", tbbt_rules[row].name,
                                       k);
                tbbt_rec_format_text(r, p->listed);
                g_string_append_c(p->listed, '\n');
            }
            return;
        }
        pred = again;
        row = tbbt_rule_find(r->op, pred, traced);
        if (row >= 0 && tbbt_rules[row].fix == TBBT_FIX_AGREE) {
            p->st.corrected++;
            return;
        }
    }
    list_failure(p, r, pred, traced, "still failing after correction");
}

/* Does op make or remove a name (a lost reply of it is worth resolving)? */
static int names_op(unsigned op) {
    return op == TBBT_OP_CREATE || op == TBBT_OP_MKDIR || op == TBBT_OP_SYMLINK || op == TBBT_OP_MKNOD ||
           op == TBBT_OP_LINK || op == TBBT_OP_REMOVE || op == TBBT_OP_RMDIR || op == TBBT_OP_RENAME;
}

/* A lost make that succeeded (r, held as seq) does not know the object
 * it made: the name waits (tbbt_pass2_dent.lost_seq) for a record that shows it while
 * r is held (resolve_name), or the replay makes the name and never learns
 * the handle of the object the trace goes on to use. */
static void await_object(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (!unbound_make(r)) return;
    struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len);
    if (!d || d->state != TBBT_NAME_PRESENT) return;
    tbbt_pass2_dent(d)->lost_seq = seq;
    p->unbound_lost++;
}

/* Does the mode of the directory lookup or listing r reads, as the
 * model knows it for a replay, deny r's caller (AUTH_SYS, not root)
 * search (a lookup) or read (a listing) permission? */
static int search_denied(const struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
    uint32_t need = r->op == TBBT_OP_LOOKUP                                    ? 1
                    : r->op == TBBT_OP_READDIR || r->op == TBBT_OP_READDIRPLUS ? 4
                                                                               : 0;
    tbbt_id d =
        need == 1 ? (tbbt_rec_has(r, TBBT_F_DIR) ? r->dir : 0) : (tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0);
    if (!need || !d || r->cred.flavor != TBBT_AUTH_SYS || r->cred.uid == 0) return 0;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(m, d);
    const uint32_t known = TBBT_FSO_RMODE | TBBT_FSO_ATTRS;
    if (!o || (o->flags & known) != known || (o->flags & TBBT_FSO_GONE) || o->attr.type != TBBT_FT_DIR)
        return 0;
    return !((o->rmode >> tbbt_fsmodel_mode_shift(&o->attr, &r->cred)) & need);
}

/* A reply-lost read, write or truncate r (held as seq) whose permission
 * the model does not judge (the object's mode or owner unknown): the
 * traced outcome of the last such call before it by the same user on the
 * same object, when no record between could have changed the object's
 * mode or owner -- a denial then, a denial again. TBBT_PREDICT_ANY when
 * there is none. */
static int same_call_outcome(const struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    uint32_t need = tbbt_fsmodel_access_need(r);
    if (!need || !tbbt_rec_has(r, TBBT_F_OBJ)) return TBBT_PREDICT_ANY;
    for (uint64_t s = seq; s-- > p->head_seq && s + 4 * LOOKAHEAD > seq;) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (!tbbt_rec_has(q, TBBT_F_OBJ) || q->obj != r->obj) continue;
        if (q->op == TBBT_OP_SETATTR && !tbbt_fsmodel_access_need(q)) return TBBT_PREDICT_ANY;
        if ((q->flags & TBBT_RF_REPLY_LOST) || q->status < 0 || tbbt_fsmodel_access_need(q) != need ||
            q->cred.uid != r->cred.uid || q->cred.gid != r->cred.gid)
            continue;
        return q->status == TBBT_NFSERR_ACCES || q->status == TBBT_NFSERR_PERM ? q->status : TBBT_PREDICT_ANY;
    }
    return TBBT_PREDICT_ANY;
}

/* Would the mode and owner make mk gave its file (its attributes to
 * set, else the model's mode and mk's caller) deny lost call q (a read,
 * write or truncate by another than root and that owner)? */
static int make_denies(const struct tbbt_pass2 *p, const struct tbbt_rec *mk, const struct tbbt_rec *q) {
    uint32_t need = tbbt_fsmodel_access_need(q);
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, q->obj);
    if (!need || q->cred.flavor != TBBT_AUTH_SYS || q->cred.uid == 0 || mk->op != TBBT_OP_CREATE ||
        (mk->cred.flavor != TBBT_AUTH_SYS && !tbbt_rec_has(mk, TBBT_F_SET_UID)))
        return 0;
    uint32_t mode;
    if (tbbt_rec_has(mk, TBBT_F_SET_MODE))
        mode = (uint32_t)mk->set_mode;
    else if (o && (o->flags & TBBT_FSO_RMODE))
        mode = o->rmode;
    else
        return 0;
    struct tbbt_fsattr a = {.type = TBBT_FT_REG};
    a.uid = tbbt_rec_has(mk, TBBT_F_SET_UID) ? (uint32_t)mk->set_uid : mk->cred.uid;
    a.gid = tbbt_rec_has(mk, TBBT_F_SET_GID) ? (uint32_t)mk->set_gid : mk->cred.gid;
    return a.uid != q->cred.uid && !((mode >> tbbt_fsmodel_mode_shift(&a, &q->cred)) & need);
}

/* The create of obj held before seq, or waiting to go out (inserted), or
 * NULL. */
static const struct tbbt_rec *create_of(const struct tbbt_pass2 *p, tbbt_id obj, uint64_t seq) {
    for (uint64_t s = seq; s-- > p->head_seq;) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (q->op == TBBT_OP_CREATE && tbbt_rec_has(q, TBBT_F_NEWOBJ) && q->newobj == obj) return q;
    }
    for (guint i = 0; i < p->pending->len; i++) {
        const struct tbbt_rec *x = &((const struct ins *)p->pending->pdata[i])->r;
        if (x->op == TBBT_OP_CREATE && tbbt_rec_has(x, TBBT_F_NEWOBJ) && x->newobj == obj) return x;
    }
    return NULL;
}

/* Lost make mk (held as s) made obj, which the model learnt only now:
 * the lost reads, writes and truncates of obj held since, which the
 * model could not judge then (it knew neither mode nor owner) and took as
 * successes or left unresolved, were denied where mk's mode and owner deny them -- until a
 * setattr of the object, which may have changed them. */
static void rejudge_lost_uses(struct tbbt_pass2 *p, uint64_t s, tbbt_id obj) {
    const struct tbbt_rec *mk = &p->ring[s % p->cap];
    for (uint64_t k = s + 1; k <= p->played && k < p->next_seq; k++) {
        struct tbbt_rec *q = &p->ring[k % p->cap];
        if (!tbbt_rec_has(q, TBBT_F_OBJ) || q->obj != obj) continue;
        if (q->op == TBBT_OP_SETATTR && !tbbt_fsmodel_access_need(q)) return;
        if (!(q->flags & TBBT_RF_REPLY_LOST) || (q->status != TBBT_NFS_OK && q->status >= 0) ||
            !make_denies(p, mk, q))
            continue;
        if (q->status < 0) { /* it was left unresolved */
            p->st.lost_unresolved -= p->st.lost_unresolved > 0;
            p->st.lost_by_model++;
        }
        q->status = TBBT_NFSERR_ACCES;
    }
}

/* A reply-lost lookup goes out unresolved (the model did not know the
 * name when it was made, and a lookup changes nothing): the name was
 * then as it was before the trace, which the model may have learnt since
 * -- present, or else absent from the image pass 3 builds. The replay
 * gets that outcome. */
static void settle_lost_lookup(struct tbbt_pass2 *p, struct tbbt_rec *r) {
    if (r->op != TBBT_OP_LOOKUP || !(r->flags & TBBT_RF_REPLY_LOST) || r->status >= 0 ||
        !tbbt_rec_has(r, TBBT_F_DIR) || !tbbt_fsmodel_obj(p->m, r->dir))
        return;
    const struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len);
    if (d && d->init == TBBT_NAME_PRESENT) return; /* success, as assumed */
    r->status = TBBT_NFSERR_NOENT;
    p->st.lost_unresolved--;
    p->st.lost_by_model++;
}

/* A reply-lost record: the outcome is the model's prediction where it
 * knows (with the directory's mode: tbbt_fsmodel_predict_dir_access; the
 * object's owner: tbbt_fsmodel_predict_owner),
 * else assumed success, to be confirmed by a later record. */
static void lost_reply(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    p->st.lost++;
    int pred = tbbt_fsmodel_predict(p->m, r);
    /* a success the directory's mode forbids: the call was denied (only
     * here: a traced status is never judged by it) */
    if (pred == TBBT_NFS_OK && tbbt_fsmodel_predict_dir_access(p->m, r) == TBBT_NFSERR_ACCES)
        pred = TBBT_NFSERR_ACCES;
    /* so is a chmod, chown or utimes by another than the owner */
    if (pred == TBBT_NFS_OK && tbbt_fsmodel_predict_owner(p->m, r) == TBBT_NFSERR_PERM)
        pred = TBBT_NFSERR_PERM;
    /* and a read or write the same user was denied just before, or that
     * the mode and owner the file's create gave deny (one whose lost
     * create the model learns later: rejudge_lost_uses) */
    if (pred == TBBT_NFS_OK && tbbt_fsmodel_access_need(r) &&
        tbbt_fsmodel_predict_access(p->m, r) == TBBT_PREDICT_ANY) {
        int same = same_call_outcome(p, r, seq);
        const struct tbbt_rec *mk = same == TBBT_PREDICT_ANY ? create_of(p, r->obj, seq) : NULL;
        if (mk && make_denies(p, mk, r)) same = TBBT_NFSERR_ACCES;
        if (same != TBBT_PREDICT_ANY) pred = same;
    }
    /* and a lookup or listing the directory's mode denies */
    if ((pred == TBBT_NFS_OK || pred == TBBT_NFSERR_NOENT || pred == TBBT_PREDICT_ANY) &&
        search_denied(p->m, r))
        pred = TBBT_NFSERR_ACCES;
    if (pred == TBBT_PREDICT_ANY && r->status >= 0) pred = r->status; /* resolved by an earlier pass */
    if (pred != TBBT_PREDICT_ANY) {
        r->status = pred;
        p->st.lost_by_model++;
        tbbt_fsmodel_apply(p->m, r, pred);
        if (pred == TBBT_NFS_OK) await_object(p, r, seq);
        return;
    }
    p->st.lost_unresolved++;
    if (r->op == TBBT_OP_LOOKUP) return; /* changes nothing: settle_lost_lookup */
    tbbt_fsmodel_apply(p->m, r, TBBT_NFS_OK);
    if (!names_op(r->op) || !tbbt_rec_has(r, TBBT_F_NAME)) return;
    struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len);
    if (d) tbbt_pass2_dent(d)->lost_seq = seq;
}

/* Lost make l (held as s) made obj, which no record used before l was
 * called: the attributes a record showed of it since (before the record
 * that revealed which object l made) did not make it an object of the
 * initial image, as tbbt_fsmodel_learn_attrs takes one whose attributes
 * come before any record made it. It was made, and a directory began
 * empty (mark_made_empty). */
static void made_by_lost(struct tbbt_pass2 *p, uint64_t s, tbbt_id obj) {
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, obj);
    if (!o || !(o->flags & TBBT_FSO_INITIAL) || o->links || tbbt_pass2_obj(o)->first_seq <= s) return;
    o->flags &= ~(uint32_t)(TBBT_FSO_INITIAL | TBBT_FSO_INIT_ATTRS);
    o->flags |= TBBT_FSO_CREATED;
}

/* A record with a reply read (dir, name) and found it present as obj (0:
 * not shown) or absent: if a lost reply's assumed effect set that name
 * and the lost record is still held, this resolves it (and gives a lost
 * make the object it made). */
static void resolve_name(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len, int present,
                         tbbt_id obj) {
    struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, dir, name, len);
    if (!d || !tbbt_pass2_dent(d)->lost_seq) return;
    uint64_t s = tbbt_pass2_dent(d)->lost_seq;
    tbbt_pass2_dent(d)->lost_seq = 0;
    if (s < p->head_seq) return;
    struct tbbt_rec *l = &p->ring[s % p->cap];
    if (!(l->flags & TBBT_RF_REPLY_LOST)) return;
    int makes = l->op != TBBT_OP_REMOVE && l->op != TBBT_OP_RMDIR && l->op != TBBT_OP_RENAME;
    int binds = unbound_make(l);
    if (l->status >= 0) { /* resolved by a plain listing, which could not show the object */
        if (binds && present && obj && d->state == TBBT_NAME_PRESENT) {
            made_by_lost(p, s, obj);
            tbbt_rec_set_u64(l, TBBT_F_NEWOBJ, obj);
            rejudge_lost_uses(p, s, obj);
            mark_made_empty(p->m, l);
            p->unbound_lost -= p->unbound_lost > 0;
        } else if (binds && present && d->state == TBBT_NAME_PRESENT) {
            tbbt_pass2_dent(d)->lost_seq = s; /* still waiting for a record that shows the object */
        }
        return;
    }
    if (makes && present && d->state == TBBT_NAME_PRESENT) {
        l->status = TBBT_NFS_OK;
        if (binds && obj) {
            made_by_lost(p, s, obj);
            tbbt_rec_set_u64(l, TBBT_F_NEWOBJ, obj);
            rejudge_lost_uses(p, s, obj);
            mark_made_empty(p->m, l); /* as the model does when r binds it (dent_bind) */
        } else if (binds) {
            /* a plain readdir shows the name, not the object: a record
             * that shows it may still come while l is held */
            tbbt_pass2_dent(d)->lost_seq = s;
            p->unbound_lost++;
        }
    } else if (!makes && !present && d->state == TBBT_NAME_ABSENT) {
        l->status = TBBT_NFS_OK;
    } else {
        return;
    }
    p->st.lost_by_later++;
    p->st.lost_unresolved--;
}

/* Inserted make x, which a listing that showed no type made a regular
 * file, is shown to have made an object of another type (a symlink, a
 * directory): it becomes the make of that type (its mode that type's
 * usual one, a symlink's target a placeholder: a readlink's status does
 * not depend on it), so that the replay's object is what later records
 * use (a readlink of a file is refused). */
static void retype_make(struct tbbt_rec *x, uint32_t type) {
    if (!type || x->op != TBBT_OP_CREATE || type == TBBT_FT_REG ||
        (type != TBBT_FT_DIR && type != TBBT_FT_LNK))
        return;
    x->has &= ~((1ull << TBBT_F_CREATEHOW) | (1ull << TBBT_F_VERF));
    tbbt_rec_set_u64(x, TBBT_F_TYPE, type);
    if (type == TBBT_FT_DIR) {
        x->op = TBBT_OP_MKDIR;
        tbbt_rec_set_u64(x, TBBT_F_SET_MODE, 0755);
        return;
    }
    x->op = TBBT_OP_SYMLINK;
    tbbt_rec_set_u64(x, TBBT_F_SET_MODE, 0777);
    if (!tbbt_rec_has(x, TBBT_F_TARGET)) tbbt_rec_set_str(x, TBBT_F_TARGET, "tbbt-inserted", 13);
}

/* Inserted make x, made with no object (its owner a guess, its mode the
 * usual one), now makes obj: the owner and mode a reply showed of obj are
 * the make's; with none shown yet, the next reply that shows them mends
 * it (mend_owner). */
static void made_as_shown(struct tbbt_pass2 *p, struct tbbt_rec *x, tbbt_id obj) {
    struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(p->m, obj);
    if (!(o->flags & TBBT_FSO_ATTRS)) {
        tbbt_pass2_obj(o)->flags |= TBBT_PASS2_OWNER_GUESSED;
        return;
    }
    tbbt_rec_set_u64(x, TBBT_F_SET_UID, o->attr.uid);
    tbbt_rec_set_u64(x, TBBT_F_SET_GID, o->attr.gid);
    if (x->op != TBBT_OP_SYMLINK && o->attr.mode) tbbt_rec_set_u64(x, TBBT_F_SET_MODE, o->attr.mode & 07777);
}

/* Inserted make x, made with no object, is shown to have made obj, a
 * file (no directory) the model holds alive under another name: x was no
 * make but the link (or the rename, of which the link keeps the old name
 * too) the capture lost -- a create would give the replay a new file, and
 * the records on obj after the removal of another of its names would get
 * STALE. x becomes that link. Returns 1 when it did. */
static int link_instead(struct tbbt_pass2 *p, struct tbbt_rec *x, tbbt_id obj) {
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, obj);
    if (!o || !o->links || (o->flags & TBBT_FSO_GONE) || o->attr.type == TBBT_FT_DIR ||
        x->op == TBBT_OP_MKDIR)
        return 0;
    x->op = TBBT_OP_LINK;
    x->has &= (1ull << TBBT_F_DIR) | (1ull << TBBT_F_NAME);
    tbbt_rec_set_u64(x, TBBT_F_OBJ, obj);
    return 1;
}

/* A record shows obj as (dir, name): the latest inserted make of that
 * name still waiting to go out with no object (unbound_make) made it,
 * and now says so. Without it the replay makes the name but never learns
 * the object's handle, and every later use of the object fails (a file a
 * plain readdir listed before any reply showed it). The count of such
 * makes is refreshed on the way: those gone out are not counted again. */
static void mend_made(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len, tbbt_id obj,
                      uint32_t type) {
    if (!obj) return;
    const struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, dir, name, len);
    uint64_t left = 0;
    int done = !d || d->state != TBBT_NAME_PRESENT || d->obj; /* the name holds an unknown object */
    /* the name a held rename moved it from (the make's name, made for a
     * rename whose source the capture lost: rename-missing-source) */
    const struct tbbt_rec *mv = NULL;
    for (uint64_t s = p->played; !done && !mv && s-- > p->head_seq;) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (q->op == TBBT_OP_RENAME && q->status == TBBT_NFS_OK && tbbt_rec_has(q, TBBT_F_DIR2) &&
            q->dir2 == dir && q->name2.len == len && !memcmp(tbbt_rec_str(q, q->name2), name, len))
            mv = q;
    }
    for (guint i = p->pending->len; i-- > 0;) {
        struct tbbt_rec *x = &((struct ins *)p->pending->pdata[i])->r;
        if (!unbound_make(x)) continue;
        int here = x->dir == dir && x->name.len == len && !memcmp(tbbt_rec_str(x, x->name), name, len);
        if (!here && mv)
            here = x->dir == mv->dir && x->name.len == mv->name.len &&
                   !memcmp(tbbt_rec_str(x, x->name), tbbt_rec_str(mv, mv->name), mv->name.len);
        if (!done && here && link_instead(p, x, obj)) {
            done = 1;
        } else if (!done && here) {
            retype_make(x, type);
            tbbt_rec_set_u64(x, TBBT_F_NEWOBJ, obj);
            mark_made_empty(p->m, x);
            made_as_shown(p, x, obj);
            done = 1;
        } else {
            left++;
        }
    }
    p->unbound_makes = left;
}

/* A lookup or a listing with a reply shows objects under names: inserted
 * makes that did not know them get them (mend_made). */
static void bind_made(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->status != TBBT_NFS_OK) return;
    if (r->op == TBBT_OP_LOOKUP) {
        if (tbbt_rec_has(r, TBBT_F_NEWOBJ))
            mend_made(p, r->dir, tbbt_rec_str(r, r->name), r->name.len, r->newobj,
                      tbbt_rec_has(r, TBBT_F_TYPE) ? r->type : 0);
        return;
    }
    for (uint32_t i = 0; i < r->nentries && p->unbound_makes; i++)
        mend_made(p, r->obj, tbbt_rec_str(r, r->entries[i].name), r->entries[i].name.len, r->entries[i].id,
                  r->entries[i].type);
}

/* A lookup, or a listing, with a reply: the names it shows resolve lost
 * replies (resolve_name). */
static void resolve_lost(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->op == TBBT_OP_LOOKUP) {
        if (r->status == TBBT_NFS_OK || r->status == TBBT_NFSERR_NOENT)
            resolve_name(p, r->dir, tbbt_rec_str(r, r->name), r->name.len, r->status == TBBT_NFS_OK,
                         tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0);
        return;
    }
    if (r->status != TBBT_NFS_OK) return;
    for (uint32_t i = 0; i < r->nentries && names_await(p); i++)
        resolve_name(p, r->obj, tbbt_rec_str(r, r->entries[i].name), r->entries[i].name.len, 1,
                     r->entries[i].id);
}

/* The owner r's reply shows for object id, made by a corrective record
 * that had to guess it: the corrective record, if still waiting to go
 * out, gets it, and the mode r shows (the model's too). */
static void mend_owner(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id id) {
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, id);
    if (!o || !(tbbt_pass2_obj(o)->flags & TBBT_PASS2_OWNER_GUESSED)) return;
    tbbt_pass2_obj(o)->flags &= ~(uint32_t)TBBT_PASS2_OWNER_GUESSED;
    for (guint i = 0; i < p->pending->len; i++) {
        struct tbbt_rec *x = &((struct ins *)p->pending->pdata[i])->r;
        if (x->op == TBBT_OP_LINK || !tbbt_rec_has(x, TBBT_F_NEWOBJ) || x->newobj != id) continue;
        tbbt_rec_set_u64(x, TBBT_F_SET_UID, r->uid);
        tbbt_rec_set_u64(x, TBBT_F_SET_GID, r->gid);
        /* the mode too: with no reply that showed the owner, none showed
         * the mode the make took (make_name's usual one) */
        if (x->op != TBBT_OP_SYMLINK && tbbt_rec_has(r, TBBT_F_MODE)) {
            tbbt_rec_set_u64(x, TBBT_F_SET_MODE, r->mode & 07777);
            o->rmode = r->mode & 07777;
            o->flags |= TBBT_FSO_RMODE;
        }
    }
}

/* Maps the fileid of o that r's reply shows to o, unless an earlier reply
 * showed it. */
static void learn_fileid(struct tbbt_pass2 *p, struct tbbt_fsobj *o, int shown, uint64_t fileid) {
    if (!o || !shown || (tbbt_pass2_obj(o)->flags & TBBT_PASS2_FILEID)) return;
    tbbt_pass2_obj(o)->flags |= TBBT_PASS2_FILEID;
    uint64_t *k = g_new(uint64_t, 1);
    *k = fileid;
    g_hash_table_replace(p->by_fileid, k, GSIZE_TO_POINTER((gsize)o->id));
}

/* Notes the fileids r's reply shows -- of the object whose attributes it
 * carries (the new object's, else the handle's) and of the directories
 * whose attributes it carries -- for the objects it touches (o[k] for
 * ids[k] of preplay) whose fileid no reply showed before: a plain
 * readdir's entries have only fileids (make_listed). Not only at an
 * object's first record: that one's reply may be lost (a directory whose
 * mkdir was lost, first met by a call whose reply was lost too). */
static void learn_fileids(struct tbbt_pass2 *p, const struct tbbt_rec *r, struct tbbt_fsobj *const o[4]) {
    learn_fileid(p, o[1], tbbt_rec_has(r, TBBT_F_DIR_FILEID), r->dir_fileid);
    learn_fileid(p, o[2], tbbt_rec_has(r, TBBT_F_DIR2_FILEID), r->dir2_fileid);
    learn_fileid(p, tbbt_rec_has(r, TBBT_F_NEWOBJ) ? o[3] : o[0], tbbt_rec_has(r, TBBT_F_FILEID), r->fileid);
}

/* A reply showing the owner of an object whose owner a corrective record
 * guessed (mend_owner), once any record was inserted. */
static void learn_owner(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (!p->st.inserted || !tbbt_rec_has(r, TBBT_F_UID) || !tbbt_rec_has(r, TBBT_F_GID) ||
        (r->flags & TBBT_RF_INSERTED))
        return;
    tbbt_id id = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0;
    if (id) mend_owner(p, r, id);
}

/* ---- calls the snaplen cut (cut.h) ---- */

/* A plain readdir's entries show names with fileids but no objects:
 * the model's entry of each name it holds with no object is remembered by
 * (directory, fileid), so that a call whose name the snaplen cut and
 * whose reply shows that fileid gets the name back (known_name). Called
 * after the model learnt the listing; the model owns the entries. */
static void remember_listed(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->op != TBBT_OP_READDIR || r->status != TBBT_NFS_OK) return;
    for (uint32_t i = 0; i < r->nentries; i++) {
        const struct tbbt_dirent *e = &r->entries[i];
        if (e->id || !e->fileid) continue;
        struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, r->obj, tbbt_rec_str(r, e->name), e->name.len);
        if (!d || d->state != TBBT_NAME_PRESENT || d->obj) continue;
        struct listed_key *k = g_new(struct listed_key, 1);
        *k = (struct listed_key){r->obj, e->fileid};
        g_hash_table_replace(p->listed_names, k, d);
    }
}

/* The present name of object id in directory dir the model holds (an
 * earlier record with the whole name, a listing, or a synthetic name), or
 * NULL. */
static const struct tbbt_fsdent *name_in(const struct tbbt_fsmodel *m, tbbt_id dir, tbbt_id id) {
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(m, id) : NULL;
    for (const struct tbbt_fsdent *d = o ? o->links : NULL; d; d = d->link_next)
        if (d->dir == dir) return d;
    return NULL;
}

/* The name of object id in dir for record r, whose reply shows it: the
 * one the model holds, else the one a plain readdir of dir listed with
 * the fileid r's reply shows, if the model still holds that name with no
 * object. NULL when neither. */
static const struct tbbt_fsdent *known_name(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                            tbbt_id id) {
    const struct tbbt_fsdent *d = name_in(p->m, dir, id);
    if (d || !tbbt_rec_has(r, TBBT_F_FILEID)) return d;
    struct listed_key k = {dir, r->fileid};
    d = g_hash_table_lookup(p->listed_names, &k);
    return d && d->state == TBBT_NAME_PRESENT && !d->obj ? d : NULL;
}

/* Sets r's name field f (TBBT_F_NAME or TBBT_F_NAME2) to the len bytes of
 * name, flagged synthetic when it is one, and counts it. Returns 1. */
static int put_name(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, const char *name,
                    size_t len) {
    tbbt_rec_set_str(r, f, name, len);
    if (tbbt_cut_is_synth(name, len)) {
        r->flags |= TBBT_RF_NAME_SYNTH;
        p->synth_seen = 1;
        p->st.cut_synth++;
    } else {
        p->st.cut_restored++;
    }
    return 1;
}

/* Gives r's field f the synthetic name of object id in dir: the first of
 * "tbbt-cut-ID", "tbbt-cut-ID.2", ... that dir does not hold (a new name:
 * a make, link or rename target), or holds for id itself (old: a name
 * that was there). Returns 1. */
static int put_synth(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, tbbt_id dir, tbbt_id id,
                     int old) {
    char buf[64];
    int len = 0;
    for (unsigned n = 1; n < 1000; n++) {
        len = tbbt_cut_name(buf, sizeof(buf), id, n);
        tbbt_id cur = 0;
        enum tbbt_name_state st = tbbt_fsmodel_name(p->m, dir, buf, (size_t)len, &cur);
        if (st != TBBT_NAME_PRESENT || (old && cur == id)) break;
    }
    return put_name(p, r, f, buf, (size_t)len);
}

/* ---- objects whose cut rename is not known yet, and real names of
 * synthetically named objects ---- */

/* The key of (dir, name) in p->aliases (owned by the caller). */
static char *alias_key(tbbt_id dir, const char *name, size_t len) {
    return g_strdup_printf("%" PRIu64 "/%.*s", dir, (int)len, name);
}

/* A record with the whole name shows object x as (dir, name) where the
 * model holds x under a synthetic name in dir (the calls that named it
 * before were cut): the replay knows x by that synthetic name, so this
 * record and every later one that names (dir, name) while it holds x
 * name it so (rename_to_alias). Returns whether r was renamed. */
static int learn_alias(struct tbbt_pass2 *p, struct tbbt_rec *r, tbbt_id dir, const char *name, size_t len,
                       tbbt_id x) {
    if (!x || tbbt_cut_is_synth(name, len) || tbbt_dot_name(name, len)) return 0;
    tbbt_id cur = 0;
    if (tbbt_fsmodel_name(p->m, dir, name, len, &cur) == TBBT_NAME_PRESENT && cur == x) return 0;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x);
    for (const struct tbbt_fsdent *d = o ? o->links : NULL; d; d = d->link_next) {
        if (d->dir != dir || !tbbt_cut_is_synth(d->name, d->len)) continue;
        g_hash_table_replace(p->aliases, alias_key(dir, name, len), g_strndup(d->name, d->len));
        if (r) {
            tbbt_rec_set_str(r, TBBT_F_NAME, d->name, d->len);
            r->flags |= TBBT_RF_NAME_SYNTH;
            p->st.cut_aliased++;
        }
        return 1;
    }
    return 0;
}

/* Gives r's (dir, name) field f the synthetic name the replay knows it by
 * (learn_alias), while the model holds that name. */
static void alias_field(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f) {
    enum tbbt_field df = f == TBBT_F_NAME ? TBBT_F_DIR : TBBT_F_DIR2;
    if (!tbbt_rec_has(r, f) || !tbbt_rec_has(r, df)) return;
    tbbt_id dir = f == TBBT_F_NAME ? r->dir : r->dir2;
    struct tbbt_str s = f == TBBT_F_NAME ? r->name : r->name2;
    char *k = alias_key(dir, tbbt_rec_str(r, s), s.len);
    const char *a = g_hash_table_lookup(p->aliases, k);
    if (a && tbbt_fsmodel_name(p->m, dir, a, strlen(a), NULL) == TBBT_NAME_PRESENT) {
        tbbt_rec_set_str(r, f, a, strlen(a));
        r->flags |= TBBT_RF_NAME_SYNTH;
        p->st.cut_aliased++;
    } else if (a) {
        g_hash_table_remove(p->aliases, k); /* the synthetic name is gone: the real one is new */
    }
    g_free(k);
}

/* A record with whole names: names the replay knows by a synthetic name
 * get it (alias_field); a successful lookup that shows an object held
 * under a synthetic name in its directory teaches the alias. */
static void rename_to_alias(struct tbbt_pass2 *p, struct tbbt_rec *r) {
    if ((r->flags & TBBT_RF_NAME_SYNTH) || !p->synth_seen) return; /* no synthetic name yet: no alias */
    if (r->op == TBBT_OP_LOOKUP && r->status == TBBT_NFS_OK && tbbt_rec_has(r, TBBT_F_NEWOBJ) &&
        tbbt_rec_has(r, TBBT_F_NAME) &&
        learn_alias(p, r, r->dir, tbbt_rec_str(r, r->name), r->name.len, r->newobj))
        return;
    if (!g_hash_table_size(p->aliases)) return;
    alias_field(p, r, TBBT_F_NAME);
    alias_field(p, r, TBBT_F_NAME2);
}

static void note_cut_info(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir, struct tbbt_str name);
static void move_cut_info(struct tbbt_pass2 *p, tbbt_id from, struct tbbt_str fname, const struct tbbt_rec *r,
                          tbbt_id to, struct tbbt_str tname);

/* Moves object x's name (from, fname) to (to, tname) in the model (from
 * 0: adds the name), keeping its link count and life: a name the snaplen
 * hid, placed or placed again, not a remove and a make. */
static void move_obj(struct tbbt_pass2 *p, tbbt_id x, tbbt_id from, const char *fname, size_t flen,
                     tbbt_id to, const char *tname, size_t tlen) {
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x);
    if (!o) return;
    uint32_t nl = o->attr.nlink, type = o->attr.type;
    int gone = (o->flags & TBBT_FSO_GONE) != 0;
    if (from) tbbt_fsmodel_unlink(p->m, from, fname, flen);
    tbbt_fsmodel_link(p->m, to, tname, tlen, x, type);
    o = tbbt_fsmodel_obj(p->m, x);
    if (!gone) o->flags &= ~(uint32_t)TBBT_FSO_GONE;
    if (nl) o->attr.nlink = nl;
}

/* Sends held cut rename or link r (hold_move, hold_link) of known object
 * mv->obj whole to a guessed place -- a rename within its directory, a
 * link in the object's directory, under its synthetic name: the trace's
 * call succeeded and so does this one -- and the model follows. A later
 * record that shows the object elsewhere moves it there (resolve_move).
 * Without a place the record is not replayed, and the replay keeps a
 * name the trace took away, or loses one it made (a remove of the other
 * name then kills the file). */
static void place_held(struct tbbt_pass2 *p, struct tbbt_rec *r, struct move *mv) {
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, mv->obj);
    if (!o || (mv->link && !o->links)) return;
    enum tbbt_field df = mv->link ? TBBT_F_DIR : TBBT_F_DIR2, nf = mv->link ? TBBT_F_NAME : TBBT_F_NAME2;
    tbbt_id to = mv->link ? o->links->dir : mv->dir;
    tbbt_rec_set_u64(r, df, to);
    put_synth(p, r, nf, to, mv->obj, 0);
    struct tbbt_str t = mv->link ? r->name : r->name2;
    if (mv->link)
        move_obj(p, mv->obj, 0, NULL, 0, to, tbbt_rec_str(r, t), t.len);
    else
        move_obj(p, mv->obj, r->dir, tbbt_rec_str(r, r->name), r->name.len, to, tbbt_rec_str(r, t), t.len);
    if (mv->link && tbbt_rec_has(r, TBBT_F_NLINK)) tbbt_fsmodel_obj(p->m, mv->obj)->attr.nlink = r->nlink;
    if (!mv->link) move_cut_info(p, r->dir, r->name, r, to, t);
    r->flags &= (uint16_t)~TBBT_RF_ARGS_CUT;
    p->st.cut_unreplayable--;
    p->st.cut_moves_placed++;
    mv->placed = 1;
}

/* A successful rename the snaplen cut after its source directory, held
 * as seq: its target is not known, nor, when it was cut too, its source
 * name. Where the source names a known object, the model takes the name
 * away and keeps the object (with no name there: the replay does not send
 * the rename unless a later record shows where the object went,
 * resolve_move). */
static void hold_move(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    if (!tbbt_rec_has(r, TBBT_F_DIR) || !r->dir) return;
    struct move mv = {seq, r->dir, 0, 0, 0};
    if (tbbt_rec_has(r, TBBT_F_NAME) &&
        tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &mv.obj) ==
            TBBT_NAME_PRESENT &&
        mv.obj) {
        place_held(p, r, &mv);
    } else if (tbbt_rec_has(r, TBBT_F_NAME)) {
        return; /* the source is not known: nothing to match a later record with */
    }
    g_array_append_val(p->moves, mv);
}

/* A successful link the snaplen cut after its object's handle, held as
 * seq: the directory it made a name in is not known. A later record that
 * shows the object in a directory where the model holds no name of it
 * tells (resolve_move); else it goes out in the object's own directory
 * (place_move). */
static void hold_link(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    if (!tbbt_rec_has(r, TBBT_F_OBJ) || !r->obj || tbbt_rec_has(r, TBBT_F_DIR)) return;
    struct move mv = {seq, 0, r->obj, 1, 0};
    place_held(p, r, &mv);
    if (mv.placed) g_array_append_val(p->moves, mv);
}

/* Held cut renames whose target no record showed and that went to no
 * guessed place either (their object was not known): a name the model
 * lacks may be theirs. */
static unsigned moves_unplaced(const struct tbbt_pass2 *p) {
    unsigned n = 0;
    for (guint i = 0; i < p->moves->len; i++)
        n += !g_array_index(p->moves, struct move, i).placed;
    return n;
}

/* The open cut rename (hold_move) that moved object x: the one whose
 * source named x; else, when x has a single name, in directory d, the
 * only one from d whose source name was cut (*name_of gets x's name
 * there). -1 when none, or more than one could have. */
static int move_of(struct tbbt_pass2 *p, tbbt_id x, const struct tbbt_fsdent **name_of) {
    int found = -1;
    *name_of = NULL;
    for (guint i = p->moves->len; i-- > 0;) /* the latest: a sighting shows where x went last */
        if (g_array_index(p->moves, struct move, i).obj == x) return (int)i;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x);
    if (!o || !o->links || o->links->link_next) return -1;
    for (guint i = 0; i < p->moves->len; i++) {
        const struct move *mv = &g_array_index(p->moves, struct move, i);
        if (mv->obj || mv->link || mv->dir != o->links->dir) continue;
        if (found >= 0) return -1; /* two could have: neither is known */
        found = (int)i;
    }
    *name_of = o->links;
    return found;
}

/* Held cut rename or link r, placed by a guess (place_held), made the
 * name (dir, name) of its object (name NULL: a synthetic one), a later
 * record shows: the record and the model move it there. Returns 1. */
static int replace_held(struct tbbt_pass2 *p, struct tbbt_rec *r, const struct move *mv, tbbt_id dir,
                        const char *name, size_t len) {
    enum tbbt_field df = mv->link ? TBBT_F_DIR : TBBT_F_DIR2, nf = mv->link ? TBBT_F_NAME : TBBT_F_NAME2;
    struct tbbt_str old = mv->link ? r->name : r->name2;
    tbbt_id from = mv->link ? r->dir : r->dir2;
    char *oname = g_strndup(tbbt_rec_str(r, old), old.len);
    tbbt_rec_set_u64(r, df, dir);
    if (name)
        put_name(p, r, nf, name, len);
    else
        put_synth(p, r, nf, dir, mv->obj, 0);
    struct tbbt_str t = mv->link ? r->name : r->name2;
    move_obj(p, mv->obj, from, oname, strlen(oname), dir, tbbt_rec_str(r, t), t.len);
    char *k = alias_key(from, oname, strlen(oname));
    struct tbbt_cut_info *ci = g_hash_table_lookup(p->cut_infos, k);
    if (ci) {
        ci->dir = dir;
        g_hash_table_insert(p->cut_infos, alias_key(dir, tbbt_rec_str(r, t), t.len),
                            g_memdup2(ci, sizeof(*ci)));
        g_hash_table_remove(p->cut_infos, k);
    }
    g_free(k);
    g_free(oname);
    p->st.cut_moves_placed--; /* counted as placed by a guess; now shown */
    return 1;
}

/* A record shows object x as (dir, name) (name NULL: a call whose name
 * was cut), a name the model does not hold: if x left its name by
 * a cut rename still held (move_of), that rename went there. It gets its
 * source name (if cut), its target (the shown name, else x's synthetic
 * one) and is replayable again; the model applies it now. Returns whether
 * it did. */
static int resolve_move(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len, tbbt_id x) {
    const struct tbbt_fsdent *src = NULL;
    int i = x && p->moves->len ? move_of(p, x, &src) : -1;
    if (i < 0 || (name && tbbt_dot_name(name, len))) return 0;
    struct move mv = g_array_index(p->moves, struct move, i);
    tbbt_id cur = 0;
    if (mv.seq < p->head_seq || (src && src->dir == dir)) return 0;
    /* a name the model holds for x, or for an object no record showed, came by other records */
    if (name && tbbt_fsmodel_name(p->m, dir, name, len, &cur) == TBBT_NAME_PRESENT && (!cur || cur == x))
        return 0;
    g_array_remove_index(p->moves, (guint)i);
    struct tbbt_rec *r = &p->ring[mv.seq % p->cap];
    if (mv.placed) return replace_held(p, r, &mv, dir, name, len);
    if (src) put_name(p, r, TBBT_F_NAME, src->name, src->len);
    tbbt_rec_set_u64(r, TBBT_F_DIR2, dir);
    if (name)
        tbbt_rec_set_str(r, TBBT_F_NAME2, name, len);
    else
        put_synth(p, r, TBBT_F_NAME2, dir, x, 0);
    r->flags &= (uint16_t)~TBBT_RF_ARGS_CUT;
    p->st.cut_unreplayable--;
    p->st.cut_restored += !src && name; /* else put_name or put_synth counted it */
    if (src) {
        tbbt_fsmodel_apply(p->m, r, TBBT_NFS_OK); /* the source still names x in the model */
        return 1;
    }
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x);
    uint32_t nl = o->attr.nlink, type = o->attr.type;
    tbbt_fsmodel_link(p->m, dir, tbbt_rec_str(r, r->name2), r->name2.len, x, type);
    if (nl) tbbt_fsmodel_obj(p->m, x)->attr.nlink = nl;
    return 1;
}

/* The objects a lookup or a readdirplus with whole names shows resolve
 * the cut renames that moved them (resolve_move). */
static void sightings(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (!p->moves->len || r->status != TBBT_NFS_OK || (r->flags & TBBT_RF_NAME_SYNTH)) return;
    if (r->op == TBBT_OP_LOOKUP && tbbt_rec_has(r, TBBT_F_NEWOBJ) && tbbt_rec_has(r, TBBT_F_NAME))
        resolve_move(p, r->dir, tbbt_rec_str(r, r->name), r->name.len, r->newobj);
    for (uint32_t i = 0; r->op == TBBT_OP_READDIRPLUS && i < r->nentries; i++)
        resolve_move(p, r->obj, tbbt_rec_str(r, r->entries[i].name), r->entries[i].name.len,
                     r->entries[i].id);
}

/* ---- removes and rmdirs whose name the snaplen cut ---- */

/* Cut removals gone out unnamed kept as ghosts (rm_drop), at most: an
 * older one's directory is tainted instead. */
#define RM_GHOSTS 256

/* Candidates a held cut removal follows, at most: every later record is
 * checked against each one, so a removal in a larger directory stays
 * unnamed (and taints it). */
#define RM_CANDS 512

/* A cut removal in directory dir stayed unnamed and is forgotten: a name
 * the model holds there may be the one it removed, so no later one is
 * named there. */
static void rm_taint(struct tbbt_pass2 *p, tbbt_id dir) {
    tbbt_id *k = g_new(tbbt_id, 1);
    *k = dir;
    g_hash_table_add(p->rm_tainted, k);
}

static int rm_settle(struct tbbt_pass2 *p, guint i);
static enum tbbt_cut_match cut_match_dent(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                          const struct tbbt_fsdent *d);

/* Holds successful remove or rmdir r (held as seq), whose name the
 * snaplen cut: its candidates are the names the model holds in its
 * directory, of the right type (a directory for an rmdir, else not one).
 * Later records tell which it removed (rm_evidence); the model keeps the
 * names until then, and the record stays unreplayable unless one is
 * found (or the directory holds more than RM_CANDS names). One
 * candidate alone, of names the model holds completely, is taken at once
 * (rm_settle). */
static void hold_remove(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (r->status != TBBT_NFS_OK || !tbbt_rec_has(r, TBBT_F_DIR)) return;
    if (tbbt_rec_has(r, TBBT_F_NAME) || tbbt_cut_missing(r) != (1ull << TBBT_F_NAME)) {
        rm_taint(p, r->dir);
        return;
    }
    const struct tbbt_fsobj *d = tbbt_fsmodel_obj(p->m, r->dir);
    struct rmcut *c = g_new0(struct rmcut, 1);
    c->seq = seq;
    c->dir = r->dir;
    c->cands = g_array_new(FALSE, TRUE, sizeof(struct rmcand));
    for (const struct tbbt_fsdent *e = d ? d->children : NULL; e; e = e->child_next) {
        const struct tbbt_fsobj *o = e->obj ? tbbt_fsmodel_obj(p->m, e->obj) : NULL;
        int isdir = (o && o->attr.type == TBBT_FT_DIR) || e->made_dir;
        if (tbbt_dot_name(e->name, e->len) || (r->op == TBBT_OP_RMDIR ? !isdir : isdir)) continue;
        if (r->op == TBBT_OP_RMDIR && o && o->nchildren) continue; /* not empty */
        if (tbbt_rec_has(r, TBBT_F_CUTLEN) && cut_match_dent(p, r, r->dir, e) == TBBT_CUT_NO)
            continue; /* its length or kept start differ */
        struct rmcand k = {g_strndup(e->name, e->len), e->len, e->obj, 0, 1, 0};
        g_array_append_val(c->cands, k);
    }
    if (c->cands->len > RM_CANDS) { /* too many to follow: any could be the one */
        rmcut_free(c);
        rm_taint(p, r->dir);
        return;
    }
    g_ptr_array_add(p->rmcuts, c);
    rm_settle(p, p->rmcuts->len - 1);
}

/* Candidates of c not ruled out yet; *last gets the index of one. */
static unsigned rm_left(const struct rmcut *c, guint *last) {
    unsigned n = 0;
    for (guint i = 0; i < c->cands->len; i++)
        if (g_array_index(c->cands, struct rmcand, i).left) {
            n++;
            *last = i;
        }
    return n;
}

/* Does the model hold every name held cut removal c may have removed:
 * its directory was made by the trace (it began empty), no unnamed cut
 * removal there was forgotten, and no cut rename's target is unknown?
 * Only then does ruling the others out name it. (Names other removals
 * took away stay candidates -- they are never used again -- so they
 * leave two, not a wrong one.) */
static int rm_complete(const struct tbbt_pass2 *p, const struct rmcut *c) {
    if (moves_unplaced(p) || g_hash_table_contains(p->rm_tainted, &c->dir) ||
        !tbbt_fsmodel_dir_fresh(p->m, c->dir))
        return 0;
    return 1;
}

static struct rmcand *rm_cand(struct rmcut *c, const char *name, size_t len);

/* Name (name, len) of directory dir was removed by a named cut removal:
 * the other held ones and the ghosts there did not remove it. */
static void rm_gone_elsewhere(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len) {
    GPtrArray *lists[2] = {p->rmcuts, p->rm_ghosts};
    for (int l = 0; l < 2; l++)
        for (guint i = 0; i < lists[l]->len; i++) {
            struct rmcut *o = lists[l]->pdata[i];
            struct rmcand *x = o->dir == dir ? rm_cand(o, name, len) : NULL;
            if (x) x->left = 0;
        }
}

/* Gives held cut removal c (index i of p->rmcuts) candidate k's name: the
 * record is whole again and the model removes the name now. */
static void rm_resolve(struct tbbt_pass2 *p, guint i, guint k) {
    struct rmcut *c = p->rmcuts->pdata[i];
    const struct rmcand *x = &g_array_index(c->cands, struct rmcand, k);
    struct tbbt_rec *r = &p->ring[c->seq % p->cap];
    put_name(p, r, TBBT_F_NAME, x->name, x->len);
    r->flags &= (uint16_t)~TBBT_RF_ARGS_CUT;
    p->st.cut_unreplayable--;
    tbbt_id victim = 0;
    tbbt_fsmodel_name(p->m, r->dir, x->name, x->len, &victim);
    tbbt_fsmodel_apply(p->m, r, TBBT_NFS_OK);
    struct tbbt_fsobj *vo = victim ? tbbt_fsmodel_obj(p->m, victim) : NULL;
    if (vo && (vo->flags & TBBT_FSO_GONE)) tbbt_pass2_obj(vo)->removed_by = c->seq;
    g_ptr_array_remove_index(p->rmcuts, i);
    rm_gone_elsewhere(p, r->dir, tbbt_rec_str(r, r->name), r->name.len);
}

/* Drops held cut removal i: it stays unreplayable, and becomes a ghost
 * -- one of the names it still may have removed is gone, so a later
 * record that shows one gone may not name another removal (rm_pick), nor
 * may elimination in its directory (rm_complete) -- unless none is left
 * (its name was not one the model held). */
static void rm_drop(struct tbbt_pass2 *p, guint i) {
    struct rmcut *c = g_ptr_array_steal_index(p->rmcuts, i);
    guint k = 0;
    if (!rm_left(c, &k)) {
        rmcut_free(c);
        return;
    }
    if (p->rm_ghosts->len >= RM_GHOSTS) {
        rm_taint(p, ((struct rmcut *)p->rm_ghosts->pdata[0])->dir);
        g_ptr_array_remove_index(p->rm_ghosts, 0);
    }
    g_ptr_array_add(p->rm_ghosts, c);
}

/* Held cut removal i after new evidence: named when the one candidate
 * left was shown gone, or is the only one left of names the model holds
 * completely (rm_complete); dropped when none is left. Returns whether it
 * is gone from p->rmcuts. */
static int rm_settle(struct tbbt_pass2 *p, guint i) {
    struct rmcut *c = p->rmcuts->pdata[i];
    guint k = 0;
    unsigned n = rm_left(c, &k);
    if (n == 1 && (c->picked || rm_complete(p, c))) {
        p->st.cut_rm_named++;
        rm_resolve(p, i, k);
    } else if (n == 0) {
        rm_drop(p, i);
    } else {
        return 0;
    }
    return 1;
}

/* Candidate of c named (name, len), or NULL. */
static struct rmcand *rm_cand(struct rmcut *c, const char *name, size_t len) {
    for (guint i = 0; i < c->cands->len; i++) {
        struct rmcand *x = &g_array_index(c->cands, struct rmcand, i);
        if (x->left && x->len == len && memcmp(x->name, name, len) == 0) return x;
    }
    return NULL;
}

/* Candidate of c that names object id, or NULL. */
static struct rmcand *rm_cand_obj(struct rmcut *c, tbbt_id id) {
    for (guint i = 0; id && i < c->cands->len; i++) {
        struct rmcand *x = &g_array_index(c->cands, struct rmcand, i);
        if (x->left && x->obj == id) return x;
    }
    return NULL;
}

/* What record r says of (dir, name) for a held cut removal: 1 the name
 * was gone (a lookup, remove, rmdir or rename from it found nothing; a
 * make that fails on an existing name succeeded), -1 it was there (those
 * succeeded, or the make found it), 0 nothing. */
static int rm_name_says(const struct tbbt_rec *r) {
    int exclusive = r->op == TBBT_OP_MKDIR || r->op == TBBT_OP_SYMLINK || r->op == TBBT_OP_MKNOD ||
                    r->op == TBBT_OP_LINK || (r->op == TBBT_OP_CREATE && r->createhow != 0);
    if (exclusive) return r->status == TBBT_NFS_OK ? 1 : r->status == TBBT_NFSERR_EXIST ? -1 : 0;
    if (r->op != TBBT_OP_LOOKUP && r->op != TBBT_OP_REMOVE && r->op != TBBT_OP_RMDIR &&
        r->op != TBBT_OP_RENAME)
        return 0;
    return r->status == TBBT_NFSERR_NOENT ? 1 : r->status == TBBT_NFS_OK ? -1 : 0;
}

/* Did create r make a new object under a name the model holds for
 * another (the reply shows it)? The other one's name was removed first. */
static int made_anew(const struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    tbbt_id cur = 0;
    if (r->op != TBBT_OP_CREATE || r->status != TBBT_NFS_OK || !tbbt_rec_has(r, TBBT_F_NEWOBJ) || !r->newobj)
        return 0;
    return tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &cur) ==
               TBBT_NAME_PRESENT &&
           cur && cur != r->newobj;
}

/* Did make r get, as the new object, one the model holds under another
 * name (a server that reuses a removed file's handle), with one link? The
 * old names were removed first. */
static int made_again(const struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->op >= TBBT_OP_COUNT || !(tbbt_op_info(r->op)->flags & TBBT_OPF_CREATES) ||
        r->status != TBBT_NFS_OK || !tbbt_rec_has(r, TBBT_F_NEWOBJ) || !r->newobj ||
        (r->op != TBBT_OP_MKDIR && (!tbbt_rec_has(r, TBBT_F_NLINK) || r->nlink != 1)))
        return 0;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, r->newobj);
    for (const struct tbbt_fsdent *d = o ? o->links : NULL; d; d = d->link_next)
        if (d->dir != r->dir || d->len != r->name.len ||
            memcmp(d->name, tbbt_rec_str(r, r->name), d->len) != 0)
            return 1;
    return 0;
}

/* Does the model hold object id under one name only (so that a removed
 * name leaves it gone: a use of its handle tells)? */
static int single_link(const struct tbbt_fsmodel *m, tbbt_id id) {
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(m, id) : NULL;
    return o && o->links && !o->links->link_next && o->attr.nlink <= 1;
}

/* A record made after them showed that the name (name, len) of directory
 * dir (name NULL: the only name of object id) is gone: when no unnamed
 * removal (a ghost) may have removed it, the first held cut removal that
 * may have did (its other candidates are ruled out). Of several, any
 * could have, and whichever did, the state after them all is the same:
 * none of them left the name to a record in between (rm_rule_out). */
static void rm_pick(struct tbbt_pass2 *p, uint64_t seq, tbbt_id dir, const char *name, size_t len,
                    tbbt_id id) {
    struct rmcut *only = NULL;
    struct rmcand *x = NULL;
    for (guint i = 0; i < p->rmcuts->len; i++) {
        struct rmcut *c = p->rmcuts->pdata[i];
        struct rmcand *y = c->seq >= seq ? NULL
                           : name        ? (c->dir == dir ? rm_cand(c, name, len) : NULL)
                                         : rm_cand_obj(c, id);
        if (!y || only) continue;
        only = c; /* of several, the first: after them all the state is the same */
        x = y;
    }
    if (!only || g_hash_table_contains(p->rm_tainted, &only->dir)) return;
    for (guint i = 0; i < p->rm_ghosts->len; i++) {
        struct rmcut *g = p->rm_ghosts->pdata[i];
        if (name ? g->dir == dir && rm_cand(g, name, len) : rm_cand_obj(g, id) != NULL)
            return; /* an unnamed removal may have */
    }
    for (guint j = 0; j < only->cands->len; j++) {
        struct rmcand *y = &g_array_index(only->cands, struct rmcand, j);
        y->left = y == x;
    }
    only->picked = 1;
}

/* Record r made a name of held cut removal c's directory anew (a make, a
 * link, a rename's target): a later use of that name may be of the new
 * object, so it no longer rules the candidate out. */
static void rm_remade(struct rmcut *c, const struct tbbt_rec *r) {
    if (r->status != TBBT_NFS_OK || r->op >= TBBT_OP_COUNT) return;
    struct rmcand *x = NULL;
    if ((tbbt_op_info(r->op)->flags & TBBT_OPF_CREATES) || r->op == TBBT_OP_LINK) {
        if (tbbt_rec_has(r, TBBT_F_NAME) && r->dir == c->dir)
            x = rm_cand(c, tbbt_rec_str(r, r->name), r->name.len);
    } else if (r->op == TBBT_OP_RENAME && tbbt_rec_has(r, TBBT_F_NAME2) && r->dir2 == c->dir) {
        x = rm_cand(c, tbbt_rec_str(r, r->name2), r->name2.len);
    }
    if (x) x->remade = 1;
}

/* What record r (held as seq) shows of the candidates of held cut
 * removal c (made before it): a candidate name it uses with success, or
 * lists, or whose only object it uses with success, was not removed; an
 * object it names is used (rm_window_end). */
static void rm_rule_out(struct tbbt_pass2 *p, struct rmcut *c, const struct tbbt_rec *r) {
    rm_remade(c, r);
    if (tbbt_rec_has(r, TBBT_F_DIR) && r->dir == c->dir && tbbt_rec_has(r, TBBT_F_NAME)) {
        struct rmcand *x = rm_cand(c, tbbt_rec_str(r, r->name), r->name.len);
        int same =
            r->op == TBBT_OP_LOOKUP && x && x->obj && tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj == x->obj;
        if (x && rm_name_says(r) < 0 && (!x->remade || same)) x->left = 0;
    }
    if ((r->op == TBBT_OP_READDIR || r->op == TBBT_OP_READDIRPLUS) && r->status == TBBT_NFS_OK &&
        r->obj == c->dir)
        for (uint32_t e = 0; e < r->nentries; e++) {
            const struct tbbt_dirent *d = &r->entries[e];
            struct rmcand *x = rm_cand(c, tbbt_rec_str(r, d->name), d->name.len);
            if (x && (!x->remade || (x->obj && d->id == x->obj))) x->left = 0;
        }
    tbbt_id ids[5];
    record_objects(p->m, r, ids);
    for (guint i = 0; i < c->cands->len; i++) {
        struct rmcand *x = &g_array_index(c->cands, struct rmcand, i);
        for (int k = 0; x->obj && k < 5; k++)
            if (ids[k] == x->obj) x->used = 1;
        if (x->obj && tbbt_rec_has(r, TBBT_F_OBJ) && r->obj == x->obj && r->status == TBBT_NFS_OK &&
            single_link(p->m, x->obj))
            x->left = 0;
    }
}

/* Record r (held as seq, with its reply), before it is judged: what it
 * shows of the names held cut removes may have removed -- gone (a name
 * not found, a make that needs it absent or makes a new object under it,
 * a stale handle of an object with one name, a make that gets a held
 * object's handle anew: rm_pick) or still there (rm_rule_out) -- and an rmdir
 * of their directory (every name in it went) narrow their candidates;
 * a removal named so is applied to the model before r is judged. */
static void rm_evidence(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (tbbt_rec_has(r, TBBT_F_DIR) && tbbt_rec_has(r, TBBT_F_NAME) &&
        (rm_name_says(r) > 0 || made_anew(p, r)))
        rm_pick(p, seq, r->dir, tbbt_rec_str(r, r->name), r->name.len, 0);
    if (tbbt_rec_has(r, TBBT_F_OBJ) && r->status == TBBT_NFSERR_STALE && single_link(p->m, r->obj))
        rm_pick(p, seq, 0, NULL, 0, r->obj);
    if (made_again(p, r)) rm_pick(p, seq, 0, NULL, 0, r->newobj);
    tbbt_id gone = 0;
    if (r->op == TBBT_OP_RMDIR && r->status == TBBT_NFS_OK && tbbt_rec_has(r, TBBT_F_NAME))
        tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &gone);
    for (guint i = 0; i < p->rmcuts->len; i++) {
        struct rmcut *c = p->rmcuts->pdata[i];
        if (seq <= c->seq) continue;
        if (gone && gone == c->dir) { /* emptied: the window's end rule decides now */
            rm_window_end(p, c->seq);
            i--;
            continue;
        }
        rm_rule_out(p, c, r);
        if (rm_settle(p, i)) i--;
    }
    for (guint i = 0; i < p->rm_ghosts->len; i++) {
        struct rmcut *g = p->rm_ghosts->pdata[i];
        guint k = 0;
        rm_rule_out(p, g, r);
        if (!rm_left(g, &k)) g_ptr_array_remove_index(p->rm_ghosts, i--);
    }
}

/* The held record seq goes out (or its directory is removed): a cut
 * removal of it with several candidates left, where the model holds every
 * name it may have removed (rm_complete), takes the only one whose object
 * no later record in the window used (counted apart); with none, or
 * several (any could be the one: a guess would remove a name the trace
 * keeps), it stays unreplayable. */
static void rm_window_end(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->rmcuts->len; i++) {
        struct rmcut *c = p->rmcuts->pdata[i];
        if (c->seq != seq) continue;
        int best = -1, n = 0;
        for (guint k = 0; k < c->cands->len; k++) {
            const struct rmcand *x = &g_array_index(c->cands, struct rmcand, k);
            if (!x->left || x->used) continue;
            best = (int)k;
            n++;
        }
        if (n != 1 || !rm_complete(p, c)) {
            rm_drop(p, i);
        } else {
            p->st.cut_rm_guessed++;
            rm_resolve(p, i, (guint)best);
        }
        return;
    }
}

/* Would correcting r's failure (predicted, traced) rest on a name a cut
 * rename may have made? While a cut rename's target is not known
 * (p->moves), a remove, rmdir, rename or link that found a name the
 * model has absent may have found that one: the judgement is withheld. */
static int withheld(struct tbbt_pass2 *p, const struct tbbt_rec *r, enum tbbt_oc pred, enum tbbt_oc traced) {
    if (!p->moves->len || pred != TBBT_OC_NOENT || traced != TBBT_OC_OK) return 0;
    if (r->op != TBBT_OP_REMOVE && r->op != TBBT_OP_RMDIR && r->op != TBBT_OP_RENAME) return 0;
    p->st.cut_withheld++;
    return 1;
}

/* The object lookup or make r's reply shows: the new object, else the
 * live object an earlier reply showed with the fileid r's reply shows. */
static tbbt_id shown_obj(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj) return r->newobj;
    return tbbt_rec_has(r, TBBT_F_FILEID) ? live_by_fileid(p, r->fileid) : 0;
}

enum cut_want { CUT_ANY, CUT_FILE, CUT_DIR };
static const struct tbbt_fsdent *cut_likely(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                            enum cut_want want);

/* The cut name of successful lookup r: the object's name the model
 * knows in the directory (also one a cut rename of it that this lookup
 * resolves gives it there: resolve_move), else a synthetic one where the object can have
 * had a name there before the trace -- neither it nor the directory was
 * made by the trace, and it is not a directory named elsewhere -- which
 * the model then learns as initial, as pass 3 does. Returns 1 when named. */
static int restore_lookup(struct tbbt_pass2 *p, struct tbbt_rec *r) {
    tbbt_id x = r->status == TBBT_NFS_OK ? shown_obj(p, r) : 0;
    if (!x) return 0;
    const struct tbbt_fsdent *d = cut_likely(p, r, r->dir, CUT_ANY); /* of several names of x, its own */
    if (d && d->obj == x) return put_name(p, r, TBBT_F_NAME, d->name, d->len);
    d = known_name(p, r, r->dir, x);
    if (!d && p->moves->len && resolve_move(p, r->dir, NULL, 0, x)) d = name_in(p->m, r->dir, x);
    if (d) {
        put_name(p, r, TBBT_F_NAME, d->name, d->len);
        /* what the capture kept of the real name is now known: a later cut call matches it */
        if (tbbt_cut_is_synth(d->name, d->len)) note_cut_info(p, r, r->dir, r->name);
        return 1;
    }
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x);
    if (o && (o->flags & (TBBT_FSO_CREATED | TBBT_FSO_INITIAL)) == TBBT_FSO_CREATED) return 0;
    if (tbbt_fsmodel_dir_fresh(p->m, r->dir)) return 0;
    int isdir =
        (o && o->attr.type == TBBT_FT_DIR) || (tbbt_rec_has(r, TBBT_F_TYPE) && r->type == TBBT_FT_DIR);
    if (isdir && o && o->links) return 0;
    return put_synth(p, r, TBBT_F_NAME, r->dir, x, 1);
}

/* Can the attributes to set of make r, which the snaplen may have cut, be
 * rebuilt: the mode from its reply (or the verifier of an exclusive
 * create), a mknod's type from its reply? */
static int make_attrs_known(const struct tbbt_rec *r) {
    if (r->op == TBBT_OP_MKNOD && !tbbt_rec_has(r, TBBT_F_NODETYPE) && !tbbt_rec_has(r, TBBT_F_TYPE))
        return 0;
    if (r->op == TBBT_OP_CREATE && tbbt_rec_has(r, TBBT_F_CREATEHOW) && r->createhow == 2) return 1;
    return tbbt_rec_has(r, TBBT_F_SET_MODE) || tbbt_rec_has(r, TBBT_F_MODE);
}

/* Rebuilds the attributes to set of make r (make_attrs_known): an
 * unchecked create when the mode of creation was cut, the mode its reply
 * shows, the verifier of an exclusive create (any one does for a new
 * name), a symlink's target (the one the model knows, else a placeholder:
 * nothing replays its content), a mknod's type. Returns whether a field
 * was filled. */
static int fill_make_attrs(struct tbbt_rec *r, const struct tbbt_fsmodel *m) {
    uint64_t had = r->has;
    if (r->op == TBBT_OP_CREATE && r->vers == 3 && !tbbt_rec_has(r, TBBT_F_CREATEHOW))
        tbbt_rec_set_u64(r, TBBT_F_CREATEHOW, 0);
    if (r->op == TBBT_OP_CREATE && tbbt_rec_has(r, TBBT_F_CREATEHOW) && r->createhow == 2) {
        if (!tbbt_rec_has(r, TBBT_F_VERF)) tbbt_rec_set_u64(r, TBBT_F_VERF, r->xid);
        return r->has != had;
    }
    if (r->op == TBBT_OP_MKNOD && !tbbt_rec_has(r, TBBT_F_NODETYPE))
        tbbt_rec_set_u64(r, TBBT_F_NODETYPE, r->type);
    if (!tbbt_rec_has(r, TBBT_F_SET_MODE)) tbbt_rec_set_u64(r, TBBT_F_SET_MODE, r->mode & 07777);
    if (r->op == TBBT_OP_SYMLINK && !tbbt_rec_has(r, TBBT_F_TARGET)) {
        const struct tbbt_fsobj *o = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? tbbt_fsmodel_obj(m, r->newobj) : NULL;
        if (o && o->target)
            tbbt_rec_set_str(r, TBBT_F_TARGET, o->target, strlen(o->target));
        else
            tbbt_rec_set_str(r, TBBT_F_TARGET, TBBT_CUT_PREFIX "target",
                             sizeof(TBBT_CUT_PREFIX "target") - 1);
    }
    return r->has != had;
}

/* Restores successful make r (create, mkdir, symlink, mknod): its cut
 * name (the new object's name the model knows there, else a synthetic
 * one) and its cut attributes. Returns 1 when done. */
static int restore_make(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t miss) {
    tbbt_id x = r->status == TBBT_NFS_OK && tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0;
    if (!make_attrs_known(r) || ((miss & (1ull << TBBT_F_NAME)) && !x)) return 0;
    if (miss & (1ull << TBBT_F_NAME)) {
        const struct tbbt_fsdent *d = name_in(p->m, r->dir, x);
        if (d) {
            put_name(p, r, TBBT_F_NAME, d->name, d->len);
        } else {
            put_synth(p, r, TBBT_F_NAME, r->dir, x, 0);
            note_cut_info(p, r, r->dir, r->name);
        }
        fill_make_attrs(r, p->m);
    } else if (fill_make_attrs(r, p->m)) {
        p->st.cut_filled++;
    }
    return 1;
}

/* The permission bits a replay of object o has before a record, or -1
 * when the model does not know them. */
static int64_t mode_before(const struct tbbt_fsobj *o) {
    if (o && (o->flags & TBBT_FSO_RMODE)) return o->rmode & 07777;
    if (o && (o->flags & TBBT_FSO_ATTRS)) return o->attr.mode & 07777;
    return -1;
}

/* Restores successful setattr r whose attributes to set the snaplen cut
 * (maybe part way) from its reply's after-attributes: each of mode, owner,
 * group and size is set to the value the reply shows where that differs
 * from what the model held before (a size: also from the reply's
 * before-size), or where the decoded part set it already; times are left
 * as decoded. Without the change a replay keeps the old permissions and
 * later calls get OK where the trace had ACCES, or the reverse. Returns
 * 1, or 0 when the reply shows no attributes. */
static int restore_setattr(struct tbbt_pass2 *p, struct tbbt_rec *r) {
    if (!tbbt_rec_has(r, TBBT_F_TYPE) || !tbbt_rec_has(r, TBBT_F_OBJ)) return 0;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, r->obj);
    int attrs = o && (o->flags & TBBT_FSO_ATTRS);
    int owner = attrs && !(tbbt_pass2_obj(o)->flags & TBBT_PASS2_OWNER_GUESSED);
    int64_t mode = mode_before(o);
    if (tbbt_rec_has(r, TBBT_F_MODE) &&
        (tbbt_rec_has(r, TBBT_F_SET_MODE) || (mode >= 0 && (uint32_t)mode != (r->mode & 07777))))
        tbbt_rec_set_u64(r, TBBT_F_SET_MODE, r->mode & 07777);
    if (tbbt_rec_has(r, TBBT_F_UID) && (tbbt_rec_has(r, TBBT_F_SET_UID) || (owner && o->attr.uid != r->uid)))
        tbbt_rec_set_u64(r, TBBT_F_SET_UID, r->uid);
    if (tbbt_rec_has(r, TBBT_F_GID) && (tbbt_rec_has(r, TBBT_F_SET_GID) || (owner && o->attr.gid != r->gid)))
        tbbt_rec_set_u64(r, TBBT_F_SET_GID, r->gid);
    int sized = tbbt_rec_has(r, TBBT_F_PRE_SIZE)
                    ? r->pre_size != r->size
                    : attrs && o->attr.type == TBBT_FT_REG && o->attr.size != r->size;
    if (tbbt_rec_has(r, TBBT_F_SIZE) && r->type == TBBT_FT_REG && (tbbt_rec_has(r, TBBT_F_SET_SIZE) || sized))
        tbbt_rec_set_u64(r, TBBT_F_SET_SIZE, r->size);
    p->st.cut_filled++;
    return 1;
}

/* ---- cut names matched by what the capture kept of them (cut.h) ---- */

/* Remembers what the capture kept of make or link r's real name, whose
 * object id pass 2 names synthetically in dir: a later call in dir whose
 * name was cut too is matched against it (cut_likely). */
static void note_cut_info(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir, struct tbbt_str name) {
    struct tbbt_cut_info info;
    if (!tbbt_cut_info_of(&info, r, dir)) return;
    g_hash_table_replace(p->cut_infos, alias_key(dir, tbbt_rec_str(r, name), name.len),
                         g_memdup2(&info, sizeof(info)));
}

/* Cut rename r moved the name (from, fname) to the synthetic (to, tname):
 * the new real name is not known, but a mail client's rename keeps the
 * old one's start (a maildir flag changed), so what the capture kept of
 * the old (or the old itself, when whole) is kept for the new, its length
 * unknown. */
static void move_cut_info(struct tbbt_pass2 *p, tbbt_id from, struct tbbt_str fname, const struct tbbt_rec *r,
                          tbbt_id to, struct tbbt_str tname) {
    const char *fn = tbbt_rec_str(r, fname);
    char *k = alias_key(from, fn, fname.len);
    struct tbbt_cut_info info, *old = g_hash_table_lookup(p->cut_infos, k);
    if (old) {
        info = *old;
        g_hash_table_remove(p->cut_infos, k);
    } else if (!tbbt_cut_is_synth(fn, fname.len)) {
        info.npfx = fname.len < TBBT_CUT_PFX ? fname.len : TBBT_CUT_PFX;
        memcpy(info.pfx, fn, info.npfx);
    }
    g_free(k);
    if (!old && tbbt_cut_is_synth(fn, fname.len)) return;
    info.dir = to;
    info.len = TBBT_CUT_LEN_UNKNOWN;
    g_hash_table_replace(p->cut_infos, alias_key(to, tbbt_rec_str(r, tname), tname.len),
                         g_memdup2(&info, sizeof(info)));
}

/* How well name d of directory dir matches r's cut name: by the name
 * itself, or for a synthetic one by what the capture kept of the real one
 * (note_cut_info; nothing kept: it may be any). */
static enum tbbt_cut_match cut_match_dent(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                          const struct tbbt_fsdent *d) {
    if (!tbbt_cut_is_synth(d->name, d->len)) return tbbt_cut_match_name(r, d->name, d->len);
    char *k = alias_key(dir, d->name, d->len);
    const struct tbbt_cut_info *i = g_hash_table_lookup(p->cut_infos, k);
    g_free(k);
    return i ? tbbt_cut_match_info(r, i) : TBBT_CUT_MAYBE;
}

/* Is name d of the type a call wants: not a directory (a remove), a
 * directory (an rmdir), or either? */
static int cut_type_ok(const struct tbbt_pass2 *p, const struct tbbt_fsdent *d, enum cut_want want) {
    if (want == CUT_ANY) return 1;
    const struct tbbt_fsobj *o = d->obj ? tbbt_fsmodel_obj(p->m, d->obj) : NULL;
    int isdir = (o && o->attr.type == TBBT_FT_DIR) || d->made_dir;
    return want == CUT_DIR ? isdir : !isdir;
}

/* The one present name of directory dir that r's cut name likely is
 * (TBBT_CUT_LIKELY: its length and at least TBBT_CUT_SURE_PFX kept bytes
 * agree), of the type wanted; NULL when none or several are. */
static const struct tbbt_fsdent *cut_likely(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                            enum cut_want want) {
    const struct tbbt_fsobj *o = tbbt_rec_has(r, TBBT_F_CUTLEN) ? tbbt_fsmodel_obj(p->m, dir) : NULL;
    const struct tbbt_fsdent *found = NULL;
    for (const struct tbbt_fsdent *e = o ? o->children : NULL; e; e = e->child_next) {
        if (e->state != TBBT_NAME_PRESENT || tbbt_dot_name(e->name, e->len) || !cut_type_ok(p, e, want))
            continue;
        if (cut_match_dent(p, r, dir, e) != TBBT_CUT_LIKELY) continue;
        if (found) return NULL;
        found = e;
    }
    return found;
}

/* A present name of directory dir for a cut call that failed on a name
 * that was there (EXIST, or a permission refused on a name to take
 * away): the one r's cut name likely is, else any of the type wanted --
 * the call changes nothing and fails the same on any. NULL when the
 * model holds none. */
static const struct tbbt_fsdent *cut_present(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                             enum cut_want want) {
    const struct tbbt_fsdent *d = cut_likely(p, r, dir, want);
    const struct tbbt_fsobj *o = d ? NULL : tbbt_fsmodel_obj(p->m, dir);
    for (const struct tbbt_fsdent *e = o ? o->children : NULL; e && !d; e = e->child_next)
        if (e->state == TBBT_NAME_PRESENT && !tbbt_dot_name(e->name, e->len) && cut_type_ok(p, e, want))
            d = e;
    return d;
}

/* A name no directory holds: a cut call that failed for want of its name
 * (NOENT) or on its directory's permission gets it, and fails the same.
 * Synthetic (pass 2 never judges it), and never one a make gets. */
#define CUT_ABSENT TBBT_CUT_PREFIX "absent"

/* Attributes to set for a make that failed and whose call the snaplen
 * cut before them: an unchecked create, mode 0644 (a mkdir 0755), a
 * symlink's placeholder target. Nothing is made: only the request must be
 * whole. */
static void fill_failed_make(struct tbbt_rec *r) {
    if (r->op == TBBT_OP_CREATE && r->vers == 3 && !tbbt_rec_has(r, TBBT_F_CREATEHOW))
        tbbt_rec_set_u64(r, TBBT_F_CREATEHOW, 0);
    if (r->op == TBBT_OP_CREATE && r->createhow == 2 && !tbbt_rec_has(r, TBBT_F_VERF))
        tbbt_rec_set_u64(r, TBBT_F_VERF, r->xid);
    if (!tbbt_rec_has(r, TBBT_F_SET_MODE) && !(r->op == TBBT_OP_CREATE && r->createhow == 2))
        tbbt_rec_set_u64(r, TBBT_F_SET_MODE, r->op == TBBT_OP_MKDIR ? 0755 : 0644);
    if (r->op == TBBT_OP_SYMLINK && !tbbt_rec_has(r, TBBT_F_TARGET))
        tbbt_rec_set_str(r, TBBT_F_TARGET, TBBT_CUT_PREFIX "target", sizeof(TBBT_CUT_PREFIX "target") - 1);
    if (r->op == TBBT_OP_MKNOD && !tbbt_rec_has(r, TBBT_F_NODETYPE)) tbbt_rec_set_u64(r, TBBT_F_NODETYPE, 7);
}

/* Failed setattr r whose attributes to set the snaplen cut: where none
 * was decoded, one that fails the same way -- the mode it has (a change
 * of mode by another user: PERM), else its size (a write without
 * permission: ACCES). Returns whether it has one. */
static int fill_failed_setattr(struct tbbt_pass2 *p, struct tbbt_rec *r) {
    const uint64_t set = (1ull << TBBT_F_SET_MODE) | (1ull << TBBT_F_SET_UID) | (1ull << TBBT_F_SET_GID) |
                         (1ull << TBBT_F_SET_SIZE) | (1ull << TBBT_F_SET_ATIME) | (1ull << TBBT_F_SET_MTIME);
    if (r->has & set) return 1;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, r->obj);
    int64_t mode = tbbt_rec_has(r, TBBT_F_MODE) ? (int64_t)(r->mode & 07777) : mode_before(o);
    if (r->status == TBBT_NFSERR_PERM && mode >= 0) {
        tbbt_rec_set_u64(r, TBBT_F_SET_MODE, (uint64_t)mode);
        return 1;
    }
    if (tbbt_rec_has(r, TBBT_F_SIZE) && r->status == TBBT_NFSERR_ACCES) {
        tbbt_rec_set_u64(r, TBBT_F_SET_SIZE, r->size);
        return 1;
    }
    return 0;
}

/* Levels of directories above a refused link's or rename's directory,
 * and directories in all, that refusing_dir tries. */
#define REFUSED_LINK_DEPTH 16
#define REFUSED_LINK_TRIES 4096

/* Does the model refuse r's caller to write in directory dir (as r's
 * field f, TBBT_F_DIR or TBBT_F_DIR2) the way the trace's server did
 * (r->status)? Sets that field to dir. */
static int refuses(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, tbbt_id dir) {
    tbbt_rec_set_u64(r, f, dir);
    return tbbt_fsmodel_predict_dir_access(p->m, r) == r->status;
}

/* A directory the model refuses r's caller (r->status, ACCES or PERM) to
 * write in, for a link or rename the snaplen cut before the directory
 * its field f names: the nearest to directory from -- it, or one above,
 * or one of theirs (a shared directory beside the caller's own). Any of
 * them fails the call the same way and changes nothing. Sets the field
 * and returns 1; 0 when the model knows none. */
static int refusing_dir(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, tbbt_id from) {
    tbbt_id dir = from;
    int tries = 0;
    for (int up = 0; dir && up < REFUSED_LINK_DEPTH && tries < REFUSED_LINK_TRIES; up++) {
        if (refuses(p, r, f, dir)) return 1;
        const struct tbbt_fsobj *d = tbbt_fsmodel_obj(p->m, dir);
        for (const struct tbbt_fsdent *e = d ? d->children : NULL; e && tries < REFUSED_LINK_TRIES;
             e = e->child_next, tries++)
            if (e->obj && e->obj != dir && !tbbt_dot_name(e->name, e->len) && refuses(p, r, f, e->obj))
                return 1;
        dir = d && d->links && d->links->dir != dir ? d->links->dir : 0;
    }
    r->has &= ~(1ull << f);
    if (f == TBBT_F_DIR)
        r->dir = 0;
    else
        r->dir2 = 0;
    return 0;
}

/* Failed call r whose arguments the snaplen cut after its first handle,
 * where the server refused that handle (STALE): it fails the
 * same whatever the rest says, so names it lacks get one no directory
 * holds and a make's attributes are filled. Returns 1 when r is whole. */
static int restore_failed_handle(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t miss) {
    uint64_t name = 1ull << TBBT_F_NAME, name2 = 1ull << TBBT_F_NAME2, dir2 = 1ull << TBBT_F_DIR2;
    unsigned f = tbbt_op_info(r->op)->flags;
    int first = (f & TBBT_OPF_OBJ) ? tbbt_rec_has(r, TBBT_F_OBJ) : tbbt_rec_has(r, TBBT_F_DIR);
    if (!first || (miss & ~(name | name2 | dir2 | (r->op == TBBT_OP_MKNOD ? 1ull << TBBT_F_NODETYPE : 0))))
        return 0;
    if ((miss & dir2) && tbbt_rec_has(r, TBBT_F_DIR)) tbbt_rec_set_u64(r, TBBT_F_DIR2, r->dir);
    if ((miss & dir2) && !tbbt_rec_has(r, TBBT_F_DIR2)) return 0;
    if (miss & name) put_name(p, r, TBBT_F_NAME, CUT_ABSENT, sizeof(CUT_ABSENT) - 1);
    if (miss & name2) tbbt_rec_set_str(r, TBBT_F_NAME2, CUT_ABSENT, sizeof(CUT_ABSENT) - 1);
    if (f & TBBT_OPF_CREATES) fill_failed_make(r);
    p->st.cut_errors++;
    return 1;
}

/* Gives failed call r, whose name the snaplen cut, a name that fails the
 * same way on the replay's server when the model is right: a name no
 * directory holds for NOENT, and for a permission refused on the
 * directory (ACCES, PERM) when the call makes a name; a present name for
 * EXIST, and for a permission refused on a name to take away. Returns 1
 * when r is whole then. */
static int restore_failed_guess(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t miss) {
    uint64_t name = 1ull << TBBT_F_NAME, name2 = 1ull << TBBT_F_NAME2, dir2 = 1ull << TBBT_F_DIR2;
    int st = r->status, denied = st == TBBT_NFSERR_ACCES || st == TBBT_NFSERR_PERM;
    if (st == TBBT_NFSERR_STALE) return restore_failed_handle(p, r, miss);
    if (r->op == TBBT_OP_LINK && denied && miss == ((1ull << TBBT_F_DIR) | name)) {
        const struct tbbt_fsobj *o = r->obj ? tbbt_fsmodel_obj(p->m, r->obj) : NULL;
        if (!o || !o->links || !refusing_dir(p, r, TBBT_F_DIR, o->links->dir)) return 0;
        put_name(p, r, TBBT_F_NAME, CUT_ABSENT, sizeof(CUT_ABSENT) - 1);
        p->st.cut_errors++;
        return 1;
    }
    if (r->op == TBBT_OP_SETATTR) {
        if (miss || !denied || !fill_failed_setattr(p, r)) return 0;
        p->st.cut_errors++;
        return 1;
    }
    uint64_t nodetype = r->op == TBBT_OP_MKNOD ? 1ull << TBBT_F_NODETYPE : 0; /* fill_failed_make */
    if (miss & ~(name | nodetype | (r->op == TBBT_OP_RENAME ? name2 | dir2 : 0))) return 0;
    int makes = r->op == TBBT_OP_CREATE || r->op == TBBT_OP_MKDIR || r->op == TBBT_OP_SYMLINK ||
                r->op == TBBT_OP_MKNOD || r->op == TBBT_OP_LINK;
    if (!(miss & ~nodetype) && makes) { /* only attributes to set were cut: any do for a make that failed */
        fill_failed_make(r);
        return 1;
    }
    if (!(miss & name) || !tbbt_rec_has(r, TBBT_F_DIR)) return 0;
    int takes = r->op == TBBT_OP_REMOVE || r->op == TBBT_OP_RMDIR || r->op == TBBT_OP_RENAME;
    enum cut_want want = r->op == TBBT_OP_RMDIR ? CUT_DIR : r->op == TBBT_OP_REMOVE ? CUT_FILE : CUT_ANY;
    const struct tbbt_fsdent *d = NULL;
    if ((st == TBBT_NFSERR_EXIST && makes) || (denied && takes)) {
        if (!(d = cut_present(p, r, r->dir, want))) return 0;
        put_name(p, r, TBBT_F_NAME, d->name, d->len);
    } else if (st == TBBT_NFSERR_NOENT || (denied && (makes || r->op == TBBT_OP_LOOKUP))) {
        put_name(p, r, TBBT_F_NAME, CUT_ABSENT, sizeof(CUT_ABSENT) - 1);
    } else {
        return 0;
    }
    if (r->op == TBBT_OP_RENAME) {
        /* a refusal the source's directory does not explain came from the target's */
        if (!tbbt_rec_has(r, TBBT_F_DIR2) && denied && takes) {
            tbbt_rec_set_u64(r, TBBT_F_DIR2, r->dir);
            if (tbbt_fsmodel_predict_dir_access(p->m, r) == TBBT_NFS_OK)
                refusing_dir(p, r, TBBT_F_DIR2, r->dir);
        }
        if (!tbbt_rec_has(r, TBBT_F_DIR2)) tbbt_rec_set_u64(r, TBBT_F_DIR2, r->dir);
        if (!tbbt_rec_has(r, TBBT_F_NAME2))
            tbbt_rec_set_str(r, TBBT_F_NAME2, CUT_ABSENT, sizeof(CUT_ABSENT) - 1);
    }
    if (makes) fill_failed_make(r);
    p->st.cut_errors++;
    return 1;
}

/* Does the model refute that failed call r, given a name by a guess,
 * fails as traced? A refusal where the model lets the caller write the
 * directory (a rename's cut target directory refused it, say); else an
 * outcome the model predicts otherwise. */
static int cut_guess_refuted(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->status == TBBT_NFSERR_ACCES || r->status == TBBT_NFSERR_PERM) {
        int a = tbbt_fsmodel_predict_dir_access(p->m, r);
        if (a != TBBT_PREDICT_ANY) return a == TBBT_NFS_OK;
    }
    enum tbbt_oc pred = tbbt_oc_predict(p->m, r), traced = tbbt_oc_traced(p->m, r);
    return pred != TBBT_OC_ANY && traced != TBBT_OC_OTHER && pred != traced;
}

/* Gives failed cut call r a name that fails the same way
 * (restore_failed_guess), where the model foresees that failure (or
 * cannot tell): a refused rename's target directory, say, was cut, and
 * the source's alone may allow it. Else r is left as it was. */
static int restore_failed(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t miss) {
    tbbt_rec_copy(&p->cut_undo, r);
    uint64_t errors = p->st.cut_errors, synth = p->st.cut_synth, restored = p->st.cut_restored;
    if (!restore_failed_guess(p, r, miss)) return 0;
    if (!cut_guess_refuted(p, r)) return 1;
    tbbt_rec_copy(r, &p->cut_undo);
    p->st.cut_errors = errors;
    p->st.cut_synth = synth;
    p->st.cut_restored = restored;
    return 0;
}

/* Does no present name of directory dir, of the type wanted, agree with
 * r's cut name (its length and kept bytes, cut_match_dent)? */
static int cut_none_agree(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir, enum cut_want want) {
    const struct tbbt_fsobj *o = tbbt_rec_has(r, TBBT_F_CUTLEN) ? tbbt_fsmodel_obj(p->m, dir) : NULL;
    if (!o) return 0;
    for (const struct tbbt_fsdent *e = o->children; e; e = e->child_next)
        if (e->state == TBBT_NAME_PRESENT && !tbbt_dot_name(e->name, e->len) && cut_type_ok(p, e, want) &&
            cut_match_dent(p, r, dir, e) != TBBT_CUT_NO)
            return 0;
    return 1;
}

/* Was directory dir made by a held record after held record seq (so
 * that a call at seq could not have named it)? */
static int made_after(const struct tbbt_pass2 *p, tbbt_id dir, uint64_t seq) {
    for (uint64_t s = seq + 1; s < p->next_seq; s++) {
        const struct tbbt_rec *h = &p->ring[s % p->cap];
        if (h->op == TBBT_OP_MKDIR && h->status == TBBT_NFS_OK && tbbt_rec_has(h, TBBT_F_NEWOBJ) &&
            h->newobj == dir)
            return 1;
    }
    return 0;
}

/* Did a held record after seq show object x under its name in directory
 * dir (a lookup's reply, a listing, when x has no other name), or name
 * that name? Then a guessed place there was right, or used, and stays. */
static int shown_since(const struct tbbt_pass2 *p, tbbt_id x, tbbt_id dir, const char *name, size_t len,
                       uint64_t seq) {
    int one = single_link(p->m, x); /* else a sighting may be of another name */
    for (uint64_t s = seq + 1; s < p->next_seq; s++) {
        const struct tbbt_rec *h = &p->ring[s % p->cap];
        if (one && h->op == TBBT_OP_LOOKUP && tbbt_rec_has(h, TBBT_F_NEWOBJ) && h->newobj == x &&
            h->dir == dir)
            return 1;
        if (one && (h->op == TBBT_OP_READDIRPLUS || h->op == TBBT_OP_READDIR) && h->obj == dir)
            for (uint32_t i = 0; i < h->nentries; i++)
                if (h->entries[i].id == x) return 1;
        if (tbbt_rec_has(h, TBBT_F_NAME) && h->dir == dir && h->name.len == len &&
            memcmp(tbbt_rec_str(h, h->name), name, len) == 0)
            return 1;
    }
    return 0;
}

/* May held cut rename or link h (struct move mv) go to directory dir:
 * the trace made dir before h, the model lets h's caller write there, and
 * no record since showed the object where it was placed? */
static int may_move_to(struct tbbt_pass2 *p, const struct tbbt_rec *h, const struct move *mv, tbbt_id dir) {
    struct tbbt_str t = mv->link ? h->name : h->name2;
    tbbt_id at = mv->link ? h->dir : h->dir2;
    if (made_after(p, dir, mv->seq) || shown_since(p, mv->obj, at, tbbt_rec_str(h, t), t.len, mv->seq))
        return 0;
    struct tbbt_rec w = *h; /* shallow: the prediction reads IDs and the credential only */
    tbbt_rec_set_u64(&w, mv->link ? TBBT_F_DIR : TBBT_F_DIR2, dir);
    return tbbt_fsmodel_predict_dir_access(p->m, &w) != TBBT_NFSERR_ACCES;
}

/* The open move (struct move) of held record seq, or NULL. */
static struct move *move_at(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->moves->len; i++)
        if (g_array_index(p->moves, struct move, i).seq == seq)
            return &g_array_index(p->moves, struct move, i);
    return NULL;
}

/* The move of held record seq is no longer open: it leaves p->moves and
 * every held binding (struct rmbind). */
static void unbind_move(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->moves->len; i++)
        if (g_array_index(p->moves, struct move, i).seq == seq) g_array_remove_index(p->moves, i--);
    for (guint i = 0; i < p->rmbinds->len; i++) {
        struct rmbind *b = p->rmbinds->pdata[i];
        for (guint k = 0; k < b->cands->len; k++)
            if (g_array_index(b->cands, struct bindcand, k).mvseq == seq) g_array_remove_index(b->cands, k--);
    }
}

/* The placed cut renames and links that may have made a name of directory
 * dir a later call takes away: their object is of the type wanted, alive,
 * and may have gone there (may_move_to). */
static GArray *bind_cands(struct tbbt_pass2 *p, tbbt_id dir, enum cut_want want) {
    GArray *c = g_array_new(FALSE, TRUE, sizeof(struct bindcand));
    for (guint i = 0; i < p->moves->len; i++) {
        const struct move *mv = &g_array_index(p->moves, struct move, i);
        const struct tbbt_fsobj *o = mv->placed ? tbbt_fsmodel_obj(p->m, mv->obj) : NULL;
        if (mv->seq < p->head_seq || !o || !o->links || (o->flags & TBBT_FSO_GONE)) continue;
        int isdir = o->attr.type == TBBT_FT_DIR;
        if ((want == CUT_ANY ? 0 : (want == CUT_DIR) != isdir) ||
            !may_move_to(p, &p->ring[mv->seq % p->cap], mv, dir))
            continue;
        struct bindcand k = {mv->seq, mv->obj, (o->flags & TBBT_FSO_ATTRS) ? o->attr.nlink : 0, 0};
        g_array_append_val(c, k);
    }
    return c;
}

/* Binds held cut record r (held as seq, its source name cut) to the
 * placed cut rename or link mv: the rename or link moves to r's
 * directory under its object's synthetic name, which r takes, with what r
 * kept of the real name (cut_infos); open bindings drop mv. */
static void bind_now(struct tbbt_pass2 *p, struct tbbt_rec *r, const struct move *mv) {
    unbind_move(p, mv->seq);
    struct tbbt_rec *h = &p->ring[mv->seq % p->cap];
    replace_held(p, h, mv, r->dir, NULL, 0);
    struct tbbt_str t = mv->link ? h->name : h->name2;
    note_cut_info(p, r, r->dir, t);
    put_name(p, r, TBBT_F_NAME, tbbt_rec_str(h, t), t.len);
    p->st.cut_bound++;
}

/* Open bindings a record is checked against, at most, and candidates
 * each. */
#define RMBINDS 64
#define RMBIND_CANDS 16

/* Successful cut call r (held as seq) takes away a name of directory dir
 * the model does not hold, in a directory the trace made (so the name
 * was not there before it): a held cut rename or link whose target the
 * snaplen cut whole made it, and went to a guessed place (place_held).
 * Of those whose object is of the type wanted and that may have gone
 * there (may_move_to), one alone is bound now (bind_now); several wait
 * for the records that follow (struct rmbind). Returns whether r is
 * named. */
static int bind_to_move(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq, enum cut_want want) {
    tbbt_id dir = r->dir;
    if (!p->moves->len || !tbbt_fsmodel_dir_fresh(p->m, dir) || !cut_none_agree(p, r, dir, want)) return 0;
    GArray *c = bind_cands(p, dir, want);
    struct move *mv = c->len == 1 ? move_at(p, g_array_index(c, struct bindcand, 0).mvseq) : NULL;
    if (mv) {
        struct move m = *mv;
        bind_now(p, r, &m);
    }
    if (mv || c->len < 2 || c->len > RMBIND_CANDS || p->rmbinds->len >= RMBINDS || !seq) {
        g_array_free(c, TRUE);
        return mv != NULL;
    }
    struct rmbind *b = g_new0(struct rmbind, 1);
    b->seq = seq;
    b->incomplete = moves_unplaced(p) != 0; /* an unplaced one may have made the name */
    b->cands = c;
    g_ptr_array_add(p->rmbinds, b);
    return 0;
}

/* Successful remove, rmdir or rename r (held as seq), its name whole,
 * takes away a name the model holds absent in a directory the trace made:
 * a held cut rename or link whose target the snaplen cut whole made it
 * (bind_to_move). When one alone may have, it moves there under that very
 * name; several wait for the records that follow (struct rmbind). */
static void bind_whole(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if ((r->op != TBBT_OP_REMOVE && r->op != TBBT_OP_RMDIR && r->op != TBBT_OP_RENAME) ||
        r->status != TBBT_NFS_OK || (r->flags & TBBT_RF_NAME_SYNTH) || !tbbt_rec_has(r, TBBT_F_NAME) ||
        !tbbt_rec_has(r, TBBT_F_DIR) || !tbbt_fsmodel_dir_fresh(p->m, r->dir))
        return;
    const char *name = tbbt_rec_str(r, r->name);
    if (tbbt_dot_name(name, r->name.len) ||
        tbbt_fsmodel_name(p->m, r->dir, name, r->name.len, NULL) != TBBT_NAME_ABSENT)
        return;
    enum cut_want want = r->op == TBBT_OP_RMDIR ? CUT_DIR : r->op == TBBT_OP_REMOVE ? CUT_FILE : CUT_ANY;
    GArray *c = bind_cands(p, r->dir, want);
    struct move *at = c->len == 1 ? move_at(p, g_array_index(c, struct bindcand, 0).mvseq) : NULL;
    if (c->len >= 2 && c->len <= RMBIND_CANDS && p->rmbinds->len < RMBINDS) {
        struct rmbind *b = g_new0(struct rmbind, 1);
        b->seq = seq;
        b->whole = 1;
        b->incomplete = moves_unplaced(p) != 0;
        b->cands = c;
        g_ptr_array_add(p->rmbinds, b);
        return;
    }
    g_array_free(c, TRUE);
    if (!at) return;
    struct move mv = *at;
    unbind_move(p, mv.seq);
    replace_held(p, &p->ring[mv.seq % p->cap], &mv, r->dir, name, r->name.len);
    p->st.cut_bound++;
}

/* Binds held binding i to candidate k: the held record is whole again,
 * and the model applies it now. */
static void bind_resolve(struct tbbt_pass2 *p, guint i, guint k) {
    struct rmbind *b = g_ptr_array_steal_index(p->rmbinds, i);
    struct move *at = move_at(p, g_array_index(b->cands, struct bindcand, k).mvseq);
    struct tbbt_rec *r = &p->ring[b->seq % p->cap];
    if (at && b->whole) { /* the model took the name away already: it had it, then */
        struct move mv = *at;
        unbind_move(p, mv.seq);
        replace_held(p, &p->ring[mv.seq % p->cap], &mv, r->dir, tbbt_rec_str(r, r->name), r->name.len);
        p->st.cut_bound++;
        tbbt_fsmodel_apply(p->m, r, TBBT_NFS_OK);
    } else if (at) {
        struct move mv = *at;
        bind_now(p, r, &mv);
        r->flags &= (uint16_t)~TBBT_RF_ARGS_CUT;
        p->st.cut_unreplayable--;
        tbbt_fsmodel_apply(p->m, r, TBBT_NFS_OK);
    }
    rmbind_free(b);
}

/* Held binding i after new evidence: bound to the one candidate a record
 * showed losing a name, or, when no other could have made it, to the one
 * no record showed keeping its names; dropped with none left. Returns
 * whether it is gone from p->rmbinds. */
static int bind_settle(struct tbbt_pass2 *p, guint i) {
    struct rmbind *b = p->rmbinds->pdata[i];
    int lost = -1, open = -1, nlost = 0, nopen = 0;
    for (guint k = 0; k < b->cands->len; k++) {
        int says = g_array_index(b->cands, struct bindcand, k).says;
        if (says > 0) lost = (int)k, nlost++;
        if (says >= 0) open = (int)k, nopen++;
    }
    if (nlost == 1 || (nlost == 0 && nopen == 1 && !b->incomplete)) {
        bind_resolve(p, i, (guint)(nlost == 1 ? lost : open));
        return 1;
    }
    if (nopen == 0) {
        rmbind_free(g_ptr_array_steal_index(p->rmbinds, i));
        return 1;
    }
    return 0;
}

/* What record r says of object x for a held binding: 1 it lost a name
 * (its handle is stale, or its link count fell below nlink0), -1 it kept
 * them, 0 nothing. */
static int bind_says(const struct tbbt_rec *r, tbbt_id x, uint32_t nlink0) {
    int on =
        (tbbt_rec_has(r, TBBT_F_OBJ) && r->obj == x) || (tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj == x);
    if (!on) return 0;
    if (r->status == TBBT_NFSERR_STALE && tbbt_rec_has(r, TBBT_F_OBJ) && r->obj == x) return 1;
    if (r->status != TBBT_NFS_OK || !nlink0 || !tbbt_rec_has(r, TBBT_F_NLINK)) return 0;
    return r->nlink < nlink0 ? 1 : -1;
}

/* Record r (held as seq) after the held bindings: what it says of their
 * candidates' objects settles them (bind_settle). */
static void bind_evidence(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    for (guint i = 0; i < p->rmbinds->len; i++) {
        struct rmbind *b = p->rmbinds->pdata[i];
        if (seq <= b->seq) continue;
        int any = 0;
        for (guint k = 0; k < b->cands->len; k++) {
            struct bindcand *x = &g_array_index(b->cands, struct bindcand, k);
            int says = bind_says(r, x->obj, x->nlink0);
            if (says && !x->says) x->says = says, any = 1;
        }
        if (any && bind_settle(p, i)) i--;
    }
}

/* Held record seq goes out: a binding held as seq stays unbound (the
 * record unreplayable) unless a sign names one now; a candidate whose
 * move it is can no longer be moved, and with nothing said of it the
 * binding is incomplete. */
static void bind_window_end(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->rmbinds->len; i++) {
        struct rmbind *b = p->rmbinds->pdata[i];
        if (b->seq == seq) {
            b->incomplete = 1;
            if (!bind_settle(p, i)) rmbind_free(g_ptr_array_steal_index(p->rmbinds, i));
            i--;
            continue;
        }
        int gone = 0;
        for (guint k = 0; k < b->cands->len; k++) {
            const struct bindcand *x = &g_array_index(b->cands, struct bindcand, k);
            if (x->mvseq != seq || x->says > 0) continue;
            b->incomplete |= x->says == 0;
            g_array_remove_index(b->cands, k--);
            gone = 1;
        }
        if (gone && bind_settle(p, i)) i--;
    }
}

/* Names successful remove, rmdir or rename r, whose source name the
 * snaplen cut, by the one name of its directory its kept bytes and
 * length likely are (cut_likely), else by a cut rename's or link's
 * unknown target (bind_to_move). Returns whether it did. */
static int restore_by_match(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    enum cut_want want = r->op == TBBT_OP_RMDIR ? CUT_DIR : r->op == TBBT_OP_REMOVE ? CUT_FILE : CUT_ANY;
    if (!tbbt_rec_has(r, TBBT_F_DIR)) return 0;
    const struct tbbt_fsdent *d = cut_likely(p, r, r->dir, want);
    if (!d) return bind_to_move(p, r, seq, want);
    put_name(p, r, TBBT_F_NAME, d->name, d->len);
    p->st.cut_matched++;
    return 1;
}

/* Successful rename r whose source name the snaplen cut: its source by
 * the name its kept bytes likely are (restore_by_match); its target, when
 * its directory was kept but not its name, the moved object's synthetic
 * name there. Returns 1 when whole; else a source found stays named and
 * hold_move waits for a record that shows where the object went. */
static int restore_rename_by_match(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t miss) {
    if (!restore_by_match(p, r, 0) || (miss & (1ull << TBBT_F_DIR2))) return 0;
    if (!(miss & (1ull << TBBT_F_NAME2))) return 1;
    tbbt_id src = 0;
    tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &src);
    if (!src) return 0;
    put_synth(p, r, TBBT_F_NAME2, r->dir2, src, 0);
    move_cut_info(p, r->dir, r->name, r, r->dir2, r->name2);
    return 1;
}

/* Restores r, whose call the snaplen cut (tbbt_cut_args), where the model
 * knows what was cut: a lookup's, make's or link's name through the
 * object its reply (or call) shows, a rename's target through the object
 * its source names, a make's or setattr's attributes from its reply. Clears
 * TBBT_RF_ARGS_CUT then and returns 1; else sets it and returns 0, with r
 * unchanged. A cut remove, rmdir, rename source, a failed or
 * unanswered call, a cut handle: unknowable. */
static int restore_cut(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    p->st.cut++;
    uint64_t miss = tbbt_cut_missing(r), name = 1ull << TBBT_F_NAME, name2 = 1ull << TBBT_F_NAME2;
    int ok = 0;
    uint64_t rebuilt =
        name | name2 | (r->op == TBBT_OP_MKNOD ? 1ull << TBBT_F_NODETYPE : 0); /* from the reply */
    if ((r->flags & TBBT_RF_REPLY_LOST) || r->status < 0) {
        ok = 0;
    } else if (r->status != TBBT_NFS_OK) {
        ok = restore_failed(p, r, miss);
    } else if ((r->op == TBBT_OP_REMOVE || r->op == TBBT_OP_RMDIR) && miss == name) {
        ok = restore_by_match(p, r, seq);
    } else if (r->op == TBBT_OP_RENAME && (miss & name) &&
               !(miss & ~(name | name2 | (1ull << TBBT_F_DIR2)))) {
        ok = restore_rename_by_match(p, r, miss);
    } else if (miss & ~rebuilt) {
        ok = 0;
    } else if (r->op == TBBT_OP_LOOKUP) {
        ok = miss == name && restore_lookup(p, r);
    } else if (r->op == TBBT_OP_CREATE || r->op == TBBT_OP_MKDIR || r->op == TBBT_OP_SYMLINK ||
               r->op == TBBT_OP_MKNOD) {
        ok = restore_make(p, r, miss);
    } else if (r->op == TBBT_OP_LINK) {
        ok = miss == name && r->obj && put_synth(p, r, TBBT_F_NAME, r->dir, r->obj, 0);
        if (ok) note_cut_info(p, r, r->dir, r->name);
    } else if (r->op == TBBT_OP_SETATTR) {
        ok = !miss && restore_setattr(p, r);
    } else if (r->op == TBBT_OP_RENAME && miss == name2) {
        tbbt_id src = 0;
        tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &src);
        ok = src && put_synth(p, r, TBBT_F_NAME2, r->dir2, src, 0);
    }
    if (ok) {
        r->flags &= (uint16_t)~TBBT_RF_ARGS_CUT;
    } else {
        r->flags |= TBBT_RF_ARGS_CUT;
        p->st.cut_unreplayable++;
    }
    return ok;
}

/* What record r, cut before an argument and left so, teaches: only what
 * its reply shows of an object it names by handle or reveals -- its
 * attributes (after a setattr, the mode a replay has follows: the cut
 * call explains it; with no attributes shown, the model forgets the
 * object's until a reply shows them), or that it is gone -- never a name. */
static void teach_cut(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->status == TBBT_NFSERR_STALE && tbbt_rec_has(r, TBBT_F_OBJ)) {
        tbbt_fsmodel_apply(p->m, r, TBBT_NFSERR_STALE);
        return;
    }
    if (r->status != TBBT_NFS_OK || (r->flags & TBBT_RF_REPLY_LOST)) return;
    tbbt_id id = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0;
    struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    if (o && r->op == TBBT_OP_SETATTR && !tbbt_rec_has(r, TBBT_F_MODE)) {
        /* it changed what it changed: the next reply tells (not a lost setattr) */
        o->flags &= ~(uint32_t)(TBBT_FSO_RMODE | TBBT_FSO_ATTRS);
        o->flags |= TBBT_FSO_CHANGED;
    }
    if (!id || !tbbt_rec_has(r, TBBT_F_TYPE)) return;
    o = tbbt_fsmodel_obj_get(p->m, id);
    if (tbbt_op_info(r->op)->flags & TBBT_OPF_MODIFIES) o->flags |= TBBT_FSO_CHANGED;
    tbbt_fsmodel_learn_attrs(p->m, id, r);
    if (r->op == TBBT_OP_SETATTR && tbbt_rec_has(r, TBBT_F_MODE)) {
        o->rmode = r->mode & 07777;
        o->flags |= TBBT_FSO_RMODE;
    }
}

/* An entry's object for the listing filter: its handle's, else the live
 * object with its fileid. */
static tbbt_id entry_obj(void *ctx, const struct tbbt_dirent *e) {
    return e->id ? e->id : e->fileid ? live_by_fileid(ctx, e->fileid) : 0;
}

/* Listing r as the model may learn it (tbbt_cut_listing_as_named), in
 * p->filtered. */
static const struct tbbt_rec *listing_as_named(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (!p->synth_seen || r->status != TBBT_NFS_OK || !r->nentries) return r;
    return tbbt_cut_listing_as_named(p->m, r, entry_obj, p, &p->filtered);
}

/* ---- state changes a later reply reveals (issue 21) ---- */

/* The object whose attributes r's reply shows and the trace did not just
 * make: a lookup's object, or the handle of an operation on it. 0 when
 * none (a make shows the object it made; a link, the one it named). */
static tbbt_id attrs_of(const struct tbbt_rec *r) {
    if (r->op == TBBT_OP_LOOKUP) return tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0;
    unsigned f = r->op < TBBT_OP_COUNT ? tbbt_op_info(r->op)->flags : 0;
    if (!(f & TBBT_OPF_OBJ) || (f & TBBT_OPF_DIRNAME) || !tbbt_rec_has(r, TBBT_F_OBJ)) return 0;
    return r->obj;
}

/* Puts into x (cleared, r's endpoints) the attributes r's reply shows of
 * o that differ from the model's and that r itself does not explain (a
 * setattr sets what it sets; a write and a commit only grow or keep a
 * file). A size counts only smaller: a larger one is the trace's writes,
 * lost or not. Returns the rule row for the first difference (mode,
 * owner, size), or -1 when none. A size only when sizes is set (no
 * record that may change it was in flight). */
static int attrs_changed(const struct tbbt_fsobj *o, const struct tbbt_rec *r, int sizes,
                         struct tbbt_rec *x) {
    tbbt_rec_clear(x);
    x->client = r->client, x->server = r->server, x->vers = r->vers, x->flags = r->flags & TBBT_RF_TCP;
    tbbt_rec_set_u64(x, TBBT_F_OBJ, o->id);
    int setattr = r->op == TBBT_OP_SETATTR, row = -1;
    /* a regular file's mode: the permission rows already set what a read,
     * write or truncate needs, which a shown mode may contradict (the
     * server's permission check is not only the mode bits); a symlink's
     * is always 0777 */
    if (tbbt_rec_has(r, TBBT_F_MODE) && (o->flags & TBBT_FSO_RMODE) && r->type != TBBT_FT_LNK &&
        r->type != TBBT_FT_REG && o->attr.type != TBBT_FT_REG) {
        uint32_t want = setattr && tbbt_rec_has(r, TBBT_F_SET_MODE) ? r->set_mode : o->rmode;
        if ((want ^ r->mode) & 0777) tbbt_rec_set_u64(x, TBBT_F_MODE, r->mode & 07777);
    }
    int owner_known = (o->flags & TBBT_FSO_ATTRS) && !(tbbt_pass2_obj(o)->flags & TBBT_PASS2_OWNER_GUESSED);
    if (owner_known && tbbt_rec_has(r, TBBT_F_UID) && !(setattr && tbbt_rec_has(r, TBBT_F_SET_UID)) &&
        r->uid != o->attr.uid)
        tbbt_rec_set_u64(x, TBBT_F_UID, r->uid);
    if (owner_known && tbbt_rec_has(r, TBBT_F_GID) && !(setattr && tbbt_rec_has(r, TBBT_F_SET_GID)) &&
        r->gid != o->attr.gid)
        tbbt_rec_set_u64(x, TBBT_F_GID, r->gid);
    uint64_t size = setattr && tbbt_rec_has(r, TBBT_F_SET_SIZE) ? r->set_size : o->attr.size;
    if (sizes && (o->flags & TBBT_FSO_ATTRS) && tbbt_rec_has(r, TBBT_F_SIZE) && o->attr.type == TBBT_FT_REG &&
        r->type == TBBT_FT_REG && r->op != TBBT_OP_WRITE && r->op != TBBT_OP_COMMIT && r->size < size)
        tbbt_rec_set_u64(x, TBBT_F_SIZE, r->size);
    if (tbbt_rec_has(x, TBBT_F_MODE))
        row = tbbt_rule_find(r->op, TBBT_OC_OK, TBBT_OC_OK_MODE);
    else if (tbbt_rec_has(x, TBBT_F_UID) || tbbt_rec_has(x, TBBT_F_GID))
        row = tbbt_rule_find(r->op, TBBT_OC_OK, TBBT_OC_OK_OWNER);
    else if (tbbt_rec_has(x, TBBT_F_SIZE))
        row = tbbt_rule_find(r->op, TBBT_OC_OK, TBBT_OC_OK_SIZE);
    return row;
}

/* Puts into x (cleared, r's endpoints) the link count r's reply shows of
 * o, a file the trace made (so the model met every name of it), when it
 * is more than the names the model holds: links the capture lost. Not a
 * link's reply (it shows its own), nor a record in flight with another
 * (in_flight, checked by the caller). Returns the rule row, or -1. */
static int links_changed(const struct tbbt_fsobj *o, const struct tbbt_rec *r, struct tbbt_rec *x) {
    if (!tbbt_rec_has(r, TBBT_F_NLINK) || r->type == TBBT_FT_DIR || o->attr.type == TBBT_FT_DIR ||
        r->op == TBBT_OP_LINK || (o->flags & (TBBT_FSO_INITIAL | TBBT_FSO_GONE)) ||
        !(o->flags & TBBT_FSO_CREATED) || !o->links)
        return -1;
    uint32_t have = 0;
    for (const struct tbbt_fsdent *d = o->links; d; d = d->link_next)
        have++;
    if (r->nlink <= have) return -1;
    tbbt_rec_clear(x);
    x->client = r->client, x->server = r->server, x->vers = r->vers, x->flags = r->flags & TBBT_RF_TCP;
    tbbt_rec_set_u64(x, TBBT_F_OBJ, o->id);
    tbbt_rec_set_u64(x, TBBT_F_NLINK, r->nlink);
    return tbbt_rule_find(r->op, TBBT_OC_OK, TBBT_OC_OK_LINKS);
}

/* The permission bits on directory d that record r, with its traced
 * outcome, proves its caller had: search (1) for a name it looked up,
 * made, removed or renamed there (a "no such name" or "exists" proves it
 * too), write (2) for a name it made, removed or renamed there, read (4)
 * for a listing of d. 0 when r proves nothing of d: root, a caller of
 * another flavor, a record with no reply, a corrective one. */
static uint32_t dir_bits_used(const struct tbbt_rec *r, tbbt_id d) {
    if (r->cred.flavor != TBBT_AUTH_SYS || r->cred.uid == 0 || r->status < 0 ||
        (r->flags & (TBBT_RF_REPLY_LOST | TBBT_RF_INSERTED | TBBT_RF_RPC_ERROR | TBBT_RF_ARGS_CUT)))
        return 0;
    unsigned f = r->op < TBBT_OP_COUNT ? tbbt_op_info(r->op)->flags : 0;
    int ok = r->status == TBBT_NFS_OK;
    uint32_t bits = 0;
    if ((f & TBBT_OPF_LISTING) && tbbt_rec_has(r, TBBT_F_OBJ) && r->obj == d && ok) bits |= 4;
    int named = ((f & TBBT_OPF_DIRNAME) && tbbt_rec_has(r, TBBT_F_DIR) && r->dir == d) ||
                ((f & TBBT_OPF_DIRNAME2) && tbbt_rec_has(r, TBBT_F_DIR2) && r->dir2 == d);
    if (named && (ok || r->status == TBBT_NFSERR_NOENT || r->status == TBBT_NFSERR_EXIST ||
                  r->status == TBBT_NFSERR_NOTEMPTY))
        bits |= 1;
    if (named && ok && (f & TBBT_OPF_MODIFIES)) bits |= 2;
    return bits;
}

/* The permission bits on directory d that record r, denied (ACCES),
 * needed: those dir_bits_used counts for its success. 0 when r was not
 * denied or proves nothing of d (as dir_bits_used). */
static uint32_t dir_bits_denied(const struct tbbt_rec *r, tbbt_id d) {
    if (r->status != TBBT_NFSERR_ACCES || r->cred.flavor != TBBT_AUTH_SYS || r->cred.uid == 0 ||
        (r->flags & (TBBT_RF_REPLY_LOST | TBBT_RF_INSERTED | TBBT_RF_RPC_ERROR | TBBT_RF_ARGS_CUT)))
        return 0;
    unsigned f = r->op < TBBT_OP_COUNT ? tbbt_op_info(r->op)->flags : 0;
    if ((f & TBBT_OPF_LISTING) && tbbt_rec_has(r, TBBT_F_OBJ) && r->obj == d) return 4;
    int named = ((f & TBBT_OPF_DIRNAME) && tbbt_rec_has(r, TBBT_F_DIR) && r->dir == d) ||
                ((f & TBBT_OPF_DIRNAME2) && tbbt_rec_has(r, TBBT_F_DIR2) && r->dir2 == d);
    return named ? (f & TBBT_OPF_MODIFIES) ? 3 : 1 : 0;
}

/* The last held record before seq (and after lo) that used directory o
 * with permission bits that o's mode, owner and group as change x sets
 * them would deny (dir_bits_used), or that was denied bits those would
 * grant (dir_bits_denied): the change came after it. 0 when none (or o
 * is no directory, or x changes none of those). */
static uint64_t last_denied_use(const struct tbbt_pass2 *p, const struct tbbt_fsobj *o,
                                const struct tbbt_rec *x, uint64_t lo, uint64_t seq) {
    if (o->attr.type != TBBT_FT_DIR ||
        !(x->has & ((1ull << TBBT_F_MODE) | (1ull << TBBT_F_UID) | (1ull << TBBT_F_GID))))
        return 0;
    struct tbbt_fsattr a = o->attr;
    uint32_t mode = tbbt_rec_has(x, TBBT_F_MODE) ? x->mode : o->rmode;
    if (tbbt_rec_has(x, TBBT_F_UID)) a.uid = x->uid;
    if (tbbt_rec_has(x, TBBT_F_GID)) a.gid = x->gid;
    for (uint64_t s = seq; s-- > p->head_seq && s > lo;) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        uint32_t bits = dir_bits_used(q, o->id);
        if (bits && ((mode >> tbbt_fsmodel_mode_shift(&a, &q->cred)) & bits) != bits) return s;
        bits = dir_bits_denied(q, o->id);
        if (bits && ((mode >> tbbt_fsmodel_mode_shift(&a, &q->cred)) & bits) == bits) return s;
    }
    return 0;
}

/* The change x (attrs_changed) of object o, revealed by record r (held
 * as seq) under rule row: the model's replay mode takes it now (later
 * records are judged by it); it waits for settle_attrs, to go after the
 * last record that showed the old mode or owner (a size: that touched the
 * file) -- or, when no record showed the old values (the object existed
 * before the trace and the model's values are not from a reply), to
 * change the initial image instead. */
static void attrs_reveal(struct tbbt_pass2 *p, struct tbbt_fsobj *o, const struct tbbt_rec *r, uint64_t seq,
                         int row, struct tbbt_rec *x) {
    if (tbbt_rec_has(x, TBBT_F_MODE)) o->rmode = x->mode & 07777;
    if (tbbt_rec_has(x, TBBT_F_SIZE))
        o->attr.size = x->size; /* a listing's entry: the model learns no size */
    /* a directory's: a record since the values were last shown that the
     * new ones would have denied ran before the change */
    uint64_t used = last_denied_use(p, o, x, tbbt_pass2_obj(o)->shown_seq, seq);
    if (!used && !tbbt_pass2_obj(o)->shown_seq && (o->flags & TBBT_FSO_INITIAL) &&
        !(o->flags & TBBT_FSO_CREATED)) {
        if (tbbt_rec_has(x, TBBT_F_MODE)) o->init.mode = x->mode;
        if (tbbt_rec_has(x, TBBT_F_UID)) o->init.uid = x->uid;
        if (tbbt_rec_has(x, TBBT_F_GID)) o->init.gid = x->gid;
        if (tbbt_rec_has(x, TBBT_F_SIZE)) o->init.size = x->size;
        p->st.attr_initial++;
        p->st.rule_initial[row]++;
        return;
    }
    struct attrfix *f = g_new0(struct attrfix, 1);
    f->seq = seq;
    f->row = row;
    f->reply_time = touch_time(r);
    /* a size goes after the last record that touched the file (a write in
     * between would grow it again); a mode or owner right after the last
     * record that showed the old one (a record that needs the new one may
     * show nothing) */
    int by_touch = tbbt_rec_has(x, TBBT_F_SIZE) || !tbbt_pass2_obj(o)->shown_seq;
    f->lo_seq = by_touch ? tbbt_pass2_obj(o)->last_seq : tbbt_pass2_obj(o)->shown_seq;
    f->lo_time = by_touch ? tbbt_pass2_obj(o)->last_time : tbbt_pass2_obj(o)->shown_time;
    if (used > f->lo_seq) {
        f->lo_seq = used;
        f->lo_time = touch_time(&p->ring[used % p->cap]);
    }
    tbbt_rec_init(&f->set);
    tbbt_rec_copy(&f->set, x);
    g_ptr_array_add(p->attrfixes, f);
}

/* Was a record that touched o still waiting for its reply when r was
 * called? The server may have run r first: r's reply may show o as it was
 * before that record, not a change the capture lost. */
static int in_flight(const struct tbbt_fsobj *o, const struct tbbt_rec *r) {
    return tbbt_pass2_obj(o)->last_time > r->call_time;
}

/* Was a record that may set o's mode or owner -- a setattr of o, one
 * whose reply was lost too -- called before r (held as seq) and still
 * waiting for its reply when r was called? Only such a record can explain
 * that r's reply shows another mode or owner than the model's: the other
 * records in flight on a shared directory (makes, removes, renames in it)
 * change neither, and a difference they do not explain is a lost chmod or
 * chown (the model would otherwise learn it from the reply unnoticed). */
static int sets_in_flight(const struct tbbt_pass2 *p, const struct tbbt_fsobj *o, const struct tbbt_rec *r,
                          uint64_t seq) {
    for (uint64_t s = seq; s-- > p->head_seq && s + 4 * LOOKAHEAD > seq;) { /* a recent call */
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (q->op != TBBT_OP_SETATTR || !tbbt_rec_has(q, TBBT_F_OBJ) || q->obj != o->id) continue;
        if ((q->flags & TBBT_RF_REPLY_LOST) || touch_time(q) > r->call_time) return 1;
    }
    return 0;
}

/* Is a link of object id, held before seq, one the snaplen cut (the
 * model has not its name: a link the trace has, not a lost one)? */
static int link_cut(const struct tbbt_pass2 *p, tbbt_id id, uint64_t seq) {
    for (uint64_t s = p->head_seq; s < seq; s++) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (q->op == TBBT_OP_LINK && tbbt_rec_has(q, TBBT_F_OBJ) && q->obj == id &&
            ((q->flags & TBBT_RF_ARGS_CUT) || tbbt_cut_args(q)))
            return 1;
    }
    return 0;
}

/* Do links of object id a reply revealed wait to be placed
 * (settle_attrs)? */
static int links_waiting(const struct tbbt_pass2 *p, tbbt_id id) {
    for (guint i = 0; i < p->attrfixes->len; i++) {
        const struct attrfix *f = p->attrfixes->pdata[i];
        if (f->set.obj == id && tbbt_rec_has(&f->set, TBBT_F_NLINK)) return 1;
    }
    return 0;
}

/* Record r (held as seq), which has its reply: the attributes it shows of
 * an object it names, and the sizes a readdirplus shows of the files it
 * lists, against the model's (attrs_changed); a difference no record of
 * the trace explains is a lost setattr (attrs_reveal). */
static void check_attrs(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if ((r->flags & (TBBT_RF_INSERTED | TBBT_RF_REPLY_LOST)) || r->status != TBBT_NFS_OK) return;
    struct tbbt_rec *x = &p->look;
    tbbt_id id = tbbt_rec_has(r, TBBT_F_TYPE) ? attrs_of(r) : 0;
    struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    int busy = o && in_flight(o, r);
    int known =
        o && (o->flags & (TBBT_FSO_ATTRS | TBBT_FSO_RMODE)) && !(busy && sets_in_flight(p, o, r, seq));
    int row = known ? attrs_changed(o, r, !busy, x) : -1;
    if (row >= 0) attrs_reveal(p, o, r, seq, row, x);
    row = o && !in_flight(o, r) && !links_waiting(p, o->id) && !link_cut(p, o->id, seq)
              ? links_changed(o, r, x)
              : -1;
    if (row >= 0) attrs_reveal(p, o, r, seq, row, x);
    for (uint32_t i = 0; r->op == TBBT_OP_READDIRPLUS && i < r->nentries; i++) {
        const struct tbbt_dirent *e = &r->entries[i];
        o = e->id && e->type == TBBT_FT_REG ? tbbt_fsmodel_obj(p->m, e->id) : NULL;
        if (!o || !(o->flags & TBBT_FSO_ATTRS) || o->attr.type != TBBT_FT_REG || e->size >= o->attr.size ||
            in_flight(o, r))
            continue;
        tbbt_rec_clear(x);
        x->client = r->client, x->server = r->server, x->vers = r->vers, x->flags = r->flags & TBBT_RF_TCP;
        tbbt_rec_set_u64(x, TBBT_F_OBJ, o->id);
        tbbt_rec_set_u64(x, TBBT_F_SIZE, e->size);
        attrs_reveal(p, o, r, seq, tbbt_rule_find(r->op, TBBT_OC_OK, TBBT_OC_OK_SIZE), x);
    }
}

/* fix_out.emit of a revealed change: applies it to the model and keeps
 * it in the group (its range was set by place_attrs, not by the objects'
 * last records: the reply that revealed it touched them since). */
static void attr_emit(void *ctx, struct tbbt_rec *x) {
    struct tbbt_pass2 *p = ctx;
    tbbt_fsmodel_apply(p->m, x, TBBT_NFS_OK);
    struct ins *n = g_new0(struct ins, 1);
    tbbt_rec_init(&n->r);
    tbbt_rec_copy(&n->r, x);
    n->order = p->ins_order++;
    g_ptr_array_add(p->group, n);
}

/* Does the model hold as many names of x's object as x's link count
 * (lost links a correction has made since they were revealed: a lookup
 * that showed one's name)? */
static int links_held(const struct tbbt_pass2 *p, const struct tbbt_rec *x) {
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x->obj);
    uint32_t have = 0;
    for (const struct tbbt_fsdent *d = o ? o->links : NULL; d; d = d->link_next)
        have++;
    return !o || (o->flags & TBBT_FSO_GONE) || have >= x->nlink;
}

/* Inserts the setattr of change f: just after the last record that
 * showed the old values (before the next held record: a record that
 * needs the new values may not show them), or at the window's edge when
 * that record went out; counted under its rule. */
static void place_attrs(struct tbbt_pass2 *p, struct attrfix *f) {
    if (tbbt_rules[f->row].fix == TBBT_FIX_LINK_SYNTH && links_held(p, &f->set)) return;
    uint64_t before = f->lo_seq + 1;
    if (before < p->head_seq) before = p->head_seq;
    if (before > f->seq) before = f->seq;
    int64_t hi = before <= p->played ? p->ring[before % p->cap].call_time : f->reply_time;
    struct tbbt_fix_out fo = {p->m, attr_emit, p, &p->scratch};
    p->group_lo = f->lo_time;
    p->group_after = f->lo_seq;
    p->st.failures++;
    p->st.rule_failures[f->row]++;
    int k = tbbt_fix_run(tbbt_rules[f->row].fix, &f->set, &fo);
    if (k <= 0 || !p->group->len) {
        list_failure(p, &f->set, TBBT_OC_OK, tbbt_rules[f->row].traced, tbbt_rules[f->row].name);
        return;
    }
    group_place(p, before, hi);
    p->st.corrected++;
    p->st.rule_inserted[f->row] += (unsigned)k;
    p->st.inserted += (unsigned)k;
}

/* Does record q, made before change f's reply came, explain it: a
 * setattr of that object that sets those attributes (or whose call was
 * cut)? Drops what it explains from f; returns 1 when nothing is left. */
static int attrs_explained(struct attrfix *f, const struct tbbt_rec *q) {
    if (q->op == TBBT_OP_LINK && tbbt_rec_has(q, TBBT_F_OBJ) && q->obj == f->set.obj)
        f->set.has &= ~(1ull << TBBT_F_NLINK);
    if (q->op != TBBT_OP_SETATTR || !tbbt_rec_has(q, TBBT_F_OBJ) || q->obj != f->set.obj)
        return !(f->set.has & ((1ull << TBBT_F_MODE) | (1ull << TBBT_F_UID) | (1ull << TBBT_F_GID) |
                               (1ull << TBBT_F_SIZE) | (1ull << TBBT_F_NLINK)));
    int cut = (q->flags & TBBT_RF_ARGS_CUT) || tbbt_cut_args(q);
    static const enum tbbt_field shown[] = {TBBT_F_MODE, TBBT_F_UID, TBBT_F_GID, TBBT_F_SIZE};
    static const enum tbbt_field set[] = {TBBT_F_SET_MODE, TBBT_F_SET_UID, TBBT_F_SET_GID, TBBT_F_SET_SIZE};
    for (int i = 0; i < 4; i++)
        if (cut || tbbt_rec_has(q, set[i])) f->set.has &= ~(1ull << shown[i]);
    return !(f->set.has & ((1ull << TBBT_F_MODE) | (1ull << TBBT_F_UID) | (1ull << TBBT_F_GID) |
                           (1ull << TBBT_F_SIZE) | (1ull << TBBT_F_NLINK)));
}

/* Before record q (NULL: the end) is pre-played: each waiting change
 * that q, made before its reply came, explains is dropped; each whose
 * reply came before q was made (or at the end) is inserted
 * (place_attrs). */
static void settle_attrs(struct tbbt_pass2 *p, const struct tbbt_rec *q) {
    for (guint i = 0; i < p->attrfixes->len; i++) {
        struct attrfix *f = p->attrfixes->pdata[i];
        int done = !q || q->call_time > f->reply_time;
        if (done)
            place_attrs(p, f);
        else if (!attrs_explained(f, q))
            continue;
        attrfix_free(f);
        g_ptr_array_remove_index(p->attrfixes, i--);
    }
}

/* Did failed call r (a refused setattr, say) show o with another mode
 * or owner than the model holds? Then it showed a change not known yet,
 * not the values it holds (a setattr sets nothing when it fails). */
static int shows_other(const struct tbbt_fsobj *o, const struct tbbt_rec *r) {
    if (r->status == TBBT_NFS_OK || (r->flags & TBBT_RF_REPLY_LOST) || !(o->flags & TBBT_FSO_ATTRS)) return 0;
    return (tbbt_rec_has(r, TBBT_F_MODE) && (o->flags & TBBT_FSO_RMODE) && (r->mode & 07777) != o->rmode) ||
           (tbbt_rec_has(r, TBBT_F_UID) && r->uid != o->attr.uid) ||
           (tbbt_rec_has(r, TBBT_F_GID) && r->gid != o->attr.gid);
}

/* Notes that r's reply showed the attributes of the object it names, or
 * that r (a corrective record too) set them: attrs_reveal places a change
 * after the last such record. Also the mode a make gave. */
static void note_shown(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (!sets_attrs(r) &&
        (!tbbt_rec_has(r, TBBT_F_TYPE) || (r->flags & (TBBT_RF_INSERTED | TBBT_RF_REPLY_LOST))))
        return;
    tbbt_id id = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0;
    struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    if (!o || shows_other(o, r)) return;
    tbbt_pass2_obj(o)->shown_seq = seq;
    tbbt_pass2_obj(o)->shown_time = touch_time(r);
    /* a make's reply shows the mode it gave (an unchecked create of an
     * existing file sets it too): the replay gives the same */
    if (r->op < TBBT_OP_COUNT && (tbbt_op_info(r->op)->flags & TBBT_OPF_CREATES) &&
        r->status == TBBT_NFS_OK && tbbt_rec_has(r, TBBT_F_MODE) && id == r->newobj) {
        o->rmode = r->mode & 07777;
        o->flags |= TBBT_FSO_RMODE;
    }
}

/* ---- calls of other clients the server ran in the other order ---- */

/* Does r, with its traced outcome, change the file system (a lost reply:
 * maybe)? */
static int changes_state(const struct tbbt_rec *r) {
    unsigned f = r->op < TBBT_OP_COUNT ? tbbt_op_info(r->op)->flags : 0;
    return (f & TBBT_OPF_MODIFIES) && !(r->flags & TBBT_RF_RPC_ERROR) &&
           ((r->flags & TBBT_RF_REPLY_LOST) || r->status == TBBT_NFS_OK);
}

/* Are a and b calls of two clients whose call-to-reply intervals
 * overlap (each call made before the other's reply), both whole and
 * answered, so that the server may have run either one first? */
static int overlaps(const struct tbbt_rec *a, const struct tbbt_rec *b) {
    const unsigned skip = TBBT_RF_REPLY_LOST | TBBT_RF_RPC_ERROR | TBBT_RF_ARGS_CUT | TBBT_RF_INSERTED;
    if ((a->flags & skip) || (b->flags & skip) || a->status < 0 || b->status < 0) return 0;
    if (a->client.family == b->client.family && a->client.port == b->client.port &&
        memcmp(a->client.addr, b->client.addr, sizeof(a->client.addr)) == 0)
        return 0; /* one client: its calls are the trace's order */
    return a->call_time < b->reply_time && b->call_time < a->reply_time;
}

/* Do a and b name a common object (handle, directory, new object, the
 * object a name holds)? Only then can their order change an outcome. */
static int share_object(const struct tbbt_fsmodel *m, const struct tbbt_rec *a, const struct tbbt_rec *b) {
    tbbt_id x[5], y[5];
    record_objects(m, a, x);
    record_objects(m, b, y);
    for (int i = 0; i < 5; i++)
        for (int j = 0; x[i] && j < 5; j++)
            if (x[i] == y[j]) return 1;
    return 0;
}

/* Does predicted class c agree with traced class t (c unknown: any)? */
static int agrees(enum tbbt_oc c, enum tbbt_oc t) {
    return c == TBBT_OC_ANY || c == t;
}

/* Before held record q (seq qs) is applied: each later held record of
 * another client whose call overlaps q's and that names an object q
 * names gets the model's prediction now, as if the server ran it before
 * q (explained_earlier). */
static void note_alternatives(struct tbbt_pass2 *p, const struct tbbt_rec *q, uint64_t qs) {
    for (uint64_t s = qs + 1; s < p->next_seq; s++) {
        const struct tbbt_rec *r = &p->ring[s % p->cap];
        if (r->call_time >= q->reply_time) break; /* in call order: no later one overlaps */
        struct alt *a = &p->alts[s % p->cap];
        if (a->n == ALT_MAX || !changes_state(q) || !overlaps(q, r) || !share_object(p->m, q, r)) continue;
        a->q[a->n] = qs;
        a->oc[a->n++] = (uint8_t)tbbt_oc_predict(p->m, r);
    }
}

/* Does held record q still get its traced outcome when record v (with
 * its traced status) ran before it? Asked of a copy of the model with v
 * applied (q's own effect is in it already: a lookup that found nothing
 * after one that found the name does not fit either order). */
static int fits_after(struct tbbt_pass2 *p, const struct tbbt_rec *q, const struct tbbt_rec *v) {
    /* q changed the file system and v does not: v first leaves q's
     * outcome as it was (asked of the model, which holds q's effect
     * already, q would seem to fail) */
    if (changes_state(q) && !changes_state(v)) return 1;
    struct tbbt_fsmodel *c = tbbt_fsmodel_clone(p->m);
    tbbt_fsmodel_apply(c, v, v->status);
    int ok = agrees(tbbt_oc_predict(c, q), tbbt_oc_traced(c, q));
    tbbt_fsmodel_free(c);
    return ok;
}

/* Record r (held as seq, v as judged), whose traced class is traced,
 * failed in call order: an earlier held record of another client, whose
 * call overlaps r's, before which the model predicted r's traced outcome
 * (note_alternatives), and which gets its own after r (fits_after).
 * Only a call that changes the file system: one that does not (a
 * listing) only teaches the model, and changes no outcome.
 * Returns its seq, or 0. */
static uint64_t explained_earlier(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq,
                                  enum tbbt_oc traced) {
    const struct alt *a = &p->alts[seq % p->cap];
    for (unsigned i = 0; i < a->n; i++)
        if (a->q[i] >= p->head_seq && a->q[i] + p->cap > seq && agrees((enum tbbt_oc)a->oc[i], traced) &&
            fits_after(p, &p->ring[a->q[i] % p->cap], v))
            return a->q[i];
    return 0;
}

/* The first later held record of another client whose call overlaps v's
 * (held as seq) and names an object v names, after which (and after the
 * overlapping ones before it) the model, on a copy, makes holds(c, v,
 * ctx) true. Returns its seq, or 0. */
static uint64_t first_later_that(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq,
                                 int (*holds)(const struct tbbt_fsmodel *, const struct tbbt_rec *,
                                              const void *),
                                 const void *ctx) {
    struct tbbt_fsmodel *c = NULL;
    uint64_t found = 0;
    for (uint64_t s = seq + 1; s < p->next_seq && !found; s++) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (q->call_time >= v->reply_time) break;
        if (!changes_state(q) || !overlaps(v, q) || !share_object(p->m, v, q)) continue;
        if (!c) c = tbbt_fsmodel_clone(p->m);
        tbbt_fsmodel_apply(c, q, q->status);
        if (holds(c, v, ctx)) found = s;
    }
    tbbt_fsmodel_free(c);
    return found;
}

/* Does v's outcome on model c agree with the traced one (*ctx)? */
static int later_agrees(const struct tbbt_fsmodel *c, const struct tbbt_rec *v, const void *ctx) {
    return agrees(tbbt_oc_predict(c, v), *(const enum tbbt_oc *)ctx);
}

/* Does model c deny lookup or listing v its directory (ctx unused)? */
static int later_denies(const struct tbbt_fsmodel *c, const struct tbbt_rec *v, const void *ctx) {
    (void)ctx;
    return search_denied(c, v);
}

/* Record r (held as seq, v as judged), whose traced class is traced,
 * failed in call order: the first later held record of another client,
 * whose call overlaps r's and names an object r names, after which (and
 * after the overlapping ones before it) the model, on a copy, predicts
 * r's traced outcome. Returns its seq, or 0. */
static uint64_t explained_later(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq,
                                enum tbbt_oc traced) {
    return first_later_that(p, v, seq, later_agrees, &traced);
}

/* Lookup or listing r (held as seq, v as judged), traced as denied
 * (ACCES, which the model judges of a lookup or listing only when its
 * reply is lost: search_denied), that the directory's mode the model
 * holds allows: the first later held record of another client, whose
 * call overlaps r's and names an object r names (a chmod or chown of the
 * directory), after which the model, on a copy, denies r. The server ran
 * that record first; sent in the records' order, r would get through.
 * Returns its seq, or 0. */
static uint64_t denied_by_later(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq) {
    if ((v->op != TBBT_OP_LOOKUP && v->op != TBBT_OP_READDIR && v->op != TBBT_OP_READDIRPLUS) ||
        v->status != TBBT_NFSERR_ACCES || (v->flags & TBBT_RF_NAME_SYNTH) || search_denied(p->m, v))
        return 0;
    uint64_t found = first_later_that(p, v, seq, later_denies, NULL);
    if (found) p->st.concurrent++;
    return found;
}

/* Record r (held as seq, v as judged) failed in call order: is the
 * failure one the server's other order of an overlapping call of
 * another client explains? Then it is no failure (counted), and the
 * model ends as that order leaves it: r applied after the later call
 * (its deferral, *defer_after gets that call), or the earlier call
 * applied again after r. */
static int concurrent(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq, enum tbbt_oc traced,
                      uint64_t *defer_after, uint64_t *reapply) {
    *defer_after = *reapply = 0;
    uint64_t q = explained_earlier(p, v, seq, traced);
    if (q)
        *reapply = q;
    else
        q = *defer_after = explained_later(p, v, seq, traced);
    if (q) p->st.concurrent++;
    return q != 0;
}

/* Holds a copy of r to be applied once the held record after (a later
 * call the server ran first) has been pre-played (apply_deferred). */
static void defer_apply(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t after) {
    struct deferral *d = g_new0(struct deferral, 1);
    d->after = after;
    tbbt_rec_init(&d->r);
    tbbt_rec_copy(&d->r, r);
    g_ptr_array_add(p->deferred, d);
}

/* After held record seq was pre-played: the records the server ran
 * after it (defer_apply) change the model now. */
static void apply_deferred(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->deferred->len; i++) {
        struct deferral *d = p->deferred->pdata[i];
        if (d->after != seq) continue;
        tbbt_fsmodel_apply(p->m, &d->r, d->r.status);
        tbbt_rec_free(&d->r);
        g_free(d);
        g_ptr_array_remove_index(p->deferred, i--);
    }
}

/* ---- the replay's order of calls the server ran in the other order ---- */

/* The objects r acts on itself (its handle's, unless it names an entry
 * in that directory; a link's object; the one it made; the ones its
 * names hold) into ids, and the directories whose entries it names into
 * dirs. */
static void acted_on(const struct tbbt_fsmodel *m, const struct tbbt_rec *r, tbbt_id ids[4],
                     tbbt_id dirs[2]) {
    tbbt_id all[5];
    record_objects(m, r, all);
    ids[0] = all[0];
    ids[1] = all[3];
    ids[2] = all[4];
    ids[3] = 0;
    if (tbbt_rec_has(r, TBBT_F_DIR2) && tbbt_rec_has(r, TBBT_F_NAME2))
        tbbt_fsmodel_name(m, r->dir2, tbbt_rec_str(r, r->name2), r->name2.len, &ids[3]);
    dirs[0] = all[1];
    dirs[1] = all[2];
}

/* Do a and b name one (directory, name) pair? */
static int same_pair(const struct tbbt_rec *a, enum tbbt_field fd, enum tbbt_field fn,
                     const struct tbbt_rec *b, enum tbbt_field gd, enum tbbt_field gn) {
    if (!tbbt_rec_has(a, fd) || !tbbt_rec_has(a, fn) || !tbbt_rec_has(b, gd) || !tbbt_rec_has(b, gn))
        return 0;
    tbbt_id da = fd == TBBT_F_DIR ? a->dir : a->dir2, db = gd == TBBT_F_DIR ? b->dir : b->dir2;
    struct tbbt_str na = fn == TBBT_F_NAME ? a->name : a->name2, nb = gn == TBBT_F_NAME ? b->name : b->name2;
    return da == db && na.len == nb.len && !memcmp(tbbt_rec_str(a, na), tbbt_rec_str(b, nb), na.len);
}

/* Can the order of a and b change an outcome? One of them changes the
 * file system, and they act on one object, name one entry, or one acts
 * on a directory whose entry the other names (a chmod of it, a listing
 * of it, its removal). Two calls on different names of one directory do
 * not (a lookup of one name and the creation of another). */
static int order_matters(const struct tbbt_pass2 *p, const struct tbbt_rec *a, const struct tbbt_rec *b) {
    if (!changes_state(a) && !changes_state(b)) return 0;
    tbbt_id ia[4], da[2], ib[4], db[2];
    acted_on(p->m, a, ia, da);
    acted_on(p->m, b, ib, db);
    for (int i = 0; i < 4; i++) {
        for (int j = 0; ia[i] && j < 4; j++)
            if (ia[i] == ib[j]) return 1;
        for (int j = 0; ia[i] && j < 2; j++)
            if (ia[i] == db[j]) return 1;
        for (int j = 0; ib[i] && j < 2; j++)
            if (ib[i] == da[j]) return 1;
    }
    static const enum tbbt_field d[2] = {TBBT_F_DIR, TBBT_F_DIR2}, n[2] = {TBBT_F_NAME, TBBT_F_NAME2};
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            if (same_pair(a, d[i], n[i], b, d[j], n[j])) return 1;
    return 0;
}

/* Is held record seq moved already (what 1), or another's anchor (what
 * 0)? */
static int in_reorder(const struct tbbt_pass2 *p, uint64_t seq, int what) {
    for (guint i = 0; i < p->reorders->len; i++) {
        const struct reorder *o = p->reorders->pdata[i];
        if ((what ? o->seq : o->anchor) == seq) return 1;
    }
    return 0;
}

/* May held record a go out just after the later held record b, or b
 * just before a: past the held records between them and the corrective
 * records waiting to go out among them (before held records a + 1..b)?
 * Only when the order of none of them and the one moved (x: a or b) can
 * change an outcome. */
static int may_pass(const struct tbbt_pass2 *p, uint64_t x, uint64_t a, uint64_t b) {
    const struct tbbt_rec *r = &p->ring[x % p->cap];
    for (uint64_t s = a + 1; s < b; s++)
        if (order_matters(p, r, &p->ring[s % p->cap])) return 0;
    for (guint i = 0; i < p->pending->len; i++) {
        const struct ins *n = p->pending->pdata[i];
        if (n->before_seq > a && n->before_seq <= b && order_matters(p, r, &n->r)) return 0;
    }
    return 1;
}

/* Notes that x goes out just before (after 0) or after held record
 * anchor. */
static void move_beside(struct tbbt_pass2 *p, uint64_t x, uint64_t anchor, int after) {
    struct reorder *o = g_new0(struct reorder, 1);
    o->seq = x;
    o->anchor = anchor;
    o->after = after;
    tbbt_rec_init(&o->stash);
    g_ptr_array_add(p->reorders, o);
    p->st.reordered++;
}

/* The server ran held record b before the earlier held record a, both
 * calls of two clients that overlap (concurrent): the replay runs them
 * so too, b just before a, or a just after b -- the one that changes
 * nothing moved, where the records between allow it (may_pass). A record
 * moved earlier must have been pre-played when it goes out (it is, once
 * the window holds the read-ahead). A record moved already stays where
 * it goes, and an anchor is not moved (several may go beside one). */
static void reorder(struct tbbt_pass2 *p, uint64_t a, uint64_t b) {
    if (a >= b || a < p->head_seq) return;
    int moved_a = in_reorder(p, a, 1), moved_b = in_reorder(p, b, 1);
    int b_may =
        !moved_a && !moved_b && !in_reorder(p, b, 0) && (b <= p->played || p->o.window > LOOKAHEAD + 1);
    int a_may = !moved_a && !moved_b && !in_reorder(p, a, 0);
    int b_first = !changes_state(&p->ring[b % p->cap]);
    for (int k = 0; k < 2; k++) {
        if ((k == 0) == b_first) {
            if (b_may && may_pass(p, b, a, b)) return move_beside(p, b, a, 0);
        } else if (a_may && may_pass(p, a, a, b)) {
            return move_beside(p, a, b, 1);
        }
    }
}

/* Held record seq goes out: the records moved just before it go first,
 * in the order they were held, each at seq's call time (so the times
 * still ascend). */
static void out_moved_before(struct tbbt_pass2 *p, uint64_t seq) {
    for (;;) {
        struct reorder *first = NULL;
        for (guint i = 0; i < p->reorders->len; i++) {
            struct reorder *o = p->reorders->pdata[i];
            if (!o->after && !o->gone && o->anchor == seq && (!first || o->seq < first->seq)) first = o;
        }
        if (!first) return;
        tbbt_rec_copy(&first->stash, &p->ring[first->seq % p->cap]);
        first->stash.call_time = p->ring[seq % p->cap].call_time;
        out_rec(p, &first->stash);
        first->gone = 1;
    }
}

/* Held record seq's turn to go out: does it go out elsewhere (sent
 * already before its anchor, or kept to go after it)? */
static int hold_moved(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->reorders->len; i++) {
        struct reorder *o = p->reorders->pdata[i];
        if (o->seq != seq) continue;
        if (o->after) {
            tbbt_rec_copy(&o->stash, &p->ring[seq % p->cap]);
            o->stashed = 1;
        } else if (!o->gone) {
            return 0;
        } else {
            reorder_free(o);
            g_ptr_array_remove_index(p->reorders, i);
        }
        return 1;
    }
    return 0;
}

/* Held record seq went out: the records moved just after it follow, at
 * its call time at least. */
static void out_moved_after(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->reorders->len; i++) {
        struct reorder *o = p->reorders->pdata[i];
        if (!o->after || o->anchor != seq) continue;
        if (o->stashed) {
            int64_t t = p->ring[seq % p->cap].call_time;
            if (o->stash.call_time < t) o->stash.call_time = t;
            out_rec(p, &o->stash);
        }
        reorder_free(o);
        g_ptr_array_remove_index(p->reorders, i--);
    }
}

/* Record v (r held as seq) as the model may learn it: without the
 * attributes its reply shows of its object when an earlier held call of
 * another client that changes that object overlaps it -- the server may
 * have run r first, so they may be the ones before that change, which the
 * model, applying in call order, already has. Returns v, or a copy in
 * p->unshown. */
static const struct tbbt_rec *stale_attrs(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq) {
    tbbt_id id = tbbt_rec_has(v, TBBT_F_TYPE) ? attrs_of(v) : 0;
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    if (!o || !in_flight(o, v)) return v;
    int stale = 0;
    for (uint64_t s = seq; s-- > p->head_seq && s + LOOKAHEAD >= seq && !stale;) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        unsigned f = q->op < TBBT_OP_COUNT ? tbbt_op_info(q->op)->flags : 0;
        stale = (f & TBBT_OPF_MODIFIES) && tbbt_rec_has(q, TBBT_F_OBJ) && q->obj == id && overlaps(q, v);
    }
    if (!stale) return v;
    tbbt_rec_copy(&p->unshown, v);
    p->unshown.has &= ~((1ull << TBBT_F_MODE) | (1ull << TBBT_F_UID) | (1ull << TBBT_F_GID) |
                        (1ull << TBBT_F_SIZE) | (1ull << TBBT_F_NLINK));
    return &p->unshown;
}

/* Does held record q, of another client and overlapping listing r, make
 * the name (name, len) in r's directory (a make, a link, a rename's
 * target)? */
static int makes_listed(const struct tbbt_rec *r, const struct tbbt_rec *q, const char *name, size_t len) {
    unsigned f = q->op < TBBT_OP_COUNT ? tbbt_op_info(q->op)->flags : 0;
    if (!changes_state(q)) return 0;
    if ((f & TBBT_OPF_CREATES) || q->op == TBBT_OP_LINK)
        return tbbt_rec_has(q, TBBT_F_DIR) && q->dir == r->obj && q->name.len == len &&
               !memcmp(tbbt_rec_str(q, q->name), name, len);
    if (q->op == TBBT_OP_RENAME)
        return tbbt_rec_has(q, TBBT_F_DIR2) && q->dir2 == r->obj && q->name2.len == len &&
               !memcmp(tbbt_rec_str(q, q->name2), name, len);
    return 0;
}

/* Listing v (r held as seq) as the model may learn it: without the names
 * that a later call of another client, made before r's reply came, made
 * -- the server ran that call first, and the model, in call order, has
 * not met it yet: learnt now, the name would seem there before the
 * trace (and the make a failure). Returns v, or a copy in p->unmade. */
static const struct tbbt_rec *made_later(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq) {
    if ((v->op != TBBT_OP_READDIR && v->op != TBBT_OP_READDIRPLUS) || v->status != TBBT_NFS_OK ||
        !v->nentries)
        return v;
    struct tbbt_rec *c = NULL;
    for (uint64_t s = seq + 1; s < p->next_seq; s++) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (q->call_time >= v->reply_time) break;
        if (!overlaps(v, q)) continue;
        const struct tbbt_rec *cur = c ? c : v;
        for (uint32_t i = 0; i < cur->nentries; i++) {
            const struct tbbt_dirent *e = &cur->entries[i];
            if (!makes_listed(v, q, tbbt_rec_str(cur, e->name), e->name.len)) continue;
            if (!c) {
                c = &p->unmade;
                tbbt_rec_copy(c, v);
            }
            c->entries[i] = c->entries[--c->nentries];
            break;
        }
    }
    return c ? c : v;
}

/* v, which is r or the pass's copy of it (listing_as_named's p->filtered,
 * made_later's p->unmade), writable: found by its owner, not cast. */
static struct tbbt_rec *writable(struct tbbt_pass2 *p, struct tbbt_rec *r, const struct tbbt_rec *v) {
    return v == &p->filtered ? &p->filtered : v == &p->unmade ? &p->unmade : r;
}

/* Pre-plays record r (held as seq), which has its reply: predicts its
 * outcome and corrects a failure -- not on a name pass 2 made up
 * (TBBT_RF_NAME_SYNTH): the model's is the only say there -- and applies
 * it to the model. */
static void judge(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    if (r->flags & TBBT_RF_NAME_SYNTH) p->synth_seen = 1;
    sightings(p, r);
    const struct tbbt_rec *v = r->op == TBBT_OP_READDIR || r->op == TBBT_OP_READDIRPLUS
                                   ? made_later(p, listing_as_named(p, r), seq)
                                   : r;
    enum tbbt_oc pred = tbbt_oc_predict(p->m, v);
    enum tbbt_oc traced = tbbt_oc_traced(p->m, v);
    uint64_t defer_after = 0, reapply = 0;
    if (traced == TBBT_OC_OTHER) {
        defer_after = denied_by_later(p, v, seq);
        if (!defer_after) p->st.unmodelled++;
    } else if ((pred == TBBT_OC_ANY || pred == TBBT_OC_OK) && traced == TBBT_OC_STALE &&
               !(r->flags & TBBT_RF_NAME_SYNTH) && tbbt_rec_has(r, TBBT_F_OBJ) &&
               (tbbt_op_info(r->op)->flags & TBBT_OPF_OBJ) &&
               !(tbbt_op_info(r->op)->flags & TBBT_OPF_DIRNAME) && nameless_unknown(p->m, r->obj))
        stale_unknown(p, r, seq);
    else if (pred != TBBT_OC_ANY && pred != traced && !(r->flags & TBBT_RF_NAME_SYNTH) &&
             !withheld(p, r, pred, traced) && !concurrent(p, v, seq, traced, &defer_after, &reapply))
        correct_failure(p, writable(p, r, v), seq, pred, traced);
    if ((r->op == TBBT_OP_LOOKUP || r->op == TBBT_OP_READDIR || r->op == TBBT_OP_READDIRPLUS) &&
        names_await(p))
        resolve_lost(p, v);
    if ((r->op == TBBT_OP_LOOKUP || r->op == TBBT_OP_READDIRPLUS) && p->unbound_makes) bind_made(p, v);
    check_attrs(p, r, seq);
    if (defer_after || reapply) reorder(p, reapply ? reapply : seq, defer_after ? defer_after : seq);
    if (defer_after) {
        defer_apply(p, v, defer_after);
        return;
    }
    tbbt_fsmodel_apply(p->m, stale_attrs(p, v, seq), r->status);
    if (reapply) tbbt_fsmodel_apply(p->m, &p->ring[reapply % p->cap], p->ring[reapply % p->cap].status);
    remember_listed(p, v);
    if (names_await(p) && names_op(r->op)) forget_lost(p, r);
}

/* Rename r replaces, at its target, object victim (the model's, before
 * r), other than the one it moves (named): r says so (TBBT_F_VICTIM2),
 * so that fsdep orders it after the records on that object. Pass 3 fills
 * the victims it does not have, but its model, which learns a listing as
 * the trace has it, may hold the moved object at the target already (a
 * listing the server ran after the rename, called before it). */
static void name_replaced(struct tbbt_rec *r, tbbt_id named, tbbt_id victim) {
    if (r->op != TBBT_OP_RENAME || !victim || victim == named || tbbt_rec_has(r, TBBT_F_VICTIM2) ||
        (r->status != TBBT_NFS_OK && !(r->flags & TBBT_RF_REPLY_LOST)))
        return;
    tbbt_rec_set_u64(r, TBBT_F_VICTIM2, victim);
}

/* Pre-plays the held record seq. */
static void preplay(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    if (r->flags & TBBT_RF_RPC_ERROR) {
        p->st.rpc_errors++;
        return;
    }
    if (r->op >= TBBT_OP_COUNT) return;
    if (p->attrfixes->len) settle_attrs(p, r);
    note_alternatives(p, r, seq);
    tbbt_id named = 0;  /* the object (dir, name) holds before the record */
    tbbt_id victim = 0; /* the object a remove, rmdir or rename may take away */
    if (tbbt_rec_has(r, TBBT_F_NAME) && tbbt_rec_has(r, TBBT_F_DIR))
        tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &named);
    if (r->op == TBBT_OP_REMOVE || r->op == TBBT_OP_RMDIR)
        victim = named;
    else if (r->op == TBBT_OP_RENAME)
        tbbt_fsmodel_name(p->m, r->dir2, tbbt_rec_str(r, r->name2), r->name2.len, &victim);
    int cut = tbbt_cut_args(r);
    if (!cut) name_replaced(r, named, victim);
    if (cut && !restore_cut(p, r, seq)) {
        if (r->op == TBBT_OP_RENAME && r->status == TBBT_NFS_OK) hold_move(p, r, seq);
        if (r->op == TBBT_OP_LINK && r->status == TBBT_NFS_OK) hold_link(p, r, seq);
        if (r->op == TBBT_OP_REMOVE || r->op == TBBT_OP_RMDIR) hold_remove(p, r, seq);
        teach_cut(p, r);
        if (p->rmcuts->len && !(r->flags & TBBT_RF_REPLY_LOST) && r->status >= 0) rm_evidence(p, r, seq);
        if (p->rmbinds->len && !(r->flags & TBBT_RF_REPLY_LOST) && r->status >= 0) bind_evidence(p, r, seq);
    } else {
        if (!cut) rename_to_alias(p, r);
        if (!cut && p->moves->len) bind_whole(p, r, seq);
        if (p->rmcuts->len && !(r->flags & TBBT_RF_REPLY_LOST) && r->status >= 0) rm_evidence(p, r, seq);
        if (p->rmbinds->len && !(r->flags & TBBT_RF_REPLY_LOST) && r->status >= 0) bind_evidence(p, r, seq);
        if ((r->flags & TBBT_RF_REPLY_LOST) || r->status < 0)
            lost_reply(p, r, seq);
        else
            judge(p, r, seq);
    }
    struct tbbt_fsobj *vo = victim ? tbbt_fsmodel_obj(p->m, victim) : NULL;
    if (vo && (vo->flags & TBBT_FSO_GONE)) tbbt_pass2_obj(vo)->removed_by = seq;
    tbbt_id ids[5] = {tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0, tbbt_rec_has(r, TBBT_F_DIR) ? r->dir : 0,
                      tbbt_rec_has(r, TBBT_F_DIR2) ? r->dir2 : 0,
                      tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0, named};
    int64_t t = touch_time(r);
    struct tbbt_fsobj *objs[4] = {NULL, NULL, NULL, NULL}; /* the objects of ids[0..3] */
    for (int k = 0; k < 5; k++) {
        if (!ids[k] || (k && ids[k] == ids[k - 1])) continue;
        struct tbbt_fsobj *o = touch(p, ids[k], t, seq);
        if (k < 4) objs[k] = o;
    }
    learn_fileids(p, r, objs);
    learn_owner(p, r);
    note_shown(p, r, seq);
    if (p->deferred->len) apply_deferred(p, seq);
}

/* Starts loading, for writing, a ring slot left a whole window ago (so
 * no longer cached): the slot two puts ahead holds the record the next
 * put gives to the sink, and the put after copies into it. A hint only. */
static inline void prefetch_slot(const struct tbbt_rec *r) {
    for (size_t o = 0; o < sizeof(*r); o += 64)
        __builtin_prefetch((const char *)r + o, 1);
}

/* May the record after the last pre-played one be pre-played, now that
 * in (seq) was put: every call made before its reply came has been put
 * (explained_later), or LOOKAHEAD records have? */
static int read_ahead_enough(const struct tbbt_pass2 *p, const struct tbbt_rec *in, uint64_t seq) {
    const struct tbbt_rec *k = &p->ring[(p->played + 1) % p->cap];
    return in->call_time >= touch_time(k) || seq - (p->played + 1) > LOOKAHEAD;
}

/* Contract in pass2.h. */
int tbbt_pass2_put(void *p2, const struct tbbt_rec *in) {
    struct tbbt_pass2 *p = p2;
    uint64_t seq = p->next_seq++;
    struct tbbt_rec *r = &p->ring[seq % p->cap];
    if (r->arena_cap > 16384 || r->entries_cap > 64) { /* a big listing: do not keep its buffers */
        tbbt_rec_free(r);
        tbbt_rec_init(r);
    }
    /* one record of delay: its table slots load while the previous one
     * is pre-played (hinted from in, the same fields as r's copy but not
     * just written) */
    tbbt_fsmodel_prefetch(p->m, in);
    tbbt_rec_copy(r, in);
    p->alts[seq % p->cap].n = 0;
    p->st.records_in++;
    while (p->played + 1 < seq && read_ahead_enough(p, in, seq)) {
        p->played++;
        preplay(p, &p->ring[p->played % p->cap], p->played);
    }
    while (p->head_seq <= p->played && p->played + 1 - p->head_seq > p->o.window)
        out_oldest(p);
    prefetch_slot(&p->ring[(seq + 2) % p->cap]);
    return p->failed ? -1 : 0;
}

/* Contract in pass2.h. */
int tbbt_pass2_finish(struct tbbt_pass2 *p) {
    while (p->played + 1 < p->next_seq) {
        p->played++;
        preplay(p, &p->ring[p->played % p->cap], p->played);
    }
    settle_attrs(p, NULL);
    while (p->head_seq < p->next_seq)
        out_oldest(p);
    for (guint i = 0; i < p->pending->len; i++) {
        out_rec(p, &((struct ins *)p->pending->pdata[i])->r);
        ins_free(p->pending->pdata[i]);
    }
    g_ptr_array_set_size(p->pending, 0);
    tbbt_fsmodel_stats(p->m, &p->st.model);
    return p->failed ? -1 : 0;
}

const struct tbbt_pass2_stats *tbbt_pass2_stats(const struct tbbt_pass2 *p) {
    return &p->st;
}

/* Contract in pass2.h. */
struct tbbt_fsmodel *tbbt_pass2_model(struct tbbt_pass2 *p) {
    return p->m;
}

/* Share of the trace, in percent, of n records. */
static double share(const struct tbbt_pass2 *p, uint64_t n) {
    return p->st.records_in ? 100.0 * (double)n / (double)p->st.records_in : 0.0;
}

/* Contract in pass2.h. */
void tbbt_pass2_report(const struct tbbt_pass2 *p, FILE *out) {
    const struct tbbt_pass2_stats *s = &p->st;
    fprintf(out,
            "Pre-play: %" PRIu64 " records, %" PRIu64 " replay failures found: %" PRIu64
            " corrected, %" PRIu64 " unexplained\n",
            s->records_in, s->failures, s->corrected, s->unexplained);
    fprintf(out, "Inserted: %" PRIu64 " corrective records, %.4f%% of the trace (%" PRIu64 " records out)\n",
            s->inserted, share(p, s->inserted), s->records_out);
    fprintf(out,
            "Lost replies: %" PRIu64 " (%.3f%%): %" PRIu64 " resolved by the model, %" PRIu64
            " by a later record, %" PRIu64 " assumed to succeed\n",
            s->lost, share(p, s->lost), s->lost_by_model, s->lost_by_later, s->lost_unresolved);
    if (s->cut)
        fprintf(out,
                "Cut by the snaplen: %" PRIu64 " calls (%.3f%%) cut before an argument: %" PRIu64
                " names restored through the object, %" PRIu64 " synthetic names, %" PRIu64
                " makes' and setattrs' attributes from the reply, %" PRIu64
                " left unreplayable (%.3f%%); %" PRIu64
                " whole names given the synthetic name the replay knows, %" PRIu64
                " judgements withheld (a cut rename may have made the name)\n",
                s->cut, share(p, s->cut), s->cut_restored, s->cut_synth, s->cut_filled, s->cut_unreplayable,
                share(p, s->cut_unreplayable), s->cut_aliased, s->cut_withheld);
    if (s->cut_matched || s->cut_errors || s->cut_moves_placed || s->cut_bound)
        fprintf(out,
                "Cut names matched by the bytes and length kept: %" PRIu64
                "; failed cut calls given a name that"
                " fails the same way: %" PRIu64
                "; cut renames no record placed, kept in their directory: %" PRIu64
                "; cut renames and links placed where a later cut name showed one: %" PRIu64 "\n",
                s->cut_matched, s->cut_errors, s->cut_moves_placed, s->cut_bound);
    if (s->cut_rm_named || s->cut_rm_guessed)
        fprintf(out,
                "Cut removes and rmdirs named from the records that follow: %" PRIu64
                " (the only candidate left), %" PRIu64
                " at the window's end (the candidate whose object no later record used)\n",
                s->cut_rm_named, s->cut_rm_guessed);
    fprintf(out,
            "Not failures: %" PRIu64 " taught by a rule, %" PRIu64
            " traced errors outside the model, %" PRIu64 " RPC errors; %" PRIu64
            " inserted records placed at the window's edge\n",
            s->agreed, s->unmodelled, s->rpc_errors, s->late_inserts);
    if (s->concurrent)
        fprintf(out,
                "Concurrent: %" PRIu64 " outcomes explained by an overlapping call of another client "
                "(the server ran the two in the other order): not failures; %" PRIu64
                " of them sent in that order (a record placed beside the other)\n",
                s->concurrent, s->reordered);
    if (s->failures || s->attr_initial)
        fprintf(out, "Per rule (a failure whose correction revealed a second one counts under both rules; "
                     "inserted records and their share of the trace):\n");
    for (unsigned i = 0; i < tbbt_nrules; i++) {
        if (!s->rule_failures[i] && !s->rule_initial[i]) continue;
        fprintf(out, "  rule %-26s %8" PRIu64 " failures %8" PRIu64 " inserted %8.4f%%", tbbt_rules[i].name,
                s->rule_failures[i], s->rule_inserted[i], share(p, s->rule_inserted[i]));
        if (s->rule_initial[i])
            fprintf(out, ", %" PRIu64 " in the initial image instead", s->rule_initial[i]);
        fprintf(out, "  (%s)\n", tbbt_rules[i].why);
    }
    fprintf(out,
            "Model: %" PRIu64 " objects (%" PRIu64 " initial, %" PRIu64 " created, %" PRIu64
            " gone), %" PRIu64 " names (%" PRIu64 " present, %" PRIu64 " present before the trace)\n",
            s->model.objects, s->model.initial, s->model.created, s->model.gone, s->model.entries,
            s->model.present, s->model.init_present);
    if (s->unexplained || (p->o.list_corrected && p->nlisted))
        fprintf(out, "Failures listed (%u; %" PRIu64 " unexplained):\n%s", p->nlisted, s->unexplained,
                p->listed->str);
}

/* Contract in pass2.h. */
void tbbt_pass2_report_json(const struct tbbt_pass2 *p, GString *o) {
    const struct tbbt_pass2_stats *s = &p->st;
    g_string_append_printf(o,
                           "{\"records\":%" PRIu64 ",\"records_out\":%" PRIu64 ",\"failures\":%" PRIu64
                           ",\"corrected\":%" PRIu64 ",\"unexplained\":%" PRIu64 ",\"inserted\":%" PRIu64
                           ",\"inserted_share\":%.6f,\"agreed\":%" PRIu64 ",\"unmodelled\":%" PRIu64
                           ",\"rpc_errors\":%" PRIu64 ",\"late_inserts\":%" PRIu64 ",\"concurrent\":%" PRIu64
                           ",\"reordered\":%" PRIu64,
                           s->records_in, s->records_out, s->failures, s->corrected, s->unexplained,
                           s->inserted, share(p, s->inserted) / 100.0, s->agreed, s->unmodelled,
                           s->rpc_errors, s->late_inserts, s->concurrent, s->reordered);
    g_string_append_printf(o,
                           ",\"lost\":%" PRIu64 ",\"lost_by_model\":%" PRIu64 ",\"lost_by_later\":%" PRIu64
                           ",\"lost_unresolved\":%" PRIu64,
                           s->lost, s->lost_by_model, s->lost_by_later, s->lost_unresolved);
    g_string_append_printf(o,
                           ",\"cut\":%" PRIu64 ",\"cut_restored\":%" PRIu64 ",\"cut_synth\":%" PRIu64
                           ",\"cut_filled\":%" PRIu64 ",\"cut_unreplayable\":%" PRIu64
                           ",\"cut_aliased\":%" PRIu64 ",\"cut_withheld\":%" PRIu64
                           ",\"cut_rm_named\":%" PRIu64 ",\"cut_rm_guessed\":%" PRIu64
                           ",\"attr_initial\":%" PRIu64 ",\"cut_matched\":%" PRIu64 ",\"cut_errors\":%" PRIu64
                           ",\"cut_moves_placed\":%" PRIu64 ",\"cut_bound\":%" PRIu64,
                           s->cut, s->cut_restored, s->cut_synth, s->cut_filled, s->cut_unreplayable,
                           s->cut_aliased, s->cut_withheld, s->cut_rm_named, s->cut_rm_guessed,
                           s->attr_initial, s->cut_matched, s->cut_errors, s->cut_moves_placed, s->cut_bound);
    g_string_append(o, ",\"rules\":{");
    int first = 1;
    for (unsigned i = 0; i < tbbt_nrules; i++) {
        if (!s->rule_failures[i] && !s->rule_initial[i]) continue;
        g_string_append_printf(o,
                               "%s\"%s\":{\"failures\":%" PRIu64 ",\"inserted\":%" PRIu64
                               ",\"inserted_share\":%.6f,\"initial\":%" PRIu64 "}",
                               first ? "" : ",", tbbt_rules[i].name, s->rule_failures[i], s->rule_inserted[i],
                               share(p, s->rule_inserted[i]) / 100.0, s->rule_initial[i]);
        first = 0;
    }
    g_string_append_printf(o,
                           "},\"model\":{\"objects\":%" PRIu64 ",\"initial\":%" PRIu64 ",\"created\":%" PRIu64
                           ",\"gone\":%" PRIu64 ",\"names\":%" PRIu64 ",\"present\":%" PRIu64
                           ",\"initially_present\":%" PRIu64 "},\"listed\":",
                           s->model.objects, s->model.initial, s->model.created, s->model.gone,
                           s->model.entries, s->model.present, s->model.init_present);
    tbbt_json_str(o, p->listed->str, p->listed->len);
    g_string_append_c(o, '}');
}
