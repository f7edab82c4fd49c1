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
    size_t at = 0, len = 0;
    const char *p;
    while ((p = fuzz_next_line(data, size, &at, &len)) != NULL) {
        char err[256] = "";
        if (tbbt_rec_parse_text(&r, p, len, err, sizeof(err)) == 0)
            fuzz_check_record(&r);
        else if (!*err)
            abort();
    }
    tbbt_rec_free(&r);
    return 0;
}
