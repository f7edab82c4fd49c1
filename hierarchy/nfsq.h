/* nfsq.h -- many asynchronous NFS calls in flight over libnfs connections,
 * with the caller's loop in charge.
 *
 * tbbt-init issues thousands of creates and writes and must keep the
 * server busy without ever blocking on one reply. A queue holds one or
 * more libnfs rpc_contexts (connections to the same export); the caller
 * hands it a call (tbbt_nfsq_send: a function that issues the libnfs
 * call, rpc_nfs3_*_async with tbbt_nfsq_thunk as the callback, and a copy
 * of its arguments), and runs tbbt_nfsq_service() in its loop, which
 * polls every connection once and runs the callbacks of the replies that
 * came. The queue counts calls in flight (tbbt_nfsq_room says when
 * another may go) and keeps a free list of call slots, so a call costs no
 * allocation once warm.
 *
 * A server that restarts must not end a build of thousands of calls: NFS
 * is stateless, and a call sent again by handle is safe. When a
 * reconnect function is set, a connection that breaks is made again (for
 * as long as the timeout given) and every call that was out on it is
 * sent again from its kept arguments; its callback then sees
 * tbbt_nfsq_retried() = 1 (a CREATE or MKDIR sent again may meet EXIST
 * for the object its first sending made: the caller decides).
 *
 * A callback runs exactly once per call that libnfs accepted: with the
 * reply, or with an RPC error when the connection breaks (and cannot be
 * made again) or the call times out (then data is libnfs's error text). */
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

/* Issues one libnfs call on rpc with args (a copy the queue keeps) and
 * cookie as its private data, tbbt_nfsq_thunk as its callback. */
typedef int (*tbbt_nfsq_send_fn)(struct rpc_context *rpc, void *args, void *cookie);

/* The largest arguments tbbt_nfsq_send keeps (bytes). */
#define TBBT_NFSQ_ARGS_MAX 256

/* Sends one call on the next connection (round robin): send(rpc, copy of
 * args, cookie); cb(q, ..., priv) runs on its reply. The pointers inside
 * args must stay valid until cb has run. Returns 0, or -1 when libnfs
 * refused it at once (cb will not run). */
int tbbt_nfsq_send(struct tbbt_nfsq *q, tbbt_nfsq_cb cb, void *priv, tbbt_nfsq_send_fn send, const void *args,
                   size_t len);

/* Makes a new connection (NULL with a message in err when it cannot). */
typedef struct rpc_context *(*tbbt_nfsq_connect_fn)(void *ctx, char *err, size_t errlen);

/* Makes broken connections again with fn(ctx) and sends their calls
 * again, trying for at most timeout_s seconds per break; new contexts
 * replace the old in the caller's array (the old are destroyed). Each
 * call is sent at most max_sends times. say(ctx, line), when not NULL,
 * hears one line per break and per reconnection. */
void tbbt_nfsq_set_reconnect(struct tbbt_nfsq *q, tbbt_nfsq_connect_fn fn,
                             void (*say)(void *ctx, const char *line), void *ctx, int timeout_s,
                             int max_sends);

/* In a callback: 1 when its call was sent more than once. */
int tbbt_nfsq_retried(const struct tbbt_nfsq *q);

/* Connections made again, and calls sent again, so far. */
uint64_t tbbt_nfsq_reconnects(const struct tbbt_nfsq *q);
uint64_t tbbt_nfsq_resent(const struct tbbt_nfsq *q);

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
