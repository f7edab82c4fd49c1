/* test_tcpreasm.c -- TCP reassembly and RPC record marking, fed segment by
 * segment: records across segments, several per segment, multi-fragment
 * records, retransmissions, overlaps, out-of-order data, gaps, snaplen-cut
 * segments, mid-stream pickup, connection teardown and memory bounds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "tcpreasm.h"

#define MAXM 128

/* What the callback saw. */
struct seen {
    int n;
    struct {
        uint32_t xid;
        size_t caplen, len;
        int64_t ts_first, ts_last;
        uint64_t pktno, conn;
        int ok; /* the captured bytes equal the message as built */
        uint16_t sport, dport;
    } m[MAXM];
};

static struct seen S;
static uint8_t msgs[16][70000]; /* messages as built, by xid index */

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Records a delivered message and checks its bytes against the one built
 * with the same xid (xid = 0x1000 + index). */
static void cb(void *ctx, const struct tbbt_msg *m) {
    (void)ctx;
    assert_true(S.n < MAXM);
    int i = S.n++;
    S.m[i].caplen = m->caplen;
    S.m[i].len = m->len;
    S.m[i].ts_first = m->ts_first;
    S.m[i].ts_last = m->ts_last;
    S.m[i].pktno = m->pktno;
    S.m[i].conn = m->conn;
    S.m[i].sport = m->src.port;
    S.m[i].dport = m->dst.port;
    S.m[i].xid = m->caplen >= 4 ? get32(m->data) : 0;
    uint32_t k = S.m[i].xid - 0x1000;
    S.m[i].ok = k < 16 && m->caplen <= m->len && !memcmp(m->data, msgs[k], m->caplen);
}

/* Builds an RPC call (AUTH_NONE) of total length len into msgs[k]; the
 * body is a pattern that contains no plausible record mark. */
static const uint8_t *call(int k, size_t len) {
    uint8_t *p = msgs[k];
    memset(p, 0, len);
    put32(p, 0x1000 + (uint32_t)k);
    put32(p + 4, 0); /* CALL */
    put32(p + 8, 2); /* rpcvers */
    put32(p + 12, 100003);
    put32(p + 16, 3);
    put32(p + 20, 7); /* WRITE */
    for (size_t i = 40; i < len; i++)
        p[i] = (uint8_t)(0x41 + i % 26);
    return p;
}

/* Builds an accepted RPC reply of total length len into msgs[k]. */
static const uint8_t *reply(int k, size_t len) {
    uint8_t *p = msgs[k];
    memset(p, 0, len);
    put32(p, 0x1000 + (uint32_t)k);
    put32(p + 4, 1); /* REPLY, MSG_ACCEPTED, AUTH_NONE verf, SUCCESS */
    for (size_t i = 24; i < len; i++)
        p[i] = (uint8_t)(0x61 + i % 26);
    return p;
}

/* A byte stream under construction: record marks and messages. */
struct stream {
    uint8_t b[300000];
    size_t n;
};

/* Appends message m of len bytes as one record, or as fragments of at most
 * frag bytes when frag > 0. */
static void rec(struct stream *s, const uint8_t *m, size_t len, size_t frag) {
    size_t off = 0;
    do {
        size_t n = frag && len - off > frag ? frag : len - off;
        put32(s->b + s->n, (uint32_t)n | (off + n == len ? 0x80000000u : 0));
        memcpy(s->b + s->n + 4, m + off, n);
        s->n += 4 + n;
        off += n;
    } while (off < len);
}

static struct tbbt_endpoint CLI = {.family = 4, .addr = {10, 0, 0, 1}, .port = 700};
static struct tbbt_endpoint SRV = {.family = 4, .addr = {10, 0, 0, 2}, .port = 2049};
static struct tbbt_capstats ST;

/* Feeds stream bytes [off, off+len) as one segment (ISN 1000, so byte i
 * has sequence 1001 + i), of which only cap bytes are captured. */
static void seg(struct tbbt_tcpreasm *r, const struct stream *s, size_t off, size_t len, size_t cap,
                uint8_t flags, int64_t ts, uint64_t pktno) {
    struct tbbt_tcpseg g = {.src = &CLI,
                            .dst = &SRV,
                            .seq = 1001 + (uint32_t)off,
                            .flags = flags,
                            .data = s->b + off,
                            .caplen = cap,
                            .len = len,
                            .ts = ts,
                            .pktno = pktno};
    tbbt_tcpreasm_segment(r, &g);
}

