/* ipreasm.c -- IP fragment reassembly (see ipreasm.h).
 *
 * Each slot keeps the datagram's bytes and two bitmaps over 8-byte units
 * (fragment offsets are multiples of 8): "seen on the wire" and "captured".
 * A datagram is complete when its end is known (the fragment without the
 * more-fragments flag) and every unit up to it is seen. */
#include "ipreasm.h"

#include <string.h>

#include <glib.h>

#define MAXDGRAM 65536u
#define UNITS (MAXDGRAM / 8u)

struct slot {
    int used;
    int version;
    uint8_t src[16], dst[16];
    uint32_t id;
    uint8_t proto;
    int64_t ts_first, ts_last;
    uint64_t pktno;
    size_t total; /* datagram length once known, else 0 */
    uint8_t seen[UNITS / 8], capt[UNITS / 8];
    uint8_t *buf; /* MAXDGRAM bytes, kept across reuse */
};

struct tbbt_ipreasm {
    struct slot slots[TBBT_IPR_SLOTS];
    size_t pending;
};

/* An empty table; slot buffers are allocated on first use. */
struct tbbt_ipreasm *tbbt_ipreasm_new(void) {
    return g_new0(struct tbbt_ipreasm, 1);
}

/* Frees the table and every slot buffer. */
void tbbt_ipreasm_free(struct tbbt_ipreasm *r) {
    if (!r) return;
    for (size_t i = 0; i < TBBT_IPR_SLOTS; i++)
        g_free(r->slots[i].buf);
    g_free(r);
}

/* Datagrams still waiting for fragments. */
size_t tbbt_ipreasm_pending(const struct tbbt_ipreasm *r) {
    return r->pending;
}

/* Releases a slot (its buffer stays for reuse). */
static void release(struct tbbt_ipreasm *r, struct slot *s) {
    s->used = 0;
    r->pending--;
}

/* Returns 1 when slot s holds fragments of f's datagram. */
static int same(const struct slot *s, const struct tbbt_ipfrag *f) {
    size_t alen = f->version == 4 ? 4 : 16;
    return s->used && s->version == f->version && s->id == f->id && s->proto == f->proto &&
           !memcmp(s->src, f->src, alen) && !memcmp(s->dst, f->dst, alen);
}

/* Finds f's slot or takes a free one (evicting the oldest when full);
 * drops timed-out datagrams on the way. Never returns NULL. */
static struct slot *lookup(struct tbbt_ipreasm *r, const struct tbbt_ipfrag *f, uint64_t *dropped) {
    struct slot *freeslot = NULL, *oldest = NULL;
    for (size_t i = 0; i < TBBT_IPR_SLOTS; i++) {
        struct slot *s = &r->slots[i];
        if (s->used && f->ts - s->ts_last > TBBT_IPR_TIMEOUT_NS) {
            release(r, s);
            (*dropped)++;
        }
        if (!s->used) {
            if (!freeslot) freeslot = s;
            continue;
        }
        if (same(s, f)) return s;
        if (!oldest || s->ts_last < oldest->ts_last) oldest = s;
    }
    struct slot *s = freeslot;
    if (!s) {
        s = oldest;
        release(r, s);
        (*dropped)++;
    }
    size_t alen = f->version == 4 ? 4 : 16;
    s->used = 1;
    r->pending++;
    s->version = f->version;
    memset(s->src, 0, sizeof s->src);
    memset(s->dst, 0, sizeof s->dst);
    memcpy(s->src, f->src, alen);
    memcpy(s->dst, f->dst, alen);
    s->id = f->id;
    s->proto = f->proto;
    s->ts_first = f->ts;
    s->ts_last = f->ts;
    s->pktno = f->pktno;
    s->total = 0;
    memset(s->seen, 0, sizeof s->seen);
    memset(s->capt, 0, sizeof s->capt);
    if (!s->buf) s->buf = g_malloc(MAXDGRAM);
    return s;
}

/* Sets bit i of bitmap m. */
static void setbit(uint8_t *m, size_t i) {
    m[i >> 3] |= (uint8_t)(1u << (i & 7));
}

/* Returns bit i of bitmap m. */
static int getbit(const uint8_t *m, size_t i) {
    return m[i >> 3] >> (i & 7) & 1;
}

/* Records fragment f in slot s: copies its captured bytes and marks its
 * units seen, and captured where all their bytes up to the fragment's end
 * were captured. */
static void place(struct slot *s, const struct tbbt_ipfrag *f) {
    size_t end = f->offset + f->len, cend = f->offset + f->caplen;
    memcpy(s->buf + f->offset, f->data, f->caplen);
    for (size_t u = f->offset / 8; u * 8 < end; u++) {
        setbit(s->seen, u);
        size_t uend = (u + 1) * 8 < end ? (u + 1) * 8 : end;
        if (cend >= uend) setbit(s->capt, u);
    }
}

/* Returns 1 when every unit of a datagram of known total length is seen;
 * sets *caplen to its captured prefix. */
static int complete(const struct slot *s, size_t *caplen) {
    size_t units = (s->total + 7) / 8;
    size_t cap = s->total;
    for (size_t u = 0; u < units; u++) {
        if (!getbit(s->seen, u)) return 0;
        if (cap == s->total && !getbit(s->capt, u)) cap = u * 8;
    }
    *caplen = cap;
    return 1;
}

int tbbt_ipreasm_add(struct tbbt_ipreasm *r, const struct tbbt_ipfrag *f, struct tbbt_ipdgram *out,
                     uint64_t *dropped) {
    size_t end = (size_t)f->offset + f->len;
    if (end > MAXDGRAM || f->caplen > f->len || (f->more && (f->len % 8 || f->len == 0))) return -1;
    struct slot *s = lookup(r, f, dropped);
    if (!f->more) {
        if ((s->total && s->total != end) || end == 0) {
            release(r, s);
            (*dropped)++;
            return -1;
        }
        s->total = end;
    }
    place(s, f);
    s->ts_last = f->ts;
    if (f->offset == 0) { /* the packet holding the first byte */
        s->ts_first = f->ts;
        s->pktno = f->pktno;
    }
    size_t cap;
    if (!s->total || !complete(s, &cap)) return 0;
    out->proto = s->proto;
    out->data = s->buf;
    out->len = s->total;
    out->caplen = cap;
    out->ts_first = s->ts_first;
    out->pktno = s->pktno;
    release(r, s);
    return 1;
}
