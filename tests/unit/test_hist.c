/* test_hist.c -- the latency histogram: every value's bucket holds it, the
 * relative error stays under 1%, quantiles agree with a sort, merging adds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>

#include "hist.h"

static int cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Buckets hold their values; their middle is within 1% of them. */
static void test_buckets(void **st) {
    (void)st;
    uint64_t s = 1;
    for (int i = 0; i < 200000; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t v = (s >> 11) >> (s % 50);
        if (v >> TBBT_HIST_EXP) continue;
        uint64_t lo, hi;
        uint32_t b = tbbt_hist_bucket(v);
        assert_true(b < TBBT_HIST_N);
        tbbt_hist_bounds(b, &lo, &hi);
        assert_true(lo <= v && v <= hi);
        uint64_t mid = lo + (hi - lo) / 2;
        double err = v ? (double)(mid > v ? mid - v : v - mid) / (double)v : 0;
        assert_true(err < 0.01);
    }
    for (uint32_t i = 1; i < TBBT_HIST_N; i++) { /* contiguous, increasing */
        uint64_t lo, hi, plo, phi;
        tbbt_hist_bounds(i, &lo, &hi);
        tbbt_hist_bounds(i - 1, &plo, &phi);
        assert_int_equal(lo, phi + 1);
    }
}

/* Quantiles against the sorted values: within 1%. */
static void test_quantiles(void **st) {
    (void)st;
    enum { N = 100000 };
    uint64_t *v = malloc(N * sizeof(*v)), s = 7;
    struct tbbt_hist h, a, b;
    tbbt_hist_init(&h), tbbt_hist_init(&a), tbbt_hist_init(&b);
    for (int i = 0; i < N; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        v[i] = 20000 + (s >> 40) % 5000000; /* 20 us .. 5 ms */
        tbbt_hist_add(&h, v[i]);
        tbbt_hist_add(i % 2 ? &a : &b, v[i]);
    }
    qsort(v, N, sizeof(*v), cmp);
    double qs[] = {0.5, 0.9, 0.99, 0.999};
    for (int k = 0; k < 4; k++) {
        uint64_t want = v[(size_t)(qs[k] * N)], got = tbbt_hist_quantile(&h, qs[k]);
        assert_true((double)(got > want ? got - want : want - got) / (double)want < 0.01);
    }
    assert_int_equal(tbbt_hist_quantile(&h, 0), v[0]);
    assert_int_equal(tbbt_hist_quantile(&h, 1), v[N - 1]);
    tbbt_hist_merge(&a, &b);
    assert_int_equal(a.n, h.n);
    assert_int_equal(tbbt_hist_quantile(&a, 0.99), tbbt_hist_quantile(&h, 0.99));
    free(v);
}

/* The layout written into result documents describes the buckets
 * tbbt_hist_add really uses: with "sub" S read back from the JSON, bucket
 * i < S holds i, and above, the power of two 2^e is cut into S buckets,
 * for every bucket up to "buckets". */
static void test_layout(void **st) {
    (void)st;
    GString *j = g_string_new(NULL);
    tbbt_hist_layout_json(j);
    unsigned sub = 0, exp = 0, n = 0;
    assert_int_equal(
        sscanf(j->str, "{\"scheme\":\"log-linear\",\"sub\":%u,\"exp\":%u,\"buckets\":%u}", &sub, &exp, &n),
        3);
    g_string_free(j, TRUE);
    assert_int_equal(n, TBBT_HIST_N);
    unsigned k = 0;
    while ((1u << k) < sub)
        k++;
    assert_int_equal(1u << k, sub);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t lo, hi, elo, ehi;
        tbbt_hist_bounds(i, &lo, &hi);
        if (i < sub) {
            elo = ehi = i;
        } else {
            unsigned e = i / sub + k - 1;
            elo = (uint64_t)(sub + i % sub) << (e - k);
            ehi = elo + (1ull << (e - k)) - 1;
        }
        assert_true(lo == elo && hi == ehi);
        assert_int_equal(tbbt_hist_bucket(lo), i);
        assert_int_equal(tbbt_hist_bucket(hi), i);
    }
    assert_int_equal(tbbt_hist_bucket(1ull << exp), n - 1); /* beyond: the last bucket */
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_buckets), cmocka_unit_test(test_quantiles),
                                       cmocka_unit_test(test_layout)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
