/* send.c -- tbbt-play's send thread (see engine.h, engine_int.h).
 *
 * The caller's thread: admits loaded records to the ordering policy,
 * takes what it offers, holds each until its time, encodes and sends it;
 * applies the replies the receive thread hands over, times requests out,
 * and sleeps when there is nothing to do. It owns every piece of replay
 * state; the handles, connections, logs and counts it uses are their own
 * files. */
#include "engine_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "nfsenc.h"
#include "nfsstat.h"
#include "safename.h"

/* Frees done slots at the head of the ring for the I/O thread. */
static void free_slots(struct engine *e) {
    uint64_t h = atomic_load(&e->head), moved = 0;
    while (h < atomic_load(&e->loaded) && atomic_load(&e->ring[h & e->mask].state) == SL_DONE) {
        atomic_store(&e->ring[h & e->mask].state, SL_FREE);
        h++, moved = 1;
    }
    if (!moved) return;
    atomic_store(&e->head, h);
    /* the I/O thread sleeps only on a full ring, says so before it looks
     * at head (wait_room), and wants a batch of room: signal it then, not
     * on every slot freed, and take no lock otherwise */
    if (atomic_load(&e->io_waiting) && atomic_load(&e->loaded) - h <= e->mask + 1 - e->resume) {
        pthread_mutex_lock(&e->mu);
        pthread_cond_signal(&e->cv);
        pthread_mutex_unlock(&e->mu);
        e->io_signals++;
    }
}

/* A record is over: its status against the trace, the figures, the locks. */
void eng_complete(struct engine *e, struct slot *s, int status, int64_t recv_ns) {
    struct tbbt_play_stats *st = e->st;
    const struct tbbt_rec *r = &s->r;
    int lost = (r->flags & TBBT_RF_REPLY_LOST) && r->status < 0;
    int matched = status >= 0 && (lost ? status == 0 : status == r->status);
    /* sent again (after a lost connection, or unanswered), a create that
     * finds its name made did what the first sending did */
    if ((s->retried || s->resent) && status == TBBT_NFSERR_EXIST && r->status == 0 &&
        (r->op == TBBT_OP_CREATE || r->op == TBBT_OP_MKDIR || r->op == TBBT_OP_SYMLINK ||
         r->op == TBBT_OP_MKNOD))
        matched = 1;
    /* for the dependants, a mismatch that changed nothing the trace's call
     * did not change is no failure; nor is any outcome of a call that
     * changes nothing whatever its outcome (a lookup, a read, a listing:
     * what follows on its objects does not depend on it), nor of one whose
     * outcome the trace does not know (its reply lost: pass 2's guess, or
     * success assumed) */
    int changes = r->op < TBBT_OP_COUNT && (tbbt_op_info(r->op)->flags & TBBT_OPF_MODIFIES);
    e->ord->done(e->sched, s->seq,
                 matched || (r->flags & TBBT_RF_REPLY_LOST) || !changes ||
                     !tbbt_sched_diverged(r->status, status));
    e->completed++;
    if (!matched && e->flog) eng_fail_log(e, s, status);
    if (!s->warm) {
        struct tbbt_pstat_proc *p = tbbt_pstats_proc(st, r->vers, r->op);
        struct tbbt_pstat_clone *pc = &st->per_clone[s->clone];
        p->count++;
        if (matched) {
            p->matched++, st->matched++, pc->matched++;
            if (s->send_ns) tbbt_hist_add(&p->lat, (uint64_t)(recv_ns - s->send_ns));
            if (eng_traced_times(r)) tbbt_hist_add(&p->trace_lat, (uint64_t)(r->reply_time - r->call_time));
            if (e->o->speedup > 0 && s->sched_ns)
                tbbt_hist_add(&p->lat_sched, (uint64_t)(recv_ns - s->sched_ns));
        } else if (status == TBBT_PST_SKIPPED) {
            p->skipped++, st->skipped++, pc->skipped++;
        } else {
            p->mismatched++, st->mismatched++, pc->failed++;
            if (status == TBBT_PST_TIMEOUT) p->timeouts++, st->timeouts++;
            if (status == TBBT_PST_NO_HANDLE) st->no_handle++;
            if (status == TBBT_PST_REFUSED) st->refused++;
            if (status == TBBT_PST_CONN_LOST) st->conn_lost++;
            tbbt_pstats_mismatch(p, lost ? 0 : r->status, status);
        }
        struct tbbt_pstat_sec *sec = tbbt_pstats_sec(st, (double)(recv_ns - e->t0) / 1e9);
        sec->done++;
        sec->timeouts += status == TBBT_PST_TIMEOUT, sec->conn_lost += status == TBBT_PST_CONN_LOST;
        if (matched) sec->matched++, sec->lat_sum += s->send_ns ? (double)(recv_ns - s->send_ns) : 0;
    } else {
        st->warmup++;
    }
    atomic_store(&s->state, SL_DONE);
}

