/* test_pass1_bounds.c -- pass 1's memory stays bounded however hostile the
 * capture, whose time stamps may all be the same (so no timeout ever frees
 * anything): replies whose call never comes are kept up to
 * TBBT_P1_ORPHANS_MAX replies and TBBT_P1_ORPHAN_BYTES bytes, the oldest
 * going first, counted and warned about, the newest still pairing with
 * their calls; answered calls with long listings waiting behind one
 * unanswered call hold at most max_pending_bytes before it is forced out. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pass1_feed.h"

static uint8_t buf[1 << 17];

/* Hands buf[0, len) to pass 1 as one message from the client (or, reply,
 * from the server) at time ts, as the capture layer would. */
static void feed_buf(struct tbbt_pass1 *p, int reply, size_t len, int64_t ts) {
    pass1_feed(p, buf, reply, len, len, ts);
}

/* An NFSv3 NULL call, or its reply padded to len bytes. */
static void feed(struct tbbt_pass1 *p, int reply, uint32_t xid, size_t len, int64_t ts) {
    size_t h = pass1_rpc_hdr(buf, reply, xid, 0);
    if (len < h) len = h;
    memset(buf + h, 0, len - h);
    feed_buf(p, reply, len, ts);
}

/* A READDIR call (xid), and its reply listing n entries with names of
 * namelen bytes. */
static void feed_readdir(struct tbbt_pass1 *p, uint32_t xid, unsigned n, size_t namelen, int64_t ts) {
    size_t at = pass1_rpc_hdr(buf, 0, xid, 16);
    put32(buf + at, 8); /* the directory's handle */
    memset(buf + at + 4, 0x11, 8);
    memset(buf + at + 12, 0, 20); /* cookie, cookieverf, count */
    feed_buf(p, 0, at + 32, ts);
    at = pass1_rpc_hdr(buf, 1, xid, 0);
    memset(buf + at, 0, 16); /* NFS3_OK, no attributes, cookieverf */
    at += 16;
    size_t pad = (namelen + 3) & ~(size_t)3;
    for (unsigned i = 0; i < n; i++) {
        put32(buf + at, 1); /* value follows */
        put32(buf + at + 4, 0);
        put32(buf + at + 8, i + 100); /* fileid */
        put32(buf + at + 12, (uint32_t)namelen);
        memset(buf + at + 16, 'a' + (int)(i % 26), pad);
        at += 16 + pad;
        put32(buf + at, 0); /* cookie */
        put32(buf + at + 4, i + 1);
        at += 8;
    }
    put32(buf + at, 0);     /* no more */
    put32(buf + at + 4, 1); /* eof */
    feed_buf(p, 1, at + 8, ts);
}

static uint64_t nrec, nwarn;

/* Counts the records pass 1 emitted paired with their reply. */
static int sink(void *ctx, const struct tbbt_rec *r) {
    (void)ctx;
    if (r->status == 0) nrec++; /* paired with its reply */
    return 0;
}

/* Counts pass 1's warnings about replies dropped at the caps. */
static void warn(void *ctx, uint64_t pktno, const char *what) {
    (void)ctx;
    (void)pktno;
    if (strstr(what, "wait for their calls")) nwarn++;
}

/* Runs n replies of len bytes at one time, then the calls of the last k
 * of them. Returns pass 1's counters. */
static struct tbbt_pass1_stats run(uint32_t n, size_t len, uint32_t k) {
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    struct tbbt_pass1 *p = tbbt_pass1_new(&o, sink, NULL);
    tbbt_pass1_set_warn(p, warn, NULL);
    nrec = nwarn = 0;
    const int64_t t = 1000000000LL * 1000000000LL;
    for (uint32_t x = 1; x <= n; x++)
        feed(p, 1, x, len, t);
    for (uint32_t x = n - k + 1; x <= n; x++)
        feed(p, 0, x, 40, t);
    assert_int_equal(tbbt_pass1_finish(p), 0);
    struct tbbt_pass1_stats st = *tbbt_pass1_stats(p);
    tbbt_pass1_free(p);
    return st;
}

