/* test_play_merge.c -- the pieces of an MPI run's one report: merging two
 * replays' figures (tbbt_pstats_merge: every percentile of the merged
 * histograms equals that of a histogram built from the union of the
 * samples; counters, series and mismatch lists add up), carrying figures
 * as bytes (stats_wire.h: a round trip gives the same JSON document; every
 * truncation and any trailing byte is refused), and sharing the clones
 * out among the ranks (tbbt_mpi_share). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "mpi_ranks.h"
#include "stats.h"
#include "stats_wire.h"

/* A reproducible sample stream: log-spread values up to about 2^36 ns. */
static uint64_t next_val(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    unsigned sh = (unsigned)(*x % 37);
    return (*x >> 20) & ((1ull << sh) - 1);
}

/* Fills s with n samples from seed: procedures lookup (v3) always, write
 * (v3) and getattr (v2) from some seeds only, the overall histograms, the
 * counters, a series of `secs` seconds and some mismatches. Every sample
 * also goes into the union histograms u[0..4] (lookup lat, lookup
 * lat_sched, issue error, outstanding, write lat). */
static void fill(struct tbbt_play_stats *s, uint64_t seed, int n, unsigned secs, struct tbbt_hist *u) {
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 7;
    struct tbbt_pstat_proc *lk = tbbt_pstats_proc(s, 3, TBBT_OP_LOOKUP);
    for (int i = 0; i < n; i++) {
        uint64_t v = next_val(&x), w = next_val(&x), e = next_val(&x), o = next_val(&x) % 5000;
        tbbt_hist_add(&lk->lat, v), tbbt_hist_add(&u[0], v);
        tbbt_hist_add(&lk->lat_sched, w), tbbt_hist_add(&u[1], w);
        tbbt_hist_add(&lk->trace_lat, w / 2);
        tbbt_hist_add(&s->issue_err, e), tbbt_hist_add(&u[2], e);
        tbbt_hist_add(&s->outstanding, o), tbbt_hist_add(&u[3], o);
        lk->count++, lk->matched++;
        if (seed % 2) {
            struct tbbt_pstat_proc *wr = tbbt_pstats_proc(s, 3, TBBT_OP_WRITE);
            tbbt_hist_add(&wr->lat, v / 3), tbbt_hist_add(&u[4], v / 3);
            wr->count++, wr->matched++;
        }
        struct tbbt_pstat_sec *c = tbbt_pstats_sec(s, (double)(i % secs));
        c->done++, c->sent++, c->matched++, c->lat_sum += (double)v, c->outstanding_sum += (double)o;
        c->traced += 1 + i % 2;
        if ((int64_t)e > c->behind_max) c->behind_max = (int64_t)e;
    }
    struct tbbt_pstat_proc *ga = tbbt_pstats_proc(s, 2, seed % 3 ? TBBT_OP_GETATTR : TBBT_OP_READ);
    ga->count += 5, ga->mismatched += 5;
    for (int k = 0; k < 5; k++)
        tbbt_pstats_mismatch(ga, 0, k < 3 ? 2 : -1);
    s->records = s->sent = s->replies = (uint64_t)n + 5, s->matched = (uint64_t)n, s->mismatched = 5;
    s->skipped = seed, s->timeouts = 2, s->max_outstanding = 100 + seed;
    s->wall_s = 1.0 + (double)seed, s->cpu_s = 0.5, s->trace_span_s = 10.0 * (double)seed;
    s->load_trace =
        (struct tbbt_load_figs){(uint64_t)n, 2.0 + (double)seed, 1.5, 1.5 / (2.0 + (double)seed), 3, 7, 1};
    s->load_replay = (struct tbbt_load_figs){(uint64_t)n + 5, 2.5, 1.0, 0.4, 2, 5 + seed, 1};
}

