/* test_capture.c -- the capture layer end to end: synthetic captures
 * written with pcap_open_dead + pcap_dump (and a hand-made pcapng) for
 * every link type, IPv4 and IPv6, UDP fragments, TCP records, snaplen cuts,
 * compression, cut and non-capture files; then every real capture in the
 * shared folder, with NFSv3 call counts checked against nfstrace's own
 * breakdowns. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <dirent.h>
#include <pcap/pcap.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "capture.h"

#define MAXM 64

/* What the callback saw. */
struct seen {
    int n;
    struct tbbt_msg m[MAXM];
    uint8_t data[MAXM][128]; /* the first captured bytes of each */
    uint64_t v3calls;
};

static struct seen S;
static char DIR_[256];

static uint32_t get32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Keeps each message (and its first bytes); counts NFSv3 calls. */
static void cb(void *ctx, const struct tbbt_msg *m) {
    (void)ctx;
    if (m->caplen >= 24 && get32(m->data + 4) == 0 && get32(m->data + 12) == 100003 &&
        get32(m->data + 16) == 3)
        S.v3calls++;
    if (S.n >= MAXM) return;
    S.m[S.n] = *m;
    memcpy(S.data[S.n], m->data, m->caplen < 128 ? m->caplen : 128);
    S.m[S.n].data = NULL;
    S.n++;
}

/* --- building packets --------------------------------------------------- */

static uint8_t MSG[70000];

/* An RPC call of len bytes with xid into MSG; the rest is a pattern. */
static const uint8_t *call(uint32_t xid, size_t len) {
    memset(MSG, 0, 40);
    put32(MSG, xid);
    put32(MSG + 8, 2);
    put32(MSG + 12, 100003);
    put32(MSG + 16, 3);
    put32(MSG + 20, 1);
    for (size_t i = 40; i < len; i++)
        MSG[i] = (uint8_t)(0x41 + i % 26);
    return MSG;
}

/* A capture being written. */
struct writer {
    pcap_t *dead;
    pcap_dumper_t *d;
    int dlt, variant, snap;
    uint16_t ipid;
};

static const uint8_t A4[4] = {10, 1, 0, 1}, B4[4] = {10, 1, 0, 2};
static const uint8_t A6[16] = {0xfd, 0, [15] = 1}, B6[16] = {0xfd, 0, [15] = 2};

static void w_open(struct writer *w, const char *path, int dlt, int variant, int snap) {
    memset(w, 0, sizeof *w);
    w->dead = pcap_open_dead_with_tstamp_precision(dlt, snap, PCAP_TSTAMP_PRECISION_NANO);
    w->d = pcap_dump_open(w->dead, path);
    assert_non_null(w->d);
    w->dlt = dlt;
    w->variant = variant;
    w->snap = snap;
}

static void w_close(struct writer *w) {
    pcap_dump_close(w->d);
    pcap_close(w->dead);
}

/* Writes the link header for an IP version-v packet; returns its length.
 * variant: Ethernet 1 = one 802.1Q tag, 2 = 802.1ad + 802.1Q; NULL 1 =
 * the other byte order. */
static size_t link_hdr(const struct writer *w, uint8_t *p, int v) {
    uint16_t et = v == 4 ? 0x0800 : 0x86dd;
    size_t n = 0;
    switch (w->dlt) {
    case DLT_EN10MB:
        memset(p, 0x02, 12);
        n = 12;
        if (w->variant == 2) {
            put16(p + n, 0x88a8);
            put16(p + n + 2, 100);
            n += 4;
        }
        if (w->variant >= 1) {
            put16(p + n, 0x8100);
            put16(p + n + 2, 7);
            n += 4;
        }
        put16(p + n, et);
        return n + 2;
    case DLT_LINUX_SLL:
        memset(p, 0, 16);
        put16(p + 14, et);
        return 16;
    case DLT_LINUX_SLL2:
        memset(p, 0, 20);
        put16(p, et);
        return 20;
    case DLT_NULL: {
        uint32_t fam = v == 4 ? 2 : 10;
        if (w->variant) fam = __builtin_bswap32(fam);
        memcpy(p, &fam, 4);
        return 4;
    }
    case DLT_LOOP: put32(p, v == 4 ? 2 : 24); return 4;
    default: return 0; /* raw IP */
    }
}

/* Writes an IP header for an l4 payload of len bytes; frag_off/more make
 * it a fragment (IPv6: adds a hop-by-hop header and a fragment header).
 * Returns the header length. */
