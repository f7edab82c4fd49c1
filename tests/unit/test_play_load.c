/* test_play_load.c -- requests outstanding over time (player/stats_load.h):
 * the sweep's figures equal a brute-force count over a time grid; opening
 * and closing in any order gives what adding in start order gives; a
 * warm-up's time is left out; hand-made cases; the report's rate series
 * summary; ranks' figures merged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "rng.h"
#include "stats_load.h"

/* Random intervals on a grid of 1 ns steps, starts sorted. */
static void intervals(uint64_t seed, int n, int64_t *s, int64_t *e) {
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    int64_t t = 100;
    for (int i = 0; i < n; i++) {
        tbbt_xorshift64(&x);
        t += (int64_t)(x % 7);                         /* several starts at one instant, too */
        s[i] = t, e[i] = t + (int64_t)((x >> 8) % 40); /* some of length 0 */
    }
}

/* The figures by brute force: at each ns t in [first, last), the count of
 * intervals with s <= t < e. */
static void brute(int n, const int64_t *s, const int64_t *e, int64_t from, struct tbbt_load_figs *f) {
    int64_t first = s[0], last = 0;
    for (int i = 0; i < n; i++)
        if (e[i] > last) last = e[i];
    if (from > first) first = from;
    uint64_t at[4096] = {0}, total = 0;
    double area = 0;
    memset(f, 0, sizeof(*f));
    for (int64_t t = first; t < last; t++) {
        uint64_t c = 0;
        for (int i = 0; i < n; i++)
            c += s[i] <= t && t < e[i];
        at[c]++, total++, area += (double)c;
        if (c > f->max) f->max = c;
    }
    uint64_t below = 0;
    for (uint64_t k = 0; k < 4096; k++)
        if ((below += at[k]) >= 0.99 * (double)total) {
            f->p99 = k;
            break;
        }
    f->duration_s = (double)total / 1e9, f->area = area / 1e9, f->mean = total ? area / (double)total : 0;
}

static void same_figs(const struct tbbt_load_figs *a, const struct tbbt_load_figs *b) {
    assert_true(a->duration_s == b->duration_s);
    assert_true(a->area == b->area || (a->area - b->area) / b->area < 1e-12);
    assert_true(a->mean == b->mean || (a->mean - b->mean) / b->mean < 1e-12);
    assert_int_equal(a->p99, b->p99);
    assert_int_equal(a->max, b->max);
}

/* The sweep against brute force, with and without a warm-up left out. */
static void test_sweep(void **state) {
    (void)state;
    enum { N = 300 };
    int64_t s[N], e[N];
    for (uint64_t seed = 1; seed <= 20; seed++) {
        intervals(seed, N, s, e);
        for (int w = 0; w < 2; w++) {
            int64_t from = w ? s[N / 3] : INT64_MIN;
            struct tbbt_load l;
            struct tbbt_load_figs got, want;
            tbbt_load_init(&l);
            if (w) tbbt_load_from(&l, from);
            for (int i = 0; i < N; i++)
                tbbt_load_add(&l, s[i], e[i]);
            tbbt_load_end(&l, 0);
            tbbt_load_figs(&l, &got);
            brute(N, s, e, from, &want);
            same_figs(&got, &want);
            tbbt_load_free(&l);
        }
    }
}

/* Opened in start order, closed in a shuffled order: the same figures. */
static void test_open_close(void **state) {
    (void)state;
    enum { N = 5000 };
    int64_t *s = g_new(int64_t, N), *e = g_new(int64_t, N);
    uint64_t *tk = g_new(uint64_t, N);
    int *order = g_new(int, N);
    intervals(7, N, s, e);
    struct tbbt_load a, b;
    tbbt_load_init(&a), tbbt_load_init(&b);
    for (int i = 0; i < N; i++)
        tbbt_load_add(&a, s[i], e[i]), tk[i] = tbbt_load_open(&b, s[i]), order[i] = i;
    uint64_t x = 99;
    for (int i = N - 1; i > 0; i--) { /* Fisher-Yates */
        tbbt_xorshift64(&x);
        int j = (int)(x % (uint64_t)(i + 1)), t = order[i];
        order[i] = order[j], order[j] = t;
    }
    for (int i = 0; i < N; i++)
        tbbt_load_close(&b, tk[order[i]], 0, e[order[i]]);
    tbbt_load_close(&b, tk[0], 0, 1 << 30); /* twice: ignored */
    tbbt_load_close(&b, N + 5, 0, 1 << 30); /* never given: ignored */
    tbbt_load_end(&a, 0), tbbt_load_end(&b, 0);
    struct tbbt_load_figs fa, fb;
    tbbt_load_figs(&a, &fa), tbbt_load_figs(&b, &fb);
    same_figs(&fa, &fb);
    assert_int_equal(fa.n, N);
    assert_int_equal(fb.n, N);
    tbbt_load_free(&a), tbbt_load_free(&b);
    g_free(s), g_free(e), g_free(tk), g_free(order);
}

