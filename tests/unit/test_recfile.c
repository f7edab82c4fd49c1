/* test_recfile.c -- the binary record file: exact round trips of every
 * field type and edge value, complete-or-absent files, and corruption and
 * truncation reported with the file name and the failing frame's offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <glib.h>
#include <glib/gstdio.h>

#include "../data/rec-fixture.h"
#include "recfile.h"
#include <zlib.h>

#define NREC 6000 /* several 256 KiB frames with the fixture's entries */

/* Returns a path in the test's temporary directory (static buffer). */
static const char *tpath(const char *name) {
    static char buf[512];
    snprintf(buf, sizeof(buf), "%s/%s", fx_tmpdir, name);
    return buf;
}

/* The seed-th record of the standard sequence: a few records carry many
 * entries, most carry a handful. */
static void nth_record(struct tbbt_rec *r, unsigned seed) {
    fx_full(r, seed, seed % 500 == 77 ? 3000 : seed % 5);
}

/* Writes records 0..n-1 to path with meta; asserts success. */
static void write_file(const char *path, unsigned n, const char *meta) {
    char err[512];
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    struct tbbt_recwriter *w = tbbt_recw_open(path, meta, err, sizeof(err));
    assert_non_null(w);
    for (unsigned i = 0; i < n; i++) {
        nth_record(&r, i);
        assert_int_equal(tbbt_recw_put(w, &r), 0);
    }
    assert_int_equal(tbbt_recw_count(w), n);
    assert_int_equal(tbbt_recw_close(w, err, sizeof(err)), 0);
    tbbt_rec_free(&r);
}

/* Reads path to the end comparing with records 0..; returns the reader's
 * last result (0 end, -1 error) and the number read in *n. Every record
 * read must equal the original: corruption may stop the reader, never
 * change data silently. */
static int read_file(const char *path, unsigned *n, char *err, size_t errlen) {
    struct tbbt_rec r, want;
    int rc;
    tbbt_rec_init(&r);
    tbbt_rec_init(&want);
    *n = 0;
    struct tbbt_recreader *rd = tbbt_recr_open(path, err, errlen);
    if (!rd) return -2;
    while ((rc = tbbt_recr_next(rd, &r)) == 1) {
        nth_record(&want, *n);
        const char *d = fx_diff(&want, &r);
        if (d) fail_msg("record %u differs: %s", *n, d);
        if (r.flags & TBBT_RF_REPLY_LOST) assert_int_equal(r.reply_time, 0);
        (*n)++;
    }
    if (rc < 0) snprintf(err, errlen, "%s", tbbt_recr_error(rd));
    assert_int_equal(tbbt_recr_next(rd, &r), rc); /* the end or the error sticks */
    tbbt_recr_close(rd);
    tbbt_rec_free(&r);
    tbbt_rec_free(&want);
    return rc;
}

/* Every record, with every field and edge value, reads back equal; the
 * metadata comes back verbatim; the records span several frames. */
static void test_roundtrip(void **state) {
    (void)state;
    char err[512];
    unsigned n;
    const char *meta = "{\"source\":\"x.pcap\",\"repair\":[1,2]}";
    const char *p = tpath("rt.tbbt");
    write_file(p, NREC, meta);
    assert_int_equal(read_file(p, &n, err, sizeof(err)), 0);
    assert_int_equal(n, NREC);
    struct tbbt_recreader *rd = tbbt_recr_open(p, err, sizeof(err));
    assert_non_null(rd);
    assert_string_equal(tbbt_recr_meta(rd), meta);
    assert_string_equal(tbbt_recr_error(rd), "");
    tbbt_recr_close(rd);
}

/* A file with no records is complete and reads as empty. */
static void test_empty_file(void **state) {
    (void)state;
    char err[512];
    unsigned n;
    const char *p = tpath("empty.tbbt");
    write_file(p, 0, NULL);
    assert_int_equal(read_file(p, &n, err, sizeof(err)), 0);
    assert_int_equal(n, 0);
}

/* The final name appears only at close; abort leaves nothing. */
static void test_tmp_then_rename(void **state) {
    (void)state;
    char err[512], tmp[600];
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    const char *p = tpath("atomic.tbbt");
    char *final = g_strdup(p);
    snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", final, (long)getpid());
    struct tbbt_recwriter *w = tbbt_recw_open(final, "", err, sizeof(err));
    assert_non_null(w);
    nth_record(&r, 1);
    assert_int_equal(tbbt_recw_put(w, &r), 0);
    assert_false(g_file_test(final, G_FILE_TEST_EXISTS));
    assert_true(g_file_test(tmp, G_FILE_TEST_EXISTS));
    assert_int_equal(tbbt_recw_close(w, err, sizeof(err)), 0);
    assert_true(g_file_test(final, G_FILE_TEST_EXISTS));
    assert_false(g_file_test(tmp, G_FILE_TEST_EXISTS));
    g_unlink(final);
    w = tbbt_recw_open(final, "", err, sizeof(err));
    assert_int_equal(tbbt_recw_put(w, &r), 0);
    tbbt_recw_abort(w);
    assert_false(g_file_test(final, G_FILE_TEST_EXISTS));
    assert_false(g_file_test(tmp, G_FILE_TEST_EXISTS));
    g_free(final);
    tbbt_rec_free(&r);
}

