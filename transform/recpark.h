/* recpark.h -- records packed small while they wait for their turn.
 *
 * Pass 1 emits records in call order, so every answered call behind one
 * whose reply is late (or lost: a 30 s wait) stays in memory until then.
 * A struct tbbt_rec is mostly room for fields a record does not have;
 * packed, it keeps the fixed header, the fields its mask names, and its
 * names and listing, a third of the size or less. Unpacking gives back
 * the same record (every field the mask names, the same header and
 * arena), so what is emitted does not depend on whether it waited
 * packed. Not a file format: it lives only in one process.
 *
 * Packed records live in slabs filled one after the other and freed when
 * the last record in them is released: records are released in about the
 * order they were packed (call order), so slabs empty in turn, memory
 * follows the records held, and both packing and emitting walk memory
 * forward, with no allocation per record. */
#ifndef TBBT_RECPARK_H
#define TBBT_RECPARK_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct tbbt_recpark;

struct tbbt_recpark *tbbt_recpark_new(void);

/* Packs r; returns where it is (valid until released) and its size in
 * *len. */
uint8_t *tbbt_recpark_pack(struct tbbt_recpark *s, const struct tbbt_rec *r, size_t *len);

/* Unpacks a record packed at p into r (cleared first, keeping its
 * buffers for reuse). */
void tbbt_recpark_unpack(const struct tbbt_recpark *s, struct tbbt_rec *r, const uint8_t *p);

/* Releases the record packed at p. */
void tbbt_recpark_release(struct tbbt_recpark *s, uint8_t *p);

/* Bytes the slabs hold, in use or kept for reuse. */
size_t tbbt_recpark_mem(const struct tbbt_recpark *s);

void tbbt_recpark_free(struct tbbt_recpark *s);

#endif
