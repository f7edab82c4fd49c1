/* test_nfsdec_v3.c -- NFSv3 call and reply decoding, checked against
 * messages encoded by rpcgen's XDR routines from lib/proto/tbbt_nfs.x.
 *
 * Every procedure: arguments and results (success and, where the shape
 * differs, failure) with known values; every message is also decoded cut
 * at every length (a prefix of the full decode's fields, TRUNC, never
 * BAD), and random bytes are decoded for every procedure. */
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

#define HARNESS_VERS 3
#include "nfsdec_harness.h"
#include "unconst.h"

static int64_t ns3(nfstime3 t) {
    return (int64_t)t.seconds * 1000000000 + t.nseconds;
}

/* Test handles: distinct bytes per seed, lengths vary. */
static char fhbuf[16][64];
static nfs_fh3 mkfh(int seed, unsigned len) {
    nfs_fh3 f;
    for (unsigned i = 0; i < len; i++)
        fhbuf[seed][i] = (char)(seed * 31 + i);
    f.data.data_len = len;
    f.data.data_val = fhbuf[seed];
    return f;
}

static fattr3 mkattr(int seed, ftype3 type) {
    fattr3 a = {0};
    a.type = type;
    a.mode = 0640 + seed;
    a.nlink = 2 + seed;
    a.uid = 1000 + seed;
    a.gid = 100 + seed;
    a.size = (1ull << 33) + seed;
    a.used = 4096ull * (seed + 1);
    a.rdev.specdata1 = 7;
    a.rdev.specdata2 = 9;
    a.fsid = 0x1122334455667788ull + seed;
    a.fileid = 0xabcdef000ull + seed;
    a.atime.seconds = 1600000000u + seed;
    a.atime.nseconds = 111 + seed;
    a.mtime.seconds = 1600000100u + seed;
    a.mtime.nseconds = 222 + seed;
    a.ctime.seconds = 4000000000u + seed; /* past 2038: unsigned seconds */
    a.ctime.nseconds = 333 + seed;
    return a;
}

static post_op_attr poa(int seed, ftype3 type) {
    post_op_attr p;
    p.attributes_follow = 1;
    p.post_op_attr_u.attributes = mkattr(seed, type);
    return p;
}

static wcc_data mkwcc(int seed, ftype3 type) {
    wcc_data w;
    w.before.attributes_follow = 1;
    w.before.pre_op_attr_u.attributes.size = 5000 + seed;
    w.before.pre_op_attr_u.attributes.mtime.seconds = 1500000000u + seed;
    w.before.pre_op_attr_u.attributes.mtime.nseconds = 17;
    w.before.pre_op_attr_u.attributes.ctime.seconds = 1500000001u + seed;
    w.before.pre_op_attr_u.attributes.ctime.nseconds = 18;
    w.after = poa(seed, type);
    return w;
}

static sattr3 mksattr(void) {
    sattr3 s;
    memset(&s, 0, sizeof(s));
    s.mode.set_it = 1;
    s.mode.set_mode3_u.mode = 0755;
    s.uid.set_it = 1;
    s.uid.set_uid3_u.uid = 501;
    s.gid.set_it = 1;
    s.gid.set_gid3_u.gid = 20;
    s.size.set_it = 1;
    s.size.set_size3_u.size = 123456789012ull;
    s.atime.set_it = SET_TO_SERVER_TIME;
    s.mtime.set_it = SET_TO_CLIENT_TIME;
    s.mtime.set_mtime_u.mtime.seconds = 1700000000u;
    s.mtime.set_mtime_u.mtime.nseconds = 999;
    return s;
}

/* ---- decoding and checks ---- */

static void check_fh(const struct out *o, enum tbbt_field f, int32_t entry, nfs_fh3 want) {
    for (uint32_t i = 0; i < o->fh.n; i++) {
        const struct tbbt_fhref *h = &o->fh.v[i];
        if (h->field != f || h->entry != entry) continue;
        assert_int_equal(h->len, want.data.data_len);
        assert_memory_equal(h->data, want.data.data_val, want.data.data_len);
        return;
    }
    fail_msg("no handle for field %d entry %d", f, entry);
}

static void check_obj_attrs(const struct tbbt_rec *r, const fattr3 *a) {
    check_u(r, TBBT_F_TYPE, a->type);
    check_u(r, TBBT_F_MODE, a->mode);
    check_u(r, TBBT_F_NLINK, a->nlink);
    check_u(r, TBBT_F_UID, a->uid);
    check_u(r, TBBT_F_GID, a->gid);
    check_u(r, TBBT_F_SIZE, a->size);
    check_u(r, TBBT_F_USED, a->used);
    check_u(r, TBBT_F_FSID, a->fsid);
    check_u(r, TBBT_F_FILEID, a->fileid);
    check_u(r, TBBT_F_ATIME, (uint64_t)ns3(a->atime));
    check_u(r, TBBT_F_MTIME, (uint64_t)ns3(a->mtime));
    check_u(r, TBBT_F_CTIME, (uint64_t)ns3(a->ctime));
}

static void check_pre(const struct tbbt_rec *r, const wcc_data *w) {
    const wcc_attr *b = &w->before.pre_op_attr_u.attributes;
    check_u(r, TBBT_F_PRE_SIZE, b->size);
    check_u(r, TBBT_F_PRE_MTIME, (uint64_t)ns3(b->mtime));
    check_u(r, TBBT_F_PRE_CTIME, (uint64_t)ns3(b->ctime));
}

static void check_dir_attrs(const struct tbbt_rec *r, const fattr3 *a) {
    check_u(r, TBBT_F_DIR_FILEID, a->fileid);
    check_u(r, TBBT_F_DIR_SIZE, a->size);
    check_u(r, TBBT_F_DIR_MTIME, (uint64_t)ns3(a->mtime));
    check_u(r, TBBT_F_DIR_NLINK, a->nlink);
}

