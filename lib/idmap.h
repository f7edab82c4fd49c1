/* idmap.h -- a map from TBBT-IDs to 32-bit numbers, 12 bytes a slot.
 *
 * For tables of millions of objects that need only an object's index
 * (tbbt-init's image, tbbt-play's manifest): open addressing with the keys
 * and the values in two arrays, no allocation per entry, no pointer. Key 0
 * (no object) cannot be stored. The table grows by doubling at 3/4 full;
 * entries are never removed. */
#ifndef TBBT_IDMAP_H
#define TBBT_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct tbbt_idmap {
    uint64_t *keys; /* 0: empty slot */
    uint32_t *vals;
    size_t mask, n; /* capacity - 1 (0 before the first put), entries */
};

void tbbt_idmap_init(struct tbbt_idmap *m);
void tbbt_idmap_free(struct tbbt_idmap *m);

/* 1 with *val when key is held, else 0. */
int tbbt_idmap_get(const struct tbbt_idmap *m, uint64_t key, uint32_t *val);

/* Holds key -> val (replacing its value if held). -1 for key 0. */
int tbbt_idmap_put(struct tbbt_idmap *m, uint64_t key, uint32_t val);

/* Bytes held (for the figures). */
size_t tbbt_idmap_bytes(const struct tbbt_idmap *m);

#endif
