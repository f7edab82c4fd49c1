/* nfs_ops.h -- the one table of NFS operations every stage uses.
 *
 * NFSv2 (RFC 1094) and NFSv3 (RFC 1813) number their procedures
 * differently; the rest of tbbt works on one operation set, enum tbbt_op,
 * and maps wire numbers to it here and nowhere else. */
#ifndef TBBT_NFS_OPS_H
#define TBBT_NFS_OPS_H

#include <stddef.h>
#include <stdint.h>

/* ONC RPC program and version numbers (RFC 1094, RFC 1813 and its
 * appendix I for MOUNT; NFSACL is Sun's, unnumbered by any RFC). */
#define TBBT_NFS_PROGRAM 100003u
#define TBBT_MOUNT_PROGRAM 100005u
#define TBBT_NFSACL_PROGRAM 100227u
#define TBBT_NFS_V2 2u
#define TBBT_NFS_V3 3u
#define TBBT_NFS_V4 4u   /* only recognised, to be counted and left out */
#define TBBT_MOUNT_V1 1u /* NFSv2's MOUNT */
#define TBBT_MOUNT_V3 3u /* NFSv3's MOUNT */

enum tbbt_op {
    TBBT_OP_NULL = 0,
    TBBT_OP_GETATTR,
    TBBT_OP_SETATTR,
    TBBT_OP_ROOT, /* v2 only, obsolete */
    TBBT_OP_LOOKUP,
    TBBT_OP_ACCESS, /* v3 only */
    TBBT_OP_READLINK,
    TBBT_OP_READ,
    TBBT_OP_WRITECACHE, /* v2 only, obsolete */
    TBBT_OP_WRITE,
    TBBT_OP_CREATE,
    TBBT_OP_MKDIR,
    TBBT_OP_SYMLINK,
    TBBT_OP_MKNOD, /* v3 only */
    TBBT_OP_REMOVE,
    TBBT_OP_RMDIR,
    TBBT_OP_RENAME,
    TBBT_OP_LINK,
    TBBT_OP_READDIR,
    TBBT_OP_READDIRPLUS, /* v3 only */
    TBBT_OP_STATFS,      /* v2 only; v3 calls it FSSTAT */
    TBBT_OP_FSSTAT,      /* v3 only */
    TBBT_OP_FSINFO,      /* v3 only */
    TBBT_OP_PATHCONF,    /* v3 only */
    TBBT_OP_COMMIT,      /* v3 only */
    TBBT_OP_COUNT
};

/* Operation traits, the shape of arguments and results. */
enum {
    TBBT_OPF_OBJ = 1u << 0,      /* call names an object by handle (obj) */
    TBBT_OPF_DIRNAME = 1u << 1,  /* call names (dir, name) */
    TBBT_OPF_DIRNAME2 = 1u << 2, /* call names a second (dir2, name2) */
    TBBT_OPF_NEWOBJ = 1u << 3,   /* reply may reveal an object handle */
    TBBT_OPF_CREATES = 1u << 4,  /* success creates a new object */
    TBBT_OPF_DELETES = 1u << 5,  /* success removes a name */
    TBBT_OPF_MODIFIES = 1u << 6, /* success changes file-system state */
    TBBT_OPF_LISTING = 1u << 7,  /* reply carries directory entries */
};

struct tbbt_op_info {
    enum tbbt_op op;
    const char *name; /* the RFC's procedure name, lower case */
    int v2proc;       /* wire number in NFSv2, -1 if absent */
    int v3proc;       /* wire number in NFSv3, -1 if absent */
    unsigned flags;   /* TBBT_OPF_* */
};

/* Is name "." or ".." -- the entries every directory has and lists,
 * which no call makes or removes? */
static inline int tbbt_dot_name(const char *n, size_t len) {
    return (len == 1 && n[0] == '.') || (len == 2 && n[0] == '.' && n[1] == '.');
}

/* Returns the table entry for op; op must be < TBBT_OP_COUNT. */
const struct tbbt_op_info *tbbt_op_info(enum tbbt_op op);

/* Maps a wire (version, procedure) to an operation. Returns the operation,
 * or -1 when the version or procedure number is unknown. */
int tbbt_op_from_wire(unsigned vers, unsigned proc);

/* Returns the wire procedure number of op in version vers, or -1. */
int tbbt_op_to_wire(enum tbbt_op op, unsigned vers);

/* Finds an operation by its lower-case name ("fsstat", "statfs",
 * "readdirplus"). Returns the operation, or -1 if no name matches. */
int tbbt_op_by_name(const char *name);

#endif
