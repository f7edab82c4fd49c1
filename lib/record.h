/* record.h -- the replay record: one NFS call paired with its reply.
 *
 * The paper's <callTime, replyTime, opType, opParams, opReturn> with every
 * file handle replaced by a TBBT-ID. A record is a fixed header plus a set
 * of optional fields; which fields are present is a bit mask, and each
 * field is declared once in tbbt_fields[] (record.c), a table that
 * drives the binary encoding, the text form and the JSON output alike.
 *
 * Ownership: a record owns its string arena and entry array; both grow on
 * demand and are reused by tbbt_rec_clear(), so a stage that decodes into
 * one record after another allocates nothing once warm. */
#ifndef TBBT_RECORD_H
#define TBBT_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "nfs_ops.h"

typedef uint64_t tbbt_id; /* TBBT-ID of a file-system object; 0 = none */

/* A transport endpoint as seen in the capture. */
struct tbbt_endpoint {
    uint8_t family;   /* 4 or 6; 0 = unknown (e.g. Ellard's anonymised hosts) */
    uint8_t addr[16]; /* IPv4 in the first 4 bytes */
    uint16_t port;
};

/* Record flags. */
enum {
    TBBT_RF_REPLY_LOST = 1u << 0, /* call seen, reply never seen */
    TBBT_RF_INSERTED = 1u << 1,   /* corrective record, not in the capture */
    TBBT_RF_TCP = 1u << 2,        /* carried over TCP (else UDP) */
    TBBT_RF_CALL_TRUNC = 1u << 3, /* call cut short (snaplen); headers kept */
    TBBT_RF_REPLY_TRUNC = 1u << 4,
    TBBT_RF_RETRANS = 1u << 5,   /* the call was retransmitted at least once */
    TBBT_RF_RPC_ERROR = 1u << 6, /* RPC-level error reply (denied, GARBAGE_ARGS...): no NFS status */
    /* A mkdir, inserted or with its reply lost, whose directory began
     * empty: pass 2 judged every name in it as made since, so every later
     * pass must too (no record pass 2 met before it knew the directory
     * taught a name in it as there before the trace). */
    TBBT_RF_MADE_EMPTY = 1u << 7,
    /* The snaplen cut the call before an argument its request is rebuilt
     * from (a handle, a name, an attribute to set; a WRITE's data does not
     * count: the player makes its own payload). The cut field is absent,
     * never partial. Pass 1 sets it (with TBBT_RF_CALL_TRUNC), also on a
     * call cut inside its RPC header, which keeps only xid, procedure,
     * times and the reply's status. Pass 2 clears it where it restores
     * what was cut (a name learnt through the object's fileid, or a
     * synthetic one, TBBT_RF_NAME_SYNTH). The player never sends a record
     * that still has it: it counts it not replayable. */
    TBBT_RF_ARGS_CUT = 1u << 8,
    /* The record's name (or rename's target name) is not the traced one:
     * the snaplen cut it and pass 2 gave the object a stable synthetic
     * name, the same in every record that names that object. */
    TBBT_RF_NAME_SYNTH = 1u << 9,
};

/* A string in the record's arena. */
struct tbbt_str {
    uint32_t off, len;
};

/* One directory entry from a readdir or readdirplus reply. */
struct tbbt_dirent {
    uint64_t fileid;
    uint64_t cookie;
    tbbt_id id;    /* readdirplus: the entry's handle as a TBBT-ID, or 0 */
    uint8_t type;  /* readdirplus attributes: NF3 type, or 0 */
    uint64_t size; /* readdirplus attributes: size (valid if type != 0) */
    struct tbbt_str name;
};

/* NF3 object types: the values of TBBT_F_TYPE and of a listing entry's
 * type (the decoder maps NFSv2's ftype to these). */
enum {
    TBBT_FT_NONE = 0,
    TBBT_FT_REG = 1,
    TBBT_FT_DIR = 2,
    TBBT_FT_BLK = 3,
    TBBT_FT_CHR = 4,
    TBBT_FT_LNK = 5,
    TBBT_FT_SOCK = 6,
    TBBT_FT_FIFO = 7,
};

/* Optional fields. The order is the order of the text form and of the
 * binary encoding; append new fields at the end and bump the format
 * version. See tbbt_fields[] for each one's key, type and meaning. */
