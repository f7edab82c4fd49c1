/* pass2_cut_rm.c -- removes and rmdirs whose name the snaplen cut: held
 * with their candidate names until later records rule all but one out
 * (rm_evidence), else gone out unnamed as ghosts. Its own state
 * (rmcuts, ghosts, tainted directories), hence its own file. */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

/* ---- removes and rmdirs whose name the snaplen cut ---- */

/* Cut removals gone out unnamed kept as ghosts (rm_drop), at most: an
 * older one's directory is tainted instead. */
#define RM_GHOSTS 256

/* Candidates a held cut removal follows, at most: every later record is
 * checked against each one, so a removal in a larger directory stays
 * unnamed (and taints it). */
#define RM_CANDS 512

/* A cut removal in directory dir stayed unnamed and is forgotten: a name
 * the model holds there may be the one it removed, so no later one is
 * named there. */
static void rm_taint(struct tbbt_pass2 *p, tbbt_id dir) {
    tbbt_id *k = g_new(tbbt_id, 1);
    *k = dir;
    g_hash_table_add(p->rm_tainted, k);
}

static int rm_settle(struct tbbt_pass2 *p, guint i);

/* Contract in pass2_int.h. */
void tbbt_p2_hold_remove(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (r->status != TBBT_NFS_OK || !tbbt_rec_has(r, TBBT_F_DIR)) return;
    if (tbbt_rec_has(r, TBBT_F_NAME) || tbbt_cut_missing(r) != (1ull << TBBT_F_NAME)) {
        rm_taint(p, r->dir);
        return;
    }
    const struct tbbt_fsobj *d = tbbt_fsmodel_obj(p->m, r->dir);
    struct rmcut *c = g_new0(struct rmcut, 1);
    c->seq = seq;
    c->dir = r->dir;
    c->cands = g_array_new(FALSE, TRUE, sizeof(struct rmcand));
    for (const struct tbbt_fsdent *e = d ? d->children : NULL; e; e = e->child_next) {
        const struct tbbt_fsobj *o = e->obj ? tbbt_fsmodel_obj(p->m, e->obj) : NULL;
        int isdir = (o && o->attr.type == TBBT_FT_DIR) || e->made_dir;
        if (tbbt_dot_name(e->name, e->len) || (r->op == TBBT_OP_RMDIR ? !isdir : isdir)) continue;
        if (r->op == TBBT_OP_RMDIR && o && o->nchildren) continue; /* not empty */
        if (tbbt_rec_has(r, TBBT_F_CUTLEN) && tbbt_p2_cut_match_dent(p, r, r->dir, e) == TBBT_CUT_NO)
            continue; /* its length or kept start differ */
        struct rmcand k = {g_strndup(e->name, e->len), e->len, e->obj, 0, 1, 0, 0, 0, 0};
        if (o && (o->flags & TBBT_FSO_ATTRS)) k.nlink0 = o->attr.nlink;
        g_array_append_val(c->cands, k);
    }
    if (c->cands->len > RM_CANDS) { /* too many to follow: any could be the one */
        rmcut_free(c);
        rm_taint(p, r->dir);
        return;
    }
    g_ptr_array_add(p->rmcuts, c);
    rm_settle(p, p->rmcuts->len - 1);
}

/* Candidates of c not ruled out yet; *last gets the index of one. */
static unsigned rm_left(const struct rmcut *c, guint *last) {
    unsigned n = 0;
    for (guint i = 0; i < c->cands->len; i++)
        if (g_array_index(c->cands, struct rmcand, i).left) {
            n++;
            *last = i;
        }
    return n;
}

/* Does the model hold every name of held cut removal c's directory but
 * those cut renames and links may have made: the trace made the
 * directory (it began empty) and no unnamed cut removal there was
 * forgotten? */
static int rm_dir_known(const struct tbbt_pass2 *p, const struct rmcut *c) {
    return !g_hash_table_contains(p->rm_tainted, &c->dir) && tbbt_fsmodel_dir_fresh(p->m, c->dir);
}

/* Might the model hold every name held cut removal c may have removed:
 * its directory was made by the trace (it began empty), no unnamed cut
 * removal there was forgotten, and no cut rename's target is unknown?
 * Only then does ruling the others out name it. (Names other removals
 * took away stay candidates -- they are never used again -- so they
 * leave two, not a wrong one.) */
