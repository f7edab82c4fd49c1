/* locks.h -- the objects a record reads and writes: the paper's Table 4,
 * extended to every v2 and v3 procedure, as read and write locks.
 *
 * One table (tbbt_lock_rules) for every stage that reasons about
 * dependencies between records: which objects a record reads and writes,
 * and which of them its reply writes. How long a stage holds these locks
 * is the stage's own policy, not a protocol fact, and is not here (the
 * player's `--deps` modes: player/deps.h). tbbt_locks_print prints the
 * table. */
#ifndef TBBT_LOCKS_H
#define TBBT_LOCKS_H

#include <stdint.h>
#include <stdio.h>

#include "record.h"

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
    uint8_t until_reply; /* released at the reply, not at the send (tbbt_locks_of: a reply's lock) */
    uint8_t principal;   /* an object whose existence, contents or attributes the record
                            changes (not one it only names anew): poisoned if it fails */
    uint8_t creates;     /* the object the record makes anew: what failed on its ID before is no
                            dependency of it, and its success clears that */
    uint8_t reveal;      /* a read lock (write is 0) that the fsdep order takes as a write lock
                            until the reply when the handle is unknown at the grant (TBBT_LK_REVEAL) */
};

#define TBBT_MAX_LOCKS 6

/* The locks of record r, from its procedure's rules: an object named
 * twice gets one lock, the stronger (and is made anew by neither);
 * until_reply is set on the reply's locks (the table's REPLY rows) only.
 * Fills locks; returns the number (<= TBBT_MAX_LOCKS). */
unsigned tbbt_locks_of(const struct tbbt_rec *r, struct tbbt_lock *locks);

/* Prints the table on f (Markdown: one row per procedure, then what a
 * lookup's (1) means). */
void tbbt_locks_print(FILE *f);

#endif