/* An unrepresentable record fails put and close; no file is left. */
static void test_invalid_record(void **state) {
    (void)state;
    char err[512] = "";
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    const char *p = tpath("invalid.tbbt");
    struct tbbt_recwriter *w = tbbt_recw_open(p, "", err, sizeof(err));
    nth_record(&r, 2);
    r.client.family = 5;
    assert_string_equal(tbbt_recw_error(w), "");
    assert_int_equal(tbbt_recw_put(w, &r), -1);
    assert_non_null(strstr(tbbt_recw_error(w), "record 1"));
    assert_int_equal(tbbt_recw_close(w, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "record 1"));
    assert_false(g_file_test(p, G_FILE_TEST_EXISTS));
    assert_null(tbbt_recw_open("/nonexistent-dir/x.tbbt", "", err, sizeof(err)));
    assert_non_null(strstr(err, "/nonexistent-dir/x.tbbt"));
    tbbt_rec_free(&r);
}

/* Reads a whole file into memory. */
static guint8 *slurp(const char *path, gsize *len) {
    gchar *data;
    assert_true(g_file_get_contents(path, &data, len, NULL));
    return (guint8 *)data;
}

/* Writes len bytes to path (no fsync: the test rewrites files often). */
static int spit(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    size_t n = fwrite(data, 1, len, f);
    return fclose(f) == 0 && n == len;
}

/* Parses "FILE: offset N: ..." and returns N, asserting the file name. */
static uint64_t err_offset(const char *err, const char *path) {
    char prefix[600];
    snprintf(prefix, sizeof(prefix), "%s: offset ", path);
    if (strncmp(err, prefix, strlen(prefix)) != 0) fail_msg("error lacks \"FILE: offset\": %s", err);
    return g_ascii_strtoull(err + strlen(prefix), NULL, 10);
}

/* Flipping a byte inside a compressed frame is reported as an error at
 * that frame's start (where the zstd magic is). */
static void test_flip_in_frame(void **state) {
    (void)state;
    char err[512];
    unsigned n;
    gsize len;
    const char *p = tpath("flip.tbbt");
    char *path = g_strdup(p);
    write_file(path, NREC, "{}");
    guint8 *data = slurp(path, &len);
    size_t pos = len / 2;
    data[pos] ^= 0x10;
    assert_true(spit(path, data, len));
    assert_int_equal(read_file(path, &n, err, sizeof(err)), -1);
    assert_true(n > 0 && n < NREC);
    uint64_t off = err_offset(err, path);
    assert_true(off > 0 && off <= pos);
    assert_memory_equal(data + off, "\x28\xb5\x2f\xfd", 4);
    g_free(data);
    g_free(path);
}

/* Any truncation is an error, never a clean end: mid-frame, at a frame
 * boundary (only the end marker lost), inside the header. */
static void test_truncation(void **state) {
    (void)state;
    char err[512];
    unsigned n;
    gsize len;
    char *path = g_strdup(tpath("trunc.tbbt"));
    char *cut = g_strdup(tpath("cut.tbbt"));
    write_file(path, NREC, "{\"a\":1}");
    guint8 *data = slurp(path, &len);
    size_t cuts[] = {len - 1, len - 24, len - 5000, len / 3, 40, 10, 3, 0};
    for (size_t i = 0; i < G_N_ELEMENTS(cuts); i++) {
        assert_true(spit(cut, data, cuts[i]));
        int rc = read_file(cut, &n, err, sizeof(err));
        if (rc == 0) fail_msg("cut at %zu of %zu read as complete (%u records)", cuts[i], len, n);
        assert_non_null(strstr(err, cut));
        if (cuts[i] > 100) assert_non_null(strstr(err, "truncated"));
    }
    g_free(data);
    g_free(path);
    g_free(cut);
}

/* Every single-byte change of a small file either makes reading fail or
 * leaves every record intact (a flip in the trailer's magic nibble
 * is harmless); nothing crashes. */
