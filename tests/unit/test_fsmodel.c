/* test_fsmodel.c -- the file-system model: three-state names, initial
 * state learnt from the trace, every change applied as the server makes
 * it, predictions, and the iteration pass 3 relies on. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "fsmodel.h"

#define ROOT 1

/* Fills r as a successful call of op on (dir, name). */
static void rec(struct tbbt_rec *r, enum tbbt_op op, tbbt_id dir, const char *name) {
    tbbt_rec_clear(r);
    r->vers = 3;
    r->op = (uint8_t)op;
    r->status = 0;
    if (dir) tbbt_rec_set_u64(r, TBBT_F_DIR, dir);
    if (name) tbbt_rec_set_str(r, TBBT_F_NAME, name, strlen(name));
}

/* Sets the reply attributes of r's principal object. */
static void attrs(struct tbbt_rec *r, uint32_t type, uint64_t size, uint32_t nlink) {
    tbbt_rec_set_u64(r, TBBT_F_TYPE, type);
    tbbt_rec_set_u64(r, TBBT_F_MODE, 0644);
    tbbt_rec_set_u64(r, TBBT_F_UID, 1000);
    tbbt_rec_set_u64(r, TBBT_F_GID, 100);
    tbbt_rec_set_u64(r, TBBT_F_SIZE, size);
    tbbt_rec_set_u64(r, TBBT_F_NLINK, nlink);
}

/* Applies a create of (dir, name) as newobj. */
static void create(struct tbbt_fsmodel *m, struct tbbt_rec *r, tbbt_id dir, const char *name,
                   tbbt_id newobj) {
    rec(r, TBBT_OP_CREATE, dir, name);
    tbbt_rec_set_u64(r, TBBT_F_NEWOBJ, newobj);
    attrs(r, TBBT_FT_REG, 0, 1);
    assert_int_equal(tbbt_fsmodel_predict(m, r),
                     tbbt_fsmodel_name(m, dir, name, strlen(name), NULL) == TBBT_NAME_UNKNOWN
                         ? TBBT_PREDICT_ANY
                         : TBBT_NFS_OK);
    tbbt_fsmodel_apply(m, r, 0);
}

/* State of (dir, name). */
static enum tbbt_name_state st(struct tbbt_fsmodel *m, tbbt_id dir, const char *name, tbbt_id *obj) {
    return tbbt_fsmodel_name(m, dir, name, strlen(name), obj);
}

/* Names start unknown; a successful lookup teaches that the name existed
 * before the trace (initial, with its object and attributes), a failed
 * one that it did not; neither is a change. */
static void test_three_states(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    assert_int_equal(st(m, ROOT, "a", NULL), TBBT_NAME_UNKNOWN);
    rec(&r, TBBT_OP_LOOKUP, ROOT, "a");
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_PREDICT_ANY);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 10);
    attrs(&r, TBBT_FT_REG, 4096, 1);
    tbbt_fsmodel_apply(m, &r, 0);
    tbbt_id o;
    assert_int_equal(st(m, ROOT, "a", &o), TBBT_NAME_PRESENT);
    assert_int_equal(o, 10);
    const struct tbbt_fsobj *ob = tbbt_fsmodel_obj(m, 10);
    assert_non_null(ob);
    assert_true(ob->flags & TBBT_FSO_INITIAL);
    assert_false(ob->flags & TBBT_FSO_CREATED);
    assert_true(ob->flags & TBBT_FSO_INIT_ATTRS);
    assert_int_equal(ob->init.size, 4096);
    assert_int_equal(ob->init.type, TBBT_FT_REG);
    const struct tbbt_fsdent *d = tbbt_fsmodel_dent(m, ROOT, "a", 1);
    assert_int_equal(d->init, TBBT_NAME_PRESENT);
    assert_int_equal(d->init_obj, 10);
    /* the directory the lookup used existed too */
    assert_true(tbbt_fsmodel_obj(m, ROOT)->flags & TBBT_FSO_INITIAL);

    rec(&r, TBBT_OP_LOOKUP, ROOT, "b");
    tbbt_fsmodel_apply(m, &r, TBBT_NFSERR_NOENT);
    assert_int_equal(st(m, ROOT, "b", NULL), TBBT_NAME_ABSENT);
    assert_int_equal(tbbt_fsmodel_dent(m, ROOT, "b", 1)->init, TBBT_NAME_ABSENT);
    /* now the model knows both: lookups are predicted */
    rec(&r, TBBT_OP_LOOKUP, ROOT, "a");
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFS_OK);
    rec(&r, TBBT_OP_LOOKUP, ROOT, "b");
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFSERR_NOENT);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* create, then remove: the name goes absent, the object is gone (a
 * replay on its handle gets STALE), and the name's initial state stays
 * unknown (the trace made it). A second remove is predicted NOENT, a
 * guarded create on a present name EXIST. */
