/* test_htab.c -- the open-addressing hash table against GHashTable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "htab.h"

/* An item: its key and a payload to tell items with equal keys apart. */
struct item {
    uint32_t key;
    uint32_t payload;
};

/* Equality of an item's key with a uint32_t key. */
static int item_eq(const void *item, const void *key) {
    return ((const struct item *)item)->key == *(const uint32_t *)key;
}

/* A deliberately poor hash (few distinct values) to force long probe runs,
 * wrap-around at the end of the array and backward shifts across them. */
static uint64_t weak_hash(uint32_t k) {
    return (uint64_t)(k % 37) * 0x9e3779b97f4a7c15ULL;
}

/* A good hash. */
static uint64_t good_hash(uint32_t k) {
    return tbbt_htab_mix(k);
}

/* Items are found by key; a missing key is not; removal by key returns the
 * item and leaves the others findable. */
static void test_basic(void **state) {
    (void)state;
    struct tbbt_htab t;
    struct item a = {1, 10}, b = {2, 20}, c = {3, 30};
    uint32_t k;
    tbbt_htab_init(&t, item_eq);
    k = 1;
    assert_null(tbbt_htab_find(&t, good_hash(k), &k));
    tbbt_htab_put(&t, good_hash(a.key), &a);
    tbbt_htab_put(&t, good_hash(b.key), &b);
    tbbt_htab_put(&t, good_hash(c.key), &c);
    assert_int_equal(tbbt_htab_size(&t), 3);
    k = 2;
    assert_ptr_equal(tbbt_htab_find(&t, good_hash(k), &k), &b);
    k = 4;
    assert_null(tbbt_htab_find(&t, good_hash(k), &k));
    k = 2;
    assert_ptr_equal(tbbt_htab_remove(&t, good_hash(k), &k), &b);
    assert_null(tbbt_htab_find(&t, good_hash(k), &k));
    assert_null(tbbt_htab_remove(&t, good_hash(k), &k));
    k = 3;
    assert_ptr_equal(tbbt_htab_find(&t, good_hash(k), &k), &c);
    assert_int_equal(tbbt_htab_size(&t), 2);
    tbbt_htab_clear(&t);
    assert_int_equal(tbbt_htab_size(&t), 0);
    k = 1;
    assert_null(tbbt_htab_find(&t, good_hash(k), &k));
}

/* Removal by identity touches only the very item given; peek returns the
 * home slot's item when its hash matches. */
static void test_identity(void **state) {
    (void)state;
    struct tbbt_htab t;
    struct item a = {5, 1}, other = {5, 2}, b = {6, 3};
    uint32_t k = 5;
    tbbt_htab_init(&t, item_eq);
    tbbt_htab_put(&t, good_hash(a.key), &a);
    tbbt_htab_put(&t, good_hash(b.key), &b);
    assert_int_equal(tbbt_htab_remove_item(&t, good_hash(5), &other), 0); /* equal key, other item */
    assert_ptr_equal(tbbt_htab_find(&t, good_hash(k), &k), &a);
    assert_ptr_equal(tbbt_htab_peek(&t, good_hash(5)), &a);
    assert_null(tbbt_htab_peek(&t, good_hash(7)));
    assert_int_equal(tbbt_htab_remove_item(&t, good_hash(5), &a), 1);
    assert_null(tbbt_htab_find(&t, good_hash(k), &k));
    assert_null(tbbt_htab_peek(&t, good_hash(5)));
    assert_int_equal(tbbt_htab_size(&t), 1);
    tbbt_htab_clear(&t);
}

/* Iteration visits every item exactly once. */
static void test_iterate(void **state) {
    (void)state;
    struct tbbt_htab t;
    struct item v[500];
    int seen[500] = {0};
    tbbt_htab_init(&t, item_eq);
    for (uint32_t i = 0; i < 500; i++) {
        v[i].key = i * 7919u;
        v[i].payload = i;
        tbbt_htab_put(&t, weak_hash(v[i].key), &v[i]);
    }
    size_t pos = 0, n = 0;
    struct item *it;
    while ((it = tbbt_htab_next(&t, &pos)) != NULL) {
        seen[it->payload]++;
        n++;
    }
    assert_int_equal(n, 500);
    for (int i = 0; i < 500; i++)
        assert_int_equal(seen[i], 1);
    tbbt_htab_clear(&t);
}

