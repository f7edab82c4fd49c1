/* tcpreasm.c -- TCP reassembly and RPC record marking (see tcpreasm.h). */
#include "tcpreasm.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "htab.h"
#include "rng.h"
#include "unconst.h"

enum { ST_HUNT, ST_MARK, ST_BODY };

/* Why a direction lost its framing: the bytes skipped until it is found
 * again are counted against that cause (tbbt_capstats). */
enum { WHY_START, WHY_CUT, WHY_GAP, WHY_GARBAGE };

#define SMALL_BUF (64u << 10) /* message buffers up to this size are kept for reuse */
#define MIN_RPC 24u           /* shortest RPC message we accept when hunting */

/* A directional 5-tuple (TCP only), hashed and compared as bytes. */
struct flowkey {
    uint8_t a[16], b[16];
    uint16_t pa, pb;
    uint8_t fam, pad[3];
};

/* An out-of-order segment waiting for the hole before it to fill. */
struct oseg {
    struct oseg *next;
    uint32_t seq;
    size_t caplen, len;
    int64_t ts;
    uint64_t pktno;
    uint8_t data[];
};

/* Holes remembered to date lost stream openings, and how many calls from
 * a stream's start set its pace there. */
#define HOLE_RING 64
#define HEAD_PACE_CALLS 64

/* One direction of a connection. */
struct dir {
    struct flowkey key;
    uint64_t khash; /* key_hash64(&key), its place in the index */
    struct tbbt_endpoint src, dst;
    uint64_t conn;
    uint32_t next_seq; /* sequence number of the next byte expected */
    int state;
    int lost;        /* framing was lost (a resync will be counted) */
    int why;         /* WHY_*: what lost it, or what hunting began for */
    int calls;       /* carried RPC calls */
    int opened;      /* the capture saw its SYN: nothing was before its first byte */
    uint64_t ncalls; /* calls delivered, the first and last at: */
    int64_t call_first, call_last;
    int64_t call_early;             /* the HEAD_PACE_CALLS-th call's time: the pace near the start */
    int64_t ts_open;                /* its first packet's time */
    int64_t ts_before;              /* the packet before the current one (0: none) */
    int64_t head_from;              /* when calls lost before ts_open began (head_fix; 0: not yet) */
    uint64_t skipped, skipped_mark; /* bytes skipped in all, and when the last message was delivered */
    int delivered;                  /* delivered at least one message */
    int64_t ts_seen;                /* last packet time */
    uint8_t mark[4];
    unsigned markn;
    uint32_t need; /* bytes left in the current fragment */
    int lastfrag;
    /* the message being assembled */
    int inmsg, contig;
    size_t msg_len, msg_cap;
    int64_t ts_first, ts_last;
    uint64_t pktno;
    uint8_t *buf;
    size_t bufsize;
    /* while hunting: the last bytes of the previous segment, too few to
     * hold a record mark + RPC header, kept to find a header that
     * straddles two segments */
    uint8_t carry[4 + MIN_RPC];
    unsigned carryn;
    int64_t carry_ts;
    uint64_t carry_pktno;
    /* out-of-order segments, sorted by sequence */
    struct oseg *ooo;
    size_t ooo_bytes;
    unsigned ooo_n;
    int64_t ooo_since; /* capture time the current wait for a hole began */
    /* the highest acknowledgment this direction's sender sent: how far
     * the other direction's receiver has its bytes */
    uint32_t ack;
    int has_ack;
};

struct tbbt_tcpreasm {
    int in_hole;            /* feeding the known length of a hole, not a segment */
    GHashTable *dirs;       /* struct flowkey * -> struct dir * (key inside the value): sweeps walk it */
    struct tbbt_htab index; /* the same struct dir *, by khash: lookups use it */
    struct dir *last[2];    /* the two most recent lookups (a call's and its reply's direction) */
    struct tbbt_capstats *st;
    tbbt_msg_cb cb;
    void *ctx;
    size_t mem;        /* bytes held in message and out-of-order buffers */
    size_t ooo_dirs;   /* directions holding out-of-order data */
    int64_t next_idle; /* capture time of the next idle sweep */
    /* the last holes seen in any direction, as capture times: the packet
     * before each and the one after; a lost stream opening is dated by them */
    struct {
        int64_t t1, t2, open; /* open: the first packet of the hole's direction */
    } holes[HOLE_RING];
    unsigned nholes;
    uint8_t ports[65536 / 8];
};

/* Big-endian word at p (callers have checked the length). */
static inline uint32_t be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Checks a call header's words after msg_type. */
static int call_ok(const uint8_t *p, size_t n, int strict) {
    if (be32(p + 8) != 2) return 0;
    if (n < 24) return !strict;
    if (be32(p + 16) > 100 || be32(p + 20) > 1000) return 0;
    if (strict && be32(p + 12) < 100000) return 0; /* program numbers start at 100000 */
    if (n < 32) return 1;
    uint32_t fl = be32(p + 24), clen = be32(p + 28);
    if (fl == 1 && clen < 20) return 0; /* AUTH_SYS has at least 5 words */
    return (fl <= 6 || (fl >= 390003 && fl <= 390009)) && clen <= 400;
}