static void test_create_remove(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    rec(&r, TBBT_OP_LOOKUP, ROOT, "f");
    tbbt_fsmodel_apply(m, &r, TBBT_NFSERR_NOENT);
    create(m, &r, ROOT, "f", 20);
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(m, 20);
    assert_true(o->flags & TBBT_FSO_CREATED);
    assert_false(o->flags & TBBT_FSO_INITIAL);
    rec(&r, TBBT_OP_CREATE, ROOT, "f");
    tbbt_rec_set_u64(&r, TBBT_F_CREATEHOW, 1);
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFSERR_EXIST);
    rec(&r, TBBT_OP_REMOVE, ROOT, "f");
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFS_OK);
    tbbt_fsmodel_apply(m, &r, 0);
    assert_int_equal(st(m, ROOT, "f", NULL), TBBT_NAME_ABSENT);
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFSERR_NOENT);
    assert_true(tbbt_fsmodel_obj(m, 20)->flags & TBBT_FSO_GONE);
    rec(&r, TBBT_OP_GETATTR, 0, NULL);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 20);
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFSERR_STALE);
    assert_int_equal(tbbt_fsmodel_dent(m, ROOT, "f", 1)->init, TBBT_NAME_ABSENT);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* A remove of an unknown name teaches that it existed before the trace. */
static void test_remove_unknown_teaches(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    rec(&r, TBBT_OP_REMOVE, ROOT, "old");
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_PREDICT_ANY);
    tbbt_fsmodel_apply(m, &r, 0);
    const struct tbbt_fsdent *d = tbbt_fsmodel_dent(m, ROOT, "old", 3);
    assert_int_equal(d->state, TBBT_NAME_ABSENT);
    assert_int_equal(d->init, TBBT_NAME_PRESENT);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* Hard links: link adds a name and a link; removing one name keeps the
 * object, removing the last makes it gone. */
static void test_link_counts(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    rec(&r, TBBT_OP_LOOKUP, ROOT, "a");
    tbbt_fsmodel_apply(m, &r, TBBT_NFSERR_NOENT);
    create(m, &r, ROOT, "a", 30);
    rec(&r, TBBT_OP_LINK, ROOT, "b");
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 30);
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_PREDICT_ANY); /* b unknown */
    attrs(&r, TBBT_FT_REG, 0, 2);
    tbbt_fsmodel_apply(m, &r, 0);
    tbbt_id o;
    assert_int_equal(st(m, ROOT, "b", &o), TBBT_NAME_PRESENT);
    assert_int_equal(o, 30);
    assert_int_equal(tbbt_fsmodel_obj(m, 30)->attr.nlink, 2);
    rec(&r, TBBT_OP_REMOVE, ROOT, "a");
    tbbt_fsmodel_apply(m, &r, 0);
    assert_false(tbbt_fsmodel_obj(m, 30)->flags & TBBT_FSO_GONE);
    assert_int_equal(tbbt_fsmodel_obj(m, 30)->attr.nlink, 1);
    rec(&r, TBBT_OP_REMOVE, ROOT, "b");
    tbbt_fsmodel_apply(m, &r, 0);
    assert_true(tbbt_fsmodel_obj(m, 30)->flags & TBBT_FSO_GONE);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* A link that failed (denied) still shows its object's attributes: the
 * model learns them, and an object no record named before is one of the
 * initial image (pass 3 places it, so a replay has its handle). */
static void test_failed_link_shows_object(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    rec(&r, TBBT_OP_LINK, ROOT, "b");
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 40);
    attrs(&r, TBBT_FT_REG, 7, 1);
    tbbt_fsmodel_apply(m, &r, TBBT_NFSERR_ACCES);
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(m, 40);
    assert_non_null(o);
    assert_true(o->flags & TBBT_FSO_ATTRS);
    assert_true(o->flags & TBBT_FSO_INITIAL);
    assert_int_equal(o->attr.size, 7);
    assert_int_equal(o->attr.uid, 1000);
    assert_int_not_equal(st(m, ROOT, "b", NULL), TBBT_NAME_PRESENT);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* rename over an existing target: the source name goes, the target names
 * the moved object, the replaced object is gone; a directory's entries
 * move with it (they are keyed by its ID). */
