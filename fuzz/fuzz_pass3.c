/* fuzz_pass3.c -- libFuzzer target: pass 3 (hierarchy/, tbbt-map's path,
 * tbbt-prep's third pass) fed an arbitrary record stream. The bytes are
 * lines of the records' text form; every line that parses goes to the
 * pass in input order, as tbbt-map feeds a file's records (IDs out of
 * order, objects of the wrong type, renames into their own subtree, a
 * remove of a name never seen). The first byte's low bit says whether
 * ID 1 is given as the export root (tbbt-map --root). What must hold:
 * no crash, no sanitizer report, no hang; every record the pass writes
 * (with its victim IDs) survives the writers' round trip; the map it
 * writes reads back through tbbt-init's reader to its end line, every
 * entry giving the same line back; the reports can be written. */
#include "fuzz_util.h"

#include "hmap.h"
#include "pass3.h"

/* The pass's sink: each record it writes must round-trip. */
static int sink(void *ctx, const struct tbbt_rec *r) {
    uint64_t *n = ctx;
    fuzz_check_record(r);
    ++*n;
    return 0;
}

/* A second memory file for the map the pass writes (fuzz_memfile holds
 * the input's): its path, emptied. */
static const char *map_file(void) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("tbbt-fuzz-map", 0);
        if (fd < 0) abort();
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0) abort();
    return path;
}

/* The map at path reads back whole: each entry's line parses to the same
 * line, and the reader reaches the end line. */
static void check_map(const char *path) {
    char err[512] = "";
    struct tbbt_hmapr *r = tbbt_hmapr_open(path, err, sizeof(err));
    if (!r) {
        fprintf(stderr, "pass 3's map does not open: %s\n", err);
        abort();
    }
    struct tbbt_hm_entry e, back;
    GString *l1 = g_string_new(NULL), *l2 = g_string_new(NULL), *buf = g_string_new(NULL);
    int k;
    while ((k = tbbt_hmapr_next(r, &e, err, sizeof(err))) == 1) {
        g_string_truncate(l1, 0), g_string_truncate(l2, 0);
        tbbt_hm_format(l1, &e);
        if (tbbt_hm_parse(l1->str, l1->len, &back, buf, err, sizeof(err)) != 0) {
            fprintf(stderr, "pass 3 wrote \"%s\", which does not read back: %s\n", l1->str, err);
            abort();
        }
        tbbt_hm_format(l2, &back);
        if (!g_string_equal(l1, l2)) abort();
    }
    if (k < 0) {
        fprintf(stderr, "pass 3's map does not read back: %s\n", err);
        abort();
    }
    tbbt_hmapr_close(r);
    g_string_free(l1, TRUE), g_string_free(l2, TRUE), g_string_free(buf, TRUE);
}

/* One input: its parsed lines through pass 3, the map written and read
 * back, the reports written. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static FILE *null;
    if (!null && !(null = fopen("/dev/null", "w"))) abort();
    uint64_t out = 0, put = 0;
    struct tbbt_pass3 *p = tbbt_pass3_new(sink, &out);
    if (size && (data[0] & 1)) tbbt_pass3_add_root(p, 1);
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    size_t at = 0, len = 0;
    const char *c;
    while ((c = fuzz_next_line(data, size, &at, &len)) != NULL) {
        char err[256];
        if (tbbt_rec_parse_text(&r, c, len, err, sizeof(err)) == 0) {
            if (tbbt_pass3_put(p, &r) != 0) abort(); /* the sink never fails */
            put++;
        }
    }
    char err[512] = "";
    const char *map = map_file();
    if (tbbt_pass3_write_map(p, map, "records fuzz\ntool fuzz_pass3", err, sizeof(err)) != 0) {
        fprintf(stderr, "pass 3 could not write its map: %s\n", err);
        abort();
    }
    if (out != put) {
        fprintf(stderr, "pass 3 took %llu records and gave back %llu\n", (unsigned long long)put,
                (unsigned long long)out);
        abort();
    }
    check_map(map);
    tbbt_pass3_report(p, null);
    GString *json = g_string_new(NULL);
    tbbt_pass3_report_json(p, json);
    g_string_free(json, TRUE);
    tbbt_pass3_free(p);
    tbbt_rec_free(&r);
    return 0;
}