static size_t ip_hdr(struct writer *w, uint8_t *p, int v, uint8_t proto, size_t len, int frag,
                     size_t frag_off, int more, uint32_t id) {
    if (v == 4) {
        memset(p, 0, 20);
        p[0] = 0x45;
        put16(p + 2, (uint16_t)(20 + len));
        put16(p + 4, frag ? (uint16_t)id : w->ipid++);
        put16(p + 6, (uint16_t)((frag_off / 8) | (more ? 0x2000 : 0)));
        p[8] = 64;
        p[9] = proto;
        memcpy(p + 12, A4, 4);
        memcpy(p + 16, B4, 4);
        return 20;
    }
    size_t ext = 16; /* hop-by-hop, then fragment or destination options */
    memset(p, 0, 40 + ext);
    p[0] = 0x60;
    put16(p + 4, (uint16_t)(len + ext));
    p[6] = 0; /* hop-by-hop first */
    p[7] = 64;
    memcpy(p + 8, A6, 16);
    memcpy(p + 24, B6, 16);
    p[40] = frag ? 44 : 60; /* hop-by-hop -> fragment, or -> destination options */
    p[41] = 0;
    uint8_t *x = p + 48;
    if (frag) {
        x[0] = proto;
        put16(x + 2, (uint16_t)(frag_off | (more ? 1 : 0)));
        put32(x + 4, id);
    } else {
        x[0] = proto; /* destination options, 8 bytes */
    }
    return 40 + ext;
}

/* Dumps one frame of len bytes at time ts (ns), cut to the snaplen. */
static void dump(struct writer *w, const uint8_t *p, size_t len, int64_t ts) {
    struct pcap_pkthdr h;
    h.ts.tv_sec = ts / 1000000000;
    h.ts.tv_usec = ts % 1000000000; /* nanoseconds with a nano dead handle */
    h.len = (uint32_t)len;
    h.caplen = (uint32_t)(len < (size_t)w->snap ? len : (size_t)w->snap);
    pcap_dump((u_char *)w->d, &h, p);
}

static uint8_t FR[70100];

/* Sends an l4 payload (UDP or TCP header included) as one IP packet. */
static void send_l4(struct writer *w, int v, uint8_t proto, const uint8_t *l4, size_t len, int64_t ts) {
    size_t n = link_hdr(w, FR, v);
    n += ip_hdr(w, FR + n, v, proto, len, 0, 0, 0, 0);
    memcpy(FR + n, l4, len);
    dump(w, FR, n + len, ts);
}

static uint8_t L4[70000];

/* A UDP datagram 700 -> 2049 carrying payload. */
static size_t udp(const uint8_t *payload, size_t len) {
    put16(L4, 700);
    put16(L4 + 2, 2049);
    put16(L4 + 4, (uint16_t)(8 + len));
    put16(L4 + 6, 0);
    memcpy(L4 + 8, payload, len);
    return 8 + len;
}

/* A TCP segment 800 -> 2049 (or back with rev) carrying payload. */
static size_t tcp(uint32_t seq, uint8_t flags, const uint8_t *payload, size_t len) {
    memset(L4, 0, 20);
    put16(L4, 800);
    put16(L4 + 2, 2049);
    put32(L4 + 4, seq);
    L4[12] = 5 << 4;
    L4[13] = flags;
    if (len) memcpy(L4 + 20, payload, len);
    return 20 + len;
}

/* Runs the capture at path, filling S. Returns the run's result. */
static int run(const char *path, struct tbbt_capstats *st) {
    memset(&S, 0, sizeof S);
    char err[512];
    struct tbbt_capture *c = tbbt_capture_open(path, err, sizeof err);
    if (!c) print_error("%s\n", err);
    assert_non_null(c);
    int rc = tbbt_capture_run(c, cb, NULL, err, sizeof err);
    if (rc) print_error("%s\n", err);
    *st = *tbbt_capture_stats(c);
    tbbt_capture_close(c);
    return rc;
}

static void path(char *out, size_t n, const char *name) {
    snprintf(out, n, "%s/%s", DIR_, name);
}

/* Writes the basic scenario: a UDP call, a TCP SYN, a segment with two
 * records (a 200-byte call and a 120-byte call), an ARP-like non-IP frame
 * on Ethernet. */
