/* test_play_conns.c -- which connection a request goes on (player/conns.c),
 * against a real TCP listener on loopback (connections are made, never
 * read): by default each traced client of each clone its own connection,
 * hundreds of them, a client's requests always on its own; with
 * --connections K the K made at setup, the n-th client on n mod K; and
 * under an open-files hard limit too low for them, the connections it
 * allows, the clients past them sharing those in turn (the engine's table
 * full). The receive thread's set (poller.h) reports a connection with
 * bytes to read, by its index. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "engine_int.h"

static int lfd = -1; /* the listener */
static int lport;

/* A listener on 127.0.0.1 with room for every connection the tests make
 * (the kernel completes them without accept). */
static int listen_up(void **st) {
    (void)st;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t n = sizeof(a);
    lfd = socket(AF_INET, SOCK_STREAM, 0);
    if (lfd < 0 || bind(lfd, (struct sockaddr *)&a, n) < 0 || listen(lfd, 4096) < 0 ||
        getsockname(lfd, (struct sockaddr *)&a, &n) < 0)
        return -1;
    lport = ntohs(a.sin_port);
    return 0;
}

static int listen_down(void **st) {
    (void)st;
    close(lfd);
    return 0;
}

/* An engine with just what conns.c uses: K connections asked (0: one per
 * traced client), the listener as server, no notes. */
static struct engine *engine_new(struct tbbt_play_opts *o, int k) {
    tbbt_play_opts_default(o);
    snprintf(o->server.host, sizeof(o->server.host), "127.0.0.1");
    o->server.nfsport = lport;
    o->connections = k;
    o->quiet = 1;
    struct engine *e = g_new0(struct engine, 1);
    e->o = o;
    e->nclones = 2;
    char err[256] = "";
    assert_int_equal(eng_conns_init(e, err, sizeof(err)), 0);
    return e;
}

/* A record of traced client PORT in clone CLONE. */
static void client(struct slot *s, int port, uint32_t clone) {
    memset(s, 0, sizeof(*s));
    s->r.client.family = 4;
    s->r.client.addr[0] = 10, s->r.client.port = (uint16_t)port;
    s->clone = clone;
}

/* The connection for client PORT in CLONE (made on first use). */
static int conn_of(struct engine *e, int port, uint32_t clone) {
    struct slot s;
    char err[256] = "";
    client(&s, port, clone);
    int c = eng_conn_for(e, &s, err, sizeof(err));
    if (c < 0) fail_msg("%s", err);
    return c;
}

/* Default: 600 clients, 600 connections, each client's own, again and again;
 * the same client in another clone is another connection. */
static void test_one_each(void **st) {
    (void)st;
    struct tbbt_play_opts o;
    struct engine *e = engine_new(&o, 0);
    for (int i = 0; i < 600; i++)
        assert_int_equal(conn_of(e, 1000 + i, 0), i);
    assert_int_equal(atomic_load(&e->nconn), 600);
    assert_false(e->conns_full);
    for (int i = 599; i >= 0; i -= 7)
        assert_int_equal(conn_of(e, 1000 + i, 0), i);
    assert_int_equal(conn_of(e, 1000, 1), 600);
    assert_int_equal(atomic_load(&e->nconn), 601);
    for (int i = 0; i < 601; i++)
        assert_true(e->conn[i].fd >= 0 && !atomic_load(&e->broken[i]));
    eng_conns_free(e);
    g_free(e);
}

/* --connections 8: made at setup; the n-th client on n mod 8, always. */
static void test_cap(void **st) {
    (void)st;
    struct tbbt_play_opts o;
    struct engine *e = engine_new(&o, 8);
    assert_int_equal(atomic_load(&e->nconn), 8);
    for (int i = 0; i < 100; i++)
        assert_int_equal(conn_of(e, 2000 + i, 0), i % 8);
    for (int i = 0; i < 100; i++)
        assert_int_equal(conn_of(e, 2000 + i, 0), i % 8);
    assert_int_equal(atomic_load(&e->nconn), 8);
    eng_conns_free(e);
    g_free(e);
}

/* The receive thread's set reports connection i ready when its peer
 * writes: the accepted end of the first connection made here writes. */
static void test_poller(void **st) {
    (void)st;
    struct tbbt_play_opts o;
    struct engine *e = engine_new(&o, 0);
    for (int i = 0; i < 5; i++)
        conn_of(e, 3000 + i, 0);
    assert_int_equal(tbbt_poller_wait(&e->poller, 0), 0);
    /* the backlog holds earlier tests' connections, closed since: find ours */
    struct sockaddr_in me;
    socklen_t n = sizeof(me);
    getsockname(e->conn[3].fd, (struct sockaddr *)&me, &n);
    int a = -1, other[700], nother = 0; /* the others kept open: a close would make ours readable */
    for (;;) {
        struct sockaddr_in peer;
        socklen_t pn = sizeof(peer);
        a = accept(lfd, (struct sockaddr *)&peer, &pn);
        assert_true(a >= 0 && nother < 700);
        if (peer.sin_port == me.sin_port) break;
        other[nother++] = a;
    }
    assert_int_equal(write(a, "x", 1), 1);
    assert_int_equal(tbbt_poller_wait(&e->poller, 5000), 1);
    assert_int_equal(e->poller.id[0], 3);
    close(a);
    while (nother)
        close(other[--nother]);
    eng_conns_free(e);
    g_free(e);
}

/* An open-files hard limit leaving room for 10 connections: 10 are made,
 * the table is full, the clients past them share them in turn, each
 * always on the same one. Last: the hard limit cannot be raised again. */
static void test_fd_limit(void **st) {
    (void)st;
    struct rlimit rl;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < CONN_FDS_SPARE + 10) skip(); /* cannot be raised */
    rl.rlim_cur = rl.rlim_max = CONN_FDS_SPARE + 10;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
    struct tbbt_play_opts o;
    struct engine *e = engine_new(&o, 0);
    assert_int_equal(e->conn_cap, 10);
    o.quiet = 0; /* the notes, on stderr, kept in a file to be read */
    FILE *notes = tmpfile();
    int saved = dup(2);
    assert_true(notes && saved >= 0 && dup2(fileno(notes), 2) == 2);
    for (int i = 0; i < 30; i++)
        assert_int_equal(conn_of(e, 4000 + i, 0), i % 10);
    assert_int_equal(atomic_load(&e->nconn), 10);
    assert_true(e->conns_full);
    for (int i = 0; i < 30; i++)
        assert_int_equal(conn_of(e, 4000 + i, 0), i % 10);
    e->nclones = 1;
    eng_conns_say(e);
    fflush(stderr);
    dup2(saved, 2), close(saved);
    char text[1024] = "";
    rewind(notes);
    size_t n = fread(text, 1, sizeof(text) - 1, notes);
    text[n] = 0;
    fclose(notes);
    char want[160];
    snprintf(want, sizeof(want),
             "tbbt-play: the open-files limit (hard %d) allows 10 connections: ", CONN_FDS_SPARE + 10);
    assert_non_null(strstr(text, want)); /* once, when the 11th client came */
    assert_null(strstr(strstr(text, want) + 1, want));
    assert_non_null(strstr(text,
                           "tbbt-play: 30 traced clients over 10 connections (no more could be made): "
                           "about 3 clients a connection, per-client order kept, concurrency on the wire "
                           "merged\n"));
    eng_conns_free(e);
    g_free(e);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_each),
        cmocka_unit_test(test_cap),
        cmocka_unit_test(test_poller),
        cmocka_unit_test(test_fd_limit),
    };
    return cmocka_run_group_tests(tests, listen_up, listen_down);
}
