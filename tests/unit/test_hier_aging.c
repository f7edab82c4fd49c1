/* test_hier_aging.c -- the schedule of interleaved appends: every byte of
 * every file written once and in order, the scope bounding the files in
 * progress, no interleaving at scope 1, the appends per file, and the
 * same schedule for the same inputs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <glib.h>

#include "aging.h"

#define NF 200

/* Sizes from 0 to ~1 MiB, seeded, some not whole blocks. */
static void sizes_of(uint64_t *sz) {
    uint64_t s = 7;
    for (int i = 0; i < NF; i++) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        sz[i] = (s >> 33) % (1u << 20);
        if (i % 17 == 0) sz[i] = 0;
    }
}

/* Runs a schedule; checks coverage, order and the scope; returns the
 * steps (g_array of struct tbbt_age_step). */
static GArray *run(uint64_t scope, uint32_t appends, uint64_t seed, const uint64_t *sz) {
    struct tbbt_age_opts o = {scope, appends, seed};
    struct tbbt_aging *a = tbbt_aging_new(&o, sz, NF);
    GArray *steps = g_array_new(FALSE, FALSE, sizeof(struct tbbt_age_step));
    uint64_t done[NF] = {0}, inprog_blocks = 0;
    int started[NF] = {0}, finished[NF] = {0}, nsteps[NF] = {0};
    struct tbbt_age_step s;
    while (tbbt_aging_next(a, &s) == 1) {
        assert_true(s.file < NF);
        assert_false(finished[s.file]);
        assert_int_equal(s.offset, done[s.file]); /* in order, no gap, no overlap */
        assert_true(s.len > 0);
        if (!started[s.file]) {
            started[s.file] = 1;
            inprog_blocks += (sz[s.file] + 4095) / 4096;
        }
        /* the files in progress fit the scope, unless one alone is larger */
        int alone = inprog_blocks == (sz[s.file] + 4095) / 4096;
        assert_true(inprog_blocks <= scope || alone);
        done[s.file] += s.len;
        nsteps[s.file]++;
        if (s.last) {
            finished[s.file] = 1;
            inprog_blocks -= (sz[s.file] + 4095) / 4096;
        }
        g_array_append_val(steps, s);
    }
    for (int i = 0; i < NF; i++) {
        assert_int_equal(done[i], sz[i]); /* every byte written once */
        assert_int_equal(finished[i], sz[i] > 0);
        uint64_t blocks = (sz[i] + 4095) / 4096, want = blocks < appends ? blocks : appends;
        /* its appends, or one when it started alone */
        assert_true(!sz[i] || (uint64_t)nsteps[i] == want || nsteps[i] == 1);
        if (scope == 1 && sz[i]) assert_int_equal(nsteps[i], 1);                           /* always alone */
        if (scope >= (1u << 20) && sz[i] && i + 1 < NF) assert_int_equal(nsteps[i], want); /* never */
    }
    tbbt_aging_free(a);
    return steps;
}

/* Coverage and scope at several scopes; appends per file as asked. */
static void test_cover_and_scope(void **st) {
    (void)st;
    uint64_t sz[NF];
    sizes_of(sz);
    uint64_t scopes[] = {1, 64, 1024, 8192, 1u << 20};
    for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++)
        for (uint32_t ap = 1; ap <= 16; ap *= 4)
            g_array_free(run(scopes[i], ap, 1, sz), TRUE);
}

/* Scope 1: one file at a time, in the order given. Wider scopes interleave. */
static void test_no_interleave_at_scope_1(void **st) {
    (void)st;
    uint64_t sz[NF];
    sizes_of(sz);
    GArray *s = run(1, 8, 3, sz);
    for (guint i = 1; i < s->len; i++) {
        const struct tbbt_age_step *p = &g_array_index(s, struct tbbt_age_step, i - 1);
        const struct tbbt_age_step *c = &g_array_index(s, struct tbbt_age_step, i);
        assert_true(c->file == p->file ? !p->last : p->last && c->file > p->file);
    }
    g_array_free(s, TRUE);
    s = run(8192, 8, 3, sz);
    guint switches = 0;
    for (guint i = 1; i < s->len; i++)
        switches += g_array_index(s, struct tbbt_age_step, i).file !=
                        g_array_index(s, struct tbbt_age_step, i - 1).file &&
                    !g_array_index(s, struct tbbt_age_step, i - 1).last;
    assert_true(switches > s->len / 2); /* a wide scope interleaves most appends */
    g_array_free(s, TRUE);
}

/* The same inputs give the same schedule; another seed another one; a
 * file's cuts do not depend on the other files. */
static void test_deterministic(void **st) {
    (void)st;
    uint64_t sz[NF];
    sizes_of(sz);
    GArray *a = run(512, 4, 9, sz), *b = run(512, 4, 9, sz), *c = run(512, 4, 10, sz);
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->data, b->data, a->len * sizeof(struct tbbt_age_step));
    assert_true(a->len != c->len || memcmp(a->data, c->data, a->len * sizeof(struct tbbt_age_step)) != 0);
    struct tbbt_age_opts o = {512, 4, 9};
    uint64_t l1[4], l2[4];
    uint32_t n1 = tbbt_aging_cuts(&o, 5, sz[5], l1);
    /* file 5's appends in the full schedule are exactly its cuts */
    uint32_t k = 0;
    for (guint i = 0; i < a->len; i++) {
        const struct tbbt_age_step *s = &g_array_index(a, struct tbbt_age_step, i);
        if (s->file == 5) l2[k++] = s->len;
    }
    assert_int_equal(k, n1);
    assert_memory_equal(l1, l2, n1 * sizeof(uint64_t));
    g_array_free(a, TRUE), g_array_free(b, TRUE), g_array_free(c, TRUE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cover_and_scope),
        cmocka_unit_test(test_no_interleave_at_scope_1),
        cmocka_unit_test(test_deterministic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
