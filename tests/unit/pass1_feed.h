/* pass1_feed.h -- pass 1's unit tests hand it RPC messages as the capture
 * layer would: big-endian words, an NFSv3 call or an accepted reply's
 * header, and one message from the client (10.0.0.0:800) to the server
 * (11.0.0.0:2049) or back. One copy for every test that feeds pass 1. */
#ifndef TBBT_TEST_PASS1_FEED_H
#define TBBT_TEST_PASS1_FEED_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "pass1.h"

/* Stores a big-endian (XDR) 32-bit value; returns the byte after it. */
static inline uint8_t *put32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
    return p + 4;
}

/* Writes at b an RPC header: an NFSv3 call of proc (AUTH_NONE), or an
 * accepted, successful reply; returns its length. */
static inline size_t pass1_rpc_hdr(uint8_t *b, int reply, uint32_t xid, uint32_t proc) {
    memset(b, 0, 40);
    put32(b, xid);
    put32(b + 4, reply ? 1 : 0);
    if (reply) return 24;
    put32(b + 8, 2);       /* RPC version */
    put32(b + 12, 100003); /* NFS */
    put32(b + 16, 3);
    put32(b + 20, proc);
    return 40;
}

/* Hands data[0, len) to pass 1 as one message from the client (or, reply,
 * from the server) at time ts, the capture keeping caplen bytes of it. */
static inline void pass1_feed(struct tbbt_pass1 *p, const uint8_t *data, int reply, size_t len, size_t caplen,
                              int64_t ts) {
    struct tbbt_msg m = {
        .ts_first = ts, .ts_last = ts, .data = data, .caplen = caplen, .len = len, .pktno = 1};
    m.src.family = m.dst.family = 4;
    m.src.addr[0] = 10, m.src.port = 800;
    m.dst.addr[0] = 11, m.dst.port = 2049;
    if (reply) {
        struct tbbt_endpoint t = m.src;
        m.src = m.dst;
        m.dst = t;
    }
    tbbt_pass1_msg(p, &m);
}

#endif
