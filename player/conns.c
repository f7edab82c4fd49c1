/* conns.c -- which connection a request goes on (see engine_int.h).
 *
 * Each traced client of each clone gets a connection of its own, made
 * on first use (MAX_CONN at most, then shared in turn), or the requests
 * go round --connections; in timestamp mode with the kernel's transmit
 * stamps. The send thread's, apart from its loop. */
#include "engine_int.h"

#include <string.h>

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

/* Opens connection i; in timestamp mode with the kernel's transmit stamps
 * (conn.h), so a request's latency runs from when it left the host. */
int eng_open_conn(struct engine *e, int i, char *err, size_t errlen) {
    if (tbbt_pconn_open(&e->conn[i], &e->o->server, e->o->udp, err, errlen) < 0) return -1;
    if (e->o->speedup > 0) tbbt_pconn_stamp_tx(&e->conn[i]); /* refused: the player's own send times */
    return 0;
}

/* The connection a record goes on, when it has one already: its index,
 * or -1 (its traced client's first request in its clone: conn_for makes
 * one, or past MAX_CONN gives it one of the others). */
int eng_conn_known(struct engine *e, const struct slot *s) {
    if (e->o->connections > 0) return (int)((s->r.xid + s->clone) % (uint32_t)atomic_load(&e->nconn));
    struct client_key k;
    memset(&k, 0, sizeof(k));
    k.ep = s->r.client, k.clone = s->clone;
    return GPOINTER_TO_INT(g_hash_table_lookup(e->client_conn, &k)) - 1;
}

/* The connection for a record: its traced client's in its clone (made on
 * first use; past MAX_CONN the clients share them in turn), or one of
 * --connections in turn. Returns the index, or -1 with err. */
int eng_conn_for(struct engine *e, const struct slot *s, char *err, size_t errlen) {
    int idx = eng_conn_known(e, s);
    if (idx >= 0) return idx;
    int n = atomic_load(&e->nconn);
    struct client_key k;
    memset(&k, 0, sizeof(k));
    k.ep = s->r.client, k.clone = s->clone;
    if (n < MAX_CONN) {
        if (eng_open_conn(e, n, err, errlen) < 0) return -1;
        atomic_store(&e->nconn, n + 1);
        idx = n + 1;
    } else {
        idx = (int)(g_hash_table_size(e->client_conn) % MAX_CONN) + 1;
    }
    g_hash_table_insert(e->client_conn, g_memdup2(&k, sizeof(k)), GINT_TO_POINTER(idx));
    return idx - 1;
}

/* The empty table of traced clients (setup). */
void eng_conns_init(struct engine *e) {
    e->client_conn = g_hash_table_new_full(ep_hash, ep_eq, g_free, NULL);
}
