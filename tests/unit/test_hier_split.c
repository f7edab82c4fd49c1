/* test_hier_split.c -- tbbt-split's grouping on hand-made traces: disjoint
 * subtrees become separate groups; a read-only root (lookups, getattrs)
 * joins nothing; a rename across two subtrees joins them; a directory
 * both subtrees write joins them unless declared shared, and then every
 * record that writes it across parts is reported as crossing; parts are
 * made of whole groups, every record in exactly one, balanced. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "rectext.h"
#include "split.h"

/* Object IDs of the hand-made image: / holds a/ and b/. */
enum { ROOT = 1, A = 2, B = 3, FA = 10, FB = 11, FA2 = 12 };

/* Feeds one record at second t: "proc status fields..." in the text form. */
static void feed(struct tbbt_split *s, int t, const char *rest) {
    char *line = g_strdup_printf("%d.000000000 %d.000100000 10.0.0.5:801 10.0.0.1:2049 0x%08x v3 %s", t, t,
                                 (unsigned)t, rest);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    char err[128];
    if (tbbt_rec_parse_text(&r, line, strlen(line), err, sizeof(err)) != 0) fail_msg("%s: %s", line, err);
    tbbt_split_put(s, &r);
    tbbt_rec_free(&r);
    g_free(line);
}

/* Two clients, each in its own subtree under a root they only read:
 * records 0..3 a's, 4..7 b's, 8 and 9 the root's alone. */
static void two_subtrees(struct tbbt_split *s) {
    feed(s, 1, "lookup 0 T cred=1:0:0 dir=1 name=\"a\" newobj=2");
    feed(s, 2, "create 0 T cred=1:0:0 dir=2 name=\"f\" createhow=0 newobj=10");
    feed(s, 3, "write 0 T cred=1:0:0 obj=10 offset=0 count=100 stable=2 rcount=100");
    feed(s, 4, "read 0 T cred=1:0:0 obj=10 offset=0 count=100 rcount=100 eof=1");
    feed(s, 5, "lookup 0 T cred=1:0:0 dir=1 name=\"b\" newobj=3");
    feed(s, 6, "create 0 T cred=1:0:0 dir=3 name=\"g\" createhow=0 newobj=11");
    feed(s, 7, "setattr 0 T cred=1:0:0 obj=11 set_mode=384");
    feed(s, 8, "remove 0 T cred=1:0:0 dir=3 name=\"g\" victim=11");
    feed(s, 9, "getattr 0 T cred=1:0:0 obj=1");
    feed(s, 10, "lookup 2 T cred=1:0:0 dir=1 name=\"nothing\"");
}

/* Disjoint subtrees: two groups, the root's records free; two parts,
 * each one subtree, nothing crossing. */
static void test_disjoint_subtrees(void **state) {
    (void)state;
    struct tbbt_split *s = tbbt_split_new();
    two_subtrees(s);
    assert_int_equal(tbbt_split_group(s), 2);
    assert_int_equal(tbbt_split_records(s), 10);
    assert_int_equal(tbbt_split_free_records(s), 2);
    assert_int_equal(tbbt_split_readonly(s), 1); /* the root */
    for (int i = 0; i < 4; i++)
        assert_int_equal(tbbt_split_group_of(s, (uint64_t)i), 0);
    for (int i = 4; i < 8; i++)
        assert_int_equal(tbbt_split_group_of(s, (uint64_t)i), 1);
    assert_true(tbbt_split_group_of(s, 8) == UINT64_MAX && tbbt_split_group_of(s, 9) == UINT64_MAX);
    assert_int_equal(tbbt_split_assign(s, 2), 0);
    unsigned pa = tbbt_split_part_of(s, 0), pb = tbbt_split_part_of(s, 4);
    assert_int_not_equal(pa, pb);
    for (int i = 0; i < 4; i++)
        assert_int_equal(tbbt_split_part_of(s, (uint64_t)i), pa);
    for (int i = 4; i < 8; i++)
        assert_int_equal(tbbt_split_part_of(s, (uint64_t)i), pb);
    /* the shares add up; bytes and the procedure mix are the part's */
    const struct tbbt_split_share *sa = tbbt_split_share(s, pa), *sb = tbbt_split_share(s, pb);
    assert_int_equal(sa->records + sb->records, 10);
    assert_int_equal(sa->records, 5); /* a's 4 and one free record: parts of 4 and 4 get 1 each */
    assert_int_equal(sb->records, 5);
    assert_int_equal(sa->bytes_read, 100);
    assert_int_equal(sa->bytes_written, 100);
    assert_int_equal(sb->bytes_read + sb->bytes_written, 0);
    assert_int_equal(sb->by_op[TBBT_OP_REMOVE], 1);
    assert_int_equal(sa->groups + sb->groups, 2);
    /* objects: every part's records lock the root; a's lock a and f */
    int unit[2] = {0, 1};
    uint64_t first = 99;
    tbbt_id obj = 0;
    assert_int_equal(tbbt_split_crossings(s, unit, &first, &obj), 0);
    assert_int_equal(first, 99);
    for (uint64_t i = 0; i < tbbt_split_objects(s); i++) {
        uint64_t parts;
        tbbt_id id = tbbt_split_object(s, i, &parts);
        if (id == ROOT) assert_int_equal(parts, 3);
        if (id == A || id == FA) assert_int_equal(parts, 1u << pa);
        if (id == B || id == FB) assert_int_equal(parts, 1u << pb);
    }
    /* three parts from two groups: refused */
    assert_int_equal(tbbt_split_assign(s, 3), -1);
    tbbt_split_free(s);
}

