/* reconnect.c -- a broken connection made again (see engine_int.h).
 *
 * The send thread's, when the receive thread or a write finds a
 * connection broken: the requests out on it go again or fail, and the
 * connection is reopened once the receive thread has let go of it. */
#include "engine_int.h"

#include <unistd.h>

#include "clock.h"

/* Does op only read? (a read is not sent again after a lost connection) */
static int read_only(unsigned op) {
    return !(tbbt_op_info(op)->flags & TBBT_OPF_MODIFIES);
}

/* Waits until the receive thread has let go of every broken connection:
 * broken[i] is set before this reads rx_pass, and a pass reads broken[]
 * after counting itself, so the first pass counted after that read leaves
 * connection i alone, and the one that may have used it has ended. Then
 * the connection may be closed and reopened under it. */
static void rx_let_go(struct engine *e) {
    uint64_t pass = atomic_load(&e->rx_pass);
    while (e->rx_started && atomic_load(&e->rx_pass) == pass && !atomic_load(&e->rx_gone))
        usleep(1000); /* a pass polls 20 ms at most */
}

/* Connection i broke: the requests out on it that change state go again
 * (once) on a new connection, the others fail; the connection is made
 * again, retrying while the server restarts, up to the timeout. Returns
 * 0, or -1 with err when the server stays away. */
int eng_repair(struct engine *e, int i, char *err, size_t errlen) {
    e->st->reconnects++;
    tbbt_pstats_sec(e->st, (double)(tbbt_now_ns() - e->t0) / 1e9)->reconnects++;
    for (size_t k = 0; k < e->sent_fifo.len; k++) {
        uint64_t seq = eng_fifo_at(&e->sent_fifo, k);
        struct slot *s = &e->ring[seq & e->mask];
        if (s->seq != seq || atomic_load(&s->state) != SL_SENT || s->conn != i) continue;
        eng_out_done(e, s, tbbt_now_ns());
        if (read_only(s->r.op) || s->retried) {
            eng_complete(e, s, TBBT_PST_CONN_LOST, tbbt_now_ns());
        } else {
            s->retried = 1;
            atomic_store(&s->state, SL_HELD);
            eng_heap_push(&e->held, 0, seq);
        }
    }
    rx_let_go(e);
    tbbt_pconn_close(&e->conn[i]);
    int64_t give_up = tbbt_now_ns() + (int64_t)e->o->timeout_s * 1000000000;
    while (eng_open_conn(e, i, err, errlen) < 0) {
        if (tbbt_now_ns() > give_up || eng_interrupted) return -1;
        usleep(200000);
    }
    atomic_store(&e->broken[i], 0);
    return 0;
}
