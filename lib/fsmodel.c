/* fsmodel.c -- the in-memory file-system model (see fsmodel.h). */
#include "fsmodel.h"

#include <string.h>

#include "chtab.h"
#include "htab.h"
#include "unconst.h"

#define OBJ_CACHE 256 /* direct-mapped by ID */

/* One line of the object lookup cache: the ID beside the object, so that
 * a miss does not load the object to see it is another. */
struct obj_cached {
    tbbt_id id;
    struct tbbt_fsobj *o; /* NULL: empty */
};

#define SLAB_SIZE (64 * 1024) /* bytes per block of objects or entries */

/* Where objects and entries live: blocks filled one item after the
 * other, freed all at once with the model (items are never freed before
 * it is). Items made one after the other sit side by side, with no
 * allocator header between them. */
struct slab {
    GPtrArray *blocks; /* the blocks (owned) */
    char *next;        /* free space in the last block */
    size_t left;       /* bytes of it */
};

/* The model's lookup caches (see struct tbbt_fsmodel). */
struct model_cache {
    struct tbbt_fsdent *last_dent;
    struct obj_cached obj[OBJ_CACHE];
};

struct tbbt_fsmodel {
    struct slab obj_slab;    /* the objects' storage */
    struct slab dent_slab;   /* the entries' storage */
    struct tbbt_chtab objs;  /* struct tbbt_fsobj, keyed by id */
    struct tbbt_chtab dents; /* struct tbbt_fsdent, keyed by (dir, name) */
    /* Lookup caches. Objects and entries are never freed before the model
     * is, so a cached pointer stays valid; a record looks its name up
     * several times (prediction, application) and its objects too. They
     * are updated by lookups on a const model: mutable state, hence held
     * through a pointer (owned) rather than cast. */
    struct model_cache *cache;
    size_t obj_ext;  /* bytes of the caller's extension after each object */
    size_t dent_ext; /* and after each entry's name */
};

/* Returns n zeroed bytes (8-aligned) from slab s, owned by s: valid until
 * slab_free. */
static void *slab_alloc(struct slab *s, size_t n) {
    n = (n + 7) & ~(size_t)7;
    if (n > s->left) {
        size_t size = n > SLAB_SIZE ? n : SLAB_SIZE;
        if (!s->blocks) s->blocks = g_ptr_array_new_with_free_func(g_free);
        s->next = g_malloc0(size);
        s->left = size;
        g_ptr_array_add(s->blocks, s->next);
    }
    void *p = s->next;
    s->next += n;
    s->left -= n;
    return p;
}

/* Frees every block of slab s. */
static void slab_free(struct slab *s) {
    if (s->blocks) g_ptr_array_free(s->blocks, TRUE);
    memset(s, 0, sizeof(*s));
}

/* Lookup key of an entry. */
struct dent_key {
    tbbt_id dir;
    const char *name;
    uint32_t len;
};

/* Hash of an object ID. */
static inline uint64_t obj_hash(tbbt_id id) {
    return tbbt_htab_mix(id * 0x9e3779b97f4a7c15ULL + 1);
}

/* Hash of an entry key: the name's bytes seeded with the directory. */
static inline uint64_t dent_hash(tbbt_id dir, const char *name, size_t len) {
    return tbbt_htab_hash_bytes(name, len, obj_hash(dir));
}

/* htab equality: an object against an ID. */
static int obj_eq(const void *item, const void *key) {
    return ((const struct tbbt_fsobj *)item)->id == *(const tbbt_id *)key;
}

/* htab equality: an entry against a struct dent_key. */
static int dent_eq(const void *item, const void *key) {
    const struct tbbt_fsdent *d = item;
    const struct dent_key *k = key;
    return d->dir == k->dir && d->len == k->len && memcmp(d->name, k->name, k->len) == 0;
}

/* chtab hash of an object: its ID's. */
static uint64_t obj_item_hash(const void *item) {
    return obj_hash(((const struct tbbt_fsobj *)item)->id);
}

/* chtab hash of an entry: its key's. */
static uint64_t dent_item_hash(const void *item) {
    const struct tbbt_fsdent *d = item;
    return dent_hash(d->dir, d->name, d->len);
}

/* Contract in fsmodel.h. */
struct tbbt_fsmodel *tbbt_fsmodel_new_ext(size_t obj_ext, size_t dent_ext) {
    struct tbbt_fsmodel *m = g_new0(struct tbbt_fsmodel, 1);
    m->cache = g_new0(struct model_cache, 1);
    m->obj_ext = obj_ext;
    m->dent_ext = dent_ext;
    tbbt_chtab_init(&m->objs, obj_eq, obj_item_hash);
    tbbt_chtab_init(&m->dents, dent_eq, dent_item_hash);
    return m;
}

/* Contract in fsmodel.h. */
struct tbbt_fsmodel *tbbt_fsmodel_new(void) {
    return tbbt_fsmodel_new_ext(0, 0);
}

/* Contract in fsmodel.h. */
void tbbt_fsmodel_free(struct tbbt_fsmodel *m) {
    if (!m) return;
    size_t pos = 0;
    struct tbbt_fsobj *o;
    while ((o = tbbt_chtab_next(&m->objs, &pos)))
        g_free(o->target);
    tbbt_chtab_clear(&m->objs);
    tbbt_chtab_clear(&m->dents);
    slab_free(&m->obj_slab);
    slab_free(&m->dent_slab);
    g_free(m->cache);
    g_free(m);
}

/* Contract in fsmodel.h. */
struct tbbt_fsobj *tbbt_fsmodel_obj(const struct tbbt_fsmodel *m, tbbt_id id) {
    struct obj_cached *c = &m->cache->obj[id % OBJ_CACHE];
    if (c->o && c->id == id) return c->o;
    struct tbbt_fsobj *o = tbbt_chtab_find_inline(&m->objs, obj_hash(id), &id, obj_eq);
    if (o) *c = (struct obj_cached){id, o};
    return o;
}

/* Contract in fsmodel.h. */
struct tbbt_fsobj *tbbt_fsmodel_obj_get(struct tbbt_fsmodel *m, tbbt_id id) {
    struct tbbt_fsobj *o = tbbt_fsmodel_obj(m, id);
    if (o) return o;
    o = slab_alloc(&m->obj_slab, sizeof(*o) + m->obj_ext);
    o->id = id;
    tbbt_chtab_put(&m->objs, obj_hash(id), o);
    m->cache->obj[id % OBJ_CACHE] = (struct obj_cached){id, o};
    return o;
}

/* Is d the entry (dir, name)? */
static inline int dent_is(const struct tbbt_fsdent *d, tbbt_id dir, const char *name, size_t len) {
    return d && d->dir == dir && d->len == len && memcmp(d->name, name, len) == 0;
}

/* tbbt_fsmodel_dent with the key's hash h (dent_hash) already computed:
 * the entry, or NULL. */
