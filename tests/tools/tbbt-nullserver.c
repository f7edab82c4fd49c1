/* tbbt-nullserver: a MINIMAL NFSv3 RESPONDER FOR BENCHMARKS ONLY.
 *
 *   tbbt-nullserver [--port N] [--read-max BYTES] [--seconds S]
 *                   [--delay-proc PROC --delay-ms MS] [--names] [--log FILE]
 *                   [--drop-proc PROC --drop-count N]
 *
 * Listens on 127.0.0.1:PORT (TCP, RPC record marking) and answers every
 * NFSv3 call from memory, at once, with NFS3_OK and well-formed results:
 * fixed attributes; LOOKUP, CREATE, MKDIR, SYMLINK and MKNOD return a
 * fresh 16-byte handle; READ returns min(count, --read-max) zero bytes
 * with eof; READDIR and READDIRPLUS an empty listing with eof; WRITE
 * acknowledges the whole count, FILE_SYNC. No MOUNT, no portmapper, no
 * state: the benchmark gives the player a fake manifest (every initial
 * TBBT-ID mapped to a handle that encodes it) and the player learns the
 * rest from replies. It exists so that bench/play.sh can measure the
 * player's own ceiling, with a server that costs almost nothing, on the
 * other core. It is not an NFS server and must never be used as one.
 *
 * For the player's ordering tests (tests/play/lost_reply_order.sh), a
 * server that answers pipelined calls out of order: --delay-proc runs
 * the calls of one procedure (e.g. remove, lookup) --delay-ms late, its
 * reply computed and sent then, while the calls after them are answered
 * at once, as a server that runs one connection's requests concurrently
 * may. --names keeps the one piece of state such a test needs: a REMOVE
 * or RMDIR takes effect when its reply goes (a delayed one late), then a
 * LOOKUP of that (directory handle, name) answers NFS3ERR_NOENT until a
 * CREATE, MKDIR, SYMLINK or MKNOD makes the name again (RENAME and LINK
 * are not followed); a delayed LOOKUP sees the names as they are when it
 * runs. --log writes "SECONDS call|reply XID PROC" per call read and per
 * reply put to its connection's output, in the order they happen (one
 * thread), so a test can tell whether a call came after a reply went.
 * --drop-proc reads the first --drop-count calls of a procedure and never
 * answers them (logged "drop"), as a server drops a request it cannot
 * serve now and counts on the client's retransmission (nfs-ganesha's
 * "Drop request"): a call with the XID of a dropped one (its
 * retransmission) is answered. tests/play/retransmit.sh.
 *
 * Replies are encoded with the rpcgen XDR routines of lib/proto/tbbt_nfs.x
 * into a per-connection output buffer (xdrmem), calls parsed with
 * nfsdec's tbbt_rpc_parse; one thread, one epoll loop. At exit (SIGINT,
 * SIGTERM, --seconds) it prints the calls answered, the read() calls that
 * brought them (calls per read: how much the client batches its sends)
 * and its CPU time.
 * Exit: 0, 1 (cannot listen), 2 (bad usage). */
#define _GNU_SOURCE /* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <rpc/rpc.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <glib.h>

#include "nfsdec.h"
#include "recmark.h"
#include "clock.h"
#include "tbbt_nfs.h"

#define NS_PROG_NFS 100003u
#define NS_MAX_MSG (4u << 20)     /* a call larger than this closes the connection */
#define NS_REPLY_ROOM (80u << 10) /* room kept free in the output buffer for one reply */
#define NS_OUT_HIGH (16u << 20)   /* stop reading a connection whose replies pile up past this */

struct ns_opts {
    gint port, read_max, delay_ms, drop_count;
    gdouble seconds;
    gchar *delay_proc, *drop_proc, *log;
    gboolean names;
};

static struct ns_opts opt = {.port = 20049, .read_max = 4096, .drop_count = 1};

