/* conn.c -- TCP connections with RPC record marking (see conn.h). */
#include "conn.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <rpc/pmap_clnt.h>
#include <rpc/rpc.h>

#include <glib.h>

#include "nfs_ops.h"
#include "nfsdec.h"
#include "clock.h"
#include "unconst.h"

/* The NFS port: the given one, or the portmapper's answer (IPv4). */
static int nfs_port(const struct tbbt_nfs_server *s, struct addrinfo *ai, int udp) {
    if (s->nfsport) return s->nfsport;
    if (ai->ai_family != AF_INET) return 2049;
    struct sockaddr_in sin = *(struct sockaddr_in *)ai->ai_addr;
    int p = pmap_getport(&sin, TBBT_NFS_PROGRAM, TBBT_NFS_V3, udp ? IPPROTO_UDP : IPPROTO_TCP);
    return p ? p : 2049;
}

int tbbt_pconn_open(struct tbbt_pconn *c, const struct tbbt_nfs_server *s, int udp, char *err,
                    size_t errlen) {
    memset(c, 0, sizeof(*c));
    c->fd = -1;
    c->udp = udp;
    struct addrinfo hints = {.ai_socktype = udp ? SOCK_DGRAM : SOCK_STREAM}, *ai = NULL;
    int rc = getaddrinfo(s->host, NULL, &hints, &ai);
    if (rc != 0) {
        snprintf(err, errlen, "%s: %s", s->host, gai_strerror(rc));
        return -1;
    }
    int port = nfs_port(s, ai, udp);
    ((struct sockaddr_in *)ai->ai_addr)->sin_port = htons((uint16_t)port); /* same offset in sockaddr_in6 */
    snprintf(c->peer, sizeof(c->peer), "%s:%d%s", s->host, port, udp ? "/udp" : "");
    c->fd = socket(ai->ai_family, (udp ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
    if (c->fd < 0 || connect(c->fd, ai->ai_addr, ai->ai_addrlen) < 0) {
        snprintf(err, errlen, "%s: cannot connect: %s", c->peer, strerror(errno));
        freeaddrinfo(ai);
        tbbt_pconn_close(c);
        return -1;
    }
    freeaddrinfo(ai);
    int one = 1, big = 4 << 20;
    /* the kernel's receive time of each read: rx_ns (conn.h) */
    setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one));
    if (udp) { /* room for a burst of replies */
        setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof(big));
        setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof(big));
    } else {
        setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    }
    return 0;
}

