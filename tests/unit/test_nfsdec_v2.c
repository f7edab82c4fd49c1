/* test_nfsdec_v2.c -- NFSv2 call and reply decoding, checked against
 * messages encoded by rpcgen's XDR routines from lib/proto/tbbt_nfs.x.
 *
 * Every procedure's arguments and results with known values, the v2 to v3
 * attribute mapping (types, mode bits, times, used), sattr's "not set"
 * convention, and every message cut at every length. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rpc/rpc.h>

#include "nfsdec.h"
#include "tbbt_nfs.h"

#define HARNESS_VERS 2
#include "nfsdec_harness.h"

static fhandle2 mkfh(int seed) {
    fhandle2 f;
    for (int i = 0; i < NFS2_FHSIZE; i++)
        f.data[i] = (char)(seed * 17 + i);
    return f;
}

/* A regular file's attributes; mode carries the format bits as v2 does. */
static fattr2 mkattr(int seed, ftype2 type, unsigned fmt) {
    fattr2 a = {0};
    a.type = type;
    a.mode = fmt | (0644 + seed);
    a.nlink = 1 + seed;
    a.uid = 2000 + seed;
    a.gid = 300 + seed;
    a.size = 70000 + seed;
    a.blocksize = 4096;
    a.rdev = 0;
    a.blocks = 18 + seed;
    a.fsid = 0x80000001u;
    a.fileid = 4000000000u + seed;
    a.atime.seconds = 900000000u + seed;
    a.atime.useconds = 999999;
    a.mtime.seconds = 900000100u + seed;
    a.mtime.useconds = 1;
    a.ctime.seconds = 900000200u + seed;
    a.ctime.useconds = 500000;
    return a;
}

static sattr2 mksattr(void) {
    sattr2 s;
    s.mode = 0600;
    s.uid = UINT32_MAX; /* not set */
    s.gid = 10;
    s.size = 0;
    s.atime.seconds = 1000;
    s.atime.useconds = 1000000; /* server time (Linux client convention) */
    s.mtime.seconds = UINT32_MAX;
    s.mtime.useconds = UINT32_MAX; /* not set */
    return s;
}

static void check_fh(const struct out *o, enum tbbt_field f, fhandle2 want) {
    for (uint32_t i = 0; i < o->fh.n; i++) {
        if (o->fh.v[i].field != f) continue;
        assert_int_equal(o->fh.v[i].entry, -1);
        assert_int_equal(o->fh.v[i].len, NFS2_FHSIZE);
        assert_memory_equal(o->fh.v[i].data, want.data, NFS2_FHSIZE);
        return;
    }
    fail_msg("no handle for field %d", f);
}

/* The v2 attributes as NFSv3 meanings: NF3 type given by the caller (the
 * test states the mapping), permission bits, ns times, blocks * blocksize. */
static void check_attrs(const struct tbbt_rec *r, const fattr2 *a, unsigned nf3type) {
    check_u(r, TBBT_F_TYPE, nf3type);
    check_u(r, TBBT_F_MODE, a->mode & 07777);
    check_u(r, TBBT_F_NLINK, a->nlink);
    check_u(r, TBBT_F_UID, a->uid);
    check_u(r, TBBT_F_GID, a->gid);
    check_u(r, TBBT_F_SIZE, a->size);
    check_u(r, TBBT_F_USED, (uint64_t)a->blocks * a->blocksize);
    check_u(r, TBBT_F_FSID, a->fsid);
    check_u(r, TBBT_F_FILEID, a->fileid);
    check_u(r, TBBT_F_ATIME, a->atime.seconds * 1000000000ull + a->atime.useconds * 1000ull);
    check_u(r, TBBT_F_MTIME, a->mtime.seconds * 1000000000ull + a->mtime.useconds * 1000ull);
    check_u(r, TBBT_F_CTIME, a->ctime.seconds * 1000000000ull + a->ctime.useconds * 1000ull);
}

#define OBJ_ATTRS                                                                                            \
    (B(TBBT_F_TYPE) | B(TBBT_F_MODE) | B(TBBT_F_NLINK) | B(TBBT_F_UID) | B(TBBT_F_GID) | B(TBBT_F_SIZE) |    \
     B(TBBT_F_USED) | B(TBBT_F_FSID) | B(TBBT_F_FILEID) | B(TBBT_F_ATIME) | B(TBBT_F_MTIME) |                \
     B(TBBT_F_CTIME))
