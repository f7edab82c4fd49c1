/* pass2.c -- the pre-play of pass 2 (see pass2.h): the ring of held
 * records, the judge that compares each record's predicted status with the
 * traced one and hands a failure to the rules table (run_fix), and the
 * records' way out. The pieces it calls live beside it (pass2_int.h lists
 * them): one concept per file, so that a change to one kind of fix does
 * not need a reading of all of pass 2. */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "memlimit.h"
#include "pass2_obj.h"
#include "rectext.h"

/* Contract in pass2.h. */
void tbbt_pass2_opts_default(struct tbbt_pass2_opts *o) {
    memset(o, 0, sizeof(*o));
    o->seed = 1;
    o->window = 4096;
    o->window_ns = TBBT_P2_WINDOW_NS;
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
    /* the window, the record being pre-played, the ones read ahead; more
     * when the window's trace time needs them (make_room) */
    p->cap = p->o.window + 2 + LOOKAHEAD;
    p->cap_max = p->o.window_ns > 0 && p->cap < TBBT_P2_HELD_MAX ? TBBT_P2_HELD_MAX : p->cap;
    p->st.ring_slots = p->cap;
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
    tbbt_u64map_init(&p->by_fileid);
    p->reused = g_hash_table_new(g_direct_hash, g_direct_equal);
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
    p->denied = g_array_new(FALSE, FALSE, sizeof(struct tbbt_p2_denied));
    p->made_attrs = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL, g_free);
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
    tbbt_u64map_clear(&p->by_fileid);
    g_hash_table_destroy(p->reused);
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
    g_array_free(p->denied, TRUE);
    g_hash_table_destroy(p->made_attrs);
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

/* Contract in pass2_int.h. */
void tbbt_p2_out_rec(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    p->st.records_out++;
    p->last_out_time = r->call_time;
    p->have_out = 1;
    if (!p->failed && p->sink && p->sink(p->ctx, r) != 0) p->failed = 1;
}

/* The held record seq goes out: a cut rename or link of it that no record
 * resolved (tbbt_p2_resolve_move) no longer can; one placed by a guess
 * (tbbt_p2_place_held) stays there. */
static void drop_move(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (r->op != TBBT_OP_RENAME && r->op != TBBT_OP_LINK) return;
    for (guint i = 0; i < p->moves->len; i++) {
        struct move mv = g_array_index(p->moves, struct move, i);
        if (mv.seq != seq) continue;
        g_array_remove_index(p->moves, i--);
    }
}

/* Gives the oldest held record to the sink, after the corrective records
 * that go before it -- and the records that go out beside it out of
 * call order (tbbt_p2_reorder) -- unless it goes out elsewhere. */
static void out_oldest(struct tbbt_pass2 *p) {
    uint64_t s = p->head_seq;
    if (p->denied->len) tbbt_p2_denied_due(p, s);
    guint k = 0;
    while (k < p->pending->len && ((struct ins *)p->pending->pdata[k])->before_seq <= s) {
        tbbt_p2_note_made(p, p->pending->pdata[k]);
        tbbt_p2_out_rec(p, &((struct ins *)p->pending->pdata[k])->r);
        k++;
    }
    for (guint i = 0; i < k; i++)
        ins_free(p->pending->pdata[i]);
    if (k) g_ptr_array_remove_range(p->pending, 0, k);
    if (g_hash_table_size(p->made_attrs)) tbbt_p2_lost_use_due(p, s);
    if (p->reorders->len) tbbt_p2_out_moved_before(p, s);
    if (p->rmbinds->len) tbbt_p2_bind_window_end(p, s);
    drop_move(p, &p->ring[s % p->cap], s);
    if (p->rmcuts->len) tbbt_p2_rm_window_end(p, s);
    tbbt_p2_settle_lost_lookup(p, &p->ring[s % p->cap]);
    if (!p->reorders->len || !tbbt_p2_hold_moved(p, s)) tbbt_p2_out_rec(p, &p->ring[s % p->cap]);
    if (p->reorders->len) tbbt_p2_out_moved_after(p, s);
    p->head_seq++;
}

