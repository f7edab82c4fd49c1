/* test_fhmap.c -- handle to TBBT-ID identity and lifetime. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "fhmap.h"

static const uint8_t H1[] = {1, 2, 3, 4, 5, 6, 7, 8};
static const uint8_t H2[] = {9, 9, 9, 9, 1, 2, 3, 4, 5, 6, 7, 8};
static const uint8_t H3[] = {7, 7, 7, 7};

/* Attributes showing a type and no owner; showing a type and an owner. */
#define TYPE(t) (&(struct tbbt_fhmap_shown){(t), 0, 0, 0})
#define OWNED(t, uid, gid) (&(struct tbbt_fhmap_shown){(t), 1, (uid), (gid)})

/* The same handle always gets the same ID; another handle another ID. */
static void test_stable_ids(void **state) {
    (void)state;
    struct tbbt_fhmap *m = tbbt_fhmap_new();
    int fresh;
    tbbt_id a = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    assert_true(fresh);
    assert_int_not_equal(a, 0);
    assert_int_equal(tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh), a);
    assert_false(fresh);
    tbbt_id b = tbbt_fhmap_lookup(m, H2, sizeof(H2), &fresh);
    assert_int_not_equal(a, b);
    tbbt_fhmap_free(m);
}

/* Two handles with the same fsid and fileid are one object: a fresh handle
 * joins the known object and the alias is counted. */
static void test_alias_by_fileid(void **state) {
    (void)state;
    struct tbbt_fhmap *m = tbbt_fhmap_new();
    int fresh;
    tbbt_id a = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    assert_int_equal(tbbt_fhmap_identify(m, H1, sizeof(H1), a, fresh, 7, 42, TYPE(0)), a);
    tbbt_id b = tbbt_fhmap_lookup(m, H2, sizeof(H2), &fresh);
    assert_int_not_equal(b, a);
    assert_int_equal(tbbt_fhmap_identify(m, H2, sizeof(H2), b, fresh, 7, 42, TYPE(0)), a);
    assert_int_equal(tbbt_fhmap_lookup(m, H2, sizeof(H2), &fresh), a);
    assert_false(fresh);
    assert_int_equal(tbbt_fhmap_stats(m)->aliases, 1);
    /* same fileid on another file system is another object */
    tbbt_id c = tbbt_fhmap_lookup(m, H3, sizeof(H3), &fresh);
    assert_int_equal(tbbt_fhmap_identify(m, H3, sizeof(H3), c, fresh, 8, 42, TYPE(0)), c);
    tbbt_fhmap_free(m);
}

/* A fresh handle with a known identity but another type is not an alias:
 * the server reused the inode of an object whose removal the capture
 * lost (a file's, for a fifo). The old object is retired and the new
 * handle keeps its own ID and the identity; the same type still joins. */
static void test_type_tells_reuse(void **state) {
    (void)state;
    struct tbbt_fhmap *m = tbbt_fhmap_new();
    int fresh;
    tbbt_id a = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    assert_int_equal(tbbt_fhmap_identify(m, H1, sizeof(H1), a, fresh, 7, 42, TYPE(TBBT_FT_REG)), a);
    tbbt_fhmap_set_attr(m, a, TYPE(TBBT_FT_REG), 1);
    tbbt_id b = tbbt_fhmap_lookup(m, H2, sizeof(H2), &fresh);
    assert_int_equal(tbbt_fhmap_identify(m, H2, sizeof(H2), b, fresh, 7, 42, TYPE(TBBT_FT_FIFO)), b);
    assert_int_equal(tbbt_fhmap_by_fileid(m, 7, 42), b);
    assert_int_equal(tbbt_fhmap_stats(m)->aliases, 0);
    assert_int_equal(tbbt_fhmap_stats(m)->reborn, 1);
    tbbt_fhmap_set_attr(m, b, TYPE(TBBT_FT_FIFO), 1);
    tbbt_id c = tbbt_fhmap_lookup(m, H3, sizeof(H3), &fresh);
    assert_int_equal(tbbt_fhmap_identify(m, H3, sizeof(H3), c, fresh, 7, 42, TYPE(TBBT_FT_FIFO)), b);
    assert_int_equal(tbbt_fhmap_stats(m)->aliases, 1);
    tbbt_fhmap_free(m);
}

