/* test_u64map.c -- the inline 64-bit map against GHashTable. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <glib.h>

#include "rng.h"
#include "u64map.h"

/* An empty map finds nothing; put, replace and remove behave as a map's,
 * for keys 0 and all-ones too. */
static void test_basic(void **state) {
    (void)state;
    struct tbbt_u64map m;
    tbbt_u64map_init(&m);
    assert_int_equal(tbbt_u64map_get(&m, 0), 0);
    assert_int_equal(tbbt_u64map_remove(&m, 5), 0);
    tbbt_u64map_put(&m, 0, 7);
    tbbt_u64map_put(&m, UINT64_MAX, 9);
    tbbt_u64map_put(&m, 5, 11);
    assert_int_equal(m.n, 3);
    assert_int_equal(tbbt_u64map_get(&m, 0), 7);
    assert_int_equal(tbbt_u64map_get(&m, UINT64_MAX), 9);
    assert_int_equal(tbbt_u64map_get(&m, 5), 11);
    assert_int_equal(tbbt_u64map_get(&m, 6), 0);
    tbbt_u64map_put(&m, 5, 12);
    assert_int_equal(m.n, 3);
    assert_int_equal(tbbt_u64map_get(&m, 5), 12);
    assert_int_equal(tbbt_u64map_remove(&m, 0), 7);
    assert_int_equal(tbbt_u64map_get(&m, 0), 0);
    assert_int_equal(tbbt_u64map_get(&m, UINT64_MAX), 9);
    assert_int_equal(m.n, 2);
    tbbt_u64map_clear(&m);
    assert_int_equal(tbbt_u64map_get(&m, UINT64_MAX), 0);
    tbbt_u64map_put(&m, 1, 1);
    assert_int_equal(tbbt_u64map_get(&m, 1), 1);
    tbbt_u64map_clear(&m);
}

/* Random puts, replacements and removals over a small key range (long
 * probe runs, growth, backward shifts) agree with a GHashTable at every
 * step, and every key is checked at the end. */
static void test_random_vs_ghash(void **state) {
    (void)state;
    struct tbbt_u64map m;
    tbbt_u64map_init(&m);
    GHashTable *ref = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    uint64_t rng = 27;
    const uint64_t range = 5000;
    for (int step = 0; step < 200000; step++) {
        uint64_t k = (tbbt_splitmix64(&rng) % range) * 0x100000001ULL; /* spread, high bits too */
        uint64_t op = (tbbt_splitmix64(&rng) % 10);
        uint64_t *had = g_hash_table_lookup(ref, &k);
        if (op < 6) {
            uint64_t v = (tbbt_splitmix64(&rng) % 1000000) + 1;
            tbbt_u64map_put(&m, k, v);
            g_hash_table_replace(ref, g_memdup2(&k, sizeof(k)), g_memdup2(&v, sizeof(v)));
        } else if (op < 9) {
            assert_int_equal(tbbt_u64map_remove(&m, k), had ? *had : 0);
            g_hash_table_remove(ref, &k);
        } else {
            assert_int_equal(tbbt_u64map_get(&m, k), had ? *had : 0);
        }
        assert_int_equal(m.n, g_hash_table_size(ref));
    }
    for (uint64_t i = 0; i < range; i++) {
        uint64_t k = i * 0x100000001ULL;
        uint64_t *v = g_hash_table_lookup(ref, &k);
        assert_int_equal(tbbt_u64map_get(&m, k), v ? *v : 0);
    }
    g_hash_table_destroy(ref);
    tbbt_u64map_clear(&m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic),
        cmocka_unit_test(test_random_vs_ghash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
