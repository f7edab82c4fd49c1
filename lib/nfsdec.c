/* nfsdec.c -- ONC RPC headers (RFC 5531) and NFSv2 (RFC 1094), NFSv3
 * (RFC 1813) and MOUNT messages decoded into records.
 *
 * Straight-line XDR reads through the bounds-checked cursor: every helper
 * returns 0, or -1 once the message is cut short (cursor trunc) or
 * malformed (d->bad); fields are stored as soon as they are complete, so a
 * truncated message keeps every field before the cut. Fields are assigned
 * directly (SETF) rather than through the record's field table: this is
 * the hot path of tbbt-prep. FSSTAT/FSINFO/PATHCONF/STATFS results are
 * decoded up to their post-op attributes (v3) or status (v2) only. */
#include "nfsdec.h"

#include <glib.h>
#include <string.h>

#include "cursor.h"
#include "nfs_ops.h"
#include "nfsstat.h"

#define NAME_MAX_LEN 4096       /* longest name or path accepted (v3 strings are unbounded) */
#define AUTH_MAX_LEN 400        /* RFC 5531: opaque_auth body<400> */
#define DATA_MAX_LEN (1u << 26) /* longest READ/WRITE payload accepted */
#define NFS2_DATA_MAX 8192
#define NFS2_FH_LEN 32
#define NFS2_NAME_MAX 255
#define NFS2_PATH_MAX 1024
#define MNT_FLAVORS_MAX 64

/* Decoder state for one message. */
struct dec {
    struct tbbt_cursor c;
    struct tbbt_rec *r;
    struct tbbt_fhrefs *fh;
    int bad;
    int tail; /* what follows is nothing the replay needs (a WRITE's data): a cut there loses nothing */
};

/* Where a fattr3/fattr goes in the record. */
enum sink { TO_OBJ, TO_DIR, TO_DIR2, TO_NONE };

#define SETF(r, F, member, v)                                                                                \
    do {                                                                                                     \
        (r)->member = (v);                                                                                   \
        (r)->has |= 1ull << (F);                                                                             \
    } while (0)
#define TRY(x)                                                                                               \
    do {                                                                                                     \
        if ((x) < 0) return -1;                                                                              \
    } while (0)

/* ------------------------------------------------------------------ */
/* handle lists                                                        */
/* ------------------------------------------------------------------ */

void tbbt_fhrefs_clear(struct tbbt_fhrefs *l) {
    l->n = 0;
}

void tbbt_fhrefs_free(struct tbbt_fhrefs *l) {
    g_free(l->v);
    l->v = NULL;
    l->n = l->cap = 0;
}

/* Appends a copy of handle p[0..len) (len <= TBBT_FH_MAX) for field f. */
static void fh_add(struct tbbt_fhrefs *l, enum tbbt_field f, int32_t entry, const uint8_t *p, uint32_t len) {
    if (!l) return;
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 8;
        l->v = g_renew(struct tbbt_fhref, l->v, l->cap);
    }
    struct tbbt_fhref *h = &l->v[l->n++];
    h->field = f;
    h->entry = entry;
    h->len = (uint16_t)len;
    memcpy(h->data, p, len);
}

/* ------------------------------------------------------------------ */
/* XDR primitives                                                      */
/* ------------------------------------------------------------------ */

static inline void dec_init(struct dec *d, struct tbbt_rec *r, const uint8_t *p, size_t n,
                            struct tbbt_fhrefs *fh) {
    tbbt_cur_init(&d->c, p, n);
    d->r = r;
    d->fh = fh;
    d->bad = 0;
    d->tail = 0;
}

/* The decode result once the decoder stopped or finished. */
static inline int dec_result(const struct dec *d) {
    if (d->bad) return TBBT_DEC_BAD;
    return d->c.trunc ? TBBT_DEC_TRUNC : TBBT_DEC_OK;
}

static inline int bad(struct dec *d) {
    d->bad = 1;
    return -1;
}

static inline int u32(struct dec *d, uint32_t *v) {
    *v = tbbt_cur_u32(&d->c);
    return d->c.trunc ? -1 : 0;
}

static inline int u64(struct dec *d, uint64_t *v) {
    *v = tbbt_cur_u64(&d->c);
    return d->c.trunc ? -1 : 0;
}

static inline int skip(struct dec *d, size_t n) {
    tbbt_cur_skip(&d->c, n);
    return d->c.trunc ? -1 : 0;
}

/* XDR bool: anything but 0 or 1 means we are not reading XDR. */
static inline int xbool(struct dec *d, uint32_t *v) {
    TRY(u32(d, v));
    return *v > 1 ? bad(d) : 0;
}

/* nfstime3 in nanoseconds. */
static inline int time3(struct dec *d, int64_t *t) {
    uint32_t s, ns;
    TRY(u32(d, &s));
    TRY(u32(d, &ns));
    *t = (int64_t)s * 1000000000 + ns;
    return 0;
}

/* v2 nfstime (seconds, microseconds) in nanoseconds. */
static inline int time2(struct dec *d, int64_t *t) {
    uint32_t s, us;
    TRY(u32(d, &s));
    TRY(u32(d, &us));
    *t = (int64_t)s * 1000000000 + (int64_t)us * 1000;
    return 0;
}

