/* engine.c -- tbbt-play's engine (see engine.h): set-up, the threads
 * started and joined, tear-down. The threads are io.c, rx.c and send.c;
 * what they share is engine_int.h. */
#include "engine_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>

#include "clock.h"
#include "clones.h"
#include "rng.h"

volatile sig_atomic_t eng_interrupted;

void tbbt_play_interrupt(void) {
    eng_interrupted = 1;
}

void tbbt_play_opts_default(struct tbbt_play_opts *o) {
    memset(o, 0, sizeof(*o));
    o->order = &tbbt_sched_fsdep;
    o->window = TBBT_PLAY_WINDOW;
    o->clones = 1;
    o->max_outstanding = TBBT_PLAY_MAX_OUT;
    o->timeout_s = TBBT_PLAY_TIMEOUT;
    o->retransmit_s = TBBT_PLAY_RETRANSMIT;
    o->seed = TBBT_PLAY_SEED;
}

/* Sets everything up: reader, manifest, policy, first connection. */
static int setup(struct engine *e, char *err, size_t errlen) {
    const struct tbbt_play_opts *o = e->o;
    uint32_t cap = 64; /* the window, rounded up: what the policy is told */
    while (cap < e->win)
        cap *= 2;
    /* the ring twice that: the I/O thread refills in batches of half the
     * room beyond the window (wait_room), the window full all along */
    e->mask = 2 * cap - 1;
    e->resume = (2 * cap - e->win) / 2;
    e->ring = g_new0(struct slot, 2 * cap);
    for (uint32_t i = 0; i < 2 * cap; i++)
        tbbt_rec_init(&e->ring[i].r);
    pthread_mutex_init(&e->mu, NULL);
    pthread_cond_init(&e->cv, NULL);
    pthread_mutex_init(&e->evmu, NULL);
    tbbt_wake_init(&e->wk);
    tbbt_rec_init(&e->rx_rec);
    tbbt_rec_init(&e->io_rec);
    e->ev = g_array_new(FALSE, FALSE, sizeof(struct event));
    e->ev_spare = g_array_new(FALSE, FALSE, sizeof(struct event));
    e->rx_batch = g_array_new(FALSE, FALSE, sizeof(struct event));
    eng_handles_init(e);
    e->payload = g_malloc(1u << 20);
    uint64_t x = o->seed * 0x9e3779b97f4a7c15ull + 1;
    for (uint32_t i = 0; i < (1u << 20); i += 8) { /* incompressible, not deduplicable */
        tbbt_xorshift64(&x);
        memcpy(e->payload + i, &x, 8);
    }
    e->sendbuf = g_malloc(SEND_BUF);
    const char *counts = getenv("TBBT_PLAY_COUNTS");
    e->rt.on = counts && *counts;
    e->xid_base = (uint32_t)(x ^ (uint64_t)time(NULL));
    if (!(e->rd = tbbt_recr_open(o->trace, err, errlen))) return -1;
    if (eng_load_manifest(e, err, errlen) < 0) return -1;
    if (eng_check_server(e, err, errlen) < 0) return -1;
    struct tbbt_sched_opts so = {.window = cap, .deps = o->deps, .known = eng_known, .known_ctx = e};
    e->ord = o->order;
    if (e->nclones > 1 && !e->loop) /* each clone its own ordering (clones.h) */
        e->ord = &tbbt_sched_clones, so.clones = e->nclones, so.per_clone = o->order;
    e->sched = e->ord->create(&so);
    if (o->send_log && !(e->slog = fopen(o->send_log, "w"))) {
        snprintf(err, errlen, "%s: %s", o->send_log, strerror(errno));
        return -1;
    }
    if (o->fail_log && !(e->flog = fopen(o->fail_log, "w"))) {
        snprintf(err, errlen, "%s: %s", o->fail_log, strerror(errno));
        return -1;
    }
    return eng_conns_init(e, err, errlen); /* --connections K made now, the others on first use */
}

/* Stops the threads and frees everything. */
static void teardown(struct engine *e) {
    atomic_store(&e->stop_io, 1);
    pthread_mutex_lock(&e->mu);
    pthread_cond_broadcast(&e->cv);
    pthread_mutex_unlock(&e->mu);
    if (e->io_started) pthread_join(e->io, NULL);
    atomic_store(&e->stop_rx, 1);
    for (int i = 0; i < atomic_load(&e->nconn); i++)
        if (e->conn[i].fd >= 0) shutdown(e->conn[i].fd, SHUT_RDWR);
    if (e->rx_started) pthread_join(e->rx, NULL);
    tbbt_rec_free(&e->rx_rec);
    tbbt_fhrefs_free(&e->rx_refs);
    eng_conns_free(e);
    if (e->sched) e->ord->destroy(e->sched);
    if (e->slog) fclose(e->slog);
    if (e->flog) fclose(e->flog);
    tbbt_rec_free(&e->io_rec);
    if (e->rd) tbbt_recr_close(e->rd);
    for (uint32_t i = 0; e->ring && i <= e->mask; i++)
        tbbt_rec_free(&e->ring[i].r);
    g_free(e->ring), g_free(e->held.v), g_free(e->payload), g_free(e->sendbuf);
    if (e->ev) g_array_free(e->ev, TRUE), g_array_free(e->ev_spare, TRUE), g_array_free(e->rx_batch, TRUE);
    eng_handles_free(e);
    g_free(e->sent_fifo.v);
    g_free(e->batch), g_free(e->batch_conn);
}

