/* pass2_cut_match.c -- cut records restored from what the capture kept of
 * their names (cut.h): lookups, makes, setattrs and failed calls a cut
 * record implies, and cut removals bound to the move they undo. */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

/* ---- cut names matched by what the capture kept of them (cut.h) ---- */

/* Contract in pass2_int.h. */
void tbbt_p2_note_cut_info(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                           struct tbbt_str name) {
    struct tbbt_cut_info info;
    if (!tbbt_cut_info_of(&info, r, dir)) return;
    g_hash_table_replace(p->cut_infos, tbbt_p2_alias_key(dir, tbbt_rec_str(r, name), name.len),
                         g_memdup2(&info, sizeof(info)));
}

/* Contract in pass2_int.h. */
void tbbt_p2_move_cut_info(struct tbbt_pass2 *p, tbbt_id from, struct tbbt_str fname,
                           const struct tbbt_rec *r, tbbt_id to, struct tbbt_str tname) {
    const char *fn = tbbt_rec_str(r, fname);
    char *k = tbbt_p2_alias_key(from, fn, fname.len);
    struct tbbt_cut_info info, *old = g_hash_table_lookup(p->cut_infos, k);
    if (old) {
        info = *old;
        g_hash_table_remove(p->cut_infos, k);
    } else if (!tbbt_cut_is_synth(fn, fname.len)) {
        info.npfx = fname.len < TBBT_CUT_PFX ? fname.len : TBBT_CUT_PFX;
        memcpy(info.pfx, fn, info.npfx);
    }
    g_free(k);
    if (!old && tbbt_cut_is_synth(fn, fname.len)) return;
    info.dir = to;
    info.len = TBBT_CUT_LEN_UNKNOWN;
    g_hash_table_replace(p->cut_infos, tbbt_p2_alias_key(to, tbbt_rec_str(r, tname), tname.len),
                         g_memdup2(&info, sizeof(info)));
}

/* Contract in pass2_int.h. */
enum tbbt_cut_match tbbt_p2_cut_match_dent(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                           const struct tbbt_fsdent *d) {
    if (!tbbt_cut_is_synth(d->name, d->len)) return tbbt_cut_match_name(r, d->name, d->len);
    char *k = tbbt_p2_alias_key(dir, d->name, d->len);
    const struct tbbt_cut_info *i = g_hash_table_lookup(p->cut_infos, k);
    g_free(k);
    return i ? tbbt_cut_match_info(r, i) : TBBT_CUT_MAYBE;
}

/* Is name d of the type a call wants: not a directory (a remove), a
 * directory (an rmdir), or either? */
static int cut_type_ok(const struct tbbt_pass2 *p, const struct tbbt_fsdent *d, enum cut_want want) {
    if (want == CUT_ANY) return 1;
    const struct tbbt_fsobj *o = d->obj ? tbbt_fsmodel_obj(p->m, d->obj) : NULL;
    int isdir = (o && o->attr.type == TBBT_FT_DIR) || d->made_dir;
    return want == CUT_DIR ? isdir : !isdir;
}

/* Contract in pass2_int.h. */
const struct tbbt_fsdent *tbbt_p2_cut_likely(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                             enum cut_want want) {
    const struct tbbt_fsobj *o = tbbt_rec_has(r, TBBT_F_CUTLEN) ? tbbt_fsmodel_obj(p->m, dir) : NULL;
    const struct tbbt_fsdent *found = NULL;
    for (const struct tbbt_fsdent *e = o ? o->children : NULL; e; e = e->child_next) {
        if (e->state != TBBT_NAME_PRESENT || tbbt_dot_name(e->name, e->len) || !cut_type_ok(p, e, want))
            continue;
        if (tbbt_p2_cut_match_dent(p, r, dir, e) != TBBT_CUT_LIKELY) continue;
        if (found) return NULL;
        found = e;
    }
    return found;
}

/* A present name of directory dir for a cut call that failed on a name
 * that was there (EXIST, or a permission refused on a name to take
 * away): the one r's cut name likely is, else any of the type wanted --
 * the call changes nothing and fails the same on any. NULL when the
 * model holds none. */
static const struct tbbt_fsdent *cut_present(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                             enum cut_want want) {
    const struct tbbt_fsdent *d = tbbt_p2_cut_likely(p, r, dir, want);
    const struct tbbt_fsobj *o = d ? NULL : tbbt_fsmodel_obj(p->m, dir);
    for (const struct tbbt_fsdent *e = o ? o->children : NULL; e && !d; e = e->child_next)
        if (e->state == TBBT_NAME_PRESENT && !tbbt_dot_name(e->name, e->len) && cut_type_ok(p, e, want))
            d = e;
    return d;
}

/* A name no directory holds: a cut call that failed for want of its name
 * (NOENT) or on its directory's permission gets it, and fails the same.
 * Synthetic (pass 2 never judges it), and never one a make gets. */
#define CUT_ABSENT TBBT_CUT_PREFIX "absent"

/* Attributes to set for a make that failed and whose call the snaplen
 * cut before them: an unchecked create, mode 0644 (a mkdir 0755), a
 * symlink's placeholder target. Nothing is made: only the request must be
 * whole. */
