/* test_rectext.c -- the text form and JSON lines: exact round trips of
 * every field and edge value, hand-written golden lines (from the grammar
 * in rectext.h), parse errors naming the column, JSON checked by a real
 * JSON parser (python3), and tbbt-dump's text <-> binary round trip. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <glib.h>

#include "../data/rec-fixture.h"
#include "recfile.h"
#include "rectext.h"

/* Returns a path in the test's temporary directory (caller frees). */
static char *tpath(const char *name) {
    return g_strdup_printf("%s/%s", fx_tmpdir, name);
}

/* format -> parse -> format gives the same line and the same record, for
 * every header variant and every field with edge values. */
static void test_roundtrip(void **state) {
    (void)state;
    struct tbbt_rec r, back;
    char err[256];
    GString *a = g_string_new(NULL), *b = g_string_new(NULL);
    tbbt_rec_init(&r);
    tbbt_rec_init(&back);
    for (unsigned seed = 0; seed < 400; seed++) {
        fx_full(&r, seed, seed % 50 == 1 ? 2000 : seed % 6);
        if (seed % 9 == 0) r.has = 0; /* header only */
        g_string_truncate(a, 0);
        g_string_truncate(b, 0);
        assert_int_equal(tbbt_rec_format_text(&r, a), 0);
        assert_null(memchr(a->str, '\n', a->len));
        if (tbbt_rec_parse_text(&back, a->str, a->len, err, sizeof(err)) < 0)
            fail_msg("seed %u: %s\n%s", seed, err, a->str);
        const char *d = fx_diff(&r, &back);
        if (d) fail_msg("seed %u differs in %s:\n%s", seed, d, a->str);
        assert_int_equal(tbbt_rec_format_text(&back, b), 0);
        assert_string_equal(a->str, b->str);
    }
    g_string_free(a, TRUE);
    g_string_free(b, TRUE);
    tbbt_rec_free(&r);
    tbbt_rec_free(&back);
}

/* Golden record 1: a lookup over TCP with names that need escapes. */
static void golden1(struct tbbt_rec *r) {
    tbbt_rec_clear(r);
    r->call_time = 1500000000;
    r->reply_time = 1500200000;
    r->client.family = 4;
    memcpy(r->client.addr, "\xc0\xa8\x01\x02", 4);
    r->client.port = 801;
    r->server.family = 4;
    memcpy(r->server.addr, "\x0a\x00\x00\x01", 4);
    r->server.port = 2049;
    r->xid = 42;
    r->vers = 3;
    r->op = TBBT_OP_LOOKUP;
    r->status = 2;
    r->flags = TBBT_RF_TCP;
    r->cred = (struct tbbt_cred){1, 500, 100, 2, {100, 4}};
    tbbt_rec_set_u64(r, TBBT_F_DIR, 7);
    tbbt_rec_set_str(r, TBBT_F_NAME, "a b\"\xff", 5);
    tbbt_rec_set_u64(r, TBBT_F_NEWOBJ, 9);
    tbbt_rec_set_u64(r, TBBT_F_UID, 501);
    tbbt_rec_set_u64(r, TBBT_F_MTIME, (uint64_t)-1);
}
static const char golden1_text[] =
    "1.500000000 1.500200000 192.168.1.2:801 10.0.0.1:2049 0x0000002a v3 lookup 2 T "
    "cred=1:500:100:100,4 dir=7 name=\"a\\x20b\\\"\\xff\" newobj=9 uid=501 "
    "mtime=-0.000000001";

/* Golden record 2: an inserted v2 readdir whose reply was lost, IPv6 and
 * anonymised endpoints, a listing, a server-time setattr time. */
static void golden2(struct tbbt_rec *r) {
    tbbt_rec_clear(r);
    r->call_time = -2000000000;
    r->flags = TBBT_RF_REPLY_LOST | TBBT_RF_INSERTED;
    r->client.port = 2049;
    r->server.family = 6;
    r->server.addr[15] = 1;
    r->server.port = 20490;
    r->xid = 0xdeadbeef;
    r->vers = 2;
    r->op = TBBT_OP_READDIR;
    r->status = -1;
    tbbt_rec_set_u64(r, TBBT_F_SET_ATIME, (uint64_t)TBBT_TIME_SERVER);
    struct tbbt_dirent *e = tbbt_rec_add_entry(r, ".", 1);
    e->fileid = 2;
    e->cookie = 1;
    e = tbbt_rec_add_entry(r, "x,y:z", 5);
    e->fileid = 18446744073709551615ull;
    e->cookie = 3;
    e->id = 5;
    e->type = 1;
    e->size = 100;
}
static const char golden2_text[] =
    "-2.000000000 - -:2049 [::1]:20490 0xdeadbeef v2 readdir - LI cred=0:0:0 "
    "set_atime=server entries=[2:1:0:0:0:\".\",18446744073709551615:3:5:1:100:\"x,y:z\"]";

