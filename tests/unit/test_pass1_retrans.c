/* test_pass1_retrans.c -- pass 1 knows a retransmitted call by trace time,
 * not by how many calls came between: at a busy site's 11,600 calls a
 * second, a REMOVE retransmitted 70,000 or 150,000 calls later (6 and 13
 * s: before the client's 60 s TCP timeout) is kept once, and so is a
 * duplicate reply; a copy later than --retrans-span is a new call; a
 * memory bound too small for the rate forgets early and says how long it
 * kept calls. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pass1_feed.h"

#define GAP_NS 86207 /* 11,600 calls a second */
#define T0 (1000000000LL * 1000000000LL)
#define NFSPROC3_REMOVE 12

static uint8_t buf[256];
static uint64_t nremove;

/* Counts the REMOVE records pass 1 emitted. */
static int sink(void *ctx, const struct tbbt_rec *r) {
    (void)ctx;
    if (r->op == TBBT_OP_REMOVE) nremove++;
    return 0;
}

/* A REMOVE call (xid) of name "f<xid>" in one directory, at ts. */
static void feed_remove_call(struct tbbt_pass1 *p, uint32_t xid, int64_t ts) {
    size_t at = pass1_rpc_hdr(buf, 0, xid, NFSPROC3_REMOVE);
    put32(buf + at, 8); /* the directory's handle */
    memset(buf + at + 4, 0x22, 8);
    put32(buf + at + 12, 8); /* the name */
    memcpy(buf + at + 16, "f0000000", 8);
    for (int i = 0; i < 7; i++)
        buf[at + 17 + i] = (uint8_t)('0' + (xid >> (4 * i) & 7));
    pass1_feed(p, buf, 0, at + 24, at + 24, ts);
}

/* Its reply: NFS3_OK with no attributes. */
static void feed_remove_reply(struct tbbt_pass1 *p, uint32_t xid, int64_t ts) {
    size_t at = pass1_rpc_hdr(buf, 1, xid, 0);
    memset(buf + at, 0, 12); /* status, no pre-op, no post-op */
    pass1_feed(p, buf, 1, at + 12, at + 12, ts);
}

/* n answered REMOVEs at the busy rate, then the call of xid `again` (and,
 * with reply, its reply) once more `after` calls after it. Returns pass
 * 1's counters; nremove holds the REMOVE records. */
static struct tbbt_pass1_stats run(const struct tbbt_pass1_opts *o, uint32_t n, uint32_t again, int reply) {
    struct tbbt_pass1 *p = tbbt_pass1_new(o, sink, NULL);
    nremove = 0;
    int64_t t = T0;
    for (uint32_t x = 1; x <= n; x++, t += GAP_NS) {
        feed_remove_call(p, x, t);
        feed_remove_reply(p, x, t + GAP_NS / 2);
    }
    feed_remove_call(p, again, t);
    if (reply) feed_remove_reply(p, again, t + GAP_NS / 2);
    assert_int_equal(tbbt_pass1_finish(p), 0);
    struct tbbt_pass1_stats st = *tbbt_pass1_stats(p);
    tbbt_pass1_free(p);
    return st;
}

/* Retransmitted 70,000 and 150,000 calls later: one record each time. */
static void test_late_retransmission_kept_once(void **s) {
    (void)s;
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    uint32_t later[] = {70000, 150000};
    for (int i = 0; i < 2; i++) {
        struct tbbt_pass1_stats st = run(&o, later[i] + 10, 10, 1);
        assert_int_equal(nremove, later[i] + 10);
        assert_int_equal(st.retrans_calls, 1);
        assert_int_equal(st.dup_replies, 1);
        assert_int_equal(st.retrans_span_cut, 0);
    }
}

/* A copy later than the span asked is a new call: 40,000 calls are 3.4 s,
 * over a 2 s span. */
static void test_copy_beyond_span_is_new(void **s) {
    (void)s;
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    o.retrans_span = 2000000000LL;
    struct tbbt_pass1_stats st = run(&o, 40000, 1, 0);
    assert_int_equal(nremove, 40001);
    assert_int_equal(st.retrans_calls, 0);
    /* within the span it is still known */
    st = run(&o, 20000, 1, 0);
    assert_int_equal(nremove, 20000);
    assert_int_equal(st.retrans_calls, 1);
}

/* A memory bound of 256 KiB holds 8,192 calls (the ring doubles), 0.7 s at this
 * rate: the early forgetting is counted and the span kept reported. */
static void test_memory_bound_says_span(void **s) {
    (void)s;
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    o.retrans_max_bytes = (size_t)256 << 10;
    struct tbbt_pass1_stats st = run(&o, 30000, 100, 0);
    assert_int_equal(nremove, 30001);
    assert_true(st.retrans_span_cut > 0);
    assert_true(st.retrans_span_kept > 500000000LL);
    assert_true(st.retrans_span_kept < 1500000000LL);
}

/* The cmocka cases above. */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_late_retransmission_kept_once),
        cmocka_unit_test(test_copy_beyond_span_is_new),
        cmocka_unit_test(test_memory_bound_says_span),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
