/* record.c -- the record's field table and its in-memory helpers. */
#include "record.h"

#include <glib.h>
#include <string.h>

#define FLD(F, KEY, T, MEMBER) [F] = {F, KEY, T, offsetof(struct tbbt_rec, MEMBER)}

/* The one declaration of every optional field: its key in the text form
 * and JSON, its type, and where it lives. */
const struct tbbt_field_info tbbt_fields[TBBT_F_COUNT_] = {
    FLD(TBBT_F_OBJ, "obj", TBBT_FT_ID, obj),
    FLD(TBBT_F_DIR, "dir", TBBT_FT_ID, dir),
    FLD(TBBT_F_NAME, "name", TBBT_FT_STR, name),
    FLD(TBBT_F_DIR2, "dir2", TBBT_FT_ID, dir2),
    FLD(TBBT_F_NAME2, "name2", TBBT_FT_STR, name2),
    FLD(TBBT_F_OFFSET, "offset", TBBT_FT_U64, offset),
    FLD(TBBT_F_COUNT, "count", TBBT_FT_U32, count),
    FLD(TBBT_F_STABLE, "stable", TBBT_FT_U32, stable),
    FLD(TBBT_F_CREATEHOW, "createhow", TBBT_FT_U32, createhow),
    FLD(TBBT_F_VERF, "verf", TBBT_FT_U64, verf),
    FLD(TBBT_F_COOKIE, "cookie", TBBT_FT_U64, cookie),
    FLD(TBBT_F_COOKIEVERF, "cookieverf", TBBT_FT_U64, cookieverf),
    FLD(TBBT_F_DIRCOUNT, "dircount", TBBT_FT_U32, dircount),
    FLD(TBBT_F_MAXCOUNT, "maxcount", TBBT_FT_U32, maxcount),
    FLD(TBBT_F_ACCESS, "access", TBBT_FT_U32, access),
    FLD(TBBT_F_SET_MODE, "set_mode", TBBT_FT_U32, set_mode),
    FLD(TBBT_F_SET_UID, "set_uid", TBBT_FT_U32, set_uid),
    FLD(TBBT_F_SET_GID, "set_gid", TBBT_FT_U32, set_gid),
    FLD(TBBT_F_SET_SIZE, "set_size", TBBT_FT_U64, set_size),
    FLD(TBBT_F_SET_ATIME, "set_atime", TBBT_FT_TIME, set_atime),
    FLD(TBBT_F_SET_MTIME, "set_mtime", TBBT_FT_TIME, set_mtime),
    FLD(TBBT_F_GUARD, "guard", TBBT_FT_TIME, guard),
    FLD(TBBT_F_TARGET, "target", TBBT_FT_STR, target),
    FLD(TBBT_F_NODETYPE, "nodetype", TBBT_FT_U32, nodetype),
    FLD(TBBT_F_RDEV, "rdev", TBBT_FT_U64, rdev),
    FLD(TBBT_F_NEWOBJ, "newobj", TBBT_FT_ID, newobj),
    FLD(TBBT_F_RCOUNT, "rcount", TBBT_FT_U32, rcount),
    FLD(TBBT_F_EOF, "eof", TBBT_FT_U32, eof),
    FLD(TBBT_F_COMMITTED, "committed", TBBT_FT_U32, committed),
    FLD(TBBT_F_WVERF, "wverf", TBBT_FT_U64, wverf),
    FLD(TBBT_F_RACCESS, "raccess", TBBT_FT_U32, raccess),
    FLD(TBBT_F_RCOOKIEVERF, "rcookieverf", TBBT_FT_U64, rcookieverf),
    FLD(TBBT_F_TYPE, "type", TBBT_FT_U32, type),
    FLD(TBBT_F_MODE, "mode", TBBT_FT_U32, mode),
    FLD(TBBT_F_NLINK, "nlink", TBBT_FT_U32, nlink),
    FLD(TBBT_F_UID, "uid", TBBT_FT_U32, uid),
    FLD(TBBT_F_GID, "gid", TBBT_FT_U32, gid),
    FLD(TBBT_F_SIZE, "size", TBBT_FT_U64, size),
    FLD(TBBT_F_USED, "used", TBBT_FT_U64, used),
    FLD(TBBT_F_FSID, "fsid", TBBT_FT_U64, fsid),
    FLD(TBBT_F_FILEID, "fileid", TBBT_FT_U64, fileid),
    FLD(TBBT_F_ATIME, "atime", TBBT_FT_TIME, atime),
    FLD(TBBT_F_MTIME, "mtime", TBBT_FT_TIME, mtime),
    FLD(TBBT_F_CTIME, "ctime", TBBT_FT_TIME, ctime),
    FLD(TBBT_F_PRE_SIZE, "pre_size", TBBT_FT_U64, pre_size),
    FLD(TBBT_F_PRE_MTIME, "pre_mtime", TBBT_FT_TIME, pre_mtime),
    FLD(TBBT_F_PRE_CTIME, "pre_ctime", TBBT_FT_TIME, pre_ctime),
    FLD(TBBT_F_DIR_FILEID, "dir_fileid", TBBT_FT_U64, dir_fileid),
    FLD(TBBT_F_DIR_SIZE, "dir_size", TBBT_FT_U64, dir_size),
    FLD(TBBT_F_DIR_MTIME, "dir_mtime", TBBT_FT_TIME, dir_mtime),
    FLD(TBBT_F_DIR_NLINK, "dir_nlink", TBBT_FT_U32, dir_nlink),
    FLD(TBBT_F_DIR2_FILEID, "dir2_fileid", TBBT_FT_U64, dir2_fileid),
    FLD(TBBT_F_DIR2_MTIME, "dir2_mtime", TBBT_FT_TIME, dir2_mtime),
    FLD(TBBT_F_VICTIM, "victim", TBBT_FT_ID, victim),
    FLD(TBBT_F_VICTIM2, "victim2", TBBT_FT_ID, victim2),
    FLD(TBBT_F_ENTRIES, "entries", TBBT_FT_ENTRIES, entries),
    FLD(TBBT_F_CUTNAME, "cutname", TBBT_FT_STR, cutname),
    FLD(TBBT_F_CUTLEN, "cutlen", TBBT_FT_U32, cutlen),
};

