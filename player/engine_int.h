/* engine_int.h -- what the files of tbbt-play's engine share (engine.h is
 * the engine's interface; this is its inside).
 *
 * struct engine is the one replay's state. Each thread has a file (io.c,
 * rx.c, send.c), and so has each thing the send thread uses that is a
 * concept of its own: the live handles and cookies (handles.c), the
 * connections requests go on (conns.c), a broken connection's repair
 * (reconnect.c), the server check (srvcheck.c), the logs (faillog.c),
 * the progress line (progress.c), the round-trip counts (counts.c).
 * engine.c sets up, starts and joins the threads, and tears down. Which
 * thread owns which field is said at the field. eng_ is the prefix of the
 * functions shared among these files; nothing outside player/engine*.c
 * and these files includes this header. */
#ifndef TBBT_ENGINE_INT_H
#define TBBT_ENGINE_INT_H

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include <glib.h>

#include "conn.h"
#include "engine.h"
#include "fhslots.h"
#include "htab.h"
#include "idmap.h"
#include "nfsdec.h"
#include "poller.h"
#include "queue.h"
#include "recfile.h"
#include "stats_load.h"
#include "wake.h"

/* Connections at most, whatever the traced clients and the open-files
 * limit: a table of this many is reserved at setup (zeroed pages, touched
 * only as connections are made). Past it, or past what the open-files
 * limit allows, clients share the connections in turn (conns.c). */
#define MAX_CONN TBBT_PLAY_MAX_CONN
#define CONN_FDS_SPARE 64 /* descriptors kept for the rest: trace, logs, epoll, MPI */
/* Records admitted, and records sent, in one pass of the send thread at
 * most. A pass ends by taking the replies that came meanwhile; a pass of
 * hundreds of requests (the window moving on by hundreds of records at
 * once, most of them free to go) held up the replies on fsdep's critical
 * chain (one hot directory's creates and removes, one round trip each) for
 * as long as it took. 64 and 128 each gave more ops/s than no bound, 32
 * less (more writes); 128 writes hardly more often than no bound. */
#define PASS_MAX 128
#define DISPATCH_MORE 1 /* dispatch: more are due now (the pass's bound): go round again */
#define SEND_BUF (2u << 20)

/* Slot states. */
enum { SL_FREE, SL_LOADED, SL_WAITING, SL_HELD, SL_SENT, SL_DONE };

/* One record of the window. */
struct slot {
    struct tbbt_rec r;
    uint64_t seq;
    _Atomic int state;
    /* seq << 12 | vers << 8 | op, set before state becomes SENT: all the
     * receive thread reads of a slot (the rest may be refilled under it) */
    _Atomic uint64_t tag;
    _Atomic uint64_t mark; /* its mark on its connection (conn.h), set with tag */
    int conn;
    uint32_t clone; /* offset of its clone from the first (--clones) */
    int warm;       /* sent during the warm-up: left out of the figures */
    int retried;    /* sent again after its connection was lost */
    int resent;     /* sent again after --retransmit seconds unanswered */
    int64_t sched_ns, send_ns;
    uint64_t load_ticket;       /* its request in the replay's load (stats_load.h) */
    int64_t ready_ns, flush_ns; /* TBBT_PLAY_COUNTS: offered, and its connection written (0: not yet) */
    uint64_t admit_pass;        /* the send thread's pass that admitted it */
    int dep;                    /* TBBT_PLAY_COUNTS: offered in a later pass (it waited on a dependency) */
};

/* A reply, decoded by the receive thread for the send thread. */
struct event {
    uint64_t seq;
    int64_t recv_ns;
    int64_t sent_ns; /* when the kernel sent it (conn.h: transmit stamps), or 0 */
    int64_t read_ns; /* when the receive thread's read returned it */
    int status;      /* NFS status, or TBBT_PST_RPC_ERROR */
    int has_fh, has_cookie;
    uint64_t cookie, verf;
    struct tbbt_fh fh;
};

/* What the send thread waits for when it sleeps (TBBT_PLAY_COUNTS): a
 * reply that releases a dependant (deps), a reply that frees the oldest
 * record of a full window (window), records the I/O thread has not loaded
 * yet (records), a reply under the cap on outstanding requests (cap), or
 * the next record's time (time, timestamp mode). */
enum { W_DEPS, W_WINDOW, W_RECORDS, W_CAP, W_TIME, W_N };