/* A request sent is no longer out (its reply came at t, or it failed then). */
void eng_out_done(struct engine *e, struct slot *s, int64_t t) {
    e->outstanding--;
    tbbt_load_close(&e->replay_load, s->load_ticket, s->send_ns, t);
}

/* Applies a reply: what it reveals (when it went as the trace did), then
 * the record's end. */
static void apply_event(struct engine *e, const struct event *ev) {
    struct slot *s = &e->ring[ev->seq & e->mask];
    if (s->seq != ev->seq || atomic_load(&s->state) != SL_SENT) {
        e->st->late_replies++;
        return;
    }
    if (ev->sent_ns > s->send_ns && ev->sent_ns <= ev->recv_ns) /* when it left, as the wire saw it */
        s->send_ns = ev->sent_ns;
    eng_out_done(e, s, ev->recv_ns);
    e->st->replies++;
    const struct tbbt_rec *r = &s->r;
    if (ev->status == 0 && ev->has_fh && tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj)
        eng_learn_fh(e, r->newobj, ev->fh.data, ev->fh.len);
    if (ev->status == 0 && ev->has_cookie && r->nentries) {
        eng_learn_cookie(e, r->obj, r->entries[r->nentries - 1].cookie, ev->cookie, ev->verf);
    }
    eng_complete(e, s, ev->status, ev->recv_ns);
}

/* Takes the receive thread's replies. */
static void take_events(struct engine *e) {
    pthread_mutex_lock(&e->evmu);
    GArray *t = e->ev;
    e->ev = e->ev_spare;
    e->ev_spare = t;
    tbbt_wake_taken(&e->wk);
    pthread_mutex_unlock(&e->evmu);
    if (e->rt.on && t->len) eng_count_taken(e, t, e->rt.take_ns = tbbt_now_ns());
    for (guint i = 0; i < t->len; i++)
        apply_event(e, &g_array_index(t, struct event, i));
    g_array_set_size(t, 0);
}

/* Requests out longer than --retransmit go again, once, with their XID,
 * as an NFS client sends them: a server may drop a request it cannot
 * serve now and count on the client's retransmission (nfs-ganesha drops a
 * READ of a just-removed file's handle when it cannot load it: "Drop
 * request"). The slot goes back to the held heap, as after a lost
 * connection; its old entry in sent_fifo is passed over there. The reply
 * to either sending completes it (a second is a late reply). */
static void retransmit(struct engine *e, int64_t now) {
    int64_t after = (int64_t)e->o->retransmit_s * 1000000000;
    if (!after || e->o->retransmit_s >= e->o->timeout_s) return;
    for (size_t k = 0; k < e->sent_fifo.len; k++) {
        uint64_t seq = eng_fifo_at(&e->sent_fifo, k);
        struct slot *s = &e->ring[seq & e->mask];
        /* a slot sent again has a second, later entry: both are passed */
        if (s->seq != seq || atomic_load(&s->state) != SL_SENT || s->resent) continue;
        if (now - s->send_ns < after) return; /* the fifo is in sending order */
        eng_out_done(e, s, now);
        s->resent = 1;
        e->st->retransmits++;
        atomic_store(&s->state, SL_HELD);
        eng_heap_push(&e->held, 0, seq);
    }
}