enum tbbt_field {
    /* --- call arguments --- */
    TBBT_F_OBJ,        /* id: the object the call names by handle */
    TBBT_F_DIR,        /* id: directory of a (dir, name) argument */
    TBBT_F_NAME,       /* str */
    TBBT_F_DIR2,       /* id: rename's target directory */
    TBBT_F_NAME2,      /* str: rename's target name */
    TBBT_F_OFFSET,     /* u64: read, write, commit */
    TBBT_F_COUNT,      /* u32: read, write, commit; readdir(v2) count */
    TBBT_F_STABLE,     /* u32: write's stable_how */
    TBBT_F_CREATEHOW,  /* u32: create mode (UNCHECKED, GUARDED, EXCLUSIVE) */
    TBBT_F_VERF,       /* u64: exclusive-create verifier */
    TBBT_F_COOKIE,     /* u64: readdir cookie */
    TBBT_F_COOKIEVERF, /* u64: readdir cookie verifier */
    TBBT_F_DIRCOUNT,   /* u32: readdirplus dircount */
    TBBT_F_MAXCOUNT,   /* u32: readdir(plus) maxcount */
    TBBT_F_ACCESS,     /* u32: access bits asked */
    TBBT_F_SET_MODE,   /* u32: sattr mode */
    TBBT_F_SET_UID,    /* u32 */
    TBBT_F_SET_GID,    /* u32 */
    TBBT_F_SET_SIZE,   /* u64 */
    TBBT_F_SET_ATIME,  /* time; TBBT_TIME_SERVER = set to server time */
    TBBT_F_SET_MTIME,  /* time */
    TBBT_F_GUARD,      /* time: setattr guard ctime */
    TBBT_F_TARGET,     /* str: symlink target (call), readlink result */
    TBBT_F_NODETYPE,   /* u32: mknod type */
    TBBT_F_RDEV,       /* u64: mknod (major << 32 | minor) */
    /* --- reply results --- */
    TBBT_F_NEWOBJ,      /* id: object a lookup/create/mkdir/symlink/mknod revealed */
    TBBT_F_RCOUNT,      /* u32: bytes read or written, entries returned */
    TBBT_F_EOF,         /* u32: read or readdir eof */
    TBBT_F_COMMITTED,   /* u32: write's committed stable_how */
    TBBT_F_WVERF,       /* u64: write or commit verifier */
    TBBT_F_RACCESS,     /* u32: access bits granted */
    TBBT_F_RCOOKIEVERF, /* u64: readdir reply cookie verifier */
    /* Attributes of the record's principal object after the call: the new
     * object for lookup/create/mkdir/symlink/mknod, else obj. */
    TBBT_F_TYPE,      /* u32: NF3 type (1 reg, 2 dir, 3 blk, 4 chr, 5 lnk, 6 sock, 7 fifo) */
    TBBT_F_MODE,      /* u32 */
    TBBT_F_NLINK,     /* u32 */
    TBBT_F_UID,       /* u32 */
    TBBT_F_GID,       /* u32 */
    TBBT_F_SIZE,      /* u64 */
    TBBT_F_USED,      /* u64 */
    TBBT_F_FSID,      /* u64 */
    TBBT_F_FILEID,    /* u64 */
    TBBT_F_ATIME,     /* time */
    TBBT_F_MTIME,     /* time */
    TBBT_F_CTIME,     /* time */
    TBBT_F_PRE_SIZE,  /* u64: wcc before-attributes of the principal object */
    TBBT_F_PRE_MTIME, /* time */
    TBBT_F_PRE_CTIME, /* time */
    /* Directory (dir) attributes after the call (lookup dir_attributes,
     * the after half of dir_wcc). */
    TBBT_F_DIR_FILEID, /* u64 */
    TBBT_F_DIR_SIZE,   /* u64 */
    TBBT_F_DIR_MTIME,  /* time */
    TBBT_F_DIR_NLINK,  /* u32 */
    /* rename/link: second directory's after-attributes */
    TBBT_F_DIR2_FILEID, /* u64 */
    TBBT_F_DIR2_MTIME,  /* time */
    /* object identity for remove/rmdir/rename (filled in by pass 3) */
    TBBT_F_VICTIM,  /* id: object a remove/rmdir deletes, or rename moves */
    TBBT_F_VICTIM2, /* id: object a rename replaces */
    TBBT_F_ENTRIES, /* entries: readdir/readdirplus listing */
    /* a name argument the snaplen cut (TBBT_F_NAME absent, TBBT_RF_ARGS_CUT
     * set): what the capture kept of it, for pass 2 to match names by */
    TBBT_F_CUTNAME, /* str: the name's first bytes the capture kept (maybe none) */
    TBBT_F_CUTLEN,  /* u32: the name's whole length, as the call announced it */
    TBBT_F_COUNT_
};

/* Field value types. */
enum tbbt_ftype {
    TBBT_FT_ID,
    TBBT_FT_U32,
    TBBT_FT_U64,
    TBBT_FT_TIME, /* int64 nanoseconds since the epoch */
    TBBT_FT_STR,
    TBBT_FT_ENTRIES,
};

/* Sentinel for sattr times set to the server's clock. */
#define TBBT_TIME_SERVER INT64_MIN

