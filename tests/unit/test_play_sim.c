/* test_play_sim.c -- the concurrency simulator (player/sim.h) on traces
 * built in memory: independent requests gain from every bigger window (up
 * to window / latency), requests that all depend on each other gain
 * nothing, a mixed trace flattens where its dependency chain binds,
 * conservative order keeps the trace's own concurrency, the cap on
 * outstanding requests holds, the trace's own figures, and a larger
 * window never slower (issue 23: lookups of new objects). Expected
 * throughputs are derived from the model (fixed latency, no network), not
 * copied from a run. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "sim.h"

#define US 1000LL
#define L (100 * US) /* the default simulated latency */

/* Options: order, windows, every procedure at latency L. */
static struct tbbt_sim_opts opts(const struct tbbt_sched_ops *order, const uint32_t *w, unsigned n) {
    struct tbbt_sim_opts o = {.order = order, .deps = TBBT_SCHED_DEPS_REPLY, .nwindows = n};
    memcpy(o.windows, w, n * sizeof(*w));
    for (int i = 0; i < TBBT_OP_COUNT; i++)
        o.latency_ns[i] = L;
    return o;
}

/* Record i of a trace: op at call time i ms, replied 10 us later (the
 * trace itself never overlaps two calls). */
static void mk(struct tbbt_rec *r, enum tbbt_op op, int64_t i) {
    tbbt_rec_clear(r);
    r->vers = 3, r->op = (uint8_t)op, r->status = 0;
    r->call_time = 1000000000000LL + i * 1000 * US, r->reply_time = r->call_time + 10 * US;
}

/* Trace builders: fill r with record i. */
typedef void (*builder)(struct tbbt_rec *r, int64_t i);

/* Reads of distinct files. */
static void b_independent(struct tbbt_rec *r, int64_t i) {
    mk(r, TBBT_OP_READ, i);
    tbbt_rec_set_u64(r, TBBT_F_OBJ, (uint64_t)(100 + i));
}

/* Every record writes the same file. */
static void b_same_file(struct tbbt_rec *r, int64_t i) {
    mk(r, TBBT_OP_WRITE, i);
    tbbt_rec_set_u64(r, TBBT_F_OBJ, 7);
}

/* create a, write it, remove it, again and again (a new object each time). */
static void b_chain(struct tbbt_rec *r, int64_t i) {
    uint64_t obj = (uint64_t)(1000 + i / 3);
    static const enum tbbt_op ops[3] = {TBBT_OP_CREATE, TBBT_OP_WRITE, TBBT_OP_REMOVE};
    mk(r, ops[i % 3], i);
    if (i % 3 == 1) {
        tbbt_rec_set_u64(r, TBBT_F_OBJ, obj);
        return;
    }
    tbbt_rec_set_u64(r, TBBT_F_DIR, 1);
    tbbt_rec_set_str(r, TBBT_F_NAME, "a", 1);
    tbbt_rec_set_u64(r, i % 3 ? TBBT_F_VICTIM : TBBT_F_NEWOBJ, obj);
}

/* One write of a shared log in every 100 records, reads of distinct files
 * otherwise. */
static void b_mixed(struct tbbt_rec *r, int64_t i) {
    if (i % 100) {
        b_independent(r, i);
        return;
    }
    mk(r, TBBT_OP_WRITE, i);
    tbbt_rec_set_u64(r, TBBT_F_OBJ, 7);
}

/* Simulates n records of b under o into res. */
static void run(const struct tbbt_sim_opts *o, builder b, int64_t n, struct tbbt_sim_result *res) {
    struct tbbt_sim *s = tbbt_sim_new(o);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    char err[256];
    for (int64_t i = 0; i < n; i++) {
        b(&r, i);
        assert_int_equal(tbbt_sim_feed(s, &r, err, sizeof(err)), 0);
    }
    assert_int_equal(tbbt_sim_finish(s, res, err, sizeof(err)), 0);
    assert_int_equal(res->nwindows, o->nwindows);
    for (unsigned k = 0; k < res->nwindows; k++)
        assert_int_equal(res->w[k].records, (uint64_t)n);
    tbbt_rec_free(&r);
    tbbt_sim_free(s);
}

/* a == b within a relative 1e-9. */
static void assert_close(double a, double b) {
    if (fabs(a - b) > 1e-9 * fabs(b)) fail_msg("%.6f != %.6f", a, b);
}

/* Independent requests: window W sends W at once, so N records take
 * ceil(N / W) latencies; the throughput grows with every window. */
static void test_independent_grows(void **st) {
    (void)st;
    static const uint32_t w[] = {1, 10, 100, 1000, 5000};
    struct tbbt_sim_opts o = opts(&tbbt_sched_fsdep, w, 5);
    struct tbbt_sim_result res;
    const int64_t n = 5000;
    run(&o, b_independent, n, &res);
    for (unsigned k = 0; k < 5; k++) {
        double rounds = ceil((double)n / w[k]);
        assert_close(res.w[k].ops_per_s, (double)n / (rounds * L / 1e9));
        assert_int_equal(res.w[k].peak_out, w[k]);
        if (k) assert_true(res.w[k].ops_per_s > res.w[k - 1].ops_per_s);
    }
}