/* Requests out longer than the timeout fail. */
static void time_out(struct engine *e, int64_t now) {
    retransmit(e, now);
    int64_t limit = (int64_t)e->o->timeout_s * 1000000000;
    while (e->sent_fifo.len) {
        uint64_t seq = eng_fifo_at(&e->sent_fifo, 0);
        struct slot *s = &e->ring[seq & e->mask];
        if (s->seq == seq && atomic_load(&s->state) == SL_SENT) {
            if (now - s->send_ns < limit) return;
            eng_out_done(e, s, now);
            eng_complete(e, s, TBBT_PST_TIMEOUT, now);
        }
        eng_fifo_pop(&e->sent_fifo);
    }
}

/* Adds loaded records to the ordering policy, within the window, PASS_MAX
 * a pass at most. */
static void admit(struct engine *e) {
    uint64_t loaded = atomic_load(&e->loaded);
    if (loaded > e->next_add + PASS_MAX) loaded = e->next_add + PASS_MAX; /* the rest in the next passes */
    while (!e->stopping && e->next_add < loaded && e->next_add - atomic_load(&e->head) < e->win) {
        struct slot *s = &e->ring[e->next_add & e->mask];
        if (!e->have_t0) e->trace_t0 = s->r.call_time, e->have_t0 = 1;
        s->sched_ns =
            e->o->speedup > 0 ? e->t0 + (int64_t)((double)(s->r.call_time - e->trace_t0) / e->o->speedup) : 0;
        e->st->records++;
        e->st->per_clone[s->clone].records++;
        double span = (double)(s->r.call_time - e->trace_t0) / 1e9;
        if (span > e->st->trace_span_s) e->st->trace_span_s = span;
        if (s->sched_ns && s->sched_ns >= e->warm_end) /* the trace's rate, per second of the schedule */
            tbbt_pstats_sec(e->st, (double)(s->sched_ns - e->t0) / 1e9)->traced++;
        atomic_store(&s->state, SL_WAITING);
        s->retried = s->resent = 0; /* the slot's earlier record's */
        s->admit_pass = e->pass;
        e->ord->add(e->sched, s->seq, &s->r);
        e->next_add++;
    }
}

/* Whether one of r's names must not reach the server: whatever the
 * trace says, the replay stays inside the clones (safename.h). A lookup
 * may name "." or ".." (the live server answers with the directory or its
 * parent, inside the clone) but not ".." of a clone's root; every other
 * name must be one ordinary component. */
static int refused(const struct engine *e, const struct tbbt_rec *r) {
    if (tbbt_rec_has(r, TBBT_F_NAME)) {
        const char *n = tbbt_rec_str(r, r->name);
        size_t len = r->name.len;
        int dots = tbbt_dot_name(n, len);
        if (r->op == TBBT_OP_LOOKUP && dots) {
            if (len == 2 && g_hash_table_contains(e->roots, &r->dir)) return 1;
        } else if (tbbt_name_unsafe(n, len)) {
            return 1;
        }
    }
    return tbbt_rec_has(r, TBBT_F_NAME2) && tbbt_name_unsafe(tbbt_rec_str(r, r->name2), r->name2.len);
}

