/* pass2_cut.c -- calls the snaplen cut (cut.h): names the capture kept
 * only in part are matched to names the model knows, and cut renames and
 * links whose target is not known yet are held until a record shows it;
 * synthetically named objects keep their real name (aliases). */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

/* ---- calls the snaplen cut (cut.h) ---- */

/* Contract in pass2_int.h. */
void tbbt_p2_remember_listed(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->op != TBBT_OP_READDIR || r->status != TBBT_NFS_OK) return;
    for (uint32_t i = 0; i < r->nentries; i++) {
        const struct tbbt_dirent *e = &r->entries[i];
        if (e->id || !e->fileid) continue;
        struct tbbt_fsdent *d = tbbt_fsmodel_dent(p->m, r->obj, tbbt_rec_str(r, e->name), e->name.len);
        if (!d || d->state != TBBT_NAME_PRESENT || d->obj) continue;
        struct listed_key *k = g_new(struct listed_key, 1);
        *k = (struct listed_key){r->obj, e->fileid};
        g_hash_table_replace(p->listed_names, k, d);
    }
}

/* Contract in pass2_int.h. */
const struct tbbt_fsdent *tbbt_p2_name_in(const struct tbbt_fsmodel *m, tbbt_id dir, tbbt_id id) {
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(m, id) : NULL;
    for (const struct tbbt_fsdent *d = o ? o->links : NULL; d; d = d->link_next)
        if (d->dir == dir) return d;
    return NULL;
}

/* Contract in pass2_int.h. */
const struct tbbt_fsdent *tbbt_p2_known_name(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                             tbbt_id id) {
    const struct tbbt_fsdent *d = tbbt_p2_name_in(p->m, dir, id);
    if (d || !tbbt_rec_has(r, TBBT_F_FILEID)) return d;
    struct listed_key k = {dir, r->fileid};
    d = g_hash_table_lookup(p->listed_names, &k);
    return d && d->state == TBBT_NAME_PRESENT && !d->obj ? d : NULL;
}

/* Contract in pass2_int.h. */
int tbbt_p2_put_name(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, const char *name,
                     size_t len) {
    tbbt_rec_set_str(r, f, name, len);
    if (tbbt_cut_is_synth(name, len)) {
        r->flags |= TBBT_RF_NAME_SYNTH;
        p->synth_seen = 1;
        p->st.cut_synth++;
    } else {
        p->st.cut_restored++;
    }
    return 1;
}

/* Contract in pass2_int.h. */
int tbbt_p2_put_synth(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, tbbt_id dir, tbbt_id id,
                      int old) {
    char buf[64];
    int len = 0;
    for (unsigned n = 1; n < 1000; n++) {
        len = tbbt_cut_name(buf, sizeof(buf), id, n);
        tbbt_id cur = 0;
        enum tbbt_name_state st = tbbt_fsmodel_name(p->m, dir, buf, (size_t)len, &cur);
        if (st != TBBT_NAME_PRESENT || (old && cur == id)) break;
    }
    return tbbt_p2_put_name(p, r, f, buf, (size_t)len);
}

/* ---- objects whose cut rename is not known yet, and real names of
 * synthetically named objects ---- */

/* Contract in pass2_int.h. */
char *tbbt_p2_alias_key(tbbt_id dir, const char *name, size_t len) {
    return g_strdup_printf("%" PRIu64 "/%.*s", dir, (int)len, name);
}

/* A record with the whole name shows object x as (dir, name) where the
 * model holds x under a synthetic name in dir (the calls that named it
 * before were cut): the replay knows x by that synthetic name, so this
 * record and every later one that names (dir, name) while it holds x
 * name it so (tbbt_p2_rename_to_alias). Returns whether r was renamed. */
static int learn_alias(struct tbbt_pass2 *p, struct tbbt_rec *r, tbbt_id dir, const char *name, size_t len,
                       tbbt_id x) {
    if (!x || tbbt_cut_is_synth(name, len) || tbbt_dot_name(name, len)) return 0;
    tbbt_id cur = 0;
    if (tbbt_fsmodel_name(p->m, dir, name, len, &cur) == TBBT_NAME_PRESENT && cur == x) return 0;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x);
    for (const struct tbbt_fsdent *d = o ? o->links : NULL; d; d = d->link_next) {
        if (d->dir != dir || !tbbt_cut_is_synth(d->name, d->len)) continue;
        g_hash_table_replace(p->aliases, tbbt_p2_alias_key(dir, name, len), g_strndup(d->name, d->len));
        if (r) {
            tbbt_rec_set_str(r, TBBT_F_NAME, d->name, d->len);
            r->flags |= TBBT_RF_NAME_SYNTH;
            p->st.cut_aliased++;
        }
        return 1;
    }
    return 0;
}