static void check_dir2_attrs(const struct tbbt_rec *r, const fattr3 *a) {
    check_u(r, TBBT_F_DIR2_FILEID, a->fileid);
    check_u(r, TBBT_F_DIR2_MTIME, (uint64_t)ns3(a->mtime));
}

static void check_sattr(const struct tbbt_rec *r) {
    check_u(r, TBBT_F_SET_MODE, 0755);
    check_u(r, TBBT_F_SET_UID, 501);
    check_u(r, TBBT_F_SET_GID, 20);
    check_u(r, TBBT_F_SET_SIZE, 123456789012ull);
    check_u(r, TBBT_F_SET_ATIME, (uint64_t)TBBT_TIME_SERVER);
    check_u(r, TBBT_F_SET_MTIME, 1700000000ull * 1000000000 + 999);
}

#define OBJ_ATTRS                                                                                            \
    (B(TBBT_F_TYPE) | B(TBBT_F_MODE) | B(TBBT_F_NLINK) | B(TBBT_F_UID) | B(TBBT_F_GID) | B(TBBT_F_SIZE) |    \
     B(TBBT_F_USED) | B(TBBT_F_FSID) | B(TBBT_F_FILEID) | B(TBBT_F_ATIME) | B(TBBT_F_MTIME) |                \
     B(TBBT_F_CTIME))
#define PRE_ATTRS (B(TBBT_F_PRE_SIZE) | B(TBBT_F_PRE_MTIME) | B(TBBT_F_PRE_CTIME))
#define DIR_ATTRS (B(TBBT_F_DIR_FILEID) | B(TBBT_F_DIR_SIZE) | B(TBBT_F_DIR_MTIME) | B(TBBT_F_DIR_NLINK))
#define SATTRS                                                                                               \
    (B(TBBT_F_SET_MODE) | B(TBBT_F_SET_UID) | B(TBBT_F_SET_GID) | B(TBBT_F_SET_SIZE) | B(TBBT_F_SET_ATIME) | \
     B(TBBT_F_SET_MTIME))

/* ---- procedures ---- */

static void test_null(void **state) {
    (void)state;
    struct out o;
    dec(&o, TBBT_OP_NULL, 0, NULL, 0);
    assert_int_equal(o.rc, TBBT_DEC_OK);
    out_free(&o);
    dec(&o, TBBT_OP_NULL, 1, NULL, 0);
    assert_int_equal(o.rc, TBBT_DEC_OK);
    assert_int_equal(o.r.status, 0);
    out_free(&o);
}

static void test_getattr(void **state) {
    (void)state;
    struct out o;
    GETATTR3args a = {mkfh(1, 28)};
    call(&o, TBBT_OP_GETATTR, (xdrproc_t)xdr_GETATTR3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.object);
    assert_int_equal(o.fh.n, 1);
    check_only(&o.r, 0);
    out_free(&o);

    GETATTR3res r = {.status = NFS3_OK};
    r.GETATTR3res_u.resok.obj_attributes = mkattr(1, NF3DIR);
    reply(&o, TBBT_OP_GETATTR, (xdrproc_t)xdr_GETATTR3res, &r, 0);
    assert_int_equal(o.r.status, 0);
    check_obj_attrs(&o.r, &r.GETATTR3res_u.resok.obj_attributes);
    check_only(&o.r, OBJ_ATTRS);
    out_free(&o);

    r.status = NFS3ERR_STALE;
    reply(&o, TBBT_OP_GETATTR, (xdrproc_t)xdr_GETATTR3res, &r, 0);
    assert_int_equal(o.r.status, NFS3ERR_STALE);
    check_only(&o.r, 0);
    out_free(&o);
}

static void test_setattr(void **state) {
    (void)state;
    struct out o;
    SETATTR3args a = {.object = mkfh(2, 64), .new_attributes = mksattr()};
    a.guard.check = 1;
    a.guard.sattrguard3_u.obj_ctime.seconds = 1234;
    a.guard.sattrguard3_u.obj_ctime.nseconds = 5678;
    call(&o, TBBT_OP_SETATTR, (xdrproc_t)xdr_SETATTR3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.object);
    check_sattr(&o.r);
    check_u(&o.r, TBBT_F_GUARD, 1234ull * 1000000000 + 5678);
    check_only(&o.r, SATTRS | B(TBBT_F_GUARD));
    out_free(&o);

    /* nothing set, no guard */
    memset(&a.new_attributes, 0, sizeof(a.new_attributes));
    a.guard.check = 0;
    call(&o, TBBT_OP_SETATTR, (xdrproc_t)xdr_SETATTR3args, &a);
    check_only(&o.r, 0);
    out_free(&o);

    SETATTR3res r = {.status = NFS3_OK};
    r.SETATTR3res_u.resok.obj_wcc = mkwcc(3, NF3REG);
    reply(&o, TBBT_OP_SETATTR, (xdrproc_t)xdr_SETATTR3res, &r, 0);
    check_pre(&o.r, &r.SETATTR3res_u.resok.obj_wcc);
    check_obj_attrs(&o.r, &r.SETATTR3res_u.resok.obj_wcc.after.post_op_attr_u.attributes);
    check_only(&o.r, OBJ_ATTRS | PRE_ATTRS);
    out_free(&o);

    r.status = NFS3ERR_PERM;
    r.SETATTR3res_u.resfail.obj_wcc.before.attributes_follow = 0;
    reply(&o, TBBT_OP_SETATTR, (xdrproc_t)xdr_SETATTR3res, &r, 0);
    assert_int_equal(o.r.status, NFS3ERR_PERM);
    check_obj_attrs(&o.r, &r.SETATTR3res_u.resfail.obj_wcc.after.post_op_attr_u.attributes);
    check_only(&o.r, OBJ_ATTRS);
    out_free(&o);
}

