/* pass2_keep.c -- the fix TBBT_FIX_KEEP_OBJ hands off (rule
 * used-after-removal): an object a held or inserted removal took away is
 * kept under ".tbbt-kept-ID" so that the later record that uses it finds
 * it. One fix, one file. */
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

/* Contract in pass2_int.h. */
int tbbt_p2_keep_obj(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
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
