/* tbbt-pcapdrop: damage a capture the way real sites' captures are damaged,
 * reproducibly.
 *
 * Usage: tbbt-pcapdrop [options] IN.pcap OUT.pcap   (--help lists them)
 *
 * Reads IN (pcap or pcapng, libpcap) whole into memory and writes OUT (pcap,
 * pcap_dump). The damage is applied in this order, each step deterministic
 * given --seed:
 *   0. --fragment: every whole IPv4 UDP datagram longer than the MTU becomes
 *      IP fragments (RFC 791), each a packet in the place of the original, so
 *      the steps below see a capture taken on a link of that MTU. The packet
 *      list after this step is "the input" of the others and of --truth.
 *   1. deletions, decided on input packets: --start-mid drops a prefix;
 *      --drop-percent a uniform seeded share (the choice for packet i depends
 *      only on the seed and i, as it always did); --burst-percent runs of
 *      consecutive packets; --drop-frags non-first IP fragments of UDP
 *      datagrams. --replies-only spares every packet the server did not send.
 *   2. --start-mid: the first kept segment of each TCP direction loses the
 *      start of its payload, so the stream begins inside a record.
 *   3. --gro: contiguous segments of one direction, adjacent in that
 *      direction's packets, become one super-segment at the last one's place.
 *   4. --snaplen: every kept packet is cut to N bytes (tcpdump -r -s does not
 *      cut when rewriting a file).
 * Prints one summary line on stdout; --truth FILE says what happened to each
 * input packet (numbered from 1, as tshark's frame.number; with --fragment,
 * the packets of the fragmented list, i.e. of --fragment's output alone).
 * Exit: 0 done, 1 bad input or I/O error, 2 bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "htab.h"
#include "linklayer.h"
#include "opttab.h"
#include "rng.h"

#define PD_MAXSNAP 262144 /* libpcap's MAXIMUM_SNAPLEN, tcpdump's default */
#define PD_IP_MAX 65535   /* largest IP total length of a super-segment */

/* ---- options: declared once, in a table (lib/opttab.h) ---------------------- */

struct pd_opts {
    gint64 seed;
    double percent, burst_percent, frag_percent;
    int snaplen, burst_min, burst_max, start_mid, gro_max, mtu; /* -1 = off */
    gboolean gro, replies_only;
    struct tbbt_opt_ports server;
    char *truth;
    const char *in, *out;
};

/* The options' values: the table writes them, main hands them on. The
 * ones without a default are off (-1) unless given. */
static struct pd_opts O = {.snaplen = -1, .start_mid = -1, .mtu = -1};

static const struct tbbt_opt pd_options[] = {
    {.name = "seed",
     .type = TBBT_OPT_INT64,
     .var = &O.seed,
     .arg = "S",
     .def = "1",
     .lo = 0,
     .hi = INT64_MAX,
     .help = "seed of every choice"},
    {.name = "fragment",
     .type = TBBT_OPT_INT,
     .var = &O.mtu,
     .arg = "N",
     .lo = 68,
     .hi = 65535,
     .defhelp = "off",
     .help = "first of all, split every IPv4 UDP datagram whose IP packet is over N bytes into IP fragments, "
             "as the sending host on a link of MTU N does (DF set by a sender on a larger link is cleared); "
             "left whole: datagrams with IP options, IPv6 and TCP"},
    {.name = "drop-percent",
     .type = TBBT_OPT_DOUBLE,
     .var = &O.percent,
     .arg = "P",
     .def = "0",
     .dlo = 0,
     .dhi = 100,
     .help = "share of packets to delete, each chosen alone (decimals allowed)"},
    {.name = "burst-percent",
     .type = TBBT_OPT_DOUBLE,
     .var = &O.burst_percent,
     .arg = "P",
     .def = "0",
     .dlo = 0,
     .dhi = 100,
     .help = "share of packets to delete in runs of consecutive packets (consecutive among the server's "
             "with --replies-only); runs never touch"},
    {.name = "burst-min",
     .type = TBBT_OPT_INT,
     .var = &O.burst_min,
     .arg = "N",
     .def = "10",
     .lo = 1,
     .hi = 1000000,
     .help = "shortest run of --burst-percent, in packets"},
    {.name = "burst-max",
     .type = TBBT_OPT_INT,
     .var = &O.burst_max,
     .arg = "N",
     .def = "500",
     .lo = 1,
     .hi = 1000000,
     .help = "longest run of --burst-percent, in packets"},
    {.name = "replies-only",
     .type = TBBT_OPT_FLAG,
     .var = &O.replies_only,
     .help = "deletions (not --start-mid's) hit only packets the server sent (source port in --server-port)"},
    {.name = "server-port",
     .type = TBBT_OPT_PORTS,
     .var = &O.server,
     .arg = "PORTS",
     .def = "2049",
     .help = "the server's TCP/UDP ports, comma separated (e.g. 2049,20048 for NFS and MOUNT)"},
    {.name = "drop-frags",
     .type = TBBT_OPT_DOUBLE,
     .var = &O.frag_percent,
     .arg = "P",
     .def = "0",
     .dlo = 0,
     .dhi = 100,
     .help = "share of the non-first IP fragments of UDP datagrams to delete"},
    {.name = "start-mid",
     .type = TBBT_OPT_INT,
     .var = &O.start_mid,
     .arg = "N",
     .lo = 0,
     .hi = 2000000000,
     .defhelp = "off",
     .help = "delete the first N packets and start each TCP direction inside its first payload"},
    {.name = "gro",
     .type = TBBT_OPT_FLAG,
     .var = &O.gro,
     .help = "coalesce contiguous TCP segments into super-segments, as GRO/TSO hands them to tcpdump"},
    {.name = "gro-max",
     .type = TBBT_OPT_INT,
     .var = &O.gro_max,
     .arg = "N",
     .def = "65000",
     .lo = 1,
     .hi = 65535,
     .help = "most payload bytes in one super-segment"},
    {.name = "snaplen",
     .type = TBBT_OPT_INT,
     .var = &O.snaplen,
     .arg = "N",
     .lo = 16,
     .hi = PD_MAXSNAP,
     .defhelp = "off",
     .help = "cut every kept packet to N bytes, after --gro"},
    {.name = "truth",
     .type = TBBT_OPT_FILE,
     .var = &O.truth,
     .arg = "FILE",
     .help = "write 'INDEX ACTION...' for every input packet deleted or altered; ACTION: drop, trimmed:K, "
             "merged-into:J (J: the super-segment's first packet), cut, fragment-of:I (I: the input packet; "
             "with --fragment, INDEX and J number the fragmented list)"},
    TBBT_OPT_END,
};