static struct tbbt_fsdent *dent_find(const struct tbbt_fsmodel *m, uint64_t h, tbbt_id dir, const char *name,
                                     size_t len) {
    if (dent_is(m->cache->last_dent, dir, name, len)) return m->cache->last_dent;
    struct dent_key k = {dir, name, (uint32_t)len};
    struct tbbt_fsdent *d = tbbt_chtab_find_inline(&m->dents, h, &k, dent_eq);
    if (d) m->cache->last_dent = d;
    return d;
}

/* Contract in fsmodel.h. */
struct tbbt_fsdent *tbbt_fsmodel_dent(const struct tbbt_fsmodel *m, tbbt_id dir, const char *name,
                                      size_t len) {
    if (dent_is(m->cache->last_dent, dir, name, len)) return m->cache->last_dent;
    return dent_find(m, dent_hash(dir, name, len), dir, name, len);
}

/* Starts loading the entry that likely holds hash h (the one in its home
 * slot, whose key's two cache lines an equality test reads): a hint for a
 * lookup of h a little later. The home slot should be loaded already
 * (tbbt_chtab_prefetch), or this waits for it. */
static inline void dent_prefetch_item(const struct tbbt_fsmodel *m, uint64_t h) {
    const char *d = tbbt_chtab_peek(&m->dents, h);
    if (!d) return;
    __builtin_prefetch(d);
    __builtin_prefetch(d + 64);
}

/* Contract in fsmodel.h. */
int tbbt_fsmodel_may_begin_empty(const struct tbbt_fsmodel *m, tbbt_id id) {
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(m, id) : NULL;
    return !o || !(o->flags & (TBBT_FSO_INITIAL | TBBT_FSO_INIT_NAMES));
}

/* Contract in fsmodel.h. */
int tbbt_fsmodel_dir_fresh(const struct tbbt_fsmodel *m, tbbt_id dir) {
    const struct tbbt_fsobj *o = dir ? tbbt_fsmodel_obj(m, dir) : NULL;
    return o && (o->flags & (TBBT_FSO_MADE_EMPTY | TBBT_FSO_INITIAL)) == TBBT_FSO_MADE_EMPTY;
}

/* Did mkdir r (applied, successful) make o as a directory that began
 * empty, so that every name in it the model never met was made since? A
 * corrective mkdir is placed before records that may have taught names in
 * it as there before the trace, and pass 2 learns a lost-reply mkdir's
 * object only at a later record, after others may have: for both, pass 2
 * says on the record whether none did (TBBT_RF_MADE_EMPTY), so that every
 * pass judges the names alike. */
static int made_empty(const struct tbbt_rec *r, const struct tbbt_fsobj *o) {
    if (r->flags & (TBBT_RF_INSERTED | TBBT_RF_REPLY_LOST)) return (r->flags & TBBT_RF_MADE_EMPTY) != 0;
    return !(o->flags & TBBT_FSO_INITIAL) && !o->nchildren;
}

/* Is id a file, symlink or special file a record of the trace made? A
 * name the model never met that holds it was made during the trace (by a
 * link or rename the capture lost): it was not there at the start. (A
 * directory is left out: the name of one that lives elsewhere came by a
 * rename, which no correction makes.) */
static int made_in_trace(const struct tbbt_fsmodel *m, tbbt_id id) {
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(m, id) : NULL;
    return o && (o->flags & (TBBT_FSO_CREATED | TBBT_FSO_INITIAL)) == TBBT_FSO_CREATED &&
           o->attr.type != TBBT_FT_DIR;
}

/* Contract in fsmodel.h. */
enum tbbt_name_state tbbt_fsmodel_name(const struct tbbt_fsmodel *m, tbbt_id dir, const char *name,
                                       size_t len, tbbt_id *obj) {
    const struct tbbt_fsdent *d = tbbt_fsmodel_dent(m, dir, name, len);
    if (obj) *obj = d && d->state == TBBT_NAME_PRESENT ? d->obj : 0;
    if (d) return (enum tbbt_name_state)d->state;
    /* a directory the trace made began empty: a name it never made is absent */
    return tbbt_fsmodel_dir_fresh(m, dir) ? TBBT_NAME_ABSENT : TBBT_NAME_UNKNOWN;
}

/* Returns the entry for (dir, name), adding an unknown-initial, absent
 * one when there is none; *added says which. */
static struct tbbt_fsdent *dent_get(struct tbbt_fsmodel *m, tbbt_id dir, const char *name, size_t len,
                                    int *added) {
    if (dent_is(m->cache->last_dent, dir, name, len)) {
        *added = 0;
        return m->cache->last_dent;
    }
    uint64_t h = dent_hash(dir, name, len);
    struct dent_key k = {dir, name, (uint32_t)len};
    struct tbbt_fsdent *d = tbbt_chtab_find_inline(&m->dents, h, &k, dent_eq);
    *added = !d;
    if (d) return d;
    size_t at = (offsetof(struct tbbt_fsdent, name) + len + 1 + 7) & ~(size_t)7; /* tbbt_fsdent_ext */
    d = slab_alloc(&m->dent_slab, at + m->dent_ext);
    d->dir = dir;
    d->state = TBBT_NAME_ABSENT;
    d->len = (uint32_t)len;
    memcpy(d->name, name, len);
    tbbt_chtab_put(&m->dents, h, d);
    m->cache->last_dent = d;
    return d;
}

/* An object a record used: if the trace did not make it, it existed
 * before the trace started. */
static struct tbbt_fsobj *touch(struct tbbt_fsmodel *m, tbbt_id id) {
    if (!id) return NULL;
    struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(m, id);
    if (!(o->flags & (TBBT_FSO_CREATED | TBBT_FSO_INITIAL))) o->flags |= TBBT_FSO_INITIAL;
    return o;
}

/* Hangs present entry d on its object's link list and its directory's
 * child list (d->obj may be 0: then only the child list). */
static void dent_attach(struct tbbt_fsmodel *m, struct tbbt_fsdent *d) {
    struct tbbt_fsobj *p = tbbt_fsmodel_obj_get(m, d->dir);
    d->child_prev = NULL;
    d->child_next = p->children;
    if (p->children) p->children->child_prev = d;
    p->children = d;
    p->nchildren++;
    d->link_prev = d->link_next = NULL;
    if (!d->obj) return;
    struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(m, d->obj);
    o->parent = d->dir;
    d->link_next = o->links;
    if (o->links) o->links->link_prev = d;
    o->links = d;
}

/* Takes present entry d off its object's and directory's lists. */
static void dent_detach(struct tbbt_fsmodel *m, struct tbbt_fsdent *d) {
    struct tbbt_fsobj *p = tbbt_fsmodel_obj(m, d->dir);
    if (p) {
        if (d->child_prev)
            d->child_prev->child_next = d->child_next;
        else if (p->children == d)
            p->children = d->child_next;
        if (d->child_next) d->child_next->child_prev = d->child_prev;
        if (p->nchildren) p->nchildren--;
    }
    d->child_prev = d->child_next = NULL;
    struct tbbt_fsobj *o = d->obj ? tbbt_fsmodel_obj(m, d->obj) : NULL;
    if (o) {
        if (d->link_prev)
            d->link_prev->link_next = d->link_next;
        else if (o->links == d)
            o->links = d->link_next;
        if (d->link_next) d->link_next->link_prev = d->link_prev;
    }
    d->link_prev = d->link_next = NULL;
}

