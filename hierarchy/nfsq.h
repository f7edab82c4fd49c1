/* nfsq.h -- many asynchronous NFS calls in flight over libnfs connections,
 * with the caller's loop in charge.
 *
 * tbbt-init issues thousands of creates and writes and must keep the
 * server busy without ever blocking on one reply. A queue holds one or
 * more libnfs rpc_contexts (connections to the same export); the caller
 * asks it for a connection and a tracked callback cookie, issues the
 * libnfs call (rpc_nfs3_*_async with tbbt_nfsq_thunk as the callback and
 * the cookie as private data), and runs tbbt_nfsq_service() in its loop,
 * which polls every connection once and runs the callbacks of the
 * replies that came. The queue counts calls in flight (tbbt_nfsq_room
 * says when another may go) and keeps a free list of cookies, so a call
 * costs no allocation once warm.
 *
 * A callback runs exactly once per call that libnfs accepted: with the
 * reply, or with an RPC error when the connection breaks or the call
 * times out (then data is libnfs's error text). A call libnfs refused at
 * once (its _async returned < 0) must be given back with
 * tbbt_nfsq_cancel(). */
#ifndef TBBT_NFSQ_H
#define TBBT_NFSQ_H

#include <stddef.h>
#include <stdint.h>

struct rpc_context;
struct tbbt_nfsq;

/* A reply: rpc_status is libnfs's RPC_STATUS_*; data its reply (the
 * procedure's result structure) or error text; priv the caller's. */
typedef void (*tbbt_nfsq_cb)(struct tbbt_nfsq *q, int rpc_status, void *data, void *priv);

/* A queue over n connections (owned by the caller, which destroys them
 * after the queue) keeping at most depth calls in flight. */
struct tbbt_nfsq *tbbt_nfsq_new(struct rpc_context **rpcs, int n, int depth);
void tbbt_nfsq_free(struct tbbt_nfsq *q);

/* A word for the callbacks (set by the queue's owner). */
void tbbt_nfsq_set_user(struct tbbt_nfsq *q, void *user);
void *tbbt_nfsq_user(const struct tbbt_nfsq *q);

/* Seconds since the last reply (or since the queue was made). */
double tbbt_nfsq_silence(const struct tbbt_nfsq *q);

/* 1 when fewer than depth calls are in flight. */
int tbbt_nfsq_room(const struct tbbt_nfsq *q);

/* Calls in flight. */
int tbbt_nfsq_inflight(const struct tbbt_nfsq *q);

/* The connection the next call should use (round robin). */
struct rpc_context *tbbt_nfsq_rpc(struct tbbt_nfsq *q);

/* A cookie for one call: pass it as the private data of the libnfs call
 * whose callback is tbbt_nfsq_thunk. cb(q, ..., priv) runs on its reply. */
void *tbbt_nfsq_track(struct tbbt_nfsq *q, tbbt_nfsq_cb cb, void *priv);

/* Gives back a cookie whose call libnfs refused. */
void tbbt_nfsq_cancel(struct tbbt_nfsq *q, void *cookie);

/* The libnfs callback of every tracked call. */
void tbbt_nfsq_thunk(struct rpc_context *rpc, int status, void *data, void *cookie);

/* Polls every connection once (waiting at most timeout_ms) and runs the
 * callbacks of the replies. Returns 0, or -1 with a message in err when a
 * connection failed beyond libnfs's recovery. */
int tbbt_nfsq_service(struct tbbt_nfsq *q, int timeout_ms, char *err, size_t errlen);

/* Runs tbbt_nfsq_service until nothing is in flight, or until timeout_s
 * seconds pass with no reply at all. Returns 0, or -1 with err. */
int tbbt_nfsq_drain(struct tbbt_nfsq *q, int timeout_s, char *err, size_t errlen);

#endif