/* The type a listing's entry showed tells reuse as well: a file known only
 * from an entry (no reply described it, no set_attr) whose inode a
 * directory took later, its removal lost, is not that directory. */
static void test_entry_type_tells_reuse(void **state) {
    (void)state;
    struct tbbt_fhmap *m = tbbt_fhmap_new();
    int fresh;
    tbbt_id a = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    assert_int_equal(tbbt_fhmap_identify(m, H1, sizeof(H1), a, fresh, 7, 42, TYPE(TBBT_FT_REG)), a);
    tbbt_id b = tbbt_fhmap_lookup(m, H2, sizeof(H2), &fresh);
    assert_int_equal(tbbt_fhmap_identify(m, H2, sizeof(H2), b, fresh, 7, 42, TYPE(TBBT_FT_DIR)), b);
    assert_int_not_equal(a, b);
    assert_int_equal(tbbt_fhmap_by_fileid(m, 7, 42), b);
    assert_int_equal(tbbt_fhmap_type(m, b), TBBT_FT_DIR);
    assert_int_equal(tbbt_fhmap_stats(m)->reborn, 1);
    tbbt_fhmap_free(m);
}

/* Another owner tells reuse too: a fresh handle for a known identity
 * whose attributes show another uid or gid, with no SETATTR between, is a
 * file another user made in the inode of one whose removal the capture
 * lost. The same owner still joins; an object whose owner is not known
 * yet joins whatever owner is shown. */
static void test_owner_tells_reuse(void **state) {
    (void)state;
    struct tbbt_fhmap *m = tbbt_fhmap_new();
    int fresh;
    tbbt_id a = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    assert_int_equal(tbbt_fhmap_identify(m, H1, sizeof(H1), a, fresh, 7, 42, OWNED(TBBT_FT_REG, 1000, 1000)),
                     a);
    tbbt_fhmap_set_attr(m, a, OWNED(TBBT_FT_REG, 1000, 1000), 1);
    tbbt_id b = tbbt_fhmap_lookup(m, H2, sizeof(H2), &fresh);
    assert_int_equal(tbbt_fhmap_identify(m, H2, sizeof(H2), b, fresh, 7, 42, OWNED(TBBT_FT_REG, 1001, 1001)),
                     b);
    assert_int_equal(tbbt_fhmap_by_fileid(m, 7, 42), b);
    assert_int_equal(tbbt_fhmap_stats(m)->reborn, 1);
    assert_int_equal(tbbt_fhmap_stats(m)->aliases, 0);
    tbbt_fhmap_set_attr(m, b, OWNED(TBBT_FT_REG, 1001, 1001), 1);
    /* only the gid differs: still another file */
    tbbt_id c = tbbt_fhmap_lookup(m, H3, sizeof(H3), &fresh);
    assert_int_equal(tbbt_fhmap_identify(m, H3, sizeof(H3), c, fresh, 7, 42, OWNED(TBBT_FT_REG, 1001, 5)), c);
    assert_int_equal(tbbt_fhmap_stats(m)->reborn, 2);
    tbbt_fhmap_set_attr(m, c, OWNED(TBBT_FT_REG, 1001, 5), 1);
    /* the same owner through another handle is the same file */
    static const uint8_t H4[] = {4, 4, 4, 4, 4};
    tbbt_id d = tbbt_fhmap_lookup(m, H4, sizeof(H4), &fresh);
    assert_int_equal(tbbt_fhmap_identify(m, H4, sizeof(H4), d, fresh, 7, 42, OWNED(TBBT_FT_REG, 1001, 5)), c);
    assert_int_equal(tbbt_fhmap_stats(m)->aliases, 1);
    /* a chown seen through a known handle is the same file */
    tbbt_fhmap_set_attr(m, c, OWNED(TBBT_FT_REG, 0, 0), 1);
    assert_int_equal(tbbt_fhmap_identify(m, H3, sizeof(H3), c, 0, 7, 42, OWNED(TBBT_FT_REG, 0, 0)), c);
    /* an identity whose owner was never shown joins any owner */
    static const uint8_t H5[] = {5, 5, 5, 5, 5}, H6[] = {6, 6, 6, 6, 6, 6};
    tbbt_id e = tbbt_fhmap_lookup(m, H5, sizeof(H5), &fresh);
    tbbt_fhmap_identify(m, H5, sizeof(H5), e, fresh, 7, 43, TYPE(TBBT_FT_REG));
    tbbt_id f = tbbt_fhmap_lookup(m, H6, sizeof(H6), &fresh);
    assert_int_equal(tbbt_fhmap_identify(m, H6, sizeof(H6), f, fresh, 7, 43, OWNED(TBBT_FT_REG, 9, 9)), e);
    assert_int_equal(tbbt_fhmap_stats(m)->reborn, 2);
    tbbt_fhmap_free(m);
}