/* Moves what the policy offers to the held heap (or skips it). */
static void offer(struct engine *e) {
    uint64_t seq;
    int k;
    int64_t t = e->rt.on ? tbbt_now_ns() : 0;
    while (!e->stopping && (k = e->ord->next(e->sched, &seq)) != TBBT_SCHED_NONE) {
        struct slot *s = &e->ring[seq & e->mask];
        if (k == TBBT_SCHED_SKIP) {
            eng_complete(e, s, TBBT_PST_SKIPPED, tbbt_now_ns());
            continue;
        }
        if (!tbbt_rec_replayable(&s->r)) { /* never ran on the traced server, or cut */
            e->st->not_replayable++;
            e->ord->done(e->sched, seq, 1);
            e->completed++;
            atomic_store(&s->state, SL_DONE);
            continue;
        }
        if (refused(e, &s->r)) { /* failed, so what depends on it is skipped */
            eng_complete(e, s, TBBT_PST_REFUSED, tbbt_now_ns());
            continue;
        }
        atomic_store(&s->state, SL_HELD);
        s->ready_ns = t;
        if ((s->dep = e->rt.on && s->admit_pass != e->pass)) e->rt.take_ready += (double)(t - e->rt.take_ns);
        eng_heap_push(&e->held, e->o->speedup > 0 ? s->sched_ns : 0, seq);
    }
}

/* Sends one held record, on connection ci when known (conn_known), else
 * on the one conn_for gives it. Returns 0, or -1 with err (a broken
 * connection). */
static int send_one(struct engine *e, struct slot *s, int ci, int64_t now, char *err, size_t errlen) {
    struct tbbt_cred cred = {1, e->o->uid, e->o->gid, 0, {0}};
    struct tbbt_enc_ctx c = {.fh = eng_enc_fh,
                             .fh_ctx = e,
                             .cookie = eng_enc_cookie,
                             .cookie_ctx = e,
                             .payload = e->payload,
                             .payload_len = 1u << 20,
                             .create_verf = ((uint64_t)e->xid_base << 32) ^ ++e->verf_ctr,
                             .cred = e->o->cred_set ? &cred : NULL};
    char why[256];
    ssize_t n = tbbt_nfs_encode_call(&s->r, e->xid_base + (uint32_t)s->seq, &c, e->sendbuf, SEND_BUF, why,
                                     sizeof(why));
    if (n < 0) { /* a handle nobody revealed: the record cannot go */
        eng_complete(e, s, TBBT_PST_NO_HANDLE, now);
        return 0;
    }
    if (ci < 0 && (ci = eng_conn_for(e, s, err, errlen)) < 0) return -1;
    if (atomic_load(&e->broken[ci]) && eng_repair(e, ci, err, errlen) < 0) return -1;
    /* encoded: in timestamp mode it goes to the kernel now (latency and
     * load start here, as near the wire's call time as the player can
     * tell: docs/load-fidelity.md); at full speed the dispatch's time,
     * one clock read less */
    if (e->o->speedup > 0) now = tbbt_now_ns();
    s->conn = ci;
    s->send_ns = now;
    s->flush_ns = 0;
    s->warm = e->o->warmup_s > 0 && now < e->warm_end;
    atomic_store(&s->tag, s->seq << 12 | (uint64_t)(s->r.vers & 0xf) << 8 | s->r.op);
    atomic_store(&s->mark, tbbt_pconn_mark(&e->conn[ci], (size_t)n));
    atomic_store(&s->state, SL_SENT);
    e->outstanding++;
    s->load_ticket = tbbt_load_open(&e->replay_load, now);
    if (tbbt_pconn_queue(&e->conn[ci], e->sendbuf, (size_t)n) < 0) {
        if (errno == EMSGSIZE) { /* too large for a UDP datagram: this record fails, not the connection */
            eng_out_done(e, s, now);
            eng_complete(e, s, TBBT_PST_RPC_ERROR, now);
            return 0;
        }
        atomic_store(&e->broken[ci], 1); /* the receive thread will see it too */
    }
    e->ord->sent(e->sched, s->seq);
    eng_fifo_push(&e->sent_fifo, s->seq);
    struct tbbt_play_stats *st = e->st;
    st->sent++;
    if (!s->warm) st->per_clone[s->clone].sent++;
    if (e->slog) eng_send_log(e, s);
    if (e->outstanding > st->max_outstanding) st->max_outstanding = e->outstanding;
    if (!s->warm) {
        tbbt_hist_add(&st->outstanding, e->outstanding);
        struct tbbt_pstat_sec *sec = tbbt_pstats_sec(st, (double)(now - e->t0) / 1e9);
        sec->sent++;
        sec->outstanding_sum += (double)e->outstanding;
        if (e->o->speedup > 0) {
            int64_t late = now - s->sched_ns;
            tbbt_hist_add(&st->issue_err, (uint64_t)(late > 0 ? late : 0));
            if (late > sec->behind_max) sec->behind_max = late;
        }
    }
    return 0;
}

