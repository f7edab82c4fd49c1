/* capture.c -- packets in, RPC messages out (see capture.h).
 *
 * The per-packet path: libpcap hands a frame; linklayer.c finds the IP
 * header; IPv4/IPv6 headers (and IPv6 extension headers) are read here
 * through cursors; fragments go to ipreasm.c; TCP segments go to
 * tcpreasm.c, which frames RPC records; UDP datagrams that look like RPC
 * are delivered as they are. Nothing is allocated per packet on this path
 * except in the reassemblers' slow cases (out-of-order data, messages
 * spanning segments). */
#define _FILE_OFFSET_BITS 64 /* ftello/fseeko/pread offsets beyond 2 GB */
#include "capture.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>
#include <pcap/pcap.h>

#include "cfile.h"
#include "cursor.h"
#include "ipreasm.h"
#include "linklayer.h"
#include "pcapng_drops.h"
#include "tcpreasm.h"
#include "timefix.h"

#define SWEEP_EVERY_NS (250LL * 1000000LL) /* reassembly housekeeping, capture time */

struct tbbt_capture {
    char *path;
    pcap_t *pc;
    int dlt;
    struct tbbt_capstats st;
    uint8_t ports[65536 / 8];
    GArray *portlist; /* uint16_t, in the order added */
    struct tbbt_ipreasm *ipr;
    struct tbbt_tcpreasm *tcp;
    tbbt_msg_cb cb;
    void *ctx;
    tbbt_warn_cb warn;
    void *warn_ctx;
    int64_t next_sweep;
    int have_time; /* a frame with a usable time was seen (st.ts_first is set) */
};

/* Addresses and times of the IP datagram being handled. */
struct ipinfo {
    int version;
    const uint8_t *src, *dst;
    int64_t ts_first, ts_last;
    uint64_t pktno;
};

/* Opens the file (decompressing by magic) and its libpcap reader; see capture.h. */
struct tbbt_capture *tbbt_capture_open(const char *path, char *err, size_t errlen) {
    FILE *f = tbbt_cfile_open(path, NULL, err, errlen);
    if (!f) return NULL;
    char perr[PCAP_ERRBUF_SIZE];
    pcap_t *pc = pcap_fopen_offline_with_tstamp_precision(f, PCAP_TSTAMP_PRECISION_NANO, perr);
    if (!pc) {
        fclose(f);
        snprintf(err, errlen, "%s: not a pcap or pcapng capture", path);
        return NULL;
    }
    int dlt = pcap_datalink(pc);
    if (!tbbt_link_supported(dlt)) {
        const char *name = pcap_datalink_val_to_name(dlt);
        snprintf(err, errlen, "%s: link type %s (%d) not supported", path, name ? name : "unknown", dlt);
        pcap_close(pc);
        return NULL;
    }
    struct tbbt_capture *c = g_new0(struct tbbt_capture, 1);
    c->path = g_strdup(path);
    c->pc = pc;
    c->dlt = dlt;
    c->portlist = g_array_new(FALSE, FALSE, sizeof(uint16_t));
    return c;
}

/* Remembers a port for the RPC checks (TCP resync and UDP); see capture.h. */
void tbbt_capture_add_port(struct tbbt_capture *c, uint16_t port) {
    c->ports[port >> 3] |= (uint8_t)(1u << (port & 7));
    g_array_append_val(c->portlist, port);
}

/* The counters, owned by the capture. */
const struct tbbt_capstats *tbbt_capture_stats(const struct tbbt_capture *c) {
    return &c->st;
}

/* Closes libpcap (and with it the decompressing stream) and frees the reassemblers. */
void tbbt_capture_close(struct tbbt_capture *c) {
    if (!c) return;
    if (c->pc) pcap_close(c->pc);
    tbbt_ipreasm_free(c->ipr);
    tbbt_tcpreasm_free(c->tcp);
    g_array_free(c->portlist, TRUE);
    g_free(c->path);
    g_free(c);
}

/* Fills an endpoint from an address of the datagram's family. */
static void endpoint(struct tbbt_endpoint *e, const struct ipinfo *ip, const uint8_t *addr, uint16_t port) {
    memset(e, 0, sizeof *e);
    e->family = (uint8_t)ip->version;
    memcpy(e->addr, addr, ip->version == 4 ? 4 : 16);
    e->port = port;
}