/* A fresh reassembler with the SYN seen. */
static struct tbbt_tcpreasm *start(void) {
    memset(&S, 0, sizeof S);
    memset(&ST, 0, sizeof ST);
    struct tbbt_tcpreasm *r = tbbt_tcpreasm_new(&ST, cb, NULL);
    struct tbbt_tcpseg syn = {
        .src = &CLI, .dst = &SRV, .seq = 1000, .flags = TBBT_TH_SYN, .ts = 1, .pktno = 1};
    tbbt_tcpreasm_segment(r, &syn);
    return r;
}

static struct stream St;

/* One message over three segments, then three messages in one segment:
 * delivered whole, in order, with first/last timestamps and the first
 * packet's number. */
static void test_split_and_batched(void **state) {
    (void)state;
    St.n = 0;
    rec(&St, call(0, 3000), 3000, 0);
    rec(&St, call(1, 100), 100, 0);
    rec(&St, reply(2, 60), 60, 0);
    rec(&St, call(3, 200), 200, 0);
    struct tbbt_tcpreasm *r = start();
    seg(r, &St, 0, 1000, 1000, 0, 10, 2);
    seg(r, &St, 1000, 1000, 1000, 0, 20, 3);
    seg(r, &St, 2000, 1004, 1004, 0, 30, 4);
    seg(r, &St, 3004, St.n - 3004, St.n - 3004, 0, 40, 5);
    assert_int_equal(S.n, 4);
    assert_int_equal(S.m[0].xid, 0x1000);
    assert_int_equal(S.m[0].len, 3000);
    assert_int_equal(S.m[0].caplen, 3000);
    assert_true(S.m[0].ok);
    assert_int_equal(S.m[0].ts_first, 10);
    assert_int_equal(S.m[0].ts_last, 30);
    assert_int_equal(S.m[0].pktno, 2);
    for (int i = 1; i < 4; i++) {
        assert_int_equal(S.m[i].xid, 0x1000 + i);
        assert_true(S.m[i].ok);
        assert_int_equal(S.m[i].caplen, S.m[i].len);
        assert_int_equal(S.m[i].ts_first, 40);
        assert_int_equal(S.m[i].pktno, 5);
    }
    assert_int_equal(S.m[2].len, 60);
    assert_int_equal(S.m[0].sport, 700);
    assert_int_equal(S.m[0].dport, 2049);
    assert_int_equal(ST.messages, 4);
    assert_int_equal(ST.tcp_streams, 1);
    assert_int_equal(ST.resyncs, 0);
    assert_int_equal(ST.skipped_bytes, 0);
    tbbt_tcpreasm_free(r);
}

/* A record sent as three fragments is delivered as one message: the
 * fragments' bytes concatenated, marks removed. */
static void test_multi_fragment(void **state) {
    (void)state;
    St.n = 0;
    rec(&St, call(0, 1000), 1000, 400);
    rec(&St, call(1, 80), 80, 0);
    struct tbbt_tcpreasm *r = start();
    seg(r, &St, 0, 500, 500, 0, 10, 2);
    seg(r, &St, 500, St.n - 500, St.n - 500, 0, 20, 3);
    assert_int_equal(S.n, 2);
    assert_int_equal(S.m[0].len, 1000);
    assert_int_equal(S.m[0].caplen, 1000);
    assert_true(S.m[0].ok);
    assert_true(S.m[1].ok);
    tbbt_tcpreasm_free(r);
}

/* Retransmitted, overlapping and out-of-order segments: each message once,
 * whole, in stream order; the counters say what happened. */
static void test_retrans_overlap_ooo(void **state) {
    (void)state;
    St.n = 0;
    for (int k = 0; k < 6; k++)
        rec(&St, call(k, 500 + 100 * (size_t)k), 500 + 100 * (size_t)k, 0);
    struct tbbt_tcpreasm *r = start();
    seg(r, &St, 0, 1200, 1200, 0, 10, 2);
    seg(r, &St, 0, 1200, 1200, 0, 11, 3);                  /* retransmission */
    seg(r, &St, 2400, 1200, 1200, 0, 12, 4);               /* out of order */
    seg(r, &St, 1000, 1400, 1400, 0, 13, 5);               /* overlaps the first, fills the hole */
    seg(r, &St, 3000, St.n - 3000, St.n - 3000, 0, 14, 6); /* overlaps the buffered one */
    assert_int_equal(S.n, 6);
    for (int k = 0; k < 6; k++) {
        assert_int_equal(S.m[k].xid, 0x1000 + k);
        assert_int_equal(S.m[k].len, 500 + 100 * k);
        assert_int_equal(S.m[k].caplen, S.m[k].len);
        assert_true(S.m[k].ok);
    }
    assert_int_equal(ST.tcp_retrans, 1);
    assert_true(ST.tcp_overlap >= 2);
    assert_int_equal(ST.tcp_gaps, 0);
    tbbt_tcpreasm_free(r);
}

