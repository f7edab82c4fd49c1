/* pass2_listed.c -- the fixes listings and stale handles hand off:
 * TBBT_FIX_MAKE_LISTED and TBBT_FIX_MOVE_LISTED (names a readdir shows that
 * the model has absent, or holding another object, matched to objects by
 * their fileid) and the made-and-removed object only a stale handle shows
 * (stale_unknown, TBBT_FIX_MAKE_GONE). Kept apart because they rest on
 * fileid learning (pass2_learn.c), not on the names the model knows. */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

/* Contract in pass2_int.h. */
tbbt_id tbbt_p2_live_by_fileid(struct tbbt_pass2 *p, uint64_t fileid) {
    tbbt_id id = tbbt_u64map_get(&p->by_fileid, fileid);
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    return o && !(o->flags & TBBT_FSO_GONE) ? id : 0;
}

/* The object a plain readdir's entry shows by its fileid alone: the live
 * object a reply showed with it, unless the listing's link count tells
 * the entry's type (by_nlink, listed_type_by_nlink) and that object is of
 * the other kind: a directory's fileid listed where only files can be is
 * a new file in the inode of a directory whose removal the capture lost. */
static tbbt_id listed_by_fileid(struct tbbt_pass2 *p, uint64_t fileid, uint32_t by_nlink) {
    tbbt_id id = tbbt_p2_live_by_fileid(p, fileid);
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
    if (o && by_nlink && o->attr.type && (o->attr.type == TBBT_FT_DIR) != (by_nlink == TBBT_FT_DIR)) return 0;
    return id;
}

/* The caller of the lookup tbbt_p2_make_listed builds: the owner of the listed
 * directory, when the model knows it. The owner of a made object no reply
 * shows is guessed from the caller (make_name), and the one who lists a
 * directory is often not the one who fills it; its owner more likely is. */
static void lister_as_owner(struct tbbt_pass2 *p, struct tbbt_rec *x, tbbt_id dir) {
    const struct tbbt_fsobj *d = tbbt_fsmodel_obj(p->m, dir);
    if (!d || !(d->flags & TBBT_FSO_ATTRS) || x->cred.flavor != TBBT_AUTH_SYS) return;
    x->cred.uid = d->attr.uid;
    x->cred.gid = d->attr.gid;
    x->cred.ngids = 0;
}

/* The type of the untyped names a whole plain readdir listing shows that
 * the model never met, when the directory's link count tells: it has
 * nlink - 2 subdirectories (on servers that count them), so if the names
 * the model knows account for all of them, the others are files; if for
 * all but as many as there are unmet names, those are directories. 0 when
 * it cannot tell (a partial listing, a name of unknown type, a count that
 * does not fit). */
static uint32_t listed_type_by_nlink(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->op != TBBT_OP_READDIR || !tbbt_rec_has(r, TBBT_F_NLINK) || r->nlink < 2 ||
        !tbbt_rec_has(r, TBBT_F_EOF) || !r->eof || !tbbt_rec_has(r, TBBT_F_COOKIE) || r->cookie)
        return 0;
    uint32_t dirs = 0, unmet = 0;
    for (uint32_t i = 0; i < r->nentries; i++) {
        const struct tbbt_dirent *e = &r->entries[i];
        const char *en = tbbt_rec_str(r, e->name);
        if (tbbt_dot_name(en, e->name.len)) continue;
        if (tbbt_fsmodel_entry_unmet(p->m, r, e)) {
            unmet++;
            continue;
        }
        tbbt_id id = 0;
        tbbt_fsmodel_name(p->m, r->obj, en, e->name.len, &id);
        const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
        if (!o || !o->attr.type) return 0;
        dirs += o->attr.type == TBBT_FT_DIR;
    }
    uint32_t left = r->nlink - 2;
    if (left == dirs) return TBBT_FT_REG;
    return unmet && left == dirs + unmet ? TBBT_FT_DIR : 0;
}

/* Contract in pass2_int.h. */
int tbbt_p2_make_listed(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    int n = 0;
    uint32_t by_nlink = listed_type_by_nlink(p, r);
    for (uint32_t i = 0; i < r->nentries; i++) {
        const struct tbbt_dirent *e = &r->entries[i];
        if (!tbbt_fsmodel_entry_unmet(p->m, r, e)) continue;
        struct tbbt_rec *x = tbbt_p2_lookup_like(p, r);
        lister_as_owner(p, x, r->obj);
        x->call_time = r->call_time, x->reply_time = r->reply_time;
        tbbt_rec_set_u64(x, TBBT_F_DIR, r->obj);
        tbbt_rec_set_str(x, TBBT_F_NAME, tbbt_rec_str(r, e->name), e->name.len);
        tbbt_id id = e->id;
        if (!id && e->fileid) id = listed_by_fileid(p, e->fileid, by_nlink);
        if (id) tbbt_rec_set_u64(x, TBBT_F_NEWOBJ, id);
        const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(p->m, id) : NULL;
        uint32_t type = e->type             ? e->type
                        : o && o->attr.type ? o->attr.type
                        : o && o->nchildren ? TBBT_FT_DIR /* it holds names */
                        : by_nlink          ? by_nlink
                                            : TBBT_FT_REG;
        tbbt_rec_set_u64(x, TBBT_F_TYPE, type);
        int k = tbbt_p2_fix_place(p, TBBT_FIX_MAKE_BY_REPLY, x, seq);
        if (k > 0) n += k;
    }
    return n ? n : -1;
}

