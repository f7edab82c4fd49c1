/* pass2_place.c -- placement of inserted records: the corrective records a
 * rule builds (group_emit) form a group, given seeded times between the
 * records around the held record they go before, and kept in order
 * (pending, by before_seq, time and insertion order) until it goes out.
 * The order rules of every inserted record live here once. */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

/* Contract in pass2_int.h. */
void tbbt_p2_mark_made_empty(const struct tbbt_fsmodel *m, struct tbbt_rec *x) {
    if (x->op == TBBT_OP_MKDIR && tbbt_rec_has(x, TBBT_F_NEWOBJ) && x->newobj &&
        tbbt_fsmodel_may_begin_empty(m, x->newobj))
        x->flags |= TBBT_RF_MADE_EMPTY;
}

/* Contract in pass2_int.h. */
int tbbt_p2_unbound_make(const struct tbbt_rec *x) {
    return x->op < TBBT_OP_COUNT && (tbbt_op_info(x->op)->flags & TBBT_OPF_CREATES) &&
           !tbbt_rec_has(x, TBBT_F_NEWOBJ) && tbbt_rec_has(x, TBBT_F_DIR) && tbbt_rec_has(x, TBBT_F_NAME);
}

/* Contract in pass2_int.h. */
void tbbt_p2_group_emit(void *ctx, struct tbbt_rec *x) {
    struct tbbt_pass2 *p = ctx;
    tbbt_p2_mark_made_empty(p->m, x);
    tbbt_id ids[5];
    tbbt_p2_record_objects(p->m, x, ids);
    for (int i = 0; i < 5; i++) {
        const struct tbbt_fsobj *o = ids[i] ? tbbt_fsmodel_obj(p->m, ids[i]) : NULL;
        if (!o) continue;
        if (tbbt_pass2_obj(o)->last_time > p->group_lo) p->group_lo = tbbt_pass2_obj(o)->last_time;
        if (tbbt_pass2_obj(o)->last_seq > p->group_after) p->group_after = tbbt_pass2_obj(o)->last_seq;
    }
    tbbt_fsmodel_apply(p->m, x, TBBT_NFS_OK);
    if (tbbt_p2_names_await(p)) tbbt_p2_forget_lost(p, x);
    if (tbbt_p2_unbound_make(x)) p->unbound_makes++;
    struct ins *n = g_new0(struct ins, 1);
    tbbt_rec_init(&n->r);
    tbbt_rec_copy(&n->r, x);
    n->order = p->ins_order++;
    g_ptr_array_add(p->group, n);
    /* an object this removal took away remembers it (rule used-after-removal) */
    struct tbbt_fsobj *v =
        ids[4] && (x->op == TBBT_OP_REMOVE || x->op == TBBT_OP_RMDIR) ? tbbt_fsmodel_obj(p->m, ids[4]) : NULL;
    if (v && (v->flags & TBBT_FSO_GONE)) {
        tbbt_pass2_obj(v)->removed_by = TBBT_PASS2_GONE_BY_INSERTED | n->order;
        tbbt_pass2_obj(v)->flags &= ~(uint32_t)TBBT_PASS2_GONE_STALE; /* tbbt_p2_fix_place sets it */
    }
}

/* Contract in pass2_int.h. */
int tbbt_p2_sets_attrs(const struct tbbt_rec *r) {
    if (r->op == TBBT_OP_SETATTR)
        return (r->has & ((1ull << TBBT_F_SET_MODE) | (1ull << TBBT_F_SET_UID) | (1ull << TBBT_F_SET_GID) |
                          (1ull << TBBT_F_SET_SIZE))) != 0;
    return r->op < TBBT_OP_COUNT && (tbbt_op_info(r->op)->flags & TBBT_OPF_CREATES) &&
           tbbt_rec_has(r, TBBT_F_NEWOBJ);
}

/* Corrective record x, placed just before held record seq + 1 at time t,
 * set its object's attributes there: a change revealed later goes after
 * it (tbbt_p2_attrs_reveal), not after the last traced record that showed them. */