static void test_lookup(void **state) {
    (void)state;
    struct out o;
    LOOKUP3args a = {{mkfh(1, 32), "some file.txt"}};
    call(&o, TBBT_OP_LOOKUP, (xdrproc_t)xdr_LOOKUP3args, &a);
    check_fh(&o, TBBT_F_DIR, -1, a.what.dir);
    check_str(&o.r, TBBT_F_NAME, "some file.txt");
    check_only(&o.r, B(TBBT_F_NAME));
    out_free(&o);
    /* a name the snaplen cut is absent, never partial, and the call is marked */
    struct msg m;
    enc(&m, (xdrproc_t)xdr_LOOKUP3args, &a);
    dec(&o, TBBT_OP_LOOKUP, 0, m.b, m.n - 6);
    assert_int_equal(o.rc, TBBT_DEC_TRUNC);
    assert_false(tbbt_rec_has(&o.r, TBBT_F_NAME));
    assert_true(o.r.flags & TBBT_RF_ARGS_CUT);
    out_free(&o);
    dec(&o, TBBT_OP_LOOKUP, 0, m.b, m.n - 1); /* only the padding cut: the name is whole */
    check_str(&o.r, TBBT_F_NAME, "some file.txt");
    assert_false(o.r.flags & TBBT_RF_ARGS_CUT);
    out_free(&o);

    LOOKUP3res r = {.status = NFS3_OK};
    r.LOOKUP3res_u.resok.object = mkfh(4, 40);
    r.LOOKUP3res_u.resok.obj_attributes = poa(4, NF3LNK);
    r.LOOKUP3res_u.resok.dir_attributes = poa(5, NF3DIR);
    reply(&o, TBBT_OP_LOOKUP, (xdrproc_t)xdr_LOOKUP3res, &r, 0);
    check_fh(&o, TBBT_F_NEWOBJ, -1, r.LOOKUP3res_u.resok.object);
    check_obj_attrs(&o.r, &r.LOOKUP3res_u.resok.obj_attributes.post_op_attr_u.attributes);
    check_dir_attrs(&o.r, &r.LOOKUP3res_u.resok.dir_attributes.post_op_attr_u.attributes);
    check_only(&o.r, OBJ_ATTRS | DIR_ATTRS);
    out_free(&o);

    /* no object attributes */
    r.LOOKUP3res_u.resok.obj_attributes.attributes_follow = 0;
    reply(&o, TBBT_OP_LOOKUP, (xdrproc_t)xdr_LOOKUP3res, &r, 0);
    check_only(&o.r, DIR_ATTRS);
    out_free(&o);

    LOOKUP3res f = {.status = NFS3ERR_NOENT};
    f.LOOKUP3res_u.resfail.dir_attributes = poa(6, NF3DIR);
    reply(&o, TBBT_OP_LOOKUP, (xdrproc_t)xdr_LOOKUP3res, &f, 0);
    assert_int_equal(o.r.status, NFS3ERR_NOENT);
    check_dir_attrs(&o.r, &f.LOOKUP3res_u.resfail.dir_attributes.post_op_attr_u.attributes);
    check_only(&o.r, DIR_ATTRS);
    assert_int_equal(o.fh.n, 0);
    out_free(&o);
}

static void test_access(void **state) {
    (void)state;
    struct out o;
    ACCESS3args a = {mkfh(1, 8), ACCESS3_READ | ACCESS3_LOOKUP | ACCESS3_EXECUTE};
    call(&o, TBBT_OP_ACCESS, (xdrproc_t)xdr_ACCESS3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.object);
    check_u(&o.r, TBBT_F_ACCESS, 0x23);
    out_free(&o);

    ACCESS3res r = {.status = NFS3_OK};
    r.ACCESS3res_u.resok.obj_attributes = poa(2, NF3REG);
    r.ACCESS3res_u.resok.access = ACCESS3_READ;
    reply(&o, TBBT_OP_ACCESS, (xdrproc_t)xdr_ACCESS3res, &r, 0);
    check_obj_attrs(&o.r, &r.ACCESS3res_u.resok.obj_attributes.post_op_attr_u.attributes);
    check_u(&o.r, TBBT_F_RACCESS, 1);
    check_only(&o.r, OBJ_ATTRS | B(TBBT_F_RACCESS));
    out_free(&o);

    r.status = NFS3ERR_ACCES;
    r.ACCESS3res_u.resfail.obj_attributes.attributes_follow = 0;
    reply(&o, TBBT_OP_ACCESS, (xdrproc_t)xdr_ACCESS3res, &r, 0);
    assert_int_equal(o.r.status, NFS3ERR_ACCES);
    check_only(&o.r, 0);
    out_free(&o);
}

static void test_readlink(void **state) {
    (void)state;
    struct out o;
    READLINK3args a = {mkfh(3, 16)};
    call(&o, TBBT_OP_READLINK, (xdrproc_t)xdr_READLINK3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.symlink);
    out_free(&o);

    READLINK3res r = {.status = NFS3_OK};
    r.READLINK3res_u.resok.symlink_attributes = poa(3, NF3LNK);
    r.READLINK3res_u.resok.data = "../target/of the link";
    reply(&o, TBBT_OP_READLINK, (xdrproc_t)xdr_READLINK3res, &r, 0);
    check_obj_attrs(&o.r, &r.READLINK3res_u.resok.symlink_attributes.post_op_attr_u.attributes);
    check_str(&o.r, TBBT_F_TARGET, "../target/of the link");
    check_only(&o.r, OBJ_ATTRS | B(TBBT_F_TARGET));
    out_free(&o);
}

