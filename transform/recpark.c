/* recpark.c -- records packed small while they wait (see recpark.h). */
#include "recpark.h"

#include <glib.h>
#include <string.h>

#define SLAB_BYTES (120u << 10) /* under glibc's mmap threshold: a slab comes from the heap */
#define SLABS_KEPT 8            /* empty slabs kept for reuse */

/* A slab of packed records; each record is preceded by its slab's address. */
struct slab {
    struct slab *next_free;
    size_t used, cap;
    uint32_t live; /* records packed here and not released */
    uint8_t data[];
};

struct tbbt_recpark {
    struct slab *cur;   /* the slab being filled */
    struct slab *spare; /* empty slabs for reuse */
    unsigned nspare;
    size_t mem;
    /* the field table (record.c) as packing wants it */
    uint16_t off[TBBT_F_COUNT_]; /* where field f lives in the struct */
    uint8_t size[TBBT_F_COUNT_]; /* its bytes: 8, 4, or 0 (the listing, kept apart) */
    uint64_t mask8, mask4;       /* the fields of each size */
};

/* The header bytes copied as they are: times, endpoints, xid, version,
 * procedure, flags and status (the credentials follow, their gids cut to
 * ngids). */
#define HEAD_BYTES offsetof(struct tbbt_rec, cred)

/* Bytes field f's value takes in the struct (0: kept outside it). */
static size_t field_size(enum tbbt_field f) {
    switch (tbbt_fields[f].type) {
    case TBBT_FT_U32: return 4;
    case TBBT_FT_ID:
    case TBBT_FT_U64:
    case TBBT_FT_TIME: return 8;
    case TBBT_FT_STR: return sizeof(struct tbbt_str);
    default: return 0;
    }
}

/* Gids of the credentials that are kept (at most TBBT_MAX_GIDS). */
static uint32_t kept_gids(const struct tbbt_cred *c) {
    return c->ngids < TBBT_MAX_GIDS ? c->ngids : TBBT_MAX_GIDS;
}

/* Bytes tbbt_recpark_pack makes of r. */
static size_t packed_size(const struct tbbt_recpark *s, const struct tbbt_rec *r) {
    size_t n = HEAD_BYTES + offsetof(struct tbbt_cred, gids) + 4 * (size_t)kept_gids(&r->cred) + 8;
    n += 8 * (size_t)__builtin_popcountll(r->has & s->mask8) +
         4 * (size_t)__builtin_popcountll(r->has & s->mask4);
    return n + 8 + r->arena_len + (size_t)r->nentries * sizeof(struct tbbt_dirent);
}

/* Appends n bytes from src at *p. */
static inline void put(uint8_t **p, const void *src, size_t n) {
    memcpy(*p, src, n);
    *p += n;
}

/* Takes n bytes at *p into dst. */
static inline void take(const uint8_t **p, void *dst, size_t n) {
    memcpy(dst, *p, n);
    *p += n;
}

/* See recpark.h. */
struct tbbt_recpark *tbbt_recpark_new(void) {
    struct tbbt_recpark *s = g_new0(struct tbbt_recpark, 1);
    for (int f = 0; f < TBBT_F_COUNT_; f++) {
        size_t n = field_size((enum tbbt_field)f);
        g_assert(n == 0 || n == 4 || n == 8);
        s->off[f] = (uint16_t)tbbt_fields[f].offset;
        s->size[f] = (uint8_t)n;
        if (n == 8) s->mask8 |= 1ull << f;
        if (n == 4) s->mask4 |= 1ull << f;
    }
    return s;
}

/* Frees an empty slab, or keeps it for reuse. */
static void slab_drop(struct tbbt_recpark *s, struct slab *b) {
    if (b->cap == SLAB_BYTES && s->nspare < SLABS_KEPT) {
        b->next_free = s->spare;
        s->spare = b;
        s->nspare++;
        return;
    }
    s->mem -= sizeof *b + b->cap;
    g_free(b);
}

/* Room for n bytes, 8-aligned, preceded by the slab's address: in the
 * current slab, or a new one (a record larger than a slab gets its own). */