/* Returns 1 when either port was named with tbbt_capture_add_port. */
static int known_port(const struct tbbt_capture *c, uint16_t a, uint16_t b) {
    return (c->ports[a >> 3] >> (a & 7) & 1) || (c->ports[b >> 3] >> (b & 7) & 1);
}

/* UDP: one datagram, delivered when its payload looks like RPC. */
static void udp(struct tbbt_capture *c, const struct ipinfo *ip, const uint8_t *p, size_t cap, size_t len) {
    struct tbbt_cursor cur;
    tbbt_cur_init(&cur, p, cap);
    uint16_t sport = tbbt_cur_u16(&cur), dport = tbbt_cur_u16(&cur);
    uint16_t ulen = tbbt_cur_u16(&cur);
    tbbt_cur_skip(&cur, 2);
    if (cur.trunc || len < 8) {
        c->st.bad_packets++;
        return;
    }
    size_t wire = ulen >= 8 && ulen <= len ? ulen : len; /* ulen 0: jumbogram */
    const uint8_t *pl = p + 8;
    size_t plcap = cap - 8 < wire - 8 ? cap - 8 : wire - 8;
    if (!tbbt_rpc_plausible(pl, plcap, !known_port(c, sport, dport))) {
        c->st.not_rpc++;
        return;
    }
    struct tbbt_msg m = {.ts_first = ip->ts_first,
                         .ts_last = ip->ts_last,
                         .tcp = 0,
                         .data = pl,
                         .caplen = plcap,
                         .len = wire - 8,
                         .pktno = ip->pktno};
    endpoint(&m.src, ip, ip->src, sport);
    endpoint(&m.dst, ip, ip->dst, dport);
    m.conn = tbbt_flow_id(&m.src, &m.dst, 17);
    c->st.messages++;
    c->st.msg_bytes += m.len;
    if (m.caplen < m.len) c->st.truncated_msgs++;
    c->cb(c->ctx, &m);
}

/* TCP: reads the header and hands the segment to the reassembler. */
static void tcp(struct tbbt_capture *c, const struct ipinfo *ip, const uint8_t *p, size_t cap, size_t len) {
    struct tbbt_cursor cur;
    tbbt_cur_init(&cur, p, cap);
    uint16_t sport = tbbt_cur_u16(&cur), dport = tbbt_cur_u16(&cur);
    uint32_t seq = tbbt_cur_u32(&cur), ack = tbbt_cur_u32(&cur);
    size_t doff = (size_t)(tbbt_cur_u8(&cur) >> 4) * 4;
    uint8_t flags = tbbt_cur_u8(&cur);
    if (cur.trunc || doff < 20 || doff > len) {
        c->st.bad_packets++;
        return;
    }
    /* options cut by a tiny snaplen: the payload is all missing, but its
     * sequence range is known */
    size_t hcap = doff < cap ? doff : cap;
    struct tbbt_endpoint src, dst;
    endpoint(&src, ip, ip->src, sport);
    endpoint(&dst, ip, ip->dst, dport);
    struct tbbt_tcpseg s = {.src = &src,
                            .dst = &dst,
                            .seq = seq,
                            .ack = ack,
                            .flags = flags & (TBBT_TH_FIN | TBBT_TH_SYN | TBBT_TH_RST | TBBT_TH_ACK),
                            .data = p + hcap,
                            .caplen = cap - hcap,
                            .len = len - doff,
                            .ts = ip->ts_last,
                            .pktno = ip->pktno};
    tbbt_tcpreasm_segment(c->tcp, &s);
}

/* Dispatches an IP payload of protocol proto. */
static void transport(struct tbbt_capture *c, const struct ipinfo *ip, uint8_t proto, const uint8_t *p,
                      size_t cap, size_t len) {
    if (proto == 6)
        tcp(c, ip, p, cap, len);
    else if (proto == 17)
        udp(c, ip, p, cap, len);
    else
        c->st.not_rpc++;
}

/* Hands a fragment to the reassembler and dispatches the datagram it may
 * complete. For IPv6, the rebuilt payload may begin with more extension
 * headers, handled by after_frag. */
static void fragment(struct tbbt_capture *c, struct ipinfo *ip, struct tbbt_ipfrag *f);

/* IPv6: skips extension headers from *nh on (not the fragment header);
 * returns 0, or -1 when one is cut short. */
