/* fuzz_rectext.c -- libFuzzer target: the bytes are lines of the records'
 * text form (tbbt-dump's output, tbbt-prep's text input), each parsed as
 * the readers do. A line that parses must pass the writers' round trip
 * (its text form reads back the same, and so does its binary encoding);
 * a line that does not must say why. */
#include "fuzz_util.h"

/* One input: each line parsed as a record's text form; a parsed record
 * must round-trip, a refused line must say why. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    const char *p = (const char *)data, *end = p + size;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        char err[256] = "";
        if (tbbt_rec_parse_text(&r, p, len, err, sizeof(err)) == 0)
            fuzz_check_record(&r);
        else if (!*err)
            abort();
        p += len;
    }
    tbbt_rec_free(&r);
    return 0;
}