int tbbt_pconn_send(struct tbbt_pconn *c, const uint8_t *msg, size_t len) {
    if (c->udp) {
        if (len > TBBT_PCONN_UDP_MAX) return errno = EMSGSIZE, -1;
        ssize_t w;
        while ((w = send(c->fd, msg, len, 0)) < 0 && errno == EINTR) {
        }
        if (w < 0) return -1;
        c->bytes_out += (size_t)w;
        c->queued++;
        return 0;
    }
    c->queued += len + 4;
    uint8_t mark[4];
    tbbt_recmark_put(mark, len);
    struct iovec iov[2] = {{mark, 4}, {tbbt_unconst(msg), len}};
    size_t left = len + 4;
    int k = 0;
    while (left) {
        ssize_t w = writev(c->fd, iov + k, 2 - k);
        if (w < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        left -= (size_t)w;
        c->bytes_out += (size_t)w;
        while (k < 2 && (size_t)w >= iov[k].iov_len)
            w -= (ssize_t)iov[k++].iov_len;
        if (k < 2) iov[k].iov_base = (char *)iov[k].iov_base + w, iov[k].iov_len -= (size_t)w;
    }
    return 0;
}

int tbbt_pconn_flush(struct tbbt_pconn *c) {
    size_t off = 0;
    while (off < c->outlen) {
        ssize_t w = write(c->fd, c->out + off, c->outlen - off);
        if (w < 0) {
            if (errno == EINTR) continue;
            c->outlen = 0;
            return -1;
        }
        off += (size_t)w;
        c->bytes_out += (size_t)w;
    }
    c->outlen = 0;
    return 0;
}

int tbbt_pconn_queue(struct tbbt_pconn *c, const uint8_t *msg, size_t len) {
    if (c->udp) return tbbt_pconn_send(c, msg, len);
    if (c->outlen + len + 4 > c->outcap) {
        if (c->outlen && tbbt_pconn_flush(c) < 0) return -1;
        if (len + 4 > c->outcap)
            c->out = g_realloc(c->out, c->outcap = len + 4 > (512u << 10) ? len + 4 : 512u << 10);
    }
    tbbt_recmark_put(c->out + c->outlen, len);
    memcpy(c->out + c->outlen + 4, msg, len);
    c->outlen += len + 4;
    c->queued += len + 4;
    return c->outlen > (256u << 10) ? tbbt_pconn_flush(c) : 0;
}

/* Consumes whole fragments from the buffer; a last fragment completes a
 * message. Returns 0, or -1 for an absurd fragment. */
static int consume(struct tbbt_pconn *c, void (*cb)(void *, const uint8_t *, size_t), void *ctx, char *err,
                   size_t errlen) {
    size_t flen;
    ssize_t off = tbbt_recmark_consume(&c->rm, c->buf, c->len, TBBT_PCONN_MAX_MSG, cb, ctx, &flen);
    if (off < 0) {
        snprintf(err, errlen, "%s: a reply fragment of %zu bytes: not an RPC stream", c->peer, flen);
        return -1;
    }
    memmove(c->buf, c->buf + off, c->len - (size_t)off);
    c->len -= (size_t)off;
    return 0;
}

int tbbt_pconn_stamp_tx(struct tbbt_pconn *c) {
    int f = SOF_TIMESTAMPING_TX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE | SOF_TIMESTAMPING_OPT_ID |
            SOF_TIMESTAMPING_OPT_TSONLY;
    if (c->queued || setsockopt(c->fd, SOL_SOCKET, SO_TIMESTAMPING, &f, sizeof(f)) < 0) return -1;
    c->tx_stamps = 1;
    c->stamps = g_new(struct tbbt_pconn_stamp, TBBT_PCONN_STAMPS);
    c->nstamps = c->stamp_next = 0;
    return 0;
}

uint64_t tbbt_pconn_mark(const struct tbbt_pconn *c, size_t len) {
    return c->udp ? c->queued + 1 : c->queued + len + 4;
}

/* A wall-clock time of the kernel's as CLOCK_MONOTONIC ns (by its age;
 * mono: the monotonic time now), or 0 when implausible (in the future, or
 * 10 s old). */
static int64_t mono_of(const struct timespec *ts, int64_t mono) {
    int64_t age = tbbt_clock_ns(CLOCK_REALTIME) - ((int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec);
    return age >= 0 && age < 10000000000 ? mono - age : 0;
}

/* Adds a transmit stamp whose key the kernel gave in 32 bits (keys only
 * grow: a smaller one has wrapped). */
static void add_stamp(struct tbbt_pconn *c, uint32_t key32, int64_t ns) {
    uint64_t key = key32;
    if (c->nstamps) {
        uint64_t last = c->stamps[(c->stamp_next + TBBT_PCONN_STAMPS - 1) % TBBT_PCONN_STAMPS].key;
        key |= last & ~(uint64_t)0xffffffffu;
        if (key < last) key += (uint64_t)1 << 32;
    }
    c->stamps[c->stamp_next] = (struct tbbt_pconn_stamp){key, ns};
    c->stamp_next = (c->stamp_next + 1) % TBBT_PCONN_STAMPS;
    if (c->nstamps < TBBT_PCONN_STAMPS) c->nstamps++;
}

/* Takes every transmit stamp on the socket's error queue. */
static void take_stamps(struct tbbt_pconn *c) {
    for (;;) {
        union {
            char b[512];
            struct cmsghdr align;
        } ctl;
        struct msghdr mh = {.msg_control = ctl.b, .msg_controllen = sizeof(ctl.b)};
        if (recvmsg(c->fd, &mh, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) return; /* empty (EAGAIN) */
        int64_t ns = 0;
        int have_key = 0;
        uint32_t key = 0;
        for (struct cmsghdr *h = CMSG_FIRSTHDR(&mh); h; h = CMSG_NXTHDR(&mh, h)) {
            if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_TIMESTAMPING &&
                h->cmsg_len >= CMSG_LEN(sizeof(struct scm_timestamping))) {
                struct scm_timestamping t;
                memcpy(&t, CMSG_DATA(h), sizeof(t));
                ns = mono_of(&t.ts[0], tbbt_now_ns());
            } else if (((h->cmsg_level == IPPROTO_IP && h->cmsg_type == IP_RECVERR) ||
                        (h->cmsg_level == IPPROTO_IPV6 && h->cmsg_type == IPV6_RECVERR)) &&
                       h->cmsg_len >= CMSG_LEN(sizeof(struct sock_extended_err))) {
                struct sock_extended_err ee;
                memcpy(&ee, CMSG_DATA(h), sizeof(ee));
                if (ee.ee_origin == SO_EE_ORIGIN_TIMESTAMPING && ee.ee_info == SCM_TSTAMP_SND)
                    key = ee.ee_data, have_key = 1;
            }
        }
        if (ns && have_key) add_stamp(c, key, ns);
    }
}

int64_t tbbt_pconn_sent_at(const struct tbbt_pconn *c, uint64_t mark) {
    if (!c->tx_stamps || !c->nstamps || !mark) return 0;
    uint64_t want = mark - 1; /* its last byte, or its datagram */
    uint32_t first = (c->stamp_next + TBBT_PCONN_STAMPS - c->nstamps) % TBBT_PCONN_STAMPS;
    uint32_t lo = 0, hi = c->nstamps; /* the first write whose last byte is at or after want */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->stamps[(first + mid) % TBBT_PCONN_STAMPS].key < want)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == c->nstamps || (lo == 0 && c->nstamps == TBBT_PCONN_STAMPS)) return 0; /* not yet, or gone */
    return c->stamps[(first + lo) % TBBT_PCONN_STAMPS].ns;
}

