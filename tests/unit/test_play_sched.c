/* test_play_sched.c -- the player's ordering policies: the paper's Table 3
 * (conservative gives sequence 3, fsdep sequence 4), conservative keeping
 * the trace's overlap where it is no race and serialising a conflicting
 * overlapping pair, per-object lock queues (a later reader never
 * overtakes an earlier writer), strict mode, lost replies holding what
 * depends on them in both orders, handles revealed by replies (a
 * lookup's lock decided when it is granted: issue 23),
 * failed records' dependants skipped transitively, the lock table, and
 * the ID hash the player's tables compare instead of IDs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "htab.h"
#include "order.h"
#include "rng.h"

#define S 1000000000LL

/* A record of op at [call, reply] seconds. */
static void mk(struct tbbt_rec *r, enum tbbt_op op, int64_t call, int64_t reply) {
    tbbt_rec_clear(r);
    r->vers = 3, r->op = (uint8_t)op, r->status = 0;
    r->call_time = call * S, r->reply_time = reply * S;
}

static void *new_sched(const struct tbbt_sched_ops *ops, int deps, int (*known)(void *, tbbt_id)) {
    struct tbbt_sched_opts o = {.window = 64, .deps = deps, .known = known};
    return ops->create(&o);
}

/* next(): the seq it offers to send, -1 for none, -2 - seq for a skip. */
static int64_t nxt(const struct tbbt_sched_ops *ops, void *s) {
    uint64_t seq;
    int k = ops->next(s, &seq);
    return k == TBBT_SCHED_NONE ? -1 : k == TBBT_SCHED_SKIP ? -2 - (int64_t)seq : (int64_t)seq;
}

/* Table 3, sequence 2: create A at 0 (reply 1), write B at 2 (reply 3); the
 * replayed create takes 3. */
static void add_seq2(const struct tbbt_sched_ops *ops, void *s, tbbt_id b) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    mk(&r, TBBT_OP_CREATE, 0, 1);
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 1);
    tbbt_rec_set_str(&r, TBBT_F_NAME, "A", 1);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 10);
    ops->add(s, 0, &r);
    mk(&r, TBBT_OP_WRITE, 2, 3);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, b);
    ops->add(s, 1, &r);
    tbbt_rec_free(&r);
}

/* The conservative blocker: a reply whose arrival can let the next record
 * go (the engine sleeps through the others). Records 0 [0,2] and 1 [1,3]
 * overlap; 2 calls at 4, after both replies: the earlier, 0's, is named
 * first; with 1 done out of turn, still 0; with both done,
 * none (2 goes). */
static void test_conservative_blocker(void **st) {
    (void)st;
    const struct tbbt_sched_ops *c = &tbbt_sched_conservative;
    void *s = new_sched(c, 0, NULL);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    const int64_t t[3][2] = {{0, 2}, {1, 3}, {4, 6}};
    for (uint64_t i = 0; i < 3; i++) {
        mk(&r, TBBT_OP_GETATTR, t[i][0], t[i][1]);
        c->add(s, i, &r);
    }
    tbbt_rec_free(&r);
    uint64_t b = 99;
    assert_int_equal(nxt(c, s), 0);
    assert_int_equal(nxt(c, s), 1);
    assert_int_equal(nxt(c, s), -1);
    assert_true(c->blocker(s, &b));
    assert_int_equal(b, 0);
    c->done(s, 1, 1);
    assert_int_equal(nxt(c, s), -1);
    assert_true(c->blocker(s, &b));
    assert_int_equal(b, 0);
    c->done(s, 0, 1);
    assert_false(c->blocker(s, &b));
    assert_int_equal(nxt(c, s), 2);
    assert_false(c->blocker(s, &b)); /* nothing left to hold back */
    c->destroy(s);
}

static void test_table3(void **st) {
    (void)st;
    /* conservative: the write waits for the create's reply (sequence 3) */
    const struct tbbt_sched_ops *c = &tbbt_sched_conservative;
    void *s = new_sched(c, 0, NULL);
    add_seq2(c, s, 20);
    assert_int_equal(nxt(c, s), 0);
    c->sent(s, 0);
    assert_int_equal(nxt(c, s), -1);
    c->done(s, 0, 1);
    assert_int_equal(nxt(c, s), 1);
    c->destroy(s);
    /* fsdep: no shared object, the write goes at once (sequence 4) */
    const struct tbbt_sched_ops *f = &tbbt_sched_fsdep;
    s = new_sched(f, 0, NULL);
    add_seq2(f, s, 20);
    assert_int_equal(nxt(f, s), 0);
    f->sent(s, 0);
    assert_int_equal(nxt(f, s), 1);
    f->destroy(s);
    /* sequence 1 (write A): fsdep waits for the create's reply */
    s = new_sched(f, 0, NULL);
    add_seq2(f, s, 10);
    assert_int_equal(nxt(f, s), 0);
    f->sent(s, 0);
    assert_int_equal(nxt(f, s), -1);
    f->done(s, 0, 1);
    assert_int_equal(nxt(f, s), 1);
    f->destroy(s);
}

/* Conservative keeps the trace's overlap: three calls each sent before the
 * earlier replies came go out together; a later call waits for them. */
