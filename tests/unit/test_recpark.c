/* test_recpark.c -- a record parked by pass 1 (recpark.h) comes back the
 * same: packed and unpacked records encode to the same bytes as the
 * originals, whatever the scratch record held before; slabs are given back
 * as records are released; and pass 1 emits the same records whether the
 * answered calls behind an unanswered one were parked or not, with a
 * retransmission of a parked call still flagged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <glib.h>

#include "pass1_feed.h"
#include "recfile.h"
#include "recpark.h"

/* The record's encoding on its own (as the file writer would start a
 * batch with it). */
static GByteArray *encoded(const struct tbbt_rec *r) {
    struct tbbt_rec_prev prev;
    memset(&prev, 0, sizeof prev);
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    assert_int_equal(tbbt_rec_encode(r, &prev, &buf, &len, &cap), 0);
    GByteArray *a = g_byte_array_new();
    g_byte_array_append(a, buf, (guint)len);
    g_free(buf);
    return a;
}

/* Asserts that a and b encode alike and agree on what the encoding may
 * leave out (buffer lengths). */
static void assert_same(const struct tbbt_rec *a, const struct tbbt_rec *b) {
    GByteArray *x = encoded(a), *y = encoded(b);
    assert_int_equal(x->len, y->len);
    assert_memory_equal(x->data, y->data, x->len);
    assert_int_equal(a->arena_len, b->arena_len);
    assert_memory_equal(a->arena, b->arena, a->arena_len);
    assert_int_equal(a->nentries, b->nentries);
    g_byte_array_free(x, TRUE);
    g_byte_array_free(y, TRUE);
}

/* A record with a field of every kind, a listing of n entries and g gids. */
static void make_rich(struct tbbt_rec *r, unsigned n, unsigned g) {
    tbbt_rec_init(r);
    r->call_time = 1700000000123456789LL;
    r->reply_time = r->call_time + 4567;
    r->client.family = r->server.family = 4;
    r->client.addr[0] = 10, r->client.port = 801;
    r->server.addr[0] = 11, r->server.port = 2049;
    r->xid = 0xdeadbeef;
    r->vers = 3;
    r->op = TBBT_OP_READDIRPLUS;
    r->flags = TBBT_RF_TCP;
    r->status = 0;
    r->cred.flavor = TBBT_AUTH_SYS;
    r->cred.uid = 1000, r->cred.gid = 1001;
    r->cred.ngids = g;
    for (unsigned i = 0; i < g; i++)
        r->cred.gids[i] = 2000 + i;
    tbbt_rec_set_u64(r, TBBT_F_OBJ, 42);
    tbbt_rec_set_u64(r, TBBT_F_COOKIE, 77);
    tbbt_rec_set_u64(r, TBBT_F_MAXCOUNT, 65536);
    tbbt_rec_set_u64(r, TBBT_F_MTIME, 1600000000000000000ULL);
    tbbt_rec_set_u64(r, TBBT_F_TYPE, 2);
    tbbt_rec_set_u64(r, TBBT_F_FSID, 9);
    tbbt_rec_set_u64(r, TBBT_F_FILEID, 1234);
    tbbt_rec_set_str(r, TBBT_F_NAME, "maildir-name-0001", 17);
    for (unsigned i = 0; i < n; i++) {
        char name[32];
        int len = snprintf(name, sizeof name, "entry-%u", i);
        struct tbbt_dirent *d = tbbt_rec_add_entry(r, name, (size_t)len);
        d->fileid = 5000 + i;
        d->cookie = i + 1;
        d->id = 100 + i;
        d->type = 1;
        d->size = 4096 * i;
    }
}

/* Packing and unpacking keeps every record as it was, into a scratch
 * record that held a bigger one before (which must leave nothing behind),
 * and into a fresh one. */
