/* fuzz_ellard.c -- libFuzzer target: the bytes are lines of Ellard's
 * nfsdump text, read as tbbt-prep reads them (transform/ellard.h) into
 * pass 1. Every line is used or refused with a reason; every record pass 1
 * hands on (with the fields nfsdump does not print removed) must survive
 * the writers' round trip. */
#include "fuzz_util.h"

#include "ellard.h"

/* The records: checked, then dropped. */
static int check_sink(void *ctx, const struct tbbt_rec *r) {
    (void)ctx;
    fuzz_check_record(r);
    return 0;
}

/* One input: each line to the reader, then pass 1 finished. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct tbbt_pass1_opts po;
    tbbt_pass1_opts_default(&po);
    struct tbbt_ellard_sinkctx sc = {NULL, check_sink, NULL};
    struct tbbt_pass1 *p1 = tbbt_pass1_new(&po, tbbt_ellard_sink, &sc);
    const struct tbbt_ellard_opts eo = {0, 0, 0};
    struct tbbt_ellard *e = tbbt_ellard_new(&eo, tbbt_pass1_msg, p1);
    sc.reader = e;
    size_t at = 0, len = 0;
    const char *p;
    char *line = NULL;
    while ((p = fuzz_next_line(data, size, &at, &len)) != NULL) {
        line = g_realloc(line, len + 1);
        memcpy(line, p, len);
        size_t n = len;
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
            n--;
        line[n] = 0;
        char why[256] = "";
        if (tbbt_ellard_line(e, line, strlen(line), why, sizeof(why)) != 0 && !*why) abort();
    }
    g_free(line);
    (void)tbbt_pass1_finish(p1);
    tbbt_pass1_free(p1);
    tbbt_ellard_free(e);
    return 0;
}
