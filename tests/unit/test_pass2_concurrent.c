/* test_pass2_concurrent.c -- pass 2 on calls of several clients whose
 * call-to-reply intervals overlap.
 *
 * The server may run such calls in either order: a record whose traced
 * outcome contradicts the model in call order, but agrees with it when an
 * overlapping call of another client ran first (a later call) or after it
 * (an earlier one), is no replay failure. Each trace is written in the
 * records' text form with its own call and reply times and client port;
 * each test checks that nothing is inserted, the count, and that the model
 * ends as the traced outcomes leave it -- and that one client's calls, or
 * calls that do not overlap, are still corrected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "pass2.h"
#include "rectext.h"

#define FILEA "type=1 mode=420 nlink=1 uid=1000 gid=100 size=10"

/* One record of a trace: call and reply time (ms), client port, and the
 * text after the version ("proc status flags cred fields..."). */
struct line {
    int call_ms, reply_ms, port;
    const char *rest;
};

/* Parses line l into r. */
static void parse(struct tbbt_rec *r, const struct line *l) {
    char *s = g_strdup_printf("1.%03d000000 1.%03d000000 10.0.0.5:%d 10.0.0.1:2049 0x%08x v3 %s", l->call_ms,
                              l->reply_ms, l->port, (unsigned)l->call_ms, l->rest);
    char err[128];
    if (tbbt_rec_parse_text(r, s, strlen(s), err, sizeof(err)) != 0) fail_msg("%s: %s", s, err);
    g_free(s);
}

/* Runs pass 2 (check only) over the lines (until one with no text);
 * returns the pass, finished, for the caller to inspect and free. */
static struct tbbt_pass2 *run(const struct line *lines) {
    struct tbbt_pass2 *p = tbbt_pass2_new(NULL, NULL, NULL);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    for (int i = 0; lines[i].rest; i++) {
        parse(&r, &lines[i]);
        assert_int_equal(tbbt_pass2_put(p, &r), 0);
    }
    assert_int_equal(tbbt_pass2_finish(p), 0);
    tbbt_rec_free(&r);
    return p;
}

/* Checks what the model holds at (1, "x"): present as obj, or absent
 * (obj 0). */
static void assert_x(struct tbbt_pass2 *p, tbbt_id obj) {
    tbbt_id cur = 0;
    enum tbbt_name_state st = tbbt_fsmodel_name(tbbt_pass2_model(p), 1, "x", 1, &cur);
    assert_int_equal(st, obj ? TBBT_NAME_PRESENT : TBBT_NAME_ABSENT);
    assert_int_equal(cur, obj);
}

/* A lookup finds x, which the model has absent; client B's create of x,
 * called after the lookup but before its reply, ran first on the server:
 * no failure, and x ends present as the created object. */
static void test_later_call_ran_first(void **s) {
    (void)s;
    static const struct line t[] = {
        {100, 101, 801, "lookup 2 T cred=1:0:0 dir=1 name=\"x\""},
        {200, 260, 801, "lookup 0 T cred=1:0:0 dir=1 name=\"x\" newobj=10 " FILEA " fileid=110"},
        {210, 220, 802,
         "create 0 T cred=1:1000:100 dir=1 name=\"x\" createhow=0 set_mode=420 newobj=10 " FILEA},
        {300, 301, 801, "lookup 0 T cred=1:0:0 dir=1 name=\"x\" newobj=10 " FILEA " fileid=110"},
        {0, 0, 0, NULL}};
    struct tbbt_pass2 *p = run(t);
    const struct tbbt_pass2_stats *st = tbbt_pass2_stats(p);
    assert_int_equal(st->failures, 0);
    assert_int_equal(st->inserted, 0);
    assert_int_equal(st->concurrent, 1);
    assert_x(p, 10);
    tbbt_pass2_free(p);
}

/* Client B's lookup of x, called while A's create of x was waiting for
 * its reply, found nothing: the server ran it before the create. No
 * failure; x ends present (the create came after). */
static void test_earlier_call_ran_after(void **s) {
    (void)s;
    static const struct line t[] = {
        {100, 101, 801, "lookup 2 T cred=1:0:0 dir=1 name=\"x\""},
        {200, 260, 801,
         "create 0 T cred=1:1000:100 dir=1 name=\"x\" createhow=0 set_mode=420 newobj=10 " FILEA},
        {210, 220, 802, "lookup 2 T cred=1:0:0 dir=1 name=\"x\""},
        {300, 301, 802, "lookup 0 T cred=1:0:0 dir=1 name=\"x\" newobj=10 " FILEA " fileid=110"},
        {0, 0, 0, NULL}};
    struct tbbt_pass2 *p = run(t);
    const struct tbbt_pass2_stats *st = tbbt_pass2_stats(p);
    assert_int_equal(st->failures, 0);
    assert_int_equal(st->inserted, 0);
    assert_int_equal(st->concurrent, 1);
    assert_x(p, 10);
    tbbt_pass2_free(p);
}

/* B's remove of x, called while A's lookup of x waited for its reply,
 * ran first: the lookup found nothing. x ends absent, not brought back
 * by a correction. */
static void test_earlier_remove_then_lookup(void **s) {
    (void)s;
    static const struct line t[] = {
        {100, 101, 801, "lookup 0 T cred=1:0:0 dir=1 name=\"x\" newobj=10 " FILEA " fileid=110"},
        {200, 260, 801, "lookup 2 T cred=1:0:0 dir=1 name=\"x\""},
        {210, 220, 802, "remove 0 T cred=1:1000:100 dir=1 name=\"x\""},
        {300, 301, 802, "lookup 2 T cred=1:0:0 dir=1 name=\"x\""},
        {0, 0, 0, NULL}};
    struct tbbt_pass2 *p = run(t);
    const struct tbbt_pass2_stats *st = tbbt_pass2_stats(p);
    assert_int_equal(st->failures, 0);
    assert_int_equal(st->inserted, 0);
    assert_int_equal(st->concurrent, 1);
    assert_x(p, 0);
    tbbt_pass2_free(p);
}

