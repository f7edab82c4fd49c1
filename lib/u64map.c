/* u64map.c -- 64-bit keys to nonzero 64-bit values, inline (see u64map.h). */
#include "u64map.h"

#include <glib.h>

#include "htab.h"

#define MIN_CAP 16

/* Home slot of key in a table of mask + 1 slots. */
static inline size_t home(const struct tbbt_u64map *m, uint64_t key) {
    return (size_t)tbbt_htab_mix(key + 0x9e3779b97f4a7c15ULL) & m->mask;
}

/* Contract in u64map.h. */
void tbbt_u64map_init(struct tbbt_u64map *m) {
    m->slots = NULL;
    m->mask = 0;
    m->n = 0;
}

/* Contract in u64map.h. */
void tbbt_u64map_clear(struct tbbt_u64map *m) {
    g_free(m->slots);
    tbbt_u64map_init(m);
}

/* Index of key's slot, or of the empty slot that ends its probe run. */
static size_t find(const struct tbbt_u64map *m, uint64_t key) {
    size_t i = home(m, key);
    while (m->slots[i].val && m->slots[i].key != key)
        i = (i + 1) & m->mask;
    return i;
}

/* Contract in u64map.h. */
uint64_t tbbt_u64map_get(const struct tbbt_u64map *m, uint64_t key) {
    return m->n ? m->slots[find(m, key)].val : 0;
}

/* Doubles the capacity (or makes the first array) and re-places every
 * pair. */
static void grow(struct tbbt_u64map *m) {
    size_t oldcap = m->slots ? m->mask + 1 : 0;
    size_t cap = oldcap ? 2 * oldcap : MIN_CAP;
    struct tbbt_u64map_slot *old = m->slots;
    m->slots = g_new0(struct tbbt_u64map_slot, cap);
    m->mask = cap - 1;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].val) m->slots[find(m, old[i].key)] = old[i];
    g_free(old);
}

/* Contract in u64map.h. */
void tbbt_u64map_put(struct tbbt_u64map *m, uint64_t key, uint64_t val) {
    g_assert(val != 0);
    if (!m->slots || (m->n + 1) * 4 > (m->mask + 1) * 3) grow(m);
    struct tbbt_u64map_slot *s = &m->slots[find(m, key)];
    if (!s->val) m->n++;
    s->key = key;
    s->val = val;
}

/* Contract in u64map.h. Backward-shift deletion: a pair after the hole
 * moves into it when the hole lies on its probe path from its home. */
uint64_t tbbt_u64map_remove(struct tbbt_u64map *m, uint64_t key) {
    if (!m->n) return 0;
    size_t hole = find(m, key);
    uint64_t had = m->slots[hole].val;
    if (!had) return 0;
    for (size_t j = hole;;) {
        j = (j + 1) & m->mask;
        struct tbbt_u64map_slot *s = &m->slots[j];
        if (!s->val) break;
        size_t h = home(m, s->key);
        if (((j - h) & m->mask) >= ((j - hole) & m->mask)) {
            m->slots[hole] = *s;
            hole = j;
        }
    }
    m->slots[hole].val = 0;
    m->n--;
    return had;
}
