/* nfsenc.c -- NFSv2 (RFC 1094) and NFSv3 (RFC 1813) calls encoded from
 * replay records as ONC RPC call messages (RFC 5531).
 *
 * Two steps per call. First the argument structure rpcgen generated from
 * lib/proto/tbbt_nfs.x is filled from the record (handles and cookies
 * through the caller's callbacks, strings copied NUL-terminated into the
 * encoder's stack state, defaults as nfsenc.h's table says); nothing has
 * been written yet, so every refusal leaves buf alone. Then one xdrmem
 * stream over the caller's buffer takes the RPC header (written word by
 * word, as xdr_callmsg and xdr_authunix_parms write it: their per-field
 * calls were a third of the encoder's time) and the arguments (the rpcgen
 * routine). The one exception is a WRITE whose payload is shorter than its
 * count: rpcgen's opaque<> wants the data contiguous, so the fixed fields
 * go through rpcgen's per-field routines and the repeated data is written
 * in place. No allocation anywhere. */
#include "nfsenc.h"

#include <arpa/inet.h>
#include <limits.h>
#include <rpc/rpc.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "tbbt_nfs.h"

#define NS_PER_S 1000000000ll

/* Encoder state for one call. The string buffers are not initialised:
 * zeroing 12 KiB per call would cost more than the encoding. */
struct enc {
    const struct tbbt_rec *r;
    const struct tbbt_enc_ctx *c;
    uint32_t xid;
    char *err;
    size_t errlen;
    int fill; /* WRITE data to repeat from the payload (see write_fill) */
    char name[TBBT_ENC_NAME_MAX + 1];
    char name2[TBBT_ENC_NAME_MAX + 1];
    char target[TBBT_ENC_NAME_MAX + 1];
};

/* Every procedure's argument structure; one is filled per call. */
union args {
    GETATTR3args getattr3;
    SETATTR3args setattr3;
    LOOKUP3args lookup3;
    ACCESS3args access3;
    READLINK3args readlink3;
    READ3args read3;
    WRITE3args write3;
    CREATE3args create3;
    MKDIR3args mkdir3;
    SYMLINK3args symlink3;
    MKNOD3args mknod3;
    REMOVE3args remove3;
    RMDIR3args rmdir3;
    RENAME3args rename3;
    LINK3args link3;
    READDIR3args readdir3;
    READDIRPLUS3args readdirplus3;
    FSSTAT3args fsstat3;
    FSINFO3args fsinfo3;
    PATHCONF3args pathconf3;
    COMMIT3args commit3;
    fhandle2 fh2;
    sattrargs2 sattr2;
    diropargs2 dirop2;
    readargs2 read2;
    writeargs2 write2;
    createargs2 create2;
    renameargs2 rename2;
    linkargs2 link2;
    symlinkargs2 symlink2;
    readdirargs2 readdir2;
};

/* Writes "nfsenc: OP vV xid 0xX: " and the message into e->err; returns
 * -1 for the caller to pass on. */