static int rm_names_complete(const struct tbbt_pass2 *p, const struct rmcut *c) {
    return !tbbt_p2_moves_unplaced(p) && rm_dir_known(p, c);
}

/* Did a cut rename or link that went to a guessed place elsewhere
 * (tbbt_p2_place_held) maybe make its name in held cut removal c's
 * directory instead? Its name there would be one the model does not hold. */
static int rm_moved_here(struct tbbt_pass2 *p, const struct rmcut *c) {
    for (guint i = 0; i < p->moves->len; i++) {
        const struct move *mv = &g_array_index(p->moves, struct move, i);
        const struct tbbt_rec *h = &p->ring[mv->seq % p->cap];
        if (!mv->placed || mv->seq < p->head_seq || mv->seq > c->seq) continue;
        if ((mv->link ? h->dir : h->dir2) != c->dir && tbbt_p2_may_move_to(p, h, mv, c->dir)) return 1;
    }
    return 0;
}

/* Does the model hold every name held cut removal c may have removed:
 * rm_names_complete, and no cut rename or link placed elsewhere by a
 * guess may have made one there (rm_moved_here)? */
static int rm_complete(struct tbbt_pass2 *p, const struct rmcut *c) {
    return rm_names_complete(p, c) && !rm_moved_here(p, c);
}

static struct rmcand *rm_cand(struct rmcut *c, const char *name, size_t len);

/* Name (name, len) of directory dir was removed by a named cut removal:
 * the other held ones and the ghosts there did not remove it. */
static void rm_gone_elsewhere(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len) {
    GPtrArray *lists[2] = {p->rmcuts, p->rm_ghosts};
    for (int l = 0; l < 2; l++)
        for (guint i = 0; i < lists[l]->len; i++) {
            struct rmcut *o = lists[l]->pdata[i];
            struct rmcand *x = o->dir == dir ? rm_cand(o, name, len) : NULL;
            if (x) x->left = 0;
        }
}

/* Gives held cut removal c (index i of p->rmcuts) candidate k's name: the
 * record is whole again and the model removes the name now. */
static void rm_resolve(struct tbbt_pass2 *p, guint i, guint k) {
    struct rmcut *c = p->rmcuts->pdata[i];
    const struct rmcand *x = &g_array_index(c->cands, struct rmcand, k);
    struct tbbt_rec *r = &p->ring[c->seq % p->cap];
    tbbt_p2_put_name(p, r, TBBT_F_NAME, x->name, x->len);
    r->flags &= (uint16_t)~TBBT_RF_ARGS_CUT;
    p->st.cut_unreplayable--;
    tbbt_id victim = 0;
    tbbt_fsmodel_name(p->m, r->dir, x->name, x->len, &victim);
    tbbt_fsmodel_apply(p->m, r, TBBT_NFS_OK);
    struct tbbt_fsobj *vo = victim ? tbbt_fsmodel_obj(p->m, victim) : NULL;
    if (vo && (vo->flags & TBBT_FSO_GONE)) tbbt_pass2_obj(vo)->removed_by = c->seq;
    g_ptr_array_remove_index(p->rmcuts, i);
    rm_gone_elsewhere(p, r->dir, tbbt_rec_str(r, r->name), r->name.len);
}

/* Drops held cut removal i: it stays unreplayable, and becomes a ghost
 * -- one of the names it still may have removed is gone, so a later
 * record that shows one gone may not name another removal (rm_pick), nor
 * may elimination in its directory (rm_complete) -- unless none is left
 * (its name was not one the model held). */
static void rm_drop(struct tbbt_pass2 *p, guint i) {
    struct rmcut *c = g_ptr_array_steal_index(p->rmcuts, i);
    guint k = 0;
    if (!rm_left(c, &k)) {
        rmcut_free(c);
        return;
    }
    if (p->rm_ghosts->len >= RM_GHOSTS) {
        rm_taint(p, ((struct rmcut *)p->rm_ghosts->pdata[0])->dir);
        g_ptr_array_remove_index(p->rm_ghosts, 0);
    }
    g_ptr_array_add(p->rm_ghosts, c);
}

/* Did a reply show candidate object obj of held cut removal c keeping
 * every link (rm_links_kept)? */
