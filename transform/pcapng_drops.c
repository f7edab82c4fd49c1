/* pcapng_drops.c -- the packets the capturing kernel dropped, as a pcapng
 * file's interface statistics record them (see pcapng_drops.h). */
#include "pcapng_drops.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "cfile.h"
#include "cursor.h"

#define SHB 0x0A0D0D0Au
#define ISB 5u
#define OPT_IFRECV 4
#define OPT_IFDROP 5
#define OPT_OSDROP 7
#define BLOCK_MAX (16u << 20) /* a statistics block is small; larger blocks are skipped */
#define IFACES_MAX 1024

/* Last statistics seen per interface of the current section. */
struct ifstat {
    uint64_t recv, drop;
    int has_recv, has_drop;
};

/* Reads a 32-bit word in the section's byte order. */
static uint32_t word(const uint8_t *p, int swap) {
    uint32_t v;
    memcpy(&v, p, 4);
    return swap ? GUINT32_SWAP_LE_BE(v) : v;
}

/* A 64-bit option value, in the section's byte order. */
static uint64_t dword(const uint8_t *p, int swap) {
    uint64_t v;
    memcpy(&v, p, 8);
    return swap ? GUINT64_SWAP_LE_BE(v) : v;
}

/* Takes the options of one ISB body (b, n bytes) into the interface's
 * slot. Returns -1 when they overrun the block. */
static int isb_options(const uint8_t *b, size_t n, int swap, struct ifstat *s) {
    struct tbbt_cursor c;
    tbbt_cur_init(&c, b, n);
    tbbt_cur_skip(&c, 12); /* interface id, timestamp */
    while (!c.trunc && tbbt_cur_left(&c) >= 4) {
        const uint8_t *h = tbbt_cur_take(&c, 4);
        uint16_t raw[2];
        memcpy(raw, h, 4);
        uint16_t code = swap ? GUINT16_SWAP_LE_BE(raw[0]) : raw[0];
        uint16_t len = swap ? GUINT16_SWAP_LE_BE(raw[1]) : raw[1];
        if (code == 0) break;
        const uint8_t *v = tbbt_cur_take(&c, ((size_t)len + 3) & ~(size_t)3);
        if (!v) return -1;
        if (len != 8) continue;
        if (code == OPT_IFRECV) s->recv = dword(v, swap), s->has_recv = 1;
        if (code == OPT_IFDROP || code == OPT_OSDROP) {
            uint64_t d = dword(v, swap);
            if (code == OPT_IFDROP || !s->has_drop) s->drop = d; /* the interface's own count first */
            s->has_drop = 1;
        }
    }
    return 0;
}

/* Adds up the current section's interfaces into *out and clears them. */
static void close_section(struct ifstat *ifs, struct tbbt_pcapng_drops *out) {
    for (int i = 0; i < IFACES_MAX; i++) {
        if (ifs[i].has_drop) out->dropped += ifs[i].drop, out->known = 1;
        if (ifs[i].has_recv) out->received += ifs[i].recv;
    }
    memset(ifs, 0, sizeof(struct ifstat) * IFACES_MAX);
}

/* Skips n bytes of f: seeks where it can, reads through a decompressor. */
static int skip_bytes(FILE *f, uint64_t n) {
    if (n <= (uint64_t)LONG_MAX && fseek(f, (long)n, SEEK_CUR) == 0) return 0;
    uint8_t buf[65536];
    while (n) {
        size_t k = n < sizeof(buf) ? (size_t)n : sizeof(buf);
        if (fread(buf, 1, k, f) != k) return -1;
        n -= k;
    }
    return 0;
}

/* Walks the blocks of an open pcapng stream (its first four bytes read). */
static void walk(FILE *f, struct tbbt_pcapng_drops *out) {
    struct ifstat *ifs = g_new0(struct ifstat, IFACES_MAX);
    uint8_t h[8], *body = NULL;
    int swap = 0, first = 1;
    uint32_t type = SHB;
    for (;;) {
        if (!first) {
            if (fread(h, 1, 8, f) != 8) break;
            type = word(h, swap);
        } else if (fread(h + 4, 1, 4, f) != 4) {
            break;
        }
        uint8_t len_raw[4];
        memcpy(len_raw, h + 4, 4);
        if (type == SHB) { /* the byte order magic follows the length */
            uint8_t magic[4];
            if (fread(magic, 1, 4, f) != 4) break;
            if (!first) close_section(ifs, out);
            swap = word(magic, 0) != 0x1A2B3C4Du;
            uint32_t blen = word(len_raw, swap);
            if (blen < 16 || skip_bytes(f, blen - 12) < 0) break;
            first = 0;
            continue;
        }
        uint32_t blen = word(len_raw, swap);
        if (blen < 12 || blen % 4) break;
        if (type == ISB && blen <= BLOCK_MAX) {
            body = g_realloc(body, blen - 8);
            if (fread(body, 1, blen - 8, f) != blen - 8) break;
            uint32_t id = word(body, swap);
            if (id < IFACES_MAX && isb_options(body, blen - 12, swap, &ifs[id]) < 0) break;
        } else if (skip_bytes(f, blen - 8) < 0) {
            break;
        }
    }
    close_section(ifs, out);
    g_free(body);
    g_free(ifs);
}

int tbbt_pcapng_drops(const char *path, struct tbbt_pcapng_drops *out) {
    memset(out, 0, sizeof(*out));
    char err[256];
    FILE *f = tbbt_cfile_open(path, NULL, err, sizeof(err));
    if (!f) return -1;
    uint8_t m[4];
    if (fread(m, 1, 4, f) == 4 && word(m, 0) == SHB) {
        out->pcapng = 1;
        walk(f, out);
    }
    fclose(f);
    return 0;
}