/* Checks a reply header's words after msg_type. */
static int reply_ok(const uint8_t *p, size_t n, int strict) {
    uint32_t stat = be32(p + 8);
    if (stat > 1) return 0;
    if (n < 24) return !strict;
    if (stat == 1) return be32(p + 12) <= 1;
    uint32_t fl = be32(p + 12), vlen = be32(p + 16);
    if (!(fl <= 6 || (fl >= 390003 && fl <= 390009)) || vlen > 400) return 0;
    if (n < 24 + (size_t)vlen) return 1;
    return be32(p + 20 + vlen) <= 5;
}

/* See tcpreasm.h: does this look like an RPC call or reply header. */
int tbbt_rpc_plausible(const uint8_t *p, size_t n, int strict) {
    if (n < 12) return !strict && (n < 8 || be32(p + 4) <= 1);
    uint32_t type = be32(p + 4);
    if (type == 0) return call_ok(p, n, strict);
    if (type == 1) return reply_ok(p, n, strict);
    return 0;
}

/* Hashes the 40 bytes of a flow key: one multiply per word, one final
 * mix (it runs once per segment). */
static uint64_t key_hash64(const struct flowkey *k) {
    uint64_t w[5];
    memcpy(w, k, sizeof w);
    return tbbt_rng_mix(w[0] ^ w[1] * TBBT_RNG_GOLDEN ^ w[2] * 0xc2b2ae3d27d4eb4fULL ^
                        w[3] * 0x165667b19e3779f9ULL ^ w[4] * 0x27d4eb2f165667c5ULL);
}

/* GHashTable hash of a flow key. */
static guint key_hash(gconstpointer k) {
    return (guint)key_hash64(k);
}

/* GHashTable equality of two flow keys. */
static gboolean key_equal(gconstpointer a, gconstpointer b) {
    return memcmp(a, b, sizeof(struct flowkey)) == 0;
}

/* Index equality: a direction against a struct flowkey. */
static int dir_eq(const void *item, const void *key) {
    return key_equal(&((const struct dir *)item)->key, key);
}

/* The direction with key k, or NULL. */
static struct dir *dir_lookup(struct tbbt_tcpreasm *r, const struct flowkey *k, uint64_t h) {
    return tbbt_htab_find_inline(&r->index, h, k, dir_eq);
}

/* Builds the directional key of src -> dst. */
static void make_key(struct flowkey *k, const struct tbbt_endpoint *src, const struct tbbt_endpoint *dst) {
    memset(k, 0, sizeof *k);
    memcpy(k->a, src->addr, 16);
    memcpy(k->b, dst->addr, 16);
    k->pa = src->port;
    k->pb = dst->port;
    k->fam = src->family;
}

/* See tcpreasm.h: hashes the endpoints in a fixed order, so both directions agree. */
uint64_t tbbt_flow_id(const struct tbbt_endpoint *a, const struct tbbt_endpoint *b, int proto) {
    struct flowkey k;
    int swap = memcmp(a->addr, b->addr, 16);
    if (swap > 0 || (swap == 0 && a->port > b->port))
        make_key(&k, b, a);
    else
        make_key(&k, a, b);
    k.pad[0] = (uint8_t)proto;
    return key_hash64(&k);
}

/* An empty reassembler delivering to cb(ctx, msg). */
struct tbbt_tcpreasm *tbbt_tcpreasm_new(struct tbbt_capstats *st, tbbt_msg_cb cb, void *ctx) {
    struct tbbt_tcpreasm *r = g_new0(struct tbbt_tcpreasm, 1);
    r->dirs = g_hash_table_new(key_hash, key_equal);
    tbbt_htab_init(&r->index, dir_eq);
    r->st = st;
    r->cb = cb;
    r->ctx = ctx;
    return r;
}

/* Marks a port as RPC for the resync checks. */
void tbbt_tcpreasm_add_port(struct tbbt_tcpreasm *r, uint16_t port) {
    r->ports[port >> 3] |= (uint8_t)(1u << (port & 7));
}

/* Returns 1 when the stream's ports include one the user named. */
static int known_port(const struct tbbt_tcpreasm *r, const struct dir *d) {
    return (r->ports[d->src.port >> 3] >> (d->src.port & 7) & 1) ||
           (r->ports[d->dst.port >> 3] >> (d->dst.port & 7) & 1);
}

/* Counts n stream bytes of d as skipped, against why (WHY_*) framing was
 * lost (a negative n takes bytes back). */
static void skipped(struct tbbt_tcpreasm *r, struct dir *d, int why, int64_t n) {
    struct tbbt_capstats *st = r->st;
    d->skipped += (uint64_t)n;
    st->skipped_bytes += (uint64_t)n;
    if (why == WHY_CUT)
        st->skipped_cut += (uint64_t)n;
    else if (why == WHY_GAP)
        st->skipped_gap += (uint64_t)n;
    else if (why == WHY_START)
        st->skipped_start += (uint64_t)n;
}

/* What a framing lost where no bytes were captured means: a hole in the
 * stream, or a packet the snaplen cut. */
static int why_uncaptured(const struct tbbt_tcpreasm *r) {
    return r->in_hole ? WHY_GAP : WHY_CUT;
}

/* Stream directions held. */
size_t tbbt_tcpreasm_count(const struct tbbt_tcpreasm *r) {
    return g_hash_table_size(r->dirs);
}