static int rm_kept_links(const struct rmcut *c, tbbt_id obj) {
    for (guint j = 0; j < c->cands->len; j++)
        if (g_array_index(c->cands, struct rmcand, j).kept_links &&
            g_array_index(c->cands, struct rmcand, j).obj == obj)
            return 1;
    return 0;
}

/* Held cut removal i, every name of its directory the model holds ruled
 * out, where the model holds them all but those guessed cut renames or
 * links elsewhere (made before it) may have made (rm_names_complete):
 * those -- not one whose object a reply showed keeping its links -- are
 * held as a binding (struct rmbind), later records telling which; one
 * alone is taken when its move leaves the window unless a record showed
 * its object keeping its names (tbbt_p2_bind_window_end). Returns whether
 * it was handed on (then gone from p->rmcuts). */
static int rm_bind_move(struct tbbt_pass2 *p, guint i) {
    struct rmcut *c = p->rmcuts->pdata[i];
    if (!rm_names_complete(p, c)) return 0;
    for (guint j = 0; j < p->rmbinds->len; j++)
        if (((struct rmbind *)p->rmbinds->pdata[j])->seq == c->seq) return 0; /* bind_to_move holds it */
    struct tbbt_rec *r = &p->ring[c->seq % p->cap];
    GArray *b = tbbt_p2_bind_cands(p, c->dir, r->op == TBBT_OP_RMDIR ? CUT_DIR : CUT_FILE);
    for (guint k = 0; k < b->len; k++)
        if (g_array_index(b, struct bindcand, k).mvseq > c->seq ||
            rm_kept_links(c, g_array_index(b, struct bindcand, k).obj))
            g_array_remove_index(b, k--);
    if (!b->len || b->len > RMBIND_CANDS || p->rmbinds->len >= RMBINDS) {
        g_array_free(b, TRUE);
        return 0;
    }
    struct rmbind *h = g_new0(struct rmbind, 1); /* later records tell which (tbbt_p2_bind_evidence) */
    h->seq = c->seq;
    h->incomplete = tbbt_p2_moves_unplaced(p) != 0;
    h->lone = b->len == 1;
    h->cands = b;
    g_ptr_array_add(p->rmbinds, h);
    rmcut_free(g_ptr_array_steal_index(p->rmcuts, i));
    return 1;
}

/* Held cut removal i after new evidence: named when the one candidate
 * left was shown gone, or is the only one left of names the model holds
 * completely (rm_complete); dropped when none is left. Returns whether it
 * is gone from p->rmcuts. */
static int rm_settle(struct tbbt_pass2 *p, guint i) {
    struct rmcut *c = p->rmcuts->pdata[i];
    guint k = 0;
    unsigned n = rm_left(c, &k);
    if (n == 1 && (c->picked || rm_complete(p, c))) {
        p->st.cut_rm_named++;
        rm_resolve(p, i, k);
    } else if (n == 1 && rm_names_complete(p, c)) {
        c->deferred = 1; /* taken at the window's end unless a reply rules it out */
        return 0;
    } else if (n == 0) {
        if (!rm_bind_move(p, i)) rm_drop(p, i);
    } else {
        return 0;
    }
    return 1;
}

/* Candidate of c named (name, len), or NULL. */
static struct rmcand *rm_cand(struct rmcut *c, const char *name, size_t len) {
    for (guint i = 0; i < c->cands->len; i++) {
        struct rmcand *x = &g_array_index(c->cands, struct rmcand, i);
        if (x->left && x->len == len && memcmp(x->name, name, len) == 0) return x;
    }
    return NULL;
}

/* Candidate of c that names object id, or NULL. */
static struct rmcand *rm_cand_obj(struct rmcut *c, tbbt_id id) {
    for (guint i = 0; id && i < c->cands->len; i++) {
        struct rmcand *x = &g_array_index(c->cands, struct rmcand, i);
        if (x->left && x->obj == id) return x;
    }
    return NULL;
}

/* What record r says of (dir, name) for a held cut removal: 1 the name
 * was gone (a lookup, remove, rmdir or rename from it found nothing; a
 * make that fails on an existing name succeeded), -1 it was there (those
 * succeeded, or the make found it), 0 nothing. */
