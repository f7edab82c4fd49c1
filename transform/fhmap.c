/* fhmap.c -- file handles to TBBT-IDs, with object identity and lifetime. */
#include "fhmap.h"

#include <glib.h>
#include <string.h>

struct fhkey {
    uint16_t len;
    uint8_t data[];
};

struct fidkey {
    uint64_t fsid, fileid;
};

struct namekey {
    tbbt_id dir;
    uint32_t len;
    char name[];
};

struct obj {
    tbbt_id id;
    struct fidkey fid;
    int has_fid;
    uint32_t type, nlink; /* 0 = unknown */
    struct fhkey **fhs;   /* handles pointing here (owned by fh_table keys) */
    uint32_t nfh;
};

struct tbbt_fhmap {
    GHashTable *fh_table;   /* struct fhkey* -> struct obj* */
    GHashTable *fid_table;  /* struct fidkey* (inside obj) -> struct obj* */
    GHashTable *id_table;   /* id -> struct obj* (owned) */
    GHashTable *name_table; /* struct namekey* (owned) -> id */
    tbbt_id next_id;
    struct tbbt_fhmap_stats st;
};

/* Hashes a byte range eight bytes at a time (handles are 32-64 bytes and
 * every call and listing entry looks one up), finishing with murmur3's
 * 64-bit mixer so that handles differing in one byte spread apart. */
static guint hash_bytes(const void *p, size_t n, guint seed) {
    const uint8_t *b = p;
    uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL), w;
    for (; n >= 8; n -= 8, b += 8) {
        memcpy(&w, b, 8);
        h = (h ^ w) * 0x87c37b91114253d5ULL;
        h ^= h >> 31;
    }
    w = 0;
    memcpy(&w, b, n);
    h ^= w;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    return (guint)(h ^ (h >> 33));
}

static guint fhkey_hash(gconstpointer k) {
    const struct fhkey *f = k;
    return hash_bytes(f->data, f->len, 2166136261u);
}

static gboolean fhkey_equal(gconstpointer a, gconstpointer b) {
    const struct fhkey *x = a, *y = b;
    return x->len == y->len && memcmp(x->data, y->data, x->len) == 0;
}

static guint fidkey_hash(gconstpointer k) {
    return hash_bytes(k, sizeof(struct fidkey), 2166136261u);
}

static gboolean fidkey_equal(gconstpointer a, gconstpointer b) {
    return memcmp(a, b, sizeof(struct fidkey)) == 0;
}

static guint namekey_hash(gconstpointer k) {
    const struct namekey *n = k;
    return hash_bytes(n->name, n->len, hash_bytes(&n->dir, sizeof(n->dir), 2166136261u));
}

static gboolean namekey_equal(gconstpointer a, gconstpointer b) {
    const struct namekey *x = a, *y = b;
    return x->dir == y->dir && x->len == y->len && memcmp(x->name, y->name, x->len) == 0;
}

static guint id_hash(gconstpointer k) {
    uint64_t v = *(const uint64_t *)k;
    return (guint)(v ^ (v >> 32));
}

static gboolean id_equal(gconstpointer a, gconstpointer b) {
    return *(const uint64_t *)a == *(const uint64_t *)b;
}

static void obj_free(gpointer p) {
    struct obj *o = p;
    g_free(o->fhs);
    g_free(o);
}

struct tbbt_fhmap *tbbt_fhmap_new(void) {
    struct tbbt_fhmap *m = g_new0(struct tbbt_fhmap, 1);
    m->fh_table = g_hash_table_new_full(fhkey_hash, fhkey_equal, g_free, NULL);
    m->fid_table = g_hash_table_new(fidkey_hash, fidkey_equal);
    m->id_table = g_hash_table_new_full(id_hash, id_equal, NULL, obj_free);
    m->name_table = g_hash_table_new_full(namekey_hash, namekey_equal, g_free, NULL);
    m->next_id = 1;
    return m;
}

