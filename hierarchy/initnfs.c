/* initnfs.c -- tbbt-init's NFSv3 calls (see initnfs.h). */
#include "nfsfh.h"
#include "initnfs.h"

#include <string.h>

#include <sys/time.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>

#include "fsmodel.h"
#include "nfsstat.h"
#include "unconst.h"

/* The sattr3 of a: mode, uid, gid where set. */
static sattr3 sattr(const struct tbbt_inf_attr *a) {
    sattr3 s;
    memset(&s, 0, sizeof(s));
    if (a && a->mode >= 0) s.mode.set_it = 1, s.mode.set_mode3_u.mode = (mode3)a->mode;
    if (a && a->uid >= 0) s.uid.set_it = 1, s.uid.set_uid3_u.uid = (uid3)a->uid;
    if (a && a->gid >= 0) s.gid.set_it = 1, s.gid.set_gid3_u.gid = (gid3)a->gid;
    return s;
}

/* A sender (nfsq.h) for each procedure: the libnfs call on a kept copy of
 * its arguments, so the queue can send it again after a reconnection. */
#define SENDER(proc, type, fn)                                                                               \
    static int send_##proc(struct rpc_context *rpc, void *args, void *cookie) {                              \
        return fn(rpc, tbbt_nfsq_thunk, (type *)args, cookie);                                               \
    }
SENDER(lookup, LOOKUP3args, rpc_nfs3_lookup_async)
SENDER(mkdir, MKDIR3args, rpc_nfs3_mkdir_async)
SENDER(create, CREATE3args, rpc_nfs3_create_async)
SENDER(symlink, SYMLINK3args, rpc_nfs3_symlink_async)
SENDER(mknod, MKNOD3args, rpc_nfs3_mknod_async)
SENDER(link, LINK3args, rpc_nfs3_link_async)
SENDER(write, WRITE3args, rpc_nfs3_write_async)
SENDER(commit, COMMIT3args, rpc_nfs3_commit_async)
SENDER(read, READ3args, rpc_nfs3_read_async)
SENDER(remove, REMOVE3args, rpc_nfs3_remove_async)
SENDER(rmdir, RMDIR3args, rpc_nfs3_rmdir_async)
SENDER(setattr, SETATTR3args, rpc_nfs3_setattr_async)
SENDER(readdirplus, READDIRPLUS3args, rpc_nfs3_readdirplus_async)
SENDER(fsstat, FSSTAT3args, rpc_nfs3_fsstat_async)
SENDER(fsinfo, FSINFO3args, rpc_nfs3_fsinfo_async)

/* Issues the call of proc with arguments a through q. */
/* A call's handle argument: it points at the caller's bytes. */
static nfs_fh3 fh3(struct tbbt_inf_fh f) {
    nfs_fh3 h;
    h.data.data_len = f.len;
    h.data.data_val = tbbt_unconst(f.data);
    return h;
}

#define ISSUE(q, cb, priv, proc) return tbbt_nfsq_send(q, cb, priv, send_##proc, &a, sizeof(a))

int tbbt_inf_lookup(struct tbbt_nfsq *q, struct tbbt_inf_fh dir, const char *name, tbbt_nfsq_cb cb,
                    void *priv) {
    LOOKUP3args a;
    memset(&a, 0, sizeof(a));
    a.what.dir = fh3(dir);
    a.what.name = tbbt_unconst(name);
    ISSUE(q, cb, priv, lookup);
}

int tbbt_inf_mkdir(struct tbbt_nfsq *q, struct tbbt_inf_fh dir, const char *name,
                   const struct tbbt_inf_attr *at, tbbt_nfsq_cb cb, void *priv) {
    MKDIR3args a;
    memset(&a, 0, sizeof(a));
    a.where.dir = fh3(dir);
    a.where.name = tbbt_unconst(name);
    a.attributes = sattr(at);
    ISSUE(q, cb, priv, mkdir);
}

int tbbt_inf_create(struct tbbt_nfsq *q, struct tbbt_inf_fh dir, const char *name,
                    const struct tbbt_inf_attr *at, tbbt_nfsq_cb cb, void *priv) {
    CREATE3args a;
    memset(&a, 0, sizeof(a));
    a.where.dir = fh3(dir);
    a.where.name = tbbt_unconst(name);
    a.how.mode = GUARDED;
    a.how.createhow3_u.obj_attributes = sattr(at);
    ISSUE(q, cb, priv, create);
}

int tbbt_inf_symlink(struct tbbt_nfsq *q, struct tbbt_inf_fh dir, const char *name, const char *target,
                     const struct tbbt_inf_attr *at, tbbt_nfsq_cb cb, void *priv) {
    SYMLINK3args a;
    memset(&a, 0, sizeof(a));
    a.where.dir = fh3(dir);
    a.where.name = tbbt_unconst(name);
    a.symlink.symlink_attributes = sattr(at);
    a.symlink.symlink_data = tbbt_unconst(target);
    ISSUE(q, cb, priv, symlink);
}