/* Contract in pass2_int.h. */
int64_t tbbt_p2_touch_time(const struct tbbt_rec *r) {
    return (r->flags & TBBT_RF_REPLY_LOST) || r->reply_time < r->call_time ? r->call_time : r->reply_time;
}

/* Contract in pass2_int.h. */
struct tbbt_fsobj *tbbt_p2_touch(struct tbbt_pass2 *p, tbbt_id id, int64_t t, uint64_t seq) {
    if (!id) return NULL;
    struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(p->m, id);
    if (t > tbbt_pass2_obj(o)->last_time) tbbt_pass2_obj(o)->last_time = t;
    if (seq > tbbt_pass2_obj(o)->last_seq) tbbt_pass2_obj(o)->last_seq = seq;
    if (!tbbt_pass2_obj(o)->first_seq) tbbt_pass2_obj(o)->first_seq = seq;
    return o;
}

/* Contract in pass2_int.h. */
void tbbt_p2_record_objects(const struct tbbt_fsmodel *m, const struct tbbt_rec *r, tbbt_id ids[5]) {
    ids[0] = tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0;
    ids[1] = tbbt_rec_has(r, TBBT_F_DIR) ? r->dir : 0;
    ids[2] = tbbt_rec_has(r, TBBT_F_DIR2) ? r->dir2 : 0;
    ids[3] = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0;
    ids[4] = 0;
    if (ids[1] && tbbt_rec_has(r, TBBT_F_NAME))
        tbbt_fsmodel_name(m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &ids[4]);
}

/* Runs the correction of row for record r (held as seq). Returns the
 * number of records inserted (or changed into a rename: 0), or -1 when
 * the row's action cannot be built. */
static int run_fix(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq, int row) {
    if (tbbt_rules[row].fix == TBBT_FIX_KEEP_OBJ) return tbbt_p2_keep_obj(p, r);
    if (tbbt_rules[row].fix == TBBT_FIX_MAKE_LISTED) return tbbt_p2_make_listed(p, r, seq);
    if (tbbt_rules[row].fix == TBBT_FIX_MOVE_LISTED) return tbbt_p2_move_listed(p, r, seq);
    return tbbt_p2_fix_place(p, tbbt_rules[row].fix, r, seq);
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
            tbbt_p2_list_failure(p, r, pred, traced,
                                 round ? "still failing after correction: no rule" : "no rule");
            return;
        }
        p->st.rule_failures[row]++;
        int k = run_fix(p, r, seq, row);
        if (k < 0) {
            tbbt_p2_list_failure(p, r, pred, traced, tbbt_rules[row].name);
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
    tbbt_p2_list_failure(p, r, pred, traced, "still failing after correction");
}

/* Record v (r held as seq) as the model may learn it: without the
 * attributes its reply shows of its object when an earlier held call of
 * another client that changes that object overlaps it -- the server may
 * have run r first, so they may be the ones before that change, which the
 * model, applying in call order, already has. Returns v, or a copy in
 * p->unshown. */