/* Removing the last name retires the object: a fileid the server reuses
 * afterwards, even under the same handle, is a new object. */
static void test_fileid_reuse_after_remove(void **state) {
    (void)state;
    struct tbbt_fhmap *m = tbbt_fhmap_new();
    int fresh;
    tbbt_id dir = tbbt_fhmap_lookup(m, H3, sizeof(H3), &fresh);
    tbbt_id a = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    tbbt_fhmap_identify(m, H1, sizeof(H1), a, fresh, 1, 100, TYPE(0));
    tbbt_fhmap_set_attr(m, a, TYPE(1), 1);
    tbbt_fhmap_bind(m, dir, "f", 1, a);
    assert_int_equal(tbbt_fhmap_resolve(m, dir, "f", 1), a);
    assert_int_equal(tbbt_fhmap_unlink(m, dir, "f", 1), a);
    assert_int_equal(tbbt_fhmap_resolve(m, dir, "f", 1), 0);
    tbbt_id b = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    assert_true(fresh);
    assert_int_not_equal(a, b);
    assert_int_equal(tbbt_fhmap_identify(m, H1, sizeof(H1), b, fresh, 1, 100, TYPE(0)), b);
    assert_int_equal(tbbt_fhmap_stats(m)->retired, 1);
    tbbt_fhmap_free(m);
}

/* A retired object's handles are remembered: a STALE use of one names the
 * dead object (pass 1 re-points the record there and forgets the object
 * the lookup made). A handle not retired, or pushed out of the ring, is
 * not dead. */
static void test_dead_handles(void **state) {
    (void)state;
    struct tbbt_fhmap *m = tbbt_fhmap_new();
    int fresh;
    tbbt_id dir = tbbt_fhmap_lookup(m, H3, sizeof(H3), &fresh);
    tbbt_id a = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    tbbt_fhmap_set_attr(m, a, TYPE(1), 1);
    tbbt_fhmap_bind(m, dir, "f", 1, a);
    assert_int_equal(tbbt_fhmap_dead(m, H1, sizeof(H1)), 0);
    tbbt_fhmap_unlink(m, dir, "f", 1);
    assert_int_equal(tbbt_fhmap_dead(m, H1, sizeof(H1)), a);
    assert_int_equal(tbbt_fhmap_dead(m, H2, sizeof(H2)), 0);
    tbbt_id b = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    assert_true(fresh);
    tbbt_fhmap_unborn(m, b);
    assert_int_equal(tbbt_fhmap_type(m, b), 0);
    tbbt_id c = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh); /* used again: fresh again */
    assert_true(fresh);
    assert_int_not_equal(c, b);
    assert_int_equal(tbbt_fhmap_dead(m, H1, sizeof(H1)), a);
    /* TBBT_FHMAP_GRAVES more retirements push it out */
    for (uint32_t i = 0; i < TBBT_FHMAP_GRAVES; i++) {
        uint8_t h[8];
        memcpy(h, &i, 4);
        memset(h + 4, 0xee, 4);
        tbbt_id x = tbbt_fhmap_lookup(m, h, sizeof(h), &fresh);
        tbbt_fhmap_set_attr(m, x, TYPE(1), 1);
        tbbt_fhmap_bind(m, dir, "x", 1, x);
        tbbt_fhmap_unlink(m, dir, "x", 1);
    }
    assert_int_equal(tbbt_fhmap_dead(m, H1, sizeof(H1)), 0);
    tbbt_fhmap_free(m);
}