/* Writes what connection i has queued (one write for the burst). */
static void flush_conn(struct engine *e, int i) {
    if (e->conn[i].outlen && tbbt_pconn_flush(&e->conn[i]) < 0) atomic_store(&e->broken[i], 1);
}

static void flush_all(struct engine *e) {
    for (int i = 0; i < atomic_load(&e->nconn); i++)
        flush_conn(e, i);
}

/* Takes the held records that go now into e->batch, in the order they
 * go: those due (timestamp mode: at now, read again once the next is not
 * due at the old one), within the cap on outstanding requests, PASS_MAX
 * at most. Returns how many, and in *rc the ns until the next one is due
 * (-1: none held, 0: held back by the cap, DISPATCH_MORE: the bound). */
static size_t take_due(struct engine *e, int64_t *rc) {
    size_t n = 0;
    int64_t now = tbbt_now_ns();
    *rc = -1;
    while (e->held.n) {
        if (e->held.v[0].t > now && e->held.v[0].t > (now = tbbt_now_ns())) {
            *rc = e->held.v[0].t - now;
            break;
        }
        if (e->outstanding + n >= e->o->max_outstanding) {
            *rc = 0;
            break;
        }
        if (n == PASS_MAX) {
            *rc = DISPATCH_MORE;
            break;
        }
        if (n == e->batch_cap) {
            e->batch_cap = e->batch_cap ? 2 * e->batch_cap : 256;
            e->batch = g_renew(uint64_t, e->batch, e->batch_cap);
            e->batch_conn = g_renew(int, e->batch_conn, e->batch_cap);
        }
        e->batch[n++] = e->held.v[0].seq;
        eng_heap_pop(&e->held);
    }
    return n;
}

/* A pass's memo of the connections its records' clients have (conn_known
 * hashes the client's address per call; a pass has a few clients and many
 * records): the last CONN_MEMO clients found, in turn. Known connections
 * never change, so a memo is right for its whole pass. */
#define CONN_MEMO 8
struct conn_memo {
    struct tbbt_endpoint ep[CONN_MEMO];
    uint32_t clone[CONN_MEMO];
    int conn[CONN_MEMO];
    int n, next;
};

/* eng_conn_known, through the pass's memo. */
static int conn_known_memo(struct engine *e, struct conn_memo *m, const struct slot *s) {
    const struct tbbt_endpoint *ep = &s->r.client;
    for (int i = 0; i < m->n; i++)
        if (m->clone[i] == s->clone && m->ep[i].port == ep->port && m->ep[i].family == ep->family &&
            !memcmp(m->ep[i].addr, ep->addr, sizeof(ep->addr)))
            return m->conn[i];
    int c = eng_conn_known(e, s);
    if (c >= 0) { /* an unknown one gets its connection in send_one: not memoised */
        int i = m->next;
        m->next = (m->next + 1) % CONN_MEMO;
        if (m->n < CONN_MEMO) m->n++;
        m->ep[i] = *ep, m->clone[i] = s->clone, m->conn[i] = c;
    }
    return c;
}