#define SATTRS (B(TBBT_F_SET_MODE) | B(TBBT_F_SET_GID) | B(TBBT_F_SET_SIZE) | B(TBBT_F_SET_ATIME))

/* mksattr()'s fields: uid and mtime are unset. */
static void check_sattr(const struct tbbt_rec *r) {
    check_u(r, TBBT_F_SET_MODE, 0600);
    check_u(r, TBBT_F_SET_GID, 10);
    check_u(r, TBBT_F_SET_SIZE, 0);
    check_u(r, TBBT_F_SET_ATIME, (uint64_t)TBBT_TIME_SERVER);
    assert_false(tbbt_rec_has(r, TBBT_F_SET_UID));
    assert_false(tbbt_rec_has(r, TBBT_F_SET_MTIME));
}

/* ---- procedures ---- */

static void test_void_procs(void **state) {
    (void)state;
    enum tbbt_op ops[] = {TBBT_OP_NULL, TBBT_OP_ROOT, TBBT_OP_WRITECACHE};
    for (int i = 0; i < 3; i++) {
        struct out o;
        dec(&o, ops[i], 0, NULL, 0);
        assert_int_equal(o.rc, TBBT_DEC_OK);
        out_free(&o);
        dec(&o, ops[i], 1, NULL, 0);
        assert_int_equal(o.rc, TBBT_DEC_OK);
        assert_int_equal(o.r.status, 0);
        out_free(&o);
    }
}

/* GETATTR, SETATTR and WRITE reply with attrstat. */
static void check_attrstat(enum tbbt_op op) {
    struct out o;
    attrstat2 r = {.status = NFS_OK};
    r.attrstat2_u.attributes = mkattr(1, NFREG, 0100000);
    reply(&o, op, (xdrproc_t)xdr_attrstat2, &r, 0);
    assert_int_equal(o.r.status, 0);
    check_attrs(&o.r, &r.attrstat2_u.attributes, 1);
    check_only(&o.r, OBJ_ATTRS);
    out_free(&o);
    r.status = NFSERR_STALE;
    reply(&o, op, (xdrproc_t)xdr_attrstat2, &r, 0);
    assert_int_equal(o.r.status, NFSERR_STALE);
    check_only(&o.r, 0);
    out_free(&o);
}

static void test_getattr(void **state) {
    (void)state;
    struct out o;
    fhandle2 fh = mkfh(1);
    call(&o, TBBT_OP_GETATTR, (xdrproc_t)xdr_fhandle2, &fh);
    check_fh(&o, TBBT_F_OBJ, fh);
    check_only(&o.r, 0);
    out_free(&o);
    check_attrstat(TBBT_OP_GETATTR);
}

static void test_setattr(void **state) {
    (void)state;
    struct out o;
    sattrargs2 a = {mkfh(2), mksattr()};
    call(&o, TBBT_OP_SETATTR, (xdrproc_t)xdr_sattrargs2, &a);
    check_fh(&o, TBBT_F_OBJ, a.file);
    check_sattr(&o.r);
    check_only(&o.r, SATTRS);
    out_free(&o);

    /* client time: microseconds to ns */
    a.attributes.mtime.seconds = 1234;
    a.attributes.mtime.useconds = 56;
    call(&o, TBBT_OP_SETATTR, (xdrproc_t)xdr_sattrargs2, &a);
    check_u(&o.r, TBBT_F_SET_MTIME, 1234ull * 1000000000 + 56000);
    out_free(&o);
    check_attrstat(TBBT_OP_SETATTR);
}

/* LOOKUP, CREATE, MKDIR reply with diropres. */
static void check_diropres(enum tbbt_op op, ftype2 type, unsigned fmt, unsigned nf3type) {
    struct out o;
    diropres2 r = {.status = NFS_OK};
    r.diropres2_u.diropok.file = mkfh(9);
    r.diropres2_u.diropok.attributes = mkattr(3, type, fmt);
    reply(&o, op, (xdrproc_t)xdr_diropres2, &r, 0);
    check_fh(&o, TBBT_F_NEWOBJ, r.diropres2_u.diropok.file);
    check_attrs(&o.r, &r.diropres2_u.diropok.attributes, nf3type);
    check_only(&o.r, OBJ_ATTRS);
    out_free(&o);
    r.status = NFSERR_NOENT;
    reply(&o, op, (xdrproc_t)xdr_diropres2, &r, 0);
    assert_int_equal(o.r.status, NFSERR_NOENT);
    assert_int_equal(o.fh.n, 0);
    check_only(&o.r, 0);
    out_free(&o);
}

