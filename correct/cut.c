/* cut.c -- records whose call the snaplen cut (see cut.h). */
#include "cut.h"

#include <glib.h>
#include <inttypes.h>
#include <string.h>

#define B(f) (1ull << (f))

/* The fields, beside its handles and names, that op's request is rebuilt
 * from in version vers (the ones the decoder reads before the data or the
 * attributes to set). */
static uint64_t needed_extra(unsigned op, unsigned vers) {
    switch (op) {
    case TBBT_OP_READ:
    case TBBT_OP_COMMIT: return B(TBBT_F_OFFSET) | B(TBBT_F_COUNT);
    case TBBT_OP_WRITE: return B(TBBT_F_OFFSET) | B(TBBT_F_COUNT) | (vers == 3 ? B(TBBT_F_STABLE) : 0);
    case TBBT_OP_ACCESS: return B(TBBT_F_ACCESS);
    case TBBT_OP_READDIR: return B(TBBT_F_COOKIE) | (vers == 3 ? B(TBBT_F_MAXCOUNT) : B(TBBT_F_COUNT));
    case TBBT_OP_READDIRPLUS: return B(TBBT_F_COOKIE) | B(TBBT_F_DIRCOUNT) | B(TBBT_F_MAXCOUNT);
    case TBBT_OP_MKNOD: return B(TBBT_F_NODETYPE);
    default: return 0;
    }
}

/* Contract in cut.h. */
uint64_t tbbt_cut_missing(const struct tbbt_rec *r) {
    if (r->op >= TBBT_OP_COUNT) return 0;
    unsigned f = tbbt_op_info(r->op)->flags;
    uint64_t need = needed_extra(r->op, r->vers);
    if (f & TBBT_OPF_OBJ) need |= B(TBBT_F_OBJ);
    if (f & TBBT_OPF_DIRNAME) need |= B(TBBT_F_DIR) | B(TBBT_F_NAME);
    if (f & TBBT_OPF_DIRNAME2) need |= B(TBBT_F_DIR2) | B(TBBT_F_NAME2);
    return need & ~r->has;
}

/* Does op's call end with attributes to set (or, for a v3 symlink, a
 * target after them), so that a call cut anywhere in it may have lost
 * some of them? */
static int ends_with_sattr(unsigned op) {
    return op == TBBT_OP_SETATTR || op == TBBT_OP_CREATE || op == TBBT_OP_MKDIR || op == TBBT_OP_SYMLINK ||
           op == TBBT_OP_MKNOD;
}

/* Contract in cut.h. */
int tbbt_cut_args(const struct tbbt_rec *r) {
    if (r->flags & TBBT_RF_ARGS_CUT) return 1;
    if (!(r->flags & TBBT_RF_CALL_TRUNC)) return 0;
    return tbbt_cut_missing(r) != 0 || ends_with_sattr(r->op);
}

/* Contract in cut.h. */
int tbbt_cut_name(char *buf, size_t len, tbbt_id id, unsigned n) {
    if (n > 1) return g_snprintf(buf, len, TBBT_CUT_PREFIX "%" PRIu64 ".%u", id, n);
    return g_snprintf(buf, len, TBBT_CUT_PREFIX "%" PRIu64, id);
}

/* Contract in cut.h. */
int tbbt_cut_info_of(struct tbbt_cut_info *info, const struct tbbt_rec *r, tbbt_id dir) {
    if (!tbbt_rec_has(r, TBBT_F_CUTLEN)) return 0;
    size_t n = tbbt_rec_has(r, TBBT_F_CUTNAME) ? r->cutname.len : 0;
    if (n > TBBT_CUT_PFX) n = TBBT_CUT_PFX;
    info->dir = dir;
    info->len = r->cutlen;
    info->npfx = (uint32_t)n;
    if (n) memcpy(info->pfx, tbbt_rec_str(r, r->cutname), n);
    return 1;
}

/* Compares r's cut name with a name of length len whose first n bytes
 * are pfx. */
static enum tbbt_cut_match match(const struct tbbt_rec *r, const char *pfx, size_t n, size_t len) {
    if (!tbbt_rec_has(r, TBBT_F_CUTLEN) || (len != TBBT_CUT_LEN_UNKNOWN && r->cutlen != len))
        return TBBT_CUT_NO;
    size_t k = tbbt_rec_has(r, TBBT_F_CUTNAME) ? r->cutname.len : 0;
    if (k > n) k = n;
    if (k && memcmp(tbbt_rec_str(r, r->cutname), pfx, k) != 0) return TBBT_CUT_NO;
    return k >= TBBT_CUT_SURE_PFX ? TBBT_CUT_LIKELY : TBBT_CUT_MAYBE;
}

/* Contract in cut.h. */
enum tbbt_cut_match tbbt_cut_match_name(const struct tbbt_rec *r, const char *name, size_t len) {
    return match(r, name, len, len);
}

/* Contract in cut.h. */
enum tbbt_cut_match tbbt_cut_match_info(const struct tbbt_rec *r, const struct tbbt_cut_info *info) {
    return match(r, info->pfx, info->npfx, info->len);
}

/* Contract in cut.h. */
enum tbbt_cut_match tbbt_cut_info_match_whole(const struct tbbt_cut_info *info, const char *name,
                                              size_t len) {
    if (info->len == TBBT_CUT_LEN_UNKNOWN || info->len != len || info->npfx > len) return TBBT_CUT_NO;
    if (info->npfx && memcmp(info->pfx, name, info->npfx) != 0) return TBBT_CUT_NO;
    return info->npfx >= TBBT_CUT_SURE_PFX ? TBBT_CUT_LIKELY : TBBT_CUT_MAYBE;
}