static void basic(struct writer *w, int v) {
    uint8_t seg[400];
    send_l4(w, v, 17, L4, udp(call(0x11, 120), 120), 1000000001);
    send_l4(w, v, 6, L4, tcp(5000, 0x02, NULL, 0), 1000000002);
    put32(seg, 0x80000000u | 200);
    memcpy(seg + 4, call(0x22, 200), 200);
    put32(seg + 204, 0x80000000u | 120);
    memcpy(seg + 208, call(0x33, 120), 120);
    send_l4(w, v, 6, L4, tcp(5001, 0x18, seg, 328), 2000000003);
    if (w->dlt == DLT_EN10MB) {
        memset(FR, 0, 60);
        put16(FR + 12, 0x0806);
        dump(w, FR, 60, 2000000004);
    }
}

/* Every link type, IPv4 and IPv6: three messages with the right
 * endpoints, lengths, timestamps, packet numbers and connection ids. */
static void test_link_types(void **state) {
    (void)state;
    static const struct {
        int dlt, variant, v4, v6;
    } cases[] = {
        {DLT_EN10MB, 0, 1, 1}, {DLT_EN10MB, 1, 1, 1}, {DLT_EN10MB, 2, 1, 1}, {DLT_LINUX_SLL, 0, 1, 1},
        {276, 0, 1, 1},        {DLT_RAW, 0, 1, 1},    {228, 0, 1, 0},        {229, 0, 0, 1},
        {DLT_NULL, 0, 1, 1},   {DLT_NULL, 1, 1, 1},   {DLT_LOOP, 0, 1, 1},
    };
    char p[300];
    path(p, sizeof p, "cap-link.pcap");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int v = 4; v <= 6; v += 2) {
            if ((v == 4 && !cases[i].v4) || (v == 6 && !cases[i].v6)) continue;
            struct writer w;
            w_open(&w, p, cases[i].dlt, cases[i].variant, 65535);
            basic(&w, v);
            w_close(&w);
            struct tbbt_capstats st;
            assert_int_equal(run(p, &st), 0);
            print_message("dlt %d variant %d IPv%d: %d messages\n", cases[i].dlt, cases[i].variant, v, S.n);
            assert_int_equal(S.n, 3);
            assert_int_equal(get32(S.data[0]), 0x11);
            assert_int_equal(S.m[0].tcp, 0);
            assert_int_equal(S.m[0].len, 120);
            assert_int_equal(S.m[0].caplen, 120);
            assert_int_equal(S.m[0].ts_first, 1000000001);
            assert_int_equal(S.m[0].pktno, 1);
            assert_int_equal(S.m[0].src.family, v);
            assert_int_equal(S.m[0].src.port, 700);
            assert_int_equal(S.m[0].dst.port, 2049);
            assert_memory_equal(S.m[0].dst.addr, v == 4 ? B4 : B6, v == 4 ? 4 : 16);
            assert_memory_equal(S.m[0].src.addr, v == 4 ? A4 : A6, v == 4 ? 4 : 16);
            assert_int_equal(get32(S.data[1]), 0x22);
            assert_int_equal(get32(S.data[2]), 0x33);
            for (int k = 1; k < 3; k++) {
                assert_int_equal(S.m[k].tcp, 1);
                assert_int_equal(S.m[k].pktno, 3);
                assert_int_equal(S.m[k].ts_first, 2000000003);
                assert_int_equal(S.m[k].src.port, 800);
                assert_int_equal(S.m[k].caplen, S.m[k].len);
            }
            assert_int_equal(S.m[1].len, 200);
            assert_int_equal(S.m[2].len, 120);
            assert_int_equal(S.m[1].conn, S.m[2].conn);
            assert_int_not_equal(S.m[0].conn, S.m[1].conn);
            assert_int_equal(st.messages, 3);
            assert_int_equal(st.tcp_streams, 1);
            assert_int_equal(st.bad_packets, 0);
            assert_int_equal(st.non_ip, cases[i].dlt == DLT_EN10MB ? 1 : 0);
            assert_int_equal(st.tail_cut, 0);
            assert_int_equal(st.ts_first, 1000000001);
        }
    }
    unlink(p);
}

/* An 8 KiB UDP reply split into IP fragments sent last-first, IPv4 and
 * IPv6 (with a hop-by-hop header before the fragment header): one message,
 * whole, with the bytes as sent. */
