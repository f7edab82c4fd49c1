/* pass2_reveal.c -- state changes a later reply reveals (issue 21): a
 * reply whose attributes disagree with the model shows a change the
 * capture lost (a chmod, a truncation, a link); a corrective record for it
 * is placed between the records that bound it. */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

/* ---- state changes a later reply reveals (issue 21) ---- */

/* Contract in pass2_int.h. */
tbbt_id tbbt_p2_attrs_of(const struct tbbt_rec *r) {
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
 * (tbbt_p2_in_flight, checked by the caller). Returns the rule row, or -1. */
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

/* The mode (*mode) and attributes (*a) directory o has once change x is
 * applied. Returns 0, setting neither, when o is no directory or x
 * changes none of its mode, owner and group. */
static int dir_values_after(const struct tbbt_fsobj *o, const struct tbbt_rec *x, uint32_t *mode,
                            struct tbbt_fsattr *a) {
    if (o->attr.type != TBBT_FT_DIR ||
        !(x->has & ((1ull << TBBT_F_MODE) | (1ull << TBBT_F_UID) | (1ull << TBBT_F_GID))))
        return 0;
    *a = o->attr;
    *mode = tbbt_rec_has(x, TBBT_F_MODE) ? x->mode : o->rmode;
    if (tbbt_rec_has(x, TBBT_F_UID)) a->uid = x->uid;
    if (tbbt_rec_has(x, TBBT_F_GID)) a->gid = x->gid;
    return 1;
}

/* The last held record before seq (and after lo) that used directory o
 * with permission bits that o's mode, owner and group as change x sets
 * them would deny (dir_bits_used), or that was denied bits those would
 * grant (dir_bits_denied): the change came after it. 0 when none (or o
 * is no directory, or x changes none of those). */
static uint64_t last_denied_use(const struct tbbt_pass2 *p, const struct tbbt_fsobj *o,
                                const struct tbbt_rec *x, uint64_t lo, uint64_t seq) {
    struct tbbt_fsattr a;
    uint32_t mode;
    if (!dir_values_after(o, x, &mode, &a)) return 0;
    for (uint64_t s = seq; s-- > p->head_seq && s > lo;) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        uint32_t bits = dir_bits_used(q, o->id);
        if (bits && ((mode >> tbbt_fsmodel_mode_shift(&a, &q->cred)) & bits) != bits) return s;
        bits = dir_bits_denied(q, o->id);
        if (bits && ((mode >> tbbt_fsmodel_mode_shift(&a, &q->cred)) & bits) == bits) return s;
    }
    return 0;
}

/* Do directory values (mode, a) grant q's caller permission bits? */
static int dir_grants(uint32_t mode, const struct tbbt_fsattr *a, const struct tbbt_rec *q, uint32_t bits) {
    return ((mode >> tbbt_fsmodel_mode_shift(a, &q->cred)) & bits) == bits;
}

/* The first held record before seq whose traced refusal on directory o
 * the values change x sets explain and the model's (x not applied yet)
 * did not, when every record from it to seq agrees with x's values --
 * none used a permission they deny, was refused one they grant, or
 * showed other values -- back to the last that showed the old ones. The
 * change goes before that refusal, not after the last record on o (a
 * correction placed since for a success only the change explains: seed
 * 67's lookups refused by a lost chown, before another user's symlink
 * that a chmod was inserted for). 0 when there is none. */
static uint64_t first_refusal_explained(const struct tbbt_pass2 *p, const struct tbbt_fsobj *o,
                                        const struct tbbt_rec *x, uint64_t seq) {
    struct tbbt_fsattr a;
    uint32_t mode;
    if (!(o->flags & TBBT_FSO_RMODE) || !dir_values_after(o, x, &mode, &a)) return 0;
    uint64_t first = 0;
    for (uint64_t s = seq; s-- > p->head_seq;) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (tbbt_rec_has(q, TBBT_F_TYPE) && tbbt_p2_attrs_of(q) == o->id &&
            !(q->flags & TBBT_RF_REPLY_LOST) &&
            ((tbbt_rec_has(q, TBBT_F_MODE) && ((q->mode ^ mode) & 0777)) ||
             (tbbt_rec_has(q, TBBT_F_UID) && q->uid != a.uid) ||
             (tbbt_rec_has(q, TBBT_F_GID) && q->gid != a.gid)))
            break;
        uint32_t used = dir_bits_used(q, o->id), denied = dir_bits_denied(q, o->id);
        if ((used && !dir_grants(mode, &a, q, used)) || (denied && dir_grants(mode, &a, q, denied))) break;
        if (denied && dir_grants(o->rmode, &o->attr, q, denied)) first = s;
    }
    return first;
}

