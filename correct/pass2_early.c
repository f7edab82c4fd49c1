/* pass2_early.c -- where a fix's records go (fix_place): before the failing
 * record, or, for a name made as an object used before the record that
 * revealed it, before that first use (made_before_use), with the names
 * under it made again (remake_names), or under a name of its own when the
 * name was absent since (make_early_elsewhere); an inserted make bound to
 * its object only later moves before that object's first use too
 * (bound_before_use). One placement decision that several rule actions
 * share, kept apart from the ring. */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

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

/* Inserted make x, waiting to go out, moves to just before held record
 * seq, at the earliest time there (before what goes there for names in
 * it), and its object's first touch with it. */
static void move_before(struct tbbt_pass2 *p, struct ins *x, uint64_t seq) {
    g_ptr_array_remove(p->pending, x);
    int64_t hi = p->ring[seq % p->cap].call_time, lo = p->ring[(seq - 1) % p->cap].call_time;
    if (p->have_out && lo < p->last_out_time) lo = p->last_out_time;
    if (lo > hi) lo = hi;
    x->r.call_time = x->r.reply_time = lo;
    x->before_seq = seq;
    tbbt_p2_made_first(p, &x->r, seq - 1);
    tbbt_p2_pending_add(p, x);
}

/* Directory id, made by an inserted mkdir still waiting to go out, must
 * exist before held record seq (a lost make in it goes before the first
 * use of the object it made, tbbt_p2_made_before_use): that mkdir, placed after
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
        tbbt_p2_last_named(p, x->r.dir, tbbt_rec_str(&x->r, x->r.name), x->r.name.len, x->before_seq) >= seq)
        return 0;
    move_before(p, x, seq);
    return 1;
}

/* Whether a held listing of dir from first to seq (excluded) succeeded
 * without (name, len): the name was absent then, or the listing was one
 * part of several -- either way no place to make it before. */
static int listed_without(const struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len,
                          uint64_t first, uint64_t seq) {
    for (uint64_t s = first; s < seq; s++) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if ((q->op != TBBT_OP_READDIR && q->op != TBBT_OP_READDIRPLUS) || q->status != TBBT_NFS_OK ||
            !tbbt_rec_has(q, TBBT_F_OBJ) || q->obj != dir)
            continue;
        uint32_t i = 0;
        while (i < q->nentries &&
               (q->entries[i].name.len != len || memcmp(tbbt_rec_str(q, q->entries[i].name), name, len)))
            i++;
        if (i == q->nentries) return 1;
    }
    return 0;
}

/* Whether an inserted record waiting to go out other than x names x's
 * name at or after held record first: x stays where it is. */
static int name_pending_since(const struct tbbt_pass2 *p, const struct ins *x, uint64_t first) {
    for (guint i = 0; i < p->pending->len; i++) {
        const struct ins *y = p->pending->pdata[i];
        if (y == x || y->before_seq < first) continue;
        if ((tbbt_rec_has(&y->r, TBBT_F_DIR) && y->r.dir == x->r.dir && y->r.name.len == x->r.name.len &&
             !memcmp(tbbt_rec_str(&y->r, y->r.name), tbbt_rec_str(&x->r, x->r.name), x->r.name.len)) ||
            (tbbt_rec_has(&y->r, TBBT_F_DIR2) && y->r.dir2 == x->r.dir && y->r.name2.len == x->r.name.len &&
             !memcmp(tbbt_rec_str(&y->r, y->r.name2), tbbt_rec_str(&x->r, x->r.name), x->r.name.len)))
            return 1;
    }
    return 0;
}

