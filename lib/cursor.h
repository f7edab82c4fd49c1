/* cursor.h -- bounds-checked reads of wire bytes.
 *
 * Every byte that comes off the wire (packet headers, RPC, XDR) is read
 * through a cursor. A read past the end sets c->trunc and returns 0 (or an
 * empty span); further reads keep failing, so a decoder can read a whole
 * structure and test c->trunc once at the end: truncation has one exit
 * path, as in tcpdump's extract.h. Network byte order throughout. */
#ifndef TBBT_CURSOR_H
#define TBBT_CURSOR_H

#include <stddef.h>
#include <stdint.h>

struct tbbt_cursor {
    const uint8_t *p;
    size_t len; /* bytes available */
    size_t pos; /* next byte to read */
    int trunc;  /* a read ran past len */
};

static inline void tbbt_cur_init(struct tbbt_cursor *c, const uint8_t *p, size_t len) {
    c->p = p;
    c->len = len;
    c->pos = 0;
    c->trunc = 0;
}

static inline size_t tbbt_cur_left(const struct tbbt_cursor *c) {
    return c->trunc ? 0 : c->len - c->pos;
}

/* Returns a pointer to the next n bytes and advances, or NULL (and sets
 * trunc) when fewer than n remain. */
static inline const uint8_t *tbbt_cur_take(struct tbbt_cursor *c, size_t n) {
    if (c->trunc || n > c->len - c->pos) {
        c->trunc = 1;
        return NULL;
    }
    const uint8_t *q = c->p + c->pos;
    c->pos += n;
    return q;
}

static inline uint8_t tbbt_cur_u8(struct tbbt_cursor *c) {
    const uint8_t *q = tbbt_cur_take(c, 1);
    return q ? q[0] : 0;
}

static inline uint16_t tbbt_cur_u16(struct tbbt_cursor *c) {
    const uint8_t *q = tbbt_cur_take(c, 2);
    return q ? (uint16_t)(q[0] << 8 | q[1]) : 0;
}

static inline uint32_t tbbt_cur_u32(struct tbbt_cursor *c) {
    const uint8_t *q = tbbt_cur_take(c, 4);
    return q ? (uint32_t)q[0] << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3] : 0;
}

static inline uint64_t tbbt_cur_u64(struct tbbt_cursor *c) {
    uint64_t hi = tbbt_cur_u32(c);
    return hi << 32 | tbbt_cur_u32(c);
}

static inline void tbbt_cur_skip(struct tbbt_cursor *c, size_t n) {
    (void)tbbt_cur_take(c, n);
}

/* XDR variable-length opaque or string: a 4-byte length, the bytes, and
 * padding to a multiple of 4. Returns the bytes and sets *len, or NULL when
 * the length exceeds max (sets *bad) or the bytes are cut short (sets trunc).
 * When cut short, *len still holds the length the wire announced. */
static inline const uint8_t *tbbt_cur_xdr_opaque(struct tbbt_cursor *c, uint32_t max, uint32_t *len,
                                                 int *bad) {
    uint32_t n = tbbt_cur_u32(c);
    *len = n;
    if (c->trunc) return NULL;
    if (n > max) {
        *bad = 1;
        return NULL;
    }
    const uint8_t *q = tbbt_cur_take(c, n);
    if (q) tbbt_cur_skip(c, (4 - (n & 3)) & 3);
    return q;
}

#endif
