/* pass2_alt.c -- calls of other clients the server ran in the other order:
 * a failure in call order that an overlapping call of another client
 * explains (concurrent) is no failure; the predictions under the other
 * order are noted (note_alternatives), and the model ends as that order
 * leaves it (a record applied after the later call: deferrals). The
 * replay's side of it is pass2_reorder.c. */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

/* ---- calls of other clients the server ran in the other order ---- */

/* Contract in pass2_int.h. */
int tbbt_p2_changes_state(const struct tbbt_rec *r) {
    unsigned f = r->op < TBBT_OP_COUNT ? tbbt_op_info(r->op)->flags : 0;
    return (f & TBBT_OPF_MODIFIES) && !(r->flags & TBBT_RF_RPC_ERROR) &&
           ((r->flags & TBBT_RF_REPLY_LOST) || r->status == TBBT_NFS_OK);
}

/* Contract in pass2_int.h. */
int tbbt_p2_overlaps(const struct tbbt_rec *a, const struct tbbt_rec *b) {
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
    tbbt_p2_record_objects(m, a, x);
    tbbt_p2_record_objects(m, b, y);
    for (int i = 0; i < 5; i++)
        for (int j = 0; x[i] && j < 5; j++)
            if (x[i] == y[j]) return 1;
    return 0;
}

/* Does predicted class c agree with traced class t (c unknown: any)? */
static int agrees(enum tbbt_oc c, enum tbbt_oc t) {
    return c == TBBT_OC_ANY || c == t;
}

/* Contract in pass2_int.h. */
void tbbt_p2_note_alternatives(struct tbbt_pass2 *p, const struct tbbt_rec *q, uint64_t qs) {
    for (uint64_t s = qs + 1; s < p->next_seq; s++) {
        const struct tbbt_rec *r = &p->ring[s % p->cap];
        if (r->call_time >= q->reply_time) break; /* in call order: no later one overlaps */
        struct alt *a = &p->alts[s % p->cap];
        if (a->n == ALT_MAX || !tbbt_p2_changes_state(q) || !tbbt_p2_overlaps(q, r) ||
            !share_object(p->m, q, r))
            continue;
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
    if (tbbt_p2_changes_state(q) && !tbbt_p2_changes_state(v)) return 1;
    struct tbbt_fsmodel *c = tbbt_fsmodel_clone(p->m);
    tbbt_fsmodel_apply(c, v, v->status);
    int ok = agrees(tbbt_oc_predict(c, q), tbbt_oc_traced(c, q));
    tbbt_fsmodel_free(c);
    return ok;
}

/* Record r (held as seq, v as judged), whose traced class is traced,
 * failed in call order: an earlier held record of another client, whose
 * call overlaps r's, before which the model predicted r's traced outcome
 * (tbbt_p2_note_alternatives), and which gets its own after r (fits_after).
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
        if (!tbbt_p2_changes_state(q) || !tbbt_p2_overlaps(v, q) || !share_object(p->m, v, q)) continue;
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
    return tbbt_p2_search_denied(c, v);
}

/* Contract in pass2_int.h. */
uint64_t tbbt_p2_explained_later(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq,
                                 enum tbbt_oc traced) {
    return first_later_that(p, v, seq, later_agrees, &traced);
}

/* Contract in pass2_int.h. */
uint64_t tbbt_p2_denied_by_later(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq) {
    if ((v->op != TBBT_OP_LOOKUP && v->op != TBBT_OP_READDIR && v->op != TBBT_OP_READDIRPLUS) ||
        v->status != TBBT_NFSERR_ACCES || (v->flags & TBBT_RF_NAME_SYNTH) || tbbt_p2_search_denied(p->m, v))
        return 0;
    uint64_t found = first_later_that(p, v, seq, later_denies, NULL);
    if (found) p->st.concurrent++;
    return found;
}

/* Contract in pass2_int.h. */
int tbbt_p2_concurrent(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq, enum tbbt_oc traced,
                       uint64_t *defer_after, uint64_t *reapply) {
    *defer_after = *reapply = 0;
    uint64_t q = explained_earlier(p, v, seq, traced);
    if (q)
        *reapply = q;
    else
        q = *defer_after = tbbt_p2_explained_later(p, v, seq, traced);
    if (q) p->st.concurrent++;
    return q != 0;
}

/* Contract in pass2_int.h. */
void tbbt_p2_defer_apply(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t after) {
    struct deferral *d = g_new0(struct deferral, 1);
    d->after = after;
    tbbt_rec_init(&d->r);
    tbbt_rec_copy(&d->r, r);
    g_ptr_array_add(p->deferred, d);
}

/* Contract in pass2_int.h. */
void tbbt_p2_apply_deferred(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->deferred->len; i++) {
        struct deferral *d = p->deferred->pdata[i];
        if (d->after != seq) continue;
        tbbt_fsmodel_apply(p->m, &d->r, d->r.status);
        tbbt_rec_free(&d->r);
        g_free(d);
        g_ptr_array_remove_index(p->deferred, i--);
    }
}
