/* test_hmap.c -- the hierarchy map's text form: every column round-trips
 * (names with any byte), bad lines are refused with their column, and the
 * reader refuses a map whose parents come late or that was cut short. */
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

/* A line formatted then parsed gives the same entry, and the same line. */
static void test_round_trip(void **s) {
    (void)s;
    struct tbbt_hm_entry e = {.id = 42,
                              .parent = 7,
                              .create = 1094518561000400000,
                              .del = TBBT_HM_NEVER,
                              .type = TBBT_FT_LNK,
                              .known = TBBT_HM_SIZE | TBBT_HM_MODE | TBBT_HM_UID,
                              .size = 12,
                              .mode = 0777,
                              .uid = 1000,
                              .origin = TBBT_HM_TRACE,
                              .path = "dir with space/q\"uote\\back\xff",
                              .target = "../t a"};
    GString *line = g_string_new(NULL), *buf = g_string_new(NULL), *again = g_string_new(NULL);
    tbbt_hm_format(line, &e);
    assert_null(strchr(line->str, '\n'));
    /* no token holds a space: 12 columns for split ' ' */
    gchar **cols = g_strsplit(line->str, " ", -1);
    assert_int_equal(g_strv_length(cols), 12);
    g_strfreev(cols);
    struct tbbt_hm_entry p;
    char err[128];
    assert_int_equal(tbbt_hm_parse(line->str, line->len, &p, buf, err, sizeof(err)), 0);
    assert_int_equal(p.id, 42);
    assert_int_equal(p.parent, 7);
    assert_int_equal(p.create, e.create);
    assert_true(p.del == TBBT_HM_NEVER);
    assert_int_equal(p.type, TBBT_FT_LNK);
    assert_int_equal(p.known, e.known);
    assert_int_equal(p.size, 12);
    assert_int_equal(p.mode, 0777);
    assert_int_equal(p.uid, 1000);
    assert_int_equal(p.origin, 't');
    assert_string_equal(p.path, e.path);
    assert_string_equal(p.target, "../t a");
    tbbt_hm_format(again, &p);
    assert_string_equal(again->str, line->str);
    g_string_free(line, TRUE), g_string_free(buf, TRUE), g_string_free(again, TRUE);
}

/* The formatter writes the columns exactly as the format says: numbers in
 * decimal to 64 bits, the mode in octal with a leading 0 (also mode 0),
 * "-" for what is not known. */
static void test_exact_text(void **s) {
    (void)s;
    struct tbbt_hm_entry e = {.id = UINT64_MAX,
                              .parent = 0,
                              .create = 0,
                              .del = 1000000001,
                              .type = TBBT_FT_REG,
                              .known = TBBT_HM_MODE | TBBT_HM_GID | TBBT_HM_SIZE,
                              .size = 4096,
                              .mode = 0,
                              .gid = 4294967295u,
                              .origin = TBBT_HM_TRACE,
                              .path = "a"};
    GString *line = g_string_new(NULL);
    tbbt_hm_format(line, &e);
    assert_string_equal(line->str, "18446744073709551615 0 0 1.000000001 reg 4096 00 - 4294967295 t \"a\" -");
    g_string_truncate(line, 0);
    e.mode = 04755;
    e.known = TBBT_HM_MODE | TBBT_HM_UID;
    e.uid = 7;
    e.origin = 'p';
    e.target = "b";
    e.type = TBBT_FT_LNK;
    tbbt_hm_format(line, &e);
    assert_string_equal(line->str, "18446744073709551615 0 0 1.000000001 lnk - 04755 7 - p \"a\" \"b\"");
    g_string_free(line, TRUE);
}

/* Unknown columns are "-"; created 0 and never deleted read back so. */
static void test_unknowns(void **s) {
    (void)s;
    const char *l = "5 1 0 - reg - - - - p \"tbbt-subtree-5\" -\n";
    GString *buf = g_string_new(NULL);
    struct tbbt_hm_entry p;
    char err[128];
    assert_int_equal(tbbt_hm_parse(l, strlen(l), &p, buf, err, sizeof(err)), 0);
    assert_int_equal(p.create, 0);
    assert_true(p.del == TBBT_HM_NEVER);
    assert_int_equal(p.known, 0);
    assert_null(p.target);
    assert_int_equal(p.origin, 'p');
    g_string_free(buf, TRUE);
}