static void test_read(void **state) {
    (void)state;
    struct out o;
    READ3args a = {mkfh(1, 32), 0x123456789ull, 32768};
    call(&o, TBBT_OP_READ, (xdrproc_t)xdr_READ3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.file);
    check_u(&o.r, TBBT_F_OFFSET, 0x123456789ull);
    check_u(&o.r, TBBT_F_COUNT, 32768);
    check_only(&o.r, B(TBBT_F_OFFSET) | B(TBBT_F_COUNT));
    out_free(&o);

    char data[13] = "hello, world";
    READ3res r = {.status = NFS3_OK};
    r.READ3res_u.resok.file_attributes = poa(1, NF3REG);
    r.READ3res_u.resok.count = 13;
    r.READ3res_u.resok.eof = 1;
    r.READ3res_u.resok.data.data_len = 13;
    r.READ3res_u.resok.data.data_val = data;
    reply(&o, TBBT_OP_READ, (xdrproc_t)xdr_READ3res, &r, 0);
    check_obj_attrs(&o.r, &r.READ3res_u.resok.file_attributes.post_op_attr_u.attributes);
    check_u(&o.r, TBBT_F_RCOUNT, 13);
    check_u(&o.r, TBBT_F_EOF, 1);
    check_only(&o.r, OBJ_ATTRS | B(TBBT_F_RCOUNT) | B(TBBT_F_EOF));
    out_free(&o);
}

static void test_write(void **state) {
    (void)state;
    struct out o;
    char data[4096];
    memset(data, 'x', sizeof(data));
    WRITE3args a = {mkfh(1, 32), 1ull << 40, 4096, DATA_SYNC, {4096, data}};
    call(&o, TBBT_OP_WRITE, (xdrproc_t)xdr_WRITE3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.file);
    check_u(&o.r, TBBT_F_OFFSET, 1ull << 40);
    check_u(&o.r, TBBT_F_COUNT, 4096);
    check_u(&o.r, TBBT_F_STABLE, DATA_SYNC);
    check_only(&o.r, B(TBBT_F_OFFSET) | B(TBBT_F_COUNT) | B(TBBT_F_STABLE));
    out_free(&o);
    /* cut in its data, as a snaplen cuts every large write: replayable (the
     * player makes its own payload); cut before it: not */
    struct msg m;
    enc(&m, (xdrproc_t)xdr_WRITE3args, &a);
    dec(&o, TBBT_OP_WRITE, 0, m.b, m.n - 1000);
    assert_int_equal(o.rc, TBBT_DEC_TRUNC);
    assert_false(o.r.flags & TBBT_RF_ARGS_CUT);
    out_free(&o);
    dec(&o, TBBT_OP_WRITE, 0, m.b, 30);
    assert_true(o.r.flags & TBBT_RF_ARGS_CUT);
    out_free(&o);

    WRITE3res r = {.status = NFS3_OK};
    r.WRITE3res_u.resok.file_wcc = mkwcc(2, NF3REG);
    r.WRITE3res_u.resok.count = 4000;
    r.WRITE3res_u.resok.committed = FILE_SYNC;
    memcpy(r.WRITE3res_u.resok.verf, "\x01\x02\x03\x04\x05\x06\x07\x08", 8);
    reply(&o, TBBT_OP_WRITE, (xdrproc_t)xdr_WRITE3res, &r, 0);
    check_pre(&o.r, &r.WRITE3res_u.resok.file_wcc);
    check_obj_attrs(&o.r, &r.WRITE3res_u.resok.file_wcc.after.post_op_attr_u.attributes);
    check_u(&o.r, TBBT_F_RCOUNT, 4000);
    check_u(&o.r, TBBT_F_COMMITTED, FILE_SYNC);
    check_u(&o.r, TBBT_F_WVERF, 0x0102030405060708ull);
    check_only(&o.r, OBJ_ATTRS | PRE_ATTRS | B(TBBT_F_RCOUNT) | B(TBBT_F_COMMITTED) | B(TBBT_F_WVERF));
    out_free(&o);

    r.status = NFS3ERR_NOSPC;
    r.WRITE3res_u.resfail.file_wcc.after.attributes_follow = 0;
    reply(&o, TBBT_OP_WRITE, (xdrproc_t)xdr_WRITE3res, &r, 0);
    assert_int_equal(o.r.status, NFS3ERR_NOSPC);
    check_only(&o.r, PRE_ATTRS);
    out_free(&o);
}

/* CREATE, MKDIR, SYMLINK, MKNOD share their result shape. */
static void check_newobj_reply(enum tbbt_op op, xdrproc_t proc, void *res, nfsstat3 *status, post_op_fh3 *fh,
                               post_op_attr *attrs, wcc_data *dir) {
    struct out o;
    *status = NFS3_OK;
    fh->handle_follows = 1;
    fh->post_op_fh3_u.handle = mkfh(7, 50);
    *attrs = poa(7, op == TBBT_OP_MKDIR ? NF3DIR : NF3REG);
    *dir = mkwcc(8, NF3DIR);
    reply(&o, op, proc, res, 0);
    check_fh(&o, TBBT_F_NEWOBJ, -1, fh->post_op_fh3_u.handle);
    check_obj_attrs(&o.r, &attrs->post_op_attr_u.attributes);
    check_dir_attrs(&o.r, &dir->after.post_op_attr_u.attributes);
    check_only(&o.r, OBJ_ATTRS | DIR_ATTRS);
    out_free(&o);
}

