/* conn.h -- the player's connections: TCP with RPC record marking (RFC
 * 5531 section 11), one socket each, written by the send thread and read
 * by the receive thread (never both by one thread; no lock needed).
 *
 * Sending writes the record mark and the message with one writev, looping
 * over short writes, so a message never goes out interleaved with another.
 * Receiving reads what is there, reassembles fragments, and hands each
 * whole message to a callback. */
#ifndef TBBT_PCONN_H
#define TBBT_PCONN_H

#include <stddef.h>
#include <stdint.h>

#include "nfsconn.h"
#include "recmark.h"

#define TBBT_PCONN_MAX_MSG (4u << 20) /* a reply larger than this is refused */

struct tbbt_pconn {
    int fd;
    int udp;        /* a UDP socket: one message a datagram, no record marks */
    char peer[300]; /* for messages */
    /* receive side */
    uint8_t *buf; /* bytes read, not yet consumed */
    size_t len, cap;
    struct tbbt_recmark rm; /* the message being reassembled from fragments */
    uint8_t *out;           /* send side: messages queued, written together */
    size_t outlen, outcap;
    uint64_t bytes_out, bytes_in;
    int64_t rx_ns; /* CLOCK_MONOTONIC ns the kernel received the bytes of the last read (the last
                      of them: SO_TIMESTAMPNS), or the time of that read when it did not say */
    int64_t rd_ns; /* CLOCK_MONOTONIC ns the last read returned (rx_ns to rd_ns: the reader's delay) */
    /* transmit stamps (tbbt_pconn_stamp_tx) */
    int tx_stamps;                   /* asked for, and granted */
    uint64_t queued;                 /* send side: bytes (TCP) or datagrams (UDP) queued since open */
    struct tbbt_pconn_stamp *stamps; /* receive side: the last TBBT_PCONN_STAMPS, a ring */
    uint32_t nstamps, stamp_next;
};

/* One write's transmit stamp: the offset of its last byte (TCP) or its
 * datagram's number (UDP), counted from 0, and when it left (monotonic). */
struct tbbt_pconn_stamp {
    uint64_t key;
    int64_t ns;
};

#define TBBT_PCONN_STAMPS 4096

/* Connects to the server's NFS port (asking its portmapper when
 * s->nfsport is 0), over TCP or (udp) UDP. Returns 0, or -1 with a
 * message in err. */
int tbbt_pconn_open(struct tbbt_pconn *c, const struct tbbt_nfs_server *s, int udp, char *err, size_t errlen);

/* Checks, on a connection just opened, that the server answers NFSv3
 * there: sends an RPC NULL call (program 100003, version 3, procedure 0)
 * and waits at most timeout seconds for its reply. Returns 0 when the
 * reply is an accepted, successful RPC reply to it; else -1 with one
 * sentence naming c's peer in err: "not an NFS server: ..." (the bytes
 * that came are not an RPC reply, or the connection was closed or
 * refused), the RPC error when it is RPC but not NFSv3 (program or
 * version unavailable, call denied), or no reply in time. Reads what
 * comes on c, so it is called before any other message is sent on it. */
int tbbt_pconn_probe(struct tbbt_pconn *c, int timeout, char *err, size_t errlen);

/* Asks the kernel, on a connection just opened (nothing sent yet), for the
 * time each write leaves the host (SO_TIMESTAMPING, software transmit
 * stamps, the moment a capture on the host would see it): they come on the
 * socket's error queue, which tbbt_pconn_read drains, and
 * tbbt_pconn_sent_at finds a message's. A receive thread then also wakes
 * once per write. Returns 0, or -1 when the kernel refuses (the player
 * keeps its own send times). */
int tbbt_pconn_stamp_tx(struct tbbt_pconn *c);

/* The mark of a message of len bytes about to be queued (send side): what
 * tbbt_pconn_sent_at takes to find when it left. */
uint64_t tbbt_pconn_mark(const struct tbbt_pconn *c, size_t len);

/* Receive side: when the message of that mark left (CLOCK_MONOTONIC ns),
 * or 0 when not known (no stamps asked for, or the stamp is older than the
 * last TBBT_PCONN_STAMPS writes). */
int64_t tbbt_pconn_sent_at(const struct tbbt_pconn *c, uint64_t mark);

#define TBBT_PCONN_UDP_MAX 65000 /* the largest message sent over UDP */

/* Sends one RPC message. Returns 0, or -1 with errno set (a broken
 * connection). */
int tbbt_pconn_send(struct tbbt_pconn *c, const uint8_t *msg, size_t len);

/* Queues one RPC message (TCP: with its record mark) to go out with the
 * others at the next flush, so that a burst of requests costs one write,
 * not one each (UDP: sent at once, one datagram each). Flushes by itself
 * past 256 KiB. Returns 0, or -1 with errno set. */
int tbbt_pconn_queue(struct tbbt_pconn *c, const uint8_t *msg, size_t len);

/* Writes everything queued. Returns 0, or -1 with errno set. */
int tbbt_pconn_flush(struct tbbt_pconn *c);

/* Reads what the socket has and calls cb for every whole message (c->rx_ns
 * says when the kernel received the bytes read: a reply's arrival, not
 * when this thread woke to read it); first takes the transmit stamps the
 * error queue holds. Never blocks.
 * Returns 0, or -1 when the connection ended or broke (with a reason in
 * err). */
int tbbt_pconn_read(struct tbbt_pconn *c, void (*cb)(void *ctx, const uint8_t *m, size_t n), void *ctx,
                    char *err, size_t errlen);

void tbbt_pconn_close(struct tbbt_pconn *c);

#endif