/* The options, declared once: parsing and --help both come from here. */
static GOptionEntry ns_entries[] = {
    {"port", 'p', 0, G_OPTION_ARG_INT, &opt.port, "TCP port on 127.0.0.1 (default 20049)", "N"},
    {"read-max", 0, 0, G_OPTION_ARG_INT, &opt.read_max, "Largest READ reply data, bytes (default 4096)", "N"},
    {"seconds", 0, 0, G_OPTION_ARG_DOUBLE, &opt.seconds, "Exit after S seconds (default: on a signal)", "S"},
    {"delay-proc", 0, 0, G_OPTION_ARG_STRING, &opt.delay_proc,
     "Run the calls of this NFSv3 procedure (remove, lookup, ...) --delay-ms late", "PROC"},
    {"delay-ms", 0, 0, G_OPTION_ARG_INT, &opt.delay_ms, "Milliseconds a --delay-proc call is held (0..60000)",
     "MS"},
    {"drop-proc", 0, 0, G_OPTION_ARG_STRING, &opt.drop_proc,
     "Never answer the first --drop-count calls of this NFSv3 procedure", "PROC"},
    {"drop-count", 0, 0, G_OPTION_ARG_INT, &opt.drop_count, "Calls of --drop-proc dropped (default 1)", "N"},
    {"names", 0, 0, G_OPTION_ARG_NONE, &opt.names,
     "Remember removed names: a LOOKUP of one answers NOENT (a REMOVE takes effect when its reply goes)",
     NULL},
    {"log", 0, 0, G_OPTION_ARG_FILENAME, &opt.log, "Write \"SECONDS call|reply XID PROC\" per call and reply",
     "FILE"},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

/* One client connection: bytes read and not yet consumed, the message
 * being reassembled from fragments, and replies not yet written. */
struct ns_conn {
    int fd;
    uint8_t *in;
    size_t inlen, incap;
    struct tbbt_recmark rm;
    uint8_t *out;
    size_t outoff, outlen, outcap;
    int want_out; /* EPOLLOUT registered */
};

/* A call held back (--delay-proc): its message, its header, when it runs. */
struct ns_held {
    struct ns_conn *c;
    double due;
    uint8_t *msg;
    size_t len;
    struct tbbt_rpc_hdr h;
};

static volatile sig_atomic_t stop;
static uint64_t fh_counter, calls, reads, bytes_in, bytes_out;
static uint8_t zeros[64u << 10];
static int delay_proc = -1; /* NFSv3 procedure number, -1: none */
static int drop_proc = -1;  /* NFSv3 procedure number, -1: none */
static GHashTable *dropped; /* XIDs of the calls dropped (--drop-proc) */
static GQueue held_q;       /* struct ns_held, by due time (one delay: arrival order) */
static GHashTable *gone;    /* --names: (dir handle, name) keys removed, GBytes */
static FILE *log_fp;        /* --log */
static double t0;           /* tbbt_now_s() at start, for the log */

/* SIGINT, SIGTERM: leave the loop. */
static void on_signal(int sig) {
    (void)sig;
    stop = 1;
}

/* Grows *buf (capacity *cap) to hold at least need bytes. */
static void grow(uint8_t **buf, size_t *cap, size_t need) {
    if (need <= *cap) return;
    size_t c = *cap ? *cap : 65536;
    while (c < need)
        c *= 2;
    *buf = g_realloc(*buf, c);
    *cap = c;
}

/* ---- results ---- */

/* The fixed attributes every reply carries (type as the call implies). */
static fattr3 attrs(ftype3 type) {
    fattr3 a;
    memset(&a, 0, sizeof(a));
    a.type = type;
    a.mode = type == NF3DIR ? 0755 : 0644;
    a.nlink = type == NF3DIR ? 2 : 1;
    a.size = a.used = 4096;
    a.fsid = 1;
    a.fileid = 2;
    a.atime.seconds = a.mtime.seconds = a.ctime.seconds = 1700000000;
    return a;
}

static post_op_attr post(ftype3 type) {
    post_op_attr p;
    p.attributes_follow = TRUE;
    p.post_op_attr_u.attributes = attrs(type);
    return p;
}

/* wcc_data with no before-attributes and the fixed after-attributes. */
static wcc_data wcc(ftype3 type) {
    wcc_data w;
    w.before.attributes_follow = FALSE;
    w.after = post(type);
    return w;
}

/* A fresh 16-byte handle in buf ("nullsrv\0" and a counter). */
static nfs_fh3 fresh_fh(char buf[16]) {
    uint64_t n = ++fh_counter;
    memcpy(buf, "nullsrv", 8);
    memcpy(buf + 8, &n, 8);
    nfs_fh3 fh = {{16, buf}};
    return fh;
}

/* The u32 at byte off of the arguments, or 0 when beyond them. */
static uint32_t arg_u32(const uint8_t *a, size_t n, size_t off) {
    if (off + 4 > n) return 0;
    return (uint32_t)a[off] << 24 | (uint32_t)a[off + 1] << 16 | (uint32_t)a[off + 2] << 8 | a[off + 3];
}

/* The offset just past the file handle that starts the arguments. */
static size_t past_fh(const uint8_t *a, size_t n) {
    uint32_t len = arg_u32(a, n, 0);
    return 4 + ((size_t)(len > 64 ? 64 : len) + 3) / 4 * 4;
}

/* The (directory handle, name) a diropargs3 at the start of a[0..n)
 * names, as one key (handle length, handle, name), or NULL when cut. */
static GBytes *dirop_key(const uint8_t *a, size_t n) {
    uint32_t fhlen = arg_u32(a, n, 0);
    if (fhlen > 64) return NULL;
    size_t off = past_fh(a, n);
    uint32_t len = arg_u32(a, n, off);
    if (off + 4 + len > n || len > 1024) return NULL;
    uint8_t k[1 + 64 + 1024];
    k[0] = (uint8_t)fhlen;
    memcpy(k + 1, a + 4, fhlen);
    memcpy(k + 1 + fhlen, a + off + 4, len);
    return g_bytes_new(k, 1 + fhlen + len);
}

/* NFSv3 procedure proc's lower-case name, for the log. */
static const char *proc_name(uint32_t proc) {
    int op = tbbt_op_from_wire(3, proc);
    return op < 0 ? "?" : tbbt_op_info((enum tbbt_op)op)->name;
}

/* --log: one line, "SECONDS EVENT XID PROC". */
static void log_event(const char *event, uint32_t xid, uint32_t proc) {
    if (log_fp) fprintf(log_fp, "%.6f %s %08x %s\n", tbbt_now_s() - t0, event, xid, proc_name(proc));
}

/* --names: what a reply that goes does to the names. A REMOVE's or
 * RMDIR's name is gone; a name made again is not. */
static void names_apply(uint32_t proc, GBytes *key) {
    if (!gone || !key) return;
    if (proc == 12 || proc == 13)
        g_hash_table_add(gone, g_bytes_ref(key));
    else
        g_hash_table_remove(gone, key);
}

/* Encodes the results of NFSv3 procedure proc (arguments a[0..n)) on x.
 * Returns 1, 0 when the procedure does not exist (PROC_UNAVAIL), -1 when
 * the buffer was too small. */
static int results(XDR *x, uint32_t proc, const uint8_t *a, size_t n) {
    char fhb[16];
    nfsstat3 ok = NFS3_OK;
    switch (proc) {
    case 0: return 1; /* NULL */
    case 1: {
        GETATTR3res r = {.status = ok};
        r.GETATTR3res_u.resok.obj_attributes = attrs(NF3REG);
        return xdr_GETATTR3res(x, &r) ? 1 : -1;
    }
    case 2: {
        SETATTR3res r = {.status = ok};
        r.SETATTR3res_u.resok.obj_wcc = wcc(NF3REG);
        return xdr_SETATTR3res(x, &r) ? 1 : -1;
    }
    case 3: {
        if (gone) {
            GBytes *k = dirop_key(a, n);
            int noent = k && g_hash_table_contains(gone, k);
            if (k) g_bytes_unref(k);
            if (noent) {
                LOOKUP3res r = {.status = NFS3ERR_NOENT};
                r.LOOKUP3res_u.resfail.dir_attributes = post(NF3DIR);
                return xdr_LOOKUP3res(x, &r) ? 1 : -1;
            }
        }
        LOOKUP3res r = {.status = ok};
        r.LOOKUP3res_u.resok.object = fresh_fh(fhb);
        r.LOOKUP3res_u.resok.obj_attributes = post(NF3REG);
        r.LOOKUP3res_u.resok.dir_attributes = post(NF3DIR);
        return xdr_LOOKUP3res(x, &r) ? 1 : -1;
    }
    case 4: {
        ACCESS3res r = {.status = ok};
        r.ACCESS3res_u.resok.obj_attributes = post(NF3REG);
        r.ACCESS3res_u.resok.access = arg_u32(a, n, past_fh(a, n));
        return xdr_ACCESS3res(x, &r) ? 1 : -1;
    }
    case 5: {
        READLINK3res r = {.status = ok};
        r.READLINK3res_u.resok.symlink_attributes = post(NF3LNK);
        r.READLINK3res_u.resok.data = "target";
        return xdr_READLINK3res(x, &r) ? 1 : -1;
    }
    case 6: {
        uint32_t count = arg_u32(a, n, past_fh(a, n) + 8);
        if (count > (uint32_t)opt.read_max) count = (uint32_t)opt.read_max;
        READ3res r = {.status = ok};
        r.READ3res_u.resok.file_attributes = post(NF3REG);
        r.READ3res_u.resok.count = count;
        r.READ3res_u.resok.eof = TRUE;
        r.READ3res_u.resok.data.data_len = count;
        r.READ3res_u.resok.data.data_val = (char *)zeros;
        return xdr_READ3res(x, &r) ? 1 : -1;
    }
    case 7: {
        WRITE3res r = {.status = ok};
        r.WRITE3res_u.resok.file_wcc = wcc(NF3REG);
        r.WRITE3res_u.resok.count = arg_u32(a, n, past_fh(a, n) + 8);
        r.WRITE3res_u.resok.committed = FILE_SYNC;
        memcpy(r.WRITE3res_u.resok.verf, "nullsrv", 8);
        return xdr_WRITE3res(x, &r) ? 1 : -1;
    }
    case 8:    /* CREATE */
    case 9:    /* MKDIR */
    case 10:   /* SYMLINK */
    case 11: { /* MKNOD: the four share one result shape */
        CREATE3res r = {.status = ok};
        r.CREATE3res_u.resok.obj.handle_follows = TRUE;
        r.CREATE3res_u.resok.obj.post_op_fh3_u.handle = fresh_fh(fhb);
        r.CREATE3res_u.resok.obj_attributes = post(proc == 9 ? NF3DIR : proc == 10 ? NF3LNK : NF3REG);
        r.CREATE3res_u.resok.dir_wcc = wcc(NF3DIR);
        return xdr_CREATE3res(x, &r) ? 1 : -1;
    }
    case 12:   /* REMOVE */
    case 13: { /* RMDIR */
        REMOVE3res r = {.status = ok};
        r.REMOVE3res_u.resok.dir_wcc = wcc(NF3DIR);
        return xdr_REMOVE3res(x, &r) ? 1 : -1;
    }
    case 14: {
        RENAME3res r = {.status = ok};
        r.RENAME3res_u.resok.fromdir_wcc = wcc(NF3DIR);
        r.RENAME3res_u.resok.todir_wcc = wcc(NF3DIR);
        return xdr_RENAME3res(x, &r) ? 1 : -1;
    }
    case 15: {
        LINK3res r = {.status = ok};
        r.LINK3res_u.resok.file_attributes = post(NF3REG);
        r.LINK3res_u.resok.linkdir_wcc = wcc(NF3DIR);
        return xdr_LINK3res(x, &r) ? 1 : -1;
    }
    case 16: {
        READDIR3res r = {.status = ok};
        r.READDIR3res_u.resok.dir_attributes = post(NF3DIR);
        memset(r.READDIR3res_u.resok.cookieverf, 0, sizeof(r.READDIR3res_u.resok.cookieverf));
        r.READDIR3res_u.resok.reply.entries = NULL;
        r.READDIR3res_u.resok.reply.eof = TRUE;
        return xdr_READDIR3res(x, &r) ? 1 : -1;
    }
    case 17: {
        READDIRPLUS3res r = {.status = ok};
        r.READDIRPLUS3res_u.resok.dir_attributes = post(NF3DIR);
        memset(r.READDIRPLUS3res_u.resok.cookieverf, 0, sizeof(r.READDIRPLUS3res_u.resok.cookieverf));
        r.READDIRPLUS3res_u.resok.reply.entries = NULL;
        r.READDIRPLUS3res_u.resok.reply.eof = TRUE;
        return xdr_READDIRPLUS3res(x, &r) ? 1 : -1;
    }
    case 18: {
        FSSTAT3res r = {.status = ok};
        FSSTAT3resok *k = &r.FSSTAT3res_u.resok;
        k->obj_attributes = post(NF3DIR);
        k->tbytes = k->fbytes = k->abytes = 1ull << 40;
        k->tfiles = k->ffiles = k->afiles = 1ull << 30;
        k->invarsec = 0;
        return xdr_FSSTAT3res(x, &r) ? 1 : -1;
    }
    case 19: {
        FSINFO3res r = {.status = ok};
        FSINFO3resok *k = &r.FSINFO3res_u.resok;
        memset(k, 0, sizeof(*k));
        k->obj_attributes = post(NF3DIR);
        k->rtmax = k->rtpref = k->wtmax = k->wtpref = 1u << 20;
        k->rtmult = k->wtmult = 4096;
        k->dtpref = 65536;
        k->maxfilesize = ~0ull >> 1;
        k->time_delta.nseconds = 1;
        k->properties = FSF3_LINK | FSF3_SYMLINK | FSF3_HOMOGENEOUS | FSF3_CANSETTIME;
        return xdr_FSINFO3res(x, &r) ? 1 : -1;
    }
    case 20: {
        PATHCONF3res r = {.status = ok};
        PATHCONF3resok *k = &r.PATHCONF3res_u.resok;
        k->obj_attributes = post(NF3REG);
        k->linkmax = 32000, k->name_max = 255;
        k->no_trunc = TRUE, k->chown_restricted = TRUE;
        k->case_insensitive = FALSE, k->case_preserving = TRUE;
        return xdr_PATHCONF3res(x, &r) ? 1 : -1;
    }
    case 21: {
        COMMIT3res r = {.status = ok};
        r.COMMIT3res_u.resok.file_wcc = wcc(NF3REG);
        memcpy(r.COMMIT3res_u.resok.verf, "nullsrv", 8);
        return xdr_COMMIT3res(x, &r) ? 1 : -1;
    }
    default: return 0;
    }
}

/* --delay-proc: keeps the call message m[0..n) to run at now + delay. */
static void hold(struct ns_conn *c, const uint8_t *m, size_t n, const struct tbbt_rpc_hdr *h) {
    struct ns_held *e = g_new(struct ns_held, 1);
    *e = (struct ns_held){c, tbbt_now_s() + opt.delay_ms / 1000.0, g_memdup2(m, n), n, *h};
    g_queue_push_tail(&held_q, e);
}

/* Frees a held call. */
static void held_free(struct ns_held *e) {
    g_free(e->msg), g_free(e);
}

/* Runs the call m[0..n) (header h): appends its reply to c's output
 * buffer, logs it and applies it to the names. */
static void run_call(struct ns_conn *c, const uint8_t *m, size_t n, struct tbbt_rpc_hdr h) {
    grow(&c->out, &c->outcap, c->outlen + NS_REPLY_ROOM);
    uint8_t *base = c->out + c->outlen;
    XDR x;
    xdrmem_create(&x, (char *)base + 4, NS_REPLY_ROOM - 4, XDR_ENCODE);
    uint32_t accept = 0; /* SUCCESS */
    if (h.prog != NS_PROG_NFS)
        accept = 1; /* PROG_UNAVAIL */
    else if (h.vers != 3)
        accept = 2; /* PROG_MISMATCH */
    else if (h.proc > 21)
        accept = 3;                                /* PROC_UNAVAIL */
    uint32_t hdr[6] = {h.xid, 1, 0, 0, 0, accept}; /* REPLY, MSG_ACCEPTED, verf AUTH_NONE 0 bytes */
    for (int i = 0; i < 6; i++)
        xdr_u_int(&x, &hdr[i]);
    if (accept == 2) {
        uint32_t lo = 3, hi = 3;
        xdr_u_int(&x, &lo), xdr_u_int(&x, &hi);
    }
    if (accept == 0 && results(&x, h.proc, m + h.body, n - h.body) < 0) {
        xdr_destroy(&x);
        return; /* cannot happen with NS_REPLY_ROOM; the call goes unanswered */
    }
    uint32_t len = xdr_getpos(&x);
    xdr_destroy(&x);
    tbbt_recmark_put(base, len);
    GBytes *key = NULL; /* --names: the name a reply to this call makes or removes */
    if (gone && accept == 0 &&
        (h.proc == 8 || h.proc == 9 || h.proc == 10 || h.proc == 11 || h.proc == 12 || h.proc == 13))
        key = dirop_key(m + h.body, n - h.body);
    c->outlen += 4 + len;
    log_event("reply", h.xid, h.proc);
    names_apply(h.proc, key);
    if (key) g_bytes_unref(key);
}

/* Answers one call message m[0..n) now, or holds it to run late
 * (--delay-proc). A message that is not an RPC call is ignored. */
static void answer(struct ns_conn *c, const uint8_t *m, size_t n) {
    struct tbbt_rpc_hdr h;
    if (tbbt_rpc_parse(m, n, &h) < 0 || h.mtype != 0) return;
    calls++;
    log_event("call", h.xid, h.proc);
    if (h.prog == NS_PROG_NFS && h.vers == 3 && (int)h.proc == drop_proc && opt.drop_count > 0 &&
        !g_hash_table_contains(dropped, GUINT_TO_POINTER(h.xid))) {
        opt.drop_count--;
        g_hash_table_add(dropped, GUINT_TO_POINTER(h.xid));
        log_event("drop", h.xid, h.proc);
        return;
    }
    if (h.prog == NS_PROG_NFS && h.vers == 3 && (int)h.proc == delay_proc)
        hold(c, m, n, &h);
    else
        run_call(c, m, n, h);
}

/* answer() as lib/recmark.h's callback. */
static void answer_cb(void *c, const uint8_t *m, size_t n) {
    answer(c, m, n);
}

/* Consumes the whole fragments in c->in, answering every complete
 * message. Returns 0, or -1 on a message too large. */
static int consume(struct ns_conn *c) {
    size_t flen;
    ssize_t off = tbbt_recmark_consume(&c->rm, c->in, c->inlen, NS_MAX_MSG, answer_cb, c, &flen);
    if (off < 0) return -1;
    memmove(c->in, c->in + off, c->inlen - (size_t)off);
    c->inlen -= (size_t)off;
    return 0;
}

/* Writes what c has to send. Returns 0, or -1 when the connection broke. */
static int flush(struct ns_conn *c) {
    while (c->outoff < c->outlen) {
        ssize_t w = write(c->fd, c->out + c->outoff, c->outlen - c->outoff);
        if (w < 0) return errno == EAGAIN || errno == EINTR ? 0 : -1;
        c->outoff += (size_t)w;
        bytes_out += (uint64_t)w;
    }
    c->outoff = c->outlen = 0;
    return 0;
}

/* Registers the events c wants: input unless its replies pile up, output
 * while replies wait. */
static void rearm(int ep, struct ns_conn *c) {
    int pending = c->outoff < c->outlen;
    uint32_t ev = (c->outlen - c->outoff < NS_OUT_HIGH ? EPOLLIN : 0u) | (pending ? EPOLLOUT : 0u);
    struct epoll_event e = {.events = ev, .data.ptr = c};
    epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &e);
    c->want_out = pending;
}

