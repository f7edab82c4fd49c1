/* pipeline.c -- a bounded ring of record batches between two threads
 * (pipeline.h). The producer fills slot[wi] alone, the consumer reads
 * slot[ri] alone; `full` counts the batches between them, under the
 * mutex, so a slot changes hands only through the lock. */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>

#include "pipeline.h"

struct batch {
    struct tbbt_rec r[TBBT_PIPE_BATCH];
    unsigned n;
};

struct tbbt_pipe {
    tbbt_pipe_sink sink;
    tbbt_pipe_end_fn end;
    void *ctx;
    pthread_t th;
    int started, ended, joined;
    int end_rc; /* tbbt_pipe_end's: the last hand-off failed */
    pthread_mutex_t mu;
    pthread_cond_t to_consumer, to_producer;
    struct batch slot[TBBT_PIPE_DEPTH];
    unsigned wi, ri;  /* producer's and consumer's slots */
    unsigned full;    /* batches handed on, not yet sunk (mu) */
    int closed;       /* no more batches will come (mu) */
    int stop;         /* consumer: stop at the next batch (mu) */
    int failed;       /* the sink failed; the consumer is gone (mu) */
    int cwait, pwait; /* a side is asleep on its condition (mu) */
};

/* Sinks one batch; returns the sink's first failure, or 0. */
static int sink_batch(struct tbbt_pipe *p, struct batch *b) {
    for (unsigned i = 0; i < b->n; i++)
        if (p->sink(p->ctx, &b->r[i]) != 0) return -1;
    return 0;
}

/* The stream's end, drained: the end callback's result (0 without one);
 * a failure is kept for tbbt_pipe_close. */
static void *consumer_end(struct tbbt_pipe *p) {
    if (!p->end || p->end(p->ctx) == 0) return NULL;
    pthread_mutex_lock(&p->mu);
    p->failed = 1;
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* The consumer: waits for a full batch, sinks it, gives the slot back;
 * ends when the stream is closed and drained (then runs end), told to
 * stop, or the sink fails (then says so and wakes the producer). */
static void *consumer(void *arg) {
    struct tbbt_pipe *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->mu);
        while (!p->full && !p->closed && !p->stop) {
            p->cwait = 1;
            pthread_cond_wait(&p->to_consumer, &p->mu);
            p->cwait = 0;
        }
        int stop = p->stop, drained = !p->full && p->closed;
        pthread_mutex_unlock(&p->mu);
        if (stop) return NULL;
        if (drained) return consumer_end(p);
        int rc = sink_batch(p, &p->slot[p->ri]);
        p->slot[p->ri].n = 0;
        p->ri = (p->ri + 1) % TBBT_PIPE_DEPTH;
        pthread_mutex_lock(&p->mu);
        p->full--;
        if (rc != 0) p->failed = 1;
        if (p->pwait || rc != 0) pthread_cond_signal(&p->to_producer);
        pthread_mutex_unlock(&p->mu);
        if (rc != 0) return NULL;
    }
}

struct tbbt_pipe *tbbt_pipe_new(tbbt_pipe_sink sink, tbbt_pipe_end_fn end, void *ctx, char *err,
                                size_t errlen) {
    struct tbbt_pipe *p = g_new0(struct tbbt_pipe, 1);
    p->sink = sink;
    p->end = end;
    p->ctx = ctx;
    for (unsigned i = 0; i < TBBT_PIPE_DEPTH; i++)
        for (unsigned j = 0; j < TBBT_PIPE_BATCH; j++)
            tbbt_rec_init(&p->slot[i].r[j]);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->to_consumer, NULL);
    pthread_cond_init(&p->to_producer, NULL);
    /* The thread starts with the signals blocked, and keeps them so. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = pthread_create(&p->th, NULL, consumer, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        g_snprintf(err, errlen, "cannot start a thread: %s", strerror(rc));
        tbbt_pipe_free(p);
        return NULL;
    }
    p->started = 1;
    return p;
}

/* Hands the producer's batch on and waits for a free slot. Returns 0, or
 * -1 once the sink failed. */
static int hand_on(struct tbbt_pipe *p) {
    pthread_mutex_lock(&p->mu);
    int failed = p->failed;
    if (!failed) {
        p->full++;
        p->wi = (p->wi + 1) % TBBT_PIPE_DEPTH;
        if (p->cwait) pthread_cond_signal(&p->to_consumer);
        while (p->full == TBBT_PIPE_DEPTH && !p->failed) {
            p->pwait = 1;
            pthread_cond_wait(&p->to_producer, &p->mu);
            p->pwait = 0;
        }
        failed = p->failed;
    }
    pthread_mutex_unlock(&p->mu);
    return failed ? -1 : 0;
}

int tbbt_pipe_put(struct tbbt_pipe *p, const struct tbbt_rec *r) {
    struct batch *b = &p->slot[p->wi];
    if (b->n == TBBT_PIPE_BATCH) return -1; /* the sink failed at the last hand-off */
    tbbt_rec_copy(&b->r[b->n++], r);
    return b->n == TBBT_PIPE_BATCH ? hand_on(p) : 0;
}

int tbbt_pipe_sink_put(void *ctx, const struct tbbt_rec *r) {
    return tbbt_pipe_put(ctx, r);
}

int tbbt_pipe_end(struct tbbt_pipe *p, int drain) {
    if (!p->started || p->ended) return p->end_rc;
    p->ended = 1;
    if (drain && p->slot[p->wi].n) p->end_rc = hand_on(p);
    pthread_mutex_lock(&p->mu);
    p->closed = 1;
    if (!drain || p->end_rc != 0) p->stop = 1;
    pthread_cond_signal(&p->to_consumer);
    pthread_mutex_unlock(&p->mu);
    return p->end_rc;
}

int tbbt_pipe_close(struct tbbt_pipe *p, int drain) {
    if (!p->started || p->joined) return 0;
    tbbt_pipe_end(p, drain);
    pthread_join(p->th, NULL);
    p->joined = 1;
    return p->end_rc != 0 || p->failed ? -1 : 0;
}

void tbbt_pipe_free(struct tbbt_pipe *p) {
    if (!p) return;
    tbbt_pipe_close(p, 0);
    for (unsigned i = 0; i < TBBT_PIPE_DEPTH; i++)
        for (unsigned j = 0; j < TBBT_PIPE_BATCH; j++)
            tbbt_rec_free(&p->slot[i].r[j]);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->to_consumer);
    pthread_cond_destroy(&p->to_producer);
    g_free(p);
}