static int skip_ext(struct tbbt_cursor *cur, uint8_t *nh) {
    for (int i = 0; i < 16; i++) {
        switch (*nh) {
        case 0:  /* hop-by-hop */
        case 43: /* routing */
        case 60: /* destination options */
        case 135: /* mobility */ {
            uint8_t next = tbbt_cur_u8(cur);
            size_t hl = ((size_t)tbbt_cur_u8(cur) + 1) * 8;
            tbbt_cur_skip(cur, hl - 2);
            *nh = next;
            break;
        }
        case 51: { /* authentication header */
            uint8_t next = tbbt_cur_u8(cur);
            size_t hl = ((size_t)tbbt_cur_u8(cur) + 2) * 4;
            tbbt_cur_skip(cur, hl - 2);
            *nh = next;
            break;
        }
        default: return cur->trunc ? -1 : 0;
        }
        if (cur->trunc) return -1;
    }
    return -1;
}

/* IPv6 upper layers from a cursor over cap captured of len wire bytes. */
static void ip6_upper(struct tbbt_capture *c, struct ipinfo *ip, uint8_t nh, const uint8_t *p, size_t cap,
                      size_t len, uint32_t *fragid_out) {
    struct tbbt_cursor cur;
    tbbt_cur_init(&cur, p, cap);
    if (skip_ext(&cur, &nh) < 0 || cur.pos > len) {
        c->st.bad_packets++;
        return;
    }
    if (nh == 44 && fragid_out) {
        uint8_t next = tbbt_cur_u8(&cur);
        tbbt_cur_skip(&cur, 1);
        uint16_t offw = tbbt_cur_u16(&cur);
        uint32_t id = tbbt_cur_u32(&cur);
        if (cur.trunc || cur.pos > len) {
            c->st.bad_packets++;
            return;
        }
        struct tbbt_ipfrag f = {.version = 6,
                                .src = ip->src,
                                .dst = ip->dst,
                                .id = id,
                                .proto = next,
                                .offset = offw & 0xfff8u,
                                .more = offw & 1,
                                .data = p + cur.pos,
                                .caplen = cap - cur.pos,
                                .len = len - cur.pos,
                                .ts = ip->ts_last,
                                .pktno = ip->pktno};
        if (f.caplen > f.len) f.caplen = f.len;
        if (f.offset == 0 && !f.more) { /* atomic fragment */
            ip6_upper(c, ip, next, f.data, f.caplen, f.len, NULL);
            return;
        }
        fragment(c, ip, &f);
        return;
    }
    if (nh == 44) { /* a second fragment header */
        c->st.bad_packets++;
        return;
    }
    transport(c, ip, nh, p + cur.pos, cap - cur.pos, len - cur.pos);
}

/* (declared above) Counts the fragment, reassembles, dispatches a completed datagram. */
static void fragment(struct tbbt_capture *c, struct ipinfo *ip, struct tbbt_ipfrag *f) {
    c->st.ip_fragments++;
    struct tbbt_ipdgram d;
    int rc = tbbt_ipreasm_add(c->ipr, f, &d, &c->st.ip_frag_dropped);
    if (rc < 0) c->st.bad_packets++;
    if (rc <= 0) return;
    c->st.ip_reassembled++;
    struct ipinfo rip = *ip;
    rip.ts_first = d.ts_first;
    rip.pktno = d.pktno;
    if (f->version == 6)
        ip6_upper(c, &rip, d.proto, d.data, d.caplen, d.len, NULL);
    else
        transport(c, &rip, d.proto, d.data, d.caplen, d.len);
}