/* Gives r's (dir, name) field f the synthetic name the replay knows it by
 * (learn_alias), while the model holds that name. */
static void alias_field(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f) {
    enum tbbt_field df = f == TBBT_F_NAME ? TBBT_F_DIR : TBBT_F_DIR2;
    if (!tbbt_rec_has(r, f) || !tbbt_rec_has(r, df)) return;
    tbbt_id dir = f == TBBT_F_NAME ? r->dir : r->dir2;
    struct tbbt_str s = f == TBBT_F_NAME ? r->name : r->name2;
    char *k = tbbt_p2_alias_key(dir, tbbt_rec_str(r, s), s.len);
    const char *a = g_hash_table_lookup(p->aliases, k);
    if (a && tbbt_fsmodel_name(p->m, dir, a, strlen(a), NULL) == TBBT_NAME_PRESENT) {
        tbbt_rec_set_str(r, f, a, strlen(a));
        r->flags |= TBBT_RF_NAME_SYNTH;
        p->st.cut_aliased++;
    } else if (a) {
        g_hash_table_remove(p->aliases, k); /* the synthetic name is gone: the real one is new */
    }
    g_free(k);
}

/* The one synthetic name of directory dir whose real name's kept bytes
 * and length (cut_infos) likely are (name, len), of an object of the
 * kind r's operation takes (want: the object a lookup's reply shows);
 * NULL when none or several are. */
static const struct tbbt_fsdent *synth_kept_as(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                               const char *name, size_t len, tbbt_id want) {
    const struct tbbt_fsobj *d = tbbt_fsmodel_obj(p->m, dir);
    const struct tbbt_fsdent *one = NULL;
    for (const struct tbbt_fsdent *e = d ? d->children : NULL; e; e = e->child_next) {
        if (e->state != TBBT_NAME_PRESENT || !e->obj || !tbbt_cut_is_synth(e->name, e->len)) continue;
        char *k = tbbt_p2_alias_key(dir, e->name, e->len);
        const struct tbbt_cut_info *i = g_hash_table_lookup(p->cut_infos, k);
        g_free(k);
        if (!i || tbbt_cut_info_match_whole(i, name, len) != TBBT_CUT_LIKELY) continue;
        const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, e->obj);
        int isdir = o && o->attr.type == TBBT_FT_DIR;
        if ((want && e->obj != want) || (r->op == TBBT_OP_REMOVE && isdir) ||
            (r->op == TBBT_OP_RMDIR && !isdir))
            continue;
        if (one) return NULL;
        one = e;
    }
    return one;
}

/* A successful remove, rmdir, rename or lookup r kept its whole name,
 * which the model does not hold in r's directory, while one synthetic
 * name there stands for a name whose kept bytes and length agree with it
 * (a link or make whose name the snaplen cut, synth_kept_as): that call
 * made this name, so r and every later record naming it take the
 * synthetic name, as learn_alias does for a name a lookup's reply
 * showed. Without it the replay, which made only the synthetic name,
 * answers NOENT. Returns whether r was renamed. */
static int alias_by_kept_bytes(struct tbbt_pass2 *p, struct tbbt_rec *r) {
    if (r->status != TBBT_NFS_OK || !tbbt_rec_has(r, TBBT_F_NAME) || !tbbt_rec_has(r, TBBT_F_DIR) ||
        (r->op != TBBT_OP_REMOVE && r->op != TBBT_OP_RMDIR && r->op != TBBT_OP_RENAME &&
         r->op != TBBT_OP_LOOKUP))
        return 0;
    const char *name = tbbt_rec_str(r, r->name);
    if (tbbt_dot_name(name, r->name.len) ||
        tbbt_fsmodel_name(p->m, r->dir, name, r->name.len, NULL) == TBBT_NAME_PRESENT)
        return 0;
    tbbt_id want = r->op == TBBT_OP_LOOKUP && tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0;
    const struct tbbt_fsdent *e = synth_kept_as(p, r, r->dir, name, r->name.len, want);
    if (!e) return 0;
    g_hash_table_replace(p->aliases, tbbt_p2_alias_key(r->dir, name, r->name.len),
                         g_strndup(e->name, e->len));
    tbbt_rec_set_str(r, TBBT_F_NAME, e->name, e->len);
    r->flags |= TBBT_RF_NAME_SYNTH;
    p->st.cut_aliased++;
    return 1;
}

