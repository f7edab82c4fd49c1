/* locks.h -- the objects a record reads and writes: the paper's Table 4,
 * extended to every v2 and v3 procedure, as read and write locks.
 *
 * One table for every stage that reasons about dependencies between
 * records: the player's fsdep order (player/order.h) takes these locks
 * before sending a record, and tbbt-split (hierarchy/split.h) groups
 * records by the objects they change and checks that no lock is shared
 * across the parts it makes. */
#ifndef TBBT_LOCKS_H
#define TBBT_LOCKS_H

#include <stdint.h>

#include "record.h"

/* When the player releases a record's locks (player/order.h, fsdep). */
enum { TBBT_DEPS_REPLY = 0, TBBT_DEPS_SEND = 1, TBBT_DEPS_STRICT = 2 };

/* One lock of a record. */
struct tbbt_lock {
    tbbt_id obj;
    uint8_t write;       /* write lock (else read) */
    uint8_t until_reply; /* released at the reply, not at the send */
    uint8_t principal;   /* an object whose existence, contents or attributes the record
                            changes (not one it only names anew): poisoned if it fails */
    uint8_t creates;     /* the object the record makes anew: what failed on its ID before is no
                            dependency of it, and its success clears that */
};

#define TBBT_MAX_LOCKS 6

/* Did the trace miss r's reply (flagged lost, or no status)? Its client
 * had the reply, at a time nobody knows: the player holds the records
 * that depend on r until r's replay reply (player/order.h), in either
 * order: in fsdep, r's write locks last until its reply in every deps
 * mode, as --deps strict has them. */
static inline int tbbt_sched_reply_lost(const struct tbbt_rec *r) {
    return (r->flags & TBBT_RF_REPLY_LOST) || r->status < 0;
}

/* The locks record r takes in deps mode (TBBT_DEPS_*); an object named
 * twice gets one lock, the stronger; a record whose reply the trace lost
 * (tbbt_sched_reply_lost) keeps its write locks until the reply in every
 * mode. known(id) says whether a lookup's
 * object handle is known (NULL: yes; an unknown one is write-locked until
 * the reply reveals it). Fills locks; returns the number (<=
 * TBBT_MAX_LOCKS). Which objects are write-locked depends on nothing but
 * r when known is NULL. */
unsigned tbbt_sched_locks(const struct tbbt_rec *r, int deps, int (*known)(void *ctx, tbbt_id id), void *ctx,
                          struct tbbt_lock *locks);

/* The deps mode named name ("reply", "send", "strict"), or -1. */
int tbbt_sched_deps(const char *name);

#endif