/* A read-only file of a subtree, read by handle after a lookup in the
 * subtree revealed it: a free record, which goes to the subtree's part. */
static void test_readonly_file_follows(void **state) {
    (void)state;
    struct tbbt_split *s = tbbt_split_new();
    two_subtrees(s);
    feed(s, 11, "lookup 0 T cred=1:0:0 dir=3 name=\"ro\" newobj=14");
    feed(s, 12, "read 0 T cred=1:0:0 obj=14 offset=0 count=100 rcount=100 eof=1");
    feed(s, 13, "getattr 0 T cred=1:0:0 obj=14");
    assert_int_equal(tbbt_split_group(s), 2);
    assert_int_equal(tbbt_split_group_of(s, 10), 1); /* the lookup: b's (b is written) */
    assert_true(tbbt_split_group_of(s, 11) == UINT64_MAX && tbbt_split_group_of(s, 12) == UINT64_MAX);
    assert_int_equal(tbbt_split_assign(s, 2), 0);
    assert_int_equal(tbbt_split_part_of(s, 11), tbbt_split_part_of(s, 4));
    assert_int_equal(tbbt_split_part_of(s, 12), tbbt_split_part_of(s, 4));
    tbbt_split_free(s);
}

/* A rename from one subtree into the other joins them: one group. */
static void test_rename_across_joins(void **state) {
    (void)state;
    struct tbbt_split *s = tbbt_split_new();
    two_subtrees(s);
    feed(s, 11, "rename 0 T cred=1:0:0 dir=2 name=\"f\" dir2=3 name2=\"f\" victim=10");
    assert_int_equal(tbbt_split_group(s), 1);
    assert_int_equal(tbbt_split_assign(s, 2), -1);
    tbbt_split_free(s);
}

/* The root read-only joins nothing; the root written by both subtrees'
 * records (a mkdir in it from each) joins them; declared shared, it
 * joins nothing again, and the records that lock it across parts while
 * one writes it cross: the first is the second mkdir. */
static void test_shared_root(void **state) {
    (void)state;
    struct tbbt_split *s = tbbt_split_new();
    two_subtrees(s);
    feed(s, 11, "mkdir 0 T cred=1:0:0 dir=1 name=\"a2\" newobj=12");
    feed(s, 12, "create 0 T cred=1:0:0 dir=2 name=\"h\" createhow=0 newobj=13");
    assert_int_equal(tbbt_split_group(s), 1); /* root now written: joins a, b, a2 */
    tbbt_split_free(s);

    s = tbbt_split_new();
    tbbt_split_add_shared(s, ROOT);
    two_subtrees(s);
    feed(s, 11, "mkdir 0 T cred=1:0:0 dir=1 name=\"a2\" newobj=12");
    feed(s, 12, "create 0 T cred=1:0:0 dir=12 name=\"h\" createhow=0 newobj=13");
    assert_int_equal(tbbt_split_group(s), 3); /* a, b, a2 */
    assert_int_equal(tbbt_split_assign(s, 2), 0);
    int unit[2] = {0, 1};
    uint64_t first = 0;
    tbbt_id obj = 0;
    uint64_t n = tbbt_split_crossings(s, unit, &first, &obj);
    /* the mkdir writes the root, which the other part read: it alone
     * crosses (reads of the root by both parts do not) */
    assert_int_equal(n, 1);
    assert_int_equal(obj, ROOT);
    assert_int_equal(first, 10);
    assert_int_equal(tbbt_split_part_of(s, 10), tbbt_split_part_of(s, 11));
    /* all parts in one unit: nothing crosses */
    int one[2] = {0, 0};
    assert_int_equal(tbbt_split_crossings(s, one, &first, &obj), 0);
    tbbt_split_free(s);
}

/* Largest group first, each to the lightest part: groups of 5, 3, 2 in
 * two parts give 5 and 3+2. */
static void test_balance(void **state) {
    (void)state;
    struct tbbt_split *s = tbbt_split_new();
    int t = 1;
    const int sizes[3] = {2, 5, 3};
    for (int g = 0; g < 3; g++)
        for (int i = 0; i < sizes[g]; i++) {
            char *r =
                g_strdup_printf("write 0 T cred=1:0:0 obj=%d offset=0 count=1 stable=2 rcount=1", 100 + g);
            feed(s, t++, r);
            g_free(r);
        }
    assert_int_equal(tbbt_split_group(s), 3);
    assert_int_equal(tbbt_split_assign(s, 2), 0);
    uint64_t a = tbbt_split_share(s, 0)->records, b = tbbt_split_share(s, 1)->records;
    assert_true((a == 5 && b == 5));
    assert_int_not_equal(tbbt_split_part_of(s, 0), tbbt_split_part_of(s, 2)); /* 2-group apart from 5-group */
    assert_int_equal(tbbt_split_part_of(s, 0), tbbt_split_part_of(s, 7));     /* 2 and 3 together */
    tbbt_split_free(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_disjoint_subtrees),
        cmocka_unit_test(test_readonly_file_follows),
        cmocka_unit_test(test_rename_across_joins),
        cmocka_unit_test(test_shared_root),
        cmocka_unit_test(test_balance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