/* Contract in pass2_int.h. */
void tbbt_p2_rename_to_alias(struct tbbt_pass2 *p, struct tbbt_rec *r) {
    if ((r->flags & TBBT_RF_NAME_SYNTH) || !p->synth_seen) return; /* no synthetic name yet: no alias */
    if (r->op == TBBT_OP_LOOKUP && r->status == TBBT_NFS_OK && tbbt_rec_has(r, TBBT_F_NEWOBJ) &&
        tbbt_rec_has(r, TBBT_F_NAME) &&
        learn_alias(p, r, r->dir, tbbt_rec_str(r, r->name), r->name.len, r->newobj))
        return;
    if (g_hash_table_size(p->aliases)) {
        alias_field(p, r, TBBT_F_NAME);
        alias_field(p, r, TBBT_F_NAME2);
    }
    if (!(r->flags & TBBT_RF_NAME_SYNTH)) alias_by_kept_bytes(p, r);
}

/* Moves object x's name (from, fname) to (to, tname) in the model (from
 * 0: adds the name), keeping its link count and life: a name the snaplen
 * hid, placed or placed again, not a remove and a make. */
static void move_obj(struct tbbt_pass2 *p, tbbt_id x, tbbt_id from, const char *fname, size_t flen,
                     tbbt_id to, const char *tname, size_t tlen) {
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x);
    if (!o) return;
    uint32_t nl = o->attr.nlink, type = o->attr.type;
    int gone = (o->flags & TBBT_FSO_GONE) != 0;
    if (from) tbbt_fsmodel_unlink(p->m, from, fname, flen);
    tbbt_fsmodel_link(p->m, to, tname, tlen, x, type);
    o = tbbt_fsmodel_obj(p->m, x);
    if (!gone) o->flags &= ~(uint32_t)TBBT_FSO_GONE;
    if (nl) o->attr.nlink = nl;
}

/* Contract in pass2_int.h. */
void tbbt_p2_place_held(struct tbbt_pass2 *p, struct tbbt_rec *r, struct move *mv) {
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, mv->obj);
    if (!o || (mv->link && !o->links)) return;
    enum tbbt_field df = mv->link ? TBBT_F_DIR : TBBT_F_DIR2, nf = mv->link ? TBBT_F_NAME : TBBT_F_NAME2;
    tbbt_id to = mv->link ? o->links->dir : mv->dir;
    if (mv->link) { /* the call succeeded: somewhere the caller may link */
        tbbt_id w = tbbt_p2_writable_dir(p, r, df, to);
        if (w) to = w;
    }
    tbbt_rec_set_u64(r, df, to);
    tbbt_p2_put_synth(p, r, nf, to, mv->obj, 0);
    struct tbbt_str t = mv->link ? r->name : r->name2;
    if (mv->link)
        move_obj(p, mv->obj, 0, NULL, 0, to, tbbt_rec_str(r, t), t.len);
    else
        move_obj(p, mv->obj, r->dir, tbbt_rec_str(r, r->name), r->name.len, to, tbbt_rec_str(r, t), t.len);
    if (mv->link && tbbt_rec_has(r, TBBT_F_NLINK)) tbbt_fsmodel_obj(p->m, mv->obj)->attr.nlink = r->nlink;
    if (!mv->link) tbbt_p2_move_cut_info(p, r->dir, r->name, r, to, t);
    r->flags &= (uint16_t)~TBBT_RF_ARGS_CUT;
    p->st.cut_unreplayable--;
    p->st.cut_moves_placed++;
    mv->placed = 1;
}

