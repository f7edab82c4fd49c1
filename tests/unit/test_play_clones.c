/* test_play_clones.c -- tbbt-play --clones: TBBT-IDs namespaced by clone
 * (distinct across clones and ranges, 0 kept, too large refused, every ID
 * of a record rewritten), and the per-clone ordering: conservative order
 * holds within each clone and never waits on another clone's replies; fsdep
 * keeps clones' objects apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clones.h"

#define S 1000000000LL

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Every (clone, id) pair gets its own nonzero ID; 0 stays 0. */
static void test_ids_distinct(void **st) {
    (void)st;
    const tbbt_id ids[] = {1,
                           2,
                           (1ull << 40) - 1,
                           1ull << 48,
                           (1ull << 48) + 7,
                           (1ull << 48) + (1ull << 40) - 1,
                           1ull << 56,
                           (1ull << 56) + 5,
                           (1ull << 56) + (1ull << 40) - 1};
    const uint32_t clones[] = {0, 1, 2, 3, 1000, TBBT_CLONE_MAX - 1};
    enum { NI = sizeof(ids) / sizeof(ids[0]), NC = sizeof(clones) / sizeof(clones[0]) };
    uint64_t got[NI * NC];
    size_t n = 0;
    for (size_t c = 0; c < NC; c++) {
        tbbt_id z = 99;
        assert_int_equal(tbbt_clone_id(clones[c], 0, &z), 0);
        assert_true(z == 0);
        for (size_t i = 0; i < NI; i++) {
            assert_int_equal(tbbt_clone_id(clones[c], ids[i], &got[n]), 0);
            assert_true(got[n] != 0);
            n++;
        }
    }
    qsort(got, n, sizeof(got[0]), cmp_u64);
    for (size_t i = 1; i < n; i++)
        assert_true(got[i] != got[i - 1]);
}

/* IDs past what the namespace holds are refused, not folded onto others. */
static void test_ids_refused(void **st) {
    (void)st;
    tbbt_id out;
    assert_int_equal(tbbt_clone_id(1, 1ull << 40, &out), -1);
    assert_int_equal(tbbt_clone_id(1, (1ull << 48) + (1ull << 40), &out), -1);
    assert_int_equal(tbbt_clone_id(1, (1ull << 56) + (1ull << 40), &out), -1);
    assert_int_equal(tbbt_clone_id(1, 1ull << 57, &out), -1);
    assert_int_equal(tbbt_clone_id(TBBT_CLONE_MAX, 5, &out), -1);
}

/* Every ID field and listing entry is rewritten; absent ones stay 0. */
static void test_rec(void **st) {
    (void)st;
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    r.op = TBBT_OP_RENAME, r.vers = 3;
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 3);
    tbbt_rec_set_u64(&r, TBBT_F_DIR2, 4);
    tbbt_rec_set_u64(&r, TBBT_F_VICTIM, (1ull << 48) + 7);
    tbbt_rec_set_u64(&r, TBBT_F_VICTIM2, (1ull << 56) + 1);
    tbbt_rec_add_entry(&r, "a", 1)->id = 9;
    tbbt_rec_add_entry(&r, "b", 1)->id = 0;
    tbbt_id bad = 0, want;
    assert_int_equal(tbbt_clone_rec(&r, 2, &bad), 0);
    assert_int_equal(tbbt_clone_id(2, 3, &want), 0);
    assert_true(r.dir == want);
    assert_int_equal(tbbt_clone_id(2, 4, &want), 0);
    assert_true(r.dir2 == want);
    assert_int_equal(tbbt_clone_id(2, (1ull << 48) + 7, &want), 0);
    assert_true(r.victim == want);
    assert_int_equal(tbbt_clone_id(2, (1ull << 56) + 1, &want), 0);
    assert_true(r.victim2 == want);
    assert_int_equal(tbbt_clone_id(2, 9, &want), 0);
    assert_true(r.entries[0].id == want);
    assert_true(r.entries[1].id == 0 && r.obj == 0 && r.newobj == 0);
    /* the offending ID is said */
    tbbt_rec_clear(&r);
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 3);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 1ull << 57);
    assert_int_equal(tbbt_clone_rec(&r, 2, &bad), -1);
    assert_true(bad == 1ull << 57);
    tbbt_rec_free(&r);
}

/* next(): the seq offered, -1 for none. */
static int64_t nxt(const struct tbbt_sched_ops *ops, void *s) {
    uint64_t seq;
    int k = ops->next(s, &seq);
    assert_int_not_equal(k, TBBT_SCHED_SKIP);
    return k == TBBT_SCHED_NONE ? -1 : (int64_t)seq;
}

static void *per_clone(const struct tbbt_sched_ops *inner, uint32_t clones, uint32_t window) {
    struct tbbt_sched_opts o = {.window = window, .clones = clones, .per_clone = inner};
    return tbbt_sched_clones.create(&o);
}

/* Adds trace record (op on obj, [call, reply] s) for every clone,
 * interleaved as the engine does: seq k*N + i, IDs namespaced. */
