/* test_timefix.c -- backward clock steps are removed, small skew is kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "timefix.h"

#define S 1000000000LL

/* A monotonic stream passes through untouched. */
static void test_monotonic(void **state) {
    (void)state;
    struct tbbt_timefix tf;
    tbbt_timefix_init(&tf, 0);
    for (int64_t t = 100 * S; t < 200 * S; t += S / 3)
        assert_int_equal(tbbt_timefix_apply(&tf, t), t);
    assert_int_equal(tf.steps, 0);
}

/* The EECS collector's five-minute jump back: later times are shifted so
 * the stream continues from where it was, and the gap between events on
 * either side of the step is kept as small as the step allows. */
static void test_step_back(void **state) {
    (void)state;
    struct tbbt_timefix tf;
    tbbt_timefix_init(&tf, 0);
    assert_int_equal(tbbt_timefix_apply(&tf, 1000 * S), 1000 * S);
    assert_int_equal(tbbt_timefix_apply(&tf, 1001 * S), 1001 * S);
    int64_t t = tbbt_timefix_apply(&tf, 1001 * S - 300 * S);
    assert_int_equal(t, 1001 * S);
    assert_int_equal(tbbt_timefix_apply(&tf, 702 * S), 1002 * S);
    assert_int_equal(tf.steps, 1);
    assert_int_equal(tf.removed, 300 * S);
    /* a second step is repaired on top of the first */
    assert_int_equal(tbbt_timefix_apply(&tf, 602 * S), 1002 * S);
    assert_int_equal(tbbt_timefix_apply(&tf, 603 * S), 1003 * S);
    assert_int_equal(tf.steps, 2);
}

/* Reassembly skew below the threshold is natural and not "repaired". */
static void test_small_skew_kept(void **state) {
    (void)state;
    struct tbbt_timefix tf;
    tbbt_timefix_init(&tf, 0);
    tbbt_timefix_apply(&tf, 10 * S);
    assert_int_equal(tbbt_timefix_apply(&tf, 10 * S - 5000), 10 * S - 5000);
    assert_int_equal(tf.steps, 0);
    assert_int_equal(tbbt_timefix_peek(&tf, 11 * S), 11 * S);
}

/* Forward jumps are idle time, not errors. */
static void test_forward_jump_kept(void **state) {
    (void)state;
    struct tbbt_timefix tf;
    tbbt_timefix_init(&tf, 0);
    tbbt_timefix_apply(&tf, 10 * S);
    assert_int_equal(tbbt_timefix_apply(&tf, 5000 * S), 5000 * S);
    assert_int_equal(tf.steps, 0);
}

/* A hostile clock swinging between the ends of a pcap's 32-bit seconds
 * grew the offset by ~68 years a swing until it overflowed int64_t (found
 * by fuzzing): every result, and the offset, now stay inside
 * +-TBBT_TIME_LIMIT, never go back past the threshold, and every swing
 * back still counts as a step. */
static void test_swinging_clock_bounded(void **state) {
    (void)state;
    struct tbbt_timefix tf;
    tbbt_timefix_init(&tf, 0);
    int64_t prev = INT64_MIN;
    for (int i = 0; i < 20; i++) {
        int64_t t = tbbt_timefix_apply(&tf, i % 2 ? INT32_MIN * S : INT32_MAX * S);
        assert_true(t > -TBBT_TIME_LIMIT && t < TBBT_TIME_LIMIT);
        assert_true(t >= prev);
        prev = t;
        int64_t p = tbbt_timefix_peek(&tf, INT32_MAX * S);
        assert_true(p > -TBBT_TIME_LIMIT && p < TBBT_TIME_LIMIT);
    }
    assert_int_equal(tf.steps, 10);
    assert_true(tf.offset < TBBT_TIME_LIMIT);
    assert_int_equal(prev, TBBT_TIME_LIMIT - 1); /* it reached the limit and stood there */
}

/* Raw times at int64_t's ends are clamped, not overflowed. */
static void test_extreme_raw_times(void **state) {
    (void)state;
    struct tbbt_timefix tf;
    tbbt_timefix_init(&tf, 0);
    assert_int_equal(tbbt_timefix_apply(&tf, INT64_MAX), TBBT_TIME_LIMIT - 1);
    assert_int_equal(tbbt_timefix_apply(&tf, INT64_MIN), TBBT_TIME_LIMIT - 1);
    assert_int_equal(tf.steps, 1);
    assert_int_equal(tbbt_timefix_peek(&tf, INT64_MAX), TBBT_TIME_LIMIT - 1);
    assert_int_equal(tbbt_timefix_peek(&tf, INT64_MIN), -TBBT_TIME_LIMIT + 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_monotonic),
        cmocka_unit_test(test_step_back),
        cmocka_unit_test(test_small_skew_kept),
        cmocka_unit_test(test_forward_jump_kept),
        cmocka_unit_test(test_swinging_clock_bounded),
        cmocka_unit_test(test_extreme_raw_times),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