/* The same calls from one client, or from two whose intervals do not
 * overlap, are the trace's order: the failure is corrected as before. */
static void test_no_overlap_still_corrected(void **s) {
    (void)s;
    static const struct line one_client[] = {
        {100, 101, 801, "lookup 2 T cred=1:0:0 dir=1 name=\"x\""},
        {200, 260, 801,
         "create 0 T cred=1:1000:100 dir=1 name=\"x\" createhow=0 set_mode=420 newobj=10 " FILEA},
        {210, 220, 801, "lookup 2 T cred=1:0:0 dir=1 name=\"x\""},
        {0, 0, 0, NULL}};
    static const struct line apart[] = {
        {100, 101, 801, "lookup 2 T cred=1:0:0 dir=1 name=\"x\""},
        {200, 205, 801,
         "create 0 T cred=1:1000:100 dir=1 name=\"x\" createhow=0 set_mode=420 newobj=10 " FILEA},
        {210, 220, 802, "lookup 2 T cred=1:0:0 dir=1 name=\"x\""},
        {0, 0, 0, NULL}};
    const struct line *traces[] = {one_client, apart};
    for (unsigned i = 0; i < G_N_ELEMENTS(traces); i++) {
        struct tbbt_pass2 *p = run(traces[i]);
        const struct tbbt_pass2_stats *st = tbbt_pass2_stats(p);
        assert_int_equal(st->failures, 1);
        assert_true(st->inserted > 0);
        assert_int_equal(st->concurrent, 0);
        tbbt_pass2_free(p);
    }
}

/* B's read, called while A's truncate waited for its reply, ran first:
 * its reply shows the size before the truncate. The model keeps the
 * truncated size, so a later reply showing it reveals no "lost"
 * truncate. */
static void test_earlier_change_attrs_kept(void **s) {
    (void)s;
    static const struct line t[] = {
        {100, 101, 801, "getattr 0 T cred=1:0:0 obj=10 " FILEA " fileid=110"},
        {200, 260, 801,
         "setattr 0 T cred=1:1000:100 obj=10 set_size=0 type=1 mode=420 nlink=1 uid=1000 gid=100 size=0 "
         "pre_size=10"},
        {210, 220, 802, "read 0 T cred=1:0:0 obj=10 offset=0 count=4096 rcount=10 eof=1 " FILEA},
        {300, 301, 801, "getattr 0 T cred=1:0:0 obj=10 type=1 mode=420 nlink=1 uid=1000 gid=100 size=0"},
        {0, 0, 0, NULL}};
    struct tbbt_pass2 *p = run(t);
    const struct tbbt_pass2_stats *st = tbbt_pass2_stats(p);
    assert_int_equal(st->failures, 0);
    assert_int_equal(st->inserted, 0);
    assert_int_equal(tbbt_fsmodel_obj(tbbt_pass2_model(p), 10)->attr.size, 0);
    tbbt_pass2_free(p);
}

/* A's lookup found nothing; B's overlapping lookup, called later, found
 * the name. Neither order explains both without a lost create (a lookup
 * changes nothing): B's failure is corrected. */
static void test_other_order_must_fit_both(void **s) {
    (void)s;
    static const struct line t[] = {
        {200, 260, 801, "lookup 2 T cred=1:0:0 dir=1 name=\"x\""},
        {210, 220, 802, "lookup 0 T cred=1:0:0 dir=1 name=\"x\" newobj=10 " FILEA " fileid=110"},
        {0, 0, 0, NULL}};
    struct tbbt_pass2 *p = run(t);
    const struct tbbt_pass2_stats *st = tbbt_pass2_stats(p);
    assert_int_equal(st->concurrent, 0);
    assert_int_equal(st->failures, 1);
    assert_true(st->inserted > 0);
    assert_x(p, 10);
    tbbt_pass2_free(p);
}

/* The report says how many outcomes the other order explained. */
static void test_concurrent_report(void **s) {
    (void)s;
    static const struct line t[] = {
        {100, 101, 801, "lookup 2 T cred=1:0:0 dir=1 name=\"x\""},
        {200, 260, 801,
         "create 0 T cred=1:1000:100 dir=1 name=\"x\" createhow=0 set_mode=420 newobj=10 " FILEA},
        {210, 220, 802, "lookup 2 T cred=1:0:0 dir=1 name=\"x\""},
        {0, 0, 0, NULL}};
    struct tbbt_pass2 *p = run(t);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    tbbt_pass2_report(p, f);
    fclose(f);
    assert_non_null(strstr(buf, "Concurrent: 1 outcomes explained by an overlapping call"));
    GString *j = g_string_new(NULL);
    tbbt_pass2_report_json(p, j);
    assert_non_null(strstr(j->str, "\"concurrent\":1"));
    g_string_free(j, TRUE);
    free(buf);
    tbbt_pass2_free(p);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_later_call_ran_first),       cmocka_unit_test(test_earlier_call_ran_after),
        cmocka_unit_test(test_earlier_remove_then_lookup), cmocka_unit_test(test_no_overlap_still_corrected),
        cmocka_unit_test(test_earlier_change_attrs_kept),  cmocka_unit_test(test_other_order_must_fit_both),
        cmocka_unit_test(test_concurrent_report),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