/* Contract in pass2_int.h. */
void tbbt_p2_hold_move(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    if (!tbbt_rec_has(r, TBBT_F_DIR) || !r->dir) return;
    struct move mv = {seq, r->dir, 0, 0, 0};
    if (tbbt_rec_has(r, TBBT_F_NAME) &&
        tbbt_fsmodel_name(p->m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &mv.obj) ==
            TBBT_NAME_PRESENT &&
        mv.obj) {
        tbbt_p2_place_held(p, r, &mv);
    } else if (tbbt_rec_has(r, TBBT_F_NAME)) {
        return; /* the source is not known: nothing to match a later record with */
    }
    g_array_append_val(p->moves, mv);
}

/* Contract in pass2_int.h. */
void tbbt_p2_hold_link(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq) {
    if (!tbbt_rec_has(r, TBBT_F_OBJ) || !r->obj || tbbt_rec_has(r, TBBT_F_DIR)) return;
    struct move mv = {seq, 0, r->obj, 1, 0};
    tbbt_p2_place_held(p, r, &mv);
    if (mv.placed) g_array_append_val(p->moves, mv);
}

/* Contract in pass2_int.h. */
unsigned tbbt_p2_moves_unplaced(const struct tbbt_pass2 *p) {
    unsigned n = 0;
    for (guint i = 0; i < p->moves->len; i++)
        n += !g_array_index(p->moves, struct move, i).placed;
    return n;
}

/* The open cut rename (tbbt_p2_hold_move) that moved object x: the one whose
 * source named x; else, when x has a single name, in directory d, the
 * only one from d whose source name was cut (*name_of gets x's name
 * there). -1 when none, or more than one could have. */
static int move_of(struct tbbt_pass2 *p, tbbt_id x, const struct tbbt_fsdent **name_of) {
    int found = -1;
    *name_of = NULL;
    for (guint i = p->moves->len; i-- > 0;) /* the latest: a sighting shows where x went last */
        if (g_array_index(p->moves, struct move, i).obj == x) return (int)i;
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x);
    if (!o || !o->links || o->links->link_next) return -1;
    for (guint i = 0; i < p->moves->len; i++) {
        const struct move *mv = &g_array_index(p->moves, struct move, i);
        if (mv->obj || mv->link || mv->dir != o->links->dir) continue;
        if (found >= 0) return -1; /* two could have: neither is known */
        found = (int)i;
    }
    *name_of = o->links;
    return found;
}

/* Contract in pass2_int.h. */
int tbbt_p2_replace_held(struct tbbt_pass2 *p, struct tbbt_rec *r, const struct move *mv, tbbt_id dir,
                         const char *name, size_t len) {
    enum tbbt_field df = mv->link ? TBBT_F_DIR : TBBT_F_DIR2, nf = mv->link ? TBBT_F_NAME : TBBT_F_NAME2;
    struct tbbt_str old = mv->link ? r->name : r->name2;
    tbbt_id from = mv->link ? r->dir : r->dir2;
    char *oname = g_strndup(tbbt_rec_str(r, old), old.len);
    tbbt_rec_set_u64(r, df, dir);
    if (name)
        tbbt_p2_put_name(p, r, nf, name, len);
    else
        tbbt_p2_put_synth(p, r, nf, dir, mv->obj, 0);
    struct tbbt_str t = mv->link ? r->name : r->name2;
    move_obj(p, mv->obj, from, oname, strlen(oname), dir, tbbt_rec_str(r, t), t.len);
    char *k = tbbt_p2_alias_key(from, oname, strlen(oname));
    struct tbbt_cut_info *ci = g_hash_table_lookup(p->cut_infos, k);
    if (ci) {
        ci->dir = dir;
        g_hash_table_insert(p->cut_infos, tbbt_p2_alias_key(dir, tbbt_rec_str(r, t), t.len),
                            g_memdup2(ci, sizeof(*ci)));
        g_hash_table_remove(p->cut_infos, k);
    }
    g_free(k);
    g_free(oname);
    p->st.cut_moves_placed--; /* counted as placed by a guess; now shown */
    return 1;
}

/* Does held record h name (dir, name) in its field nf (TBBT_F_NAME with
 * TBBT_F_DIR, or TBBT_F_NAME2 with TBBT_F_DIR2)? */
