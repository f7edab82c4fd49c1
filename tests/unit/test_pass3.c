/* test_pass3.c -- pass 3 on hand-made traces: every path of every object
 * with its create and delete times, initial sizes from before the trace
 * changed them, hard links, renames that keep the ID (and move a renamed
 * directory's children), victim IDs, names the trace never gave an object,
 * disjoint subtrees and nameless objects, and the map's order. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsmodel.h"
#include "hmap.h"
#include "pass3.h"
#include "rectext.h"

#define SEC 1000000000LL

/* What the sink saw: the records pass 3 passed on. */
struct seen {
    GPtrArray *recs; /* struct tbbt_rec * (owned) */
};

static int keep(void *ctx, const struct tbbt_rec *r) {
    struct seen *s = ctx;
    struct tbbt_rec *c = g_new(struct tbbt_rec, 1);
    tbbt_rec_init(c);
    tbbt_rec_copy(c, r);
    g_ptr_array_add(s->recs, c);
    return 0;
}

/* Feeds one record called at ns nanoseconds (its reply 100 us later):
 * "proc status fields..." in the text form. */
static void feed_ns(struct tbbt_pass3 *p, int64_t ns, const char *rest) {
    int64_t re = ns + 100000;
    char *line = g_strdup_printf("%lld.%09lld %lld.%09lld 10.0.0.5:801 10.0.0.1:2049 0x%08x v3 %s",
                                 (long long)(ns / 1000000000), (long long)(ns % 1000000000),
                                 (long long)(re / 1000000000), (long long)(re % 1000000000),
                                 (unsigned)(ns / 1000), rest);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    char err[128];
    if (tbbt_rec_parse_text(&r, line, strlen(line), err, sizeof(err)) != 0) fail_msg("%s: %s", line, err);
    assert_int_equal(tbbt_pass3_put(p, &r), 0);
    tbbt_rec_free(&r);
    g_free(line);
}

/* Feeds one record at second t. */
static void feed(struct tbbt_pass3 *p, int t, const char *rest) {
    feed_ns(p, (int64_t)t * 1000000000, rest);
}

/* One map line, kept. */
struct line {
    struct tbbt_hm_entry e;
    char *path, *target;
    int no; /* line order */
};

/* Writes the map and reads it back through the checking reader (parents
 * before children, end line); returns its lines. */
static GPtrArray *map_of(struct tbbt_pass3 *p) {
    char dir[] = "/tmp/test_pass3.XXXXXX", err[256];
    assert_non_null(g_mkdtemp(dir));
    char *path = g_strdup_printf("%s/t.hmap", dir);
    if (tbbt_pass3_write_map(p, path, "test", err, sizeof(err)) != 0) fail_msg("%s", err);
    struct tbbt_hmapr *r = tbbt_hmapr_open(path, err, sizeof(err));
    assert_non_null(r);
    GPtrArray *lines = g_ptr_array_new();
    struct tbbt_hm_entry e;
    int rc;
    while ((rc = tbbt_hmapr_next(r, &e, err, sizeof(err))) == 1) {
        struct line *l = g_new0(struct line, 1);
        l->e = e;
        l->path = g_strdup(e.path);
        l->target = g_strdup(e.target);
        l->no = (int)lines->len;
        g_ptr_array_add(lines, l);
        if (getenv("TBBT_TEST_SHOW")) { /* for whoever debugs this test */
            GString *g = g_string_new(NULL);
            tbbt_hm_format(g, &e);
            printf("%s\n", g->str);
            g_string_free(g, TRUE);
        }
    }
    if (rc != 0) fail_msg("%s", err);
    tbbt_hmapr_close(r);
    unlink(path);
    rmdir(dir);
    g_free(path);
    return lines;
}

/* The line of path made at create (any when create < 0), or NULL. */
static const struct line *find(GPtrArray *lines, const char *path, int64_t create) {
    for (guint i = 0; i < lines->len; i++) {
        const struct line *l = lines->pdata[i];
        if (strcmp(l->path, path) == 0 && (create < 0 || l->e.create == create)) return l;
    }
    return NULL;
}