/* Change f (its lo_seq the last record that showed the old values) goes
 * after held record first - 1 instead, before the refusal first: its time
 * the earliest there, no earlier than the reply of the record before
 * (unless that came after the refusal's call); the corrective setattrs of
 * the object waiting to go out between take its values (x's). */
static void before_refusal(struct tbbt_pass2 *p, struct attrfix *f, uint64_t first,
                           const struct tbbt_rec *x) {
    f->lo_seq = first - 1;
    if (first - 1 >= p->head_seq) {
        const struct tbbt_rec *q = &p->ring[(first - 1) % p->cap];
        int64_t t = tbbt_p2_touch_time(q), hi = p->ring[first % p->cap].call_time;
        f->lo_time = t < hi ? t : q->call_time;
    }
    tbbt_p2_pending_take_values(p, x, first, f->seq);
}

/* Contract in pass2_int.h. */
void tbbt_p2_attrs_reveal(struct tbbt_pass2 *p, struct tbbt_fsobj *o, const struct tbbt_rec *r, uint64_t seq,
                          int row, struct tbbt_rec *x) {
    uint64_t refused = first_refusal_explained(p, o, x, seq);
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
    f->reply_time = tbbt_p2_touch_time(r);
    /* a size goes after the last record that touched the file (a write in
     * between would grow it again); a mode or owner right after the last
     * record that showed the old one (a record that needs the new one may
     * show nothing) */
    int by_touch = tbbt_rec_has(x, TBBT_F_SIZE) || !tbbt_pass2_obj(o)->shown_seq;
    f->lo_seq = by_touch ? tbbt_pass2_obj(o)->last_seq : tbbt_pass2_obj(o)->shown_seq;
    f->lo_time = by_touch ? tbbt_pass2_obj(o)->last_time : tbbt_pass2_obj(o)->shown_time;
    if (used > f->lo_seq) {
        f->lo_seq = used;
        f->lo_time = tbbt_p2_touch_time(&p->ring[used % p->cap]);
    }
    if (!by_touch && refused && refused - 1 < f->lo_seq) before_refusal(p, f, refused, x);
    tbbt_rec_init(&f->set);
    tbbt_rec_copy(&f->set, x);
    g_ptr_array_add(p->attrfixes, f);
}

/* Contract in pass2_int.h. */
int tbbt_p2_in_flight(const struct tbbt_fsobj *o, const struct tbbt_rec *r) {
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
        if ((q->flags & TBBT_RF_REPLY_LOST) || tbbt_p2_touch_time(q) > r->call_time) return 1;
    }
    return 0;
}

/* Is a link of object id, held before seq, one the snaplen cut (the
 * model has not its name: a link the trace has, not a lost one)? */
static int link_cut(const struct tbbt_pass2 *p, tbbt_id id, uint64_t seq) {
    if (p->cut_link_end <= p->head_seq) return 0; /* none held: no scan of the window per record */
    for (uint64_t s = p->head_seq; s < seq && s < p->cut_link_end; s++) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (q->op == TBBT_OP_LINK && tbbt_rec_has(q, TBBT_F_OBJ) && q->obj == id &&
            ((q->flags & TBBT_RF_ARGS_CUT) || tbbt_cut_args(q)))
            return 1;
    }
    return 0;
}

/* Do links of object id a reply revealed wait to be placed
 * (tbbt_p2_settle_attrs)? */
static int links_waiting(const struct tbbt_pass2 *p, tbbt_id id) {
    for (guint i = 0; i < p->attrfixes->len; i++) {
        const struct attrfix *f = p->attrfixes->pdata[i];
        if (f->set.obj == id && tbbt_rec_has(&f->set, TBBT_F_NLINK)) return 1;
    }
    return 0;
}