static int names(const struct tbbt_rec *h, enum tbbt_field nf, tbbt_id dir, const char *name, size_t len) {
    int two = nf == TBBT_F_NAME2;
    struct tbbt_str n = two ? h->name2 : h->name;
    return tbbt_rec_has(h, two ? TBBT_F_DIR2 : TBBT_F_DIR) && tbbt_rec_has(h, nf) &&
           (two ? h->dir2 : h->dir) == dir && n.len == len && memcmp(tbbt_rec_str(h, n), name, len) == 0;
}

/* The newest held successful rename, other than now, whose target is
 * (dir, name); its sequence number in *seq. */
static struct tbbt_rec *rename_to(struct tbbt_pass2 *p, const struct tbbt_rec *now, tbbt_id dir,
                                  const char *name, size_t len, uint64_t *seq) {
    for (uint64_t s = p->next_seq; s-- > p->head_seq;) {
        struct tbbt_rec *h = &p->ring[s % p->cap];
        if (h != now && h->op == TBBT_OP_RENAME && h->status == TBBT_NFS_OK &&
            names(h, TBBT_F_NAME2, dir, name, len)) {
            *seq = s;
            return h;
        }
    }
    return NULL;
}

/* Does held record h show object x (its handle or the new object)? */
static int shows(const struct tbbt_rec *h, tbbt_id x) {
    return (tbbt_rec_has(h, TBBT_F_OBJ) && h->obj == x) || (tbbt_rec_has(h, TBBT_F_NEWOBJ) && h->newobj == x);
}

/* Did a held record after seq, other than now, use object x with
 * success, keeping the links it had before seq (it still had its name
 * then)? A reply showing fewer links than the last one before seq shows
 * x lost a name there: a use by handle then proves nothing of it. */
static int used_since(struct tbbt_pass2 *p, const struct tbbt_rec *now, uint64_t seq, tbbt_id x) {
    uint32_t before = 0;
    for (uint64_t s = seq; s-- > p->head_seq && !before;) {
        const struct tbbt_rec *h = &p->ring[s % p->cap];
        if (h->status == TBBT_NFS_OK && shows(h, x) && tbbt_rec_has(h, TBBT_F_NLINK)) before = h->nlink;
    }
    for (uint64_t s = seq + 1; s < p->next_seq; s++) {
        const struct tbbt_rec *h = &p->ring[s % p->cap];
        if (h == now || h->status != TBBT_NFS_OK || !shows(h, x)) continue;
        if (before > 1 && tbbt_rec_has(h, TBBT_F_NLINK) && h->nlink < before) return 0;
        return 1;
    }
    return 0;
}

/* Contract in pass2_int.h. */
int tbbt_p2_cut_replaced(struct tbbt_pass2 *p, const struct tbbt_rec *now, tbbt_id dir, const char *oname,
                         size_t olen, tbbt_id x, const char *sname, size_t slen) {
    uint64_t seq = 0;
    tbbt_id old = 0;
    if (!tbbt_cut_is_synth(sname, slen) ||
        tbbt_fsmodel_name(p->m, dir, oname, olen, &old) != TBBT_NAME_PRESENT || !old || old == x)
        return 0;
    struct tbbt_rec *mv = rename_to(p, now, dir, sname, slen, &seq);
    if (!mv || used_since(p, now, seq, old)) return 0;
    char *on = g_strndup(oname, olen), *sn = g_strndup(sname, slen); /* the model's names change below */
    for (uint64_t s = seq + 1; s < p->next_seq; s++) {
        struct tbbt_rec *h = &p->ring[s % p->cap];
        if (names(h, TBBT_F_NAME, dir, sn, slen)) tbbt_p2_put_name(p, h, TBBT_F_NAME, on, olen);
        if (names(h, TBBT_F_NAME2, dir, sn, slen)) tbbt_p2_put_name(p, h, TBBT_F_NAME2, on, olen);
    }
    tbbt_p2_put_name(p, mv, TBBT_F_NAME2, on, olen);
    tbbt_fsmodel_unlink(p->m, dir, on, olen);
    struct tbbt_fsobj *oo = tbbt_fsmodel_obj(p->m, old);
    if (oo && (oo->flags & TBBT_FSO_GONE)) tbbt_pass2_obj(oo)->removed_by = seq;
    move_obj(p, x, dir, sn, slen, dir, on, olen);
    char *k = tbbt_p2_alias_key(dir, sn, slen);
    g_hash_table_remove(p->cut_infos, k);
    g_free(k);
    g_free(on);
    g_free(sn);
    p->st.cut_replaced++;
    return 1;
}