static const struct tbbt_cmd pd_cmd = {
    .tool = "tbbt-pcapdrop",
    .synopsis = "tbbt-pcapdrop [options] IN.pcap OUT.pcap",
    .params = "IN.pcap OUT.pcap - copy IN (pcap/pcapng) to OUT (pcap), damaged as a busy tap or host damages "
              "captures",
    .description =
        "Packets are numbered from 1 (tshark's frame.number). Summary on stdout:\n"
        "\"dropped D of N packets, cut C, merged M into S super-segments, trimmed T, fragments "
        "dropped F\"; with --fragment, N counts the fragmented list and \", fragmented A datagrams "
        "in B fragments (C had DF), kept whole O with options\" follows.\n"
        "Order: --fragment, deletions, --start-mid trims, --gro, --snaplen.\n"
        "Exit: 0 done, 1 bad input or I/O error, 2 bad usage.",
    .opts = pd_options,
};

/* Parses argv into O (lib/opttab.h: defaults, bounds, --help, usage
 * errors with exit 2), then what one option alone cannot check: the
 * operands and the burst bounds' order. */
static void pd_parse(int argc, char **argv) {
    tbbt_opt_parse(&pd_cmd, &argc, &argv);
    if (argc < 3) tbbt_opt_usage(&pd_cmd, "need IN.pcap and OUT.pcap");
    if (argc > 3)
        tbbt_opt_usage(&pd_cmd, "unexpected argument '%s': need only IN.pcap and OUT.pcap", argv[3]);
    O.in = argv[1];
    O.out = argv[2];
    if (O.burst_min > O.burst_max)
        tbbt_opt_usage(&pd_cmd, "--burst-min %d is above --burst-max %d: need min <= max", O.burst_min,
                       O.burst_max);
}

/* ---- deterministic choices -------------------------------------------------- */

/* Salts that keep the features' random streams apart. */
enum { PD_S_BURST = 0x6275, PD_S_FRAG = 0x6672, PD_S_MID = 0x6d69 };

/* Returns a well-mixed 64-bit hash of (seed, i): splitmix64 of their sum. */
static uint64_t pd_mix(uint64_t seed, uint64_t i) {
    return tbbt_rng_mix(seed * TBBT_RNG_GOLDEN + i * 0xd1b54a32d192ed03ull + 0x632be59bd9b4e019ull);
}

/* Returns 1 when the choice for (seed, i) falls in the share percent (0..100):
 * a threshold on the top 53 bits, so 100% picks everything and 0% nothing. */
static int pd_chance(uint64_t seed, uint64_t i, double percent) {
    return (double)(pd_mix(seed, i) >> 11) < percent / 100.0 * 9007199254740992.0;
}

/* Out of memory ends the tool (one wrapper, like GLib's g_malloc). */
static void *pd_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "tbbt-pcapdrop: out of memory\n");
        exit(1);
    }
    return q;
}

/* ---- bounds-checked wire reads ---------------------------------------------- */

/* A packet's captured bytes; any read past them sets bad, and the parser
 * checks bad once (truncation has one exit path). */
struct pd_rd {
    const u_char *b;
    size_t n;
    int bad;
};

/* Returns the byte at off, or 0 and sets r->bad past the end. */
static uint32_t pd_u8(struct pd_rd *r, size_t off) {
    if (off >= r->n) {
        r->bad = 1;
        return 0;
    }
    return r->b[off];
}

/* Returns the big-endian 16-bit value at off (0 and r->bad past the end). */
static uint32_t pd_u16(struct pd_rd *r, size_t off) {
    return pd_u8(r, off) << 8 | pd_u8(r, off + 1);
}

/* Returns the big-endian 32-bit value at off (0 and r->bad past the end). */
static uint32_t pd_u32(struct pd_rd *r, size_t off) {
    return pd_u16(r, off) << 16 | pd_u16(r, off + 2);
}

/* Copies n bytes at off to dst (zeros and r->bad past the end). */
static void pd_copy_bytes(struct pd_rd *r, size_t off, uint8_t *dst, size_t n) {
    if (off + n > r->n) {
        r->bad = 1;
        memset(dst, 0, n);
        return;
    }
    memcpy(dst, r->b + off, n);
}

/* Stores v big-endian at b. */
static void pd_put16(u_char *b, uint32_t v) {
    b[0] = (u_char)(v >> 8);
    b[1] = (u_char)v;
}

/* Stores v big-endian at b. */
static void pd_put32(u_char *b, uint32_t v) {
    pd_put16(b, v >> 16);
    pd_put16(b + 2, v);
}

/* ---- packets and their layout ----------------------------------------------- */

