/* fuzz_util.h -- what the fuzz targets share: the readers under test open
 * files by path (and the capture reader has a fast path of its own for a
 * plain file with a descriptor), so an input is handed to them as a real
 * file: an anonymous memory file, rewritten for every input and named by
 * its /proc/self/fd path. Header-only so each target stays one file. */
#ifndef TBBT_FUZZ_UTIL_H
#define TBBT_FUZZ_UTIL_H

#define _GNU_SOURCE /* memfd_create */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "recfile.h"
#include "rectext.h"

/* Every target defines it; libFuzzer or fuzz/regress_main.c calls it. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Replaces the memory file's content with data[0, size); returns its path
 * (static storage). A failure here is the harness's, not the input's:
 * abort. */
static inline const char *fuzz_memfile(const uint8_t *data, size_t size) {
    static int fd = -1;
    static char path[64];
    if (fd < 0) {
        fd = memfd_create("tbbt-fuzz", 0);
        if (fd < 0) abort();
        snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    }
    if (ftruncate(fd, 0) != 0) abort();
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(fd, data + done, size - done, (off_t)done);
        if (n <= 0) abort();
        done += (size_t)n;
    }
    return path;
}

/* The next line of data[*at, size), its newline included: returns its
 * start and sets *len, or NULL at the end. The targets that read records
 * in their text form walk their input with it. */
static inline const char *fuzz_next_line(const uint8_t *data, size_t size, size_t *at, size_t *len) {
    if (*at >= size) return NULL;
    const char *c = (const char *)data + *at;
    const char *nl = memchr(c, '\n', size - *at);
    *len = nl ? (size_t)(nl - c) + 1 : size - *at;
    *at += *len;
    return c;
}

/* A record any reader produced must survive both of the project's
 * writers and read back the same: its text form parses to a record with
 * the same text form, and its binary encoding decodes to one with the same
 * text form. A record the text writer refuses is allowed only when the
 * binary writer refuses it too (both check the same invariants). Any
 * difference is a bug in a reader or writer: abort, so the fuzzer keeps
 * the input. */
static inline void fuzz_check_record(const struct tbbt_rec *r) {
    /* the strings, the encoding buffer and the record read back are kept
     * from one call to the next (emptied each time): the targets check
     * every record they see, and allocating them each time was most of
     * the cost under AddressSanitizer */
    static GString *t1, *t2;
    static struct tbbt_rec back;
    static uint8_t *buf;
    static size_t cap;
    if (!t1) t1 = g_string_new(NULL), t2 = g_string_new(NULL), tbbt_rec_init(&back);
    g_string_truncate(t1, 0), g_string_truncate(t2, 0);
    tbbt_rec_clear(&back);
    char err[256];
    int ftext = tbbt_rec_format_text(r, t1);
    struct tbbt_rec_prev prev = {0};
    size_t len = 0;
    int fbin = tbbt_rec_encode(r, &prev, &buf, &len, &cap);
    if (ftext != fbin) abort();
    if (ftext == 0) {
        if (tbbt_rec_parse_text(&back, t1->str, t1->len, err, sizeof(err)) != 0) abort();
        if (tbbt_rec_format_text(&back, t2) != 0 || !g_string_equal(t1, t2)) abort();
        struct tbbt_rec_prev p2 = {0};
        const uint8_t *p = buf;
        if (tbbt_rec_decode(&back, &p2, &p, buf + len, err, sizeof(err)) != 0 || p != buf + len) abort();
        g_string_truncate(t2, 0);
        if (tbbt_rec_format_text(&back, t2) != 0 || !g_string_equal(t1, t2)) abort();
    }
}

#endif
