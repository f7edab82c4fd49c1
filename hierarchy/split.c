/* split.c -- the groups of objects a trace accesses together, and parts
 * made of whole groups (see split.h for the rules). */
#include "split.h"

#include <glib.h>
#include <string.h>

#include "htab.h"
#include "locks.h"

#define SPLIT_CHUNK 4096 /* objects a chunk: they never move once made */
#define LOCK_WRITE 0x80000000u
#define NO_GROUP UINT64_MAX

/* One object any record locks. */
struct sobj {
    tbbt_id id;
    uint32_t idx;    /* index in the object table */
    uint32_t uf;     /* union-find parent (an index) */
    uint32_t size;   /* union-find rank by size (roots only) */
    uint8_t written; /* some record write-locks it */
    uint8_t shared;  /* declared shared */
    uint64_t parts;  /* bit p: a record of part p locks it */
    uint64_t group;  /* group number (roots), NO_GROUP before tbbt_split_group */
    uint64_t home;   /* read-only objects: the group that revealed it, or NO_GROUP */
};

struct tbbt_split {
    struct tbbt_htab objs; /* id -> struct sobj */
    struct sobj **chunks;  /* SPLIT_CHUNK objects each */
    uint32_t nobjs, nchunks;
    GArray *shared; /* tbbt_id declared before the first put */
    /* per record, in trace order */
    GArray *op;      /* uint8_t */
    GArray *bytes;   /* uint32_t: bytes read (read) or written (write) */
    GArray *nlocks;  /* uint8_t */
    GArray *locks;   /* uint32_t: object index | LOCK_WRITE */
    uint64_t *group; /* per record: its group, NO_GROUP = free */
    uint64_t *near;  /* per record: free ones, the home of the objects, or NO_GROUP */
    uint8_t *part;   /* per record */
    uint64_t ngroups, nfree, readonly;
    uint64_t *group_records; /* per group */
    unsigned nparts;
    struct tbbt_split_share shares[TBBT_SPLIT_MAX_PARTS];
};

static int obj_eq(const void *item, const void *key) {
    return ((const struct sobj *)item)->id == *(const tbbt_id *)key;
}

static uint64_t id_hash(tbbt_id id) {
    return tbbt_htab_mix(id);
}

static struct sobj *obj_at(const struct tbbt_split *s, uint32_t i) {
    return &s->chunks[i / SPLIT_CHUNK][i % SPLIT_CHUNK];
}

struct tbbt_split *tbbt_split_new(void) {
    struct tbbt_split *s = g_new0(struct tbbt_split, 1);
    tbbt_htab_init(&s->objs, obj_eq);
    s->shared = g_array_new(FALSE, FALSE, sizeof(tbbt_id));
    s->op = g_array_new(FALSE, FALSE, sizeof(uint8_t));
    s->bytes = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    s->nlocks = g_array_new(FALSE, FALSE, sizeof(uint8_t));
    s->locks = g_array_new(FALSE, FALSE, sizeof(uint32_t));
    return s;
}

void tbbt_split_free(struct tbbt_split *s) {
    if (!s) return;
    tbbt_htab_clear(&s->objs);
    for (uint32_t i = 0; i < s->nchunks; i++)
        g_free(s->chunks[i]);
    g_free(s->chunks);
    g_array_free(s->shared, TRUE), g_array_free(s->op, TRUE), g_array_free(s->bytes, TRUE);
    g_array_free(s->nlocks, TRUE), g_array_free(s->locks, TRUE);
    g_free(s->group), g_free(s->near), g_free(s->part), g_free(s->group_records), g_free(s);
}

/* The object with this id, made when new. */
static struct sobj *obj_get(struct tbbt_split *s, tbbt_id id) {
    uint64_t h = id_hash(id);
    struct sobj *o = tbbt_htab_find_inline(&s->objs, h, &id, obj_eq);
    if (o) return o;
    if (s->nobjs % SPLIT_CHUNK == 0) {
        s->chunks = g_renew(struct sobj *, s->chunks, s->nchunks + 1);
        s->chunks[s->nchunks++] = g_new(struct sobj, SPLIT_CHUNK);
    }
    o = obj_at(s, s->nobjs);
    *o = (struct sobj){
        .id = id, .idx = s->nobjs, .uf = s->nobjs, .size = 1, .group = NO_GROUP, .home = NO_GROUP};
    s->nobjs++;
    for (guint i = 0; i < s->shared->len; i++)
        if (g_array_index(s->shared, tbbt_id, i) == id) o->shared = 1;
    tbbt_htab_put(&s->objs, h, o);
    return o;
}