/* Requests that all depend on each other gain nothing from the window:
 * one at a time, whatever the window, when locks are held until the reply
 * (deps reply, the default, and strict). In send mode (the paper's, for
 * servers that execute in order) the chain's locks go at the send, so the
 * sends pipeline: never slower than reply mode. */
static void test_dependent_flat(void **st) {
    (void)st;
    static const uint32_t w[] = {1, 10, 100, 1000, 10000};
    static const int modes[] = {TBBT_SCHED_DEPS_REPLY, TBBT_SCHED_DEPS_STRICT, TBBT_SCHED_DEPS_SEND};
    double reply_chain = 0;
    for (unsigned m = 0; m < 3; m++) {
        struct tbbt_sim_opts o = opts(&tbbt_sched_fsdep, w, 5);
        o.deps = modes[m];
        /* same file: reply and strict hold the write lock until the reply;
         * send releases it at the send (a server that executes in order) */
        struct tbbt_sim_result res;
        run(&o, b_same_file, 3000, &res);
        for (unsigned k = 0; m != 2 && k < 5; k++) {
            assert_close(res.w[k].ops_per_s, 1e9 / L);
            assert_int_equal(res.w[k].peak_out, 1);
        }
        /* create-write-remove on one name, each at its own latency: their
         * sum per three records */
        o.latency_ns[TBBT_OP_CREATE] = 300 * US, o.latency_ns[TBBT_OP_REMOVE] = 200 * US;
        run(&o, b_chain, 3000, &res);
        for (unsigned k = 0; m != 2 && k < 5; k++) {
            assert_close(res.w[k].ops_per_s, 3e9 / (600 * US));
            assert_int_equal(res.w[k].peak_out, 1);
        }
        if (m == 0) reply_chain = res.w[4].ops_per_s;
        if (m == 2) assert_true(res.w[4].ops_per_s >= reply_chain);
    }
}

/* The mixed trace grows with the window until the shared log's chain of
 * writes binds: N/100 writes one after the other, so 100 records per
 * latency at most, reached at window 100 and no bigger window helps. */
static void test_mixed_flattens(void **st) {
    (void)st;
    static const uint32_t w[] = {2, 10, 50, 100, 1000, 5000};
    struct tbbt_sim_opts o = opts(&tbbt_sched_fsdep, w, 6);
    struct tbbt_sim_result res;
    run(&o, b_mixed, 5000, &res);
    for (unsigned k = 1; k < 4; k++)
        assert_true(res.w[k].ops_per_s > res.w[k - 1].ops_per_s);
    for (unsigned k = 3; k < 6; k++)
        assert_close(res.w[k].ops_per_s, 100 * 1e9 / L);
    /* the independent reads alone would have gone on growing */
    run(&o, b_independent, 5000, &res);
    assert_true(res.w[5].ops_per_s > 10 * res.w[3].ops_per_s);
}

/* Conservative order keeps the trace's own concurrency: these calls never
 * overlapped, so one at a time, whatever the window; fsdep does not. */
static void test_conservative_trace_concurrency(void **st) {
    (void)st;
    static const uint32_t w[] = {1, 100, 1000};
    struct tbbt_sim_opts o = opts(&tbbt_sched_conservative, w, 3);
    struct tbbt_sim_result res;
    run(&o, b_independent, 2000, &res);
    for (unsigned k = 0; k < 3; k++) {
        assert_close(res.w[k].ops_per_s, 1e9 / L);
        assert_int_equal(res.w[k].peak_out, 1);
    }
    assert_int_equal(res.trace.peak_out, 1);
}

/* --max-outstanding caps the simulation as it caps the player. */
static void test_cap(void **st) {
    (void)st;
    static const uint32_t w[] = {1000};
    struct tbbt_sim_opts o = opts(&tbbt_sched_fsdep, w, 1);
    o.max_outstanding = 7;
    struct tbbt_sim_result res;
    run(&o, b_independent, 700, &res);
    assert_int_equal(res.w[0].peak_out, 7);
    assert_close(res.w[0].ops_per_s, 7e9 / L);
    assert_close(res.w[0].mean_out, 7);
}

/* Feeds a lookup of obj in dir 2, its reply 20 us after its call. */
static void feed_lookup(struct tbbt_sim *s, struct tbbt_rec *r, tbbt_id obj) {
    char err[256];
    mk(r, TBBT_OP_LOOKUP, 0);
    r->reply_time = r->call_time + 20 * US;
    tbbt_rec_set_u64(r, TBBT_F_DIR, 2);
    tbbt_rec_set_str(r, TBBT_F_NAME, "f", 1);
    tbbt_rec_set_u64(r, TBBT_F_NEWOBJ, obj);
    assert_int_equal(tbbt_sim_feed(s, r, err, sizeof(err)), 0);
}