/* Binds object obj to present entry d that had no known object. An entry
 * the trace made names an object the trace made. */
static void dent_bind(struct tbbt_fsmodel *m, struct tbbt_fsdent *d, tbbt_id obj) {
    dent_detach(m, d);
    d->obj = obj;
    if (d->init == TBBT_NAME_PRESENT && !d->init_obj) {
        d->init_obj = obj;
        touch(m, obj);
    } else {
        struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(m, obj);
        if (!(o->flags & TBBT_FSO_INITIAL)) o->flags |= TBBT_FSO_CREATED;
        /* a mkdir whose reply was lost made it: it began empty, unless
         * a record taught a name in it first (pass 2's mark_made_empty
         * says the same on the mkdir, for the passes that meet its
         * object there) */
        if (d->made_dir && tbbt_fsmodel_may_begin_empty(m, obj)) o->flags |= TBBT_FSO_MADE_EMPTY;
    }
    d->made_dir = 0;
    dent_attach(m, d);
}

/* Contract in fsmodel.h. */
struct tbbt_fsdent *tbbt_fsmodel_learn_present(struct tbbt_fsmodel *m, tbbt_id dir, const char *name,
                                               size_t len, tbbt_id obj) {
    int added;
    struct tbbt_fsdent *d = dent_get(m, dir, name, len, &added);
    if (added && tbbt_fsmodel_dir_fresh(m, dir)) {
        /* in a directory the trace made, the name was made since (a lost call) */
        d->init = TBBT_NAME_ABSENT;
        d->state = TBBT_NAME_PRESENT;
        d->obj = obj;
        struct tbbt_fsobj *o = obj ? tbbt_fsmodel_obj_get(m, obj) : NULL;
        if (o && !(o->flags & TBBT_FSO_INITIAL)) o->flags |= TBBT_FSO_CREATED;
        dent_attach(m, d);
    } else if (added) {
        d->state = d->init = TBBT_NAME_PRESENT;
        d->obj = d->init_obj = obj;
        tbbt_fsmodel_obj_get(m, dir)->flags |= TBBT_FSO_INIT_NAMES;
        touch(m, dir);
        touch(m, obj);
        dent_attach(m, d);
    } else if (d->state == TBBT_NAME_PRESENT && !d->obj && obj) {
        dent_bind(m, d, obj);
    } else if (d->state == TBBT_NAME_ABSENT) {
        d->state = TBBT_NAME_PRESENT;
        d->obj = obj;
        dent_attach(m, d);
    } else if (d->obj != obj && obj) {
        dent_detach(m, d);
        d->obj = obj;
        dent_attach(m, d);
    }
    return d;
}

/* Contract in fsmodel.h. */
struct tbbt_fsdent *tbbt_fsmodel_learn_absent(struct tbbt_fsmodel *m, tbbt_id dir, const char *name,
                                              size_t len) {
    int added;
    struct tbbt_fsdent *d = dent_get(m, dir, name, len, &added);
    if (added) {
        d->init = TBBT_NAME_ABSENT;
        touch(m, dir);
    } else if (d->state == TBBT_NAME_PRESENT) {
        dent_detach(m, d);
        d->state = TBBT_NAME_ABSENT;
        d->obj = 0;
        d->made_dir = 0;
    }
    return d;
}

/* Reads rec's attribute fields into a (fields absent leave a alone). */
static void attrs_from_rec(struct tbbt_fsattr *a, const struct tbbt_rec *r) {
    if (tbbt_rec_has(r, TBBT_F_TYPE)) a->type = r->type;
    if (tbbt_rec_has(r, TBBT_F_MODE)) a->mode = r->mode;
    if (tbbt_rec_has(r, TBBT_F_UID)) a->uid = r->uid;
    if (tbbt_rec_has(r, TBBT_F_GID)) a->gid = r->gid;
    if (tbbt_rec_has(r, TBBT_F_NLINK)) a->nlink = r->nlink;
    if (tbbt_rec_has(r, TBBT_F_SIZE)) a->size = r->size;
}

/* Contract in fsmodel.h. */
void tbbt_fsmodel_learn_attrs(struct tbbt_fsmodel *m, tbbt_id id, const struct tbbt_rec *r) {
    if (!id || !tbbt_rec_has(r, TBBT_F_TYPE)) return;
    struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(m, id);
    attrs_from_rec(&o->attr, r);
    o->flags |= TBBT_FSO_ATTRS;
    if (!(o->flags & TBBT_FSO_RMODE) && tbbt_rec_has(r, TBBT_F_MODE)) {
        o->rmode = r->mode & 07777;
        o->flags |= TBBT_FSO_RMODE;
    }
    if (!(o->flags & (TBBT_FSO_CREATED | TBBT_FSO_CHANGED | TBBT_FSO_INIT_ATTRS))) {
        o->init = o->attr;
        o->flags |= TBBT_FSO_INIT_ATTRS | TBBT_FSO_INITIAL;
    }
}

/* One link fewer for object id (after one of its names went away); a
 * directory, or a file with no link left, is gone. */
static void drop_link(struct tbbt_fsmodel *m, tbbt_id id) {
    struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(m, id) : NULL;
    if (!o) return;
    if (o->attr.nlink) o->attr.nlink--;
    int none_left = o->attr.nlink ? 0 : !o->links; /* a known count wins over the names we know */
    if (o->attr.type == TBBT_FT_DIR || none_left) o->flags |= TBBT_FSO_GONE;
}

/* Contract in fsmodel.h. */
struct tbbt_fsdent *tbbt_fsmodel_link(struct tbbt_fsmodel *m, tbbt_id dir, const char *name, size_t len,
                                      tbbt_id obj, uint32_t type) {
    int added;
    struct tbbt_fsdent *d = dent_get(m, dir, name, len, &added);
    if (added) d->init = tbbt_fsmodel_dir_fresh(m, dir) ? TBBT_NAME_ABSENT : TBBT_NAME_UNKNOWN;
    touch(m, dir);
    tbbt_id old = d->state == TBBT_NAME_PRESENT ? d->obj : 0;
    if (d->state == TBBT_NAME_PRESENT) dent_detach(m, d);
    d->made_dir = 0;
    if (old && old != obj) drop_link(m, old);
    d->state = TBBT_NAME_PRESENT;
    d->obj = obj;
    if (obj) {
        struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(m, obj);
        int fresh = !o->links && !(o->flags & TBBT_FSO_INITIAL);
        if (fresh) o->flags |= TBBT_FSO_CREATED;
        if (old == obj) {
            /* the same name again: no new link */
        } else if (fresh || (o->flags & TBBT_FSO_GONE) || !o->attr.nlink) {
            o->attr.nlink = type == TBBT_FT_DIR ? 2 : 1;
        } else {
            o->attr.nlink++;
        }
        o->flags &= ~(uint32_t)TBBT_FSO_GONE;
        if (type) o->attr.type = type;
    }
    dent_attach(m, d);
    return d;
}

