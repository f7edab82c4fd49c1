/* conns.c -- which connection a request goes on (see engine_int.h).
 *
 * By default each traced client of each clone gets a connection of its
 * own, made on first use, as the trace had them: up to MAX_CONN, or what
 * the open-files limit allows (its soft limit raised toward the hard one),
 * or until the server refuses one; past that the new clients share the
 * connections made, in turn. With --connections K, K connections made at
 * setup carry the clients in turn (the n-th client seen on connection n
 * mod K). Either way all of a client's requests go on one connection, in
 * the order they are sent: per-client order is kept, what sharing merges
 * is the clients' concurrency on the wire (said once, eng_conns_say). In
 * timestamp mode connections ask for the kernel's transmit stamps. The
 * send thread's, apart from its loop. */
#include "engine_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "mpi_ranks.h"

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

/* Prints a one-line note on stderr, unless quiet. */
static void note(const struct engine *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(const struct engine *e, const char *fmt, ...) {
    if (e->o->quiet) return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tbbt-play: %s", tbbt_mpi_tag());
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* The hard open-files limit in words. */
static const char *hard_words(const struct engine *e, char *buf, size_t n) {
    if (!e->fd_hard) return "unlimited";
    snprintf(buf, n, "%llu", e->fd_hard);
    return buf;
}

/* The connections the open-files limit allows, for want of them: raises
 * the soft limit toward want plus the spare, up to the hard limit (which
 * only root may raise). Sets *hard to the hard limit. */
static int fd_room(int want, unsigned long long *hard) {
    struct rlimit rl;
    *hard = 0;
    if (getrlimit(RLIMIT_NOFILE, &rl) < 0) return want;
    *hard = rl.rlim_max == RLIM_INFINITY ? 0 : (unsigned long long)rl.rlim_max;
    rlim_t need = (rlim_t)want + CONN_FDS_SPARE;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need ? need : rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need) return want;
    return rl.rlim_cur > CONN_FDS_SPARE + 1 ? (int)(rl.rlim_cur - CONN_FDS_SPARE) : 1;
}

/* Opens connection i and puts it in the receive thread's set; in
 * timestamp mode with the kernel's transmit stamps (conn.h), so a
 * request's latency runs from when it left the host. */
int eng_open_conn(struct engine *e, int i, char *err, size_t errlen) {
    if (tbbt_pconn_open(&e->conn[i], &e->o->server, e->o->udp, err, errlen) < 0) return -1;
    if (e->o->speedup > 0) tbbt_pconn_stamp_tx(&e->conn[i]); /* refused: the player's own send times */
    if (tbbt_poller_add(&e->poller, e->conn[i].fd, (uint32_t)i) < 0) {
        snprintf(err, errlen, "%s: epoll: %s", e->conn[i].peer, strerror(errno));
        tbbt_pconn_close(&e->conn[i]);
        return -1;
    }
    return 0;
}

/* The connection a record goes on, when its traced client (in its clone)
 * has one already: its index, or -1 (its first request: conn_for). */
int eng_conn_known(struct engine *e, const struct slot *s) {
    struct client_key k;
    memset(&k, 0, sizeof(k));
    k.ep = s->r.client, k.clone = s->clone;
    return GPOINTER_TO_INT(g_hash_table_lookup(e->client_conn, &k)) - 1;
}

/* Makes connection n for a new client; when that cannot be (the table
 * full, the server refusing one), the clients share those made from now
 * on, and a note says why. Returns n, or -1 (sharing; err set when even
 * the first could not be made). */
static int open_next(struct engine *e, int n, char *err, size_t errlen) {
    if (n >= e->conn_cap) {
        e->conns_full = 1;
        char b[32];
        if (e->conn_cap < MAX_CONN)
            note(e,
                 "the open-files limit (hard %s) allows %d connections: the traced clients past that share "
                 "them in turn (raise the hard limit: ulimit -Hn, as root)",
                 hard_words(e, b, sizeof(b)), e->conn_cap);
        else
            note(e, "%d connections at most: the traced clients past that share them in turn", MAX_CONN);
        return -1;
    }
    if (eng_open_conn(e, n, err, errlen) < 0) {
        if (n == 0) return -1;
        e->conns_full = 1;
        note(e, "%s (connection %d): the traced clients past %d share the connections made in turn", err,
             n + 1, n);
        err[0] = 0;
        return -1;
    }
    atomic_store(&e->nconn, n + 1);
    return n;
}

/* The connection for a record: its traced client's in its clone (made on
 * first use, or one of those made in turn once no more are made). Returns
 * the index, or -1 with err. */
int eng_conn_for(struct engine *e, const struct slot *s, char *err, size_t errlen) {
    int idx = eng_conn_known(e, s);
    if (idx >= 0) return idx;
    int n = atomic_load(&e->nconn);
    guint nth = g_hash_table_size(e->client_conn); /* this client's number, from 0 */
    if (e->conns_full || (idx = open_next(e, n, err, errlen)) < 0) {
        if (!atomic_load(&e->nconn)) return -1; /* not even the first: err says why */
        idx = (int)(nth % (guint)atomic_load(&e->nconn));
    }
    struct client_key k;
    memset(&k, 0, sizeof(k));
    k.ep = s->r.client, k.clone = s->clone;
    g_hash_table_insert(e->client_conn, g_memdup2(&k, sizeof(k)), GINT_TO_POINTER(idx + 1));
    return idx;
}

/* The table of connections and traced clients, and the receive thread's
 * set (setup): room for MAX_CONN, or --connections K, or what the
 * open-files limit allows; --connections K are made here. Returns 0, or
 * -1 with err. */
int eng_conns_init(struct engine *e, char *err, size_t errlen) {
    int k = e->o->connections, want = k > 0 ? k : MAX_CONN;
    e->client_conn = g_hash_table_new_full(ep_hash, ep_eq, g_free, NULL);
    e->conn_cap = fd_room(want, &e->fd_hard);
    /* zeroed and untouched until used: the table costs the connections made */
    e->conn = g_new0(struct tbbt_pconn, (size_t)e->conn_cap);
    e->broken = g_new0(_Atomic int, (size_t)e->conn_cap);
    e->conn_last = g_new(int, (size_t)e->conn_cap);
    if (tbbt_poller_init(&e->poller) < 0) {
        snprintf(err, errlen, "epoll: %s", strerror(errno));
        return -1;
    }
    if (k <= 0) return 0;
    char b[32];
    if (e->conn_cap < k)
        note(e, "the open-files limit (hard %s) allows %d of --connections %d", hard_words(e, b, sizeof(b)),
             e->conn_cap, k);
    for (int i = 0; i < e->conn_cap; i++) {
        if (eng_open_conn(e, i, err, errlen) < 0) return -1;
        atomic_store(&e->nconn, i + 1);
    }
    e->conns_full = 1; /* the clients go on these in turn */
    return 0;
}

/* Says, once the replay is done, what sharing connections merged: how
 * many traced clients went over how many connections. Nothing when each
 * client had its own. */
void eng_conns_say(const struct engine *e) {
    guint clients = e->client_conn ? g_hash_table_size(e->client_conn) : 0;
    int n = atomic_load(&e->nconn);
    if (e->o->quiet || !n || clients <= (guint)n) return;
    char why[64];
    if (e->o->connections > 0)
        snprintf(why, sizeof(why), "--connections %d", e->o->connections);
    else
        snprintf(why, sizeof(why), "no more could be made");
    fprintf(stderr,
            "tbbt-play: %s%u traced clients%s over %d connections (%s): about %.0f clients a connection, "
            "per-client order kept, concurrency on the wire merged\n",
            tbbt_mpi_tag(), clients, e->nclones > 1 ? " (clients x clones)" : "", n, why,
            (double)clients / n);
}

/* Closes the connections and frees the tables (teardown). */
void eng_conns_free(struct engine *e) {
    for (int i = 0; e->conn && i < atomic_load(&e->nconn); i++)
        tbbt_pconn_close(&e->conn[i]);
    if (e->conn) tbbt_poller_free(&e->poller); /* made with the table */
    union {
        _Atomic int *a;
        void *v;
    } b = {.a = e->broken}; /* a cast would drop _Atomic (-Wcast-qual) */
    g_free(e->conn), g_free(b.v), g_free(e->conn_last);
    e->conn = NULL, e->broken = NULL, e->conn_last = NULL;
    if (e->client_conn) g_hash_table_destroy(e->client_conn);
    e->client_conn = NULL;
}
