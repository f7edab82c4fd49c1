/* htab.c -- open-addressing hash table with linear probing (see htab.h). */
#include "htab.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define MIN_CAP 16
#define HUGE_PAGE (2u << 20)

/* Contract in htab.h. Arrays of a megabyte or more are aligned to huge
 * pages and offered to the kernel as such: probes land anywhere in them,
 * and one TLB entry then covers 2 MB instead of 4 KB. */
void *tbbt_htab_slots_alloc(size_t bytes) {
    if (bytes < HUGE_PAGE / 2) return g_malloc0(bytes);
    void *p = NULL;
    if (posix_memalign(&p, HUGE_PAGE, bytes) != 0) g_error("htab: out of memory (%zu bytes)", bytes);
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    memset(p, 0, bytes);
    return p;
}

/* Allocates n zeroed slots. */
static struct tbbt_htab_slot *slots_new(size_t n) {
    return tbbt_htab_slots_alloc(n * sizeof(struct tbbt_htab_slot));
}

/* Prepares an empty table; see htab.h. */
void tbbt_htab_init(struct tbbt_htab *t, tbbt_htab_eq eq) {
    t->slots = NULL;
    t->mask = 0;
    t->n = 0;
    t->eq = eq;
}

/* Frees the slot array; see htab.h. */
void tbbt_htab_clear(struct tbbt_htab *t) {
    free(t->slots); /* g_free is free; posix_memalign's blocks too */
    tbbt_htab_init(t, t->eq);
}

/* Finds the slot holding a key equal to key under hash; returns its index,
 * or -1 when the probe reaches an empty slot first. */
static ptrdiff_t find_slot(const struct tbbt_htab *t, uint64_t hash, const void *key) {
    if (!t->n) return -1;
    for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
        const struct tbbt_htab_slot *s = &t->slots[i];
        if (!s->item) return -1;
        if (s->hash == hash && t->eq(s->item, key)) return (ptrdiff_t)i;
    }
}

/* Finds the slot holding this very item; returns its index or -1. */
static ptrdiff_t find_item(const struct tbbt_htab *t, uint64_t hash, const void *item) {
    if (!t->n) return -1;
    for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
        const struct tbbt_htab_slot *s = &t->slots[i];
        if (!s->item) return -1;
        if (s->item == item) return (ptrdiff_t)i;
    }
}

/* Stores (hash, item) in the first empty slot of its probe sequence; the
 * table must have room. */
static void place(struct tbbt_htab *t, uint64_t hash, void *item) {
    size_t i = hash & t->mask;
    while (t->slots[i].item)
        i = (i + 1) & t->mask;
    t->slots[i].hash = hash;
    t->slots[i].item = item;
}

/* Doubles the capacity (or makes the first array) and re-places every item
 * by its stored hash: no hash or equality callback runs. */
static void grow(struct tbbt_htab *t) {
    size_t oldcap = t->slots ? t->mask + 1 : 0;
    size_t cap = oldcap ? 2 * oldcap : MIN_CAP;
    struct tbbt_htab_slot *old = t->slots;
    t->slots = slots_new(cap);
    t->mask = cap - 1;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].item) place(t, old[i].hash, old[i].item);
    free(old);
}

/* Returns the matching item or NULL; see htab.h. */
void *tbbt_htab_find(const struct tbbt_htab *t, uint64_t hash, const void *key) {
    ptrdiff_t i = find_slot(t, hash, key);
    return i < 0 ? NULL : t->slots[i].item;
}

/* Adds an item whose key is known to be absent; see htab.h. */
void tbbt_htab_put(struct tbbt_htab *t, uint64_t hash, void *item) {
    if (!t->slots || (t->n + 1) * 4 > (t->mask + 1) * 3) grow(t);
    place(t, hash, item);
    t->n++;
}

/* Empties slot i and moves back the entries after it that would otherwise
 * be cut off from their home slot (backward-shift deletion): an entry at j
 * moves into the hole when the hole lies on its probe path, that is when
 * its home is not cyclically within (hole, j]. */