static void fill_failed_make(struct tbbt_rec *r) {
    if (r->op == TBBT_OP_CREATE && r->vers == 3 && !tbbt_rec_has(r, TBBT_F_CREATEHOW))
        tbbt_rec_set_u64(r, TBBT_F_CREATEHOW, 0);
    if (r->op == TBBT_OP_CREATE && r->createhow == 2 && !tbbt_rec_has(r, TBBT_F_VERF))
        tbbt_rec_set_u64(r, TBBT_F_VERF, r->xid);
    if (!tbbt_rec_has(r, TBBT_F_SET_MODE) && !(r->op == TBBT_OP_CREATE && r->createhow == 2))
        tbbt_rec_set_u64(r, TBBT_F_SET_MODE, r->op == TBBT_OP_MKDIR ? 0755 : 0644);
    if (r->op == TBBT_OP_SYMLINK && !tbbt_rec_has(r, TBBT_F_TARGET))
        tbbt_rec_set_str(r, TBBT_F_TARGET, TBBT_CUT_PREFIX "target", sizeof(TBBT_CUT_PREFIX "target") - 1);
    if (r->op == TBBT_OP_MKNOD && !tbbt_rec_has(r, TBBT_F_NODETYPE)) tbbt_rec_set_u64(r, TBBT_F_NODETYPE, 7);
}

/* Failed setattr r whose attributes to set the snaplen cut: where none
 * was decoded, one that fails the same way -- the mode it has (a change
 * of mode by another user: PERM), else its size (a write without
 * permission: ACCES). Returns whether it has one. */
static int fill_failed_setattr(struct tbbt_pass2 *p, struct tbbt_rec *r) {
    const uint64_t set = (1ull << TBBT_F_SET_MODE) | (1ull << TBBT_F_SET_UID) | (1ull << TBBT_F_SET_GID) |
                         (1ull << TBBT_F_SET_SIZE) | (1ull << TBBT_F_SET_ATIME) | (1ull << TBBT_F_SET_MTIME);
    if (r->has & set) return 1;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, r->obj);
    int64_t mode = tbbt_rec_has(r, TBBT_F_MODE) ? (int64_t)(r->mode & 07777) : tbbt_p2_mode_before(o);
    if (r->status == TBBT_NFSERR_PERM && mode >= 0) {
        tbbt_rec_set_u64(r, TBBT_F_SET_MODE, (uint64_t)mode);
        return 1;
    }
    if (tbbt_rec_has(r, TBBT_F_SIZE) && r->status == TBBT_NFSERR_ACCES) {
        tbbt_rec_set_u64(r, TBBT_F_SET_SIZE, r->size);
        return 1;
    }
    return 0;
}

/* Levels of directories above a refused link's or rename's directory,
 * and directories in all, that refusing_dir tries. */
#define REFUSED_LINK_DEPTH 16
#define REFUSED_LINK_TRIES 4096

/* Does the model refuse r's caller to write in directory dir (as r's
 * field f, TBBT_F_DIR or TBBT_F_DIR2) the way the trace's server did
 * (r->status)? Sets that field to dir. */
static int refuses(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, tbbt_id dir) {
    tbbt_rec_set_u64(r, f, dir);
    return tbbt_fsmodel_predict_dir_access(p->m, r) == r->status;
}

/* Levels below a directory on the way up that dir_near searches: its
 * entries and theirs (shared/s0 beside the caller's c1/x). */
#define NEAR_BELOW 2

/* An entry of directory dir, or below it up to depth levels, other than
 * skip (the subtree searched already), where r with field f set to it
 * gets r's status (refuses); only directories when dirs_only or below
 * the first level. 0 when none; *tries counts the entries tried. */
static tbbt_id near_below(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, tbbt_id dir,
                          tbbt_id skip, int depth, int dirs_only, int *tries) {
    const struct tbbt_fsobj *d = tbbt_fsmodel_obj(p->m, dir);
    for (const struct tbbt_fsdent *e = d ? d->children : NULL; e && *tries < REFUSED_LINK_TRIES;
         e = e->child_next, (*tries)++) {
        const struct tbbt_fsobj *c = e->obj && e->obj != dir ? tbbt_fsmodel_obj(p->m, e->obj) : NULL;
        if (!e->obj || e->obj == dir || e->obj == skip || tbbt_dot_name(e->name, e->len)) continue;
        if ((!dirs_only || (c && c->attr.type == TBBT_FT_DIR)) && refuses(p, r, f, e->obj)) return e->obj;
    }
    for (const struct tbbt_fsdent *e = d && depth > 1 ? d->children : NULL; e && *tries < REFUSED_LINK_TRIES;
         e = e->child_next) {
        const struct tbbt_fsobj *c = e->obj && e->obj != dir ? tbbt_fsmodel_obj(p->m, e->obj) : NULL;
        if (!c || e->obj == skip || c->attr.type != TBBT_FT_DIR || tbbt_dot_name(e->name, e->len)) continue;
        tbbt_id x = near_below(p, r, f, e->obj, 0, depth - 1, 1, tries);
        if (x) return x;
    }
    return 0;
}

/* The directory nearest to from -- it, or one above, or one below those
 * (a shared directory beside the caller's own, or in a shared tree beside
 * it: NEAR_BELOW levels) -- where the model predicts r's status for r
 * with field f (TBBT_F_DIR or TBBT_F_DIR2) set to it (refuses); of the
 * first level below, only those known as directories when dirs_only.
 * Leaves the field at the last one tried. 0 when none. */
static tbbt_id dir_near(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, tbbt_id from,
                        int dirs_only) {
    tbbt_id dir = from, below = 0;
    int tries = 0;
    for (int up = 0; dir && up < REFUSED_LINK_DEPTH && tries < REFUSED_LINK_TRIES; up++) {
        if (refuses(p, r, f, dir)) return dir;
        tbbt_id x = near_below(p, r, f, dir, below, NEAR_BELOW, dirs_only, &tries);
        if (x) return x;
        const struct tbbt_fsobj *d = tbbt_fsmodel_obj(p->m, dir);
        below = dir;
        dir = d && d->links && d->links->dir != dir ? d->links->dir : 0;
    }
    return 0;
}