/* Sends the held records whose time has come, within the cap on
 * outstanding requests and PASS_MAX, in the order they are held. Each connection is
 * written once a pass, as soon as the pass's last request for it is
 * queued, not all at the end: the server starts on the first
 * connection's calls while the player encodes the others' (the same
 * writes, earlier). Returns the ns until the next one is due (-1: none
 * held, 0: held back by the cap, DISPATCH_MORE: more are due), or -2 on a
 * send error. */
static int64_t dispatch(struct engine *e, char *err, size_t errlen) {
    int64_t rc;
    for (;;) {
        size_t n = take_due(e, &rc);
        int *last = e->conn_last, early = 1; /* read only where this pass wrote it */
        struct conn_memo memo = {.n = 0};
        for (size_t i = 0; i < n; i++) { /* where each connection's last request of the pass is */
            int c = conn_known_memo(e, &memo, &e->ring[e->batch[i] & e->mask]);
            e->batch_conn[i] = c;
            if (c >= 0)
                last[c] = (int)i;
            else if (e->conns_full) /* a new client shares a connection: which, only conn_for says */
                early = 0;
        }
        for (size_t i = 0; i < n; i++) {
            struct slot *s = &e->ring[e->batch[i] & e->mask];
            int c = e->batch_conn[i];
            if (send_one(e, s, c, tbbt_now_ns(), err, errlen) < 0) return -2;
            if (early && c >= 0 && last[c] == (int)i) {
                flush_conn(e, c);
                if (e->rt.on) eng_count_flushed(e, i + 1, c, tbbt_now_ns());
            }
        }
        flush_all(e);
        if (e->rt.on) eng_count_flushed(e, n, -1, tbbt_now_ns());
        if (rc == DISPATCH_MORE) return rc; /* the pass's bound: the replies come first */
        /* more may go: held back by the cap, but a record of the pass did
         * not go out (no handle), or the next came due meanwhile */
        if (!e->held.n || e->outstanding >= e->o->max_outstanding) return rc;
        if (rc > 0 && (rc = e->held.v[0].t - tbbt_now_ns()) > 0)
            return rc; /* from now, not the pass's start */
    }
}

/* The reply the send thread may sleep for, about to sleep: the one the
 * policy says holds it back (order.h, blocker), or TBBT_WAKE_ANY when the
 * policy cannot say, or any reply would do (held back by the cap on
 * outstanding requests, or stopping: waiting for them all). */
static uint64_t wake_for(struct engine *e) {
    uint64_t seq;
    if (e->stopping || !e->ord->blocker || (e->held.n && e->outstanding >= e->o->max_outstanding))
        return TBBT_WAKE_ANY;
    return e->ord->blocker(e->sched, &seq) ? seq : TBBT_WAKE_ANY;
}

/* Says what the send thread, about to sleep, waits for (wake.h): a reply
 * wakes it only when it is the one awaited; in conservative order most
 * replies let nothing new go, so they wait in the queue, to be taken with
 * the one that does (the same decisions, fewer wake-ups). Held back by the
 * cap alone, it waits for a batch of replies (tbbt_wake_batch), so that it
 * wakes once to send a batch, not once per reply to send one: the cap's
 * requests are out, so the batch comes, or times out by the sleep's bound. */
static void arm(struct engine *e) {
    uint64_t w = wake_for(e);
    int capped = !e->stopping && e->held.n && e->outstanding >= e->o->max_outstanding;
    uint32_t after = capped ? tbbt_wake_batch(e->o->max_outstanding) : 1;
    pthread_mutex_lock(&e->evmu); /* what on_reply queued before: is the awaited reply there? */
    int there = 0;
    for (guint i = 0; i < e->ev->len && !there && w != TBBT_WAKE_ANY; i++)
        there = g_array_index(e->ev, struct event, i).seq == w;
    tbbt_wake_arm(&e->wk, w, after, e->ev->len, there);
    pthread_mutex_unlock(&e->evmu);
}

/* What the send thread, about to sleep with wait from dispatch, waits for
 * (TBBT_PLAY_COUNTS; W_*). */
