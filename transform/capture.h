/* capture.h -- packets in, RPC messages out.
 *
 * Reads a pcap or pcapng capture (plain, .gz or .zst) through libpcap,
 * peels the link layer (Ethernet with 802.1Q tags, Linux SLL and SLL2, raw
 * IP, loopback), reassembles IPv4/IPv6 fragments, reassembles TCP streams
 * and splits them on RPC record marking, and hands every RPC message (TCP
 * record or UDP datagram whose payload looks like ONC RPC) to a callback,
 * in capture order. It knows RPC only as far as framing needs: the record
 * mark, and a plausibility check on the first words used to find the start
 * of a message after a gap. Everything else is the caller's. */
#ifndef TBBT_CAPTURE_H
#define TBBT_CAPTURE_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

/* One RPC message, complete or cut short by the capture's snaplen or gaps. */
struct tbbt_msg {
    int64_t ts_first; /* capture time of its first byte's packet (ns) */
    int64_t ts_last;  /* capture time of its last byte's packet (ns) */
    struct tbbt_endpoint src, dst;
    int tcp;             /* 1 TCP, 0 UDP */
    const uint8_t *data; /* the message's bytes, from the RPC xid on */
    size_t caplen;       /* bytes of data present (a prefix of the message) */
    size_t len;          /* the message's length on the wire */
    uint64_t pktno;      /* 1-based number of the packet holding its first byte */
    uint64_t conn;       /* id of the TCP connection or UDP flow (either direction):
                          * a 64-bit hash of the two endpoints and the protocol */
};

/* Called once per message. The message and its data are valid only during
 * the call. */
typedef void (*tbbt_msg_cb)(void *ctx, const struct tbbt_msg *m);

/* Counters, for the summary. */
struct tbbt_capstats {
    uint64_t packets;               /* packets read */
    uint64_t bytes;                 /* captured bytes read (file payload) */
    uint64_t wire_bytes;            /* original packet lengths */
    uint64_t non_ip;                /* packets with no IP layer we read */
    uint64_t not_rpc;               /* UDP datagrams (and other IP protocols) that carried no
                                     * RPC; TCP bytes without RPC are in skipped_bytes */
    uint64_t ip_fragments;          /* IP fragments seen */
    uint64_t ip_reassembled;        /* datagrams rebuilt from fragments */
    uint64_t ip_frag_dropped;       /* fragmented datagrams never completed */
    uint64_t tcp_streams;           /* TCP connections that carried RPC */
    uint64_t tcp_retrans;           /* segments whose bytes were all seen already */
    uint64_t tcp_overlap;           /* segments partly overlapping seen bytes */
    uint64_t tcp_gaps;              /* holes in a stream (lost or not captured) */
    uint64_t skipped_bytes;         /* stream bytes skipped to resynchronise, of which lost */
    uint64_t skipped_cut;           /*   where the snaplen cut a packet (messages after the cut) */
    uint64_t skipped_gap;           /*   in or after a hole in the sequence (packets not captured) */
    uint64_t skipped_start;         /*   at a stream picked up mid-way; the rest: bytes not RPC */
    uint64_t cut_packets;           /* packets the snaplen cut */
    uint64_t cut_bytes;             /* bytes it cut off them */
    uint64_t big_packets;           /* frames over 1522 bytes: GRO/TSO super-segments, jumbo or loopback */
    uint64_t resyncs;               /* times a stream lost and found record framing */
    uint64_t messages;              /* RPC messages delivered */
    uint64_t msg_bytes;             /* their length on the wire */
    uint64_t call_msgs, call_bytes; /* of which calls (TCP), and their length */
    uint64_t edge_call_bytes;       /* bytes skipped in streams of calls after their last message, or before
                                       their first call when their SYN was seen: no xid brackets them */
    uint64_t head_calls;            /* calls estimated lost before the first captured call of streams not seen
                                       open (half of head_calls_max: when each opened is not known) */
    uint64_t head_calls_max;        /* the same were each open, at its pace, all the time its packets can
                                       have been lost: the top of the estimate's range */
    uint64_t truncated_msgs;        /* of which cut short */
    uint64_t bad_packets;           /* malformed headers (counted, skipped) */
    int tail_cut;                   /* the file ended in the middle of a packet */
    int drops_known;                /* the file recorded the kernel's drops (pcapng statistics) */
    uint64_t kernel_drops;          /* packets the capturing kernel dropped, when known */
    int64_t ts_first, ts_last;      /* first and last packet time (raw) */
};

struct tbbt_capture;

/* Called once for each packet where something was wrong: a malformed
 * header, or a TCP stream whose RPC framing was lost there (bytes skipped
 * to resynchronise). pktno is the 1-based packet number; what says which.
 * The string is valid only during the call. */
typedef void (*tbbt_warn_cb)(void *ctx, uint64_t pktno, const char *what);

/* Opens a capture file. Returns NULL and writes a one-line message naming
 * the file into err (e.g. "x.pcap: not a pcap or pcapng capture") on
 * failure. */
struct tbbt_capture *tbbt_capture_open(const char *path, char *err, size_t errlen);

/* Extra TCP/UDP ports to treat as RPC even where framing is in doubt
 * (NFS is found by content on any port; this only helps resync). */
void tbbt_capture_add_port(struct tbbt_capture *c, uint16_t port);

/* Reads the whole capture, calling cb for every RPC message. Returns 0 at
 * the end of the capture (stats->tail_cut tells a cut tail), -1 on a fatal
 * read error with the message in err. */
int tbbt_capture_run(struct tbbt_capture *c, tbbt_msg_cb cb, void *ctx, char *err, size_t errlen);

const struct tbbt_capstats *tbbt_capture_stats(const struct tbbt_capture *c);

/* Sets the callback for per-packet warnings (none by default). */
void tbbt_capture_set_warn(struct tbbt_capture *c, tbbt_warn_cb cb, void *ctx);

/* Closes the capture and frees all reassembly state. */
void tbbt_capture_close(struct tbbt_capture *c);

#endif
