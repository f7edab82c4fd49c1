/* test_pass1_ids.c -- pass 1 gives a file a new TBBT-ID when the server
 * reused its inode and the capture cut the calls that showed it: a remove
 * whose name the snaplen cut (pass 1 cannot retire the object), then an
 * UNCHECKED CREATE, its name cut too, whose reply shows a handle never
 * seen with the old file's fileid. An existing file comes back under the
 * handle it was known by, so a new handle is a new file; joining it to
 * the old ID made pass 2 and the replay treat two files as one. The same
 * create with the old handle is the old file. And a removed file's handle
 * shown by a reply to a call that overlapped the remove, or used by
 * pipelined calls answered STALE, names the removed file. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "pass1_feed.h"

#define NFS3_LOOKUP 3
#define NFS3_READ 6
#define NFS3_CREATE 8
#define NFS3_REMOVE 12

/* Stores an XDR opaque: length, bytes, padding. */
static uint8_t *put_opaque(uint8_t *p, const void *b, uint32_t n) {
    p = put32(p, n);
    memcpy(p, b, n);
    memset(p + n, 0, (4 - n % 4) % 4);
    return p + ((n + 3) & ~3u);
}

static uint8_t buf[4096];

/* An RPC call header (AUTH_NONE) of NFSv3 procedure proc at buf. */
static uint8_t *call_hdr(uint32_t xid, uint32_t proc) {
    return buf + pass1_rpc_hdr(buf, 0, xid, proc);
}

/* An accepted, successful RPC reply header at buf. */
static uint8_t *reply_hdr(uint32_t xid) {
    return buf + pass1_rpc_hdr(buf, 1, xid, 0);
}

/* Hands buf[0, len) to pass 1, the capture keeping caplen bytes of it. */
static void feed(struct tbbt_pass1 *p, int reply, size_t len, size_t caplen, int64_t ts) {
    pass1_feed(p, buf, reply, len, caplen, ts);
}

static const uint8_t DIRFH[8] = {1, 1, 1, 1, 1, 1, 1, 1};
static const char NAME[] = "1764174280.M814632P3023Q40.mx-46.mail.example-university.edu,S=22693";

/* A call on (DIRFH, NAME) of proc (CREATE: UNCHECKED, no attributes),
 * cut cut bytes into the name when cut > 0. */
static void feed_dirop(struct tbbt_pass1 *p, uint32_t xid, uint32_t proc, int cut, int64_t ts) {
    uint8_t *q = put_opaque(call_hdr(xid, proc), DIRFH, sizeof(DIRFH));
    size_t at_name = (size_t)(q - buf) + 4;
    q = put_opaque(q, NAME, sizeof(NAME) - 1);
    if (proc == NFS3_CREATE) {
        q = put32(q, 0);  /* UNCHECKED */
        memset(q, 0, 24); /* sattr3: nothing set */
        q += 24;
    }
    size_t len = (size_t)(q - buf);
    feed(p, 0, len, cut ? at_name + (size_t)cut : len, ts);
}

static uint32_t reply_uid; /* the owner CREATE's reply shows */

/* Writes at q a regular file's attributes (post_op_attr) with fileid,
 * owned by reply_uid; returns the byte after them. */
static uint8_t *put_file_attr(uint8_t *q, uint32_t fileid) {
    q = put32(q, 1); /* fattr3 */
    memset(q, 0, 84);
    put32(q, 1);        /* NF3REG */
    put32(q + 4, 0644); /* mode */
    put32(q + 8, 1);    /* nlink */
    put32(q + 12, reply_uid);
    put32(q + 16, reply_uid);
    put32(q + 52, 7);      /* fsid */
    put32(q + 60, fileid); /* fileid */
    return q + 84;
}

/* LOOKUP's reply: OK, handle (8 bytes of b), the file's attributes with
 * fileid, none of the directory's. */
static void feed_lookup_reply(struct tbbt_pass1 *p, uint32_t xid, uint8_t b, uint32_t fileid, int64_t ts) {
    uint8_t fh[8];
    memset(fh, b, sizeof(fh));
    uint8_t *q = put32(reply_hdr(xid), 0);
    q = put_opaque(q, fh, sizeof(fh));
    q = put_file_attr(q, fileid);
    q = put32(q, 0);
    feed(p, 1, (size_t)(q - buf), (size_t)(q - buf), ts);
}

/* A READ call of the file with handle (8 bytes of b), and its STALE
 * reply (no attributes). */
