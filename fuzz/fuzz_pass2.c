/* fuzz_pass2.c -- libFuzzer target: pass 2 (correct/, tbbt-check's path,
 * tbbt-prep's second pass) fed an arbitrary record stream. The bytes are
 * lines of the records' text form (the form tbbt-dump writes and a user
 * hand-edits); every line that parses goes to the pass in input order, as
 * tbbt-check feeds a file's records, whatever their call times, IDs,
 * object types or names. A small window (8 records) so the held-back
 * placement, the window's end and the lost-reply resolution are reached
 * within a few lines. What must hold: no crash, no sanitizer report, no
 * hang; every record the pass writes survives the writers' round trip
 * (fuzz_check_record: the record file a stage writes reads back the
 * same); the counts agree with what the sink saw; both reports can be
 * written. */
#include "fuzz_util.h"

#include "pass2.h"

struct seen {
    uint64_t out, inserted;
};

/* The pass's sink: each record it writes must round-trip. */
static int sink(void *ctx, const struct tbbt_rec *r) {
    struct seen *s = ctx;
    fuzz_check_record(r);
    s->out++;
    if (r->flags & TBBT_RF_INSERTED) s->inserted++;
    return 0;
}

/* One input: its parsed lines through pass 2, then both reports. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FILE *null;
    if (!null && !(null = fopen("/dev/null", "w"))) abort();
    struct tbbt_pass2_opts o;
    tbbt_pass2_opts_default(&o);
    o.window = 8;
    o.max_listed = 4;
    o.list_corrected = size & 1;
    struct seen seen = {0};
    struct tbbt_pass2 *p = tbbt_pass2_new(&o, sink, &seen);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    uint64_t put = 0, flagged = 0; /* records put, of which already flagged inserted */
    size_t at = 0, len = 0;
    const char *c;
    while ((c = fuzz_next_line(data, size, &at, &len)) != NULL) {
        char err[256];
        if (tbbt_rec_parse_text(&r, c, len, err, sizeof(err)) == 0) {
            if (tbbt_pass2_put(p, &r) != 0) abort(); /* the sink never fails */
            put++;
            flagged += (r.flags & TBBT_RF_INSERTED) != 0;
        }
    }
    if (tbbt_pass2_finish(p) != 0) abort();
    const struct tbbt_pass2_stats *s = tbbt_pass2_stats(p);
    if (s->records_in != put || s->records_out != seen.out || s->inserted + flagged != seen.inserted) {
        fprintf(
            stderr,
            "pass 2 counts: in %llu (put %llu), out %llu (sink %llu), inserted %llu + %llu put (sink %llu)\n",
            (unsigned long long)s->records_in, (unsigned long long)put, (unsigned long long)s->records_out,
            (unsigned long long)seen.out, (unsigned long long)s->inserted, (unsigned long long)flagged,
            (unsigned long long)seen.inserted);
        abort();
    }
    tbbt_pass2_report(p, null);
    GString *json = g_string_new(NULL);
    tbbt_pass2_report_json(p, json);
    g_string_free(json, TRUE);
    tbbt_pass2_free(p);
    tbbt_rec_free(&r);
    return 0;
}