static void test_conservative_overlap(void **st) {
    (void)st;
    const struct tbbt_sched_ops *c = &tbbt_sched_conservative;
    void *s = new_sched(c, 0, NULL);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    for (int i = 0; i < 3; i++) {
        mk(&r, TBBT_OP_GETATTR, i, 10 + i);
        tbbt_rec_set_u64(&r, TBBT_F_OBJ, 5);
        c->add(s, (uint64_t)i, &r);
    }
    mk(&r, TBBT_OP_GETATTR, 20, 21);
    c->add(s, 3, &r);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(nxt(c, s), i);
        c->sent(s, (uint64_t)i);
    }
    assert_int_equal(nxt(c, s), -1); /* three outstanding, as in the trace */
    c->done(s, 1, 1);
    c->done(s, 0, 1);
    assert_int_equal(nxt(c, s), -1);
    c->done(s, 2, 1);
    assert_int_equal(nxt(c, s), 3);
    /* a call whose traced reply was lost holds nothing back (when it
     * showed no handle: below) */
    mk(&r, TBBT_OP_GETATTR, 30, 0);
    r.flags = TBBT_RF_REPLY_LOST, r.status = -1;
    c->sent(s, 3);
    c->done(s, 3, 1);
    c->add(s, 4, &r);
    mk(&r, TBBT_OP_GETATTR, 31, 32);
    c->add(s, 5, &r);
    assert_int_equal(nxt(c, s), 4);
    c->sent(s, 4);
    assert_int_equal(nxt(c, s), 5);
    c->sent(s, 5);
    c->done(s, 5, 1);
    /* a corrective record (pass 2) holds back the next one until its reply,
     * though its drawn reply time equals that record's call time */
    mk(&r, TBBT_OP_CREATE, 40, 40);
    r.flags = TBBT_RF_INSERTED;
    c->add(s, 6, &r);
    mk(&r, TBBT_OP_LOOKUP, 40, 41);
    c->add(s, 7, &r);
    assert_int_equal(nxt(c, s), 6);
    c->sent(s, 6);
    assert_int_equal(nxt(c, s), -1);
    c->done(s, 6, 1);
    assert_int_equal(nxt(c, s), 7);
    c->sent(s, 7);
    c->done(s, 7, 1);
    /* a lost reply that showed a handle (pass 3 gave the create its
     * object, which the trace uses next) holds back the next record */
    mk(&r, TBBT_OP_CREATE, 50, 0);
    r.flags = TBBT_RF_REPLY_LOST, r.status = 0;
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 9);
    c->add(s, 8, &r);
    mk(&r, TBBT_OP_GETATTR, 51, 52);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 9);
    c->add(s, 9, &r);
    assert_int_equal(nxt(c, s), 8);
    c->sent(s, 8);
    assert_int_equal(nxt(c, s), -1);
    c->done(s, 8, 1);
    assert_int_equal(nxt(c, s), 9);
    tbbt_rec_free(&r);
    c->destroy(s);
}

/* Sets r's (dir, name) argument; victim: the object it deletes (0: none). */
static void dirname(struct tbbt_rec *r, tbbt_id dir, const char *name, tbbt_id victim) {
    tbbt_rec_set_u64(r, TBBT_F_DIR, dir);
    tbbt_rec_set_str(r, TBBT_F_NAME, name, strlen(name));
    if (victim) tbbt_rec_set_u64(r, TBBT_F_VICTIM, victim);
}

/* Issue 21: the reply to a remove of a journal was lost; the lookup of
 * its name after it (traced NOENT) went before the remove was answered
 * and, on a server that runs pipelined requests at once, found the file.
 * The lost remove holds that lookup until its reply; a getattr of
 * another object and a lookup of the name in another directory go. */
static void test_conservative_lost_remove(void **st) {
    (void)st;
    const struct tbbt_sched_ops *c = &tbbt_sched_conservative;
    void *s = new_sched(c, 0, NULL);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    mk(&r, TBBT_OP_REMOVE, 0, 0);
    r.flags = TBBT_RF_REPLY_LOST, r.status = -1;
    dirname(&r, 1, "journal", 2);
    c->add(s, 0, &r);
    mk(&r, TBBT_OP_GETATTR, 1, 10);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 3);
    c->add(s, 1, &r);
    mk(&r, TBBT_OP_LOOKUP, 2, 10);
    dirname(&r, 4, "journal", 0);
    c->add(s, 2, &r);
    mk(&r, TBBT_OP_LOOKUP, 3, 4);
    r.status = 2; /* NOENT */
    dirname(&r, 1, "journal", 0);
    c->add(s, 3, &r);
    uint64_t b = 99;
    assert_int_equal(nxt(c, s), 0);
    c->sent(s, 0);
    assert_int_equal(nxt(c, s), 1); /* unrelated: not held */
    assert_int_equal(nxt(c, s), 2);
    assert_int_equal(nxt(c, s), -1); /* the lookup of the removed name waits */
    assert_true(c->blocker(s, &b));
    assert_int_equal(b, 0);
    c->done(s, 1, 1), c->done(s, 2, 1);
    assert_int_equal(nxt(c, s), -1);
    assert_true(c->blocker(s, &b));
    assert_int_equal(b, 0);
    c->done(s, 0, 1);
    assert_int_equal(nxt(c, s), 3);
    tbbt_rec_free(&r);
    c->destroy(s);
}

/* What a lost reply holds, beyond a remove: a rename's target pair (dir2,
 * name2); a read holds a later write of its object, not a later read. */
static void test_conservative_lost_touch(void **st) {
    (void)st;
    const struct tbbt_sched_ops *c = &tbbt_sched_conservative;
    void *s = new_sched(c, 0, NULL);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    mk(&r, TBBT_OP_RENAME, 0, 0); /* 1/"a" to 5/"b" */
    r.flags = TBBT_RF_REPLY_LOST, r.status = -1;
    dirname(&r, 1, "a", 6);
    tbbt_rec_set_u64(&r, TBBT_F_DIR2, 5);
    tbbt_rec_set_str(&r, TBBT_F_NAME2, "b", 1);
    c->add(s, 0, &r);
    mk(&r, TBBT_OP_LOOKUP, 1, 2);
    dirname(&r, 5, "b", 0);
    c->add(s, 1, &r);
    assert_int_equal(nxt(c, s), 0);
    assert_int_equal(nxt(c, s), -1);
    c->done(s, 0, 1);
    assert_int_equal(nxt(c, s), 1);
    c->done(s, 1, 1);
    mk(&r, TBBT_OP_GETATTR, 3, 0); /* a lost read of 7 */
    r.flags = TBBT_RF_REPLY_LOST, r.status = -1;
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 7);
    c->add(s, 2, &r);
    mk(&r, TBBT_OP_READ, 4, 20);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 7);
    c->add(s, 3, &r);
    mk(&r, TBBT_OP_SETATTR, 5, 6);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 7);
    c->add(s, 4, &r);
    assert_int_equal(nxt(c, s), 2);
    assert_int_equal(nxt(c, s), 3); /* reads share */
    assert_int_equal(nxt(c, s), -1);
    c->done(s, 3, 1);
    assert_int_equal(nxt(c, s), -1); /* the write waits for the lost read */
    c->done(s, 2, 1);
    assert_int_equal(nxt(c, s), 4);
    tbbt_rec_free(&r);
    c->destroy(s);
}

/* Issue 21: two records of different clients whose traced intervals
 * overlap were sent together, and the server ran them in either order: a
 * lookup traced OK overtook the create of its name and got NOENT. The
 * later-called one that conflicts with the outstanding one (the create
 * writes the directory and the pair (1, "f") the lookup reads) waits for
 * its reply; a record after it waits too (records go in trace order). */
