/* test_pass1_bounds.c -- pass 1's memory stays bounded however hostile the
 * capture: replies whose call never comes, all stamped with the same time
 * (so the orphan timeout never frees them), are kept up to
 * TBBT_P1_ORPHANS_MAX replies and TBBT_P1_ORPHAN_BYTES bytes; the oldest
 * go first, are counted and warned about, and the newest still pair with
 * their calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pass1.h"

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

/* An NFSv3 NULL call from a client, or its accepted, successful reply
 * (padded to len bytes), as the capture layer hands them. */
static void feed(struct tbbt_pass1 *p, int reply, uint32_t xid, size_t len, int64_t ts) {
    static uint8_t buf[1 << 17];
    memset(buf, 0, len);
    put32(buf, xid);
    put32(buf + 4, reply ? 1 : 0);
    if (!reply) {
        put32(buf + 8, 2);       /* RPC version */
        put32(buf + 12, 100003); /* NFS */
        put32(buf + 16, 3);
        put32(buf + 20, 0); /* NULL; cred and verf AUTH_NONE, length 0 */
    }
    struct tbbt_msg m = {.ts_first = ts, .ts_last = ts, .data = buf, .caplen = len, .len = len, .pktno = 1};
    m.src.family = m.dst.family = 4;
    m.src.addr[0] = 10, m.src.port = 800;
    m.dst.addr[0] = 11, m.dst.port = 2049;
    if (reply) {
        struct tbbt_endpoint t = m.src;
        m.src = m.dst;
        m.dst = t;
    }
    tbbt_pass1_msg(p, &m);
}

static uint64_t nrec, nwarn;

static int sink(void *ctx, const struct tbbt_rec *r) {
    (void)ctx;
    if (r->status == 0) nrec++; /* paired with its reply */
    return 0;
}

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

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_orphan_count_cap),
        cmocka_unit_test(test_orphan_byte_cap),
        cmocka_unit_test(test_orphans_under_caps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