void tbbt_split_add_shared(struct tbbt_split *s, tbbt_id id) {
    g_array_append_val(s->shared, id);
}

/* Bytes a record moved: a read's or a write's count done (asked, when
 * the reply did not say). */
static uint32_t rec_bytes(const struct tbbt_rec *r) {
    if (r->op != TBBT_OP_READ && r->op != TBBT_OP_WRITE) return 0;
    if (tbbt_rec_has(r, TBBT_F_RCOUNT)) return r->rcount;
    return r->status == 0 && tbbt_rec_has(r, TBBT_F_COUNT) ? r->count : 0;
}

void tbbt_split_put(struct tbbt_split *s, const struct tbbt_rec *r) {
    struct tbbt_lock l[TBBT_MAX_LOCKS];
    unsigned n = tbbt_locks_of(r, l);
    uint8_t op = r->op, nl = (uint8_t)n;
    uint32_t b = rec_bytes(r);
    g_array_append_val(s->op, op);
    g_array_append_val(s->bytes, b);
    g_array_append_val(s->nlocks, nl);
    for (unsigned i = 0; i < n; i++) {
        struct sobj *o = obj_get(s, l[i].obj);
        o->written |= l[i].write;
        uint32_t v = o->idx | (l[i].write ? LOCK_WRITE : 0);
        g_array_append_val(s->locks, v);
    }
}

/* Union-find: the root of i, halving the path on the way. */
static uint32_t uf_find(struct tbbt_split *s, uint32_t i) {
    for (;;) {
        struct sobj *o = obj_at(s, i);
        if (o->uf == i) return i;
        struct sobj *p = obj_at(s, o->uf);
        o->uf = p->uf;
        i = p->uf;
    }
}

/* Joins the sets of a and b, the smaller under the larger. */
static void uf_union(struct tbbt_split *s, uint32_t a, uint32_t b) {
    a = uf_find(s, a), b = uf_find(s, b);
    if (a == b) return;
    struct sobj *oa = obj_at(s, a), *ob = obj_at(s, b);
    if (oa->size < ob->size) {
        struct sobj *t = oa;
        oa = ob, ob = t;
    }
    ob->uf = oa->idx;
    oa->size += ob->size;
}

/* Does object i join groups (written and not declared shared)? */
static int joins(const struct tbbt_split *s, uint32_t i) {
    const struct sobj *o = obj_at(s, i);
    return o->written && !o->shared;
}

/* The first joining object of each record, joined with its others.
 * Returns the record's first joining object's index, or UINT32_MAX. */
static uint32_t join_record(struct tbbt_split *s, const uint32_t *lk, unsigned n) {
    uint32_t first = UINT32_MAX;
    for (unsigned i = 0; i < n; i++) {
        uint32_t x = lk[i] & ~LOCK_WRITE;
        if (!joins(s, x)) continue;
        if (first == UINT32_MAX)
            first = x;
        else
            uf_union(s, first, x);
    }
    return first;
}

/* The position of the first of a record's locks that joins groups
 * (want_home 0) or has a home (1), or n. */
static unsigned first_of(struct tbbt_split *s, const uint32_t *lk, unsigned n, int want_home) {
    for (unsigned k = 0; k < n; k++) {
        struct sobj *o = obj_at(s, lk[k] & ~LOCK_WRITE);
        if (want_home ? o->home != NO_GROUP : joins(s, lk[k] & ~LOCK_WRITE)) return k;
    }
    return n;
}

/* Gives home h to the read-only objects without one among a record's
 * locks after position k: the objects a lookup reveals come after the
 * directory it looks in (lib/locks.c's order), and a directory never
 * takes its home from what it holds. */
static void give_home(struct tbbt_split *s, const uint32_t *lk, unsigned n, unsigned k, uint64_t h) {
    for (k++; k < n; k++) {
        struct sobj *o = obj_at(s, lk[k] & ~LOCK_WRITE);
        if (!o->written && o->home == NO_GROUP) o->home = h;
    }
}

/* Where the free records would rather go. A read-only object's home is
 * the group of the first record that reveals it from one of the group's
 * objects (a lookup in the group's directory), or from an object with a
 * home (a lookup in such a directory); a free record follows the home of
 * its first object that has one. This keeps a group's read-only files in
 * its part's image; the shared ancestors, reached from no group, get no
 * home. */