/* The same, which must exist. */
static const struct line *at(GPtrArray *lines, const char *path, int64_t create) {
    const struct line *l = find(lines, path, create);
    if (!l) fail_msg("no map line for %s (create %lld)", path, (long long)create);
    return l;
}

static void free_lines(GPtrArray *lines) {
    for (guint i = 0; i < lines->len; i++) {
        struct line *l = lines->pdata[i];
        g_free(l->path), g_free(l->target), g_free(l);
    }
    g_ptr_array_free(lines, TRUE);
}

/* The record passed on at second t. */
static const struct tbbt_rec *rec_at(struct seen *s, int t) {
    for (guint i = 0; i < s->recs->len; i++) {
        const struct tbbt_rec *r = s->recs->pdata[i];
        if (r->call_time == t * SEC) return r;
    }
    fail_msg("no record at %d", t);
    return NULL;
}

#define DIRA "type=2 mode=493 nlink=2 uid=0 gid=0 size=4096"
#define FILEA(sz) "type=1 mode=420 nlink=1 uid=1000 gid=100 size=" #sz

/* A trace that uses every kind of name change. */
static void build(struct tbbt_pass3 *p) {
    tbbt_pass3_add_root(p, 1);
    feed(p, 1, "lookup 0 T cred=1:0:0 dir=1 name=\"home\" newobj=2 " DIRA);
    feed(p, 2, "lookup 0 T cred=1:0:0 dir=2 name=\"a.txt\" newobj=3 " FILEA(100));
    feed(p, 3,
         "write 0 T cred=1:0:0 obj=3 offset=100 count=50 stable=2 rcount=50 " FILEA(150) " pre_size=100");
    feed(p, 4, "create 0 T cred=1:0:0 dir=2 name=\"new\" createhow=0 newobj=4 " FILEA(0));
    feed(p, 5, "remove 0 T cred=1:0:0 dir=2 name=\"new\"");
    feed(p, 6, "link 0 T cred=1:0:0 obj=3 dir=2 name=\"hard\"");
    feed(p, 7, "rename 0 T cred=1:0:0 dir=2 name=\"a.txt\" dir2=1 name2=\"b.txt\"");
    feed(p, 8, "remove 0 T cred=1:0:0 dir=2 name=\"ghost\"");
    feed(p, 9, "read 0 T cred=1:0:0 obj=5 offset=0 count=4096 rcount=300 eof=1");
    feed(p, 10, "lookup 0 T cred=1:0:0 dir=1 name=\"proj\" newobj=6 " DIRA);
    feed(p, 11, "rename 0 T cred=1:0:0 dir=1 name=\"proj\" dir2=1 name2=\"proj2\"");
    feed(p, 12, "lookup 0 T cred=1:0:0 dir=6 name=\"x\" newobj=7 " FILEA(10));
    feed(p, 13, "create 0 T cred=1:0:0 dir=6 name=\"y\" createhow=0 newobj=8 " FILEA(0));
    feed(p, 14, "readdir 0 T cred=1:0:0 obj=2 cookie=0 count=4096 entries=[99:1:0:0:0:\"listed\"]");
    feed(p, 15, "lookup 0 T cred=1:0:0 dir=9 name=\"orphan.c\" newobj=10 " FILEA(7));
    feed(p, 16, "rename 0 T cred=1:0:0 dir=1 name=\"unk\" dir2=1 name2=\"unk2\"");
    feed(p, 17, "lookup 0 T cred=1:0:0 dir=1 name=\"unk2\" newobj=11 " FILEA(5));
    feed(p, 18,
         "lookup 0 T cred=1:0:0 dir=1 name=\"l1\" newobj=20 type=1 mode=420 nlink=2 uid=0 gid=0 size=1");
    feed(p, 19,
         "lookup 0 T cred=1:0:0 dir=1 name=\"l2\" newobj=20 type=1 mode=420 nlink=2 uid=0 gid=0 size=1");
    feed(p, 20,
         "symlink 0 T cred=1:0:0 dir=1 name=\"sl\" target=\"home/hard\" newobj=12 type=5 mode=511 "
         "nlink=1 uid=0 gid=0 size=9");
    feed(p, 21, "lookup 2 T cred=1:0:0 dir=1 name=\"nothere\"");
    feed(p, 22, "rmdir 0 T cred=1:0:0 dir=6 name=\"emptydir\"");
}