void tbbt_fhmap_free(struct tbbt_fhmap *m) {
    if (!m) return;
    g_hash_table_destroy(m->fh_table);
    g_hash_table_destroy(m->fid_table);
    g_hash_table_destroy(m->name_table);
    g_hash_table_destroy(m->id_table);
    g_free(m);
}

static struct obj *obj_new(struct tbbt_fhmap *m) {
    struct obj *o = g_new0(struct obj, 1);
    o->id = m->next_id++;
    g_hash_table_insert(m->id_table, &o->id, o);
    m->st.objects++;
    m->st.live++;
    return o;
}

static struct obj *obj_by_id(struct tbbt_fhmap *m, tbbt_id id) {
    return id ? g_hash_table_lookup(m->id_table, &id) : NULL;
}

/* Points a new handle key at o. The key is owned by fh_table. */
static void obj_add_fh(struct tbbt_fhmap *m, struct obj *o, const uint8_t *fh, size_t len) {
    struct fhkey *k = g_malloc(sizeof(*k) + len);
    k->len = (uint16_t)len;
    memcpy(k->data, fh, len);
    o->fhs = g_renew(struct fhkey *, o->fhs, o->nfh + 1);
    o->fhs[o->nfh++] = k;
    g_hash_table_insert(m->fh_table, k, o);
    m->st.handles++;
}

/* Forgets an object: its handles, its identity, its ID. */
static void obj_retire(struct tbbt_fhmap *m, struct obj *o) {
    for (uint32_t i = 0; i < o->nfh; i++) g_hash_table_remove(m->fh_table, o->fhs[i]);
    m->st.handles -= o->nfh;
    if (o->has_fid && g_hash_table_lookup(m->fid_table, &o->fid) == o) g_hash_table_remove(m->fid_table, &o->fid);
    m->st.retired++;
    m->st.live--;
    g_hash_table_remove(m->id_table, &o->id);
}

tbbt_id tbbt_fhmap_lookup(struct tbbt_fhmap *m, const uint8_t *fh, size_t len, int *fresh) {
    union {
        struct fhkey k;
        uint8_t buf[sizeof(struct fhkey) + 64];
    } u;
    struct obj *o = NULL;
    if (len > 64) len = 64;
    u.k.len = (uint16_t)len;
    memcpy(u.k.data, fh, len);
    o = g_hash_table_lookup(m->fh_table, &u.k);
    *fresh = o == NULL;
    if (!o) {
        o = obj_new(m);
        obj_add_fh(m, o, fh, len);
    }
    return o->id;
}

/* Detaches handle key k from object o (used when a fresh handle joins
 * another object); o, now handle-less and unused, is dropped. */
static void obj_drop_fresh(struct tbbt_fhmap *m, struct obj *o) {
    for (uint32_t i = 0; i < o->nfh; i++) g_hash_table_remove(m->fh_table, o->fhs[i]);
    m->st.handles -= o->nfh;
    m->st.live--;
    g_hash_table_remove(m->id_table, &o->id);
}

tbbt_id tbbt_fhmap_identify(struct tbbt_fhmap *m, const uint8_t *fh, size_t len, tbbt_id id, int fresh,
                            uint64_t fsid, uint64_t fileid) {
    struct obj *o = obj_by_id(m, id);
    struct fidkey key = {fsid, fileid};
    struct obj *known = g_hash_table_lookup(m->fid_table, &key);
    if (!o) return id;
    if (len > 64) len = 64;
    if (known == o) return id;
    if (!known) {
        if (o->has_fid && g_hash_table_lookup(m->fid_table, &o->fid) == o)
            g_hash_table_remove(m->fid_table, &o->fid);
        o->fid = key;
        o->has_fid = 1;
        g_hash_table_insert(m->fid_table, &o->fid, o);
        return id;
    }
    if (fresh && o->nfh == 1) {
        obj_drop_fresh(m, o);
        obj_add_fh(m, known, fh, len);
        m->st.aliases++;
        return known->id;
    }
    m->st.conflicts++;
    return id;
}