/* Every figure the report prints of h equals that of u. */
static void same_hist(const struct tbbt_hist *h, const struct tbbt_hist *u) {
    assert_int_equal(h->n, u->n);
    assert_int_equal(h->min, u->min);
    assert_int_equal(h->max, u->max);
    assert_true(h->sum == u->sum || (h->sum - u->sum) / u->sum < 1e-12);
    static const double qs[] = {0, .001, .1, .25, .5, .75, .9, .99, .999, .9999, 1};
    for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
        assert_int_equal(tbbt_hist_quantile(h, qs[i]), tbbt_hist_quantile(u, qs[i]));
    assert_memory_equal(h->b, u->b, sizeof(h->b));
}

static struct tbbt_hist *unions(void) {
    struct tbbt_hist *u = g_new(struct tbbt_hist, 5);
    for (int i = 0; i < 5; i++)
        tbbt_hist_init(&u[i]);
    return u;
}

/* Three ranks of different sizes merged: the union's percentiles. */
static void test_merge_union(void **state) {
    (void)state;
    struct tbbt_hist *u = unions();
    struct tbbt_play_stats m, r1, r2;
    tbbt_pstats_init(&m), tbbt_pstats_init(&r1), tbbt_pstats_init(&r2);
    fill(&m, 2, 3000, 4, u);
    fill(&r1, 3, 1000, 7, u);
    fill(&r2, 5, 20, 2, u);
    m.trace = g_strdup("rank0.tbbt"), m.clone = 4;
    tbbt_pstats_merge(&m, &r1);
    tbbt_pstats_merge(&m, &r2);
    same_hist(&m.proc[1][TBBT_OP_LOOKUP]->lat, &u[0]);
    same_hist(&m.proc[1][TBBT_OP_LOOKUP]->lat_sched, &u[1]);
    same_hist(&m.issue_err, &u[2]);
    same_hist(&m.outstanding, &u[3]);
    same_hist(&m.proc[1][TBBT_OP_WRITE]->lat, &u[4]); /* only in r1 and r2 */
    assert_int_equal(m.proc[1][TBBT_OP_LOOKUP]->count, 4020);
    assert_int_equal(m.proc[1][TBBT_OP_WRITE]->matched, 1020);
    assert_int_equal(m.records, 4035);
    assert_int_equal(m.matched, 4020);
    assert_int_equal(m.skipped, 10);
    assert_int_equal(m.timeouts, 6);
    assert_int_equal(m.max_outstanding, 105);
    assert_true(m.wall_s == 6.0 && m.cpu_s == 1.5 && m.trace_span_s == 50.0);
    assert_string_equal(m.trace, "rank0.tbbt"); /* into's metadata stays */
    assert_int_equal(m.clone, 4);
    /* the loads: three ranks side by side (stats_load.h) */
    assert_int_equal(m.load_trace.summed, 3);
    assert_int_equal(m.load_trace.n, 4020);
    assert_int_equal(m.load_replay.max, 7 + 8 + 10);
    assert_true(m.load_trace.duration_s == 7.0 && m.load_trace.area == 4.5);
    uint64_t traced = 0;
    for (guint i = 0; i < m.series->len; i++)
        traced += g_array_index(m.series, struct tbbt_pstat_sec, i).traced;
    assert_int_equal(traced, 1500 + 4500 + 30); /* 1.5 a sample */
    /* the series: as long as the longest, second by second sums */
    assert_int_equal(m.series->len, 7);
    uint64_t done = 0;
    for (guint i = 0; i < m.series->len; i++)
        done += g_array_index(m.series, struct tbbt_pstat_sec, i).done;
    assert_int_equal(done, 4020);
    assert_int_equal(g_array_index(m.series, struct tbbt_pstat_sec, 6).done, 142); /* r1 only: 1000/7 */
    /* v2 getattr from seeds 2 and 5, read from 3: (0, 2) x3 and (0, timeout) x2 each */
    const struct tbbt_pstat_proc *ga = m.proc[0][TBBT_OP_GETATTR], *rd = m.proc[0][TBBT_OP_READ];
    assert_non_null(ga);
    assert_non_null(rd);
    assert_int_equal(ga->count, 10);
    assert_true(ga->top_traced[0] == 0 && ga->top_got[0] == 2 && ga->top_n[0] == 6);
    assert_true(ga->top_got[1] == (uint32_t)-1 && ga->top_n[1] == 4);
    assert_int_equal(rd->top_n[0], 3);
    tbbt_pstats_free(&m), tbbt_pstats_free(&r1), tbbt_pstats_free(&r2);
    g_free(u);
}