/* Where a packet's IP and TCP/UDP parts are; ipv 0 = not IP/TCP/UDP we know. */
struct pd_lay {
    uint8_t ipv, proto, tflags, frag; /* frag: an IP fragment (MF set or offset > 0) */
    uint16_t sport, dport;            /* 0 unless the L4 header is in this packet */
    uint32_t l3, l4, pay;             /* offsets of IP header, L4 header, TCP payload */
    uint32_t iplen;                   /* IP total length on the wire (IPv6: 40 + payload length) */
    uint32_t paylen;                  /* TCP payload length on the wire */
    uint32_t seq, fragoff, fragid;
    uint8_t addr[32]; /* source then destination, IPv4 in the first 4 bytes of each */
};

enum { PD_DEL = 1, PD_FRAGDEL = 2, PD_TRIM = 4, PD_MERGED = 8, PD_ABSORBED = 16, PD_CUT = 32 };

struct pd_pkt {
    struct pcap_pkthdr h;
    u_char *data;
    struct pd_lay l;
    unsigned flags;
    uint32_t trim;      /* bytes cut from the payload's start (PD_TRIM) */
    int64_t head, next; /* super-segment: first member, next member (-1 none) */
    uint32_t mend;      /* end of this member's bytes in the super-segment */
    uint8_t ipv4_ck_ok; /* the IPv4 header checksum was right as captured */
    size_t fragof;      /* --fragment: 1 + the input packet it was cut from; 0 none */
};

/* Counts of the summary line (the f* ones: --fragment's). */
struct pd_sum {
    uint64_t n, dropped, cut, merged, supers, trimmed, frags;
    uint64_t fdatagrams, fpieces, fdf, fopts;
};

struct pd_cap {
    struct pd_pkt *p;
    size_t n, cap;
    int linktype, snapshot, precision;
};

/* Reads the TCP or UDP header at l->l4 into l. */
static void pd_l4(struct pd_rd *r, struct pd_lay *l) {
    l->sport = (uint16_t)pd_u16(r, l->l4);
    l->dport = (uint16_t)pd_u16(r, l->l4 + 2);
    if (l->proto != 6) return;
    l->seq = pd_u32(r, l->l4 + 4);
    uint32_t doff = (pd_u8(r, l->l4 + 12) >> 4) * 4;
    l->tflags = (uint8_t)pd_u8(r, l->l4 + 13);
    l->pay = l->l4 + doff;
    if (doff < 20 || l->pay > l->l3 + l->iplen || l->pay > r->n) r->bad = 1;
    l->paylen = l->l3 + l->iplen - l->pay;
}

/* Reads an IPv4 header at l->l3 into l. */
static void pd_ip4(struct pd_rd *r, struct pd_lay *l) {
    uint32_t ihl = (pd_u8(r, l->l3) & 15) * 4, fl = pd_u16(r, l->l3 + 6);
    l->iplen = pd_u16(r, l->l3 + 2);
    l->fragid = pd_u16(r, l->l3 + 4);
    l->fragoff = (fl & 0x1fff) * 8;
    l->frag = (fl & 0x2000) || l->fragoff;
    l->proto = (uint8_t)pd_u8(r, l->l3 + 9);
    pd_copy_bytes(r, l->l3 + 12, l->addr, 4);
    pd_copy_bytes(r, l->l3 + 16, l->addr + 16, 4);
    if (ihl < 20 || l->iplen < ihl) r->bad = 1;
    l->l4 = l->l3 + ihl;
}

/* Reads an IPv6 header and its extension headers (hop-by-hop, routing,
 * destination options, fragment) at l->l3 into l. */
static void pd_ip6(struct pd_rd *r, struct pd_lay *l) {
    uint32_t plen = pd_u16(r, l->l3 + 4), nh = pd_u8(r, l->l3 + 6), off = l->l3 + 40;
    pd_copy_bytes(r, l->l3 + 8, l->addr, 32);
    l->iplen = 40 + plen;
    for (int i = 0; i < 8 && !r->bad && (nh == 0 || nh == 43 || nh == 60 || nh == 44); i++) {
        if (nh == 44) {
            uint32_t fo = pd_u16(r, off + 2);
            l->fragoff = fo & 0xfff8;
            l->frag = 1;
            l->fragid = pd_u32(r, off + 4);
            nh = pd_u8(r, off);
            off += 8;
            if (l->fragoff) break; /* what follows continues the datagram */
            continue;
        }
        uint32_t len = (pd_u8(r, off + 1) + 1) * 8;
        nh = pd_u8(r, off);
        off += len;
    }
    l->proto = (uint8_t)nh;
    if (plen == 0 || off > l->l3 + l->iplen) r->bad = 1; /* jumbograms are not ours */
    l->l4 = off;
}

/* Returns the folded one's-complement sum of the n (even) bytes at b, the
 * IPv4 header checksum's arithmetic. */
static uint32_t pd_sum16(const u_char *b, uint32_t n) {
    uint32_t s = 0;
    for (uint32_t i = 0; i + 1 < n; i += 2)
        s += (uint32_t)b[i] << 8 | b[i + 1];
    while (s >> 16)
        s = (s & 0xffff) + (s >> 16);
    return s;
}

/* Lays out packet p of linktype: fills p->l, leaving ipv 0 when it is not
 * IPv4/IPv6 carrying TCP or UDP, or is cut or inconsistent where we look. */