/* Contract in fsmodel.h. */
tbbt_id tbbt_fsmodel_unlink(struct tbbt_fsmodel *m, tbbt_id dir, const char *name, size_t len) {
    int added;
    struct tbbt_fsdent *d = dent_get(m, dir, name, len, &added);
    if (added && tbbt_fsmodel_dir_fresh(m, dir)) { /* made since in a directory the trace made */
        d->init = TBBT_NAME_ABSENT;
    } else if (added) { /* it was there to be removed: before the trace */
        d->init = TBBT_NAME_PRESENT;
        tbbt_fsmodel_obj_get(m, dir)->flags |= TBBT_FSO_INIT_NAMES;
    }
    touch(m, dir);
    if (d->state != TBBT_NAME_PRESENT) return 0;
    tbbt_id obj = d->obj;
    dent_detach(m, d);
    d->state = TBBT_NAME_ABSENT;
    d->obj = 0;
    d->made_dir = 0;
    drop_link(m, obj);
    return obj;
}

/* STALE when the record's handle names an object the model knows is
 * gone, else -1. */
static int handle_gone(const struct tbbt_fsmodel *m, tbbt_id id) {
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(m, id) : NULL;
    return o && (o->flags & TBBT_FSO_GONE) ? TBBT_NFSERR_STALE : -1;
}

/* Prediction for an operation that makes a name (create, mkdir, symlink,
 * mknod, link) from the name's state. */
static int predict_make(const struct tbbt_fsmodel *m, const struct tbbt_rec *r, enum tbbt_name_state st,
                        tbbt_id cur) {
    if (st == TBBT_NAME_UNKNOWN) return TBBT_PREDICT_ANY;
    if (st == TBBT_NAME_ABSENT) return TBBT_NFS_OK;
    if (r->op != TBBT_OP_CREATE) return TBBT_NFSERR_EXIST;
    /* create: UNCHECKED (and v2) succeeds on an existing file */
    if (tbbt_rec_has(r, TBBT_F_CREATEHOW) && r->createhow != 0) return TBBT_NFSERR_EXIST;
    const struct tbbt_fsobj *o = cur ? tbbt_fsmodel_obj(m, cur) : NULL;
    if (o && o->attr.type == TBBT_FT_DIR) return TBBT_PREDICT_ANY;
    return TBBT_NFS_OK;
}

/* Prediction for remove and rmdir from the name's state. */
static int predict_remove(const struct tbbt_fsmodel *m, const struct tbbt_rec *r, enum tbbt_name_state st,
                          tbbt_id cur) {
    if (st == TBBT_NAME_UNKNOWN) return TBBT_PREDICT_ANY;
    if (st == TBBT_NAME_ABSENT) return TBBT_NFSERR_NOENT;
    const struct tbbt_fsobj *o = cur ? tbbt_fsmodel_obj(m, cur) : NULL;
    uint32_t type = o ? o->attr.type : 0;
    if (r->op == TBBT_OP_REMOVE) return type == TBBT_FT_DIR ? TBBT_PREDICT_ANY : TBBT_NFS_OK;
    if (type && type != TBBT_FT_DIR) return TBBT_NFSERR_NOTDIR; /* RFC 1813: RMDIR of a non-directory */
    return o && o->nchildren ? TBBT_NFSERR_NOTEMPTY : TBBT_NFS_OK;
}

/* Prediction for rename: the source name decides; a target directory
 * with known entries refuses to be replaced. */
static int predict_rename(const struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
    if (handle_gone(m, r->dir2) > 0) return TBBT_NFSERR_STALE;
    tbbt_id src, dst;
    enum tbbt_name_state st = tbbt_fsmodel_name(m, r->dir, tbbt_rec_str(r, r->name), r->name.len, &src);
    if (st == TBBT_NAME_UNKNOWN) return TBBT_PREDICT_ANY;
    if (st == TBBT_NAME_ABSENT) return TBBT_NFSERR_NOENT;
    enum tbbt_name_state st2 = tbbt_fsmodel_name(m, r->dir2, tbbt_rec_str(r, r->name2), r->name2.len, &dst);
    const struct tbbt_fsobj *t =
        st2 == TBBT_NAME_PRESENT && dst && dst != src ? tbbt_fsmodel_obj(m, dst) : NULL;
    if (t && t->attr.type == TBBT_FT_DIR && t->nchildren) return TBBT_NFSERR_NOTEMPTY;
    return TBBT_NFS_OK;
}

/* Does SETATTR r change what only the owner (or root) may change? */
static int needs_owner(const struct tbbt_rec *r) {
    if (r->op != TBBT_OP_SETATTR) return 0;
    if (tbbt_rec_has(r, TBBT_F_SET_MODE) || tbbt_rec_has(r, TBBT_F_SET_UID) ||
        tbbt_rec_has(r, TBBT_F_SET_GID))
        return 1;
    return (tbbt_rec_has(r, TBBT_F_SET_ATIME) && r->set_atime != TBBT_TIME_SERVER) ||
           (tbbt_rec_has(r, TBBT_F_SET_MTIME) && r->set_mtime != TBBT_TIME_SERVER);
}

/* Contract in fsmodel.h. A setattr that changes only the size (and the
 * times to the server's clock) is a write: any caller with write
 * permission may truncate; a change of mode, owner or an explicit time
 * is the owner's, which the model leaves to the server. */
uint32_t tbbt_fsmodel_access_need(const struct tbbt_rec *r) {
    if (r->op == TBBT_OP_READ) return 4;
    if (r->op == TBBT_OP_WRITE) return 2;
    if (r->op != TBBT_OP_SETATTR || !tbbt_rec_has(r, TBBT_F_SET_SIZE)) return 0;
    return needs_owner(r) || tbbt_rec_has(r, TBBT_F_GUARD) ? 0 : 2;
}

/* Contract in fsmodel.h. */
unsigned tbbt_fsmodel_mode_shift(const struct tbbt_fsattr *a, const struct tbbt_cred *c) {
    if (c->uid == a->uid) return 6;
    if (c->gid == a->gid) return 3;
    for (uint32_t i = 0; i < c->ngids && i < TBBT_MAX_GIDS; i++)
        if (c->gids[i] == a->gid) return 3;
    return 0;
}

/* Does the model know o's owner and the mode bits a replay has? */
static int mode_known(const struct tbbt_fsobj *o) {
    return (o->flags & (TBBT_FSO_RMODE | TBBT_FSO_ATTRS)) == (TBBT_FSO_RMODE | TBBT_FSO_ATTRS);
}

/* Whether r's caller is one whose permissions the model judges: an
 * AUTH_SYS user other than root (root may do anything; another flavor
 * says nothing of who calls). */
static int judged_caller(const struct tbbt_rec *r) {
    return r->cred.flavor == TBBT_AUTH_SYS && r->cred.uid != 0;
}