static void test_conservative_conflict_overlap(void **st) {
    (void)st;
    const struct tbbt_sched_ops *c = &tbbt_sched_conservative;
    void *s = new_sched(c, 0, NULL);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    mk(&r, TBBT_OP_CREATE, 0, 10);
    dirname(&r, 1, "f", 0);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 2);
    c->add(s, 0, &r);
    mk(&r, TBBT_OP_LOOKUP, 1, 5);
    dirname(&r, 1, "f", 0);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 2);
    c->add(s, 1, &r);
    mk(&r, TBBT_OP_GETATTR, 2, 4);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 7);
    c->add(s, 2, &r);
    uint64_t b = 99;
    assert_int_equal(nxt(c, s), 0);
    c->sent(s, 0);
    assert_int_equal(nxt(c, s), -1); /* the lookup waits for the create's reply */
    assert_true(c->blocker(s, &b));
    assert_int_equal(b, 0);
    assert_int_equal(nxt(c, s), -1); /* asked again: still, by the same one */
    assert_true(c->blocker(s, &b));
    assert_int_equal(b, 0);
    c->done(s, 0, 1);
    assert_int_equal(nxt(c, s), 1);
    assert_int_equal(nxt(c, s), 2);
    tbbt_rec_free(&r);
    c->destroy(s);
}

/* What conflicts with an outstanding record waits; what shares nothing
 * with it, or only reads what it reads, goes at once (the trace's
 * concurrency is kept there): a write of 5 outstanding, a getattr of 6
 * and a create in directory 1 go; a read of 6 shares 6 with that getattr
 * and goes; a setattr of 5 waits for the write. */
static void test_conservative_share_overlap(void **st) {
    (void)st;
    const struct tbbt_sched_ops *c = &tbbt_sched_conservative;
    void *s = new_sched(c, 0, NULL);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    mk(&r, TBBT_OP_WRITE, 0, 10);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 5);
    c->add(s, 0, &r);
    mk(&r, TBBT_OP_GETATTR, 1, 10);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 6);
    c->add(s, 1, &r);
    mk(&r, TBBT_OP_CREATE, 2, 10);
    dirname(&r, 1, "g", 0);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 8);
    c->add(s, 2, &r);
    mk(&r, TBBT_OP_READ, 3, 10);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 6);
    c->add(s, 3, &r);
    mk(&r, TBBT_OP_SETATTR, 4, 10);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 5);
    c->add(s, 4, &r);
    uint64_t b = 99;
    for (int i = 0; i < 4; i++) {
        assert_int_equal(nxt(c, s), i);
        c->sent(s, (uint64_t)i);
    }
    assert_int_equal(nxt(c, s), -1);
    assert_true(c->blocker(s, &b));
    assert_int_equal(b, 0);
    c->done(s, 1, 1), c->done(s, 2, 1), c->done(s, 3, 1);
    assert_int_equal(nxt(c, s), -1);
    c->done(s, 0, 1);
    assert_int_equal(nxt(c, s), 4);
    tbbt_rec_free(&r);
    c->destroy(s);
}

/* Readers share: two lookups of one name and a readdir of its directory
 * go together. A later create of another name in it writes the
 * directory: it waits for all three, each named in turn. */
static void test_conservative_read_read(void **st) {
    (void)st;
    const struct tbbt_sched_ops *c = &tbbt_sched_conservative;
    void *s = new_sched(c, 0, NULL);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    for (int i = 0; i < 2; i++) {
        mk(&r, TBBT_OP_LOOKUP, i, 10);
        dirname(&r, 1, "f", 0);
        tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 2);
        c->add(s, (uint64_t)i, &r);
    }
    mk(&r, TBBT_OP_READDIR, 2, 10);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 1);
    c->add(s, 2, &r);
    mk(&r, TBBT_OP_CREATE, 3, 10);
    dirname(&r, 1, "h", 0);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 3);
    c->add(s, 3, &r);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(nxt(c, s), i);
        c->sent(s, (uint64_t)i);
    }
    uint64_t b = 99;
    for (uint64_t i = 0; i < 3; i++) {
        assert_int_equal(nxt(c, s), -1);
        assert_true(c->blocker(s, &b));
        c->done(s, b, 1);
    }
    assert_int_equal(nxt(c, s), 3);
    tbbt_rec_free(&r);
    c->destroy(s);
}

/* Random getattrs and setattrs of four objects, overlapping at random,
 * an eighth of their traced replies lost, replies in random order:
 * conservative never has two outstanding that
 * touch one object with one writing it, offers in trace order, and when
 * it offers nothing its blocker names an outstanding record. */
static void test_conservative_random_conflicts(void **st) {
    (void)st;
    const struct tbbt_sched_ops *c = &tbbt_sched_conservative;
    void *s = new_sched(c, 0, NULL);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    enum { N = 3000, W = 64 };
    static uint8_t obj[N], wr[N], out[N];
    uint64_t x = 12345, added = 0, next = 0, done = 0, live[W];
    unsigned nlive = 0;
    while (done < N) {
        uint64_t oldest = next; /* the window: from the oldest record not done */
        for (unsigned j = 0; j < nlive; j++)
            oldest = live[j] < oldest ? live[j] : oldest;
        while (added < N && added - oldest < W) {
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            obj[added] = (uint8_t)(1 + (x >> 60) % 4), wr[added] = (x >> 40) % 4 == 0;
            mk(&r, wr[added] ? TBBT_OP_SETATTR : TBBT_OP_GETATTR, (int64_t)added, (int64_t)added + 3);
            if ((x >> 20) % 8 == 0) r.flags = TBBT_RF_REPLY_LOST, r.status = -1;
            tbbt_rec_set_u64(&r, TBBT_F_OBJ, obj[added]);
            c->add(s, added++, &r);
        }
        int64_t k;
        while ((k = nxt(c, s)) >= 0) {
            assert_int_equal(k, next++);
            for (unsigned j = 0; j < nlive; j++)
                assert_false(obj[live[j]] == obj[k] && (wr[live[j]] || wr[k]));
            out[k] = 1, live[nlive++] = (uint64_t)k;
        }
        uint64_t b;
        if (next < added) {
            assert_true(c->blocker(s, &b));
            assert_true(out[b]);
        }
        assert_true(nlive > 0);
        x = x * 6364136223846793005ULL + 1442695040888963407ULL;
        unsigned j = (unsigned)((x >> 33) % nlive);
        out[live[j]] = 0;
        c->done(s, live[j], 1);
        live[j] = live[--nlive];
        done++;
    }
    assert_int_equal(next, N);
    tbbt_rec_free(&r);
    c->destroy(s);
}

