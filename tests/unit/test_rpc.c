/* test_rpc.c -- ONC RPC header parsing (tbbt_rpc_parse) against headers
 * encoded by libtirpc's own XDR routines (xdr_callmsg, xdr_replymsg,
 * xdr_authunix_parms), and MOUNT MNT reply decoding against rpcgen's
 * encoding from lib/proto/tbbt_mount.x. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rpc/rpc.h>

#include "nfsdec.h"
#include "tbbt_mount.h"
#include "tbbt_nfs.h"
#include "unconst.h"

#define BUFSZ 2048

/* Encodes an AUTH_SYS credential body with libtirpc. */
static u_int authsys_body(char *out, const char *host, uid_t uid, gid_t gid, gid_t *gids, u_int ngids) {
    struct authunix_parms p = {12345, tbbt_unconst(host), uid, gid, ngids, gids};
    XDR x;
    xdrmem_create(&x, out, 400, XDR_ENCODE);
    assert_true(xdr_authunix_parms(&x, &p));
    u_int n = xdr_getpos(&x);
    xdr_destroy(&x);
    return n;
}

/* Encodes a call header with the given credential, and returns its length. */
static size_t enc_call(uint8_t *buf, uint32_t xid, enum_t flavor, char *body, u_int len) {
    struct rpc_msg m;
    memset(&m, 0, sizeof(m));
    m.rm_xid = xid;
    m.rm_direction = CALL;
    m.rm_call.cb_rpcvers = 2;
    m.rm_call.cb_prog = 100003;
    m.rm_call.cb_vers = 3;
    m.rm_call.cb_proc = NFSPROC3_LOOKUP;
    m.rm_call.cb_cred.oa_flavor = flavor;
    m.rm_call.cb_cred.oa_base = body;
    m.rm_call.cb_cred.oa_length = len;
    m.rm_call.cb_verf.oa_flavor = AUTH_NONE;
    XDR x;
    xdrmem_create(&x, (char *)buf, BUFSZ, XDR_ENCODE);
    assert_true(xdr_callmsg(&x, &m));
    size_t n = xdr_getpos(&x);
    xdr_destroy(&x);
    return n;
}

static size_t enc_reply(uint8_t *buf, struct rpc_msg *m) {
    XDR x;
    m->rm_direction = REPLY;
    xdrmem_create(&x, (char *)buf, BUFSZ, XDR_ENCODE);
    assert_true(xdr_replymsg(&x, m));
    size_t n = xdr_getpos(&x);
    xdr_destroy(&x);
    return n;
}

/* Every cut of a well-formed header is rejected, without reading past it. */
static void check_cuts(const uint8_t *buf, size_t n) {
    struct tbbt_rpc_hdr h;
    for (size_t cut = 0; cut < n; cut++) {
        uint8_t *c = malloc(cut ? cut : 1);
        memcpy(c, buf, cut);
        assert_int_equal(tbbt_rpc_parse(c, cut, &h), -1);
        free(c);
    }
}

static void test_call_auth_sys(void **state) {
    (void)state;
    uint8_t buf[BUFSZ];
    char body[400];
    gid_t gids[5] = {4, 24, 27, 30, 1000};
    u_int blen = authsys_body(body, "client.example.org", 1000, 100, gids, 5);
    size_t n = enc_call(buf, 0xdeadbeef, AUTH_SYS, body, blen);
    /* arguments after the header */
    LOOKUP3args a = {{{{4, "\x01\x02\x03\x04"}}, "file"}};
    XDR x;
    xdrmem_create(&x, (char *)buf + n, BUFSZ - n, XDR_ENCODE);
    assert_true(xdr_LOOKUP3args(&x, &a));
    size_t total = n + xdr_getpos(&x);
    xdr_destroy(&x);

    struct tbbt_rpc_hdr h;
    assert_int_equal(tbbt_rpc_parse(buf, total, &h), 0);
    assert_int_equal(h.xid, 0xdeadbeef);
    assert_int_equal(h.mtype, TBBT_RPC_CALL);
    assert_int_equal(h.rpcvers, 2);
    assert_int_equal(h.prog, 100003);
    assert_int_equal(h.vers, 3);
    assert_int_equal(h.proc, NFSPROC3_LOOKUP);
    assert_int_equal(h.cred.flavor, AUTH_SYS);
    assert_int_equal(h.cred.uid, 1000);
    assert_int_equal(h.cred.gid, 100);
    assert_int_equal(h.cred.ngids, 5);
    for (int i = 0; i < 5; i++)
        assert_int_equal(h.cred.gids[i], gids[i]);
    assert_int_equal(h.body, n);

    /* the body decodes as the procedure's arguments */
    struct tbbt_rec r;
    struct tbbt_fhrefs fh = {0};
    tbbt_rec_init(&r);
    r.vers = 3;
    r.op = TBBT_OP_LOOKUP;
    assert_int_equal(tbbt_nfs_decode_call(&r, buf + h.body, total - h.body, &fh), TBBT_DEC_OK);
    assert_int_equal(r.name.len, 4);
    assert_memory_equal(tbbt_rec_str(&r, r.name), "file", 4);
    assert_int_equal(fh.n, 1);
    tbbt_rec_free(&r);
    tbbt_fhrefs_free(&fh);

    check_cuts(buf, n);
}