/* Frees c and closes its socket, with the replies held for it. */
static void drop(struct ns_conn *c) {
    for (GList *l = held_q.head, *nx; l; l = nx) {
        nx = l->next;
        struct ns_held *e = l->data;
        if (e->c != c) continue;
        held_free(e);
        g_queue_delete_link(&held_q, l);
    }
    close(c->fd);
    tbbt_recmark_free(&c->rm);
    g_free(c->in), g_free(c->out), g_free(c);
}

/* Serves readable/writable events on c. Returns 0, or -1 when it is to
 * be dropped (closed by the peer, broken, or a protocol error). */
static int service(int ep, struct ns_conn *c, uint32_t events) {
    if (events & (EPOLLIN | EPOLLHUP | EPOLLERR)) {
        for (int i = 0; i < 16; i++) {
            grow(&c->in, &c->incap, c->inlen + 65536);
            ssize_t r = read(c->fd, c->in + c->inlen, c->incap - c->inlen);
            if (r == 0) return -1;
            if (r < 0) {
                if (errno == EAGAIN || errno == EINTR) break;
                return -1;
            }
            c->inlen += (size_t)r;
            bytes_in += (uint64_t)r;
            reads++;
            if (consume(c) < 0) return -1;
            if ((size_t)r < c->incap - c->inlen) break;
        }
    }
    if (flush(c) < 0) return -1;
    if (c->want_out != (c->outoff < c->outlen) || c->outlen - c->outoff >= NS_OUT_HIGH) rearm(ep, c);
    return 0;
}