/* fsdep: a remove whose traced reply was lost keeps its locks until
 * its reply even where locks go at the send (--deps send), so the lookup
 * of its name waits for it; one whose reply the trace saw releases them
 * at the send, as that mode has it. A getattr of another object goes.
 * In reply mode (the default) every lock lasts until the reply anyway. */
static void test_fsdep_lost_remove(void **st) {
    (void)st;
    const struct tbbt_sched_ops *f = &tbbt_sched_fsdep;
    for (int lost = 0; lost < 2; lost++) {
        void *s = new_sched(f, TBBT_SCHED_DEPS_SEND, NULL);
        struct tbbt_rec r;
        tbbt_rec_init(&r);
        mk(&r, TBBT_OP_REMOVE, 0, 1);
        if (lost) r.flags = TBBT_RF_REPLY_LOST, r.status = -1;
        dirname(&r, 1, "journal", 2);
        f->add(s, 0, &r);
        mk(&r, TBBT_OP_LOOKUP, 2, 3);
        r.status = 2; /* NOENT */
        dirname(&r, 1, "journal", 0);
        f->add(s, 1, &r);
        mk(&r, TBBT_OP_GETATTR, 4, 5);
        tbbt_rec_set_u64(&r, TBBT_F_OBJ, 3);
        f->add(s, 2, &r);
        assert_int_equal(nxt(f, s), 0);
        f->sent(s, 0);
        if (lost) {
            assert_int_equal(nxt(f, s), 2); /* unrelated: not held */
            assert_int_equal(nxt(f, s), -1);
            f->done(s, 0, 1);
            assert_int_equal(nxt(f, s), 1);
        } else {
            assert_int_equal(nxt(f, s), 1);
            assert_int_equal(nxt(f, s), 2);
        }
        tbbt_rec_free(&r);
        f->destroy(s);
    }
}

/* Issue 21, point 2: a lookup of "journal" whose traced reply was lost,
 * then a remove of that name. On a server that runs pipelined requests
 * at once, a remove sent before the lookup's reply may run first: the
 * lookup then finds no file, where the trace's client found one. So the
 * remove waits for the lookup's replay reply in either order and every
 * deps mode: a lost reply's read locks last until its reply, as its write
 * locks do (fsdep), and the two conflict on the directory and the name
 * (conservative). A getattr of another object goes. */
static void test_lost_lookup_holds_remove(void **st) {
    (void)st;
    static const struct {
        const struct tbbt_sched_ops *ops;
        int deps;
    } cases[] = {{&tbbt_sched_conservative, 0},
                 {&tbbt_sched_fsdep, TBBT_SCHED_DEPS_REPLY},
                 {&tbbt_sched_fsdep, TBBT_SCHED_DEPS_SEND},
                 {&tbbt_sched_fsdep, TBBT_SCHED_DEPS_STRICT}};
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        const struct tbbt_sched_ops *o = cases[k].ops;
        void *s = new_sched(o, cases[k].deps, NULL);
        struct tbbt_rec r;
        tbbt_rec_init(&r);
        mk(&r, TBBT_OP_LOOKUP, 0, 0);
        r.flags = TBBT_RF_REPLY_LOST, r.status = -1;
        dirname(&r, 1, "journal", 0);
        o->add(s, 0, &r);
        mk(&r, TBBT_OP_GETATTR, 1, 2);
        tbbt_rec_set_u64(&r, TBBT_F_OBJ, 3);
        o->add(s, 1, &r);
        mk(&r, TBBT_OP_REMOVE, 3, 4);
        dirname(&r, 1, "journal", 2);
        o->add(s, 2, &r);
        assert_int_equal(nxt(o, s), 0);
        o->sent(s, 0);
        assert_int_equal(nxt(o, s), 1); /* unrelated: not held */
        o->sent(s, 1);
        o->done(s, 1, 1);
        assert_int_equal(nxt(o, s), -1); /* the remove waits for the lookup's reply */
        o->done(s, 0, 1);
        assert_int_equal(nxt(o, s), 2);
        tbbt_rec_free(&r);
        o->destroy(s);
    }
}

/* Random getattrs and setattrs of four objects, an eighth of their
 * traced replies lost, sent and answered in random order, in fsdep's
 * every deps mode: a record is never offered while an earlier one whose
 * reply the trace lost, on its object, one of the two writing it, waits
 * for its replay reply (issue 21, point 2); in reply mode (the default)
 * no two such records are ever outstanding together, lost or not (no
 * race on a server that reorders). Every record goes. */
static void test_fsdep_random_lost(void **st) {
    (void)st;
    const struct tbbt_sched_ops *f = &tbbt_sched_fsdep;
    enum { N = 3000, W = 64 };
    static uint8_t obj[N], wr[N], lost[N], over[N];
    for (int deps = TBBT_SCHED_DEPS_REPLY; deps <= TBBT_SCHED_DEPS_STRICT; deps++) {
        void *s = new_sched(f, deps, NULL);
        struct tbbt_rec r;
        tbbt_rec_init(&r);
        memset(over, 0, sizeof(over));
        uint64_t x = 4242 + (uint64_t)deps, added = 0, oldest = 0, sent = 0, live[W];
        unsigned nlive = 0;
        while (oldest < N) {
            while (added < N && added - oldest < W) { /* the window: from the oldest not done */
                x = x * 6364136223846793005ULL + 1442695040888963407ULL;
                obj[added] = (uint8_t)(1 + (x >> 60) % 4), wr[added] = (x >> 40) % 4 == 0;
                lost[added] = (x >> 20) % 8 == 0;
                mk(&r, wr[added] ? TBBT_OP_SETATTR : TBBT_OP_GETATTR, (int64_t)added, (int64_t)added + 3);
                if (lost[added]) r.flags = TBBT_RF_REPLY_LOST, r.status = -1;
                tbbt_rec_set_u64(&r, TBBT_F_OBJ, obj[added]);
                f->add(s, added++, &r);
            }
            int64_t k;
            while ((k = nxt(f, s)) >= 0) {
                for (unsigned j = 0; j < nlive; j++) {
                    int clash = obj[live[j]] == obj[k] && (wr[live[j]] || wr[k]);
                    if (live[j] < (uint64_t)k && lost[live[j]]) assert_false(clash);
                    if (deps == TBBT_SCHED_DEPS_REPLY) assert_false(clash);
                }
                f->sent(s, (uint64_t)k);
                live[nlive++] = (uint64_t)k, sent++;
            }
            assert_true(nlive > 0); /* something is out, or the order is stuck */
            x = x * 6364136223846793005ULL + 1442695040888963407ULL;
            unsigned j = (unsigned)((x >> 33) % nlive);
            f->done(s, live[j], 1);
            over[live[j]] = 1;
            live[j] = live[--nlive];
            while (oldest < added && over[oldest])
                oldest++;
        }
        assert_int_equal(sent, N);
        tbbt_rec_free(&r);
        f->destroy(s);
    }
}