/* A lost segment in the middle of a message: the message is delivered cut
 * (caplen < len, the right len), and the next message, whose mark comes
 * after the hole, is found by length without any resync. */
static void test_gap_follows_length(void **state) {
    (void)state;
    St.n = 0;
    rec(&St, call(0, 5000), 5000, 0);
    rec(&St, call(1, 300), 300, 0);
    struct tbbt_tcpreasm *r = start();
    seg(r, &St, 0, 1000, 1000, 0, 10, 2);
    /* [1000, 3000) lost */
    seg(r, &St, 3000, 2004, 2004, 0, 30, 4);
    seg(r, &St, 5004, St.n - 5004, St.n - 5004, 0, 40, 5);
    tbbt_tcpreasm_finish(r); /* gives up waiting for the hole */
    assert_int_equal(S.n, 2);
    assert_int_equal(S.m[0].len, 5000);
    assert_int_equal(S.m[0].caplen, 996);
    assert_true(S.m[0].ok);
    assert_int_equal(S.m[1].len, 300);
    assert_true(S.m[1].ok);
    assert_int_equal(ST.tcp_gaps, 1);
    assert_int_equal(ST.truncated_msgs, 1);
    assert_int_equal(ST.resyncs, 0);
    tbbt_tcpreasm_free(r);
}

/* Segments cut by the snaplen: every message still found, each cut one
 * delivered with its captured prefix and its wire length. */
static void test_snaplen_cut(void **state) {
    (void)state;
    St.n = 0;
    for (int k = 0; k < 4; k++)
        rec(&St, call(k, 1000), 1000, 0);
    struct tbbt_tcpreasm *r = start();
    for (int k = 0; k < 4; k++)
        seg(r, &St, (size_t)k * 1004, 1004, 150, 0, 10 + k, 2 + (uint64_t)k);
    assert_int_equal(S.n, 4);
    for (int k = 0; k < 4; k++) {
        assert_int_equal(S.m[k].xid, 0x1000 + k);
        assert_int_equal(S.m[k].caplen, 146);
        assert_int_equal(S.m[k].len, 1000);
        assert_true(S.m[k].ok);
    }
    assert_int_equal(ST.truncated_msgs, 4);
    tbbt_tcpreasm_free(r);
}

/* A mark lost to the snaplen: the stream hunts and resynchronises on the
 * next plausible record, counting what it skipped. */
static void test_lost_mark_resync(void **state) {
    (void)state;
    St.n = 0;
    rec(&St, call(0, 1000), 1000, 0);
    rec(&St, call(1, 2000), 2000, 0);
    rec(&St, call(2, 100), 100, 0);
    struct tbbt_tcpreasm *r = start();
    seg(r, &St, 0, 1002, 1002, 0, 10, 2); /* message 0 minus its last 2 bytes */
    seg(r, &St, 1002, 2006, 0, 0, 11, 3); /* its tail, message 1's mark and body: nothing captured */
    seg(r, &St, 3008, St.n - 3008, St.n - 3008, 0, 12, 4);
    assert_int_equal(S.n, 2);
    assert_int_equal(S.m[0].xid, 0x1000);
    assert_int_equal(S.m[0].caplen, 998);
    assert_int_equal(S.m[1].xid, 0x1002);
    assert_true(S.m[1].ok);
    assert_int_equal(ST.resyncs, 1);
    assert_true(ST.skipped_bytes >= 2000);
    tbbt_tcpreasm_free(r);
}

/* A connection picked up in the middle (no SYN, first segment starts in a
 * message's body): the tail is skipped, then every record is delivered. */
static void test_midstream_pickup(void **state) {
    (void)state;
    St.n = 0;
    rec(&St, call(0, 700), 700, 0);
    rec(&St, reply(1, 64), 64, 0);
    rec(&St, call(2, 300), 300, 0);
    memset(&S, 0, sizeof S);
    memset(&ST, 0, sizeof ST);
    struct tbbt_tcpreasm *r = tbbt_tcpreasm_new(&ST, cb, NULL);
    seg(r, &St, 300, St.n - 300, St.n - 300, 0, 10, 1);
    assert_int_equal(S.n, 2);
    assert_int_equal(S.m[0].xid, 0x1001);
    assert_int_equal(S.m[1].xid, 0x1002);
    assert_true(S.m[0].ok && S.m[1].ok);
    assert_int_equal(ST.skipped_bytes, 404);
    tbbt_tcpreasm_free(r);
}

