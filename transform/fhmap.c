/* fhmap.c -- file handles to TBBT-IDs, with object identity and lifetime. */
#include "fhmap.h"

#include <glib.h>
#include <stddef.h>
#include <string.h>

#include "chtab.h"
#include "htab.h"

/* A handle, owned by fh_table, naming the object o. Its hash is not kept:
 * the table keeps the top bits it probes with, and the rest is recomputed
 * from the bytes to grow or remove (an object's first handle lives in its
 * block, and 8 bytes more there cost most objects 16 in malloc's sizes). */
struct fhent {
    struct obj *o;
    uint16_t len;
    uint8_t data[];
};

/* Bytes of an fhent with len bytes of handle. */
#define FHENT_SIZE(len) (offsetof(struct fhent, data) + (len))

/* A handle as looked up (not copied). */
struct fhprobe {
    const uint8_t *data;
    size_t len;
};

struct fidkey {
    uint64_t fsid, fileid;
};

/* A binding (dir, name) -> obj, owned by name_table; about one an object,
 * so, as an fhent, it keeps no hash and is allocated to its name's end. */
struct nament {
    tbbt_id dir, obj;
    uint32_t len;
    char name[];
};

/* A name as looked up (not copied). */
struct nameprobe {
    tbbt_id dir;
    const char *name;
    size_t len;
};

struct obj {
    tbbt_id id;
    struct fidkey fid;
    uint32_t type, nlink; /* 0 = unknown */
    uint32_t uid, gid;    /* the owner, if has_owner */
    struct fhent **more;  /* its handles after the first (owned by fh_table), or NULL */
    uint32_t nfh;
    uint8_t has_fid;     /* then fid_table maps fid to this object */
    uint8_t has_owner;   /* then uid and gid are known */
    struct nament *name; /* a binding naming this object (its obj is this id), or NULL */
    int64_t first_ns;    /* capture time of the message that first showed it */
};

/* A handle of a retired object, in the graveyard ring. */
struct grave {
    uint64_t hash; /* 0: an empty slot */
    tbbt_id id;
    int64_t died_ns; /* the clock when it was retired */
    uint16_t len;
    uint8_t data[64];
};

struct tbbt_fhmap {
    struct tbbt_chtab fh_table;   /* struct fhent* (its o names the object) */
    struct tbbt_htab grave_table; /* struct grave* in graves, by hash */
    struct grave *graves;         /* ring of TBBT_FHMAP_GRAVES, allocated at the first retirement */
    uint32_t grave_next;
    struct tbbt_chtab fid_table;  /* struct obj* with has_fid, by fid */
    struct tbbt_chtab name_table; /* struct nament* (owned) */
    /* The objects by ID (owned), NULL once gone: IDs are given in turn from
     * 1, so an array of next_id entries (8 bytes an ID ever given) finds
     * one with no probe, in less room than a table of the live ones. */
    struct obj **by_id;
    size_t by_id_cap; /* entries allocated (by_id[next_id..] are not set) */
    tbbt_id next_id;
    int64_t now; /* capture time of the message being mapped (tbbt_fhmap_set_clock) */
    struct tbbt_fhmap_stats st;
};

/* Hash of a handle's bytes. */
static uint64_t fh_hash(const uint8_t *fh, size_t len) {
    return tbbt_htab_hash_bytes(fh, len, 2166136261u);
}

/* Hash of an object identity. */
static uint64_t fid_hash(const struct fidkey *k) {
    return tbbt_htab_mix(k->fsid ^ tbbt_htab_mix(k->fileid + 0x9e3779b97f4a7c15ULL));
}

/* Hash of a (dir, name) binding. */
static uint64_t name_hash(tbbt_id dir, const char *name, size_t len) {
    return tbbt_htab_hash_bytes(name, len, tbbt_htab_mix(dir));
}

/* fh_table equality: a handle entry against a struct fhprobe. */
static int fhent_eq(const void *item, const void *key) {
    const struct fhent *e = item;
    const struct fhprobe *k = key;
    return e->len == k->len && memcmp(e->data, k->data, k->len) == 0;
}

