/* fuzz_hmap.c -- libFuzzer target: the bytes are a hierarchy map
 * (NAME.hmap), read to its end line or the first error as tbbt-init reads
 * one. Each entry read must format and parse back to the same line; an
 * error must come with a message. */
#include "fuzz_util.h"

#include "hmap.h"

/* An entry's line, parsed back, gives the same line. */
static void check_entry(const struct tbbt_hm_entry *e) {
    GString *l1 = g_string_new(NULL), *l2 = g_string_new(NULL), *buf = g_string_new(NULL);
    struct tbbt_hm_entry back;
    char err[256];
    tbbt_hm_format(l1, e);
    if (tbbt_hm_parse(l1->str, l1->len, &back, buf, err, sizeof(err)) != 0) {
        fprintf(stderr, "entry written as \"%s\" does not read back: %s\n", l1->str, err);
        abort();
    }
    tbbt_hm_format(l2, &back);
    if (!g_string_equal(l1, l2)) {
        fprintf(stderr, "entry written as \"%s\" reads back as \"%s\"\n", l1->str, l2->str);
        abort();
    }
    g_string_free(l1, TRUE);
    g_string_free(l2, TRUE);
    g_string_free(buf, TRUE);
}

/* One input: the bytes as a map file, read as tbbt-init reads one; every
 * entry must round-trip, and a refusal must carry its reason. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512] = "";
    struct tbbt_hmapr *r = tbbt_hmapr_open(fuzz_memfile(data, size), err, sizeof(err));
    if (!r) {
        if (!*err) abort();
        return 0;
    }
    struct tbbt_hm_entry e;
    int k;
    while ((k = tbbt_hmapr_next(r, &e, err, sizeof(err))) == 1)
        check_entry(&e);
    if (k < 0 && !*err) abort();
    (void)tbbt_hmapr_comment(r);
    tbbt_hmapr_close(r);
    return 0;
}