/* Read or write permission of r's caller on o by rmode (a read, a write,
 * a truncate: tbbt_fsmodel_access_need): TBBT_NFS_OK, TBBT_NFSERR_ACCES,
 * or TBBT_PREDICT_ANY (root, the owner, or not enough known). */
static int predict_access(const struct tbbt_fsobj *o, const struct tbbt_rec *r) {
    uint32_t need = tbbt_fsmodel_access_need(r);
    if (!need) return TBBT_PREDICT_ANY;
    if (!mode_known(o) || o->attr.type != TBBT_FT_REG || !judged_caller(r) || r->cred.uid == o->attr.uid)
        return TBBT_PREDICT_ANY;
    return (o->rmode >> tbbt_fsmodel_mode_shift(&o->attr, &r->cred)) & need ? TBBT_NFS_OK : TBBT_NFSERR_ACCES;
}

/* Write and search permission of r's caller on directory dir by its
 * rmode: TBBT_NFS_OK, TBBT_NFSERR_ACCES, or TBBT_PREDICT_ANY (root, or
 * not enough known). */
static int dir_write_access(const struct tbbt_fsmodel *m, tbbt_id dir, const struct tbbt_rec *r) {
    const struct tbbt_fsobj *o = dir ? tbbt_fsmodel_obj(m, dir) : NULL;
    if (!o || !mode_known(o) || o->attr.type != TBBT_FT_DIR || !judged_caller(r)) return TBBT_PREDICT_ANY;
    return ((o->rmode >> tbbt_fsmodel_mode_shift(&o->attr, &r->cred)) & 3) == 3 ? TBBT_NFS_OK
                                                                                : TBBT_NFSERR_ACCES;
}

/* Contract in fsmodel.h. */
int tbbt_fsmodel_predict_dir_access(const struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
    unsigned f = r->op < TBBT_OP_COUNT ? tbbt_op_info(r->op)->flags : 0;
    if (!(f & TBBT_OPF_DIRNAME) || !(f & TBBT_OPF_MODIFIES)) return TBBT_PREDICT_ANY;
    int a = dir_write_access(m, r->dir, r);
    if (a == TBBT_NFSERR_ACCES || !(f & TBBT_OPF_DIRNAME2) || r->dir2 == r->dir) return a;
    int b = dir_write_access(m, r->dir2, r);
    return b == TBBT_NFS_OK ? a : b;
}

/* Contract in fsmodel.h. A chown to another owner is root's alone. */
int tbbt_fsmodel_predict_owner(const struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
    if (!needs_owner(r) || !judged_caller(r)) return TBBT_PREDICT_ANY;
    const struct tbbt_fsobj *o = r->obj ? tbbt_fsmodel_obj(m, r->obj) : NULL;
    if (!o || !(o->flags & TBBT_FSO_ATTRS)) return TBBT_PREDICT_ANY;
    if (r->cred.uid != o->attr.uid) return TBBT_NFSERR_PERM;
    if (tbbt_rec_has(r, TBBT_F_SET_UID) && r->set_uid != o->attr.uid) return TBBT_NFSERR_PERM;
    /* a new group the owner is not a member of */
    if (tbbt_rec_has(r, TBBT_F_SET_GID) && r->set_gid != o->attr.gid && r->set_gid != r->cred.gid) {
        int member = 0;
        for (uint32_t i = 0; i < r->cred.ngids && i < TBBT_MAX_GIDS; i++)
            member |= r->cred.gids[i] == r->set_gid;
        if (!member) return TBBT_NFSERR_PERM;
    }
    return TBBT_NFS_OK;
}

/* Contract in fsmodel.h. */
int tbbt_fsmodel_predict_access(const struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
    const struct tbbt_fsobj *o = r->obj ? tbbt_fsmodel_obj(m, r->obj) : NULL;
    return o ? predict_access(o, r) : TBBT_PREDICT_ANY;
}

/* Contract in fsmodel.h. */
int tbbt_fsmodel_predict(const struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
    unsigned f = r->op < TBBT_OP_COUNT ? tbbt_op_info(r->op)->flags : 0;
    int g;
    if ((f & TBBT_OPF_OBJ) && (g = handle_gone(m, r->obj)) > 0) return g;
    if (tbbt_fsmodel_access_need(r)) {
        const struct tbbt_fsobj *o = r->obj ? tbbt_fsmodel_obj(m, r->obj) : NULL;
        if (!o) return TBBT_PREDICT_ANY;
        g = predict_access(o, r);
        return g == TBBT_PREDICT_ANY ? TBBT_NFS_OK : g;
    }
    if (!(f & TBBT_OPF_DIRNAME)) {
        if ((f & TBBT_OPF_OBJ) && r->obj && tbbt_fsmodel_obj(m, r->obj)) return TBBT_NFS_OK;
        return TBBT_PREDICT_ANY;
    }
    if ((g = handle_gone(m, r->dir)) > 0) return g;
    const char *n = tbbt_rec_str(r, r->name);
    if (tbbt_dot_name(n, r->name.len)) return TBBT_PREDICT_ANY;
    tbbt_id cur;
    enum tbbt_name_state st = tbbt_fsmodel_name(m, r->dir, n, r->name.len, &cur);
    switch (r->op) {
    case TBBT_OP_LOOKUP:
        if (st == TBBT_NAME_UNKNOWN && r->status == TBBT_NFS_OK && tbbt_rec_has(r, TBBT_F_NEWOBJ) &&
            made_in_trace(m, r->newobj))
            return TBBT_NFSERR_NOENT;
        return st == TBBT_NAME_UNKNOWN   ? TBBT_PREDICT_ANY
               : st == TBBT_NAME_PRESENT ? TBBT_NFS_OK
                                         : TBBT_NFSERR_NOENT;
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR:
    case TBBT_OP_SYMLINK:
    case TBBT_OP_MKNOD:
    case TBBT_OP_LINK: return predict_make(m, r, st, cur);
    case TBBT_OP_REMOVE:
    case TBBT_OP_RMDIR: return predict_remove(m, r, st, cur);
    case TBBT_OP_RENAME: return predict_rename(m, r);
    default: return TBBT_PREDICT_ANY;
    }
}

/* The type an operation that makes a name gives its object. */
static uint32_t made_type(const struct tbbt_rec *r) {
    switch (r->op) {
    case TBBT_OP_MKDIR: return TBBT_FT_DIR;
    case TBBT_OP_SYMLINK: return TBBT_FT_LNK;
    case TBBT_OP_MKNOD: return tbbt_rec_has(r, TBBT_F_NODETYPE) ? r->nodetype : 0;
    case TBBT_OP_CREATE: return TBBT_FT_REG;
    default: return tbbt_rec_has(r, TBBT_F_TYPE) ? r->type : 0;
    }
}

