/* tbbt-synthcap.c -- a deterministic synthetic NFSv3 capture, for
 * bench/scale-prep.sh (issue 27's scale benchmark).
 *
 *   tbbt-synthcap [--objects N] [--clients C] [--per-dir K] > OUT.pcap
 *
 * Writes a pcap (Ethernet, IPv4, TCP) of C clients (10.1.x.y, each its own
 * TCP connection to 10.0.0.1:2049, opened with a handshake) working on N
 * files in directories of K files under the export's root:
 *   - first, client 0 looks up the N/K directories (there before the
 *     trace: the files found below are in them);
 *   - then each file i (client i % C) is looked up, then created (LOOKUP:
 *     not found, CREATE) or, one in ten, found (LOOKUP succeeds: a file
 *     that was there before the trace), written (512 bytes), read back,
 *     examined (GETATTR); one in ten is then renamed in its directory, a
 *     different one in ten removed.
 * The clients take turns one call at a time, so at any moment C files are
 * under way. Calls are 100 us apart (10,000 calls/s), each reply 40 us
 * after its call; RPC record marking, AUTH_SYS credentials, handles of 32
 * bytes made from the fileid, full attributes in every reply. Nothing is
 * random: the same arguments give the same bytes. Nothing here decodes;
 * this is what a capture of such a workload holds, for tbbt-prep to read. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfs_ops.h"
#include "record.h"

#define SERVER_IP 0x0a000001u
#define NFS_PORT 2049
#define IO_BYTES 512
#define T0_NS 1700000000000000000ull
#define STEP_NS 100000ull
#define REPLY_NS 40000ull

/* One client's TCP connection: its address and both sequence numbers. */
struct client {
    uint32_t ip;
    uint16_t port;
    uint32_t cseq, sseq; /* next sequence number, client -> server and back */
    uint32_t xid;
};

/* An XDR buffer: the message being built. */
struct xb {
    uint8_t b[4096];
    size_t n;
};

static FILE *out;
static uint64_t now_ns = T0_NS;

static void u32(struct xb *x, uint32_t v) {
    x->b[x->n++] = (uint8_t)(v >> 24), x->b[x->n++] = (uint8_t)(v >> 16);
    x->b[x->n++] = (uint8_t)(v >> 8), x->b[x->n++] = (uint8_t)v;
}

static void u64(struct xb *x, uint64_t v) {
    u32(x, (uint32_t)(v >> 32)), u32(x, (uint32_t)v);
}

/* Variable-length opaque: length, bytes, zero padding to 4. */
static void opaque(struct xb *x, const void *p, uint32_t len) {
    u32(x, len);
    memcpy(x->b + x->n, p, len);
    x->n += len;
    while (x->n % 4)
        x->b[x->n++] = 0;
}

static void str(struct xb *x, const char *s) {
    opaque(x, s, (uint32_t)strlen(s));
}

/* The handle of fileid: 32 bytes, a fixed fsid then the fileid. */
static void fh(struct xb *x, uint64_t fileid) {
    uint8_t h[32];
    memset(h, 0, sizeof(h));
    memcpy(h, "SYNTHFS1", 8);
    for (int i = 0; i < 8; i++)
        h[8 + i] = (uint8_t)(fileid >> (56 - 8 * i));
    h[16] = 0x5a;
    opaque(x, h, sizeof(h));
}

/* fattr3 of fileid: a file of size bytes or a directory. */
static void fattr(struct xb *x, uint64_t fileid, int type, uint64_t size) {
    u32(x, (uint32_t)type);
    u32(x, type == TBBT_FT_DIR ? 0755 : 0644);
    u32(x, type == TBBT_FT_DIR ? 2 : 1);
    u32(x, 1000), u32(x, 1000);
    u64(x, size), u64(x, (size + 4095) / 4096 * 4096);
    u32(x, 0), u32(x, 0);
    u64(x, 0x51); /* fsid */
    u64(x, fileid);
    for (int i = 0; i < 3; i++)
        u32(x, (uint32_t)(now_ns / 1000000000ull)), u32(x, (uint32_t)(now_ns % 1000000000ull));
}

static void post_attr(struct xb *x, uint64_t fileid, int type, uint64_t size) {
    u32(x, 1);
    fattr(x, fileid, type, size);
}

