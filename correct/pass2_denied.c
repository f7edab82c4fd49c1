/* pass2_denied.c -- a read, write or truncate of an object no record
 * showed, refused (rule handle-denied-unknown, TBBT_FIX_MAKE_DENIED): the
 * call that made the object was lost with every other record that named
 * it, so the replay would have no handle for the call. It gets a file of
 * its own, made before the call under ".tbbt-denied-ID", whose owner and
 * mode refuse the caller as the trace did. And a read, write or truncate
 * whose reply was lost, of a file whose make was lost too and that pass 2
 * made before it only after it was pre-played: that make's mode and owner
 * decide it. Both are judged as the record goes out of the window, when
 * the later records that could show the object have been pre-played. Kept
 * apart from the stale handles (pass2_listed.c): they rest on the
 * permission model, not on fileids. */
#include "pass2_int.h"

#include <string.h>

#include "pass2_obj.h"

/* Do a and b name the same client (address and port)? */
static int same_client(const struct tbbt_endpoint *a, const struct tbbt_endpoint *b) {
    return a->family == b->family && a->port == b->port && !memcmp(a->addr, b->addr, sizeof(a->addr));
}

/* The directory the records from..to (exclusive; either way) named,
 * nearest from first, r's client's first, that tbbt_p2_keep_dir finds
 * (there before the trace and not removed by now), else 0. */
static tbbt_id named_dir(const struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t from, uint64_t to) {
    tbbt_id any = 0;
    for (uint64_t s = from; s != to; s = to > from ? s + 1 : s - 1) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (!tbbt_rec_has(q, TBBT_F_DIR)) continue;
        tbbt_id d = tbbt_p2_keep_dir(p->m, q->dir);
        if (d && same_client(&q->client, &r->client)) return d;
        if (!any) any = d;
    }
    return any;
}

/* The directory the made file goes in: one that exists wherever the
 * records go -- the one noted when r was judged, or its nearest ancestor
 * there before the trace and not removed since; else one the records
 * after r named. */
static tbbt_id denied_dir(const struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq, tbbt_id noted) {
    tbbt_id d = noted ? tbbt_p2_keep_dir(p->m, noted) : 0;
    return d ? d : named_dir(p, r, seq + 1, p->played + 1);
}

/* Sets on x (a copy of r) the owner, group and mode the made file gets:
 * those r's reply shows, else root's and 0600. Returns 0 when they would
 * not refuse r's caller (the refusal has another cause: an ACL, a
 * server's export options), else 1. */
static int refusing_attrs(struct tbbt_rec *x, const struct tbbt_rec *r) {
    struct tbbt_fsattr a = {.uid = 0, .gid = 0};
    int shown = tbbt_rec_has(r, TBBT_F_UID) && tbbt_rec_has(r, TBBT_F_GID);
    if (shown) a.uid = r->uid, a.gid = r->gid;
    uint32_t mode = tbbt_rec_has(r, TBBT_F_MODE) ? r->mode & 07777 : 0600;
    if ((mode >> tbbt_fsmodel_mode_shift(&a, &r->cred)) & tbbt_fsmodel_access_need(r)) return 0;
    if (!mode) return 0; /* no bit at all: the fix reads 0 as "none shown" */
    tbbt_rec_set_u64(x, TBBT_F_UID, a.uid);
    tbbt_rec_set_u64(x, TBBT_F_GID, a.gid);
    tbbt_rec_set_u64(x, TBBT_F_MODE, mode);
    return 1;
}

/* Contract in pass2_int.h. */
int tbbt_p2_denied_unknown(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (tbbt_oc_of_status(r->status) != TBBT_OC_ACCES || (r->flags & TBBT_RF_NAME_SYNTH)) return 0;
    if (r->cred.flavor != TBBT_AUTH_SYS || r->cred.uid == 0 || !tbbt_fsmodel_access_need(r)) return 0;
    if (!tbbt_rec_has(r, TBBT_F_OBJ) || !r->obj || !tbbt_p2_nameless_unknown(p->m, r->obj)) return 0;
    if (tbbt_rule_find(r->op, TBBT_OC_ANY, TBBT_OC_ACCES) < 0) return 0;
    struct tbbt_p2_denied d = {seq, seq > p->head_seq ? named_dir(p, r, seq - 1, p->head_seq - 1) : 0};
    g_array_append_val(p->denied, d);
    return 1;
}

/* Makes the file for held record r (seq, the oldest held), whose object
 * the model still knows nothing of; counted under its rule, listed when
 * it cannot be made. */