/* create, mkdir, symlink, mknod, link applied with their status. */
static void apply_make(struct tbbt_fsmodel *m, const struct tbbt_rec *r, int status, const char *n) {
    tbbt_id obj = r->op == TBBT_OP_LINK ? r->obj : (tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0);
    if (status == TBBT_NFSERR_EXIST) {
        tbbt_fsmodel_learn_present(m, r->dir, n, r->name.len, 0);
        return;
    }
    if (status != TBBT_NFS_OK) return;
    tbbt_id cur;
    enum tbbt_name_state st = tbbt_fsmodel_name(m, r->dir, n, r->name.len, &cur);
    if (r->op == TBBT_OP_CREATE && st == TBBT_NAME_PRESENT && (!obj || !cur || cur == obj)) {
        tbbt_fsmodel_learn_present(m, r->dir, n, r->name.len, obj);
    } else {
        if (r->op == TBBT_OP_LINK) touch(m, obj);
        struct tbbt_fsdent *d = tbbt_fsmodel_link(m, r->dir, n, r->name.len, obj, made_type(r));
        d->made_dir = r->op == TBBT_OP_MKDIR && !obj; /* the object comes later: dent_bind */
    }
    struct tbbt_fsobj *o = obj ? tbbt_fsmodel_obj_get(m, obj) : NULL;
    if (o && r->op == TBBT_OP_SYMLINK && tbbt_rec_has(r, TBBT_F_TARGET)) {
        g_free(o->target);
        o->target = g_strndup(tbbt_rec_str(r, r->target), r->target.len);
    }
    if (o && r->op != TBBT_OP_LINK && !(o->flags & TBBT_FSO_INITIAL)) o->flags |= TBBT_FSO_CREATED;
    if (o && r->op == TBBT_OP_MKDIR && made_empty(r, o)) o->flags |= TBBT_FSO_MADE_EMPTY;
    if (o && r->op != TBBT_OP_LINK && tbbt_rec_has(r, TBBT_F_SET_MODE) && !tbbt_rec_has(r, TBBT_F_MODE)) {
        o->rmode = r->set_mode & 07777;
        o->flags |= TBBT_FSO_RMODE;
    }
    /* the owner the call set (a corrective record's), where no reply shows one */
    if (o && r->op != TBBT_OP_LINK && !tbbt_rec_has(r, TBBT_F_UID)) {
        if (tbbt_rec_has(r, TBBT_F_SET_UID)) o->attr.uid = (uint32_t)r->set_uid;
        if (tbbt_rec_has(r, TBBT_F_SET_GID)) o->attr.gid = (uint32_t)r->set_gid;
    }
}

/* remove and rmdir applied with their status. */
static void apply_remove(struct tbbt_fsmodel *m, const struct tbbt_rec *r, int status, const char *n) {
    if (status == TBBT_NFS_OK) {
        if (tbbt_fsmodel_name(m, r->dir, n, r->name.len, NULL) == TBBT_NAME_UNKNOWN)
            tbbt_fsmodel_learn_present(m, r->dir, n, r->name.len,
                                       tbbt_rec_has(r, TBBT_F_VICTIM) ? r->victim : 0);
        tbbt_fsmodel_unlink(m, r->dir, n, r->name.len);
    } else if (status == TBBT_NFSERR_NOENT) {
        tbbt_fsmodel_learn_absent(m, r->dir, n, r->name.len);
    } else if (status == TBBT_NFSERR_NOTEMPTY || status == TBBT_NFSERR_ISDIR ||
               status == TBBT_NFSERR_NOTDIR) {
        struct tbbt_fsdent *d = tbbt_fsmodel_learn_present(m, r->dir, n, r->name.len, 0);
        if (d->obj) {
            struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(m, d->obj);
            if (!o->attr.type) o->attr.type = status == TBBT_NFSERR_NOTDIR ? TBBT_FT_REG : TBBT_FT_DIR;
        }
    }
}

/* rename applied with its status: the object moves, a replaced target
 * loses a link. */
static void apply_rename(struct tbbt_fsmodel *m, const struct tbbt_rec *r, int status, const char *n) {
    const char *n2 = tbbt_rec_str(r, r->name2);
    if (status == TBBT_NFSERR_NOENT) {
        tbbt_fsmodel_learn_absent(m, r->dir, n, r->name.len);
        return;
    }
    if (status != TBBT_NFS_OK) return;
    /* a rename that does not say where to (a hand-edited record; found by
     * fuzz/fuzz_pass3): the name is gone, the object is nowhere the model
     * knows -- never linked as the name "" of directory 0 */
    int to = tbbt_fsmodel_rename_whole(r);
    if (to) touch(m, r->dir2);
    tbbt_id src;
    if (tbbt_fsmodel_name(m, r->dir, n, r->name.len, &src) == TBBT_NAME_UNKNOWN)
        tbbt_fsmodel_learn_present(m, r->dir, n, r->name.len, tbbt_rec_has(r, TBBT_F_VICTIM) ? r->victim : 0);
    tbbt_fsmodel_name(m, r->dir, n, r->name.len, &src);
    if (to && r->dir == r->dir2 && r->name.len == r->name2.len && !memcmp(n, n2, r->name.len)) return;
    /* two links of one file: rename does nothing, both names stay (POSIX) */
    tbbt_id dst;
    if (to && src && tbbt_fsmodel_name(m, r->dir2, n2, r->name2.len, &dst) == TBBT_NAME_PRESENT && dst == src)
        return;
    if (to && tbbt_fsmodel_name(m, r->dir2, n2, r->name2.len, NULL) == TBBT_NAME_UNKNOWN &&
        tbbt_rec_has(r, TBBT_F_VICTIM2) && r->victim2)
        tbbt_fsmodel_learn_present(m, r->dir2, n2, r->name2.len, r->victim2);
    /* the source's object keeps its link count across the move */
    struct tbbt_fsdent *s = tbbt_fsmodel_dent(m, r->dir, n, r->name.len);
    /* a name never met in a directory the trace made (known absent): the
     * rename's success says a lost call made it */
    if (!s) s = tbbt_fsmodel_learn_present(m, r->dir, n, r->name.len, src);
    dent_detach(m, s);
    s->state = TBBT_NAME_ABSENT;
    s->obj = 0;
    struct tbbt_fsobj *o = src ? tbbt_fsmodel_obj(m, src) : NULL;
    uint32_t nl = o ? o->attr.nlink : 0, type = o ? o->attr.type : 0;
    if (to) tbbt_fsmodel_link(m, r->dir2, n2, r->name2.len, src, type);
    if (o) o->attr.nlink = nl;
}

#define LISTING_BATCH 32 /* listing entries whose lookups overlap */

/* Fills h with the hashes of entries [from, from + n) of listing r (n <=
 * LISTING_BATCH) and loads their table slots, then their entries, so that
 * the n lookups that follow overlap their cache misses instead of
 * following one another. */
static void listing_prefetch(const struct tbbt_fsmodel *m, const struct tbbt_rec *r, uint32_t from,
                             uint32_t n, uint64_t *h) {
    for (uint32_t i = 0; i < n; i++) {
        const struct tbbt_dirent *e = &r->entries[from + i];
        h[i] = dent_hash(r->obj, tbbt_rec_str(r, e->name), e->name.len);
        tbbt_chtab_prefetch(&m->dents, h[i]);
    }
    for (uint32_t i = 0; i < n; i++)
        dent_prefetch_item(m, h[i]);
}

