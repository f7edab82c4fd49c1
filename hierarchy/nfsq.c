/* nfsq.c -- asynchronous NFS calls in flight (see nfsq.h). */
#include "nfsq.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>

#include "clock.h"

#define NFSQ_MAX_CONN 64

enum { CALL_FREE, CALL_OUT, CALL_WAIT }; /* a slot: unused, sent, waiting to be sent again */

/* One call in flight: who to tell, and how to send it again. Recycled
 * through the free list. */
struct nfsq_call {
    struct tbbt_nfsq *q;
    tbbt_nfsq_cb cb;
    void *priv;
    struct nfsq_call *next_free; /* the free list, or the list waiting to be sent again */
    tbbt_nfsq_send_fn send;
    int state, conn, sends;
    union {
        max_align_t align;
        unsigned char b[TBBT_NFSQ_ARGS_MAX];
    } args;
};

struct tbbt_nfsq {
    struct rpc_context *rpc[NFSQ_MAX_CONN];
    struct rpc_context **owner; /* the caller's array, kept up to date on reconnection */
    int broken[NFSQ_MAX_CONN];
    int n, next, depth, inflight, dead, cur_retried;
    struct nfsq_call *free_list, *wait_list;
    GPtrArray *all; /* every call slot made (owned) */
    double last_reply;
    void *user;
    tbbt_nfsq_connect_fn connect;
    void (*say)(void *ctx, const char *line);
    void *connect_ctx;
    int timeout_s, max_sends;
    uint64_t reconnects, resent;
};

struct tbbt_nfsq *tbbt_nfsq_new(struct rpc_context **rpcs, int n, int depth) {
    struct tbbt_nfsq *q = g_new0(struct tbbt_nfsq, 1);
    q->n = n < NFSQ_MAX_CONN ? n : NFSQ_MAX_CONN;
    memcpy(q->rpc, rpcs, sizeof(*rpcs) * (size_t)q->n);
    q->owner = rpcs;
    q->depth = depth > 0 ? depth : 1;
    q->all = g_ptr_array_new_with_free_func(g_free);
    q->last_reply = tbbt_now_s();
    return q;
}

void tbbt_nfsq_free(struct tbbt_nfsq *q) {
    if (!q) return;
    g_ptr_array_free(q->all, TRUE);
    g_free(q);
}

void tbbt_nfsq_set_user(struct tbbt_nfsq *q, void *user) {
    q->user = user;
}

void *tbbt_nfsq_user(const struct tbbt_nfsq *q) {
    return q->user;
}

double tbbt_nfsq_silence(const struct tbbt_nfsq *q) {
    return tbbt_now_s() - q->last_reply;
}

int tbbt_nfsq_room(const struct tbbt_nfsq *q) {
    return q->inflight < q->depth;
}

int tbbt_nfsq_inflight(const struct tbbt_nfsq *q) {
    return q->inflight;
}

void tbbt_nfsq_set_reconnect(struct tbbt_nfsq *q, tbbt_nfsq_connect_fn fn,
                             void (*say)(void *ctx, const char *line), void *ctx, int timeout_s,
                             int max_sends) {
    q->connect = fn, q->say = say, q->connect_ctx = ctx;
    q->timeout_s = timeout_s, q->max_sends = max_sends;
}

int tbbt_nfsq_retried(const struct tbbt_nfsq *q) {
    return q->cur_retried;
}

uint64_t tbbt_nfsq_reconnects(const struct tbbt_nfsq *q) {
    return q->reconnects;
}

uint64_t tbbt_nfsq_resent(const struct tbbt_nfsq *q) {
    return q->resent;
}

/* A slot for a call, from the free list or new. */
static struct nfsq_call *take_slot(struct tbbt_nfsq *q) {
    struct nfsq_call *c = q->free_list;
    if (c) {
        q->free_list = c->next_free;
    } else {
        c = g_new0(struct nfsq_call, 1);
        g_ptr_array_add(q->all, c);
    }
    q->inflight++;
    return c;
}

/* Returns a call slot to the free list. */
static void release(struct tbbt_nfsq *q, struct nfsq_call *c) {
    c->state = CALL_FREE;
    c->next_free = q->free_list;
    q->free_list = c;
    q->inflight--;
}

/* Sends c on the next connection. Returns libnfs's verdict. */
static int send_on_next(struct tbbt_nfsq *q, struct nfsq_call *c) {
    c->conn = q->next;
    q->next = (q->next + 1) % q->n;
    c->state = CALL_OUT;
    c->sends++;
    return c->send(q->rpc[c->conn], c->args.b, c);
}

int tbbt_nfsq_send(struct tbbt_nfsq *q, tbbt_nfsq_cb cb, void *priv, tbbt_nfsq_send_fn send, const void *args,
                   size_t len) {
    if (q->dead || len > sizeof(((struct nfsq_call *)0)->args.b)) return -1;
    struct nfsq_call *c = take_slot(q);
    c->q = q, c->cb = cb, c->priv = priv, c->send = send, c->sends = 0;
    memcpy(c->args.b, args, len);
    if (send_on_next(q, c) < 0) {
        release(q, c);
        return -1;
    }
    return 0;
}

/* Runs c's callback once and frees its slot. */
static void finish(struct tbbt_nfsq *q, struct nfsq_call *c, int status, void *data) {
    tbbt_nfsq_cb cb = c->cb;
    void *priv = c->priv;
    int retried = c->sends > 1;
    release(q, c); /* first: the callback may issue the next call */
    q->last_reply = tbbt_now_s();
    q->cur_retried = retried;
    cb(q, status, data, priv);
    q->cur_retried = 0;
}

