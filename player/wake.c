/* wake.c -- the send thread's sleep and its wakers (see wake.h). */
#define _GNU_SOURCE /* syscall */
#include "wake.h"

#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/futex.h>

void tbbt_wake_init(struct tbbt_wake *w) {
    atomic_store(&w->waiting, 0);
    atomic_store(&w->kick, 0);
    atomic_store(&w->hit, 0);
    w->seq = TBBT_WAKE_ANY;
    w->after = 1;
    atomic_store(&w->wakes, 0);
    w->sleeps = 0;
}

/* A sixteenth: with 64 out (the trace's own ceiling in bench/play.sh) the
 * sleeper wakes for 4 replies at a time, and 60 stay out meanwhile. */
uint32_t tbbt_wake_batch(uint32_t max_outstanding) {
    uint32_t k = max_outstanding / 16;
    return k ? k : 1;
}

/* The hit is decided here, under the queue's lock, from what is queued
 * already: a reply queued before the arm never posts again. */
void tbbt_wake_arm(struct tbbt_wake *w, uint64_t seq, uint32_t after, uint32_t queued, int there) {
    w->seq = seq;
    w->after = after ? after : 1;
    atomic_store(&w->hit, seq == TBBT_WAKE_ANY ? queued >= w->after : there);
}

/* One comparison per reply, under the lock the receiver holds anyway to
 * queue it; the syscall, if any, comes once per pass (tbbt_wake_sleeper). */
void tbbt_wake_post(struct tbbt_wake *w, uint64_t seq, uint32_t queued) {
    if (w->seq == TBBT_WAKE_ANY ? queued >= w->after : w->seq == seq) atomic_store(&w->hit, 1);
}

/* The queue is empty again: nothing it waits for is in it. */
void tbbt_wake_taken(struct tbbt_wake *w) {
    atomic_store(&w->hit, 0);
}

/* Read without the queue's lock: the receiver's "wake it?" after a pass. */
int tbbt_wake_hit(struct tbbt_wake *w) {
    return atomic_load(&w->hit);
}

/* Raised before the sleeper's last look at its work (wake.h). */
void tbbt_wake_raise(struct tbbt_wake *w) {
    atomic_store(&w->waiting, 1);
}

/* The kick is consumed here: one kick, one sleep not slept. */
int tbbt_wake_owed(struct tbbt_wake *w) {
    return atomic_exchange(&w->kick, 0) || atomic_load(&w->hit);
}

/* Lowered without a wake: a waker that finds it lowered owes nothing. */
void tbbt_wake_lower(struct tbbt_wake *w) {
    atomic_store(&w->waiting, 0);
}

/* A futex wait on `waiting`, which needs no drain after a wake, unlike an
 * eventfd; to the nanosecond, for the timestamp mode's deadlines. */
void tbbt_wake_wait(struct tbbt_wake *w, int64_t ns, int64_t max_ns) {
    if (ns < 0 || ns > max_ns) ns = max_ns;
    struct timespec ts = {ns / 1000000000, ns % 1000000000};
    w->sleeps++;
    /* returns at once when a waker took the flag already; the word's
     * address goes as is (syscall is variadic; an _Atomic int is an int) */
    syscall(SYS_futex, &w->waiting, FUTEX_WAIT_PRIVATE, 1, &ts, NULL, 0);
    atomic_store(&w->waiting, 0);
}

/* The receiver's test before it does the sleeper's work in its place
 * (a test of the wake protocol): raised and not taken by a waker yet. */
int tbbt_wake_asleep(struct tbbt_wake *w) {
    return atomic_load(&w->waiting);
}

/* The load first: most calls find no sleeper and cost no atomic write. */
void tbbt_wake_sleeper(struct tbbt_wake *w) {
    if (atomic_load(&w->waiting) && atomic_exchange(&w->waiting, 0)) {
        atomic_fetch_add_explicit(&w->wakes, 1, memory_order_relaxed);
        syscall(SYS_futex, &w->waiting, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

/* The kick covers the sleeper that has not raised its flag yet. */
void tbbt_wake_kick(struct tbbt_wake *w) {
    atomic_store(&w->kick, 1);
    tbbt_wake_sleeper(w);
}