static void delete_at(struct tbbt_htab *t, size_t hole) {
    size_t j = hole;
    for (;;) {
        j = (j + 1) & t->mask;
        struct tbbt_htab_slot *s = &t->slots[j];
        if (!s->item) break;
        size_t home = s->hash & t->mask;
        if (((j - home) & t->mask) >= ((j - hole) & t->mask)) {
            t->slots[hole] = *s;
            hole = j;
        }
    }
    t->slots[hole].item = NULL;
    t->slots[hole].hash = 0;
    t->n--;
}

/* Removes by key; see htab.h. */
void *tbbt_htab_remove(struct tbbt_htab *t, uint64_t hash, const void *key) {
    ptrdiff_t i = find_slot(t, hash, key);
    if (i < 0) return NULL;
    void *item = t->slots[i].item;
    delete_at(t, (size_t)i);
    return item;
}

/* Removes by identity; see htab.h. */
int tbbt_htab_remove_item(struct tbbt_htab *t, uint64_t hash, const void *item) {
    ptrdiff_t i = find_item(t, hash, item);
    if (i < 0) return 0;
    delete_at(t, (size_t)i);
    return 1;
}

/* Iterates in slot order; see htab.h. */
void *tbbt_htab_next(const struct tbbt_htab *t, size_t *pos) {
    if (!t->slots) return NULL;
    while (*pos <= t->mask) {
        void *item = t->slots[(*pos)++].item;
        if (item) return item;
    }
    return NULL;
}

/* Loads 8 bytes (any alignment). */
static inline uint64_t ld64(const uint8_t *p) {
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* Loads 4 bytes (any alignment). */
static inline uint32_t ld32(const uint8_t *p) {
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/* Multiplies to 128 bits and folds the halves together (wyhash's "mum"):
 * one multiplication mixes all the bits of both words. */
static inline uint64_t mum(uint64_t a, uint64_t b) {
#ifdef __SIZEOF_INT128__
    unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
#else
    return tbbt_htab_mix(a ^ tbbt_htab_mix(b));
#endif
}

#define K0 0xa0761d6478bd642fULL
#define K1 0xe7037ed1a0b428dbULL
#define K2 0x8ebc6af09c88c6e3ULL
#define K3 0x589965cc75374cc3ULL

/* Byte hash; see htab.h. Two independent lanes take 16 bytes each per
 * step, so a 64-byte file handle costs two dependent multiplications per
 * lane rather than a chain of eight; murmur3's finaliser ends it. */
uint64_t tbbt_htab_hash_bytes(const void *p, size_t n, uint64_t seed) {
    const uint8_t *b = p;
    uint64_t a = seed ^ K0, c = seed ^ K1 ^ (uint64_t)n, w0 = 0, w1 = 0;
    /* (the tail's loads overlap rather than copy a variable length: the
     * hash is still a function of the bytes and their number) */
    for (; n >= 32; n -= 32, b += 32) {
        a = mum(ld64(b) ^ K2 ^ a, ld64(b + 8) ^ K3);
        c = mum(ld64(b + 16) ^ K2 ^ c, ld64(b + 24) ^ K3);
    }
    if (n >= 16) {
        a = mum(ld64(b) ^ K2 ^ a, ld64(b + 8) ^ K3);
        b += 16;
        n -= 16;
    }
    if (n >= 8) { /* 8..15 bytes left: two overlapping words */
        w0 = ld64(b);
        w1 = ld64(b + n - 8);
    } else if (n >= 4) { /* 4..7: two overlapping half-words */
        w0 = (uint64_t)ld32(b) << 32 | ld32(b + n - 4);
    } else if (n) { /* 1..3: first, middle and last byte */
        w0 = (uint64_t)b[0] << 16 | (uint64_t)b[n >> 1] << 8 | b[n - 1];
    }
    c = mum(w0 ^ K2 ^ c, w1 ^ K3 ^ (uint64_t)n);
    return tbbt_htab_mix(a ^ c);
}