/* TBBT_PLAY_COUNTS: the threads whose own CPU and context switches are
 * counted (getrusage(RUSAGE_THREAD) at the start and end of each one's
 * part of the replay). */
enum { T_SEND, T_RX, T_IO, T_N };
struct thr_use {
    double user_s, sys_s; /* CPU */
    long vcsw, ivcsw;     /* context switches: slept (voluntary), preempted (involuntary) */
};

/* TBBT_PLAY_COUNTS: where a request's round trip goes, and where the
 * threads wait; sums in ns, each field kept by one thread and read once
 * the threads are joined. Measured only when asked (clock reads). */
struct rt_counts {
    int on;
    double ready_flush;  /* send: offered (its dependencies met) to its connection's write */
    double flush_arrive; /* send: that write to its reply's arrival (the kernel's receive time) */
    double arrive_read;  /* send: the arrival to the receive thread's read */
    double read_take;    /* send: that read to the send thread taking the reply */
    uint64_t flushed, taken;
    double take_ready, dep_flush; /* send: for the records that waited on a dependency, the pass's take to
                                     their offer, and that to their write */
    uint64_t deps;
    int64_t take_ns;     /* send: the last take of replies */
    double wait_ns[W_N]; /* send: time asleep, by what it waited for */
    uint64_t waits[W_N];
    double poll_ns;          /* receive: time in poll() */
    struct thr_use thr[T_N]; /* each kept by its thread: eng_count_thread */
};

struct engine {
    const struct tbbt_play_opts *o;
    struct tbbt_play_stats *st;
    const struct tbbt_sched_ops *ord; /* o->order, or per clone around it */
    uint32_t nclones;                 /* copies of the trace (--clones, or --loop) */
    int loop;                         /* --loop: the copies one after another, not interleaved */
    _Atomic uint64_t loop_len;        /* --loop: records in one copy (known once the first is read) */
    uint64_t win;                     /* the window over all copies: o->window each */
    struct tbbt_rec io_rec;           /* the I/O thread's record, before it is copied */
    FILE *slog;                       /* --send-log */
    FILE *flog;                       /* --fail-log */
    struct slot *ring;
    uint32_t mask;
    struct tbbt_recreader *rd;
    pthread_t io, rx;
    int io_started, rx_started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    _Atomic uint64_t loaded, head;
    _Atomic int io_eof, stop_io, stop_rx;
    _Atomic int io_waiting; /* the I/O thread waits for room (set under mu) */
    uint64_t resume;        /* room the I/O thread waits for once the ring is full */
    struct tbbt_wake wk;    /* the send thread's sleep; its wake-ups' state under evmu (wake.h) */
    char io_err[512];
    pthread_mutex_t evmu;
    GArray *ev, *ev_spare;
    /* the connections: conn_cap reserved at setup, never moved (the
     * receive thread reads conn[i] for i < nconn while the send thread
     * adds more); made by the send thread only (conns.c) */
    struct tbbt_pconn *conn;
    _Atomic int nconn;
    _Atomic int *broken;        /* set by the receive thread, repaired by the send thread */
    int conn_cap;               /* connections at most: MAX_CONN, --connections, or the open-files limit */
    int conns_full;             /* no new connection: clients share them in turn (conns.c) */
    unsigned long long fd_hard; /* the hard open-files limit (0: unlimited) */
    int *conn_last;             /* dispatch's scratch: a connection's last request of the pass */
    struct tbbt_poller poller;  /* the receive thread's wait (poller.h): ids are connection indexes */
    _Atomic uint64_t rx_pass;   /* the receive thread's loop count: repair waits for a new pass */
    _Atomic int rx_gone;        /* the receive thread has returned */
    GHashTable *client_conn;    /* struct client_key -> index + 1 */
    /* the live handles (handles.c): the manifest's objects once, by their
     * TBBT-ID without the clone (clones.h), each clone only its handles;
     * the rest (learned from replies) by their full ID */
    struct tbbt_idmap mf_idx;   /* manifest ID -> index into each clone's mf_fh */
    struct tbbt_fhslots *mf_fh; /* [nclones] */
    struct tbbt_idmap fh_idx;   /* other IDs -> index into fh_more */
    struct tbbt_fhslots fh_more;
    GHashTable *roots;   /* ids of the clones' roots (the manifest's "."): no ".." above them */
    char *mf_server;     /* the manifest's "server": where tbbt-init built the image (NULL: not said) */
    GHashTable *cookies; /* struct ckey -> struct cval */
    void *sched;
    uint64_t next_add, completed, outstanding;
    struct eng_heap held;         /* offered, waiting for their time (queue.h) */
    struct eng_fifo sent_fifo;    /* seqs in send order, for timeouts (queue.h) */
    struct tbbt_load trace_load;  /* the trace's calls out over traced time (the I/O thread's) */
    struct tbbt_load replay_load; /* the requests out over the replay's time (the send thread's) */
    uint8_t *payload, *sendbuf;
    uint32_t xid_base;
    uint64_t verf_ctr;
    int64_t t0, trace_t0, warm_end, end_at;
    int have_t0, stopping;
    char rx_err[512];
    struct tbbt_rec rx_rec; /* the receive thread's decoding scratch */
    struct tbbt_fhrefs rx_refs;
    GArray *rx_batch; /* the receive thread's replies of one pass, handed over together */
    int rx_conn;      /* the connection the receive thread reads (for on_reply) */
    /* hand-offs and sleeps, each counted by the thread that makes them
     * (read once the threads are joined; TBBT_PLAY_COUNTS) */
    uint64_t io_signals; /* send thread: wakes of the I/O thread */
    uint64_t io_sleeps;  /* I/O thread: waits for room */
    uint64_t rx_polls;   /* receive thread: passes (one poll each) */
    struct rt_counts rt;
    uint64_t pass;   /* the send thread's loop count */
    uint64_t *batch; /* dispatch: the seqs going out in one pass, and their connections */
    int *batch_conn;
    size_t batch_cap;
    struct timespec cpu0;
};

