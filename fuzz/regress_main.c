/* regress_main.c -- runs a fuzz target's entry point on saved inputs, for
 * builds without libFuzzer (gcc, the plain and sanitizer test tiers): each
 * argument is a file, or a directory whose regular files are all run, in
 * name order (one that does not exist holds none: a target whose fuzzer
 * never found anything has no tests/fuzz/regress/TARGET). A crash, a sanitizer report or a hang (ctest's
 * timeout) fails the test; the inputs are the crashes the fuzzers once found (tests/fuzz/regress/TARGET/) and
 * the committed seeds (fuzz/seeds/). */
#include "fuzz_util.h" /* first: it asks for _GNU_SOURCE */

/* Runs the target on one file's bytes. Returns 0, or -1 if unreadable. */
static int run_file(const char *path) {
    gchar *buf;
    gsize len;
    if (!g_file_get_contents(path, &buf, &len, NULL)) {
        fprintf(stderr, "fuzz-regress: %s: cannot read\n", path);
        return -1;
    }
    fprintf(stderr, "fuzz-regress: %s (%zu bytes)\n", path, (size_t)len);
    LLVMFuzzerTestOneInput((const uint8_t *)buf, len);
    g_free(buf);
    return 0;
}

/* Sorts directory entry names, so runs are in a stable order. */
static gint by_name(gconstpointer a, gconstpointer b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every regular file of a directory; *n counts them. Returns 0, or -1 if one was unreadable. */
static int run_dir(const char *dir, unsigned *n) {
    GDir *d = g_dir_open(dir, 0, NULL);
    if (!d) return 0;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const char *e;
    while ((e = g_dir_read_name(d)))
        g_ptr_array_add(names, g_build_filename(dir, e, NULL));
    g_dir_close(d);
    g_ptr_array_sort(names, by_name);
    int rc = 0;
    for (guint i = 0; i < names->len; i++) {
        const char *p = g_ptr_array_index(names, i);
        if (!g_file_test(p, G_FILE_TEST_IS_REGULAR) || strstr(p, "README")) continue;
        if (run_file(p) != 0) rc = -1;
        ++*n;
    }
    g_ptr_array_free(names, TRUE);
    return rc;
}

/* Runs every FILE or DIR argument's inputs through the target, so a
 * build without libFuzzer (ctest) keeps old findings fixed; exit 1 if an
 * input could not be read (a crash ends the process on its own). */
int main(int argc, char **argv) {
    unsigned n = 0;
    int rc = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE|DIR...\n", argv[0]);
        return 2;
    }
    for (int i = 1; i < argc; i++) {
        if (!g_file_test(argv[i], G_FILE_TEST_EXISTS)) {
            fprintf(stderr, "fuzz-regress: %s: none (no such file or directory)\n", argv[i]);
        } else if (g_file_test(argv[i], G_FILE_TEST_IS_DIR)) {
            if (run_dir(argv[i], &n) != 0) rc = 1;
        } else if (run_file(argv[i]) != 0) {
            rc = 1;
        } else {
            n++;
        }
    }
    fprintf(stderr, "fuzz-regress: %u inputs run\n", n);
    return rc;
}