/* An XDR opaque or string of at most max bytes; returns its bytes. */
static inline const uint8_t *opaque(struct dec *d, uint32_t max, uint32_t *len) {
    return tbbt_cur_xdr_opaque(&d->c, max, len, &d->bad);
}

/* A variable-length payload (READ/WRITE data) skipped without copying. */
static int data(struct dec *d, uint32_t max, uint32_t *len) {
    d->tail = 1;
    TRY(u32(d, len));
    if (*len > max) return bad(d);
    return skip(d, ((size_t)*len + 3) & ~(size_t)3);
}

/* A name argument the snaplen cut inside its bytes (its length, at
 * offset at, was captured): the bytes kept and the length announced go to
 * TBBT_F_CUTNAME and TBBT_F_CUTLEN, never to TBBT_F_NAME -- a prefix read
 * as the name would be another name. Pass 2 matches names by them. */
static void cut_name(struct dec *d, size_t at, uint32_t max) {
    const struct tbbt_cursor *c = &d->c;
    if (at > c->len || c->len - at < 4) return; /* the length itself was cut */
    const uint8_t *q = c->p + at;
    uint32_t len = (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
    if (len > max) return;
    size_t kept = c->len - at - 4;
    if (kept >= len) return; /* whole: the cut came later */
    tbbt_rec_set_str(d->r, TBBT_F_CUTNAME, (const char *)q + 4, kept);
    SETF(d->r, TBBT_F_CUTLEN, cutlen, len);
}

/* A string stored as field f. */
static int str(struct dec *d, enum tbbt_field f, uint32_t max) {
    uint32_t len;
    size_t at = d->c.pos;
    const uint8_t *p = opaque(d, max, &len);
    if (!p && d->c.trunc && f == TBBT_F_NAME) cut_name(d, at, max);
    if (!p) return -1;
    tbbt_rec_set_str(d->r, f, (const char *)p, len);
    return 0;
}

/* nfs_fh3: opaque<64>, collected for field f. */
static int fh3(struct dec *d, enum tbbt_field f, int32_t entry) {
    uint32_t len;
    const uint8_t *p = opaque(d, TBBT_FH_MAX, &len);
    if (!p) return -1;
    fh_add(d->fh, f, entry, p, len);
    return 0;
}

/* v2 fhandle: 32 opaque bytes, collected for field f. */
static int fh2(struct dec *d, enum tbbt_field f) {
    const uint8_t *p = tbbt_cur_take(&d->c, NFS2_FH_LEN);
    if (!p) return -1;
    fh_add(d->fh, f, -1, p, NFS2_FH_LEN);
    return 0;
}

/* ------------------------------------------------------------------ */
/* NFSv3 attributes                                                    */
/* ------------------------------------------------------------------ */

/* fattr3 of the principal object into TBBT_F_TYPE..TBBT_F_CTIME. */
static int fattr3_obj(struct dec *d) {
    struct tbbt_rec *r = d->r;
    uint32_t v;
    uint64_t w;
    int64_t t;
    TRY(u32(d, &v));
    if (v < 1 || v > 7) return bad(d);
    SETF(r, TBBT_F_TYPE, type, v);
    TRY(u32(d, &v));
    SETF(r, TBBT_F_MODE, mode, v);
    TRY(u32(d, &v));
    SETF(r, TBBT_F_NLINK, nlink, v);
    TRY(u32(d, &v));
    SETF(r, TBBT_F_UID, uid, v);
    TRY(u32(d, &v));
    SETF(r, TBBT_F_GID, gid, v);
    TRY(u64(d, &w));
    SETF(r, TBBT_F_SIZE, size, w);
    TRY(u64(d, &w));
    SETF(r, TBBT_F_USED, used, w);
    TRY(skip(d, 8)); /* rdev */
    TRY(u64(d, &w));
    SETF(r, TBBT_F_FSID, fsid, w);
    TRY(u64(d, &w));
    SETF(r, TBBT_F_FILEID, fileid, w);
    TRY(time3(d, &t));
    SETF(r, TBBT_F_ATIME, atime, t);
    TRY(time3(d, &t));
    SETF(r, TBBT_F_MTIME, mtime, t);
    TRY(time3(d, &t));
    SETF(r, TBBT_F_CTIME, ctime, t);
    return 0;
}

/* fattr3 of a directory into TBBT_F_DIR_* (or the DIR2_* subset). */
static int fattr3_dir(struct dec *d, enum sink s) {
    struct tbbt_rec *r = d->r;
    uint32_t v, nlink;
    uint64_t size, fileid;
    int64_t t;
    TRY(u32(d, &v));
    if (v < 1 || v > 7) return bad(d);
    TRY(skip(d, 4)); /* mode */
    TRY(u32(d, &nlink));
    if (s == TO_DIR) SETF(r, TBBT_F_DIR_NLINK, dir_nlink, nlink);
    TRY(skip(d, 8)); /* uid, gid */
    TRY(u64(d, &size));
    if (s == TO_DIR) SETF(r, TBBT_F_DIR_SIZE, dir_size, size);
    TRY(skip(d, 24)); /* used, rdev, fsid */
    TRY(u64(d, &fileid));
    if (s == TO_DIR) SETF(r, TBBT_F_DIR_FILEID, dir_fileid, fileid);
    if (s == TO_DIR2) SETF(r, TBBT_F_DIR2_FILEID, dir2_fileid, fileid);
    TRY(skip(d, 8)); /* atime */
    TRY(time3(d, &t));
    if (s == TO_DIR) SETF(r, TBBT_F_DIR_MTIME, dir_mtime, t);
    if (s == TO_DIR2) SETF(r, TBBT_F_DIR2_MTIME, dir2_mtime, t);
    return skip(d, 8); /* ctime */
}

/* post_op_attr into sink s. */
static int post_op_attr(struct dec *d, enum sink s) {
    uint32_t follows;
    TRY(xbool(d, &follows));
    if (!follows) return 0;
    if (s == TO_OBJ) return fattr3_obj(d);
    if (s == TO_NONE) return skip(d, 84);
    return fattr3_dir(d, s);
}

/* pre_op_attr: into TBBT_F_PRE_* when the object is the principal one. */
static int pre_op_attr(struct dec *d, enum sink s) {
    uint32_t follows;
    uint64_t size;
    int64_t t;
    TRY(xbool(d, &follows));
    if (!follows) return 0;
    if (s != TO_OBJ) return skip(d, 24);
    TRY(u64(d, &size));
    SETF(d->r, TBBT_F_PRE_SIZE, pre_size, size);
    TRY(time3(d, &t));
    SETF(d->r, TBBT_F_PRE_MTIME, pre_mtime, t);
    TRY(time3(d, &t));
    SETF(d->r, TBBT_F_PRE_CTIME, pre_ctime, t);
    return 0;
}

static int wcc_data(struct dec *d, enum sink s) {
    TRY(pre_op_attr(d, s));
    return post_op_attr(d, s);
}

/* post_op_fh3, collected for field f. */
static int post_op_fh3(struct dec *d, enum tbbt_field f, int32_t entry) {
    uint32_t follows;
    TRY(xbool(d, &follows));
    return follows ? fh3(d, f, entry) : 0;
}

/* sattr3 into TBBT_F_SET_*. */
static int sattr3(struct dec *d) {
    struct tbbt_rec *r = d->r;
    uint32_t set, v;
    uint64_t w;
    int64_t t;
    TRY(xbool(d, &set));
    if (set) {
        TRY(u32(d, &v));
        SETF(r, TBBT_F_SET_MODE, set_mode, v);
    }
    TRY(xbool(d, &set));
    if (set) {
        TRY(u32(d, &v));
        SETF(r, TBBT_F_SET_UID, set_uid, v);
    }
    TRY(xbool(d, &set));
    if (set) {
        TRY(u32(d, &v));
        SETF(r, TBBT_F_SET_GID, set_gid, v);
    }
    TRY(xbool(d, &set));
    if (set) {
        TRY(u64(d, &w));
        SETF(r, TBBT_F_SET_SIZE, set_size, w);
    }
    for (int i = 0; i < 2; i++) { /* atime, mtime: time_how */
        TRY(u32(d, &set));
        if (set > 2) return bad(d);
        if (set == 0) continue;
        t = TBBT_TIME_SERVER;
        if (set == 2) TRY(time3(d, &t));
        if (i == 0)
            SETF(r, TBBT_F_SET_ATIME, set_atime, t);
        else
            SETF(r, TBBT_F_SET_MTIME, set_mtime, t);
    }
    return 0;
}

static int diropargs3(struct dec *d, enum tbbt_field dirf, enum tbbt_field namef) {
    TRY(fh3(d, dirf, -1));
    return str(d, namef, NAME_MAX_LEN);
}

/* ------------------------------------------------------------------ */
/* NFSv3 calls                                                         */
/* ------------------------------------------------------------------ */

/* READ, WRITE, COMMIT: file, offset, count (and WRITE's stable, data). */
static int call3_io(struct dec *d, int write) {
    struct tbbt_rec *r = d->r;
    uint64_t off;
    uint32_t v;
    TRY(fh3(d, TBBT_F_OBJ, -1));
    TRY(u64(d, &off));
    SETF(r, TBBT_F_OFFSET, offset, off);
    TRY(u32(d, &v));
    SETF(r, TBBT_F_COUNT, count, v);
    if (!write) return 0;
    TRY(u32(d, &v));
    if (v > 2) return bad(d);
    SETF(r, TBBT_F_STABLE, stable, v);
    return data(d, DATA_MAX_LEN, &v);
}

static int call3_setattr(struct dec *d) {
    uint32_t check;
    int64_t t;
    TRY(fh3(d, TBBT_F_OBJ, -1));
    TRY(sattr3(d));
    TRY(xbool(d, &check));
    if (!check) return 0;
    TRY(time3(d, &t));
    SETF(d->r, TBBT_F_GUARD, guard, t);
    return 0;
}

static int call3_create(struct dec *d) {
    uint32_t how;
    uint64_t verf;
    TRY(diropargs3(d, TBBT_F_DIR, TBBT_F_NAME));
    TRY(u32(d, &how));
    if (how > 2) return bad(d);
    SETF(d->r, TBBT_F_CREATEHOW, createhow, how);
    if (how != 2) return sattr3(d);
    TRY(u64(d, &verf));
    SETF(d->r, TBBT_F_VERF, verf, verf);
    return 0;
}

static int call3_mknod(struct dec *d) {
    uint32_t type, major, minor;
    TRY(diropargs3(d, TBBT_F_DIR, TBBT_F_NAME));
    TRY(u32(d, &type));
    if (type < 1 || type > 7) return bad(d);
    SETF(d->r, TBBT_F_NODETYPE, nodetype, type);
    if (type == TBBT_FT_BLK || type == TBBT_FT_CHR) {
        TRY(sattr3(d));
        TRY(u32(d, &major));
        TRY(u32(d, &minor));
        SETF(d->r, TBBT_F_RDEV, rdev, (uint64_t)major << 32 | minor);
        return 0;
    }
    if (type == TBBT_FT_SOCK || type == TBBT_FT_FIFO) return sattr3(d);
    return 0;
}

/* READDIR and READDIRPLUS arguments. */
static int call3_readdir(struct dec *d, int plus) {
    struct tbbt_rec *r = d->r;
    uint64_t w;
    uint32_t v;
    TRY(fh3(d, TBBT_F_OBJ, -1));
    TRY(u64(d, &w));
    SETF(r, TBBT_F_COOKIE, cookie, w);
    TRY(u64(d, &w));
    SETF(r, TBBT_F_COOKIEVERF, cookieverf, w);
    if (plus) {
        TRY(u32(d, &v));
        SETF(r, TBBT_F_DIRCOUNT, dircount, v);
    }
    TRY(u32(d, &v));
    SETF(r, TBBT_F_MAXCOUNT, maxcount, v);
    return 0;
}

static int call3(struct dec *d) {
    uint32_t v;
    switch (d->r->op) {
    case TBBT_OP_NULL: return 0;
    case TBBT_OP_GETATTR:
    case TBBT_OP_READLINK:
    case TBBT_OP_FSSTAT:
    case TBBT_OP_FSINFO:
    case TBBT_OP_PATHCONF: return fh3(d, TBBT_F_OBJ, -1);
    case TBBT_OP_SETATTR: return call3_setattr(d);
    case TBBT_OP_LOOKUP:
    case TBBT_OP_REMOVE:
    case TBBT_OP_RMDIR: return diropargs3(d, TBBT_F_DIR, TBBT_F_NAME);
    case TBBT_OP_ACCESS:
        TRY(fh3(d, TBBT_F_OBJ, -1));
        TRY(u32(d, &v));
        SETF(d->r, TBBT_F_ACCESS, access, v);
        return 0;
    case TBBT_OP_READ:
    case TBBT_OP_COMMIT: return call3_io(d, 0);
    case TBBT_OP_WRITE: return call3_io(d, 1);
    case TBBT_OP_CREATE: return call3_create(d);
    case TBBT_OP_MKDIR: TRY(diropargs3(d, TBBT_F_DIR, TBBT_F_NAME)); return sattr3(d);
    case TBBT_OP_SYMLINK:
        TRY(diropargs3(d, TBBT_F_DIR, TBBT_F_NAME));
        TRY(sattr3(d));
        return str(d, TBBT_F_TARGET, NAME_MAX_LEN);
    case TBBT_OP_MKNOD: return call3_mknod(d);
    case TBBT_OP_RENAME:
        TRY(diropargs3(d, TBBT_F_DIR, TBBT_F_NAME));
        return diropargs3(d, TBBT_F_DIR2, TBBT_F_NAME2);
    case TBBT_OP_LINK: TRY(fh3(d, TBBT_F_OBJ, -1)); return diropargs3(d, TBBT_F_DIR, TBBT_F_NAME);
    case TBBT_OP_READDIR: return call3_readdir(d, 0);
    case TBBT_OP_READDIRPLUS: return call3_readdir(d, 1);
    default: return bad(d); /* not a v3 procedure */
    }
}

/* ------------------------------------------------------------------ */
/* NFSv3 replies                                                       */
/* ------------------------------------------------------------------ */

/* The attributes of a READDIRPLUS entry: type and size only. */
static int entry_attrs(struct dec *d, uint32_t idx) {
    uint32_t follows, type;
    uint64_t size;
    TRY(xbool(d, &follows));
    if (!follows) return 0;
    TRY(u32(d, &type));
    if (type < 1 || type > 7) return bad(d);
    TRY(skip(d, 16)); /* mode, nlink, uid, gid */
    TRY(u64(d, &size));
    d->r->entries[idx].type = (uint8_t)type;
    d->r->entries[idx].size = size;
    return skip(d, 56); /* used, rdev, fsid, fileid, atime, mtime, ctime */
}

/* dirlist3 / dirlistplus3: entries, then eof. An entry is added once its
 * fileid, name and cookie are complete. */
static int dirlist3(struct dec *d, int plus) {
    struct tbbt_rec *r = d->r;
    uint32_t more, len;
    uint64_t fileid, cookie;
    for (;;) {
        TRY(xbool(d, &more));
        if (!more) break;
        TRY(u64(d, &fileid));
        const uint8_t *name = opaque(d, NAME_MAX_LEN, &len);
        if (!name) return -1;
        TRY(u64(d, &cookie));
        struct tbbt_dirent *e = tbbt_rec_add_entry(r, (const char *)name, len);
        e->fileid = fileid;
        e->cookie = cookie;
        if (!plus) continue;
        uint32_t idx = r->nentries - 1;
        TRY(entry_attrs(d, idx));
        TRY(post_op_fh3(d, TBBT_F_ENTRIES, (int32_t)idx));
    }
    TRY(xbool(d, &more));
    SETF(r, TBBT_F_EOF, eof, more);
    SETF(r, TBBT_F_RCOUNT, rcount, r->nentries);
    return 0;
}

/* CREATE, MKDIR, SYMLINK, MKNOD results. */
static int reply3_newobj(struct dec *d, int ok) {
    if (ok) {
        TRY(post_op_fh3(d, TBBT_F_NEWOBJ, -1));
        TRY(post_op_attr(d, TO_OBJ));
    }
    return wcc_data(d, TO_DIR);
}

static int reply3_read(struct dec *d, int ok) {
    uint32_t v;
    TRY(post_op_attr(d, TO_OBJ));
    if (!ok) return 0;
    TRY(u32(d, &v));
    SETF(d->r, TBBT_F_RCOUNT, rcount, v);
    TRY(xbool(d, &v));
    SETF(d->r, TBBT_F_EOF, eof, v);
    return data(d, DATA_MAX_LEN, &v);
}

/* WRITE and COMMIT results. */
static int reply3_write(struct dec *d, int ok, int write) {
    uint32_t v;
    uint64_t verf;
    TRY(wcc_data(d, TO_OBJ));
    if (!ok) return 0;
    if (write) {
        TRY(u32(d, &v));
        SETF(d->r, TBBT_F_RCOUNT, rcount, v);
        TRY(u32(d, &v));
        if (v > 2) return bad(d);
        SETF(d->r, TBBT_F_COMMITTED, committed, v);
    }
    TRY(u64(d, &verf));
    SETF(d->r, TBBT_F_WVERF, wverf, verf);
    return 0;
}

static int reply3_readdir(struct dec *d, int ok, int plus) {
    uint64_t verf;
    TRY(post_op_attr(d, TO_OBJ));
    if (!ok) return 0;
    TRY(u64(d, &verf));
    SETF(d->r, TBBT_F_RCOOKIEVERF, rcookieverf, verf);
    return dirlist3(d, plus);
}

static int reply3(struct dec *d) {
    struct tbbt_rec *r = d->r;
    uint32_t st, v;
    if (r->op == TBBT_OP_NULL) {
        r->status = 0;
        return 0;
    }
    TRY(u32(d, &st));
    r->status = (int32_t)st;
    int ok = st == TBBT_NFS_OK;
    switch (r->op) {
    case TBBT_OP_GETATTR: return ok ? fattr3_obj(d) : 0;
    case TBBT_OP_SETATTR: return wcc_data(d, TO_OBJ);
    case TBBT_OP_LOOKUP:
        if (ok) {
            TRY(fh3(d, TBBT_F_NEWOBJ, -1));
            TRY(post_op_attr(d, TO_OBJ));
        }
        return post_op_attr(d, TO_DIR);
    case TBBT_OP_ACCESS:
        TRY(post_op_attr(d, TO_OBJ));
        if (!ok) return 0;
        TRY(u32(d, &v));
        SETF(r, TBBT_F_RACCESS, raccess, v);
        return 0;
    case TBBT_OP_READLINK: TRY(post_op_attr(d, TO_OBJ)); return ok ? str(d, TBBT_F_TARGET, NAME_MAX_LEN) : 0;
    case TBBT_OP_READ: return reply3_read(d, ok);
    case TBBT_OP_WRITE: return reply3_write(d, ok, 1);
    case TBBT_OP_COMMIT: return reply3_write(d, ok, 0);
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR:
    case TBBT_OP_SYMLINK:
    case TBBT_OP_MKNOD: return reply3_newobj(d, ok);
    case TBBT_OP_REMOVE:
    case TBBT_OP_RMDIR: return wcc_data(d, TO_DIR);
    case TBBT_OP_RENAME: TRY(wcc_data(d, TO_DIR)); return wcc_data(d, TO_DIR2);
    case TBBT_OP_LINK: TRY(post_op_attr(d, TO_OBJ)); return wcc_data(d, TO_DIR);
    case TBBT_OP_READDIR: return reply3_readdir(d, ok, 0);
    case TBBT_OP_READDIRPLUS: return reply3_readdir(d, ok, 1);
    case TBBT_OP_FSSTAT:
    case TBBT_OP_FSINFO:
    case TBBT_OP_PATHCONF: return post_op_attr(d, TO_OBJ); /* the rest is not kept */
    default: return bad(d);
    }
}

/* ------------------------------------------------------------------ */
/* NFSv2                                                               */
/* ------------------------------------------------------------------ */

/* NF3 type of a v2 fattr: the mode's format bits when present (v2 servers
 * send FIFOs as NFCHR with S_IFIFO), else the v2 type number. */
static uint32_t type2to3(uint32_t type, uint32_t mode) {
    switch (mode & 0170000) {
    case 0100000: return 1;
    case 0040000: return 2;
    case 0060000: return 3;
    case 0020000: return 4;
    case 0120000: return 5;
    case 0140000: return 6;
    case 0010000: return 7;
    default: break;
    }
    if (type >= 1 && type <= 6) return type;
    return type == 8 ? 7 : 0;
}

/* v2 fattr of the principal object, in NFSv3 terms: NF3 type, permission
 * bits only in mode, used = blocks * blocksize, times in ns. */
static int fattr2_obj(struct dec *d) {
    struct tbbt_rec *r = d->r;
    uint32_t type, mode, v, bsize, blocks;
    int64_t t;
    TRY(u32(d, &type));
    if (type > 8) return bad(d);
    TRY(u32(d, &mode));
    SETF(r, TBBT_F_TYPE, type, type2to3(type, mode));
    SETF(r, TBBT_F_MODE, mode, mode & 07777);
    TRY(u32(d, &v));
    SETF(r, TBBT_F_NLINK, nlink, v);
    TRY(u32(d, &v));
    SETF(r, TBBT_F_UID, uid, v);
    TRY(u32(d, &v));
    SETF(r, TBBT_F_GID, gid, v);
    TRY(u32(d, &v));
    SETF(r, TBBT_F_SIZE, size, v);
    TRY(u32(d, &bsize));
    TRY(skip(d, 4)); /* rdev */
    TRY(u32(d, &blocks));
    SETF(r, TBBT_F_USED, used, (uint64_t)blocks * bsize);
    TRY(u32(d, &v));
    SETF(r, TBBT_F_FSID, fsid, v);
    TRY(u32(d, &v));
    SETF(r, TBBT_F_FILEID, fileid, v);
    TRY(time2(d, &t));
    SETF(r, TBBT_F_ATIME, atime, t);
    TRY(time2(d, &t));
    SETF(r, TBBT_F_MTIME, mtime, t);
    TRY(time2(d, &t));
    SETF(r, TBBT_F_CTIME, ctime, t);
    return 0;
}

/* One v2 sattr time: (-1, -1) is unset; useconds 1000000 asks for the
 * server's clock (the Linux client's convention). Returns 1 when set. */
static int sattr2_time(struct dec *d, int64_t *t, int *set) {
    uint32_t s, us;
    TRY(u32(d, &s));
    TRY(u32(d, &us));
    *set = !(s == UINT32_MAX && us == UINT32_MAX);
    *t = us == 1000000 ? TBBT_TIME_SERVER : (int64_t)s * 1000000000 + (int64_t)us * 1000;
    return 0;
}

/* v2 sattr: a field of -1 is not set. */
static int sattr2(struct dec *d) {
    struct tbbt_rec *r = d->r;
    uint32_t v;
    int64_t t;
    int set;
    TRY(u32(d, &v));
    if (v != UINT32_MAX) SETF(r, TBBT_F_SET_MODE, set_mode, v);
    TRY(u32(d, &v));
    if (v != UINT32_MAX) SETF(r, TBBT_F_SET_UID, set_uid, v);
    TRY(u32(d, &v));
    if (v != UINT32_MAX) SETF(r, TBBT_F_SET_GID, set_gid, v);
    TRY(u32(d, &v));
    if (v != UINT32_MAX) SETF(r, TBBT_F_SET_SIZE, set_size, v);
    TRY(sattr2_time(d, &t, &set));
    if (set) SETF(r, TBBT_F_SET_ATIME, set_atime, t);
    TRY(sattr2_time(d, &t, &set));
    if (set) SETF(r, TBBT_F_SET_MTIME, set_mtime, t);
    return 0;
}

static int diropargs2(struct dec *d, enum tbbt_field dirf, enum tbbt_field namef) {
    TRY(fh2(d, dirf));
    return str(d, namef, NFS2_NAME_MAX);
}

/* READ and WRITE arguments. */
static int call2_io(struct dec *d, int write) {
    struct tbbt_rec *r = d->r;
    uint32_t v;
    TRY(fh2(d, TBBT_F_OBJ));
    if (write) TRY(skip(d, 4)); /* beginoffset */
    TRY(u32(d, &v));
    SETF(r, TBBT_F_OFFSET, offset, v);
    if (!write) {
        TRY(u32(d, &v));
        SETF(r, TBBT_F_COUNT, count, v);
        d->tail = 1;
        return skip(d, 4); /* totalcount, unused */
    }
    TRY(skip(d, 4)); /* totalcount */
    TRY(u32(d, &v));
    if (v > NFS2_DATA_MAX) return bad(d);
    SETF(r, TBBT_F_COUNT, count, v);
    d->tail = 1;
    return skip(d, ((size_t)v + 3) & ~(size_t)3);
}

static int call2(struct dec *d) {
    struct tbbt_rec *r = d->r;
    uint32_t v;
    switch (r->op) {
    case TBBT_OP_NULL:
    case TBBT_OP_ROOT:
    case TBBT_OP_WRITECACHE: return 0;
    case TBBT_OP_GETATTR:
    case TBBT_OP_READLINK:
    case TBBT_OP_STATFS: return fh2(d, TBBT_F_OBJ);
    case TBBT_OP_SETATTR: TRY(fh2(d, TBBT_F_OBJ)); return sattr2(d);
    case TBBT_OP_LOOKUP:
    case TBBT_OP_REMOVE:
    case TBBT_OP_RMDIR: return diropargs2(d, TBBT_F_DIR, TBBT_F_NAME);
    case TBBT_OP_READ: return call2_io(d, 0);
    case TBBT_OP_WRITE: return call2_io(d, 1);
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR: TRY(diropargs2(d, TBBT_F_DIR, TBBT_F_NAME)); return sattr2(d);
    case TBBT_OP_RENAME:
        TRY(diropargs2(d, TBBT_F_DIR, TBBT_F_NAME));
        return diropargs2(d, TBBT_F_DIR2, TBBT_F_NAME2);
    case TBBT_OP_LINK: TRY(fh2(d, TBBT_F_OBJ)); return diropargs2(d, TBBT_F_DIR, TBBT_F_NAME);
    case TBBT_OP_SYMLINK:
        TRY(diropargs2(d, TBBT_F_DIR, TBBT_F_NAME));
        TRY(str(d, TBBT_F_TARGET, NFS2_PATH_MAX));
        return sattr2(d);
    case TBBT_OP_READDIR:
        TRY(fh2(d, TBBT_F_OBJ));
        TRY(u32(d, &v));
        SETF(r, TBBT_F_COOKIE, cookie, v);
        TRY(u32(d, &v));
        SETF(r, TBBT_F_COUNT, count, v);
        return 0;
    default: return bad(d); /* not a v2 procedure */
    }
}

/* v2 READDIR entries and eof. */
static int dirlist2(struct dec *d) {
    struct tbbt_rec *r = d->r;
    uint32_t more, len, fileid, cookie;
    for (;;) {
        TRY(xbool(d, &more));
        if (!more) break;
        TRY(u32(d, &fileid));
        const uint8_t *name = opaque(d, NFS2_NAME_MAX, &len);
        if (!name) return -1;
        TRY(u32(d, &cookie));
        struct tbbt_dirent *e = tbbt_rec_add_entry(r, (const char *)name, len);
        e->fileid = fileid;
        e->cookie = cookie;
    }
    TRY(xbool(d, &more));
    SETF(r, TBBT_F_EOF, eof, more);
    SETF(r, TBBT_F_RCOUNT, rcount, r->nentries);
    return 0;
}

static int reply2(struct dec *d) {
    struct tbbt_rec *r = d->r;
    uint32_t st, v;
    if (r->op == TBBT_OP_NULL || r->op == TBBT_OP_ROOT || r->op == TBBT_OP_WRITECACHE) {
        r->status = 0;
        return 0;
    }
    TRY(u32(d, &st));
    r->status = (int32_t)st;
    if (st != 0) return 0;
    switch (r->op) {
    case TBBT_OP_GETATTR:
    case TBBT_OP_SETATTR:
    case TBBT_OP_WRITE: return fattr2_obj(d);
    case TBBT_OP_LOOKUP:
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR: TRY(fh2(d, TBBT_F_NEWOBJ)); return fattr2_obj(d);
    case TBBT_OP_READLINK: return str(d, TBBT_F_TARGET, NFS2_PATH_MAX);
    case TBBT_OP_READ:
        TRY(fattr2_obj(d));
        TRY(u32(d, &v));
        if (v > NFS2_DATA_MAX) return bad(d);
        SETF(r, TBBT_F_RCOUNT, rcount, v);
        return skip(d, ((size_t)v + 3) & ~(size_t)3);
    case TBBT_OP_REMOVE:
    case TBBT_OP_RENAME:
    case TBBT_OP_LINK:
    case TBBT_OP_SYMLINK:
    case TBBT_OP_RMDIR:
    case TBBT_OP_STATFS: return 0; /* status only (STATFS's figures are not kept) */
    case TBBT_OP_READDIR: return dirlist2(d);
    default: return bad(d);
    }
}

/* ------------------------------------------------------------------ */
/* entry points                                                        */
/* ------------------------------------------------------------------ */

int tbbt_nfs_decode_call(struct tbbt_rec *r, const uint8_t *p, size_t n, struct tbbt_fhrefs *fh) {
    struct dec d;
    if (r->op >= TBBT_OP_COUNT || tbbt_op_to_wire(r->op, r->vers) < 0) return TBBT_DEC_BAD;
    dec_init(&d, r, p, n, fh);
    int whole =
        (r->vers == TBBT_NFS_V3 ? call3(&d) : call2(&d)) == 0; /* every argument read (a cut padding aside) */
    int rc = dec_result(&d);
    if (rc == TBBT_DEC_TRUNC && !whole && !d.tail) r->flags |= TBBT_RF_ARGS_CUT;
    return rc;
}

int tbbt_nfs_decode_reply(struct tbbt_rec *r, const uint8_t *p, size_t n, struct tbbt_fhrefs *fh) {
    struct dec d;
    if (r->op >= TBBT_OP_COUNT || tbbt_op_to_wire(r->op, r->vers) < 0) return TBBT_DEC_BAD;
    dec_init(&d, r, p, n, fh);
    if (r->vers == TBBT_NFS_V3)
        (void)reply3(&d);
    else
        (void)reply2(&d);
    return dec_result(&d);
}

int tbbt_mount_decode_mnt_reply(unsigned vers, const uint8_t *p, size_t n, uint32_t *status,
                                struct tbbt_fhref *fh) {
    struct dec d;
    uint32_t st, len, nflav;
    const uint8_t *h;
    if (vers < 1 || vers > 3) return TBBT_DEC_BAD;
    dec_init(&d, NULL, p, n, NULL);
    fh->field = TBBT_F_OBJ;
    fh->entry = -1;
    fh->len = 0;
    if (u32(&d, &st) < 0) return TBBT_DEC_TRUNC;
    *status = st;
    if (st != 0) return TBBT_DEC_OK;
    if (vers < 3) { /* fhstatus: fhandle[32] */
        len = NFS2_FH_LEN;
        h = tbbt_cur_take(&d.c, len);
    } else { /* mountres3_ok: fhandle3<64>, auth_flavors<> */
        h = opaque(&d, TBBT_FH_MAX, &len);
    }
    if (!h) return dec_result(&d);
    memcpy(fh->data, h, len);
    fh->len = (uint16_t)len;
    if (vers == TBBT_MOUNT_V3 && u32(&d, &nflav) == 0) {
        if (nflav > MNT_FLAVORS_MAX) return TBBT_DEC_BAD;
        (void)skip(&d, (size_t)nflav * 4);
    }
    return dec_result(&d);
}

/* ------------------------------------------------------------------ */
/* RPC headers                                                         */
/* ------------------------------------------------------------------ */

/* AUTH_SYS body (RFC 5531 appendix A): stamp, machinename<255>, uid, gid,
 * gids<16>. Gids beyond TBBT_MAX_GIDS are dropped. Returns 0, or -1 when
 * the body does not hold what it announces. */
static int auth_sys(const uint8_t *p, size_t n, struct tbbt_cred *cr) {
    struct dec d;
    uint32_t len, ngids;
    dec_init(&d, NULL, p, n, NULL);
    TRY(skip(&d, 4)); /* stamp */
    if (!opaque(&d, 255, &len)) return -1;
    TRY(u32(&d, &cr->uid));
    TRY(u32(&d, &cr->gid));
    TRY(u32(&d, &ngids));
    if (ngids > tbbt_cur_left(&d.c) / 4) return -1;
    cr->ngids = ngids < TBBT_MAX_GIDS ? ngids : TBBT_MAX_GIDS;
    for (uint32_t i = 0; i < cr->ngids; i++)
        cr->gids[i] = tbbt_cur_u32(&d.c);
    return 0;
}

/* opaque_auth: flavor and body (<= 400 bytes). Returns the body or NULL
 * when cut short or too long. */
static const uint8_t *opaque_auth(struct dec *d, uint32_t *flavor, uint32_t *len) {
    if (u32(d, flavor) < 0) return NULL;
    return opaque(d, AUTH_MAX_LEN, len);
}

/* Call header after xid and message type. */
static int rpc_call(struct dec *d, struct tbbt_rpc_hdr *h) {
    uint32_t flavor, len;
    TRY(u32(d, &h->rpcvers));
    if (h->rpcvers != TBBT_RPC_VERSION) return -1;
    TRY(u32(d, &h->prog));
    TRY(u32(d, &h->vers));
    TRY(u32(d, &h->proc));
    const uint8_t *cred = opaque_auth(d, &flavor, &len);
    if (!cred) return -1;
    h->cred.flavor = flavor;
    if (flavor == TBBT_AUTH_SYS && auth_sys(cred, len, &h->cred) < 0) return -1;
    return opaque_auth(d, &flavor, &len) ? 0 : -1; /* verifier */
}

/* Reply header after xid and message type. */
static int rpc_reply(struct dec *d, struct tbbt_rpc_hdr *h) {
    uint32_t flavor, len;
    TRY(u32(d, &h->reply_stat));
    if (h->reply_stat == 1) { /* MSG_DENIED: reject_stat, then mismatch_info or auth_stat */
        TRY(u32(d, &h->reject_stat));
        h->accept_stat = UINT32_MAX;
        if (h->reject_stat > 1) return -1;
        return skip(d, h->reject_stat == 0 ? 8 : 4);
    }
    if (h->reply_stat != 0) return -1;
    if (!opaque_auth(d, &flavor, &len)) return -1; /* verifier */
    TRY(u32(d, &h->accept_stat));
    if (h->accept_stat == 2) return skip(d, 8); /* PROG_MISMATCH: low, high */
    return h->accept_stat > 5 ? -1 : 0;
}

int tbbt_rpc_parse_prefix(const uint8_t *p, size_t caplen, struct tbbt_rpc_hdr *h) {
    struct dec d;
    dec_init(&d, NULL, p, caplen, NULL);
    memset(h, 0, sizeof(*h));
    if (u32(&d, &h->xid) < 0 || u32(&d, &h->mtype) < 0) return -1;
    int rc = -1;
    if (h->mtype == TBBT_RPC_CALL)
        rc = rpc_call(&d, h);
    else if (h->mtype == TBBT_RPC_REPLY)
        rc = rpc_reply(&d, h);
    if (rc == 0 && !d.c.trunc) {
        h->body = d.c.pos;
        return 0;
    }
    if (!d.c.trunc || d.bad) return -1;
    /* cut short: keep what names the message, if it got that far */
    int named = h->mtype == TBBT_RPC_CALL ? caplen >= 24 && h->rpcvers == TBBT_RPC_VERSION
                                          : caplen >= 12 && h->reply_stat <= 1;
    if (!named) return -1;
    memset(&h->cred, 0, sizeof(h->cred));
    if (h->mtype == TBBT_RPC_REPLY && caplen < 24) h->accept_stat = UINT32_MAX; /* unknown */
    h->body = caplen;
    h->cut = 1;
    return TBBT_DEC_TRUNC;
}

int tbbt_rpc_parse(const uint8_t *p, size_t caplen, struct tbbt_rpc_hdr *h) {
    return tbbt_rpc_parse_prefix(p, caplen, h) == 0 ? 0 : -1;
}