/* wcc_data: no pre-op attributes, post-op ones. */
static void wcc(struct xb *x, uint64_t fileid, int type, uint64_t size) {
    u32(x, 0);
    post_attr(x, fileid, type, size);
}

static void call_head(struct xb *x, struct client *c, enum tbbt_op op) {
    x->n = 4; /* the record mark, set when sent */
    u32(x, ++c->xid);
    u32(x, 0), u32(x, 2), u32(x, TBBT_NFS_PROGRAM), u32(x, TBBT_NFS_V3),
        u32(x, (uint32_t)tbbt_op_info(op)->v3proc);
    u32(x, 1);  /* AUTH_SYS */
    u32(x, 28); /* stamp, "synth" (4+8), uid, gid, no gids */
    u32(x, 0), str(x, "synth"), u32(x, 1000), u32(x, 1000), u32(x, 0);
    u32(x, 0), u32(x, 0); /* verifier AUTH_NONE */
}

static void reply_head(struct xb *x, struct client *c, uint32_t status) {
    x->n = 4;
    u32(x, c->xid);
    u32(x, 1), u32(x, 0), u32(x, 0), u32(x, 0), u32(x, 0); /* REPLY, accepted, AUTH_NONE, SUCCESS */
    u32(x, status);
}

static void le32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}

static void be16(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 8), p[1] = (uint8_t)v;
}

static void be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24), p[1] = (uint8_t)(v >> 16), p[2] = (uint8_t)(v >> 8), p[3] = (uint8_t)v;
}

/* Writes one TCP segment (Ethernet, IPv4 with its checksum, TCP with
 * flags) at time t carrying len bytes of data. */
static void segment(uint64_t t, uint32_t sip, uint16_t sport, uint32_t dip, uint16_t dport, uint32_t seq,
                    uint32_t ack, uint8_t flags, const uint8_t *data, size_t len) {
    uint8_t h[16 + 54];
    size_t caplen = 54 + len;
    le32(h, (uint32_t)(t / 1000000000ull)), le32(h + 4, (uint32_t)(t % 1000000000ull / 1000));
    le32(h + 8, (uint32_t)caplen), le32(h + 12, (uint32_t)caplen);
    uint8_t *e = h + 16;
    memset(e, 0, 54);
    e[0] = 2, e[5] = (uint8_t)(dip & 0xff), e[6] = 2, e[11] = (uint8_t)(sip & 0xff);
    e[12] = 0x08, e[13] = 0x00;
    uint8_t *ip = e + 14;
    ip[0] = 0x45;
    be16(ip + 2, (uint32_t)(20 + 20 + len));
    ip[6] = 0x40; /* DF */
    ip[8] = 64, ip[9] = 6;
    be32(ip + 12, sip), be32(ip + 16, dip);
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
        sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    be16(ip + 10, ~sum & 0xffff);
    uint8_t *tcp = ip + 20;
    be16(tcp, sport), be16(tcp + 2, dport), be32(tcp + 4, seq), be32(tcp + 8, ack);
    tcp[12] = 0x50, tcp[13] = flags;
    be16(tcp + 14, 65535);
    fwrite(h, 1, sizeof(h), out);
    if (len) fwrite(data, 1, len, out);
}

/* The call in x from c, then the reply in r 40 us later; the clock moves
 * on by one step. */
static void exchange(struct client *c, struct xb *x, struct xb *r) {
    be32(x->b, 0x80000000u | (uint32_t)(x->n - 4));
    be32(r->b, 0x80000000u | (uint32_t)(r->n - 4));
    segment(now_ns, c->ip, c->port, SERVER_IP, NFS_PORT, c->cseq, c->sseq, 0x18, x->b, x->n);
    c->cseq += (uint32_t)x->n;
    segment(now_ns + REPLY_NS, SERVER_IP, NFS_PORT, c->ip, c->port, c->sseq, c->cseq, 0x18, r->b, r->n);
    c->sseq += (uint32_t)r->n;
    now_ns += STEP_NS;
}

/* The three-way handshake that opens c's connection. */
static void connect_client(struct client *c) {
    segment(now_ns, c->ip, c->port, SERVER_IP, NFS_PORT, c->cseq - 1, 0, 0x02, NULL, 0);
    segment(now_ns + 10000, SERVER_IP, NFS_PORT, c->ip, c->port, c->sseq - 1, c->cseq, 0x12, NULL, 0);
    segment(now_ns + 20000, c->ip, c->port, SERVER_IP, NFS_PORT, c->cseq, c->sseq, 0x10, NULL, 0);
    now_ns += STEP_NS;
}