/* Opens the listening socket on 127.0.0.1:port. Returns it, or -1. */
static int listen_on(int port) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(fd, 128) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Accepts every pending connection on lfd into the epoll set. */
static void accept_all(int ep, int lfd) {
    for (;;) {
        int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) return;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        struct ns_conn *c = g_new0(struct ns_conn, 1);
        c->fd = fd;
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
        epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e);
    }
}

/* Runs the held calls that are due (now or before), in the order they
 * were held: each reply is put to its connection's output, logged,
 * applied to the names, and written. A connection that breaks is
 * dropped. */
static void release_due(int ep) {
    double now = tbbt_now_s();
    struct ns_held *e;
    while ((e = g_queue_peek_head(&held_q)) && e->due <= now) {
        g_queue_pop_head(&held_q);
        struct ns_conn *c = e->c;
        run_call(c, e->msg, e->len, e->h);
        held_free(e);
        if (flush(c) < 0) {
            epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
            drop(c);
        } else if (c->want_out != (c->outoff < c->outlen)) {
            rearm(ep, c);
        }
    }
}

/* Milliseconds epoll may wait: 100 at most, less when a held reply is
 * due sooner. */
static int wait_ms(void) {
    struct ns_held *e = g_queue_peek_head(&held_q);
    if (!e) return 100;
    double ms = (e->due - tbbt_now_s()) * 1000.0 + 1;
    return ms <= 0 ? 0 : ms >= 100 ? 100 : (int)ms;
}