static void test_flip_everywhere(void **state) {
    (void)state;
    char err[512];
    unsigned n;
    gsize len;
    char *path = g_strdup(tpath("small.tbbt"));
    char *bad = g_strdup(tpath("bad.tbbt"));
    write_file(path, 12, "{\"m\":\"meta\"}");
    guint8 *data = slurp(path, &len);
    unsigned failed = 0;
    for (size_t pos = 0; pos < len; pos++) {
        data[pos] ^= 0x04;
        assert_true(spit(bad, data, len));
        int rc = read_file(bad, &n, err, sizeof(err)); /* fails the test on changed data */
        if (rc != 0)
            failed++;
        else
            assert_int_equal(n, 12);
        data[pos] ^= 0x04;
    }
    assert_true(failed > len - 8);
    g_free(data);
    g_free(path);
    g_free(bad);
}

/* Garbage and missing files fail at open with the file named. */
static void test_not_a_record_file(void **state) {
    (void)state;
    char err[512];
    const char *p = tpath("garbage.tbbt");
    char *path = g_strdup(p);
    assert_true(spit(path, "hello, world, this is not a record file", 39));
    assert_null(tbbt_recr_open(path, err, sizeof(err)));
    assert_non_null(strstr(err, path));
    assert_null(tbbt_recr_open(tpath("missing.tbbt"), err, sizeof(err)));
    assert_non_null(strstr(err, "missing.tbbt"));
    g_free(path);
}

/* Rewrites a 32-bit little-endian header word of a one-record file and
 * fixes the header checksum; returns tbbt_recr_open's result. */
static struct tbbt_recreader *open_patched(size_t at, uint32_t v, char *err, size_t errlen) {
    gsize len;
    char *path = g_strdup(tpath("patched.tbbt"));
    write_file(path, 1, "{}");
    guint8 *d = slurp(path, &len);
    uint32_t size = d[4] | d[5] << 8 | d[6] << 16 | (uint32_t)d[7] << 24; /* skippable frame size */
    for (int i = 0; i < 4; i++)
        d[at + i] = (guint8)(v >> (8 * i));
    uint32_t crc = (uint32_t)crc32(0, d + 8, size - 4);
    for (int i = 0; i < 4; i++)
        d[8 + size - 4 + i] = (guint8)(crc >> (8 * i));
    assert_true(spit(path, d, len));
    struct tbbt_recreader *rd = tbbt_recr_open(path, err, errlen);
    g_free(d);
    g_free(path);
    return rd;
}

/* A file from a newer tbbt (more fields, other version) is refused at
 * open, not misread. Header: frame magic, size, "TBBTREC1", version at
 * byte 16, field count at byte 20. */
static void test_newer_writer(void **state) {
    (void)state;
    char err[512];
    struct tbbt_rec r;
    assert_null(open_patched(20, TBBT_F_COUNT_ + 1, err, sizeof(err)));
    assert_non_null(strstr(err, "newer"));
    assert_null(open_patched(16, TBBT_RECFILE_VERSION + 1, err, sizeof(err)));
    assert_non_null(strstr(err, "version"));
    struct tbbt_recreader *rd = open_patched(20, TBBT_F_COUNT_, err, sizeof(err)); /* unchanged: control */
    assert_non_null(rd);
    tbbt_rec_init(&r);
    assert_int_equal(tbbt_recr_next(rd, &r), 1);
    assert_int_equal(tbbt_recr_next(rd, &r), 0);
    tbbt_recr_close(rd);
    tbbt_rec_free(&r);
}

/* The low-level codec rejects a truncated encoding at every length. */
static void test_decode_truncated(void **state) {
    (void)state;
    struct tbbt_rec r, out;
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    char err[200];
    tbbt_rec_init(&r);
    tbbt_rec_init(&out);
    nth_record(&r, 4);
    struct tbbt_rec_prev ep = {0};
    assert_int_equal(tbbt_rec_encode(&r, &ep, &buf, &len, &cap), 0);
    for (size_t l = 0; l < len; l++) {
        const uint8_t *p = buf;
        struct tbbt_rec_prev dp = {0};
        assert_int_equal(tbbt_rec_decode(&out, &dp, &p, buf + l, err, sizeof(err)), -1);
    }
    const uint8_t *p = buf;
    struct tbbt_rec_prev dp = {0};
    assert_int_equal(tbbt_rec_decode(&out, &dp, &p, buf + len, err, sizeof(err)), 0);
    assert_ptr_equal(p, buf + len);
    assert_null(fx_diff(&r, &out));
    g_free(buf);
    tbbt_rec_free(&r);
    tbbt_rec_free(&out);
}

/* Records written relative to the one before them (same endpoints, same
 * credentials, same fsid, times relative to other times) read back
 * exactly, whichever of those repeat, change back, or are absent, across
 * frame boundaries. */