/* Merging into an empty report gives the other's figures back. */
static void test_merge_into_empty(void **state) {
    (void)state;
    struct tbbt_hist *u = unions();
    struct tbbt_play_stats a, e;
    tbbt_pstats_init(&a), tbbt_pstats_init(&e);
    fill(&a, 3, 500, 3, u);
    tbbt_pstats_merge(&e, &a);
    GString *ja = g_string_new(NULL), *je = g_string_new(NULL);
    tbbt_pstats_json(&a, ja), tbbt_pstats_json(&e, je);
    assert_string_equal(ja->str, je->str);
    g_string_free(ja, TRUE), g_string_free(je, TRUE);
    tbbt_pstats_free(&a), tbbt_pstats_free(&e);
    g_free(u);
}

/* A mismatch top list keeps the four largest pairs of the two. */
static void test_merge_top(void **state) {
    (void)state;
    struct tbbt_play_stats a, b;
    tbbt_pstats_init(&a), tbbt_pstats_init(&b);
    struct tbbt_pstat_proc *pa = tbbt_pstats_proc(&a, 3, TBBT_OP_CREATE),
                           *pb = tbbt_pstats_proc(&b, 3, TBBT_OP_CREATE);
    static const int na[4] = {5, 1, 2, 3}, nb[4] = {4, 9, 1, 1};
    for (int k = 0; k < 4; k++) {
        for (int i = 0; i < na[k]; i++)
            tbbt_pstats_mismatch(pa, 0, 10 + k);
        for (int i = 0; i < nb[k]; i++)
            tbbt_pstats_mismatch(pb, 0, k ? 20 + k : 10); /* got 10 is in both */
    }
    tbbt_pstats_merge(&a, &b);
    /* pairs: got 10: 9, 11: 1, 12: 2, 13: 3, 21: 9, 22: 1, 23: 1 -> 10, 21, 13, 12 */
    uint64_t by[32] = {0};
    for (int k = 0; k < 4; k++)
        by[pa->top_got[k]] = pa->top_n[k];
    assert_int_equal(by[10], 9);
    assert_int_equal(by[21], 9);
    assert_int_equal(by[13], 3);
    assert_int_equal(by[12], 2);
    tbbt_pstats_free(&a), tbbt_pstats_free(&b);
}

/* A report of the figures as JSON, for comparing. */
static char *json_of(const struct tbbt_play_stats *s) {
    GString *j = g_string_new(NULL);
    tbbt_pstats_json(s, j);
    return g_string_free(j, FALSE);
}

/* The result document says how its histograms' buckets are laid out
 * (hist_layout, as lib/hist.c writes it), right after the schema, so the
 * Perl readers need no copy of the arithmetic. */
static void test_json_layout(void **state) {
    (void)state;
    struct tbbt_play_stats a;
    tbbt_pstats_init(&a);
    char *j = json_of(&a);
    GString *want = g_string_new("{\"schema\":\"tbbt-play-result/1\",\"hist_layout\":");
    tbbt_hist_layout_json(want);
    g_string_append(want, ",\"meta\":{");
    assert_true(strncmp(j, want->str, want->len) == 0);
    g_string_free(want, TRUE), g_free(j);
    tbbt_pstats_free(&a);
}