/* Adds op on object 7 as seq. */
static void on7(const struct tbbt_sched_ops *f, void *s, uint64_t seq, enum tbbt_op op) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    mk(&r, op, (int64_t)seq, (int64_t)seq + 1);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 7);
    f->add(s, seq, &r);
    tbbt_rec_free(&r);
}

/* One object's queue: W R R W R. Readers share, a writer waits for all
 * before it, a reader never passes an earlier writer. */
static void test_object_queue(void **st) {
    (void)st;
    const struct tbbt_sched_ops *f = &tbbt_sched_fsdep;
    void *s = new_sched(f, TBBT_SCHED_DEPS_SEND, NULL);
    enum tbbt_op ops[] = {TBBT_OP_WRITE, TBBT_OP_READ, TBBT_OP_READ, TBBT_OP_WRITE, TBBT_OP_READ};
    for (uint64_t i = 0; i < 5; i++)
        on7(f, s, i, ops[i]);
    assert_int_equal(nxt(f, s), 0);
    assert_int_equal(nxt(f, s), -1);
    f->sent(s, 0);
    assert_int_equal(nxt(f, s), 1);
    assert_int_equal(nxt(f, s), 2); /* both readers at once */
    assert_int_equal(nxt(f, s), -1);
    f->sent(s, 2);
    assert_int_equal(nxt(f, s), -1); /* the writer waits for reader 1 too */
    f->sent(s, 1);
    assert_int_equal(nxt(f, s), 3);
    assert_int_equal(nxt(f, s), -1); /* reader 4 never passes writer 3 */
    f->sent(s, 3);
    assert_int_equal(nxt(f, s), 4);
    f->destroy(s);
    /* strict: a write lock lasts until the reply */
    s = new_sched(f, TBBT_SCHED_DEPS_STRICT, NULL);
    on7(f, s, 0, TBBT_OP_WRITE);
    on7(f, s, 1, TBBT_OP_READ);
    assert_int_equal(nxt(f, s), 0);
    f->sent(s, 0);
    assert_int_equal(nxt(f, s), -1);
    f->done(s, 0, 1);
    assert_int_equal(nxt(f, s), 1);
    f->destroy(s);
    /* reply (the default): a server may run one connection's requests in any
     * order, so conflicting requests wait for replies, readers share */
    s = new_sched(f, TBBT_SCHED_DEPS_REPLY, NULL);
    for (uint64_t i = 0; i < 5; i++)
        on7(f, s, i, ops[i]);
    assert_int_equal(nxt(f, s), 0);
    f->sent(s, 0);
    assert_int_equal(nxt(f, s), -1); /* readers wait for the write's reply */
    f->done(s, 0, 1);
    assert_int_equal(nxt(f, s), 1);
    assert_int_equal(nxt(f, s), 2);
    f->sent(s, 1), f->sent(s, 2);
    f->done(s, 2, 1);
    assert_int_equal(nxt(f, s), -1); /* the write waits for both readers' replies */
    f->done(s, 1, 1);
    assert_int_equal(nxt(f, s), 3);
    f->sent(s, 3);
    assert_int_equal(nxt(f, s), -1);
    f->done(s, 3, 1);
    assert_int_equal(nxt(f, s), 4);
    f->destroy(s);
}

static int unknown10(void *ctx, tbbt_id id) {
    (void)ctx;
    return id != 10;
}

/* A lookup whose object's handle is not known yet: users of the object
 * wait for its reply; a known one does not hold them. */
static void test_revealed_handle(void **st) {
    (void)st;
    const struct tbbt_sched_ops *f = &tbbt_sched_fsdep;
    void *s = new_sched(f, 0, unknown10);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    for (uint64_t i = 0; i < 2; i++) {
        mk(&r, TBBT_OP_LOOKUP, (int64_t)i, (int64_t)i + 1);
        tbbt_rec_set_u64(&r, TBBT_F_DIR, 1);
        tbbt_rec_set_str(&r, TBBT_F_NAME, "x", 1);
        tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, i ? 11 : 10);
        f->add(s, 2 * i, &r);
        mk(&r, TBBT_OP_GETATTR, (int64_t)i + 1, (int64_t)i + 2);
        tbbt_rec_set_u64(&r, TBBT_F_OBJ, i ? 11 : 10);
        f->add(s, 2 * i + 1, &r);
    }
    assert_int_equal(nxt(f, s), 0);
    assert_int_equal(nxt(f, s), 2); /* its object (11) is known: no wait */
    f->sent(s, 0);
    f->sent(s, 2);
    assert_int_equal(nxt(f, s), 3);
    assert_int_equal(nxt(f, s), -1); /* getattr of 10 waits for the lookup's reply */
    f->done(s, 0, 1);
    assert_int_equal(nxt(f, s), 1);
    tbbt_rec_free(&r);
    f->destroy(s);
}

/* The handles the player has learned, for known(): the test adds one as
 * a reply would reveal it. */
static tbbt_id learned[8];
static unsigned nlearned;

static int known_learned(void *ctx, tbbt_id id) {
    (void)ctx;
    for (unsigned i = 0; i < nlearned; i++)
        if (learned[i] == id) return 1;
    return id < 10; /* the manifest's objects */
}

/* Adds a lookup of (dir 1, "f") showing obj, as seq. */
static void add_lookup(const struct tbbt_sched_ops *f, void *s, uint64_t seq, tbbt_id obj) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    mk(&r, TBBT_OP_LOOKUP, (int64_t)seq, (int64_t)seq + 1);
    dirname(&r, 1, "f", 0);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, obj);
    f->add(s, seq, &r);
    tbbt_rec_free(&r);
}