/* Puts c aside to be sent again once its connection is made again. */
static void wait_again(struct tbbt_nfsq *q, struct nfsq_call *c) {
    c->state = CALL_WAIT;
    c->next_free = q->wait_list;
    q->wait_list = c;
}

void tbbt_nfsq_thunk(struct rpc_context *rpc, int status, void *data, void *cookie) {
    struct nfsq_call *c = cookie;
    struct tbbt_nfsq *q = c->q;
    (void)rpc;
    if (c->state != CALL_OUT) return; /* already put aside by a reconnection's sweep */
    int lost = status == RPC_STATUS_ERROR || status == RPC_STATUS_CANCEL;
    if (lost && q->connect && !q->dead && c->sends < q->max_sends) {
        q->broken[c->conn] = 1; /* the connection broke under it (or the reply was unreadable) */
        wait_again(q, c);
        return;
    }
    finish(q, c, status, data);
}

/* Makes connection i again: the old context goes (its calls put aside),
 * new ones are tried until one answers or timeout_s pass. */
static int reconnect(struct tbbt_nfsq *q, int i, char *err, size_t errlen) {
    char why[256], line[400];
    snprintf(why, sizeof(why), "%s",
             q->rpc[i] && rpc_get_error(q->rpc[i]) ? rpc_get_error(q->rpc[i]) : "closed");
    if (q->rpc[i]) rpc_destroy_context(q->rpc[i]); /* runs the callbacks of its calls: put aside */
    q->rpc[i] = q->owner[i] = NULL;
    for (guint k = 0; k < q->all->len; k++) {
        struct nfsq_call *c = g_ptr_array_index(q->all, k);
        if (c->state == CALL_OUT && c->conn == i) wait_again(q, c);
    }
    snprintf(line, sizeof(line), "connection %d lost (%s); making it again", i, why);
    if (q->say) q->say(q->connect_ctx, line);
    double t0 = tbbt_now_s();
    while (!(q->rpc[i] = q->connect(q->connect_ctx, err, errlen))) {
        if (tbbt_now_s() - t0 > q->timeout_s) return -1;
        usleep(250 * 1000);
    }
    q->owner[i] = q->rpc[i];
    q->broken[i] = 0;
    q->reconnects++;
    snprintf(line, sizeof(line), "connection %d made again after %.1f s", i, tbbt_now_s() - t0);
    if (q->say) q->say(q->connect_ctx, line);
    return 0;
}

/* Sends again every call put aside; one libnfs refuses ends with an RPC error. */
static void send_again(struct tbbt_nfsq *q) {
    struct nfsq_call *list = q->wait_list;
    q->wait_list = NULL;
    while (list) {
        struct nfsq_call *c = list;
        list = c->next_free;
        q->resent++;
        if (send_on_next(q, c) < 0) finish(q, c, RPC_STATUS_ERROR, "the call could not be sent again");
    }
    q->last_reply = tbbt_now_s();
}

/* Mends every broken connection, then sends the calls put aside. Without
 * a reconnect function, or when one cannot be made, the queue is dead:
 * -1 with err. */
static int mend(struct tbbt_nfsq *q, char *err, size_t errlen) {
    for (int i = 0; i < q->n; i++) {
        if (!q->broken[i]) continue;
        if (!q->connect) {
            snprintf(err, errlen, "the server closed connection %d (%s)", i,
                     rpc_get_error(q->rpc[i]) ? rpc_get_error(q->rpc[i]) : "no reason given");
            q->dead = 1;
            return -1;
        }
        char why[300];
        if (reconnect(q, i, why, sizeof(why)) < 0) {
            snprintf(err, errlen, "connection %d lost and not made again in %d s: %s", i, q->timeout_s, why);
            q->dead = 1;
            return -1;
        }
    }
    send_again(q);
    return 0;
}

int tbbt_nfsq_service(struct tbbt_nfsq *q, int timeout_ms, char *err, size_t errlen) {
    if (q->dead) {
        snprintf(err, errlen, "the connections are lost");
        return -1;
    }
    struct pollfd p[NFSQ_MAX_CONN];
    for (int i = 0; i < q->n; i++)
        p[i] = (struct pollfd){.fd = rpc_get_fd(q->rpc[i]), .events = (short)rpc_which_events(q->rpc[i])};
    if (poll(p, (nfds_t)q->n, timeout_ms) < 0 && errno != EINTR) {
        snprintf(err, errlen, "poll: %s", strerror(errno));
        return -1;
    }
    int broken = 0;
    for (int i = 0; i < q->n; i++) {
        if (!q->broken[i] && rpc_service(q->rpc[i], p[i].revents) < 0) q->broken[i] = 1;
        broken |= q->broken[i];
    }
    return broken || q->wait_list ? mend(q, err, errlen) : 0;
}

int tbbt_nfsq_drain(struct tbbt_nfsq *q, int timeout_s, char *err, size_t errlen) {
    q->last_reply = tbbt_now_s();
    while (q->inflight > 0) {
        if (tbbt_nfsq_service(q, 100, err, errlen) < 0) return -1;
        if (tbbt_now_s() - q->last_reply > timeout_s) {
            snprintf(err, errlen, "%d calls unanswered for %d s", q->inflight, timeout_s);
            return -1;
        }
    }
    return 0;
}
