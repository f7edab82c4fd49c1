/* test_pass2_window.c -- pass 2's correction window in trace time
 * (issue 27 point 3): at a busy site's call rate (12,000 calls a second)
 * 4,096 records are a third of a second, and the evidence for a
 * correction comes seconds later. The window holds the records of the
 * last --window-time seconds too (default 5), its ring growing for them
 * up to TBBT_P2_HELD_MAX records, where the oldest leave early, counted.
 *
 * Each trace is a few records that need a correction among fillers
 * (another client's getattr of the root) at the busy rate; pass 2 runs
 * with the default options or with window_ns 0 (records only, the old
 * window), and the tests inspect its output and counts. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "pass2.h"
#include "rectext.h"

#define FILEA "type=1 mode=420 nlink=1 uid=0 gid=0 size=10"
#define DIRA "type=2 mode=511 nlink=2 uid=0 gid=0 size=4096"
#define MS 1000000LL
#define BUSY_NS (1000000000LL / 12000) /* 12,000 calls a second */

/* The pass's output, with a count of the trace's records among it. */
struct sinkbuf {
    GPtrArray *recs; /* struct tbbt_rec *; NULL: not kept */
    uint64_t trace_out;
};

/* Sink collecting copies of the output records (when kept). */
static int collect(void *ctx, const struct tbbt_rec *r) {
    struct sinkbuf *b = ctx;
    if (!(r->flags & TBBT_RF_INSERTED)) b->trace_out++;
    if (!b->recs) return 0;
    struct tbbt_rec *c = g_new(struct tbbt_rec, 1);
    tbbt_rec_init(c);
    tbbt_rec_copy(c, r);
    g_ptr_array_add(b->recs, c);
    return 0;
}

/* Frees a collected record. */
static void rec_free(gpointer p) {
    tbbt_rec_free(p);
    g_free(p);
}

/* Parses into r one record called at call ns after the trace's start,
 * answered reply_ns later (-1: the reply was lost), from port, with xid,
 * and rest ("proc status flags cred fields..."). */
static void parse(struct tbbt_rec *r, int64_t call, int64_t reply_ns, int port, uint32_t xid,
                  const char *rest) {
    int64_t t = 1000000000LL + call;
    char reply[40];
    if (reply_ns < 0)
        g_strlcpy(reply, "-", sizeof(reply));
    else
        g_snprintf(reply, sizeof(reply), "%lld.%09lld", (long long)((t + reply_ns) / 1000000000LL),
                   (long long)((t + reply_ns) % 1000000000LL));
    char *s =
        g_strdup_printf("%lld.%09lld %s 10.0.0.5:%d 10.0.0.1:2049 0x%08x v3 %s",
                        (long long)(t / 1000000000LL), (long long)(t % 1000000000LL), reply, port, xid, rest);
    char err[128];
    if (tbbt_rec_parse_text(r, s, strlen(s), err, sizeof(err)) != 0) fail_msg("%s: %s", s, err);
    g_free(s);
}

/* A trace: `fillers` getattrs of the root every gap ns, with the key
 * records (call index i into the fillers' clock: key[k].at) among them. */
struct key {
    uint64_t at; /* goes in before the filler of that index */
    int port;
    const char *rest;
};

/* Runs pass 2 (window_ns: its trace-time window) over the trace into *b;
 * returns the pass, finished, for the caller to inspect and free. */
static struct tbbt_pass2 *run(const struct key *keys, uint64_t fillers, int64_t gap, int64_t window_ns,
                              struct sinkbuf *b, uint64_t *max_held) {
    struct tbbt_pass2_opts o;
    tbbt_pass2_opts_default(&o);
    o.window_ns = window_ns;
    struct tbbt_pass2 *p = tbbt_pass2_new(&o, collect, b);
    struct tbbt_rec r, fill;
    tbbt_rec_init(&r);
    tbbt_rec_init(&fill);
    parse(&fill, 0, 100000, 900, 0, "getattr 0 T cred=1:0:0 obj=1 " DIRA);
    uint64_t in = 0;
    const struct key *k = keys;
    for (uint64_t i = 0; i <= fillers; i++) {
        for (; k->rest && k->at == i; k++) {
            parse(&r, (int64_t)i * gap, 100000, k->port, (uint32_t)(0x10000000u + (k - keys)), k->rest);
            assert_int_equal(tbbt_pass2_put(p, &r), 0);
            in++;
        }
        if (i == fillers) break;
        fill.call_time = 1000000000LL + (int64_t)i * gap + gap / 2;
        fill.reply_time = fill.call_time + 100000;
        fill.xid = (uint32_t)i;
        assert_int_equal(tbbt_pass2_put(p, &fill), 0);
        in++;
        if (max_held && in - b->trace_out > *max_held) *max_held = in - b->trace_out;
    }
    assert_int_equal(tbbt_pass2_finish(p), 0);
    assert_int_equal(b->trace_out, in);
    tbbt_rec_free(&r);
    tbbt_rec_free(&fill);
    return p;
}