static void test_rename_over(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    create(m, &r, ROOT, "src", 40);
    create(m, &r, ROOT, "dst", 41);
    rec(&r, TBBT_OP_RENAME, ROOT, "src");
    tbbt_rec_set_u64(&r, TBBT_F_DIR2, ROOT);
    tbbt_rec_set_str(&r, TBBT_F_NAME2, "dst", 3);
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFS_OK);
    tbbt_fsmodel_apply(m, &r, 0);
    tbbt_id o;
    assert_int_equal(st(m, ROOT, "src", NULL), TBBT_NAME_ABSENT);
    assert_int_equal(st(m, ROOT, "dst", &o), TBBT_NAME_PRESENT);
    assert_int_equal(o, 40);
    assert_false(tbbt_fsmodel_obj(m, 40)->flags & TBBT_FSO_GONE);
    assert_true(tbbt_fsmodel_obj(m, 41)->flags & TBBT_FSO_GONE);
    /* a rename of the now absent source is predicted NOENT */
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFSERR_NOENT);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* mkdir, symlink, mknod make objects of their type; rmdir of a directory
 * with known entries is predicted NOTEMPTY, and OK once they are gone;
 * the symlink's target is kept. */
static void test_dirs_and_types(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    rec(&r, TBBT_OP_MKDIR, ROOT, "d");
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 50);
    tbbt_fsmodel_apply(m, &r, 0);
    assert_int_equal(tbbt_fsmodel_obj(m, 50)->attr.type, TBBT_FT_DIR);
    rec(&r, TBBT_OP_SYMLINK, 50, "l");
    tbbt_rec_set_str(&r, TBBT_F_TARGET, "../x", 4);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 51);
    tbbt_fsmodel_apply(m, &r, 0);
    assert_int_equal(tbbt_fsmodel_obj(m, 51)->attr.type, TBBT_FT_LNK);
    assert_string_equal(tbbt_fsmodel_obj(m, 51)->target, "../x");
    rec(&r, TBBT_OP_MKNOD, 50, "p");
    tbbt_rec_set_u64(&r, TBBT_F_NODETYPE, TBBT_FT_FIFO);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 52);
    tbbt_fsmodel_apply(m, &r, 0);
    assert_int_equal(tbbt_fsmodel_obj(m, 52)->attr.type, TBBT_FT_FIFO);
    assert_int_equal(tbbt_fsmodel_obj(m, 50)->nchildren, 2);
    rec(&r, TBBT_OP_RMDIR, ROOT, "d");
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFSERR_NOTEMPTY);
    rec(&r, TBBT_OP_REMOVE, 50, "l");
    tbbt_fsmodel_apply(m, &r, 0);
    rec(&r, TBBT_OP_REMOVE, 50, "p");
    tbbt_fsmodel_apply(m, &r, 0);
    rec(&r, TBBT_OP_RMDIR, ROOT, "d");
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFS_OK);
    tbbt_fsmodel_apply(m, &r, 0);
    assert_true(tbbt_fsmodel_obj(m, 50)->flags & TBBT_FSO_GONE);
    /* mkdir on the name again is fine, on a present name EXIST */
    rec(&r, TBBT_OP_MKDIR, ROOT, "d");
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFS_OK);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 53);
    tbbt_fsmodel_apply(m, &r, 0);
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFSERR_EXIST);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* setattr size and a write past the end change the size; the initial
 * size of an object that existed is the one before the first change
 * (the write's pre-op size), not the reply's. */
static void test_sizes(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    rec(&r, TBBT_OP_WRITE, 0, NULL);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 60);
    tbbt_rec_set_u64(&r, TBBT_F_OFFSET, 1000);
    tbbt_rec_set_u64(&r, TBBT_F_COUNT, 500);
    tbbt_rec_set_u64(&r, TBBT_F_RCOUNT, 500);
    tbbt_rec_set_u64(&r, TBBT_F_PRE_SIZE, 1200);
    attrs(&r, TBBT_FT_REG, 1500, 1);
    tbbt_fsmodel_apply(m, &r, 0);
    const struct tbbt_fsobj *o = tbbt_fsmodel_obj(m, 60);
    assert_true(o->flags & TBBT_FSO_INITIAL);
    assert_int_equal(o->init.size, 1200);
    assert_int_equal(o->attr.size, 1500);
    rec(&r, TBBT_OP_SETATTR, 0, NULL);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 60);
    tbbt_rec_set_u64(&r, TBBT_F_SET_SIZE, 10);
    tbbt_fsmodel_apply(m, &r, 0);
    assert_int_equal(o->attr.size, 10);
    assert_int_equal(o->init.size, 1200);
    /* a write past the end without reply attributes still grows it */
    rec(&r, TBBT_OP_WRITE, 0, NULL);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 60);
    tbbt_rec_set_u64(&r, TBBT_F_OFFSET, 4000);
    tbbt_rec_set_u64(&r, TBBT_F_COUNT, 96);
    tbbt_fsmodel_apply(m, &r, 0);
    assert_int_equal(o->attr.size, 4096);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* Collects initial names (foreach callback). */