/* Issue 23: a lookup's lock on its object is decided when it is granted,
 * not when the record enters the window. create f (object 10), then
 * lookup f, getattr 10, lookup f, all in the window before the create
 * replied. The order kept: none of them goes before the create's reply.
 * The concurrency allowed: once that reply showed the handle, the three
 * go together (the lookups read); they used to take the write lock
 * until their reply, each holding the records after it. In both deps
 * modes that release locks at the reply and at the send. */
static void test_reveal_after_create(void **st) {
    (void)st;
    const struct tbbt_sched_ops *f = &tbbt_sched_fsdep;
    for (int deps = TBBT_SCHED_DEPS_REPLY; deps <= TBBT_SCHED_DEPS_SEND; deps++) {
        nlearned = 0;
        void *s = new_sched(f, deps, known_learned);
        struct tbbt_rec r;
        tbbt_rec_init(&r);
        mk(&r, TBBT_OP_CREATE, 0, 1);
        dirname(&r, 1, "f", 0);
        tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 10);
        f->add(s, 0, &r);
        add_lookup(f, s, 1, 10);
        mk(&r, TBBT_OP_GETATTR, 2, 3);
        tbbt_rec_set_u64(&r, TBBT_F_OBJ, 10);
        f->add(s, 2, &r);
        add_lookup(f, s, 3, 10);
        tbbt_rec_free(&r);
        assert_int_equal(nxt(f, s), 0);
        f->sent(s, 0);
        assert_int_equal(nxt(f, s), -1); /* the create's reply first */
        learned[nlearned++] = 10;        /* its reply showed the handle */
        f->done(s, 0, 1);
        assert_int_equal(nxt(f, s), 1);
        assert_int_equal(nxt(f, s), 2);
        assert_int_equal(nxt(f, s), 3);
        f->destroy(s);
    }
}

/* A lookup that reveals a handle nothing showed before (the create's
 * reply had none, or the object is not in the manifest) still takes the
 * write lock until its reply: the getattr after it waits for the handle.
 * The lookup after that one, granted once the handle is known, reads:
 * it goes beside the getattr. */
static void test_reveal_unknown(void **st) {
    (void)st;
    const struct tbbt_sched_ops *f = &tbbt_sched_fsdep;
    for (int deps = TBBT_SCHED_DEPS_REPLY; deps <= TBBT_SCHED_DEPS_STRICT; deps++) {
        nlearned = 0;
        void *s = new_sched(f, deps, known_learned);
        struct tbbt_rec r;
        tbbt_rec_init(&r);
        add_lookup(f, s, 0, 11);
        mk(&r, TBBT_OP_GETATTR, 1, 2);
        tbbt_rec_set_u64(&r, TBBT_F_OBJ, 11);
        f->add(s, 1, &r);
        add_lookup(f, s, 2, 11);
        tbbt_rec_free(&r);
        assert_int_equal(nxt(f, s), 0);
        f->sent(s, 0);
        assert_int_equal(nxt(f, s), -1); /* held until the reply, in every mode */
        learned[nlearned++] = 11;
        f->done(s, 0, 1);
        assert_int_equal(nxt(f, s), 1);
        assert_int_equal(nxt(f, s), 2);
        f->destroy(s);
    }
    /* a create whose reply showed no handle: the lookup after it reveals
     * it, and what uses the handle waits for the lookup */
    nlearned = 0;
    void *s = new_sched(f, TBBT_SCHED_DEPS_REPLY, known_learned);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    mk(&r, TBBT_OP_CREATE, 0, 1);
    dirname(&r, 1, "f", 0);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 12);
    f->add(s, 0, &r);
    add_lookup(f, s, 1, 12);
    mk(&r, TBBT_OP_WRITE, 2, 3);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 12);
    f->add(s, 2, &r);
    tbbt_rec_free(&r);
    assert_int_equal(nxt(f, s), 0);
    f->sent(s, 0);
    f->done(s, 0, 1); /* no handle learned */
    assert_int_equal(nxt(f, s), 1);
    f->sent(s, 1);
    assert_int_equal(nxt(f, s), -1);
    learned[nlearned++] = 12;
    f->done(s, 1, 1);
    assert_int_equal(nxt(f, s), 2);
    f->destroy(s);
}

/* A failed create: the records on its object are skipped, transitively;
 * others go on; a later record that makes the object anew is not, and
 * clears the failure. */
static void test_failure_skips(void **st) {
    (void)st;
    const struct tbbt_sched_ops *f = &tbbt_sched_fsdep;
    void *s = new_sched(f, 0, NULL);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    mk(&r, TBBT_OP_CREATE, 0, 1);
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 1);
    tbbt_rec_set_str(&r, TBBT_F_NAME, "A", 1);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 10);
    f->add(s, 0, &r);
    mk(&r, TBBT_OP_WRITE, 2, 3);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 10);
    f->add(s, 1, &r);
    mk(&r, TBBT_OP_LINK, 3, 4); /* writes 10 and directory 2 */
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 10);
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 2);
    tbbt_rec_set_str(&r, TBBT_F_NAME, "B", 1);
    f->add(s, 2, &r);
    mk(&r, TBBT_OP_GETATTR, 4, 5);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 2); /* the link's directory: not poisoned (not principal) */
    f->add(s, 3, &r);
    assert_int_equal(nxt(f, s), 0);
    f->sent(s, 0);
    f->done(s, 0, 0); /* the create failed */
    assert_int_equal(nxt(f, s), -2 - 1);
    f->done(s, 1, 0);
    assert_int_equal(nxt(f, s), -2 - 2);
    f->done(s, 2, 0);
    assert_int_equal(nxt(f, s), 3);
    f->sent(s, 3);
    f->done(s, 3, 1);
    /* a later mkdir makes object 10 anew (the server reused the handle):
     * it is no dependant of the failed create, and once it succeeded the
     * records on its directory go */
    mk(&r, TBBT_OP_MKDIR, 6, 7);
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 1);
    tbbt_rec_set_str(&r, TBBT_F_NAME, "D", 1);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 10);
    f->add(s, 4, &r);
    mk(&r, TBBT_OP_GETATTR, 8, 9);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 10);
    f->add(s, 5, &r);
    assert_int_equal(nxt(f, s), 4);
    f->sent(s, 4);
    assert_int_equal(nxt(f, s), -1); /* the getattr waits for the mkdir's reply */
    f->done(s, 4, 1);
    assert_int_equal(nxt(f, s), 5);
    tbbt_rec_free(&r);
    f->destroy(s);
}

/* A failed rename or link changed names, not the object they name: later
 * records on it go (a write by handle works whatever its name). The
 * object a failed rename would have replaced is still there, other than
 * the trace has it: the records on it are skipped. */