/* The formatter writes exactly the hand-written lines and the parser
 * reads them back into the hand-built records. */
static void test_golden(void **state) {
    (void)state;
    struct tbbt_rec r, back;
    char err[256];
    GString *s = g_string_new(NULL);
    tbbt_rec_init(&r);
    tbbt_rec_init(&back);
    void (*build[])(struct tbbt_rec *) = {golden1, golden2};
    const char *text[] = {golden1_text, golden2_text};
    for (int i = 0; i < 2; i++) {
        build[i](&r);
        g_string_truncate(s, 0);
        assert_int_equal(tbbt_rec_format_text(&r, s), 0);
        assert_string_equal(s->str, text[i]);
        if (tbbt_rec_parse_text(&back, text[i], strlen(text[i]), err, sizeof(err)) < 0) fail_msg("%s", err);
        assert_null(fx_diff(&r, &back));
    }
    /* tolerated input: runs of blanks, CRLF, fields out of order, upper-case hex */
    const char *loose =
        "1.500000000  1.500200000\t192.168.1.2:801 10.0.0.1:2049 0x0000002A v3 lookup 2 T "
        "cred=1:500:100:100,4 uid=501 dir=7 name=\"a\\x20b\\\"\\xFF\" newobj=9 mtime=-0.000000001\r\n";
    assert_int_equal(tbbt_rec_parse_text(&back, loose, strlen(loose), err, sizeof(err)), 0);
    golden1(&r);
    assert_null(fx_diff(&r, &back));
    g_string_free(s, TRUE);
    tbbt_rec_free(&r);
    tbbt_rec_free(&back);
}

/* Malformed lines fail with the column of the bad token. */
static void test_parse_errors(void **state) {
    (void)state;
    static const struct {
        const char *line;
        int column;
        const char *what;
    } bad[] = {
        {"", 1, "call time"},
        {"1.5 - - - 0x00000001 v3 null - L cred=0:0:0", 1, "call time"},
        {"1.500000000", 12, "reply time"},
        {"1.500000000 - - - 0x00000001 v3 null - - cred=0:0:0", 40, "must go together"},
        {"1.500000000 2.000000000 - - 0x00000001 v3 null - L cred=0:0:0", 50, "must go together"},
        {"1.500000000 - 1.2.3:4 - 0x00000001 v3 null - L cred=0:0:0", 15, "client"},
        {"1.500000000 - 1.2.3.4:65536 - 0x00000001 v3 null - L cred=0:0:0", 15, "client"},
        {"1.500000000 - - [::1] 0x00000001 v3 null - L cred=0:0:0", 17, "server"},
        {"1.500000000 - - - 0x1234567890 v3 null - L cred=0:0:0", 19, "xid"},
        {"1.500000000 - - - 0x00000001 3 null - L cred=0:0:0", 30, "version"},
        {"1.500000000 - - - 0x00000001 v3 nosuchproc - L cred=0:0:0", 33, "procedure"},
        {"1.500000000 - - - 0x00000001 v3 null 2147483648 L cred=0:0:0", 38, "status"},
        {"1.500000000 - - - 0x00000001 v3 null - LQ cred=0:0:0", 40, "flags"},
        {"1.500000000 - - - 0x00000001 v3 null - L", 41, "cred"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0", 42, "cred"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0:0:1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17", 42,
         "cred"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0:0 color=red", 53, "unknown field 'color'"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0:0 obj", 53, "key=value"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0:0 obj=1 obj=2", 59, "given twice"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0:0 count=4294967296", 59, "'count'"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0:0 name=\"abc", 58, "'name'"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0:0 name=\"a\\q\"", 58, "'name'"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0:0 name=\"a b\"", 58, "'name'"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0:0 mtime=1.5", 59, "'mtime'"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0:0 entries=[1:2:3:4:5:\"a\"", 62, "'entries'"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0:0 entries=[1:2:3:256:5:\"a\"]", 62, "'entries'"},
        {"1.500000000 - - - 0x00000001 v3 null - L cred=0:0:0 entries=[1:2:3:4:5:\"a\",1:2]", 76,
         "'entries'"},
    };
    struct tbbt_rec r;
    char err[256], want[64];
    tbbt_rec_init(&r);
    /* a NUL byte cannot hide the rest of a token */
    static const char nul[] = "1.500000000 - - - 0x00000001 v3 getattr\0x - L cred=0:0:0";
    assert_int_equal(tbbt_rec_parse_text(&r, nul, sizeof(nul) - 1, err, sizeof(err)), -1);
    assert_string_equal(err, "column 40: NUL byte in the line");
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        if (tbbt_rec_parse_text(&r, bad[i].line, strlen(bad[i].line), err, sizeof(err)) == 0)
            fail_msg("accepted: %s", bad[i].line);
        snprintf(want, sizeof(want), "column %d: ", bad[i].column);
        if (strncmp(err, want, strlen(want)) != 0 || !strstr(err, bad[i].what))
            fail_msg("line %zu: got \"%s\", want \"%s...%s\"", i, err, want, bad[i].what);
    }
    tbbt_rec_free(&r);
}