/* grave_table equality: a grave against a struct fhprobe. */
static int grave_eq(const void *item, const void *key) {
    const struct grave *g = item;
    const struct fhprobe *k = key;
    return g->len == k->len && memcmp(g->data, k->data, k->len) == 0;
}

/* fid_table equality: an object against a struct fidkey. */
static int fid_eq(const void *item, const void *key) {
    const struct obj *o = item;
    const struct fidkey *k = key;
    return o->fid.fsid == k->fsid && o->fid.fileid == k->fileid;
}

/* name_table equality: a binding against a struct nameprobe. */
static int name_eq(const void *item, const void *key) {
    const struct nament *e = item;
    const struct nameprobe *k = key;
    return e->dir == k->dir && e->len == k->len && memcmp(e->name, k->name, k->len) == 0;
}

/* chtab hash of a handle entry: its bytes'. */
static uint64_t fhent_item_hash(const void *item) {
    const struct fhent *e = item;
    return fh_hash(e->data, e->len);
}

/* chtab hash of an object in fid_table: its identity's. */
static uint64_t fid_item_hash(const void *item) {
    return fid_hash(&((const struct obj *)item)->fid);
}

/* chtab hash of a binding: its directory and name's. */
static uint64_t nament_item_hash(const void *item) {
    const struct nament *e = item;
    return name_hash(e->dir, e->name, e->len);
}

/* An empty map; free it with tbbt_fhmap_free. */
struct tbbt_fhmap *tbbt_fhmap_new(void) {
    struct tbbt_fhmap *m = g_new0(struct tbbt_fhmap, 1);
    tbbt_chtab_init(&m->fh_table, fhent_eq, fhent_item_hash);
    tbbt_htab_init(&m->grave_table, grave_eq);
    tbbt_chtab_init(&m->fid_table, fid_eq, fid_item_hash);
    tbbt_chtab_init(&m->name_table, name_eq, nament_item_hash);
    m->next_id = 1;
    return m;
}

/* The room for an object's first handle, right after the object. */
static struct fhent *obj_inline_fh(struct obj *o) {
    return (struct fhent *)(void *)(o + 1);
}

/* Handle i of o's nfh: the first lives in o's block (obj_inline_fh), the
 * others apart, through o->more (allocated only for a second handle: most
 * objects have one, and the array would cost them a block each). */
static struct fhent *obj_fh(struct obj *o, uint32_t i) {
    return i ? o->more[i - 1] : obj_inline_fh(o);
}

/* Frees an object, its handle entries with it (they must be out of fh_table
 * already, or the table is going away). */
static void obj_free(struct obj *o) {
    for (uint32_t i = 1; i < o->nfh; i++)
        g_free(o->more[i - 1]);
    g_free(o->more);
    g_free(o);
}

/* Frees the map with every object, handle and binding it holds. */
void tbbt_fhmap_free(struct tbbt_fhmap *m) {
    if (!m) return;
    for (tbbt_id id = 1; id < m->next_id; id++)
        if (m->by_id[id]) obj_free(m->by_id[id]);
    g_free(m->by_id);
    size_t pos = 0;
    void *item;
    while ((item = tbbt_chtab_next(&m->name_table, &pos)) != NULL)
        g_free(item);
    tbbt_chtab_clear(&m->fh_table);
    tbbt_htab_clear(&m->grave_table);
    g_free(m->graves);
    tbbt_chtab_clear(&m->fid_table);
    tbbt_chtab_clear(&m->name_table);
    g_free(m);
}

/* A new live object with the next ID, owned by by_id, with room right
 * after it for its first handle (of fhlen bytes), which obj_add_fh puts
 * there: finding an object by handle then touches one block, not two. */
static struct obj *obj_new(struct tbbt_fhmap *m, size_t fhlen) {
    struct obj *o = g_malloc0(sizeof(struct obj) + FHENT_SIZE(fhlen));
    o->id = m->next_id++;
    o->first_ns = m->now;
    if (o->id >= m->by_id_cap) {
        m->by_id_cap = m->by_id_cap ? 2 * m->by_id_cap : 1024;
        m->by_id = g_renew(struct obj *, m->by_id, m->by_id_cap);
    }
    m->by_id[o->id] = o;
    m->st.objects++;
    m->st.live++;
    return o;
}