/* More gids than the record keeps: the first TBBT_MAX_GIDS are kept. */
static void test_call_many_gids(void **state) {
    (void)state;
    uint8_t body[400];
    size_t k = 0;
    uint32_t words[] = {1, 0 /* empty machine name */, 7, 8, 20};
    for (size_t i = 0; i < 5; i++, k += 4) {
        body[k] = 0, body[k + 1] = 0, body[k + 2] = (uint8_t)(words[i] >> 8), body[k + 3] = (uint8_t)words[i];
    }
    for (uint32_t g = 0; g < 20; g++, k += 4)
        body[k] = 0, body[k + 1] = 0, body[k + 2] = 0, body[k + 3] = (uint8_t)(50 + g);
    uint8_t buf[BUFSZ];
    size_t n = enc_call(buf, 1, AUTH_SYS, (char *)body, (u_int)k);
    struct tbbt_rpc_hdr h;
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), 0);
    assert_int_equal(h.cred.uid, 7);
    assert_int_equal(h.cred.gid, 8);
    assert_int_equal(h.cred.ngids, TBBT_MAX_GIDS);
    for (uint32_t g = 0; g < TBBT_MAX_GIDS; g++)
        assert_int_equal(h.cred.gids[g], 50 + g);

    /* a gid count the body cannot hold is malformed */
    body[19] = 200;
    n = enc_call(buf, 1, AUTH_SYS, (char *)body, (u_int)k);
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), -1);
}

static void test_call_auth_none_and_other(void **state) {
    (void)state;
    uint8_t buf[BUFSZ];
    struct tbbt_rpc_hdr h;
    size_t n = enc_call(buf, 42, AUTH_NONE, NULL, 0);
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), 0);
    assert_int_equal(h.cred.flavor, AUTH_NONE);
    assert_int_equal(h.cred.uid, 0);
    assert_int_equal(h.cred.ngids, 0);
    assert_int_equal(h.body, n);
    assert_int_equal(n, 40);

    /* RPCSEC_GSS (6): opaque, skipped by its length (odd: padding) */
    char gss[37];
    memset(gss, 0xab, sizeof(gss));
    n = enc_call(buf, 43, 6, gss, sizeof(gss));
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), 0);
    assert_int_equal(h.cred.flavor, 6);
    assert_int_equal(h.body, n);
    check_cuts(buf, n);
}

static void test_call_absurd(void **state) {
    (void)state;
    uint8_t buf[BUFSZ];
    struct tbbt_rpc_hdr h;
    char big[401] = {0};
    size_t n = enc_call(buf, 1, 6, big, 400);
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), 0); /* 400 is the limit */
    buf[31] = 0x91;                                  /* length 400 -> 401 (libtirpc refuses to encode it) */
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), -1);

    n = enc_call(buf, 1, AUTH_NONE, NULL, 0);
    buf[11] = 3; /* rpcvers 3 */
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), -1);
    buf[11] = 2;
    buf[7] = 2; /* message type 2 */
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), -1);
    buf[7] = 0;
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), 0);
    /* verifier length over 400 */
    buf[38] = 0x02;
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), -1);
}

/* Results encoder for an empty body. */
static bool_t no_results(XDR *x, ...) {
    (void)x;
    return TRUE;
}