/* IPv4 header at p (cap bytes captured after the link header). */
static void ip4(struct tbbt_capture *c, struct ipinfo *ip, const uint8_t *p, size_t cap) {
    struct tbbt_cursor cur;
    tbbt_cur_init(&cur, p, cap);
    uint8_t b0 = tbbt_cur_u8(&cur);
    tbbt_cur_skip(&cur, 1);
    size_t tot = tbbt_cur_u16(&cur);
    uint16_t id = tbbt_cur_u16(&cur), fw = tbbt_cur_u16(&cur);
    tbbt_cur_skip(&cur, 1);
    uint8_t proto = tbbt_cur_u8(&cur);
    tbbt_cur_skip(&cur, 2);
    ip->src = tbbt_cur_take(&cur, 4);
    ip->dst = tbbt_cur_take(&cur, 4);
    size_t ihl = (size_t)(b0 & 15) * 4;
    if (tot == 0) tot = cap; /* TSO on the capturing host */
    if (cur.trunc || b0 >> 4 != 4 || ihl < 20 || ihl > cap || tot < ihl) {
        c->st.bad_packets++;
        return;
    }
    size_t pcap_ = (cap < tot ? cap : tot) - ihl, len = tot - ihl;
    if (fw & 0x3fff) {
        struct tbbt_ipfrag f = {.version = 4,
                                .src = ip->src,
                                .dst = ip->dst,
                                .id = id,
                                .proto = proto,
                                .offset = (uint32_t)(fw & 0x1fff) * 8,
                                .more = !!(fw & 0x2000),
                                .data = p + ihl,
                                .caplen = pcap_,
                                .len = len,
                                .ts = ip->ts_last,
                                .pktno = ip->pktno};
        fragment(c, ip, &f);
        return;
    }
    transport(c, ip, proto, p + ihl, pcap_, len);
}

/* IPv6 header at p. */
static void ip6(struct tbbt_capture *c, struct ipinfo *ip, const uint8_t *p, size_t cap) {
    struct tbbt_cursor cur;
    tbbt_cur_init(&cur, p, cap);
    uint8_t b0 = tbbt_cur_u8(&cur);
    tbbt_cur_skip(&cur, 3);
    size_t plen = tbbt_cur_u16(&cur);
    uint8_t nh = tbbt_cur_u8(&cur);
    tbbt_cur_skip(&cur, 1);
    ip->src = tbbt_cur_take(&cur, 16);
    ip->dst = tbbt_cur_take(&cur, 16);
    if (cur.trunc || b0 >> 4 != 6) {
        c->st.bad_packets++;
        return;
    }
    size_t avail = cap - 40;
    if (plen == 0) plen = avail; /* jumbogram or TSO */
    uint32_t dummy;
    ip6_upper(c, ip, nh, p + 40, avail < plen ? avail : plen, plen, &dummy);
}

/* The frame's time in nanoseconds (libpcap gives tv_usec in nanoseconds,
 * as asked; so does the fast path). A pcapng time stamp is 64 bits of its
 * interface's units, so a damaged or hostile one can give seconds whose
 * nanoseconds do not fit an int64_t (signed overflow, undefined behaviour,
 * found by fuzz_capture), or that fit with no room left for the sums of a
 * time and a timeout the reassemblers and pass 1 make. Returns 0 for a time
 * outside +-TBBT_TIME_LIMIT (timefix.h; the frame's header is then
 * malformed), 1 with *ts set otherwise. */
static int frame_time(const struct pcap_pkthdr *h, int64_t *ts) {
    int64_t ns;
    if (__builtin_mul_overflow((int64_t)h->ts.tv_sec, (int64_t)1000000000, &ns) ||
        __builtin_add_overflow(ns, (int64_t)h->ts.tv_usec, ts))
        return 0;
    return *ts > -TBBT_TIME_LIMIT && *ts < TBBT_TIME_LIMIT;
}

/* One captured frame. */
static void packet_body(struct tbbt_capture *c, const struct pcap_pkthdr *h, const uint8_t *p) {
    struct tbbt_capstats *st = &c->st;
    int64_t ts;
    st->packets++;
    st->bytes += h->caplen;
    st->wire_bytes += h->len;
    if (h->caplen < h->len) {
        st->cut_packets++;
        st->cut_bytes += h->len - h->caplen;
    }
    if (h->len > 1522) st->big_packets++; /* an Ethernet frame with a VLAN tag holds 1522 */
    if (!frame_time(h, &ts)) {
        st->bad_packets++; /* a time no record can hold: skipped, counted and warned as any bad header */
        return;
    }
    if (!c->have_time) st->ts_first = ts;
    c->have_time = 1;
    st->ts_last = ts;
    if (ts >= c->next_sweep || ts < c->next_sweep - 2 * SWEEP_EVERY_NS) { /* (or the clock stepped back) */
        tbbt_tcpreasm_expire(c->tcp, ts);
        c->next_sweep = ts + SWEEP_EVERY_NS;
    }
    size_t off = 0;
    int v = tbbt_link_ip(c->dlt, p, h->caplen, &off);
    if (v <= 0) {
        if (v < 0)
            st->bad_packets++;
        else
            st->non_ip++;
        return;
    }
    struct ipinfo ip = {.version = v, .ts_first = ts, .ts_last = ts, .pktno = st->packets};
    if (v == 4)
        ip4(c, &ip, p + off, h->caplen - off);
    else
        ip6(c, &ip, p + off, h->caplen - off);
}