/* Does listing r show the name (name, len)? */
static int listing_shows(const struct tbbt_rec *r, const char *name, size_t len) {
    for (uint32_t i = 0; i < r->nentries; i++)
        if (r->entries[i].name.len == len && !memcmp(tbbt_rec_str(r, r->entries[i].name), name, len))
            return 1;
    return 0;
}

/* Contract in pass2_int.h. */
int tbbt_p2_move_listed(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    int n = 0;
    for (uint32_t i = 0; i < r->nentries; i++) {
        const struct tbbt_dirent *e = &r->entries[i];
        if (!tbbt_listing_entry_other(p->m, r, e)) continue;
        struct tbbt_rec *x = tbbt_p2_lookup_like(p, r);
        x->call_time = r->call_time, x->reply_time = r->reply_time;
        tbbt_rec_set_u64(x, TBBT_F_DIR, r->obj);
        tbbt_rec_set_str(x, TBBT_F_NAME, tbbt_rec_str(r, e->name), e->name.len);
        tbbt_rec_set_u64(x, TBBT_F_NEWOBJ, e->id);
        const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, e->id);
        tbbt_rec_set_u64(x, TBBT_F_TYPE, e->type ? e->type : o && o->attr.type ? o->attr.type : TBBT_FT_REG);
        const struct tbbt_fsdent *other = o ? o->links : NULL;
        int linked = other && other->dir == r->obj && listing_shows(r, other->name, other->len);
        int k = tbbt_p2_fix_place(p, linked ? TBBT_FIX_REPLACE : TBBT_FIX_MOVE_BY_REPLY, x, seq);
        if (k > 0) n += k;
    }
    return n ? n : -1;
}

/* Contract in pass2_int.h. */
int tbbt_p2_nameless_unknown(const struct tbbt_fsmodel *m, tbbt_id id) {
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(m, id);
    return !o || (!o->links && !o->nchildren &&
                  !(o->flags & (TBBT_FSO_CREATED | TBBT_FSO_ATTRS | TBBT_FSO_RMODE | TBBT_FSO_GONE)));
}

/* The first held record before seq that used object id, when every held
 * one that did is a lost reply (they saw it gone too); else seq. */
static uint64_t first_lost_use(const struct tbbt_pass2 *p, tbbt_id id, uint64_t seq) {
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, id);
    if (!o || tbbt_pass2_obj(o)->first_seq < p->head_seq || tbbt_pass2_obj(o)->first_seq >= seq) return seq;
    for (uint64_t s = tbbt_pass2_obj(o)->first_seq; s < seq; s++) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (tbbt_rec_has(q, TBBT_F_OBJ) && q->obj == id && !(q->flags & TBBT_RF_REPLY_LOST)) return seq;
    }
    return tbbt_pass2_obj(o)->first_seq;
}

/* Contract in pass2_int.h. */
void tbbt_p2_stale_unknown(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq) {
    int row = tbbt_rule_find(r->op, TBBT_OC_ANY, TBBT_OC_STALE);
    if (row < 0 || !tbbt_rec_has(r, TBBT_F_OBJ) || !r->obj || !tbbt_p2_nameless_unknown(p->m, r->obj)) return;
    tbbt_id dir = 0;
    uint64_t at = first_lost_use(p, r->obj, seq);
    for (uint64_t s = at; !dir && s-- > p->head_seq;) {
        const struct tbbt_rec *q = &p->ring[s % p->cap];
        if (tbbt_rec_has(q, TBBT_F_DIR)) dir = tbbt_p2_keep_dir(p->m, q->dir);
    }
    p->st.failures++;
    p->st.rule_failures[row]++;
    struct tbbt_rec *x = &p->look;
    tbbt_rec_copy(x, r);
    x->flags &= ~(uint32_t)TBBT_RF_REPLY_LOST;
    x->status = TBBT_NFS_OK;
    x->call_time = p->ring[at % p->cap].call_time;
    if (dir) tbbt_rec_set_u64(x, TBBT_F_DIR, dir);
    struct tbbt_fsobj *o = dir ? tbbt_fsmodel_obj(p->m, r->obj) : NULL;
    if (o) o->flags &= ~(uint32_t)(TBBT_FSO_INITIAL | TBBT_FSO_INIT_ATTRS); /* made by the trace */
    int k = dir ? tbbt_p2_fix_place(p, TBBT_FIX_MAKE_GONE, x, at) : -1;
    if (k <= 0) {
        tbbt_p2_list_failure(p, r, TBBT_OC_ANY, TBBT_OC_STALE, tbbt_rules[row].name);
        return;
    }
    for (uint64_t s = at; s < seq; s++) {
        struct tbbt_rec *q = &p->ring[s % p->cap];
        if (!tbbt_rec_has(q, TBBT_F_OBJ) || q->obj != r->obj || q->status >= 0) continue;
        q->status = TBBT_NFSERR_STALE;
        p->st.lost_unresolved -= p->st.lost_unresolved > 0;
        p->st.lost_by_model++;
    }
    p->st.corrected++;
    p->st.rule_inserted[row] += (unsigned)k;
    p->st.inserted += (unsigned)k;
}