/* Index in out of the trace record with key index k. */
static guint key_at(GPtrArray *out, unsigned k) {
    for (guint i = 0; i < out->len; i++) {
        const struct tbbt_rec *r = out->pdata[i];
        if (!(r->flags & TBBT_RF_INSERTED) && r->xid == 0x10000000u + k) return i;
    }
    fail_msg("no key record %u", k);
    return 0;
}

/* A file removed, then used by handle 2 s (24,000 records) later by a
 * client that had it open: the replay keeps it alive by renaming its
 * name away just before the removal (used-after-removal). That needs the
 * removal still held when the use is judged: so with the time window;
 * with the record window alone it had long gone out and the use stays a
 * failure no rule could fix. */
static void test_used_after_removal_busy(void **s) {
    (void)s;
    static const struct key t[] = {
        {10, 801, "create 0 T cred=1:0:0 dir=1 name=\"a\" createhow=0 set_mode=420 newobj=10 " FILEA},
        {20, 801, "remove 0 T cred=1:0:0 dir=1 name=\"a\""},
        {24020, 802, "getattr 0 T cred=1:0:0 obj=10 " FILEA},
        {0, 0, NULL}};
    for (int timed = 1; timed >= 0; timed--) {
        struct sinkbuf b = {g_ptr_array_new_with_free_func(rec_free), 0};
        struct tbbt_pass2 *p = run(t, 30000, BUSY_NS, timed ? TBBT_P2_WINDOW_NS : 0, &b, NULL);
        const struct tbbt_pass2_stats *st = tbbt_pass2_stats(p);
        assert_int_equal(st->failures, 1);
        guint rm = key_at(b.recs, 1);
        const struct tbbt_rec *before = b.recs->pdata[rm - 1];
        if (timed) {
            assert_int_equal(st->corrected, 1);
            assert_int_equal(st->unexplained, 0);
            assert_int_equal(st->window_cut, 0);
            assert_true(st->ring_slots > 24000); /* it grew to hold 2 s */
            /* the name goes away before the removal, a new file is made under it */
            assert_true(before->flags & TBBT_RF_INSERTED);
            assert_int_equal(before->op, TBBT_OP_CREATE);
            const struct tbbt_rec *mv = b.recs->pdata[rm - 2];
            assert_true(mv->flags & TBBT_RF_INSERTED);
            assert_int_equal(mv->op, TBBT_OP_RENAME);
        } else {
            assert_int_equal(st->corrected, 0);
            assert_int_equal(st->ring_slots, 4096 + 2 + 64);
            assert_false(before->flags & TBBT_RF_INSERTED);
        }
        g_ptr_array_free(b.recs, TRUE);
        tbbt_pass2_free(p);
    }
}

/* A create whose reply the capture lost, shown made by a lookup of its
 * name 3 s (36,000 records) later: resolved by that lookup (its object
 * filled in) with the time window; with the record window alone the
 * create had gone out, assumed to succeed, never confirmed. */