static int rm_name_says(const struct tbbt_rec *r) {
    int exclusive = r->op == TBBT_OP_MKDIR || r->op == TBBT_OP_SYMLINK || r->op == TBBT_OP_MKNOD ||
                    r->op == TBBT_OP_LINK || (r->op == TBBT_OP_CREATE && r->createhow != 0);
    if (exclusive) return r->status == TBBT_NFS_OK ? 1 : r->status == TBBT_NFSERR_EXIST ? -1 : 0;
    if (r->op != TBBT_OP_LOOKUP && r->op != TBBT_OP_REMOVE && r->op != TBBT_OP_RMDIR &&
        r->op != TBBT_OP_RENAME)
        return 0;
    return r->status == TBBT_NFSERR_NOENT ? 1 : r->status == TBBT_NFS_OK ? -1 : 0;
}

/* Did create r make a new object under a name the model holds for
 * another (the reply shows it)? The other one's name was removed first. */
static int made_anew(const struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    tbbt_id cur = 0;
    if (r->op != TBBT_OP_CREATE || r->status != TBBT_NFS_OK || !tbbt_rec_has(r, TBBT_F_NEWOBJ) || !r->newobj)
        return 0;
    return tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &cur) ==
               TBBT_NAME_PRESENT &&
           cur && cur != r->newobj;
}

/* Did make r get, as the new object, one the model holds under another
 * name (a server that reuses a removed file's handle), with one link? The
 * old names were removed first. */
static int made_again(const struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->op >= TBBT_OP_COUNT || !(tbbt_op_info(r->op)->flags & TBBT_OPF_CREATES) ||
        r->status != TBBT_NFS_OK || !tbbt_rec_has(r, TBBT_F_NEWOBJ) || !r->newobj ||
        (r->op != TBBT_OP_MKDIR && (!tbbt_rec_has(r, TBBT_F_NLINK) || r->nlink != 1)))
        return 0;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, r->newobj);
    for (const struct tbbt_fsdent *d = o ? o->links : NULL; d; d = d->link_next)
        if (d->dir != r->dir || d->len != r->name.len ||
            memcmp(d->name, tbbt_rec_str(r, r->name), d->len) != 0)
            return 1;
    return 0;
}

/* Contract in pass2_int.h. */
int tbbt_p2_single_link(const struct tbbt_fsmodel *m, tbbt_id id) {
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(m, id) : NULL;
    return o && o->links && !o->links->link_next && o->attr.nlink <= 1;
}

/* A record made after them showed that the name (name, len) of directory
 * dir (name NULL: the only name of object id) is gone: when no unnamed
 * removal (a ghost) may have removed it, the first held cut removal that
 * may have did (its other candidates are ruled out). Of several, any
 * could have, and whichever did, the state after them all is the same:
 * none of them left the name to a record in between (rm_rule_out). */
static void rm_pick(struct tbbt_pass2 *p, uint64_t seq, tbbt_id dir, const char *name, size_t len,
                    tbbt_id id) {
    struct rmcut *only = NULL;
    struct rmcand *x = NULL;
    for (guint i = 0; i < p->rmcuts->len; i++) {
        struct rmcut *c = p->rmcuts->pdata[i];
        struct rmcand *y = c->seq >= seq ? NULL
                           : name        ? (c->dir == dir ? rm_cand(c, name, len) : NULL)
                                         : rm_cand_obj(c, id);
        if (!y || only) continue;
        only = c; /* of several, the first: after them all the state is the same */
        x = y;
    }
    if (!only || g_hash_table_contains(p->rm_tainted, &only->dir)) return;
    for (guint i = 0; i < p->rm_ghosts->len; i++) {
        struct rmcut *g = p->rm_ghosts->pdata[i];
        if (name ? g->dir == dir && rm_cand(g, name, len) : rm_cand_obj(g, id) != NULL)
            return; /* an unnamed removal may have */
    }
    for (guint j = 0; j < only->cands->len; j++) {
        struct rmcand *y = &g_array_index(only->cands, struct rmcand, j);
        y->left = y == x;
    }
    only->picked = 1;
}

/* Record r made a name of held cut removal c's directory anew (a make, a
 * link, a rename's target): a later use of that name may be of the new
 * object, so it no longer rules the candidate out. */