/* A handle retired twice (the server reused it for a new file, which went
 * too) names the later object: a STALE use after both removals was a use
 * of the later one. Graves are kept under the hash with its low bit set,
 * so a handle whose hash is even is the case that once kept both graves
 * and named the older. */
static void test_dead_handle_retired_twice(void **state) {
    (void)state;
    struct tbbt_fhmap *m = tbbt_fhmap_new();
    int fresh;
    tbbt_id dir = tbbt_fhmap_lookup(m, H3, sizeof(H3), &fresh);
    uint8_t h[8] = {0};
    memset(h + 4, 0x5a, 4);
    for (uint32_t i = 0; tbbt_fhmap_hash(h, sizeof(h)) & 1; i++)
        memcpy(h, &i, 4);
    tbbt_id ids[2];
    for (int k = 0; k < 2; k++) {
        ids[k] = tbbt_fhmap_lookup(m, h, sizeof(h), &fresh);
        assert_true(fresh);
        tbbt_fhmap_set_attr(m, ids[k], TYPE(1), 1);
        tbbt_fhmap_bind(m, dir, "f", 1, ids[k]);
        tbbt_fhmap_unlink(m, dir, "f", 1);
        assert_int_equal(tbbt_fhmap_dead(m, h, sizeof(h)), ids[k]);
    }
    assert_int_not_equal(ids[0], ids[1]);
    tbbt_fhmap_free(m);
}

/* A file with two links survives the removal of one. */
static void test_hard_link_survives(void **state) {
    (void)state;
    struct tbbt_fhmap *m = tbbt_fhmap_new();
    int fresh;
    tbbt_id dir = tbbt_fhmap_lookup(m, H3, sizeof(H3), &fresh);
    tbbt_id a = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    tbbt_fhmap_set_attr(m, a, TYPE(1), 2);
    tbbt_fhmap_bind(m, dir, "x", 1, a);
    tbbt_fhmap_bind(m, dir, "y", 1, a);
    tbbt_fhmap_unlink(m, dir, "x", 1);
    assert_int_equal(tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh), a);
    assert_false(fresh);
    assert_int_equal(tbbt_fhmap_resolve(m, dir, "y", 1), a);
    tbbt_fhmap_free(m);
}

/* Rename moves the name and retires the object it replaced. */
static void test_rename_over(void **state) {
    (void)state;
    struct tbbt_fhmap *m = tbbt_fhmap_new();
    int fresh;
    tbbt_id dir = tbbt_fhmap_lookup(m, H3, sizeof(H3), &fresh);
    tbbt_id a = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    tbbt_id b = tbbt_fhmap_lookup(m, H2, sizeof(H2), &fresh);
    tbbt_fhmap_bind(m, dir, "a", 1, a);
    tbbt_fhmap_bind(m, dir, "b", 1, b);
    tbbt_fhmap_rename(m, dir, "a", 1, dir, "b", 1);
    assert_int_equal(tbbt_fhmap_resolve(m, dir, "b", 1), a);
    assert_int_equal(tbbt_fhmap_resolve(m, dir, "a", 1), 0);
    assert_int_not_equal(tbbt_fhmap_lookup(m, H2, sizeof(H2), &fresh), b);
    assert_true(fresh);
    assert_int_equal(tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh), a);
    tbbt_fhmap_free(m);
}

/* A create-type reply showing a new object under a live object's handle
 * or fileid (the inode was reused; the remove's reply, from another
 * client, comes later): the live object is retired, the new one gets a
 * new ID, and the late remove does not disturb it. */