/* One field's declaration. */
struct tbbt_field_info {
    enum tbbt_field f;
    const char *key; /* text and JSON key */
    enum tbbt_ftype type;
    size_t offset; /* offset of the value in struct tbbt_rec */
};

extern const struct tbbt_field_info tbbt_fields[TBBT_F_COUNT_];

#define TBBT_MAX_GIDS 16

#define TBBT_AUTH_NONE 0 /* tbbt_cred.flavor numbers (RFC 5531) */
#define TBBT_AUTH_SYS 1

/* Credentials (AUTH_SYS). */
struct tbbt_cred {
    uint32_t flavor; /* TBBT_AUTH_NONE, TBBT_AUTH_SYS, other as seen */
    uint32_t uid, gid;
    uint32_t ngids;
    uint32_t gids[TBBT_MAX_GIDS];
};

struct tbbt_rec {
    /* --- fixed header --- */
    int64_t call_time;  /* ns since the epoch, after timestamp repair */
    int64_t reply_time; /* ns; meaningless when TBBT_RF_REPLY_LOST */
    struct tbbt_endpoint client, server;
    uint32_t xid;
    uint8_t vers;   /* 2 or 3 */
    uint8_t op;     /* enum tbbt_op */
    uint16_t flags; /* TBBT_RF_* */
    int32_t status; /* NFS status; -1 when there is no reply */
    struct tbbt_cred cred;

    /* --- optional fields --- */
    uint64_t has; /* bit (1 << f) set when field f is present */

    tbbt_id obj, dir, dir2, newobj, victim, victim2;
    struct tbbt_str name, name2, target, cutname;
    uint64_t offset, verf, cookie, cookieverf, set_size, rdev;
    uint32_t count, stable, createhow, dircount, maxcount, access;
    uint32_t set_mode, set_uid, set_gid, nodetype, cutlen;
    int64_t set_atime, set_mtime, guard;
    uint32_t rcount, eof, committed, raccess;
    uint64_t wverf, rcookieverf;
    uint32_t type, mode, nlink, uid, gid;
    uint64_t size, used, fsid, fileid;
    int64_t atime, mtime, ctime;
    uint64_t pre_size;
    int64_t pre_mtime, pre_ctime;
    uint64_t dir_fileid, dir_size;
    int64_t dir_mtime;
    uint32_t dir_nlink;
    uint64_t dir2_fileid;
    int64_t dir2_mtime;

    /* listing (TBBT_F_ENTRIES) */
    struct tbbt_dirent *entries;
    uint32_t nentries, entries_cap;

    /* string arena: names, targets, entry names */
    char *arena;
    uint32_t arena_len, arena_cap;
};

/* Initialises an empty record (no allocation until a string or entry is
 * added). */
void tbbt_rec_init(struct tbbt_rec *r);

/* Resets r to empty, keeping its buffers for reuse. */
void tbbt_rec_clear(struct tbbt_rec *r);

/* Frees r's buffers. r may be reused after tbbt_rec_init(). */
void tbbt_rec_free(struct tbbt_rec *r);

/* Copies src into dst (deep: dst gets its own arena and entries). */
void tbbt_rec_copy(struct tbbt_rec *dst, const struct tbbt_rec *src);

static inline int tbbt_rec_has(const struct tbbt_rec *r, enum tbbt_field f) {
    return (r->has >> f) & 1;
}

/* Can r be sent to a server? Not when it never ran on the traced server
 * (an RPC-level error reply, an operation outside NFSv2/v3) nor when the
 * snaplen cut an argument its request needs and nothing restored it. */
static inline int tbbt_rec_replayable(const struct tbbt_rec *r) {
    return !(r->flags & (TBBT_RF_RPC_ERROR | TBBT_RF_ARGS_CUT)) && r->op < TBBT_OP_COUNT;
}

/* Sets a numeric field's value and marks it present. */
void tbbt_rec_set_u64(struct tbbt_rec *r, enum tbbt_field f, uint64_t v);
uint64_t tbbt_rec_get_u64(const struct tbbt_rec *r, enum tbbt_field f);

/* Stores len bytes of s as string field f (copied into the arena). */
void tbbt_rec_set_str(struct tbbt_rec *r, enum tbbt_field f, const char *s, size_t len);

/* Returns a pointer to a string's bytes (not NUL terminated: use s.len).
 * Never NULL: a record with no string yet has no arena, and callers pass
 * the pointer to memcmp/memcpy, where NULL is undefined even for 0 bytes. */
static inline const char *tbbt_rec_str(const struct tbbt_rec *r, struct tbbt_str s) {
    return r->arena ? r->arena + s.off : "";
}

/* Appends a directory entry whose name is copied into the arena; returns
 * it for the caller to fill the remaining members. */
struct tbbt_dirent *tbbt_rec_add_entry(struct tbbt_rec *r, const char *name, size_t len);

#endif