/* Hand-made: the counts a reader can check on paper. */
static void test_cases(void **state) {
    (void)state;
    struct tbbt_load l;
    struct tbbt_load_figs f;
    /* [0,10) [5,15) [20,30): 2 out for 5 ns, 1 for 20, 0 for 5: mean 30/30 */
    tbbt_load_init(&l);
    assert_int_equal(tbbt_load_add(&l, 0, 10), 1);
    assert_int_equal(tbbt_load_add(&l, 5, 15), 2);
    assert_int_equal(tbbt_load_add(&l, 20, 30), 1); /* both ended before it */
    tbbt_load_end(&l, 0);
    tbbt_load_figs(&l, &f);
    assert_true(f.duration_s * 1e9 > 29.999 && f.duration_s * 1e9 < 30.001);
    assert_true(f.mean > 1 - 1e-12 && f.mean < 1 + 1e-12);
    assert_int_equal(f.max, 2);
    assert_int_equal(f.p99, 2); /* 2 for 1/6 of the time */
    tbbt_load_free(&l);
    /* one opened and never closed: it ends where the run does */
    tbbt_load_init(&l);
    uint64_t t0 = tbbt_load_open(&l, 100), t1 = tbbt_load_open(&l, 110);
    tbbt_load_close(&l, t1, 0, 120);
    tbbt_load_end(&l, 200);
    (void)t0;
    tbbt_load_figs(&l, &f);
    assert_true(f.duration_s * 1e9 > 99.999 && f.duration_s * 1e9 < 100.001); /* 100..200 */
    assert_true(f.area * 1e9 > 109.999 && f.area * 1e9 < 110.001);            /* 100 + 10 */
    assert_int_equal(f.max, 2);
    tbbt_load_free(&l);
    /* a start known better at close moves the interval */
    tbbt_load_init(&l);
    t0 = tbbt_load_open(&l, 0);
    tbbt_load_close(&l, t0, 4, 10);
    tbbt_load_end(&l, 0);
    tbbt_load_figs(&l, &f);
    assert_true(f.duration_s * 1e9 > 5.999 && f.duration_s * 1e9 < 6.001);
    tbbt_load_free(&l);
    /* nothing at all */
    tbbt_load_init(&l);
    tbbt_load_end(&l, 5);
    tbbt_load_figs(&l, &f);
    assert_int_equal(f.n, 0);
    assert_true(f.mean == 0 && f.duration_s == 0);
    tbbt_load_free(&l);
}

/* Ranks side by side: areas add over the longer duration; p99 and max sum. */
static void test_merge(void **state) {
    (void)state;
    struct tbbt_load_figs a = {
        .n = 10, .duration_s = 2, .area = 1, .mean = .5, .p99 = 2, .max = 3, .summed = 1};
    struct tbbt_load_figs b = {
        .n = 5, .duration_s = 4, .area = 2, .mean = .5, .p99 = 1, .max = 4, .summed = 1};
    struct tbbt_load_figs z = {0}, m = z;
    tbbt_load_figs_merge(&m, &a);
    assert_memory_equal(&m, &a, sizeof(a));
    tbbt_load_figs_merge(&m, &b);
    tbbt_load_figs_merge(&m, &z); /* empty: nothing */
    assert_int_equal(m.n, 15);
    assert_true(m.duration_s == 4 && m.area == 3 && m.mean == .75);
    assert_int_equal(m.p99, 3);
    assert_int_equal(m.max, 7);
    assert_int_equal(m.summed, 2);
}

/* The rate summary: seconds from the first with a request to the last
 * before the replay's end; differences sent - traced. */
static void test_rate(void **state) {
    (void)state;
    struct tbbt_play_stats s;
    struct tbbt_pstat_rate r;
    tbbt_pstats_init(&s);
    assert_int_equal(tbbt_pstats_rate(&s, &r), -1); /* full speed */
    s.speedup = 1, s.wall_s = 4.5;
    static const uint64_t traced[] = {0, 10, 20, 30, 40, 50, 9}, sent[] = {0, 12, 20, 27, 40, 50, 0};
    for (int i = 0; i < 7; i++) {
        struct tbbt_pstat_sec *c = tbbt_pstats_sec(&s, i + .5);
        c->traced = traced[i], c->sent = sent[i];
    }
    /* seconds 1..4 (0 is empty, 5 and 6 after the end at 4.5 s) */
    assert_int_equal(tbbt_pstats_rate(&s, &r), 0);
    assert_int_equal(r.seconds, 4);
    assert_true(r.trace_mean == 25 && r.replay_mean == 24.75 && r.diff_mean == -0.25);
    assert_true(r.abs_mean == 1.25 && r.abs_max == 3 && r.abs_p50 == 2); /* |d|: 0 2 3 0 -> 0 0 2 3 */
    tbbt_pstats_free(&s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep), cmocka_unit_test(test_open_close), cmocka_unit_test(test_cases),
        cmocka_unit_test(test_merge), cmocka_unit_test(test_rate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