static void rm_remade(struct rmcut *c, const struct tbbt_rec *r) {
    if (r->status != TBBT_NFS_OK || r->op >= TBBT_OP_COUNT) return;
    struct rmcand *x = NULL;
    if ((tbbt_op_info(r->op)->flags & TBBT_OPF_CREATES) || r->op == TBBT_OP_LINK) {
        if (tbbt_rec_has(r, TBBT_F_NAME) && r->dir == c->dir)
            x = rm_cand(c, tbbt_rec_str(r, r->name), r->name.len);
    } else if (r->op == TBBT_OP_RENAME && tbbt_rec_has(r, TBBT_F_NAME2) && r->dir2 == c->dir) {
        x = rm_cand(c, tbbt_rec_str(r, r->name2), r->name2.len);
    }
    if (x) x->remade = 1;
}

/* What record r, after held cut removal c, shows of candidate x's object:
 * a reply with as many links as when c was held (and no link made since)
 * says c took none of its names, x among them. */
static void rm_links_kept(struct rmcand *x, const struct tbbt_rec *r) {
    if (!x->obj || r->status != TBBT_NFS_OK) return;
    if (r->op == TBBT_OP_LINK && tbbt_rec_has(r, TBBT_F_OBJ) && r->obj == x->obj) x->linked = 1;
    int on = (tbbt_rec_has(r, TBBT_F_OBJ) && r->obj == x->obj) ||
             (tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj == x->obj);
    if (!on || x->linked || x->nlink0 < 2 || !x->left || !tbbt_rec_has(r, TBBT_F_NLINK) ||
        r->nlink < x->nlink0)
        return;
    x->left = 0;
    x->kept_links = 1;
}

/* What record r (held as seq) shows of the candidates of held cut
 * removal c (made before it): a candidate name it uses with success, or
 * lists, or whose only object it uses with success, was not removed; an
 * object it names is used (tbbt_p2_rm_window_end). */
static void rm_rule_out(struct tbbt_pass2 *p, struct rmcut *c, const struct tbbt_rec *r) {
    rm_remade(c, r);
    if (tbbt_rec_has(r, TBBT_F_DIR) && r->dir == c->dir && tbbt_rec_has(r, TBBT_F_NAME)) {
        struct rmcand *x = rm_cand(c, tbbt_rec_str(r, r->name), r->name.len);
        int same =
            r->op == TBBT_OP_LOOKUP && x && x->obj && tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj == x->obj;
        if (x && rm_name_says(r) < 0 && (!x->remade || same)) x->left = 0;
    }
    if ((r->op == TBBT_OP_READDIR || r->op == TBBT_OP_READDIRPLUS) && r->status == TBBT_NFS_OK &&
        r->obj == c->dir)
        for (uint32_t e = 0; e < r->nentries; e++) {
            const struct tbbt_dirent *d = &r->entries[e];
            struct rmcand *x = rm_cand(c, tbbt_rec_str(r, d->name), d->name.len);
            if (x && (!x->remade || (x->obj && d->id == x->obj))) x->left = 0;
        }
    tbbt_id ids[5];
    tbbt_p2_record_objects(p->m, r, ids);
    for (guint i = 0; i < c->cands->len; i++) {
        struct rmcand *x = &g_array_index(c->cands, struct rmcand, i);
        for (int k = 0; x->obj && k < 5; k++)
            if (ids[k] == x->obj) x->used = 1;
        if (x->obj && tbbt_rec_has(r, TBBT_F_OBJ) && r->obj == x->obj && r->status == TBBT_NFS_OK &&
            tbbt_p2_single_link(p->m, x->obj))
            x->left = 0;
        rm_links_kept(x, r);
    }
}