static int fail(struct enc *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct enc *e, const char *fmt, ...) {
    if (!e->err || e->errlen == 0) return -1;
    const char *op = e->r->op < TBBT_OP_COUNT ? tbbt_op_info(e->r->op)->name : "?";
    int n = snprintf(e->err, e->errlen, "nfsenc: %s v%u xid 0x%08x: ", op, e->r->vers, e->xid);
    if (n < 0 || (size_t)n >= e->errlen) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->err + n, e->errlen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

/* ------------------------------------------------------------------ */
/* record values                                                       */
/* ------------------------------------------------------------------ */

/* The TBBT-ID in handle field f (OBJ, DIR or DIR2), 0 when absent. */
static tbbt_id id_of(const struct tbbt_rec *r, enum tbbt_field f) {
    if (!tbbt_rec_has(r, f)) return 0;
    return f == TBBT_F_OBJ ? r->obj : f == TBBT_F_DIR ? r->dir : r->dir2;
}

/* The live handle of handle field f, from the fh callback. Returns 0, or
 * -1 (with the field and the ID in the message). */
static int live_fh(struct enc *e, enum tbbt_field f, const uint8_t **p, uint32_t *len) {
    tbbt_id id = id_of(e->r, f);
    if (id == 0) return fail(e, "the record has no %s", tbbt_fields[f].key);
    if (!e->c->fh || e->c->fh(e->c->fh_ctx, id, p, len) < 0)
        return fail(e, "no live handle for %s (TBBT-ID %llu)", tbbt_fields[f].key, (unsigned long long)id);
    return 0;
}

/* nfs_fh3 of field f; the bytes stay the callback's. */
static int fh3(struct enc *e, enum tbbt_field f, nfs_fh3 *out) {
    const uint8_t *p;
    uint32_t len;
    if (live_fh(e, f, &p, &len) < 0) return -1;
    if (len > NFS3_FHSIZE)
        return fail(e, "live handle of %s (TBBT-ID %llu) is %u bytes, NFSv3 allows %d", tbbt_fields[f].key,
                    (unsigned long long)id_of(e->r, f), len, NFS3_FHSIZE);
    out->data.data_len = len;
    out->data.data_val = (char *)(uintptr_t)p; /* only read: XDR_ENCODE */
    return 0;
}

/* v2 fhandle of field f: exactly 32 bytes, copied into the structure. */
static int fh2(struct enc *e, enum tbbt_field f, fhandle2 *out) {
    const uint8_t *p;
    uint32_t len;
    if (live_fh(e, f, &p, &len) < 0) return -1;
    if (len != NFS2_FHSIZE)
        return fail(e, "live handle of %s (TBBT-ID %llu) is %u bytes, NFSv2 needs %d", tbbt_fields[f].key,
                    (unsigned long long)id_of(e->r, f), len, NFS2_FHSIZE);
    memcpy(out->data, p, NFS2_FHSIZE);
    return 0;
}

/* String field f (NAME, NAME2 or TARGET) copied NUL-terminated into buf
 * (TBBT_ENC_NAME_MAX + 1 bytes) for xdr_string; at most max bytes. */
static int cstr(struct enc *e, enum tbbt_field f, char *buf, uint32_t max) {
    const struct tbbt_rec *r = e->r;
    if (!tbbt_rec_has(r, f)) return fail(e, "the record has no %s", tbbt_fields[f].key);
    struct tbbt_str s = f == TBBT_F_NAME ? r->name : f == TBBT_F_NAME2 ? r->name2 : r->target;
    if (s.len > max) return fail(e, "%s of %u bytes is longer than %u", tbbt_fields[f].key, s.len, max);
    const char *p = tbbt_rec_str(r, s);
    if (memchr(p, 0, s.len)) return fail(e, "%s holds a NUL byte", tbbt_fields[f].key);
    memcpy(buf, p, s.len);
    buf[s.len] = 0;
    return 0;
}

/* ns since the epoch as (seconds, fraction in units of 1e9/scale), for
 * nfstime3 (scale 1e9) and v2's nfstime (1e6). Field f names it in errors. */
static int split_time(struct enc *e, enum tbbt_field f, int64_t ns, int64_t scale, u_int *s, u_int *frac) {
    if (ns < 0 || ns / NS_PER_S > UINT32_MAX)
        return fail(e, "%s %lld ns is outside NFS's unsigned 32-bit seconds", tbbt_fields[f].key,
                    (long long)ns);
    *s = (u_int)(ns / NS_PER_S);
    *frac = (u_int)(ns % NS_PER_S / (NS_PER_S / scale));
    return 0;
}

/* A 64-bit number as the 8 big-endian bytes of an XDR fixed opaque
 * (cookieverf3, createverf3), which nfsdec reads back as a hyper. */
static void put_be64(char out[8], uint64_t v) {
    for (int i = 7; i >= 0; i--, v >>= 8)
        out[i] = (char)(v & 0xff);
}

/* Count field f if present, else g if present, else dflt. */
static uint32_t count_or(const struct tbbt_rec *r, enum tbbt_field f, enum tbbt_field g, uint32_t dflt) {
    if (tbbt_rec_has(r, f)) return (uint32_t)tbbt_rec_get_u64(r, f);
    if (tbbt_rec_has(r, g)) return (uint32_t)tbbt_rec_get_u64(r, g);
    return dflt;
}

/* Live cookie and verifier of a READDIR(PLUS), through the cookie
 * callback (or as traced without one). */
static int cookies(struct enc *e, uint64_t *cookie, uint64_t *verf) {
    const struct tbbt_rec *r = e->r;
    uint64_t tc = tbbt_rec_has(r, TBBT_F_COOKIE) ? r->cookie : 0;
    if (!e->c->cookie) {
        *cookie = tc;
        *verf = tbbt_rec_has(r, TBBT_F_COOKIEVERF) ? r->cookieverf : 0;
        return 0;
    }
    if (e->c->cookie(e->c->cookie_ctx, id_of(r, TBBT_F_OBJ), tc, cookie, verf) < 0)
        return fail(e, "no live cookie for trace cookie %llu of directory TBBT-ID %llu",
                    (unsigned long long)tc, (unsigned long long)id_of(r, TBBT_F_OBJ));
    return 0;
}

/* The arguments of NULL, v2 ROOT and WRITECACHE: nothing (libtirpc's
 * xdr_void is declared without parameters). */
static bool_t no_args(XDR *x, void *a) {
    (void)x;
    (void)a;
    return TRUE;
}

/* ------------------------------------------------------------------ */
/* NFSv3 arguments                                                     */
/* ------------------------------------------------------------------ */

/* set_atime / set_mtime from time field f. */
static int time_how3(struct enc *e, enum tbbt_field f, time_how *how, nfstime3 *t) {
    int64_t ns = f == TBBT_F_SET_ATIME ? e->r->set_atime : e->r->set_mtime;
    if (!tbbt_rec_has(e->r, f)) {
        *how = DONT_CHANGE;
        return 0;
    }
    if (ns == TBBT_TIME_SERVER) {
        *how = SET_TO_SERVER_TIME;
        return 0;
    }
    *how = SET_TO_CLIENT_TIME;
    return split_time(e, f, ns, NS_PER_S, &t->seconds, &t->nseconds);
}

/* sattr3 from the SET_* fields; an absent field is not set. */
static int sattr3_of(struct enc *e, sattr3 *s) {
    const struct tbbt_rec *r = e->r;
    memset(s, 0, sizeof(*s));
    s->mode.set_it = tbbt_rec_has(r, TBBT_F_SET_MODE);
    s->mode.set_mode3_u.mode = r->set_mode;
    s->uid.set_it = tbbt_rec_has(r, TBBT_F_SET_UID);
    s->uid.set_uid3_u.uid = r->set_uid;
    s->gid.set_it = tbbt_rec_has(r, TBBT_F_SET_GID);
    s->gid.set_gid3_u.gid = r->set_gid;
    s->size.set_it = tbbt_rec_has(r, TBBT_F_SET_SIZE);
    s->size.set_size3_u.size = r->set_size;
    if (time_how3(e, TBBT_F_SET_ATIME, &s->atime.set_it, &s->atime.set_atime_u.atime) < 0) return -1;
    return time_how3(e, TBBT_F_SET_MTIME, &s->mtime.set_it, &s->mtime.set_mtime_u.mtime);
}

/* (dir, name) from DIR/NAME or DIR2/NAME2, the name copied into buf. */
static int dirop3(struct enc *e, enum tbbt_field dirf, enum tbbt_field namef, char *buf, diropargs3 *d) {
    if (fh3(e, dirf, &d->dir) < 0 || cstr(e, namef, buf, TBBT_ENC_NAME_MAX) < 0) return -1;
    d->name = buf;
    return 0;
}

/* SETATTR: object, sattr3, and the ctime guard when the record has one. */
static int setattr3(struct enc *e, SETATTR3args *a) {
    if (fh3(e, TBBT_F_OBJ, &a->object) < 0 || sattr3_of(e, &a->new_attributes) < 0) return -1;
    a->guard.check = tbbt_rec_has(e->r, TBBT_F_GUARD);
    if (!a->guard.check) return 0;
    nfstime3 *t = &a->guard.sattrguard3_u.obj_ctime;
    return split_time(e, TBBT_F_GUARD, e->r->guard, NS_PER_S, &t->seconds, &t->nseconds);
}

/* WRITE: data from the payload, contiguous when it covers count, else
 * marked for write_fill. */
static int write3(struct enc *e, WRITE3args *a) {
    const struct tbbt_rec *r = e->r;
    if (fh3(e, TBBT_F_OBJ, &a->file) < 0) return -1;
    a->offset = tbbt_rec_has(r, TBBT_F_OFFSET) ? r->offset : 0;
    a->count = tbbt_rec_has(r, TBBT_F_COUNT) ? r->count : 0;
    a->stable = tbbt_rec_has(r, TBBT_F_STABLE) ? (stable_how)r->stable : FILE_SYNC;
    if (a->stable > FILE_SYNC) return fail(e, "stable %u is not a stable_how", r->stable);
    a->data.data_len = a->count;
    e->fill = !e->c->payload || e->c->payload_len < a->count;
    a->data.data_val = e->fill ? NULL : (char *)(uintptr_t)e->c->payload;
    return 0;
}

/* CREATE: UNCHECKED/GUARDED carry the sattr3, EXCLUSIVE the caller's
 * fresh verifier (the traced one would collide with the trace's file). */
static int create3(struct enc *e, CREATE3args *a) {
    const struct tbbt_rec *r = e->r;
    if (dirop3(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->where) < 0) return -1;
    a->how.mode = tbbt_rec_has(r, TBBT_F_CREATEHOW) ? (createmode3)r->createhow : UNCHECKED;
    if (a->how.mode > EXCLUSIVE) return fail(e, "createhow %u is not a createmode3", r->createhow);
    if (a->how.mode != EXCLUSIVE) return sattr3_of(e, &a->how.createhow3_u.obj_attributes);
    put_be64(a->how.createhow3_u.verf, e->c->create_verf);
    return 0;
}

/* SYMLINK: (dir, name), sattr3, target. */
static int symlink3(struct enc *e, SYMLINK3args *a) {
    if (dirop3(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->where) < 0) return -1;
    if (cstr(e, TBBT_F_TARGET, e->target, TBBT_ENC_NAME_MAX) < 0) return -1;
    a->symlink.symlink_data = e->target;
    return sattr3_of(e, &a->symlink.symlink_attributes);
}

/* MKNOD: the node type picks the union arm; rdev is major << 32 | minor. */
static int mknod3(struct enc *e, MKNOD3args *a) {
    const struct tbbt_rec *r = e->r;
    if (dirop3(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->where) < 0) return -1;
    if (!tbbt_rec_has(r, TBBT_F_NODETYPE)) return fail(e, "the record has no nodetype");
    if (r->nodetype < NF3REG || r->nodetype > NF3FIFO)
        return fail(e, "nodetype %u is not an ftype3", r->nodetype);
    a->what.type = (ftype3)r->nodetype;
    if (a->what.type == NF3CHR || a->what.type == NF3BLK) {
        uint64_t rdev = tbbt_rec_has(r, TBBT_F_RDEV) ? r->rdev : 0;
        a->what.mknoddata3_u.device.spec.specdata1 = (u_int)(rdev >> 32);
        a->what.mknoddata3_u.device.spec.specdata2 = (u_int)rdev;
        return sattr3_of(e, &a->what.mknoddata3_u.device.dev_attributes);
    }
    if (a->what.type == NF3SOCK || a->what.type == NF3FIFO)
        return sattr3_of(e, &a->what.mknoddata3_u.pipe_attributes);
    return 0; /* REG, DIR, LNK: no data (the server answers BADTYPE) */
}

/* READDIR: directory, live cookie and verifier, count. */
static int readdir3(struct enc *e, READDIR3args *a) {
    uint64_t verf;
    if (fh3(e, TBBT_F_OBJ, &a->dir) < 0 || cookies(e, &a->cookie, &verf) < 0) return -1;
    put_be64(a->cookieverf, verf);
    a->count = count_or(e->r, TBBT_F_MAXCOUNT, TBBT_F_COUNT, TBBT_ENC_DIR_COUNT);
    return 0;
}

/* READDIRPLUS: as READDIR, with dircount and maxcount. */
static int readdirplus3(struct enc *e, READDIRPLUS3args *a) {
    uint64_t verf;
    if (fh3(e, TBBT_F_OBJ, &a->dir) < 0 || cookies(e, &a->cookie, &verf) < 0) return -1;
    put_be64(a->cookieverf, verf);
    a->maxcount = count_or(e->r, TBBT_F_MAXCOUNT, TBBT_F_COUNT, TBBT_ENC_DIR_COUNT);
    a->dircount = tbbt_rec_has(e->r, TBBT_F_DIRCOUNT) ? e->r->dircount : a->maxcount / 8;
    return 0;
}

/* READ and COMMIT share their shape (file, offset, count). */
static int io3(struct enc *e, nfs_fh3 *fh, offset3 *off, count3 *count) {
    *off = tbbt_rec_has(e->r, TBBT_F_OFFSET) ? e->r->offset : 0;
    *count = tbbt_rec_has(e->r, TBBT_F_COUNT) ? e->r->count : 0;
    return fh3(e, TBBT_F_OBJ, fh);
}

/* Fills a's NFSv3 arguments for r->op; sets *proc to their routine. */
static int args3(struct enc *e, union args *a, xdrproc_t *proc) {
    const struct tbbt_rec *r = e->r;
    switch (r->op) {
    case TBBT_OP_NULL: *proc = (xdrproc_t)no_args; return 0;
    case TBBT_OP_GETATTR: *proc = (xdrproc_t)xdr_GETATTR3args; return fh3(e, TBBT_F_OBJ, &a->getattr3.object);
    case TBBT_OP_SETATTR: *proc = (xdrproc_t)xdr_SETATTR3args; return setattr3(e, &a->setattr3);
    case TBBT_OP_LOOKUP:
        *proc = (xdrproc_t)xdr_LOOKUP3args;
        return dirop3(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->lookup3.what);
    case TBBT_OP_ACCESS:
        *proc = (xdrproc_t)xdr_ACCESS3args;
        a->access3.access = tbbt_rec_has(r, TBBT_F_ACCESS) ? r->access : TBBT_ENC_ACCESS;
        return fh3(e, TBBT_F_OBJ, &a->access3.object);
    case TBBT_OP_READLINK:
        *proc = (xdrproc_t)xdr_READLINK3args;
        return fh3(e, TBBT_F_OBJ, &a->readlink3.symlink);
    case TBBT_OP_READ:
        *proc = (xdrproc_t)xdr_READ3args;
        return io3(e, &a->read3.file, &a->read3.offset, &a->read3.count);
    case TBBT_OP_WRITE: *proc = (xdrproc_t)xdr_WRITE3args; return write3(e, &a->write3);
    case TBBT_OP_CREATE: *proc = (xdrproc_t)xdr_CREATE3args; return create3(e, &a->create3);
    case TBBT_OP_MKDIR:
        *proc = (xdrproc_t)xdr_MKDIR3args;
        if (dirop3(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->mkdir3.where) < 0) return -1;
        return sattr3_of(e, &a->mkdir3.attributes);
    case TBBT_OP_SYMLINK: *proc = (xdrproc_t)xdr_SYMLINK3args; return symlink3(e, &a->symlink3);
    case TBBT_OP_MKNOD: *proc = (xdrproc_t)xdr_MKNOD3args; return mknod3(e, &a->mknod3);
    case TBBT_OP_REMOVE:
        *proc = (xdrproc_t)xdr_REMOVE3args;
        return dirop3(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->remove3.object);
    case TBBT_OP_RMDIR:
        *proc = (xdrproc_t)xdr_RMDIR3args;
        return dirop3(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->rmdir3.object);
    case TBBT_OP_RENAME:
        *proc = (xdrproc_t)xdr_RENAME3args;
        if (dirop3(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->rename3.from) < 0) return -1;
        return dirop3(e, TBBT_F_DIR2, TBBT_F_NAME2, e->name2, &a->rename3.to);
    case TBBT_OP_LINK:
        *proc = (xdrproc_t)xdr_LINK3args;
        if (fh3(e, TBBT_F_OBJ, &a->link3.file) < 0) return -1;
        return dirop3(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->link3.link);
    case TBBT_OP_READDIR: *proc = (xdrproc_t)xdr_READDIR3args; return readdir3(e, &a->readdir3);
    case TBBT_OP_READDIRPLUS:
        *proc = (xdrproc_t)xdr_READDIRPLUS3args;
        return readdirplus3(e, &a->readdirplus3);
    case TBBT_OP_FSSTAT: *proc = (xdrproc_t)xdr_FSSTAT3args; return fh3(e, TBBT_F_OBJ, &a->fsstat3.fsroot);
    case TBBT_OP_FSINFO: *proc = (xdrproc_t)xdr_FSINFO3args; return fh3(e, TBBT_F_OBJ, &a->fsinfo3.fsroot);
    case TBBT_OP_PATHCONF:
        *proc = (xdrproc_t)xdr_PATHCONF3args;
        return fh3(e, TBBT_F_OBJ, &a->pathconf3.object);
    case TBBT_OP_COMMIT:
        *proc = (xdrproc_t)xdr_COMMIT3args;
        return io3(e, &a->commit3.file, &a->commit3.offset, &a->commit3.count);
    default: return fail(e, "not an NFSv3 procedure");
    }
}

/* ------------------------------------------------------------------ */
/* NFSv2 arguments                                                     */
/* ------------------------------------------------------------------ */

/* One v2 sattr time: (-1, -1) unset, (-1, 1000000) the server's clock. */
static int time2(struct enc *e, enum tbbt_field f, nfstime2 *t) {
    int64_t ns = f == TBBT_F_SET_ATIME ? e->r->set_atime : e->r->set_mtime;
    t->seconds = t->useconds = UINT32_MAX;
    if (!tbbt_rec_has(e->r, f)) return 0;
    if (ns == TBBT_TIME_SERVER) {
        t->useconds = 1000000;
        return 0;
    }
    return split_time(e, f, ns, 1000000, &t->seconds, &t->useconds);
}

/* v2 sattr: an absent field is -1. */
static int sattr2_of(struct enc *e, sattr2 *s) {
    const struct tbbt_rec *r = e->r;
    s->mode = tbbt_rec_has(r, TBBT_F_SET_MODE) ? r->set_mode : UINT32_MAX;
    s->uid = tbbt_rec_has(r, TBBT_F_SET_UID) ? r->set_uid : UINT32_MAX;
    s->gid = tbbt_rec_has(r, TBBT_F_SET_GID) ? r->set_gid : UINT32_MAX;
    s->size = UINT32_MAX;
    if (tbbt_rec_has(r, TBBT_F_SET_SIZE)) {
        if (r->set_size >= UINT32_MAX) /* -1 would read as "not set" */
            return fail(e, "set_size %llu does not fit NFSv2", (unsigned long long)r->set_size);
        s->size = (u_int)r->set_size;
    }
    if (time2(e, TBBT_F_SET_ATIME, &s->atime) < 0) return -1;
    return time2(e, TBBT_F_SET_MTIME, &s->mtime);
}

/* v2 (dir, name), the name (<= 255 bytes) copied into buf. */
static int dirop2(struct enc *e, enum tbbt_field dirf, enum tbbt_field namef, char *buf, diropargs2 *d) {
    if (fh2(e, dirf, &d->dir) < 0 || cstr(e, namef, buf, NFS2_MAXNAMLEN) < 0) return -1;
    d->name = buf;
    return 0;
}

/* v2 offset (32 bits) and count. */
static int io2(struct enc *e, u_int *off, u_int *count) {
    const struct tbbt_rec *r = e->r;
    uint64_t o = tbbt_rec_has(r, TBBT_F_OFFSET) ? r->offset : 0;
    if (o > UINT32_MAX) return fail(e, "offset %llu does not fit NFSv2", (unsigned long long)o);
    *off = (u_int)o;
    *count = tbbt_rec_has(r, TBBT_F_COUNT) ? r->count : 0;
    return 0;
}

/* READ: totalcount = count, as the Linux client sends it. */
static int read2(struct enc *e, readargs2 *a) {
    if (fh2(e, TBBT_F_OBJ, &a->file) < 0 || io2(e, &a->offset, &a->count) < 0) return -1;
    a->totalcount = a->count;
    return 0;
}

/* WRITE: beginoffset = offset, totalcount = count (Linux's values). */
static int write2(struct enc *e, writeargs2 *a) {
    if (fh2(e, TBBT_F_OBJ, &a->file) < 0 || io2(e, &a->offset, &a->totalcount) < 0) return -1;
    if (a->totalcount > NFS2_MAXDATA)
        return fail(e, "count %u exceeds NFSv2's %d", a->totalcount, NFS2_MAXDATA);
    a->beginoffset = a->offset;
    a->data.nfsdata2_len = a->totalcount;
    e->fill = !e->c->payload || e->c->payload_len < a->totalcount;
    a->data.nfsdata2_val = e->fill ? NULL : (char *)(uintptr_t)e->c->payload;
    return 0;
}

/* v2 SYMLINK: (dir, name), target (<= 1024 bytes), sattr. */
static int symlink2(struct enc *e, symlinkargs2 *a) {
    if (dirop2(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->from) < 0) return -1;
    if (cstr(e, TBBT_F_TARGET, e->target, NFS2_MAXPATHLEN) < 0) return -1;
    a->to = e->target;
    return sattr2_of(e, &a->attributes);
}

/* READDIR: the 4-byte cookie is the 32-bit number nfsdec reads. */
static int readdir2(struct enc *e, readdirargs2 *a) {
    uint64_t cookie, verf;
    if (fh2(e, TBBT_F_OBJ, &a->dir) < 0 || cookies(e, &cookie, &verf) < 0) return -1;
    if (cookie > UINT32_MAX) return fail(e, "cookie %llu does not fit NFSv2", (unsigned long long)cookie);
    char be[8];
    put_be64(be, cookie);
    memcpy(a->cookie, be + 4, NFS2_COOKIESIZE);
    a->count = count_or(e->r, TBBT_F_COUNT, TBBT_F_MAXCOUNT, TBBT_ENC_DIR_COUNT);
    return 0;
}

/* Fills a's NFSv2 arguments for r->op; sets *proc to their routine. */
static int args2(struct enc *e, union args *a, xdrproc_t *proc) {
    switch (e->r->op) {
    case TBBT_OP_NULL:
    case TBBT_OP_ROOT:
    case TBBT_OP_WRITECACHE: *proc = (xdrproc_t)no_args; return 0;
    case TBBT_OP_GETATTR:
    case TBBT_OP_READLINK:
    case TBBT_OP_STATFS: *proc = (xdrproc_t)xdr_fhandle2; return fh2(e, TBBT_F_OBJ, &a->fh2);
    case TBBT_OP_SETATTR:
        *proc = (xdrproc_t)xdr_sattrargs2;
        if (fh2(e, TBBT_F_OBJ, &a->sattr2.file) < 0) return -1;
        return sattr2_of(e, &a->sattr2.attributes);
    case TBBT_OP_LOOKUP:
    case TBBT_OP_REMOVE:
    case TBBT_OP_RMDIR:
        *proc = (xdrproc_t)xdr_diropargs2;
        return dirop2(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->dirop2);
    case TBBT_OP_READ: *proc = (xdrproc_t)xdr_readargs2; return read2(e, &a->read2);
    case TBBT_OP_WRITE: *proc = (xdrproc_t)xdr_writeargs2; return write2(e, &a->write2);
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR:
        *proc = (xdrproc_t)xdr_createargs2;
        if (dirop2(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->create2.where) < 0) return -1;
        return sattr2_of(e, &a->create2.attributes);
    case TBBT_OP_RENAME:
        *proc = (xdrproc_t)xdr_renameargs2;
        if (dirop2(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->rename2.from) < 0) return -1;
        return dirop2(e, TBBT_F_DIR2, TBBT_F_NAME2, e->name2, &a->rename2.to);
    case TBBT_OP_LINK:
        *proc = (xdrproc_t)xdr_linkargs2;
        if (fh2(e, TBBT_F_OBJ, &a->link2.from) < 0) return -1;
        return dirop2(e, TBBT_F_DIR, TBBT_F_NAME, e->name, &a->link2.to);
    case TBBT_OP_SYMLINK: *proc = (xdrproc_t)xdr_symlinkargs2; return symlink2(e, &a->symlink2);
    case TBBT_OP_READDIR: *proc = (xdrproc_t)xdr_readdirargs2; return readdir2(e, &a->readdir2);
    default: return fail(e, "not an NFSv2 procedure");
    }
}

/* ------------------------------------------------------------------ */
/* the message                                                         */
/* ------------------------------------------------------------------ */

/* Big-endian words and XDR opaque bytes (padded to 4) at p; each returns
 * the position after it. */
static uint8_t *put_u32(uint8_t *p, uint32_t v) {
    uint32_t be = htonl(v);
    memcpy(p, &be, 4);
    return p + 4;
}

static uint8_t *put_opaque(uint8_t *p, const void *b, uint32_t len) {
    p = put_u32(p, len);
    memcpy(p, b, len);
    memset(p + len, 0, (4 - (len & 3)) & 3);
    return p + ((len + 3) & ~3u);
}

/* The credential: AUTH_NONE for flavor 0, else an AUTH_SYS body
 * (authunix_parms, RFC 5531 appendix A: stamp 0, machine name, uid, gid,
 * gids) written into body (MAX_AUTH_BYTES) word by word, as
 * xdr_authunix_parms writes it, without its per-field calls. Sets *flavor
 * and returns the body's length, or -1. */
static int credential(struct enc *e, uint8_t *body, uint32_t *flavor) {
    const struct tbbt_cred *cr = e->c->cred ? e->c->cred : &e->r->cred;
    *flavor = AUTH_NONE;
    if (cr->flavor == AUTH_NONE) return 0;
    const char *machine = e->c->machine ? e->c->machine : TBBT_ENC_MACHINE;
    size_t mlen = strlen(machine);
    if (mlen > MAX_MACHINE_NAME) return fail(e, "machine name longer than %d bytes", MAX_MACHINE_NAME);
    uint32_t ngids = cr->ngids < TBBT_MAX_GIDS ? cr->ngids : TBBT_MAX_GIDS;
    uint8_t *p = put_u32(body, 0); /* stamp */
    p = put_opaque(p, machine, (uint32_t)mlen);
    p = put_u32(p, cr->uid);
    p = put_u32(p, cr->gid);
    p = put_u32(p, ngids);
    for (uint32_t i = 0; i < ngids; i++)
        p = put_u32(p, cr->gids[i]);
    *flavor = AUTH_SYS;
    return (int)(p - body);
}

/* The call's RPC header (rpc_msg, RFC 5531 section 9: xid, CALL, RPC
 * version 2, program, version, procedure, the credential, an AUTH_NONE
 * verifier) into buf, as xdr_callmsg writes it. Returns its length, or -1
 * (a credential that does not encode, or buf[0..cap) too small). */
static int header(struct enc *e, int proc, uint8_t *buf, size_t cap) {
    uint8_t cred[MAX_AUTH_BYTES];
    uint32_t flavor;
    int clen = credential(e, cred, &flavor);
    if (clen < 0) return -1;
    size_t need = 6 * 4 + 8 + ((size_t)clen + 3) / 4 * 4 + 8;
    if (cap < need) return fail(e, "a buffer of %zu bytes is too small", cap);
    uint8_t *p = put_u32(buf, e->xid);
    p = put_u32(p, CALL);
    p = put_u32(p, RPC_MSG_VERSION);
    p = put_u32(p, TBBT_NFS_PROGRAM);
    p = put_u32(p, e->r->vers);
    p = put_u32(p, (uint32_t)proc);
    p = put_u32(p, flavor);
    p = put_opaque(p, cred, (uint32_t)clen);
    p = put_u32(p, AUTH_NONE); /* the verifier */
    p = put_u32(p, 0);
    return (int)(p - buf);
}

/* WRITE's opaque data, count bytes of the payload repeated (zeros when
 * there is none) and padded, written straight into buf after its length
 * word. Returns 0, or -1 when buf[0..cap) cannot hold it. */
static int put_data(XDR *x, uint8_t *buf, size_t cap, const struct tbbt_enc_ctx *c, u_int count) {
    if (!xdr_u_int(x, &count)) return -1;
    size_t pos = xdr_getpos(x), need = ((size_t)count + 3) & ~(size_t)3;
    if (cap - pos < need) return -1;
    uint8_t *p = buf + pos;
    size_t unit = c->payload ? c->payload_len : 0;
    if (unit == 0) {
        memset(p, 0, count);
    } else {
        for (size_t done = 0; done < count; done += unit) {
            size_t n = count - done < unit ? count - done : unit;
            memcpy(p + done, c->payload, n);
        }
    }
    memset(p + count, 0, need - count);
    return xdr_setpos(x, (u_int)(pos + need)) ? 0 : -1;
}

/* A WRITE whose payload is shorter than its count: the fields before the
 * data through rpcgen's routines, in WRITE3args / writeargs2 order, then
 * put_data. Returns 0, or -1 when the buffer is too small. */
static int write_fill(XDR *x, uint8_t *buf, size_t cap, const struct tbbt_rec *r,
                      const struct tbbt_enc_ctx *c, union args *a) {
    if (r->vers == 3) {
        WRITE3args *w = &a->write3;
        if (!xdr_nfs_fh3(x, &w->file) || !xdr_offset3(x, &w->offset) || !xdr_count3(x, &w->count) ||
            !xdr_stable_how(x, &w->stable))
            return -1;
        return put_data(x, buf, cap, c, w->count);
    }
    writeargs2 *w = &a->write2;
    if (!xdr_fhandle2(x, &w->file) || !xdr_u_int(x, &w->beginoffset) || !xdr_u_int(x, &w->offset) ||
        !xdr_u_int(x, &w->totalcount))
        return -1;
    return put_data(x, buf, cap, c, w->data.nfsdata2_len);
}

/* Arguments first (every refusal before a byte is written), then header
 * and arguments through one xdrmem stream over buf. */
ssize_t tbbt_nfs_encode_call(const struct tbbt_rec *r, uint32_t xid, const struct tbbt_enc_ctx *c,
                             uint8_t *buf, size_t cap, char *err, size_t errlen) {
    struct enc e;
    e.r = r;
    e.c = c;
    e.xid = xid;
    e.err = err;
    e.errlen = errlen;
    e.fill = 0;
    if (r->vers != 2 && r->vers != 3) return fail(&e, "NFS version %u is neither 2 nor 3", r->vers);
    int proc = tbbt_op_to_wire((enum tbbt_op)r->op, r->vers);
    if (proc < 0) return fail(&e, "no such procedure in NFSv%u", r->vers);

    union args a;
    xdrproc_t argproc = NULL;
    if ((r->vers == 3 ? args3(&e, &a, &argproc) : args2(&e, &a, &argproc)) < 0) return -1;

    int hlen = header(&e, proc, buf, cap);
    if (hlen < 0) return -1;
    XDR x;
    size_t xcap = cap < UINT_MAX ? cap : UINT_MAX;
    xdrmem_create(&x, (char *)buf, (u_int)xcap, XDR_ENCODE);
    int ok = xdr_setpos(&x, (u_int)hlen);
    if (ok) ok = e.fill ? write_fill(&x, buf, xcap, r, c, &a) == 0 : argproc(&x, &a);
    size_t n = xdr_getpos(&x);
    xdr_destroy(&x);
    if (!ok) return fail(&e, "a buffer of %zu bytes is too small", cap);
    return (ssize_t)n;
}

/* The handle fields the operation table says the call names. */
unsigned tbbt_nfs_call_ids(const struct tbbt_rec *r, tbbt_id ids[3]) {
    unsigned n = 0;
    if (r->op >= TBBT_OP_COUNT) return 0;
    unsigned fl = tbbt_op_info((enum tbbt_op)r->op)->flags;
    if ((fl & TBBT_OPF_OBJ) && id_of(r, TBBT_F_OBJ)) ids[n++] = r->obj;
    if ((fl & TBBT_OPF_DIRNAME) && id_of(r, TBBT_F_DIR)) ids[n++] = r->dir;
    if ((fl & TBBT_OPF_DIRNAME2) && id_of(r, TBBT_F_DIR2)) ids[n++] = r->dir2;
    return n;
}