static void pd_layout(struct pd_pkt *p, int linktype) {
    struct pd_rd r = {p->data, p->h.caplen, 0};
    struct pd_lay l;
    size_t l3;
    memset(&l, 0, sizeof(l));
    memset(&p->l, 0, sizeof(p->l));
    int v = tbbt_link_ip(linktype, p->data, p->h.caplen, &l3); /* the decoder's own link layer */
    if (v <= 0 || l3 >= p->h.caplen || (uint32_t)(pd_u8(&r, l3) >> 4) != (uint32_t)v) return;
    l.l3 = (uint32_t)l3;
    if (v == 4)
        pd_ip4(&r, &l);
    else if (v == 6)
        pd_ip6(&r, &l);
    else
        return;
    if (r.bad || (l.proto != 6 && l.proto != 17) || l.l3 + l.iplen > p->h.len) return;
    if (l.fragoff == 0) pd_l4(&r, &l);
    if (r.bad) return;
    l.ipv = (uint8_t)v;
    p->l = l;
    p->ipv4_ck_ok = v == 4 && pd_sum16(p->data + l.l3, l.l4 - l.l3) == 0xffff;
}

/* Returns a new packet at the end of c, zeroed and in no super-segment. */
static struct pd_pkt *pd_append(struct pd_cap *c) {
    if (c->n == c->cap) {
        c->cap = c->cap ? 2 * c->cap : 1024;
        c->p = pd_xrealloc(c->p, c->cap * sizeof(*c->p));
    }
    struct pd_pkt *p = &c->p[c->n++];
    memset(p, 0, sizeof(*p));
    p->head = p->next = -1;
    return p;
}

/* Reads every packet of o->in into c. Returns 0, or -1 with a one-line
 * error naming the file (and the packet when one is bad) on stderr. */
static int pd_load(const struct pd_opts *o, struct pd_cap *c) {
    char err[PCAP_ERRBUF_SIZE];
    pcap_t *in = pcap_open_offline(o->in, err); /* microsecond pcap out, like tcpdump */
    if (!in) {
        size_t n = strlen(o->in);
        int named = strncmp(err, o->in, n) == 0 && err[n] == ':';
        fprintf(stderr, "tbbt-pcapdrop: %s%s%s\n", named ? "" : o->in, named ? "" : ": ", err);
        return -1;
    }
    c->linktype = pcap_datalink(in);
    c->snapshot = pcap_snapshot(in);
    c->precision = pcap_get_tstamp_precision(in);
    struct pcap_pkthdr *h;
    const u_char *data;
    int r;
    while ((r = pcap_next_ex(in, &h, &data)) == 1) {
        struct pd_pkt *p = pd_append(c);
        p->h = *h;
        p->data = pd_xrealloc(NULL, h->caplen);
        memcpy(p->data, data, h->caplen);
        pd_layout(p, c->linktype);
    }
    if (r == PCAP_ERROR)
        fprintf(stderr, "tbbt-pcapdrop: %s: packet %zu: %s\n", o->in, c->n + 1, pcap_geterr(in));
    pcap_close(in);
    return r == PCAP_ERROR ? -1 : 0;
}

/* ---- --fragment ---------------------------------------------------------------- */

/* Returns 1 when packet p is an IPv4 UDP datagram --fragment splits for
 * mtu: not a fragment, every byte captured, over mtu, and without IP
 * options (copying only the copied ones is not worth it here). DF does not
 * keep it whole: it was set by a host whose link carried the datagram
 * whole (Linux sets it on every UDP datagram that fits its path), and that
 * host, on a link of mtu, fragments its own datagram and clears DF. Counts
 * the DF ones and the option ones kept whole in sum. */
static int pd_frag_able(const struct pd_pkt *p, long mtu, struct pd_sum *sum) {
    const struct pd_lay *l = &p->l;
    struct pd_rd r = {p->data, p->h.caplen, 0};
    if (l->ipv != 4 || l->proto != 17 || l->frag || l->iplen <= (uint32_t)mtu ||
        l->l3 + l->iplen > p->h.caplen)
        return 0;
    uint32_t df = pd_u16(&r, l->l3 + 6) & 0x4000;
    if (r.bad) return 0;
    sum->fdf += l->l4 - l->l3 == 20 && df;
    sum->fopts += l->l4 - l->l3 != 20;
    return l->l4 - l->l3 == 20;
}

/* Returns the ticks of precision (micro or nano) per second. */
static int64_t pd_ticks(int precision) {
    return precision == PCAP_TSTAMP_PRECISION_NANO ? 1000000000 : 1000000;
}

/* Returns ts moved on by k ticks of precision. */
static struct timeval pd_ts_add(struct timeval ts, uint64_t k, int precision) {
    int64_t t = (int64_t)ts.tv_usec + (int64_t)k, per = pd_ticks(precision);
    ts.tv_sec += (time_t)(t / per);
    ts.tv_usec = (suseconds_t)(t % per);
    return ts;
}

/* Returns the ticks from a to b, 0 when b is not later: how far a
 * fragment may move on without passing the next packet. */
static uint64_t pd_ts_gap(struct timeval a, struct timeval b, int precision) {
    int64_t d = ((int64_t)b.tv_sec - a.tv_sec) * pd_ticks(precision) + ((int64_t)b.tv_usec - a.tv_usec);
    return d > 0 ? (uint64_t)d : 0;
}

/* Appends to out the fragment of packet p (input index src) that carries
 * bytes [off, off + len) of its IP payload, at ts: p's link header and IPv4
 * header (the same id), its total length, MF unless it is the last, the
 * offset in 8-byte units and a fresh header checksum. */