/* Contract in pass2_int.h. */
void tbbt_p2_rm_evidence(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if (tbbt_rec_has(r, TBBT_F_DIR) && tbbt_rec_has(r, TBBT_F_NAME) &&
        (rm_name_says(r) > 0 || made_anew(p, r)))
        rm_pick(p, seq, r->dir, tbbt_rec_str(r, r->name), r->name.len, 0);
    if (tbbt_rec_has(r, TBBT_F_OBJ) && r->status == TBBT_NFSERR_STALE && tbbt_p2_single_link(p->m, r->obj))
        rm_pick(p, seq, 0, NULL, 0, r->obj);
    if (made_again(p, r)) rm_pick(p, seq, 0, NULL, 0, r->newobj);
    tbbt_id gone = 0;
    if (r->op == TBBT_OP_RMDIR && r->status == TBBT_NFS_OK && tbbt_rec_has(r, TBBT_F_NAME))
        tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &gone);
    for (guint i = 0; i < p->rmcuts->len; i++) {
        struct rmcut *c = p->rmcuts->pdata[i];
        if (seq <= c->seq) continue;
        if (gone && gone == c->dir) { /* emptied: the window's end rule decides now */
            tbbt_p2_rm_window_end(p, c->seq);
            i--;
            continue;
        }
        rm_rule_out(p, c, r);
        if (rm_settle(p, i)) i--;
    }
    for (guint i = 0; i < p->rm_ghosts->len; i++) {
        struct rmcut *g = p->rm_ghosts->pdata[i];
        guint k = 0;
        rm_rule_out(p, g, r);
        if (!rm_left(g, &k)) g_ptr_array_remove_index(p->rm_ghosts, i--);
    }
}

/* Does object id keep a name other than (dir, name) in the model? */
static int rm_other_name(const struct tbbt_pass2 *p, tbbt_id id, tbbt_id dir, const char *name, size_t len) {
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    if (!o || (o->flags & TBBT_FSO_GONE)) return 0;
    for (const struct tbbt_fsdent *d = o->links; d; d = d->link_next)
        if (d->dir != dir || d->len != len || memcmp(d->name, name, len) != 0) return 1;
    return 0;
}

/* Does the model still hold candidate x of held cut removal c for its
 * object (a guessed move placed again since may have taken the name)? */
static int rm_still_there(const struct tbbt_pass2 *p, const struct rmcut *c, const struct rmcand *x) {
    tbbt_id cur = 0;
    return tbbt_fsmodel_name(p->m, c->dir, x->name, x->len, &cur) == TBBT_NAME_PRESENT && cur == x->obj;
}

/* Held cut removal c leaves the window with its candidates not told apart
 * in a directory whose names the model holds but those cut moves made
 * (rm_dir_known): a candidate no record in the window ruled out (none
 * used its name) and whose removal changes no later record's status --
 * its object no later record used, or one that keeps another name -- is
 * as good as the one removed for the replay, where leaving the removal
 * out loses it. The first such candidate, or -1. */
static int rm_harmless(const struct tbbt_pass2 *p, const struct rmcut *c) {
    for (guint k = 0; k < c->cands->len; k++) {
        const struct rmcand *x = &g_array_index(c->cands, struct rmcand, k);
        if (x->left && !x->remade && rm_still_there(p, c, x) &&
            (!x->used || rm_other_name(p, x->obj, c->dir, x->name, x->len)))
            return (int)k;
    }
    return -1;
}

/* Contract in pass2_int.h. */
void tbbt_p2_rm_window_end(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->rmcuts->len; i++) {
        struct rmcut *c = p->rmcuts->pdata[i];
        if (c->seq != seq) continue;
        guint k0 = 0;
        if (c->deferred && rm_left(c, &k0) == 1 && rm_names_complete(p, c)) {
            p->st.cut_rm_named++;
            rm_resolve(p, i, k0);
            return;
        }
        int best = -1, n = 0;
        for (guint k = 0; k < c->cands->len; k++) {
            const struct rmcand *x = &g_array_index(c->cands, struct rmcand, k);
            if (!x->left || x->used) continue;
            best = (int)k;
            n++;
        }
        if (n != 1 || !rm_names_complete(p, c)) best = rm_dir_known(p, c) ? rm_harmless(p, c) : -1;
        if (best < 0) {
            rm_drop(p, i);
        } else {
            p->st.cut_rm_guessed++;
            rm_resolve(p, i, (guint)best);
        }
        return;
    }
}

/* Contract in pass2_int.h. */
int tbbt_p2_withheld(struct tbbt_pass2 *p, const struct tbbt_rec *r, enum tbbt_oc pred, enum tbbt_oc traced) {
    if (!p->moves->len || pred != TBBT_OC_NOENT || traced != TBBT_OC_OK) return 0;
    if (r->op != TBBT_OP_REMOVE && r->op != TBBT_OP_RMDIR && r->op != TBBT_OP_RENAME) return 0;
    p->st.cut_withheld++;
    return 1;
}