static void test_lookup(void **state) {
    (void)state;
    struct out o;
    diropargs2 a = {mkfh(1), "name.c"};
    call(&o, TBBT_OP_LOOKUP, (xdrproc_t)xdr_diropargs2, &a);
    check_fh(&o, TBBT_F_DIR, a.dir);
    check_str(&o.r, TBBT_F_NAME, "name.c");
    check_only(&o.r, B(TBBT_F_NAME));
    out_free(&o);
    check_diropres(TBBT_OP_LOOKUP, NFLNK, 0120000, 5);
    /* v2 servers send FIFOs as NFCHR with S_IFIFO in the mode */
    check_diropres(TBBT_OP_LOOKUP, NFCHR, 0010000, 7);
    check_diropres(TBBT_OP_LOOKUP, NFSOCK, 0140000, 6);
    /* no format bits in the mode: the v2 type number decides */
    check_diropres(TBBT_OP_LOOKUP, NFBLK, 0, 3);
    check_diropres(TBBT_OP_LOOKUP, NFFIFO, 0, 7);
}

static void test_readlink(void **state) {
    (void)state;
    struct out o;
    fhandle2 fh = mkfh(4);
    call(&o, TBBT_OP_READLINK, (xdrproc_t)xdr_fhandle2, &fh);
    check_fh(&o, TBBT_F_OBJ, fh);
    out_free(&o);
    readlinkres2 r = {.status = NFS_OK};
    r.readlinkres2_u.data = "/usr/lib/x";
    reply(&o, TBBT_OP_READLINK, (xdrproc_t)xdr_readlinkres2, &r, 0);
    check_str(&o.r, TBBT_F_TARGET, "/usr/lib/x");
    check_only(&o.r, B(TBBT_F_TARGET));
    out_free(&o);
}

static void test_read(void **state) {
    (void)state;
    struct out o;
    readargs2 a = {mkfh(5), 81920, 8192, 0};
    call(&o, TBBT_OP_READ, (xdrproc_t)xdr_readargs2, &a);
    check_fh(&o, TBBT_F_OBJ, a.file);
    check_u(&o.r, TBBT_F_OFFSET, 81920);
    check_u(&o.r, TBBT_F_COUNT, 8192);
    check_only(&o.r, B(TBBT_F_OFFSET) | B(TBBT_F_COUNT));
    out_free(&o);

    char data[8192];
    memset(data, 'r', sizeof(data));
    readres2 r = {.status = NFS_OK};
    r.readres2_u.reply.attributes = mkattr(5, NFREG, 0100000);
    r.readres2_u.reply.data.nfsdata2_len = 8191;
    r.readres2_u.reply.data.nfsdata2_val = data;
    reply(&o, TBBT_OP_READ, (xdrproc_t)xdr_readres2, &r, 0);
    check_attrs(&o.r, &r.readres2_u.reply.attributes, 1);
    check_u(&o.r, TBBT_F_RCOUNT, 8191);
    check_only(&o.r, OBJ_ATTRS | B(TBBT_F_RCOUNT));
    out_free(&o);
}

static void test_write(void **state) {
    (void)state;
    struct out o;
    char data[100];
    memset(data, 'w', sizeof(data));
    writeargs2 a = {mkfh(6), 0, 3u << 30, 0, {100, data}};
    call(&o, TBBT_OP_WRITE, (xdrproc_t)xdr_writeargs2, &a);
    check_fh(&o, TBBT_F_OBJ, a.file);
    check_u(&o.r, TBBT_F_OFFSET, 3u << 30);
    check_u(&o.r, TBBT_F_COUNT, 100);
    check_only(&o.r, B(TBBT_F_OFFSET) | B(TBBT_F_COUNT));
    out_free(&o);
    check_attrstat(TBBT_OP_WRITE);
}

