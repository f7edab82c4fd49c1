/* test_play_wake.c -- the send thread's sleep (player/wake.h): what it
 * waits for (one reply, or a count of them) and what a kick owes, the
 * batch the cap waits for; and no lost wake-up: a sleeper and a poster
 * thread run the protocol as the engine's send and receive threads do,
 * thousands of times, the poster posting just what the sleeper waits for
 * (so no later post rescues a lost wake); a sleep that runs to its bound,
 * far beyond the test's own run, is a lost wake-up and fails the test.
 * And the hand-off counts bench/play prints (wakes, sleeps). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#include "wake.h"
#include "clock.h"

#define BOUND_NS 2000000000LL /* a sleep this long is a lost wake-up */

/* The batch: a sixteenth of the cap, 1 at least, never above the cap. */
static void test_batch(void **st) {
    (void)st;
    assert_int_equal(tbbt_wake_batch(1), 1);
    assert_int_equal(tbbt_wake_batch(15), 1);
    assert_int_equal(tbbt_wake_batch(16), 1);
    assert_int_equal(tbbt_wake_batch(64), 4);
    assert_int_equal(tbbt_wake_batch(1024), 64);
    for (uint32_t c = 1; c < 5000; c++)
        assert_true(tbbt_wake_batch(c) >= 1 && tbbt_wake_batch(c) <= c);
}

/* What an arm and the posts after it owe, one thread. */
static void test_rules(void **st) {
    (void)st;
    struct tbbt_wake w;
    tbbt_wake_init(&w);
    /* any reply, 3 of them: 1 queued, 2 more come */
    tbbt_wake_arm(&w, TBBT_WAKE_ANY, 3, 1, 0);
    assert_false(tbbt_wake_hit(&w));
    tbbt_wake_post(&w, 7, 2);
    assert_false(tbbt_wake_hit(&w));
    tbbt_wake_post(&w, 8, 3);
    assert_true(tbbt_wake_hit(&w));
    tbbt_wake_taken(&w);
    assert_false(tbbt_wake_hit(&w));
    /* armed with enough queued already: owed at once */
    tbbt_wake_arm(&w, TBBT_WAKE_ANY, 2, 2, 0);
    assert_true(tbbt_wake_hit(&w));
    tbbt_wake_raise(&w);
    assert_true(tbbt_wake_owed(&w));
    tbbt_wake_lower(&w);
    /* after 0 is taken as 1 */
    tbbt_wake_arm(&w, TBBT_WAKE_ANY, 0, 0, 0);
    assert_false(tbbt_wake_hit(&w));
    tbbt_wake_post(&w, 1, 1);
    assert_true(tbbt_wake_hit(&w));
    /* one reply by seq: others do not hit, it does; already there does */
    tbbt_wake_arm(&w, 5, 1, 0, 0);
    tbbt_wake_post(&w, 4, 1);
    tbbt_wake_post(&w, 6, 2);
    assert_false(tbbt_wake_hit(&w));
    tbbt_wake_post(&w, 5, 3);
    assert_true(tbbt_wake_hit(&w));
    tbbt_wake_arm(&w, 9, 1, 4, 1);
    assert_true(tbbt_wake_hit(&w));
    /* a kick is owed once, asleep or not */
    tbbt_wake_taken(&w);
    tbbt_wake_kick(&w);
    tbbt_wake_raise(&w);
    assert_true(tbbt_wake_owed(&w));
    assert_false(tbbt_wake_owed(&w));
    tbbt_wake_lower(&w);
}

/* A kicked sleep, and a sleep a waker takes between the look and the
 * wait, return at once. */
static void test_no_sleep_through(void **st) {
    (void)st;
    struct tbbt_wake w;
    tbbt_wake_init(&w);
    tbbt_wake_raise(&w);
    assert_false(tbbt_wake_owed(&w));
    tbbt_wake_sleeper(&w); /* came after the look */
    int64_t t = tbbt_now_ns();
    tbbt_wake_wait(&w, -1, BOUND_NS);
    assert_true(tbbt_now_ns() - t < BOUND_NS / 2);
    assert_false(tbbt_wake_asleep(&w));
}

/* The counts bench/play prints as hand-offs: a waker counts a wake only
 * when it took a sleeper's flag (one per sleep however many wakers come),
 * none when nobody sleeps; the sleeper counts each wait. */