static void feed_read(struct tbbt_pass1 *p, uint32_t xid, uint8_t b, int64_t ts) {
    uint8_t fh[8];
    memset(fh, b, sizeof(fh));
    uint8_t *q = put_opaque(call_hdr(xid, NFS3_READ), fh, sizeof(fh));
    q = put32(q, 0); /* offset */
    q = put32(q, 0);
    q = put32(q, 4096); /* count */
    feed(p, 0, (size_t)(q - buf), (size_t)(q - buf), ts);
}
static void feed_stale_reply(struct tbbt_pass1 *p, uint32_t xid, int64_t ts) {
    uint8_t *q = put32(reply_hdr(xid), 70);
    q = put32(q, 0);
    feed(p, 1, (size_t)(q - buf), (size_t)(q - buf), ts);
}

/* CREATE's reply: handle fh (8 bytes of b) and a regular file's
 * attributes with fileid, owned by reply_uid. */
static void feed_create_reply(struct tbbt_pass1 *p, uint32_t xid, uint8_t b, uint32_t fileid, int64_t ts) {
    uint8_t fh[8];
    memset(fh, b, sizeof(fh));
    uint8_t *q = put32(reply_hdr(xid), 0);
    q = put32(q, 1);
    q = put_opaque(q, fh, sizeof(fh));
    q = put_file_attr(q, fileid);
    q = put32(q, 0); /* dir_wcc: no pre, no post */
    q = put32(q, 0);
    feed(p, 1, (size_t)(q - buf), (size_t)(q - buf), ts);
}

/* REMOVE's reply: OK, no attributes. */
static void feed_remove_reply(struct tbbt_pass1 *p, uint32_t xid, int64_t ts) {
    uint8_t *q = put32(reply_hdr(xid), 0);
    q = put32(q, 0);
    q = put32(q, 0);
    feed(p, 1, (size_t)(q - buf), (size_t)(q - buf), ts);
}

static tbbt_id newobj[4];
static unsigned nnew;
static tbbt_id seen[4]; /* the lookups' new objects and the reads' objects */
static unsigned nseen;

/* Keeps the new objects of the creates, in order, and the objects the
 * lookups and reads name. */
static int sink(void *ctx, const struct tbbt_rec *r) {
    (void)ctx;
    if (r->op == TBBT_OP_CREATE && tbbt_rec_has(r, TBBT_F_NEWOBJ) && nnew < 4) newobj[nnew++] = r->newobj;
    if (r->op == TBBT_OP_LOOKUP && tbbt_rec_has(r, TBBT_F_NEWOBJ) && nseen < 4) seen[nseen++] = r->newobj;
    if (r->op == TBBT_OP_READ && nseen < 4) seen[nseen++] = r->obj;
    return 0;
}

/* Create (whole), remove (name cut), create (name cut) whose reply shows
 * handle byte b2 with the first file's fileid: the two creates' IDs. */
static void run(uint8_t b2) {
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    struct tbbt_pass1 *p = tbbt_pass1_new(&o, sink, NULL);
    nnew = 0;
    const int64_t t = 1000000000LL * 1700000000LL;
    feed_dirop(p, 1, NFS3_CREATE, 0, t);
    feed_create_reply(p, 1, 0x22, 500, t + 1000);
    feed_dirop(p, 2, NFS3_REMOVE, 20, t + 2000);
    feed_remove_reply(p, 2, t + 3000);
    feed_dirop(p, 3, NFS3_CREATE, 20, t + 4000);
    feed_create_reply(p, 3, b2, 500, t + 5000);
    assert_int_equal(tbbt_pass1_finish(p), 0);
    tbbt_pass1_free(p);
    assert_int_equal(nnew, 2);
}

/* A new handle with a reused fileid: a new object. */
static void test_cut_create_new_handle_is_new(void **s) {
    (void)s;
    run(0x33);
    assert_true(newobj[0] != 0 && newobj[1] != 0);
    assert_true(newobj[0] != newobj[1]);
}

/* The old handle again: the same object (an UNCHECKED create of the
 * existing file). */
static void test_cut_create_old_handle_is_same(void **s) {
    (void)s;
    run(0x22);
    assert_int_equal(newobj[0], newobj[1]);
}

/* Create, then (its removal lost whole) a create of the same name that
 * the server answers with the same handle -- an inode and generation
 * reused -- for a file another user owns: an UNCHECKED create that sets
 * no owner never changes an existing file's, so it is a new object. With
 * the owner unchanged, the existing file. */