/* Calls lost before a stream's first captured packet, its opening lost
 * too (no SYN): at the stream's own pace over the time since the capture
 * began, half expected (when it opened is not known) and the whole the
 * range's top (head_calls, head_calls_max); nothing when it was open at the
 * start (its first packet within four mean intervals), nor when its SYN was
 * seen. */
static void feed_calls(struct tbbt_tcpreasm *r, int64_t t0, size_t skip) {
    St.n = 0;
    for (int k = 0; k < 10; k++)
        rec(&St, call(k, 100), 100, 0);
    for (size_t k = skip; k < 10; k++) /* each call its own segment, 10 ns apart */
        seg(r, &St, k * 104, 104, 104, 0, t0 + 10 * (int64_t)k, k + 1);
    tbbt_tcpreasm_finish(r);
}

static void test_head_calls(void **state) {
    (void)state;
    memset(&S, 0, sizeof S);
    memset(&ST, 0, sizeof ST);
    ST.ts_first = 1; /* the capture's first packet */
    struct tbbt_tcpreasm *r = tbbt_tcpreasm_new(&ST, cb, NULL);
    feed_calls(r, 1001, 0); /* first packet 1000 ns in, calls 10 ns apart: 100 intervals */
    assert_int_equal(S.n, 10);
    assert_int_equal(ST.head_calls, 50);
    assert_int_equal(ST.head_calls_max, 100);
    tbbt_tcpreasm_free(r);

    memset(&S, 0, sizeof S);
    memset(&ST, 0, sizeof ST);
    ST.ts_first = 1;
    r = tbbt_tcpreasm_new(&ST, cb, NULL);
    feed_calls(r, 31, 0); /* 30 ns in: within four intervals, open at the start */
    assert_int_equal(ST.head_calls, 0);
    tbbt_tcpreasm_free(r);

    memset(&S, 0, sizeof S);
    memset(&ST, 0, sizeof ST);
    ST.ts_first = 1;
    r = tbbt_tcpreasm_new(&ST, cb, NULL);
    struct tbbt_tcpseg syn = {/* the SYN seen, late: nothing was before its first byte */
                              .src = &CLI,          .dst = &SRV, .seq = 1000,
                              .flags = TBBT_TH_SYN, .ts = 1000,  .pktno = 1};
    tbbt_tcpreasm_segment(r, &syn);
    feed_calls(r, 1001, 0);
    assert_int_equal(ST.head_calls, 0);
    tbbt_tcpreasm_free(r);
}

/* Feeds bytes [off, off+len) of s from src as one captured segment (ISN 1000). */
static void seg_from(struct tbbt_tcpreasm *r, const struct tbbt_endpoint *src, const struct stream *s,
                     size_t off, size_t len, uint8_t flags, int64_t ts, uint64_t pktno) {
    struct tbbt_tcpseg g = {.src = src,
                            .dst = &SRV,
                            .seq = 1001 + (uint32_t)off,
                            .flags = flags,
                            .data = s->b + off,
                            .caplen = len,
                            .len = len,
                            .ts = ts,
                            .pktno = pktno};
    tbbt_tcpreasm_segment(r, &g);
}

/* The witness of the tests below: a fresh reassembler (the capture's
 * first packet at 1) and an older stream, seen open at 1, whose third
 * call was lost: a hole from 110 to 990. */
static struct stream W;
static const struct tbbt_endpoint CLI2 = {.family = 4, .addr = {10, 0, 0, 3}, .port = 800};
static struct tbbt_tcpreasm *witness_start(void) {
    memset(&S, 0, sizeof S);
    memset(&ST, 0, sizeof ST);
    ST.ts_first = 1;
    struct tbbt_tcpreasm *r = tbbt_tcpreasm_new(&ST, cb, NULL);
    W.n = 0;
    for (int k = 12; k < 16; k++)
        rec(&W, call(k, 100), 100, 0);
    struct tbbt_tcpseg syn = {.src = &CLI2, .dst = &SRV, .seq = 1000, .flags = TBBT_TH_SYN, .ts = 1};
    tbbt_tcpreasm_segment(r, &syn);
    seg_from(r, &CLI2, &W, 0, 104, 0, 100, 2);
    seg_from(r, &CLI2, &W, 104, 104, 0, 110, 3);
    seg_from(r, &CLI2, &W, 312, 104, 0, 990, 4);
    return r;
}