static void pd_frag_one(struct pd_cap *out, const struct pd_pkt *p, size_t src, uint32_t off, uint32_t len,
                        struct timeval ts) {
    struct pd_rd r = {p->data, p->h.caplen, 0};
    uint32_t hl = p->l.l4, last = off + len == p->l.iplen - (p->l.l4 - p->l.l3);
    struct pd_pkt *f = pd_append(out);
    f->h.ts = ts;
    f->h.caplen = f->h.len = hl + len;
    f->data = pd_xrealloc(NULL, hl + len);
    pd_copy_bytes(&r, 0, f->data, hl);
    pd_copy_bytes(&r, hl + off, f->data + hl, len);
    u_char *ip = f->data + p->l.l3;
    pd_put16(ip + 2, hl - p->l.l3 + len);
    pd_put16(ip + 6, (pd_u16(&r, p->l.l3 + 6) & 0x8000) | (last ? 0 : 0x2000) | off / 8);
    pd_put16(ip + 10, 0);
    pd_put16(ip + 10, ~pd_sum16(ip, hl - p->l.l3) & 0xffff);
    f->fragof = src + 1;
    pd_layout(f, out->linktype);
}

/* --fragment: replaces c's packets with those a capture on a link of MTU
 * o->mtu holds: every datagram pd_frag_able takes becomes its fragments in
 * its place, the k-th (from 0) k ticks later than it but never later than
 * the next packet, so the order stays the same when sorted by time. */
static void pd_fragment(const struct pd_opts *o, struct pd_cap *c, struct pd_sum *sum) {
    struct pd_cap out = {NULL, 0, 0, c->linktype, c->snapshot, c->precision};
    uint32_t per = ((uint32_t)o->mtu - 20) & ~7u;
    for (size_t i = 0; i < c->n; i++) {
        struct pd_pkt *p = &c->p[i];
        if (!pd_frag_able(p, o->mtu, sum)) {
            *pd_append(&out) = *p;
            continue;
        }
        uint32_t data = p->l.iplen - 20;
        uint64_t room = i + 1 < c->n ? pd_ts_gap(p->h.ts, c->p[i + 1].h.ts, c->precision) : UINT64_MAX;
        for (uint32_t off = 0, k = 0; off < data; off += per, k++) {
            pd_frag_one(&out, p, i, off, data - off < per ? data - off : per,
                        pd_ts_add(p->h.ts, k < room ? k : room, c->precision));
            sum->fpieces++;
        }
        sum->fdatagrams++;
        free(p->data);
    }
    free(c->p);
    *c = out;
}

/* ---- a small hash map from 40-byte keys to indices -------------------------- */

struct pd_key {
    uint8_t b[40];
};

struct pd_map {
    struct pd_key *k;
    int64_t *v; /* -1 = empty slot */
    size_t cap, n;
};

/* Returns the FNV-1a hash of k. */
static uint64_t pd_hash(const struct pd_key *k) {
    return tbbt_htab_fnv1a(k->b, sizeof(k->b), TBBT_HTAB_FNV1A_BASIS);
}

/* Returns the slot of k in m: its own, or the empty one where it goes. */
static size_t pd_slot(const struct pd_map *m, const struct pd_key *k) {
    size_t i = pd_hash(k) & (m->cap - 1);
    while (m->v[i] >= 0 && memcmp(&m->k[i], k, sizeof(*k)) != 0)
        i = (i + 1) & (m->cap - 1);
    return i;
}

/* Returns the value of k in m, or -1 when it is absent. */
static int64_t pd_get(const struct pd_map *m, const struct pd_key *k) {
    return m->cap ? m->v[pd_slot(m, k)] : -1;
}

/* Sets k to v (>= 0) in m, growing it to stay at most half full. */
static void pd_put(struct pd_map *m, const struct pd_key *k, int64_t v) {
    if (2 * (m->n + 1) > m->cap) {
        struct pd_map g = {NULL, NULL, m->cap ? 2 * m->cap : 256, 0};
        g.k = pd_xrealloc(NULL, g.cap * sizeof(*g.k));
        g.v = pd_xrealloc(NULL, g.cap * sizeof(*g.v));
        for (size_t i = 0; i < g.cap; i++)
            g.v[i] = -1;
        for (size_t i = 0; i < m->cap; i++)
            if (m->v[i] >= 0) pd_put(&g, &m->k[i], m->v[i]);
        free(m->k);
        free(m->v);
        *m = g;
    }
    size_t i = pd_slot(m, k);
    if (m->v[i] < 0) m->n++;
    m->k[i] = *k;
    m->v[i] = v;
}

/* Frees m's memory. */
static void pd_map_free(struct pd_map *m) {
    free(m->k);
    free(m->v);
}

/* Returns the key of l's direction (reverse: the other direction). */
static struct pd_key pd_dir_key(const struct pd_lay *l, int reverse) {
    struct pd_key k;
    memset(&k, 0, sizeof(k));
    k.b[0] = l->ipv;
    k.b[1] = l->proto;
    uint16_t sp = reverse ? l->dport : l->sport, dp = reverse ? l->sport : l->dport;
    memcpy(k.b + 2, &sp, 2);
    memcpy(k.b + 4, &dp, 2);
    memcpy(k.b + 8, l->addr + (reverse ? 16 : 0), 16);
    memcpy(k.b + 24, l->addr + (reverse ? 0 : 16), 16);
    return k;
}

/* Returns the key of the datagram l is a fragment of. */
static struct pd_key pd_frag_key(const struct pd_lay *l) {
    struct pd_key k;
    memset(&k, 0, sizeof(k));
    k.b[0] = l->ipv | 0x80;
    k.b[1] = l->proto;
    memcpy(k.b + 2, &l->fragid, 4);
    memcpy(k.b + 8, l->addr, 32);
    return k;
}

/* ---- deletions --------------------------------------------------------------- */

/* Returns 1 when port is one of the server's. */
static int pd_server_port(const struct pd_opts *o, uint16_t port) {
    for (int i = 0; i < o->server.n; i++)
        if (o->server.v[i] == port) return 1;
    return 0;
}

