/* pass2_lost.c -- lost replies: a call whose reply the capture lost is
 * given the outcome the model or a later record shows (lost_reply,
 * resolve_lost), and a name it made or removed waits for a record that
 * shows its object. Kept apart because it is its own inference, run on
 * every record, and owns the per-name wait state (tbbt_pass2_dent). */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

/* Contract in pass2_int.h. */
int tbbt_p2_names_await(const struct tbbt_pass2 *p) {
    return p->st.lost_unresolved || p->unbound_lost;
}

/* Nothing waits at (dir, name) any more (tbbt_p2_forget_lost). */
static void forget_at(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len) {
    struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, dir, name, len);
    if (d) tbbt_pass2_dent(d)->lost_seq = 0;
}

/* Contract in pass2_int.h. */
void tbbt_p2_forget_lost(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (tbbt_rec_has(r, TBBT_F_NAME) && tbbt_rec_has(r, TBBT_F_DIR))
        forget_at(p, r->dir, tbbt_rec_str(r, r->name), r->name.len);
    if (tbbt_rec_has(r, TBBT_F_NAME2) && tbbt_rec_has(r, TBBT_F_DIR2))
        forget_at(p, r->dir2, tbbt_rec_str(r, r->name2), r->name2.len);
}

/* Contract in pass2_int.h. */
int tbbt_p2_names_op(unsigned op) {
    return op == TBBT_OP_CREATE || op == TBBT_OP_MKDIR || op == TBBT_OP_SYMLINK || op == TBBT_OP_MKNOD ||
           op == TBBT_OP_LINK || op == TBBT_OP_REMOVE || op == TBBT_OP_RMDIR || op == TBBT_OP_RENAME;
}

/* A lost make that succeeded (r, held as seq) does not know the object
 * it made: the name waits (tbbt_pass2_dent.lost_seq) for a record that shows it while
 * r is held (tbbt_p2_resolve_name), or the replay makes the name and never learns
 * the handle of the object the trace goes on to use. */
static void await_object(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (!tbbt_p2_unbound_make(r)) return;
    struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len);
    if (!d || d->state != TBBT_NAME_PRESENT) return;
    tbbt_pass2_dent(d)->lost_seq = seq;
    p->unbound_lost++;
}

/* Contract in pass2_int.h. */
int tbbt_p2_search_denied(const struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
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
 * write or truncate by another than root and that owner)? Not where the
 * model knows the file has another owner or group now. */
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
    /* a chown since (a reply showed another owner): the make's mode and
     * owner no longer say */
    if (o && (o->flags & TBBT_FSO_ATTRS) && (o->attr.uid != a.uid || o->attr.gid != a.gid)) return 0;
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

/* Contract in pass2_int.h. */
void tbbt_p2_settle_lost_lookup(struct tbbt_pass2 *p, struct tbbt_rec *r) {
    if (r->op != TBBT_OP_LOOKUP || !(r->flags & TBBT_RF_REPLY_LOST) || r->status >= 0 ||
        !tbbt_rec_has(r, TBBT_F_DIR) || !tbbt_fsmodel_obj(p->m, r->dir))
        return;
    const struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len);
    if (d && d->init == TBBT_NAME_PRESENT) return; /* success, as assumed */
    r->status = TBBT_NFSERR_NOENT;
    p->st.lost_unresolved--;
    p->st.lost_by_model++;
}

/* Lost rename r, taken as done, replaced what its target name held: a
 * lost make waiting there for a record to show its object waits no more
 * (the object a later record shows there is r's, not the make's), as
 * for a traced rename (tbbt_p2_forget_lost). */
static void forget_renamed_over(struct tbbt_pass2 *p, const struct tbbt_rec *r, int status) {
    if (r->op == TBBT_OP_RENAME && status == TBBT_NFS_OK && tbbt_rec_has(r, TBBT_F_NAME2) &&
        tbbt_rec_has(r, TBBT_F_DIR2))
        forget_at(p, r->dir2, tbbt_rec_str(r, r->name2), r->name2.len);
}

