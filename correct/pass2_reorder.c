/* pass2_reorder.c -- the replay's order of calls the server ran in the
 * other order: a record moved out of call order goes out beside the one it
 * must follow or precede (reorder, out_moved_before/after). */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

/* ---- the replay's order of calls the server ran in the other order ---- */

/* The objects r acts on itself (its handle's, unless it names an entry
 * in that directory; a link's object; the one it made; the ones its
 * names hold) into ids, and the directories whose entries it names into
 * dirs. */
static void acted_on(const struct tbbt_fsmodel *m, const struct tbbt_rec *r, tbbt_id ids[4],
                     tbbt_id dirs[2]) {
    tbbt_id all[5];
    tbbt_p2_record_objects(m, r, all);
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
    if (!tbbt_p2_changes_state(a) && !tbbt_p2_changes_state(b)) return 0;
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

/* Contract in pass2_int.h. */
void tbbt_p2_reorder(struct tbbt_pass2 *p, uint64_t a, uint64_t b) {
    if (a >= b || a < p->head_seq) return;
    int moved_a = in_reorder(p, a, 1), moved_b = in_reorder(p, b, 1);
    int b_may =
        !moved_a && !moved_b && !in_reorder(p, b, 0) && (b <= p->played || p->o.window > LOOKAHEAD + 1);
    int a_may = !moved_a && !moved_b && !in_reorder(p, a, 0);
    int b_first = !tbbt_p2_changes_state(&p->ring[b % p->cap]);
    for (int k = 0; k < 2; k++) {
        if ((k == 0) == b_first) {
            if (b_may && may_pass(p, b, a, b)) return move_beside(p, b, a, 0);
        } else if (a_may && may_pass(p, a, a, b)) {
            return move_beside(p, a, b, 1);
        }
    }
}

/* Contract in pass2_int.h. */
void tbbt_p2_out_moved_before(struct tbbt_pass2 *p, uint64_t seq) {
    for (;;) {
        struct reorder *first = NULL;
        for (guint i = 0; i < p->reorders->len; i++) {
            struct reorder *o = p->reorders->pdata[i];
            if (!o->after && !o->gone && o->anchor == seq && (!first || o->seq < first->seq)) first = o;
        }
        if (!first) return;
        tbbt_rec_copy(&first->stash, &p->ring[first->seq % p->cap]);
        first->stash.call_time = p->ring[seq % p->cap].call_time;
        tbbt_p2_out_rec(p, &first->stash);
        first->gone = 1;
    }
}

/* Contract in pass2_int.h. */
int tbbt_p2_hold_moved(struct tbbt_pass2 *p, uint64_t seq) {
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

/* Contract in pass2_int.h. */
void tbbt_p2_out_moved_after(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->reorders->len; i++) {
        struct reorder *o = p->reorders->pdata[i];
        if (!o->after || o->anchor != seq) continue;
        if (o->stashed) {
            int64_t t = p->ring[seq % p->cap].call_time;
            if (o->stash.call_time < t) o->stash.call_time = t;
            tbbt_p2_out_rec(p, &o->stash);
        }
        reorder_free(o);
        g_ptr_array_remove_index(p->reorders, i--);
    }
}