static void test_udp_fragments(void **state) {
    (void)state;
    char p[300];
    path(p, sizeof p, "cap-frag.pcap");
    for (int v = 4; v <= 6; v += 2) {
        struct writer w;
        w_open(&w, p, DLT_EN10MB, 0, 65535);
        static uint8_t dg[9000];
        const uint8_t *m = call(0x44, 8300);
        size_t dlen = udp(m, 8300);
        memcpy(dg, L4, dlen);
        size_t chunk = 1480, nfr = (dlen + chunk - 1) / chunk;
        for (size_t k = nfr; k-- > 0;) {
            size_t off = k * chunk, len = dlen - off < chunk ? dlen - off : chunk;
            size_t n = link_hdr(&w, FR, v);
            n += ip_hdr(&w, FR + n, v, 17, len, 1, off, k + 1 < nfr, 77);
            memcpy(FR + n, dg + off, len);
            dump(&w, FR, n + len, 5000 + (int64_t)(nfr - k));
        }
        w_close(&w);
        struct tbbt_capstats st;
        assert_int_equal(run(p, &st), 0);
        assert_int_equal(S.n, 1);
        assert_int_equal(S.m[0].len, 8300);
        assert_int_equal(S.m[0].caplen, 8300);
        assert_int_equal(get32(S.data[0]), 0x44);
        assert_memory_equal(S.data[0], call(0x44, 8300), 128);
        assert_int_equal(S.m[0].pktno, nfr); /* the fragment at offset 0 came last */
        assert_int_equal(st.ip_fragments, nfr);
        assert_int_equal(st.ip_reassembled, 1);
        assert_int_equal(st.ip_frag_dropped, 0);
    }
    unlink(p);
}

/* A capture with a 200-byte snaplen: each 1000-byte call, one per
 * segment, is delivered with its captured prefix and its full length. */
static void test_snaplen(void **state) {
    (void)state;
    char p[300];
    path(p, sizeof p, "cap-snap.pcap");
    struct writer w;
    w_open(&w, p, DLT_EN10MB, 0, 200);
    send_l4(&w, 4, 6, L4, tcp(99, 0x02, NULL, 0), 1);
    static uint8_t seg[1004];
    for (uint32_t k = 0; k < 3; k++) {
        put32(seg, 0x80000000u | 1000);
        memcpy(seg + 4, call(0x50 + k, 1000), 1000);
        send_l4(&w, 4, 6, L4, tcp(100 + 1004 * k, 0x18, seg, 1004), 2 + k);
    }
    w_close(&w);
    struct tbbt_capstats st;
    assert_int_equal(run(p, &st), 0);
    assert_int_equal(S.n, 3);
    for (int k = 0; k < 3; k++) {
        assert_int_equal(get32(S.data[k]), 0x50 + k);
        assert_int_equal(S.m[k].len, 1000);
        assert_int_equal(S.m[k].caplen, 200 - 14 - 20 - 20 - 4);
    }
    assert_int_equal(st.truncated_msgs, 3);
    assert_int_equal(st.resyncs, 0);
    unlink(p);
}

/* TCP through a capture file (Linux SLL2, IPv4 and IPv6): a record over
 * three segments, a record in three fragments, two records in one
 * segment; segments out of order, retransmitted and overlapping. */