/* Runs the trace of build() and returns the pass, its sink and its map. */
static struct tbbt_pass3 *run(struct seen *s, GPtrArray **m) {
    s->recs = g_ptr_array_new();
    struct tbbt_pass3 *p = tbbt_pass3_new(keep, s);
    build(p);
    *m = map_of(p);
    return p;
}

static void done(struct tbbt_pass3 *p, struct seen *s, GPtrArray *m) {
    for (guint i = 0; i < s->recs->len; i++) {
        tbbt_rec_free(s->recs->pdata[i]);
        g_free(s->recs->pdata[i]);
    }
    g_ptr_array_free(s->recs, TRUE);
    free_lines(m);
    tbbt_pass3_free(p);
}

/* The objects that existed before the trace: at 0, under the path they
 * had then, with the size and owner before the trace changed them. */
static void test_initial_image(void **st) {
    (void)st;
    struct seen s;
    GPtrArray *m;
    struct tbbt_pass3 *p = run(&s, &m);
    const struct line *l = at(m, ".", 0);
    assert_int_equal(l->e.id, 1);
    assert_int_equal(l->e.origin, TBBT_HM_ROOT);
    assert_int_equal(l->no, 0);
    l = at(m, "home", 0);
    assert_int_equal(l->e.id, 2);
    assert_int_equal(l->e.type, TBBT_FT_DIR);
    assert_int_equal(l->e.parent, 1);
    l = at(m, "home/a.txt", 0);
    assert_int_equal(l->e.id, 3);
    assert_int_equal(l->e.size, 100); /* before the write made it 150 */
    assert_int_equal(l->e.mode, 0644);
    assert_int_equal(l->e.uid, 1000);
    assert_int_equal(l->e.gid, 100);
    assert_int_equal(l->e.del, 7 * SEC); /* renamed away at 7 */
    /* a directory renamed during the trace: its child is under its old name at 0 */
    assert_int_equal(at(m, "proj", 0)->e.del, 11 * SEC);
    assert_int_equal(at(m, "proj/x", 0)->e.id, 7);
    assert_int_equal(at(m, "proj/x", 0)->e.parent, 6);
    /* pre-existing hard links: two entries, one ID */
    assert_int_equal(at(m, "l1", 0)->e.id, 20);
    assert_int_equal(at(m, "l2", 0)->e.id, 20);
    /* a lookup that failed leaves no entry */
    assert_null(find(m, "nothere", -1));
    /* names the trace removed without ever naming their object: IDs of their own */
    l = at(m, "home/ghost", 0);
    assert_true(l->e.id >= TBBT_P3_FRESH_BASE);
    assert_int_equal(l->e.type, TBBT_FT_REG);
    assert_int_equal(l->e.del, 8 * SEC);
    l = at(m, "proj/emptydir", 0);
    assert_true(l->e.id >= TBBT_P3_FRESH_BASE);
    assert_int_equal(l->e.type, TBBT_FT_DIR);
    assert_int_equal(l->e.del, 22 * SEC);
    /* a name only a listing showed */
    l = at(m, "home/listed", 0);
    assert_true(l->e.id >= TBBT_P3_FRESH_BASE);
    assert_true(l->e.del == TBBT_HM_NEVER);
    /* a renamed object whose handle the trace showed only after the rename */
    l = at(m, "unk", 0);
    assert_int_equal(l->e.id, 11);
    assert_int_equal(l->e.size, 5);
    assert_int_equal(l->e.del, 16 * SEC);
    /* a file used only by handle: nameless, sized by the largest read */
    l = at(m, "tbbt-nameless/5", 0);
    assert_int_equal(l->e.id, 5);
    assert_int_equal(l->e.size, 300);
    assert_int_equal(l->e.parent, at(m, "tbbt-nameless", 0)->e.id);
    assert_int_equal(at(m, "tbbt-nameless", 0)->e.origin, TBBT_HM_ORPHANS);
    /* a directory whose own name the trace never showed: a placeholder top */
    l = at(m, "tbbt-subtree-9", 0);
    assert_int_equal(l->e.id, 9);
    assert_int_equal(l->e.origin, TBBT_HM_PLACEHOLDER);
    assert_int_equal(l->e.type, TBBT_FT_DIR);
    assert_int_equal(at(m, "tbbt-subtree-9/orphan.c", 0)->e.parent, 9);
    const struct tbbt_pass3_stats *x = tbbt_pass3_stats(p);
    assert_int_equal(x->subtrees, 2); /* the root and 9 */
    assert_int_equal(x->root_known, 1);
    assert_int_equal(x->nameless, 1);
    assert_int_equal(x->hard_linked, 1);
    assert_int_equal(x->initial, 15);
    assert_int_equal(x->size_from_reads, 1);
    done(p, &s, m);
}