/* Reads into buf like recv(flags), and sets c->rx_ns from the kernel's
 * receive time (SO_TIMESTAMPNS, the wall clock) moved onto the monotonic
 * clock by its age; the time of the read when there is none or it is
 * implausible (mono_of). */
static ssize_t read_stamped(struct tbbt_pconn *c, uint8_t *buf, size_t len, int flags) {
    union { /* SCM_TIMESTAMPNS, and SCM_TIMESTAMPING once transmit stamps are on */
        char b[CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(struct scm_timestamping))];
        struct cmsghdr align;
    } ctl;
    struct iovec iov = {buf, len};
    struct msghdr mh = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.b, .msg_controllen = sizeof(ctl.b)};
    ssize_t r = recvmsg(c->fd, &mh, flags);
    int64_t mono = tbbt_now_ns();
    c->rx_ns = c->rd_ns = mono;
    if (r <= 0) return r;
    for (struct cmsghdr *h = CMSG_FIRSTHDR(&mh); h; h = CMSG_NXTHDR(&mh, h))
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_TIMESTAMPNS &&
            h->cmsg_len >= CMSG_LEN(sizeof(struct timespec))) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(h), sizeof(ts));
            int64_t t = mono_of(&ts, mono);
            if (t) c->rx_ns = t;
        }
    return r;
}

int tbbt_pconn_read(struct tbbt_pconn *c, void (*cb)(void *ctx, const uint8_t *m, size_t n), void *ctx,
                    char *err, size_t errlen) {
    if (c->tx_stamps) take_stamps(c);
    if (c->udp) { /* one datagram, one message */
        if (!c->buf) c->buf = g_malloc(c->cap = 65536);
        ssize_t r = read_stamped(c, c->buf, c->cap, MSG_DONTWAIT);
        if (r < 0 && (errno == EINTR || errno == EAGAIN)) return 0;
        if (r < 0) {
            snprintf(err, errlen, "%s: %s", c->peer, strerror(errno));
            return -1;
        }
        c->bytes_in += (size_t)r;
        cb(ctx, c->buf, (size_t)r);
        return 0;
    }
    if (c->cap - c->len < 65536) {
        c->cap = c->cap ? 2 * c->cap : 1 << 20;
        c->buf = g_realloc(c->buf, c->cap);
    }
    ssize_t r = read_stamped(c, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT); /* woken for a stamp alone */
    if (r < 0 && (errno == EINTR || errno == EAGAIN)) return 0;
    if (r <= 0) {
        snprintf(err, errlen, "%s: %s", c->peer, r ? strerror(errno) : "the server closed the connection");
        return -1;
    }
    c->len += (size_t)r;
    c->bytes_in += (size_t)r;
    return consume(c, cb, ctx, err, errlen);
}

