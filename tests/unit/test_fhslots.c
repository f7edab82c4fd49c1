/* test_fhslots.c -- the compact handle tables of tbbt-init and tbbt-play:
 * fhslots (handles in fixed-width slots: stored and read back byte for
 * byte, empty slots empty, a longer handle widens without losing the
 * others, a pointer handed out before a widening still reads its handle)
 * and idmap (TBBT-IDs to indices: every key found with its last value,
 * absent keys absent, key 0 refused, through several growths). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "fhslots.h"
#include "idmap.h"
#include "rng.h"

/* A handle of len bytes that depends on i (and is never all zero). */
static void make_fh(uint32_t i, uint32_t len, uint8_t *out) {
    for (uint32_t k = 0; k < len; k++)
        out[k] = (uint8_t)(i * 131 + k * 7 + 1);
}

/* Every handle stored is read back; untouched slots have none. */
static void test_slots_roundtrip(void **st) {
    (void)st;
    struct tbbt_fhslots s;
    tbbt_fhslots_init(&s);
    uint8_t fh[TBBT_FH_MAX];
    const uint8_t *d;
    uint32_t len;
    assert_int_equal(tbbt_fhslots_get(&s, 0, &d, &len), 0);
    for (uint32_t i = 0; i < 10000; i += 2) {
        make_fh(i, 28, fh);
        assert_int_equal(tbbt_fhslots_set(&s, i, fh, 28), 0);
    }
    for (uint32_t i = 0; i < 10000; i++) {
        if (i % 2) {
            assert_int_equal(tbbt_fhslots_get(&s, i, &d, &len), 0);
            continue;
        }
        make_fh(i, 28, fh);
        assert_int_equal(tbbt_fhslots_get(&s, i, &d, &len), 1);
        assert_int_equal(len, 28);
        assert_memory_equal(d, fh, 28);
    }
    assert_int_equal(tbbt_fhslots_get(&s, 20000, &d, &len), 0);
    assert_int_equal(tbbt_fhslots_set(&s, 1, fh, TBBT_FH_MAX + 1), -1);
    /* compact: about width + 1 bytes a slot, not a struct tbbt_fh */
    assert_true(tbbt_fhslots_bytes(&s) < 10000 * 2 * 29);
    tbbt_fhslots_free(&s);
}

/* A longer handle widens every slot: the others keep their bytes, a
 * zero-length handle is a handle (not an empty slot), and a pointer read
 * before the widening still reads what it read. */
static void test_slots_widen(void **st) {
    (void)st;
    struct tbbt_fhslots s;
    tbbt_fhslots_init(&s);
    tbbt_fhslots_reserve(&s, 100);
    uint8_t fh[TBBT_FH_MAX], keep[8];
    for (uint32_t i = 0; i < 100; i++) {
        make_fh(i, 8, fh);
        tbbt_fhslots_set(&s, i, fh, 8);
    }
    const uint8_t *d = NULL, *before = NULL;
    uint32_t len;
    assert_int_equal(tbbt_fhslots_get(&s, 7, &before, &len), 1);
    memcpy(keep, before, 8);
    make_fh(1000, TBBT_FH_MAX, fh);
    tbbt_fhslots_set(&s, 50, fh, TBBT_FH_MAX);
    tbbt_fhslots_set(&s, 51, fh, 0);
    assert_memory_equal(before, keep, 8); /* the old slots are kept until free */
    for (uint32_t i = 0; i < 100; i++) {
        assert_int_equal(tbbt_fhslots_get(&s, i, &d, &len), 1);
        if (i == 50) {
            assert_int_equal(len, TBBT_FH_MAX);
            assert_memory_equal(d, fh, TBBT_FH_MAX);
        } else if (i == 51) {
            assert_int_equal(len, 0);
        } else {
            uint8_t want[8];
            make_fh(i, 8, want);
            assert_int_equal(len, 8);
            assert_memory_equal(d, want, 8);
        }
    }
    struct tbbt_fh f;
    tbbt_fhslots_load(&s, 50, &f);
    assert_int_equal(f.len, TBBT_FH_MAX);
    assert_memory_equal(f.data, fh, TBBT_FH_MAX);
    tbbt_fhslots_load(&s, 500, &f);
    assert_int_equal(f.len, 0);
    tbbt_fhslots_free(&s);
}

/* Random IDs (all ranges) map to their last value through growths;
 * others are absent; 0 is refused. */
static void test_idmap(void **st) {
    (void)st;
    struct tbbt_idmap m;
    tbbt_idmap_init(&m);
    uint32_t v;
    assert_int_equal(tbbt_idmap_get(&m, 5, &v), 0);
    assert_int_equal(tbbt_idmap_put(&m, 0, 1), -1);
    enum { N = 50000 };
    static uint64_t keys[N];
    uint64_t r = 42;
    for (uint32_t i = 0; i < N; i++) {
        keys[i] = (tbbt_splitmix64(&r) | 1) & ~(1ull << 63); /* odd: never 0; absent keys are even */
        assert_int_equal(tbbt_idmap_put(&m, keys[i], i), 0);
    }
    for (uint32_t i = 0; i < N; i += 3)
        tbbt_idmap_put(&m, keys[i], i + 7); /* replaced, not added */
    assert_int_equal(m.n, N);
    for (uint32_t i = 0; i < N; i++) {
        assert_int_equal(tbbt_idmap_get(&m, keys[i], &v), 1);
        assert_int_equal(v, i % 3 ? i : i + 7);
        assert_int_equal(tbbt_idmap_get(&m, keys[i] + 1, &v), 0);
    }
    assert_true(tbbt_idmap_bytes(&m) <= (size_t)N * 12 * 4);
    tbbt_idmap_free(&m);
    assert_int_equal(tbbt_idmap_get(&m, keys[0], &v), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slots_roundtrip),
        cmocka_unit_test(test_slots_widen),
        cmocka_unit_test(test_idmap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
