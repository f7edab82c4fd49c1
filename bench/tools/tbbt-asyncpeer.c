/* tbbt-asyncpeer: the peer client bench/play.sh sets beside tbbt-play: the
 * same records' calls issued through libnfs's raw asynchronous API
 * (rpc_nfs3_*_async), as a plain asynchronous client would, with up to
 * --depth requests in flight.
 *
 *   tbbt-asyncpeer [options] TRACE.tbbt SERVER:/EXPORT
 *
 * Records go in trace order; the only dependency kept is "a handle must
 * be known": live handles come from the manifest (tbbt-init's, as the
 * player's) and from LOOKUP, CREATE, MKDIR, SYMLINK and MKNOD replies (the
 * record's newobj, as the player learns them). A record that names an
 * object whose handle is unknown waits when a call in flight will reveal
 * it (its newobj), and is skipped and counted otherwise. Nothing else is
 * ordered: no locks, no timestamps. Readdir cookies are translated like
 * the player's (the trace's last cookie of a listing -> the live one);
 * WRITE data is a fixed pseudo-random buffer; credentials are each
 * record's uid/gid (AUTH_SYS, set on the connection when they change).
 * Connections: one per traced client (as tbbt-play's default), or
 * --connections N shared by xid. All in one thread and one poll() loop.
 *
 * Prints one line (records, sent, replies, status matches, skipped,
 * ops/s, CPU per op) and, with --json, {"tool","depth","connections",
 * "totals":{records,sent,replies,matched,mismatched,skipped,stalls,
 * rpc_errors,wall_s,cpu_s,ops_per_s},"outstanding":{mean,mean_at_send}}
 * (ops_per_s = replies / wall, wall from the first call to the last reply,
 * as tbbt-play's; outstanding: calls out, time-weighted over the wall, the
 * seconds each call was out summed, and just after each call went, itself
 * counted: tbbt-play's load.replay.outstanding_mean and outstanding.mean).
 * Exit: 0 done, 1 failed (files, server, timeout), 2 bad usage. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include <glib.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>

#include "outfile.h"
#include "clock.h"
#include "manifest.h"
#include "nfsconn.h"
#include "nfsenc.h"
#include "recfile.h"
#include "rng.h"

#define AP_MAX_CONN 64
#define AP_NAME (TBBT_ENC_NAME_MAX + 1)
#define AP_PAYLOAD (1u << 20)

struct ap_cli {
    gint depth, connections, nfsport, clone, timeout;
    gint64 limit;
    gchar *manifest, *json;
    gboolean quiet;
};

static struct ap_cli cli = {.depth = 64, .timeout = 30};

/* The options, declared once: parsing and --help both come from here. */
static GOptionEntry ap_entries[] = {
    {"depth", 'd', 0, G_OPTION_ARG_INT, &cli.depth, "Requests in flight at most (default 64)", "N"},
    {"connections", 'c', 0, G_OPTION_ARG_INT, &cli.connections,
     "TCP connections (default: one per traced client)", "N"},
    {"limit", 0, 0, G_OPTION_ARG_INT64, &cli.limit, "The first N records only", "N"},
    {"manifest", 'm', 0, G_OPTION_ARG_FILENAME, &cli.manifest,
     "tbbt-init's manifest (default: the trace's name with .manifest)", "FILE"},
    {"clone", 0, 0, G_OPTION_ARG_INT, &cli.clone, "The manifest's clone (default 0)", "I"},
    {"nfs-port", 0, 0, G_OPTION_ARG_INT, &cli.nfsport, "NFS port (default: ask the portmapper)", "PORT"},
    {"timeout", 't', 0, G_OPTION_ARG_INT, &cli.timeout, "Seconds without a reply before giving up", "SEC"},
    {"json", 'j', 0, G_OPTION_ARG_FILENAME, &cli.json, "Write the figures as one JSON document", "FILE"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &cli.quiet, "Print only errors", NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

/* A readdir position: the trace's last cookie of a listing of dir, and
 * the live listing's cookie and verifier at that point. */
struct ap_ckey {
    tbbt_id dir;
    uint64_t cookie;
};
struct ap_cval {
    struct ap_ckey k;
    uint64_t cookie;
    char verf[NFS3_COOKIEVERFSIZE];
};

struct ap;

/* One request in flight (a slot of --depth, recycled via the free list). */
struct ap_call {
    struct ap *ap;
    struct ap_call *next_free;
    tbbt_id newobj; /* the object its reply reveals, 0 none */
    struct ap_ckey ck;
    int has_ck;
    uint8_t op;
    int32_t traced; /* the trace's status, -1 none */
    double sent_at; /* tbbt_now_s() when it was queued */
};

/* One connection and the credentials it sends now. */
struct ap_conn {
    struct rpc_context *rpc;
    uint32_t uid, gid;
};

struct ap {
    struct tbbt_nfs_server server;
    struct ap_conn conn[AP_MAX_CONN];
    int nconn;
    GHashTable *client_conn; /* endpoint bytes -> index + 1 */
    GHashTable *fh;          /* id -> struct tbbt_fh */
    GHashTable *pending;     /* id -> calls in flight that reveal it */
    GHashTable *cookies;     /* struct ap_ckey -> struct ap_cval */
    struct ap_call *calls, *free_calls;
    uint64_t inflight;
    double now;         /* tbbt_now_s() after the poll whose replies are being handled */
    double out_area;    /* sum over calls of the seconds each was out: time-weighted outstanding x wall */
    double out_at_send; /* sum over calls of the calls out just after each went, itself counted */
    uint64_t records, sent, replies, matched, mismatched, skipped, stalls, rpc_errors;
    char *payload;
    char err[512];
};

static double cpu_s(void) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           ru.ru_stime.tv_usec / 1e6;
}

/* ---- handles and cookies ---- */

static guint ckey_hash(gconstpointer p) {
    const struct ap_ckey *k = p;
    return g_int64_hash(&k->dir) ^ (guint)(k->cookie * 0x9e3779b97f4a7c15ull >> 32);
}

static gboolean ckey_eq(gconstpointer a, gconstpointer b) {
    const struct ap_ckey *x = a, *y = b;
    return x->dir == y->dir && x->cookie == y->cookie;
}

static guint ep_hash(gconstpointer p) {
    const struct tbbt_endpoint *e = p;
    guint h = e->family * 31u + e->port;
    for (int i = 0; i < 16; i++)
        h = h * 31u + e->addr[i];
    return h;
}

static gboolean ep_eq(gconstpointer x, gconstpointer y) {
    const struct tbbt_endpoint *a = x, *b = y;
    return a->family == b->family && a->port == b->port && !memcmp(a->addr, b->addr, 16);
}

/* Remembers id's live handle (copied). */
static void learn(struct ap *a, tbbt_id id, const void *data, uint32_t len) {
    if (len > TBBT_FH_MAX) return;
    struct tbbt_fh *f = g_hash_table_lookup(a->fh, &id);
    if (!f) {
        tbbt_id *k = g_new(tbbt_id, 1);
        *k = id;
        f = g_new(struct tbbt_fh, 1);
        g_hash_table_insert(a->fh, k, f);
    }
    f->len = len;
    memcpy(f->data, data, len);
}

/* id's live handle as libnfs wants it (pointing into the table), or a
 * zero-length one when unknown (never sent: issue checks first). */
static nfs_fh3 fh_of(struct ap *a, tbbt_id id) {
    struct tbbt_fh *f = g_hash_table_lookup(a->fh, &id);
    nfs_fh3 h = {{f ? f->len : 0, f ? (char *)f->data : NULL}};
    return h;
}

/* Loads clone's handles from the manifest. Returns 0, or -1 with a.err. */
static int load_manifest(struct ap *a, const char *path, int clone) {
    struct tbbt_mfr *r = tbbt_mfr_open(path, a->err, sizeof(a->err));
    if (!r) return -1;
    struct tbbt_mf_entry m;
    int rc;
    while ((rc = tbbt_mfr_next(r, &m, a->err, sizeof(a->err))) == 1)
        if ((int)m.clone == clone) learn(a, m.id, m.fh, m.fhlen);
    tbbt_mfr_close(r);
    if (rc == 0 && !g_hash_table_size(a->fh)) {
        snprintf(a->err, sizeof(a->err), "%s: no object of clone %d", path, clone);
        rc = -1;
    }
    return rc;
}

/* ---- replies ---- */

/* The handle a successful reply of op reveals, or NULL. */
static const nfs_fh3 *revealed(uint8_t op, void *data) {
    const post_op_fh3 *p = NULL;
    switch (op) {
    case TBBT_OP_LOOKUP: return &((LOOKUP3res *)data)->LOOKUP3res_u.resok.object;
    case TBBT_OP_CREATE: p = &((CREATE3res *)data)->CREATE3res_u.resok.obj; break;
    case TBBT_OP_MKDIR: p = &((MKDIR3res *)data)->MKDIR3res_u.resok.obj; break;
    case TBBT_OP_SYMLINK: p = &((SYMLINK3res *)data)->SYMLINK3res_u.resok.obj; break;
    case TBBT_OP_MKNOD: p = &((MKNOD3res *)data)->MKNOD3res_u.resok.obj; break;
    default: return NULL;
    }
    return p->handle_follows ? &p->post_op_fh3_u.handle : NULL;
}

/* Remembers where a successful listing ended (its last entry's cookie). */
static void learn_cookie(struct ap *a, const struct ap_call *c, void *data) {
    uint64_t last = 0;
    const char *verf;
    int any = 0;
    if (c->op == TBBT_OP_READDIR) {
        READDIR3resok *k = &((READDIR3res *)data)->READDIR3res_u.resok;
        for (entry3 *e = k->reply.entries; e; e = e->nextentry)
            last = e->cookie, any = 1;
        verf = k->cookieverf;
    } else {
        READDIRPLUS3resok *k = &((READDIRPLUS3res *)data)->READDIRPLUS3res_u.resok;
        for (entryplus3 *e = k->reply.entries; e; e = e->nextentry)
            last = e->cookie, any = 1;
        verf = k->cookieverf;
    }
    if (!any) return;
    struct ap_cval *v = g_new(struct ap_cval, 1);
    v->k = c->ck;
    v->cookie = last;
    memcpy(v->verf, verf, NFS3_COOKIEVERFSIZE);
    g_hash_table_replace(a->cookies, &v->k, v);
}

/* Drops one "in flight reveals id". */
static void unpend(struct ap *a, tbbt_id id) {
    gpointer v = g_hash_table_lookup(a->pending, &id);
    if (!v) return;
    uintptr_t n = (uintptr_t)v - 1;
    if (n)
        g_hash_table_insert(a->pending, g_memdup2(&id, sizeof(id)), (gpointer)(n));
    else
        g_hash_table_remove(a->pending, &id);
}

/* libnfs's callback for every call: status against the trace, handles
 * and cookies learnt, the slot back on the free list. */
static void on_reply(struct rpc_context *rpc, int status, void *data, void *priv) {
    (void)rpc;
    struct ap_call *c = priv;
    struct ap *a = c->ap;
    a->inflight--;
    a->replies++;
    a->out_area += a->now - c->sent_at;
    if (status != RPC_STATUS_SUCCESS) {
        a->rpc_errors++, a->mismatched++;
    } else {
        int st = c->op == TBBT_OP_NULL ? 0 : (int)*(const nfsstat3 *)data; /* every v3 result starts so */
        if (st == (c->traced < 0 ? 0 : c->traced))
            a->matched++;
        else
            a->mismatched++;
        const nfs_fh3 *h = st == 0 && c->newobj ? revealed(c->op, data) : NULL;
        if (h) learn(a, c->newobj, h->data.data_val, h->data.data_len);
        if (st == 0 && c->has_ck) learn_cookie(a, c, data);
    }
    if (c->newobj) unpend(a, c->newobj);
    c->next_free = a->free_calls;
    a->free_calls = c;
}

/* ---- calls ---- */

/* Copies string field s of r NUL-terminated into buf (AP_NAME bytes). */
static char *cstr(const struct tbbt_rec *r, struct tbbt_str s, char *buf) {
    size_t n = s.len < AP_NAME - 1 ? s.len : AP_NAME - 1;
    memcpy(buf, tbbt_rec_str(r, s), n);
    buf[n] = 0;
    return buf;
}

static nfstime3 ntime(int64_t t) {
    nfstime3 x = {(uint32_t)(t / 1000000000), (uint32_t)(t % 1000000000)};
    return x;
}

/* The attributes a call sets, from the record's SET_* fields. */
static sattr3 sattr(const struct tbbt_rec *r) {
    sattr3 s;
    memset(&s, 0, sizeof(s));
    if (tbbt_rec_has(r, TBBT_F_SET_MODE)) s.mode.set_it = 1, s.mode.set_mode3_u.mode = r->set_mode;
    if (tbbt_rec_has(r, TBBT_F_SET_UID)) s.uid.set_it = 1, s.uid.set_uid3_u.uid = r->set_uid;
    if (tbbt_rec_has(r, TBBT_F_SET_GID)) s.gid.set_it = 1, s.gid.set_gid3_u.gid = r->set_gid;
    if (tbbt_rec_has(r, TBBT_F_SET_SIZE)) s.size.set_it = 1, s.size.set_size3_u.size = r->set_size;
    if (tbbt_rec_has(r, TBBT_F_SET_ATIME)) {
        s.atime.set_it = r->set_atime == TBBT_TIME_SERVER ? SET_TO_SERVER_TIME : SET_TO_CLIENT_TIME;
        if (r->set_atime != TBBT_TIME_SERVER) s.atime.set_atime_u.atime = ntime(r->set_atime);
    }
    if (tbbt_rec_has(r, TBBT_F_SET_MTIME)) {
        s.mtime.set_it = r->set_mtime == TBBT_TIME_SERVER ? SET_TO_SERVER_TIME : SET_TO_CLIENT_TIME;
        if (r->set_mtime != TBBT_TIME_SERVER) s.mtime.set_mtime_u.mtime = ntime(r->set_mtime);
    }
    return s;
}

/* The connection for r (its traced client's, made on first use, or one
 * of --connections by xid), with r's credentials set. Returns it, or NULL
 * with a.err. */
static struct ap_conn *conn_for(struct ap *a, const struct tbbt_rec *r) {
    int i;
    if (cli.connections > 0) {
        i = (int)(r->xid % (uint32_t)a->nconn);
    } else {
        i = GPOINTER_TO_INT(g_hash_table_lookup(a->client_conn, &r->client)) - 1;
        if (i < 0 && a->nconn == AP_MAX_CONN) i = (int)(g_hash_table_size(a->client_conn) % AP_MAX_CONN);
        if (i < 0) {
            i = a->nconn;
            a->conn[i].rpc =
                tbbt_nfs_connect(&a->server, 10, r->cred.uid, r->cred.gid, a->err, sizeof(a->err));
            if (!a->conn[i].rpc) return NULL;
            a->conn[i].uid = r->cred.uid, a->conn[i].gid = r->cred.gid;
            a->nconn++;
            g_hash_table_insert(a->client_conn, g_memdup2(&r->client, sizeof(r->client)),
                                GINT_TO_POINTER(i + 1));
        }
    }
    struct ap_conn *c = &a->conn[i];
    if (c->uid != r->cred.uid || c->gid != r->cred.gid) {
        tbbt_nfs_set_cred(c->rpc, r->cred.uid, r->cred.gid);
        c->uid = r->cred.uid, c->gid = r->cred.gid;
    }
    return c;
}

/* Queues a READDIR or READDIRPLUS of r's directory: the live position
 * for the trace's cookie (the listing's start when never reached), the
 * record's counts. Returns the rpc_nfs3_* result. */
static int queue_readdir(struct ap *a, struct rpc_context *rpc, const struct tbbt_rec *r, struct ap_call *k) {
    struct ap_ckey key = {r->obj, tbbt_rec_has(r, TBBT_F_COOKIE) ? r->cookie : 0};
    const struct ap_cval *v = key.cookie ? g_hash_table_lookup(a->cookies, &key) : NULL;
    if (r->nentries) { /* where this listing ends in the trace: learnt from the reply */
        k->ck = (struct ap_ckey){r->obj, r->entries[r->nentries - 1].cookie};
        k->has_ck = 1;
    }
    uint32_t max = tbbt_rec_has(r, TBBT_F_MAXCOUNT) ? r->maxcount
                   : tbbt_rec_has(r, TBBT_F_COUNT)  ? r->count
                                                    : TBBT_ENC_DIR_COUNT;
    if (r->op == TBBT_OP_READDIR) {
        READDIR3args x = {.dir = fh_of(a, r->obj), .cookie = v ? v->cookie : 0, .count = max};
        memcpy(x.cookieverf, v ? v->verf : "\0\0\0\0\0\0\0", NFS3_COOKIEVERFSIZE);
        return rpc_nfs3_readdir_async(rpc, on_reply, &x, k);
    }
    READDIRPLUS3args x = {.dir = fh_of(a, r->obj), .cookie = v ? v->cookie : 0, .maxcount = max};
    x.dircount = tbbt_rec_has(r, TBBT_F_DIRCOUNT) ? r->dircount : max / 8;
    memcpy(x.cookieverf, v ? v->verf : "\0\0\0\0\0\0\0", NFS3_COOKIEVERFSIZE);
    return rpc_nfs3_readdirplus_async(rpc, on_reply, &x, k);
}

/* Queues r's call on rpc with callback data k. Returns the rpc_nfs3_*
 * result (0 queued, below 0 not), or 1 for an op with no NFSv3 call. */
static int queue_call(struct ap *a, struct rpc_context *rpc, const struct tbbt_rec *r, struct ap_call *k) {
    static char n1[AP_NAME], n2[AP_NAME], tg[AP_NAME];
    switch (r->op) {
    case TBBT_OP_NULL: return rpc_nfs3_null_async(rpc, on_reply, k);
    case TBBT_OP_GETATTR: {
        GETATTR3args x = {.object = fh_of(a, r->obj)};
        return rpc_nfs3_getattr_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_SETATTR: {
        SETATTR3args x = {.object = fh_of(a, r->obj), .new_attributes = sattr(r)};
        if (tbbt_rec_has(r, TBBT_F_GUARD))
            x.guard.check = 1, x.guard.sattrguard3_u.obj_ctime = ntime(r->guard);
        return rpc_nfs3_setattr_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_LOOKUP: {
        LOOKUP3args x = {.what = {fh_of(a, r->dir), cstr(r, r->name, n1)}};
        return rpc_nfs3_lookup_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_ACCESS: {
        ACCESS3args x = {fh_of(a, r->obj), tbbt_rec_has(r, TBBT_F_ACCESS) ? r->access : TBBT_ENC_ACCESS};
        return rpc_nfs3_access_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_READLINK: {
        READLINK3args x = {fh_of(a, r->obj)};
        return rpc_nfs3_readlink_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_READ: {
        READ3args x = {fh_of(a, r->obj), r->offset, r->count};
        return rpc_nfs3_read_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_WRITE: {
        WRITE3args x = {.file = fh_of(a, r->obj), .offset = r->offset, .count = r->count};
        x.count = x.count > AP_PAYLOAD ? AP_PAYLOAD : x.count;
        x.stable = tbbt_rec_has(r, TBBT_F_STABLE) ? (stable_how)r->stable : FILE_SYNC;
        x.data.data_len = x.count, x.data.data_val = a->payload;
        return rpc_nfs3_write_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_CREATE: {
        CREATE3args x = {.where = {fh_of(a, r->dir), cstr(r, r->name, n1)}};
        x.how.mode = tbbt_rec_has(r, TBBT_F_CREATEHOW) ? (createmode3)r->createhow : UNCHECKED;
        if (x.how.mode == EXCLUSIVE) {
            uint64_t v = a->sent * 0x9e3779b97f4a7c15ull + 1;
            memcpy(x.how.createhow3_u.verf, &v, sizeof(v));
        } else {
            x.how.createhow3_u.obj_attributes = sattr(r);
        }
        return rpc_nfs3_create_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_MKDIR: {
        MKDIR3args x = {{fh_of(a, r->dir), cstr(r, r->name, n1)}, sattr(r)};
        return rpc_nfs3_mkdir_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_SYMLINK: {
        SYMLINK3args x = {{fh_of(a, r->dir), cstr(r, r->name, n1)}, {sattr(r), cstr(r, r->target, tg)}};
        return rpc_nfs3_symlink_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_MKNOD: {
        MKNOD3args x = {.where = {fh_of(a, r->dir), cstr(r, r->name, n1)}};
        x.what.type = (ftype3)r->nodetype;
        if (x.what.type == NF3CHR || x.what.type == NF3BLK) {
            x.what.mknoddata3_u.chr_device.dev_attributes = sattr(r);
            x.what.mknoddata3_u.chr_device.spec.specdata1 = (uint32_t)(r->rdev >> 32);
            x.what.mknoddata3_u.chr_device.spec.specdata2 = (uint32_t)r->rdev;
        } else {
            x.what.mknoddata3_u.pipe_attributes = sattr(r);
        }
        return rpc_nfs3_mknod_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_REMOVE: {
        REMOVE3args x = {{fh_of(a, r->dir), cstr(r, r->name, n1)}};
        return rpc_nfs3_remove_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_RMDIR: {
        RMDIR3args x = {{fh_of(a, r->dir), cstr(r, r->name, n1)}};
        return rpc_nfs3_rmdir_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_RENAME: {
        RENAME3args x = {{fh_of(a, r->dir), cstr(r, r->name, n1)},
                         {fh_of(a, r->dir2), cstr(r, r->name2, n2)}};
        return rpc_nfs3_rename_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_LINK: {
        LINK3args x = {fh_of(a, r->obj), {fh_of(a, r->dir), cstr(r, r->name, n1)}};
        return rpc_nfs3_link_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_READDIR:
    case TBBT_OP_READDIRPLUS: return queue_readdir(a, rpc, r, k);
    case TBBT_OP_STATFS:
    case TBBT_OP_FSSTAT: {
        FSSTAT3args x = {fh_of(a, r->obj)};
        return rpc_nfs3_fsstat_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_FSINFO: {
        FSINFO3args x = {fh_of(a, r->obj)};
        return rpc_nfs3_fsinfo_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_PATHCONF: {
        PATHCONF3args x = {fh_of(a, r->obj)};
        return rpc_nfs3_pathconf_async(rpc, on_reply, &x, k);
    }
    case TBBT_OP_COMMIT: {
        COMMIT3args x = {fh_of(a, r->obj), r->offset, r->count};
        return rpc_nfs3_commit_async(rpc, on_reply, &x, k);
    }
    default: return 1;
    }
}

/* Issues r: 1 queued, 0 waits (a handle a call in flight will reveal),
 * -1 skipped (a handle nobody revealed, or an op with no NFSv3 call),
 * -2 failed (connection; a.err). */
static int issue(struct ap *a, const struct tbbt_rec *r) {
    tbbt_id ids[3];
    unsigned n = tbbt_nfs_call_ids(r, ids);
    for (unsigned i = 0; i < n; i++)
        if (!g_hash_table_contains(a->fh, &ids[i])) {
            if (g_hash_table_contains(a->pending, &ids[i])) return 0;
            a->skipped++;
            return -1;
        }
    struct ap_conn *c = conn_for(a, r);
    if (!c) return -2;
    struct ap_call *k = a->free_calls;
    a->free_calls = k->next_free;
    k->op = r->op, k->traced = r->status, k->has_ck = 0;
    k->newobj = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0;
    int rc = queue_call(a, c->rpc, r, k);
    if (rc != 0) {
        k->next_free = a->free_calls;
        a->free_calls = k;
        if (rc > 0) {
            a->skipped++;
            return -1;
        }
        snprintf(a->err, sizeof(a->err), "cannot queue a call: %s", rpc_get_error(c->rpc));
        return -2;
    }
    if (k->newobj) {
        uintptr_t p = (uintptr_t)g_hash_table_lookup(a->pending, &k->newobj);
        g_hash_table_insert(a->pending, g_memdup2(&k->newobj, sizeof(k->newobj)), (gpointer)(p + 1));
    }
    a->inflight++, a->sent++;
    k->sent_at = tbbt_now_s();
    a->out_at_send += (double)a->inflight;
    return 1;
}

/* Services every connection once (poll up to 100 ms). Returns 0, or -1
 * with a.err when a connection failed. */
static int service(struct ap *a) {
    struct pollfd p[AP_MAX_CONN];
    for (int i = 0; i < a->nconn; i++)
        p[i] = (struct pollfd){.fd = rpc_get_fd(a->conn[i].rpc),
                               .events = (short)rpc_which_events(a->conn[i].rpc)};
    if (poll(p, (nfds_t)a->nconn, 100) < 0 && errno != EINTR) {
        snprintf(a->err, sizeof(a->err), "poll: %s", strerror(errno));
        return -1;
    }
    a->now = tbbt_now_s(); /* the replies this pass reads came by now */
    for (int i = 0; i < a->nconn; i++)
        if (p[i].revents && rpc_service(a->conn[i].rpc, p[i].revents) < 0) {
            snprintf(a->err, sizeof(a->err), "connection %d: %s", i, rpc_get_error(a->conn[i].rpc));
            return -1;
        }
    return 0;
}

/* Replays the trace. Returns 0, or -1 with a.err. Sets *wall (first call
 * to last reply). */
static int run(struct ap *a, struct tbbt_recreader *rd, double *wall) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    uint64_t limit = cli.limit > 0 ? (uint64_t)cli.limit : UINT64_MAX;
    int have = 0, rc = 0;
    double t0 = 0, last_reply = tbbt_now_s();
    for (;;) {
        if (!have && a->records < limit) {
            int k = tbbt_recr_next(rd, &r);
            if (k < 0) {
                snprintf(a->err, sizeof(a->err), "%s", tbbt_recr_error(rd));
                rc = -1;
                break;
            }
            have = k, a->records += (uint64_t)k;
            if (have && !t0) t0 = tbbt_now_s();
        }
        if (have && a->inflight < (uint64_t)cli.depth) {
            int k = issue(a, &r);
            if (k == -2) {
                rc = -1;
                break;
            }
            if (k != 0) {
                have = 0;
                continue;
            }
            a->stalls++;
        }
        if (!have && !a->inflight) break;
        uint64_t before = a->replies;
        if (service(a) < 0) {
            rc = -1;
            break;
        }
        double now = tbbt_now_s();
        if (a->replies != before) last_reply = now;
        if (a->inflight && now - last_reply > cli.timeout) {
            snprintf(a->err, sizeof(a->err), "no reply in %d s (%llu in flight)", cli.timeout,
                     (unsigned long long)a->inflight);
            rc = -1;
            break;
        }
    }
    *wall = t0 ? tbbt_now_s() - t0 : 0;
    tbbt_rec_free(&r);
    return rc;
}

/* Prints the figures, and writes the JSON document when asked. Returns 0,
 * or -1 when the file cannot be written. */
static int report(const struct ap *a, double wall, double cpu) {
    double ops = wall > 0 ? (double)a->replies / wall : 0;
    double out_mean = wall > 0 ? a->out_area / wall : 0,
           out_send = a->sent ? a->out_at_send / (double)a->sent : 0;
    if (!cli.quiet)
        printf(
            "tbbt-asyncpeer: %llu records, %llu sent, %llu replies, %llu matched, %llu skipped (no handle), "
            "%llu waits; %.0f ops/s, CPU %.3f s (%.2f us per request), depth %d, %d connections; "
            "outstanding mean %.1f (%.1f at a send)\n",
            (unsigned long long)a->records, (unsigned long long)a->sent, (unsigned long long)a->replies,
            (unsigned long long)a->matched, (unsigned long long)a->skipped, (unsigned long long)a->stalls,
            ops, cpu, a->sent ? cpu * 1e6 / (double)a->sent : 0, cli.depth, a->nconn, out_mean, out_send);
    if (!cli.json) return 0;
    GString *j = g_string_new(NULL);
    g_string_append_printf(
        j,
        "{\"tool\":\"tbbt-asyncpeer\",\"depth\":%d,\"connections\":%d,\"totals\":{\"records\":%llu,"
        "\"sent\":%llu,\"replies\":%llu,\"matched\":%llu,\"mismatched\":%llu,\"skipped\":%llu,"
        "\"stalls\":%llu,\"rpc_errors\":%llu,\"wall_s\":%.6f,\"cpu_s\":%.6f,\"ops_per_s\":%.3f},"
        "\"outstanding\":{\"mean\":%.3f,\"mean_at_send\":%.3f}}\n",
        cli.depth, a->nconn, (unsigned long long)a->records, (unsigned long long)a->sent,
        (unsigned long long)a->replies, (unsigned long long)a->matched, (unsigned long long)a->mismatched,
        (unsigned long long)a->skipped, (unsigned long long)a->stalls, (unsigned long long)a->rpc_errors,
        wall, cpu, ops, out_mean, out_send);
    return tbbt_out_put("tbbt-asyncpeer", cli.json, j);
}

/* Sets up the tables, the call slots and the payload. */
static void setup(struct ap *a) {
    a->client_conn = g_hash_table_new_full(ep_hash, ep_eq, g_free, NULL);
    a->fh = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    a->pending = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    a->cookies = g_hash_table_new_full(ckey_hash, ckey_eq, NULL, g_free);
    a->calls = g_new0(struct ap_call, (gsize)cli.depth);
    for (int i = 0; i < cli.depth; i++) {
        a->calls[i].ap = a;
        a->calls[i].next_free = a->free_calls;
        a->free_calls = &a->calls[i];
    }
    a->payload = g_malloc(AP_PAYLOAD);
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (uint32_t i = 0; i < AP_PAYLOAD; i += 8) { /* incompressible, as the player's */
        tbbt_xorshift64(&x);
        memcpy(a->payload + i, &x, 8);
    }
}

/* Frees what setup made and closes the connections. */
static void teardown(struct ap *a) {
    for (int i = 0; i < a->nconn; i++)
        rpc_destroy_context(a->conn[i].rpc);
    g_hash_table_destroy(a->client_conn), g_hash_table_destroy(a->fh);
    g_hash_table_destroy(a->pending), g_hash_table_destroy(a->cookies);
    g_free(a->calls), g_free(a->payload);
}

int main(int argc, char **argv) {
    GOptionContext *ctx =
        g_option_context_new("TRACE.tbbt SERVER:/EXPORT - the same calls through libnfs, async");
    g_option_context_add_main_entries(ctx, ap_entries, NULL);
    GError *ge = NULL;
    int ok = g_option_context_parse(ctx, &argc, &argv, &ge);
    g_option_context_free(ctx);
    static struct ap a;
    if (!ok || argc != 3 || cli.depth < 1 || cli.depth > 65536 || cli.connections < 0 ||
        cli.connections > AP_MAX_CONN || cli.timeout < 1 || cli.limit < 0 ||
        tbbt_nfs_server_parse(argv[2], cli.nfsport, 0, &a.server, a.err, sizeof(a.err)) < 0) {
        fprintf(stderr, "tbbt-asyncpeer: %s (try --help)\n",
                ge         ? ge->message
                : a.err[0] ? a.err
                           : "expected TRACE.tbbt SERVER:/EXPORT; --depth 1..65536, --connections 0..64");
        return 2;
    }
    char *mf = cli.manifest;
    if (!mf) {
        size_t n = strlen(argv[1]);
        if (n > 5 && g_str_has_suffix(argv[1], ".tbbt")) n -= 5;
        mf = g_strdup_printf("%.*s.manifest", (int)n, argv[1]);
    }
    setup(&a);
    int rc = load_manifest(&a, mf, cli.clone);
    struct tbbt_recreader *rd = rc == 0 ? tbbt_recr_open(argv[1], a.err, sizeof(a.err)) : NULL;
    if (!rd) rc = -1;
    for (int i = 0; rc == 0 && i < cli.connections; i++, a.nconn++)
        if (!(a.conn[i].rpc = tbbt_nfs_connect(&a.server, 10, 0, 0, a.err, sizeof(a.err)))) rc = -1;
    double wall = 0, c0 = cpu_s();
    if (rc == 0) rc = run(&a, rd, &wall);
    double cpu = cpu_s() - c0;
    if (rc < 0) fprintf(stderr, "tbbt-asyncpeer: %s\n", a.err);
    if (rc == 0 && report(&a, wall, cpu) < 0) rc = -1;
    if (rd) tbbt_recr_close(rd);
    teardown(&a);
    if (mf != cli.manifest) g_free(mf);
    return rc < 0 ? 1 : 0;
}