static void test_lost_create_shown_later_busy(void **s) {
    (void)s;
    static const struct key t[] = {
        {10, 801, "create - LT cred=1:0:0 dir=1 name=\"b\" createhow=0 set_mode=420"},
        {36010, 802, "lookup 0 T cred=1:0:0 dir=1 name=\"b\" newobj=11 " FILEA},
        {0, 0, NULL}};
    for (int timed = 1; timed >= 0; timed--) {
        struct sinkbuf b = {g_ptr_array_new_with_free_func(rec_free), 0};
        struct tbbt_pass2_opts o;
        tbbt_pass2_opts_default(&o);
        o.window_ns = timed ? TBBT_P2_WINDOW_NS : 0;
        struct tbbt_pass2 *p = tbbt_pass2_new(&o, collect, &b);
        struct tbbt_rec r;
        tbbt_rec_init(&r);
        for (uint64_t i = 0; i < 40000; i++) {
            for (const struct key *k = t; k->rest; k++)
                if (k->at == i) {
                    parse(&r, (int64_t)i * BUSY_NS, k == t ? -1 : 100000, k->port,
                          (uint32_t)(0x10000000u + (k - t)), k->rest);
                    assert_int_equal(tbbt_pass2_put(p, &r), 0);
                }
            parse(&r, (int64_t)i * BUSY_NS + BUSY_NS / 2, 100000, 900, (uint32_t)i,
                  "getattr 0 T cred=1:0:0 obj=1 " DIRA);
            assert_int_equal(tbbt_pass2_put(p, &r), 0);
        }
        assert_int_equal(tbbt_pass2_finish(p), 0);
        tbbt_rec_free(&r);
        const struct tbbt_pass2_stats *st = tbbt_pass2_stats(p);
        assert_int_equal(st->lost, 1);
        const struct tbbt_rec *cr = b.recs->pdata[key_at(b.recs, 0)];
        assert_true(cr->flags & TBBT_RF_REPLY_LOST);
        if (timed) {
            assert_int_equal(st->lost_by_later, 1);
            assert_int_equal(st->lost_unresolved, 0);
            assert_true(tbbt_rec_has(cr, TBBT_F_NEWOBJ));
            assert_int_equal(cr->newobj, 11);
        } else {
            assert_int_equal(st->lost_by_later, 0);
            assert_int_equal(st->lost_unresolved, 1);
            assert_false(tbbt_rec_has(cr, TBBT_F_NEWOBJ));
        }
        g_ptr_array_free(b.recs, TRUE);
        tbbt_pass2_free(p);
    }
}

/* At a rate whose 5 s outnumber TBBT_P2_HELD_MAX (100,000 calls a
 * second), the ring stops there: never more records held than that, the
 * ones that left early counted -- memory bounded at any call rate. */
static void test_bounded_at_cap(void **s) {
    (void)s;
    static const struct key t[] = {{0, 0, NULL}};
    struct sinkbuf b = {NULL, 0};
    uint64_t held = 0;
    struct tbbt_pass2 *p = run(t, 200000, 10000, TBBT_P2_WINDOW_NS, &b, &held);
    const struct tbbt_pass2_stats *st = tbbt_pass2_stats(p);
    assert_int_equal(st->ring_slots, TBBT_P2_HELD_MAX);
    assert_true(held <= TBBT_P2_HELD_MAX);
    assert_true(held > TBBT_P2_HELD_MAX - 100);
    /* once the ring's slots all hold records, each record put sends the oldest out early */
    assert_int_equal(st->window_cut, 200000 - TBBT_P2_HELD_MAX);
    tbbt_pass2_free(p);
}

/* At a rate whose 4,096 records span more than 5 s (500 calls a second),
 * the ring never grows and the output is the record window's, record for
 * record, corrections included. */
static void test_slow_rate_unchanged(void **s) {
    (void)s;
    static const struct key t[] = {
        {10, 801, "create 0 T cred=1:0:0 dir=1 name=\"a\" createhow=0 set_mode=420 newobj=10 " FILEA},
        {20, 801, "remove 0 T cred=1:0:0 dir=1 name=\"a\""},
        {2000, 802, "getattr 0 T cred=1:0:0 obj=10 " FILEA},
        {6000, 803, "getattr 0 T cred=1:0:0 obj=10 " FILEA},
        {0, 0, NULL}};
    GString *text[2];
    for (int timed = 0; timed < 2; timed++) {
        struct sinkbuf b = {g_ptr_array_new_with_free_func(rec_free), 0};
        struct tbbt_pass2 *p = run(t, 12000, 2 * MS, timed ? TBBT_P2_WINDOW_NS : 0, &b, NULL);
        assert_int_equal(tbbt_pass2_stats(p)->ring_slots, 4096 + 2 + 64);
        assert_true(tbbt_pass2_stats(p)->inserted > 0);
        text[timed] = g_string_new(NULL);
        for (guint i = 0; i < b.recs->len; i++) {
            tbbt_rec_format_text(b.recs->pdata[i], text[timed]);
            g_string_append_c(text[timed], '\n');
        }
        g_ptr_array_free(b.recs, TRUE);
        tbbt_pass2_free(p);
    }
    assert_string_equal(text[0]->str, text[1]->str);
    g_string_free(text[0], TRUE);
    g_string_free(text[1], TRUE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_used_after_removal_busy),
        cmocka_unit_test(test_lost_create_shown_later_busy),
        cmocka_unit_test(test_bounded_at_cap),
        cmocka_unit_test(test_slow_rate_unchanged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