/* Paths made and removed during the trace carry the call times of the
 * records that made and removed them; renames and links keep the ID. */
static void test_changes(void **st) {
    (void)st;
    struct seen s;
    GPtrArray *m;
    struct tbbt_pass3 *p = run(&s, &m);
    const struct line *l = at(m, "home/new", 4 * SEC);
    assert_int_equal(l->e.id, 4);
    assert_int_equal(l->e.del, 5 * SEC);
    l = at(m, "home/hard", 6 * SEC);
    assert_int_equal(l->e.id, 3);
    assert_true(l->e.del == TBBT_HM_NEVER);
    l = at(m, "b.txt", 7 * SEC);
    assert_int_equal(l->e.id, 3);
    assert_int_equal(l->e.parent, 1);
    assert_int_equal(at(m, "proj2", 11 * SEC)->e.id, 6);
    /* made in the renamed directory after the rename: under its new name */
    l = at(m, "proj2/y", 13 * SEC);
    assert_int_equal(l->e.id, 8);
    assert_int_equal(l->e.parent, 6);
    assert_int_equal(at(m, "unk2", 16 * SEC)->e.id, 11);
    l = at(m, "sl", 20 * SEC);
    assert_int_equal(l->e.type, TBBT_FT_LNK);
    assert_string_equal(l->target, "home/hard");
    assert_null(find(m, "proj/y", -1));
    const struct tbbt_pass3_stats *x = tbbt_pass3_stats(p);
    assert_int_equal(x->created, 7);
    assert_int_equal(x->renamed, 3);
    assert_int_equal(x->deleted, 6); /* new, a.txt, ghost, proj, unk, emptydir */
    done(p, &s, m);
}

/* Remove, rmdir and rename records come out with the IDs of what they
 * removed or moved: the map's IDs. Other records are untouched. */
static void test_victims(void **st) {
    (void)st;
    struct seen s;
    GPtrArray *m;
    struct tbbt_pass3 *p = run(&s, &m);
    assert_int_equal(s.recs->len, 22);
    const struct tbbt_rec *r = rec_at(&s, 5);
    assert_true(tbbt_rec_has(r, TBBT_F_VICTIM));
    assert_int_equal(r->victim, 4);
    assert_int_equal(rec_at(&s, 7)->victim, 3);
    assert_false(tbbt_rec_has(rec_at(&s, 7), TBBT_F_VICTIM2));
    assert_int_equal(rec_at(&s, 8)->victim, at(m, "home/ghost", 0)->e.id);
    assert_int_equal(rec_at(&s, 11)->victim, 6);
    assert_int_equal(rec_at(&s, 22)->victim, at(m, "proj/emptydir", 0)->e.id);
    /* a rename of a name whose object a later lookup of the new name revealed */
    assert_int_equal(rec_at(&s, 16)->victim, 11);
    assert_false(tbbt_rec_has(rec_at(&s, 4), TBBT_F_VICTIM));
    assert_false(tbbt_rec_has(rec_at(&s, 6), TBBT_F_VICTIM));
    assert_int_equal(tbbt_pass3_stats(p)->victims, 6);
    /* records come out in the order they went in, though some were held */
    for (guint i = 1; i < s.recs->len; i++)
        assert_true(((struct tbbt_rec *)s.recs->pdata[i - 1])->call_time <
                    ((struct tbbt_rec *)s.recs->pdata[i])->call_time);
    done(p, &s, m);
}