/* Contract in pass2_int.h. */
int tbbt_p2_bound_before_use(struct tbbt_pass2 *p, struct ins *x) {
    const struct tbbt_rec *r = &x->r;
    if (r->op == TBBT_OP_MKDIR || !(tbbt_op_info(r->op)->flags & TBBT_OPF_CREATES) ||
        !tbbt_rec_has(r, TBBT_F_NEWOBJ) || !r->newobj || !tbbt_rec_has(r, TBBT_F_DIR) ||
        !tbbt_rec_has(r, TBBT_F_NAME))
        return 0;
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, r->newobj);
    const struct tbbt_fsobj *d = tbbt_fsmodel_obj(p->m, r->dir);
    uint64_t first = o ? tbbt_pass2_obj(o)->first_seq : 0;
    if (!first || !d || first >= x->before_seq || first <= p->head_seq || first > p->played ||
        (p->have_out && p->ring[first % p->cap].call_time < p->last_out_time))
        return 0;
    /* the directory there then, the name named by no record between */
    int dir_there = d->flags & TBBT_FSO_CREATED
                        ? tbbt_pass2_obj(d)->first_seq && tbbt_pass2_obj(d)->first_seq < first
                        : (d->flags & TBBT_FSO_INITIAL) != 0;
    const char *name = tbbt_rec_str(r, r->name);
    if (!dir_there || tbbt_p2_last_named(p, r->dir, name, r->name.len, x->before_seq) >= first ||
        listed_without(p, r->dir, name, r->name.len, first, x->before_seq) || name_pending_since(p, x, first))
        return 0;
    o->flags &= ~(uint32_t)(TBBT_FSO_INITIAL | TBBT_FSO_INIT_ATTRS); /* made by the trace */
    move_before(p, x, first);
    return 1;
}

