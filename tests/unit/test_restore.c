/* test_restore.c -- a create-like call the snaplen cut after its name is
 * completed from its reply (mode, a device's type, a symlink's stand-in
 * target); nothing else is: a missing name, a failed call, a device
 * without its numbers, or another procedure stays cut. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "rectext.h"
#include "restore.h"

#define HEAD "1094518561.001000000 1094518561.001300000 10.0.0.5:801 10.0.0.1:2049 0x1a2b3c03 v3 "

/* Parses one text record. */
static void rec(struct tbbt_rec *r, const char *line) {
    char err[256];
    tbbt_rec_init(r);
    if (tbbt_rec_parse_text(r, line, strlen(line), err, sizeof(err)) != 0) fail_msg("%s: %s", line, err);
}

static void test_create_mode(void **state) {
    (void)state;
    struct tbbt_rec r;
    rec(&r,
        HEAD "create 0 TCK cred=1:1000:100 dir=2 name=\"1764174000.M5P1Q2.host,S=4321:2,S\" newobj=3 type=1 "
             "mode=33204 uid=1000 gid=100");
    assert_int_equal(tbbt_restore_from_reply(&r), 1);
    assert_int_equal(r.set_mode, 0664);
    assert_false(r.flags & TBBT_RF_ARGS_CUT);
    assert_true(r.flags & TBBT_RF_RESTORED);
    assert_true(r.flags & TBBT_RF_CALL_TRUNC);
    assert_true(tbbt_rec_replayable(&r));
    tbbt_rec_free(&r);
}

static void test_mknod_and_symlink(void **state) {
    (void)state;
    struct tbbt_rec r;
    rec(&r, HEAD "mknod 0 TCK cred=1:0:0 dir=2 name=\"p1\" newobj=3 type=7 mode=4516");
    assert_int_equal(tbbt_restore_from_reply(&r), 1);
    assert_int_equal(r.nodetype, 7);
    assert_int_equal(r.set_mode, 0644);
    tbbt_rec_free(&r);
    rec(&r, HEAD "mknod 0 TCK cred=1:0:0 dir=2 name=\"c1\" newobj=3 type=4 mode=8612");
    assert_int_equal(tbbt_restore_from_reply(&r), 0); /* a device's numbers: not in the reply */
    assert_true(r.flags & TBBT_RF_ARGS_CUT);
    tbbt_rec_free(&r);
    rec(&r, HEAD "symlink 0 TCK cred=1:0:0 dir=2 name=\"l1\" newobj=3 type=5 mode=41471");
    assert_int_equal(tbbt_restore_from_reply(&r), 1);
    assert_true(tbbt_rec_has(&r, TBBT_F_TARGET));
    assert_memory_equal(tbbt_rec_str(&r, r.target), TBBT_RESTORE_TARGET, strlen(TBBT_RESTORE_TARGET));
    tbbt_rec_free(&r);
}

/* What the reply cannot give stays cut. */
static void test_left_cut(void **state) {
    (void)state;
    struct tbbt_rec r;
    rec(&r, HEAD "create 0 TCK cred=1:1000:100 dir=2 newobj=3 type=1 mode=33188"); /* name cut */
    assert_int_equal(tbbt_restore_from_reply(&r), 0);
    assert_true(r.flags & TBBT_RF_ARGS_CUT);
    tbbt_rec_free(&r);
    rec(&r, HEAD "mkdir 17 TCK cred=1:1000:100 dir=2 name=\"d\""); /* failed: nothing shown */
    assert_int_equal(tbbt_restore_from_reply(&r), 0);
    tbbt_rec_free(&r);
    rec(&r, HEAD "setattr 0 TCK cred=1:1000:100 obj=2 type=1 mode=33188"); /* not a create */
    assert_int_equal(tbbt_restore_from_reply(&r), 0);
    tbbt_rec_free(&r);
    rec(&r, HEAD "create 0 TC cred=1:1000:100 dir=2 name=\"x\" type=1 mode=33188"); /* not cut: untouched */
    assert_int_equal(tbbt_restore_from_reply(&r), 0);
    assert_false(tbbt_rec_has(&r, TBBT_F_SET_MODE));
    tbbt_rec_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_create_mode),
        cmocka_unit_test(test_mknod_and_symlink),
        cmocka_unit_test(test_left_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