/* fsdep's known(): lookups of an object the trace creates, added before
 * the create replied, wait for that reply (the create's lock on the new
 * object) and then know its handle: they read it, side by side (issue 23:
 * they used to take the write lock until their reply, one after the
 * other, when the window added them before the create's reply). Lookups
 * of an object of the initial image share at once. The trace's own
 * figures: records / span, time-weighted outstanding. */
static void test_known_and_trace_figures(void **st) {
    (void)st;
    static const uint32_t w[] = {10};
    struct tbbt_sim_opts o = opts(&tbbt_sched_fsdep, w, 1);
    struct tbbt_sim *s = tbbt_sim_new(&o);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    char err[256];
    mk(&r, TBBT_OP_CREATE, 0);
    r.reply_time = r.call_time + 40 * US;
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 1);
    tbbt_rec_set_str(&r, TBBT_F_NAME, "f", 1);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 50);
    assert_int_equal(tbbt_sim_feed(s, &r, err, sizeof(err)), 0);
    feed_lookup(s, &r, 50);
    feed_lookup(s, &r, 50);
    struct tbbt_sim_result res;
    assert_int_equal(tbbt_sim_finish(s, &res, err, sizeof(err)), 0);
    assert_close(res.w[0].sim_s, 2 * L / 1e9);
    assert_int_equal(res.w[0].peak_out, 2);
    assert_int_equal(res.trace.records, 3);
    assert_int_equal(res.trace.peak_out, 3);
    assert_close(res.trace.span_s, 40e-6);
    assert_close(res.trace.mean_out, 80.0 / 40);
    tbbt_sim_free(s);
    s = tbbt_sim_new(&o); /* no create: the manifest's handle */
    feed_lookup(s, &r, 60);
    feed_lookup(s, &r, 60);
    assert_int_equal(tbbt_sim_finish(s, &res, err, sizeof(err)), 0);
    assert_close(res.w[0].sim_s, L / 1e9);
    assert_int_equal(res.w[0].peak_out, 2);
    tbbt_rec_free(&r);
    tbbt_sim_free(s);
}

/* Groups of four in a directory of their own: create f, lookup f,
 * getattr of f, lookup f (the new object is 100 + the group). */
static void b_create_lookups(struct tbbt_rec *r, int64_t i) {
    static const enum tbbt_op ops[4] = {TBBT_OP_CREATE, TBBT_OP_LOOKUP, TBBT_OP_GETATTR, TBBT_OP_LOOKUP};
    uint64_t g = (uint64_t)(i / 4);
    mk(r, ops[i % 4], i);
    if (i % 4 == 2) {
        tbbt_rec_set_u64(r, TBBT_F_OBJ, 100 + g);
        return;
    }
    tbbt_rec_set_u64(r, TBBT_F_DIR, 1000 + g);
    tbbt_rec_set_str(r, TBBT_F_NAME, "f", 1);
    tbbt_rec_set_u64(r, TBBT_F_NEWOBJ, 100 + g);
}

/* Issue 23, the paper's Figure 6: a larger window never slows fsdep
 * down. Each group needs the create's reply, then its three records go
 * together (the create's reply showed the handle, so the lookups read):
 * two latencies. A larger window adds the lookups before the create's
 * reply; they once took the write lock until their reply then, one after
 * the other (four latencies a group): window 1 was faster than 8. With
 * the whole trace in the window, every group at once: 2 L in all. In
 * every deps mode. */
static void test_window_never_hurts(void **st) {
    (void)st;
    static const uint32_t w[] = {1, 2, 4, 8, 64, 1024};
    for (int deps = TBBT_SCHED_DEPS_REPLY; deps <= TBBT_SCHED_DEPS_STRICT; deps++) {
        struct tbbt_sim_opts o = opts(&tbbt_sched_fsdep, w, 6);
        o.deps = deps;
        struct tbbt_sim_result res;
        run(&o, b_create_lookups, 256, &res);
        for (unsigned k = 1; k < 6; k++)
            if (res.w[k].ops_per_s < res.w[k - 1].ops_per_s)
                fail_msg("deps %d: window %u %.1f ops/s < window %u %.1f", deps, w[k], res.w[k].ops_per_s,
                         w[k - 1], res.w[k - 1].ops_per_s);
        assert_close(res.w[5].sim_s, 2 * L / 1e9);
        assert_int_equal(res.w[5].peak_out, 64 * 3);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_independent_grows),
        cmocka_unit_test(test_dependent_flat),
        cmocka_unit_test(test_mixed_flattens),
        cmocka_unit_test(test_conservative_trace_concurrency),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_known_and_trace_figures),
        cmocka_unit_test(test_window_never_hurts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