/* Learns entries [from, from + n) of listing r (n <= LISTING_BATCH): every
 * name not known absent is present. */
static void learn_listing(struct tbbt_fsmodel *m, const struct tbbt_rec *r, uint32_t from, uint32_t n) {
    uint64_t h[LISTING_BATCH];
    listing_prefetch(m, r, from, n, h);
    for (uint32_t i = 0; i < n; i++) {
        const struct tbbt_dirent *e = &r->entries[from + i];
        const char *en = tbbt_rec_str(r, e->name);
        if (tbbt_dot_name(en, e->name.len)) continue;
        const struct tbbt_fsdent *d = dent_find(m, h[i], r->obj, en, e->name.len);
        if (d && (d->state == TBBT_NAME_ABSENT || (d->state == TBBT_NAME_PRESENT && d->obj == e->id)))
            continue; /* known absent, or already naming this object: learning changes nothing */
        tbbt_fsmodel_learn_present(m, r->obj, en, e->name.len, e->id);
    }
}

/* The test of tbbt_fsmodel_entry_unmet for entry e (name n), given the
 * model's entry for it (d, NULL if none) and whether the directory is
 * fresh. */
static int unmet(const struct tbbt_fsmodel *m, const struct tbbt_dirent *e, const char *n,
                 const struct tbbt_fsdent *d, int fresh) {
    return !d && !tbbt_dot_name(n, e->name.len) && (fresh || made_in_trace(m, e->id));
}

/* Contract in fsmodel.h. */
int tbbt_fsmodel_entry_unmet(const struct tbbt_fsmodel *m, const struct tbbt_rec *r,
                             const struct tbbt_dirent *e) {
    const char *n = tbbt_rec_str(r, e->name);
    return unmet(m, e, n, tbbt_fsmodel_dent(m, r->obj, n, e->name.len), tbbt_fsmodel_dir_fresh(m, r->obj));
}

/* Contract in fsmodel.h. In batches, as learn_listing. */
int tbbt_fsmodel_listing_unmet(const struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
    uint64_t h[LISTING_BATCH];
    int fresh = tbbt_fsmodel_dir_fresh(m, r->obj);
    if (!fresh && r->op != TBBT_OP_READDIRPLUS) return 0; /* only readdirplus entries show objects */
    for (uint32_t from = 0; from < r->nentries; from += LISTING_BATCH) {
        uint32_t n = r->nentries - from < LISTING_BATCH ? r->nentries - from : LISTING_BATCH;
        listing_prefetch(m, r, from, n, h);
        for (uint32_t i = 0; i < n; i++) {
            const struct tbbt_dirent *e = &r->entries[from + i];
            const char *en = tbbt_rec_str(r, e->name);
            if (unmet(m, e, en, dent_find(m, h[i], r->obj, en, e->name.len), fresh)) return 1;
        }
    }
    return 0;
}

/* Success of an operation on a handle: sizes and attributes change. */
static void apply_obj(struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
    struct tbbt_fsobj *o = touch(m, r->obj);
    if (!o) return;
    int changes = r->op == TBBT_OP_WRITE || r->op == TBBT_OP_SETATTR;
    if (changes && !(o->flags & (TBBT_FSO_CREATED | TBBT_FSO_CHANGED | TBBT_FSO_INIT_ATTRS)) &&
        tbbt_rec_has(r, TBBT_F_TYPE)) {
        attrs_from_rec(&o->init, r);
        if (tbbt_rec_has(r, TBBT_F_PRE_SIZE)) o->init.size = r->pre_size;
        o->flags |= TBBT_FSO_INIT_ATTRS;
    }
    if (changes) o->flags |= TBBT_FSO_CHANGED;
    if (r->op == TBBT_OP_WRITE && tbbt_rec_has(r, TBBT_F_OFFSET)) {
        uint64_t end = r->offset + (tbbt_rec_has(r, TBBT_F_RCOUNT) ? r->rcount : r->count);
        if (end > o->attr.size) o->attr.size = end;
    }
    if (r->op == TBBT_OP_SETATTR) {
        if (tbbt_rec_has(r, TBBT_F_SET_SIZE)) o->attr.size = r->set_size;
        if (tbbt_rec_has(r, TBBT_F_SET_MODE)) {
            o->attr.mode = r->set_mode;
            o->rmode = r->set_mode & 07777;
            o->flags |= TBBT_FSO_RMODE;
        }
        if (tbbt_rec_has(r, TBBT_F_SET_UID)) o->attr.uid = r->set_uid;
        if (tbbt_rec_has(r, TBBT_F_SET_GID)) o->attr.gid = r->set_gid;
    }
    tbbt_fsmodel_learn_attrs(m, r->obj, r);
    if (r->op == TBBT_OP_READLINK && tbbt_rec_has(r, TBBT_F_TARGET) && !o->target)
        o->target = g_strndup(tbbt_rec_str(r, r->target), r->target.len);
    if (r->op == TBBT_OP_READDIRPLUS || r->op == TBBT_OP_READDIR)
        for (uint32_t i = 0; i < r->nentries; i += LISTING_BATCH)
            learn_listing(m, r, i, r->nentries - i < LISTING_BATCH ? r->nentries - i : LISTING_BATCH);
}

/* Contract in fsmodel.h. */
void tbbt_fsmodel_apply(struct tbbt_fsmodel *m, const struct tbbt_rec *r, int status) {
    unsigned f = r->op < TBBT_OP_COUNT ? tbbt_op_info(r->op)->flags : 0;
    if (status == TBBT_NFSERR_STALE) {
        if ((f & TBBT_OPF_OBJ) && r->obj) tbbt_fsmodel_obj_get(m, r->obj)->flags |= TBBT_FSO_GONE;
        return;
    }
    if ((f & TBBT_OPF_OBJ) && r->op != TBBT_OP_LINK && status == TBBT_NFS_OK) apply_obj(m, r);
    if (!(f & TBBT_OPF_DIRNAME) || !r->dir) return;
    if (!tbbt_rec_has(r, TBBT_F_NAME)) { /* no name (a hand-edited record; found by fuzz/fuzz_pass3): */
        if (status == TBBT_NFS_OK && tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj) { /* never the name "" */
            touch(m, r->newobj);
            tbbt_fsmodel_learn_attrs(m, r->newobj, r);
        }
        return;
    }
    const char *n = tbbt_rec_str(r, r->name);
    if (tbbt_dot_name(n, r->name.len)) return;
    if (status == TBBT_NFS_OK || status == TBBT_NFSERR_NOENT) {
        struct tbbt_fsobj *d = touch(m, r->dir);
        if (!d->attr.type) d->attr.type = TBBT_FT_DIR; /* names resolved in it */
    }
    switch (r->op) {
    case TBBT_OP_LOOKUP:
        if (status == TBBT_NFS_OK) {
            tbbt_id obj = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0;
            tbbt_fsmodel_learn_present(m, r->dir, n, r->name.len, obj);
            touch(m, obj);
            tbbt_fsmodel_learn_attrs(m, obj, r);
        } else if (status == TBBT_NFSERR_NOENT) {
            tbbt_fsmodel_learn_absent(m, r->dir, n, r->name.len);
        }
        break;
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR:
    case TBBT_OP_SYMLINK:
    case TBBT_OP_MKNOD:
    case TBBT_OP_LINK:
        apply_make(m, r, status, n);
        /* a link's reply shows its object's attributes, failed or not */
        if (status == TBBT_NFS_OK || r->op == TBBT_OP_LINK)
            tbbt_fsmodel_learn_attrs(m, r->op == TBBT_OP_LINK ? r->obj : r->newobj, r);
        break;
    case TBBT_OP_REMOVE:
    case TBBT_OP_RMDIR: apply_remove(m, r, status, n); break;
    case TBBT_OP_RENAME: apply_rename(m, r, status, n); break;
    default: break;
    }
}

