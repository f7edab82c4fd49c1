/* idmap.c -- TBBT-IDs to 32-bit numbers (see idmap.h). */
#include "idmap.h"

#include <glib.h>
#include <string.h>

#include "htab.h" /* tbbt_htab_mix */

void tbbt_idmap_init(struct tbbt_idmap *m) {
    memset(m, 0, sizeof(*m));
}

void tbbt_idmap_free(struct tbbt_idmap *m) {
    g_free(m->keys), g_free(m->vals);
    tbbt_idmap_init(m);
}

/* The slot of key, or the empty slot where it would go. */
static size_t find(const struct tbbt_idmap *m, uint64_t key) {
    size_t i = tbbt_htab_mix(key) & m->mask;
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & m->mask;
    return i;
}

int tbbt_idmap_get(const struct tbbt_idmap *m, uint64_t key, uint32_t *val) {
    if (!m->n || !key) return 0;
    size_t i = find(m, key);
    if (!m->keys[i]) return 0;
    *val = m->vals[i];
    return 1;
}

/* Twice the slots, every entry placed again. */
static void grow(struct tbbt_idmap *m) {
    struct tbbt_idmap o = *m;
    size_t cap = o.mask ? (o.mask + 1) * 2 : 64;
    m->keys = g_new0(uint64_t, cap);
    m->vals = g_new(uint32_t, cap);
    m->mask = cap - 1;
    for (size_t i = 0; o.mask && i <= o.mask; i++)
        if (o.keys[i]) {
            size_t j = find(m, o.keys[i]);
            m->keys[j] = o.keys[i], m->vals[j] = o.vals[i];
        }
    g_free(o.keys), g_free(o.vals);
}

int tbbt_idmap_put(struct tbbt_idmap *m, uint64_t key, uint32_t val) {
    if (!key) return -1;
    if (!m->mask || (m->n + 1) * 4 > (m->mask + 1) * 3) grow(m);
    size_t i = find(m, key);
    if (!m->keys[i]) m->keys[i] = key, m->n++;
    m->vals[i] = val;
    return 0;
}

size_t tbbt_idmap_bytes(const struct tbbt_idmap *m) {
    return m->mask ? (m->mask + 1) * (sizeof(uint64_t) + sizeof(uint32_t)) : 0;
}