/* Packing and unpacking gives the same figures; every cut is refused. */
static void test_wire(void **state) {
    (void)state;
    struct tbbt_hist *u = unions();
    struct tbbt_play_stats a;
    tbbt_pstats_init(&a);
    fill(&a, 5, 2000, 5, u);
    a.partial = 1, a.clone = 3, a.reconnects = 4, a.conn_lost = 2, a.warmup = 9;
    GByteArray *b = g_byte_array_new();
    tbbt_pstats_pack(&a, b);
    struct tbbt_play_stats c;
    tbbt_pstats_init(&c);
    char err[256];
    assert_int_equal(tbbt_pstats_unpack(&c, b->data, b->len, err, sizeof(err)), 0);
    char *ja = json_of(&a), *jc = json_of(&c);
    assert_string_equal(ja, jc);
    g_free(ja), g_free(jc);
    /* what the JSON shows only in timestamp mode, and the loads, exactly */
    assert_int_equal(c.series->len, a.series->len);
    for (guint i = 0; i < a.series->len; i++)
        assert_int_equal(g_array_index(c.series, struct tbbt_pstat_sec, i).traced,
                         g_array_index(a.series, struct tbbt_pstat_sec, i).traced);
    assert_memory_equal(&c.load_trace, &a.load_trace, sizeof(a.load_trace));
    assert_memory_equal(&c.load_replay, &a.load_replay, sizeof(a.load_replay));
    same_hist(&c.proc[1][TBBT_OP_LOOKUP]->trace_lat, &a.proc[1][TBBT_OP_LOOKUP]->trace_lat);
    tbbt_pstats_free(&c);
    for (guint cut = 0; cut < b->len; cut += 1 + cut / 64) {
        tbbt_pstats_init(&c);
        assert_int_equal(tbbt_pstats_unpack(&c, b->data, cut, err, sizeof(err)), -1);
        assert_non_null(strstr(err, cut < 4 ? "not a tbbt-play" : "truncated"));
        tbbt_pstats_free(&c);
    }
    g_byte_array_append(b, (const guint8 *)"x", 1);
    tbbt_pstats_init(&c);
    assert_int_equal(tbbt_pstats_unpack(&c, b->data, b->len, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "trailing"));
    tbbt_pstats_free(&c);
    g_byte_array_free(b, TRUE);
    tbbt_pstats_free(&a);
    g_free(u);
}

/* Rank shares: a table, then every (n, clones) up to 12: the shares are
 * consecutive, cover first..first+clones-1 once, differ by at most one. */
static void test_share(void **state) {
    (void)state;
    static const struct {
        int rank, n, first, clones, start, count;
    } t[] = {{0, 2, 0, 2, 0, 1}, {1, 2, 0, 2, 1, 1}, {1, 2, 5, 4, 7, 2}, {0, 3, 0, 4, 0, 1},
             {1, 3, 0, 4, 1, 1}, {2, 3, 0, 4, 2, 2}, {0, 1, 3, 1, 3, 1}};
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        int s = -1, c = -1;
        assert_int_equal(tbbt_mpi_share(t[i].rank, t[i].n, t[i].first, t[i].clones, &s, &c), 0);
        assert_int_equal(s, t[i].start);
        assert_int_equal(c, t[i].count);
    }
    int s, c;
    assert_int_equal(tbbt_mpi_share(0, 3, 0, 2, &s, &c), -1); /* fewer clones than ranks */
    assert_int_equal(tbbt_mpi_share(0, 0, 0, 2, &s, &c), -1);
    for (int n = 1; n <= 12; n++)
        for (int clones = n; clones <= 12; clones++) {
            int next = 7, lo = clones, hi = 0;
            for (int r = 0; r < n; r++) {
                assert_int_equal(tbbt_mpi_share(r, n, 7, clones, &s, &c), 0);
                assert_int_equal(s, next);
                next += c;
                lo = c < lo ? c : lo, hi = c > hi ? c : hi;
            }
            assert_int_equal(next, 7 + clones);
            assert_true(hi - lo <= 1 && lo >= 1);
        }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_merge_union), cmocka_unit_test(test_merge_into_empty),
        cmocka_unit_test(test_merge_top),   cmocka_unit_test(test_wire),
        cmocka_unit_test(test_share),       cmocka_unit_test(test_json_layout),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
