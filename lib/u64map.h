/* u64map.h -- a map of 64-bit keys to nonzero 64-bit values, held inline.
 *
 * For the tables that map a number to an ID (a fileid to the object a
 * reply showed with it, an ID to another): a GHashTable of such pairs
 * allocates every key apart and keeps hashes, keys and values in three
 * arrays, about 70 bytes a pair; here a pair is one 16-byte slot of one
 * array (open addressing, linear probing, at most 3/4 full), about 28
 * bytes a pair on average. Any key is allowed (0 and all-ones too); a
 * value of 0 means "none", so it cannot be stored. Not thread-safe. */
#ifndef TBBT_U64MAP_H
#define TBBT_U64MAP_H

#include <stddef.h>
#include <stdint.h>

struct tbbt_u64map_slot {
    uint64_t key;
    uint64_t val; /* 0: the slot is empty */
};

struct tbbt_u64map {
    struct tbbt_u64map_slot *slots;
    size_t mask; /* capacity - 1 (a power of two), 0 before the first insertion */
    size_t n;    /* pairs held */
};

/* Prepares an empty map (no allocation until the first insertion). */
void tbbt_u64map_init(struct tbbt_u64map *m);

/* Frees the map's array and leaves it empty and usable. */
void tbbt_u64map_clear(struct tbbt_u64map *m);

/* The value stored for key, or 0 when there is none. */
uint64_t tbbt_u64map_get(const struct tbbt_u64map *m, uint64_t key);

/* Stores val (not 0) for key, replacing any value it had. */
void tbbt_u64map_put(struct tbbt_u64map *m, uint64_t key, uint64_t val);

/* Removes key's pair; returns the value it had, or 0 when it had none. */
uint64_t tbbt_u64map_remove(struct tbbt_u64map *m, uint64_t key);

#endif