/* A burst that took a stream's opening is dated by the hole another,
 * older stream shows over it: the lost calls are counted from that hole's
 * start, not from the capture's first packet. */
static void test_head_calls_witness(void **state) {
    (void)state;
    struct tbbt_tcpreasm *r = witness_start();
    feed_calls(r, 1001, 0);                  /* the other stream's first packet at 1001, calls 10 ns apart */
    assert_int_equal(ST.head_calls_max, 89); /* (1001 - 110) / 10 */
    assert_int_equal(ST.head_calls, 45);
    tbbt_tcpreasm_free(r);
}

/* The witness is read while it is remembered: a stream's lost opening is
 * dated at its 64th call, so the holes of a long capture that follow (here
 * 80 jumps of the witness) do not push the burst out of the ring. */
static void test_head_calls_witness_kept(void **state) {
    (void)state;
    struct tbbt_tcpreasm *r = witness_start();
    St.n = 0;
    for (int k = 0; k < 70; k++)
        rec(&St, call(k % 8, 100), 100, 0);
    for (size_t k = 0; k < 70; k++) /* the other stream: no SYN, from 1001, 10 ns apart */
        seg(r, &St, k * 104, 104, 104, 0, 1001 + 10 * (int64_t)k, 10 + k);
    for (uint32_t j = 0; j < 80; j++) { /* later, the witness jumps 80 times: 80 holes */
        struct tbbt_tcpseg g = {.src = &CLI2,
                                .dst = &SRV,
                                .seq = 1001 + 416 + (j + 1) * 5u * TBBT_TCP_MAX_FRAG,
                                .data = W.b,
                                .caplen = 8,
                                .len = 8,
                                .ts = 3000 + j,
                                .pktno = 100 + j};
        tbbt_tcpreasm_segment(r, &g);
    }
    tbbt_tcpreasm_finish(r);
    assert_int_equal(ST.head_calls_max, 89); /* (1001 - 110) / 10, not (1001 - 1) / 10 */
    tbbt_tcpreasm_free(r);
}

/* A stream seen open whose first calls were lost: the bytes before its
 * first captured call are counted (no xid before them shows them). */
static void test_lost_first_calls_of_open_stream(void **state) {
    (void)state;
    St.n = 0;
    for (int k = 0; k < 5; k++)
        rec(&St, call(k, 100), 100, 0);
    struct tbbt_tcpreasm *r = start(); /* the SYN seen */
    for (size_t k = 2; k < 5; k++)     /* calls 0 and 1 lost */
        seg(r, &St, k * 104, 104, 104, 0, 10 + (int64_t)k, k + 1);
    tbbt_tcpreasm_finish(r);
    assert_int_equal(S.n, 3);
    assert_int_equal(S.m[0].xid, 0x1002);
    assert_int_equal(ST.edge_call_bytes, 208);
    assert_int_equal(ST.head_calls, 0);
    tbbt_tcpreasm_free(r);
}

/* Picked up mid-way, with the next record's mark and header split over
 * two segments: the header is still found, the record delivered whole and
 * stamped with the packet holding its first byte. */
static void test_header_straddles_segments(void **state) {
    (void)state;
    St.n = 0;
    rec(&St, call(0, 700), 700, 0);
    rec(&St, call(1, 300), 300, 0);
    rec(&St, call(2, 50), 50, 0);
    memset(&S, 0, sizeof S);
    memset(&ST, 0, sizeof ST);
    struct tbbt_tcpreasm *r = tbbt_tcpreasm_new(&ST, cb, NULL);
    seg(r, &St, 300, 704 + 10 - 300, 704 + 10 - 300, 0, 10, 1); /* ends 10 bytes into record 1 */
    seg(r, &St, 714, St.n - 714, St.n - 714, 0, 20, 2);
    assert_int_equal(S.n, 2);
    assert_int_equal(S.m[0].xid, 0x1001);
    assert_int_equal(S.m[0].len, 300);
    assert_true(S.m[0].ok);
    assert_int_equal(S.m[0].pktno, 1);
    assert_int_equal(S.m[0].ts_last, 20);
    assert_int_equal(S.m[1].xid, 0x1002);
    assert_int_equal(ST.skipped_bytes, 404);
    tbbt_tcpreasm_free(r);
}

/* FIN delivers a message cut at the end and forgets the stream; RST
 * forgets both directions. */