static void collect_name(void *ctx, const struct tbbt_fsdent *d) {
    g_string_append_printf(ctx, "%" G_GUINT64_FORMAT "/%.*s=%" G_GUINT64_FORMAT ";", d->dir, (int)d->len,
                           d->name, d->init_obj);
}

/* The initial image and paths: names learnt as existing before the trace
 * are listed with their objects even after the trace removed them; names
 * the trace made are not; paths follow the names up the directories. */
static void test_initial_image_and_paths(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    rec(&r, TBBT_OP_LOOKUP, ROOT, "home");
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 2);
    attrs(&r, TBBT_FT_DIR, 4096, 3);
    tbbt_fsmodel_apply(m, &r, 0);
    rec(&r, TBBT_OP_LOOKUP, 2, "old");
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 3);
    attrs(&r, TBBT_FT_REG, 7, 1);
    tbbt_fsmodel_apply(m, &r, 0);
    rec(&r, TBBT_OP_REMOVE, 2, "old");
    tbbt_fsmodel_apply(m, &r, 0);
    rec(&r, TBBT_OP_MKDIR, 2, "new");
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 4);
    tbbt_fsmodel_apply(m, &r, 0);
    create(m, &r, 4, "f", 5);
    GString *g = g_string_new(NULL);
    tbbt_fsmodel_foreach_initial_name(m, collect_name, g);
    assert_non_null(strstr(g->str, "1/home=2;"));
    assert_non_null(strstr(g->str, "2/old=3;"));
    assert_null(strstr(g->str, "new"));
    g_string_truncate(g, 0);
    assert_int_equal(tbbt_fsmodel_path(m, 5, g), ROOT);
    assert_string_equal(g->str, "home/new/f");
    struct tbbt_fsmodel_stats st;
    tbbt_fsmodel_stats(m, &st);
    assert_int_equal(st.init_present, 2);
    assert_true(tbbt_fsmodel_obj(m, 3)->flags & TBBT_FSO_INITIAL);
    assert_true(tbbt_fsmodel_obj(m, 3)->flags & TBBT_FSO_GONE);
    assert_true(tbbt_fsmodel_obj(m, 5)->flags & TBBT_FSO_CREATED);
    g_string_free(g, TRUE);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* A name made by a create whose reply was lost (object unknown) gets its
 * object from a later lookup, and that object counts as made by the
 * trace, not as initial. */
static void test_bind_later(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    rec(&r, TBBT_OP_CREATE, ROOT, "n");
    tbbt_fsmodel_apply(m, &r, 0);
    tbbt_id o;
    assert_int_equal(st(m, ROOT, "n", &o), TBBT_NAME_PRESENT);
    assert_int_equal(o, 0);
    rec(&r, TBBT_OP_LOOKUP, ROOT, "n");
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 70);
    attrs(&r, TBBT_FT_REG, 0, 1);
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFS_OK);
    tbbt_fsmodel_apply(m, &r, 0);
    assert_int_equal(st(m, ROOT, "n", &o), TBBT_NAME_PRESENT);
    assert_int_equal(o, 70);
    assert_true(tbbt_fsmodel_obj(m, 70)->flags & TBBT_FSO_CREATED);
    assert_false(tbbt_fsmodel_obj(m, 70)->flags & TBBT_FSO_INITIAL);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* A directory a mkdir of the trace made began empty: a name in it that
 * no record made is absent, and one first met there was made during the
 * trace. A directory renamed into a new name (its object shown only
 * later) or seen before is not such a directory: its names teach. */