/* Contract in pass2_int.h. */
int tbbt_p2_resolve_move(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len, tbbt_id x) {
    const struct tbbt_fsdent *src = NULL;
    int i = x && p->moves->len ? move_of(p, x, &src) : -1;
    if (i < 0 || (name && tbbt_dot_name(name, len))) return 0;
    struct move mv = g_array_index(p->moves, struct move, i);
    tbbt_id cur = 0;
    if (mv.seq < p->head_seq || (src && src->dir == dir)) return 0;
    /* a name the model holds for x, or for an object no record showed, came by other records */
    if (name && tbbt_fsmodel_name(p->m, dir, name, len, &cur) == TBBT_NAME_PRESENT && (!cur || cur == x))
        return 0;
    g_array_remove_index(p->moves, (guint)i);
    struct tbbt_rec *r = &p->ring[mv.seq % p->cap];
    if (mv.placed) return tbbt_p2_replace_held(p, r, &mv, dir, name, len);
    if (src) tbbt_p2_put_name(p, r, TBBT_F_NAME, src->name, src->len);
    tbbt_rec_set_u64(r, TBBT_F_DIR2, dir);
    if (name)
        tbbt_rec_set_str(r, TBBT_F_NAME2, name, len);
    else
        tbbt_p2_put_synth(p, r, TBBT_F_NAME2, dir, x, 0);
    r->flags &= (uint16_t)~TBBT_RF_ARGS_CUT;
    p->st.cut_unreplayable--;
    p->st.cut_restored += !src && name; /* else tbbt_p2_put_name or tbbt_p2_put_synth counted it */
    if (src) {
        tbbt_fsmodel_apply(p->m, r, TBBT_NFS_OK); /* the source still names x in the model */
        return 1;
    }
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, x);
    uint32_t nl = o->attr.nlink, type = o->attr.type;
    tbbt_fsmodel_link(p->m, dir, tbbt_rec_str(r, r->name2), r->name2.len, x, type);
    if (nl) tbbt_fsmodel_obj(p->m, x)->attr.nlink = nl;
    return 1;
}

/* Contract in pass2_int.h. */
void tbbt_p2_sightings(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (!p->moves->len || r->status != TBBT_NFS_OK || (r->flags & TBBT_RF_NAME_SYNTH)) return;
    if (r->op == TBBT_OP_LOOKUP && tbbt_rec_has(r, TBBT_F_NEWOBJ) && tbbt_rec_has(r, TBBT_F_NAME))
        tbbt_p2_resolve_move(p, r->dir, tbbt_rec_str(r, r->name), r->name.len, r->newobj);
    for (uint32_t i = 0; r->op == TBBT_OP_READDIRPLUS && i < r->nentries; i++)
        tbbt_p2_resolve_move(p, r->obj, tbbt_rec_str(r, r->entries[i].name), r->entries[i].name.len,
                             r->entries[i].id);
}

/* May the caller of held rename h, whose target the snaplen cut whole,
 * have renamed into directory d: the model's modes do not deny it? */
static int may_rename_into(struct tbbt_pass2 *p, const struct tbbt_rec *h, tbbt_id d) {
    struct tbbt_rec t;
    tbbt_rec_init(&t);
    tbbt_rec_copy(&t, h);
    tbbt_rec_set_u64(&t, TBBT_F_DIR2, d);
    int ok = tbbt_fsmodel_predict_dir_access(p->m, &t) != TBBT_NFSERR_ACCES;
    tbbt_rec_free(&t);
    return ok;
}

/* Could held record h, seq s, have taken x's name in directory d away:
 * a successful rename whose target the snaplen cut -- placed by a guess,
 * of a non-directory other than x (*mv gets its move), into d under a
 * synthetic name, or whose target is not known at all (its caller
 * allowed to write d) -- or a successful remove there whose name the
 * snaplen cut (whatever name it was bound to)? */