/* A create whose reply the capture lost (no object): held until a later
 * lookup of the name reveals it, then given it. */
static void test_lost_create_reply(void **st) {
    (void)st;
    struct seen s = {g_ptr_array_new()};
    struct tbbt_pass3 *p = tbbt_pass3_new(keep, &s);
    tbbt_pass3_add_root(p, 1);
    feed(p, 1, "create 0 T cred=1:0:0 dir=1 name=\"c\" createhow=0"); /* reply cut: no handle */
    feed(p, 2, "getattr 0 T cred=1:0:0 obj=1 " DIRA);
    assert_int_equal(s.recs->len, 0); /* held */
    feed(p, 3, "lookup 0 T cred=1:0:0 dir=1 name=\"c\" newobj=42 " FILEA(0));
    assert_int_equal(s.recs->len, 3);
    assert_int_equal(rec_at(&s, 1)->newobj, 42);
    assert_int_equal(tbbt_pass3_stats(p)->newobjs, 1);
    GPtrArray *m = map_of(p);
    assert_int_equal(at(m, "c", 1 * SEC)->e.id, 42);
    done(p, &s, m);
}

/* An object used by handle before the trace gave it any name, then
 * linked under a new name (its creating call lost, or made before the
 * trace): it was there, so the initial image holds it as a nameless
 * object, and the link adds the new name during the trace; a subtree
 * below it is not involved. */
static void test_nameless_then_linked(void **st) {
    (void)st;
    struct seen s = {g_ptr_array_new()};
    struct tbbt_pass3 *p = tbbt_pass3_new(keep, &s);
    tbbt_pass3_add_root(p, 1);
    feed(p, 1, "getattr 0 T cred=1:0:0 obj=1 " DIRA);
    feed(p, 2, "read 0 T cred=1:0:0 obj=30 offset=0 count=4096 rcount=0 eof=1 " FILEA(0));
    feed(p, 3,
         "link 0 T cred=1:0:0 obj=30 dir=1 name=\"late\" type=1 mode=420 nlink=2 uid=1000 gid=100 size=0");
    GPtrArray *m = map_of(p);
    const struct line *l = at(m, "tbbt-nameless/30", 0);
    assert_int_equal(l->e.id, 30);
    assert_true(l->e.del == TBBT_HM_NEVER);
    l = at(m, "late", 3 * SEC);
    assert_int_equal(l->e.id, 30);
    assert_int_equal(l->e.parent, 1);
    assert_int_equal(tbbt_pass3_stats(p)->nameless, 1);
    done(p, &s, m);
}

/* An object used by handle with no name, shown alive (a read's
 * attributes), then found stale (its removal lost): the initial image
 * holds it still as a nameless object, for the calls made while it
 * lived. */
static void test_nameless_then_stale(void **st) {
    (void)st;
    struct seen s = {g_ptr_array_new()};
    struct tbbt_pass3 *p = tbbt_pass3_new(keep, &s);
    tbbt_pass3_add_root(p, 1);
    feed(p, 1, "getattr 0 T cred=1:0:0 obj=1 " DIRA);
    feed(p, 2, "read 0 T cred=1:0:0 obj=31 offset=0 count=4096 rcount=0 eof=1 " FILEA(0));
    feed(p, 3, "read 70 T cred=1:0:0 obj=31 offset=0 count=4096");
    GPtrArray *m = map_of(p);
    assert_int_equal(at(m, "tbbt-nameless/31", 0)->e.id, 31);
    assert_int_equal(tbbt_pass3_stats(p)->nameless, 1);
    done(p, &s, m);
}

/* A directory known only as the one that refused a user a create (ACCES;
 * its mkdir lost): the image holds it, root's and closed to other users,
 * so that the replay can send the call and is refused as traced. One that
 * refused a lookup is closed to search too; one that let a user make a
 * name is not closed (its mode stays unknown). */