static void test_reply_accepted(void **state) {
    (void)state;
    uint8_t buf[BUFSZ];
    struct tbbt_rpc_hdr h;
    struct rpc_msg m;
    memset(&m, 0, sizeof(m));
    m.rm_xid = 0x01020304;
    m.rm_reply.rp_stat = MSG_ACCEPTED;
    m.acpted_rply.ar_verf.oa_flavor = AUTH_NONE;
    m.acpted_rply.ar_stat = SUCCESS;
    m.acpted_rply.ar_results.where = NULL;
    m.acpted_rply.ar_results.proc = no_results;
    size_t n = enc_reply(buf, &m);
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), 0);
    assert_int_equal(h.xid, 0x01020304);
    assert_int_equal(h.mtype, TBBT_RPC_REPLY);
    assert_int_equal(h.reply_stat, 0);
    assert_int_equal(h.accept_stat, 0);
    assert_int_equal(h.body, n);
    assert_int_equal(n, 24);
    check_cuts(buf, n);

    m.acpted_rply.ar_stat = PROG_MISMATCH;
    m.acpted_rply.ar_vers.low = 2;
    m.acpted_rply.ar_vers.high = 3;
    n = enc_reply(buf, &m);
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), 0);
    assert_int_equal(h.accept_stat, PROG_MISMATCH);
    assert_int_equal(h.body, n);

    m.acpted_rply.ar_stat = GARBAGE_ARGS;
    n = enc_reply(buf, &m);
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), 0);
    assert_int_equal(h.accept_stat, GARBAGE_ARGS);
}

static void test_reply_denied(void **state) {
    (void)state;
    uint8_t buf[BUFSZ];
    struct tbbt_rpc_hdr h;
    struct rpc_msg m;
    memset(&m, 0, sizeof(m));
    m.rm_xid = 9;
    m.rm_reply.rp_stat = MSG_DENIED;
    m.rjcted_rply.rj_stat = AUTH_ERROR;
    m.rjcted_rply.rj_why = AUTH_TOOWEAK;
    size_t n = enc_reply(buf, &m);
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), 0);
    assert_int_equal(h.reply_stat, 1);
    assert_int_equal(h.reject_stat, 1);
    assert_int_not_equal(h.accept_stat, 0); /* never reads as SUCCESS */
    assert_int_equal(h.body, n);
    check_cuts(buf, n);

    m.rjcted_rply.rj_stat = RPC_MISMATCH;
    m.rjcted_rply.rj_vers.low = 2;
    m.rjcted_rply.rj_vers.high = 2;
    n = enc_reply(buf, &m);
    assert_int_equal(tbbt_rpc_parse(buf, n, &h), 0);
    assert_int_equal(h.reply_stat, 1);
    assert_int_equal(h.reject_stat, 0);
    assert_int_not_equal(h.accept_stat, 0);
    assert_int_equal(h.body, n);
}

static void test_garbage(void **state) {
    (void)state;
    struct tbbt_rpc_hdr h;
    srand(99);
    for (int iter = 0; iter < 20000; iter++) {
        size_t n = (size_t)rand() % 200;
        uint8_t *p = malloc(n ? n : 1);
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)rand();
        if (n >= 12) p[4] = p[5] = p[6] = 0, p[7] &= 1, p[8] = p[9] = p[10] = 0; /* reach the deep paths */
        if (tbbt_rpc_parse(p, n, &h) == 0) assert_true(h.body <= n);
        free(p);
    }
}

/* ---- MOUNT ---- */

static size_t enc_mount(uint8_t *buf, xdrproc_t proc, void *obj) {
    XDR x;
    xdrmem_create(&x, (char *)buf, BUFSZ, XDR_ENCODE);
    assert_true(proc(&x, obj));
    size_t n = xdr_getpos(&x);
    xdr_destroy(&x);
    return n;
}

static void test_mount_v1(void **state) {
    (void)state;
    uint8_t buf[BUFSZ];
    fhstatus s = {0};
    for (int i = 0; i < MNT1_FHSIZE; i++)
        s.fhstatus_u.fhs_fhandle[i] = (char)(i * 3);
    size_t n = enc_mount(buf, (xdrproc_t)xdr_fhstatus, &s);
    uint32_t st = 99;
    struct tbbt_fhref fh;
    assert_int_equal(tbbt_mount_decode_mnt_reply(1, buf, n, &st, &fh), TBBT_DEC_OK);
    assert_int_equal(st, 0);
    assert_int_equal(fh.len, 32);
    assert_memory_equal(fh.data, s.fhstatus_u.fhs_fhandle, 32);
    for (size_t cut = 0; cut < n; cut++)
        assert_int_equal(tbbt_mount_decode_mnt_reply(1, buf, cut, &st, &fh), TBBT_DEC_TRUNC);

    s.fhs_status = 13;
    n = enc_mount(buf, (xdrproc_t)xdr_fhstatus, &s);
    assert_int_equal(tbbt_mount_decode_mnt_reply(1, buf, n, &st, &fh), TBBT_DEC_OK);
    assert_int_equal(st, 13);
    assert_int_equal(fh.len, 0);
}

