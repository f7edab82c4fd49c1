/* chtab.h -- htab (htab.h) in 8 bytes a slot instead of 16.
 *
 * The big tables of the file-system model hold one slot per object or
 * name, at most 3/4 full: with htab's (hash, item) slots that is 21 to 43
 * bytes an item, a quarter of what tbbt-prep holds per object. Here a slot
 * is one word: the item's address (user addresses fit in 48 bits on the
 * machines we run on; put checks it) with the hash's top 16 bits above
 * it, enough to skip almost every other item of a probe without reading
 * it. The full hash, needed again only to grow and to delete, is the
 * caller's to compute from the item (tbbt_chtab_hash_fn).
 *
 * Placement is htab's exactly (home slot hash & mask, linear probing,
 * doubling past 3/4, backward-shift deletion), so a chtab filled with the
 * same items under the same hashes in the same order iterates in the
 * same order as an htab: a caller that moves from one to the other keeps
 * its output. Items are the caller's; equality as in htab, except that a
 * hash-only equality (tbbt_htab_eq_mixed) is not allowed: only 16 bits of
 * the hash are compared. */
#ifndef TBBT_CHTAB_H
#define TBBT_CHTAB_H

#include <stddef.h>
#include <stdint.h>

#include "htab.h"

/* The full hash of an item, as it was put. */
typedef uint64_t (*tbbt_chtab_hash_fn)(const void *item);

#define TBBT_CHTAB_ADDR_BITS 48
#define TBBT_CHTAB_ADDR_MASK ((UINT64_C(1) << TBBT_CHTAB_ADDR_BITS) - 1)

struct tbbt_chtab {
    uint64_t *slots; /* item address | hash's top bits; 0: empty */
    size_t mask;     /* capacity - 1 (a power of two), 0 before the first insertion */
    size_t n;        /* items held */
    tbbt_htab_eq eq;
    tbbt_chtab_hash_fn hash;
};

/* The item of a nonzero slot. */
static inline void *tbbt_chtab_item(uint64_t slot) {
    return (void *)(uintptr_t)(slot & TBBT_CHTAB_ADDR_MASK);
}

/* Does slot s (nonzero) carry the top bits of hash? */
static inline int tbbt_chtab_tag_is(uint64_t s, uint64_t hash) {
    return ((s ^ hash) & ~TBBT_CHTAB_ADDR_MASK) == 0;
}

/* Prepares an empty table (no allocation until the first insertion). */
void tbbt_chtab_init(struct tbbt_chtab *t, tbbt_htab_eq eq, tbbt_chtab_hash_fn hash);

/* Frees the table's slots (not the items) and leaves it empty and usable. */
void tbbt_chtab_clear(struct tbbt_chtab *t);

/* Returns the item with this hash whose key equals key, or NULL; inlined
 * with the caller's equality for hot call sites. */
static inline void *tbbt_chtab_find_inline(const struct tbbt_chtab *t, uint64_t hash, const void *key,
                                           tbbt_htab_eq eq) {
    if (!t->n) return NULL;
    for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
        uint64_t s = t->slots[i];
        if (!s) return NULL;
        if (tbbt_chtab_tag_is(s, hash) && eq(tbbt_chtab_item(s), key)) return tbbt_chtab_item(s);
    }
}

/* tbbt_chtab_find_inline with the table's own equality. */
void *tbbt_chtab_find(const struct tbbt_chtab *t, uint64_t hash, const void *key);

/* Adds item under hash (which must be t->hash(item)). The caller
 * guarantees that no item with an equal key is in the table. */
void tbbt_chtab_put(struct tbbt_chtab *t, uint64_t hash, void *item);

/* Removes and returns the item with this hash whose key equals key, or
 * returns NULL when there is none. */
void *tbbt_chtab_remove(struct tbbt_chtab *t, uint64_t hash, const void *key);

/* Removes this very item (found by address); returns 1, or 0 when it is
 * not in the table under hash. */
int tbbt_chtab_remove_item(struct tbbt_chtab *t, uint64_t hash, const void *item);

/* Iteration in table order: *pos starts at 0; returns the next item and
 * advances *pos, or NULL at the end. The table must not change meanwhile. */
void *tbbt_chtab_next(const struct tbbt_chtab *t, size_t *pos);

/* Starts loading the home slot of hash (tbbt_htab_prefetch). */
static inline void tbbt_chtab_prefetch(const struct tbbt_chtab *t, uint64_t hash) {
    if (t->slots) __builtin_prefetch(&t->slots[hash & t->mask]);
}

/* The item in the home slot of hash when its tag matches, else NULL: a
 * likely match, for prefetching it before a find (tbbt_htab_peek). */
static inline void *tbbt_chtab_peek(const struct tbbt_chtab *t, uint64_t hash) {
    if (!t->slots) return NULL;
    uint64_t s = t->slots[hash & t->mask];
    return s && tbbt_chtab_tag_is(s, hash) ? tbbt_chtab_item(s) : NULL;
}

/* The number of items held. */
static inline size_t tbbt_chtab_size(const struct tbbt_chtab *t) {
    return t->n;
}

#endif