static void test_create(void **state) {
    (void)state;
    struct out o;
    CREATE3args a = {{mkfh(1, 32), "new"}, {.mode = GUARDED}};
    a.how.createhow3_u.obj_attributes = mksattr();
    call(&o, TBBT_OP_CREATE, (xdrproc_t)xdr_CREATE3args, &a);
    check_fh(&o, TBBT_F_DIR, -1, a.where.dir);
    check_str(&o.r, TBBT_F_NAME, "new");
    check_u(&o.r, TBBT_F_CREATEHOW, GUARDED);
    check_sattr(&o.r);
    check_only(&o.r, B(TBBT_F_NAME) | B(TBBT_F_CREATEHOW) | SATTRS);
    out_free(&o);

    a.how.mode = EXCLUSIVE;
    memcpy(a.how.createhow3_u.verf, "\xde\xad\xbe\xef\x00\x11\x22\x33", 8);
    call(&o, TBBT_OP_CREATE, (xdrproc_t)xdr_CREATE3args, &a);
    check_u(&o.r, TBBT_F_CREATEHOW, EXCLUSIVE);
    check_u(&o.r, TBBT_F_VERF, 0xdeadbeef00112233ull);
    check_only(&o.r, B(TBBT_F_NAME) | B(TBBT_F_CREATEHOW) | B(TBBT_F_VERF));
    out_free(&o);

    CREATE3res r;
    check_newobj_reply(TBBT_OP_CREATE, (xdrproc_t)xdr_CREATE3res, &r, &r.status, &r.CREATE3res_u.resok.obj,
                       &r.CREATE3res_u.resok.obj_attributes, &r.CREATE3res_u.resok.dir_wcc);

    r.status = NFS3ERR_EXIST;
    r.CREATE3res_u.resfail.dir_wcc = mkwcc(9, NF3DIR);
    reply(&o, TBBT_OP_CREATE, (xdrproc_t)xdr_CREATE3res, &r, 0);
    assert_int_equal(o.r.status, NFS3ERR_EXIST);
    check_dir_attrs(&o.r, &r.CREATE3res_u.resfail.dir_wcc.after.post_op_attr_u.attributes);
    check_only(&o.r, DIR_ATTRS);
    assert_int_equal(o.fh.n, 0);
    out_free(&o);
}

static void test_mkdir(void **state) {
    (void)state;
    struct out o;
    MKDIR3args a = {{mkfh(1, 32), "subdir"}, mksattr()};
    call(&o, TBBT_OP_MKDIR, (xdrproc_t)xdr_MKDIR3args, &a);
    check_fh(&o, TBBT_F_DIR, -1, a.where.dir);
    check_str(&o.r, TBBT_F_NAME, "subdir");
    check_sattr(&o.r);
    check_only(&o.r, B(TBBT_F_NAME) | SATTRS);
    out_free(&o);
    MKDIR3res r;
    check_newobj_reply(TBBT_OP_MKDIR, (xdrproc_t)xdr_MKDIR3res, &r, &r.status, &r.MKDIR3res_u.resok.obj,
                       &r.MKDIR3res_u.resok.obj_attributes, &r.MKDIR3res_u.resok.dir_wcc);
}

static void test_symlink(void **state) {
    (void)state;
    struct out o;
    SYMLINK3args a = {{mkfh(1, 32), "ln"}, {mksattr(), "/a/b/c"}};
    call(&o, TBBT_OP_SYMLINK, (xdrproc_t)xdr_SYMLINK3args, &a);
    check_fh(&o, TBBT_F_DIR, -1, a.where.dir);
    check_str(&o.r, TBBT_F_NAME, "ln");
    check_str(&o.r, TBBT_F_TARGET, "/a/b/c");
    check_sattr(&o.r);
    check_only(&o.r, B(TBBT_F_NAME) | B(TBBT_F_TARGET) | SATTRS);
    out_free(&o);
    SYMLINK3res r;
    check_newobj_reply(TBBT_OP_SYMLINK, (xdrproc_t)xdr_SYMLINK3res, &r, &r.status, &r.SYMLINK3res_u.resok.obj,
                       &r.SYMLINK3res_u.resok.obj_attributes, &r.SYMLINK3res_u.resok.dir_wcc);
}

static void test_mknod(void **state) {
    (void)state;
    struct out o;
    MKNOD3args a = {{mkfh(1, 32), "dev"}, {.type = NF3CHR}};
    a.what.mknoddata3_u.device.dev_attributes = mksattr();
    a.what.mknoddata3_u.device.spec.specdata1 = 136;
    a.what.mknoddata3_u.device.spec.specdata2 = 7;
    call(&o, TBBT_OP_MKNOD, (xdrproc_t)xdr_MKNOD3args, &a);
    check_fh(&o, TBBT_F_DIR, -1, a.where.dir);
    check_str(&o.r, TBBT_F_NAME, "dev");
    check_u(&o.r, TBBT_F_NODETYPE, NF3CHR);
    check_u(&o.r, TBBT_F_RDEV, 136ull << 32 | 7);
    check_sattr(&o.r);
    check_only(&o.r, B(TBBT_F_NAME) | B(TBBT_F_NODETYPE) | B(TBBT_F_RDEV) | SATTRS);
    out_free(&o);

    a.what.type = NF3FIFO;
    a.what.mknoddata3_u.pipe_attributes = mksattr();
    call(&o, TBBT_OP_MKNOD, (xdrproc_t)xdr_MKNOD3args, &a);
    check_u(&o.r, TBBT_F_NODETYPE, NF3FIFO);
    check_sattr(&o.r);
    check_only(&o.r, B(TBBT_F_NAME) | B(TBBT_F_NODETYPE) | SATTRS);
    out_free(&o);

    MKNOD3res r;
    check_newobj_reply(TBBT_OP_MKNOD, (xdrproc_t)xdr_MKNOD3res, &r, &r.status, &r.MKNOD3res_u.resok.obj,
                       &r.MKNOD3res_u.resok.obj_attributes, &r.MKNOD3res_u.resok.dir_wcc);
}

/* REMOVE and RMDIR: (dir, name), dir_wcc. */
static void check_remove(enum tbbt_op op) {
    struct out o;
    REMOVE3args a = {{mkfh(1, 32), "victim"}};
    call(&o, op, (xdrproc_t)xdr_REMOVE3args, &a);
    check_fh(&o, TBBT_F_DIR, -1, a.object.dir);
    check_str(&o.r, TBBT_F_NAME, "victim");
    check_only(&o.r, B(TBBT_F_NAME));
    out_free(&o);

    REMOVE3res r = {.status = NFS3_OK};
    r.REMOVE3res_u.resok.dir_wcc = mkwcc(2, NF3DIR);
    reply(&o, op, (xdrproc_t)xdr_REMOVE3res, &r, 0);
    check_dir_attrs(&o.r, &r.REMOVE3res_u.resok.dir_wcc.after.post_op_attr_u.attributes);
    check_only(&o.r, DIR_ATTRS);
    out_free(&o);

    r.status = op == TBBT_OP_RMDIR ? NFS3ERR_NOTEMPTY : NFS3ERR_NOENT;
    reply(&o, op, (xdrproc_t)xdr_REMOVE3res, &r, 0);
    assert_int_equal(o.r.status, r.status);
    check_only(&o.r, DIR_ATTRS);
    out_free(&o);
}