_Static_assert(TBBT_F_COUNT_ <= 64, "field mask is one uint64_t");

void tbbt_rec_init(struct tbbt_rec *r) {
    memset(r, 0, sizeof(*r));
    r->status = -1;
}

void tbbt_rec_clear(struct tbbt_rec *r) {
    struct tbbt_dirent *e = r->entries;
    uint32_t ecap = r->entries_cap;
    char *a = r->arena;
    uint32_t acap = r->arena_cap;
    memset(r, 0, sizeof(*r));
    r->status = -1;
    r->entries = e;
    r->entries_cap = ecap;
    r->arena = a;
    r->arena_cap = acap;
}

void tbbt_rec_free(struct tbbt_rec *r) {
    g_free(r->entries);
    g_free(r->arena);
    tbbt_rec_init(r);
}

void tbbt_rec_copy(struct tbbt_rec *dst, const struct tbbt_rec *src) {
    struct tbbt_dirent *e = dst->entries;
    uint32_t ecap = dst->entries_cap;
    char *a = dst->arena;
    uint32_t acap = dst->arena_cap;
    *dst = *src;
    if (ecap < src->nentries) {
        ecap = src->nentries;
        e = g_renew(struct tbbt_dirent, e, ecap);
    }
    if (acap < src->arena_len) {
        acap = src->arena_len;
        a = g_realloc(a, acap);
    }
    if (src->nentries) memcpy(e, src->entries, src->nentries * sizeof(*e));
    if (src->arena_len) memcpy(a, src->arena, src->arena_len);
    dst->entries = e;
    dst->entries_cap = ecap;
    dst->arena = a;
    dst->arena_cap = acap;
}

void tbbt_rec_set_u64(struct tbbt_rec *r, enum tbbt_field f, uint64_t v) {
    const struct tbbt_field_info *fi = &tbbt_fields[f];
    char *p = (char *)r + fi->offset;
    switch (fi->type) {
    case TBBT_FT_U32: *(uint32_t *)p = (uint32_t)v; break;
    case TBBT_FT_ID:
    case TBBT_FT_U64: *(uint64_t *)p = v; break;
    case TBBT_FT_TIME: *(int64_t *)p = (int64_t)v; break;
    default: g_assert_not_reached();
    }
    r->has |= 1ull << f;
}

uint64_t tbbt_rec_get_u64(const struct tbbt_rec *r, enum tbbt_field f) {
    const struct tbbt_field_info *fi = &tbbt_fields[f];
    const char *p = (const char *)r + fi->offset;
    switch (fi->type) {
    case TBBT_FT_U32: return *(const uint32_t *)p;
    case TBBT_FT_ID:
    case TBBT_FT_U64: return *(const uint64_t *)p;
    case TBBT_FT_TIME: return (uint64_t) * (const int64_t *)p;
    default: g_assert_not_reached();
    }
    return 0;
}

/* Copies bytes into the arena, growing it geometrically. */
static struct tbbt_str arena_put(struct tbbt_rec *r, const char *s, size_t len) {
    struct tbbt_str out;
    if (r->arena_len + len > r->arena_cap) {
        size_t cap = r->arena_cap ? r->arena_cap : 256;
        while (cap < r->arena_len + len)
            cap *= 2;
        r->arena = g_realloc(r->arena, cap);
        r->arena_cap = (uint32_t)cap;
    }
    if (len) memcpy(r->arena + r->arena_len, s, len);
    out.off = r->arena_len;
    out.len = (uint32_t)len;
    r->arena_len += (uint32_t)len;
    return out;
}

void tbbt_rec_set_str(struct tbbt_rec *r, enum tbbt_field f, const char *s, size_t len) {
    const struct tbbt_field_info *fi = &tbbt_fields[f];
    g_assert(fi->type == TBBT_FT_STR);
    *(struct tbbt_str *)((char *)r + fi->offset) = arena_put(r, s, len);
    r->has |= 1ull << f;
}

struct tbbt_dirent *tbbt_rec_add_entry(struct tbbt_rec *r, const char *name, size_t len) {
    if (r->nentries == r->entries_cap) {
        r->entries_cap = r->entries_cap ? r->entries_cap * 2 : 16;
        r->entries = g_renew(struct tbbt_dirent, r->entries, r->entries_cap);
    }
    struct tbbt_dirent *e = &r->entries[r->nentries++];
    memset(e, 0, sizeof(*e));
    e->name = arena_put(r, name, len);
    r->has |= 1ull << TBBT_F_ENTRIES;
    return e;
}
