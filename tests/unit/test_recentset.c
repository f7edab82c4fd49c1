/* test_recentset.c -- the set of calls already emitted keeps each for its
 * span of trace time whatever the call rate, forgets what the span no
 * longer covers, and at its memory bound forgets the oldest early and
 * says so; every key it holds stays found after any number of deletions,
 * and from the moment it is added (checked against GLib's hash table over
 * 300,000 random operations). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <glib.h>

#include "recentset.h"
#include "rng.h"

#define SEC 1000000000LL

/* A key's hash for test key k (any 64-bit value will do: the set takes
 * the caller's hash as the key). */
static uint64_t key(uint64_t k) {
    return tbbt_splitmix64(&k);
}

/* Keys 100,000 a second for 10 s with a 5 s span: the last 5 s are all
 * found, the first 5 s are not, and nothing was cut early. */
static void test_span_in_time(void **s) {
    (void)s;
    struct tbbt_recent *r = tbbt_recent_new(5 * SEC, (size_t)1 << 30);
    for (uint64_t i = 0; i < 1000000; i++)
        tbbt_recent_add(r, key(i), (int64_t)i * 10000);
    /* the newest key is at 9.99999 s: the span reaches back to 4.99999 s */
    for (uint64_t i = 500000; i < 1000000; i += 997)
        assert_true(tbbt_recent_has(r, key(i)));
    for (uint64_t i = 0; i < 499999; i += 991)
        assert_false(tbbt_recent_has(r, key(i)));
    struct tbbt_recent_stats st;
    tbbt_recent_stats(r, &st);
    assert_int_equal(st.span_cut, 0);
    assert_int_equal(st.shortest_span, 5 * SEC);
    assert_true(st.keys >= 500000 && st.keys <= 500001);
    tbbt_recent_free(r);
}

/* At the memory bound the oldest go first, counted, and the shortest span
 * kept is reported; memory stays within the bound. */
static void test_memory_bound(void **s) {
    (void)s;
    size_t bound = (size_t)1 << 20; /* 1 MiB: 32,768 keys (the ring doubles) */
    struct tbbt_recent *r = tbbt_recent_new(300 * SEC, bound);
    for (uint64_t i = 0; i < 200000; i++)
        tbbt_recent_add(r, key(i), (int64_t)i * 1000000); /* 1,000 a second */
    struct tbbt_recent_stats st;
    tbbt_recent_stats(r, &st);
    assert_true(st.bytes <= bound);
    assert_true(st.span_cut > 0);
    assert_true(st.span_cut + st.keys == 200000);
    assert_true(st.shortest_span < 300 * SEC);
    assert_true(st.shortest_span >= (int64_t)(st.keys - 1) * 1000000);
    assert_true(tbbt_recent_has(r, key(199999)));
    assert_true(tbbt_recent_has(r, key(200000 - st.keys)));
    assert_false(tbbt_recent_has(r, key(200000 - st.keys - 1)));
    assert_false(tbbt_recent_has(r, key(0)));
    tbbt_recent_free(r);
}

/* A time earlier than one seen is taken as the latest: keys never expire
 * out of order, and a clock that jumps back does not empty the set. */
static void test_time_backwards(void **s) {
    (void)s;
    struct tbbt_recent *r = tbbt_recent_new(1 * SEC, (size_t)1 << 24);
    tbbt_recent_add(r, key(1), 10 * SEC);
    tbbt_recent_add(r, key(2), 1 * SEC); /* taken as 10 s */
    tbbt_recent_add(r, key(3), 10 * SEC + SEC / 2);
    assert_true(tbbt_recent_has(r, key(1)));
    assert_true(tbbt_recent_has(r, key(2)));
    tbbt_recent_add(r, key(4), 11 * SEC + SEC / 4);
    assert_false(tbbt_recent_has(r, key(1)));
    assert_false(tbbt_recent_has(r, key(2)));
    assert_true(tbbt_recent_has(r, key(3)));
    tbbt_recent_free(r);
}

/* Random keys, some added again while kept, random steps of time: after
 * every step the set holds exactly the keys a reference table says it
 * should (the index, half full, has runs that deletions shift back). */
static void test_against_reference(void **s) {
    (void)s;
    struct tbbt_recent *r = tbbt_recent_new(2000, (size_t)1 << 26);
    GHashTable *ref = g_hash_table_new(g_int64_hash, g_int64_equal); /* key -> time added */
    GQueue order = G_QUEUE_INIT;
    uint64_t seed = 42;
    int64_t t = 0;
    static int64_t keys[300000], times[300000];
    for (int i = 0; i < 300000; i++) {
        uint64_t x = tbbt_splitmix64(&seed);
        t += (int64_t)(x % 5);
        /* one key in eight repeats a recent one: a key added twice */
        keys[i] = (int64_t)x;
        if (i > 100 && x % 8 == 0) keys[i] = keys[i - 1 - (int)(x >> 40) % 100];
        times[i] = t;
        while (!g_queue_is_empty(&order)) {
            int j = GPOINTER_TO_INT(g_queue_peek_head(&order));
            if (times[j] >= t - 2000) break;
            g_queue_pop_head(&order);
            if (g_hash_table_lookup(ref, &keys[j]) == &times[j]) g_hash_table_remove(ref, &keys[j]);
        }
        tbbt_recent_add(r, (uint64_t)keys[i], t);
        g_hash_table_insert(ref, &keys[i], &times[i]);
        g_queue_push_tail(&order, GINT_TO_POINTER(i));
        /* the newest keys, which the index takes some adds later, are found at once */
        for (int k = i > 9 ? i - 9 : 0; k <= i; k++)
            assert_int_equal(tbbt_recent_has(r, (uint64_t)keys[k]), g_hash_table_contains(ref, &keys[k]));
        if (i % 1000 == 0) {
            for (int k = i > 5000 ? i - 5000 : 0; k <= i; k += 7)
                assert_int_equal(tbbt_recent_has(r, (uint64_t)keys[k]), g_hash_table_contains(ref, &keys[k]));
        }
    }
    struct tbbt_recent_stats st;
    tbbt_recent_stats(r, &st);
    assert_int_equal(st.span_cut, 0);
    g_queue_clear(&order);
    g_hash_table_destroy(ref);
    tbbt_recent_free(r);
}

/* The cmocka cases above. */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_span_in_time),
        cmocka_unit_test(test_memory_bound),
        cmocka_unit_test(test_time_backwards),
        cmocka_unit_test(test_against_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
