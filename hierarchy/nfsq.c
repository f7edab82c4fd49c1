/* nfsq.c -- asynchronous NFS calls in flight (see nfsq.h). */
#include "nfsq.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <glib.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>

#define NFSQ_MAX_CONN 64

/* One call in flight: who to tell. Recycled through the free list. */
struct nfsq_call {
    struct tbbt_nfsq *q;
    tbbt_nfsq_cb cb;
    void *priv;
    struct nfsq_call *next_free;
};

struct tbbt_nfsq {
    struct rpc_context *rpc[NFSQ_MAX_CONN];
    int n, next, depth, inflight;
    struct nfsq_call *free_list;
    GPtrArray *all; /* every call slot made (owned) */
    double last_reply;
    void *user;
};

static double mono(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

struct tbbt_nfsq *tbbt_nfsq_new(struct rpc_context **rpcs, int n, int depth) {
    struct tbbt_nfsq *q = g_new0(struct tbbt_nfsq, 1);
    q->n = n < NFSQ_MAX_CONN ? n : NFSQ_MAX_CONN;
    memcpy(q->rpc, rpcs, sizeof(*rpcs) * (size_t)q->n);
    q->depth = depth > 0 ? depth : 1;
    q->all = g_ptr_array_new_with_free_func(g_free);
    q->last_reply = mono();
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
    return mono() - q->last_reply;
}

int tbbt_nfsq_room(const struct tbbt_nfsq *q) {
    return q->inflight < q->depth;
}

int tbbt_nfsq_inflight(const struct tbbt_nfsq *q) {
    return q->inflight;
}

struct rpc_context *tbbt_nfsq_rpc(struct tbbt_nfsq *q) {
    struct rpc_context *r = q->rpc[q->next];
    q->next = (q->next + 1) % q->n;
    return r;
}

void *tbbt_nfsq_track(struct tbbt_nfsq *q, tbbt_nfsq_cb cb, void *priv) {
    struct nfsq_call *c = q->free_list;
    if (c) {
        q->free_list = c->next_free;
    } else {
        c = g_new0(struct nfsq_call, 1);
        g_ptr_array_add(q->all, c);
    }
    c->q = q, c->cb = cb, c->priv = priv;
    q->inflight++;
    return c;
}

/* Returns a call slot to the free list. */
static void release(struct tbbt_nfsq *q, struct nfsq_call *c) {
    c->next_free = q->free_list;
    q->free_list = c;
    q->inflight--;
}

void tbbt_nfsq_cancel(struct tbbt_nfsq *q, void *cookie) {
    release(q, cookie);
}

void tbbt_nfsq_thunk(struct rpc_context *rpc, int status, void *data, void *cookie) {
    struct nfsq_call *c = cookie;
    struct tbbt_nfsq *q = c->q;
    (void)rpc;
    tbbt_nfsq_cb cb = c->cb;
    void *priv = c->priv;
    release(q, c); /* first: the callback may issue the next call */
    q->last_reply = mono();
    cb(q, status, data, priv);
}

int tbbt_nfsq_service(struct tbbt_nfsq *q, int timeout_ms, char *err, size_t errlen) {
    struct pollfd p[NFSQ_MAX_CONN];
    for (int i = 0; i < q->n; i++)
        p[i] = (struct pollfd){.fd = rpc_get_fd(q->rpc[i]), .events = (short)rpc_which_events(q->rpc[i])};
    if (poll(p, (nfds_t)q->n, timeout_ms) < 0 && errno != EINTR) {
        snprintf(err, errlen, "poll: %s", strerror(errno));
        return -1;
    }
    for (int i = 0; i < q->n; i++)
        if (rpc_service(q->rpc[i], p[i].revents) < 0) {
            snprintf(err, errlen, "connection %d: %s", i, rpc_get_error(q->rpc[i]));
            return -1;
        }
    return 0;
}

int tbbt_nfsq_drain(struct tbbt_nfsq *q, int timeout_s, char *err, size_t errlen) {
    q->last_reply = mono();
    while (q->inflight > 0) {
        if (tbbt_nfsq_service(q, 100, err, errlen) < 0) return -1;
        if (mono() - q->last_reply > timeout_s) {
            snprintf(err, errlen, "%d calls unanswered for %d s", q->inflight, timeout_s);
            return -1;
        }
    }
    return 0;
}
