/* submap.c -- a hierarchy map restricted to some objects and their
 * ancestors (see submap.h). */
#include "submap.h"

#include <glib.h>
#include <string.h>

#include "fsmodel.h"
#include "hmap.h"

G_STATIC_ASSERT(sizeof(gpointer) >= sizeof(tbbt_id)); /* IDs are hash keys as pointers */

struct tbbt_submap {
    GArray *ents;     /* struct tbbt_hm_entry, path and target owned */
    GArray *objof;    /* per entry: its object's index (uint32_t) */
    GArray *parentof; /* per entry: its parent's object index, or UINT32_MAX */
    GHashTable *ids;  /* id -> object index + 1 */
    uint64_t *want;   /* per object: units */
    size_t nobjs;
    int closed; /* want[] holds the ancestors' units too */
};

/* The index of object id, made when new (make) or UINT32_MAX. */
static uint32_t obj_index(struct tbbt_submap *m, tbbt_id id, int make) {
    gpointer v = g_hash_table_lookup(m->ids, GSIZE_TO_POINTER(id));
    if (v) return (uint32_t)(GPOINTER_TO_SIZE(v) - 1);
    if (!make) return UINT32_MAX;
    g_hash_table_insert(m->ids, GSIZE_TO_POINTER(id), GSIZE_TO_POINTER(++m->nobjs));
    return (uint32_t)(m->nobjs - 1);
}

/* Keeps a copy of e (its strings point into the reader's buffer). */
static void keep(struct tbbt_submap *m, const struct tbbt_hm_entry *e) {
    struct tbbt_hm_entry c = *e;
    c.path = g_strdup(e->path);
    c.target = e->target ? g_strdup(e->target) : NULL;
    g_array_append_val(m->ents, c);
    uint32_t oi = obj_index(m, e->id, 1), pi = e->parent ? obj_index(m, e->parent, 0) : UINT32_MAX;
    g_array_append_val(m->objof, oi);
    g_array_append_val(m->parentof, pi);
}

struct tbbt_submap *tbbt_submap_load(const char *path, char *err, size_t errlen) {
    struct tbbt_hmapr *r = tbbt_hmapr_open(path, err, errlen);
    if (!r) return NULL;
    struct tbbt_submap *m = g_new0(struct tbbt_submap, 1);
    m->ents = g_array_new(FALSE, FALSE, sizeof(struct tbbt_hm_entry));
    m->objof = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    m->parentof = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    m->ids = g_hash_table_new(g_direct_hash, g_direct_equal);
    struct tbbt_hm_entry e;
    int rc;
    while ((rc = tbbt_hmapr_next(r, &e, err, errlen)) == 1)
        keep(m, &e);
    tbbt_hmapr_close(r);
    if (rc < 0) {
        tbbt_submap_free(m);
        return NULL;
    }
    m->want = g_new0(uint64_t, m->nobjs ? m->nobjs : 1);
    return m;
}

void tbbt_submap_free(struct tbbt_submap *m) {
    if (!m) return;
    for (guint i = 0; i < m->ents->len; i++) {
        struct tbbt_hm_entry *e = &g_array_index(m->ents, struct tbbt_hm_entry, i);
        g_free(e->path), g_free(e->target);
    }
    g_array_free(m->ents, TRUE), g_array_free(m->objof, TRUE), g_array_free(m->parentof, TRUE);
    g_hash_table_destroy(m->ids);
    g_free(m->want), g_free(m);
}

size_t tbbt_submap_entries(const struct tbbt_submap *m) {
    return m->ents->len;
}

size_t tbbt_submap_objects(const struct tbbt_submap *m) {
    return m->nobjs;
}

tbbt_id tbbt_submap_dir(const struct tbbt_submap *m, const char *path) {
    for (guint i = 0; i < m->ents->len; i++) {
        const struct tbbt_hm_entry *e = &g_array_index(m->ents, struct tbbt_hm_entry, i);
        if (e->type == TBBT_FT_DIR && !strcmp(e->path, path)) return e->id;
    }
    return 0;
}

int tbbt_submap_want(struct tbbt_submap *m, tbbt_id id, uint64_t units) {
    uint32_t oi = obj_index(m, id, 0);
    if (oi == UINT32_MAX) return 0;
    m->want[oi] |= units;
    m->closed = 0;
    return 1;
}

/* Gives every directory the units of the objects below it: passes from
 * the last entry to the first until nothing changes (one pass, unless a
 * directory got a path after entries below it). */
static void close_ancestors(struct tbbt_submap *m) {
    const uint32_t *obj = (const uint32_t *)(void *)m->objof->data;
    const uint32_t *par = (const uint32_t *)(void *)m->parentof->data;
    for (int changed = 1; changed;) {
        changed = 0;
        for (guint i = m->ents->len; i-- > 0;) {
            if (par[i] == UINT32_MAX) continue;
            uint64_t u = m->want[obj[i]] & ~m->want[par[i]];
            if (u) m->want[par[i]] |= u, changed = 1;
        }
    }
    m->closed = 1;
}

int tbbt_submap_write(struct tbbt_submap *m, uint64_t units, const char *path, const char *comment,
                      uint64_t *written, char *err, size_t errlen) {
    if (!m->closed) close_ancestors(m);
    struct tbbt_hmapw *w = tbbt_hmapw_open(path, comment, err, errlen);
    if (!w) return -1;
    uint64_t n = 0;
    for (guint i = 0; i < m->ents->len; i++) {
        if (!(m->want[g_array_index(m->objof, uint32_t, i)] & units)) continue;
        tbbt_hmapw_put(w, &g_array_index(m->ents, struct tbbt_hm_entry, i));
        n++;
    }
    *written = n;
    return tbbt_hmapw_close(w, err, errlen);
}