/* The live object with this ID, or NULL (0, retired and never given IDs
 * have none). */
static struct obj *obj_by_id(const struct tbbt_fhmap *m, tbbt_id id) {
    return id && id < m->next_id ? m->by_id[id] : NULL;
}

/* Points a new handle entry (hash h) at o; the entry is owned by fh_table,
 * except for an object's first, which lives in the object's block. */
static void obj_add_fh(struct tbbt_fhmap *m, struct obj *o, const uint8_t *fh, size_t len, uint64_t h) {
    struct fhent *k = o->nfh ? g_malloc(FHENT_SIZE(len)) : obj_inline_fh(o);
    k->o = o;
    k->len = (uint16_t)len;
    memcpy(k->data, fh, len);
    if (o->nfh) {
        o->more = g_renew(struct fhent *, o->more, o->nfh);
        o->more[o->nfh - 1] = k;
    }
    o->nfh++;
    tbbt_chtab_put(&m->fh_table, h, k);
    m->st.handles++;
}

/* Takes o out of every table and frees it: its handles, its identity,
 * its ID. */
static void obj_destroy(struct tbbt_fhmap *m, struct obj *o) {
    for (uint32_t i = 0; i < o->nfh; i++)
        tbbt_chtab_remove_item(&m->fh_table, fhent_item_hash(obj_fh(o, i)), obj_fh(o, i));
    m->st.handles -= o->nfh;
    if (o->has_fid) tbbt_chtab_remove_item(&m->fid_table, fid_hash(&o->fid), o);
    m->st.live--;
    m->by_id[o->id] = NULL;
    obj_free(o);
}

/* Keeps a retired object's handle in the graveyard ring, in place of the
 * oldest. */
static void grave_add(struct tbbt_fhmap *m, const struct fhent *e, tbbt_id id) {
    if (!m->graves) m->graves = g_new0(struct grave, TBBT_FHMAP_GRAVES);
    struct grave *g = &m->graves[m->grave_next++ % TBBT_FHMAP_GRAVES];
    if (g->hash) tbbt_htab_remove_item(&m->grave_table, g->hash, g);
    struct fhprobe k = {e->data, e->len};
    uint64_t h = fhent_item_hash(e);
    struct grave *old = tbbt_htab_find_inline(&m->grave_table, h | 1, &k, grave_eq);
    if (old) tbbt_htab_remove_item(&m->grave_table, old->hash, old), old->hash = 0;
    g->hash = h | 1; /* never 0: that marks an empty slot; the key graves are found by */
    g->id = id;
    g->died_ns = m->now;
    g->len = e->len;
    memcpy(g->data, e->data, e->len);
    tbbt_htab_put(&m->grave_table, g->hash, g);
}

/* Forgets an object whose last name went away; its handles go to the
 * graveyard. */
static void obj_retire(struct tbbt_fhmap *m, struct obj *o) {
    m->st.retired++;
    for (uint32_t i = 0; i < o->nfh; i++)
        grave_add(m, obj_fh(o, i), o->id);
    obj_destroy(m, o);
}

/* The graveyard's entry for handle fh, or NULL. */
static const struct grave *grave_find(const struct tbbt_fhmap *m, const uint8_t *fh, size_t len) {
    if (!m->graves) return NULL;
    if (len > 64) len = 64;
    struct fhprobe k = {fh, len};
    return tbbt_htab_find_inline(&m->grave_table, fh_hash(fh, len) | 1, &k, grave_eq);
}

/* Contract in fhmap.h. */
tbbt_id tbbt_fhmap_dead(const struct tbbt_fhmap *m, const uint8_t *fh, size_t len) {
    const struct grave *g = grave_find(m, fh, len);
    return g ? g->id : 0;
}

/* Contract in fhmap.h. */
tbbt_id tbbt_fhmap_dead_since(const struct tbbt_fhmap *m, const uint8_t *fh, size_t len, int64_t t) {
    const struct grave *g = grave_find(m, fh, len);
    return g && g->died_ns >= t ? g->id : 0;
}