static const struct tbbt_rec *stale_attrs(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq) {
    tbbt_id id = tbbt_rec_has(v, TBBT_F_TYPE) ? tbbt_p2_attrs_of(v) : 0;
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    if (!o || !tbbt_p2_in_flight(o, v)) return v;
    int stale = 0;
    for (uint64_t s = seq; s-- > p->head_seq && s + LOOKAHEAD >= seq && !stale;) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        unsigned f = q->op < TBBT_OP_COUNT ? tbbt_op_info(q->op)->flags : 0;
        stale =
            (f & TBBT_OPF_MODIFIES) && tbbt_rec_has(q, TBBT_F_OBJ) && q->obj == id && tbbt_p2_overlaps(q, v);
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
    if (!tbbt_p2_changes_state(q)) return 0;
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
        if (!tbbt_p2_overlaps(v, q)) continue;
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

/* v, which is r or the pass's copy of it (tbbt_p2_listing_as_named's p->filtered,
 * made_later's p->unmade), writable: found by its owner, not cast. */
static struct tbbt_rec *writable(struct tbbt_pass2 *p, struct tbbt_rec *r, const struct tbbt_rec *v) {
    return v == &p->filtered ? &p->filtered : v == &p->unmade ? &p->unmade : r;
}

/* Contract in pass2_int.h. */
void tbbt_p2_judge(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    if (r->flags & TBBT_RF_NAME_SYNTH) p->synth_seen = 1;
    tbbt_p2_sightings(p, r);
    const struct tbbt_rec *v = r->op == TBBT_OP_READDIR || r->op == TBBT_OP_READDIRPLUS
                                   ? made_later(p, tbbt_p2_listing_as_named(p, r), seq)
                                   : r;
    enum tbbt_oc pred = tbbt_oc_predict(p->m, v);
    enum tbbt_oc traced = tbbt_oc_traced(p->m, v);
    if ((pred == TBBT_OC_OK || pred == TBBT_OC_ACCES) && traced == TBBT_OC_STALE && v == r &&
        !(r->flags & TBBT_RF_NAME_SYNTH) && (tbbt_op_info(r->op)->flags & TBBT_OPF_OBJ) &&
        !(tbbt_op_info(r->op)->flags & TBBT_OPF_DIRNAME) && tbbt_p2_moved_over(p, r))
        pred = tbbt_oc_predict(p->m, v); /* a cut rename took its name over */
    uint64_t defer_after = 0, reapply = 0;
    if (pred == TBBT_OC_ANY && v == r && tbbt_p2_denied_unknown(p, r, seq)) {
        /* judged as it goes out (tbbt_p2_denied_due) */
    } else if (traced == TBBT_OC_OTHER) {
        defer_after = tbbt_p2_denied_by_later(p, v, seq);
        if (!defer_after) p->st.unmodelled++;
    } else if ((pred == TBBT_OC_ANY || pred == TBBT_OC_OK) && traced == TBBT_OC_STALE &&
               !(r->flags & TBBT_RF_NAME_SYNTH) && tbbt_rec_has(r, TBBT_F_OBJ) &&
               (tbbt_op_info(r->op)->flags & TBBT_OPF_OBJ) &&
               !(tbbt_op_info(r->op)->flags & TBBT_OPF_DIRNAME) && tbbt_p2_nameless_unknown(p->m, r->obj))
        tbbt_p2_stale_unknown(p, r, seq);
    else if (pred != TBBT_OC_ANY && pred != traced && !(r->flags & TBBT_RF_NAME_SYNTH) &&
             !tbbt_p2_withheld(p, r, pred, traced) &&
             !tbbt_p2_concurrent(p, v, seq, traced, &defer_after, &reapply))
        correct_failure(p, writable(p, r, v), seq, pred, traced);
    if ((r->op == TBBT_OP_LOOKUP || r->op == TBBT_OP_READDIR || r->op == TBBT_OP_READDIRPLUS) &&
        tbbt_p2_names_await(p))
        tbbt_p2_resolve_lost(p, v);
    if ((r->op == TBBT_OP_LOOKUP || r->op == TBBT_OP_READDIRPLUS) && p->unbound_makes)
        tbbt_p2_bind_made(p, v);
    if (r->op == TBBT_OP_RMDIR && p->unbound_makes) tbbt_p2_rmdir_made(p, v);
    tbbt_p2_check_attrs(p, r, seq);
    if (defer_after || reapply) tbbt_p2_reorder(p, reapply ? reapply : seq, defer_after ? defer_after : seq);
    if (defer_after) {
        tbbt_p2_defer_apply(p, v, defer_after);
        return;
    }
    tbbt_fsmodel_apply(p->m, stale_attrs(p, v, seq), r->status);
    if (reapply) tbbt_fsmodel_apply(p->m, &p->ring[reapply % p->cap], p->ring[reapply % p->cap].status);
    tbbt_p2_remember_listed(p, v);
    if (tbbt_p2_names_await(p) && tbbt_p2_names_op(r->op)) tbbt_p2_forget_lost(p, r);
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

/* Contract in pass2_int.h. */
void tbbt_p2_preplay(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    if (r->flags & TBBT_RF_RPC_ERROR) {
        p->st.rpc_errors++;
        return;
    }
    if (r->op >= TBBT_OP_COUNT) return;
    if (p->attrfixes->len) tbbt_p2_settle_attrs(p, r);
    tbbt_p2_note_alternatives(p, r, seq);
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
    if (cut && !tbbt_p2_restore_cut(p, r, seq)) {
        if (r->op == TBBT_OP_RENAME && r->status == TBBT_NFS_OK) tbbt_p2_hold_move(p, r, seq);
        if (r->op == TBBT_OP_LINK && r->status == TBBT_NFS_OK) tbbt_p2_hold_link(p, r, seq);
        if (r->op == TBBT_OP_REMOVE || r->op == TBBT_OP_RMDIR) tbbt_p2_hold_remove(p, r, seq);
        tbbt_p2_teach_cut(p, r);
        if (p->rmcuts->len && !(r->flags & TBBT_RF_REPLY_LOST) && r->status >= 0)
            tbbt_p2_rm_evidence(p, r, seq);
        if (p->rmbinds->len && !(r->flags & TBBT_RF_REPLY_LOST) && r->status >= 0)
            tbbt_p2_bind_evidence(p, r, seq);
    } else {
        if (!cut) tbbt_p2_rename_to_alias(p, r);
        if (!cut && p->moves->len) tbbt_p2_bind_whole(p, r, seq);
        if (p->rmcuts->len && !(r->flags & TBBT_RF_REPLY_LOST) && r->status >= 0)
            tbbt_p2_rm_evidence(p, r, seq);
        if (p->rmbinds->len && !(r->flags & TBBT_RF_REPLY_LOST) && r->status >= 0)
            tbbt_p2_bind_evidence(p, r, seq);
        if ((r->flags & TBBT_RF_REPLY_LOST) || r->status < 0)
            tbbt_p2_lost_reply(p, r, seq);
        else
            tbbt_p2_judge(p, r, seq);
    }
    struct tbbt_fsobj *vo = victim ? tbbt_fsmodel_obj(p->m, victim) : NULL;
    if (vo && (vo->flags & TBBT_FSO_GONE)) tbbt_pass2_obj(vo)->removed_by = seq;
    tbbt_id ids[5] = {tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0, tbbt_rec_has(r, TBBT_F_DIR) ? r->dir : 0,
                      tbbt_rec_has(r, TBBT_F_DIR2) ? r->dir2 : 0,
                      tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0, named};
    int64_t t = tbbt_p2_touch_time(r);
    struct tbbt_fsobj *objs[4] = {NULL, NULL, NULL, NULL}; /* the objects of ids[0..3] */
    for (int k = 0; k < 5; k++) {
        if (!ids[k] || (k && ids[k] == ids[k - 1])) continue;
        struct tbbt_fsobj *o = tbbt_p2_touch(p, ids[k], t, seq);
        if (k < 4) objs[k] = o;
    }
    tbbt_p2_learn_fileids(p, r, objs);
    tbbt_p2_learn_owner(p, r);
    tbbt_p2_note_shown(p, r, seq);
    if (p->deferred->len) tbbt_p2_apply_deferred(p, seq);
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
 * (tbbt_p2_explained_later), or LOOKAHEAD records have? */
static int read_ahead_enough(const struct tbbt_pass2 *p, const struct tbbt_rec *in, uint64_t seq) {
    const struct tbbt_rec *k = &p->ring[(p->played + 1) % p->cap];
    return in->call_time >= tbbt_p2_touch_time(k) || seq - (p->played + 1) > LOOKAHEAD;
}

/* Does the oldest held record stay for its trace time: fewer than
 * window_ns since its call have been pre-played? */
static int time_holds(const struct tbbt_pass2 *p) {
    return p->o.window_ns > 0 && p->played_time - p->ring[p->head_seq % p->cap].call_time < p->o.window_ns;
}

/* Moves the held records and their alternatives into rings of ncap slots,
 * each seq to its new slot (seq % ncap): the records of the window's
 * trace time outnumber the slots. Called with every slot holding a record
 * (make_room), so each old slot moves, by value (none points into itself,
 * and nothing keeps a pointer into the ring across a put: records are
 * named by seq, and this runs before the put's record is copied in); the
 * new slots left over are fresh. */
static void grow(struct tbbt_pass2 *p, uint32_t ncap) {
    g_assert(p->next_seq - p->head_seq == p->cap && ncap > p->cap);
    struct tbbt_rec *ring = g_new(struct tbbt_rec, ncap);
    struct alt *alts = g_new0(struct alt, ncap);
    for (uint64_t s = p->next_seq; s < p->head_seq + ncap; s++)
        tbbt_rec_init(&ring[s % ncap]);
    for (uint64_t s = p->head_seq; s < p->next_seq; s++) {
        ring[s % ncap] = p->ring[s % p->cap];
        alts[s % ncap] = p->alts[s % p->cap];
    }
    g_free(p->ring);
    g_free(p->alts);
    p->ring = ring;
    p->alts = alts;
    p->cap = ncap;
    if (ncap > p->st.ring_slots) p->st.ring_slots = ncap;
}

/* Makes room in the ring for record seq: every slot holds a record of the
 * window (the oldest has not had its trace time yet). Doubles the ring up
 * to cap_max; there, the oldest goes out before its time, counted. */
static void make_room(struct tbbt_pass2 *p, uint64_t seq) {
    if (seq - p->head_seq < p->cap) return;
    if (p->cap < p->cap_max) {
        grow(p, p->cap > p->cap_max / 2 ? p->cap_max : 2 * p->cap);
        return;
    }
    p->st.window_cut++;
    out_oldest(p);
}

/* Contract in pass2.h. */
int tbbt_pass2_put(void *p2, const struct tbbt_rec *in) {
    tbbt_memlimit_check("pass 2"); /* the --max-memory bound (memlimit.h) */
    struct tbbt_pass2 *p = p2;
    make_room(p, p->next_seq);
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
    if (r->op == TBBT_OP_LINK && ((r->flags & TBBT_RF_ARGS_CUT) || tbbt_cut_args(r)))
        p->cut_link_end = seq + 1;
    p->alts[seq % p->cap].n = 0;
    p->st.records_in++;
    while (p->played + 1 < seq && read_ahead_enough(p, in, seq)) {
        p->played++;
        struct tbbt_rec *k = &p->ring[p->played % p->cap];
        if (k->call_time > p->played_time) p->played_time = k->call_time;
        tbbt_p2_preplay(p, k, p->played);
    }
    while (p->head_seq <= p->played && p->played + 1 - p->head_seq > p->o.window && !time_holds(p))
        out_oldest(p);
    prefetch_slot(&p->ring[(seq + 2) % p->cap]);
    return p->failed ? -1 : 0;
}

/* Contract in pass2.h. */
int tbbt_pass2_finish(struct tbbt_pass2 *p) {
    while (p->played + 1 < p->next_seq) {
        p->played++;
        tbbt_p2_preplay(p, &p->ring[p->played % p->cap], p->played);
    }
    tbbt_p2_settle_attrs(p, NULL);
    while (p->head_seq < p->next_seq)
        out_oldest(p);
    for (guint i = 0; i < p->pending->len; i++) {
        tbbt_p2_out_rec(p, &((struct ins *)p->pending->pdata[i])->r);
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

/* Contract in pass2_int.h. */
uint64_t tbbt_p2_last_named(const struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len,
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