static uint8_t *slab_alloc(struct tbbt_recpark *s, size_t n) {
    size_t need = sizeof(struct slab *) + ((n + 7) & ~(size_t)7);
    struct slab *b = s->cur;
    if (!b || b->cap - b->used < need) {
        if (b && b->live == 0) slab_drop(s, b);
        if (need <= SLAB_BYTES && s->spare) {
            b = s->spare;
            s->spare = b->next_free;
            s->nspare--;
        } else {
            size_t cap = need > SLAB_BYTES ? need : SLAB_BYTES;
            b = g_malloc(sizeof *b + cap);
            b->cap = cap;
            s->mem += sizeof *b + cap;
        }
        b->used = 0;
        b->live = 0;
        s->cur = b;
    }
    uint8_t *p = b->data + b->used;
    memcpy(p, &b, sizeof b);
    b->used += need;
    b->live++;
    return p + sizeof b;
}

/* See recpark.h. */
void tbbt_recpark_release(struct tbbt_recpark *s, uint8_t *p) {
    struct slab *b;
    memcpy(&b, p - sizeof b, sizeof b);
    if (--b->live == 0) {
        if (b != s->cur)
            slab_drop(s, b);
        else
            b->used = 0; /* empty and still the one filled: from its start again */
    }
}

/* See recpark.h. */
size_t tbbt_recpark_mem(const struct tbbt_recpark *s) {
    return s->mem;
}

/* See recpark.h. */
void tbbt_recpark_free(struct tbbt_recpark *s) {
    if (!s) return;
    struct slab *b;
    while ((b = s->spare) != NULL) {
        s->spare = b->next_free;
        g_free(b);
    }
    g_free(s->cur); /* the slabs still holding records belong to them: release them first */
    g_free(s);
}

/* See recpark.h. */
uint8_t *tbbt_recpark_pack(struct tbbt_recpark *s, const struct tbbt_rec *r, size_t *len) {
    size_t n = packed_size(s, r);
    uint8_t *buf = slab_alloc(s, n), *p = buf;
    put(&p, r, HEAD_BYTES);
    put(&p, &r->cred, offsetof(struct tbbt_cred, gids) + 4 * (size_t)kept_gids(&r->cred));
    put(&p, &r->has, 8);
    for (uint64_t m = r->has & (s->mask8 | s->mask4); m; m &= m - 1) {
        int f = __builtin_ctzll(m);
        if (s->size[f] == 8)
            put(&p, (const char *)r + s->off[f], 8);
        else
            put(&p, (const char *)r + s->off[f], 4);
    }
    put(&p, &r->arena_len, 4);
    put(&p, &r->nentries, 4);
    if (r->arena_len) put(&p, r->arena, r->arena_len);
    if (r->nentries) put(&p, r->entries, (size_t)r->nentries * sizeof(struct tbbt_dirent));
    *len = n;
    return buf;
}

/* See recpark.h. */
void tbbt_recpark_unpack(const struct tbbt_recpark *s, struct tbbt_rec *r, const uint8_t *p) {
    /* the credentials and optional fields cleared (the header is written
     * over whole, the buffers kept): tbbt_rec_clear but for those */
    memset(&r->cred, 0, offsetof(struct tbbt_rec, entries) - offsetof(struct tbbt_rec, cred));
    take(&p, r, HEAD_BYTES);
    take(&p, &r->cred, offsetof(struct tbbt_cred, gids));
    take(&p, r->cred.gids, 4 * (size_t)kept_gids(&r->cred));
    take(&p, &r->has, 8);
    for (uint64_t m = r->has & (s->mask8 | s->mask4); m; m &= m - 1) {
        int f = __builtin_ctzll(m);
        if (s->size[f] == 8)
            take(&p, (char *)r + s->off[f], 8);
        else
            take(&p, (char *)r + s->off[f], 4);
    }
    uint32_t alen, nent;
    take(&p, &alen, 4);
    take(&p, &nent, 4);
    if (alen > r->arena_cap) {
        r->arena = g_realloc(r->arena, alen);
        r->arena_cap = alen;
    }
    if (nent > r->entries_cap) {
        r->entries = g_renew(struct tbbt_dirent, r->entries, nent);
        r->entries_cap = nent;
    }
    if (alen) take(&p, r->arena, alen);
    if (nent) take(&p, r->entries, (size_t)nent * sizeof(struct tbbt_dirent));
    r->arena_len = alen;
    r->nentries = nent;
}
