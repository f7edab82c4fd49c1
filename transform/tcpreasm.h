/* tcpreasm.h -- TCP stream reassembly and RPC record marking.
 *
 * One state per direction of a connection (hash table keyed by the
 * directional 5-tuple). Bytes are followed by sequence number: a
 * retransmission is dropped, an overlap trimmed, an out-of-order segment
 * buffered (bounded), and a hole that the buffer cannot wait for any more is
 * a gap whose length is known from the sequence numbers. Bytes that are
 * known to exist but were not captured (a gap, or a segment cut by the
 * snaplen) still advance the RPC framing by length, so a record whose tail
 * is missing is delivered with caplen < len and the next record is found
 * where its mark says. When a record mark itself is missing, the stream
 * hunts for the next plausible mark + RPC header, counting skipped bytes
 * and resyncs; a stream picked up mid-way starts that way too.
 *
 * Memory: per direction at most TBBT_TCP_MSG_KEEP bytes of a message being
 * assembled (beyond that only the length is followed) and TBBT_TCP_OOO_MAX
 * bytes of out-of-order data; all streams together at most
 * TBBT_TCP_MEM_MAX; at most TBBT_TCP_MAX_DIRS directions are followed at
 * once (a direction is forgotten on FIN, RST, or TBBT_TCP_IDLE_NS of capture
 * time without packets). A message wholly inside one segment is delivered
 * from the packet buffer without a copy. */
#ifndef TBBT_TCPREASM_H
#define TBBT_TCPREASM_H

#include <stddef.h>
#include <stdint.h>

#include "capture.h"

#define TBBT_TCP_MSG_KEEP (1u << 20)
#define TBBT_TCP_OOO_MAX (1u << 20)
#define TBBT_TCP_OOO_SEGS 512
#define TBBT_TCP_MEM_MAX (256u << 20)
#define TBBT_TCP_MAX_FRAG (16u << 20)
#define TBBT_TCP_IDLE_NS (600LL * 1000000000LL)
#define TBBT_TCP_OOO_WAIT_NS (500LL * 1000000LL) /* longest wait for a hole to fill (capture time) */
#define TBBT_TCP_MAX_DIRS (1u << 20) /* directions tracked at once; beyond, new ones are ignored */

enum { TBBT_TH_FIN = 0x01, TBBT_TH_SYN = 0x02, TBBT_TH_RST = 0x04, TBBT_TH_ACK = 0x10 };

/* One TCP segment as read from the packet. */
struct tbbt_tcpseg {
    const struct tbbt_endpoint *src, *dst;
    uint32_t seq;
    uint32_t ack;        /* acknowledgment number, when flags has TBBT_TH_ACK */
    uint8_t flags;       /* TBBT_TH_* */
    const uint8_t *data; /* payload */
    size_t caplen, len;  /* captured and wire payload length */
    int64_t ts;
    uint64_t pktno;
};

struct tbbt_tcpreasm;

/* Creates a reassembler that delivers messages to cb(ctx, msg) and counts
 * into *st (owned by the caller, must outlive the reassembler). */
struct tbbt_tcpreasm *tbbt_tcpreasm_new(struct tbbt_capstats *st, tbbt_msg_cb cb, void *ctx);

/* Treat streams to or from this port as RPC (only loosens the header
 * check while hunting). */
void tbbt_tcpreasm_add_port(struct tbbt_tcpreasm *r, uint16_t port);

/* Feeds one segment; may call cb any number of times before returning. */
void tbbt_tcpreasm_segment(struct tbbt_tcpreasm *r, const struct tbbt_tcpseg *s);

/* Housekeeping at capture time now; cheap, call it often (every few
 * hundred ms of capture time). Gives up holes that out-of-order data has
 * waited on for more than TBBT_TCP_OOO_WAIT_NS (so buffered messages are
 * not delivered long after their time), and, once a minute, flushes and
 * forgets streams idle for longer than TBBT_TCP_IDLE_NS (messages in
 * progress are delivered as truncated). */
void tbbt_tcpreasm_expire(struct tbbt_tcpreasm *r, int64_t now);

/* Flushes every stream (end of capture), delivering what is pending. */
void tbbt_tcpreasm_finish(struct tbbt_tcpreasm *r);

/* Number of stream directions currently held. */
size_t tbbt_tcpreasm_count(const struct tbbt_tcpreasm *r);

/* Bytes held in message and out-of-order buffers, all streams together. */
size_t tbbt_tcpreasm_mem(const struct tbbt_tcpreasm *r);

void tbbt_tcpreasm_free(struct tbbt_tcpreasm *r);

/* Returns 1 when the n captured bytes at p (from the xid on) look like the
 * start of an ONC RPC call (rpcvers 2, sane version, procedure and
 * credential) or reply (reply_stat 0 with a sane verifier and accept_stat,
 * or 1 with a sane reject_stat). With strict, at least 24 bytes must be
 * there; otherwise a header too short to judge passes if nothing in it
 * contradicts RPC. */
int tbbt_rpc_plausible(const uint8_t *p, size_t n, int strict);

/* Id of the flow between a and b for protocol proto, the same in both
 * directions. */
uint64_t tbbt_flow_id(const struct tbbt_endpoint *a, const struct tbbt_endpoint *b, int proto);

#endif