static void test_mount_v3(void **state) {
    (void)state;
    uint8_t buf[BUFSZ];
    char h[57];
    for (int i = 0; i < 57; i++)
        h[i] = (char)(200 - i);
    int flavors[2] = {AUTH_SYS, AUTH_NONE};
    mountres3 r = {.fhs_status = MNT3_OK};
    r.mountres3_u.mountinfo.fhandle.mntfhandle3_len = 57;
    r.mountres3_u.mountinfo.fhandle.mntfhandle3_val = h;
    r.mountres3_u.mountinfo.auth_flavors.auth_flavors_len = 2;
    r.mountres3_u.mountinfo.auth_flavors.auth_flavors_val = flavors;
    size_t n = enc_mount(buf, (xdrproc_t)xdr_mountres3, &r);
    uint32_t st = 99;
    struct tbbt_fhref fh;
    assert_int_equal(tbbt_mount_decode_mnt_reply(3, buf, n, &st, &fh), TBBT_DEC_OK);
    assert_int_equal(st, 0);
    assert_int_equal(fh.len, 57);
    assert_memory_equal(fh.data, h, 57);
    for (size_t cut = 0; cut < n; cut++) {
        int rc = tbbt_mount_decode_mnt_reply(3, buf, cut, &st, &fh);
        assert_int_equal(rc, TBBT_DEC_TRUNC);
        if (fh.len) assert_memory_equal(fh.data, h, 57); /* handle whole or absent */
    }

    buf[7] = 65; /* handle length 65 > 64 */
    assert_int_equal(tbbt_mount_decode_mnt_reply(3, buf, n, &st, &fh), TBBT_DEC_BAD);
    assert_int_equal(tbbt_mount_decode_mnt_reply(4, buf, n, &st, &fh), TBBT_DEC_BAD);

    r.fhs_status = MNT3ERR_ACCES;
    n = enc_mount(buf, (xdrproc_t)xdr_mountres3, &r);
    assert_int_equal(tbbt_mount_decode_mnt_reply(3, buf, n, &st, &fh), TBBT_DEC_OK);
    assert_int_equal(st, MNT3ERR_ACCES);
    assert_int_equal(fh.len, 0);
}

/* A header the snaplen cut: tbbt_rpc_parse refuses it, the prefix parser
 * keeps what names the message (a call from its procedure on, a reply from
 * its reply_stat on) and says it is cut; less than that is refused. */
static void test_prefix_cut(void **state) {
    (void)state;
    uint8_t buf[BUFSZ];
    char body[400];
    gid_t gids[2] = {4, 24};
    u_int blen = authsys_body(body, "a-long-client-hostname.example.org", 1000, 100, gids, 2);
    size_t n = enc_call(buf, 0x01020304, AUTH_SYS, body, blen);
    struct tbbt_rpc_hdr h;
    for (size_t cut = 0; cut < n; cut++) {
        int rc = tbbt_rpc_parse_prefix(buf, cut, &h);
        if (cut < 24) {
            assert_int_equal(rc, -1);
            continue;
        }
        assert_int_equal(rc, TBBT_DEC_TRUNC);
        assert_true(h.cut);
        assert_int_equal(h.xid, 0x01020304);
        assert_int_equal(h.proc, NFSPROC3_LOOKUP);
        assert_int_equal(h.body, cut);
        assert_int_equal(h.cred.uid, 0); /* never a partial credential */
    }
    assert_int_equal(tbbt_rpc_parse_prefix(buf, n, &h), 0);
    assert_false(h.cut);

    struct rpc_msg m;
    memset(&m, 0, sizeof(m));
    m.rm_xid = 77;
    m.rm_reply.rp_stat = MSG_ACCEPTED;
    m.rm_reply.rp_acpt.ar_verf.oa_flavor = AUTH_NONE;
    m.rm_reply.rp_acpt.ar_stat = SUCCESS;
    m.acpted_rply.ar_results.proc = no_results;
    size_t rn = enc_reply(buf, &m);
    assert_int_equal(tbbt_rpc_parse_prefix(buf, 11, &h), -1);
    assert_int_equal(tbbt_rpc_parse_prefix(buf, 12, &h), TBBT_DEC_TRUNC);
    assert_int_equal(h.accept_stat, UINT32_MAX); /* unknown: not an RPC error */
    assert_int_equal(tbbt_rpc_parse_prefix(buf, rn, &h), 0);
    assert_int_equal(h.accept_stat, 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_call_auth_sys),
        cmocka_unit_test(test_call_many_gids),
        cmocka_unit_test(test_call_auth_none_and_other),
        cmocka_unit_test(test_call_absurd),
        cmocka_unit_test(test_reply_accepted),
        cmocka_unit_test(test_reply_denied),
        cmocka_unit_test(test_garbage),
        cmocka_unit_test(test_mount_v1),
        cmocka_unit_test(test_mount_v3),
        cmocka_unit_test(test_prefix_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