static void test_roundtrip(void **s) {
    (void)s;
    struct tbbt_recpark *rp = tbbt_recpark_new();
    struct tbbt_rec big, small, plain, scratch;
    make_rich(&big, 300, 16);
    make_rich(&small, 2, 1);
    tbbt_rec_init(&plain); /* a bare header: a record with no optional field */
    plain.call_time = 5;
    plain.xid = 1;
    plain.op = TBBT_OP_NULL;
    plain.flags = TBBT_RF_REPLY_LOST;
    tbbt_rec_init(&scratch);
    const struct tbbt_rec *order[] = {&big, &small, &plain, &big, &plain};
    for (size_t i = 0; i < G_N_ELEMENTS(order); i++) {
        size_t len;
        uint8_t *p = tbbt_recpark_pack(rp, order[i], &len);
        assert_true(len > 0);
        tbbt_recpark_unpack(rp, &scratch, p);
        assert_same(order[i], &scratch);
        assert_int_equal(scratch.cred.ngids, order[i]->cred.ngids);
        assert_memory_equal(scratch.cred.gids, order[i]->cred.gids, sizeof scratch.cred.gids);
        tbbt_recpark_release(rp, p);
    }
    tbbt_rec_free(&big);
    tbbt_rec_free(&small);
    tbbt_rec_free(&scratch);
    tbbt_recpark_free(rp);
}

/* Slabs follow the records held: many records packed and released in turn
 * hold no more than a few slabs; held at once they take room in
 * proportion, given back when released (in any order), bar the slabs kept
 * for reuse. */
static void test_slabs_follow_records(void **s) {
    (void)s;
    struct tbbt_recpark *rp = tbbt_recpark_new();
    struct tbbt_rec r;
    make_rich(&r, 0, 1);
    size_t len;
    uint8_t *ring[64] = {0};
    for (unsigned i = 0; i < 200000; i++) { /* 64 held at a time, released oldest first */
        if (ring[i % 64]) tbbt_recpark_release(rp, ring[i % 64]);
        ring[i % 64] = tbbt_recpark_pack(rp, &r, &len);
    }
    assert_true(tbbt_recpark_mem(rp) < (size_t)2 << 20); /* the slab being filled and 8 kept */
    for (unsigned i = 0; i < 64; i++)
        tbbt_recpark_release(rp, ring[i]);
    enum { N = 100000 };
    uint8_t **held = g_new(uint8_t *, N);
    for (unsigned i = 0; i < N; i++)
        held[i] = tbbt_recpark_pack(rp, &r, &len);
    assert_true(tbbt_recpark_mem(rp) >= (size_t)N * len);
    for (unsigned i = 1; i < N; i += 2) /* odd ones first, then the even */
        tbbt_recpark_release(rp, held[i]);
    for (unsigned i = 0; i < N; i += 2)
        tbbt_recpark_release(rp, held[i]);
    assert_true(tbbt_recpark_mem(rp) < (size_t)2 << 20); /* the slab being filled and 8 kept */
    g_free(held);
    tbbt_rec_free(&r);
    tbbt_recpark_free(rp);
}

/* Pass 1 with and without a blocking call ahead. */

static uint8_t buf[1 << 16];

/* Hands buf[0, len) to pass 1 from the client (or the server) at ts. */
static void feed_buf(struct tbbt_pass1 *p, int reply, size_t len, int64_t ts) {
    pass1_feed(p, buf, reply, len, len, ts);
}

/* A LOOKUP of a name in a directory, and (ok) its reply with the new
 * handle and both objects' attributes. */
static void lookup(struct tbbt_pass1 *p, uint32_t xid, int64_t ts, int ok) {
    size_t at = pass1_rpc_hdr(buf, 0, xid, 3);
    put32(buf + at, 8);
    memset(buf + at + 4, 0x21, 8); /* the directory's handle */
    char name[24];
    int n = snprintf(name, sizeof name, "file-%05u", xid);
    put32(buf + at + 12, (uint32_t)n);
    memset(buf + at + 16, 0, 12);
    memcpy(buf + at + 16, name, (size_t)n);
    feed_buf(p, 0, at + 16 + (((size_t)n + 3) & ~(size_t)3), ts);
    if (!ok) return;
    at = pass1_rpc_hdr(buf, 1, xid, 0);
    put32(buf + at, 0); /* NFS3_OK */
    put32(buf + at + 4, 8);
    memset(buf + at + 8, 0, 8);
    put32(buf + at + 8, xid); /* the object's handle */
    at += 16;
    for (int k = 0; k < 2; k++) { /* object, then directory attributes */
        put32(buf + at, 1);
        memset(buf + at + 4, 0, 84);
        put32(buf + at + 4, k ? 2 : 1); /* type */
        put32(buf + at + 8, 0644);
        put32(buf + at + 12, 1);                /* nlink */
        put32(buf + at + 52, 7);                /* fsid (low word) */
        put32(buf + at + 60, k ? 2 : xid + 10); /* fileid (low word) */
        at += 88;
    }
    feed_buf(p, 1, at, ts + 200000);
}