/* SIGINT (tbbt_play_interrupt): the send thread stops at its next pass. */
extern volatile sig_atomic_t eng_interrupted;

/* handles.c: the live handles and readdir cookies. */
void eng_handles_init(struct engine *e);
void eng_handles_free(struct engine *e);
int eng_load_manifest(struct engine *e, char *err, size_t errlen);
void eng_learn_fh(struct engine *e, tbbt_id id, const uint8_t *data, uint32_t len);
void eng_learn_cookie(struct engine *e, tbbt_id dir, uint64_t trace_cookie, uint64_t cookie, uint64_t verf);
int eng_enc_fh(void *ctx, tbbt_id id, const uint8_t **data, uint32_t *len);
int eng_enc_cookie(void *ctx, tbbt_id dir, uint64_t trace_cookie, uint64_t *cookie, uint64_t *verf);
int eng_known(void *ctx, tbbt_id id);

/* srvcheck.c: the server and export, before the replay. */
int eng_check_server(struct engine *e, char *err, size_t errlen);

/* io.c: the I/O thread (one of the two bodies), and a record's traced times. */
void *eng_io_main(void *arg);
void *eng_io_loop_main(void *arg);
int eng_traced_times(const struct tbbt_rec *r);

/* rx.c: the receive thread. */
void *eng_rx_main(void *arg);

/* send.c: the send thread's loop, and a record's end. */
int eng_play_loop(struct engine *e, char *err, size_t errlen);
void eng_complete(struct engine *e, struct slot *s, int status, int64_t recv_ns);
void eng_out_done(struct engine *e, struct slot *s, int64_t t);

/* conns.c: the connection a request goes on. */
int eng_conns_init(struct engine *e, char *err, size_t errlen);
void eng_conns_free(struct engine *e);
void eng_conns_say(const struct engine *e);
int eng_open_conn(struct engine *e, int i, char *err, size_t errlen);
int eng_conn_known(struct engine *e, const struct slot *s);
int eng_conn_for(struct engine *e, const struct slot *s, char *err, size_t errlen);

/* reconnect.c: connection i made again. */
int eng_repair(struct engine *e, int i, char *err, size_t errlen);

/* faillog.c: --fail-log and --send-log. */
void eng_fail_log(struct engine *e, const struct slot *s, int status);
void eng_send_log(struct engine *e, const struct slot *s);

/* progress.c: --live. */
void eng_live_line(struct engine *e, int64_t now, int64_t *last, uint64_t *last_done);

/* counts.c: TBBT_PLAY_COUNTS. */
void eng_count_taken(struct engine *e, const GArray *t, int64_t now);
void eng_count_flushed(struct engine *e, size_t n, int c, int64_t t);
void eng_write_counts(const struct engine *e);
void eng_count_thread(struct engine *e, int which, int end);

#endif