int tbbt_inf_mknod(struct tbbt_nfsq *q, struct tbbt_inf_fh dir, const char *name, uint32_t type,
                   const struct tbbt_inf_attr *at, tbbt_nfsq_cb cb, void *priv) {
    MKNOD3args a;
    memset(&a, 0, sizeof(a));
    a.where.dir = fh3(dir);
    a.where.name = tbbt_unconst(name);
    a.what.type = (ftype3)type;
    switch (type) {
    case TBBT_FT_CHR: a.what.mknoddata3_u.chr_device.dev_attributes = sattr(at); break;
    case TBBT_FT_BLK: a.what.mknoddata3_u.blk_device.dev_attributes = sattr(at); break;
    case TBBT_FT_SOCK: a.what.mknoddata3_u.sock_attributes = sattr(at); break;
    default: a.what.type = NF3FIFO, a.what.mknoddata3_u.pipe_attributes = sattr(at);
    }
    ISSUE(q, cb, priv, mknod);
}

int tbbt_inf_link(struct tbbt_nfsq *q, struct tbbt_inf_fh file, struct tbbt_inf_fh dir, const char *name,
                  tbbt_nfsq_cb cb, void *priv) {
    LINK3args a;
    memset(&a, 0, sizeof(a));
    a.file = fh3(file);
    a.link.dir = fh3(dir);
    a.link.name = tbbt_unconst(name);
    ISSUE(q, cb, priv, link);
}

int tbbt_inf_write(struct tbbt_nfsq *q, struct tbbt_inf_fh file, uint64_t offset, uint32_t len,
                   const void *data, tbbt_nfsq_cb cb, void *priv) {
    WRITE3args a;
    memset(&a, 0, sizeof(a));
    a.file = fh3(file);
    a.offset = offset;
    a.count = len;
    a.stable = UNSTABLE;
    a.data.data_len = len;
    a.data.data_val = tbbt_unconst(data);
    ISSUE(q, cb, priv, write);
}

int tbbt_inf_commit(struct tbbt_nfsq *q, struct tbbt_inf_fh file, tbbt_nfsq_cb cb, void *priv) {
    COMMIT3args a;
    memset(&a, 0, sizeof(a));
    a.file = fh3(file);
    ISSUE(q, cb, priv, commit);
}

int tbbt_inf_read(struct tbbt_nfsq *q, const struct tbbt_fh *file, uint64_t offset, uint32_t count,
                  tbbt_nfsq_cb cb, void *priv) {
    READ3args a;
    memset(&a, 0, sizeof(a));
    a.file = tbbt_nfs_fh3(file);
    a.offset = offset;
    a.count = count;
    ISSUE(q, cb, priv, read);
}

int tbbt_inf_remove(struct tbbt_nfsq *q, const struct tbbt_fh *dir, const char *name, tbbt_nfsq_cb cb,
                    void *priv) {
    REMOVE3args a;
    memset(&a, 0, sizeof(a));
    a.object.dir = tbbt_nfs_fh3(dir);
    a.object.name = tbbt_unconst(name);
    ISSUE(q, cb, priv, remove);
}

int tbbt_inf_rmdir(struct tbbt_nfsq *q, const struct tbbt_fh *dir, const char *name, tbbt_nfsq_cb cb,
                   void *priv) {
    RMDIR3args a;
    memset(&a, 0, sizeof(a));
    a.object.dir = tbbt_nfs_fh3(dir);
    a.object.name = tbbt_unconst(name);
    ISSUE(q, cb, priv, rmdir);
}

int tbbt_inf_truncate(struct tbbt_nfsq *q, const struct tbbt_fh *file, tbbt_nfsq_cb cb, void *priv) {
    SETATTR3args a;
    memset(&a, 0, sizeof(a));
    a.object = tbbt_nfs_fh3(file);
    a.new_attributes.size.set_it = 1;
    a.new_attributes.size.set_size3_u.size = 0;
    ISSUE(q, cb, priv, setattr);
}

int tbbt_inf_readdirplus(struct tbbt_nfsq *q, const struct tbbt_fh *dir, uint64_t cookie,
                         const uint8_t verf[8], tbbt_nfsq_cb cb, void *priv) {
    READDIRPLUS3args a;
    memset(&a, 0, sizeof(a));
    a.dir = tbbt_nfs_fh3(dir);
    a.cookie = cookie;
    memcpy(a.cookieverf, verf, NFS3_COOKIEVERFSIZE);
    a.dircount = 8192;
    a.maxcount = 65536;
    ISSUE(q, cb, priv, readdirplus);
}

int tbbt_inf_fsstat(struct tbbt_nfsq *q, const struct tbbt_fh *root, tbbt_nfsq_cb cb, void *priv) {
    FSSTAT3args a;
    memset(&a, 0, sizeof(a));
    a.fsroot = tbbt_nfs_fh3(root);
    ISSUE(q, cb, priv, fsstat);
}