/* Bytes buffered across all streams. */
size_t tbbt_tcpreasm_mem(const struct tbbt_tcpreasm *r) {
    return r->mem;
}

static void head_fix(struct tbbt_tcpreasm *r, struct dir *d);

/* Hands one message to the callback and counts it. A message with no
 * captured xid is only counted as skipped bytes. */
static void deliver(struct tbbt_tcpreasm *r, struct dir *d, const uint8_t *data, size_t caplen, size_t len,
                    int64_t ts_first, int64_t ts_last, uint64_t pktno) {
    if (caplen < 4) {
        skipped(r, d, why_uncaptured(r), (int64_t)len);
        return;
    }
    if (!d->delivered) {
        d->delivered = 1;
        struct flowkey rk;
        make_key(&rk, &d->dst, &d->src);
        struct dir *rev = dir_lookup(r, &rk, key_hash64(&rk));
        if (!rev || !rev->delivered) r->st->tcp_streams++;
    }
    struct tbbt_msg m = {.ts_first = ts_first,
                         .ts_last = ts_last,
                         .src = d->src,
                         .dst = d->dst,
                         .tcp = 1,
                         .data = data,
                         .caplen = caplen,
                         .len = len,
                         .pktno = pktno,
                         .conn = d->conn};
    r->st->messages++;
    r->st->msg_bytes += len;
    if (caplen >= 8 && be32(data + 4) == 0) { /* a call */
        r->st->call_msgs++;
        r->st->call_bytes += len;
        d->calls = 1;
        if (!d->ncalls && d->opened) /* seen open: what it skipped so far was lost before this call */
            r->st->edge_call_bytes += d->skipped;
        if (!d->ncalls++) d->call_first = ts_first;
        if (d->ncalls == HEAD_PACE_CALLS) {
            d->call_early = ts_first;
            head_fix(r, d); /* while the holes around its opening are still remembered */
        }
        d->call_last = ts_first;
    }
    d->skipped_mark = d->skipped;
    if (caplen < len) r->st->truncated_msgs++;
    r->cb(r->ctx, &m);
}

/* Drops the message being assembled, releasing a large buffer. */
static void end_msg(struct tbbt_tcpreasm *r, struct dir *d) {
    d->inmsg = 0;
    d->msg_len = d->msg_cap = 0;
    if (d->bufsize > SMALL_BUF) {
        r->mem -= d->bufsize;
        g_free(d->buf);
        d->buf = NULL;
        d->bufsize = 0;
    }
}

/* Framing is lost (why: WHY_*): abandon the message in progress and hunt. */
static void lose_sync(struct tbbt_tcpreasm *r, struct dir *d, int why) {
    d->why = why;
    if (d->inmsg) skipped(r, d, d->why, (int64_t)d->msg_len);
    end_msg(r, d);
    d->state = ST_HUNT;
    d->markn = 0;
    d->lost = 1;
}

static long find_header(const struct tbbt_tcpreasm *r, const struct dir *d, const uint8_t *win, size_t wn,
                        size_t limit);

/* Hunts from pos for a plausible record mark + RPC header in the captured
 * bytes; returns the position where framing resumes, or len. */
static size_t hunt(struct tbbt_tcpreasm *r, struct dir *d, const uint8_t *p, size_t cap, size_t len,
                   size_t pos, int64_t ts, uint64_t pktno) {
    long k = cap > pos ? find_header(r, d, p + pos, cap - pos, cap - pos) : -1;
    if (k >= 0) {
        if (d->lost || k > 0) r->st->resyncs++;
        skipped(r, d, d->why, k);
        d->lost = 0;
        d->state = ST_MARK;
        d->markn = 0;
        return pos + (size_t)k;
    }
    skipped(r, d, d->why, (int64_t)(len - pos));
    d->lost = 1;
    if (cap == len && cap > pos) { /* keep the unscanned tail for the next segment */
        size_t keep = cap - pos < 4 + MIN_RPC - 1 ? cap - pos : 4 + MIN_RPC - 1;
        memcpy(d->carry, p + cap - keep, keep);
        d->carryn = (unsigned)keep;
        d->carry_ts = ts;
        d->carry_pktno = pktno;
    }
    return len;
}

/* Returns the offset in win (wn bytes) of a plausible record mark + RPC
 * header starting before limit, or -1. */
static long find_header(const struct tbbt_tcpreasm *r, const struct dir *d, const uint8_t *win, size_t wn,
                        size_t limit) {
    int strict = !known_port(r, d);
    for (size_t k = 0; k < limit && k + 4 + MIN_RPC <= wn; k++) {
        uint32_t m = be32(win + k), fl = m & 0x7fffffffu;
        if (fl < MIN_RPC || fl > TBBT_TCP_MAX_FRAG) continue;
        size_t avail = wn - k - 4;
        if (!tbbt_rpc_plausible(win + k + 4, avail < fl ? avail : fl, strict)) continue;
        /* a reply header is little more than small integers, which
         * zero-filled data imitates: when strict, also want a non-zero
         * xid and, for replies, a record in one fragment */
        if (strict && (be32(win + k + 4) == 0 || (be32(win + k + 8) == 1 && !(m >> 31)))) continue;
        return (long)k;
    }
    return -1;
}