static void test_relative_encoding(void **state) {
    (void)state;
    char path[512];
    snprintf(path, sizeof(path), "%s", tpath("relative.tbbt"));
    char err[512];
    enum { N = 40000 }; /* several frames */
    struct tbbt_rec r, got;
    tbbt_rec_init(&r);
    tbbt_rec_init(&got);
    struct tbbt_recwriter *w = tbbt_recw_open(path, "{}", err, sizeof(err));
    assert_non_null(w);
    for (unsigned i = 0; i < N; i++) {
        fx_full(&r, i % 7 == 0 ? i : 5, 0); /* mostly the same header */
        r.xid = i;
        r.call_time = 1700000000000000000LL + (int64_t)i * 1000;
        r.reply_time = r.call_time + 500;
        if (i % 3) r.server.port = (uint16_t)(2049 + i % 2); /* alternates, and back */
        if (i % 11 == 0) r.cred.uid = i;
        tbbt_rec_set_u64(&r, TBBT_F_FSID, i % 13 == 0 ? i : 42);
        if (i % 4 == 0) r.has &= ~(1ull << TBBT_F_ATIME);                      /* mtime without its base */
        if (i % 5 == 0) r.has &= ~(1ull << TBBT_F_MTIME);                      /* ctime without its base */
        if (i % 6 == 0) tbbt_rec_set_u64(&r, TBBT_F_CTIME, (uint64_t)r.mtime); /* equal to its base */
        assert_int_equal(tbbt_recw_put(w, &r), 0);
    }
    assert_int_equal(tbbt_recw_close(w, err, sizeof(err)), 0);
    struct tbbt_recreader *rd = tbbt_recr_open(path, err, sizeof(err));
    assert_non_null(rd);
    for (unsigned i = 0; i < N; i++) {
        fx_full(&r, i % 7 == 0 ? i : 5, 0);
        r.xid = i;
        r.call_time = 1700000000000000000LL + (int64_t)i * 1000;
        r.reply_time = r.call_time + 500;
        if (i % 3) r.server.port = (uint16_t)(2049 + i % 2);
        if (i % 11 == 0) r.cred.uid = i;
        tbbt_rec_set_u64(&r, TBBT_F_FSID, i % 13 == 0 ? i : 42);
        if (i % 4 == 0) r.has &= ~(1ull << TBBT_F_ATIME);
        if (i % 5 == 0) r.has &= ~(1ull << TBBT_F_MTIME);
        if (i % 6 == 0) tbbt_rec_set_u64(&r, TBBT_F_CTIME, (uint64_t)r.mtime);
        assert_int_equal(tbbt_recr_next(rd, &got), 1);
        const char *d = fx_diff(&r, &got);
        if (d) fail_msg("record %u: %s", i, d);
    }
    assert_int_equal(tbbt_recr_next(rd, &got), 0);
    tbbt_recr_close(rd);
    unlink(path);
    tbbt_rec_free(&r);
    tbbt_rec_free(&got);
}

/* Writing to a path that is not a regular file (a FIFO standing for
 * /dev/null or a pipe) writes into it and leaves it what it was: a temporary
 * file renamed over it would replace it (this once turned /dev/null into a
 * regular file). */
static void test_special_file_kept(void **state) {
    (void)state;
    char fifo[512], tmp[520];
    snprintf(fifo, sizeof(fifo), "%s", tpath("out.fifo"));
    snprintf(tmp, sizeof(tmp), "%s.tmp", fifo);
    char err[512];
    struct stat sb;
    unlink(fifo);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t pid = fork();
    if (pid == 0) { /* a reader draining the FIFO */
        FILE *f = fopen(fifo, "rb");
        char buf[4096];
        while (f && fread(buf, 1, sizeof(buf), f) > 0) {
        }
        _exit(0);
    }
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    nth_record(&r, 1);
    struct tbbt_recwriter *w = tbbt_recw_open(fifo, "{}", err, sizeof(err));
    assert_non_null(w);
    assert_int_equal(tbbt_recw_put(w, &r), 0);
    assert_int_equal(tbbt_recw_close(w, err, sizeof(err)), 0);
    int status;
    waitpid(pid, &status, 0);
    assert_int_equal(lstat(fifo, &sb), 0);
    assert_true(S_ISFIFO(sb.st_mode));
    assert_int_equal(access(tmp, F_OK), -1);
    unlink(fifo);
    tbbt_rec_free(&r);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip),         cmocka_unit_test(test_empty_file),
        cmocka_unit_test(test_tmp_then_rename),   cmocka_unit_test(test_invalid_record),
        cmocka_unit_test(test_flip_in_frame),     cmocka_unit_test(test_truncation),
        cmocka_unit_test(test_flip_everywhere),   cmocka_unit_test(test_not_a_record_file),
        cmocka_unit_test(test_decode_truncated),  cmocka_unit_test(test_newer_writer),
        cmocka_unit_test(test_relative_encoding), cmocka_unit_test(test_special_file_kept),
    };
    return cmocka_run_group_tests(tests, fx_setup, fx_teardown);
}