/* A directory the model refuses r's caller (r->status, ACCES or PERM) to
 * write in, for a link or rename the snaplen cut before the directory
 * its field f names (dir_near from directory from): any of them fails
 * the call the same way and changes nothing. Sets the field and returns
 * 1; 0 when the model knows none. */
static int refusing_dir(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, tbbt_id from) {
    tbbt_id dir = dir_near(p, r, f, from, 0);
    if (dir) {
        tbbt_rec_set_u64(r, f, dir);
        return 1;
    }
    r->has &= ~(1ull << f);
    if (f == TBBT_F_DIR)
        r->dir = 0;
    else
        r->dir2 = 0;
    return 0;
}

/* Contract in pass2_int.h. */
tbbt_id tbbt_p2_writable_dir(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, tbbt_id from) {
    int st = r->status;
    r->status = TBBT_NFS_OK; /* refuses(): the model lets the caller write there */
    tbbt_id found = dir_near(p, r, f, from, 1);
    r->status = st;
    tbbt_rec_set_u64(r, f, from);
    return found;
}

/* Failed call r whose arguments the snaplen cut after its first handle,
 * where the server refused that handle (STALE): it fails the
 * same whatever the rest says, so names it lacks get one no directory
 * holds and a make's attributes are filled. Returns 1 when r is whole. */
static int restore_failed_handle(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t miss) {
    uint64_t name = 1ull << TBBT_F_NAME, name2 = 1ull << TBBT_F_NAME2, dir2 = 1ull << TBBT_F_DIR2;
    unsigned f = tbbt_op_info(r->op)->flags;
    int first = (f & TBBT_OPF_OBJ) ? tbbt_rec_has(r, TBBT_F_OBJ) : tbbt_rec_has(r, TBBT_F_DIR);
    if (!first || (miss & ~(name | name2 | dir2 | (r->op == TBBT_OP_MKNOD ? 1ull << TBBT_F_NODETYPE : 0))))
        return 0;
    if ((miss & dir2) && tbbt_rec_has(r, TBBT_F_DIR)) tbbt_rec_set_u64(r, TBBT_F_DIR2, r->dir);
    if ((miss & dir2) && !tbbt_rec_has(r, TBBT_F_DIR2)) return 0;
    if (miss & name) tbbt_p2_put_name(p, r, TBBT_F_NAME, CUT_ABSENT, sizeof(CUT_ABSENT) - 1);
    if (miss & name2) tbbt_rec_set_str(r, TBBT_F_NAME2, CUT_ABSENT, sizeof(CUT_ABSENT) - 1);
    if (f & TBBT_OPF_CREATES) fill_failed_make(r);
    p->st.cut_errors++;
    return 1;
}

/* Gives failed call r, whose name the snaplen cut, a name that fails the
 * same way on the replay's server when the model is right: a name no
 * directory holds for NOENT, and for a permission refused on the
 * directory (ACCES, PERM) when the call makes a name; a present name for
 * EXIST, and for a permission refused on a name to take away. Returns 1
 * when r is whole then. */
static int restore_failed_guess(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t miss) {
    uint64_t name = 1ull << TBBT_F_NAME, name2 = 1ull << TBBT_F_NAME2, dir2 = 1ull << TBBT_F_DIR2;
    int st = r->status, denied = st == TBBT_NFSERR_ACCES || st == TBBT_NFSERR_PERM;
    if (st == TBBT_NFSERR_STALE) return restore_failed_handle(p, r, miss);
    if (r->op == TBBT_OP_LINK && denied && miss == ((1ull << TBBT_F_DIR) | name)) {
        const struct tbbt_fsobj *o = r->obj ? tbbt_fsmodel_obj(p->m, r->obj) : NULL;
        if (!o || !o->links || !refusing_dir(p, r, TBBT_F_DIR, o->links->dir)) return 0;
        tbbt_p2_put_name(p, r, TBBT_F_NAME, CUT_ABSENT, sizeof(CUT_ABSENT) - 1);
        p->st.cut_errors++;
        return 1;
    }
    if (r->op == TBBT_OP_SETATTR) {
        if (miss || !denied || !fill_failed_setattr(p, r)) return 0;
        p->st.cut_errors++;
        return 1;
    }
    uint64_t nodetype = r->op == TBBT_OP_MKNOD ? 1ull << TBBT_F_NODETYPE : 0; /* fill_failed_make */
    if (miss & ~(name | nodetype | (r->op == TBBT_OP_RENAME ? name2 | dir2 : 0))) return 0;
    int makes = r->op == TBBT_OP_CREATE || r->op == TBBT_OP_MKDIR || r->op == TBBT_OP_SYMLINK ||
                r->op == TBBT_OP_MKNOD || r->op == TBBT_OP_LINK;
    if (!(miss & ~nodetype) && makes) { /* only attributes to set were cut: any do for a make that failed */
        fill_failed_make(r);
        return 1;
    }
    if (!(miss & name) || !tbbt_rec_has(r, TBBT_F_DIR)) return 0;
    int takes = r->op == TBBT_OP_REMOVE || r->op == TBBT_OP_RMDIR || r->op == TBBT_OP_RENAME;
    enum cut_want want = r->op == TBBT_OP_RMDIR ? CUT_DIR : r->op == TBBT_OP_REMOVE ? CUT_FILE : CUT_ANY;
    const struct tbbt_fsdent *d = NULL;
    if ((st == TBBT_NFSERR_EXIST && makes) || (denied && takes)) {
        if (!(d = cut_present(p, r, r->dir, want))) return 0;
        tbbt_p2_put_name(p, r, TBBT_F_NAME, d->name, d->len);
    } else if (st == TBBT_NFSERR_NOENT || (denied && (makes || r->op == TBBT_OP_LOOKUP))) {
        tbbt_p2_put_name(p, r, TBBT_F_NAME, CUT_ABSENT, sizeof(CUT_ABSENT) - 1);
    } else {
        return 0;
    }
    if (r->op == TBBT_OP_RENAME) {
        /* a refusal the source's directory does not explain came from the target's */
        if (!tbbt_rec_has(r, TBBT_F_DIR2) && denied && takes) {
            tbbt_rec_set_u64(r, TBBT_F_DIR2, r->dir);
            if (tbbt_fsmodel_predict_dir_access(p->m, r) == TBBT_NFS_OK)
                refusing_dir(p, r, TBBT_F_DIR2, r->dir);
        }
        if (!tbbt_rec_has(r, TBBT_F_DIR2)) tbbt_rec_set_u64(r, TBBT_F_DIR2, r->dir);
        if (!tbbt_rec_has(r, TBBT_F_NAME2))
            tbbt_rec_set_str(r, TBBT_F_NAME2, CUT_ABSENT, sizeof(CUT_ABSENT) - 1);
    }
    if (makes) fill_failed_make(r);
    p->st.cut_errors++;
    return 1;
}