/* Reads (part of) a record mark at pos; returns the new position. */
static size_t read_mark(struct tbbt_tcpreasm *r, struct dir *d, const uint8_t *p, size_t cap, size_t len,
                        size_t pos) {
    while (d->markn < 4 && pos < len) {
        if (pos >= cap) {
            lose_sync(r, d, why_uncaptured(r));
            return pos;
        }
        d->mark[d->markn++] = p[pos++];
    }
    if (d->markn < 4) return pos;
    d->markn = 0;
    uint32_t m = be32(d->mark);
    uint32_t fl = m & 0x7fffffffu;
    int bad = fl > TBBT_TCP_MAX_FRAG || (!d->inmsg && fl < MIN_RPC);
    if (!d->inmsg && !bad && pos < cap) {
        size_t avail = cap - pos < fl ? cap - pos : fl;
        bad = !tbbt_rpc_plausible(p + pos, avail, 0);
    }
    if (d->inmsg && d->msg_len + fl > 4 * (size_t)TBBT_TCP_MAX_FRAG) bad = 1;
    if (bad) {
        lose_sync(r, d, WHY_GARBAGE);
        return pos >= 4 ? pos - 3 : pos; /* hunt from just after the mark's start */
    }
    d->need = fl;
    d->lastfrag = m >> 31;
    d->state = ST_BODY;
    return pos;
}

/* Appends c captured bytes to the message buffer while the captured part
 * is still a prefix and within the bounds. */
static void append(struct tbbt_tcpreasm *r, struct dir *d, const uint8_t *p, size_t c, size_t n) {
    size_t take = d->contig ? c : 0;
    if (d->msg_cap + take > TBBT_TCP_MSG_KEEP) take = TBBT_TCP_MSG_KEEP - d->msg_cap;
    if (d->msg_cap + take > d->bufsize) {
        size_t want = d->bufsize ? d->bufsize : 4096;
        while (want < d->msg_cap + take)
            want *= 2;
        if (want > TBBT_TCP_MSG_KEEP) want = TBBT_TCP_MSG_KEEP;
        if (r->mem + want - d->bufsize > TBBT_TCP_MEM_MAX) {
            take = d->bufsize - d->msg_cap;
        } else {
            r->mem += want - d->bufsize;
            d->buf = g_realloc(d->buf, want);
            d->bufsize = want;
        }
    }
    if (take) memcpy(d->buf + d->msg_cap, p, take);
    d->msg_cap += take;
    if (take < n) d->contig = 0;
}

/* Consumes fragment body bytes at pos; returns the new position. */
static size_t body(struct tbbt_tcpreasm *r, struct dir *d, const uint8_t *p, size_t cap, size_t len,
                   size_t pos, int64_t ts, uint64_t pktno) {
    size_t n = len - pos < d->need ? len - pos : d->need;
    size_t c = cap > pos ? (cap - pos < n ? cap - pos : n) : 0;
    if (!d->inmsg) {
        if (d->lastfrag && n == d->need) { /* whole message in this segment: no copy */
            deliver(r, d, c ? p + pos : NULL, c, n, ts, ts, pktno);
            d->state = ST_MARK;
            return pos + n;
        }
        d->inmsg = 1;
        d->contig = 1;
        d->msg_len = d->msg_cap = 0;
        d->ts_first = ts;
        d->pktno = pktno;
    }
    append(r, d, c ? p + pos : NULL, c, n);
    d->msg_len += n;
    d->need -= (uint32_t)n;
    d->ts_last = ts;
    if (d->need == 0) {
        if (d->lastfrag) {
            deliver(r, d, d->buf, d->msg_cap, d->msg_len, d->ts_first, d->ts_last, d->pktno);
            end_msg(r, d);
        }
        d->state = ST_MARK;
    }
    return pos + n;
}

static void feed(struct tbbt_tcpreasm *r, struct dir *d, const uint8_t *p, size_t cap, size_t len, int64_t ts,
                 uint64_t pktno);

/* While hunting, looks for a header that starts in the carried tail of the
 * previous segment and runs into this one (cap bytes at p); when found,
 * feeds the carried bytes from there, so framing resumes before p. */
static void resume_from_carry(struct tbbt_tcpreasm *r, struct dir *d, unsigned cn, const uint8_t *p,
                              size_t cap) {
    uint8_t win[2 * (4 + MIN_RPC)], tail[4 + MIN_RPC];
    size_t take = cap < 4 + MIN_RPC ? cap : 4 + MIN_RPC;
    memcpy(win, d->carry, cn);
    memcpy(win + cn, p, take);
    long k = find_header(r, d, win, cn + take, cn);
    if (k < 0) return;
    size_t n = cn - (size_t)k;
    memcpy(tail, d->carry + k, n);
    r->st->resyncs++;
    skipped(r, d, d->why, -(int64_t)n); /* counted as skipped with the previous segment */
    d->lost = 0;
    d->state = ST_MARK;
    d->markn = 0;
    feed(r, d, tail, n, n, d->carry_ts, d->carry_pktno);
    d->carryn = 0;
}

/* Runs the framing over len in-order wire bytes, of which the first cap
 * are captured at p (p may be NULL when cap is 0). */