static void note_set(struct tbbt_pass2 *p, const struct tbbt_rec *x, uint64_t seq, int64_t t) {
    if (!tbbt_p2_sets_attrs(x)) return;
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x->op == TBBT_OP_SETATTR ? x->obj : x->newobj);
    if (!o || seq < tbbt_pass2_obj(o)->shown_seq ||
        (seq == tbbt_pass2_obj(o)->shown_seq && t <= tbbt_pass2_obj(o)->shown_time))
        return;
    tbbt_pass2_obj(o)->shown_seq = seq;
    tbbt_pass2_obj(o)->shown_time = t;
}

/* Contract in pass2_int.h. */
void tbbt_p2_made_first(struct tbbt_pass2 *p, const struct tbbt_rec *x, uint64_t seq) {
    if (!tbbt_p2_sets_attrs(x) || x->op == TBBT_OP_SETATTR || !seq) return;
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x->newobj);
    if (o && tbbt_pass2_obj(o)->first_seq > seq) tbbt_pass2_obj(o)->first_seq = seq;
}

/* Orders waiting records by (before_seq, call time, insertion order). */
static int ins_before(const struct ins *a, const struct ins *b) {
    if (a->before_seq != b->before_seq) return a->before_seq < b->before_seq;
    if (a->r.call_time != b->r.call_time) return a->r.call_time < b->r.call_time;
    return a->order < b->order;
}

/* Contract in pass2_int.h. */
void tbbt_p2_pending_add(struct tbbt_pass2 *p, struct ins *x) {
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

/* Contract in pass2_int.h. */
void tbbt_p2_group_place(struct tbbt_pass2 *p, uint64_t seq, int64_t hi) {
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
        tbbt_p2_record_objects(p->m, &x->r, ids);
        for (int k = 0; k < 4; k++)
            tbbt_p2_touch(p, ids[k], t[i], x->before_seq - 1);
        tbbt_p2_made_first(p, &x->r, x->before_seq - 1);
        note_set(p, &x->r, x->before_seq - 1, t[i]);
        tbbt_p2_pending_add(p, x);
    }
    g_free(t);
    g_ptr_array_set_size(p->group, 0);
}

/* Contract in pass2_int.h. */
void tbbt_p2_queue_before(struct tbbt_pass2 *p, const struct tbbt_rec *x, uint64_t seq, int64_t t) {
    struct ins *n = g_new0(struct ins, 1);
    tbbt_rec_init(&n->r);
    tbbt_rec_copy(&n->r, x);
    n->r.call_time = n->r.reply_time = t;
    n->before_seq = seq;
    n->order = p->ins_order++;
    tbbt_p2_pending_add(p, n);
}

/* Contract in pass2_int.h. */
void tbbt_p2_pending_take_values(struct tbbt_pass2 *p, const struct tbbt_rec *x, uint64_t from, uint64_t to) {
    for (guint i = 0; i < p->pending->len; i++) {
        struct ins *n = p->pending->pdata[i];
        struct tbbt_rec *y = &n->r;
        if (y->op != TBBT_OP_SETATTR || !tbbt_rec_has(y, TBBT_F_OBJ) || y->obj != x->obj ||
            n->before_seq < from || n->before_seq > to)
            continue;
        if (tbbt_rec_has(x, TBBT_F_MODE) && tbbt_rec_has(y, TBBT_F_SET_MODE))
            tbbt_rec_set_u64(y, TBBT_F_SET_MODE, x->mode & 07777);
        if (tbbt_rec_has(x, TBBT_F_UID) && tbbt_rec_has(y, TBBT_F_SET_UID))
            tbbt_rec_set_u64(y, TBBT_F_SET_UID, x->uid);
        if (tbbt_rec_has(x, TBBT_F_GID) && tbbt_rec_has(y, TBBT_F_SET_GID))
            tbbt_rec_set_u64(y, TBBT_F_SET_GID, x->gid);
    }
}