/* The object lookup or make r's reply shows: the new object, else the
 * live object an earlier reply showed with the fileid r's reply shows. */
static tbbt_id shown_obj(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj) return r->newobj;
    return tbbt_rec_has(r, TBBT_F_FILEID) ? tbbt_p2_live_by_fileid(p, r->fileid) : 0;
}

/* Contract in pass2_int.h. */
int tbbt_p2_restore_lookup(struct tbbt_pass2 *p, struct tbbt_rec *r) {
    tbbt_id x = r->status == TBBT_NFS_OK ? shown_obj(p, r) : 0;
    if (!x) return 0;
    const struct tbbt_fsdent *d =
        tbbt_p2_cut_likely(p, r, r->dir, CUT_ANY); /* of several names of x, its own */
    if (d && d->obj == x) return tbbt_p2_put_name(p, r, TBBT_F_NAME, d->name, d->len);
    const struct tbbt_fsdent *likely = d;
    d = tbbt_p2_known_name(p, r, r->dir, x);
    if (likely && d && d->dir == r->dir &&
        tbbt_p2_cut_replaced(p, r, r->dir, likely->name, likely->len, x, d->name, d->len))
        d = tbbt_p2_name_in(p->m, r->dir, x); /* the name it took over */
    if (!d && p->moves->len && tbbt_p2_resolve_move(p, r->dir, NULL, 0, x))
        d = tbbt_p2_name_in(p->m, r->dir, x);
    if (d) {
        tbbt_p2_put_name(p, r, TBBT_F_NAME, d->name, d->len);
        /* what the capture kept of the real name is now known: a later cut call matches it */
        if (tbbt_cut_is_synth(d->name, d->len)) tbbt_p2_note_cut_info(p, r, r->dir, r->name);
        return 1;
    }
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x);
    if (o && (o->flags & (TBBT_FSO_CREATED | TBBT_FSO_INITIAL)) == TBBT_FSO_CREATED) return 0;
    if (tbbt_fsmodel_dir_fresh(p->m, r->dir)) return 0;
    int isdir =
        (o && o->attr.type == TBBT_FT_DIR) || (tbbt_rec_has(r, TBBT_F_TYPE) && r->type == TBBT_FT_DIR);
    if (isdir && o && o->links) return 0;
    return tbbt_p2_put_synth(p, r, TBBT_F_NAME, r->dir, x, 1);
}

/* Can the attributes to set of make r, which the snaplen may have cut, be
 * rebuilt: the mode from its reply (or the verifier of an exclusive
 * create), a mknod's type from its reply? */
static int make_attrs_known(const struct tbbt_rec *r) {
    if (r->op == TBBT_OP_MKNOD && !tbbt_rec_has(r, TBBT_F_NODETYPE) && !tbbt_rec_has(r, TBBT_F_TYPE))
        return 0;
    if (r->op == TBBT_OP_CREATE && tbbt_rec_has(r, TBBT_F_CREATEHOW) && r->createhow == 2) return 1;
    return tbbt_rec_has(r, TBBT_F_SET_MODE) || tbbt_rec_has(r, TBBT_F_MODE);
}

/* Rebuilds the attributes to set of make r (make_attrs_known): an
 * unchecked create when the mode of creation was cut, the mode its reply
 * shows, the verifier of an exclusive create (any one does for a new
 * name), a symlink's target (the one the model knows, else a placeholder:
 * nothing replays its content), a mknod's type. Returns whether a field
 * was filled. */
