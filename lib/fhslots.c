/* fhslots.c -- file handles in fixed-width slots (see fhslots.h). */
#include "fhslots.h"

#include <glib.h>
#include <string.h>

void tbbt_fhslots_init(struct tbbt_fhslots *s) {
    memset(s, 0, sizeof(*s));
}

void tbbt_fhslots_free(struct tbbt_fhslots *s) {
    g_free(s->b);
    for (size_t i = 0; i < s->nold; i++)
        g_free(s->old[i]);
    g_free(s->old);
    tbbt_fhslots_init(s);
}

/* Room for cap slots of the current width. */
static void grow(struct tbbt_fhslots *s, size_t cap) {
    if (cap <= s->cap) return;
    size_t c = s->cap ? s->cap : 64;
    while (c < cap)
        c += c / 2; /* 1.5x: the slots are most of the memory of a large image */
    s->b = g_realloc(s->b, c * ((size_t)s->width + 1));
    s->cap = c;
}

void tbbt_fhslots_reserve(struct tbbt_fhslots *s, size_t n) {
    if (n <= s->n) return;
    grow(s, n);
    size_t w = (size_t)s->width + 1;
    memset(s->b + s->n * w, 0, (n - s->n) * w);
    s->n = n;
}

/* Every slot widened to width bytes of handle (rounded up to 4: fewer
 * widenings for a server whose lengths vary a little), into a new buffer:
 * the old one is kept until tbbt_fhslots_free, so that a pointer handed out
 * before (a call out with it) still reads its handle. */
static void widen(struct tbbt_fhslots *s, uint32_t width) {
    width = (width + 3) & ~3u;
    if (width > TBBT_FH_MAX) width = TBBT_FH_MAX;
    size_t ow = (size_t)s->width + 1, nw = (size_t)width + 1;
    uint8_t *b = g_malloc0((s->cap ? s->cap : 1) * nw);
    for (size_t i = 0; i < s->n; i++)
        memcpy(b + i * nw, s->b + i * ow, ow);
    if (s->b) {
        s->old = g_renew(void *, s->old, s->nold + 1);
        s->old[s->nold++] = s->b;
    }
    s->b = b;
    s->width = width;
}

int tbbt_fhslots_set(struct tbbt_fhslots *s, size_t i, const uint8_t *data, uint32_t len) {
    if (len > TBBT_FH_MAX) return -1;
    if (len > s->width) widen(s, len);
    tbbt_fhslots_reserve(s, i + 1);
    uint8_t *p = s->b + i * ((size_t)s->width + 1);
    *p = (uint8_t)(len + 1);
    if (len) memcpy(p + 1, data, len);
    return 0;
}

void tbbt_fhslots_load(const struct tbbt_fhslots *s, size_t i, struct tbbt_fh *fh) {
    const uint8_t *d;
    uint32_t len;
    fh->len = 0;
    if (tbbt_fhslots_get(s, i, &d, &len)) {
        fh->len = len;
        memcpy(fh->data, d, len);
    }
}

size_t tbbt_fhslots_bytes(const struct tbbt_fhslots *s) {
    return s->cap * ((size_t)s->width + 1); /* the old buffers of widenings not counted */
}