static void test_remove(void **state) {
    (void)state;
    check_remove(TBBT_OP_REMOVE);
}

static void test_rmdir(void **state) {
    (void)state;
    /* RMDIR3args/res have REMOVE3's shape; encode with RMDIR's own routines too */
    check_remove(TBBT_OP_RMDIR);
    struct out o;
    RMDIR3args a = {{mkfh(2, 12), "d"}};
    call(&o, TBBT_OP_RMDIR, (xdrproc_t)xdr_RMDIR3args, &a);
    check_fh(&o, TBBT_F_DIR, -1, a.object.dir);
    check_str(&o.r, TBBT_F_NAME, "d");
    out_free(&o);
}

static void test_rename(void **state) {
    (void)state;
    struct out o;
    RENAME3args a = {{mkfh(1, 32), "from"}, {mkfh(2, 36), "to-name"}};
    call(&o, TBBT_OP_RENAME, (xdrproc_t)xdr_RENAME3args, &a);
    check_fh(&o, TBBT_F_DIR, -1, a.from.dir);
    check_fh(&o, TBBT_F_DIR2, -1, a.to.dir);
    check_str(&o.r, TBBT_F_NAME, "from");
    check_str(&o.r, TBBT_F_NAME2, "to-name");
    check_only(&o.r, B(TBBT_F_NAME) | B(TBBT_F_NAME2));
    out_free(&o);

    RENAME3res r = {.status = NFS3_OK};
    r.RENAME3res_u.resok.fromdir_wcc = mkwcc(3, NF3DIR);
    r.RENAME3res_u.resok.todir_wcc = mkwcc(4, NF3DIR);
    reply(&o, TBBT_OP_RENAME, (xdrproc_t)xdr_RENAME3res, &r, 0);
    check_dir_attrs(&o.r, &r.RENAME3res_u.resok.fromdir_wcc.after.post_op_attr_u.attributes);
    check_dir2_attrs(&o.r, &r.RENAME3res_u.resok.todir_wcc.after.post_op_attr_u.attributes);
    check_only(&o.r, DIR_ATTRS | B(TBBT_F_DIR2_FILEID) | B(TBBT_F_DIR2_MTIME));
    out_free(&o);
}

static void test_link(void **state) {
    (void)state;
    struct out o;
    LINK3args a = {mkfh(1, 32), {mkfh(2, 32), "hard"}};
    call(&o, TBBT_OP_LINK, (xdrproc_t)xdr_LINK3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.file);
    check_fh(&o, TBBT_F_DIR, -1, a.link.dir);
    check_str(&o.r, TBBT_F_NAME, "hard");
    check_only(&o.r, B(TBBT_F_NAME));
    out_free(&o);

    LINK3res r = {.status = NFS3_OK};
    r.LINK3res_u.resok.file_attributes = poa(3, NF3REG);
    r.LINK3res_u.resok.linkdir_wcc = mkwcc(4, NF3DIR);
    reply(&o, TBBT_OP_LINK, (xdrproc_t)xdr_LINK3res, &r, 0);
    check_obj_attrs(&o.r, &r.LINK3res_u.resok.file_attributes.post_op_attr_u.attributes);
    check_dir_attrs(&o.r, &r.LINK3res_u.resok.linkdir_wcc.after.post_op_attr_u.attributes);
    check_only(&o.r, OBJ_ATTRS | DIR_ATTRS);
    out_free(&o);
}

static void test_readdir(void **state) {
    (void)state;
    struct out o;
    READDIR3args a = {mkfh(1, 32), 77, {1, 2, 3, 4, 5, 6, 7, 8}, 4096};
    call(&o, TBBT_OP_READDIR, (xdrproc_t)xdr_READDIR3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.dir);
    check_u(&o.r, TBBT_F_COOKIE, 77);
    check_u(&o.r, TBBT_F_COOKIEVERF, 0x0102030405060708ull);
    check_u(&o.r, TBBT_F_MAXCOUNT, 4096);
    check_only(&o.r, B(TBBT_F_COOKIE) | B(TBBT_F_COOKIEVERF) | B(TBBT_F_MAXCOUNT));
    out_free(&o);

    entry3 e[3] = {
        {10, ".", 1, &e[1]}, {11, "..", 2, &e[2]}, {1ull << 40, "a longer name", 3ull << 50, NULL}};
    READDIR3res r = {.status = NFS3_OK};
    r.READDIR3res_u.resok.dir_attributes = poa(5, NF3DIR);
    memcpy(r.READDIR3res_u.resok.cookieverf, "ABCDEFGH", 8);
    r.READDIR3res_u.resok.reply.entries = e;
    r.READDIR3res_u.resok.reply.eof = 1;
    reply(&o, TBBT_OP_READDIR, (xdrproc_t)xdr_READDIR3res, &r, 0);
    check_obj_attrs(&o.r, &r.READDIR3res_u.resok.dir_attributes.post_op_attr_u.attributes);
    check_u(&o.r, TBBT_F_RCOOKIEVERF, 0x4142434445464748ull);
    check_u(&o.r, TBBT_F_EOF, 1);
    check_u(&o.r, TBBT_F_RCOUNT, 3);
    assert_int_equal(o.r.nentries, 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(o.r.entries[i].fileid, e[i].fileid);
        assert_int_equal(o.r.entries[i].cookie, e[i].cookie);
        assert_int_equal(o.r.entries[i].name.len, strlen(e[i].name));
        assert_memory_equal(tbbt_rec_str(&o.r, o.r.entries[i].name), e[i].name, strlen(e[i].name));
        assert_int_equal(o.r.entries[i].type, 0);
    }
    check_only(&o.r,
               OBJ_ATTRS | B(TBBT_F_RCOOKIEVERF) | B(TBBT_F_EOF) | B(TBBT_F_RCOUNT) | B(TBBT_F_ENTRIES));
    out_free(&o);

    r.READDIR3res_u.resok.reply.entries = NULL;
    r.READDIR3res_u.resok.reply.eof = 0;
    reply(&o, TBBT_OP_READDIR, (xdrproc_t)xdr_READDIR3res, &r, 0);
    assert_int_equal(o.r.nentries, 0);
    check_u(&o.r, TBBT_F_EOF, 0);
    check_u(&o.r, TBBT_F_RCOUNT, 0);
    out_free(&o);

    r.status = NFS3ERR_BAD_COOKIE;
    reply(&o, TBBT_OP_READDIR, (xdrproc_t)xdr_READDIR3res, &r, 0);
    assert_int_equal(o.r.status, NFS3ERR_BAD_COOKIE);
    check_only(&o.r, OBJ_ATTRS);
    out_free(&o);
}