static void make_denied(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq, tbbt_id noted) {
    int row = tbbt_rule_find(r->op, TBBT_OC_ANY, TBBT_OC_ACCES);
    struct tbbt_rec *x = &p->look;
    tbbt_rec_copy(x, r);
    if (!refusing_attrs(x, r)) {
        p->st.unmodelled++;
        return;
    }
    p->st.failures++;
    p->st.rule_failures[row]++;
    tbbt_id dir = denied_dir(p, r, seq, noted);
    x->status = TBBT_NFS_OK;
    if (dir) tbbt_rec_set_u64(x, TBBT_F_DIR, dir);
    struct tbbt_fsobj *o = dir ? tbbt_fsmodel_obj(p->m, r->obj) : NULL;
    if (o) o->flags &= ~(uint32_t)(TBBT_FSO_INITIAL | TBBT_FSO_INIT_ATTRS); /* made by the trace */
    int k = dir ? tbbt_p2_fix_place(p, TBBT_FIX_MAKE_DENIED, x, seq) : -1;
    if (k <= 0) {
        tbbt_p2_list_failure(p, r, TBBT_OC_ANY, TBBT_OC_ACCES, tbbt_rules[row].name);
        return;
    }
    p->st.corrected++;
    p->st.rule_inserted[row] += (unsigned)k;
    p->st.inserted += (unsigned)k;
}

/* Contract in pass2_int.h. */
void tbbt_p2_denied_due(struct tbbt_pass2 *p, uint64_t seq) {
    if (!p->denied->len || g_array_index(p->denied, struct tbbt_p2_denied, 0).seq != seq) return;
    tbbt_id noted = g_array_index(p->denied, struct tbbt_p2_denied, 0).dir;
    g_array_remove_index(p->denied, 0);
    const struct tbbt_rec *r = &p->ring[seq % p->cap];
    if (tbbt_p2_nameless_unknown(p->m, r->obj))
        make_denied(p, r, seq, noted);
    else
        p->st.unmodelled++; /* a later record showed it: its own rules made it, or it was there */
}

/* Contract in pass2_int.h. */
void tbbt_p2_note_made(struct tbbt_pass2 *p, const struct ins *x) {
    const struct tbbt_rec *m = &x->r;
    if (m->op >= TBBT_OP_COUNT) return;
    if (m->op == TBBT_OP_SETATTR && tbbt_rec_has(m, TBBT_F_OBJ)) {
        g_hash_table_remove(p->made_attrs, &m->obj); /* the mode or owner may change */
        return;
    }
    if (!(tbbt_op_info(m->op)->flags & TBBT_OPF_CREATES) || !tbbt_rec_has(m, TBBT_F_NEWOBJ) ||
        !tbbt_rec_has(m, TBBT_F_SET_MODE) || !tbbt_rec_has(m, TBBT_F_SET_UID) ||
        !tbbt_rec_has(m, TBBT_F_SET_GID))
        return;
    struct tbbt_p2_made *d = g_new(struct tbbt_p2_made, 1);
    *d = (struct tbbt_p2_made){m->newobj, x->before_seq, {.uid = m->set_uid, .gid = m->set_gid}, m->set_mode};
    g_hash_table_replace(p->made_attrs, &d->id, d);
}

/* Does a held record from..to (exclusive) change obj's mode or owner?
 * Also 1 when a record of that range is no longer in the ring. */
static int attrs_set_between(const struct tbbt_pass2 *p, tbbt_id obj, uint64_t from, uint64_t to) {
    if (from + p->cap <= p->next_seq) return 1;
    for (uint64_t s = from; s < to; s++) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (q->op == TBBT_OP_SETATTR && tbbt_rec_has(q, TBBT_F_OBJ) && q->obj == obj &&
            (tbbt_rec_has(q, TBBT_F_SET_MODE) || tbbt_rec_has(q, TBBT_F_SET_UID) ||
             tbbt_rec_has(q, TBBT_F_SET_GID)))
            return 1;
    }
    return 0;
}

/* Contract in pass2_int.h. */
void tbbt_p2_lost_use_due(struct tbbt_pass2 *p, uint64_t seq) {
    struct tbbt_rec *r = &p->ring[seq % p->cap];
    if (!(r->flags & TBBT_RF_REPLY_LOST) || (r->status >= 0 && r->status != TBBT_NFS_OK) ||
        !tbbt_fsmodel_access_need(r) || r->cred.flavor != TBBT_AUTH_SYS || r->cred.uid == 0 ||
        !tbbt_rec_has(r, TBBT_F_OBJ) || !r->obj)
        return;
    const struct tbbt_p2_made *x = g_hash_table_lookup(p->made_attrs, &r->obj);
    if (!x || attrs_set_between(p, r->obj, x->before_seq, seq)) return;
    if ((x->mode >> tbbt_fsmodel_mode_shift(&x->owner, &r->cred)) & tbbt_fsmodel_access_need(r)) return;
    if (r->status < 0) {
        p->st.lost_unresolved -= p->st.lost_unresolved > 0;
        p->st.lost_by_model++;
    }
    r->status = TBBT_NFSERR_ACCES;
}