/* Does the model refute that failed call r, given a name by a guess,
 * fails as traced? A refusal where the model lets the caller write the
 * directory (a rename's cut target directory refused it, say); else an
 * outcome the model predicts otherwise. */
static int cut_guess_refuted(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->status == TBBT_NFSERR_ACCES || r->status == TBBT_NFSERR_PERM) {
        int a = tbbt_fsmodel_predict_dir_access(p->m, r);
        if (a != TBBT_PREDICT_ANY) return a == TBBT_NFS_OK;
    }
    enum tbbt_oc pred = tbbt_oc_predict(p->m, r), traced = tbbt_oc_traced(p->m, r);
    return pred != TBBT_OC_ANY && traced != TBBT_OC_OTHER && pred != traced;
}

/* Gives failed cut call r a name that fails the same way
 * (restore_failed_guess), where the model foresees that failure (or
 * cannot tell): a refused rename's target directory, say, was cut, and
 * the source's alone may allow it. Else r is left as it was. */
static int restore_failed(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t miss) {
    tbbt_rec_copy(&p->cut_undo, r);
    uint64_t errors = p->st.cut_errors, synth = p->st.cut_synth, restored = p->st.cut_restored;
    if (!restore_failed_guess(p, r, miss)) return 0;
    if (!cut_guess_refuted(p, r)) return 1;
    tbbt_rec_copy(r, &p->cut_undo);
    p->st.cut_errors = errors;
    p->st.cut_synth = synth;
    p->st.cut_restored = restored;
    return 0;
}

/* Does no present name of directory dir, of the type wanted, agree with
 * r's cut name (its length and kept bytes, tbbt_p2_cut_match_dent)? */
static int cut_none_agree(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir, enum cut_want want) {
    const struct tbbt_fsobj *o = tbbt_rec_has(r, TBBT_F_CUTLEN) ? tbbt_fsmodel_obj(p->m, dir) : NULL;
    if (!o) return 0;
    for (const struct tbbt_fsdent *e = o->children; e; e = e->child_next)
        if (e->state == TBBT_NAME_PRESENT && !tbbt_dot_name(e->name, e->len) && cut_type_ok(p, e, want) &&
            tbbt_p2_cut_match_dent(p, r, dir, e) != TBBT_CUT_NO)
            return 0;
    return 1;
}

/* Was directory dir made by a held record after held record seq (so
 * that a call at seq could not have named it)? */
static int made_after(const struct tbbt_pass2 *p, tbbt_id dir, uint64_t seq) {
    for (uint64_t s = seq + 1; s < p->next_seq; s++) {
        const struct tbbt_rec *h = &p->ring[s % p->cap];
        if (h->op == TBBT_OP_MKDIR && h->status == TBBT_NFS_OK && tbbt_rec_has(h, TBBT_F_NEWOBJ) &&
            h->newobj == dir)
            return 1;
    }
    return 0;
}

/* Did a held record after seq show object x under its name in directory
 * dir (a lookup's reply, a listing, when x has no other name), or name
 * that name? Then a guessed place there was right, or used, and stays. */
static int shown_since(const struct tbbt_pass2 *p, tbbt_id x, tbbt_id dir, const char *name, size_t len,
                       uint64_t seq) {
    int one = tbbt_p2_single_link(p->m, x); /* else a sighting may be of another name */
    for (uint64_t s = seq + 1; s < p->next_seq; s++) {
        const struct tbbt_rec *h = &p->ring[s % p->cap];
        if (one && h->op == TBBT_OP_LOOKUP && tbbt_rec_has(h, TBBT_F_NEWOBJ) && h->newobj == x &&
            h->dir == dir)
            return 1;
        if (one && (h->op == TBBT_OP_READDIRPLUS || h->op == TBBT_OP_READDIR) && h->obj == dir)
            for (uint32_t i = 0; i < h->nentries; i++)
                if (h->entries[i].id == x) return 1;
        if (tbbt_rec_has(h, TBBT_F_NAME) && h->dir == dir && h->name.len == len &&
            memcmp(tbbt_rec_str(h, h->name), name, len) == 0)
            return 1;
    }
    return 0;
}

/* May held cut rename or link h (struct move mv) go to directory dir:
 * the trace made dir before h, the model lets h's caller write there, and
 * no record since showed the object where it was placed? */
int tbbt_p2_may_move_to(struct tbbt_pass2 *p, const struct tbbt_rec *h, const struct move *mv, tbbt_id dir) {
    struct tbbt_str t = mv->link ? h->name : h->name2;
    tbbt_id at = mv->link ? h->dir : h->dir2;
    if (made_after(p, dir, mv->seq) || shown_since(p, mv->obj, at, tbbt_rec_str(h, t), t.len, mv->seq))
        return 0;
    struct tbbt_rec w = *h; /* shallow: the prediction reads IDs and the credential only */
    tbbt_rec_set_u64(&w, mv->link ? TBBT_F_DIR : TBBT_F_DIR2, dir);
    return tbbt_fsmodel_predict_dir_access(p->m, &w) != TBBT_NFSERR_ACCES;
}

