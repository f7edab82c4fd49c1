/* nfsenc.h -- a replay record's NFS call encoded as ONC RPC bytes.
 *
 * The player's send thread turns a record (one traced call, its handles
 * replaced by TBBT-IDs) back into the bytes of an RPC call message (RFC
 * 5531) carrying the NFSv2 (RFC 1094) or NFSv3 (RFC 1813) call, against a
 * live server: the caller supplies, through callbacks, the live handle of
 * each TBBT-ID and the live readdir cookies. Stateless and allocation-free:
 * libtirpc's xdrmem stream and rpcgen's routines from lib/proto/tbbt_nfs.x
 * write straight into the caller's buffer. The inverse of nfsdec.h's
 * tbbt_rpc_parse + tbbt_nfs_decode_call: every argument comes from the
 * record field the decoder stores it in.
 *
 * Arguments the record lacks (a v2 record replayed as v3, an Ellard
 * record, a corrective record) take these values:
 *
 *   argument                         record field         when absent
 *   -------------------------------  -------------------  -----------------------------
 *   handles (obj, dir, dir2)         OBJ, DIR, DIR2       error (no neutral handle)
 *   names, symlink target            NAME, NAME2, TARGET  error
 *   mknod type                       NODETYPE             error
 *   mknod rdev (CHR, BLK)            RDEV (maj<<32|min)   0, 0
 *   sattr mode/uid/gid/size/times    SET_*                not set (v2: -1)
 *   sattr time = server's clock      SET_[AM]TIME = TBBT_TIME_SERVER: v3 SET_TO_SERVER_TIME,
 *                                    v2 (-1, 1000000) (the Linux client's convention)
 *   setattr guard                    GUARD                no guard (check FALSE)
 *   read/write/commit offset         OFFSET               0
 *   read/write/commit count          COUNT                0 (commit: 0 = to end of file)
 *   write data                       (c->payload)         payload[0..count), repeated
 *                                                         when shorter; zeros if none
 *   write stable_how                 STABLE               FILE_SYNC (see below)
 *   v2 write beginoffset/totalcount  -                    offset / count (as Linux sends)
 *   v2 read totalcount               -                    count (as Linux sends)
 *   create mode                      CREATEHOW            UNCHECKED (v2 CREATE semantics)
 *   exclusive-create verifier        -                    always c->create_verf (VERF,
 *                                                         the traced one, is not sent)
 *   access bits                      ACCESS               0x3f (all six ACCESS3 bits)
 *   readdir(plus) cookie, verifier   COOKIE, COOKIEVERF   0, 0 (then through c->cookie)
 *   v3 readdir count                 MAXCOUNT, else COUNT TBBT_ENC_DIR_COUNT
 *   v2 readdir count                 COUNT, else MAXCOUNT TBBT_ENC_DIR_COUNT
 *   readdirplus maxcount             MAXCOUNT, else COUNT TBBT_ENC_DIR_COUNT
 *   readdirplus dircount             DIRCOUNT             maxcount / 8 (as Linux sends)
 *
 * Stable defaults to FILE_SYNC because a record without it is an NFSv2
 * write (or a trace that did not keep it), and NFSv2 writes are
 * synchronous: RFC 1813 3.3.7 defines FILE_SYNC (data and metadata on
 * stable storage before the reply) as what "corresponds to the NFS version
 * 2 protocol semantics". Replaying such a write as UNSTABLE would flatter
 * the server with work the original client never let it defer.
 *
 * Credentials: c->cred, or the record's own when NULL. Flavor 0 (AUTH_NONE)
 * is sent as AUTH_NONE, any other flavor as AUTH_SYS (stamp 0, machine
 * name, uid, gid, gids). The verifier is always AUTH_NONE. */
#ifndef TBBT_NFSENC_H
#define TBBT_NFSENC_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "record.h"

#define TBBT_ENC_DIR_COUNT 8192 /* readdir count / readdirplus maxcount when the record has none */
#define TBBT_ENC_ACCESS 0x3fu   /* access bits asked when the record has none */
#define TBBT_ENC_NAME_MAX 4096  /* longest v3 name or symlink target sent (nfsdec's limit) */
#define TBBT_ENC_MACHINE "tbbt" /* AUTH_SYS machine name when c->machine is NULL */

/* What the encoder needs from the player, for one call. The callbacks run
 * synchronously inside tbbt_nfs_encode_call, at most once per handle or
 * cookie the call carries, and never after it returns. */
struct tbbt_enc_ctx {
    /* The live handle of TBBT-ID id: sets *data (the callback keeps owning
     * the bytes; they must stay valid until encode returns) and *len, and
     * returns 0, or -1 when the ID has no live handle (yet). */
    int (*fh)(void *ctx, tbbt_id id, const uint8_t **data, uint32_t *len);
    void *fh_ctx;
    /* Readdir(plus) cookie translation for directory dir (the record's
     * obj): the trace's cookie (0 when the record has none) -> the live
     * server's cookie and cookie verifier (0/0 for the listing's start);
     * returns 0, or -1 when the live listing has not reached that cookie.
     * Called for every READDIR and READDIRPLUS, cookie 0 included. NULL:
     * the traced cookie and verifier are sent as they are. NFSv2 cookies are
     * 32 bits (a larger one is an error); its verifier is ignored. */
    int (*cookie)(void *ctx, tbbt_id dir, uint64_t trace_cookie, uint64_t *cookie, uint64_t *verf);
    void *cookie_ctx;
    /* WRITE data: the first count bytes, repeated when payload_len < count;
     * NULL or 0 bytes: zeros. Not copied anywhere but into the message. */
    const uint8_t *payload;
    size_t payload_len;
    uint64_t create_verf;         /* the exclusive-create verifier to send (fresh per create) */
    const struct tbbt_cred *cred; /* NULL: the record's own credentials */
    const char *machine;          /* AUTH_SYS machine name (<= 255 bytes); NULL: TBBT_ENC_MACHINE */
};

/* Encodes r's call (r->vers 2 or 3, r->op, the argument fields) with xid
 * as one RPC call message, without TCP's record mark, into buf[0..cap).
 * Returns the message's length, or -1 with a one-line reason in err
 * ("nfsenc: OP vV xid 0xX: ..."): a handle field absent or whose ID the fh
 * callback does not know (the message names the field and the ID), a v2
 * handle not 32 bytes long or a v3 one over 64, a cookie the callback
 * refuses, a required name absent, a value v2 cannot carry (64-bit offset
 * or cookie, count over 8192), an op that does not exist in r->vers, or a
 * buffer too small (nothing is written at or beyond buf[cap], whatever
 * cap). Allocates nothing. err may be NULL. */
ssize_t tbbt_nfs_encode_call(const struct tbbt_rec *r, uint32_t xid, const struct tbbt_enc_ctx *c,
                             uint8_t *buf, size_t cap, char *err, size_t errlen);

/* The TBBT-IDs whose live handles r's call needs, in wire order: obj (the
 * handle a GETATTR..COMMIT names, LINK's source file), dir (a (dir, name)
 * argument's directory), dir2 (RENAME's target directory), each only when
 * the record has it and it is not 0. Returns how many were stored in ids. */
unsigned tbbt_nfs_call_ids(const struct tbbt_rec *r, tbbt_id ids[3]);

#endif