/* Runs cmd through the shell; returns its exit status (-1 if it did not
 * exit normally). */
static int run(const char *cmd) {
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Python check of the JSON lines: every line is one JSON object with the
 * required keys; the golden records' values are checked one by one. */
static const char pycheck[] =
    "import json, sys\n"
    "lines = open(sys.argv[1], encoding='utf-8').read().split('\\n')\n"
    "assert lines[-1] == '', 'missing final newline'\n"
    "objs = [json.loads(l) for l in lines[:-1]]\n"
    "need = ['call_time','reply_time','client','server','xid','vers','proc','status','inserted','reply_lost',"
    "'uid','gid']\n"
    "for o in objs:\n"
    "    assert isinstance(o, dict) and all(k in o for k in need), o\n"
    "a, b = objs[0], objs[1]\n"
    "assert '\"call_time\":1.500000000,' in lines[0]\n"
    "assert a['call_time'] == 1.5 and a['reply_time'] == 1.5002, a\n"
    "assert a['client'] == '192.168.1.2:801' and a['server'] == '10.0.0.1:2049'\n"
    "assert a['xid'] == 42 and a['vers'] == 3 and a['proc'] == 'lookup' and a['status'] == 2\n"
    "assert a['inserted'] is False and a['reply_lost'] is False\n"
    "assert a['uid'] == 500 and a['gid'] == 100 and a['gids'] == [100, 4] and a['attr_uid'] == 501\n"
    "assert a['name'] == 'a b\"\\u00ff' and a['dir'] == 7 and a['newobj'] == 9 and a['mtime'] == -1e-9\n"
    "assert b['reply_time'] is None and b['status'] is None and b['reply_lost'] is True\n"
    "assert b['inserted'] is True and b['proc'] == 'readdir' and b['vers'] == 2\n"
    "assert b['client'] == '-:2049' and b['server'] == '[::1]:20490' and b['xid'] == 0xdeadbeef\n"
    "assert b['set_atime'] == 'server' and b['call_time'] == -2.0\n"
    "assert b['entries'] == [{'fileid':2,'cookie':1,'id':0,'type':0,'size':0,'name':'.'},"
    "{'fileid':18446744073709551615,'cookie':3,'id':5,'type':1,'size':100,'name':'x,y:z'}], b['entries']\n"
    "assert len(objs) == int(sys.argv[2]), len(objs)\n";

/* JSON lines of the golden records and of every fixture variant parse as
 * JSON and carry the documented values. */
static void test_json(void **state) {
    (void)state;
    if (run("python3 -c 'import json' 2>/dev/null") != 0) skip();
    struct tbbt_rec r;
    GString *s = g_string_new(NULL);
    tbbt_rec_init(&r);
    golden1(&r);
    tbbt_rec_format_json(&r, s);
    g_string_append_c(s, '\n');
    golden2(&r);
    tbbt_rec_format_json(&r, s);
    g_string_append_c(s, '\n');
    for (unsigned seed = 0; seed < 100; seed++) {
        fx_full(&r, seed, seed % 4);
        tbbt_rec_format_json(&r, s);
        g_string_append_c(s, '\n');
    }
    char *jl = tpath("out.jsonl"), *py = tpath("check.py");
    assert_true(g_file_set_contents(jl, s->str, (gssize)s->len, NULL));
    assert_true(g_file_set_contents(py, pycheck, -1, NULL));
    char *cmd = g_strdup_printf("python3 '%s' '%s' 102", py, jl);
    assert_int_equal(run(cmd), 0);
    g_free(cmd);
    g_free(jl);
    g_free(py);
    g_string_free(s, TRUE);
    tbbt_rec_free(&r);
}

/* tbbt-dump: text -> binary -> text is the identity; errors name the
 * file and line; bad usage exits 2. */
static void test_dump_tool(void **state) {
    (void)state;
    const char *build = getenv("TBBT_BUILD");
    if (!build) skip();
    char *dump = g_strdup_printf("%s/tools/tbbt-dump", build);
    if (!g_file_test(dump, G_FILE_TEST_IS_EXECUTABLE)) skip();
    struct tbbt_rec r;
    GString *s = g_string_new(NULL);
    tbbt_rec_init(&r);
    for (unsigned seed = 0; seed < 200; seed++) {
        fx_full(&r, seed, seed % 7);
        assert_int_equal(tbbt_rec_format_text(&r, s), 0);
        g_string_append_c(s, '\n');
    }
    char *txt = tpath("in.txt"), *bin = tpath("out.tbbt"), *back = tpath("back.txt"),
         *errf = tpath("err.txt");
    assert_true(g_file_set_contents(txt, s->str, (gssize)s->len, NULL));
    char *cmd =
        g_strdup_printf("'%s' --text-in -o '%s' '%s' && '%s' '%s' > '%s'", dump, bin, txt, dump, bin, back);
    assert_int_equal(run(cmd), 0);
    g_free(cmd);
    gchar *got;
    assert_true(g_file_get_contents(back, &got, NULL, NULL));
    assert_string_equal(got, s->str);
    g_free(got);
    cmd = g_strdup_printf("'%s' --jsonl '%s' | python3 -c 'import sys,json; n=sum(1 for l in sys.stdin if "
                          "json.loads(l)); sys.exit(n != 200)'",
                          dump, bin);
    assert_int_equal(run(cmd), 0);
    g_free(cmd);
    /* a bad second line: exit 1, message names file:line, no output file */
    assert_true(g_file_set_contents(txt, "# comment\n1.500000000 - - - 0x00000001 v3 nul - L cred=0:0:0\n",
                                    -1, NULL));
    unlink(bin);
    cmd = g_strdup_printf("'%s' --text-in -o '%s' '%s' 2> '%s'", dump, bin, txt, errf);
    assert_int_equal(run(cmd), 1);
    g_free(cmd);
    assert_false(g_file_test(bin, G_FILE_TEST_EXISTS));
    assert_true(g_file_get_contents(errf, &got, NULL, NULL));
    char *want = g_strdup_printf("%s:2: column 33:", txt);
    if (!strstr(got, want)) fail_msg("stderr: %s", got);
    g_free(want);
    g_free(got);
    cmd = g_strdup_printf("'%s' 2>/dev/null", dump);
    assert_int_equal(run(cmd), 2);
    g_free(cmd);
    cmd = g_strdup_printf("'%s' --no-such-option x 2>/dev/null", dump);
    assert_int_equal(run(cmd), 2);
    g_free(cmd);
    cmd = g_strdup_printf("'%s' '%s' >/dev/null 2>&1", dump, txt); /* text is not a record file */
    assert_int_equal(run(cmd), 1);
    g_free(cmd);
    g_free(txt);
    g_free(bin);
    g_free(back);
    g_free(errf);
    g_free(dump);
    g_string_free(s, TRUE);
    tbbt_rec_free(&r);
}

/* tests/data/rec-sample.txt (hand-written, one record of each common
 * kind, for Perl script tests too) is in canonical form: every line parses
 * and formats back to itself. */
static void test_sample_file(void **state) {
    (void)state;
    const char *src = getenv("TBBT_SRC");
    if (!src) skip();
    char *path = g_strdup_printf("%s/tests/data/rec-sample.txt", src), *data;
    char err[256];
    assert_true(g_file_get_contents(path, &data, NULL, NULL));
    gchar **lines = g_strsplit(data, "\n", -1);
    struct tbbt_rec r;
    GString *s = g_string_new(NULL);
    tbbt_rec_init(&r);
    int n = 0;
    for (int i = 0; lines[i] && lines[i][0]; i++, n++) {
        if (tbbt_rec_parse_text(&r, lines[i], strlen(lines[i]), err, sizeof(err)) < 0)
            fail_msg("%s:%d: %s", path, i + 1, err);
        g_string_truncate(s, 0);
        assert_int_equal(tbbt_rec_format_text(&r, s), 0);
        assert_string_equal(s->str, lines[i]);
    }
    assert_true(n >= 10);
    g_strfreev(lines);
    g_string_free(s, TRUE);
    tbbt_rec_free(&r);
    g_free(data);
    g_free(path);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),    cmocka_unit_test(test_golden),
        cmocka_unit_test(test_parse_errors), cmocka_unit_test(test_json),
        cmocka_unit_test(test_dump_tool),    cmocka_unit_test(test_sample_file),
    };
    return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
