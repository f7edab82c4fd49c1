/* test_safename.c -- the names tbbt-init and tbbt-play refuse to send. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "safename.h"

#define N(s) (s), sizeof(s) - 1

/* Climbing or multi-component names are refused; ordinary ones pass,
 * including dots that are not a whole name. */
static void test_rules(void **st) {
    (void)st;
    assert_non_null(tbbt_name_unsafe(N("")));
    assert_non_null(tbbt_name_unsafe(N(".")));
    assert_non_null(tbbt_name_unsafe(N("..")));
    assert_non_null(tbbt_name_unsafe(N("../etc")));
    assert_non_null(tbbt_name_unsafe(N("a/b")));
    assert_non_null(tbbt_name_unsafe(N("/")));
    assert_non_null(tbbt_name_unsafe("a\0b", 3));
    assert_null(tbbt_name_unsafe(N("...")));
    assert_null(tbbt_name_unsafe(N(".hidden")));
    assert_null(tbbt_name_unsafe(N("..x")));
    assert_null(tbbt_name_unsafe(N("f0")));
    assert_null(tbbt_name_unsafe(N("a b\\c")));
    /* the length, not a NUL, ends the name */
    assert_non_null(tbbt_name_unsafe("..x", 2));
    assert_null(tbbt_name_unsafe("ab/", 2));
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_rules)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