static void test_failure_names(void **st) {
    (void)st;
    const struct tbbt_sched_ops *f = &tbbt_sched_fsdep;
    void *s = new_sched(f, 0, NULL);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    mk(&r, TBBT_OP_RENAME, 0, 1); /* 10 over 11, in directory 1 */
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 1);
    tbbt_rec_set_u64(&r, TBBT_F_DIR2, 1);
    tbbt_rec_set_u64(&r, TBBT_F_VICTIM, 10);
    tbbt_rec_set_u64(&r, TBBT_F_VICTIM2, 11);
    f->add(s, 0, &r);
    mk(&r, TBBT_OP_WRITE, 2, 3);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 10);
    f->add(s, 1, &r);
    mk(&r, TBBT_OP_GETATTR, 4, 5);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 11);
    f->add(s, 2, &r);
    mk(&r, TBBT_OP_LINK, 6, 7); /* 10 into directory 2 */
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 10);
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 2);
    tbbt_rec_set_str(&r, TBBT_F_NAME, "B", 1);
    f->add(s, 3, &r);
    mk(&r, TBBT_OP_READ, 8, 9);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 10);
    f->add(s, 4, &r);
    assert_int_equal(nxt(f, s), 0);
    f->sent(s, 0);
    f->done(s, 0, 0); /* the rename failed */
    assert_int_equal(nxt(f, s), 1);
    assert_int_equal(nxt(f, s), -2 - 2); /* 11 was to be replaced */
    f->done(s, 2, 0);
    f->sent(s, 1);
    f->done(s, 1, 1);
    assert_int_equal(nxt(f, s), 3);
    f->sent(s, 3);
    f->done(s, 3, 0); /* the link failed too */
    assert_int_equal(nxt(f, s), 4);
    tbbt_rec_free(&r);
    f->destroy(s);
}

/* A mismatch between two errors changed nothing the trace's call did not:
 * no dependant of it is skipped. Success against an error either way, a
 * missing reply or a lost traced reply against an error, may have. */
static void test_diverged(void **st) {
    (void)st;
    assert_false(tbbt_sched_diverged(13, 2)); /* ACCES traced, NOENT replayed */
    assert_false(tbbt_sched_diverged(2, 70));
    assert_true(tbbt_sched_diverged(0, 13)); /* the trace's call changed something */
    assert_true(tbbt_sched_diverged(13, 0)); /* the replay's did */
    assert_true(tbbt_sched_diverged(0, -1)); /* no reply: unknown */
    assert_true(tbbt_sched_diverged(13, -1));
    assert_true(tbbt_sched_diverged(-1, 13)); /* lost in the trace: taken as success */
}

/* The lock table: which objects, read or write, until the reply or not. */
static void test_locks(void **st) {
    (void)st;
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    struct tbbt_lock l[TBBT_MAX_LOCKS];
    mk(&r, TBBT_OP_RENAME, 0, 1);
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 1);
    tbbt_rec_set_u64(&r, TBBT_F_DIR2, 1); /* same directory: one lock */
    tbbt_rec_set_u64(&r, TBBT_F_VICTIM, 5);
    tbbt_rec_set_u64(&r, TBBT_F_VICTIM2, 6);
    unsigned n = tbbt_sched_locks(&r, TBBT_SCHED_DEPS_SEND, l);
    assert_int_equal(n, 3);
    for (unsigned i = 0; i < n; i++)
        assert_true(l[i].write && !l[i].until_reply);
    assert_int_equal(tbbt_sched_locks(&r, TBBT_SCHED_DEPS_STRICT, l), 3);
    assert_true(l[0].until_reply);
    assert_int_equal(tbbt_sched_locks(&r, TBBT_SCHED_DEPS_REPLY, l), 3);
    for (unsigned i = 0; i < 3; i++)
        assert_true(l[i].until_reply);
    mk(&r, TBBT_OP_MKDIR, 0, 1);
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 1);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 9);
    n = tbbt_sched_locks(&r, TBBT_SCHED_DEPS_SEND, l);
    assert_int_equal(n, 2);
    assert_true(l[0].write && !l[0].until_reply && l[1].write && l[1].until_reply && l[1].principal);
    mk(&r, TBBT_OP_READDIRPLUS, 0, 1);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 4);
    n = tbbt_sched_locks(&r, TBBT_SCHED_DEPS_SEND, l);
    assert_int_equal(n, 1);
    assert_false(l[0].write);
    /* a lost reply: all its locks, read and write, last until the reply
     * in send mode too (issue 21: a remove after a lost lookup of its
     * name waits for the lookup's reply) */
    mk(&r, TBBT_OP_REMOVE, 0, 0);
    r.flags = TBBT_RF_REPLY_LOST, r.status = -1;
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 1);
    tbbt_rec_set_u64(&r, TBBT_F_VICTIM, 5);
    assert_int_equal(tbbt_sched_locks(&r, TBBT_SCHED_DEPS_SEND, l), 2);
    assert_true(l[0].write && l[0].until_reply && l[1].write && l[1].until_reply);
    mk(&r, TBBT_OP_LOOKUP, 0, 0);
    r.flags = TBBT_RF_REPLY_LOST, r.status = -1;
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 1);
    assert_int_equal(tbbt_sched_locks(&r, TBBT_SCHED_DEPS_SEND, l), 1);
    assert_true(!l[0].write && l[0].until_reply);
    /* an object named twice: one lock, the stronger; one the record also
     * names as its directory is not made anew by it */
    mk(&r, TBBT_OP_LOOKUP, 0, 1); /* "." */
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 4);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 4);
    assert_int_equal(tbbt_sched_locks(&r, TBBT_SCHED_DEPS_SEND, l), 1);
    assert_true(!l[0].write && l[0].reveal);
    mk(&r, TBBT_OP_MKDIR, 0, 1);
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 4);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 4);
    assert_int_equal(tbbt_sched_locks(&r, TBBT_SCHED_DEPS_SEND, l), 1);
    assert_true(l[0].write && l[0].until_reply && l[0].principal && !l[0].creates && !l[0].reveal);
    mk(&r, TBBT_OP_NULL, 0, 1);
    assert_int_equal(tbbt_sched_locks(&r, 0, l), 0);
    r.op = TBBT_OP_COUNT; /* out of range: no lock */
    assert_int_equal(tbbt_sched_locks(&r, 0, l), 0);
    tbbt_rec_free(&r);
}