static int fill_make_attrs(struct tbbt_rec *r, const struct tbbt_fsmodel *m) {
    uint64_t had = r->has;
    if (r->op == TBBT_OP_CREATE && r->vers == 3 && !tbbt_rec_has(r, TBBT_F_CREATEHOW))
        tbbt_rec_set_u64(r, TBBT_F_CREATEHOW, 0);
    if (r->op == TBBT_OP_CREATE && tbbt_rec_has(r, TBBT_F_CREATEHOW) && r->createhow == 2) {
        if (!tbbt_rec_has(r, TBBT_F_VERF)) tbbt_rec_set_u64(r, TBBT_F_VERF, r->xid);
        return r->has != had;
    }
    if (r->op == TBBT_OP_MKNOD && !tbbt_rec_has(r, TBBT_F_NODETYPE))
        tbbt_rec_set_u64(r, TBBT_F_NODETYPE, r->type);
    if (!tbbt_rec_has(r, TBBT_F_SET_MODE)) tbbt_rec_set_u64(r, TBBT_F_SET_MODE, r->mode & 07777);
    if (r->op == TBBT_OP_SYMLINK && !tbbt_rec_has(r, TBBT_F_TARGET)) {
        const struct tbbt_fsobj *o = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? tbbt_fsmodel_obj(m, r->newobj) : NULL;
        if (o && o->target)
            tbbt_rec_set_str(r, TBBT_F_TARGET, o->target, strlen(o->target));
        else
            tbbt_rec_set_str(r, TBBT_F_TARGET, TBBT_CUT_PREFIX "target",
                             sizeof(TBBT_CUT_PREFIX "target") - 1);
    }
    return r->has != had;
}

/* Contract in pass2_int.h. */
int tbbt_p2_restore_make(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t miss) {
    tbbt_id x = r->status == TBBT_NFS_OK && tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0;
    if (!make_attrs_known(r) || ((miss & (1ull << TBBT_F_NAME)) && !x)) return 0;
    if (miss & (1ull << TBBT_F_NAME)) {
        const struct tbbt_fsdent *d = tbbt_p2_name_in(p->m, r->dir, x);
        if (d) {
            tbbt_p2_put_name(p, r, TBBT_F_NAME, d->name, d->len);
        } else {
            tbbt_p2_put_synth(p, r, TBBT_F_NAME, r->dir, x, 0);
            tbbt_p2_note_cut_info(p, r, r->dir, r->name);
        }
        fill_make_attrs(r, p->m);
    } else if (fill_make_attrs(r, p->m)) {
        p->st.cut_filled++;
    }
    return 1;
}

/* Contract in pass2_int.h. */
int64_t tbbt_p2_mode_before(const struct tbbt_fsobj *o) {
    if (o && (o->flags & TBBT_FSO_RMODE)) return o->rmode & 07777;
    if (o && (o->flags & TBBT_FSO_ATTRS)) return o->attr.mode & 07777;
    return -1;
}

/* Contract in pass2_int.h. */
int tbbt_p2_restore_setattr(struct tbbt_pass2 *p, struct tbbt_rec *r) {
    if (!tbbt_rec_has(r, TBBT_F_TYPE) || !tbbt_rec_has(r, TBBT_F_OBJ)) return 0;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, r->obj);
    int attrs = o && (o->flags & TBBT_FSO_ATTRS);
    int owner = attrs && !(tbbt_pass2_obj(o)->flags & TBBT_PASS2_OWNER_GUESSED);
    int64_t mode = tbbt_p2_mode_before(o);
    if (tbbt_rec_has(r, TBBT_F_MODE) &&
        (tbbt_rec_has(r, TBBT_F_SET_MODE) || (mode >= 0 && (uint32_t)mode != (r->mode & 07777))))
        tbbt_rec_set_u64(r, TBBT_F_SET_MODE, r->mode & 07777);
    if (tbbt_rec_has(r, TBBT_F_UID) && (tbbt_rec_has(r, TBBT_F_SET_UID) || (owner && o->attr.uid != r->uid)))
        tbbt_rec_set_u64(r, TBBT_F_SET_UID, r->uid);
    if (tbbt_rec_has(r, TBBT_F_GID) && (tbbt_rec_has(r, TBBT_F_SET_GID) || (owner && o->attr.gid != r->gid)))
        tbbt_rec_set_u64(r, TBBT_F_SET_GID, r->gid);
    int sized = tbbt_rec_has(r, TBBT_F_PRE_SIZE)
                    ? r->pre_size != r->size
                    : attrs && o->attr.type == TBBT_FT_REG && o->attr.size != r->size;
    if (tbbt_rec_has(r, TBBT_F_SIZE) && r->type == TBBT_FT_REG && (tbbt_rec_has(r, TBBT_F_SET_SIZE) || sized))
        tbbt_rec_set_u64(r, TBBT_F_SET_SIZE, r->size);
    p->st.cut_filled++;
    return 1;
}