static void test_tcp_pcap(void **state) {
    (void)state;
    char p[300];
    path(p, sizeof p, "cap-tcp.pcap");
    static uint8_t st_[6000];
    size_t n = 0;
    const uint32_t xids[4] = {0x81, 0x82, 0x83, 0x84};
    const size_t lens[4] = {3000, 1000, 100, 100};
    for (int k = 0; k < 4; k++) {
        const uint8_t *m = call(xids[k], lens[k]);
        size_t frag = k == 1 ? 300 : lens[k];
        for (size_t off = 0; off < lens[k]; off += frag) {
            size_t f = lens[k] - off < frag ? lens[k] - off : frag;
            put32(st_ + n, (uint32_t)f | (off + f == lens[k] ? 0x80000000u : 0));
            memcpy(st_ + n + 4, m + off, f);
            n += 4 + f;
        }
    }
    const struct {
        size_t from, to;
    } order[] = {{0, 1000}, {2000, 3500}, {1000, 2000}, {1000, 2000}, {3400, 0}};
    for (int v = 4; v <= 6; v += 2) {
        struct writer w;
        w_open(&w, p, 276, 0, 65535);
        send_l4(&w, v, 6, L4, tcp(999, 0x02, NULL, 0), 1);
        for (int i = 0; i < 5; i++) {
            size_t to = order[i].to ? order[i].to : n;
            send_l4(&w, v, 6, L4,
                    tcp(1000 + (uint32_t)order[i].from, 0x10, st_ + order[i].from, to - order[i].from),
                    10 + i);
        }
        w_close(&w);
        struct tbbt_capstats st;
        assert_int_equal(run(p, &st), 0);
        assert_int_equal(S.n, 4);
        for (int k = 0; k < 4; k++) {
            assert_int_equal(get32(S.data[k]), xids[k]);
            assert_int_equal(S.m[k].len, lens[k]);
            assert_int_equal(S.m[k].caplen, lens[k]);
            assert_memory_equal(S.data[k], call(xids[k], lens[k]), 100);
        }
        assert_int_equal(S.m[0].ts_first, 10);
        assert_int_equal(S.m[0].ts_last, 11); /* its last byte came in the out-of-order segment */
        assert_int_equal(S.m[0].pktno, 2);
        assert_int_equal(st.tcp_retrans, 1);
        assert_true(st.tcp_overlap >= 1);
        assert_int_equal(st.tcp_gaps, 0);
        assert_int_equal(st.resyncs, 0);
        assert_int_equal(st.truncated_msgs, 0);
    }
    unlink(p);
}

#define NSMALL 600

/* Writes a small capture of n UDP calls at p. */
static void small_capture(const char *p, int n) {
    struct writer w;
    w_open(&w, p, DLT_EN10MB, 0, 65535);
    for (int k = 0; k < n; k++)
        send_l4(&w, 4, 17, L4, udp(call(0x60 + (uint32_t)k, 300), 300), 10 + k);
    w_close(&w);
}

