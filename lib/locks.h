/* locks.h -- the objects a record reads and writes: the paper's Table 4,
 * extended to every v2 and v3 procedure, as read and write locks.
 *
 * One table (tbbt_lock_rules) for every stage that reasons about
 * dependencies between records: the player's fsdep order (player/order.h)
 * takes these locks before sending a record, conservative order holds
 * the records that conflict on them, and tbbt-split (hierarchy/split.h)
 * groups records by the objects they change and checks that no lock is
 * shared across the parts it makes. tbbt_locks_print prints the table
 * (`tbbt-play --list-locks`, docs/locks.md). */
#ifndef TBBT_LOCKS_H
#define TBBT_LOCKS_H

#include <stdint.h>
#include <stdio.h>

#include "record.h"

/* When the player releases a record's locks (player/order.h, fsdep). */
enum { TBBT_DEPS_REPLY = 0, TBBT_DEPS_SEND = 1, TBBT_DEPS_STRICT = 2 };

/* The record field that names a locked object. */
enum tbbt_lock_arg {
    TBBT_LA_OBJ,
    TBBT_LA_DIR,
    TBBT_LA_DIR2,
    TBBT_LA_NEWOBJ,
    TBBT_LA_VICTIM,
    TBBT_LA_VICTIM2
};

/* How a rule locks its object. REVEAL is a lookup's object: read, unless
 * its handle is unknown when the lock is granted (no earlier reply showed
 * it, the manifest does not have it): then the lookup's reply reveals it,
 * and the lock is a write lock held until that reply, so that the records
 * that use the handle wait for it. Decided at the grant, not when the
 * record enters the window: a lookup queued behind the create of its
 * object is granted after the create's reply, which showed the handle. */
enum { TBBT_LK_READ = 0, TBBT_LK_WRITE = 1, TBBT_LK_REVEAL = 2 };

/* One row of the table: an object a procedure's request or reply locks. */
struct tbbt_lock_rule {
    uint8_t arg;       /* TBBT_LA_* */
    uint8_t how;       /* TBBT_LK_* */
    uint8_t reply;     /* the reply's lock (the paper's REPLY rows): held until the reply in every mode */
    uint8_t principal; /* the record changes the object's existence, contents or attributes (not
                          only a name of it): a failure poisons it */
    uint8_t creates;   /* the record makes the object anew */
};

#define TBBT_LOCK_RULES_MAX 4

/* The rules of op (at most TBBT_LOCK_RULES_MAX, *n of them; none for an
 * op out of range). A static table: never NULL, never freed. */
const struct tbbt_lock_rule *tbbt_lock_rules(int op, unsigned *n);

/* One lock of a record. */
struct tbbt_lock {
    tbbt_id obj;
    uint8_t write;       /* write lock (else read) */
    uint8_t until_reply; /* released at the reply, not at the send */
    uint8_t principal;   /* an object whose existence, contents or attributes the record
                            changes (not one it only names anew): poisoned if it fails */
    uint8_t creates;     /* the object the record makes anew: what failed on its ID before is no
                            dependency of it, and its success clears that */
    uint8_t reveal;      /* a read lock (write is 0) that the fsdep order takes as a write lock
                            until the reply when the handle is unknown at the grant (TBBT_LK_REVEAL) */
};

#define TBBT_MAX_LOCKS 6

/* Did the trace miss r's reply (flagged lost, or no status)? Its client
 * had the reply, at a time nobody knows: the player holds the records
 * that depend on r until r's replay reply (player/order.h), in either
 * order: in fsdep, all r's locks, read and write, last until its reply
 * in every deps mode (a write after a lost read must not overtake it
 * either: issue 21). */
static inline int tbbt_sched_reply_lost(const struct tbbt_rec *r) {
    return (r->flags & TBBT_RF_REPLY_LOST) || r->status < 0;
}

/* The locks record r takes in deps mode (TBBT_DEPS_*), from its
 * procedure's rules: an object named twice gets one lock, the stronger
 * (and is made anew by neither); a record whose reply the trace lost
 * (tbbt_sched_reply_lost) keeps all its locks until the reply in every
 * mode. Fills locks; returns the number (<= TBBT_MAX_LOCKS). Depends on
 * nothing but r and deps. */
unsigned tbbt_sched_locks(const struct tbbt_rec *r, int deps, struct tbbt_lock *locks);

/* The deps mode named name ("reply", "send", "strict"), or -1. */
int tbbt_sched_deps(const char *name);

/* Prints the table (Markdown: one row per procedure, then what the
 * columns and the deps modes mean) on f. */
void tbbt_locks_print(FILE *f);

#endif
