/* deps.h -- the player's lock-release policy: when fsdep lets go of the
 * locks a record takes (`--deps`), and which locks a record takes under it.
 *
 * The objects a record reads and writes are a protocol fact, the paper's
 * Table 4 (lib/locks.h, tbbt_locks_of); how long the player holds them is
 * the player's policy and lives here: in mode reply (the default) every
 * lock lasts until the record's reply; send (the paper's) lets the
 * request's locks go at the send; strict keeps the write locks until the
 * reply and lets the read locks go at the send. A reply's own locks (the
 * table's REPLY rows) last until the reply in every mode, and so do all
 * the locks of a record whose reply the trace lost. */
#ifndef TBBT_DEPS_H
#define TBBT_DEPS_H

#include <stdio.h>

#include "locks.h"
#include "record.h"

/* When the player releases a record's locks (player/order.h, fsdep). */
enum { TBBT_SCHED_DEPS_REPLY = 0, TBBT_SCHED_DEPS_SEND = 1, TBBT_SCHED_DEPS_STRICT = 2 };

/* Did the trace miss r's reply (flagged lost, or no status)? Its client
 * had the reply, at a time nobody knows: the player holds the records
 * that depend on r until r's replay reply (player/order.h), in either
 * order: in fsdep, all r's locks, read and write, last until its reply
 * in every deps mode (a write after a lost read must not overtake it
 * either: issue 21). */
static inline int tbbt_sched_reply_lost(const struct tbbt_rec *r) {
    return (r->flags & TBBT_RF_REPLY_LOST) || r->status < 0;
}

/* The locks record r takes in deps mode (TBBT_SCHED_DEPS_*): its
 * procedure's (tbbt_locks_of: an object named twice gets one lock, the
 * stronger, and is made anew by neither), each held until the reply as
 * the mode says; a record whose reply the trace lost
 * (tbbt_sched_reply_lost) keeps all its locks until the reply in every
 * mode. Fills locks; returns the number (<= TBBT_MAX_LOCKS). Depends on
 * nothing but r and deps. */
unsigned tbbt_sched_locks(const struct tbbt_rec *r, int deps, struct tbbt_lock *locks);

/* The deps mode named name ("reply", "send", "strict"), or -1. */
int tbbt_sched_deps(const char *name);

/* Prints fsdep's locks for people (Markdown, `tbbt-play --list-locks`,
 * docs/locks.md): what the table is, the table (tbbt_locks_print), then
 * how fsdep grants and releases the locks and what a failure poisons. */
void tbbt_sched_locks_print(FILE *f);

#endif