static void test_counts(void **st) {
    (void)st;
    struct tbbt_wake w;
    tbbt_wake_init(&w);
    tbbt_wake_sleeper(&w); /* nobody sleeps: no hand-off */
    assert_int_equal(atomic_load(&w.wakes), 0);
    for (int i = 0; i < 3; i++) {
        tbbt_wake_raise(&w);
        assert_false(tbbt_wake_owed(&w));
        tbbt_wake_sleeper(&w);
        tbbt_wake_sleeper(&w); /* a second waker finds the flag taken */
        tbbt_wake_wait(&w, -1, BOUND_NS);
    }
    assert_int_equal(atomic_load(&w.wakes), 3);
    assert_int_equal(w.sleeps, 3);
    tbbt_wake_raise(&w); /* raised, then lowered without sleeping: neither */
    tbbt_wake_lower(&w);
    tbbt_wake_sleeper(&w);
    assert_int_equal(atomic_load(&w.wakes), 3);
    assert_int_equal(w.sleeps, 3);
}

/* The two threads' shared state, under mu: the poster posts seqs 0, 1,
 * 2, ... in order, but never past `goal`, which the sleeper sets once it
 * has armed: so the posts it waits for all race with its raise, its look
 * and its wait, and none comes later to rescue a wake that was lost. */
struct duo {
    pthread_mutex_t mu;
    struct tbbt_wake w;
    uint64_t posted, taken, goal, total;
    int lost; /* sleeps that ran to the bound */
    unsigned seed;
};

/* A short random pause, or none: the posts land anywhere in the
 * sleeper's sequence. */
static void jitter(unsigned *seed) {
    unsigned r = rand_r(seed) % 8;
    if (r < 3) return;
    if (r < 6) {
        sched_yield();
        return;
    }
    struct timespec ts = {0, (long)(rand_r(seed) % 30000)};
    nanosleep(&ts, NULL);
}

/* The receiver: posts up to the goal, a few at a time, and wakes the
 * sleeper once per "pass" when it was hit (as rx_main). */
static void *poster(void *arg) {
    struct duo *d = arg;
    unsigned seed = d->seed;
    for (;;) {
        jitter(&seed);
        unsigned burst = 1 + rand_r(&seed) % 3;
        pthread_mutex_lock(&d->mu);
        int done = d->posted == d->total;
        for (unsigned i = 0; i < burst && d->posted < d->goal; i++) {
            d->posted++;
            tbbt_wake_post(&d->w, d->posted - 1, (uint32_t)(d->posted - d->taken));
        }
        pthread_mutex_unlock(&d->mu);
        if (done) return NULL;
        if (tbbt_wake_hit(&d->w)) tbbt_wake_sleeper(&d->w);
    }
}

/* The sleeper: takes what is queued, then waits either for one reply or
 * for `after` of them (as the engine's arm() and sleep_for() do), and lets
 * the poster post just what it waits for. */
static void sleeper(struct duo *d, uint32_t most) {
    unsigned seed = d->seed * 7 + 1;
    for (;;) {
        pthread_mutex_lock(&d->mu);
        d->taken = d->posted;
        tbbt_wake_taken(&d->w);
        uint64_t left = d->total - d->taken;
        if (!left) {
            pthread_mutex_unlock(&d->mu);
            return;
        }
        uint32_t need = 1 + rand_r(&seed) % most;
        if (need > left) need = (uint32_t)left;
        if (rand_r(&seed) % 3 == 0) /* one reply, by seq: the last of the next `need` */
            tbbt_wake_arm(&d->w, d->posted + need - 1, 1, 0, 0);
        else
            tbbt_wake_arm(&d->w, TBBT_WAKE_ANY, need, 0, 0);
        d->goal = d->posted + need;
        pthread_mutex_unlock(&d->mu);
        jitter(&seed);
        tbbt_wake_raise(&d->w);
        if (tbbt_wake_owed(&d->w)) {
            tbbt_wake_lower(&d->w);
            continue;
        }
        int64_t t = tbbt_now_ns();
        tbbt_wake_wait(&d->w, -1, BOUND_NS);
        if (tbbt_now_ns() - t >= BOUND_NS) {
            d->lost++;
            return; /* one is enough */
        }
    }
}

/* Rounds of the two threads; no sleep may run to its bound. */
static void test_no_lost_wakeup(void **st) {
    (void)st;
    for (unsigned round = 0; round < 8; round++) {
        struct duo d = {.total = 5000, .seed = round + 1};
        pthread_mutex_init(&d.mu, NULL);
        tbbt_wake_init(&d.w);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, poster, &d), 0);
        sleeper(&d, round % 2 ? 16 : 1);
        pthread_mutex_lock(&d.mu);
        d.goal = d.total; /* let the poster see the end */
        pthread_mutex_unlock(&d.mu);
        pthread_join(t, NULL);
        assert_int_equal(d.lost, 0);
        pthread_mutex_destroy(&d.mu);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_batch),
        cmocka_unit_test(test_rules),
        cmocka_unit_test(test_no_sleep_through),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_no_lost_wakeup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