int tbbt_inf_fsinfo(struct tbbt_nfsq *q, const struct tbbt_fh *root, tbbt_nfsq_cb cb, void *priv) {
    FSINFO3args a;
    memset(&a, 0, sizeof(a));
    a.fsroot = tbbt_nfs_fh3(root);
    ISSUE(q, cb, priv, fsinfo);
}

int tbbt_inf_status(const void *data) {
    return data ? (int)*(const nfsstat3 *)data : -1;
}

/* Contract in initnfs.h. */
int tbbt_inf_write_verf(const void *data, uint8_t verf[8]) {
    if (tbbt_inf_status(data) != TBBT_NFS_OK) return -1;
    memcpy(verf, ((const WRITE3res *)data)->WRITE3res_u.resok.verf, NFS3_WRITEVERFSIZE);
    return 0;
}

/* Contract in initnfs.h. */
int tbbt_inf_commit_verf(const void *data, uint8_t verf[8]) {
    if (tbbt_inf_status(data) != TBBT_NFS_OK) return -1;
    memcpy(verf, ((const COMMIT3res *)data)->COMMIT3res_u.resok.verf, NFS3_WRITEVERFSIZE);
    return 0;
}

int tbbt_inf_newfh(enum tbbt_inf_proc proc, const void *data, struct tbbt_fh *fh) {
    if (tbbt_inf_status(data) != TBBT_NFS_OK) return -1;
    switch (proc) {
    case TBBT_INF_LOOKUP: return tbbt_nfs_copy_fh(&((const LOOKUP3res *)data)->LOOKUP3res_u.resok.object, fh);
    case TBBT_INF_MKDIR: return tbbt_nfs_post_fh(&((const MKDIR3res *)data)->MKDIR3res_u.resok.obj, fh);
    case TBBT_INF_CREATE: return tbbt_nfs_post_fh(&((const CREATE3res *)data)->CREATE3res_u.resok.obj, fh);
    case TBBT_INF_SYMLINK: return tbbt_nfs_post_fh(&((const SYMLINK3res *)data)->SYMLINK3res_u.resok.obj, fh);
    case TBBT_INF_MKNOD: return tbbt_nfs_post_fh(&((const MKNOD3res *)data)->MKNOD3res_u.resok.obj, fh);
    default: return -1;
    }
}

uint32_t tbbt_inf_lookup_type(const void *data) {
    if (tbbt_inf_status(data) != TBBT_NFS_OK) return 0;
    const post_op_attr *a = &((const LOOKUP3res *)data)->LOOKUP3res_u.resok.obj_attributes;
    return a->attributes_follow ? (uint32_t)a->post_op_attr_u.attributes.type : 0;
}

void tbbt_inf_fsstat_sizes(const void *data, uint64_t *tbytes, uint64_t *fbytes, uint64_t *abytes) {
    const FSSTAT3resok *r = &((const FSSTAT3res *)data)->FSSTAT3res_u.resok;
    *tbytes = r->tbytes, *fbytes = r->fbytes, *abytes = r->abytes;
}

uint32_t tbbt_inf_fsinfo_wtmax(const void *data) {
    if (tbbt_inf_status(data) != TBBT_NFS_OK) return 0;
    return ((const FSINFO3res *)data)->FSINFO3res_u.resok.wtmax;
}

const void *tbbt_inf_read_data(const void *data, uint32_t *len, int *eof) {
    if (tbbt_inf_status(data) != TBBT_NFS_OK) return NULL;
    const READ3resok *r = &((const READ3res *)data)->READ3res_u.resok;
    *len = r->data.data_len;
    *eof = (int)r->eof;
    return r->data.data_val;
}

uint64_t tbbt_inf_readdirplus_each(const void *data,
                                   void (*fn)(void *ctx, const char *name, const struct tbbt_fh *fh,
                                              uint32_t type),
                                   void *ctx, int *eof, uint8_t verf[8]) {
    const READDIRPLUS3resok *r = &((const READDIRPLUS3res *)data)->READDIRPLUS3res_u.resok;
    uint64_t cookie = 0;
    /* libnfs's decoder lays the entries out unaligned: read each through a copy */
    for (const entryplus3 *p = r->reply.entries; p;) {
        entryplus3 e;
        memcpy(&e, p, sizeof(e));
        cookie = e.cookie;
        p = e.nextentry;
        if (!strcmp(e.name, ".") || !strcmp(e.name, "..")) continue;
        struct tbbt_fh fh;
        uint32_t type = e.name_attributes.attributes_follow
                            ? (uint32_t)e.name_attributes.post_op_attr_u.attributes.type
                            : 0;
        if (tbbt_nfs_post_fh(&e.name_handle, &fh) == 0) fn(ctx, e.name, &fh, type);
    }
    *eof = (int)r->reply.eof;
    memcpy(verf, r->cookieverf, NFS3_COOKIEVERFSIZE);
    return cookie;
}