/* The open move (struct move) of held record seq, or NULL. */
struct move *tbbt_p2_move_at(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->moves->len; i++)
        if (g_array_index(p->moves, struct move, i).seq == seq)
            return &g_array_index(p->moves, struct move, i);
    return NULL;
}

/* The move of held record seq is no longer open: it leaves p->moves and
 * every held binding (struct rmbind). */
static void unbind_move(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->moves->len; i++)
        if (g_array_index(p->moves, struct move, i).seq == seq) g_array_remove_index(p->moves, i--);
    for (guint i = 0; i < p->rmbinds->len; i++) {
        struct rmbind *b = p->rmbinds->pdata[i];
        for (guint k = 0; k < b->cands->len; k++)
            if (g_array_index(b->cands, struct bindcand, k).mvseq == seq) g_array_remove_index(b->cands, k--);
    }
}

/* The placed cut renames and links that may have made a name of directory
 * dir a later call takes away: their object is of the type wanted, alive,
 * and may have gone there (tbbt_p2_may_move_to). */
GArray *tbbt_p2_bind_cands(struct tbbt_pass2 *p, tbbt_id dir, enum cut_want want) {
    GArray *c = g_array_new(FALSE, TRUE, sizeof(struct bindcand));
    for (guint i = 0; i < p->moves->len; i++) {
        const struct move *mv = &g_array_index(p->moves, struct move, i);
        const struct tbbt_fsobj *o = mv->placed ? tbbt_fsmodel_obj(p->m, mv->obj) : NULL;
        if (mv->seq < p->head_seq || !o || !o->links || (o->flags & TBBT_FSO_GONE)) continue;
        int isdir = o->attr.type == TBBT_FT_DIR;
        if ((want == CUT_ANY ? 0 : (want == CUT_DIR) != isdir) ||
            !tbbt_p2_may_move_to(p, &p->ring[mv->seq % p->cap], mv, dir))
            continue;
        struct bindcand k = {mv->seq, mv->obj, (o->flags & TBBT_FSO_ATTRS) ? o->attr.nlink : 0, 0, 0};
        g_array_append_val(c, k);
    }
    return c;
}

/* Binds held cut record r (held as seq, its source name cut) to the
 * placed cut rename or link mv: the rename or link moves to r's
 * directory under its object's synthetic name, which r takes, with what r
 * kept of the real name (cut_infos); open bindings drop mv. */
void tbbt_p2_bind_now(struct tbbt_pass2 *p, struct tbbt_rec *r, const struct move *mv) {
    unbind_move(p, mv->seq);
    struct tbbt_rec *h = &p->ring[mv->seq % p->cap];
    tbbt_p2_replace_held(p, h, mv, r->dir, NULL, 0);
    struct tbbt_str t = mv->link ? h->name : h->name2;
    tbbt_p2_note_cut_info(p, r, r->dir, t);
    tbbt_p2_put_name(p, r, TBBT_F_NAME, tbbt_rec_str(h, t), t.len);
    p->st.cut_bound++;
}

/* Successful cut call r (held as seq) takes away a name of directory dir
 * the model does not hold, in a directory the trace made (so the name
 * was not there before it): a held cut rename or link whose target the
 * snaplen cut whole made it, and went to a guessed place (tbbt_p2_place_held).
 * Of those whose object is of the type wanted and that may have gone
 * there (tbbt_p2_may_move_to), one alone is bound now (tbbt_p2_bind_now); several wait
 * for the records that follow (struct rmbind). Returns whether r is
 * named. */
static int bind_to_move(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq, enum cut_want want) {
    tbbt_id dir = r->dir;
    if (!p->moves->len || !tbbt_fsmodel_dir_fresh(p->m, dir) || !cut_none_agree(p, r, dir, want)) return 0;
    GArray *c = tbbt_p2_bind_cands(p, dir, want);
    struct move *mv = c->len == 1 ? tbbt_p2_move_at(p, g_array_index(c, struct bindcand, 0).mvseq) : NULL;
    if (mv) {
        struct move m = *mv;
        tbbt_p2_bind_now(p, r, &m);
    }
    if (mv || c->len < 2 || c->len > RMBIND_CANDS || p->rmbinds->len >= RMBINDS || !seq) {
        g_array_free(c, TRUE);
        return mv != NULL;
    }
    struct rmbind *b = g_new0(struct rmbind, 1);
    b->seq = seq;
    b->incomplete = tbbt_p2_moves_unplaced(p) != 0; /* an unplaced one may have made the name */
    b->cands = c;
    g_ptr_array_add(p->rmbinds, b);
    return 0;
}