static void find_homes(struct tbbt_split *s) {
    const uint32_t *lk = (const uint32_t *)(void *)s->locks->data;
    uint64_t nrec = s->op->len, off = 0;
    for (uint64_t i = 0; i < nrec; i++) {
        unsigned n = g_array_index(s->nlocks, uint8_t, i);
        if (s->group[i] != NO_GROUP) give_home(s, lk + off, n, first_of(s, lk + off, n, 0), s->group[i]);
        off += n;
    }
    g_free(s->near);
    s->near = g_new(uint64_t, nrec ? nrec : 1);
    off = 0;
    for (uint64_t i = 0; i < nrec; i++) {
        unsigned n = g_array_index(s->nlocks, uint8_t, i), k = n;
        s->near[i] = NO_GROUP;
        if (s->group[i] == NO_GROUP && (k = first_of(s, lk + off, n, 1)) < n) {
            s->near[i] = obj_at(s, lk[off + k] & ~LOCK_WRITE)->home;
            give_home(s, lk + off, n, k, s->near[i]);
        }
        off += n;
    }
}

uint64_t tbbt_split_group(struct tbbt_split *s) {
    uint64_t nrec = s->op->len, off = 0;
    uint32_t *firsts = g_new(uint32_t, nrec ? nrec : 1);
    const uint32_t *lk = (const uint32_t *)(void *)s->locks->data;
    for (uint64_t i = 0; i < nrec; i++) {
        unsigned n = g_array_index(s->nlocks, uint8_t, i);
        firsts[i] = join_record(s, lk + off, n);
        off += n;
    }
    s->readonly = 0;
    for (uint32_t i = 0; i < s->nobjs; i++)
        s->readonly += !joins(s, i);
    /* groups numbered in order of their first record */
    g_free(s->group);
    s->group = g_new(uint64_t, nrec ? nrec : 1);
    s->ngroups = s->nfree = 0;
    for (uint64_t i = 0; i < nrec; i++) {
        if (firsts[i] == UINT32_MAX) {
            s->group[i] = NO_GROUP;
            s->nfree++;
            continue;
        }
        struct sobj *root = obj_at(s, uf_find(s, firsts[i]));
        if (root->group == NO_GROUP) root->group = s->ngroups++;
        s->group[i] = root->group;
    }
    g_free(firsts);
    find_homes(s);
    g_free(s->group_records);
    s->group_records = g_new0(uint64_t, s->ngroups ? s->ngroups : 1);
    for (uint64_t i = 0; i < nrec; i++)
        if (s->group[i] != NO_GROUP) s->group_records[s->group[i]]++;
    return s->ngroups;
}

/* Orders group numbers by records, most first (then by number). */
static int by_records(const void *a, const void *b, void *ctx) {
    const uint64_t *gr = ctx, x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    if (gr[x] != gr[y]) return gr[x] > gr[y] ? -1 : 1;
    return x < y ? -1 : x > y;
}

/* The part with the fewest records so far (the lowest on a tie). */
static unsigned lightest(const uint64_t *load, unsigned nparts) {
    unsigned best = 0;
    for (unsigned p = 1; p < nparts; p++)
        if (load[p] < load[best]) best = p;
    return best;
}

/* Each part's share of the records and of the objects they lock. */
static void fill_shares(struct tbbt_split *s) {
    memset(s->shares, 0, sizeof(s->shares));
    for (uint32_t i = 0; i < s->nobjs; i++)
        obj_at(s, i)->parts = 0;
    uint64_t off = 0;
    for (uint64_t i = 0; i < s->op->len; i++) {
        struct tbbt_split_share *sh = &s->shares[s->part[i]];
        uint8_t op = g_array_index(s->op, uint8_t, i);
        uint32_t b = g_array_index(s->bytes, uint32_t, i);
        sh->records++;
        sh->by_op[op]++;
        if (op == TBBT_OP_READ) sh->bytes_read += b;
        if (op == TBBT_OP_WRITE) sh->bytes_written += b;
        unsigned n = g_array_index(s->nlocks, uint8_t, i);
        for (unsigned k = 0; k < n; k++)
            obj_at(s, g_array_index(s->locks, uint32_t, off + k) & ~LOCK_WRITE)->parts |= 1ull << s->part[i];
        off += n;
    }
    for (uint32_t i = 0; i < s->nobjs; i++)
        for (unsigned p = 0; p < s->nparts; p++)
            s->shares[p].objects += (obj_at(s, i)->parts >> p) & 1;
}