/* What the probe's reply said, from its callback. */
struct probe {
    uint32_t xid;
    int got; /* 0 nothing yet, 1 the reply, -1 something else */
    struct tbbt_rpc_hdr h;
};

/* Receives one whole message for the probe. */
static void probe_msg(void *ctx, const uint8_t *m, size_t n) {
    struct probe *p = ctx;
    if (p->got) return;
    p->got = tbbt_rpc_parse(m, n, &p->h) == 0 && p->h.mtype == TBBT_RPC_REPLY && p->h.xid == p->xid ? 1 : -1;
}

/* RPC accept_stat and reject_stat values as words (RFC 5531 9). */
static const char *const accept_words[] = {
    "success",           "program unavailable", "version 3 unavailable", "procedure unavailable",
    "garbage arguments", "system error"};

int tbbt_pconn_probe(struct tbbt_pconn *c, int timeout, char *err, size_t errlen) {
    struct probe p = {.xid = (uint32_t)g_random_int()};
    /* xid, CALL, RPC version 2, NFS version 3, NULL; AUTH_NONE credential and verifier */
    uint32_t call[10] = {htonl(p.xid), htonl(TBBT_RPC_CALL), htonl(TBBT_RPC_VERSION), htonl(TBBT_NFS_PROGRAM),
                         htonl(TBBT_NFS_V3)};
    if (tbbt_pconn_send(c, (const uint8_t *)call, sizeof(call)) < 0) {
        snprintf(err, errlen, "not an NFS server: cannot send %s an NFS NULL call (%s)", c->peer,
                 strerror(errno));
        return -1;
    }
    gint64 end = g_get_monotonic_time() + (gint64)timeout * G_USEC_PER_SEC;
    char why[512] = "";
    while (!p.got) {
        gint64 left = end - g_get_monotonic_time();
        if (left <= 0) {
            snprintf(err, errlen,
                     "no reply to an NFS NULL call from %s in %d s (not an NFS server, or not answering)",
                     c->peer, timeout);
            return -1;
        }
        struct pollfd pf = {.fd = c->fd, .events = POLLIN};
        int n = poll(&pf, 1, (int)(left / 1000 + 1));
        if (n < 0 && errno != EINTR) {
            snprintf(err, errlen, "%s: poll: %s", c->peer, strerror(errno));
            return -1;
        }
        if (n > 0 && tbbt_pconn_read(c, probe_msg, &p, why, sizeof(why)) < 0) {
            snprintf(err, errlen, "not an NFS server: %s does not answer NFS calls (%s)", c->peer,
                     strchr(why, ' ') ? strchr(why, ' ') + 1 : why); /* why starts with the peer */
            return -1;
        }
    }
    if (p.got < 0) {
        snprintf(err, errlen,
                 "not an NFS server: %s answers an NFS NULL call with something that is not an RPC reply",
                 c->peer);
        return -1;
    }
    if (p.h.reply_stat != 0) {
        snprintf(err, errlen, "%s denies an NFS NULL call (%s)", c->peer,
                 p.h.reject_stat == 0 ? "RPC version mismatch" : "authentication error");
        return -1;
    }
    if (p.h.accept_stat != 0) {
        snprintf(err, errlen, "%s does not serve NFSv3 (RPC: %s)", c->peer,
                 p.h.accept_stat < G_N_ELEMENTS(accept_words) ? accept_words[p.h.accept_stat]
                                                              : "unknown error");
        return -1;
    }
    return 0;
}

void tbbt_pconn_close(struct tbbt_pconn *c) {
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    g_free(c->buf), g_free(c->out), g_free(c->stamps);
    tbbt_recmark_free(&c->rm);
    c->buf = c->out = NULL;
    c->stamps = NULL, c->tx_stamps = 0, c->nstamps = c->stamp_next = 0, c->queued = 0;
    c->len = c->cap = c->outlen = c->outcap = 0;
}