/* Contract in pass2_int.h. */
void tbbt_p2_bind_whole(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    if ((r->op != TBBT_OP_REMOVE && r->op != TBBT_OP_RMDIR && r->op != TBBT_OP_RENAME) ||
        r->status != TBBT_NFS_OK || (r->flags & TBBT_RF_NAME_SYNTH) || !tbbt_rec_has(r, TBBT_F_NAME) ||
        !tbbt_rec_has(r, TBBT_F_DIR) || !tbbt_fsmodel_dir_fresh(p->m, r->dir))
        return;
    const char *name = tbbt_rec_str(r, r->name);
    if (tbbt_dot_name(name, r->name.len) ||
        tbbt_fsmodel_name(p->m, r->dir, name, r->name.len, NULL) != TBBT_NAME_ABSENT)
        return;
    enum cut_want want = r->op == TBBT_OP_RMDIR ? CUT_DIR : r->op == TBBT_OP_REMOVE ? CUT_FILE : CUT_ANY;
    GArray *c = tbbt_p2_bind_cands(p, r->dir, want);
    struct move *at = c->len == 1 ? tbbt_p2_move_at(p, g_array_index(c, struct bindcand, 0).mvseq) : NULL;
    if (c->len >= 2 && c->len <= RMBIND_CANDS && p->rmbinds->len < RMBINDS) {
        struct rmbind *b = g_new0(struct rmbind, 1);
        b->seq = seq;
        b->whole = 1;
        b->incomplete = tbbt_p2_moves_unplaced(p) != 0;
        b->cands = c;
        g_ptr_array_add(p->rmbinds, b);
        return;
    }
    g_array_free(c, TRUE);
    if (!at) return;
    struct move mv = *at;
    unbind_move(p, mv.seq);
    tbbt_p2_replace_held(p, &p->ring[mv.seq % p->cap], &mv, r->dir, name, r->name.len);
    p->st.cut_bound++;
}

/* Binds held binding i to candidate k: the held record is whole again,
 * and the model applies it now. */
static void bind_resolve(struct tbbt_pass2 *p, guint i, guint k) {
    struct rmbind *b = g_ptr_array_steal_index(p->rmbinds, i);
    struct move *at = tbbt_p2_move_at(p, g_array_index(b->cands, struct bindcand, k).mvseq);
    struct tbbt_rec *r = &p->ring[b->seq % p->cap];
    if (at && b->whole) { /* the model took the name away already: it had it, then */
        struct move mv = *at;
        unbind_move(p, mv.seq);
        tbbt_p2_replace_held(p, &p->ring[mv.seq % p->cap], &mv, r->dir, tbbt_rec_str(r, r->name),
                             r->name.len);
        p->st.cut_bound++;
        tbbt_fsmodel_apply(p->m, r, TBBT_NFS_OK);
    } else if (at) {
        struct move mv = *at;
        tbbt_p2_bind_now(p, r, &mv);
        r->flags &= (uint16_t)~TBBT_RF_ARGS_CUT;
        p->st.cut_unreplayable--;
        tbbt_fsmodel_apply(p->m, r, TBBT_NFS_OK);
    }
    rmbind_free(b);
}

/* Held binding i after new evidence: bound to the one candidate a record
 * showed losing a name, or, when no other could have made it, to the one
 * no record showed keeping its names; dropped with none left. Returns
 * whether it is gone from p->rmbinds. */
static int bind_settle(struct tbbt_pass2 *p, guint i) {
    struct rmbind *b = p->rmbinds->pdata[i];
    int lost = -1, open = -1, nlost = 0, nopen = 0;
    for (guint k = 0; k < b->cands->len; k++) {
        int says = g_array_index(b->cands, struct bindcand, k).says;
        if (says > 0) lost = (int)k, nlost++;
        if (says >= 0) open = (int)k, nopen++;
    }
    if (nlost == 1 || (nlost == 0 && nopen == 1 && !b->incomplete)) {
        bind_resolve(p, i, (guint)(nlost == 1 ? lost : open));
        return 1;
    }
    if (nopen == 0) {
        rmbind_free(g_ptr_array_steal_index(p->rmbinds, i));
        return 1;
    }
    return 0;
}

/* What record r says of object x for a held binding: 1 it lost a name
 * (its handle is stale, or its link count fell below nlink0), -1 it kept
 * them, 0 nothing. */
static int bind_says(const struct tbbt_rec *r, tbbt_id x, uint32_t nlink0) {
    int on =
        (tbbt_rec_has(r, TBBT_F_OBJ) && r->obj == x) || (tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj == x);
    if (!on) return 0;
    if (r->status == TBBT_NFSERR_STALE && tbbt_rec_has(r, TBBT_F_OBJ) && r->obj == x) return 1;
    if (r->status != TBBT_NFS_OK || !nlink0 || !tbbt_rec_has(r, TBBT_F_NLINK)) return 0;
    return r->nlink < nlink0 ? 1 : -1;
}

/* Does record r use candidate x of a held binding: its object with
 * success, or the name its move has now (a later record took that name:
 * the move made it where it is)? */
static int bind_used(struct tbbt_pass2 *p, const struct tbbt_rec *r, const struct bindcand *x) {
    if (r->status == TBBT_NFS_OK && ((tbbt_rec_has(r, TBBT_F_OBJ) && r->obj == x->obj) ||
                                     (tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj == x->obj)))
        return 1;
    if (!tbbt_rec_has(r, TBBT_F_DIR) || !tbbt_rec_has(r, TBBT_F_NAME)) return 0;
    const struct move *mv =
        tbbt_p2_move_at(p, x->mvseq); /* a walk of the open moves: only for a named record */
    if (!mv) return 0;
    const struct tbbt_rec *h = &p->ring[mv->seq % p->cap];
    tbbt_id dir = mv->link ? h->dir : h->dir2;
    struct tbbt_str t = mv->link ? h->name : h->name2;
    if (!tbbt_rec_has(h, mv->link ? TBBT_F_NAME : TBBT_F_NAME2) || dir != r->dir || t.len != r->name.len)
        return 0;
    return memcmp(tbbt_rec_str(h, t), tbbt_rec_str(r, r->name), t.len) == 0;
}

/* The object whose name successful named record r takes away (a
 * remove's or rmdir's, a rename's target it replaces), as the model holds
 * it before r; 0 when none. */