/* Handles one packet, and when a warning callback is set, tells it what
 * went wrong in this packet: the counters are compared before and after,
 * so every place that finds a fault reports it by counting it, once. */
static void packet(struct tbbt_capture *c, const struct pcap_pkthdr *h, const uint8_t *p) {
    if (!c->warn) {
        packet_body(c, h, p);
        return;
    }
    uint64_t bad = c->st.bad_packets, resyncs = c->st.resyncs, skipped = c->st.skipped_bytes;
    packet_body(c, h, p);
    char what[128];
    if (c->st.bad_packets != bad) c->warn(c->warn_ctx, c->st.packets, "malformed packet headers, skipped");
    if (c->st.resyncs != resyncs) {
        uint64_t n = c->st.skipped_bytes - skipped;
        if (n)
            snprintf(what, sizeof(what),
                     "RPC record framing lost in a TCP stream; resynchronised, %llu bytes skipped",
                     (unsigned long long)n);
        else
            snprintf(what, sizeof(what), "RPC record framing lost in a TCP stream; resynchronised");
        c->warn(c->warn_ctx, c->st.packets, what);
    }
}

void tbbt_capture_set_warn(struct tbbt_capture *c, tbbt_warn_cb cb, void *ctx) {
    c->warn = cb;
    c->warn_ctx = ctx;
}

#define RD_BUF (512u << 10)      /* bytes read at a time: fits the caches, bounds the memory */
#define DIRECT_MAX_CAPLEN 262144 /* libpcap's sanity limit for the usual link types */

/* A window of a plain capture file, read straight from its descriptor:
 * one copy (the kernel's) instead of stdio's and then libpcap's. */
struct rdwin {
    int fd;
    uint64_t fsize;
    uint8_t *base; /* bytes [off, off + len) of the file */
    uint64_t off, len;
};

/* Makes [pos, pos + n) of the file (n <= RD_BUF, within the file)
 * addressable; returns a pointer to pos, or NULL on a read error. A refill
 * reads from pos on, so the record being read starts the buffer. */
static const uint8_t *win_at(struct rdwin *w, uint64_t pos, size_t n) {
    if (pos >= w->off && pos + n <= w->off + w->len) return w->base + (pos - w->off);
    size_t want = RD_BUF, got = 0;
    if (want > w->fsize - pos) want = (size_t)(w->fsize - pos);
    while (got < want) {
        ssize_t r = pread(w->fd, w->base + got, want - got, (off_t)(pos + got));
        if (r <= 0) break;
        got += (size_t)r;
    }
    w->off = pos;
    w->len = got;
    return got >= n ? w->base : NULL;
}

