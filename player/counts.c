/* counts.c -- TBBT_PLAY_COUNTS: where a request's round trip and the threads'
 * waits go (see engine_int.h, struct rt_counts; bench/play.sh).
 *
 * Measured only when asked (clock reads); apart from the threads so that
 * their loops read as the replay, not as its instrumentation. */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include "engine_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

static const char *const wait_names[W_N] = {"deps", "window", "records", "cap", "time"};
static const char *const thr_names[T_N] = {"send", "receive", "io"};

/* TBBT_PLAY_COUNTS: the calling thread's own CPU and context switches,
 * at the start (end 0) and the end (end 1) of its part of the replay:
 * which of the three threads costs the CPU, and whether its switches are
 * sleeps (voluntary) or preemptions (involuntary: on one core, mostly the
 * receive thread woken by a reply while the send thread runs). */
void eng_count_thread(struct engine *e, int which, int end) {
    struct rusage ru;
    if (!e->rt.on || getrusage(RUSAGE_THREAD, &ru) < 0) return;
    struct thr_use *u = &e->rt.thr[which];
    double sign = end ? 1 : -1;
    u->user_s += sign * ((double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6);
    u->sys_s += sign * ((double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6);
    u->vcsw += (long)sign * ru.ru_nvcsw;
    u->ivcsw += (long)sign * ru.ru_nivcsw;
}

/* TBBT_PLAY_COUNTS: the round trip of the replies just taken (at now),
 * from their requests' writes to here. */
void eng_count_taken(struct engine *e, const GArray *t, int64_t now) {
    struct rt_counts *c = &e->rt;
    for (guint i = 0; i < t->len; i++) {
        const struct event *ev = &g_array_index(t, struct event, i);
        const struct slot *s = &e->ring[ev->seq & e->mask];
        c->arrive_read += (double)(ev->read_ns - ev->recv_ns);
        c->read_take += (double)(now - ev->read_ns);
        if (s->seq == ev->seq && atomic_load(&s->state) == SL_SENT && s->flush_ns)
            c->flush_arrive += (double)(ev->recv_ns - s->flush_ns);
        c->taken++;
    }
}

/* TBBT_PLAY_COUNTS: the batch's requests (the first n) on connection c
 * (-1: every connection) were written at t. */
void eng_count_flushed(struct engine *e, size_t n, int c, int64_t t) {
    for (size_t i = 0; i < n; i++) {
        struct slot *s = &e->ring[e->batch[i] & e->mask];
        if (s->seq != e->batch[i] || atomic_load(&s->state) != SL_SENT || s->flush_ns ||
            (c >= 0 && s->conn != c))
            continue;
        s->flush_ns = t;
        e->rt.ready_flush += (double)(t - s->ready_ns);
        e->rt.flushed++;
        if (s->dep) e->rt.dep_flush += (double)(t - s->ready_ns), e->rt.deps++;
    }
}

/* For bench/play.sh: when TBBT_PLAY_COUNTS names a file, one JSON line
 * there with the hand-offs between the player's threads (wakes one thread
 * made of another) and their sleeps, as the threads counted them, and
 * where the time goes (struct rt_counts: means in us, wait times in s).
 * Read once the threads are joined. */
void eng_write_counts(const struct engine *e) {
    const char *path = getenv("TBBT_PLAY_COUNTS");
    FILE *f = path && *path ? fopen(path, "w") : NULL;
    if (!f) return;
    const struct rt_counts *c = &e->rt;
    uint64_t ws = atomic_load(&e->wk.wakes);
    double nf = c->flushed ? (double)c->flushed * 1e3 : 1, nt = c->taken ? (double)c->taken * 1e3 : 1;
    fprintf(
        f,
        "{\"sent\":%llu,\"handoffs\":%llu,\"wakes_send\":%llu,\"wakes_io\":%llu,\"sleeps_send\":%llu,"
        "\"sleeps_io\":%llu,\"polls_rx\":%llu,\"round_trip_us\":{\"ready_write\":%.2f,\"write_arrival\":%.2f,"
        "\"arrival_read\":%.2f,\"read_taken\":%.2f,\"dep_taken_ready\":%.2f,\"dep_ready_write\":%.2f,"
        "\"deps\":%llu},\"rx_poll_s\":%.4f,\"send_waits\":{",
        (unsigned long long)e->st->sent, (unsigned long long)(ws + e->io_signals), (unsigned long long)ws,
        (unsigned long long)e->io_signals, (unsigned long long)e->wk.sleeps, (unsigned long long)e->io_sleeps,
        (unsigned long long)e->rx_polls, c->ready_flush / nf, c->flush_arrive / nt, c->arrive_read / nt,
        c->read_take / nt, c->deps ? c->take_ready / (double)c->deps / 1e3 : 0,
        c->deps ? c->dep_flush / (double)c->deps / 1e3 : 0, (unsigned long long)c->deps, c->poll_ns / 1e9);
    for (int i = 0; i < W_N; i++)
        fprintf(f, "%s\"%s\":{\"n\":%llu,\"s\":%.4f}", i ? "," : "", wait_names[i],
                (unsigned long long)c->waits[i], c->wait_ns[i] / 1e9);
    fprintf(f, "},\"threads\":{");
    for (int i = 0; i < T_N; i++)
        fprintf(f, "%s\"%s\":{\"user_s\":%.4f,\"sys_s\":%.4f,\"vcsw\":%ld,\"ivcsw\":%ld}", i ? "," : "",
                thr_names[i], c->thr[i].user_s, c->thr[i].sys_s, c->thr[i].vcsw, c->thr[i].ivcsw);
    fprintf(f, "}}\n");
    fclose(f);
}
