/* io.c -- tbbt-play's I/O thread (see engine.h, engine_int.h).
 *
 * Streams the trace's records into the ring, as many times as there are
 * clones (interleaved, or one copy after another with --loop), and counts
 * the trace's own load as it goes. One file per thread: what it touches
 * of struct engine is the ring, loaded and its own error. */
#include "engine_int.h"

#include <stdio.h>

#include "clones.h"

/* Waits for a free slot in the ring. A full ring is refilled in batches:
 * the thread sleeps until e->resume slots are free, so that it and the
 * send thread meet once a batch, not once a record (the ring is larger
 * than the window by twice that, so the window stays full meanwhile:
 * setup). Returns 0, or -1 when told to stop. */
static int wait_room(struct engine *e) {
    if (atomic_load(&e->loaded) - atomic_load(&e->head) > e->mask) { /* the ring is full: wait */
        uint64_t most = e->mask + 1 - e->resume;                     /* slots in use to go on at */
        pthread_mutex_lock(&e->mu);
        atomic_store(&e->io_waiting, 1); /* before looking at head: free_slots */
        while (atomic_load(&e->loaded) - atomic_load(&e->head) > most && !atomic_load(&e->stop_io))
            pthread_cond_wait(&e->cv, &e->mu), e->io_sleeps++;
        atomic_store(&e->io_waiting, 0);
        pthread_mutex_unlock(&e->mu);
    }
    return atomic_load(&e->stop_io) ? -1 : 0;
}

/* Whether the trace has r's call and reply times as captured: a reply
 * seen, a status (not an RPC error), not a corrective record. */
int eng_traced_times(const struct tbbt_rec *r) {
    return !(r->flags & (TBBT_RF_REPLY_LOST | TBBT_RF_INSERTED)) && r->status >= 0 &&
           r->reply_time >= r->call_time;
}

/* The trace's load (stats_load.h) with one more call, r's (the warm-up's
 * traced time left out, timestamp mode), and the number of its calls out
 * just after it, itself included. A call without traced times is out at
 * that instant but not in the load: its end is unknown. */
static uint64_t trace_call(struct engine *e, const struct tbbt_rec *r, int *begun) {
    if (!*begun) {
        *begun = 1;
        if (e->o->warmup_s > 0 && e->o->speedup > 0)
            tbbt_load_from(&e->trace_load, r->call_time + (int64_t)(e->o->warmup_s * e->o->speedup * 1e9));
    }
    if (eng_traced_times(r)) return tbbt_load_add(&e->trace_load, r->call_time, r->reply_time);
    return tbbt_load_at(&e->trace_load, r->call_time) + 1;
}

/* Streams records into the ring, each as many times as there are clones
 * (namespaced, one after another: clones.h); the trace's own load as it
 * goes (trace_call: N copies of the trace have N times as many calls out). */
void *eng_io_main(void *arg) {
    struct engine *e = arg;
    eng_count_thread(e, T_IO, 0);
    int begun = 0;
    uint64_t limit = e->o->limit ? e->o->limit : UINT64_MAX;
    uint32_t nc = e->nclones;
    for (uint64_t n = 0; n < limit; n++) {
        if (wait_room(e) < 0) break;
        uint64_t seq = atomic_load(&e->loaded);
        struct tbbt_rec *r = nc > 1 ? &e->io_rec : &e->ring[seq & e->mask].r; /* one clone: read in place */
        int rc = tbbt_recr_next(e->rd, r);
        if (rc <= 0) {
            if (rc < 0) snprintf(e->io_err, sizeof(e->io_err), "%s", tbbt_recr_error(e->rd));
            break;
        }
        for (uint32_t i = 0; i < nc; i++, seq++) {
            if (i && wait_room(e) < 0) goto stop;
            struct slot *s = &e->ring[seq & e->mask];
            tbbt_id bad = 0;
            if (nc > 1) {
                tbbt_rec_copy(&s->r, r);
                if (tbbt_clone_rec(&s->r, (uint32_t)e->o->clone + i, &bad) < 0) {
                    snprintf(e->io_err, sizeof(e->io_err),
                             "%s: record %llu: TBBT-ID %llu is too large to play several clones", e->o->trace,
                             (unsigned long long)n + 1, (unsigned long long)bad);
                    goto stop;
                }
            }
            tbbt_hist_add(&e->st->trace_outstanding, trace_call(e, r, &begun));
            s->seq = seq, s->clone = i;
            atomic_store(&s->state, SL_LOADED);
            atomic_store(&e->loaded, seq + 1);
            /* only a record inside the window is work for the send thread
             * (the window moves only while that thread is awake) */
            if (seq - atomic_load(&e->head) < e->win) tbbt_wake_sleeper(&e->wk);
        }
    }
stop:
    eng_count_thread(e, T_IO, 1);
    atomic_store(&e->io_eof, 1);
    tbbt_wake_kick(&e->wk); /* it must not sleep through the end */
    return NULL;
}