/* Marks in srv[i] whether packet i was sent by the server: its TCP/UDP
 * source port is a server port, or it is a later fragment of a datagram
 * whose first fragment's is. */
static void pd_find_server(const struct pd_opts *o, const struct pd_cap *c, uint8_t *srv) {
    struct pd_map firsts = {0};
    for (size_t i = 0; i < c->n; i++) {
        const struct pd_lay *l = &c->p[i].l;
        srv[i] = l->ipv && l->fragoff == 0 && pd_server_port(o, l->sport);
        if (l->ipv && l->frag && l->fragoff == 0) {
            struct pd_key k = pd_frag_key(l);
            pd_put(&firsts, &k, srv[i]);
        }
    }
    for (size_t i = 0; i < c->n; i++) {
        const struct pd_lay *l = &c->p[i].l;
        if (l->ipv && l->fragoff > 0) {
            struct pd_key k = pd_frag_key(l);
            srv[i] = pd_get(&firsts, &k) == 1;
        }
    }
    pd_map_free(&firsts);
}

/* Deletes runs of consecutive eligible packets (elig[0..ne) are their
 * indices), each run's length uniform in [burst_min, burst_max] at a seeded
 * start, never touching another run, until about burst_percent of them are
 * gone (or no room is left). */
static void pd_bursts(const struct pd_opts *o, struct pd_cap *c, const size_t *elig, size_t ne) {
    size_t target = (size_t)(o->burst_percent / 100.0 * (double)ne + 0.5), done = 0;
    size_t lo = (size_t)o->burst_min, hi = (size_t)o->burst_max < ne ? (size_t)o->burst_max : ne;
    if (target == 0 || lo > hi) return;
    uint8_t *in = pd_xrealloc(NULL, ne);
    memset(in, 0, ne);
    uint64_t draw = 0;
    for (size_t tries = 0; done < target && tries < 100 + 20 * ne; tries++) {
        size_t len = lo + pd_mix(o->seed ^ PD_S_BURST, draw++) % (hi - lo + 1);
        size_t start = pd_mix(o->seed ^ PD_S_BURST, draw++) % (ne - len + 1), j;
        size_t from = start ? start - 1 : 0, to = start + len < ne ? start + len : ne - 1;
        for (j = from; j <= to && !in[j]; j++) {
        }
        if (j <= to) continue; /* would touch a run: not a run of its own length */
        memset(in + start, 1, len);
        done += len;
    }
    for (size_t j = 0; j < ne; j++)
        if (in[j]) c->p[elig[j]].flags |= PD_DEL;
    free(in);
}

/* Decides every deletion: the --start-mid prefix, the uniform share, the
 * bursts and the fragments, sparing non-server packets with --replies-only. */
static void pd_delete(const struct pd_opts *o, struct pd_cap *c) {
    uint8_t *srv = pd_xrealloc(NULL, c->n);
    size_t *elig = pd_xrealloc(NULL, c->n * sizeof(*elig)), ne = 0;
    pd_find_server(o, c, srv);
    for (size_t i = 0; i < c->n; i++) {
        struct pd_pkt *p = &c->p[i];
        if (o->start_mid >= 0 && i < (size_t)o->start_mid) {
            p->flags |= PD_DEL;
            continue;
        }
        if (o->replies_only && !srv[i]) continue;
        elig[ne++] = i;
        if (pd_chance(o->seed, i, o->percent)) p->flags |= PD_DEL;
        if (p->l.ipv && p->l.proto == 17 && p->l.fragoff > 0 &&
            pd_chance(o->seed ^ PD_S_FRAG, i, o->frag_percent))
            p->flags |= PD_DEL | PD_FRAGDEL;
    }
    pd_bursts(o, c, elig, ne);
    free(srv);
    free(elig);
}

/* ---- changing packets ---------------------------------------------------------- */

/* Writes iplen as packet p's IP length field; an IPv4 header checksum that
 * was right as captured is recomputed, a wrong one (offload) left alone. */
static void pd_set_iplen(struct pd_pkt *p, uint32_t iplen) {
    u_char *ip = p->data + p->l.l3;
    p->l.iplen = iplen;
    if (p->l.ipv == 6) {
        pd_put16(ip + 4, iplen - 40);
        return;
    }
    pd_put16(ip + 2, iplen);
    if (!p->ipv4_ck_ok) return;
    pd_put16(ip + 10, 0);
    pd_put16(ip + 10, ~pd_sum16(ip, p->l.l4 - p->l.l3) & 0xffff);
}

/* Returns 1 when p is a whole, unfragmented TCP segment we may rewrite. */
static int pd_tcp_whole(const struct pd_pkt *p) {
    return p->l.ipv && p->l.proto == 6 && !p->l.frag && p->l.pay <= p->h.caplen;
}

/* Cuts the first k bytes of p's TCP payload (wire and captured), moving
 * its sequence number and IP length on. */
static void pd_trim(struct pd_pkt *p, uint32_t k) {
    uint32_t capk = p->h.caplen - p->l.pay < k ? p->h.caplen - p->l.pay : k;
    memmove(p->data + p->l.pay, p->data + p->l.pay + capk, p->h.caplen - p->l.pay - capk);
    p->h.caplen -= capk;
    p->h.len -= k;
    p->l.seq += k;
    p->l.paylen -= k;
    pd_put32(p->data + p->l.l4 + 4, p->l.seq);
    pd_set_iplen(p, p->l.iplen - k);
    p->flags |= PD_TRIM;
    p->trim = k;
}

/* --start-mid: the first kept segment of each TCP direction, when it
 * carries 2 or more payload bytes, loses a seeded 1..len-1 of them. */
