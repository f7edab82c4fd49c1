/* pass2_learn.c -- fileid and owner learning: replies teach the fileid of
 * an object (so a plain readdir's entry can be matched) and the owner a
 * corrective record had to guess. Small, but a concept of its own that
 * several fixes read. */
#include "pass2_int.h"

#include <inttypes.h>
#include <string.h>

#include "cut.h"
#include "pass2_obj.h"
#include "rectext.h"

/* Contract in pass2_int.h. */
void tbbt_p2_mend_owner(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id id) {
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(p->m, id);
    if (!o || !(tbbt_pass2_obj(o)->flags & TBBT_PASS2_OWNER_GUESSED)) return;
    tbbt_pass2_obj(o)->flags &= ~(uint32_t)TBBT_PASS2_OWNER_GUESSED;
    for (guint i = 0; i < p->pending->len; i++) {
        struct tbbt_rec *x = &((struct ins *)p->pending->pdata[i])->r;
        if (x->op == TBBT_OP_LINK || !tbbt_rec_has(x, TBBT_F_NEWOBJ) || x->newobj != id) continue;
        tbbt_rec_set_u64(x, TBBT_F_SET_UID, r->uid);
        tbbt_rec_set_u64(x, TBBT_F_SET_GID, r->gid);
        /* the mode too: with no reply that showed the owner, none showed
         * the mode the make took (make_name's usual one) */
        if (x->op != TBBT_OP_SYMLINK && tbbt_rec_has(r, TBBT_F_MODE)) {
            tbbt_rec_set_u64(x, TBBT_F_SET_MODE, r->mode & 07777);
            o->rmode = r->mode & 07777;
            o->flags |= TBBT_FSO_RMODE;
        }
    }
}

/* Maps the fileid of o that r's reply shows to o, unless an earlier reply
 * showed it; an object that had that fileid before is o's predecessor
 * (p->reused: the server reused the inode). */
static void learn_fileid(struct tbbt_pass2 *p, struct tbbt_fsobj *o, int shown, uint64_t fileid) {
    if (!o || !shown || (tbbt_pass2_obj(o)->flags & TBBT_PASS2_FILEID)) return;
    tbbt_pass2_obj(o)->flags |= TBBT_PASS2_FILEID;
    tbbt_id had = tbbt_u64map_get(&p->by_fileid, fileid);
    if (had && had != o->id)
        g_hash_table_replace(p->reused, GSIZE_TO_POINTER((gsize)o->id), GSIZE_TO_POINTER((gsize)had));
    tbbt_u64map_put(&p->by_fileid, fileid, o->id);
}

/* Contract in pass2_int.h. */
void tbbt_p2_learn_fileids(struct tbbt_pass2 *p, const struct tbbt_rec *r, struct tbbt_fsobj *const o[4]) {
    learn_fileid(p, o[1], tbbt_rec_has(r, TBBT_F_DIR_FILEID), r->dir_fileid);
    learn_fileid(p, o[2], tbbt_rec_has(r, TBBT_F_DIR2_FILEID), r->dir2_fileid);
    learn_fileid(p, tbbt_rec_has(r, TBBT_F_NEWOBJ) ? o[3] : o[0], tbbt_rec_has(r, TBBT_F_FILEID), r->fileid);
}

/* Contract in pass2_int.h. */
void tbbt_p2_learn_owner(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (!p->st.inserted || !tbbt_rec_has(r, TBBT_F_UID) || !tbbt_rec_has(r, TBBT_F_GID) ||
        (r->flags & TBBT_RF_INSERTED))
        return;
    tbbt_id id = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : tbbt_rec_has(r, TBBT_F_OBJ) ? r->obj : 0;
    if (id) tbbt_p2_mend_owner(p, r, id);
}