static void add_all(void *s, uint32_t n, uint64_t k, enum tbbt_op op, tbbt_id obj, int64_t call,
                    int64_t reply) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    for (uint32_t i = 0; i < n; i++) {
        tbbt_rec_clear(&r);
        r.vers = 3, r.op = (uint8_t)op, r.status = 0;
        r.call_time = call * S, r.reply_time = reply * S;
        tbbt_rec_set_u64(&r, TBBT_F_OBJ, obj);
        tbbt_id bad;
        assert_int_equal(tbbt_clone_rec(&r, i, &bad), 0);
        tbbt_sched_clones.add(s, k * n + i, &r);
    }
    tbbt_rec_free(&r);
}

/* Conservative: record 1 (call 2) waits for record 0's reply (1) in its
 * own clone only. One instance for all clones would hold clone 0's record
 * 1 back until clone 1's record 0 replied too. */
static void test_conservative_no_cross_wait(void **st) {
    (void)st;
    const struct tbbt_sched_ops *c = &tbbt_sched_clones;
    void *s = per_clone(&tbbt_sched_conservative, 2, 64);
    add_all(s, 2, 0, TBBT_OP_GETATTR, 5, 0, 1);
    add_all(s, 2, 1, TBBT_OP_GETATTR, 6, 2, 3);
    int64_t a = nxt(c, s), b = nxt(c, s);
    assert_true((a == 0 && b == 1) || (a == 1 && b == 0));
    assert_int_equal(nxt(c, s), -1);
    c->sent(s, 0), c->sent(s, 1);
    c->done(s, 0, 1);                /* clone 0's record 0 replied, clone 1's did not */
    assert_int_equal(nxt(c, s), 2);  /* clone 0's record 1 goes */
    assert_int_equal(nxt(c, s), -1); /* clone 1's record 1 still waits */
    c->done(s, 1, 1);
    assert_int_equal(nxt(c, s), 3);
    c->destroy(s);
}

/* fsdep on namespaced IDs: clone 1's write of object 5 does not wait for
 * clone 0's write of object 5; each clone's second write waits for its own
 * first. */
static void test_fsdep_clones_apart(void **st) {
    (void)st;
    const struct tbbt_sched_ops *c = &tbbt_sched_clones;
    void *s = per_clone(&tbbt_sched_fsdep, 2, 64);
    add_all(s, 2, 0, TBBT_OP_WRITE, 5, 0, 1);
    add_all(s, 2, 1, TBBT_OP_WRITE, 5, 2, 3);
    int64_t a = nxt(c, s), b = nxt(c, s);
    assert_true((a == 0 && b == 1) || (a == 1 && b == 0));
    c->sent(s, 0), c->sent(s, 1);
    assert_int_equal(nxt(c, s), -1);
    c->done(s, 1, 1);
    assert_int_equal(nxt(c, s), 3);
    assert_int_equal(nxt(c, s), -1);
    c->done(s, 0, 1);
    assert_int_equal(nxt(c, s), 2);
    c->destroy(s);
}

/* A replay of M records in N clones with replies in a random order: in
 * every clone, records are offered in trace order, each only once every
 * record of its clone whose traced reply came before its call is done
 * (the conservative rule), and whenever nothing is offered, each clone's
 * next record is held back by a record of its own clone. */
static void test_conservative_per_clone_random(void **st) {
    (void)st;
    enum { N = 3, M = 300 };
    int64_t call[M], reply[M];
    srand(7);
    int64_t t = 0;
    for (int k = 0; k < M; k++) {
        t += rand() % 3;
        call[k] = t, reply[k] = t + 1 + rand() % 6;
    }
    const struct tbbt_sched_ops *c = &tbbt_sched_clones;
    void *s = per_clone(&tbbt_sched_conservative, N, N * M);
    for (int k = 0; k < M; k++)
        add_all(s, N, (uint64_t)k, TBBT_OP_GETATTR, 5, call[k], reply[k]);
    int next_k[N] = {0}, done[N][M], out[N * M], nout = 0, total = 0;
    memset(done, 0, sizeof(done));
    while (total < N * M) {
        int64_t q;
        while ((q = nxt(c, s)) >= 0) {
            int i = (int)(q % N), k = (int)(q / N);
            assert_int_equal(k, next_k[i]); /* trace order within the clone */
            for (int j = 0; j < k; j++)     /* the conservative rule, own clone */
                if (reply[j] < call[k]) assert_true(done[i][j]);
            next_k[i]++;
            c->sent(s, (uint64_t)q);
            out[nout++] = (int)q;
        }
        for (int i = 0; i < N; i++) { /* a wait is the clone's own */
            int k = next_k[i], held = 0;
            if (k == M) continue;
            for (int j = 0; j < k; j++)
                held |= !done[i][j] && reply[j] < call[k];
            assert_true(held);
        }
        assert_true(nout > 0);
        int pick = rand() % nout, o = out[pick];
        out[pick] = out[--nout];
        done[o % N][o / N] = 1;
        c->done(s, (uint64_t)o, 1);
        total++;
    }
    for (int i = 0; i < N; i++)
        assert_int_equal(next_k[i], M);
    c->destroy(s);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids_distinct),
        cmocka_unit_test(test_ids_refused),
        cmocka_unit_test(test_rec),
        cmocka_unit_test(test_conservative_no_cross_wait),
        cmocka_unit_test(test_fsdep_clones_apart),
        cmocka_unit_test(test_conservative_per_clone_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