static void pd_start_mid(const struct pd_opts *o, struct pd_cap *c) {
    struct pd_map seen = {0};
    for (size_t i = 0; i < c->n; i++) {
        struct pd_pkt *p = &c->p[i];
        if ((p->flags & PD_DEL) || !p->l.ipv || p->l.proto != 6 || p->l.fragoff > 0) continue;
        struct pd_key k = pd_dir_key(&p->l, 0);
        if (pd_get(&seen, &k) >= 0) continue;
        pd_put(&seen, &k, 1);
        if (pd_tcp_whole(p) && p->l.paylen >= 2)
            pd_trim(p, 1 + (uint32_t)(pd_mix(o->seed ^ PD_S_MID, i) % (p->l.paylen - 1)));
    }
    pd_map_free(&seen);
}

/* ---- GRO ------------------------------------------------------------------------ */

/* One direction's super-segment being built. */
struct pd_gro {
    int64_t head, tail; /* -1: none open */
    uint32_t next_seq, total, nmemb;
};

/* Returns 1 when p may join a super-segment (flags GRO would not merge:
 * SYN, RST, URG). */
static int pd_gro_able(const struct pd_pkt *p) {
    return pd_tcp_whole(p) && p->h.caplen == p->h.len && p->l.paylen > 0 && !(p->l.tflags & 0x26);
}

/* Builds the super-segment s into its last member's slot: the first
 * member's headers, every member's payload in order, flags OR'ed, the last
 * member's timestamp. */
static void pd_gro_close(struct pd_cap *c, struct pd_gro *s) {
    if (s->head < 0) return;
    if (s->nmemb >= 2) {
        struct pd_pkt *h = &c->p[s->head], *t = &c->p[s->tail];
        uint32_t size = h->l.pay + s->total, at = h->l.pay;
        u_char *b = pd_xrealloc(NULL, size), fl = 0;
        memcpy(b, h->data, h->l.pay);
        for (int64_t m = s->head; m >= 0; m = c->p[m].next) {
            struct pd_pkt *q = &c->p[m];
            memcpy(b + at, q->data + q->l.pay, q->l.paylen);
            at += q->l.paylen;
            q->mend = at;
            q->flags |= PD_MERGED | (m == s->tail ? 0 : PD_ABSORBED);
            fl |= q->l.tflags;
        }
        struct pd_lay l = h->l;
        unsigned ck = h->ipv4_ck_ok;
        free(t->data);
        t->data = b;
        t->h.caplen = t->h.len = size;
        t->l = l;
        t->ipv4_ck_ok = (uint8_t)ck;
        t->data[l.l4 + 13] = fl;
        pd_set_iplen(t, size - l.l3);
    }
    s->head = s->tail = -1;
}

/* Adds packet i to its direction's super-segment s, or closes s and opens
 * a new one with i when i does not continue it. */
static void pd_gro_add(const struct pd_opts *o, struct pd_cap *c, struct pd_gro *s, size_t i) {
    struct pd_pkt *p = &c->p[i];
    int able = pd_gro_able(p);
    if (able && s->head >= 0) {
        const struct pd_pkt *h = &c->p[s->head], *t = &c->p[s->tail];
        if (!(t->l.tflags & 0x01) && p->l.seq == s->next_seq &&
            s->total + p->l.paylen <= (uint32_t)o->gro_max &&
            h->l.pay - h->l.l3 + s->total + p->l.paylen <= PD_IP_MAX) {
            c->p[s->tail].next = (int64_t)i;
            p->head = s->head;
            s->tail = (int64_t)i;
            s->next_seq += p->l.paylen;
            s->total += p->l.paylen;
            s->nmemb++;
            return;
        }
    }
    pd_gro_close(c, s);
    if (!able) return;
    p->head = s->head = s->tail = (int64_t)i;
    s->next_seq = p->l.seq + p->l.paylen;
    s->total = p->l.paylen;
    s->nmemb = 1;
}

/* --gro: coalesces each direction's contiguous segments that follow one
 * another with no packet of the other direction between. */
static void pd_gro(const struct pd_opts *o, struct pd_cap *c) {
    struct pd_map dirs = {0};
    struct pd_gro *st = NULL;
    size_t nst = 0;
    for (size_t i = 0; i < c->n; i++) {
        struct pd_pkt *p = &c->p[i];
        if ((p->flags & PD_DEL) || !p->l.ipv || p->l.proto != 6 || p->l.fragoff > 0) continue;
        struct pd_key k = pd_dir_key(&p->l, 1);
        int64_t rev = pd_get(&dirs, &k);
        if (rev >= 0) pd_gro_close(c, &st[rev]);
        k = pd_dir_key(&p->l, 0);
        int64_t d = pd_get(&dirs, &k);
        if (d < 0) {
            st = pd_xrealloc(st, (nst + 1) * sizeof(*st));
            st[nst] = (struct pd_gro){-1, -1, 0, 0, 0};
            d = (int64_t)nst++;
            pd_put(&dirs, &k, d);
        }
        pd_gro_add(o, c, &st[d], i);
    }
    for (size_t d = 0; d < nst; d++)
        pd_gro_close(c, &st[d]);
    free(st);
    pd_map_free(&dirs);
}

/* ---- output ------------------------------------------------------------------- */

/* --snaplen: cuts packet i (a super-segment's last member stands for all)
 * to snaplen, marking every member whose bytes reach past the cut. */
