/* test_nfs_ops.c -- lib/nfs_ops.c's wire numbers, names and status names
 * checked against the constants rpcgen generates from the .x files in lib/proto, so
 * the operation table and the protocol definitions cannot drift apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "nfs_ops.h"
#include "nfsstat.h"
#include "tbbt_mount.h"
#include "tbbt_nfs.h"

/* Every procedure of both versions: the operation, its name in the RFC (lower
 * case) and the rpcgen constant, -1 where the version lacks it. */
static const struct {
    enum tbbt_op op;
    const char *name;
    int v2, v3;
} procs[] = {
    {TBBT_OP_NULL, "null", NFSPROC_NULL, NFSPROC3_NULL},
    {TBBT_OP_GETATTR, "getattr", NFSPROC_GETATTR, NFSPROC3_GETATTR},
    {TBBT_OP_SETATTR, "setattr", NFSPROC_SETATTR, NFSPROC3_SETATTR},
    {TBBT_OP_ROOT, "root", NFSPROC_ROOT, -1},
    {TBBT_OP_LOOKUP, "lookup", NFSPROC_LOOKUP, NFSPROC3_LOOKUP},
    {TBBT_OP_ACCESS, "access", -1, NFSPROC3_ACCESS},
    {TBBT_OP_READLINK, "readlink", NFSPROC_READLINK, NFSPROC3_READLINK},
    {TBBT_OP_READ, "read", NFSPROC_READ, NFSPROC3_READ},
    {TBBT_OP_WRITECACHE, "writecache", NFSPROC_WRITECACHE, -1},
    {TBBT_OP_WRITE, "write", NFSPROC_WRITE, NFSPROC3_WRITE},
    {TBBT_OP_CREATE, "create", NFSPROC_CREATE, NFSPROC3_CREATE},
    {TBBT_OP_MKDIR, "mkdir", NFSPROC_MKDIR, NFSPROC3_MKDIR},
    {TBBT_OP_SYMLINK, "symlink", NFSPROC_SYMLINK, NFSPROC3_SYMLINK},
    {TBBT_OP_MKNOD, "mknod", -1, NFSPROC3_MKNOD},
    {TBBT_OP_REMOVE, "remove", NFSPROC_REMOVE, NFSPROC3_REMOVE},
    {TBBT_OP_RMDIR, "rmdir", NFSPROC_RMDIR, NFSPROC3_RMDIR},
    {TBBT_OP_RENAME, "rename", NFSPROC_RENAME, NFSPROC3_RENAME},
    {TBBT_OP_LINK, "link", NFSPROC_LINK, NFSPROC3_LINK},
    {TBBT_OP_READDIR, "readdir", NFSPROC_READDIR, NFSPROC3_READDIR},
    {TBBT_OP_READDIRPLUS, "readdirplus", -1, NFSPROC3_READDIRPLUS},
    {TBBT_OP_STATFS, "statfs", NFSPROC_STATFS, -1},
    {TBBT_OP_FSSTAT, "fsstat", -1, NFSPROC3_FSSTAT},
    {TBBT_OP_FSINFO, "fsinfo", -1, NFSPROC3_FSINFO},
    {TBBT_OP_PATHCONF, "pathconf", -1, NFSPROC3_PATHCONF},
    {TBBT_OP_COMMIT, "commit", -1, NFSPROC3_COMMIT},
};
#define NPROCS (sizeof(procs) / sizeof(procs[0]))

static void test_program_numbers(void **state) {
    (void)state;
    assert_int_equal(TBBT_NFS_PROGRAM, NFS_PROGRAM);
    assert_int_equal(TBBT_MOUNT_PROGRAM, MOUNT_PROGRAM);
    assert_int_equal(NFS_V2, 2);
    assert_int_equal(NFS_V3, 3);
}

static void test_every_op_listed(void **state) {
    (void)state;
    assert_int_equal(NPROCS, TBBT_OP_COUNT);
    for (size_t i = 0; i < NPROCS; i++) {
        assert_int_equal(tbbt_op_info(procs[i].op)->op, procs[i].op);
        assert_string_equal(tbbt_op_info(procs[i].op)->name, procs[i].name);
    }
}

static void test_wire_numbers(void **state) {
    (void)state;
    for (size_t i = 0; i < NPROCS; i++) {
        enum tbbt_op op = procs[i].op;
        assert_int_equal(tbbt_op_to_wire(op, 2), procs[i].v2);
        assert_int_equal(tbbt_op_to_wire(op, 3), procs[i].v3);
        assert_int_equal(tbbt_op_info(op)->v2proc, procs[i].v2);
        assert_int_equal(tbbt_op_info(op)->v3proc, procs[i].v3);
        if (procs[i].v2 >= 0) assert_int_equal(tbbt_op_from_wire(2, (unsigned)procs[i].v2), op);
        if (procs[i].v3 >= 0) assert_int_equal(tbbt_op_from_wire(3, (unsigned)procs[i].v3), op);
    }
    /* numbers outside both RFCs, and other versions */
    assert_int_equal(tbbt_op_from_wire(2, NFSPROC_STATFS + 1), -1);
    assert_int_equal(tbbt_op_from_wire(3, NFSPROC3_COMMIT + 1), -1);
    assert_int_equal(tbbt_op_from_wire(3, 1000), -1);
    assert_int_equal(tbbt_op_from_wire(4, 1), -1);
    assert_int_equal(tbbt_op_from_wire(1, 1), -1);
    assert_int_equal(tbbt_op_to_wire(TBBT_OP_GETATTR, 4), -1);
}