/* Each malformed line is refused, naming the column at fault. */
static void test_bad_lines(void **s) {
    (void)s;
    static const struct {
        const char *line, *err;
    } cases[] = {
        {"0 1 0 - reg 1 0644 0 0 t \"a\" -", "column 1"},
        {"x 1 0 - reg 1 0644 0 0 t \"a\" -", "column 1"},
        {"2 1 0 - file 1 0644 0 0 t \"a\" -", "column 5"},
        {"2 1 abc - reg 1 0644 0 0 t \"a\" -", "column 3"},
        {"2 1 5.000000000 4.000000000 reg 1 0644 0 0 t \"a\" -", "column 4"},
        {"2 1 0 0 reg 1 0644 0 0 t \"a\" -", "column 4"}, /* fuzz_hmap: read, written back unreadable */
        {"2 1 0 - reg 1 0899 0 0 t \"a\" -", "column 7"},
        {"2 1 0 - reg 1 0644 0 0 z \"a\" -", "column 10"},
        {"2 1 0 - reg 1 0644 0 0 t a -", "column 11"},
        {"2 1 0 - reg 1 0644 0 0 t \"a\"", "column 12: missing"}, /* the column that is not there */
        {"2 1 0 - reg", "column 6: missing"},
        {"2", "column 2: missing"},
        {"2 1 0 - reg 1 0644 0 0 t \"a\" - extra", "column 13"},
        {"2 1 0 - reg 1 0644 0 0 t \"\" -", "column 11"},
        {"2 1 0 - reg 99999999999999999999 0644 0 0 t \"a\" -", "column 6"},
    };
    GString *buf = g_string_new(NULL);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct tbbt_hm_entry p;
        char err[128] = "";
        int rc = tbbt_hm_parse(cases[i].line, strlen(cases[i].line), &p, buf, err, sizeof(err));
        if (rc != -1 || !strstr(err, cases[i].err))
            fail_msg("%s: rc %d, err '%s', want '%s'", cases[i].line, rc, err, cases[i].err);
    }
    g_string_free(buf, TRUE);
}

/* Writes text to a temporary file; returns its path (g_free it). */
static char *temp_file(const char *text) {
    char *path = g_strdup("/tmp/test_hmap.XXXXXX");
    int fd = g_mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

/* Reads a whole map; returns the entries read, or -1 with err. */
static int read_all(const char *path, char *err, size_t errlen) {
    struct tbbt_hmapr *r = tbbt_hmapr_open(path, err, errlen);
    if (!r) return -1;
    struct tbbt_hm_entry e;
    int n = 0, rc;
    while ((rc = tbbt_hmapr_next(r, &e, err, errlen)) == 1)
        n++;
    tbbt_hmapr_close(r);
    return rc < 0 ? -1 : n;
}

/* The writer's file reads back; the reader refuses late parents, a cut
 * file, a wrong end count and a foreign file, naming file and line. */
static void test_reader_writer(void **s) {
    (void)s;
    char err[256], *dir = g_strdup("/tmp/test_hmap.d.XXXXXX");
    assert_non_null(g_mkdtemp(dir));
    char *path = g_strdup_printf("%s/x.hmap", dir);
    struct tbbt_hmapw *w = tbbt_hmapw_open(path, "source test\nline two", err, sizeof(err));
    assert_non_null(w);
    struct tbbt_hm_entry e = {.id = 1, .del = TBBT_HM_NEVER, .type = TBBT_FT_DIR, .origin = 'r', .path = "."};
    assert_int_equal(tbbt_hmapw_put(w, &e), 0);
    e = (struct tbbt_hm_entry){.id = 2, .parent = 1, .del = TBBT_HM_NEVER, .type = TBBT_FT_REG, .path = "f"};
    assert_int_equal(tbbt_hmapw_put(w, &e), 0);
    assert_false(g_file_test(path, G_FILE_TEST_EXISTS)); /* written under a temporary name */
    assert_int_equal(tbbt_hmapw_close(w, err, sizeof(err)), 0);
    assert_int_equal(read_all(path, err, sizeof(err)), 2);
    struct tbbt_hmapr *r = tbbt_hmapr_open(path, err, sizeof(err));
    while (tbbt_hmapr_next(r, &e, err, sizeof(err)) == 1) {
    }
    assert_string_equal(tbbt_hmapr_comment(r), "source test\nline two");
    tbbt_hmapr_close(r);
    unlink(path);

    static const struct {
        const char *text, *err;
    } bad[] = {
        {"# tbbt-hmap 1\n2 1 0 - reg - - - - t \"f\" -\n1 0 0 - dir - - - - r \".\" -\n# end 2\n",
         ":2: parent"},
        {"# tbbt-hmap 1\n1 0 0 - dir - - - - r \".\" -\n", ":3: incomplete"},
        {"# tbbt-hmap 1\n1 0 0 - dir - - - - r \".\" -\n# end 2\n", ":3: end line"},
        {"# tbbt-hmap 1\n1 0 0 - dir - - - - r \".\" -\n# end 1\n1 0 0 - dir - - - - r \".\" -\n",
         ":4: data after"},
        {"id parent\n", ":1: not a tbbt-hmap"},
        {"# tbbt-hmap 1\n1 0 0 - dir - - - - r \".\" 3\n# end 1\n", ":2: column 12"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *f = temp_file(bad[i].text);
        err[0] = 0;
        int n = read_all(f, err, sizeof(err));
        if (n != -1 || !strstr(err, bad[i].err) || strncmp(err, f, strlen(f)) != 0)
            fail_msg("case %zu: got %d '%s', want '%s'", i, n, err, bad[i].err);
        unlink(f);
        g_free(f);
    }
    assert_int_equal(read_all("/nonexistent/x.hmap", err, sizeof(err)), -1);
    assert_non_null(strstr(err, "/nonexistent/x.hmap"));
    rmdir(dir);
    g_free(path), g_free(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),    cmocka_unit_test(test_exact_text),
        cmocka_unit_test(test_unknowns),      cmocka_unit_test(test_bad_lines),
        cmocka_unit_test(test_reader_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
