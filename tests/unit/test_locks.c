/* test_locks.c -- lib/locks.h on its own, without the player: a record's
 * locks from the Table 4 rules (which objects, read or write, merged when
 * named twice; held until the reply only where the reply itself writes),
 * and the table printed one row per procedure. How long the player holds
 * them per --deps mode is test_play_sched.c's (player/deps.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "locks.h"
#include "nfs_ops.h"

static void mk(struct tbbt_rec *r, enum tbbt_op op) {
    tbbt_rec_clear(r);
    r->vers = 3, r->op = (uint8_t)op, r->status = 0;
}

/* A record's locks: the rules' objects, merged; the reply's lock alone
 * until the reply; a lost reply changes nothing here (the player's). */
static void test_locks_of(void **st) {
    (void)st;
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    struct tbbt_lock l[TBBT_MAX_LOCKS];
    mk(&r, TBBT_OP_MKDIR);
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 1);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 9);
    assert_int_equal(tbbt_locks_of(&r, l), 2);
    assert_true(l[0].obj == 1 && l[0].write && !l[0].until_reply && !l[0].creates);
    assert_true(l[1].obj == 9 && l[1].write && l[1].until_reply && l[1].creates && l[1].principal);
    mk(&r, TBBT_OP_RENAME);
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 1);
    tbbt_rec_set_u64(&r, TBBT_F_DIR2, 1); /* same directory: one lock */
    tbbt_rec_set_u64(&r, TBBT_F_VICTIM, 5);
    tbbt_rec_set_u64(&r, TBBT_F_VICTIM2, 6);
    r.flags = TBBT_RF_REPLY_LOST, r.status = -1;
    assert_int_equal(tbbt_locks_of(&r, l), 3);
    for (unsigned i = 0; i < 3; i++)
        assert_true(l[i].write && !l[i].until_reply);
    assert_true(!l[1].principal && l[2].principal); /* the renamed object keeps its contents */
    mk(&r, TBBT_OP_LOOKUP);
    tbbt_rec_set_u64(&r, TBBT_F_DIR, 2);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 3);
    assert_int_equal(tbbt_locks_of(&r, l), 2);
    assert_true(!l[0].write && !l[0].reveal && !l[1].write && l[1].reveal && !l[1].until_reply);
    mk(&r, TBBT_OP_NULL);
    assert_int_equal(tbbt_locks_of(&r, l), 0);
    tbbt_rec_free(&r);
}

/* The printed table has one row per procedure, a lookup's newobj marked (1). */
static void test_locks_print(void **st) {
    (void)st;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    tbbt_locks_print(f);
    fclose(f);
    unsigned rows = buf[0] == '|';
    for (const char *p = buf; (p = strstr(p, "\n|")); p++)
        rows++;
    assert_int_equal(rows, 2 + TBBT_OP_COUNT); /* the header and its rule, then the procedures */
    assert_non_null(strstr(buf, "| lookup | dir, newobj (1) | - | newobj (1) | - |"));
    free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_locks_of),
        cmocka_unit_test(test_locks_print),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