static void test_names(void **state) {
    (void)state;
    for (size_t i = 0; i < NPROCS; i++)
        assert_int_equal(tbbt_op_by_name(procs[i].name), procs[i].op);
    assert_int_equal(tbbt_op_by_name("GETATTR"), -1); /* names are lower case */
    assert_int_equal(tbbt_op_by_name("nosuchop"), -1);
    assert_int_equal(tbbt_op_by_name(""), -1);
}

/* Status names: the RFC 1813 errors and v2's WFLUSH, from rpcgen's enums. */
static void test_status_names(void **state) {
    (void)state;
    static const struct {
        int code;
        const char *name;
    } st[] = {
        {NFS3_OK, "OK"},
        {NFS3ERR_PERM, "PERM"},
        {NFS3ERR_NOENT, "NOENT"},
        {NFS3ERR_IO, "IO"},
        {NFS3ERR_NXIO, "NXIO"},
        {NFS3ERR_ACCES, "ACCES"},
        {NFS3ERR_EXIST, "EXIST"},
        {NFS3ERR_XDEV, "XDEV"},
        {NFS3ERR_NODEV, "NODEV"},
        {NFS3ERR_NOTDIR, "NOTDIR"},
        {NFS3ERR_ISDIR, "ISDIR"},
        {NFS3ERR_INVAL, "INVAL"},
        {NFS3ERR_FBIG, "FBIG"},
        {NFS3ERR_NOSPC, "NOSPC"},
        {NFS3ERR_ROFS, "ROFS"},
        {NFS3ERR_MLINK, "MLINK"},
        {NFS3ERR_NAMETOOLONG, "NAMETOOLONG"},
        {NFS3ERR_NOTEMPTY, "NOTEMPTY"},
        {NFS3ERR_DQUOT, "DQUOT"},
        {NFS3ERR_STALE, "STALE"},
        {NFS3ERR_REMOTE, "REMOTE"},
        {NFS3ERR_BADHANDLE, "BADHANDLE"},
        {NFS3ERR_NOT_SYNC, "NOT_SYNC"},
        {NFS3ERR_BAD_COOKIE, "BAD_COOKIE"},
        {NFS3ERR_NOTSUPP, "NOTSUPP"},
        {NFS3ERR_TOOSMALL, "TOOSMALL"},
        {NFS3ERR_SERVERFAULT, "SERVERFAULT"},
        {NFS3ERR_BADTYPE, "BADTYPE"},
        {NFS3ERR_JUKEBOX, "JUKEBOX"},
        {NFSERR_WFLUSH, "WFLUSH"},
        {NFSERR_NOENT, "NOENT"},
        {NFSERR_STALE, "STALE"},
    };
    for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++) {
        const char *n = tbbt_nfsstat_name(st[i].code);
        assert_non_null(n);
        assert_string_equal(n, st[i].name);
        assert_int_equal(tbbt_nfsstat_by_name(st[i].name), st[i].code);
    }
    assert_null(tbbt_nfsstat_name(3));
    assert_null(tbbt_nfsstat_name(-1));
    assert_int_equal(tbbt_nfsstat_by_name("NOSUCH"), -1);
    assert_int_equal(tbbt_nfsstat_by_name("noent"), -1);
    /* The enum the stages compare with is rpcgen's numbering. */
    assert_int_equal(TBBT_NFS_OK, NFS3_OK);
    assert_int_equal(TBBT_NFSERR_EXIST, NFS3ERR_EXIST);
    assert_int_equal(TBBT_NFSERR_STALE, NFSERR_STALE);
    assert_int_equal(TBBT_NFSERR_WFLUSH, NFSERR_WFLUSH);
    assert_int_equal(TBBT_NFSERR_BADHANDLE, NFS3ERR_BADHANDLE);
    assert_int_equal(TBBT_NFSERR_JUKEBOX, NFS3ERR_JUKEBOX);
}

/* Operation traits the decoder relies on: which calls name an object by
 * handle, which a (dir, name). */
static void test_traits(void **state) {
    (void)state;
    assert_true(tbbt_op_info(TBBT_OP_LOOKUP)->flags & TBBT_OPF_DIRNAME);
    assert_true(tbbt_op_info(TBBT_OP_LOOKUP)->flags & TBBT_OPF_NEWOBJ);
    assert_true(tbbt_op_info(TBBT_OP_RENAME)->flags & TBBT_OPF_DIRNAME2);
    assert_true(tbbt_op_info(TBBT_OP_LINK)->flags & TBBT_OPF_OBJ);
    assert_true(tbbt_op_info(TBBT_OP_LINK)->flags & TBBT_OPF_DIRNAME);
    assert_true(tbbt_op_info(TBBT_OP_READDIRPLUS)->flags & TBBT_OPF_LISTING);
    enum tbbt_op creates[] = {TBBT_OP_CREATE, TBBT_OP_MKDIR, TBBT_OP_SYMLINK, TBBT_OP_MKNOD};
    for (int i = 0; i < 4; i++) {
        assert_true(tbbt_op_info(creates[i])->flags & TBBT_OPF_CREATES);
        assert_true(tbbt_op_info(creates[i])->flags & TBBT_OPF_NEWOBJ);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_program_numbers), cmocka_unit_test(test_every_op_listed),
        cmocka_unit_test(test_wire_numbers),    cmocka_unit_test(test_names),
        cmocka_unit_test(test_status_names),    cmocka_unit_test(test_traits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
