/* recmark.c -- RPC record marking on a TCP stream (see recmark.h). */
#include "recmark.h"

#include <string.h>

#include <glib.h>

/* Appends n bytes to the message being joined. */
static void join(struct tbbt_recmark *r, const uint8_t *p, size_t n) {
    if (r->len + n > r->cap) {
        while (r->len + n > r->cap)
            r->cap = r->cap ? 2 * r->cap : 65536;
        r->msg = g_realloc(r->msg, r->cap);
    }
    memcpy(r->msg + r->len, p, n);
    r->len += n;
}

ssize_t tbbt_recmark_consume(struct tbbt_recmark *r, const uint8_t *buf, size_t n, size_t max,
                             tbbt_recmark_cb cb, void *ctx, size_t *bad) {
    size_t off = 0;
    while (n - off >= 4) {
        const uint8_t *p = buf + off;
        uint32_t mark = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
        size_t flen = mark & TBBT_RECMARK_LEN;
        if (flen > max || r->len + flen > max) return *bad = flen, -1;
        if (n - off - 4 < flen) break;
        off += 4 + flen;
        if ((mark & TBBT_RECMARK_LAST) && !r->len) { /* the usual case: one fragment, no copy */
            cb(ctx, p + 4, flen);
            continue;
        }
        join(r, p + 4, flen);
        if (mark & TBBT_RECMARK_LAST) {
            cb(ctx, r->msg, r->len);
            r->len = 0;
        }
    }
    return (ssize_t)off;
}

void tbbt_recmark_free(struct tbbt_recmark *r) {
    g_free(r->msg);
    memset(r, 0, sizeof(*r));
}