/* Every procedure's locks in send mode, from one table written from the
 * paper's Table 4 (extended): which object fields are locked, which for
 * writing, which until the reply. Objects: obj 1, dir 2, dir2 3, newobj 4,
 * victim 5, victim2 6. */
static void test_lock_table_every_op(void **st) {
    (void)st;
    static const struct {
        enum tbbt_op op;
        const char *want; /* "id:w|r[:u][:p][:c][:v]" per lock, in order (u: until the reply, p: principal,
                             c: made anew, v: reveal, a write until the reply when the handle is unknown) */
    } t[] = {
        {TBBT_OP_NULL, ""},
        {TBBT_OP_GETATTR, "1:r"},
        {TBBT_OP_SETATTR, "1:w:p"},
        {TBBT_OP_ROOT, ""},
        {TBBT_OP_LOOKUP, "2:r 4:r:v"},
        {TBBT_OP_ACCESS, "1:r"},
        {TBBT_OP_READLINK, "1:r"},
        {TBBT_OP_READ, "1:r"},
        {TBBT_OP_WRITECACHE, ""},
        {TBBT_OP_WRITE, "1:w:p"},
        {TBBT_OP_CREATE, "2:w 4:w:u:p:c"},
        {TBBT_OP_MKDIR, "2:w 4:w:u:p:c"},
        {TBBT_OP_SYMLINK, "2:w 4:w:u:p:c"},
        {TBBT_OP_MKNOD, "2:w 4:w:u:p:c"},
        {TBBT_OP_REMOVE, "2:w 5:w:p"},
        {TBBT_OP_RMDIR, "2:w 5:w:p"},
        {TBBT_OP_RENAME, "2:w 3:w 5:w 6:w:p"},
        {TBBT_OP_LINK, "1:w 2:w"},
        {TBBT_OP_READDIR, "1:r"},
        {TBBT_OP_READDIRPLUS, "1:r"},
        {TBBT_OP_STATFS, "1:r"},
        {TBBT_OP_FSSTAT, "1:r"},
        {TBBT_OP_FSINFO, "1:r"},
        {TBBT_OP_PATHCONF, "1:r"},
        {TBBT_OP_COMMIT, "1:w:p"},
    };
    assert_int_equal(sizeof(t) / sizeof(t[0]), TBBT_OP_COUNT); /* every procedure */
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    for (size_t k = 0; k < sizeof(t) / sizeof(t[0]); k++) {
        mk(&r, t[k].op, 0, 1);
        tbbt_rec_set_u64(&r, TBBT_F_OBJ, 1);
        tbbt_rec_set_u64(&r, TBBT_F_DIR, 2);
        tbbt_rec_set_u64(&r, TBBT_F_DIR2, 3);
        tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 4);
        tbbt_rec_set_u64(&r, TBBT_F_VICTIM, 5);
        tbbt_rec_set_u64(&r, TBBT_F_VICTIM2, 6);
        struct tbbt_lock l[TBBT_MAX_LOCKS];
        unsigned n = tbbt_sched_locks(&r, TBBT_SCHED_DEPS_SEND, l);
        char got[128] = "";
        for (unsigned i = 0; i < n; i++)
            snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%llu:%c%s%s%s%s", i ? " " : "",
                     (unsigned long long)l[i].obj, l[i].write ? 'w' : 'r', l[i].until_reply ? ":u" : "",
                     l[i].principal ? ":p" : "", l[i].creates ? ":c" : "", l[i].reveal ? ":v" : "");
        if (strcmp(got, t[k].want))
            fail_msg("%s: got '%s', want '%s'", tbbt_op_info(t[k].op)->name, got, t[k].want);
        /* reply mode: the same objects, every lock until the reply */
        unsigned m = tbbt_sched_locks(&r, TBBT_SCHED_DEPS_REPLY, l);
        assert_int_equal(m, n);
        for (unsigned i = 0; i < m; i++)
            assert_true(l[i].until_reply);
    }
    tbbt_rec_free(&r);
}

/* The player's handle and object tables (engine.c fh_eq, order.c objq_eq)
 * take equal hashes for equal IDs without reading the item: that needs
 * tbbt_htab_mix to be a bijection of 64-bit words. Its inverse (the
 * xor-shifts undone, the odd multipliers' inverses mod 2^64) gives every
 * ID back. */
static uint64_t unmix(uint64_t h) {
    h ^= h >> 33;
    h *= 0x9cb4b2f8129337dbULL; /* 0xc4ceb9fe1a85ec53's inverse */
    h ^= h >> 33;
    h *= 0x4f74430c22a54005ULL; /* 0xff51afd7ed558ccd's inverse */
    return h ^ (h >> 33);
}

static void test_id_hash_bijective(void **st) {
    (void)st;
    assert_true(0xc4ceb9fe1a85ec53ULL * 0x9cb4b2f8129337dbULL == 1);
    assert_true(0xff51afd7ed558ccdULL * 0x4f74430c22a54005ULL == 1);
    uint64_t x = 0x243f6a8885a308d3ULL;
    for (uint64_t i = 0; i < 100000; i++) {
        tbbt_xorshift64(&x);
        assert_true(unmix(tbbt_htab_mix(i)) == i);
        assert_true(unmix(tbbt_htab_mix(x)) == x);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table3),
        cmocka_unit_test(test_conservative_blocker),
        cmocka_unit_test(test_conservative_overlap),
        cmocka_unit_test(test_conservative_lost_remove),
        cmocka_unit_test(test_conservative_lost_touch),
        cmocka_unit_test(test_conservative_conflict_overlap),
        cmocka_unit_test(test_conservative_share_overlap),
        cmocka_unit_test(test_conservative_read_read),
        cmocka_unit_test(test_conservative_random_conflicts),
        cmocka_unit_test(test_fsdep_lost_remove),
        cmocka_unit_test(test_lost_lookup_holds_remove),
        cmocka_unit_test(test_fsdep_random_lost),
        cmocka_unit_test(test_object_queue),
        cmocka_unit_test(test_revealed_handle),
        cmocka_unit_test(test_reveal_after_create),
        cmocka_unit_test(test_reveal_unknown),
        cmocka_unit_test(test_failure_skips),
        cmocka_unit_test(test_failure_names),
        cmocka_unit_test(test_diverged),
        cmocka_unit_test(test_locks),
        cmocka_unit_test(test_lock_table_every_op),
        cmocka_unit_test(test_id_hash_bijective),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