/* Loads a host-order 32-bit field from a record header. */
static uint32_t ld32(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* Returns the file offset after the pcap file header when the capture is a
 * plain (uncompressed) classic pcap file, version 2.4, in this host's byte
 * order: the records of such a file can be read without libpcap.
 * Sets *nano for nanosecond time stamps. Returns 0 for anything else
 * (pcapng, compressed, swapped, old versions), which libpcap reads. */
static uint64_t readable_direct(struct tbbt_capture *c, struct rdwin *w, int *nano) {
    FILE *f = pcap_file(c->pc);
    struct stat sb;
    uint8_t h[24];
    if (!f || pcap_is_swapped(c->pc) || (w->fd = fileno(f)) < 0 || fstat(w->fd, &sb) != 0 ||
        !S_ISREG(sb.st_mode) || ftello(f) != 24 || pread(w->fd, h, 24, 0) != 24)
        return 0;
    uint32_t magic = ld32(h);
    uint16_t major, minor;
    memcpy(&major, h + 4, 2);
    memcpy(&minor, h + 6, 2);
    if ((magic != 0xa1b2c3d4u && magic != 0xa1b23c4du) || major != 2 || minor != 4) return 0;
    *nano = magic == 0xa1b23c4du;
    w->fsize = (uint64_t)sb.st_size;
    return 24;
}

/* Reads the records of such a file (see readable_direct) from offset pos on,
 * as libpcap would hand them, while they are ordinary: a record cut by the
 * end of the file or with a capture length beyond the snapshot length is
 * left to libpcap, which reports it as before. Returns the offset where
 * libpcap should go on (the file size when everything was read). */
static uint64_t run_direct(struct tbbt_capture *c, struct rdwin *w, uint64_t pos, int nano) {
    uint32_t snap = (uint32_t)pcap_snapshot(c->pc),
             limit = snap < DIRECT_MAX_CAPLEN ? snap : DIRECT_MAX_CAPLEN;
    while (w->fsize - pos >= 16) {
        const uint8_t *r = win_at(w, pos, 16);
        if (!r) break;
        struct pcap_pkthdr h;
        h.caplen = ld32(r + 8);
        h.len = ld32(r + 12);
        if (h.caplen > limit || w->fsize - pos - 16 < h.caplen) break;
        h.ts.tv_sec = (int32_t)ld32(r);
        h.ts.tv_usec = (int32_t)ld32(r + 4);
        if (!nano) h.ts.tv_usec *= 1000; /* as libpcap scales to the nanoseconds asked for */
        const uint8_t *d = win_at(w, pos + 16, h.caplen);
        if (!d) break;
        packet(c, &h, d);
        pos += 16 + (uint64_t)h.caplen;
    }
    return pos;
}

/* Reads a plain pcap file through its own buffer as far as it can, then
 * positions the stream for libpcap to read the rest (nothing, normally).
 * Returns -1 when the stream cannot be positioned. */
static int run_fast(struct tbbt_capture *c) {
    struct rdwin w = {.fd = -1};
    int nano = 0;
    uint64_t start = readable_direct(c, &w, &nano);
    if (!start) return 0;
    w.base = g_malloc(RD_BUF);
    uint64_t pos = run_direct(c, &w, start, nano);
    g_free(w.base);
    return fseeko(pcap_file(c->pc), (off_t)pos, SEEK_SET) == 0 ? 0 : -1;
}

/* The kernel's drops, where the file recorded them (pcapng statistics):
 * the file is opened once more for them (its first bytes tell pcapng), so
 * only a file, not a stream. */
static void read_drops(struct tbbt_capture *c) {
    struct stat sb;
    if (stat(c->path, &sb) != 0 || !S_ISREG(sb.st_mode)) return;
    struct tbbt_pcapng_drops d;
    if (tbbt_pcapng_drops(c->path, &d) != 0 || !d.known) return;
    c->st.drops_known = 1;
    c->st.kernel_drops = d.dropped;
}

/* Reads packets to the end or the cut; a read error that is not end-of-file is fatal. */
int tbbt_capture_run(struct tbbt_capture *c, tbbt_msg_cb cb, void *ctx, char *err, size_t errlen) {
    c->cb = cb;
    c->ctx = ctx;
    if (!c->ipr) c->ipr = tbbt_ipreasm_new();
    if (!c->tcp) {
        c->tcp = tbbt_tcpreasm_new(&c->st, cb, ctx);
        for (guint i = 0; i < c->portlist->len; i++)
            tbbt_tcpreasm_add_port(c->tcp, g_array_index(c->portlist, uint16_t, i));
    }
    struct pcap_pkthdr *h;
    const u_char *p;
    int rc = PCAP_ERROR_BREAK, ret = 0;
    if (run_fast(c) < 0) {
        snprintf(err, errlen, "%s: after packet %llu: cannot seek", c->path,
                 (unsigned long long)c->st.packets);
        ret = -1;
    } else {
        while ((rc = pcap_next_ex(c->pc, &h, &p)) == 1)
            packet(c, h, p);
    }
    if (rc == PCAP_ERROR) {
        FILE *f = pcap_file(c->pc);
        if (f && feof(f) && !ferror(f)) {
            c->st.tail_cut = 1;
        } else {
            snprintf(err, errlen, "%s: after packet %llu: %s", c->path, (unsigned long long)c->st.packets,
                     pcap_geterr(c->pc));
            ret = -1;
        }
    }
    tbbt_tcpreasm_finish(c->tcp);
    c->st.ip_frag_dropped += tbbt_ipreasm_pending(c->ipr);
    if (ret == 0) read_drops(c);
    return ret;
}