/* ISO time of now, UTC. */
static void iso_now(char *buf, size_t n) {
    time_t t = time(NULL);
    strftime(buf, n, "%Y-%m-%dT%H:%M:%SZ", gmtime(&t));
}

static double cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

int tbbt_play_run(const struct tbbt_play_opts *o, struct tbbt_play_stats *st, char *err, size_t errlen) {
    struct engine *e = g_new0(struct engine, 1);
    e->o = o, e->st = st;
    eng_interrupted = 0;
    char srv[1300];
    tbbt_nfs_server_name(&o->server, srv, sizeof(srv));
    st->trace = g_strdup(o->trace), st->manifest = g_strdup(o->manifest), st->server = g_strdup(srv);
    st->order = g_strdup(o->order->name);
    st->timing = o->speedup > 0 ? g_strdup_printf("timestamps x%g", o->speedup) : g_strdup("full speed");
    if (o->loop > 1) { /* the copies follow each other: the timing says so, the window is one copy's */
        char *t = st->timing;
        st->timing = g_strdup_printf("%s, trace looped %d times", t, o->loop);
        g_free(t);
    }
    st->speedup = o->speedup, st->window = o->window, st->clone = o->clone, st->connections = o->connections;
    st->seed = o->seed;
    e->loop = o->loop > 1;
    e->nclones = e->loop ? (uint32_t)o->loop : o->clones > 1 ? (uint32_t)o->clones : 1;
    e->win = e->loop ? o->window : (uint64_t)o->window * e->nclones;
    tbbt_load_init(&e->trace_load), tbbt_load_init(&e->replay_load);
    st->clones = e->nclones;
    st->per_clone = g_new0(struct tbbt_pstat_clone, e->nclones);
    int rc = setup(e, err, errlen);
    if (o->ready && o->ready(o->ready_ctx, rc, err, errlen) < 0) rc = -1;
    double c0 = cpu_s();
    if (rc == 0) {
        iso_now(st->started, sizeof(st->started));
        e->t0 = tbbt_now_ns() + 20000000; /* 20 ms to fill the window before the first deadline */
        e->warm_end = e->t0 + (int64_t)(o->warmup_s * 1e9);
        if (o->warmup_s > 0) tbbt_load_from(&e->replay_load, e->warm_end);
        e->end_at = o->duration_s > 0 ? e->t0 + (int64_t)(o->duration_s * 1e9) : 0;
        e->io_started = pthread_create(&e->io, NULL, e->loop ? eng_io_loop_main : eng_io_main, e) == 0;
        e->rx_started = pthread_create(&e->rx, NULL, eng_rx_main, e) == 0;
        if (!e->io_started || !e->rx_started) {
            snprintf(err, errlen, "cannot start the player's threads");
            rc = -1;
        }
    }
    if (rc == 0) {
        eng_count_thread(e, T_SEND, 0);
        rc = eng_play_loop(e, err, errlen);
        eng_count_thread(e, T_SEND, 1);
    }
    if (o->live) fputc('\n', stderr);
    int64_t end = tbbt_now_ns();
    st->wall_s = (double)(end - e->t0) / 1e9;
    st->cpu_s = cpu_s() - c0;
    iso_now(st->ended, sizeof(st->ended));
    eng_conns_say(e);
    st->conns_opened = (uint64_t)atomic_load(&e->nconn);
    teardown(e); /* the I/O thread joined: its load is complete */
    eng_write_counts(e);
    tbbt_load_end(&e->replay_load, end);
    tbbt_load_end(&e->trace_load, INT64_MIN);
    tbbt_load_figs(&e->replay_load, &st->load_replay);
    tbbt_load_figs(&e->trace_load, &st->load_trace);
    tbbt_load_free(&e->replay_load), tbbt_load_free(&e->trace_load);
    /* read only once the I/O thread is joined: a replay stopped early
     * (--duration, SIGINT) returns while that thread may still be reading */
    if (rc == 0 && e->io_err[0]) {
        snprintf(err, errlen, "%s", e->io_err);
        rc = -1;
    }
    g_free(e);
    if (rc < 0) return -1;
    return st->partial ? 3 : 0;
}
