/* htab.h -- an open-addressing hash table of caller-owned items.
 *
 * The table stores pointers to items that hold their own keys (a pending
 * call, a file handle entry, an object), together with each item's 64-bit
 * hash. The caller computes the hash once and passes it to every operation,
 * so a message's key is hashed once for its lookup and its insertion. A
 * probe compares the stored hash first and calls the equality callback only
 * when the hashes match. Collisions are resolved by linear probing and
 * deletion shifts the following entries back, so there are no tombstones
 * and lookups stay short however many removals there were. The table grows
 * by doubling when it is 3/4 full and never shrinks: its size follows the
 * largest number of items held at once.
 *
 * The table never allocates, frees or copies items; keys must not change
 * while their item is in the table. */
#ifndef TBBT_HTAB_H
#define TBBT_HTAB_H

#include <stddef.h>
#include <stdint.h>

/* Returns nonzero when item's key equals key (whatever the caller passes
 * to find/remove as the key: often a key struct, or another item). */
typedef int (*tbbt_htab_eq)(const void *item, const void *key);

struct tbbt_htab_slot {
    uint64_t hash;
    void *item; /* NULL: the slot is empty */
};

struct tbbt_htab {
    struct tbbt_htab_slot *slots;
    size_t mask; /* capacity - 1 (capacity a power of two), 0 before the first insertion */
    size_t n;    /* items held */
    tbbt_htab_eq eq;
};

/* Prepares an empty table (no allocation until the first insertion). */
void tbbt_htab_init(struct tbbt_htab *t, tbbt_htab_eq eq);

/* A zeroed array of bytes for a table's slots (this one's, chtab's),
 * big ones on huge pages; free() frees it. Exits on out of memory. */
void *tbbt_htab_slots_alloc(size_t bytes);

/* Frees the table's slots (not the items) and leaves it empty and usable. */
void tbbt_htab_clear(struct tbbt_htab *t);

/* Returns the item with this hash whose key equals key, or NULL. */
void *tbbt_htab_find(const struct tbbt_htab *t, uint64_t hash, const void *key);

/* tbbt_htab_find for hot call sites: the same search, inlined with the
 * caller's equality function (which should be t's), so the compiler can
 * inline that too instead of calling through a pointer. */
static inline void *tbbt_htab_find_inline(const struct tbbt_htab *t, uint64_t hash, const void *key,
                                          tbbt_htab_eq eq) {
    if (!t->n) return NULL;
    for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
        const struct tbbt_htab_slot *s = &t->slots[i];
        if (!s->item) return NULL;
        if (s->hash == hash && eq(s->item, key)) return s->item;
    }
}

/* Adds item under hash. The caller guarantees that no item with an equal
 * key is in the table (typically it has just looked the key up). */
void tbbt_htab_put(struct tbbt_htab *t, uint64_t hash, void *item);

/* Removes and returns the item with this hash whose key equals key, or
 * returns NULL when there is none. */
void *tbbt_htab_remove(struct tbbt_htab *t, uint64_t hash, const void *key);

/* Removes this very item (found by pointer, not by key: no equality
 * callback); returns 1, or 0 when it is not in the table under hash. */
int tbbt_htab_remove_item(struct tbbt_htab *t, uint64_t hash, const void *item);

/* Iteration in table order: *pos starts at 0; returns the next item and
 * advances *pos, or NULL at the end. The table must not change meanwhile. */
void *tbbt_htab_next(const struct tbbt_htab *t, size_t *pos);

/* Asks the processor to start loading the home slot of hash, for a find,
 * put or remove coming a little later: the tables are bigger than the
 * caches, and the load can overlap other work. */
static inline void tbbt_htab_prefetch(const struct tbbt_htab *t, uint64_t hash) {
    if (t->slots) __builtin_prefetch(&t->slots[hash & t->mask]);
}

/* The item in the home slot of hash when its stored hash is hash, else
 * NULL: a likely (not certain) match, found without the equality callback,
 * for prefetching the item before a find. */
static inline void *tbbt_htab_peek(const struct tbbt_htab *t, uint64_t hash) {
    if (!t->slots) return NULL;
    const struct tbbt_htab_slot *s = &t->slots[hash & t->mask];
    return s->hash == hash ? s->item : NULL;
}

/* The number of items held. */
static inline size_t tbbt_htab_size(const struct tbbt_htab *t) {
    return t->n;
}

/* A 64-bit hash of n bytes at p (16 bytes a multiplication, murmur3's finaliser at
 * the end), for callers without a cheaper hash of their own. */
uint64_t tbbt_htab_hash_bytes(const void *p, size_t n, uint64_t seed);

/* murmur3's 64-bit finaliser: spreads every bit of h over the word. */
static inline uint64_t tbbt_htab_mix(uint64_t h) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return h ^ (h >> 33);
}

/* FNV-1a's offset basis: where tbbt_htab_fnv1a starts a hash. */
#define TBBT_HTAB_FNV1A_BASIS 0xcbf29ce484222325ULL

/* FNV-1a over n bytes at p, from h (TBBT_HTAB_FNV1A_BASIS, or a seed mixed
 * into it): one multiplication a byte, for short keys; its low bits are
 * weak, so a table indexed by them mixes the result (tbbt_htab_mix). */
static inline uint64_t tbbt_htab_fnv1a(const void *p, size_t n, uint64_t h) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* The equality of a table keyed by 64-bit words (IDs) hashed with
 * tbbt_htab_mix, a bijection: equal hashes are equal keys, so it is true
 * without reading the item, a cache miss the caller may have no other use
 * for. Called by the table on equal hashes only. */
static inline int tbbt_htab_eq_mixed(const void *item, const void *key) {
    (void)item, (void)key;
    return 1;
}

#endif