/* Whether a directory lost call r names a name in has an owner pass 2
 * guessed (an inserted mkdir no reply had shown the owner of yet): its
 * mode judges no caller (a user's own directory taken as root's would
 * refuse the user a lost make it let, and the name's later uses find a
 * make of another type inserted for it). */
static int dir_owner_guessed(const struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    const tbbt_id dirs[2] = {tbbt_rec_has(r, TBBT_F_DIR) ? r->dir : 0,
                             tbbt_rec_has(r, TBBT_F_DIR2) ? r->dir2 : 0};
    for (int i = 0; i < 2; i++) {
        const struct tbbt_fsobj *o = dirs[i] ? tbbt_fsmodel_obj(p->m, dirs[i]) : NULL;
        if (o && (tbbt_pass2_obj(o)->flags & TBBT_PASS2_OWNER_GUESSED)) return 1;
    }
    return 0;
}

/* Whether the file read, write or truncate r names has an owner pass 2
 * guessed (TBBT_PASS2_OWNER_GUESSED). */
static int file_owner_guessed(const struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    const struct tbbt_fsobj *o = tbbt_rec_has(r, TBBT_F_OBJ) ? tbbt_fsmodel_obj(p->m, r->obj) : NULL;
    return o && (tbbt_pass2_obj(o)->flags & TBBT_PASS2_OWNER_GUESSED);
}

/* Lost rename r (held as seq), judged refused by its directories'
 * modes although the model does not know its source name: refused so, the
 * source was there (nfs-ganesha looks it up first and answers NOENT
 * without it, as for a refused traced rename: rule
 * rename-denied-missing-source), so a file is made under the name before
 * r, counted under that rule. Seed 83's uniform 12: a user's rename into
 * root's 0700 directory, its source's create lost with it. */
static void refused_source_made(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (r->op != TBBT_OP_RENAME || !tbbt_rec_has(r, TBBT_F_DIR) || !tbbt_rec_has(r, TBBT_F_NAME) ||
        (r->flags & TBBT_RF_NAME_SYNTH) ||
        tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, NULL) != TBBT_NAME_UNKNOWN)
        return;
    int row = tbbt_rule_find(TBBT_OP_RENAME, TBBT_OC_NOENT, TBBT_OC_ACCES);
    if (row < 0 || tbbt_rules[row].fix != TBBT_FIX_MAKE_FILE) return;
    int k = tbbt_p2_fix_place(p, TBBT_FIX_MAKE_FILE, r, seq);
    if (k <= 0) return;
    p->st.rule_failures[row]++;
    p->st.rule_inserted[row] += (unsigned)k;
    p->st.inserted += (unsigned)k;
}

/* Contract in pass2_int.h. */
void tbbt_p2_lost_reply(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    p->st.lost++;
    int pred = tbbt_fsmodel_predict(p->m, r);
    /* a read, write or truncate of a file whose owner pass 2 guessed (an
     * inserted make no reply had shown the owner of yet): its mode judges
     * no caller, as for a directory (dir_owner_guessed) */
    if (pred == TBBT_NFSERR_ACCES && tbbt_fsmodel_access_need(r) && file_owner_guessed(p, r))
        pred = TBBT_NFS_OK;
    /* a success the directory's mode forbids: the call was denied (only
     * here: a traced status is never judged by it). So is a call the
     * model cannot judge otherwise (a rename of a name it does not know):
     * whatever the name held, the directory refuses the caller, and left
     * unresolved it would be taken as done (a user's rename into root's
     * 0700 directory replacing a name there) */
    if ((pred == TBBT_NFS_OK || (pred == TBBT_PREDICT_ANY && r->status < 0)) &&
        tbbt_fsmodel_predict_dir_access(p->m, r) == TBBT_NFSERR_ACCES && !dir_owner_guessed(p, r)) {
        if (pred == TBBT_PREDICT_ANY) refused_source_made(p, r, seq);
        pred = TBBT_NFSERR_ACCES;
    }
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
        tbbt_p2_search_denied(p->m, r))
        pred = TBBT_NFSERR_ACCES;
    if (pred == TBBT_PREDICT_ANY && r->status >= 0) pred = r->status; /* resolved by an earlier pass */
    if (pred != TBBT_PREDICT_ANY) {
        r->status = pred;
        p->st.lost_by_model++;
        forget_renamed_over(p, r, pred);
        tbbt_fsmodel_apply(p->m, r, pred);
        if (pred == TBBT_NFS_OK) await_object(p, r, seq);
        return;
    }
    p->st.lost_unresolved++;
    if (r->op == TBBT_OP_LOOKUP) return; /* changes nothing: tbbt_p2_settle_lost_lookup */
    forget_renamed_over(p, r, TBBT_NFS_OK);
    tbbt_fsmodel_apply(p->m, r, TBBT_NFS_OK);
    if (!tbbt_p2_names_op(r->op) || !tbbt_rec_has(r, TBBT_F_NAME)) return;
    struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len);
    if (d) tbbt_pass2_dent(d)->lost_seq = seq;
}