static tbbt_id name_taken(const struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    tbbt_id x = 0;
    if (r->status != TBBT_NFS_OK) return 0;
    if ((r->op == TBBT_OP_REMOVE || r->op == TBBT_OP_RMDIR) && tbbt_rec_has(r, TBBT_F_NAME) &&
        tbbt_rec_has(r, TBBT_F_DIR))
        tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &x);
    else if (r->op == TBBT_OP_RENAME && tbbt_rec_has(r, TBBT_F_NAME2) && tbbt_rec_has(r, TBBT_F_DIR2))
        tbbt_fsmodel_name(p->m, r->dir2, tbbt_rec_str(r, r->name2), r->name2.len, &x);
    return x;
}

/* Contract in pass2_int.h. A candidate's link count is held to one fewer
 * for each later record that takes one of its object's names away
 * (name_taken): a count that fell by that much says nothing of the held
 * removal (seed 23: a remove of a file's other link read as the binding's). */
void tbbt_p2_bind_evidence(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    tbbt_id taken = p->rmbinds->len ? name_taken(p, r) : 0;
    for (guint i = 0; i < p->rmbinds->len; i++) {
        struct rmbind *b = p->rmbinds->pdata[i];
        if (seq <= b->seq) continue;
        int any = 0;
        for (guint k = 0; k < b->cands->len; k++) {
            struct bindcand *x = &g_array_index(b->cands, struct bindcand, k);
            if (taken && x->obj == taken && x->nlink0) x->nlink0--;
            int says = bind_says(r, x->obj, x->nlink0);
            if (says && !x->says) x->says = says, any = 1;
            if (!x->used) x->used = bind_used(p, r, x);
        }
        if (any && bind_settle(p, i)) i--;
    }
}

/* The move of record seq, a candidate of held binding i, leaves the
 * window: when no record showed a candidate losing a name and this one is
 * the last no record spoke of or used, it is taken -- it agrees with every record
 * the window held, and once it is out it can no longer be placed -- rather
 * than leave the removal unreplayable. Returns whether it bound it. */
static int bind_guess(struct tbbt_pass2 *p, guint i, uint64_t seq) {
    struct rmbind *b = p->rmbinds->pdata[i];
    int best = -1, open = 0;
    for (guint k = 0; k < b->cands->len; k++) {
        const struct bindcand *x = &g_array_index(b->cands, struct bindcand, k);
        if (x->says > 0) return 0;
        if (x->says == 0 && !x->used) open++;
        if (x->says == 0 && !x->used && x->mvseq == seq) best = (int)k;
    }
    if (best < 0 || open != 1) return 0;
    p->st.cut_guessed++;
    bind_resolve(p, i, (guint)best);
    return 1;
}

/* Contract in pass2_int.h. */
void tbbt_p2_bind_window_end(struct tbbt_pass2 *p, uint64_t seq) {
    for (guint i = 0; i < p->rmbinds->len; i++) {
        struct rmbind *b = p->rmbinds->pdata[i];
        if (b->seq == seq) {
            b->incomplete = 1;
            if (!bind_settle(p, i)) rmbind_free(g_ptr_array_steal_index(p->rmbinds, i));
            i--;
            continue;
        }
        int gone = 0;
        if (b->lone && b->cands->len == 1 && g_array_index(b->cands, struct bindcand, 0).mvseq == seq &&
            g_array_index(b->cands, struct bindcand, 0).says == 0) {
            p->st.cut_bound_lone++;
            bind_resolve(p, i--, 0);
            continue;
        }
        if (bind_guess(p, i, seq)) {
            i--;
            continue;
        }
        for (guint k = 0; k < b->cands->len; k++) {
            const struct bindcand *x = &g_array_index(b->cands, struct bindcand, k);
            if (x->mvseq != seq || x->says > 0) continue;
            b->incomplete |= x->says == 0;
            g_array_remove_index(b->cands, k--);
            gone = 1;
        }
        if (gone && bind_settle(p, i)) i--;
    }
}

/* Two names of directory dir that r's cut name likely is, where one is
 * the synthetic name a held rename whose target name was cut gave its
 * object after the other was made: that rename took the other over
 * (tbbt_p2_cut_replaced). Returns whether it did. */
static int likely_replaced(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir, enum cut_want want) {
    const struct tbbt_fsobj *o = tbbt_rec_has(r, TBBT_F_CUTLEN) ? tbbt_fsmodel_obj(p->m, dir) : NULL;
    const struct tbbt_fsdent *two[2] = {NULL, NULL};
    for (const struct tbbt_fsdent *e = o ? o->children : NULL; e; e = e->child_next) {
        if (e->state != TBBT_NAME_PRESENT || tbbt_dot_name(e->name, e->len) || !cut_type_ok(p, e, want) ||
            tbbt_p2_cut_match_dent(p, r, dir, e) != TBBT_CUT_LIKELY)
            continue;
        if (two[1]) return 0;
        two[two[0] ? 1 : 0] = e;
    }
    if (!two[1]) return 0;
    for (int i = 0; i < 2; i++) {
        const struct tbbt_fsdent *a = two[i], *b = two[1 - i];
        if (tbbt_p2_cut_replaced(p, r, dir, b->name, b->len, a->obj, a->name, a->len)) return 1;
    }
    return 0;
}

/* Names successful remove, rmdir or rename r, whose source name the
 * snaplen cut, by the one name of its directory its kept bytes and
 * length likely are (tbbt_p2_cut_likely), else by a cut rename's or link's
 * unknown target (bind_to_move). Returns whether it did. */