/* The time after which copy i+1 of a looped trace starts, relative to
 * copy i: the first copy's span from its first call to its last call or
 * reply, plus its mean gap between calls, so the copies follow each other
 * as the trace's calls follow each other. */
static int64_t loop_shift(int64_t first, int64_t end, uint64_t n) {
    int64_t span = end > first ? end - first : 0;
    return span + (n > 1 ? span / (int64_t)(n - 1) : 1000000);
}

/* --loop: the trace read o->loop times, copy i namespaced to clone
 * CLONE+i (clones.h) and its times moved past the end of copy i-1, so the
 * copies play one after another as one longer trace: copy i's record k has
 * window sequence number i*len + k, and one ordering runs over them all
 * (the copies share no object). Each copy starts on a fresh clone of the
 * image, as a second replay on a fresh image would. */
void *eng_io_loop_main(void *arg) {
    struct engine *e = arg;
    eng_count_thread(e, T_IO, 0);
    int begun = 0;
    uint64_t limit = e->o->limit ? e->o->limit : UINT64_MAX;
    int64_t first = 0, end = 0, shift = 0, step = 0;
    for (uint32_t i = 0; i < e->nclones; i++) {
        if (i) { /* the next copy: the trace from its start */
            char err[400];
            tbbt_recr_close(e->rd);
            if (!(e->rd = tbbt_recr_open(e->o->trace, err, sizeof(err)))) {
                snprintf(e->io_err, sizeof(e->io_err), "%s", err);
                break;
            }
            if (i == 1) step = loop_shift(first, end, atomic_load(&e->loop_len));
            shift += step;
        }
        uint64_t n = 0;
        for (; n < limit; n++) {
            if (wait_room(e) < 0) goto stop;
            uint64_t seq = atomic_load(&e->loaded);
            struct slot *s = &e->ring[seq & e->mask];
            int rc = tbbt_recr_next(e->rd, &s->r);
            if (rc <= 0) {
                if (rc < 0) {
                    snprintf(e->io_err, sizeof(e->io_err), "%s", tbbt_recr_error(e->rd));
                    goto stop;
                }
                break;
            }
            struct tbbt_rec *r = &s->r;
            if (i == 0) {
                if (n == 0) first = r->call_time;
                int64_t last = (r->flags & TBBT_RF_REPLY_LOST) ? r->call_time : r->reply_time;
                if (r->call_time > end) end = r->call_time;
                if (last > end) end = last;
            }
            r->call_time += shift, r->reply_time += shift;
            tbbt_id bad = 0;
            if (tbbt_clone_rec(r, (uint32_t)e->o->clone + i, &bad) < 0) {
                snprintf(e->io_err, sizeof(e->io_err),
                         "%s: record %llu: TBBT-ID %llu is too large to loop the trace", e->o->trace,
                         (unsigned long long)n + 1, (unsigned long long)bad);
                goto stop;
            }
            tbbt_hist_add(&e->st->trace_outstanding, trace_call(e, r, &begun)); /* copies in turn */
            s->seq = seq, s->clone = i;
            atomic_store(&s->state, SL_LOADED);
            atomic_store(&e->loaded, seq + 1);
            if (seq - atomic_load(&e->head) < e->win) tbbt_wake_sleeper(&e->wk);
        }
        if (i == 0) atomic_store(&e->loop_len, n);
        if (n == 0) break; /* an empty trace: nothing to repeat */
    }
stop:
    eng_count_thread(e, T_IO, 1);
    atomic_store(&e->io_eof, 1);
    tbbt_wake_kick(&e->wk);
    return NULL;
}