static void test_born_retires_reused_inode(void **state) {
    (void)state;
    struct tbbt_fhmap *m = tbbt_fhmap_new();
    int fresh;
    tbbt_id dir = tbbt_fhmap_lookup(m, H3, sizeof(H3), &fresh);
    tbbt_id f2 = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    tbbt_fhmap_identify(m, H1, sizeof(H1), f2, fresh, 1, 500, TYPE(0));
    tbbt_fhmap_set_attr(m, f2, TYPE(1), 1);
    tbbt_fhmap_bind(m, dir, "f2", 2, f2);
    assert_true(tbbt_fhmap_named_elsewhere(m, f2, dir, "d18", 3));
    assert_false(tbbt_fhmap_named_elsewhere(m, f2, dir, "f2", 2));
    assert_int_equal(tbbt_fhmap_by_fileid(m, 1, 500), f2);
    /* same fileid under another handle: born, not an alias */
    tbbt_id h = tbbt_fhmap_lookup(m, H2, sizeof(H2), &fresh);
    assert_true(fresh);
    tbbt_id d18 = tbbt_fhmap_born(m, H2, sizeof(H2), h, fresh, 1, 1, 500);
    assert_int_not_equal(d18, f2);
    assert_int_equal(tbbt_fhmap_by_fileid(m, 1, 500), d18);
    assert_int_equal(tbbt_fhmap_lookup(m, H2, sizeof(H2), &fresh), d18);
    /* f2's handle no longer names a live object */
    tbbt_id again = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    assert_true(fresh);
    assert_int_not_equal(again, f2);
    /* the late remove of f2 leaves d18 alone */
    tbbt_fhmap_unlink(m, dir, "f2", 2);
    assert_int_equal(tbbt_fhmap_by_fileid(m, 1, 500), d18);
    assert_int_equal(tbbt_fhmap_stats(m)->reborn, 1);
    /* the same handle bytes reused: born retires the handle's object too */
    tbbt_id k = tbbt_fhmap_lookup(m, H2, sizeof(H2), &fresh);
    assert_false(fresh);
    tbbt_id newer = tbbt_fhmap_born(m, H2, sizeof(H2), k, fresh, 1, 1, 500);
    assert_int_not_equal(newer, d18);
    assert_int_equal(tbbt_fhmap_lookup(m, H2, sizeof(H2), &fresh), newer);
    tbbt_fhmap_free(m);
}

/* A create-type reply decoded after a later call that used its handle
 * (a gap in the reply's TCP stream held it back): the object the call
 * made for the handle is the one created, not a reused inode -- unless
 * the object was first shown before the reply was sent. */
static void test_born_after_held_back_reply(void **state) {
    (void)state;
    struct tbbt_fhmap *m = tbbt_fhmap_new();
    int fresh;
    tbbt_fhmap_set_clock(m, 200); /* the call that used the new handle */
    tbbt_id used = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    assert_true(fresh);
    tbbt_fhmap_set_clock(m, 100); /* the mkdir reply, sent before it */
    tbbt_id id = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    assert_false(fresh);
    assert_int_equal(tbbt_fhmap_born(m, H1, sizeof(H1), id, fresh, 1, 1, 700), used);
    assert_int_equal(tbbt_fhmap_stats(m)->reborn, 0);
    assert_int_equal(tbbt_fhmap_by_fileid(m, 1, 700), used);
    /* a later create reusing the inode still retires it */
    tbbt_fhmap_set_clock(m, 300);
    id = tbbt_fhmap_lookup(m, H1, sizeof(H1), &fresh);
    tbbt_id newer = tbbt_fhmap_born(m, H1, sizeof(H1), id, fresh, 1, 1, 700);
    assert_int_not_equal(newer, used);
    assert_int_equal(tbbt_fhmap_stats(m)->reborn, 1);
    tbbt_fhmap_free(m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stable_ids),
        cmocka_unit_test(test_alias_by_fileid),
        cmocka_unit_test(test_type_tells_reuse),
        cmocka_unit_test(test_entry_type_tells_reuse),
        cmocka_unit_test(test_owner_tells_reuse),
        cmocka_unit_test(test_fileid_reuse_after_remove),
        cmocka_unit_test(test_dead_handles),
        cmocka_unit_test(test_dead_handle_retired_twice),
        cmocka_unit_test(test_hard_link_survives),
        cmocka_unit_test(test_rename_over),
        cmocka_unit_test(test_born_retires_reused_inode),
        cmocka_unit_test(test_born_after_held_back_reply),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
