/* test_recmark.c -- RPC record marking: the mark written, messages joined
 * from fragments (in place when whole), a fragment cut short kept for the
 * next read, and an oversized fragment refused with its length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "recmark.h"

/* What the callback saw: the messages' bytes, one after another. */
struct seen {
    const uint8_t *at[8];
    uint8_t bytes[8][64];
    size_t len[8], n;
};

static void on_msg(void *ctx, const uint8_t *m, size_t n) {
    struct seen *s = ctx;
    assert_true(s->n < 8 && n <= 64);
    s->at[s->n] = m, s->len[s->n] = n;
    memcpy(s->bytes[s->n++], m, n);
}

/* Appends one fragment (last or not) of len bytes of value v. */
static size_t frag(uint8_t *p, size_t len, int last, uint8_t v) {
    p[0] = (uint8_t)((len >> 24) | (last ? 0x80 : 0)), p[1] = (uint8_t)(len >> 16);
    p[2] = (uint8_t)(len >> 8), p[3] = (uint8_t)len;
    memset(p + 4, v, len);
    return 4 + len;
}

/* The mark of a one-fragment record: the last bit and the length, big-endian. */
static void test_put(void **st) {
    (void)st;
    uint8_t m[4];
    tbbt_recmark_put(m, 0x123456);
    assert_memory_equal(m, "\x80\x12\x34\x56", 4);
}

/* A one-fragment message is passed in place; two fragments are joined;
 * a fragment cut short is left unconsumed until the rest comes. */
static void test_consume(void **st) {
    (void)st;
    uint8_t b[256];
    size_t n = frag(b, 10, 1, 'a');
    n += frag(b + n, 3, 0, 'b');
    n += frag(b + n, 5, 1, 'c');
    size_t whole = n;
    n += frag(b + n, 20, 1, 'd');
    struct seen s = {0};
    struct tbbt_recmark r = {0};
    size_t bad = 0;
    assert_int_equal(tbbt_recmark_consume(&r, b, n - 1, 64, on_msg, &s, &bad), (ssize_t)whole);
    assert_int_equal(s.n, 2);
    assert_ptr_equal(s.at[0], b + 4);
    assert_int_equal(s.len[0], 10);
    assert_int_equal(s.len[1], 8);
    assert_memory_equal(s.bytes[1], "bbbccccc", 8);
    assert_int_equal(tbbt_recmark_consume(&r, b + whole, n - whole, 64, on_msg, &s, &bad),
                     (ssize_t)(n - whole));
    assert_int_equal(s.n, 3);
    assert_int_equal(s.len[2], 20);
    tbbt_recmark_free(&r);
}

/* A fragment over the limit, or one that takes its message over it, is
 * refused with its length. */
static void test_too_long(void **st) {
    (void)st;
    uint8_t b[256];
    struct seen s = {0};
    struct tbbt_recmark r = {0};
    size_t bad = 0, n = frag(b, 40, 1, 'x');
    assert_int_equal(tbbt_recmark_consume(&r, b, n, 32, on_msg, &s, &bad), -1);
    assert_int_equal(bad, 40);
    n = frag(b, 20, 0, 'y');
    n += frag(b + n, 20, 1, 'z');
    assert_int_equal(tbbt_recmark_consume(&r, b, n, 32, on_msg, &s, &bad), -1);
    assert_int_equal(bad, 20);
    assert_int_equal(s.n, 0);
    tbbt_recmark_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_put),
        cmocka_unit_test(test_consume),
        cmocka_unit_test(test_too_long),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