/* Checks the options and sets up what they ask for (the delayed
 * procedure, the name table, the log). Returns 0, or -1 with a message
 * in err. */
static int setup_opts(char *err, size_t errlen) {
    if (opt.port < 1 || opt.port > 65535 || opt.read_max < 0 || opt.read_max > (int)sizeof(zeros) ||
        opt.seconds < 0 || opt.delay_ms < 0 || opt.delay_ms > 60000) {
        snprintf(err, errlen, "--port 1..65535, --read-max 0..65536, --delay-ms 0..60000");
        return -1;
    }
    if (opt.delay_proc) {
        int op = tbbt_op_by_name(opt.delay_proc);
        if (op < 0 || (delay_proc = tbbt_op_to_wire((enum tbbt_op)op, 3)) < 0) {
            snprintf(err, errlen, "--delay-proc %s: not an NFSv3 procedure", opt.delay_proc);
            return -1;
        }
    }
    if (opt.drop_proc) {
        int op = tbbt_op_by_name(opt.drop_proc);
        if (op < 0 || (drop_proc = tbbt_op_to_wire((enum tbbt_op)op, 3)) < 0 || opt.drop_count < 0) {
            snprintf(err, errlen, "--drop-proc %s: not an NFSv3 procedure (or --drop-count < 0)",
                     opt.drop_proc);
            return -1;
        }
        dropped = g_hash_table_new(g_direct_hash, g_direct_equal);
    }
    if (opt.names)
        gone = g_hash_table_new_full(g_bytes_hash, g_bytes_equal, (GDestroyNotify)g_bytes_unref, NULL);
    if (opt.log && !(log_fp = fopen(opt.log, "w"))) {
        snprintf(err, errlen, "%s: %s", opt.log, strerror(errno));
        return -1;
    }
    if (log_fp) setvbuf(log_fp, NULL, _IOLBF, 0);
    return 0;
}