int tbbt_split_assign(struct tbbt_split *s, unsigned nparts) {
    if (nparts < 1 || nparts > TBBT_SPLIT_MAX_PARTS || s->ngroups < nparts) return -1;
    s->nparts = nparts;
    uint64_t *order = g_new(uint64_t, s->ngroups), *gpart = g_new(uint64_t, s->ngroups);
    uint64_t load[TBBT_SPLIT_MAX_PARTS] = {0}, ngr[TBBT_SPLIT_MAX_PARTS] = {0};
    for (uint64_t g = 0; g < s->ngroups; g++)
        order[g] = g;
    g_qsort_with_data(order, (gint)s->ngroups, sizeof(uint64_t), by_records, s->group_records);
    for (uint64_t k = 0; k < s->ngroups; k++) {
        unsigned p = lightest(load, nparts);
        gpart[order[k]] = p;
        load[p] += s->group_records[order[k]];
        ngr[p]++;
    }
    g_free(s->part);
    s->part = g_new(uint8_t, s->op->len ? s->op->len : 1);
    for (uint64_t i = 0; i < s->op->len; i++) {
        if (s->group[i] != NO_GROUP) {
            s->part[i] = (uint8_t)gpart[s->group[i]];
            continue;
        }
        unsigned p = s->near[i] != NO_GROUP ? (unsigned)gpart[s->near[i]] : lightest(load, nparts);
        s->part[i] = (uint8_t)p;
        load[p]++;
    }
    g_free(order), g_free(gpart);
    fill_shares(s);
    for (unsigned p = 0; p < nparts; p++)
        s->shares[p].groups = ngr[p];
    return 0;
}

uint64_t tbbt_split_records(const struct tbbt_split *s) {
    return s->op->len;
}

uint64_t tbbt_split_objects(const struct tbbt_split *s) {
    return s->nobjs;
}

uint64_t tbbt_split_readonly(const struct tbbt_split *s) {
    return s->readonly;
}

uint64_t tbbt_split_free_records(const struct tbbt_split *s) {
    return s->nfree;
}

const struct tbbt_split_share *tbbt_split_share(const struct tbbt_split *s, unsigned part) {
    return &s->shares[part];
}

unsigned tbbt_split_part_of(const struct tbbt_split *s, uint64_t seq) {
    return s->part[seq];
}

uint64_t tbbt_split_group_of(const struct tbbt_split *s, uint64_t seq) {
    return s->group[seq];
}

tbbt_id tbbt_split_object(const struct tbbt_split *s, uint64_t i, uint64_t *parts) {
    const struct sobj *o = obj_at(s, (uint32_t)i);
    if (parts) *parts = o->parts;
    return o->id;
}

/* What the crossing check knows of one object: the first unit to lock it
 * and whether another did too; the same for write locks. */
struct xstate {
    int32_t first, wfirst; /* -1: none yet */
    uint8_t multi, wmulti;
};

/* Does a lock by unit u (write w) cross an earlier one? Then notes it. */
static int xlock(struct xstate *x, int32_t u, int w) {
    int cross = w ? (x->first >= 0 && (x->first != u || x->multi))
                  : (x->wfirst >= 0 && (x->wfirst != u || x->wmulti));
    if (x->first < 0)
        x->first = u;
    else if (x->first != u)
        x->multi = 1;
    if (w && x->wfirst < 0)
        x->wfirst = u;
    else if (w && x->wfirst != u)
        x->wmulti = 1;
    return cross;
}

uint64_t tbbt_split_crossings(const struct tbbt_split *s, const int *unit, uint64_t *first, tbbt_id *obj) {
    struct xstate *x = g_new(struct xstate, s->nobjs ? s->nobjs : 1);
    for (uint32_t i = 0; i < s->nobjs; i++)
        x[i] = (struct xstate){-1, -1, 0, 0};
    uint64_t off = 0, count = 0;
    for (uint64_t i = 0; i < s->op->len; i++) {
        unsigned n = g_array_index(s->nlocks, uint8_t, i);
        int crossed = 0;
        for (unsigned k = 0; k < n; k++) {
            uint32_t v = g_array_index(s->locks, uint32_t, off + k), oi = v & ~LOCK_WRITE;
            if (!xlock(&x[oi], unit[s->part[i]], !!(v & LOCK_WRITE)) || crossed++) continue;
            if (!count) *first = i, *obj = obj_at(s, oi)->id;
        }
        count += crossed > 0;
        off += n;
    }
    g_free(x);
    return count;
}
