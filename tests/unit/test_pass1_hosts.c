/* test_pass1_hosts.c -- pass 1's loss estimate per client follows a host
 * whose connections share one xid counter (macOS's, Solaris's, tbbt-play's)
 * as one client, with its calls missing exactly, also when its first
 * connection ran alone for a while; and hosts that number each connection
 * on its own (Linux, libnfs) keep one estimate per connection. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "pass1_feed.h"

#define T0 (1000000000LL * 1000000000LL)

static int sink(void *ctx, const struct tbbt_rec *r) {
    (void)ctx;
    (void)r;
    return 0;
}

/* A NULL call with xid from host (10.0.0.host) port, at call number i. */
static void feed_null(struct tbbt_pass1 *p, uint8_t host, uint16_t port, uint32_t xid, int64_t i) {
    uint8_t b[64];
    size_t n = pass1_rpc_hdr(b, 0, xid, 0);
    struct tbbt_msg m = {.ts_first = T0 + i * 100000,
                         .ts_last = T0 + i * 100000,
                         .data = b,
                         .caplen = n,
                         .len = n,
                         .pktno = 1};
    m.src.family = m.dst.family = 4;
    m.src.addr[0] = 10, m.src.addr[3] = host, m.src.port = port;
    m.dst.addr[0] = 11, m.dst.port = 2049;
    tbbt_pass1_msg(p, &m);
}

static struct tbbt_pass1 *new_pass1(void) {
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    return tbbt_pass1_new(&o, sink, NULL);
}

/* One counter over three connections, the first alone for 500 calls; 5
 * calls lost while it was alone and 10 after: one client, 15 missing. */
static void test_one_counter_host(void **s) {
    (void)s;
    struct tbbt_pass1 *p = new_pass1();
    uint32_t xid = 0x51000000;
    uint64_t fed = 0, lost = 0;
    for (int64_t i = 0; i < 3000; i++, xid++) {
        uint16_t port = i < 500 ? 700 : (uint16_t)(700 + i % 3);
        if ((i < 500 && i % 97 == 50) || (i >= 500 && i < 2990 && i % 241 == 7)) {
            lost++;
            continue;
        }
        feed_null(p, 1, port, xid, i);
        fed++;
    }
    unsigned n = 0;
    const struct tbbt_client_loss *l = tbbt_pass1_loss(p, &n);
    assert_int_equal(n, 1);
    assert_int_equal(l[0].transports, 3);
    assert_int_equal(l[0].client.port, 0);
    assert_int_equal(l[0].calls, fed);
    assert_true(l[0].est.sequential);
    assert_int_equal(l[0].est.missing, lost);
    tbbt_pass1_free(p);
}

/* A counter per connection, three connections and a second host: one
 * client per connection, each exact. */
static void test_counter_per_connection(void **s) {
    (void)s;
    struct tbbt_pass1 *p = new_pass1();
    uint32_t next[3] = {0x10000000, 0x7a000000, 0xc3000000};
    uint64_t lost[3] = {0};
    for (int64_t i = 0; i < 3000; i++) {
        int k = (int)(i % 3);
        uint32_t x = next[k]++;
        feed_null(p, 2, 900, 0x22000000u + (uint32_t)i, i);
        if (i > 30 && i < 2970 && i % 53 == 20) {
            lost[k]++;
            continue;
        }
        feed_null(p, 1, (uint16_t)(700 + k), x, i);
    }
    unsigned n = 0;
    const struct tbbt_client_loss *l = tbbt_pass1_loss(p, &n);
    assert_int_equal(n, 4);
    for (unsigned i = 0; i < n; i++) {
        assert_int_equal(l[i].transports, 1);
        assert_true(l[i].est.sequential);
        if (l[i].client.addr[3] == 2)
            assert_int_equal(l[i].est.missing, 0);
        else
            assert_int_equal(l[i].est.missing, lost[l[i].client.port - 700]);
    }
    tbbt_pass1_free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_counter_host),
        cmocka_unit_test(test_counter_per_connection),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