static void test_readdirplus(void **state) {
    (void)state;
    struct out o;
    READDIRPLUS3args a = {mkfh(1, 32), 5, {8, 7, 6, 5, 4, 3, 2, 1}, 1024, 8192};
    call(&o, TBBT_OP_READDIRPLUS, (xdrproc_t)xdr_READDIRPLUS3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.dir);
    check_u(&o.r, TBBT_F_COOKIE, 5);
    check_u(&o.r, TBBT_F_COOKIEVERF, 0x0807060504030201ull);
    check_u(&o.r, TBBT_F_DIRCOUNT, 1024);
    check_u(&o.r, TBBT_F_MAXCOUNT, 8192);
    check_only(&o.r, B(TBBT_F_COOKIE) | B(TBBT_F_COOKIEVERF) | B(TBBT_F_DIRCOUNT) | B(TBBT_F_MAXCOUNT));
    out_free(&o);

    entryplus3 e[3];
    memset(e, 0, sizeof(e));
    const char *names[3] = {"f1", "dir two", "no attrs"};
    for (int i = 0; i < 3; i++) {
        e[i].fileid = 100 + i;
        e[i].name = tbbt_unconst(names[i]);
        e[i].cookie = 1000 + i;
        e[i].name_attributes = poa(i, i == 1 ? NF3DIR : NF3REG);
        e[i].name_handle.handle_follows = 1;
        e[i].name_handle.post_op_fh3_u.handle = mkfh(10 + i, 20 + i);
        e[i].nextentry = i < 2 ? &e[i + 1] : NULL;
    }
    e[2].name_attributes.attributes_follow = 0;
    e[1].name_handle.handle_follows = 0;
    READDIRPLUS3res r = {.status = NFS3_OK};
    r.READDIRPLUS3res_u.resok.dir_attributes = poa(5, NF3DIR);
    memcpy(r.READDIRPLUS3res_u.resok.cookieverf, "12345678", 8);
    r.READDIRPLUS3res_u.resok.reply.entries = e;
    r.READDIRPLUS3res_u.resok.reply.eof = 0;
    reply(&o, TBBT_OP_READDIRPLUS, (xdrproc_t)xdr_READDIRPLUS3res, &r, 0);
    check_obj_attrs(&o.r, &r.READDIRPLUS3res_u.resok.dir_attributes.post_op_attr_u.attributes);
    check_u(&o.r, TBBT_F_RCOOKIEVERF, 0x3132333435363738ull);
    check_u(&o.r, TBBT_F_EOF, 0);
    check_u(&o.r, TBBT_F_RCOUNT, 3);
    assert_int_equal(o.r.nentries, 3);
    for (int i = 0; i < 3; i++) {
        const struct tbbt_dirent *d = &o.r.entries[i];
        assert_int_equal(d->fileid, 100 + i);
        assert_int_equal(d->cookie, 1000 + i);
        assert_memory_equal(tbbt_rec_str(&o.r, d->name), names[i], strlen(names[i]));
        if (i < 2) {
            assert_int_equal(d->type, i == 1 ? NF3DIR : NF3REG);
            assert_int_equal(d->size, e[i].name_attributes.post_op_attr_u.attributes.size);
        } else {
            assert_int_equal(d->type, 0);
        }
    }
    assert_int_equal(o.fh.n, 2);
    check_fh(&o, TBBT_F_ENTRIES, 0, e[0].name_handle.post_op_fh3_u.handle);
    check_fh(&o, TBBT_F_ENTRIES, 2, e[2].name_handle.post_op_fh3_u.handle);
    out_free(&o);
}

/* FSSTAT, FSINFO, PATHCONF: handle in; status and attributes out. */
static void test_fs_queries(void **state) {
    (void)state;
    struct out o;
    FSSTAT3args a = {mkfh(1, 32)};
    call(&o, TBBT_OP_FSSTAT, (xdrproc_t)xdr_FSSTAT3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.fsroot);
    out_free(&o);
    call(&o, TBBT_OP_FSINFO, (xdrproc_t)xdr_FSINFO3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.fsroot);
    out_free(&o);
    call(&o, TBBT_OP_PATHCONF, (xdrproc_t)xdr_PATHCONF3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.fsroot);
    out_free(&o);

    FSSTAT3res s = {.status = NFS3_OK};
    s.FSSTAT3res_u.resok.obj_attributes = poa(1, NF3DIR);
    s.FSSTAT3res_u.resok.tbytes = 1ull << 40;
    reply(&o, TBBT_OP_FSSTAT, (xdrproc_t)xdr_FSSTAT3res, &s, 1);
    check_obj_attrs(&o.r, &s.FSSTAT3res_u.resok.obj_attributes.post_op_attr_u.attributes);
    out_free(&o);
    FSINFO3res i = {.status = NFS3_OK};
    i.FSINFO3res_u.resok.obj_attributes = poa(2, NF3DIR);
    i.FSINFO3res_u.resok.rtmax = 1 << 20;
    reply(&o, TBBT_OP_FSINFO, (xdrproc_t)xdr_FSINFO3res, &i, 1);
    check_obj_attrs(&o.r, &i.FSINFO3res_u.resok.obj_attributes.post_op_attr_u.attributes);
    out_free(&o);
    PATHCONF3res p = {.status = NFS3ERR_BADHANDLE};
    reply(&o, TBBT_OP_PATHCONF, (xdrproc_t)xdr_PATHCONF3res, &p, 1);
    assert_int_equal(o.r.status, NFS3ERR_BADHANDLE);
    check_only(&o.r, 0);
    out_free(&o);
}