static void test_fin_and_rst(void **state) {
    (void)state;
    St.n = 0;
    rec(&St, call(0, 100), 100, 0);
    rec(&St, call(1, 900), 900, 0);
    struct tbbt_tcpreasm *r = start();
    seg(r, &St, 0, 504, 504, TBBT_TH_FIN, 10, 2);
    assert_int_equal(S.n, 2);
    assert_int_equal(S.m[1].caplen, 504 - 108);
    assert_int_equal(S.m[1].len, 900);
    assert_int_equal(tbbt_tcpreasm_count(r), 0);
    struct tbbt_tcpseg a = {.src = &CLI, .dst = &SRV, .seq = 5, .ts = 20};
    struct tbbt_tcpseg b = {.src = &SRV, .dst = &CLI, .seq = 9, .ts = 21};
    tbbt_tcpreasm_segment(r, &a);
    tbbt_tcpreasm_segment(r, &b);
    assert_int_equal(tbbt_tcpreasm_count(r), 2);
    a.flags = TBBT_TH_RST;
    tbbt_tcpreasm_segment(r, &a);
    assert_int_equal(tbbt_tcpreasm_count(r), 0);
    tbbt_tcpreasm_free(r);
}

/* A segment from an endpoint to itself (a hostile or broken capture) has
 * no other direction: its acknowledgments give up nothing of its own
 * stream, and an RST drops it once (the fuzzer found it freed twice). */
static void test_self_connection(void **state) {
    (void)state;
    St.n = 0;
    rec(&St, call(0, 100), 100, 0);
    memset(&S, 0, sizeof S);
    memset(&ST, 0, sizeof ST);
    struct tbbt_tcpreasm *r = tbbt_tcpreasm_new(&ST, cb, NULL);
    struct tbbt_tcpseg a = {.src = &CLI, .dst = &CLI, .seq = 1000, .flags = TBBT_TH_SYN, .ts = 1, .pktno = 1};
    tbbt_tcpreasm_segment(r, &a);
    struct tbbt_tcpseg b = {.src = &CLI,
                            .dst = &CLI,
                            .seq = 1001 + 60,
                            .ack = 1001 + 104,
                            .flags = TBBT_TH_ACK,
                            .data = St.b + 60,
                            .caplen = 44,
                            .len = 44,
                            .ts = 2,
                            .pktno = 2};
    tbbt_tcpreasm_segment(r, &b); /* behind a hole its own ack covers */
    assert_int_equal(S.n, 0);
    assert_int_equal(tbbt_tcpreasm_count(r), 1);
    struct tbbt_tcpseg c = {.src = &CLI, .dst = &CLI, .seq = 1001, .flags = TBBT_TH_RST, .ts = 3};
    tbbt_tcpreasm_segment(r, &c);
    assert_int_equal(tbbt_tcpreasm_count(r), 0);
    tbbt_tcpreasm_free(r);
}

/* Idle streams are forgotten after the timeout, counted in capture time. */
static void test_idle_expiry(void **state) {
    (void)state;
    struct tbbt_tcpreasm *r = start();
    assert_int_equal(tbbt_tcpreasm_count(r), 1);
    tbbt_tcpreasm_expire(r, 1 + TBBT_TCP_IDLE_NS / 2);
    assert_int_equal(tbbt_tcpreasm_count(r), 1);
    tbbt_tcpreasm_expire(r, 2 + TBBT_TCP_IDLE_NS);
    assert_int_equal(tbbt_tcpreasm_count(r), 0);
    tbbt_tcpreasm_free(r);
}

/* Data waiting behind a hole is not held for long in capture time: the
 * housekeeping call gives the hole up after TBBT_TCP_OOO_WAIT_NS, and the
 * buffered messages come out with their own timestamps. */
static void test_ooo_wait_bounded(void **state) {
    (void)state;
    St.n = 0;
    rec(&St, call(0, 500), 500, 0);
    rec(&St, call(1, 500), 500, 0);
    rec(&St, call(2, 500), 500, 0);
    struct tbbt_tcpreasm *r = start();
    seg(r, &St, 504, 1008, 1008, 0, 1000, 3); /* message 0 lost: 1 and 2 wait */
    tbbt_tcpreasm_expire(r, 1000 + TBBT_TCP_OOO_WAIT_NS / 2);
    assert_int_equal(S.n, 0);
    tbbt_tcpreasm_expire(r, 1001 + TBBT_TCP_OOO_WAIT_NS);
    assert_int_equal(S.n, 2);
    assert_int_equal(S.m[0].xid, 0x1001);
    assert_int_equal(S.m[0].ts_first, 1000);
    assert_int_equal(S.m[1].xid, 0x1002);
    assert_int_equal(ST.tcp_gaps, 1);
    assert_int_equal(ST.resyncs, 1); /* message 0 took its record mark with it */
    assert_int_equal(ST.skipped_bytes, 504);
    tbbt_tcpreasm_free(r);
}

