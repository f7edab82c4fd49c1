/* chtab.c -- htab in one word a slot (see chtab.h). */
#include "chtab.h"

#include <glib.h>
#include <stdlib.h>
#include <string.h>

#define MIN_CAP 16

/* Allocates n zeroed slots, big arrays on huge pages (htab's allocator:
 * probes land anywhere in them). */
static uint64_t *slots_new(size_t n) {
    return tbbt_htab_slots_alloc(n * sizeof(uint64_t));
}

/* Contract in chtab.h. */
void tbbt_chtab_init(struct tbbt_chtab *t, tbbt_htab_eq eq, tbbt_chtab_hash_fn hash) {
    t->slots = NULL;
    t->mask = 0;
    t->n = 0;
    t->eq = eq;
    t->hash = hash;
}

/* Contract in chtab.h. */
void tbbt_chtab_clear(struct tbbt_chtab *t) {
    free(t->slots); /* g_free is free; posix_memalign's blocks too */
    tbbt_chtab_init(t, t->eq, t->hash);
}

/* The slot word of item under hash. */
static uint64_t slot_of(uint64_t hash, const void *item) {
    uint64_t a = (uint64_t)(uintptr_t)item;
    g_assert(a && (a & ~TBBT_CHTAB_ADDR_MASK) == 0);
    return a | (hash & ~TBBT_CHTAB_ADDR_MASK);
}

/* Stores slot word s, of hash, in the first empty slot of its probe
 * sequence; the table must have room. */
static void place(struct tbbt_chtab *t, uint64_t hash, uint64_t s) {
    size_t i = hash & t->mask;
    while (t->slots[i])
        i = (i + 1) & t->mask;
    t->slots[i] = s;
}

/* Doubles the capacity (or makes the first array) and re-places every
 * item, in the old array's order, by its hash. */
static void grow(struct tbbt_chtab *t) {
    size_t oldcap = t->slots ? t->mask + 1 : 0;
    size_t cap = oldcap ? 2 * oldcap : MIN_CAP;
    uint64_t *old = t->slots;
    t->slots = slots_new(cap);
    t->mask = cap - 1;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i]) place(t, t->hash(tbbt_chtab_item(old[i])), old[i]);
    free(old);
}

/* Contract in chtab.h. */
void tbbt_chtab_put(struct tbbt_chtab *t, uint64_t hash, void *item) {
    if (!t->slots || (t->n + 1) * 4 > (t->mask + 1) * 3) grow(t);
    place(t, hash, slot_of(hash, item));
    t->n++;
}

/* Empties slot hole and moves back the items after it that would
 * otherwise be cut off from their home slot (htab's delete_at). */
static void delete_at(struct tbbt_chtab *t, size_t hole) {
    size_t j = hole;
    for (;;) {
        j = (j + 1) & t->mask;
        uint64_t s = t->slots[j];
        if (!s) break;
        size_t home = t->hash(tbbt_chtab_item(s)) & t->mask;
        if (((j - home) & t->mask) >= ((j - hole) & t->mask)) {
            t->slots[hole] = s;
            hole = j;
        }
    }
    t->slots[hole] = 0;
    t->n--;
}

/* Index of the slot holding a key equal to key under hash, or -1. */
static ptrdiff_t find_slot(const struct tbbt_chtab *t, uint64_t hash, const void *key) {
    if (!t->n) return -1;
    for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
        uint64_t s = t->slots[i];
        if (!s) return -1;
        if (tbbt_chtab_tag_is(s, hash) && t->eq(tbbt_chtab_item(s), key)) return (ptrdiff_t)i;
    }
}

/* Contract in chtab.h. */
void *tbbt_chtab_find(const struct tbbt_chtab *t, uint64_t hash, const void *key) {
    ptrdiff_t i = find_slot(t, hash, key);
    return i < 0 ? NULL : tbbt_chtab_item(t->slots[i]);
}

/* Contract in chtab.h. */
void *tbbt_chtab_remove(struct tbbt_chtab *t, uint64_t hash, const void *key) {
    ptrdiff_t i = find_slot(t, hash, key);
    if (i < 0) return NULL;
    void *item = tbbt_chtab_item(t->slots[i]);
    delete_at(t, (size_t)i);
    return item;
}

/* Contract in chtab.h. */
int tbbt_chtab_remove_item(struct tbbt_chtab *t, uint64_t hash, const void *item) {
    if (!t->n) return 0;
    for (size_t i = hash & t->mask;; i = (i + 1) & t->mask) {
        uint64_t s = t->slots[i];
        if (!s) return 0;
        if (tbbt_chtab_item(s) == item) {
            delete_at(t, i);
            return 1;
        }
    }
}

/* Contract in chtab.h. */
void *tbbt_chtab_next(const struct tbbt_chtab *t, size_t *pos) {
    if (!t->slots) return NULL;
    while (*pos <= t->mask) {
        uint64_t s = t->slots[(*pos)++];
        if (s) return tbbt_chtab_item(s);
    }
    return NULL;
}