/* Contract in fhmap.h. */
int tbbt_fhmap_live(const struct tbbt_fhmap *m, tbbt_id id) {
    return obj_by_id(m, id) != NULL;
}

/* Contract in fhmap.h. */
void tbbt_fhmap_unborn(struct tbbt_fhmap *m, tbbt_id id) {
    struct obj *o = obj_by_id(m, id);
    if (o) obj_destroy(m, o);
}

/* Contract in fhmap.h: handles are cut to 64 bytes, as lookup does. */
uint64_t tbbt_fhmap_hash(const uint8_t *fh, size_t len) {
    return fh_hash(fh, len > 64 ? 64 : len);
}

/* Contract in fhmap.h. Stage 2 reads the home slot only: an object
 * further along the probe is left to the lookup. */
void tbbt_fhmap_prefetch(const struct tbbt_fhmap *m, uint64_t h, int stage) {
    if (stage < 2) {
        tbbt_chtab_prefetch(&m->fh_table, h);
        return;
    }
    /* the entry, and the object before it when it is an object's first
     * handle (otherwise a harmless hint at other memory) */
    const char *e = tbbt_chtab_peek(&m->fh_table, h);
    if (!e) return;
    __builtin_prefetch(e);
    __builtin_prefetch(e - sizeof(struct obj));
}

/* Contract in fhmap.h. */
tbbt_id tbbt_fhmap_lookup_hashed(struct tbbt_fhmap *m, const uint8_t *fh, size_t len, uint64_t h,
                                 int *fresh) {
    if (len > 64) len = 64;
    struct fhprobe k = {fh, len};
    struct fhent *e = tbbt_chtab_find_inline(&m->fh_table, h, &k, fhent_eq);
    struct obj *o;
    *fresh = e == NULL;
    if (e) {
        o = e->o;
    } else {
        o = obj_new(m, len);
        obj_add_fh(m, o, fh, len, h);
    }
    return o->id;
}

/* Contract in fhmap.h. */
tbbt_id tbbt_fhmap_lookup(struct tbbt_fhmap *m, const uint8_t *fh, size_t len, int *fresh) {
    return tbbt_fhmap_lookup_hashed(m, fh, len, tbbt_fhmap_hash(fh, len), fresh);
}

/* Drops o, a fresh object whose only handle joins another object. */
static void obj_drop_fresh(struct tbbt_fhmap *m, struct obj *o) {
    obj_destroy(m, o);
}

/* Whether live object o cannot be the object whose attributes are s: one
 * file does not change type, nor owner without a SETATTR (which shows the
 * new owner through a handle o already has, updating o first). */
static int shown_other(const struct obj *o, const struct tbbt_fhmap_shown *s) {
    if (s->type && o->type && o->type != s->type) return 1;
    return s->has_owner && o->has_owner && (o->uid != s->uid || o->gid != s->gid);
}

/* Keeps the type attributes showed for o when it had none: an object never
 * changes type, so a later handle with o's identity and another type is
 * another object (a listing's entry shows the type of an object no reply
 * has described yet). */
static void note_type(struct obj *o, const struct tbbt_fhmap_shown *s) {
    if (s->type && !o->type) o->type = s->type;
}

/* Contract in fhmap.h. An object keeps its place in fid_table as long as it
 * has_fid (the entry is only ever replaced by the object itself), so an
 * object already carrying (fsid, fileid) needs no lookup: the common case of
 * a handle seen again. */