/* A segment of the server's direction (its bytes from stream s, byte i
 * at sequence 5001 + i) acknowledging the client's bytes up to ack. */
static void srv_seg(struct tbbt_tcpreasm *r, const struct stream *s, size_t off, size_t len, uint32_t ack,
                    int64_t ts, uint64_t pktno) {
    struct tbbt_tcpseg g = {.src = &SRV,
                            .dst = &CLI,
                            .seq = 5001 + (uint32_t)off,
                            .ack = ack,
                            .flags = TBBT_TH_ACK,
                            .data = s ? s->b + off : NULL,
                            .caplen = len,
                            .len = len,
                            .ts = ts,
                            .pktno = pktno};
    tbbt_tcpreasm_segment(r, &g);
}

static struct stream Rs; /* the server's direction */

/* A fresh reassembler with both SYNs seen, and the server's stream
 * holding one 200-byte reply (xid index 2). */
static struct tbbt_tcpreasm *start_both(void) {
    Rs.n = 0;
    rec(&Rs, reply(2, 200), 200, 0);
    struct tbbt_tcpreasm *r = start();
    struct tbbt_tcpseg syn = {.src = &SRV,
                              .dst = &CLI,
                              .seq = 5000,
                              .ack = 1001,
                              .flags = TBBT_TH_SYN | TBBT_TH_ACK,
                              .ts = 2,
                              .pktno = 2};
    tbbt_tcpreasm_segment(r, &syn);
    return r;
}

/* A hole the receiver has acknowledged is bytes the capture lost, which
 * no retransmission will bring: it is given up at the acknowledgment, not
 * after TBBT_TCP_OOO_WAIT_NS, so the messages behind it come out in time
 * (while other streams go on) -- but not at an acknowledgment that stops
 * short of the hole. */
static void test_acked_hole_given_up(void **state) {
    (void)state;
    St.n = 0;
    rec(&St, call(0, 500), 500, 0);
    rec(&St, call(1, 500), 500, 0);
    rec(&St, call(2, 500), 500, 0);
    struct tbbt_tcpreasm *r = start();
    seg(r, &St, 504, 1008, 1008, 0, 1000, 3); /* message 0 lost: 1 and 2 wait */
    srv_seg(r, NULL, 0, 0, 1001, 1001, 4);    /* acknowledges nothing past the hole */
    assert_int_equal(S.n, 0);
    srv_seg(r, NULL, 0, 0, 1001 + 1512, 1002, 5); /* the receiver has it all */
    assert_int_equal(S.n, 2);
    assert_int_equal(S.m[0].xid, 0x1001);
    assert_int_equal(S.m[0].ts_first, 1000);
    assert_int_equal(S.m[1].xid, 0x1002);
    assert_int_equal(ST.tcp_gaps, 1);
    assert_int_equal(ST.skipped_bytes, 504);
    tbbt_tcpreasm_free(r);
}

/* The acknowledgment can come before the data behind the hole (a call
 * answered, its last segment missed by the capture, then the next call):
 * that data goes through at once. And a reply that acknowledges a call's
 * lost bytes is delivered after the call, as the two happened. */
static void test_ack_before_data(void **state) {
    (void)state;
    St.n = 0;
    rec(&St, call(0, 1000), 1000, 0);
    rec(&St, call(1, 300), 300, 0);
    struct tbbt_tcpreasm *r = start_both();
    seg(r, &St, 0, 600, 600, 0, 10, 3);
    /* [600, 1004) lost: the rest of call 0 */
    srv_seg(r, &Rs, 0, Rs.n, 1001 + 1004, 20, 5); /* its reply acknowledges it */
    assert_int_equal(S.n, 1);
    assert_int_equal(S.m[0].xid, 0x1002);
    seg(r, &St, 1004, 304, 304, 0, 30, 6); /* call 1: behind the hole, known to be lost */
    assert_int_equal(S.n, 3);
    assert_int_equal(S.m[1].xid, 0x1000);
    assert_int_equal(S.m[1].len, 1000);
    assert_int_equal(S.m[1].caplen, 596);
    assert_int_equal(S.m[2].xid, 0x1001);
    assert_true(S.m[2].ok);
    tbbt_tcpreasm_free(r);
}

