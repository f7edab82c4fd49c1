/* restore.c -- a call the snaplen cut, completed from its reply (see
 * restore.h for what and why). */
#include "restore.h"

#include <string.h>

/* What the call still lacks that its reply cannot give: its directory or
 * name (pass 2's to restore), or a device's numbers. */
static int beyond_reply(const struct tbbt_rec *r) {
    if (!tbbt_rec_has(r, TBBT_F_DIR) || !tbbt_rec_has(r, TBBT_F_NAME)) return 1;
    if (r->op == TBBT_OP_MKNOD && (r->type == TBBT_FT_CHR || r->type == TBBT_FT_BLK) &&
        !tbbt_rec_has(r, TBBT_F_RDEV))
        return 1;
    return 0;
}

int tbbt_restore_from_reply(struct tbbt_rec *r) {
    if (!(r->flags & TBBT_RF_ARGS_CUT) || r->status != 0) return 0;
    if (r->op != TBBT_OP_CREATE && r->op != TBBT_OP_MKDIR && r->op != TBBT_OP_MKNOD &&
        r->op != TBBT_OP_SYMLINK)
        return 0;
    if (!tbbt_rec_has(r, TBBT_F_TYPE) || !tbbt_rec_has(r, TBBT_F_MODE) || beyond_reply(r)) return 0;
    if (!tbbt_rec_has(r, TBBT_F_SET_MODE)) tbbt_rec_set_u64(r, TBBT_F_SET_MODE, r->mode & 07777);
    if (r->op == TBBT_OP_MKNOD && !tbbt_rec_has(r, TBBT_F_NODETYPE))
        tbbt_rec_set_u64(r, TBBT_F_NODETYPE, r->type);
    if (r->op == TBBT_OP_SYMLINK && !tbbt_rec_has(r, TBBT_F_TARGET))
        tbbt_rec_set_str(r, TBBT_F_TARGET, TBBT_RESTORE_TARGET, strlen(TBBT_RESTORE_TARGET));
    r->flags = (uint16_t)((r->flags & ~TBBT_RF_ARGS_CUT) | TBBT_RF_RESTORED);
    return 1;
}