tbbt_id tbbt_fhmap_identify(struct tbbt_fhmap *m, const uint8_t *fh, size_t len, tbbt_id id, int fresh,
                            uint64_t fsid, uint64_t fileid, const struct tbbt_fhmap_shown *s) {
    struct obj *o = obj_by_id(m, id);
    struct fidkey key = {fsid, fileid};
    if (!o) return id;
    if (o->has_fid && o->fid.fsid == fsid && o->fid.fileid == fileid) {
        note_type(o, s);
        return id;
    }
    if (len > 64) len = 64;
    uint64_t h = fid_hash(&key);
    struct obj *known = tbbt_chtab_find(&m->fid_table, h, &key);
    if (known == o) {
        note_type(o, s);
        return id;
    }
    if (known && shown_other(known, s)) {
        obj_retire(m, known);
        m->st.reborn++;
        known = NULL;
    }
    if (!known) {
        if (o->has_fid) tbbt_chtab_remove_item(&m->fid_table, fid_hash(&o->fid), o);
        o->fid = key;
        o->has_fid = 1;
        tbbt_chtab_put(&m->fid_table, h, o);
        note_type(o, s);
        return id;
    }
    if (fresh && o->nfh == 1) {
        obj_drop_fresh(m, o);
        obj_add_fh(m, known, fh, len, fh_hash(fh, len));
        m->st.aliases++;
        note_type(known, s);
        return known->id;
    }
    m->st.conflicts++;
    return id;
}

/* Contract in fhmap.h. */
tbbt_id tbbt_fhmap_by_fileid(struct tbbt_fhmap *m, uint64_t fsid, uint64_t fileid) {
    struct fidkey key = {fsid, fileid};
    struct obj *o = tbbt_chtab_find(&m->fid_table, fid_hash(&key), &key);
    return o ? o->id : 0;
}

/* Contract in fhmap.h. */
void tbbt_fhmap_set_clock(struct tbbt_fhmap *m, int64_t ns) {
    m->now = ns;
}

/* Contract in fhmap.h. The handle's present object (if it is not the
 * object just made for this fresh handle, nor one first shown by a
 * message sent after this reply) and the identity's present owner are
 * both dead: the server reused their inode. */
tbbt_id tbbt_fhmap_born(struct tbbt_fhmap *m, const uint8_t *fh, size_t len, tbbt_id id, int fresh,
                        int has_fid, uint64_t fsid, uint64_t fileid) {
    if (len > 64) len = 64;
    struct obj *o = obj_by_id(m, id);
    if (o && !fresh && o->first_ns > m->now) {
        /* the handle was used after this reply was sent, but mapped first:
         * the reply's stream was held back (a gap). It is this object. */
        fresh = 1;
    }
    if (o && !fresh) {
        obj_retire(m, o);
        m->st.reborn++;
        o = NULL;
    }
    if (!o) {
        o = obj_new(m, len);
        obj_add_fh(m, o, fh, len, fh_hash(fh, len));
    }
    if (has_fid) {
        struct fidkey key = {fsid, fileid};
        uint64_t h = fid_hash(&key);
        struct obj *known = tbbt_chtab_find(&m->fid_table, h, &key);
        if (known && known != o) {
            obj_retire(m, known);
            m->st.reborn++;
        }
        if (!o->has_fid) {
            o->fid = key;
            o->has_fid = 1;
            tbbt_chtab_put(&m->fid_table, h, o);
        }
    }
    return o->id;
}

/* Contract in fhmap.h. */
int tbbt_fhmap_named_elsewhere(struct tbbt_fhmap *m, tbbt_id id, tbbt_id dir, const char *name, size_t len) {
    struct obj *o = obj_by_id(m, id);
    if (!o || o->nlink != 1 || !o->name) return 0;
    const struct nament *e = o->name;
    return !(e->dir == dir && e->len == len && memcmp(e->name, name, len) == 0);
}

/* Contract in fhmap.h. */
int tbbt_fhmap_owner(struct tbbt_fhmap *m, tbbt_id id, uint32_t *uid, uint32_t *gid) {
    struct obj *o = obj_by_id(m, id);
    if (!o || !o->has_owner) return 0;
    *uid = o->uid;
    *gid = o->gid;
    return 1;
}

/* Contract in fhmap.h. */
uint32_t tbbt_fhmap_type(struct tbbt_fhmap *m, tbbt_id id) {
    struct obj *o = obj_by_id(m, id);
    return o ? o->type : 0;
}