/* Contract in fsmodel.h. */
void tbbt_fsmodel_prefetch(const struct tbbt_fsmodel *m, const struct tbbt_rec *r) {
    if (tbbt_rec_has(r, TBBT_F_DIR)) {
        if (tbbt_rec_has(r, TBBT_F_NAME))
            tbbt_chtab_prefetch(&m->dents, dent_hash(r->dir, tbbt_rec_str(r, r->name), r->name.len));
        tbbt_chtab_prefetch(&m->objs, obj_hash(r->dir));
    }
    if (tbbt_rec_has(r, TBBT_F_OBJ)) tbbt_chtab_prefetch(&m->objs, obj_hash(r->obj));
    if (tbbt_rec_has(r, TBBT_F_NEWOBJ)) tbbt_chtab_prefetch(&m->objs, obj_hash(r->newobj));
    if (tbbt_rec_has(r, TBBT_F_DIR2)) tbbt_chtab_prefetch(&m->objs, obj_hash(r->dir2));
}

/* Contract in fsmodel.h. */
void tbbt_fsmodel_foreach_obj(const struct tbbt_fsmodel *m, void (*cb)(void *ctx, const struct tbbt_fsobj *o),
                              void *ctx) {
    size_t pos = 0;
    const struct tbbt_fsobj *o;
    while ((o = tbbt_chtab_next(&m->objs, &pos)))
        cb(ctx, o);
}

/* Contract in fsmodel.h. */
void tbbt_fsmodel_foreach_initial_name(const struct tbbt_fsmodel *m,
                                       void (*cb)(void *ctx, const struct tbbt_fsdent *d), void *ctx) {
    size_t pos = 0;
    const struct tbbt_fsdent *d;
    while ((d = tbbt_chtab_next(&m->dents, &pos)))
        if (d->init == TBBT_NAME_PRESENT) cb(ctx, d);
}

/* Contract in fsmodel.h. */
tbbt_id tbbt_fsmodel_path(const struct tbbt_fsmodel *m, tbbt_id id, GString *out) {
    GPtrArray *parts = g_ptr_array_new();
    tbbt_id cur = id;
    for (unsigned depth = 0; depth < 4096; depth++) {
        const struct tbbt_fsobj *o = tbbt_fsmodel_obj(m, cur);
        if (!o || !o->links) break;
        const struct tbbt_fsdent *d = o->links;
        int loop = d->dir == id;
        for (guint i = 0; i < parts->len && !loop; i++)
            loop = ((const struct tbbt_fsdent *)parts->pdata[i])->dir == d->dir;
        if (loop) break;
        g_ptr_array_add(parts, tbbt_unconst(d));
        cur = d->dir;
    }
    for (guint i = parts->len; i-- > 0;) {
        const struct tbbt_fsdent *d = parts->pdata[i];
        g_string_append_len(out, d->name, d->len);
        if (i) g_string_append_c(out, '/');
    }
    g_ptr_array_free(parts, TRUE);
    return cur;
}

/* Counts one object into the stats (foreach callback). */
static void count_obj(void *ctx, const struct tbbt_fsobj *o) {
    struct tbbt_fsmodel_stats *s = ctx;
    s->objects++;
    if (o->flags & TBBT_FSO_INITIAL) s->initial++;
    if (o->flags & TBBT_FSO_CREATED) s->created++;
    if (o->flags & TBBT_FSO_GONE) s->gone++;
}

/* Contract in fsmodel.h. */
void tbbt_fsmodel_stats(const struct tbbt_fsmodel *m, struct tbbt_fsmodel_stats *s) {
    memset(s, 0, sizeof(*s));
    tbbt_fsmodel_foreach_obj(m, count_obj, s);
    size_t pos = 0;
    const struct tbbt_fsdent *d;
    while ((d = tbbt_chtab_next(&m->dents, &pos))) {
        s->entries++;
        if (d->state == TBBT_NAME_PRESENT) s->present++;
        if (d->init == TBBT_NAME_PRESENT) s->init_present++;
    }
}

const char *tbbt_fstype_name(uint32_t type) {
    static const char *const names[] = {"none", "reg", "dir", "blk", "chr", "lnk", "sock", "fifo"};
    return type < G_N_ELEMENTS(names) ? names[type] : "other";
}

/* Contract in fsmodel.h. */
struct tbbt_fsmodel *tbbt_fsmodel_clone(const struct tbbt_fsmodel *m) {
    struct tbbt_fsmodel *c = tbbt_fsmodel_new_ext(m->obj_ext, m->dent_ext);
    size_t pos = 0;
    const struct tbbt_fsobj *o;
    while ((o = tbbt_chtab_next(&m->objs, &pos))) {
        struct tbbt_fsobj *x = tbbt_fsmodel_obj_get(c, o->id);
        *x = *o;
        memcpy(tbbt_fsobj_ext(x), tbbt_fsobj_ext(o), m->obj_ext);
        x->target = g_strdup(o->target);
        x->links = x->children = NULL; /* rebuilt as the entries are attached */
        x->nchildren = 0;
    }
    pos = 0;
    const struct tbbt_fsdent *d;
    while ((d = tbbt_chtab_next(&m->dents, &pos))) {
        int added;
        struct tbbt_fsdent *y = dent_get(c, d->dir, d->name, d->len, &added);
        y->state = d->state;
        y->init = d->init;
        y->made_dir = d->made_dir;
        y->obj = d->obj;
        y->init_obj = d->init_obj;
        memcpy(tbbt_fsdent_ext(y), tbbt_fsdent_ext(d), m->dent_ext);
        if (y->state == TBBT_NAME_PRESENT) dent_attach(c, y);
    }
    pos = 0;
    while ((o = tbbt_chtab_next(&m->objs, &pos))) /* dent_attach set each latest parent anew */
        tbbt_fsmodel_obj_get(c, o->id)->parent = o->parent;
    return c;
}