/* Lost make l (held as s) made obj, which no record used before l was
 * called: the attributes a record showed of it since (before the record
 * that revealed which object l made) did not make it an object of the
 * initial image, as tbbt_fsmodel_learn_attrs takes one whose attributes
 * come before any record made it. It was made, and a directory began
 * empty (tbbt_p2_mark_made_empty). */
static void made_by_lost(struct tbbt_pass2 *p, uint64_t s, tbbt_id obj) {
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, obj);
    if (!o || !(o->flags & TBBT_FSO_INITIAL) || o->links || tbbt_pass2_obj(o)->first_seq <= s) return;
    o->flags &= ~(uint32_t)(TBBT_FSO_INITIAL | TBBT_FSO_INIT_ATTRS);
    o->flags |= TBBT_FSO_CREATED;
}

/* Contract in pass2_int.h. */
void tbbt_p2_resolve_name(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len, int present,
                          tbbt_id obj) {
    struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, dir, name, len);
    if (!d || !tbbt_pass2_dent(d)->lost_seq) return;
    uint64_t s = tbbt_pass2_dent(d)->lost_seq;
    tbbt_pass2_dent(d)->lost_seq = 0;
    if (s < p->head_seq) return;
    struct tbbt_rec *l = &p->ring[s % p->cap];
    if (!(l->flags & TBBT_RF_REPLY_LOST)) return;
    int makes = l->op != TBBT_OP_REMOVE && l->op != TBBT_OP_RMDIR && l->op != TBBT_OP_RENAME;
    int binds = tbbt_p2_unbound_make(l);
    if (l->status >= 0) { /* resolved by a plain listing, which could not show the object */
        if (binds && present && obj && d->state == TBBT_NAME_PRESENT) {
            made_by_lost(p, s, obj);
            tbbt_rec_set_u64(l, TBBT_F_NEWOBJ, obj);
            rejudge_lost_uses(p, s, obj);
            tbbt_p2_mark_made_empty(p->m, l);
            tbbt_p2_remake_names_held(p, s);
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
            tbbt_p2_mark_made_empty(p->m, l); /* as the model does when r binds it (dent_bind) */
            tbbt_p2_remake_names_held(p, s);
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

/* Contract in pass2_int.h. */
void tbbt_p2_retype_make(struct tbbt_rec *x, uint32_t type) {
    if (!type || x->op != TBBT_OP_CREATE || type == TBBT_FT_REG ||
        (type != TBBT_FT_DIR && type != TBBT_FT_LNK && type != TBBT_FT_SOCK && type != TBBT_FT_FIFO))
        return;
    x->has &= ~((1ull << TBBT_F_CREATEHOW) | (1ull << TBBT_F_VERF));
    tbbt_rec_set_u64(x, TBBT_F_TYPE, type);
    if (type == TBBT_FT_SOCK || type == TBBT_FT_FIFO) { /* a user's mknod: no device number */
        x->op = TBBT_OP_MKNOD;
        tbbt_rec_set_u64(x, TBBT_F_NODETYPE, type);
        return;
    }
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
 * it (tbbt_p2_mend_owner). */
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

/* Contract in pass2_int.h. */
void tbbt_p2_mend_made(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len, tbbt_id obj,
                       uint32_t type) {
    if (!obj) return;
    const struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, dir, name, len);
    uint64_t left = 0;
    int done = !d || d->state != TBBT_NAME_PRESENT || d->obj; /* the name holds an unknown object */
    /* the name a held rename moved it from (the make's name, made for a
     * rename whose source the capture lost: rename-missing-source) */
    const struct tbbt_rec *mv = NULL;
    struct ins *bound = NULL;
    for (uint64_t s = p->played; !done && !mv && s-- > p->head_seq;) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (q->op == TBBT_OP_RENAME && q->status == TBBT_NFS_OK && tbbt_rec_has(q, TBBT_F_DIR2) &&
            q->dir2 == dir && q->name2.len == len && !memcmp(tbbt_rec_str(q, q->name2), name, len))
            mv = q;
    }
    for (guint i = p->pending->len; i-- > 0;) {
        struct tbbt_rec *x = &((struct ins *)p->pending->pdata[i])->r;
        if (!tbbt_p2_unbound_make(x)) continue;
        int here = x->dir == dir && x->name.len == len && !memcmp(tbbt_rec_str(x, x->name), name, len);
        if (!here && mv)
            here = x->dir == mv->dir && x->name.len == mv->name.len &&
                   !memcmp(tbbt_rec_str(x, x->name), tbbt_rec_str(mv, mv->name), mv->name.len);
        if (!done && here && link_instead(p, x, obj)) {
            done = 1;
        } else if (!done && here) {
            tbbt_p2_retype_make(x, type);
            tbbt_rec_set_u64(x, TBBT_F_NEWOBJ, obj);
            tbbt_p2_mark_made_empty(p->m, x);
            made_as_shown(p, x, obj);
            bound = p->pending->pdata[i];
            done = 1;
        } else {
            left++;
        }
    }
    p->unbound_makes = left;
    if (bound) tbbt_p2_bound_before_use(p, bound); /* the object's uses before it need it */
}

/* Contract in pass2_int.h. */
void tbbt_p2_bind_made(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->status != TBBT_NFS_OK) return;
    if (r->op == TBBT_OP_LOOKUP) {
        if (tbbt_rec_has(r, TBBT_F_NEWOBJ))
            tbbt_p2_mend_made(p, r->dir, tbbt_rec_str(r, r->name), r->name.len, r->newobj,
                              tbbt_rec_has(r, TBBT_F_TYPE) ? r->type : 0);
        return;
    }
    for (uint32_t i = 0; i < r->nentries && p->unbound_makes; i++)
        tbbt_p2_mend_made(p, r->obj, tbbt_rec_str(r, r->entries[i].name), r->entries[i].name.len,
                          r->entries[i].id, r->entries[i].type);
}

/* Contract in pass2_int.h. */
void tbbt_p2_resolve_lost(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->op == TBBT_OP_LOOKUP) {
        if (r->status == TBBT_NFS_OK || r->status == TBBT_NFSERR_NOENT)
            tbbt_p2_resolve_name(p, r->dir, tbbt_rec_str(r, r->name), r->name.len, r->status == TBBT_NFS_OK,
                                 tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0);
        return;
    }
    if (r->status != TBBT_NFS_OK) return;
    for (uint32_t i = 0; i < r->nentries && tbbt_p2_names_await(p); i++)
        tbbt_p2_resolve_name(p, r->obj, tbbt_rec_str(r, r->entries[i].name), r->entries[i].name.len, 1,
                             r->entries[i].id);
}