/* Over the count cap: exactly the overflow is dropped, oldest first. */
static void test_orphan_count_cap(void **s) {
    (void)s;
    uint32_t over = 1000;
    struct tbbt_pass1_stats st = run(TBBT_P1_ORPHANS_MAX + over, 24, 100);
    assert_int_equal(st.orphans_evicted, over);
    assert_int_equal(nwarn, over);
    assert_int_equal(st.reply_first, 100); /* the newest were kept */
    assert_int_equal(nrec, 100);
    assert_int_equal(st.replies_without_call, TBBT_P1_ORPHANS_MAX + over - 100);
}

/* Over the byte cap: big replies are dropped once their bytes exceed it,
 * long before the count cap. */
static void test_orphan_byte_cap(void **s) {
    (void)s;
    size_t len = 1 << 17; /* 128 KiB each */
    uint32_t fit = TBBT_P1_ORPHAN_BYTES / len, n = fit + 50;
    struct tbbt_pass1_stats st = run(n, len, 10);
    assert_int_equal(st.orphans_evicted, n - fit);
    assert_int_equal(st.reply_first, 10);
    assert_int_equal(nrec, 10);
}

/* Under the caps, nothing is dropped: the replies all pair. */
static void test_orphans_under_caps(void **s) {
    (void)s;
    struct tbbt_pass1_stats st = run(5000, 200, 5000);
    assert_int_equal(st.orphans_evicted, 0);
    assert_int_equal(nwarn, 0);
    assert_int_equal(st.reply_first, 5000);
    assert_int_equal(st.replies_without_call, 0);
}

/* One NULL call that is never answered, then answered READDIRs with long
 * listings, all at one time: with a byte cap, pass 1 holds no more than
 * the cap (and one record) and forces the unanswered call out; the same
 * input under the default cap holds all of it. Returns the peak. */
static size_t run_listings(size_t cap, uint64_t *forced, uint64_t *records) {
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    if (cap) o.max_pending_bytes = cap;
    struct tbbt_pass1 *p = tbbt_pass1_new(&o, sink, NULL);
    const int64_t t = 1000000000LL * 1000000000LL;
    size_t peak = 0;
    feed(p, 0, 1, 40, t);
    for (uint32_t x = 2; x < 202; x++) {
        feed_readdir(p, x, 400, 100, t);
        if (tbbt_pass1_pending_bytes(p) > peak) peak = tbbt_pass1_pending_bytes(p);
    }
    assert_int_equal(tbbt_pass1_finish(p), 0);
    assert_int_equal(tbbt_pass1_pending_bytes(p), 0);
    *forced = tbbt_pass1_stats(p)->forced_out;
    *records = tbbt_pass1_stats(p)->records;
    tbbt_pass1_free(p);
    return peak;
}

/* Answered listings queued behind an unanswered call: without a byte cap
 * they pile up (over 8 MiB here); with a 2 MiB cap the peak stays near the
 * cap and only the unanswered call is forced out, every listing paired. */
static void test_pending_byte_cap(void **s) {
    (void)s;
    uint64_t forced, records;
    nrec = 0;
    size_t peak = run_listings(0, &forced, &records);
    assert_int_equal(forced, 0);
    assert_int_equal(records, 201);
    assert_int_equal(nrec, 200); /* every listing was paired */
    assert_true(peak > (size_t)8 << 20);
    size_t cap = (size_t)2 << 20;
    nrec = 0;
    peak = run_listings(cap, &forced, &records);
    assert_int_equal(forced, 1); /* the unanswered NULL */
    assert_int_equal(records, 201);
    assert_int_equal(nrec, 200);
    assert_true(peak <= cap + ((size_t)256 << 10));
}

/* The cmocka cases above. */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orphan_count_cap),
        cmocka_unit_test(test_orphan_byte_cap),
        cmocka_unit_test(test_orphans_under_caps),
        cmocka_unit_test(test_pending_byte_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
