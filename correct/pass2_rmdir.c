/* pass2_rmdir.c -- a successful rmdir tells the type of the name it
 * removed. A plain READDIR shows names without types, so a name it listed
 * that a lost mkdir made is inserted as a create (rule
 * readdir-lists-absent) unless the directory's link count tells; the
 * replay's rmdir of that file is then refused NOTDIR where the capture's
 * succeeded. Kept apart from the makes a reply binds (pass2_lost.c): the
 * evidence here is the removal, which shows no object. */
#include "pass2_int.h"

#include <string.h>

/* Contract in pass2_int.h. The latest such make of the name: an earlier
 * one was removed by a record between them. */
void tbbt_p2_rmdir_made(struct tbbt_pass2 *p, const struct tbbt_rec *r) {
    if (r->op != TBBT_OP_RMDIR || r->status != TBBT_NFS_OK || !tbbt_rec_has(r, TBBT_F_DIR) ||
        !tbbt_rec_has(r, TBBT_F_NAME))
        return;
    const char *name = tbbt_rec_str(r, r->name);
    for (guint i = p->pending->len; i-- > 0;) {
        struct tbbt_rec *x = &((struct ins *)p->pending->pdata[i])->r;
        if (!tbbt_p2_unbound_make(x) || x->dir != r->dir || x->name.len != r->name.len ||
            memcmp(tbbt_rec_str(x, x->name), name, r->name.len) != 0)
            continue;
        tbbt_p2_retype_make(x, TBBT_FT_DIR);
        return;
    }
}
