/* test_opttab.c -- lib/opttab's port lists and "did you mean" suggestions:
 * the parsers alone, then through tbbt_opt_parse (a usage error exits 2,
 * so those cases run in a child process and the test reads its stderr). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "opttab.h"

static struct tbbt_opt_ports ports;
static gboolean gro, quiet;
static gint count;
static const struct tbbt_opt table[] = {
    {.name = "server-port",
     .type = TBBT_OPT_PORTS,
     .var = &ports,
     .arg = "PORTS",
     .def = "2049",
     .help = "ports"},
    {.name = "gro", .type = TBBT_OPT_FLAG, .var = &gro, .help = "coalesce"},
    {.name = "count",
     .short_name = 'c',
     .type = TBBT_OPT_INT,
     .var = &count,
     .arg = "N",
     .lo = 1,
     .hi = 9,
     .help = "how many"},
    {.name = "secret", .type = TBBT_OPT_FLAG, .var = &quiet, .help = "hidden", .flags = TBBT_OPT_HIDDEN},
    TBBT_OPT_END,
};
static const struct tbbt_cmd cmd = {
    .tool = "t-opt", .synopsis = "t-opt [options]", .params = "", .opts = table};

/* Lists of 1 to 16 ports in 1..65535 parse, in order. */
static void test_ports_ok(void **st) {
    (void)st;
    struct tbbt_opt_ports p;
    assert_int_equal(tbbt_opt_parse_ports("2049", &p), 0);
    assert_int_equal(p.n, 1);
    assert_int_equal(p.v[0], 2049);
    assert_int_equal(tbbt_opt_parse_ports("1,65535,20048", &p), 0);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.v[0], 1);
    assert_int_equal(p.v[1], 65535);
    assert_int_equal(p.v[2], 20048);
    assert_int_equal(tbbt_opt_parse_ports("1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16", &p), 0);
    assert_int_equal(p.n, TBBT_OPT_MAX_PORTS);
    assert_int_equal(p.v[15], 16);
}

/* Out of range, empty, signed, spaced, one too many, trailing junk: refused. */
static void test_ports_bad(void **st) {
    (void)st;
    struct tbbt_opt_ports p;
    const char *bad[] = {"",      "0",    "65536", "99999999999999999999",
                         "-1",    "+1",   "1,",    ",1",
                         "1,,2",  "1, 2", " 1",    "2049,x",
                         "0x801", "1;2",  "1.5",   "1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (tbbt_opt_parse_ports(bad[i], &p) == 0) fail_msg("'%s' accepted", bad[i]);
    }
}

/* Typos and shortened names get the closest visible option; far names,
 * hidden options and a tie broken by the table's order as documented. */
static void test_suggest(void **st) {
    (void)st;
    assert_string_equal(tbbt_opt_suggest(table, "grow"), "gro");
    assert_string_equal(tbbt_opt_suggest(table, "gor"), "gro");            /* a swap */
    assert_string_equal(tbbt_opt_suggest(table, "coun"), "count");         /* shortened */
    assert_string_equal(tbbt_opt_suggest(table, "count=3x"), "count");     /* the value is not the name */
    assert_string_equal(tbbt_opt_suggest(table, "server"), "server-port"); /* first 3 characters */
    assert_string_equal(tbbt_opt_suggest(table, "serverport"), "server-port");
    assert_null(tbbt_opt_suggest(table, "bogus"));
    assert_null(tbbt_opt_suggest(table, "secrets")); /* hidden: never suggested */
    assert_null(tbbt_opt_suggest(table, "x"));
}

/* Runs tbbt_opt_parse on argv in a child; returns its exit code (the
 * parse succeeding: 0) and its stderr's first line in line. */
static int parse_in_child(char **argv, char *line, size_t n) {
    int fd[2];
    if (pipe(fd) < 0) fail_msg("pipe");
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        int argc = 0;
        while (argv[argc])
            argc++;
        dup2(fd[1], 2);
        close(fd[0]);
        tbbt_opt_parse(&cmd, &argc, &argv);
        _exit(0);
    }
    close(fd[1]);
    FILE *f = fdopen(fd[0], "r");
    if (!fgets(line, (int)n, f)) line[0] = 0;
    line[strcspn(line, "\n")] = 0;
    while (fgetc(f) != EOF)
        ;
    fclose(f);
    int status;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Through the parser: an unknown option near one is named with the
 * suggestion (exit 2); a far one keeps GLib's words; a value that looks
 * like an option is a value; a bad port list names what is allowed. */
static void test_parse_errors(void **st) {
    (void)st;
    char line[512];
    char *a1[] = {"t-opt", "--grow", NULL};
    assert_int_equal(parse_in_child(a1, line, sizeof(line)), 2);
    assert_string_equal(line, "t-opt: Unknown option --grow (did you mean --gro?)");
    char *a2[] = {"t-opt", "--coun=3", NULL};
    assert_int_equal(parse_in_child(a2, line, sizeof(line)), 2);
    assert_string_equal(line, "t-opt: Unknown option --coun (did you mean --count?)");
    char *a3[] = {"t-opt", "--bogus", NULL};
    assert_int_equal(parse_in_child(a3, line, sizeof(line)), 2);
    assert_string_equal(line, "t-opt: Unknown option --bogus");
    char *a4[] = {"t-opt", "--server-port", "2049,x", NULL};
    assert_int_equal(parse_in_child(a4, line, sizeof(line)), 2);
    assert_string_equal(line, "t-opt: --server-port 2049,x: must be a comma-separated list of up to 16 ports "
                              "from 1 to 65535");
    char *a5[] = {"t-opt", "-c", "3", "--", "--grow", NULL}; /* after "--": an operand */
    assert_int_equal(parse_in_child(a5, line, sizeof(line)), 0);
}

/* A port list is set from its default and from the command line. */
static void test_parse_ports(void **st) {
    (void)st;
    char *args[] = {"t-opt", "--server-port", "2049,20048", "--gro", "in", NULL};
    char **argv = args;
    int argc = 5;
    tbbt_opt_parse(&cmd, &argc, &argv);
    assert_int_equal(argc, 2);
    assert_string_equal(argv[1], "in");
    assert_int_equal(ports.n, 2);
    assert_int_equal(ports.v[0], 2049);
    assert_int_equal(ports.v[1], 20048);
    assert_true(gro);
    assert_true(tbbt_opt_given(&cmd, &ports));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ports_ok),    cmocka_unit_test(test_ports_bad),
        cmocka_unit_test(test_suggest),     cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_ports),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