static void test_create_same_handle_new_owner_is_new(void **s) {
    (void)s;
    for (int other = 0; other < 2; other++) {
        struct tbbt_pass1_opts o;
        tbbt_pass1_opts_default(&o);
        struct tbbt_pass1 *p = tbbt_pass1_new(&o, sink, NULL);
        nnew = 0;
        const int64_t t = 1000000000LL * 1700000000LL;
        reply_uid = 0;
        feed_dirop(p, 1, NFS3_CREATE, 0, t);
        feed_create_reply(p, 1, 0x22, 500, t + 1000);
        reply_uid = other ? 1000 : 0;
        feed_dirop(p, 3, NFS3_CREATE, 0, t + 4000);
        feed_create_reply(p, 3, 0x22, 500, t + 5000);
        reply_uid = 0;
        assert_int_equal(tbbt_pass1_finish(p), 0);
        tbbt_pass1_free(p);
        assert_int_equal(nnew, 2);
        if (other)
            assert_true(newobj[0] != newobj[1]);
        else
            assert_int_equal(newobj[0], newobj[1]);
    }
}

/* A lookup sent before another call's remove was answered, its reply
 * decoded after that remove retired the file: the server ran the lookup
 * first, and the handle it shows is the removed file's, not a new object
 * (which then took the fileid, a create reusing the inode joined it, and
 * the old file's later STALE was the new file's in pass 2). A create
 * reusing the inode after it is still a new object. */
static void test_lookup_overlapping_remove_shows_dead(void **s) {
    (void)s;
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    struct tbbt_pass1 *p = tbbt_pass1_new(&o, sink, NULL);
    nnew = nseen = 0;
    const int64_t t = 1000000000LL * 1700000000LL;
    reply_uid = 1000;
    feed_dirop(p, 1, NFS3_CREATE, 0, t);
    feed_create_reply(p, 1, 0x22, 500, t + 1000);
    feed_dirop(p, 4, NFS3_LOOKUP, 0, t + 2000);
    feed_dirop(p, 2, NFS3_REMOVE, 0, t + 2100);
    feed_remove_reply(p, 2, t + 3000);
    feed_lookup_reply(p, 4, 0x22, 500, t + 3100);
    reply_uid = 0;
    feed_dirop(p, 3, NFS3_CREATE, 0, t + 4000);
    feed_create_reply(p, 3, 0x33, 500, t + 5000);
    assert_int_equal(tbbt_pass1_finish(p), 0);
    tbbt_pass1_free(p);
    assert_int_equal(nnew, 2);
    assert_int_equal(nseen, 1);
    assert_int_equal(seen[0], newobj[0]);
    assert_true(newobj[1] != newobj[0]);
}

/* Two pipelined reads of a removed file, both answered STALE: the first
 * read's lookup made a new object for the forgotten handle, which its
 * reply re-pointed to the dead file and forgot; the second read, sent
 * before that reply, shared it and names the dead file too. */
static void test_pipelined_stale_reads_name_dead(void **s) {
    (void)s;
    struct tbbt_pass1_opts o;
    tbbt_pass1_opts_default(&o);
    struct tbbt_pass1 *p = tbbt_pass1_new(&o, sink, NULL);
    nnew = nseen = 0;
    const int64_t t = 1000000000LL * 1700000000LL;
    reply_uid = 0;
    feed_dirop(p, 1, NFS3_CREATE, 0, t);
    feed_create_reply(p, 1, 0x22, 500, t + 1000);
    feed_dirop(p, 2, NFS3_REMOVE, 0, t + 2000);
    feed_remove_reply(p, 2, t + 3000);
    feed_read(p, 5, 0x22, t + 4000);
    feed_read(p, 6, 0x22, t + 4100);
    feed_stale_reply(p, 5, t + 5000);
    feed_stale_reply(p, 6, t + 5100);
    assert_int_equal(tbbt_pass1_finish(p), 0);
    tbbt_pass1_free(p);
    assert_int_equal(nnew, 1);
    assert_int_equal(nseen, 2);
    assert_int_equal(seen[0], newobj[0]);
    assert_int_equal(seen[1], newobj[0]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cut_create_new_handle_is_new),
        cmocka_unit_test(test_cut_create_old_handle_is_same),
        cmocka_unit_test(test_create_same_handle_new_owner_is_new),
        cmocka_unit_test(test_lookup_overlapping_remove_shows_dead),
        cmocka_unit_test(test_pipelined_stale_reads_name_dead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