#define ROOT_ID 1ull
#define DIR_ID(d) ((1ull << 40) + (d))
#define FILE_ID(i) (1000ull + (i))

static void dir_name(char *b, size_t n, uint64_t d) {
    snprintf(b, n, "d%06llu", (unsigned long long)d);
}

static void file_name(char *b, size_t n, uint64_t i, int renamed) {
    snprintf(b, n, "f%09llu%s", (unsigned long long)i, renamed ? ".old" : "");
}

/* LOOKUP name in dir: not found, or found as fileid, of type type. */
static void lookup(struct client *c, uint64_t dir, const char *name, uint64_t found, int type) {
    struct xb x, r;
    call_head(&x, c, TBBT_OP_LOOKUP);
    fh(&x, dir), str(&x, name);
    reply_head(&r, c, found ? 0 : 2);
    if (found) fh(&r, found), post_attr(&r, found, type, type == TBBT_FT_DIR ? 4096 : 0);
    post_attr(&r, dir, TBBT_FT_DIR, 4096);
    exchange(c, &x, &r);
}

/* CREATE (UNCHECKED, mode 0644) or MKDIR of name in dir as fileid id. */
static void make(struct client *c, enum tbbt_op proc, uint64_t dir, const char *name, uint64_t id) {
    struct xb x, r;
    call_head(&x, c, proc);
    fh(&x, dir), str(&x, name);
    if (proc == TBBT_OP_CREATE) u32(&x, 0);
    u32(&x, 1), u32(&x, proc == TBBT_OP_MKDIR ? 0755 : 0644);
    u32(&x, 0), u32(&x, 0), u32(&x, 0), u32(&x, 0), u32(&x, 0);
    reply_head(&r, c, 0);
    u32(&r, 1), fh(&r, id);
    post_attr(&r, id, proc == TBBT_OP_MKDIR ? TBBT_FT_DIR : TBBT_FT_REG, proc == TBBT_OP_MKDIR ? 4096 : 0);
    wcc(&r, dir, TBBT_FT_DIR, 4096);
    exchange(c, &x, &r);
}

static void write_file(struct client *c, uint64_t id) {
    static const uint8_t data[IO_BYTES];
    struct xb x, r;
    call_head(&x, c, TBBT_OP_WRITE);
    fh(&x, id), u64(&x, 0), u32(&x, IO_BYTES), u32(&x, 2), opaque(&x, data, IO_BYTES);
    reply_head(&r, c, 0);
    wcc(&r, id, TBBT_FT_REG, IO_BYTES);
    u32(&r, IO_BYTES), u32(&r, 2), u64(&r, 0x7e57);
    exchange(c, &x, &r);
}

static void read_file(struct client *c, uint64_t id) {
    static const uint8_t data[IO_BYTES];
    struct xb x, r;
    call_head(&x, c, TBBT_OP_READ);
    fh(&x, id), u64(&x, 0), u32(&x, IO_BYTES);
    reply_head(&r, c, 0);
    post_attr(&r, id, TBBT_FT_REG, IO_BYTES);
    u32(&r, IO_BYTES), u32(&r, 1), opaque(&r, data, IO_BYTES);
    exchange(c, &x, &r);
}

static void getattr(struct client *c, uint64_t id) {
    struct xb x, r;
    call_head(&x, c, TBBT_OP_GETATTR);
    fh(&x, id);
    reply_head(&r, c, 0);
    fattr(&r, id, TBBT_FT_REG, IO_BYTES);
    exchange(c, &x, &r);
}

static void rename_file(struct client *c, uint64_t dir, const char *from, const char *to) {
    struct xb x, r;
    call_head(&x, c, TBBT_OP_RENAME);
    fh(&x, dir), str(&x, from), fh(&x, dir), str(&x, to);
    reply_head(&r, c, 0);
    wcc(&r, dir, TBBT_FT_DIR, 4096), wcc(&r, dir, TBBT_FT_DIR, 4096);
    exchange(c, &x, &r);
}

static void remove_file(struct client *c, uint64_t dir, const char *name) {
    struct xb x, r;
    call_head(&x, c, TBBT_OP_REMOVE);
    fh(&x, dir), str(&x, name);
    reply_head(&r, c, 0);
    wcc(&r, dir, TBBT_FT_DIR, 4096);
    exchange(c, &x, &r);
}