static void feed(struct tbbt_tcpreasm *r, struct dir *d, const uint8_t *p, size_t cap, size_t len, int64_t ts,
                 uint64_t pktno) {
    if (d->carryn) {
        unsigned cn = d->carryn;
        d->carryn = 0;
        if (d->state == ST_HUNT && cap > 0) resume_from_carry(r, d, cn, p, cap);
    }
    size_t pos = 0;
    while (pos < len) {
        switch (d->state) {
        case ST_HUNT: pos = hunt(r, d, p, cap, len, pos, ts, pktno); break;
        case ST_MARK: pos = read_mark(r, d, p, cap, len, pos); break;
        default: pos = body(r, d, p, cap, len, pos, ts, pktno); break;
        }
    }
}

/* Signed distance from b to a in sequence space. */
static inline int32_t seqdiff(uint32_t a, uint32_t b) {
    return (int32_t)(a - b);
}

/* Feeds bytes starting at seq, which is at or before next_seq: trims what
 * was seen already; counts retransmissions and overlaps. */
static void in_order(struct tbbt_tcpreasm *r, struct dir *d, uint32_t seq, const uint8_t *p, size_t cap,
                     size_t len, int64_t ts, uint64_t pktno) {
    int32_t rel = seqdiff(seq, d->next_seq);
    if (rel < 0) {
        size_t k = (size_t) - (int64_t)rel;
        if (len <= k) {
            r->st->tcp_retrans++;
            return;
        }
        r->st->tcp_overlap++;
        p = cap > k ? p + k : NULL;
        cap = cap > k ? cap - k : 0;
        len -= k;
    }
    feed(r, d, p, cap, len, ts, pktno);
    d->next_seq += (uint32_t)len;
}

/* Frees one out-of-order segment. */
static void free_oseg(struct tbbt_tcpreasm *r, struct dir *d, struct oseg *o) {
    r->mem -= o->caplen + sizeof *o;
    d->ooo_bytes -= o->caplen;
    d->ooo_n--;
    g_free(o);
}

/* Remembers that d's bytes between its previous packet and the one at ts
 * were lost: other streams' lost openings are dated by it (head_calls). */
static void note_hole(struct tbbt_tcpreasm *r, const struct dir *d, int64_t ts) {
    if (!d->ts_before) return;
    unsigned i = r->nholes++ % HOLE_RING;
    r->holes[i].t1 = d->ts_before;
    r->holes[i].t2 = ts;
    r->holes[i].open = d->ts_open;
}

/* Feeds every buffered segment that no longer lies beyond a hole. */
static void drain(struct tbbt_tcpreasm *r, struct dir *d) {
    while (d->ooo && seqdiff(d->ooo->seq, d->next_seq) <= 0) {
        struct oseg *o = d->ooo;
        d->ooo = o->next;
        if (!d->ooo) r->ooo_dirs--;
        in_order(r, d, o->seq, o->data, o->caplen, o->len, o->ts, o->pktno);
        free_oseg(r, d, o);
    }
}

/* Gives up waiting for the hole before the first buffered segment: its
 * bytes are known to exist but are missing, and the framing follows them
 * by length. */
static void skip_hole(struct tbbt_tcpreasm *r, struct dir *d) {
    uint32_t hole = (uint32_t)seqdiff(d->ooo->seq, d->next_seq);
    r->st->tcp_gaps++;
    if (hole > TBBT_TCP_MAX_FRAG) { /* too far to follow: start over */
        lose_sync(r, d, WHY_GAP);
        skipped(r, d, d->why, hole);
    } else {
        r->in_hole = 1;
        feed(r, d, NULL, 0, hole, d->ooo->ts, d->ooo->pktno);
        r->in_hole = 0;
    }
    d->next_seq = d->ooo->seq;
    drain(r, d);
    if (d->ooo) d->ooo_since = d->ooo->ts; /* the next hole: waited on since about then */
}

/* Buffers a segment beyond a hole, in sequence order; a segment starting
 * where one is buffered replaces it when longer. */
static void buffer(struct tbbt_tcpreasm *r, struct dir *d, uint32_t seq, const uint8_t *p, size_t cap,
                   size_t len, int64_t ts, uint64_t pktno) {
    struct oseg **pp = &d->ooo;
    int replaced = 0;
    while (*pp && seqdiff((*pp)->seq, seq) < 0)
        pp = &(*pp)->next;
    if (*pp && (*pp)->seq == seq) {
        if ((*pp)->len >= len && (*pp)->caplen >= cap) {
            r->st->tcp_retrans++;
            return;
        }
        struct oseg *old = *pp;
        *pp = old->next;
        free_oseg(r, d, old);
        if (!d->ooo) r->ooo_dirs--;
        replaced = 1;
    }
    if (!d->ooo) {
        r->ooo_dirs++;
        if (!replaced) d->ooo_since = ts; /* a new wait begins */
    }
    struct oseg *o = g_malloc(sizeof *o + cap);
    o->seq = seq;
    o->caplen = cap;
    o->len = len;
    o->ts = ts;
    o->pktno = pktno;
    if (cap) memcpy(o->data, p, cap);
    o->next = *pp;
    *pp = o;
    d->ooo_bytes += cap;
    d->ooo_n++;
    r->mem += cap + sizeof *o;
}

