/* test_pass3_cut.c -- the hierarchy map of a trace whose names the
 * snaplen cut, made as tbbt-prep makes it: pass 2 then pass 3. An object
 * that existed before the trace and is met only by calls whose name was
 * cut is in the map under the synthetic name pass 2 gave every record
 * (so tbbt-init makes the name the replay looks up); a record left cut
 * puts no name in the map; a listing's real name of a synthetically
 * named object is not a second path. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hmap.h"
#include "pass2.h"
#include "pass3.h"
#include "rectext.h"

#define DIRA "type=2 mode=493 nlink=2 uid=0 gid=0 size=4096"
#define FILEA "type=1 mode=420 nlink=1 uid=1000 gid=100 size=10"

/* Runs pass 2 into pass 3 over the lines (record i at second i + 1) and
 * returns the map's paths, one "ID create path mode" string each. */
static GPtrArray *map_paths_n(const char *const *lines, uint64_t inserted) {
    struct tbbt_pass3 *p3 = tbbt_pass3_new(NULL, NULL);
    tbbt_pass3_add_root(p3, 1);
    struct tbbt_pass2 *p2 = tbbt_pass2_new(NULL, tbbt_pass3_put, p3);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    char err[256];
    for (int i = 0; lines[i]; i++) {
        char *l = g_strdup_printf("%d.000000000 %d.000100000 10.0.0.5:801 10.0.0.1:2049 0x%08x v3 %s", i + 1,
                                  i + 1, (unsigned)i + 1, lines[i]);
        if (tbbt_rec_parse_text(&r, l, strlen(l), err, sizeof(err)) != 0) fail_msg("%s: %s", l, err);
        assert_int_equal(tbbt_pass2_put(p2, &r), 0);
        g_free(l);
    }
    assert_int_equal(tbbt_pass2_finish(p2), 0);
    assert_int_equal(tbbt_pass2_stats(p2)->inserted, inserted);
    char dir[] = "/tmp/test_pass3_cut.XXXXXX";
    assert_non_null(g_mkdtemp(dir));
    char *path = g_strdup_printf("%s/t.hmap", dir);
    if (tbbt_pass3_write_map(p3, path, "test", err, sizeof(err)) != 0) fail_msg("%s", err);
    struct tbbt_hmapr *h = tbbt_hmapr_open(path, err, sizeof(err));
    assert_non_null(h);
    GPtrArray *paths = g_ptr_array_new_with_free_func(g_free);
    struct tbbt_hm_entry e;
    while (tbbt_hmapr_next(h, &e, err, sizeof(err)) == 1)
        g_ptr_array_add(paths, g_strdup_printf("%llu %lld %s %o", (unsigned long long)e.id,
                                               (long long)e.create, e.path, e.mode));
    tbbt_hmapr_close(h);
    unlink(path);
    rmdir(dir);
    g_free(path);
    tbbt_rec_free(&r);
    tbbt_pass2_free(p2);
    tbbt_pass3_free(p3);
    return paths;
}

/* map_paths_n with nothing inserted. */
static GPtrArray *map_paths(const char *const *lines) {
    return map_paths_n(lines, 0);
}

/* Is line (an "ID create path mode" string) among paths? */
static int has_path(GPtrArray *paths, const char *line) {
    for (guint i = 0; i < paths->len; i++)
        if (!strcmp(paths->pdata[i], line)) return 1;
    return 0;
}

/* Shows the map (for whoever debugs this test). */
static void show(GPtrArray *paths) {
    for (guint i = 0; i < paths->len; i++)
        print_message("  %s\n", (const char *)paths->pdata[i]);
}

/* An initial file met only through cut names: one initial path under its
 * synthetic name, the one the records carry; the cut remove, the cut
 * lookup that found nothing and the one that cannot be named (a file the
 * trace made elsewhere: its name here came by a call not seen) add no
 * path: no empty name. */
