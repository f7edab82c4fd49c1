/* rx.c -- tbbt-play's receive thread (see engine.h, engine_int.h).
 *
 * Reads replies from every connection, matches their XIDs to slots,
 * decodes them and hands each pass's replies to the send thread at once.
 * It owns no replay state: what it reads of a slot is its tag and mark. */
#include "engine_int.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "nfsdec.h"

/* Decodes one reply for the slot its XID names into the pass's batch
 * (rx_hand_over queues the batch). */
static void on_reply(void *ctx, const uint8_t *m, size_t n) {
    struct engine *e = ctx;
    struct tbbt_rpc_hdr h;
    if (tbbt_rpc_parse(m, n, &h) < 0 || h.mtype != TBBT_RPC_REPLY) return;
    uint32_t low = h.xid - e->xid_base;
    struct slot *s = &e->ring[low & e->mask];
    if (atomic_load(&s->state) != SL_SENT) return; /* late or foreign */
    uint64_t tag = atomic_load(&s->tag), seq = tag >> 12;
    if ((uint32_t)seq != low) return;
    uint8_t op = (uint8_t)(tag & 0xff), vers = (uint8_t)((tag >> 8) & 0xf);
    /* its arrival: the kernel's receive time of the read that brought it,
     * one for the read's replies (conn.h: the time of the read without) */
    struct tbbt_pconn *c = &e->conn[e->rx_conn];
    struct event ev = {.seq = seq,
                       .recv_ns = c->rx_ns,
                       .read_ns = c->rd_ns,
                       .sent_ns = tbbt_pconn_sent_at(c, atomic_load(&s->mark)),
                       .status = TBBT_PST_RPC_ERROR};
    if (h.reply_stat == 0 && h.accept_stat == 0) {
        struct tbbt_rec *rr = &e->rx_rec; /* the receive thread's own scratch */
        tbbt_rec_clear(rr);
        tbbt_fhrefs_clear(&e->rx_refs);
        struct tbbt_fhrefs *refs = &e->rx_refs;
        rr->op = op, rr->vers = vers;
        if (tbbt_nfs_decode_reply(rr, m + h.body, n - h.body, refs) != TBBT_DEC_BAD) ev.status = rr->status;
        for (uint32_t i = 0; i < refs->n; i++)
            if (refs->v[i].field == TBBT_F_NEWOBJ) {
                ev.has_fh = 1;
                ev.fh.len = refs->v[i].len;
                memcpy(ev.fh.data, refs->v[i].data, refs->v[i].len);
            }
        if ((op == TBBT_OP_READDIR || op == TBBT_OP_READDIRPLUS) && rr->nentries) {
            ev.has_cookie = 1;
            ev.cookie = rr->entries[rr->nentries - 1].cookie;
            ev.verf = tbbt_rec_has(rr, TBBT_F_RCOOKIEVERF) ? rr->rcookieverf : 0;
        }
    }
    g_array_append_val(e->rx_batch, ev);
}

/* Queues the pass's replies for the send thread: one lock for every reply
 * a pass read, not one each, and no copy when the send thread has taken
 * the queue since (the usual case: the batch becomes the queue, the empty
 * queue the next batch); else one copy of the whole batch. */
static void rx_hand_over(struct engine *e) {
    GArray *b = e->rx_batch;
    if (!b->len) return;
    pthread_mutex_lock(&e->evmu);
    guint before = e->ev->len;
    if (!before) {
        e->rx_batch = e->ev;
        e->ev = b;
    } else {
        g_array_append_vals(e->ev, b->data, b->len);
    }
    for (guint i = before; i < e->ev->len; i++)
        tbbt_wake_post(&e->wk, g_array_index(e->ev, struct event, i).seq, i + 1);
    pthread_mutex_unlock(&e->evmu);
    g_array_set_size(e->rx_batch, 0);
}

/* Reads what every ready connection has (poller.h: epoll, so idle
 * connections cost nothing a pass). A broken connection is left alone
 * until it is repaired: broken[i] is read after the pass is counted (see
 * eng_repair()); one this thread finds broken leaves the set at once, one
 * the send thread found broken leaves it when repair closes it. Returns
 * 1 when a connection was lost. */
static int rx_read_ready(struct engine *e, int r) {
    int lost = 0, n = atomic_load(&e->nconn), skipped = 0;
    for (int k = 0; k < r; k++) {
        int i = (int)e->poller.id[k];
        if (i >= n || atomic_load(&e->broken[i])) {
            skipped++;
            continue;
        }
        e->rx_conn = i; /* on_reply takes the read's time from it */
        if (tbbt_pconn_read(&e->conn[i], on_reply, e, e->rx_err, sizeof(e->rx_err)) < 0) {
            tbbt_poller_del(&e->poller, e->conn[i].fd);
            atomic_store(&e->broken[i], 1), lost = 1;
        }
    }
    if (r > 0 && skipped == r) usleep(1000); /* only broken ones, ready until repaired: no spin */
    return lost;
}

/* Reads replies from every connection until told to stop. */
void *eng_rx_main(void *arg) {
    struct engine *e = arg;
    eng_count_thread(e, T_RX, 0);
    while (!atomic_load(&e->stop_rx)) {
        atomic_fetch_add(&e->rx_pass, 1); /* before reading broken[]: see eng_repair() */
        int64_t tp = e->rt.on ? tbbt_now_ns() : 0;
        int r = tbbt_poller_wait(&e->poller, 20);
        e->rx_polls++;
        if (e->rt.on) e->rt.poll_ns += (double)(tbbt_now_ns() - tp);
        if (r < 0) break;
        int lost = rx_read_ready(e, r);
        rx_hand_over(e);
        /* the send thread, asleep, waits for one reply (or any): not
         * woken for the others, which wait in the queue (sleep_for) */
        if (lost || tbbt_wake_hit(&e->wk)) tbbt_wake_sleeper(&e->wk);
    }
    eng_count_thread(e, T_RX, 1);
    atomic_store(&e->rx_gone, 1);
    tbbt_wake_kick(&e->wk);
    return NULL;
}