/* A reply that acknowledges bytes behind which a call waits (its own
 * first segment lost) hands that call out before itself. */
static void test_acked_call_before_reply(void **state) {
    (void)state;
    St.n = 0;
    rec(&St, call(0, 500), 500, 0);
    rec(&St, call(1, 500), 500, 0);
    struct tbbt_tcpreasm *r = start_both();
    seg(r, &St, 504, 504, 504, 0, 10, 3); /* call 0 lost, call 1 waits */
    srv_seg(r, &Rs, 0, Rs.n, 1001 + 1008, 20, 4);
    assert_int_equal(S.n, 2);
    assert_int_equal(S.m[0].xid, 0x1001);
    assert_int_equal(S.m[1].xid, 0x1002);
    tbbt_tcpreasm_free(r);
}

/* Hostile input: a hole that never fills while data keeps coming beyond
 * it. Buffering stays bounded (the hole is given up as a gap) and the
 * messages after it are still delivered. */
static void test_ooo_bounded(void **state) {
    (void)state;
    static struct stream big;
    big.n = 0;
    for (int k = 0; k < 100; k++)
        rec(&big, call(k % 16, 2800), 2800, 0);
    memcpy(St.b, big.b, big.n);
    St.n = big.n;
    struct tbbt_tcpreasm *r = start();
    size_t step = 1400;
    for (size_t off = step; off < St.n; off += step) { /* the first segment never comes */
        size_t n = St.n - off < step ? St.n - off : step;
        seg(r, &St, off, n, n, 0, 10, 2);
    }
    assert_true(tbbt_tcpreasm_mem(r) <= TBBT_TCP_OOO_MAX + 4096 * sizeof(void *) * 16);
    tbbt_tcpreasm_finish(r);
    assert_int_equal(ST.tcp_gaps >= 1, 1);
    assert_true(S.n >= 98); /* at most the first message is lost (its head) */
    tbbt_tcpreasm_free(r);
}

/* The plausibility check: calls, replies, and what is neither. */
static void test_plausible(void **state) {
    (void)state;
    assert_true(tbbt_rpc_plausible(call(0, 100), 100, 1));
    assert_true(tbbt_rpc_plausible(reply(1, 100), 100, 1));
    uint8_t b[64];
    memcpy(b, msgs[0], 64);
    put32(b + 8, 3); /* rpcvers 3 */
    assert_false(tbbt_rpc_plausible(b, 64, 1));
    memcpy(b, msgs[1], 64);
    put32(b + 4, 2); /* msg_type 2 */
    assert_false(tbbt_rpc_plausible(b, 64, 0));
    memcpy(b, msgs[1], 64);
    put32(b + 8, 7); /* reply_stat 7 */
    assert_false(tbbt_rpc_plausible(b, 64, 1));
    memcpy(b, msgs[0], 64);
    put32(b + 12, 0); /* program 0: zero-filled data, not a call */
    assert_false(tbbt_rpc_plausible(b, 64, 1));
    memcpy(b, msgs[0], 64);
    put32(b + 24, 1); /* AUTH_SYS with an empty body */
    assert_false(tbbt_rpc_plausible(b, 64, 0));
    put32(b + 28, 24);
    assert_true(tbbt_rpc_plausible(b, 64, 1));
    assert_false(tbbt_rpc_plausible(msgs[0], 16, 1)); /* too short to tell, strict */
    assert_true(tbbt_rpc_plausible(msgs[0], 16, 0));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_and_batched),
        cmocka_unit_test(test_multi_fragment),
        cmocka_unit_test(test_retrans_overlap_ooo),
        cmocka_unit_test(test_gap_follows_length),
        cmocka_unit_test(test_snaplen_cut),
        cmocka_unit_test(test_lost_mark_resync),
        cmocka_unit_test(test_midstream_pickup),
        cmocka_unit_test(test_head_calls),
        cmocka_unit_test(test_head_calls_witness),
        cmocka_unit_test(test_head_calls_witness_kept),
        cmocka_unit_test(test_lost_first_calls_of_open_stream),
        cmocka_unit_test(test_header_straddles_segments),
        cmocka_unit_test(test_fin_and_rst),
        cmocka_unit_test(test_self_connection),
        cmocka_unit_test(test_idle_expiry),
        cmocka_unit_test(test_ooo_bounded),
        cmocka_unit_test(test_ooo_wait_bounded),
        cmocka_unit_test(test_plausible),
        cmocka_unit_test(test_acked_hole_given_up),
        cmocka_unit_test(test_ack_before_data),
        cmocka_unit_test(test_acked_call_before_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
