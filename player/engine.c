/* engine.c -- tbbt-play's three-thread engine (see engine.h). */
#include "engine.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "clones.h"
#include "clock.h"
#include "conn.h"
#include "htab.h"
#include "manifest.h"
#include "nfsdec.h"
#include "nfs_ops.h"
#include "nfsstat.h"
#include "nfsenc.h"
#include "recfile.h"
#include "rng.h"
#include "safename.h"
#include "wake.h"

#define MAX_CONN 64
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

static volatile sig_atomic_t interrupted;

void tbbt_play_interrupt(void) {
    interrupted = 1;
}

void tbbt_play_opts_default(struct tbbt_play_opts *o) {
    memset(o, 0, sizeof(*o));
    o->order = &tbbt_sched_fsdep;
    o->window = TBBT_PLAY_WINDOW;
    o->clones = 1;
    o->max_outstanding = TBBT_PLAY_MAX_OUT;
    o->timeout_s = TBBT_PLAY_TIMEOUT;
    o->seed = TBBT_PLAY_SEED;
}

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

/* A handle the replay knows. */
struct fhent {
    tbbt_id id;
    struct tbbt_fh fh;
};

/* A live readdir position: the trace's cookie in a directory, and where
 * the live listing stands at that point. */
struct ckey {
    tbbt_id dir;
    uint64_t cookie;
};
struct cval {
    struct ckey k;
    uint64_t cookie, verf;
};

/* Seqs in send order: a growable ring (no allocation per request). */
struct fifo {
    uint64_t *v;
    size_t head, len, cap;
};

static void fifo_push(struct fifo *f, uint64_t x) {
    if (f->len == f->cap) { /* grow, unrolling the ring */
        size_t cap = f->cap ? 2 * f->cap : 4096;
        uint64_t *v = g_new(uint64_t, cap);
        for (size_t i = 0; i < f->len; i++)
            v[i] = f->v[(f->head + i) % f->cap];
        g_free(f->v);
        f->v = v, f->cap = cap, f->head = 0;
    }
    f->v[(f->head + f->len++) % f->cap] = x;
}

/* The i-th oldest seq (i < len). */
static uint64_t fifo_at(const struct fifo *f, size_t i) {
    return f->v[(f->head + i) % f->cap];
}

static void fifo_pop(struct fifo *f) {
    f->head = (f->head + 1) % f->cap;
    f->len--;
}

/* What the send thread waits for when it sleeps (TBBT_PLAY_COUNTS): a
 * reply that releases a dependant (deps), a reply that frees the oldest
 * record of a full window (window), records the I/O thread has not loaded
 * yet (records), a reply under the cap on outstanding requests (cap), or
 * the next record's time (time, timestamp mode). */
enum { W_DEPS, W_WINDOW, W_RECORDS, W_CAP, W_TIME, W_N };
static const char *const wait_names[W_N] = {"deps", "window", "records", "cap", "time"};

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
    double poll_ns; /* receive: time in poll() */
};