static void test_refused_dir_by_handle(void **st) {
    (void)st;
    struct seen s = {g_ptr_array_new()};
    struct tbbt_pass3 *p = tbbt_pass3_new(keep, &s);
    tbbt_pass3_add_root(p, 1);
    feed(p, 1, "getattr 0 T cred=1:0:0 obj=1 " DIRA);
    feed(p, 2, "create 13 T cred=1:1000:1000 dir=40 name=\"f\" createhow=0 set_mode=420");
    feed(p, 3, "lookup 13 T cred=1:1000:1000 dir=41 name=\"g\"");
    feed(p, 4, "create 13 T cred=1:1000:1000 dir=42 name=\"f\" createhow=0 set_mode=420");
    feed(p, 5, "create 0 T cred=1:1001:1001 dir=42 name=\"h\" createhow=0 newobj=43 " FILEA(0));
    GPtrArray *m = map_of(p);
    const struct line *l = at(m, "tbbt-nameless/40", 0);
    assert_int_equal(l->e.type, TBBT_FT_DIR);
    assert_int_equal(l->e.mode, 0755);
    assert_int_equal(l->e.uid, 0);
    assert_true(l->e.known & TBBT_HM_MODE);
    assert_int_equal(at(m, "tbbt-nameless/41", 0)->e.mode, 0700);
    assert_false(at(m, "tbbt-subtree-42", 0)->e.known & TBBT_HM_MODE);
    done(p, &s, m);
}

/* A rename whose object no later record reveals: after the window, an ID
 * of its own, the same in the record and in the map, through a second
 * rename too. */
static void test_rename_never_revealed(void **st) {
    (void)st;
    struct seen s = {g_ptr_array_new()};
    struct tbbt_pass3 *p = tbbt_pass3_new(keep, &s);
    tbbt_pass3_add_root(p, 1);
    feed(p, 1, "rename 0 T cred=1:0:0 dir=1 name=\"m1\" dir2=1 name2=\"m2\"");
    feed(p, 2, "rename 0 T cred=1:0:0 dir=1 name=\"m2\" dir2=1 name2=\"m3\"");
    assert_int_equal(s.recs->len, 0); /* held, waiting for the object */
    for (int t = 3; t < 3 + TBBT_P3_WINDOW + 2; t++)
        feed(p, t, "getattr 0 T cred=1:0:0 obj=1 " DIRA);
    assert_true(s.recs->len > 2); /* the window passed: out, in order */
    assert_int_equal(((struct tbbt_rec *)s.recs->pdata[0])->call_time, 1 * SEC);
    GPtrArray *m = map_of(p);
    tbbt_id id = rec_at(&s, 1)->victim;
    assert_true(id >= TBBT_P3_FRESH_BASE);
    assert_int_equal(rec_at(&s, 2)->victim, id);
    assert_int_equal(at(m, "m1", 0)->e.id, id);
    assert_int_equal(at(m, "m2", 1 * SEC)->e.id, id);
    assert_int_equal(at(m, "m3", 2 * SEC)->e.id, id);
    assert_int_equal(s.recs->len, 4 + TBBT_P3_WINDOW); /* every record, once */
    done(p, &s, m);
}

/* At a busy site's 11,600 calls a second, a client's lookup of a renamed
 * file's new name 20,000 records (1.7 s) later still reveals the object
 * the rename moved: the wait is counted in trace time, not only in
 * records; with nothing to reveal it, the rename gets an ID of its own
 * once 5 s have passed, in order. */
