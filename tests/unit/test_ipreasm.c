/* test_ipreasm.c -- IP fragment reassembly: any order, duplicates,
 * snaplen-cut fragments, timeouts, eviction and malformed fragments. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "ipreasm.h"

static uint8_t D[9000];
static const uint8_t SRC[4] = {10, 0, 0, 1}, DST[4] = {10, 0, 0, 2};

/* A fragment of D covering [off, off+len) of datagram id, captured up to
 * cap bytes. */
static struct tbbt_ipfrag frag(uint32_t id, size_t off, size_t len, size_t cap, int more, int64_t ts) {
    struct tbbt_ipfrag f = {.version = 4,
                            .src = SRC,
                            .dst = DST,
                            .id = id,
                            .proto = 17,
                            .offset = (uint32_t)off,
                            .more = more,
                            .data = off < sizeof D ? D + off : D, /* no pointer past D is formed */
                            .caplen = cap,
                            .len = len,
                            .ts = ts,
                            .pktno = (uint64_t)ts};
    return f;
}

static void fill(void) {
    for (size_t i = 0; i < sizeof D; i++)
        D[i] = (uint8_t)(i * 7 + i / 251);
}

/* Fragments in reverse order, with a duplicate, rebuild the datagram. */
static void test_reverse_order(void **state) {
    (void)state;
    fill();
    struct tbbt_ipreasm *r = tbbt_ipreasm_new();
    struct tbbt_ipdgram d;
    uint64_t dropped = 0;
    struct tbbt_ipfrag f3 = frag(5, 2960, 8200 - 2960, 8200 - 2960, 0, 30);
    struct tbbt_ipfrag f2 = frag(5, 1480, 1480, 1480, 1, 20);
    struct tbbt_ipfrag f1 = frag(5, 0, 1480, 1480, 1, 10);
    assert_int_equal(tbbt_ipreasm_add(r, &f3, &d, &dropped), 0);
    assert_int_equal(tbbt_ipreasm_add(r, &f2, &d, &dropped), 0);
    assert_int_equal(tbbt_ipreasm_add(r, &f2, &d, &dropped), 0);
    assert_int_equal(tbbt_ipreasm_pending(r), 1);
    assert_int_equal(tbbt_ipreasm_add(r, &f1, &d, &dropped), 1);
    assert_int_equal(d.len, 8200);
    assert_int_equal(d.caplen, 8200);
    assert_int_equal(d.proto, 17);
    assert_int_equal(d.ts_first, 10);
    assert_int_equal(d.pktno, 10); /* the fragment holding byte 0 */
    assert_memory_equal(d.data, D, 8200);
    assert_int_equal(dropped, 0);
    assert_int_equal(tbbt_ipreasm_pending(r), 0);
    tbbt_ipreasm_free(r);
}

/* A snaplen-cut middle fragment: the datagram completes, its captured
 * length is the prefix before the cut. */
static void test_cut_fragment(void **state) {
    (void)state;
    fill();
    struct tbbt_ipreasm *r = tbbt_ipreasm_new();
    struct tbbt_ipdgram d;
    uint64_t dropped = 0;
    struct tbbt_ipfrag f[3] = {frag(6, 0, 1480, 1480, 1, 1), frag(6, 1480, 1480, 100, 1, 2),
                               frag(6, 2960, 40, 40, 0, 3)};
    assert_int_equal(tbbt_ipreasm_add(r, &f[0], &d, &dropped), 0);
    assert_int_equal(tbbt_ipreasm_add(r, &f[1], &d, &dropped), 0);
    assert_int_equal(tbbt_ipreasm_add(r, &f[2], &d, &dropped), 1);
    assert_int_equal(d.len, 3000);
    assert_true(d.caplen >= 1480 && d.caplen <= 1580);
    assert_memory_equal(d.data, D, d.caplen);
    tbbt_ipreasm_free(r);
}

/* A datagram whose other fragments never come is dropped after the
 * timeout, and a full table evicts its oldest entry; both are counted. */
static void test_timeout_and_eviction(void **state) {
    (void)state;
    fill();
    struct tbbt_ipreasm *r = tbbt_ipreasm_new();
    struct tbbt_ipdgram d;
    uint64_t dropped = 0;
    struct tbbt_ipfrag f = frag(1, 0, 1480, 1480, 1, 0);
    tbbt_ipreasm_add(r, &f, &d, &dropped);
    f = frag(2, 0, 1480, 1480, 1, TBBT_IPR_TIMEOUT_NS + 1);
    tbbt_ipreasm_add(r, &f, &d, &dropped);
    assert_int_equal(dropped, 1);
    assert_int_equal(tbbt_ipreasm_pending(r), 1);
    for (uint32_t id = 100; id < 100 + TBBT_IPR_SLOTS + 10; id++) {
        f = frag(id, 0, 1480, 1480, 1, TBBT_IPR_TIMEOUT_NS + 2);
        tbbt_ipreasm_add(r, &f, &d, &dropped);
    }
    assert_int_equal(tbbt_ipreasm_pending(r), TBBT_IPR_SLOTS);
    assert_int_equal(dropped, 1 + 11);
    tbbt_ipreasm_free(r);
}

/* Malformed fragments are refused: beyond 64 KiB, a middle fragment whose
 * length is not a multiple of 8, two different ends. */
static void test_malformed(void **state) {
    (void)state;
    fill();
    struct tbbt_ipreasm *r = tbbt_ipreasm_new();
    struct tbbt_ipdgram d;
    uint64_t dropped = 0;
    struct tbbt_ipfrag f = frag(9, 65528, 100, 100, 0, 1); /* its data: D's first bytes */
    assert_int_equal(tbbt_ipreasm_add(r, &f, &d, &dropped), -1);
    f = frag(9, 0, 1001, 1001, 1, 1);
    assert_int_equal(tbbt_ipreasm_add(r, &f, &d, &dropped), -1);
    f = frag(9, 1480, 100, 100, 0, 1);
    assert_int_equal(tbbt_ipreasm_add(r, &f, &d, &dropped), 0);
    f = frag(9, 1480, 200, 200, 0, 1);
    assert_int_equal(tbbt_ipreasm_add(r, &f, &d, &dropped), -1);
    tbbt_ipreasm_free(r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reverse_order),
        cmocka_unit_test(test_cut_fragment),
        cmocka_unit_test(test_timeout_and_eviction),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
