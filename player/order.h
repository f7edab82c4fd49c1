/* order.h -- the player's ordering policies: which record of the lookahead
 * window may be sent next (design.md, Player; paper 3.4.1).
 *
 * A policy is a small ops struct (the way fio's I/O engines are):
 *   conservative  a record goes once every record with an earlier traced
 *                 call time was sent and every reply the trace received
 *                 before its call time was received: the trace's own
 *                 concurrency, no more, where it is no race. Records go
 *                 in trace order. Every record sent holds, until its
 *                 replay reply, the later records that touch an object it
 *                 locks (lib/locks.h), one of the two writing it, or a
 *                 (directory, name) it names: the server runs pipelined
 *                 requests in any order, so two the trace had outstanding
 *                 together that conflict would race there; the
 *                 earlier-called one goes first. A record that shares
 *                 nothing goes. A reply the trace lost has no time: its
 *                 record holds that way only (its client had the reply
 *                 before it went on; when is unknown). One that showed a
 *                 handle, and a corrective record (pass 2), hold every
 *                 later record until their reply.
 *   fsdep         each record takes read or write locks on the objects it
 *                 touches (tbbt_sched_locks, deps.h; `tbbt-play
 *                 --list-locks` prints the table); one object's locks are granted
 *                 in trace order (a later reader never overtakes an earlier
 *                 writer). When they are released is the deps mode:
 *                   reply   every lock at the reply (the default). Servers
 *                           run one connection's requests concurrently
 *                           (nfs-ganesha, knfsd): a remove sent after a read
 *                           of the same file may run first, so ordering the
 *                           sends is not enough.
 *                   send    the paper's: at the send, except the new object's
 *                           lock of create, mkdir, symlink, mknod (and of a
 *                           lookup whose object's handle is not known when
 *                           its lock is granted: the reply reveals it),
 *                           held until the reply; for servers that execute
 *                           in order.
 *                   strict  send, and every write lock until the reply
 *                           (design.md's --strict-deps).
 *                 A record whose reply the trace lost keeps all its locks,
 *                 read and write, until its reply in every mode: when it
 *                 ran in the trace is unknown, so a later record that
 *                 conflicts with it (a reader after a lost write, a writer
 *                 after a lost read) must not overtake it on a server that
 *                 reorders.
 *                 A record that failed (its
 *                 reply differs from the trace, or never came) poisons the
 *                 objects it creates or changes (not one a rename or link
 *                 only names anew: lib/locks.h); a later record that locks a
 *                 poisoned object is skipped, and poisons its own in turn.
 *                 A record that got an error where the trace got another
 *                 error changed nothing, as in the trace: it poisons
 *                 nothing (tbbt_sched_diverged).
 *
 * The engine (one thread) drives a policy: add() each record as it enters
 * the window, in trace order (seq 0, 1, 2, ...; at most `window` records
 * between the oldest not done and the newest added); next() for a record
 * to send or to skip; sent() once sent; done() when its reply came (ok:
 * the status matched) or it failed, was skipped, or timed out. */
#ifndef TBBT_ORDER_H
#define TBBT_ORDER_H

#include <stdint.h>

#include "deps.h"
#include "record.h"

struct tbbt_sched_opts {
    uint32_t window; /* records in the window at most */
    int deps;        /* fsdep: TBBT_SCHED_DEPS_* (deps.h) */
    /* fsdep: is the live handle of id known now? (NULL: all known) */
    int (*known)(void *ctx, tbbt_id id);
    void *known_ctx;
    /* tbbt_sched_clones (clones.h): the clones, and the policy each runs */
    uint32_t clones;
    const struct tbbt_sched_ops *per_clone;
};

/* What next() says. */
enum { TBBT_SCHED_NONE = 0, TBBT_SCHED_SEND = 1, TBBT_SCHED_SKIP = 2 };

struct tbbt_sched_ops {
    const char *name;
    void *(*create)(const struct tbbt_sched_opts *o);
    void (*destroy)(void *s);
    void (*add)(void *s, uint64_t seq, const struct tbbt_rec *r);
    /* A record that may go now (SEND), or must be skipped (SKIP: its
     * dependency failed; the engine calls done(seq, 0) for it), or NONE. */
    int (*next)(void *s, uint64_t *seq);
    void (*sent)(void *s, uint64_t seq);
    void (*done)(void *s, uint64_t seq, int ok);
    /* Optional (NULL: no such hint). Called when next() said NONE: 1 with
     * *seq when nothing but seq's done() (or records added) can make the
     * policy offer more, so that the engine sleeps through other replies;
     * 0 when it cannot say. */
    int (*blocker)(void *s, uint64_t *seq);
};

extern const struct tbbt_sched_ops tbbt_sched_conservative;
extern const struct tbbt_sched_ops tbbt_sched_fsdep;

/* The policy named name ("conservative", "fsdep"), or NULL. */
const struct tbbt_sched_ops *tbbt_sched_find(const char *name);

/* Did a record whose reply status (NFS status, or < 0: none came) differs
 * from the traced one (traced < 0: the trace lost the reply, taken as
 * success) leave the server in another state than the trace's? An error
 * changes nothing, so an error where the trace had another error does
 * not; anything else (success against an error, no reply) may. The
 * engine tells fsdep done(seq, !diverged) for a mismatch. */
int tbbt_sched_diverged(int traced, int got);

#endif