/* Step k (0..6) of file i's life by client c; returns 0 when its life is
 * over (the client moves to its next file). */
static int file_step(struct client *c, uint64_t i, uint64_t per_dir, int k) {
    uint64_t dir = DIR_ID(i / per_dir), id = FILE_ID(i);
    char name[32], name2[32];
    file_name(name, sizeof(name), i, 0);
    int found = i % 10 == 5, renamed = i % 10 == 3, removed = i % 10 == 7;
    switch (k) {
    case 0: lookup(c, dir, name, found ? id : 0, TBBT_FT_REG); return 1;
    case 1:
        if (!found)
            make(c, TBBT_OP_CREATE, dir, name, id);
        else
            getattr(c, id);
        return 1;
    case 2: write_file(c, id); return 1;
    case 3: read_file(c, id); return 1;
    case 4: getattr(c, id); return renamed || removed;
    case 5:
        if (renamed) {
            file_name(name2, sizeof(name2), i, 1);
            rename_file(c, dir, name, name2);
        } else
            remove_file(c, dir, name);
        return 0;
    default: return 0;
    }
}

/* A positive count from a command-line value, or exit 2. */
static uint64_t count_arg(const char *opt, const char *v) {
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    if (!*v || *end || n == 0) {
        fprintf(stderr, "tbbt-synthcap: %s %s: must be a positive whole number\n", opt, v);
        exit(2);
    }
    return n;
}

int main(int argc, char **argv) {
    uint64_t n = 100000, nclients = 500, per_dir = 1000;
    for (int a = 1; a < argc; a++) {
        if (a + 1 < argc && !strcmp(argv[a], "--objects"))
            n = count_arg(argv[a], argv[a + 1]), a++;
        else if (a + 1 < argc && !strcmp(argv[a], "--clients"))
            nclients = count_arg(argv[a], argv[a + 1]), a++;
        else if (a + 1 < argc && !strcmp(argv[a], "--per-dir"))
            per_dir = count_arg(argv[a], argv[a + 1]), a++;
        else {
            fprintf(stderr, "Usage: tbbt-synthcap [--objects N] [--clients C] [--per-dir K] > OUT.pcap\n");
            return 2;
        }
    }
    if (nclients > 60000) nclients = 60000;
    out = stdout;
    static char buf[1 << 20];
    setvbuf(out, buf, _IOFBF, sizeof(buf));
    uint8_t gh[24] = {0xd4, 0xc3, 0xb2, 0xa1, 2, 0, 4, 0};
    le32(gh + 16, 65535), le32(gh + 20, 1); /* snaplen, Ethernet */
    fwrite(gh, 1, sizeof(gh), out);
    struct client *cl = calloc(nclients, sizeof(*cl));
    uint64_t *cur = calloc(nclients, sizeof(*cur));
    int *step = calloc(nclients, sizeof(*step));
    if (!cl || !cur || !step) return 1;
    for (uint64_t c = 0; c < nclients; c++) {
        cl[c].ip = 0x0a010000u + (uint32_t)(c / 250) * 256 + (uint32_t)(c % 250) + 1;
        cl[c].port = (uint16_t)(700 + c % 300);
        cl[c].cseq = 1000000u * (uint32_t)(c + 1) + 1, cl[c].sseq = 7000000u * (uint32_t)(c + 1) + 1;
        cl[c].xid = 0x10000000u * (uint32_t)(c % 16) + (uint32_t)c * 4096;
        connect_client(&cl[c]);
        cur[c] = c;
    }
    char name[32];
    for (uint64_t d = 0; d * per_dir < n; d++) {
        dir_name(name, sizeof(name), d);
        lookup(&cl[0], ROOT_ID, name, DIR_ID(d), TBBT_FT_DIR);
    }
    for (uint64_t busy = nclients; busy;) {
        busy = 0;
        for (uint64_t c = 0; c < nclients; c++) {
            if (cur[c] >= n) continue;
            busy++;
            if (!file_step(&cl[c], cur[c], per_dir, step[c]++)) cur[c] += nclients, step[c] = 0;
        }
    }
    if (fflush(out) != 0) {
        perror("tbbt-synthcap: write");
        return 1;
    }
    free(cl), free(cur), free(step);
    return 0;
}