static void test_map_synthetic_initial(void **s) {
    (void)s;
    static const char *const t[] = {
        "lookup 0 T cred=1:0:0 dir=1 name=\"cur\" newobj=2 " DIRA " fileid=102",
        "lookup 0 TC cred=1:0:0 dir=2 newobj=10 " FILEA " fileid=110",
        "lookup 2 TC cred=1:0:0 dir=2",
        "remove 0 TC cred=1:0:0 dir=2",
        "mkdir 0 T cred=1:0:0 dir=1 name=\"new\" set_mode=493 newobj=3 " DIRA,
        "create 0 T cred=1:0:0 dir=3 name=\"m\" createhow=0 set_mode=420 newobj=11 " FILEA " fileid=111",
        "lookup 0 TC cred=1:0:0 dir=2 newobj=11 " FILEA " fileid=111",
        NULL};
    GPtrArray *paths = map_paths(t);
    show(paths);
    assert_true(has_path(paths, "10 0 cur/tbbt-cut-10 644"));
    for (guint i = 0; i < paths->len; i++) {
        const char *p = paths->pdata[i];
        size_t n = strlen(p);
        assert_true(n && p[n - 1] != '/');
        assert_null(strstr(p, "//"));
    }
    assert_int_equal(paths->len, 5); /* ".", cur, cur/tbbt-cut-10, new, new/m */
    g_ptr_array_free(paths, TRUE);
}

/* A file made under a synthetic name, then listed under its real name:
 * one path, the synthetic one, made during the trace. */
static void test_map_listing_after_synthetic(void **s) {
    (void)s;
    static const char *const t[] = {
        "lookup 0 T cred=1:0:0 dir=1 name=\"tmp\" newobj=2 " DIRA " fileid=102",
        "create 0 TC cred=1:1000:100 dir=2 newobj=10 type=1 mode=384 nlink=1 uid=1000 gid=100 size=0 "
        "fileid=110",
        "readdirplus 0 T cred=1:0:0 obj=2 cookie=0 cookieverf=0 dircount=512 maxcount=4096 eof=1 "
        "entries=[110:1:10:1:0:\"1700000000.M1P2.mailhost\"]",
        NULL};
    GPtrArray *paths = map_paths(t);
    show(paths);
    assert_true(has_path(paths, "10 2000000000 tmp/tbbt-cut-10 600"));
    assert_int_equal(paths->len, 3);
    g_ptr_array_free(paths, TRUE);
}

/* Renames the snaplen cut before their target (or their source's
 * handle): left unreplayable by pass 2, they change nothing in the map
 * (pass 3 once took the missing names for empty ones, and crashed). */
static void test_map_cut_renames(void **s) {
    (void)s;
    static const char *const t[] = {"lookup 0 T cred=1:0:0 dir=1 name=\"cur\" newobj=2 " DIRA " fileid=102",
                                    "rename 0 TC cred=1:0:0 dir=2", "rename 0 TC cred=1:0:0",
                                    "rename 0 TCK cred=1:0:0 dir=2 name=\"a\"", NULL};
    GPtrArray *paths = map_paths(t);
    show(paths);
    assert_int_equal(paths->len, 2); /* ".", cur */
    g_ptr_array_free(paths, TRUE);
}

/* A directory whose first record was a lookup the snaplen cut (its name
 * unknowable, the record left out of the replay) showing mode 0700, then
 * shown 0755 by a getattr: pass 2 inserts the chmod after the cut lookup,
 * and the map's initial mode is the one the cut lookup showed. */
static void test_map_mode_from_cut_record(void **s) {
    (void)s;
    static const char *const t[] = {
        "mkdir 0 T cred=1:0:0 dir=1 name=\"new\" set_mode=493 newobj=3 " DIRA " fileid=103",
        "lookup 0 TC cred=1:0:0 dir=3 newobj=10 type=2 mode=448 nlink=2 uid=0 gid=0 size=4096 fileid=110",
        "getattr 0 T cred=1:0:0 obj=10 type=2 mode=493 nlink=2 uid=0 gid=0 size=4096 fileid=110", NULL};
    GPtrArray *paths = map_paths_n(t, 1);
    show(paths);
    int found = 0;
    for (guint i = 0; i < paths->len; i++) {
        const char *l = paths->pdata[i];
        if (!strncmp(l, "10 0 ", 5)) found = 1, assert_non_null(strstr(l, " 700"));
    }
    assert_true(found);
    g_ptr_array_free(paths, TRUE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_map_synthetic_initial),
        cmocka_unit_test(test_map_listing_after_synthetic),
        cmocka_unit_test(test_map_cut_renames),
        cmocka_unit_test(test_map_mode_from_cut_record),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