static GPtrArray *out;

/* Keeps each emitted record's encoding. */
static int keep(void *ctx, const struct tbbt_rec *r) {
    (void)ctx;
    g_ptr_array_add(out, encoded(r));
    return 0;
}

/* Runs 2,000 answered LOOKUPs, one every 5 ms (10 s), behind an
 * unanswered one when blocked, with the call of xid 500 sent again 1 s
 * later; returns the records' encodings, without the blocking call's. */
static GPtrArray *run(int blocked) {
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    struct tbbt_pass1 *p = tbbt_pass1_new(&o, keep, NULL);
    out = g_ptr_array_new_with_free_func((GDestroyNotify)g_byte_array_unref);
    const int64_t t0 = 1700000000LL * 1000000000LL;
    if (blocked) lookup(p, 1, t0, 0);
    for (uint32_t x = 2; x < 2002; x++) {
        int64_t t = t0 + 1000000 + (int64_t)x * 5000000;
        lookup(p, x, t, 1);
        if (x == 700) { /* xid 500's call again */
            size_t at = pass1_rpc_hdr(buf, 0, 500, 3);
            put32(buf + at, 8);
            memset(buf + at + 4, 0x21, 8);
            put32(buf + at + 12, 10);
            memset(buf + at + 16, 0, 12);
            memcpy(buf + at + 16, "file-00500", 10);
            feed_buf(p, 0, at + 28, t);
        }
    }
    assert_int_equal(tbbt_pass1_finish(p), 0);
    assert_int_equal(tbbt_pass1_stats(p)->retrans_calls, 1);
    tbbt_pass1_free(p);
    if (blocked) g_ptr_array_remove_index(out, 0);
    return out;
}

/* The record of encoding x, decoded. */
static void decode(struct tbbt_rec *r, const GByteArray *x) {
    struct tbbt_rec_prev prev;
    memset(&prev, 0, sizeof prev);
    const uint8_t *q = x->data;
    char err[128];
    assert_int_equal(tbbt_rec_decode(r, &prev, &q, x->data + x->len, err, sizeof err), 0);
}

/* Every record behind the unanswered call waits (10 s < the 30 s reply
 * timeout), most of them parked; they come out as they do when nothing
 * blocks them. The one exception is the record of xid 500: sent again
 * while it waited, it is flagged as retransmitted (when nothing blocks it,
 * it was out before its second copy came, which then has nothing to
 * flag), and otherwise the same. */
static void test_pass1_same_records(void **s) {
    (void)s;
    GPtrArray *a = run(0);
    GPtrArray *b = run(1);
    assert_int_equal(a->len, 2000);
    assert_int_equal(b->len, a->len);
    for (guint i = 0; i < a->len; i++) {
        GByteArray *x = g_ptr_array_index(a, i), *y = g_ptr_array_index(b, i);
        if (i == 498) continue;
        assert_int_equal(x->len, y->len);
        assert_memory_equal(x->data, y->data, x->len);
    }
    struct tbbt_rec ra, rb;
    tbbt_rec_init(&ra);
    tbbt_rec_init(&rb);
    decode(&ra, g_ptr_array_index(a, 498));
    decode(&rb, g_ptr_array_index(b, 498));
    assert_int_equal(rb.xid, 500);
    assert_false(ra.flags & TBBT_RF_RETRANS);
    assert_true(rb.flags & TBBT_RF_RETRANS);
    assert_true(tbbt_rec_has(&rb, TBBT_F_NEWOBJ) && tbbt_rec_has(&rb, TBBT_F_FILEID));
    rb.flags &= (uint16_t)~TBBT_RF_RETRANS;
    assert_same(&ra, &rb);
    tbbt_rec_free(&ra);
    tbbt_rec_free(&rb);
    g_ptr_array_free(a, TRUE);
    g_ptr_array_free(b, TRUE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),
        cmocka_unit_test(test_slabs_follow_records),
        cmocka_unit_test(test_pass1_same_records),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