static int could_take_over(struct tbbt_pass2 *p, const struct tbbt_rec *h, uint64_t s, tbbt_id x, tbbt_id d,
                           struct move **mv) {
    *mv = NULL;
    if (h->status != TBBT_NFS_OK) return 0;
    if (h->op == TBBT_OP_REMOVE) /* a cut name there may have been x's: it competes (and is not moved) */
        return (!tbbt_rec_has(h, TBBT_F_DIR) || h->dir == d) &&
               (tbbt_rec_has(h, TBBT_F_CUTLEN) || (h->flags & TBBT_RF_ARGS_CUT));
    if (h->op != TBBT_OP_RENAME) return 0;
    if (!tbbt_rec_has(h, TBBT_F_DIR2)) return may_rename_into(p, h, d);
    if (!tbbt_rec_has(h, TBBT_F_NAME2) || !tbbt_cut_is_synth(tbbt_rec_str(h, h->name2), h->name2.len))
        return 0;
    tbbt_id m = 0;
    tbbt_fsmodel_name(p->m, h->dir2, tbbt_rec_str(h, h->name2), h->name2.len, &m);
    const struct tbbt_fsobj *mo = m ? tbbt_fsmodel_obj(p->m, m) : NULL;
    if (!mo || m == x || mo->attr.type == TBBT_FT_DIR || mo->nchildren) return 0;
    struct move *v = tbbt_p2_move_at(p, s);
    if (v && v->placed && !v->link && v->obj == m) {
        *mv = v;
        return 1;
    }
    return h->dir2 == d;
}

/* Does a held record after seq name (dir, name)? A placed rename moved
 * elsewhere would leave it naming what is not there. */
static int named_since(struct tbbt_pass2 *p, uint64_t seq, tbbt_id dir, const char *name, size_t len) {
    for (uint64_t s = seq + 1; s < p->next_seq; s++) {
        const struct tbbt_rec *h = &p->ring[s % p->cap];
        if (names(h, TBBT_F_NAME, dir, name, len) || names(h, TBBT_F_NAME2, dir, name, len)) return 1;
    }
    return 0;
}

/* Contract in pass2_int.h. */
int tbbt_p2_moved_over(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    const struct tbbt_fsobj *o = tbbt_rec_has(r, TBBT_F_OBJ) ? tbbt_fsmodel_obj(p->m, r->obj) : NULL;
    if (!o || (o->flags & TBBT_FSO_GONE) || !o->links || o->links->link_next || o->attr.type == TBBT_FT_DIR ||
        o->nchildren)
        return 0;
    tbbt_id d = o->links->dir;
    uint64_t from = tbbt_pass2_obj(o)->last_seq + 1, found = 0;
    struct move *mv = NULL, *fmv = NULL;
    for (uint64_t s = from > p->head_seq ? from : p->head_seq; s < p->next_seq; s++) {
        const struct tbbt_rec *h = &p->ring[s % p->cap];
        if (h == r || !could_take_over(p, h, s, r->obj, d, &mv)) continue;
        if (found) return 0; /* two could have: neither is known */
        found = s;
        fmv = mv;
    }
    if (!found) return 0;
    struct tbbt_rec *h = &p->ring[found % p->cap];
    if (h->op != TBBT_OP_RENAME || !tbbt_rec_has(h, TBBT_F_DIR2))
        return 0; /* the one that could have is a remove, or a rename whose target is not known */
    if (fmv && named_since(p, found, h->dir2, tbbt_rec_str(h, h->name2), h->name2.len)) return 0;
    tbbt_id x = r->obj;
    char *on = g_strndup(o->links->name, o->links->len);
    size_t olen = o->links->len;
    int done;
    if (fmv) {
        struct move m = *fmv;
        g_array_remove_index(p->moves, (guint)(fmv - &g_array_index(p->moves, struct move, 0)));
        done = tbbt_p2_replace_held(p, h, &m, d, on, olen);
    } else {
        tbbt_id m = 0;
        tbbt_fsmodel_name(p->m, h->dir2, tbbt_rec_str(h, h->name2), h->name2.len, &m);
        char *sn = g_strndup(tbbt_rec_str(h, h->name2), h->name2.len);
        done = tbbt_p2_cut_replaced(p, r, d, on, olen, m, sn, h->name2.len);
        g_free(sn);
    }
    g_free(on);
    struct tbbt_fsobj *xo = tbbt_fsmodel_obj(p->m, x);
    if (done && xo && (xo->flags & TBBT_FSO_GONE)) tbbt_pass2_obj(xo)->removed_by = found;
    p->st.cut_replaced += fmv && done; /* tbbt_p2_cut_replaced counts its own */
    return done;
}
