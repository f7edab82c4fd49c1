/* wake.h -- how the send thread sleeps and who wakes it (send.c sleeps; rx.c and io.c wake it).
 *
 * The send thread sleeps on a futex word while it has nothing to do; the
 * receive thread (replies) and the I/O thread (records) wake it. So that
 * a busy replay does not pay a syscall and a context switch per reply, a
 * reply wakes it only when it is what the sleeper said it waits for:
 *   - one reply, by its seq (conservative order's blocker, order.h); or
 *   - TBBT_WAKE_ANY: `after` replies queued (tbbt_wake_batch's count when
 *     the cap on outstanding requests holds it back, else 1).
 * The queue of replies and its lock are the caller's: the calls marked
 * "under the queue's lock" are made holding it, which orders a reply
 * queued against the sleeper's look at the queue (tbbt_wake_arm).
 *
 * No lost wake-up: the sleeper raises `waiting`, then looks at `hit` and
 * `kick` (tbbt_wake_owed); a waker sets `hit` or `kick`, then looks at
 * `waiting` (tbbt_wake_sleeper). All are sequentially consistent, so one
 * of the two sees the other's store; and the futex wait returns at once
 * when a waker dropped `waiting` between the look and the wait. A sleep
 * also ends by its own timeout, which the caller bounds. */
#ifndef TBBT_WAKE_H
#define TBBT_WAKE_H

#include <stdatomic.h>
#include <stdint.h>

#define TBBT_WAKE_ANY UINT64_MAX /* tbbt_wake_arm: any replies, `after` of them */

struct tbbt_wake {
    _Atomic int waiting;    /* the futex word: 1 while the sleeper sleeps or is about to */
    _Atomic int kick;       /* a wake owed to the sleeper's next sleep, asleep or not */
    _Atomic int hit;        /* what the sleeper waits for is queued (set under the queue's lock) */
    uint64_t seq;           /* the reply it waits for, or TBBT_WAKE_ANY (under the queue's lock) */
    uint32_t after;         /* TBBT_WAKE_ANY: replies queued to wake at, 1 at least (same) */
    _Atomic uint64_t wakes; /* futex wakes the wakers made: hand-offs to the sleeper */
    uint64_t sleeps;        /* futex waits the sleeper made (its own count) */
};

void tbbt_wake_init(struct tbbt_wake *w);

/* How many replies the send thread waits for when the cap on outstanding
 * requests (max_outstanding, 1 at least) is all that holds it back: a
 * sixteenth of the cap, 1 at least, so that it wakes once per batch of
 * sends, not once per reply. Never more than the cap: that many requests
 * are out, so that many replies come (or time out: the sleep's bound). */
uint32_t tbbt_wake_batch(uint32_t max_outstanding);

/* Under the queue's lock, the sleeper about to sleep: it waits for reply
 * seq, or (TBBT_WAKE_ANY) for `after` replies in the queue; `queued`
 * replies are in it now, and `there` says whether seq is among them. */
void tbbt_wake_arm(struct tbbt_wake *w, uint64_t seq, uint32_t after, uint32_t queued, int there);

/* Under the queue's lock, the receiver: reply seq was queued, `queued`
 * replies are in the queue now. Marks the hit when that is what the
 * sleeper waits for (the wake itself comes from tbbt_wake_sleeper, once
 * per pass of the receiver, not per reply). */
void tbbt_wake_post(struct tbbt_wake *w, uint64_t seq, uint32_t queued);

/* Under the queue's lock, the sleeper: it took every queued reply. */
void tbbt_wake_taken(struct tbbt_wake *w);

/* Whether what the sleeper waits for was posted. */
int tbbt_wake_hit(struct tbbt_wake *w);

/* The sleeper, first: says it sleeps, before it looks for work (wakers
 * look at this flag after publishing theirs). */
void tbbt_wake_raise(struct tbbt_wake *w);

/* The sleeper, after tbbt_wake_raise: 1 when a wake is owed already (a
 * kick, taken here, or what it waits for is queued), 0 when it may sleep. */
int tbbt_wake_owed(struct tbbt_wake *w);

/* The sleeper, not sleeping after all: lowers the flag. */
void tbbt_wake_lower(struct tbbt_wake *w);

/* The sleeper sleeps until woken or for at most ns (< 0: max_ns), then
 * lowers the flag. Returns at once when a waker came after the raise. */
void tbbt_wake_wait(struct tbbt_wake *w, int64_t ns, int64_t max_ns);

/* Whether the sleeper sleeps now (raised, not woken yet). */
int tbbt_wake_asleep(struct tbbt_wake *w);

/* Any thread, after publishing its work: wakes the sleeper if it sleeps,
 * once per sleep (the first waker takes the flag, the others find it
 * taken: a burst of replies and records costs one syscall). */
void tbbt_wake_sleeper(struct tbbt_wake *w);

/* Any thread: a wake the sleeper cannot miss, asleep or about to sleep
 * (the threads' ends): its next sleep returns at once. */
void tbbt_wake_kick(struct tbbt_wake *w);

#endif