static void test_made_dir_begins_empty(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    rec(&r, TBBT_OP_MKDIR, ROOT, "d");
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 80);
    attrs(&r, TBBT_FT_DIR, 4096, 2);
    tbbt_fsmodel_apply(m, &r, 0);
    assert_true(tbbt_fsmodel_dir_fresh(m, 80));
    assert_int_equal(st(m, 80, "x", NULL), TBBT_NAME_ABSENT);
    rec(&r, TBBT_OP_LOOKUP, 80, "x");
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFSERR_NOENT);
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 81);
    attrs(&r, TBBT_FT_REG, 0, 1);
    tbbt_fsmodel_apply(m, &r, 0); /* shown present anyway: made by a lost call */
    const struct tbbt_fsdent *d = tbbt_fsmodel_dent(m, 80, "x", 1);
    assert_non_null(d);
    assert_int_equal(d->init, TBBT_NAME_ABSENT);
    assert_true(tbbt_fsmodel_obj(m, 81)->flags & TBBT_FSO_CREATED);
    /* a rename of an unknown directory, its object shown by a later lookup */
    rec(&r, TBBT_OP_RENAME, ROOT, "old");
    tbbt_rec_set_u64(&r, TBBT_F_DIR2, ROOT);
    tbbt_rec_set_str(&r, TBBT_F_NAME2, "new", 3);
    tbbt_fsmodel_apply(m, &r, 0);
    rec(&r, TBBT_OP_LOOKUP, ROOT, "new");
    tbbt_rec_set_u64(&r, TBBT_F_NEWOBJ, 90);
    attrs(&r, TBBT_FT_DIR, 4096, 2);
    tbbt_fsmodel_apply(m, &r, 0);
    assert_false(tbbt_fsmodel_dir_fresh(m, 90));
    assert_int_equal(st(m, 90, "x", NULL), TBBT_NAME_UNKNOWN);
    /* a directory seen before: not fresh either */
    assert_false(tbbt_fsmodel_dir_fresh(m, ROOT));
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* readdir entries teach initial names; "." and ".." are not entries. */
static void test_listing_teaches(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    rec(&r, TBBT_OP_READDIRPLUS, 0, NULL);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, ROOT);
    tbbt_rec_add_entry(&r, ".", 1)->id = ROOT;
    tbbt_rec_add_entry(&r, "..", 2)->id = ROOT;
    tbbt_rec_add_entry(&r, "x", 1)->id = 80;
    r.has |= 1ull << TBBT_F_ENTRIES;
    tbbt_fsmodel_apply(m, &r, 0);
    tbbt_id o;
    assert_int_equal(st(m, ROOT, "x", &o), TBBT_NAME_PRESENT);
    assert_int_equal(o, 80);
    assert_int_equal(st(m, ROOT, ".", NULL), TBBT_NAME_UNKNOWN);
    assert_int_equal(st(m, ROOT, "..", NULL), TBBT_NAME_UNKNOWN);
    assert_int_equal(tbbt_fsmodel_dent(m, ROOT, "x", 1)->init, TBBT_NAME_PRESENT);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* Permission: read and write by a caller who is neither root nor the
 * owner are judged by the group or other bits of the mode the replay has
 * (the mode first seen, then what setattr set); owner and root are left
 * to the server. A later reply's different mode does not change the
 * replay's mode (that difference is a lost chmod). */
