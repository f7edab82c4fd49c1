/* recmark.h -- RPC record marking on a TCP stream (RFC 5531, section 11).
 *
 * On TCP every RPC message is a record sent as one or more fragments, each
 * behind a 4-byte big-endian mark: the top bit says "last fragment of the
 * record", the other 31 bits the fragment's length. Writing puts one mark
 * before a whole message (one fragment); reading joins the fragments back
 * into messages, without a copy in the usual case of a single fragment.
 * The player's connections and the test server read and write it here. */
#ifndef TBBT_RECMARK_H
#define TBBT_RECMARK_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define TBBT_RECMARK_LAST 0x80000000u /* the mark's "last fragment" bit */
#define TBBT_RECMARK_LEN 0x7fffffffu  /* the mark's fragment length */

/* Writes at p the mark of a record of len (< 2^31) bytes sent as one
 * fragment. */
static inline void tbbt_recmark_put(uint8_t *p, size_t len) {
    uint32_t m = TBBT_RECMARK_LAST | (uint32_t)len;
    p[0] = (uint8_t)(m >> 24), p[1] = (uint8_t)(m >> 16), p[2] = (uint8_t)(m >> 8), p[3] = (uint8_t)m;
}

/* A record being joined from its fragments. Zeroed: empty. */
struct tbbt_recmark {
    uint8_t *msg; /* the fragments so far */
    size_t len, cap;
};

/* Called with each whole message: in the caller's buffer (one fragment)
 * or in the reassembly buffer; valid during the call only. */
typedef void (*tbbt_recmark_cb)(void *ctx, const uint8_t *msg, size_t len);

/* Consumes the whole fragments at the start of buf[0..n), passing every
 * message they complete to cb. Returns the bytes consumed (what follows is
 * a fragment not yet whole: keep it for the next call), or -1 when a
 * fragment would make its message longer than max bytes (not an RPC
 * stream, or one to refuse; the stream cannot go on): *bad then holds
 * that fragment's length. */
ssize_t tbbt_recmark_consume(struct tbbt_recmark *r, const uint8_t *buf, size_t n, size_t max,
                             tbbt_recmark_cb cb, void *ctx, size_t *bad);

/* Frees the reassembly buffer and empties r. */
void tbbt_recmark_free(struct tbbt_recmark *r);

#endif
