/* test_chtab.c -- the one-word-slot table against htab: same finds, same
 * removals, and the same iteration order (callers moved from htab to
 * chtab rely on it to keep their output). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "chtab.h"
#include "htab.h"
#include "rng.h"

/* An item: its key. */
struct item {
    uint32_t key;
};

/* Equality of an item's key with a uint32_t key. */
static int item_eq(const void *item, const void *key) {
    return ((const struct item *)item)->key == *(const uint32_t *)key;
}

/* A poor hash (37 values in the low bits, and the top 16 bits shared by
 * many keys): long probe runs, tags that match items of other keys,
 * wrap-around and backward shifts across runs. */
static uint64_t weak_hash(uint32_t k) {
    return (uint64_t)(k % 37) * 0x9e3779b97f4a7c15ULL;
}

/* The chtab hash of an item: weak_hash of its key. */
static uint64_t item_hash(const void *item) {
    return weak_hash(((const struct item *)item)->key);
}

/* Both tables list the same items in the same order. */
static void assert_same_order(const struct tbbt_htab *h, const struct tbbt_chtab *c) {
    size_t ph = 0, pc = 0;
    void *a, *b;
    do {
        a = tbbt_htab_next(h, &ph);
        b = tbbt_chtab_next(c, &pc);
        assert_ptr_equal(a, b);
    } while (a);
    assert_int_equal(tbbt_htab_size(h), tbbt_chtab_size(c));
}

/* Random puts and removals (by key and by item) on both tables: every
 * find agrees, and so does the order after every batch. */
static void test_vs_htab(void **state) {
    (void)state;
    enum { N = 3000 };
    struct item *items = g_new0(struct item, N);
    int *in = g_new0(int, N);
    struct tbbt_htab h;
    struct tbbt_chtab c;
    tbbt_htab_init(&h, item_eq);
    tbbt_chtab_init(&c, item_eq, item_hash);
    for (uint32_t i = 0; i < N; i++)
        items[i].key = i;
    uint64_t rng = 27;
    for (int step = 0; step < 60000; step++) {
        uint32_t k = (uint32_t)(tbbt_splitmix64(&rng) % N);
        uint64_t hk = weak_hash(k);
        uint64_t op = tbbt_splitmix64(&rng) % 4;
        assert_ptr_equal(tbbt_chtab_find(&c, hk, &k), tbbt_htab_find(&h, hk, &k));
        assert_ptr_equal(tbbt_chtab_find_inline(&c, hk, &k, item_eq), in[k] ? &items[k] : NULL);
        if (op < 2 && !in[k]) {
            tbbt_htab_put(&h, hk, &items[k]);
            tbbt_chtab_put(&c, hk, &items[k]);
            in[k] = 1;
        } else if (op == 2) {
            assert_ptr_equal(tbbt_chtab_remove(&c, hk, &k), tbbt_htab_remove(&h, hk, &k));
            in[k] = 0;
        } else {
            assert_int_equal(tbbt_chtab_remove_item(&c, hk, &items[k]),
                             tbbt_htab_remove_item(&h, hk, &items[k]));
            in[k] = 0;
        }
        if (step % 997 == 0) assert_same_order(&h, &c);
    }
    assert_same_order(&h, &c);
    tbbt_htab_clear(&h);
    tbbt_chtab_clear(&c);
    assert_null(tbbt_chtab_find(&c, 0, &items[0].key));
    g_free(items);
    g_free(in);
}

/* A hash whose top 16 bits differ but whose home slot is the same: the
 * tag tells them apart, the equality is still asked on a tag match, and
 * peek gives the home slot's item only when the tag matches. */
static void test_tags(void **state) {
    (void)state;
    struct item a = {1}, b = {2};
    struct tbbt_chtab c;
    tbbt_chtab_init(&c, item_eq, item_hash);
    uint64_t ha = weak_hash(1), hb = weak_hash(2);
    tbbt_chtab_put(&c, ha, &a);
    tbbt_chtab_put(&c, hb, &b);
    assert_ptr_equal(tbbt_chtab_peek(&c, ha), &a);
    assert_null(tbbt_chtab_peek(&c, ha ^ (UINT64_C(1) << 63)));
    uint32_t k = 1;
    assert_null(tbbt_chtab_find(&c, ha ^ (UINT64_C(1) << 60), &k)); /* same home, other tag */
    k = 2;
    assert_null(tbbt_chtab_find(&c, ha, &k)); /* a's tag, b's key: equality says no */
    assert_ptr_equal(tbbt_chtab_find(&c, hb, &k), &b);
    tbbt_chtab_clear(&c);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_vs_htab),
        cmocka_unit_test(test_tags),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