/* Contract in pass2_int.h. */
uint64_t tbbt_p2_made_before_use(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
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
    if (n &&
        (n->state != TBBT_NAME_ABSENT || tbbt_p2_last_named(p, r->dir, tbbt_rec_str(r, r->name), r->name.len,
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

/* Contract in pass2_int.h. */
struct tbbt_rec *tbbt_p2_lookup_like(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
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
    uint64_t s = tbbt_p2_last_named(p, dir, name, len, seq);
    return s && p->ring[s % p->cap].op == TBBT_OP_RMDIR ? TBBT_FT_DIR : 0;
}

/* An early mkdir (tbbt_p2_fix_place) made directory id before records that
 * listed or found names in it, which the model took as there before the
 * trace: they were made since, by calls the capture lost (a directory
 * made in the trace began empty) -- those a held record removed since
 * too. Each is made as the lookup that shows it would be, right after the
 * mkdir (before the directory's first use), and the directory began
 * empty; a directory among them, with its names (depth: of the
 * recursion). Returns the records added. */
static int remake_names_of(struct tbbt_pass2 *p, struct tbbt_rec *mk, tbbt_id id, uint64_t early,
                           unsigned depth);
static int remake_names(struct tbbt_pass2 *p, tbbt_id id, uint64_t early, unsigned depth) {
    return remake_names_of(p, pending_make(p, id), id, early, depth);
}

/* Contract in pass2_int.h. */
int tbbt_p2_remake_names_held(struct tbbt_pass2 *p, uint64_t s) {
    if (s < p->head_seq || s >= p->played) return 0;
    struct tbbt_rec *mk = &p->ring[s % p->cap];
    if (mk->op != TBBT_OP_MKDIR || !tbbt_rec_has(mk, TBBT_F_NEWOBJ) || !mk->newobj) return 0;
    int n = remake_names_of(p, mk, mk->newobj, s + 1, 0);
    int row = tbbt_rule_find(TBBT_OP_MKDIR, TBBT_OC_OK, TBBT_OC_OK);
    if (n <= 0 || row < 0) return n;
    p->st.failures++;
    p->st.corrected++;
    p->st.rule_failures[row]++;
    p->st.rule_inserted[row] += (unsigned)n;
    p->st.inserted += (unsigned)n;
    return n;
}

/* remake_names for make mk (an inserted mkdir waiting to go out, or a
 * held one) of directory id. */
static int remake_names_of(struct tbbt_pass2 *p, struct tbbt_rec *mk, tbbt_id id, uint64_t early,
                           unsigned depth) {
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
        struct tbbt_rec *x = tbbt_p2_lookup_like(p, mk);
        tbbt_rec_set_u64(x, TBBT_F_DIR, id);
        tbbt_rec_set_str(x, TBBT_F_NAME, name, len);
        if (obj) tbbt_rec_set_u64(x, TBBT_F_NEWOBJ, obj);
        uint32_t gone_type = i >= present ? named_type(p, id, name, len, p->next_seq) : 0;
        uint32_t type = c && c->attr.type   ? c->attr.type
                        : c && c->nchildren ? TBBT_FT_DIR
                        : gone_type         ? gone_type
                                            : listed_type(p, id, name, len);
        tbbt_rec_set_u64(x, TBBT_F_TYPE, type);
        struct tbbt_fix_out fo = {p->m, tbbt_p2_group_emit, p, &p->scratch};
        p->group_lo = lo;
        p->group_after = 0;
        if (tbbt_fix_run(TBBT_FIX_MAKE_BY_REPLY, x, &fo) < 0 || !p->group->len) continue;
        n += (int)p->group->len;
        tbbt_p2_group_place(p, early, p->ring[early % p->cap].call_time);
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

/* Object r->newobj, which r reveals under (r->dir, r->name), was used by
 * handle before, never named nor made, and a record between that use and
 * r found the name absent: it existed then under a name the capture never
 * showed, and a lost rename gave it this one. It is made before its first
 * use under a name of its own (".tbbt-early-ID", tbbt_p2_made_before_use places
 * it), and renamed onto r's name before r (TBBT_FIX_MOVE_BY_REPLY: its
 * one name). Returns the records placed, or 0 when that does not apply. */
static int make_early_elsewhere(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (!tbbt_rec_has(r, TBBT_F_NEWOBJ) || !r->newobj || !tbbt_rec_has(r, TBBT_F_NAME)) return 0;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, r->newobj);
    if (!o || o->links || (o->flags & TBBT_FSO_CREATED) || tbbt_pass2_obj(o)->first_seq >= seq ||
        tbbt_pass2_obj(o)->first_seq < p->head_seq ||
        tbbt_p2_last_named(p, r->dir, tbbt_rec_str(r, r->name), r->name.len, seq) <
            tbbt_pass2_obj(o)->first_seq)
        return 0;
    struct tbbt_rec *x = &p->early;
    tbbt_rec_copy(x, r);
    char name[48];
    int len = g_snprintf(name, sizeof(name), ".tbbt-early-%" G_GUINT64_FORMAT, (guint64)r->newobj);
    tbbt_rec_set_str(x, TBBT_F_NAME, name, (size_t)len);
    if (!tbbt_p2_made_before_use(p, x, seq)) return 0;
    int k = tbbt_p2_fix_place(p, TBBT_FIX_MAKE_BY_REPLY, x, seq);
    if (k <= 0) return 0;
    int m = tbbt_p2_fix_place(p, TBBT_FIX_MOVE_BY_REPLY, r, seq);
    return m > 0 ? k + m : k;
}

/* The last held record before which an inserted record still waiting to
 * go out names (r->dir, r->name) or object y (0: none): what replaces y
 * under the name goes after it. */
static uint64_t pending_named_last(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id y) {
    uint64_t last = 0;
    for (guint i = 0; i < p->pending->len; i++) {
        const struct ins *x = p->pending->pdata[i];
        if (x->before_seq <= last) continue;
        if ((tbbt_rec_has(&x->r, TBBT_F_OBJ) && x->r.obj == y) ||
            (tbbt_rec_has(&x->r, TBBT_F_NEWOBJ) && x->r.newobj == y) ||
            (tbbt_rec_has(&x->r, TBBT_F_NAME) && x->r.dir == r->dir && x->r.name.len == r->name.len &&
             !memcmp(tbbt_rec_str(&x->r, x->r.name), tbbt_rec_str(r, r->name), r->name.len)))
            last = x->before_seq;
    }
    return last;
}

/* Object r->newobj, which r finds under (r->dir, r->name) where the model
 * holds another object y, was used by handle before r, never named nor
 * made; no record since that first use named the name or touched y. The
 * capture lost y's removal and x's make: x took y's fileid (p->reused), so
 * the name a listing showed with that fileid may have been x's all along
 * (and a link of y pass 2 guessed from it wrong). Nothing between tells
 * when, so both go before x's first use, which needs x. Returns that use's sequence number
 * (*y_last: y's last record, or the last before which an inserted record
 * naming y or the name goes out: both stay before them), or 0. */
static uint64_t replaced_before_use(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq,
                                    uint64_t *y_last) {
    if (!tbbt_rec_has(r, TBBT_F_NEWOBJ) || !r->newobj || !tbbt_rec_has(r, TBBT_F_NAME)) return 0;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, r->newobj);
    const struct tbbt_fsobj *d = tbbt_fsmodel_obj(p->m, r->dir);
    const struct tbbt_fsdent *n = tbbt_fsmodel_dent(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len);
    if (!o || !d || o->links || (o->flags & TBBT_FSO_CREATED) || !n || n->state != TBBT_NAME_PRESENT ||
        !n->obj || n->obj == r->newobj)
        return 0;
    uint64_t first = tbbt_pass2_obj(o)->first_seq;
    const struct tbbt_fsobj *y = tbbt_fsmodel_obj(p->m, n->obj);
    if (!y || first >= seq || first < p->head_seq || !tbbt_fsmodel_dir_fresh(p->m, r->dir) ||
        tbbt_pass2_obj(d)->first_seq >= first || tbbt_pass2_obj(y)->last_seq >= first ||
        tbbt_p2_last_named(p, r->dir, tbbt_rec_str(r, r->name), r->name.len, seq) >= first)
        return 0;
    if ((tbbt_id)GPOINTER_TO_SIZE(g_hash_table_lookup(p->reused, GSIZE_TO_POINTER((gsize)r->newobj))) !=
        y->id)
        return 0;
    uint64_t named = pending_named_last(p, r, y->id);
    if (named >= first) return 0;
    *y_last = tbbt_pass2_obj(y)->last_seq > named ? tbbt_pass2_obj(y)->last_seq : named;
    return first;
}

/* Contract in pass2_int.h. */
int tbbt_p2_fix_place(struct tbbt_pass2 *p, enum tbbt_fix_act act, const struct tbbt_rec *r, uint64_t seq) {
    struct tbbt_fix_out fo = {p->m, tbbt_p2_group_emit, p, &p->scratch};
    uint64_t y_last = 0;
    uint64_t early = act == TBBT_FIX_MAKE_BY_REPLY   ? tbbt_p2_made_before_use(p, r, seq)
                     : act == TBBT_FIX_MOVE_BY_REPLY ? replaced_before_use(p, r, seq, &y_last)
                                                     : 0;
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
    struct tbbt_fsobj *so = act == TBBT_FIX_REMOVE_OBJ ? tbbt_fsmodel_obj(p->m, r->obj) : NULL;
    if (so && (so->flags & TBBT_FSO_GONE) && (tbbt_pass2_obj(so)->removed_by & TBBT_PASS2_GONE_BY_INSERTED)) {
        tbbt_pass2_obj(so)->flags |= TBBT_PASS2_GONE_STALE; /* only a stale reply asked (tbbt_p2_keep_obj) */
        tbbt_pass2_obj(so)->stale_rms = (uint32_t)k;
    }
    if (early) {
        /* after the directory was made (and the last record that found
         * the name absent), before the object's first use */
        uint64_t made = tbbt_pass2_obj(tbbt_fsmodel_obj(p->m, r->dir))->first_seq;
        uint64_t absent = tbbt_p2_last_named(p, r->dir, tbbt_rec_str(r, r->name), r->name.len, early);
        if (absent > made) made = absent;
        if (y_last > made) made = y_last; /* the object the name held, used till then */
        p->group_after = made >= p->head_seq ? made : 0;
        p->group_lo = made >= p->head_seq ? tbbt_p2_touch_time(&p->ring[made % p->cap]) : 0;
        /* and after the directory's own make, when one was inserted there
         * (its first touch, tbbt_p2_made_first: not a held record) */
        const struct ins *dm = pending_make_ins(p, r->dir);
        if (dm && dm->r.call_time > p->group_lo) p->group_lo = dm->r.call_time;
        tbbt_p2_group_place(p, early, p->ring[early % p->cap].call_time);
        if (!tbbt_rec_has(r, TBBT_F_MODE)) fit_made_mode(p, r->newobj, early, seq);
        k += remake_names(p, r->newobj, early, 0);
    } else {
        tbbt_p2_group_place(p, seq, r->call_time);
    }
    return k;
}