/* Reads a whole file into a new buffer. */
static uint8_t *slurp(const char *p, size_t *n) {
    FILE *f = fopen(p, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    uint8_t *b = malloc(*n + 1);
    assert_int_equal(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

static void spill(const char *p, const void *b, size_t n) {
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(b, 1, n, f), n);
    fclose(f);
}

/* The same capture as .gz, as .zst, and as zstd under a .pcap name gives
 * the same messages as the plain file. */
static void test_compressed(void **state) {
    (void)state;
    char p[300], pz[300], pg[300], pn[300];
    path(p, sizeof p, "cap-c.pcap");
    path(pz, sizeof pz, "cap-c.pcap.zst");
    path(pg, sizeof pg, "cap-c.pcap.gz");
    path(pn, sizeof pn, "cap-c-zst-named.pcap");
    small_capture(p, NSMALL); /* over 128 KiB: several zstd blocks */
    size_t n;
    uint8_t *b = slurp(p, &n);
    size_t zb = ZSTD_compressBound(n);
    uint8_t *z = malloc(zb);
    size_t zn = ZSTD_compress(z, zb, b, n, 3);
    assert_false(ZSTD_isError(zn));
    spill(pz, z, zn);
    spill(pn, z, zn);
    gzFile g = gzopen(pg, "wb");
    assert_int_equal(gzwrite(g, b, (unsigned)n), (int)n);
    gzclose(g);
    const char *files[] = {p, pz, pg, pn};
    for (int i = 0; i < 4; i++) {
        struct tbbt_capstats st;
        assert_int_equal(run(files[i], &st), 0);
        assert_int_equal(st.messages, NSMALL);
        assert_int_equal(get32(S.data[19]), 0x60 + 19);
        assert_int_equal(st.bytes + 24 + 16 * NSMALL, n);
        assert_int_equal(st.tail_cut, 0);
    }
    /* cut inside the last packet, plain and compressed: the rest is read */
    spill(p, b, n - 100);
    zn = ZSTD_compress(z, zb, b, n, 3);
    spill(pz, z, zn - 20);
    size_t gn;
    uint8_t *gb = slurp(pg, &gn);
    spill(pg, gb, gn / 2);
    free(gb);
    const char *cut[] = {p, pz, pg};
    for (int i = 0; i < 3; i++) {
        struct tbbt_capstats st;
        assert_int_equal(run(cut[i], &st), 0);
        assert_int_equal(st.tail_cut, 1);
        if (i == 0)
            assert_int_equal(st.messages, NSMALL - 1);
        else
            assert_true(st.messages >= 1 && st.messages < NSMALL);
    }
    free(z);
    free(b);
    unlink(p);
    unlink(pz);
    unlink(pg);
    unlink(pn);
}

/* Writes a pcapng file (section header, interface description, enhanced
 * packet blocks) by hand, since libpcap only writes pcap: n UDP calls,
 * xid 0x70 + k, the k-th stamped us[k] microseconds (the default
 * resolution). */
static void write_pcapng(const char *p, const uint64_t *us, uint32_t n) {
    FILE *f = fopen(p, "wb");
    uint32_t shb[7] = {0x0A0D0D0A, 28, 0x1A2B3C4D, 1, 0xffffffff, 0xffffffff, 28};
    uint32_t idb[5] = {1, 20, 1 /* Ethernet */, 65535, 20};
    fwrite(shb, 4, 7, f);
    fwrite(idb, 4, 5, f);
    for (uint32_t k = 0; k < n; k++) {
        struct writer w = {.dlt = DLT_EN10MB};
        size_t len = link_hdr(&w, FR, 4);
        len += ip_hdr(&w, FR + len, 4, 17, udp(call(0x70 + k, 100), 100), 0, 0, 0, 0);
        memcpy(FR + len, L4, 108);
        len += 108;
        size_t padded = (len + 3) & ~(size_t)3;
        uint32_t epb[7] = {6,
                           (uint32_t)(32 + padded),
                           0,
                           (uint32_t)(us[k] >> 32),
                           (uint32_t)us[k],
                           (uint32_t)len,
                           (uint32_t)len};
        fwrite(epb, 4, 7, f);
        memset(FR + len, 0, padded - len);
        fwrite(FR, 1, padded, f);
        fwrite(&epb[1], 4, 1, f);
    }
    fclose(f);
}

/* A pcapng file is read like a pcap one. */
static void test_pcapng(void **state) {
    (void)state;
    char p[300];
    path(p, sizeof p, "cap-ng.pcapng");
    const uint64_t us[3] = {3000000, 3000001, 3000002};
    write_pcapng(p, us, 3);
    struct tbbt_capstats st;
    assert_int_equal(run(p, &st), 0);
    assert_int_equal(S.n, 3);
    assert_int_equal(get32(S.data[2]), 0x72);
    assert_int_equal(S.m[1].ts_first, 3000001000LL);
    unlink(p);
}

/* A pcapng time stamp too large for nanoseconds in an int64_t (fuzz_capture
 * found the overflow), or outside +-TBBT_TIME_LIMIT: that packet counts as
 * malformed and is skipped, the others read; the capture's first time is the first usable one, even when
 * the very first packet is the bad one. */
static void test_pcapng_time_overflow(void **state) {
    (void)state;
    char p[300];
    path(p, sizeof p, "cap-ng-time.pcapng");
    const uint64_t huge = UINT64_MAX - 5; /* ~1.8e13 s */
    const uint64_t mid[3] = {3000000, huge, 3000002}, first[3] = {huge, 3000001, 3000002};
    struct tbbt_capstats st;
    write_pcapng(p, mid, 3);
    assert_int_equal(run(p, &st), 0);
    assert_int_equal(st.packets, 3);
    assert_int_equal(st.bad_packets, 1);
    assert_int_equal(S.n, 2);
    assert_int_equal(get32(S.data[1]), 0x72);
    assert_int_equal(st.ts_first, 3000000000LL);
    assert_int_equal(st.ts_last, 3000002000LL);
    write_pcapng(p, first, 3);
    assert_int_equal(run(p, &st), 0);
    assert_int_equal(st.bad_packets, 1);
    assert_int_equal(S.n, 2);
    assert_int_equal(st.ts_first, 3000001000LL);
    /* past TBBT_TIME_LIMIT (2^62 ns, the year 2116) but inside int64_t:
     * refused too, for the room later sums of times need */
    const uint64_t past[3] = {3000000, 5000000000ULL * 1000000, 3000002};
    write_pcapng(p, past, 3);
    assert_int_equal(run(p, &st), 0);
    assert_int_equal(st.bad_packets, 1);
    assert_int_equal(S.n, 2);
    unlink(p);
}

/* Files that are not captures fail to open with the one-line message. */
static void test_not_capture(void **state) {
    (void)state;
    char p[300], want[400], err[512];
    path(p, sizeof p, "cap-not.pcap");
    const char *bodies[] = {"", "hello, this is not a capture at all\n", "\x0a\x0d\x0d\x0a\x01"};
    for (int i = 0; i < 3; i++) {
        spill(p, bodies[i], strlen(bodies[i]));
        snprintf(want, sizeof want, "%s: not a pcap or pcapng capture", p);
        err[0] = 0;
        assert_null(tbbt_capture_open(p, err, sizeof err));
        assert_string_equal(err, want);
    }
    /* compressed garbage too */
    const char *txt = "just some text, compressed\n";
    uint8_t z[256];
    size_t zn = ZSTD_compress(z, sizeof z, txt, strlen(txt), 1);
    spill(p, z, zn);
    assert_null(tbbt_capture_open(p, err, sizeof err));
    assert_string_equal(err, want);
    unlink(p);
    path(p, sizeof p, "cap-absent.pcap");
    assert_null(tbbt_capture_open(p, err, sizeof err));
    assert_non_null(strstr(err, p));
    assert_null(strchr(err, '\n'));
}

/* Returns the shared captures folder, or NULL when absent: ctest passes
 * SRC/../shared/captures in TBBT_SHARED_CAPTURES (tests/CMakeLists.txt), so
 * no path of one machine is written here. */
static const char *shared_dir(void) {
    const char *d = getenv("TBBT_SHARED_CAPTURES");
    if (!d || !*d) {
        print_message("TBBT_SHARED_CAPTURES unset: no shared captures to read\n");
        return NULL;
    }
    if (access(d, R_OK) != 0) {
        print_message("%s absent: no shared captures to read\n", d);
        return NULL;
    }
    return d;
}

/* nfstrace's NFSv3 call count from its breakdown file, or -1. */
static long ref_v3_calls(const char *capture) {
    char ref[600];
    snprintf(ref, sizeof ref, "%.*s.breakdown.ref", (int)(strlen(capture) - strlen(".pcap.zst")), capture);
    FILE *f = fopen(ref, "r");
    if (!f) return -1;
    char line[512];
    int in = 0;
    long n = -1;
    while (fgets(line, sizeof line, f)) {
        if (strstr(line, "NFS v3 protocol")) in = 1;
        if (in && sscanf(line, "Total operations: %ld", &n) == 1) break;
    }
    fclose(f);
    return n;
}

/* Every real capture opens and runs to the end without error; where
 * nfstrace counted NFSv3 calls we find at least as many and not wildly
 * more (duplicates and retransmissions are delivered too). */
static void test_shared_captures(void **state) {
    (void)state;
    const char *base = shared_dir();
    if (!base) skip();
    const char *sub[] = {"public", "real"};
    int files = 0;
    for (int s = 0; s < 2; s++) {
        char d[400];
        snprintf(d, sizeof d, "%s/%s", base, sub[s]);
        DIR *dir = opendir(d);
        if (!dir) continue;
        struct dirent *e;
        while ((e = readdir(dir))) {
            size_t l = strlen(e->d_name);
            if (l < 4 || strcmp(e->d_name + l - 4, ".zst")) continue;
            char p[800];
            snprintf(p, sizeof p, "%s/%s", d, e->d_name);
            struct tbbt_capstats st;
            assert_int_equal(run(p, &st), 0);
            assert_int_equal(st.tail_cut, 0);
            assert_true(st.messages > 0);
            long ref = ref_v3_calls(p);
            print_message("%s: %llu messages, %llu NFSv3 calls (nfstrace: %ld)\n", e->d_name,
                          (unsigned long long)st.messages, (unsigned long long)S.v3calls, ref);
            if (ref >= 0) {
                assert_true(S.v3calls >= (uint64_t)ref);
                assert_true(S.v3calls <= (uint64_t)ref + (uint64_t)ref / 2 + 5);
            }
            files++;
        }
        closedir(dir);
    }
    assert_true(files > 0);
}

static int setup(void **state) {
    (void)state;
    snprintf(DIR_, sizeof DIR_, "%s/tbbt-test-capture-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    return mkdtemp(DIR_) ? 0 : -1;
}

static int teardown(void **state) {
    (void)state;
    return rmdir(DIR_);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_link_types),
        cmocka_unit_test(test_udp_fragments),
        cmocka_unit_test(test_snaplen),
        cmocka_unit_test(test_tcp_pcap),
        cmocka_unit_test(test_compressed),
        cmocka_unit_test(test_pcapng),
        cmocka_unit_test(test_pcapng_time_overflow),
        cmocka_unit_test(test_not_capture),
        cmocka_unit_test(test_shared_captures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
