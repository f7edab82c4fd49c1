/* nfsdec.h -- ONC RPC and NFSv2/v3 message decoding into records.
 *
 * Stateless: bytes in, record fields out. Every wire byte is read through
 * the bounds-checked cursor of cursor.h, so a message cut short by the
 * capture's snaplen yields every field that is present, and the decoder
 * says how far it got. File handles are not mapped here: the decoder
 * collects them, with the record field they belong to, in a tbbt_fhrefs
 * list, and the caller maps them to TBBT-IDs (it knows the attributes that
 * establish identity only once the whole message is decoded). */
#ifndef TBBT_NFSDEC_H
#define TBBT_NFSDEC_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

#define TBBT_FH_MAX 64 /* NFSv3 handles are at most 64 bytes; v2's are 32 */

/* Message types (RFC 5531). */
enum { TBBT_RPC_CALL = 0, TBBT_RPC_REPLY = 1 };
#define TBBT_RPC_VERSION 2u /* rpcvers of RFC 5531 */

/* The RPC header of a call or a reply. */
struct tbbt_rpc_hdr {
    uint32_t xid;
    uint32_t mtype; /* TBBT_RPC_CALL or TBBT_RPC_REPLY */
    /* call */
    uint32_t rpcvers, prog, vers, proc;
    struct tbbt_cred cred;
    /* reply */
    uint32_t reply_stat;  /* 0 MSG_ACCEPTED, 1 MSG_DENIED */
    uint32_t accept_stat; /* 0 SUCCESS, ... (when accepted); UINT32_MAX when denied */
    uint32_t reject_stat; /* 0 RPC_MISMATCH, 1 AUTH_ERROR (when denied) */
    size_t body;          /* offset of the procedure's arguments or results */
    int cut;              /* tbbt_rpc_parse_prefix: the header itself was cut short */
};

/* Parses the RPC header at p (caplen bytes present). Returns 0 and fills h,
 * or -1 when the bytes are not a well-formed RPC call or reply header
 * (absurd lengths, bad message type, cut short before the body). */
int tbbt_rpc_parse(const uint8_t *p, size_t caplen, struct tbbt_rpc_hdr *h);

/* As tbbt_rpc_parse, for a capture whose snaplen may cut a header: also
 * returns TBBT_DEC_TRUNC when the header is cut short but well-formed as
 * far as it goes and names its message (a call up to its procedure, a
 * reply up to its reply_stat). Then the fields not present are zero (a
 * reply's accept_stat is UINT32_MAX when cut before it) and h->body is
 * caplen: there is no body to decode. */
int tbbt_rpc_parse_prefix(const uint8_t *p, size_t caplen, struct tbbt_rpc_hdr *h);

/* A file handle seen in a message, and where its TBBT-ID belongs. */
struct tbbt_fhref {
    enum tbbt_field field; /* TBBT_F_OBJ, _DIR, _DIR2, _NEWOBJ, or _ENTRIES */
    int32_t entry;         /* index into r->entries for _ENTRIES, else -1 */
    uint16_t len;
    uint8_t data[TBBT_FH_MAX];
};

/* A reusable list of handle references (grows as needed). */
struct tbbt_fhrefs {
    struct tbbt_fhref *v;
    uint32_t n, cap;
};

void tbbt_fhrefs_clear(struct tbbt_fhrefs *l);
void tbbt_fhrefs_free(struct tbbt_fhrefs *l);

/* Decode results. */
enum {
    TBBT_DEC_OK = 0,    /* every field decoded */
    TBBT_DEC_TRUNC = 1, /* cut short; the fields before the cut are set */
    TBBT_DEC_BAD = -1,  /* malformed (impossible lengths or values) */
};

/* Decodes the arguments of call op (version vers) from p[0..n) into r,
 * appending the call's handles to fh (may be NULL). r->op and r->vers must
 * be set. Returns TBBT_DEC_OK, TBBT_DEC_TRUNC or TBBT_DEC_BAD (also for an
 * op that does not exist in r->vers). A cut field is left absent, never
 * partial; when the cut falls before the end of the arguments the request
 * is rebuilt from (anywhere but in a WRITE's data), r gets
 * TBBT_RF_ARGS_CUT. Strings go to r's arena; nothing else is allocated
 * except when fh grows. */
int tbbt_nfs_decode_call(struct tbbt_rec *r, const uint8_t *p, size_t n, struct tbbt_fhrefs *fh);

/* Decodes the results of a reply to r->op (version r->vers) from p[0..n):
 * sets r->status and the result fields, appending the reply's handles to
 * fh (the new object's, readdirplus entries'). Returns as the call decoder.
 * Readdir entries are added once their fileid, name and cookie are whole;
 * TBBT_F_RCOUNT (number of entries) and TBBT_F_EOF only when the listing
 * is complete. NULL (and v2 ROOT, WRITECACHE) replies set status 0. */
int tbbt_nfs_decode_reply(struct tbbt_rec *r, const uint8_t *p, size_t n, struct tbbt_fhrefs *fh);

/* MOUNT (program 100005) MNT replies teach the root handle: decodes a MNT
 * reply (v1 or v3; 2 is read as 1) and copies the handle into fh (field
 * TBBT_F_OBJ; fh->len is 0 when there is no whole handle). Returns 0 and
 * sets *status (0 = OK), or TBBT_DEC_TRUNC / TBBT_DEC_BAD. */
int tbbt_mount_decode_mnt_reply(unsigned vers, const uint8_t *p, size_t n, uint32_t *status,
                                struct tbbt_fhref *fh);

#endif
