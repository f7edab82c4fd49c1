/* pass2_keep.c -- the fix TBBT_FIX_KEEP_OBJ hands off (rule
 * used-after-removal): an object a held or inserted removal took away is
 * kept under ".tbbt-kept-ID" so that the later record that uses it finds
 * it; inserted removals that the record shows never happened (its ctime
 * unchanged since before them) are withdrawn instead. One fix, one file. */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

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

/* Contract in pass2_int.h. */
tbbt_id tbbt_p2_keep_dir(const struct tbbt_fsmodel *m, tbbt_id dir) {
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
    tbbt_id kd = tbbt_p2_keep_dir(p->m, x->r.dir);
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

/* The pending inserted record of insertion order `order`, or NULL. */
static struct ins *pending_ins(struct tbbt_pass2 *p, uint64_t order, guint *at) {
    for (guint i = 0; i < p->pending->len; i++) {
        struct ins *x = p->pending->pdata[i];
        if (x->order != order) continue;
        *at = i;
        return x;
    }
    return NULL;
}

/* Does traced success r show g as it was before the inserted removals
 * that took it away, where only a stale reply asked for them (rules
 * handle-stale-live, denied-stale-live: every name of g removed)? Its
 * reply shows the ctime the last traced reply before them showed: a
 * file whose last name went is gone, and a file made anew, even with the
 * same handle (an inode and generation reused), has the ctime of its
 * making, so g was never removed and the stale reply was the server's
 * alone (nfs-ganesha answered one such read STALE between two that it
 * answered, the file untouched; seed 101's uniform 13). Not for a
 * removal a refused name asked for (lookup-noent-present): a lost rename
 * of g away from it need not show in g's ctime (seen: seed 113's
 * uniform 11, nfs-ganesha's reply after a lost rename). */
static int never_removed(const struct tbbt_fsobj *g, const struct tbbt_rec *r) {
    const struct tbbt_pass2_obj *e = tbbt_pass2_obj(g);
    tbbt_id id = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0;
    return id == g->id && (e->flags & TBBT_PASS2_CTIME) && (e->flags & TBBT_PASS2_GONE_STALE) &&
           r->status == TBBT_NFS_OK && !(r->flags & (TBBT_RF_INSERTED | TBBT_RF_REPLY_LOST)) &&
           tbbt_rec_has(r, TBBT_F_CTIME) && r->ctime == e->ctime;
}

/* Lost replies on g, held from seq `from` on, that the model judged
 * stale while the withdrawn removals stood (calls that change nothing: a
 * getattr, a read): judged again, now that g lives. */
static void rejudge_stale(struct tbbt_pass2 *p, const struct tbbt_fsobj *g, uint64_t from) {
    for (uint64_t s = from < p->head_seq ? p->head_seq : from; s < p->next_seq; s++) {
        struct tbbt_rec *q = &p->ring[s % p->cap];
        if (!(q->flags & TBBT_RF_REPLY_LOST) || q->status != TBBT_NFSERR_STALE ||
            !tbbt_rec_has(q, TBBT_F_OBJ) || q->obj != g->id || tbbt_p2_changes_state(q))
            continue;
        int pred = tbbt_fsmodel_predict(p->m, q);
        if (pred != TBBT_PREDICT_ANY) q->status = pred;
    }
}

/* TBBT_FIX_KEEP_OBJ when r shows that inserted removals took g away in
 * error (never_removed): the correction's removes and rmdirs of g's names
 * (stale_rms of them, of consecutive insertion orders ending with
 * removed_by, to go out before the same record, all still pending) are
 * withdrawn, the model gets each name back and the lost replies on g
 * judged stale meanwhile are judged again. The stale reply stays a
 * mismatch of one record, not of every later one on g. Returns the
 * number withdrawn, or 0 (nothing changed) where one of them has gone
 * out already or its name is taken. */
static int withdraw_removals(struct tbbt_pass2 *p, struct tbbt_fsobj *g) {
    uint64_t last = tbbt_pass2_obj(g)->removed_by & ~TBBT_PASS2_GONE_BY_INSERTED;
    guint at = 0;
    const struct ins *x = pending_ins(p, last, &at);
    if (!x) return 0;
    uint64_t before = x->before_seq, k = tbbt_pass2_obj(g)->stale_rms;
    if (!k || k > last + 1) return 0;
    uint64_t first = last + 1 - k;
    for (uint64_t o = first; o <= last; o++) {
        const struct ins *y = pending_ins(p, o, &at);
        tbbt_id held = 0;
        if (!y || y->before_seq != before || !(y->r.flags & TBBT_RF_INSERTED) ||
            (y->r.op != TBBT_OP_REMOVE && y->r.op != TBBT_OP_RMDIR) ||
            (tbbt_fsmodel_name(p->m, y->r.dir, tbbt_rec_str(&y->r, y->r.name), y->r.name.len, &held) ==
                 TBBT_NAME_PRESENT &&
             held))
            return 0;
    }
    uint32_t type = g->attr.type, nl = g->attr.nlink;
    int n = 0;
    for (uint64_t o = first; o <= last; o++) {
        struct ins *y = pending_ins(p, o, &at);
        tbbt_fsmodel_link(p->m, y->r.dir, tbbt_rec_str(&y->r, y->r.name), y->r.name.len, g->id, type);
        g_ptr_array_remove_index(p->pending, at);
        tbbt_rec_free(&y->r);
        g_free(y);
        n++;
    }
    if (type != TBBT_FT_DIR && nl) g->attr.nlink = nl;
    rejudge_stale(p, g, before);
    tbbt_pass2_obj(g)->removed_by = 0;
    p->st.inserted -= (uint64_t)n;
    p->st.stale_withdrawn += (uint64_t)n;
    return n;
}

/* Contract in pass2_int.h. */
int tbbt_p2_keep_obj(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    struct tbbt_fsobj *g = gone_held(p, r);
    if (!g) return -1;
    if ((tbbt_pass2_obj(g)->removed_by & TBBT_PASS2_GONE_BY_INSERTED) && never_removed(g, r) &&
        withdraw_removals(p, g))
        return 0;
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
    tbbt_id kd = tbbt_p2_keep_dir(p->m, d);
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
    tbbt_p2_queue_before(p, x, s, t[0]);
    x->op = isdir ? TBBT_OP_MKDIR : TBBT_OP_CREATE;
    x->cred = gr->cred; /* the new object is the remover's */
    x->has &= ~((1ull << TBBT_F_DIR2) | (1ull << TBBT_F_NAME2));
    if (!isdir) tbbt_rec_set_u64(x, TBBT_F_CREATEHOW, 0);
    tbbt_rec_set_u64(x, TBBT_F_SET_MODE, isdir ? 0755 : 0644);
    tbbt_rec_set_u64(x, TBBT_F_TYPE, isdir ? TBBT_FT_DIR : TBBT_FT_REG);
    tbbt_p2_queue_before(p, x, s, t[1]);
    uint32_t nl = g->attr.nlink;
    tbbt_fsmodel_link(p->m, kd, hidden, (size_t)hl, g->id, isdir ? TBBT_FT_DIR : g->attr.type);
    if (!isdir && nl) g->attr.nlink = nl;
    tbbt_pass2_obj(g)->removed_by = 0;
    return 2;
}
