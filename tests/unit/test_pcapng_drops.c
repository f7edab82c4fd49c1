/* test_pcapng_drops.c -- the kernel's drops, as pcapng interface
 * statistics blocks record them: the last block of each interface counts,
 * interfaces and sections add up, either byte order, plain or zstd; a
 * classic pcap has none; a block cut short ends the walk without a crash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "pcapng_drops.h"

/* A growing byte buffer in one byte order. */
struct buf {
    GByteArray *b;
    int be;
};

static void put32(struct buf *b, uint32_t v) {
    uint32_t w = b->be ? GUINT32_TO_BE(v) : GUINT32_TO_LE(v);
    g_byte_array_append(b->b, (const guint8 *)&w, 4);
}

static void put16(struct buf *b, uint16_t v) {
    uint16_t w = b->be ? GUINT16_TO_BE(v) : GUINT16_TO_LE(v);
    g_byte_array_append(b->b, (const guint8 *)&w, 2);
}

static void put64(struct buf *b, uint64_t v) {
    uint64_t w = b->be ? GUINT64_TO_BE(v) : GUINT64_TO_LE(v);
    g_byte_array_append(b->b, (const guint8 *)&w, 8);
}

static void shb(struct buf *b) {
    put32(b, 0x0A0D0D0A);
    put32(b, 28);
    put32(b, 0x1A2B3C4D);
    put16(b, 1), put16(b, 0);
    put64(b, (uint64_t)-1);
    put32(b, 28);
}

static void idb(struct buf *b) {
    put32(b, 1);
    put32(b, 20);
    put16(b, 1), put16(b, 0); /* Ethernet */
    put32(b, 0);              /* snaplen */
    put32(b, 20);
}

/* An enhanced packet block with 4 bytes of data. */
static void epb(struct buf *b, uint32_t iface) {
    put32(b, 6);
    put32(b, 36);
    put32(b, iface), put32(b, 0), put32(b, 0);
    put32(b, 4), put32(b, 4);
    put32(b, 0xdeadbeef);
    put32(b, 36);
}

/* A statistics block with isb_ifrecv and isb_ifdrop. */
static void isb(struct buf *b, uint32_t iface, uint64_t recv, uint64_t drop) {
    put32(b, 5);
    put32(b, 52);
    put32(b, iface), put32(b, 0), put32(b, 0);
    put16(b, 4), put16(b, 8), put64(b, recv);
    put16(b, 5), put16(b, 8), put64(b, drop);
    put16(b, 0), put16(b, 0);
    put32(b, 52);
}

/* Writes bytes to a temporary file, optionally through zstd; returns its path. */
static char *write_file(const GByteArray *a, int zst) {
    char *path = g_strdup_printf("%s/tbbt-isb-%d-%d.pcapng", g_get_tmp_dir(), (int)getpid(), zst);
    g_assert(g_file_set_contents(path, (const char *)a->data, (gssize)a->len, NULL));
    if (zst) {
        char *cmd = g_strdup_printf("zstd -q -f --rm '%s' -o '%s.zst'", path, path);
        if (system(cmd) != 0) {
            g_free(cmd);
            g_free(path);
            return NULL;
        }
        g_free(cmd);
        char *z = g_strdup_printf("%s.zst", path);
        g_free(path);
        path = z;
    }
    return path;
}

/* Two sections (one in each byte order), two interfaces, cumulative blocks. */
static GByteArray *sample(void) {
    struct buf b = {g_byte_array_new(), 0};
    shb(&b), idb(&b), idb(&b);
    epb(&b, 0);
    isb(&b, 0, 100, 3);
    epb(&b, 1);
    isb(&b, 0, 200, 42); /* cumulative: this one counts */
    isb(&b, 1, 50, 8);
    b.be = 1;
    shb(&b), idb(&b);
    epb(&b, 0);
    isb(&b, 0, 10, 5);
    return b.b;
}

static void check(const char *path) {
    struct tbbt_pcapng_drops d;
    assert_int_equal(tbbt_pcapng_drops(path, &d), 0);
    assert_true(d.pcapng);
    assert_true(d.known);
    assert_int_equal(d.dropped, 42 + 8 + 5);
    assert_int_equal(d.received, 200 + 50 + 10);
}

static void test_plain_and_zstd(void **state) {
    (void)state;
    GByteArray *a = sample();
    for (int zst = 0; zst < 2; zst++) {
        char *path = write_file(a, zst);
        if (!path) skip();
        check(path);
        unlink(path);
        g_free(path);
    }
    g_byte_array_free(a, TRUE);
}

/* Every cut of the file: no crash, never more drops than the whole file. */
static void test_cuts(void **state) {
    (void)state;
    GByteArray *a = sample();
    for (guint n = 0; n < a->len; n += 3) {
        GByteArray *c = g_byte_array_new();
        g_byte_array_append(c, a->data, n);
        char *path = write_file(c, 0);
        struct tbbt_pcapng_drops d;
        assert_int_equal(tbbt_pcapng_drops(path, &d), 0);
        assert_true(d.dropped <= 55);
        unlink(path);
        g_free(path);
        g_byte_array_free(c, TRUE);
    }
    g_byte_array_free(a, TRUE);
}

/* A classic pcap: not pcapng, nothing known. */
static void test_classic(void **state) {
    (void)state;
    struct buf b = {g_byte_array_new(), 0};
    put32(&b, 0xa1b2c3d4);
    put16(&b, 2), put16(&b, 4);
    put32(&b, 0), put32(&b, 0), put32(&b, 65535), put32(&b, 1);
    char *path = write_file(b.b, 0);
    struct tbbt_pcapng_drops d;
    assert_int_equal(tbbt_pcapng_drops(path, &d), 0);
    assert_false(d.pcapng);
    assert_false(d.known);
    unlink(path);
    g_free(path);
    g_byte_array_free(b.b, TRUE);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plain_and_zstd),
        cmocka_unit_test(test_cuts),
        cmocka_unit_test(test_classic),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