void tbbt_fhmap_set_attr(struct tbbt_fhmap *m, tbbt_id id, uint32_t type, uint32_t nlink) {
    struct obj *o = obj_by_id(m, id);
    if (!o) return;
    if (type) o->type = type;
    o->nlink = nlink;
}

/* Builds a name key on the heap (names can be long; this is off the
 * per-packet fast path, only directory operations come here). */
static struct namekey *namekey_make(tbbt_id dir, const char *name, size_t len) {
    struct namekey *k = g_malloc(sizeof(*k) + len);
    k->dir = dir;
    k->len = (uint32_t)len;
    memcpy(k->name, name, len);
    return k;
}

/* A name key on the stack for lookups; names longer than the buffer (rare:
 * NFS servers cap them at 255) fall back to the heap. */
struct namebuf {
    struct namekey *k;
    union {
        struct namekey nk;
        char raw[sizeof(struct namekey) + 256];
    } u;
};

static struct namekey *namebuf_key(struct namebuf *b, tbbt_id dir, const char *name, size_t len) {
    if (len > 256) return b->k = namekey_make(dir, name, len);
    b->k = &b->u.nk;
    b->k->dir = dir;
    b->k->len = (uint32_t)len;
    memcpy(b->k->name, name, len);
    return b->k;
}

static void namebuf_done(struct namebuf *b) {
    if (b->k != &b->u.nk) g_free(b->k);
}

/* Listings re-bind the same names over and over: only a change allocates. */
void tbbt_fhmap_bind(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len, tbbt_id obj) {
    struct namebuf b;
    gpointer cur;
    if (!dir || !obj) return;
    int known = g_hash_table_lookup_extended(m->name_table, namebuf_key(&b, dir, name, len), NULL, &cur);
    namebuf_done(&b);
    if (known && (tbbt_id)(uintptr_t)cur == obj) return;
    g_hash_table_replace(m->name_table, namekey_make(dir, name, len), (gpointer)(uintptr_t)obj);
}

tbbt_id tbbt_fhmap_resolve(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len) {
    struct namebuf b;
    tbbt_id id = (tbbt_id)(uintptr_t)g_hash_table_lookup(m->name_table, namebuf_key(&b, dir, name, len));
    namebuf_done(&b);
    return id;
}

/* Drops one link of object id; retires it when that was its last. */
static void obj_unlink(struct tbbt_fhmap *m, tbbt_id id) {
    struct obj *o = obj_by_id(m, id);
    if (!o) return;
    if (o->type != 2 && o->nlink > 1) {
        o->nlink--;
        return;
    }
    obj_retire(m, o);
}

tbbt_id tbbt_fhmap_unlink(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len) {
    struct namekey *k = namekey_make(dir, name, len);
    gpointer v = NULL;
    tbbt_id id = 0;
    if (g_hash_table_lookup_extended(m->name_table, k, NULL, &v)) {
        id = (tbbt_id)(uintptr_t)v;
        g_hash_table_remove(m->name_table, k);
        obj_unlink(m, id);
    }
    g_free(k);
    return id;
}

void tbbt_fhmap_rename(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len, tbbt_id dir2,
                       const char *name2, size_t len2) {
    tbbt_id moved = tbbt_fhmap_resolve(m, dir, name, len);
    tbbt_id replaced = tbbt_fhmap_resolve(m, dir2, name2, len2);
    if (moved && moved == replaced) return; /* rename onto a link of itself: a no-op */
    if (replaced) tbbt_fhmap_unlink(m, dir2, name2, len2);
    if (!moved) return;
    struct namekey *k = namekey_make(dir, name, len);
    g_hash_table_remove(m->name_table, k);
    g_free(k);
    tbbt_fhmap_bind(m, dir2, name2, len2, moved);
}

const struct tbbt_fhmap_stats *tbbt_fhmap_stats(const struct tbbt_fhmap *m) {
    return &m->st;
}
