/* varint.h -- LEB128 variable-length integers and zigzag signed mapping,
 * the building block of the binary record encoding (recfile.c).
 *
 * Writers append to a caller-owned buffer that has at least
 * TBBT_VARINT_MAX bytes free; readers are bounds-checked and report
 * failure instead of reading past the end. */
#ifndef TBBT_VARINT_H
#define TBBT_VARINT_H

#include <stddef.h>
#include <stdint.h>

#define TBBT_VARINT_MAX 10 /* bytes of the longest uint64_t */

/* Writes v at p; returns the number of bytes written (1..10). */
static inline size_t tbbt_varint_put(uint8_t *p, uint64_t v) {
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Reads a varint from [*p, end) into *v and advances *p. Returns 0, or -1
 * when the input ends mid-number or the number exceeds 64 bits. */
static inline int tbbt_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v) {
    const uint8_t *q = *p;
    uint64_t r = 0;
    for (unsigned shift = 0; shift < 64; shift += 7) {
        if (q >= end) return -1;
        uint8_t b = *q++;
        if (shift == 63 && b > 1) return -1;
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *p = q;
            *v = r;
            return 0;
        }
    }
    return -1;
}

/* Maps a signed value to an unsigned one with small magnitudes small. */
static inline uint64_t tbbt_zigzag(int64_t v) {
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* Inverse of tbbt_zigzag(). */
static inline int64_t tbbt_unzigzag(uint64_t u) {
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}

#endif