static void pd_cut(const struct pd_opts *o, struct pd_cap *c, size_t i, struct pd_sum *sum) {
    struct pd_pkt *p = &c->p[i];
    if (o->snaplen < 0 || p->h.caplen <= (bpf_u_int32)o->snaplen) return;
    p->h.caplen = (bpf_u_int32)o->snaplen;
    sum->cut++;
    if (!(p->flags & PD_MERGED)) {
        p->flags |= PD_CUT;
        return;
    }
    for (int64_t m = p->head; m >= 0; m = c->p[m].next)
        if (c->p[m].mend > p->h.caplen) c->p[m].flags |= PD_CUT;
}

/* Writes the --truth lines to f (opened on o->truth; closed here): one per
 * input packet deleted or altered. Returns 0 or -1 (message on stderr). */
static int pd_truth(const struct pd_opts *o, FILE *f, const struct pd_cap *c) {
    for (size_t i = 0; i < c->n; i++) {
        const struct pd_pkt *p = &c->p[i];
        if (!p->flags && !p->fragof) continue;
        fprintf(f, "%zu", i + 1);
        if (p->flags & PD_DEL) fprintf(f, " drop");
        if (p->fragof) fprintf(f, " fragment-of:%zu", p->fragof);
        if (p->flags & PD_TRIM) fprintf(f, " trimmed:%" PRIu32, p->trim);
        if (p->flags & PD_MERGED) fprintf(f, " merged-into:%" PRId64, p->head + 1);
        if (p->flags & PD_CUT) fprintf(f, " cut");
        fprintf(f, "\n");
    }
    if (fclose(f) != 0) {
        fprintf(stderr, "tbbt-pcapdrop: %s: write failed\n", o->truth);
        return -1;
    }
    return 0;
}

/* Counts what was done for the summary line. */
static void pd_count(const struct pd_cap *c, struct pd_sum *sum) {
    sum->n = c->n;
    for (size_t i = 0; i < c->n; i++) {
        unsigned f = c->p[i].flags;
        sum->dropped += !!(f & PD_DEL);
        sum->frags += !!(f & PD_FRAGDEL);
        sum->trimmed += !!(f & PD_TRIM);
        sum->merged += !!(f & PD_MERGED);
        sum->supers += (f & PD_MERGED) && !(f & PD_ABSORBED);
    }
}

/* Writes the kept packets of c to o->out: the snapshot length is --snaplen,
 * else the input's, raised to PD_MAXSNAP when a super-segment outgrows it. */
static int pd_write(const struct pd_opts *o, struct pd_cap *c, struct pd_sum *sum) {
    int snap = o->snaplen > 0 ? (int)o->snaplen : c->snapshot, rc = -1;
    for (size_t i = 0; o->snaplen < 0 && i < c->n; i++)
        if (!(c->p[i].flags & (PD_DEL | PD_ABSORBED)) && c->p[i].h.caplen > (bpf_u_int32)snap)
            snap = PD_MAXSNAP;
    pcap_t *dead = pcap_open_dead_with_tstamp_precision(c->linktype, snap, (u_int)c->precision);
    pcap_dumper_t *out = NULL;
    if (!dead || !(out = pcap_dump_open(dead, o->out))) {
        fprintf(stderr, "tbbt-pcapdrop: %s: %s\n", o->out, dead ? pcap_geterr(dead) : "out of memory");
        goto done;
    }
    for (size_t i = 0; i < c->n; i++) {
        if (c->p[i].flags & (PD_DEL | PD_ABSORBED)) continue;
        pd_cut(o, c, i, sum);
        pcap_dump((u_char *)out, &c->p[i].h, c->p[i].data);
    }
    if (pcap_dump_flush(out) < 0) {
        fprintf(stderr, "tbbt-pcapdrop: %s: write failed\n", o->out);
        goto done;
    }
    rc = 0;
done:
    if (out) pcap_dump_close(out);
    if (dead) pcap_close(dead);
    return rc;
}

/* Damages o->in into o->out and prints the summary. Returns 0 or -1 (the
 * message on stderr). */
static int pd_run(const struct pd_opts *o) {
    struct pd_cap c = {0};
    struct pd_sum sum = {0};
    int rc = -1;
    FILE *truth = o->truth ? fopen(o->truth, "w") : NULL; /* first: a bad path writes nothing */
    if (o->truth && !truth) {
        fprintf(stderr, "tbbt-pcapdrop: %s: %s\n", o->truth, strerror(errno));
        return -1;
    }
    if (pd_load(o, &c) < 0) goto done;
    if (o->mtu >= 0) pd_fragment(o, &c, &sum);
    pd_delete(o, &c);
    if (o->start_mid >= 0) pd_start_mid(o, &c);
    if (o->gro) pd_gro(o, &c);
    if (pd_write(o, &c, &sum) < 0) goto done;
    FILE *f = truth;
    truth = NULL;
    if (f && pd_truth(o, f, &c) < 0) goto done;
    pd_count(&c, &sum);
    printf("dropped %" PRIu64 " of %" PRIu64 " packets, cut %" PRIu64 ", merged %" PRIu64 " into %" PRIu64
           " super-segments, trimmed %" PRIu64 ", fragments dropped %" PRIu64,
           sum.dropped, sum.n, sum.cut, sum.merged, sum.supers, sum.trimmed, sum.frags);
    if (o->mtu >= 0)
        printf(", fragmented %" PRIu64 " datagrams in %" PRIu64 " fragments (%" PRIu64
               " had DF), kept whole %" PRIu64 " with options",
               sum.fdatagrams, sum.fpieces, sum.fdf, sum.fopts);
    printf("\n");
    rc = 0;
done:
    if (truth) fclose(truth);
    for (size_t i = 0; i < c.n; i++)
        free(c.p[i].data);
    free(c.p);
    return rc;
}

int main(int argc, char **argv) {
    pd_parse(argc, argv);
    return pd_run(&O) < 0 ? 1 : 0;
}