static void test_commit(void **state) {
    (void)state;
    struct out o;
    COMMIT3args a = {mkfh(1, 32), 4096, 0};
    call(&o, TBBT_OP_COMMIT, (xdrproc_t)xdr_COMMIT3args, &a);
    check_fh(&o, TBBT_F_OBJ, -1, a.file);
    check_u(&o.r, TBBT_F_OFFSET, 4096);
    check_u(&o.r, TBBT_F_COUNT, 0);
    out_free(&o);

    COMMIT3res r = {.status = NFS3_OK};
    r.COMMIT3res_u.resok.file_wcc = mkwcc(1, NF3REG);
    memcpy(r.COMMIT3res_u.resok.verf, "\xff\xee\xdd\xcc\xbb\xaa\x99\x88", 8);
    reply(&o, TBBT_OP_COMMIT, (xdrproc_t)xdr_COMMIT3res, &r, 0);
    check_pre(&o.r, &r.COMMIT3res_u.resok.file_wcc);
    check_obj_attrs(&o.r, &r.COMMIT3res_u.resok.file_wcc.after.post_op_attr_u.attributes);
    check_u(&o.r, TBBT_F_WVERF, 0xffeeddccbbaa9988ull);
    check_only(&o.r, OBJ_ATTRS | PRE_ATTRS | B(TBBT_F_WVERF));
    out_free(&o);
}

/* ---- malformed input ---- */

static void test_absurd_lengths(void **state) {
    (void)state;
    struct out o;
    uint8_t b[64] = {0};
    b[2] = 0x03; /* handle length 1000 > 64 */
    b[3] = 0xe8;
    dec(&o, TBBT_OP_GETATTR, 0, b, sizeof(b));
    assert_int_equal(o.rc, TBBT_DEC_BAD);
    out_free(&o);

    /* LOOKUP: valid 4-byte handle, name length 2^31 */
    uint8_t l[] = {0, 0, 0, 4, 1, 2, 3, 4, 0x80, 0, 0, 0, 'a', 'b', 'c', 'd'};
    dec(&o, TBBT_OP_LOOKUP, 0, l, sizeof(l));
    assert_int_equal(o.rc, TBBT_DEC_BAD);
    out_free(&o);

    /* GETATTR reply with a bad file type; a bool that is not 0/1 */
    uint8_t g[8] = {0, 0, 0, 0, 0, 0, 0, 9};
    dec(&o, TBBT_OP_GETATTR, 1, g, sizeof(g));
    assert_int_equal(o.rc, TBBT_DEC_BAD);
    out_free(&o);
    uint8_t a[8] = {0, 0, 0, 0, 0, 0, 0, 2};
    dec(&o, TBBT_OP_ACCESS, 1, a, sizeof(a));
    assert_int_equal(o.rc, TBBT_DEC_BAD);
    out_free(&o);

    /* a v2-only procedure in a v3 record */
    dec(&o, TBBT_OP_STATFS, 0, b, sizeof(b));
    assert_int_equal(o.rc, TBBT_DEC_BAD);
    out_free(&o);
}

static void test_garbage(void **state) {
    (void)state;
    uint8_t b[600];
    srand(12345);
    for (int iter = 0; iter < 3000; iter++) {
        size_t n = (size_t)rand() % sizeof(b);
        for (size_t i = 0; i < n; i++)
            b[i] = (uint8_t)rand();
        if (iter & 1) /* small lengths and booleans, so decoding goes deep */
            for (size_t i = 0; i + 4 <= n; i += 4)
                b[i] = b[i + 1] = 0, b[i + 2] &= 1;
        for (int op = 0; op < TBBT_OP_COUNT; op++) {
            struct out o;
            for (int reply = 0; reply < 2; reply++) {
                uint8_t *copy = malloc(n ? n : 1);
                memcpy(copy, b, n);
                dec(&o, op, reply, copy, n);
                free(copy);
                assert_true(o.rc == TBBT_DEC_OK || o.rc == TBBT_DEC_TRUNC || o.rc == TBBT_DEC_BAD);
                for (uint32_t i = 0; i < o.fh.n; i++)
                    assert_true(o.fh.v[i].len <= TBBT_FH_MAX);
                out_free(&o);
            }
        }
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_null),           cmocka_unit_test(test_getattr),
        cmocka_unit_test(test_setattr),        cmocka_unit_test(test_lookup),
        cmocka_unit_test(test_access),         cmocka_unit_test(test_readlink),
        cmocka_unit_test(test_read),           cmocka_unit_test(test_write),
        cmocka_unit_test(test_create),         cmocka_unit_test(test_mkdir),
        cmocka_unit_test(test_symlink),        cmocka_unit_test(test_mknod),
        cmocka_unit_test(test_remove),         cmocka_unit_test(test_rmdir),
        cmocka_unit_test(test_rename),         cmocka_unit_test(test_link),
        cmocka_unit_test(test_readdir),        cmocka_unit_test(test_readdirplus),
        cmocka_unit_test(test_fs_queries),     cmocka_unit_test(test_commit),
        cmocka_unit_test(test_absurd_lengths), cmocka_unit_test(test_garbage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