/* Records offered, waiting for their time: a min-heap by (time, seq). */
struct held {
    int64_t t;
    uint64_t seq;
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
    struct tbbt_pconn conn[MAX_CONN];
    _Atomic int nconn;
    _Atomic int broken[MAX_CONN]; /* set by the receive thread, repaired by the send thread */
    _Atomic uint64_t rx_pass;     /* the receive thread's loop count: repair waits for a new pass */
    _Atomic int rx_gone;          /* the receive thread has returned */
    GHashTable *client_conn;      /* struct client_key -> index + 1 */
    struct tbbt_htab fh;          /* struct fhent by id (tbbt_htab_mix: IDs run 1, 2, 3...) */
    GHashTable *roots;            /* ids of the clones' roots (the manifest's "."): no ".." above them */
    char *mf_server;     /* the manifest's "server": where tbbt-init built the image (NULL: not said) */
    GHashTable *cookies; /* struct ckey -> struct cval */
    void *sched;
    uint64_t next_add, completed, outstanding;
    struct held *held;
    size_t nheld, heldcap;
    struct fifo sent_fifo;        /* seqs in send order, for timeouts */
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

/* ---- handles and cookies ---- */

static guint ckey_hash(gconstpointer p) {
    const struct ckey *k = p;
    return g_int64_hash(&k->dir) ^ (guint)(k->cookie * 0x9e3779b97f4a7c15ull >> 32);
}

static gboolean ckey_eq(gconstpointer a, gconstpointer b) {
    const struct ckey *x = a, *y = b;
    return x->dir == y->dir && x->cookie == y->cookie;
}

/* A traced client in one clone: each has its own connection. */
struct client_key {
    struct tbbt_endpoint ep;
    uint32_t clone;
};

/* Traced clients (per clone) as hash keys. */
static guint ep_hash(gconstpointer p) {
    const struct client_key *k = p;
    const struct tbbt_endpoint *a = &k->ep;
    guint h = a->family * 31u + a->port + k->clone * 0x9e3779b1u;
    for (int i = 0; i < 16; i++)
        h = h * 31u + a->addr[i];
    return h;
}

static gboolean ep_eq(gconstpointer x, gconstpointer y) {
    const struct client_key *k = x, *l = y;
    const struct tbbt_endpoint *a = &k->ep, *b = &l->ep;
    return k->clone == l->clone && a->family == b->family && a->port == b->port &&
           !memcmp(a->addr, b->addr, 16);
}

/* id's handle entry, or NULL. Looked up for every handle a request names
 * (to encode it, and by fsdep to see whether it is known yet): a table
 * that compares stored hashes, with the comparison inlined, not GLib's
 * call through a pointer per probe. */
static struct fhent *fh_find(struct engine *e, tbbt_id id) {
    return tbbt_htab_find_inline(&e->fh, tbbt_htab_mix(id), &id, tbbt_htab_eq_mixed);
}

/* Remembers id's live handle. */
static void learn_fh(struct engine *e, tbbt_id id, const uint8_t *data, uint32_t len) {
    struct fhent *f = fh_find(e, id);
    if (!f) {
        f = g_new(struct fhent, 1);
        f->id = id;
        tbbt_htab_put(&e->fh, tbbt_htab_mix(id), f);
    }
    f->fh.len = len;
    memcpy(f->fh.data, data, len);
}

/* nfsenc's handle callback. */
static int enc_fh(void *ctx, tbbt_id id, const uint8_t **data, uint32_t *len) {
    struct fhent *f = fh_find(ctx, id);
    if (!f) return -1;
    *data = f->fh.data, *len = f->fh.len;
    return 0;
}

/* sched's "is the handle known" callback. */
static int known(void *ctx, tbbt_id id) {
    return fh_find(ctx, id) != NULL;
}

/* nfsenc's cookie callback: the live position for the trace's cookie; a
 * position the live listing never reached restarts the listing. */
static int enc_cookie(void *ctx, tbbt_id dir, uint64_t trace_cookie, uint64_t *cookie, uint64_t *verf) {
    struct engine *e = ctx;
    struct ckey k = {dir, trace_cookie};
    struct cval *v = trace_cookie ? g_hash_table_lookup(e->cookies, &k) : NULL;
    *cookie = v ? v->cookie : 0;
    *verf = v ? v->verf : 0;
    return 0;
}

/* Loads the manifest's handles of our clones (namespaced when there are
 * several: clones.h). Returns 0 or -1 with err. */
static int load_manifest(struct engine *e, char *err, size_t errlen) {
    struct tbbt_mfr *r = tbbt_mfr_open(e->o->manifest, err, errlen);
    if (!r) return -1;
    struct tbbt_mf_entry m;
    int rc;
    uint64_t *n = g_new0(uint64_t, e->nclones); /* objects per clone */
    uint32_t first = (uint32_t)e->o->clone;
    while ((rc = tbbt_mfr_next(r, &m, err, errlen)) == 1) {
        if (m.clone < first || m.clone - first >= e->nclones) continue;
        tbbt_id id = m.id;
        if (e->nclones > 1 && tbbt_clone_id(m.clone, m.id, &id) < 0) {
            snprintf(err, errlen, "%s: TBBT-ID %llu is too large to play several clones", e->o->manifest,
                     (unsigned long long)m.id);
            rc = -1;
            break;
        }
        learn_fh(e, id, m.fh, m.fhlen), n[m.clone - first]++;
        if (m.path && !strcmp(m.path, ".")) g_hash_table_add(e->roots, g_memdup2(&id, sizeof(id)));
    }
    if (rc == 0) {
        const char *v;
        if ((v = tbbt_mfr_header(r, "map_sha256"))) e->st->map_sha256 = g_strdup(v);
        if ((v = tbbt_mfr_header(r, "params"))) e->st->params = g_strdup(v);
        if ((v = tbbt_mfr_header(r, "run"))) e->st->run = g_strdup(v);
        if ((v = tbbt_mfr_header(r, "server"))) e->mf_server = g_strdup(v);
        for (uint32_t i = 0; i < e->nclones && rc == 0; i++)
            if (!n[i]) {
                snprintf(err, errlen, "%s: no object of clone %u", e->o->manifest, first + i);
                rc = -1;
            }
    }
    g_free(n);
    tbbt_mfr_close(r);
    return rc;
}

/* The export part of "HOST:/EXPORT" or "[V6]:/EXPORT" (tbbt_nfs_server_name's
 * form, the manifest's "server"), or NULL. */
static const char *export_of(const char *name) {
    const char *p = name[0] == '[' ? strstr(name, "]:") : NULL;
    p = p ? p + 1 : strchr(name, ':');
    return p && p[1] == '/' ? p + 1 : NULL;
}

/* Whether two export paths name the same export: equal but for trailing
 * slashes ("/x/" is "/x"; "/" stays "/"). */
static int same_export(const char *a, const char *b) {
    size_t na = strlen(a), nb = strlen(b);
    while (na > 1 && a[na - 1] == '/')
        na--;
    while (nb > 1 && b[nb - 1] == '/')
        nb--;
    return na == nb && !memcmp(a, b, na);
}

/* Before the replay, so that a wrong server or export fails at once in one
 * sentence rather than as thousands of failed requests: the server answers
 * NFSv3 where the replay will send (a NULL call on a connection of its
 * own, conn.h); the export exists, when MOUNT can be asked (a MOUNT port
 * was given, or the NFS port too comes from the portmapper); and it is the
 * export the manifest's image was built on (the handles play there, on no
 * other). Returns 0, or -1 with the sentence in err, naming the server. */
static int check_server(struct engine *e, char *err, size_t errlen) {
    const struct tbbt_play_opts *o = e->o;
    char srv[1300], why[600];
    tbbt_nfs_server_name(&o->server, srv, sizeof(srv));
    struct tbbt_pconn c;
    int rc = tbbt_pconn_open(&c, &o->server, o->udp, why, sizeof(why));
    if (rc == 0) rc = tbbt_pconn_probe(&c, o->timeout_s, why, sizeof(why));
    tbbt_pconn_close(&c);
    if (rc < 0) {
        snprintf(err, errlen, "%s: %s", srv, why);
        return -1;
    }
    struct tbbt_fh root;
    if ((o->server.mountport || !o->server.nfsport) &&
        tbbt_nfs_mount(&o->server, o->timeout_s, &root, err, errlen) < 0)
        return -1;
    const char *built = e->mf_server ? export_of(e->mf_server) : NULL;
    if (built && !same_export(built, o->server.export)) {
        snprintf(err, errlen,
                 "%s: not the export the manifest %s was built on (%s): replay there, or run tbbt-init on "
                 "this one",
                 srv, o->manifest, e->mf_server);
        return -1;
    }
    return 0;
}

/* ---- the I/O thread ---- */

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
static int traced_times(const struct tbbt_rec *r) {
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
    if (traced_times(r)) return tbbt_load_add(&e->trace_load, r->call_time, r->reply_time);
    return tbbt_load_at(&e->trace_load, r->call_time) + 1;
}

/* Streams records into the ring, each as many times as there are clones
 * (namespaced, one after another: clones.h); the trace's own load as it
 * goes (trace_call: N copies of the trace have N times as many calls out). */
static void *io_main(void *arg) {
    struct engine *e = arg;
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
static void *io_loop_main(void *arg) {
    struct engine *e = arg;
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
    atomic_store(&e->io_eof, 1);
    tbbt_wake_kick(&e->wk);
    return NULL;
}

/* The 0-based index in the trace of a slot's record, for the logs. */
static uint64_t rec_index(const struct engine *e, const struct slot *s) {
    if (e->loop) return s->seq - (uint64_t)s->clone * atomic_load(&e->loop_len);
    return s->seq / e->nclones;
}

/* ---- the receive thread ---- */

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
 * a pass read, not one each. */
static void rx_hand_over(struct engine *e) {
    GArray *b = e->rx_batch;
    if (!b->len) return;
    pthread_mutex_lock(&e->evmu);
    for (guint i = 0; i < b->len; i++) {
        const struct event *ev = &g_array_index(b, struct event, i);
        g_array_append_vals(e->ev, ev, 1);
        tbbt_wake_post(&e->wk, ev->seq, e->ev->len);
    }
    pthread_mutex_unlock(&e->evmu);
    g_array_set_size(b, 0);
}

/* Reads replies from every connection until told to stop. */
static void *rx_main(void *arg) {
    struct engine *e = arg;
    struct pollfd p[MAX_CONN];
    while (!atomic_load(&e->stop_rx)) {
        atomic_fetch_add(&e->rx_pass, 1); /* before reading broken[]: see repair() */
        int n = atomic_load(&e->nconn);
        for (int i = 0; i < n; i++) /* a broken connection is left alone until it is repaired */
            p[i] = (struct pollfd){.fd = atomic_load(&e->broken[i]) ? -1 : e->conn[i].fd, .events = POLLIN};
        int64_t tp = e->rt.on ? tbbt_now_ns() : 0;
        int r = poll(p, (nfds_t)n, 20);
        e->rx_polls++;
        if (e->rt.on) e->rt.poll_ns += (double)(tbbt_now_ns() - tp);
        if (r < 0 && errno != EINTR) break;
        int lost = 0;
        for (int i = 0; i < n && r > 0; i++)
            if (p[i].revents & (POLLIN | POLLHUP | POLLERR)) {
                e->rx_conn = i; /* on_reply takes the read's time from it */
                if (tbbt_pconn_read(&e->conn[i], on_reply, e, e->rx_err, sizeof(e->rx_err)) < 0)
                    atomic_store(&e->broken[i], 1), lost = 1;
            }
        rx_hand_over(e);
        /* the send thread, asleep, waits for one reply (or any): not
         * woken for the others, which wait in the queue (sleep_for) */
        if (lost || tbbt_wake_hit(&e->wk)) tbbt_wake_sleeper(&e->wk);
    }
    atomic_store(&e->rx_gone, 1);
    tbbt_wake_kick(&e->wk);
    return NULL;
}

/* ---- the send thread ---- */

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

/* The word --fail-log prints for a status: the NFS status number, or what
 * became of a request that got none. */
static const char *status_word(int status, char *buf, size_t len) {
    switch (status) {
    case TBBT_PST_TIMEOUT: return "timeout";
    case TBBT_PST_RPC_ERROR: return "rpc-error";
    case TBBT_PST_NO_HANDLE: return "no-handle";
    case TBBT_PST_SKIPPED: return "skipped";
    case TBBT_PST_CONN_LOST: return "conn-lost";
    case TBBT_PST_REFUSED: return "refused";
    }
    const char *n = tbbt_nfsstat_name(status);
    if (n) return n;
    snprintf(buf, len, "%d", status);
    return buf;
}

/* --fail-log: "CLONE RECORD vV PROC TRACED GOT" for a record that did not
 * get its traced status (TRACED "lost" where the trace has no reply), so
 * a shortfall can be traced to its records (tbbt-dump --limit/--skip). */
static void fail_log(struct engine *e, const struct slot *s, int status) {
    const struct tbbt_rec *r = &s->r;
    char tb[16], gb[16];
    const char *traced =
        (r->flags & TBBT_RF_REPLY_LOST) && r->status < 0 ? "lost" : status_word(r->status, tb, sizeof(tb));
    fprintf(e->flog, "%u %llu v%u %s %s %s\n", (unsigned)e->o->clone + s->clone,
            (unsigned long long)rec_index(e, s), (unsigned)r->vers,
            r->op < TBBT_OP_COUNT ? tbbt_op_info(r->op)->name : "?", traced,
            status_word(status, gb, sizeof(gb)));
}

/* A record is over: its status against the trace, the figures, the locks. */
static void complete(struct engine *e, struct slot *s, int status, int64_t recv_ns) {
    struct tbbt_play_stats *st = e->st;
    const struct tbbt_rec *r = &s->r;
    int lost = (r->flags & TBBT_RF_REPLY_LOST) && r->status < 0;
    int matched = status >= 0 && (lost ? status == 0 : status == r->status);
    /* sent again after a lost connection, a create that finds its name made
     * did what the first sending did */
    if (s->retried && status == TBBT_NFSERR_EXIST && r->status == 0 &&
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
    if (!matched && e->flog) fail_log(e, s, status);
    if (!s->warm) {
        struct tbbt_pstat_proc *p = tbbt_pstats_proc(st, r->vers, r->op);
        struct tbbt_pstat_clone *pc = &st->per_clone[s->clone];
        p->count++;
        if (matched) {
            p->matched++, st->matched++, pc->matched++;
            if (s->send_ns) tbbt_hist_add(&p->lat, (uint64_t)(recv_ns - s->send_ns));
            if (traced_times(r)) tbbt_hist_add(&p->trace_lat, (uint64_t)(r->reply_time - r->call_time));
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
static void out_done(struct engine *e, struct slot *s, int64_t t) {
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
    out_done(e, s, ev->recv_ns);
    e->st->replies++;
    const struct tbbt_rec *r = &s->r;
    if (ev->status == 0 && ev->has_fh && tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj)
        learn_fh(e, r->newobj, ev->fh.data, ev->fh.len);
    if (ev->status == 0 && ev->has_cookie && r->nentries) {
        struct cval *v = g_new(struct cval, 1);
        v->k = (struct ckey){r->obj, r->entries[r->nentries - 1].cookie};
        v->cookie = ev->cookie, v->verf = ev->verf;
        g_hash_table_replace(e->cookies, &v->k, v);
    }
    complete(e, s, ev->status, ev->recv_ns);
}

/* TBBT_PLAY_COUNTS: the round trip of the replies just taken (at now),
 * from their requests' writes to here. */
static void count_taken(struct engine *e, const GArray *t, int64_t now) {
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

/* Takes the receive thread's replies. */
static void take_events(struct engine *e) {
    pthread_mutex_lock(&e->evmu);
    GArray *t = e->ev;
    e->ev = e->ev_spare;
    e->ev_spare = t;
    tbbt_wake_taken(&e->wk);
    pthread_mutex_unlock(&e->evmu);
    if (e->rt.on && t->len) count_taken(e, t, e->rt.take_ns = tbbt_now_ns());
    for (guint i = 0; i < t->len; i++)
        apply_event(e, &g_array_index(t, struct event, i));
    g_array_set_size(t, 0);
}

/* Requests out longer than the timeout fail. */
static void time_out(struct engine *e, int64_t now) {
    int64_t limit = (int64_t)e->o->timeout_s * 1000000000;
    while (e->sent_fifo.len) {
        uint64_t seq = fifo_at(&e->sent_fifo, 0);
        struct slot *s = &e->ring[seq & e->mask];
        if (s->seq == seq && atomic_load(&s->state) == SL_SENT) {
            if (now - s->send_ns < limit) return;
            out_done(e, s, now);
            complete(e, s, TBBT_PST_TIMEOUT, now);
        }
        fifo_pop(&e->sent_fifo);
    }
}

/* Pushes an offered record on the held heap. */
static void hold(struct engine *e, int64_t t, uint64_t seq) {
    if (e->nheld == e->heldcap)
        e->held = g_renew(struct held, e->held, e->heldcap = e->heldcap ? 2 * e->heldcap : 1024);
    size_t i = e->nheld++;
    while (i &&
           (e->held[(i - 1) / 2].t > t || (e->held[(i - 1) / 2].t == t && e->held[(i - 1) / 2].seq > seq))) {
        e->held[i] = e->held[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    e->held[i] = (struct held){t, seq};
}

static void unhold(struct engine *e) {
    struct held last = e->held[--e->nheld];
    size_t i = 0, n = e->nheld;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && (e->held[c + 1].t < e->held[c].t ||
                          (e->held[c + 1].t == e->held[c].t && e->held[c + 1].seq < e->held[c].seq)))
            c++;
        if (e->held[c].t > last.t || (e->held[c].t == last.t && e->held[c].seq >= last.seq)) break;
        e->held[i] = e->held[c];
        i = c;
    }
    if (n) e->held[i] = last;
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
            complete(e, s, TBBT_PST_SKIPPED, tbbt_now_ns());
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
            complete(e, s, TBBT_PST_REFUSED, tbbt_now_ns());
            continue;
        }
        atomic_store(&s->state, SL_HELD);
        s->ready_ns = t;
        if ((s->dep = e->rt.on && s->admit_pass != e->pass)) e->rt.take_ready += (double)(t - e->rt.take_ns);
        hold(e, e->o->speedup > 0 ? s->sched_ns : 0, seq);
    }
}

/* Opens connection i; in timestamp mode with the kernel's transmit stamps
 * (conn.h), so a request's latency runs from when it left the host. */
static int open_conn(struct engine *e, int i, char *err, size_t errlen) {
    if (tbbt_pconn_open(&e->conn[i], &e->o->server, e->o->udp, err, errlen) < 0) return -1;
    if (e->o->speedup > 0) tbbt_pconn_stamp_tx(&e->conn[i]); /* refused: the player's own send times */
    return 0;
}

/* The connection a record goes on, when it has one already: its index,
 * or -1 (its traced client's first request in its clone: conn_for makes
 * one, or past MAX_CONN gives it one of the others). */
static int conn_known(struct engine *e, const struct slot *s) {
    if (e->o->connections > 0) return (int)((s->r.xid + s->clone) % (uint32_t)atomic_load(&e->nconn));
    struct client_key k;
    memset(&k, 0, sizeof(k));
    k.ep = s->r.client, k.clone = s->clone;
    return GPOINTER_TO_INT(g_hash_table_lookup(e->client_conn, &k)) - 1;
}

/* The connection for a record: its traced client's in its clone (made on
 * first use; past MAX_CONN the clients share them in turn), or one of
 * --connections in turn. Returns the index, or -1 with err. */
static int conn_for(struct engine *e, const struct slot *s, char *err, size_t errlen) {
    int idx = conn_known(e, s);
    if (idx >= 0) return idx;
    int n = atomic_load(&e->nconn);
    struct client_key k;
    memset(&k, 0, sizeof(k));
    k.ep = s->r.client, k.clone = s->clone;
    if (n < MAX_CONN) {
        if (open_conn(e, n, err, errlen) < 0) return -1;
        atomic_store(&e->nconn, n + 1);
        idx = n + 1;
    } else {
        idx = (int)(g_hash_table_size(e->client_conn) % MAX_CONN) + 1;
    }
    g_hash_table_insert(e->client_conn, g_memdup2(&k, sizeof(k)), GINT_TO_POINTER(idx));
    return idx - 1;
}

static int repair(struct engine *e, int i, char *err, size_t errlen);

/* Sends one held record, on connection ci when known (conn_known), else
 * on the one conn_for gives it. Returns 0, or -1 with err (a broken
 * connection). */
static int send_one(struct engine *e, struct slot *s, int ci, int64_t now, char *err, size_t errlen) {
    struct tbbt_cred cred = {1, e->o->uid, e->o->gid, 0, {0}};
    struct tbbt_enc_ctx c = {.fh = enc_fh,
                             .fh_ctx = e,
                             .cookie = enc_cookie,
                             .cookie_ctx = e,
                             .payload = e->payload,
                             .payload_len = 1u << 20,
                             .create_verf = ((uint64_t)e->xid_base << 32) ^ ++e->verf_ctr,
                             .cred = e->o->cred_set ? &cred : NULL};
    char why[256];
    ssize_t n = tbbt_nfs_encode_call(&s->r, e->xid_base + (uint32_t)s->seq, &c, e->sendbuf, SEND_BUF, why,
                                     sizeof(why));
    if (n < 0) { /* a handle nobody revealed: the record cannot go */
        complete(e, s, TBBT_PST_NO_HANDLE, now);
        return 0;
    }
    if (ci < 0 && (ci = conn_for(e, s, err, errlen)) < 0) return -1;
    if (atomic_load(&e->broken[ci]) && repair(e, ci, err, errlen) < 0) return -1;
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
            out_done(e, s, now);
            complete(e, s, TBBT_PST_RPC_ERROR, now);
            return 0;
        }
        atomic_store(&e->broken[ci], 1); /* the receive thread will see it too */
    }
    e->ord->sent(e->sched, s->seq);
    fifo_push(&e->sent_fifo, s->seq);
    struct tbbt_play_stats *st = e->st;
    st->sent++;
    if (!s->warm) st->per_clone[s->clone].sent++;
    if (e->slog)
        fprintf(e->slog, "%u %llu\n", (unsigned)e->o->clone + s->clone, (unsigned long long)rec_index(e, s));
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

/* TBBT_PLAY_COUNTS: the batch's requests (the first n) on connection c
 * (-1: every connection) were written at t. */
static void count_flushed(struct engine *e, size_t n, int c, int64_t t) {
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
    while (e->nheld) {
        if (e->held[0].t > now && e->held[0].t > (now = tbbt_now_ns())) {
            *rc = e->held[0].t - now;
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
        e->batch[n++] = e->held[0].seq;
        unhold(e);
    }
    return n;
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
        int last[MAX_CONN], early = 1, nc = atomic_load(&e->nconn);
        for (int c = 0; c < nc; c++)
            last[c] = -1;
        for (size_t i = 0; i < n; i++) { /* where each connection's last request of the pass is */
            int c = conn_known(e, &e->ring[e->batch[i] & e->mask]);
            e->batch_conn[i] = c;
            if (c >= 0)
                last[c] = (int)i;
            else if (nc >= MAX_CONN) /* a new client shares a connection: which, only conn_for says */
                early = 0;
        }
        for (size_t i = 0; i < n; i++) {
            struct slot *s = &e->ring[e->batch[i] & e->mask];
            int c = e->batch_conn[i];
            if (send_one(e, s, c, tbbt_now_ns(), err, errlen) < 0) return -2;
            if (early && c >= 0 && last[c] == (int)i) {
                flush_conn(e, c);
                if (e->rt.on) count_flushed(e, i + 1, c, tbbt_now_ns());
            }
        }
        flush_all(e);
        if (e->rt.on) count_flushed(e, n, -1, tbbt_now_ns());
        if (rc == DISPATCH_MORE) return rc; /* the pass's bound: the replies come first */
        /* more may go: held back by the cap, but a record of the pass did
         * not go out (no handle), or the next came due meanwhile */
        if (!e->nheld || e->outstanding >= e->o->max_outstanding) return rc;
        if (rc > 0 && (rc = e->held[0].t - tbbt_now_ns()) > 0) return rc; /* from now, not the pass's start */
    }
}

/* The reply the send thread may sleep for, about to sleep: the one the
 * policy says holds it back (order.h, blocker), or TBBT_WAKE_ANY when the
 * policy cannot say, or any reply would do (held back by the cap on
 * outstanding requests, or stopping: waiting for them all). */
static uint64_t wake_for(struct engine *e) {
    uint64_t seq;
    if (e->stopping || !e->ord->blocker || (e->nheld && e->outstanding >= e->o->max_outstanding))
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
    int capped = !e->stopping && e->nheld && e->outstanding >= e->o->max_outstanding;
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

/* A live line on stderr, once a second. */
static void live_line(struct engine *e, int64_t now, int64_t *last, uint64_t *last_done) {
    if (!e->o->live || now - *last < 1000000000) return;
    double dt = (double)(now - *last) / 1e9;
    int64_t behind = e->nheld && e->o->speedup > 0 && e->held[0].t < now ? now - e->held[0].t : 0;
    fprintf(stderr, "\rtbbt-play: %8.0f ops/s, %5llu outstanding, %llu done, %.1f ms behind   ",
            (double)(e->completed - *last_done) / dt, (unsigned long long)e->outstanding,
            (unsigned long long)e->completed, (double)behind / 1e6);
    *last = now, *last_done = e->completed;
}

/* Does op only read? (a read is not sent again after a lost connection) */
static int read_only(unsigned op) {
    return !(tbbt_op_info(op)->flags & TBBT_OPF_MODIFIES);
}

/* Connection i broke: the requests out on it that change state go again
 * (once) on a new connection, the others fail; the connection is made
 * again, retrying while the server restarts, up to the timeout. Returns
 * 0, or -1 with err when the server stays away. */
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

static int repair(struct engine *e, int i, char *err, size_t errlen) {
    e->st->reconnects++;
    tbbt_pstats_sec(e->st, (double)(tbbt_now_ns() - e->t0) / 1e9)->reconnects++;
    for (size_t k = 0; k < e->sent_fifo.len; k++) {
        uint64_t seq = fifo_at(&e->sent_fifo, k);
        struct slot *s = &e->ring[seq & e->mask];
        if (s->seq != seq || atomic_load(&s->state) != SL_SENT || s->conn != i) continue;
        out_done(e, s, tbbt_now_ns());
        if (read_only(s->r.op) || s->retried) {
            complete(e, s, TBBT_PST_CONN_LOST, tbbt_now_ns());
        } else {
            s->retried = 1;
            atomic_store(&s->state, SL_HELD);
            hold(e, 0, seq);
        }
    }
    rx_let_go(e);
    tbbt_pconn_close(&e->conn[i]);
    int64_t give_up = tbbt_now_ns() + (int64_t)e->o->timeout_s * 1000000000;
    while (open_conn(e, i, err, errlen) < 0) {
        if (tbbt_now_ns() > give_up || interrupted) return -1;
        usleep(200000);
    }
    atomic_store(&e->broken[i], 0);
    return 0;
}

/* The send thread's loop: until every record is done, or a stop. */
static int play_loop(struct engine *e, char *err, size_t errlen) {
    int64_t last_live = tbbt_now_ns();
    uint64_t last_done = 0;
    for (;;) {
        e->pass++;
        take_events(e);
        int64_t now = tbbt_now_ns();
        time_out(e, now);
        if (!e->stopping && (interrupted || (e->end_at && now >= e->end_at))) {
            e->stopping = 1;
            e->st->partial = interrupted != 0;
        }
        admit(e);
        offer(e);
        free_slots(e);
        int64_t wait = e->stopping ? -1 : dispatch(e, err, errlen);
        if (wait == -2) return -1;
        for (int i = 0; i < atomic_load(&e->nconn); i++)
            if (atomic_load(&e->broken[i]) && repair(e, i, err, errlen) < 0) return -1;
        live_line(e, now, &last_live, &last_done);
        int io_done = atomic_load(&e->io_eof) && e->next_add == atomic_load(&e->loaded);
        if (e->stopping && !e->outstanding) return 0;
        if (io_done && !e->outstanding && !e->nheld && e->completed == e->next_add) return 0;
        if (io_done && !e->outstanding && !e->nheld && e->completed < e->next_add) {
            /* a record finished inside dispatch (no handle) may have freed the next one */
            offer(e);
            if (e->nheld || e->completed == e->next_add) continue;
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
    tbbt_htab_init(&e->fh, tbbt_htab_eq_mixed);
    e->roots = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    e->cookies = g_hash_table_new_full(ckey_hash, ckey_eq, NULL, g_free);
    e->client_conn = g_hash_table_new_full(ep_hash, ep_eq, g_free, NULL);
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
    if (load_manifest(e, err, errlen) < 0) return -1;
    if (check_server(e, err, errlen) < 0) return -1;
    struct tbbt_sched_opts so = {.window = cap, .deps = o->deps, .known = known, .known_ctx = e};
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
    if (o->connections > 0) {
        for (int i = 0; i < o->connections && i < MAX_CONN; i++) {
            if (open_conn(e, i, err, errlen) < 0) return -1;
            atomic_store(&e->nconn, i + 1);
        }
    }
    return 0;
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
    for (int i = 0; i < atomic_load(&e->nconn); i++)
        tbbt_pconn_close(&e->conn[i]);
    if (e->sched) e->ord->destroy(e->sched);
    if (e->slog) fclose(e->slog);
    if (e->flog) fclose(e->flog);
    tbbt_rec_free(&e->io_rec);
    if (e->rd) tbbt_recr_close(e->rd);
    for (uint32_t i = 0; e->ring && i <= e->mask; i++)
        tbbt_rec_free(&e->ring[i].r);
    g_free(e->ring), g_free(e->held), g_free(e->payload), g_free(e->sendbuf);
    if (e->ev) g_array_free(e->ev, TRUE), g_array_free(e->ev_spare, TRUE), g_array_free(e->rx_batch, TRUE);
    size_t pos = 0;
    for (void *f; (f = tbbt_htab_next(&e->fh, &pos));)
        g_free(f);
    tbbt_htab_clear(&e->fh);
    if (e->cookies) {
        g_hash_table_destroy(e->cookies), g_hash_table_destroy(e->client_conn);
        g_hash_table_destroy(e->roots);
    }
    g_free(e->mf_server);
    g_free(e->sent_fifo.v);
    g_free(e->batch), g_free(e->batch_conn);
}

/* For bench/play.sh: when TBBT_PLAY_COUNTS names a file, one JSON line
 * there with the hand-offs between the player's threads (wakes one thread
 * made of another) and their sleeps, as the threads counted them, and
 * where the time goes (struct rt_counts: means in us, wait times in s).
 * Read once the threads are joined. */
static void write_counts(const struct engine *e) {
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
    fprintf(f, "}}\n");
    fclose(f);
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
    interrupted = 0;
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
        e->io_started = pthread_create(&e->io, NULL, e->loop ? io_loop_main : io_main, e) == 0;
        e->rx_started = pthread_create(&e->rx, NULL, rx_main, e) == 0;
        if (!e->io_started || !e->rx_started) {
            snprintf(err, errlen, "cannot start the player's threads");
            rc = -1;
        }
    }
    if (rc == 0) rc = play_loop(e, err, errlen);
    if (o->live) fputc('\n', stderr);
    int64_t end = tbbt_now_ns();
    st->wall_s = (double)(end - e->t0) / 1e9;
    st->cpu_s = cpu_s() - c0;
    iso_now(st->ended, sizeof(st->ended));
    teardown(e); /* the I/O thread joined: its load is complete */
    write_counts(e);
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