/* The other direction of d's connection, or NULL when it is not
 * followed. Leaves the recent-lookup cache as it is. */
static struct dir *reverse_dir(struct tbbt_tcpreasm *r, const struct dir *d) {
    struct flowkey k;
    make_key(&k, &d->dst, &d->src);
    if (key_equal(&k, &d->key)) return NULL; /* src == dst: no other direction */
    for (int i = 0; i < 2; i++)
        if (r->last[i] && key_equal(&r->last[i]->key, &k)) return r->last[i];
    return dir_lookup(r, &k, key_hash64(&k));
}

/* Gives up the holes of d that its receiver has acknowledged (ack comes
 * from the other direction). Bytes the receiver has are bytes the capture
 * missed: no retransmission will bring them, and waiting for one would
 * hold d's later messages back while other streams go on, which hands
 * pass 1 the streams' messages out of their time order. */
static void skip_acked(struct tbbt_tcpreasm *r, struct dir *d, uint32_t ack) {
    while (d->ooo && seqdiff(ack, d->next_seq) > 0)
        skip_hole(r, d);
}

/* Takes the payload of one segment whose data starts at seq. */
static void data(struct tbbt_tcpreasm *r, struct dir *d, uint32_t seq, const uint8_t *p, size_t cap,
                 size_t len, int64_t ts, uint64_t pktno) {
    if (len == 0) return;
    if (seqdiff(seq, d->next_seq) <= 0) {
        in_order(r, d, seq, p, cap, len, ts, pktno);
        drain(r, d);
        return;
    }
    if (!d->ooo) note_hole(r, d, ts); /* bytes before this segment's are missing */
    if (seqdiff(seq, d->next_seq) > (int32_t)TBBT_TCP_MAX_FRAG * 4) { /* a jump: start over there */
        r->st->tcp_gaps++;
        lose_sync(r, d, WHY_GAP);
        d->next_seq = seq;
        data(r, d, seq, p, cap, len, ts, pktno);
        return;
    }
    buffer(r, d, seq, p, cap, len, ts, pktno);
    struct dir *rev = reverse_dir(r, d);
    if (rev && rev->has_ack) skip_acked(r, d, rev->ack);
    while (d->ooo && (d->ooo_bytes > TBBT_TCP_OOO_MAX || d->ooo_n > TBBT_TCP_OOO_SEGS ||
                      r->mem > TBBT_TCP_MEM_MAX || ts - d->ooo_since > TBBT_TCP_OOO_WAIT_NS))
        skip_hole(r, d);
}

/* Delivers whatever a stream still holds: buffered segments after their
 * holes, and the message in progress as a truncated one. */
static void flush(struct tbbt_tcpreasm *r, struct dir *d) {
    while (d->ooo)
        skip_hole(r, d);
    if (d->inmsg && d->state == ST_BODY) {
        size_t len = d->msg_len + d->need;
        r->st->tcp_gaps++;
        deliver(r, d, d->buf, d->msg_cap, len, d->ts_first, d->ts_last, d->pktno);
    } else if (d->inmsg) {
        skipped(r, d, d->why, (int64_t)d->msg_len);
    }
    end_msg(r, d);
    d->state = ST_HUNT;
}

/* Orders capture times for qsort. */
static int cmp_time(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* When the calls lost before d's first packet began: the median start of
 * the holes other streams, there well before d's first packet, show over
 * d's opening (holes that began before d's first packet and ended within
 * `near` of it or later: the same lost burst). Each busy witness's hole
 * begins just before the burst; the median sets aside a stream that was
 * idle long before it and a straggler loss just before d's first packet.
 * Without a witness, the capture's first packet. Streams that appeared with
 * d (its own replies among them) are no witness: their first packets came
 * after the burst too. */
static int64_t head_start(const struct tbbt_tcpreasm *r, const struct dir *d, double near) {
    int64_t t[HOLE_RING];
    unsigned n = r->nholes < HOLE_RING ? r->nholes : HOLE_RING, k = 0;
    for (unsigned i = 0; i < n; i++) {
        int64_t t1 = r->holes[i].t1, t2 = r->holes[i].t2;
        if (t1 < d->ts_open && (double)(d->ts_open - t2) <= near &&
            (double)(d->ts_open - r->holes[i].open) > near && t1 > r->st->ts_first)
            t[k++] = t1;
    }
    if (!k) return r->st->ts_first;
    qsort(t, k, sizeof(t[0]), cmp_time);
    return t[(k - 1) / 2];
}

/* Calls a stream of calls the capture did not see open made before its
 * first captured one, when that came well after the capture began: no
 * earlier xid shows them, nor any sequence number (the handshake was lost
 * with them). At the stream's pace near its start (its first
 * HEAD_PACE_CALLS calls: a stream's pace changes as its work does) they
 * fill at most the time its packets can have been lost -- from the start of
 * the hole other streams show around its opening (the same lost burst), or
 * the capture's first packet when none does. When within that time it
 * opened is not known (it was not open before it, or its packets would be
 * there): taken as anywhere alike, half that many are expected, which is
 * what is counted; the whole is the top of the range reported. A stream
 * whose first packet came within four means of that start was open at it
 * and counts nothing (a mid-stream start loses nothing the capture could
 * have held). */
