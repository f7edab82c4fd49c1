/* fhslots.h -- file handles in fixed-width slots, indexed by number.
 *
 * tbbt-init keeps every clone's handles by the index of the object in its
 * image, and tbbt-play every clone's manifest handles by the index of the
 * object in the manifest: one slot an object a clone, as wide as the
 * longest handle the server gave (a server gives handles of one length, or
 * of a few), plus one byte for the length. No allocation per handle, no
 * pointer and no key per handle: what differs between clones is only the
 * handle, and a slot holds only that.
 *
 * A slot's first byte is the handle's length + 1 (0: no handle yet). A
 * longer handle than the width widens every slot (once per new width,
 * into a new buffer: the old stays until free). A pointer handed out stays
 * valid, and reads the handle it read, until the slots grow past what
 * tbbt_fhslots_reserve made room for (tbbt-init reserves every object
 * first: its calls out point into the slots) or until free. */
#ifndef TBBT_FHSLOTS_H
#define TBBT_FHSLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "nfsconn.h" /* struct tbbt_fh, TBBT_FH_MAX */

struct tbbt_fhslots {
    uint8_t *b;     /* n slots of width + 1 bytes */
    size_t n, cap;  /* slots in use (0..n-1 addressable), allocated */
    uint32_t width; /* bytes of handle a slot holds */
    void **old;     /* buffers before widenings (pointers handed out may still read them) */
    size_t nold;
};

/* An empty set (no allocation until the first handle). */
void tbbt_fhslots_init(struct tbbt_fhslots *s);

/* Frees the slots; s is empty and usable again. */
void tbbt_fhslots_free(struct tbbt_fhslots *s);

/* Makes slots 0..n-1 addressable (new ones empty); never shrinks. */
void tbbt_fhslots_reserve(struct tbbt_fhslots *s, size_t n);

/* Stores handle (data, len) in slot i (grows to i + 1 slots, widens to
 * len); len at most TBBT_FH_MAX (-1 otherwise, nothing stored). */
int tbbt_fhslots_set(struct tbbt_fhslots *s, size_t i, const uint8_t *data, uint32_t len);

/* Slot i's handle: 1 with *data and *len, 0 when it has none (or i is
 * past the slots). */
static inline int tbbt_fhslots_get(const struct tbbt_fhslots *s, size_t i, const uint8_t **data,
                                   uint32_t *len) {
    if (i >= s->n) return 0;
    const uint8_t *p = s->b + i * ((size_t)s->width + 1);
    if (!*p) return 0;
    *len = (uint32_t)*p - 1;
    *data = p + 1;
    return 1;
}

/* Slot i's handle copied into fh (fh->len 0 when it has none). */
void tbbt_fhslots_load(const struct tbbt_fhslots *s, size_t i, struct tbbt_fh *fh);

/* Bytes held (for the figures). */
size_t tbbt_fhslots_bytes(const struct tbbt_fhslots *s);

#endif