static void test_create_mkdir(void **state) {
    (void)state;
    struct out o;
    createargs2 a = {{mkfh(1), "newfile"}, mksattr()};
    call(&o, TBBT_OP_CREATE, (xdrproc_t)xdr_createargs2, &a);
    check_fh(&o, TBBT_F_DIR, a.where.dir);
    check_str(&o.r, TBBT_F_NAME, "newfile");
    check_sattr(&o.r);
    check_only(&o.r, B(TBBT_F_NAME) | SATTRS);
    out_free(&o);
    check_diropres(TBBT_OP_CREATE, NFREG, 0100000, 1);

    call(&o, TBBT_OP_MKDIR, (xdrproc_t)xdr_createargs2, &a);
    check_fh(&o, TBBT_F_DIR, a.where.dir);
    check_str(&o.r, TBBT_F_NAME, "newfile");
    check_sattr(&o.r);
    out_free(&o);
    check_diropres(TBBT_OP_MKDIR, NFDIR, 0040000, 2);
}

/* REMOVE, RENAME, LINK, SYMLINK, RMDIR reply with a bare nfsstat. */
static void check_stat_reply(enum tbbt_op op) {
    struct out o;
    nfsstat2 st = NFSERR_ACCES;
    reply(&o, op, (xdrproc_t)xdr_nfsstat2, &st, 0);
    assert_int_equal(o.r.status, NFSERR_ACCES);
    check_only(&o.r, 0);
    out_free(&o);
    st = NFS_OK;
    reply(&o, op, (xdrproc_t)xdr_nfsstat2, &st, 0);
    assert_int_equal(o.r.status, 0);
    out_free(&o);
}

static void test_remove_rmdir(void **state) {
    (void)state;
    enum tbbt_op ops[] = {TBBT_OP_REMOVE, TBBT_OP_RMDIR};
    for (int i = 0; i < 2; i++) {
        struct out o;
        diropargs2 a = {mkfh(2), "gone"};
        call(&o, ops[i], (xdrproc_t)xdr_diropargs2, &a);
        check_fh(&o, TBBT_F_DIR, a.dir);
        check_str(&o.r, TBBT_F_NAME, "gone");
        check_only(&o.r, B(TBBT_F_NAME));
        out_free(&o);
        check_stat_reply(ops[i]);
    }
}

static void test_rename(void **state) {
    (void)state;
    struct out o;
    renameargs2 a = {{mkfh(1), "a"}, {mkfh(2), "bb"}};
    call(&o, TBBT_OP_RENAME, (xdrproc_t)xdr_renameargs2, &a);
    check_fh(&o, TBBT_F_DIR, a.from.dir);
    check_fh(&o, TBBT_F_DIR2, a.to.dir);
    check_str(&o.r, TBBT_F_NAME, "a");
    check_str(&o.r, TBBT_F_NAME2, "bb");
    check_only(&o.r, B(TBBT_F_NAME) | B(TBBT_F_NAME2));
    out_free(&o);
    check_stat_reply(TBBT_OP_RENAME);
}

static void test_link(void **state) {
    (void)state;
    struct out o;
    linkargs2 a = {mkfh(3), {mkfh(4), "alias"}};
    call(&o, TBBT_OP_LINK, (xdrproc_t)xdr_linkargs2, &a);
    check_fh(&o, TBBT_F_OBJ, a.from);
    check_fh(&o, TBBT_F_DIR, a.to.dir);
    check_str(&o.r, TBBT_F_NAME, "alias");
    check_only(&o.r, B(TBBT_F_NAME));
    out_free(&o);
    check_stat_reply(TBBT_OP_LINK);
}

static void test_symlink(void **state) {
    (void)state;
    struct out o;
    symlinkargs2 a = {{mkfh(5), "sl"}, "../../etc", mksattr()};
    call(&o, TBBT_OP_SYMLINK, (xdrproc_t)xdr_symlinkargs2, &a);
    check_fh(&o, TBBT_F_DIR, a.from.dir);
    check_str(&o.r, TBBT_F_NAME, "sl");
    check_str(&o.r, TBBT_F_TARGET, "../../etc");
    check_sattr(&o.r);
    check_only(&o.r, B(TBBT_F_NAME) | B(TBBT_F_TARGET) | SATTRS);
    out_free(&o);
    check_stat_reply(TBBT_OP_SYMLINK);
}