/* Contract in fhmap.h. */
void tbbt_fhmap_set_attr(struct tbbt_fhmap *m, tbbt_id id, const struct tbbt_fhmap_shown *s, uint32_t nlink) {
    struct obj *o = obj_by_id(m, id);
    if (!o) return;
    if (s->type) o->type = s->type;
    if (s->has_owner) {
        o->uid = s->uid;
        o->gid = s->gid;
        o->has_owner = 1;
    }
    o->nlink = nlink;
}

/* The binding of (dir, name) under hash h, or NULL. */
static struct nament *name_find(struct tbbt_fhmap *m, uint64_t h, tbbt_id dir, const char *name, size_t len) {
    struct nameprobe k = {dir, name, len};
    return tbbt_chtab_find_inline(&m->name_table, h, &k, name_eq);
}

/* Forgets binding e as the name its object remembers (e is going away or
 * about to name another object). */
static void name_unref(struct tbbt_fhmap *m, struct nament *e) {
    struct obj *o = obj_by_id(m, e->obj);
    if (o && o->name == e) o->name = NULL;
}

/* Contract in fhmap.h. Listings re-bind the same names over and over: an
 * object remembers one binding naming it, so re-binding that name costs no
 * table lookup; only a new name allocates, and a changed one is updated in
 * place. */
void tbbt_fhmap_bind(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len, tbbt_id obj) {
    if (!dir || !obj) return;
    struct obj *o = obj_by_id(m, obj);
    struct nament *e = o ? o->name : NULL;
    if (e && e->dir == dir && e->len == len && memcmp(e->name, name, len) == 0) return; /* bound already */
    uint64_t h = name_hash(dir, name, len);
    e = name_find(m, h, dir, name, len);
    if (e) {
        if (e->obj != obj) name_unref(m, e);
        e->obj = obj;
    } else {
        e = g_malloc(offsetof(struct nament, name) + len);
        e->dir = dir;
        e->obj = obj;
        e->len = (uint32_t)len;
        memcpy(e->name, name, len);
        tbbt_chtab_put(&m->name_table, h, e);
    }
    if (o) o->name = e;
}

/* Contract in fhmap.h. */
tbbt_id tbbt_fhmap_resolve(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len) {
    struct nament *e = name_find(m, name_hash(dir, name, len), dir, name, len);
    return e ? e->obj : 0;
}

/* Drops one link of object id; retires it when that was its last. */
static void obj_unlink(struct tbbt_fhmap *m, tbbt_id id) {
    struct obj *o = obj_by_id(m, id);
    if (!o) return;
    if (o->type != TBBT_FT_DIR && o->nlink > 1) {
        o->nlink--;
        return;
    }
    obj_retire(m, o);
}

/* Removes the binding (dir, name) and returns its object, or 0. */
static tbbt_id name_remove(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len) {
    struct nameprobe k = {dir, name, len};
    struct nament *e = tbbt_chtab_remove(&m->name_table, name_hash(dir, name, len), &k);
    if (!e) return 0;
    tbbt_id id = e->obj;
    name_unref(m, e);
    g_free(e);
    return id;
}

/* Contract in fhmap.h. */
tbbt_id tbbt_fhmap_unlink(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len) {
    tbbt_id id = name_remove(m, dir, name, len);
    if (id) obj_unlink(m, id);
    return id;
}

/* Contract in fhmap.h. */
void tbbt_fhmap_rename(struct tbbt_fhmap *m, tbbt_id dir, const char *name, size_t len, tbbt_id dir2,
                       const char *name2, size_t len2) {
    tbbt_id moved = tbbt_fhmap_resolve(m, dir, name, len);
    tbbt_id replaced = tbbt_fhmap_resolve(m, dir2, name2, len2);
    if (moved && moved == replaced) return; /* rename onto a link of itself: a no-op */
    if (replaced) tbbt_fhmap_unlink(m, dir2, name2, len2);
    if (!moved) return;
    name_remove(m, dir, name, len);
    tbbt_fhmap_bind(m, dir2, name2, len2, moved);
}

/* The counters, owned by the map. */
const struct tbbt_fhmap_stats *tbbt_fhmap_stats(const struct tbbt_fhmap *m) {
    return &m->st;
}