static int restore_by_match(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    enum cut_want want = r->op == TBBT_OP_RMDIR ? CUT_DIR : r->op == TBBT_OP_REMOVE ? CUT_FILE : CUT_ANY;
    if (!tbbt_rec_has(r, TBBT_F_DIR)) return 0;
    const struct tbbt_fsdent *d = tbbt_p2_cut_likely(p, r, r->dir, want);
    if (!d && likely_replaced(p, r, r->dir, want)) d = tbbt_p2_cut_likely(p, r, r->dir, want);
    if (!d) return bind_to_move(p, r, seq, want);
    tbbt_p2_put_name(p, r, TBBT_F_NAME, d->name, d->len);
    p->st.cut_matched++;
    return 1;
}

/* Successful rename r whose source name the snaplen cut: its source by
 * the name its kept bytes likely are (restore_by_match); its target, when
 * its directory was kept but not its name, the moved object's synthetic
 * name there. Returns 1 when whole; else a source found stays named and
 * tbbt_p2_hold_move waits for a record that shows where the object went. */
static int restore_rename_by_match(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t miss) {
    if (!restore_by_match(p, r, 0) || (miss & (1ull << TBBT_F_DIR2))) return 0;
    if (!(miss & (1ull << TBBT_F_NAME2))) return 1;
    tbbt_id src = 0;
    tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &src);
    if (!src) return 0;
    tbbt_p2_put_synth(p, r, TBBT_F_NAME2, r->dir2, src, 0);
    tbbt_p2_move_cut_info(p, r->dir, r->name, r, r->dir2, r->name2);
    return 1;
}

/* Contract in pass2_int.h. */
int tbbt_p2_restore_cut(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    p->st.cut++;
    uint64_t miss = tbbt_cut_missing(r), name = 1ull << TBBT_F_NAME, name2 = 1ull << TBBT_F_NAME2;
    int ok = 0;
    uint64_t rebuilt =
        name | name2 | (r->op == TBBT_OP_MKNOD ? 1ull << TBBT_F_NODETYPE : 0); /* from the reply */
    if ((r->flags & TBBT_RF_REPLY_LOST) || r->status < 0) {
        ok = 0;
    } else if (r->status != TBBT_NFS_OK) {
        ok = restore_failed(p, r, miss);
    } else if ((r->op == TBBT_OP_REMOVE || r->op == TBBT_OP_RMDIR) && miss == name) {
        ok = restore_by_match(p, r, seq);
    } else if (r->op == TBBT_OP_RENAME && (miss & name) &&
               !(miss & ~(name | name2 | (1ull << TBBT_F_DIR2)))) {
        ok = restore_rename_by_match(p, r, miss);
    } else if (miss & ~rebuilt) {
        ok = 0;
    } else if (r->op == TBBT_OP_LOOKUP) {
        ok = miss == name && tbbt_p2_restore_lookup(p, r);
    } else if (r->op == TBBT_OP_CREATE || r->op == TBBT_OP_MKDIR || r->op == TBBT_OP_SYMLINK ||
               r->op == TBBT_OP_MKNOD) {
        ok = tbbt_p2_restore_make(p, r, miss);
    } else if (r->op == TBBT_OP_LINK) {
        ok = miss == name && r->obj && tbbt_p2_put_synth(p, r, TBBT_F_NAME, r->dir, r->obj, 0);
        if (ok) tbbt_p2_note_cut_info(p, r, r->dir, r->name);
    } else if (r->op == TBBT_OP_SETATTR) {
        ok = !miss && tbbt_p2_restore_setattr(p, r);
    } else if (r->op == TBBT_OP_RENAME && miss == name2) {
        tbbt_id src = 0;
        tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &src);
        ok = src && tbbt_p2_put_synth(p, r, TBBT_F_NAME2, r->dir2, src, 0);
    }
    if (ok) {
        r->flags &= (uint16_t)~TBBT_RF_ARGS_CUT;
    } else {
        r->flags |= TBBT_RF_ARGS_CUT;
        p->st.cut_unreplayable++;
    }
    return ok;
}

/* Contract in pass2_int.h. */
void tbbt_p2_teach_cut(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->status == TBBT_NFSERR_STALE && tbbt_rec_has(r, TBBT_F_OBJ)) {
        tbbt_fsmodel_apply(p->m, r, TBBT_NFSERR_STALE);
        return;
    }
    if (r->status != TBBT_NFS_OK || (r->flags & TBBT_RF_REPLY_LOST)) return;
    tbbt_id id = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0;
    struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    if (o && r->op == TBBT_OP_SETATTR && !tbbt_rec_has(r, TBBT_F_MODE)) {
        /* it changed what it changed: the next reply tells (not a lost setattr) */
        o->flags &= ~(uint32_t)(TBBT_FSO_RMODE | TBBT_FSO_ATTRS);
        o->flags |= TBBT_FSO_CHANGED;
    }
    if (!id || !tbbt_rec_has(r, TBBT_F_TYPE)) return;
    o = tbbt_fsmodel_obj_get(p->m, id);
    if (tbbt_op_info(r->op)->flags & TBBT_OPF_MODIFIES) o->flags |= TBBT_FSO_CHANGED;
    tbbt_fsmodel_learn_attrs(p->m, id, r);
    if (r->op == TBBT_OP_SETATTR && tbbt_rec_has(r, TBBT_F_MODE)) {
        o->rmode = r->mode & 07777;
        o->flags |= TBBT_FSO_RMODE;
    }
}

/* An entry's object for the listing filter: its handle's, else the live
 * object with its fileid. */
static tbbt_id entry_obj(void *ctx, const struct tbbt_dirent *e) {
    return e->id ? e->id : e->fileid ? tbbt_p2_live_by_fileid(ctx, e->fileid) : 0;
}

/* Contract in pass2_int.h. */
const struct tbbt_rec *tbbt_p2_listing_as_named(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (!p->synth_seen || r->status != TBBT_NFS_OK || !r->nentries) return r;
    return tbbt_cut_listing_as_named(p->m, r, entry_obj, p, &p->filtered);
}