static void test_readdir(void **state) {
    (void)state;
    struct out o;
    readdirargs2 a = {mkfh(6), {0, 0, 1, 2}, 1024};
    call(&o, TBBT_OP_READDIR, (xdrproc_t)xdr_readdirargs2, &a);
    check_fh(&o, TBBT_F_OBJ, a.dir);
    check_u(&o.r, TBBT_F_COOKIE, 0x0102);
    check_u(&o.r, TBBT_F_COUNT, 1024);
    check_only(&o.r, B(TBBT_F_COOKIE) | B(TBBT_F_COUNT));
    out_free(&o);

    entry2 e[2] = {{77, "x", {0, 0, 0, 1}, &e[1]}, {78, "yy", {0, 0, 0, 2}, NULL}};
    readdirres2 r = {.status = NFS_OK};
    r.readdirres2_u.reply.entries = e;
    r.readdirres2_u.reply.eof = 1;
    reply(&o, TBBT_OP_READDIR, (xdrproc_t)xdr_readdirres2, &r, 0);
    assert_int_equal(o.r.nentries, 2);
    assert_int_equal(o.r.entries[0].fileid, 77);
    assert_int_equal(o.r.entries[0].cookie, 1);
    assert_memory_equal(tbbt_rec_str(&o.r, o.r.entries[1].name), "yy", 2);
    assert_int_equal(o.r.entries[1].cookie, 2);
    check_u(&o.r, TBBT_F_EOF, 1);
    check_u(&o.r, TBBT_F_RCOUNT, 2);
    check_only(&o.r, B(TBBT_F_EOF) | B(TBBT_F_RCOUNT) | B(TBBT_F_ENTRIES));
    out_free(&o);
}

static void test_statfs(void **state) {
    (void)state;
    struct out o;
    fhandle2 fh = mkfh(7);
    call(&o, TBBT_OP_STATFS, (xdrproc_t)xdr_fhandle2, &fh);
    check_fh(&o, TBBT_F_OBJ, fh);
    out_free(&o);
    statfsres2 r = {.status = NFS_OK};
    r.statfsres2_u.reply.tsize = 8192;
    reply(&o, TBBT_OP_STATFS, (xdrproc_t)xdr_statfsres2, &r, 1);
    assert_int_equal(o.r.status, 0);
    out_free(&o);
}

static void test_malformed(void **state) {
    (void)state;
    struct out o;
    /* v3-only procedures in a v2 record */
    uint8_t b[64] = {0};
    dec(&o, TBBT_OP_ACCESS, 0, b, sizeof(b));
    assert_int_equal(o.rc, TBBT_DEC_BAD);
    out_free(&o);
    /* WRITE data longer than NFS_MAXDATA */
    char data[16] = {0};
    writeargs2 a = {mkfh(1), 0, 0, 0, {16, data}};
    struct msg m;
    enc(&m, (xdrproc_t)xdr_writeargs2, &a);
    m.b[32 + 12 + 1] = 0x01; /* length 16 -> 65552 */
    dec(&o, TBBT_OP_WRITE, 0, m.b, m.n);
    assert_int_equal(o.rc, TBBT_DEC_BAD);
    out_free(&o);
    /* name longer than 255 */
    diropargs2 d = {mkfh(1), "n"};
    enc(&m, (xdrproc_t)xdr_diropargs2, &d);
    m.b[32 + 2] = 0x01; /* length 1 -> 257 */
    dec(&o, TBBT_OP_LOOKUP, 0, m.b, m.n);
    assert_int_equal(o.rc, TBBT_DEC_BAD);
    out_free(&o);
    /* random bytes */
    srand(777);
    for (int iter = 0; iter < 2000; iter++) {
        size_t n = (size_t)rand() % 400;
        uint8_t *p = malloc(n ? n : 1);
        for (size_t i = 0; i < n; i++)
            p[i] = (uint8_t)rand();
        if (iter & 1)
            for (size_t i = 0; i + 4 <= n; i += 4)
                p[i] = p[i + 1] = 0, p[i + 2] &= 1;
        for (int op = 0; op < TBBT_OP_COUNT; op++)
            for (int rep = 0; rep < 2; rep++) {
                dec(&o, op, rep, p, n);
                assert_true(o.rc >= TBBT_DEC_BAD && o.rc <= TBBT_DEC_TRUNC);
                out_free(&o);
            }
        free(p);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_void_procs),   cmocka_unit_test(test_getattr),
        cmocka_unit_test(test_setattr),      cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_readlink),     cmocka_unit_test(test_read),
        cmocka_unit_test(test_write),        cmocka_unit_test(test_create_mkdir),
        cmocka_unit_test(test_remove_rmdir), cmocka_unit_test(test_rename),
        cmocka_unit_test(test_link),         cmocka_unit_test(test_symlink),
        cmocka_unit_test(test_readdir),      cmocka_unit_test(test_statfs),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
