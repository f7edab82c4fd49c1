/* initnfs.h -- the NFSv3 calls tbbt-init makes, each one asynchronous
 * through an nfsq (nfsq.h), in the project's types: handles as struct
 * tbbt_fh, owners and modes as the map gives them.
 *
 * Every function issues one call and returns 0 (cb will run exactly once
 * with the reply, see nfsq.h), or -1 when libnfs refused it at once (cb
 * will not run). In cb, tbbt_inf_status() gives the NFS status of a reply
 * and tbbt_inf_newfh() the handle a create-like call or a lookup
 * revealed. */
#ifndef TBBT_INITNFS_H
#define TBBT_INITNFS_H

#include <stdint.h>

#include "nfsconn.h"
#include "nfsq.h"

/* Attributes to set at creation: -1 leaves one unset. */
struct tbbt_inf_attr {
    int64_t mode, uid, gid;
};

/* Procedures, for tbbt_inf_newfh. */
enum tbbt_inf_proc {
    TBBT_INF_LOOKUP,
    TBBT_INF_MKDIR,
    TBBT_INF_CREATE,
    TBBT_INF_SYMLINK,
    TBBT_INF_MKNOD,
    TBBT_INF_OTHER,
};

/* A handle as the calls below take it: where its bytes are and how many.
 * The bytes must stay where they are until the call ends (it may be sent
 * again after a reconnection): a struct tbbt_fh that outlives the call,
 * or a slot of tbbt-init's handle table (fhslots.h: slots never move while
 * calls are out). */
struct tbbt_inf_fh {
    const uint8_t *data;
    uint32_t len;
};

static inline struct tbbt_inf_fh tbbt_inf_fh(const struct tbbt_fh *f) {
    return (struct tbbt_inf_fh){f->data, f->len};
}

int tbbt_inf_lookup(struct tbbt_nfsq *q, struct tbbt_inf_fh dir, const char *name, tbbt_nfsq_cb cb,
                    void *priv);
int tbbt_inf_mkdir(struct tbbt_nfsq *q, struct tbbt_inf_fh dir, const char *name,
                   const struct tbbt_inf_attr *a, tbbt_nfsq_cb cb, void *priv);
/* GUARDED create (a name that exists is an error, never overwritten). */
int tbbt_inf_create(struct tbbt_nfsq *q, struct tbbt_inf_fh dir, const char *name,
                    const struct tbbt_inf_attr *a, tbbt_nfsq_cb cb, void *priv);
int tbbt_inf_symlink(struct tbbt_nfsq *q, struct tbbt_inf_fh dir, const char *name, const char *target,
                     const struct tbbt_inf_attr *a, tbbt_nfsq_cb cb, void *priv);
/* type: TBBT_FT_FIFO, _SOCK, _CHR, _BLK (devices get 0:0). */
int tbbt_inf_mknod(struct tbbt_nfsq *q, struct tbbt_inf_fh dir, const char *name, uint32_t type,
                   const struct tbbt_inf_attr *a, tbbt_nfsq_cb cb, void *priv);
int tbbt_inf_link(struct tbbt_nfsq *q, struct tbbt_inf_fh file, struct tbbt_inf_fh dir, const char *name,
                  tbbt_nfsq_cb cb, void *priv);
/* UNSTABLE write of len bytes of data at offset (data must live until cb). */
int tbbt_inf_write(struct tbbt_nfsq *q, struct tbbt_inf_fh file, uint64_t offset, uint32_t len,
                   const void *data, tbbt_nfsq_cb cb, void *priv);
int tbbt_inf_commit(struct tbbt_nfsq *q, struct tbbt_inf_fh file, tbbt_nfsq_cb cb, void *priv);
int tbbt_inf_read(struct tbbt_nfsq *q, const struct tbbt_fh *file, uint64_t offset, uint32_t count,
                  tbbt_nfsq_cb cb, void *priv);
int tbbt_inf_remove(struct tbbt_nfsq *q, const struct tbbt_fh *dir, const char *name, tbbt_nfsq_cb cb,
                    void *priv);
int tbbt_inf_rmdir(struct tbbt_nfsq *q, const struct tbbt_fh *dir, const char *name, tbbt_nfsq_cb cb,
                   void *priv);
int tbbt_inf_truncate(struct tbbt_nfsq *q, const struct tbbt_fh *file, tbbt_nfsq_cb cb, void *priv);
int tbbt_inf_readdirplus(struct tbbt_nfsq *q, const struct tbbt_fh *dir, uint64_t cookie,
                         const uint8_t verf[8], tbbt_nfsq_cb cb, void *priv);
int tbbt_inf_fsstat(struct tbbt_nfsq *q, const struct tbbt_fh *root, tbbt_nfsq_cb cb, void *priv);
int tbbt_inf_fsinfo(struct tbbt_nfsq *q, const struct tbbt_fh *root, tbbt_nfsq_cb cb, void *priv);

/* The NFS status of a reply's data (every NFSv3 result starts with it). */
int tbbt_inf_status(const void *data);

/* The write verifier of a successful WRITE (resp. COMMIT) reply into
 * verf; 0, or -1 when the reply failed. A server that restarted answers
 * with a new verifier: data it acknowledged UNSTABLE before may be lost
 * and must be written again (RFC 1813, COMMIT). */
int tbbt_inf_write_verf(const void *data, uint8_t verf[8]);
int tbbt_inf_commit_verf(const void *data, uint8_t verf[8]);

/* The handle a successful LOOKUP, MKDIR, CREATE, SYMLINK or MKNOD reply
 * carries, into *fh. Returns 0, or -1 when the reply has none. */
int tbbt_inf_newfh(enum tbbt_inf_proc proc, const void *data, struct tbbt_fh *fh);

/* The type (TBBT_FT_*) in a LOOKUP reply's attributes; 0 when absent. */
uint32_t tbbt_inf_lookup_type(const void *data);

/* Sizes from an FSSTAT reply: total, free and available-to-user bytes. */
void tbbt_inf_fsstat_sizes(const void *data, uint64_t *tbytes, uint64_t *fbytes, uint64_t *abytes);

/* wtmax of an FSINFO reply (preferred largest write), or 0. */
uint32_t tbbt_inf_fsinfo_wtmax(const void *data);

/* A READ reply's data: *len bytes at the returned pointer (NULL if none). */
const void *tbbt_inf_read_data(const void *data, uint32_t *len, int *eof);

/* Calls fn(ctx, name, fh, type) for each entry of a READDIRPLUS reply with
 * a handle (not "." or ".."); returns the last cookie, *eof and verf. */
uint64_t tbbt_inf_readdirplus_each(const void *data,
                                   void (*fn)(void *ctx, const char *name, const struct tbbt_fh *fh,
                                              uint32_t type),
                                   void *ctx, int *eof, uint8_t verf[8]);

#endif