/* Runs a random mix of insertions, lookups and removals (by key and by
 * identity) on the table and on a GHashTable, comparing every answer, then
 * checks that both hold the same set. */
static void random_against_ghash(uint64_t (*hash)(uint32_t), uint32_t keyspace, int rounds) {
    struct tbbt_htab t;
    GHashTable *g = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
    GRand *rnd = g_rand_new_with_seed(12345);
    tbbt_htab_init(&t, item_eq);
    for (int r = 0; r < rounds; r++) {
        uint32_t k = g_rand_int_range(rnd, 0, (gint32)keyspace);
        struct item *want = g_hash_table_lookup(g, GUINT_TO_POINTER(k + 1));
        struct item *got = tbbt_htab_find(&t, hash(k), &k);
        assert_ptr_equal(got, want);
        assert_ptr_equal(tbbt_htab_find_inline(&t, hash(k), &k, item_eq), want);
        int op = g_rand_int_range(rnd, 0, 3);
        if (!want && op != 2) {
            struct item *it = g_new(struct item, 1);
            it->key = k;
            it->payload = (uint32_t)r;
            tbbt_htab_put(&t, hash(k), it);
            g_hash_table_insert(g, GUINT_TO_POINTER(k + 1), it);
        } else if (want && op == 0) {
            assert_ptr_equal(tbbt_htab_remove(&t, hash(k), &k), want);
            g_hash_table_remove(g, GUINT_TO_POINTER(k + 1));
        } else if (want && op == 1) {
            assert_int_equal(tbbt_htab_remove_item(&t, hash(k), want), 1);
            g_hash_table_remove(g, GUINT_TO_POINTER(k + 1));
        }
        assert_int_equal(tbbt_htab_size(&t), g_hash_table_size(g));
    }
    for (uint32_t k = 0; k < keyspace; k++)
        assert_ptr_equal(tbbt_htab_find(&t, hash(k), &k), g_hash_table_lookup(g, GUINT_TO_POINTER(k + 1)));
    tbbt_htab_clear(&t);
    g_hash_table_destroy(g);
    g_rand_free(rnd);
}

/* Random operations with a good hash, through several doublings. */
static void test_random_good_hash(void **state) {
    (void)state;
    random_against_ghash(good_hash, 20000, 200000);
}

/* Random operations with a hash of 37 values: long clusters that wrap
 * around, where a wrong backward shift would lose items. */
static void test_random_weak_hash(void **state) {
    (void)state;
    random_against_ghash(weak_hash, 600, 60000);
}

/* The byte hash depends on every byte and on the seed. */
static void test_hash_bytes(void **state) {
    (void)state;
    uint8_t a[45], b[45];
    for (int i = 0; i < 45; i++)
        a[i] = (uint8_t)i;
    uint64_t h = tbbt_htab_hash_bytes(a, sizeof a, 1);
    assert_int_equal(h, tbbt_htab_hash_bytes(a, sizeof a, 1));
    assert_int_not_equal(h, tbbt_htab_hash_bytes(a, sizeof a, 2));
    for (int i = 0; i < 45; i++) {
        memcpy(b, a, sizeof a);
        b[i] ^= 1;
        assert_int_not_equal(h, tbbt_htab_hash_bytes(b, sizeof b, 1));
    }
    assert_int_not_equal(tbbt_htab_hash_bytes(a, 44, 1), h);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_identity),
        cmocka_unit_test(test_iterate),
        cmocka_unit_test(test_random_good_hash),
        cmocka_unit_test(test_random_weak_hash),
        cmocka_unit_test(test_hash_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