/* d's mean time between calls near its start (0: fewer than two calls). */
static double head_pace(const struct dir *d) {
    if (d->ncalls < 2) return 0;
    return d->ncalls >= HEAD_PACE_CALLS ? (double)(d->call_early - d->call_first) / (HEAD_PACE_CALLS - 1)
                                        : (double)(d->call_last - d->call_first) / (double)(d->ncalls - 1);
}

/* Dates d's lost opening (head_start) once its pace is known: at its
 * HEAD_PACE_CALLS-th call, or when it ends with fewer -- not later, when
 * the holes of the burst that took it may have left the ring. */
static void head_fix(struct tbbt_tcpreasm *r, struct dir *d) {
    if (!d->head_from && !d->opened && r->st->ts_first) d->head_from = head_start(r, d, 4 * head_pace(d));
}

static void head_calls(struct tbbt_tcpreasm *r, struct dir *d) {
    if (d->opened || d->ncalls < 2 || !r->st->ts_first || d->ts_open <= r->st->ts_first) return;
    head_fix(r, d);
    double mean = head_pace(d);
    double gap = (double)(d->ts_open - d->head_from);
    if (mean <= 0 || gap <= 4 * mean) return;
    r->st->head_calls += (uint64_t)(gap / mean / 2 + 0.5);
    r->st->head_calls_max += (uint64_t)(gap / mean + 0.5);
}

/* Removes a direction from the table and frees it (after flush). */
static void drop_dir(struct tbbt_tcpreasm *r, struct dir *d) {
    if (d->calls) r->st->edge_call_bytes += d->skipped - d->skipped_mark; /* no later call's xid shows them */
    head_calls(r, d);
    if (r->last[0] == d) r->last[0] = NULL;
    if (r->last[1] == d) r->last[1] = NULL;
    g_hash_table_remove(r->dirs, &d->key);
    tbbt_htab_remove_item(&r->index, d->khash, d);
    r->mem -= d->bufsize;
    g_free(d->buf);
    g_free(d);
}

/* Finds the state of src -> dst, creating it when create is set. */
static struct dir *find_dir(struct tbbt_tcpreasm *r, const struct tbbt_tcpseg *s, int create) {
    struct flowkey k;
    make_key(&k, s->src, s->dst);
    if (r->last[0] && key_equal(&r->last[0]->key, &k)) return r->last[0];
    if (r->last[1] && key_equal(&r->last[1]->key, &k)) {
        struct dir *t = r->last[1];
        r->last[1] = r->last[0];
        r->last[0] = t;
        return t;
    }
    uint64_t h = key_hash64(&k);
    struct dir *d = dir_lookup(r, &k, h);
    if (!d && create && g_hash_table_size(r->dirs) >= TBBT_TCP_MAX_DIRS) {
        r->st->skipped_bytes += s->len; /* table full (hostile capture): not followed */
        return NULL;
    }
    if (!d && create) {
        d = g_new0(struct dir, 1);
        d->key = k;
        d->src = *s->src;
        d->dst = *s->dst;
        d->conn = tbbt_flow_id(s->src, s->dst, 6);
        d->ts_open = s->ts;
        d->lost = 0;
        if (s->flags & TBBT_TH_SYN) {
            d->next_seq = s->seq + 1;
            d->state = ST_MARK;
            d->opened = 1;
        } else {
            d->next_seq = s->seq;
            d->state = ST_HUNT;
        }
        d->khash = h;
        g_hash_table_insert(r->dirs, &d->key, d);
        tbbt_htab_put(&r->index, h, d);
    }
    if (d) {
        r->last[1] = r->last[0];
        r->last[0] = d;
    }
    return d;
}

/* Keeps the acknowledgment d's sender sent, and gives up the holes of the
 * other direction that it covers (first, so that a call whose last bytes
 * the capture lost is delivered before the reply that acknowledges it). */
static void note_ack(struct tbbt_tcpreasm *r, struct dir *d, uint32_t ack) {
    if (d->has_ack && seqdiff(ack, d->ack) <= 0) return;
    d->ack = ack;
    d->has_ack = 1;
    if (!r->ooo_dirs) return;
    struct dir *rev = reverse_dir(r, d);
    if (rev) skip_acked(r, rev, ack);
}

/* A FIN or RST at fin_seq (or an RST's acknowledgment, for the other
 * direction) with bytes before it never captured, and no later segment
 * buffered: the stream's tail was lost, and its length is known. */
static void fin_hole(struct tbbt_tcpreasm *r, struct dir *d, uint32_t fin_seq) {
    int32_t hole = seqdiff(fin_seq, d->next_seq);
    if (hole <= 0 || d->ooo || hole > (int32_t)TBBT_TCP_MAX_FRAG * 4) return;
    r->st->tcp_gaps++;
    note_hole(r, d, d->ts_seen);
    if (d->state == ST_BODY && d->inmsg) {
        r->in_hole = 1;
        feed(r, d, NULL, 0, (size_t)hole, d->ts_seen, 0);
        r->in_hole = 0;
    } else {
        lose_sync(r, d, WHY_GAP);
        skipped(r, d, WHY_GAP, hole);
    }
    d->next_seq = fin_seq;
}