int main(int argc, char **argv) {
    GOptionContext *ctx = g_option_context_new("- a minimal NFSv3 responder, for benchmarks only");
    g_option_context_add_main_entries(ctx, ns_entries, NULL);
    GError *ge = NULL;
    int ok = g_option_context_parse(ctx, &argc, &argv, &ge);
    g_option_context_free(ctx);
    char err[256] = "no arguments";
    t0 = tbbt_now_s();
    if (!ok || argc != 1 || setup_opts(err, sizeof(err)) < 0) {
        fprintf(stderr, "tbbt-nullserver: %s (try --help)\n", ge ? ge->message : err);
        return 2;
    }
    printf("MINIMAL RESPONDER FOR BENCHMARKS ONLY: tbbt-nullserver on 127.0.0.1:%d (NFSv3, TCP)\n", opt.port);
    fflush(stdout);
    int lfd = listen_on(opt.port);
    if (lfd < 0) {
        fprintf(stderr, "tbbt-nullserver: 127.0.0.1:%d: %s\n", opt.port, strerror(errno));
        return 1;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    signal(SIGPIPE, SIG_IGN);
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event le = {.events = EPOLLIN, .data.ptr = NULL};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &le);
    double end = opt.seconds > 0 ? tbbt_now_s() + opt.seconds : 0;
    struct epoll_event evs[64];
    while (!stop && (!end || tbbt_now_s() < end)) {
        int n = epoll_wait(ep, evs, 64, wait_ms());
        for (int i = 0; i < n; i++) {
            struct ns_conn *c = evs[i].data.ptr;
            if (!c) {
                accept_all(ep, lfd);
                continue;
            }
            if (service(ep, c, evs[i].events) < 0) {
                epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
                drop(c);
            }
        }
        release_due(ep);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
                 ru.ru_stime.tv_usec / 1e6;
    printf("tbbt-nullserver: %llu calls answered, %llu reads (%.2f calls per read), %llu bytes in, %llu out, "
           "CPU %.3f s\n",
           (unsigned long long)calls, (unsigned long long)reads, reads ? (double)calls / (double)reads : 0,
           (unsigned long long)bytes_in, (unsigned long long)bytes_out, cpu);
    g_queue_clear_full(&held_q, (GDestroyNotify)held_free);
    if (gone) g_hash_table_destroy(gone);
    if (log_fp) fclose(log_fp);
    return 0;
}