static int wait_reason(struct engine *e, int64_t wait) {
    if (wait > 0) return W_TIME;
    if (wait == 0) return W_CAP;
    if (e->next_add - atomic_load(&e->head) >= e->win) return W_WINDOW;
    if (e->next_add == atomic_load(&e->loaded) && !atomic_load(&e->io_eof)) return W_RECORDS;
    return W_DEPS;
}

/* Sleeps until woken, or for at most ns (50 ms at most: timeouts and the
 * end of --duration are the send thread's to see). The other threads
 * wake it only while it says it sleeps, so a busy replay costs them no
 * syscall per record or reply. why: wait_reason's, for the counts. */
static void sleep_for(struct engine *e, int64_t ns, int why) {
    arm(e);
    tbbt_wake_raise(&e->wk);
    /* work that came in since the loop looked: do not sleep on it */
    int admissible = atomic_load(&e->loaded) > e->next_add && e->next_add - atomic_load(&e->head) < e->win;
    if (tbbt_wake_owed(&e->wk) || (admissible && !e->stopping)) {
        tbbt_wake_lower(&e->wk);
        return;
    }
    int64_t t = e->rt.on ? tbbt_now_ns() : 0;
    tbbt_wake_wait(&e->wk, ns, 50000000);
    if (e->rt.on) e->rt.wait_ns[why] += (double)(tbbt_now_ns() - t), e->rt.waits[why]++;
}

/* The send thread's loop: until every record is done, or a stop. */
int eng_play_loop(struct engine *e, char *err, size_t errlen) {
    int64_t last_live = tbbt_now_ns();
    uint64_t last_done = 0;
    for (;;) {
        e->pass++;
        take_events(e);
        int64_t now = tbbt_now_ns();
        time_out(e, now);
        if (!e->stopping && (eng_interrupted || (e->end_at && now >= e->end_at))) {
            e->stopping = 1;
            e->st->partial = eng_interrupted != 0;
        }
        admit(e);
        offer(e);
        free_slots(e);
        int64_t wait = e->stopping ? -1 : dispatch(e, err, errlen);
        if (wait == -2) return -1;
        for (int i = 0; i < atomic_load(&e->nconn); i++)
            if (atomic_load(&e->broken[i]) && eng_repair(e, i, err, errlen) < 0) return -1;
        eng_live_line(e, now, &last_live, &last_done);
        int io_done = atomic_load(&e->io_eof) && e->next_add == atomic_load(&e->loaded);
        if (e->stopping && !e->outstanding) return 0;
        if (io_done && !e->outstanding && !e->held.n && e->completed == e->next_add) return 0;
        if (io_done && !e->outstanding && !e->held.n && e->completed < e->next_add) {
            /* a record finished inside dispatch (no handle) may have freed the next one */
            offer(e);
            if (e->held.n || e->completed == e->next_add) continue;
            /* nothing out, nothing offered, records left: a dependency that can never be met */
            if (getenv("TBBT_PLAY_DEBUG"))
                for (uint64_t q = atomic_load(&e->head); q < e->next_add && q < atomic_load(&e->head) + 5;
                     q++) {
                    struct slot *d = &e->ring[q & e->mask];
                    fprintf(stderr,
                            "debug: seq %llu state %d op %d call %lld reply %lld flags %x status %d\n",
                            (unsigned long long)q, atomic_load(&d->state), d->r.op, (long long)d->r.call_time,
                            (long long)d->r.reply_time, d->r.flags, d->r.status);
                }
            snprintf(err, errlen, "%llu records never became ready (ordering deadlock)",
                     (unsigned long long)(e->next_add - e->completed));
            return -1;
        }
        if (wait > 200000)
            sleep_for(e, wait - 100000, W_TIME); /* the last 0.1 ms: spin, for the issue error */
        else if (wait <= 0)
            sleep_for(e, -1,
                      wait_reason(e, wait)); /* nothing due, or the cap: until a reply or a record comes */
    }
}
