/* recfile.h -- the binary record file, NAME.tbbt: streaming writer and reader.
 *
 * Layout (all integers little-endian). The whole file is a valid zstd
 * stream (`zstd -dc NAME.tbbt` yields the raw record encoding):
 *
 *   header   zstd skippable frame (magic 0x184D2A50, u32 size) holding
 *            "TBBTREC1", u32 format version (3; 2 is read:
 *            it lacks the cut-name fields), u32 number of optional
 *            fields the writer knew (TBBT_F_COUNT_), u32 meta length, the
 *            meta bytes (writer-supplied JSON text), u32 crc32 of all the
 *            preceding header content
 *   batches  zstd frames, content size and content checksum on, each
 *            holding whole records (about 256 KiB uncompressed)
 *   trailer  zstd skippable frame holding "TBBTEND1", u64 record count;
 *            a file without it is truncated and is reported as such
 *
 * One record in a batch (varints are LEB128, "z" = zigzag-signed):
 *   z(call_time - previous record's call_time in this batch, 0 at start)
 *   flags, [z(reply_time - call_time) unless TBBT_RF_REPLY_LOST]
 *   client, server: family byte (0, 4 or 6), address (0: 16 bytes if any
 *       is nonzero, preceded by a byte 1, else a byte 0; 4: 4 bytes;
 *       6: 16 bytes), port varint
 *   xid, vers, op, z(status), cred flavor, uid, gid, ngids, gids[]
 *   has (field mask), then each present field in tbbt_fields[] order:
 *       id/u32/u64 varint; time z(value - call_time) (wrapping);
 *       str varint length + bytes; entries varint count, then per entry
 *       fileid, cookie, id, type, size varints, name length + bytes.
 * A reader rejects files whose field count exceeds its own (written by a
 * newer tbbt). After reading, reply_time is 0 when TBBT_RF_REPLY_LOST. */
#ifndef TBBT_RECFILE_H
#define TBBT_RECFILE_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

#define TBBT_RECFILE_VERSION 3u
#define TBBT_RECFILE_VERSION_MIN 2u /* oldest read: later versions only appended fields */

struct tbbt_recwriter;
struct tbbt_recreader;

/* Creates path + ".tmp", renamed to path at close (path "-" writes to
 * stdout; a path that exists and is not a regular file -- /dev/null, a
 * FIFO, a symlink -- is written in place, never replaced), and writes
 * the header carrying meta (NUL-terminated text, may be NULL = ""). Returns
 * the writer (owned by the caller until close/abort), or NULL with a
 * message in err. */
struct tbbt_recwriter *tbbt_recw_open(const char *path, const char *meta, char *err, size_t errlen);

/* Appends a copy of r. Returns 0, or -1 when r is invalid (unknown
 * endpoint family, op, more than TBBT_MAX_GIDS gids, an encoding over
 * 64 MiB) or on a write error;
 * the message is then returned by close. */
int tbbt_recw_put(struct tbbt_recwriter *w, const struct tbbt_rec *r);

/* Flushes the last batch, writes the trailer, syncs, and renames the
 * temporary file to its final name. Frees w. Returns 0, or -1 with a
 * message in err (the temporary file is then removed). */
int tbbt_recw_close(struct tbbt_recwriter *w, char *err, size_t errlen);

/* Discards everything written: removes the temporary file, frees w. */
void tbbt_recw_abort(struct tbbt_recwriter *w);

/* The writer's first error ("FILE: record N: invalid record ...", a write
 * error), or "" when there was none; owned by w. Lets a caller that
 * aborts after a failed put still print why. */
const char *tbbt_recw_error(const struct tbbt_recwriter *w);

/* Number of records put so far. */
uint64_t tbbt_recw_count(const struct tbbt_recwriter *w);

/* Opens a record file (path "-" = stdin) and reads its header. Returns
 * the reader (owned by the caller, free with tbbt_recr_close), or NULL
 * with a one-line message naming the file in err. */
struct tbbt_recreader *tbbt_recr_open(const char *path, char *err, size_t errlen);

/* Reads the next record into r (an initialised record; its previous
 * content is cleared, its buffers reused). Returns 1 for a record, 0 at
 * the end of a complete file, -1 on error (see tbbt_recr_error). Memory
 * is bounded by one batch. */
int tbbt_recr_next(struct tbbt_recreader *rd, struct tbbt_rec *r);

/* The metadata string from the header (owned by rd, never NULL). */
const char *tbbt_recr_meta(const struct tbbt_recreader *rd);

/* The last error, "FILE: offset N: checksum mismatch in frame ..." (owned
 * by rd; "" when there was none). */
const char *tbbt_recr_error(const struct tbbt_recreader *rd);

/* Closes the file and frees rd. */
void tbbt_recr_close(struct tbbt_recreader *rd);

/* What a record's encoding is relative to: the previous record of the same
 * batch. Zero it at the start of each batch (a frame decodes on its own).
 * The call time is a delta from the previous one; the endpoints and the
 * credentials are written only when they differ from the previous
 * record's; the fsid is XORed with the previous one seen. */
struct tbbt_rec_prev {
    int64_t call_time;
    struct tbbt_endpoint client, server;
    struct tbbt_cred cred;
    uint64_t fsid;
};

/* Low level, for tests and tools: encodes r at the end of *buf (growing
 * it, g_realloc) relative to *prev, which it then updates to r. Returns 0,
 * or -1 when r is invalid. */
int tbbt_rec_encode(const struct tbbt_rec *r, struct tbbt_rec_prev *prev, uint8_t **buf, size_t *len,
                    size_t *cap);

/* Decodes one record from [*p, end) into r (cleared first), relative to
 * *prev (updated), advancing *p. Returns 0, or -1 with a message naming
 * the failing part in err. */
int tbbt_rec_decode(struct tbbt_rec *r, struct tbbt_rec_prev *prev, const uint8_t **p, const uint8_t *end,
                    char *err, size_t errlen);

#endif