/* One segment: find or make its direction, handle SYN, feed the payload, and
 * flush and forget the direction on FIN (both directions on RST). */
void tbbt_tcpreasm_segment(struct tbbt_tcpreasm *r, const struct tbbt_tcpseg *s) {
    int end = s->flags & (TBBT_TH_FIN | TBBT_TH_RST);
    struct dir *d = find_dir(r, s, s->len > 0 || !end);
    if (!d) return;
    d->ts_before = d->ts_seen;
    d->ts_seen = s->ts;
    if (s->flags & TBBT_TH_SYN) d->has_ack = 0, d->opened = 1; /* (a new connection on the tuple, maybe) */
    if (s->flags & TBBT_TH_ACK) note_ack(r, d, s->ack);
    uint32_t seq = s->seq;
    if (s->flags & TBBT_TH_SYN) {
        if (seqdiff(seq + 1, d->next_seq) != 0 && (d->inmsg || d->ooo || d->delivered)) {
            flush(r, d); /* a new connection on the same tuple */
            d->next_seq = seq + 1;
        }
        if (seqdiff(seq + 1, d->next_seq) != 0) d->next_seq = seq + 1;
        if (d->state == ST_HUNT && !d->lost) d->state = ST_MARK;
        seq++;
    }
    data(r, d, seq, s->data, s->caplen, s->len, s->ts, s->pktno);
    if (!end) return;
    if (d->delivered) fin_hole(r, d, seq + (uint32_t)s->len); /* a FIN's or RST's sequence ends the stream */
    struct dir *rev = s->flags & TBBT_TH_RST ? reverse_dir(r, d) : NULL;
    if (rev && rev->delivered && (s->flags & TBBT_TH_ACK))
        fin_hole(r, rev, s->ack); /* and its ack the other */
    flush(r, d);
    drop_dir(r, d);
    if (rev) {
        flush(r, rev);
        drop_dir(r, rev);
    }
}

/* Collects into arr (a GPtrArray) every direction idle since before
 * *(int64_t *)limit, or all when limit is NULL. */
static void collect(gpointer key, gpointer value, gpointer user) {
    (void)key;
    GPtrArray *arr = user;
    struct dir *d = value;
    const int64_t *limit = g_ptr_array_index(arr, 0);
    if (!limit || d->ts_seen < *limit) g_ptr_array_add(arr, d);
}

/* Flushes and drops the directions idle before *limit (all if NULL). */
static void sweep(struct tbbt_tcpreasm *r, const int64_t *limit) {
    GPtrArray *arr = g_ptr_array_new();
    g_ptr_array_add(arr, tbbt_unconst(limit));
    g_hash_table_foreach(r->dirs, collect, arr);
    for (guint i = 1; i < arr->len; i++)
        flush(r, g_ptr_array_index(arr, i));
    for (guint i = 1; i < arr->len; i++)
        drop_dir(r, g_ptr_array_index(arr, i));
    g_ptr_array_free(arr, TRUE);
}

/* Collects into arr (a GPtrArray whose slot 0 holds the time limit) the
 * directions that have waited on a hole since before the limit. */
static void collect_waiting(gpointer key, gpointer value, gpointer user) {
    (void)key;
    GPtrArray *arr = user;
    struct dir *d = value;
    const int64_t *limit = g_ptr_array_index(arr, 0);
    if (d->ooo && d->ooo_since < *limit) g_ptr_array_add(arr, d);
}

/* Gives up the holes waited on for too long, on every direction. */
static void unblock(struct tbbt_tcpreasm *r, int64_t now) {
    int64_t limit = now - TBBT_TCP_OOO_WAIT_NS;
    GPtrArray *arr = g_ptr_array_new();
    g_ptr_array_add(arr, &limit);
    g_hash_table_foreach(r->dirs, collect_waiting, arr);
    for (guint i = 1; i < arr->len; i++) {
        struct dir *d = g_ptr_array_index(arr, i);
        while (d->ooo && d->ooo_since < limit)
            skip_hole(r, d);
    }
    g_ptr_array_free(arr, TRUE);
}

/* Housekeeping (see tcpreasm.h): holes waited on too long, idle streams. */
void tbbt_tcpreasm_expire(struct tbbt_tcpreasm *r, int64_t now) {
    if (r->ooo_dirs) unblock(r, now);
    if (now < r->next_idle) return;
    if (r->next_idle) {
        int64_t limit = now - TBBT_TCP_IDLE_NS;
        sweep(r, &limit);
    }
    r->next_idle = now + 60LL * 1000000000LL;
}

/* End of capture: flush and forget every stream. */
void tbbt_tcpreasm_finish(struct tbbt_tcpreasm *r) {
    sweep(r, NULL);
}

/* Frees everything without delivering. */
void tbbt_tcpreasm_free(struct tbbt_tcpreasm *r) {
    if (!r) return;
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, r->dirs);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        struct dir *d = v;
        while (d->ooo) {
            struct oseg *o = d->ooo;
            d->ooo = o->next;
            g_free(o);
        }
        g_free(d->buf);
        g_free(d);
    }
    g_hash_table_destroy(r->dirs);
    tbbt_htab_clear(&r->index);
    g_free(r);
}