static void test_rename_revealed_at_busy_rate(void **st) {
    (void)st;
    const int64_t gap = 86207, t0 = 100 * SEC; /* 11,600 calls a second */
    struct seen s = {g_ptr_array_new()};
    struct tbbt_pass3 *p = tbbt_pass3_new(keep, &s);
    tbbt_pass3_add_root(p, 1);
    feed_ns(p, t0, "rename 0 T cred=1:0:0 dir=1 name=\"m1\" dir2=1 name2=\"m2\"");
    int64_t t = t0;
    for (int i = 0; i < 20000; i++)
        feed_ns(p, t += gap, "getattr 0 T cred=1:0:0 obj=1 " DIRA);
    assert_int_equal(s.recs->len, 0); /* still held: 1.7 s */
    feed_ns(p, t += gap, "lookup 0 T cred=1:0:0 dir=1 name=\"m2\" newobj=44 " FILEA(10));
    assert_int_equal(s.recs->len, 20002); /* revealed: all out */
    assert_int_equal(((struct tbbt_rec *)s.recs->pdata[0])->victim, 44);
    GPtrArray *m = map_of(p);
    assert_int_equal(at(m, "m1", 0)->e.id, 44);
    done(p, &s, m);

    s.recs = g_ptr_array_new();
    p = tbbt_pass3_new(keep, &s);
    tbbt_pass3_add_root(p, 1);
    feed_ns(p, t0, "rename 0 T cred=1:0:0 dir=1 name=\"m1\" dir2=1 name2=\"m2\"");
    t = t0;
    for (int i = 0; i < 57000; i++) /* 4.9 s */
        feed_ns(p, t += gap, "getattr 0 T cred=1:0:0 obj=1 " DIRA);
    assert_int_equal(s.recs->len, 0);
    for (int i = 0; i < 2000; i++)
        feed_ns(p, t += gap, "getattr 0 T cred=1:0:0 obj=1 " DIRA);
    assert_true(s.recs->len > 0); /* 5 s passed: out, in order */
    assert_true(((struct tbbt_rec *)s.recs->pdata[0])->victim >= TBBT_P3_FRESH_BASE);
    assert_int_equal(tbbt_pass3_stats(p)->wait_cut, 0);
    m = map_of(p);
    done(p, &s, m);
}

/* A rename over an existing name: the replaced object's path ends, its ID
 * is the record's victim2. */
static void test_rename_over(void **st) {
    (void)st;
    struct seen s = {g_ptr_array_new()};
    struct tbbt_pass3 *p = tbbt_pass3_new(keep, &s);
    feed(p, 1, "lookup 0 T cred=1:0:0 dir=1 name=\"a\" newobj=2 " FILEA(1));
    feed(p, 2, "lookup 0 T cred=1:0:0 dir=1 name=\"b\" newobj=3 " FILEA(2));
    feed(p, 3, "rename 0 T cred=1:0:0 dir=1 name=\"a\" dir2=1 name2=\"b\"");
    GPtrArray *m = map_of(p);
    assert_int_equal(rec_at(&s, 3)->victim, 2);
    assert_int_equal(rec_at(&s, 3)->victim2, 3);
    assert_int_equal(at(m, "tbbt-subtree-1/b", 0)->e.id, 3);
    assert_int_equal(at(m, "tbbt-subtree-1/b", 0)->e.del, 3 * SEC);
    assert_int_equal(at(m, "tbbt-subtree-1/b", 3 * SEC)->e.id, 2);
    assert_int_equal(at(m, "tbbt-subtree-1/a", 0)->e.del, 3 * SEC);
    /* no MOUNT: the top is a placeholder, not the image root */
    assert_null(find(m, ".", -1));
    assert_int_equal(tbbt_pass3_stats(p)->root_known, 0);
    done(p, &s, m);
}

/* The map's order: the initial image first, parents before children (the
 * reader checks the parents), then the rest by create time. */
static void test_order(void **st) {
    (void)st;
    struct seen s;
    GPtrArray *m;
    struct tbbt_pass3 *p = run(&s, &m);
    int64_t last = 0;
    for (guint i = 0; i < m->len; i++) {
        const struct line *l = m->pdata[i];
        assert_true(l->e.create >= last);
        last = l->e.create;
    }
    done(p, &s, m);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_initial_image),
        cmocka_unit_test(test_changes),
        cmocka_unit_test(test_victims),
        cmocka_unit_test(test_rename_over),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_rename_never_revealed),
        cmocka_unit_test(test_rename_revealed_at_busy_rate),
        cmocka_unit_test(test_lost_create_reply),
        cmocka_unit_test(test_nameless_then_linked),
        cmocka_unit_test(test_nameless_then_stale),
        cmocka_unit_test(test_refused_dir_by_handle),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
