/* fuzz_recfile.c -- libFuzzer target: the bytes are a record file
 * (NAME.tbbt: header skippable frame, zstd batches with checksums,
 * trailer), read to the end or the first error as every stage reads one.
 * Each record read must pass the writers' round trip; an error must come
 * with a message. */
#include "fuzz_util.h"

/* One input: the bytes as a record file, read to its end or first error;
 * each record must round-trip and an error must say what it is. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    char err[512];
    struct tbbt_recreader *rd = tbbt_recr_open(fuzz_memfile(data, size), err, sizeof(err));
    if (!rd) {
        if (!*err) abort();
        return 0;
    }
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    int k;
    while ((k = tbbt_recr_next(rd, &r)) == 1)
        fuzz_check_record(&r);
    if (k < 0 && !*tbbt_recr_error(rd)) abort();
    tbbt_rec_free(&r);
    tbbt_recr_close(rd);
    return 0;
}