static void test_permission(void **s) {
    (void)s;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new();
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    create(m, &r, ROOT, "f", 90); /* mode 0644, uid 1000, gid 100 */
    rec(&r, TBBT_OP_WRITE, 0, NULL);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 90);
    r.cred.flavor = 1;
    r.cred.uid = 2000;
    r.cred.gid = 2000;
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFSERR_ACCES);
    r.op = TBBT_OP_READ;
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFS_OK);
    r.cred.uid = 1000; /* the owner */
    assert_int_equal(tbbt_fsmodel_predict_access(m, &r), TBBT_PREDICT_ANY);
    r.cred.uid = 0; /* root */
    assert_int_equal(tbbt_fsmodel_predict_access(m, &r), TBBT_PREDICT_ANY);
    /* group member, group bits 4: read yes, write no */
    r.cred.uid = 2000;
    r.cred.ngids = 1;
    r.cred.gids[0] = 100;
    r.op = TBBT_OP_WRITE;
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFSERR_ACCES);
    /* a reply showing 0666 does not grant the replay anything */
    rec(&r, TBBT_OP_GETATTR, 0, NULL);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 90);
    attrs(&r, TBBT_FT_REG, 0, 1);
    tbbt_rec_set_u64(&r, TBBT_F_MODE, 0666);
    tbbt_fsmodel_apply(m, &r, 0);
    assert_int_equal(tbbt_fsmodel_obj(m, 90)->rmode, 0644);
    /* a setattr does */
    rec(&r, TBBT_OP_SETATTR, 0, NULL);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 90);
    tbbt_rec_set_u64(&r, TBBT_F_SET_MODE, 0666);
    tbbt_fsmodel_apply(m, &r, 0);
    rec(&r, TBBT_OP_WRITE, 0, NULL);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, 90);
    r.cred.flavor = 1;
    r.cred.uid = r.cred.gid = 2000;
    assert_int_equal(tbbt_fsmodel_predict(m, &r), TBBT_NFS_OK);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(m);
}

/* The caller's extension (what pass 2 and pass 3 keep per object and per
 * name): zeroed when made, its own for each object and entry whatever the
 * name's length, untouched by the model's changes, and copied by a clone
 * that then goes its own way. */
static void test_caller_extension(void **state) {
    (void)state;
    struct tbbt_fsmodel *m = tbbt_fsmodel_new_ext(3 * sizeof(uint64_t), sizeof(uint64_t));
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    const char *names[] = {"a", "seven77", "eight888", "a-name-of-twenty-two-c"};
    for (unsigned i = 0; i < 4; i++) {
        struct tbbt_fsobj *o = tbbt_fsmodel_obj_get(m, 10 + i);
        uint64_t *x = tbbt_fsobj_ext(o);
        assert_true(x[0] == 0 && x[1] == 0 && x[2] == 0);
        x[0] = x[2] = ~(uint64_t)i;
        struct tbbt_fsdent *d = tbbt_fsmodel_link(m, ROOT, names[i], strlen(names[i]), 10 + i, TBBT_FT_REG);
        uint64_t *y = tbbt_fsdent_ext(d);
        assert_int_equal(*y, 0);
        *y = 100 + i;
    }
    rec(&r, TBBT_OP_REMOVE, ROOT, "seven77");
    tbbt_fsmodel_apply(m, &r, 0);
    struct tbbt_fsmodel *c = tbbt_fsmodel_clone(m);
    *(uint64_t *)tbbt_fsdent_ext(tbbt_fsmodel_dent(m, ROOT, "a", 1)) = 7;
    for (unsigned i = 0; i < 4; i++) {
        const uint64_t *x = tbbt_fsobj_ext(tbbt_fsmodel_obj(c, 10 + i));
        assert_true(x[0] == ~(uint64_t)i && x[1] == 0 && x[2] == ~(uint64_t)i);
        const struct tbbt_fsdent *d = tbbt_fsmodel_dent(c, ROOT, names[i], strlen(names[i]));
        assert_int_equal(*(const uint64_t *)tbbt_fsdent_ext(d), 100 + i);
        assert_int_equal(d->len, strlen(names[i]));
        assert_memory_equal(d->name, names[i], d->len);
    }
    assert_int_equal(*(const uint64_t *)tbbt_fsdent_ext(tbbt_fsmodel_dent(m, ROOT, "a", 1)), 7);
    tbbt_rec_free(&r);
    tbbt_fsmodel_free(c);
    tbbt_fsmodel_free(m);
}

/* Runs every test above. */
int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_three_states),
        cmocka_unit_test(test_create_remove),
        cmocka_unit_test(test_remove_unknown_teaches),
        cmocka_unit_test(test_link_counts),
        cmocka_unit_test(test_failed_link_shows_object),
        cmocka_unit_test(test_rename_over),
        cmocka_unit_test(test_dirs_and_types),
        cmocka_unit_test(test_sizes),
        cmocka_unit_test(test_initial_image_and_paths),
        cmocka_unit_test(test_bind_later),
        cmocka_unit_test(test_permission),
        cmocka_unit_test(test_listing_teaches),
        cmocka_unit_test(test_made_dir_begins_empty),
        cmocka_unit_test(test_caller_extension),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