/* Contract in pass2_int.h. */
void tbbt_p2_check_attrs(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if ((r->flags & (TBBT_RF_INSERTED | TBBT_RF_REPLY_LOST)) || r->status != TBBT_NFS_OK) return;
    struct tbbt_rec *x = &p->look;
    tbbt_id id = tbbt_rec_has(r, TBBT_F_TYPE) ? tbbt_p2_attrs_of(r) : 0;
    struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    int busy = o && tbbt_p2_in_flight(o, r);
    int known =
        o && (o->flags & (TBBT_FSO_ATTRS | TBBT_FSO_RMODE)) && !(busy && sets_in_flight(p, o, r, seq));
    int row = known ? attrs_changed(o, r, !busy, x) : -1;
    if (row >= 0) tbbt_p2_attrs_reveal(p, o, r, seq, row, x);
    row = o && !tbbt_p2_in_flight(o, r) && !links_waiting(p, o->id) && !link_cut(p, o->id, seq)
              ? links_changed(o, r, x)
              : -1;
    if (row >= 0) tbbt_p2_attrs_reveal(p, o, r, seq, row, x);
    for (uint32_t i = 0; r->op == TBBT_OP_READDIRPLUS && i < r->nentries; i++) {
        const struct tbbt_dirent *e = &r->entries[i];
        o = e->id && e->type == TBBT_FT_REG ? tbbt_fsmodel_obj(p->m, e->id) : NULL;
        if (!o || !(o->flags & TBBT_FSO_ATTRS) || o->attr.type != TBBT_FT_REG || e->size >= o->attr.size ||
            tbbt_p2_in_flight(o, r))
            continue;
        tbbt_rec_clear(x);
        x->client = r->client, x->server = r->server, x->vers = r->vers, x->flags = r->flags & TBBT_RF_TCP;
        tbbt_rec_set_u64(x, TBBT_F_OBJ, o->id);
        tbbt_rec_set_u64(x, TBBT_F_SIZE, e->size);
        tbbt_p2_attrs_reveal(p, o, r, seq, tbbt_rule_find(r->op, TBBT_OC_OK, TBBT_OC_OK_SIZE), x);
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
        tbbt_p2_list_failure(p, &f->set, TBBT_OC_OK, tbbt_rules[f->row].traced, tbbt_rules[f->row].name);
        return;
    }
    tbbt_p2_group_place(p, before, hi);
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

/* Contract in pass2_int.h. */
void tbbt_p2_settle_attrs(struct tbbt_pass2 *p, const struct tbbt_rec *q) {
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

/* Contract in pass2_int.h. */
void tbbt_p2_note_shown(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (!tbbt_p2_sets_attrs(r) &&
        (!tbbt_rec_has(r, TBBT_F_TYPE) || (r->flags & (TBBT_RF_INSERTED | TBBT_RF_REPLY_LOST))))
        return;
    tbbt_id id = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0;
    struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    if (o && r->status == TBBT_NFS_OK && tbbt_rec_has(r, TBBT_F_CTIME) &&
        !(r->flags & (TBBT_RF_INSERTED | TBBT_RF_REPLY_LOST))) {
        tbbt_pass2_obj(o)->ctime = r->ctime; /* a spurious stale reply shows by it (tbbt_p2_keep_obj) */
        tbbt_pass2_obj(o)->flags |= TBBT_PASS2_CTIME;
    }
    if (!o || shows_other(o, r)) return;
    tbbt_pass2_obj(o)->shown_seq = seq;
    tbbt_pass2_obj(o)->shown_time = tbbt_p2_touch_time(r);
    /* a make's reply shows the mode it gave (an unchecked create of an
     * existing file sets it too): the replay gives the same */
    if (r->op < TBBT_OP_COUNT && (tbbt_op_info(r->op)->flags & TBBT_OPF_CREATES) &&
        r->status == TBBT_NFS_OK && tbbt_rec_has(r, TBBT_F_MODE) && id == r->newobj) {
        o->rmode = r->mode & 07777;
        o->flags |= TBBT_FSO_RMODE;
    }
}
