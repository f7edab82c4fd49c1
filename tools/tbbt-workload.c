/* tbbt-workload: a seeded, realistic mix of NFSv3 calls from several
 * concurrent clients, for making real captures to test and benchmark tbbt.
 *
 * Usage: tbbt-workload [options] nfs://HOST/EXPORT?nfsport=N&mountport=M
 *
 * Each client is its own TCP connection (MOUNT on the mount port, then NFS on
 * the NFS port, no portmapper), works in its own subtree DIR/cK of the export,
 * and sends its calls through AUTH_SYS with its own uid/gid (client K takes
 * pair K mod the --uids list), with a few calls under another pair. Every NFSv3
 * procedure is issued. The sequence of calls each client issues depends only
 * on the seed and the server's replies (which, for a fresh DIR, are the same
 * every run): the choice of the next call never depends on timing. Calls that
 * only read or write data are pipelined (--depth per client); calls that
 * change the namespace wait for the client's queue to drain and are waited
 * for, so the model of the tree that picks the next call stays exact.
 *
 * All clients run in one thread and one poll() loop over their sockets.
 * Exit: 0 done, 1 connection/timeout failure, 2 bad usage.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-mount.h>
#include <nfsc/libnfs-raw-nfs.h>

#include "nfs_ops.h"

#define WL_MAX_CLIENTS 64
#define WL_MAX_UIDS 16
#define WL_NPROC 22 /* NFSv3 procedures 0..21 */
#define WL_NAME 48

/* ---- options: declared once, in a table ---------------------------------- */

struct wl_opts {
    long clients, ops, seed, depth, max_io, timeout, quiet;
    const char *uids, *dir, *url;
};

enum wl_opt_type { WL_INT, WL_STR, WL_FLAG };

struct wl_option {
    const char *name;
    enum wl_opt_type type;
    size_t off;
    const char *def;
    long min, max;
    const char *help;
};

static const struct wl_option wl_options[] = {
    {"clients", WL_INT, offsetof(struct wl_opts, clients), "3", 1, WL_MAX_CLIENTS,
     "concurrent clients, one TCP connection each"},
    {"ops", WL_INT, offsetof(struct wl_opts, ops), "1000", 1, 1000000000L,
     "NFS calls in total, shared among the clients (set-up calls not counted)"},
    {"seed", WL_INT, offsetof(struct wl_opts, seed), "1", 0, 0x7fffffffL, "seed of the call sequence"},
    {"depth", WL_INT, offsetof(struct wl_opts, depth), "16", 1, 256,
     "outstanding data calls per client (namespace calls go one at a time)"},
    {"max-io", WL_INT, offsetof(struct wl_opts, max_io), "1048576", 512, 1048576,
     "largest READ/WRITE count in bytes"},
    {"timeout", WL_INT, offsetof(struct wl_opts, timeout), "30", 1, 3600,
     "seconds without any reply before giving up"},
    {"uids", WL_STR, offsetof(struct wl_opts, uids), "0:0,1000:1000,1001:1001", 0, 0,
     "AUTH_SYS uid:gid pairs, comma separated; client K uses pair K mod count"},
    {"dir", WL_STR, offsetof(struct wl_opts, dir), "tbbt-workload", 0, 0,
     "subdirectory of the export to work in (created; nothing outside it is touched)"},
    {"quiet", WL_FLAG, offsetof(struct wl_opts, quiet), "0", 0, 1, "print only the summary"},
};
#define WL_NOPTIONS (sizeof(wl_options) / sizeof(wl_options[0]))

/* Prints --help from the option table to f. */
static void wl_usage(FILE *f) {
    fprintf(f, "usage: tbbt-workload [options] nfs://HOST/EXPORT?nfsport=N&mountport=M\n");
    for (size_t i = 0; i < WL_NOPTIONS; i++) {
        const struct wl_option *o = &wl_options[i];
        fprintf(f, "  --%-10s %-6s %s (default %s)\n", o->name,
                o->type == WL_INT   ? "N"
                : o->type == WL_STR ? "TEXT"
                                    : "",
                o->help, o->def);
    }
}

/* Stores text as the value of option o in opts. Returns 0, or -1 with a
 * message in err when the value is not a number or is out of bounds. */
static int wl_opt_set(struct wl_opts *opts, const struct wl_option *o, const char *text, char *err,
                      size_t errlen) {
    char *p = (char *)opts + o->off;
    if (o->type == WL_STR) {
        *(const char **)p = text;
        return 0;
    }
    char *end;
    errno = 0;
    long v = strtol(text, &end, 0);
    if (errno || *text == '\0' || *end != '\0' || v < o->min || v > o->max) {
        snprintf(err, errlen, "--%s: '%s' is not a number in %ld..%ld", o->name, text, o->min, o->max);
        return -1;
    }
    *(long *)p = v;
    return 0;
}

/* Parses argv into opts (defaults first). Returns 0, 1 for --help, or -1 with
 * a message in err (unknown option, with a "did you mean" when close). */
static int wl_parse(int argc, char **argv, struct wl_opts *opts, char *err, size_t errlen) {
    memset(opts, 0, sizeof(*opts));
    for (size_t i = 0; i < WL_NOPTIONS; i++)
        if (wl_opt_set(opts, &wl_options[i], wl_options[i].def, err, errlen) < 0) return -1;
    for (int a = 1; a < argc; a++) {
        const char *arg = argv[a];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) return 1;
        if (strncmp(arg, "--", 2) != 0) {
            if (opts->url) {
                snprintf(err, errlen, "unexpected argument '%s'", arg);
                return -1;
            }
            opts->url = arg;
            continue;
        }
        const char *name = arg + 2, *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const struct wl_option *o = NULL;
        for (size_t i = 0; i < WL_NOPTIONS; i++)
            if (strlen(wl_options[i].name) == nlen && strncmp(wl_options[i].name, name, nlen) == 0)
                o = &wl_options[i];
        if (!o) {
            const char *hint = "";
            for (size_t i = 0; i < WL_NOPTIONS; i++)
                if (nlen >= 2 && strncmp(wl_options[i].name, name, 2) == 0) hint = wl_options[i].name;
            snprintf(err, errlen, "unknown option '%s'%s%s%s", arg, *hint ? " (did you mean --" : "", hint,
                     *hint ? "?)" : "");
            return -1;
        }
        const char *val = "1";
        if (o->type != WL_FLAG) {
            if (eq)
                val = eq + 1;
            else if (a + 1 < argc)
                val = argv[++a];
            else {
                snprintf(err, errlen, "--%s needs a value", o->name);
                return -1;
            }
        }
        if (wl_opt_set(opts, o, val, err, errlen) < 0) return -1;
    }
    if (!opts->url) {
        snprintf(err, errlen, "no server URL given");
        return -1;
    }
    return 0;
}

/* ---- server address --------------------------------------------------------- */

struct wl_url {
    char host[256], export[1024];
    int nfsport, mountport;
};

/* Parses nfs://HOST/PATH?nfsport=N&mountport=M (other keys ignored). Both
 * ports are required: the tool never asks a portmapper. 0 or -1 with err. */
static int wl_parse_url(const char *url, struct wl_url *u, char *err, size_t errlen) {
    memset(u, 0, sizeof(*u));
    if (strncmp(url, "nfs://", 6) != 0) goto bad;
    const char *h = url + 6, *slash = strchr(h, '/');
    if (!slash || slash == h || (size_t)(slash - h) >= sizeof(u->host)) goto bad;
    memcpy(u->host, h, (size_t)(slash - h));
    const char *q = strchr(slash, '?');
    size_t plen = q ? (size_t)(q - slash) : strlen(slash);
    if (plen >= sizeof(u->export)) goto bad;
    memcpy(u->export, slash, plen);
    for (const char *k = q; k && *k; k = strchr(k + 1, '&')) {
        k++;
        if (strncmp(k, "nfsport=", 8) == 0) u->nfsport = atoi(k + 8);
        if (strncmp(k, "mountport=", 10) == 0) u->mountport = atoi(k + 10);
        k--;
    }
    if (u->nfsport <= 0 || u->nfsport > 65535 || u->mountport <= 0 || u->mountport > 65535) {
        snprintf(err, errlen, "%s: nfsport= and mountport= are both required", url);
        return -1;
    }
    return 0;
bad:
    snprintf(err, errlen, "%s: not an nfs://HOST/EXPORT?nfsport=N&mountport=M URL", url);
    return -1;
}

/* ---- deterministic random numbers (splitmix64) ----------------------------- */

/* Returns the next 64-bit value of the generator state *s. */
static uint64_t wl_rand(uint64_t *s) {
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Returns a value uniform in [0, n) (n > 0). */
static uint64_t wl_below(uint64_t *s, uint64_t n) {
    return wl_rand(s) % n;
}

/* ---- the per-client model of its subtree ---------------------------------- */

enum wl_type { WL_FILE, WL_DIR, WL_LINK, WL_FIFO };

struct wl_obj {
    enum wl_type type;
    int live;
    int parent; /* index of the directory holding it; -1 for the client root */
    int nchild; /* live entries in it (directories) */
    uint64_t size;
    uint32_t fhlen;
    char fh[NFS3_FHSIZE];
    char name[WL_NAME];
};

struct wl_uid {
    uint32_t uid, gid;
};

struct wl_stats {
    uint64_t calls[WL_NPROC], ok[WL_NPROC], err[WL_NPROC];
};

struct wl_client {
    int id;
    struct rpc_context *rpc;
    uint64_t rng;
    struct wl_uid uid, alt;    /* main identity and an occasional other one */
    uint32_t cur_uid, cur_gid; /* identity of the AUTH now on rpc */
    struct wl_obj *obj;        /* obj[0] is the client root DIR/cK */
    int nobj, cap;
    int nlive[4]; /* live objects per enum wl_type */
    long todo;    /* calls still to issue */
    int inflight; /* calls sent and not answered */
    int barrier;  /* a namespace call is outstanding */
    long serial;  /* names made so far */
    int failed;   /* transport failure */
    struct wl_stats st;
};

struct wl_run {
    struct wl_opts o;
    struct wl_url url;
    struct wl_client cl[WL_MAX_CLIENTS];
    struct wl_uid uids[WL_MAX_UIDS];
    int nuids;
    char *payload; /* 2 MiB of seeded random bytes, write data is a slice */
    struct timespec last_reply;
};

/* One call in flight: what the reply must update in the model. */
struct wl_call {
    struct wl_client *c;
    int proc;
    int obj, obj2; /* model indices the call acts on (-1 none) */
    int newtype;   /* for create/mkdir/symlink/mknod/link: type of new entry */
    uint64_t size; /* setattr: new size (or UINT64_MAX) */
    char name[WL_NAME], name2[WL_NAME];
};

static struct wl_run *wl_g; /* for the reply callback's timestamp */

/* Reports an error on stderr and exits 1: used where going on is pointless. */
static void wl_die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "tbbt-workload: ");
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

/* Adds an object to c's model and returns its index (the array grows). */
static int wl_obj_add(struct wl_client *c, enum wl_type t, int parent, const char *name, const nfs_fh3 *fh) {
    if (c->nobj == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 256;
        c->obj = realloc(c->obj, (size_t)c->cap * sizeof(*c->obj));
        if (!c->obj) wl_die("out of memory");
    }
    struct wl_obj *o = &c->obj[c->nobj];
    memset(o, 0, sizeof(*o));
    o->type = t;
    o->live = 1;
    o->parent = parent;
    snprintf(o->name, sizeof(o->name), "%s", name);
    o->fhlen = fh->data.data_len > NFS3_FHSIZE ? NFS3_FHSIZE : fh->data.data_len;
    memcpy(o->fh, fh->data.data_val, o->fhlen);
    if (parent >= 0) c->obj[parent].nchild++;
    c->nlive[t]++;
    return c->nobj++;
}

/* Marks object i dead (removed from the server's tree). */
static void wl_obj_kill(struct wl_client *c, int i) {
    if (i < 0 || !c->obj[i].live) return;
    c->obj[i].live = 0;
    c->nlive[c->obj[i].type]--;
    if (c->obj[i].parent >= 0) c->obj[c->obj[i].parent].nchild--;
}

/* Returns a live object of type t (any type when t < 0), or -1; mask_empty
 * restricts directories to empty ones (for rmdir); the root (0) is skipped
 * when skip_root. Deterministic: scans from a random start. */
static int wl_pick(struct wl_client *c, int t, int want_empty, int skip_root) {
    int n = c->nobj, start = (int)wl_below(&c->rng, (uint64_t)n);
    for (int k = 0; k < n; k++) {
        int i = (start + k) % n;
        struct wl_obj *o = &c->obj[i];
        if (!o->live || (t >= 0 && (int)o->type != t) || (skip_root && i == 0)) continue;
        if (want_empty && o->nchild) continue;
        return i;
    }
    return -1;
}

/* Returns the number of live objects of type t in c's model. */
static int wl_count(struct wl_client *c, enum wl_type t) {
    return c->nlive[t];
}

/* Fills an nfs_fh3 that points into object i (valid while the model lives). */
static nfs_fh3 wl_fh(struct wl_client *c, int i) {
    nfs_fh3 fh;
    fh.data.data_len = c->obj[i].fhlen;
    fh.data.data_val = c->obj[i].fh;
    return fh;
}

/* ---- replies --------------------------------------------------------------- */

/* Copies the handle of a post_op_fh3 into *out; 0 when one was returned. */
static int wl_post_fh(const post_op_fh3 *p, nfs_fh3 *out) {
    if (!p->handle_follows) return -1;
    *out = p->post_op_fh3_u.handle;
    return 0;
}

/* Applies a successful namespace call to the model. data is the decoded
 * result (owned by libnfs, valid during the callback only). */
static void wl_apply(struct wl_call *k, void *data) {
    struct wl_client *c = k->c;
    nfs_fh3 fh;
    int got = -1;
    switch (k->proc) {
    case NFS3_CREATE: got = wl_post_fh(&((CREATE3res *)data)->CREATE3res_u.resok.obj, &fh); break;
    case NFS3_MKDIR: got = wl_post_fh(&((MKDIR3res *)data)->MKDIR3res_u.resok.obj, &fh); break;
    case NFS3_SYMLINK: got = wl_post_fh(&((SYMLINK3res *)data)->SYMLINK3res_u.resok.obj, &fh); break;
    case NFS3_MKNOD: got = wl_post_fh(&((MKNOD3res *)data)->MKNOD3res_u.resok.obj, &fh); break;
    case NFS3_LINK: {
        char copy[NFS3_FHSIZE]; /* wl_obj_add may move c->obj */
        fh = wl_fh(c, k->obj2);
        memcpy(copy, fh.data.data_val, fh.data.data_len);
        fh.data.data_val = copy;
        wl_obj_add(c, WL_FILE, k->obj, k->name, &fh);
        break;
    }
    case NFS3_REMOVE:
    case NFS3_RMDIR: wl_obj_kill(c, k->obj2); break;
    case NFS3_RENAME:
        /* obj2 moves to (obj, name); the entry it replaced (k->newtype) dies */
        wl_obj_kill(c, k->newtype);
        c->obj[c->obj[k->obj2].parent].nchild--;
        c->obj[k->obj2].parent = k->obj;
        c->obj[k->obj].nchild++;
        snprintf(c->obj[k->obj2].name, WL_NAME, "%s", k->name);
        break;
    case NFS3_SETATTR:
        if (k->size != UINT64_MAX) c->obj[k->obj].size = k->size;
        break;
    default: break;
    }
    if (got == 0) wl_obj_add(c, (enum wl_type)k->newtype, k->obj, k->name, &fh);
}

/* The one reply callback: counts the result per procedure and status, updates
 * the model for namespace calls, frees the call. A transport error marks the
 * client failed. */
static void wl_reply(struct rpc_context *rpc, int status, void *data, void *priv) {
    struct wl_call *k = priv;
    struct wl_client *c = k->c;
    (void)rpc;
    c->inflight--;
    clock_gettime(CLOCK_MONOTONIC, &wl_g->last_reply);
    if (status != RPC_STATUS_SUCCESS) {
        if (!c->failed)
            fprintf(stderr, "tbbt-workload: client %d: %s failed: %s\n", c->id,
                    tbbt_op_info(tbbt_op_from_wire(3, (unsigned)k->proc))->name,
                    status == RPC_STATUS_ERROR && data ? (char *)data : "cancelled or timed out");
        c->failed = 1;
    } else {
        int nst = k->proc == NFS3_NULL ? 0 : *(int *)data; /* every v3 result starts with nfsstat3 */
        if (nst == 0) {
            c->st.ok[k->proc]++;
            wl_apply(k, data);
        } else {
            c->st.err[k->proc]++;
        }
    }
    if (k->obj != -2) c->barrier = 0; /* data calls carry obj -2 */
    free(k);
}

/* ---- issuing calls --------------------------------------------------------- */

/* Returns a new call record for client c and procedure proc. */
static struct wl_call *wl_call_new(struct wl_client *c, int proc, int obj) {
    struct wl_call *k = calloc(1, sizeof(*k));
    if (!k) wl_die("out of memory");
    k->c = c;
    k->proc = proc;
    k->obj = obj;
    k->obj2 = -1;
    k->newtype = -1;
    k->size = UINT64_MAX;
    return k;
}

/* Puts the AUTH_SYS credential uid:gid on c's connection if it is not the
 * current one (libnfs encodes it into each call when the call is queued). */
static void wl_set_auth(struct wl_client *c, struct wl_uid u) {
    if (u.uid == c->cur_uid && u.gid == c->cur_gid) return;
    struct AUTH *a = libnfs_authunix_create("tbbt-workload", u.uid, u.gid, 0, NULL);
    if (!a) wl_die("cannot create AUTH_SYS credential");
    rpc_set_auth(c->rpc, a); /* frees the previous one */
    c->cur_uid = u.uid;
    c->cur_gid = u.gid;
}

/* Accounts for a call the library accepted (rc 0) or refused (rc < 0). */
static void wl_sent(struct wl_client *c, struct wl_call *k, int rc, int barrier) {
    if (rc < 0) {
        fprintf(stderr, "tbbt-workload: client %d: cannot queue call: %s\n", c->id, rpc_get_error(c->rpc));
        c->failed = 1;
        free(k);
        return;
    }
    c->st.calls[k->proc]++;
    c->inflight++;
    if (barrier) c->barrier = 1;
}

/* Returns an I/O size: mostly small, some medium, a few up to max bytes. */
static uint32_t wl_io_size(struct wl_client *c, uint32_t max) {
    uint64_t r = wl_below(&c->rng, 100), n;
    if (r < 60)
        n = 1 + wl_below(&c->rng, 8192);
    else if (r < 88)
        n = 8192 + wl_below(&c->rng, 57345);
    else if (r < 97)
        n = 65536 + wl_below(&c->rng, 196609);
    else
        n = 262144 + wl_below(&c->rng, 786433);
    return (uint32_t)(n > max ? max : n);
}

/* Makes a fresh name with prefix p into buf. */
static void wl_newname(struct wl_client *c, const char *p, char *buf) {
    snprintf(buf, WL_NAME, "%s%ld", p, c->serial++);
}

/* Returns a directory to create in: the root or a live subdirectory (max two
 * levels, so trees stay shallow like home directories). */
static int wl_pick_dir(struct wl_client *c) {
    int d = wl_below(&c->rng, 3) == 0 ? 0 : wl_pick(c, WL_DIR, 0, 0);
    if (d > 0 && c->obj[d].parent > 0 && c->obj[c->obj[d].parent].parent > 0) d = c->obj[d].parent;
    return d < 0 ? 0 : d;
}

/* Fills a sattr3 that sets only the mode. */
static sattr3 wl_mode_attr(uint32_t mode) {
    sattr3 a;
    memset(&a, 0, sizeof(a));
    a.mode.set_it = 1;
    a.mode.set_mode3_u.mode = mode;
    return a;
}

/* Issues a namespace-changing call (one at a time). Returns 0 when a call was
 * issued, -1 when the chosen kind had nothing to act on (caller falls back). */
static int wl_issue_ns(struct wl_run *r, struct wl_client *c, int proc) {
    struct wl_call *k;
    int rc = -1, d, f;
    nfs_fh3 dfh;
    (void)r;
    switch (proc) {
    case NFS3_CREATE: {
        d = wl_pick_dir(c);
        k = wl_call_new(c, proc, d);
        wl_newname(c, "f", k->name);
        k->newtype = WL_FILE;
        CREATE3args a;
        memset(&a, 0, sizeof(a));
        a.where.dir = wl_fh(c, d);
        a.where.name = k->name;
        a.how.mode = wl_below(&c->rng, 4) ? UNCHECKED : GUARDED;
        a.how.createhow3_u.obj_attributes = wl_mode_attr(0644);
        rc = rpc_nfs3_create_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_MKDIR: {
        d = wl_pick_dir(c);
        k = wl_call_new(c, proc, d);
        wl_newname(c, "d", k->name);
        k->newtype = WL_DIR;
        MKDIR3args a;
        memset(&a, 0, sizeof(a));
        a.where.dir = wl_fh(c, d);
        a.where.name = k->name;
        a.attributes = wl_mode_attr(0755);
        rc = rpc_nfs3_mkdir_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_SYMLINK: {
        d = wl_pick_dir(c);
        f = wl_pick(c, WL_FILE, 0, 1);
        k = wl_call_new(c, proc, d);
        wl_newname(c, "l", k->name);
        k->newtype = WL_LINK;
        SYMLINK3args a;
        memset(&a, 0, sizeof(a));
        a.where.dir = wl_fh(c, d);
        a.where.name = k->name;
        a.symlink.symlink_attributes = wl_mode_attr(0777);
        a.symlink.symlink_data = f >= 0 ? c->obj[f].name : "no-such-target";
        rc = rpc_nfs3_symlink_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_MKNOD: {
        d = wl_pick_dir(c);
        k = wl_call_new(c, proc, d);
        wl_newname(c, "p", k->name);
        k->newtype = WL_FIFO;
        MKNOD3args a;
        memset(&a, 0, sizeof(a));
        a.where.dir = wl_fh(c, d);
        a.where.name = k->name;
        a.what.type = NF3FIFO;
        a.what.mknoddata3_u.pipe_attributes = wl_mode_attr(0644);
        rc = rpc_nfs3_mknod_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_LINK: {
        if ((f = wl_pick(c, WL_FILE, 0, 1)) < 0) return -1;
        d = wl_pick_dir(c);
        k = wl_call_new(c, proc, d);
        k->obj2 = f;
        wl_newname(c, "h", k->name);
        LINK3args a;
        memset(&a, 0, sizeof(a));
        a.file = wl_fh(c, f);
        a.link.dir = wl_fh(c, d);
        a.link.name = k->name;
        rc = rpc_nfs3_link_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_REMOVE:
    case NFS3_RMDIR: {
        int t = proc == NFS3_RMDIR ? WL_DIR : (wl_below(&c->rng, 4) ? WL_FILE : -1);
        if ((f = wl_pick(c, t, proc == NFS3_RMDIR, 1)) < 0) return -1;
        if (proc == NFS3_REMOVE && c->obj[f].type == WL_DIR) return -1;
        k = wl_call_new(c, proc, c->obj[f].parent);
        k->obj2 = f;
        snprintf(k->name, WL_NAME, "%s", c->obj[f].name);
        REMOVE3args a; /* RMDIR3args has the same shape */
        memset(&a, 0, sizeof(a));
        dfh = wl_fh(c, c->obj[f].parent);
        a.object.dir = dfh;
        a.object.name = k->name;
        if (proc == NFS3_REMOVE)
            rc = rpc_nfs3_remove_async(c->rpc, wl_reply, &a, k);
        else {
            RMDIR3args b;
            b.object = a.object;
            rc = rpc_nfs3_rmdir_async(c->rpc, wl_reply, &b, k);
        }
        break;
    }
    case NFS3_RENAME: {
        if ((f = wl_pick(c, WL_FILE, 0, 1)) < 0) return -1;
        int over = wl_below(&c->rng, 2) ? wl_pick(c, WL_FILE, 0, 1) : -1;
        if (over == f) over = -1;
        d = over >= 0 ? c->obj[over].parent : wl_pick_dir(c);
        k = wl_call_new(c, proc, d);
        k->obj2 = f;
        k->newtype = over; /* the entry replaced, killed on success */
        if (over >= 0)
            snprintf(k->name, WL_NAME, "%s", c->obj[over].name);
        else
            wl_newname(c, "r", k->name);
        snprintf(k->name2, WL_NAME, "%s", c->obj[f].name);
        RENAME3args a;
        dfh = wl_fh(c, c->obj[f].parent);
        a.from.dir = dfh;
        a.from.name = k->name2;
        a.to.dir = wl_fh(c, d);
        a.to.name = k->name;
        rc = rpc_nfs3_rename_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_SETATTR: {
        if ((f = wl_pick(c, WL_FILE, 0, 1)) < 0) return -1;
        k = wl_call_new(c, proc, f);
        SETATTR3args a;
        memset(&a, 0, sizeof(a));
        a.object = wl_fh(c, f);
        if (wl_below(&c->rng, 2)) {
            a.new_attributes.size.set_it = 1;
            k->size = wl_below(&c->rng, 3) ? 0 : wl_below(&c->rng, 1 << 20);
            a.new_attributes.size.set_size3_u.size = k->size;
        } else {
            a.new_attributes = wl_mode_attr(wl_below(&c->rng, 2) ? 0600 : 0664);
        }
        rc = rpc_nfs3_setattr_async(c->rpc, wl_reply, &a, k);
        break;
    }
    default: return -1;
    }
    wl_sent(c, k, rc, 1);
    return 0;
}

/* Issues a data or attribute call (pipelined). Returns 0 when issued, -1
 * when there was nothing to act on. */
static int wl_issue_data(struct wl_run *r, struct wl_client *c, int proc) {
    struct wl_call *k;
    int rc = -1, f;
    uint32_t max = (uint32_t)r->o.max_io;
    switch (proc) {
    case NFS3_NULL:
        k = wl_call_new(c, proc, -2);
        rc = rpc_nfs3_null_async(c->rpc, wl_reply, k);
        break;
    case NFS3_GETATTR: {
        f = wl_pick(c, -1, 0, 0);
        k = wl_call_new(c, proc, -2);
        GETATTR3args a = {.object = wl_fh(c, f)};
        rc = rpc_nfs3_getattr_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_ACCESS: {
        f = wl_pick(c, -1, 0, 0);
        k = wl_call_new(c, proc, -2);
        ACCESS3args a = {.object = wl_fh(c, f), .access = c->obj[f].type == WL_DIR ? 0x1f : 0x2d};
        rc = rpc_nfs3_access_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_LOOKUP: {
        f = wl_pick(c, -1, 0, 1);
        k = wl_call_new(c, proc, -2);
        LOOKUP3args a;
        if (f < 0 || wl_below(&c->rng, 4) == 0) { /* a name that is not there */
            a.what.dir = wl_fh(c, f < 0 ? 0 : c->obj[f].parent);
            snprintf(k->name, WL_NAME, "missing%" PRIu64, wl_below(&c->rng, 1000));
        } else {
            a.what.dir = wl_fh(c, c->obj[f].parent);
            snprintf(k->name, WL_NAME, "%s", c->obj[f].name);
        }
        a.what.name = k->name;
        rc = rpc_nfs3_lookup_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_READ: {
        if ((f = wl_pick(c, WL_FILE, 0, 1)) < 0) return -1;
        k = wl_call_new(c, proc, -2);
        uint64_t sz = c->obj[f].size;
        READ3args a = {.file = wl_fh(c, f), .count = wl_io_size(c, max)};
        a.offset = sz > a.count && wl_below(&c->rng, 2) ? wl_below(&c->rng, sz - a.count) : 0;
        rc = rpc_nfs3_read_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_WRITE: {
        if ((f = wl_pick(c, WL_FILE, 0, 1)) < 0) return -1;
        k = wl_call_new(c, proc, -2);
        uint32_t n = wl_io_size(c, max);
        uint64_t sz = c->obj[f].size;
        WRITE3args a;
        memset(&a, 0, sizeof(a));
        a.file = wl_fh(c, f);
        a.offset = sz > (4u << 20) || wl_below(&c->rng, 3) == 0 ? wl_below(&c->rng, sz + 1) : sz;
        a.count = n;
        a.stable = wl_below(&c->rng, 5) ? UNSTABLE : FILE_SYNC;
        a.data.data_len = n;
        a.data.data_val = r->payload + wl_below(&c->rng, (1u << 20));
        if (a.offset + n > sz) c->obj[f].size = a.offset + n;
        rc = rpc_nfs3_write_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_COMMIT: {
        if ((f = wl_pick(c, WL_FILE, 0, 1)) < 0) return -1;
        k = wl_call_new(c, proc, -2);
        COMMIT3args a = {.file = wl_fh(c, f), .offset = 0, .count = 0};
        rc = rpc_nfs3_commit_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_READLINK: {
        if ((f = wl_pick(c, WL_LINK, 0, 1)) < 0) return -1;
        k = wl_call_new(c, proc, -2);
        READLINK3args a = {.symlink = wl_fh(c, f)};
        rc = rpc_nfs3_readlink_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_READDIR: {
        f = wl_pick(c, WL_DIR, 0, 0);
        k = wl_call_new(c, proc, -2);
        READDIR3args a;
        memset(&a, 0, sizeof(a));
        a.dir = wl_fh(c, f);
        a.count = 4096;
        rc = rpc_nfs3_readdir_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_READDIRPLUS: {
        f = wl_pick(c, WL_DIR, 0, 0);
        k = wl_call_new(c, proc, -2);
        READDIRPLUS3args a;
        memset(&a, 0, sizeof(a));
        a.dir = wl_fh(c, f);
        a.dircount = 4096;
        a.maxcount = 32768;
        rc = rpc_nfs3_readdirplus_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_FSSTAT: {
        k = wl_call_new(c, proc, -2);
        FSSTAT3args a = {.fsroot = wl_fh(c, 0)};
        rc = rpc_nfs3_fsstat_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_FSINFO: {
        k = wl_call_new(c, proc, -2);
        FSINFO3args a = {.fsroot = wl_fh(c, 0)};
        rc = rpc_nfs3_fsinfo_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_PATHCONF: {
        k = wl_call_new(c, proc, -2);
        PATHCONF3args a = {.object = wl_fh(c, wl_pick(c, -1, 0, 0))};
        rc = rpc_nfs3_pathconf_async(c->rpc, wl_reply, &a, k);
        break;
    }
    default: return -1;
    }
    wl_sent(c, k, rc, 0);
    return 0;
}

/* The mix, in parts per thousand, close to the shape of real NFSv3 traces
 * (attribute and lookup calls dominate, then data; namespace calls are few). */
static const struct {
    int proc, weight;
} wl_mix[] = {
    {NFS3_GETATTR, 200}, {NFS3_LOOKUP, 150}, {NFS3_ACCESS, 100},     {NFS3_READ, 140},    {NFS3_WRITE, 140},
    {NFS3_COMMIT, 20},   {NFS3_READDIR, 15}, {NFS3_READDIRPLUS, 30}, {NFS3_READLINK, 15}, {NFS3_CREATE, 50},
    {NFS3_MKDIR, 12},    {NFS3_SYMLINK, 10}, {NFS3_MKNOD, 3},        {NFS3_LINK, 8},      {NFS3_RENAME, 15},
    {NFS3_REMOVE, 40},   {NFS3_RMDIR, 8},    {NFS3_SETATTR, 20},     {NFS3_FSSTAT, 10},   {NFS3_FSINFO, 5},
    {NFS3_PATHCONF, 4},  {NFS3_NULL, 5},
};

/* Returns 1 when proc changes the namespace (is issued as a barrier). */
static int wl_is_ns(int proc) {
    return proc == NFS3_CREATE || proc == NFS3_MKDIR || proc == NFS3_SYMLINK || proc == NFS3_MKNOD ||
           proc == NFS3_LINK || proc == NFS3_REMOVE || proc == NFS3_RMDIR || proc == NFS3_RENAME ||
           proc == NFS3_SETATTR;
}

/* Picks the next procedure for c from the mix; keeps the tree between a few
 * dozen and a few hundred files by steering creates and removes. */
static int wl_next_proc(struct wl_client *c) {
    uint64_t w = wl_below(&c->rng, 1000), acc = 0;
    int proc = NFS3_GETATTR;
    for (size_t i = 0; i < sizeof(wl_mix) / sizeof(wl_mix[0]); i++) {
        acc += (uint64_t)wl_mix[i].weight;
        if (w < acc) {
            proc = wl_mix[i].proc;
            break;
        }
    }
    int files = wl_count(c, WL_FILE);
    if (files < 8 && (proc == NFS3_READ || proc == NFS3_REMOVE || proc == NFS3_RENAME)) proc = NFS3_CREATE;
    if (files > 400 && proc == NFS3_CREATE) proc = NFS3_REMOVE;
    if (wl_count(c, WL_DIR) > 60 && proc == NFS3_MKDIR) proc = NFS3_RMDIR;
    return proc;
}

/* Issues as many calls for c as its queue allows. The next call is chosen
 * only when it can be sent, so its choice sees every earlier namespace reply
 * and never depends on timing. */
static void wl_pump(struct wl_run *r, struct wl_client *c) {
    while (!c->failed && c->todo > 0 && !c->barrier && c->inflight < r->o.depth) {
        /* peek: a namespace call waits for the queue to drain */
        uint64_t saved = c->rng;
        int proc = wl_next_proc(c);
        if (wl_is_ns(proc) && c->inflight > 0) {
            c->rng = saved; /* re-drawn identically once the queue is empty */
            return;
        }
        struct wl_uid who = wl_below(&c->rng, 20) == 0 ? c->alt : c->uid;
        wl_set_auth(c, who);
        int rc = wl_is_ns(proc) ? wl_issue_ns(r, c, proc) : wl_issue_data(r, c, proc);
        if (rc < 0 && c->inflight == 0) rc = wl_issue_ns(r, c, NFS3_CREATE); /* nothing to act on */
        if (rc < 0) {
            c->rng = saved;
            return;
        }
        c->todo--;
    }
}

/* ---- connection and event loop -------------------------------------------- */

/* Returns seconds elapsed since *t. */
static double wl_since(const struct timespec *t) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t->tv_sec) + (double)(now.tv_nsec - t->tv_nsec) / 1e9;
}

/* Runs poll() over the clients until done(r) says stop, every client is idle,
 * or no reply came for --timeout seconds. Returns 0, or -1 on timeout or when
 * a client's connection failed. */
static int wl_loop(struct wl_run *r, int (*done)(struct wl_run *)) {
    int n = (int)r->o.clients;
    struct pollfd pfd[WL_MAX_CLIENTS];
    clock_gettime(CLOCK_MONOTONIC, &r->last_reply);
    while (!done(r)) {
        for (int i = 0; i < n; i++) {
            if (r->cl[i].failed) return -1;
            pfd[i].fd = rpc_get_fd(r->cl[i].rpc);
            pfd[i].events = (short)rpc_which_events(r->cl[i].rpc);
            pfd[i].revents = 0;
        }
        if (poll(pfd, (nfds_t)n, 100) < 0 && errno != EINTR) wl_die("poll: %s", strerror(errno));
        for (int i = 0; i < n; i++) {
            if (rpc_service(r->cl[i].rpc, pfd[i].revents) < 0) {
                fprintf(stderr, "tbbt-workload: client %d: connection lost: %s\n", i,
                        rpc_get_error(r->cl[i].rpc));
                r->cl[i].failed = 1;
                return -1;
            }
        }
        if (wl_since(&r->last_reply) > (double)r->o.timeout) {
            fprintf(stderr, "tbbt-workload: no reply from %s for %ld s, giving up\n", r->url.host,
                    r->o.timeout);
            return -1;
        }
    }
    return 0;
}

/* State shared by the connect and mount callbacks of one client. */
struct wl_setup {
    int done, ok;
    char fh[NFS3_FHSIZE];
    uint32_t fhlen;
    char err[256];
};

/* Connect callback: records success or the error text. */
static void wl_connect_cb(struct rpc_context *rpc, int status, void *data, void *priv) {
    struct wl_setup *s = priv;
    (void)rpc;
    s->done = 1;
    s->ok = status == RPC_STATUS_SUCCESS;
    if (!s->ok) snprintf(s->err, sizeof(s->err), "%s", data ? (char *)data : "connect failed");
}

/* MNT callback: keeps the export's root handle. */
static void wl_mnt_cb(struct rpc_context *rpc, int status, void *data, void *priv) {
    struct wl_setup *s = priv;
    (void)rpc;
    s->done = 1;
    mountres3 *m = data;
    if (status != RPC_STATUS_SUCCESS) {
        snprintf(s->err, sizeof(s->err), "%s", data ? (char *)data : "MNT failed");
        return;
    }
    if (m->fhs_status != MNT3_OK) {
        snprintf(s->err, sizeof(s->err), "MNT refused, status %d", (int)m->fhs_status);
        return;
    }
    s->fhlen = m->mountres3_u.mountinfo.fhandle.fhandle3_len;
    if (s->fhlen > NFS3_FHSIZE) s->fhlen = NFS3_FHSIZE;
    memcpy(s->fh, m->mountres3_u.mountinfo.fhandle.fhandle3_val, s->fhlen);
    s->ok = 1;
}

/* Waits (poll, bounded by --timeout) until s->done for one rpc context.
 * Returns 0 when done, -1 on timeout or a broken socket. */
static int wl_wait_one(struct wl_run *r, struct rpc_context *rpc, struct wl_setup *s) {
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!s->done) {
        struct pollfd p = {.fd = rpc_get_fd(rpc), .events = (short)rpc_which_events(rpc)};
        if (poll(&p, 1, 100) < 0 && errno != EINTR) return -1;
        if (rpc_service(rpc, p.revents) < 0) {
            snprintf(s->err, sizeof(s->err), "%s", rpc_get_error(rpc));
            return -1;
        }
        if (wl_since(&t0) > (double)r->o.timeout) {
            snprintf(s->err, sizeof(s->err), "timed out after %ld s", r->o.timeout);
            return -1;
        }
    }
    return 0;
}

/* Connects client c: MOUNT (NULL + MNT) on the mount port to get the root
 * handle, then a fresh connection to the NFS port. Exits 1 with a clear
 * message when the server cannot be reached. */
static void wl_connect(struct wl_run *r, struct wl_client *c, nfs_fh3 *root, char *rootbuf) {
    struct wl_setup s;
    struct rpc_context *m = rpc_init_context();
    if (!m) wl_die("cannot create an RPC context");
    memset(&s, 0, sizeof(s));
    if (rpc_connect_port_async(m, r->url.host, r->url.mountport, MOUNT_PROGRAM, MOUNT_V3, wl_connect_cb, &s) <
            0 ||
        wl_wait_one(r, m, &s) < 0 || !s.ok)
        wl_die("client %d: cannot connect to MOUNT at %s:%d: %s", c->id, r->url.host, r->url.mountport,
               s.err[0] ? s.err : rpc_get_error(m));
    memset(&s, 0, sizeof(s));
    if (rpc_mount3_mnt_async(m, wl_mnt_cb, r->url.export, &s) < 0 || wl_wait_one(r, m, &s) < 0 || !s.ok)
        wl_die("client %d: cannot mount %s:%s: %s", c->id, r->url.host, r->url.export, s.err);
    rpc_destroy_context(m);
    memcpy(rootbuf, s.fh, s.fhlen);
    root->data.data_len = s.fhlen;
    root->data.data_val = rootbuf;

    c->rpc = rpc_init_context();
    if (!c->rpc) wl_die("cannot create an RPC context");
    rpc_set_next_xid(c->rpc, ((uint32_t)c->id + 1) << 24 | ((uint32_t)r->o.seed & 0xffff) << 8);
    memset(&s, 0, sizeof(s));
    if (rpc_connect_port_async(c->rpc, r->url.host, r->url.nfsport, NFS_PROGRAM, NFS_V3, wl_connect_cb, &s) <
            0 ||
        wl_wait_one(r, c->rpc, &s) < 0 || !s.ok)
        wl_die("client %d: cannot connect to NFS at %s:%d: %s", c->id, r->url.host, r->url.nfsport,
               s.err[0] ? s.err : rpc_get_error(c->rpc));
    c->cur_uid = c->cur_gid = UINT32_MAX;
}

/* ---- set-up: DIR and DIR/cK, made with synchronous calls ------------------ */

/* Reply of a set-up call: status and the handle it revealed. */
struct wl_sync {
    int proc; /* NFS3_LOOKUP or NFS3_MKDIR: where the handle is */
    int done, rpcstatus, nfsstatus;
    nfs_fh3 fh;
    char buf[NFS3_FHSIZE];
};

/* Set-up callback for LOOKUP/MKDIR/SETATTR: keeps status and handle. */
static void wl_sync_cb(struct rpc_context *rpc, int status, void *data, void *priv) {
    struct wl_sync *s = priv;
    (void)rpc;
    s->done = 1;
    s->rpcstatus = status;
    if (status != RPC_STATUS_SUCCESS) return;
    s->nfsstatus = *(int *)data;
    if (s->nfsstatus != NFS3_OK) return;
    nfs_fh3 fh = {{0, NULL}};
    if (s->proc == NFS3_LOOKUP)
        fh = ((LOOKUP3res *)data)->LOOKUP3res_u.resok.object;
    else if (s->proc == NFS3_MKDIR)
        wl_post_fh(&((MKDIR3res *)data)->MKDIR3res_u.resok.obj, &fh);
    s->fh.data.data_len = fh.data.data_len > NFS3_FHSIZE ? NFS3_FHSIZE : fh.data.data_len;
    if (fh.data.data_val) memcpy(s->buf, fh.data.data_val, s->fh.data.data_len);
    s->fh.data.data_val = s->buf;
}

/* Waits for one set-up reply on client c. Dies on transport failure. */
static void wl_sync_wait(struct wl_run *r, struct wl_client *c, struct wl_sync *s, const char *what) {
    while (!s->done) {
        struct pollfd p = {.fd = rpc_get_fd(c->rpc), .events = (short)rpc_which_events(c->rpc)};
        if (poll(&p, 1, 100) < 0 && errno != EINTR) wl_die("poll: %s", strerror(errno));
        if (rpc_service(c->rpc, p.revents) < 0)
            wl_die("client %d: %s: %s", c->id, what, rpc_get_error(c->rpc));
        if (wl_since(&r->last_reply) > (double)r->o.timeout) wl_die("client %d: %s: timed out", c->id, what);
    }
    if (s->rpcstatus != RPC_STATUS_SUCCESS) wl_die("client %d: %s failed", c->id, what);
}

/* Looks up name in dir, making it a directory (mode 0777, owner u) when
 * missing. Fills *out (backed by buf). Dies when neither works. */
static void wl_ensure_dir(struct wl_run *r, struct wl_client *c, nfs_fh3 dir, const char *name,
                          struct wl_uid u, nfs_fh3 *out, char *buf) {
    struct wl_sync s;
    clock_gettime(CLOCK_MONOTONIC, &r->last_reply);
    memset(&s, 0, sizeof(s));
    s.proc = NFS3_LOOKUP;
    LOOKUP3args la = {.what = {.dir = dir, .name = (char *)name}};
    c->st.calls[NFS3_LOOKUP]++;
    if (rpc_nfs3_lookup_async(c->rpc, wl_sync_cb, &la, &s) < 0) wl_die("client %d: cannot queue", c->id);
    wl_sync_wait(r, c, &s, "LOOKUP");
    (s.nfsstatus == NFS3_OK ? c->st.ok : c->st.err)[NFS3_LOOKUP]++;
    if (s.nfsstatus != NFS3_OK) {
        memset(&s, 0, sizeof(s));
        s.proc = NFS3_MKDIR;
        MKDIR3args ma;
        memset(&ma, 0, sizeof(ma));
        ma.where.dir = dir;
        ma.where.name = (char *)name;
        ma.attributes = wl_mode_attr(0777);
        c->st.calls[NFS3_MKDIR]++;
        if (rpc_nfs3_mkdir_async(c->rpc, wl_sync_cb, &ma, &s) < 0) wl_die("client %d: cannot queue", c->id);
        wl_sync_wait(r, c, &s, "MKDIR");
        if (s.nfsstatus != NFS3_OK || s.fh.data.data_len == 0)
            wl_die("client %d: cannot make directory %s: %s", c->id, name,
                   tbbt_nfsstat_name(s.nfsstatus) ? tbbt_nfsstat_name(s.nfsstatus) : "no handle");
        c->st.ok[NFS3_MKDIR]++;
    }
    memcpy(buf, s.buf, s.fh.data.data_len);
    out->data.data_len = s.fh.data.data_len;
    out->data.data_val = buf;
    /* owner and mode, so that u (and the occasional other uid) can work in it */
    struct wl_sync t;
    memset(&t, 0, sizeof(t));
    SETATTR3args sa;
    memset(&sa, 0, sizeof(sa));
    sa.object = *out;
    sa.new_attributes = wl_mode_attr(0777);
    sa.new_attributes.uid.set_it = 1;
    sa.new_attributes.uid.set_uid3_u.uid = u.uid;
    sa.new_attributes.gid.set_it = 1;
    sa.new_attributes.gid.set_gid3_u.gid = u.gid;
    c->st.calls[NFS3_SETATTR]++;
    if (rpc_nfs3_setattr_async(c->rpc, wl_sync_cb, &sa, &t) < 0) wl_die("client %d: cannot queue", c->id);
    wl_sync_wait(r, c, &t, "SETATTR");
    (t.nfsstatus == NFS3_OK ? c->st.ok : c->st.err)[NFS3_SETATTR]++;
}

/* ---- main -------------------------------------------------------------------- */

/* Parses the --uids list into r->uids. 0 or -1 with err. */
static int wl_parse_uids(struct wl_run *r, const char *list, char *err, size_t errlen) {
    const char *p = list;
    r->nuids = 0;
    while (*p) {
        unsigned long u, g;
        char *end;
        u = strtoul(p, &end, 10);
        if (end == p || *end != ':') goto bad;
        p = end + 1;
        g = strtoul(p, &end, 10);
        if (end == p || (*end && *end != ',') || r->nuids == WL_MAX_UIDS) goto bad;
        r->uids[r->nuids].uid = (uint32_t)u;
        r->uids[r->nuids++].gid = (uint32_t)g;
        p = *end ? end + 1 : end;
    }
    if (r->nuids > 0) return 0;
bad:
    snprintf(err, errlen, "--uids: '%s' is not a list of uid:gid pairs (at most %d)", list, WL_MAX_UIDS);
    return -1;
}

/* done() for the main loop: every client issued its share and has no call
 * outstanding. */
static int wl_all_done(struct wl_run *r) {
    int busy = 0;
    for (int i = 0; i < r->o.clients; i++) {
        wl_pump(r, &r->cl[i]);
        busy |= r->cl[i].todo > 0 || r->cl[i].inflight > 0;
    }
    return !busy;
}

/* Prints calls, successes and errors per procedure, over all clients. */
static void wl_summary(struct wl_run *r, double secs) {
    struct wl_stats t;
    uint64_t total = 0;
    memset(&t, 0, sizeof(t));
    for (int i = 0; i < r->o.clients; i++)
        for (int p = 0; p < WL_NPROC; p++) {
            t.calls[p] += r->cl[i].st.calls[p];
            t.ok[p] += r->cl[i].st.ok[p];
            t.err[p] += r->cl[i].st.err[p];
        }
    printf("%-12s %10s %10s %10s\n", "procedure", "calls", "ok", "error");
    for (int p = 0; p < WL_NPROC; p++) {
        if (!t.calls[p]) continue;
        printf("%-12s %10" PRIu64 " %10" PRIu64 " %10" PRIu64 "\n",
               tbbt_op_info(tbbt_op_from_wire(3, (unsigned)p))->name, t.calls[p], t.ok[p], t.err[p]);
        total += t.calls[p];
    }
    printf("%-12s %10" PRIu64 "   in %.2f s, %.0f calls/s, %ld clients\n", "total", total, secs,
           secs > 0 ? (double)total / secs : 0.0, r->o.clients);
}

int main(int argc, char **argv) {
    static struct wl_run run;
    struct wl_run *r = &run;
    char err[512] = "";
    wl_g = r;
    int pr = wl_parse(argc, argv, &r->o, err, sizeof(err));
    if (pr == 1) {
        wl_usage(stdout);
        return 0;
    }
    if (pr < 0 || wl_parse_url(r->o.url, &r->url, err, sizeof(err)) < 0 ||
        wl_parse_uids(r, r->o.uids, err, sizeof(err)) < 0 || strchr(r->o.dir, '/') || !*r->o.dir) {
        fprintf(stderr, "tbbt-workload: %s (--help for usage)\n",
                pr < 0 || err[0] ? err : "--dir must be one name");
        return 2;
    }
    uint64_t prng = (uint64_t)r->o.seed * 0x2545f4914f6cdd1dull + 7;
    r->payload = malloc(2u << 20);
    if (!r->payload) wl_die("out of memory");
    for (size_t i = 0; i < (2u << 20) / 8; i++) {
        uint64_t v = wl_rand(&prng);
        memcpy(r->payload + i * 8, &v, 8);
    }

    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    static char rootbuf[WL_MAX_CLIENTS][NFS3_FHSIZE], topbuf[NFS3_FHSIZE], cbuf[NFS3_FHSIZE];
    nfs_fh3 root, top, cdir;
    struct wl_uid rootid = {0, 0};
    for (int i = 0; i < r->o.clients; i++) {
        struct wl_client *c = &r->cl[i];
        c->id = i;
        c->rng = (uint64_t)r->o.seed * 0x9e3779b97f4a7c15ull ^ ((uint64_t)i + 1) * 0xd1b54a32d192ed03ull;
        c->uid = r->uids[i % r->nuids];
        c->alt = r->uids[(i + 1) % r->nuids];
        c->todo = r->o.ops / r->o.clients + (i < r->o.ops % r->o.clients);
        wl_connect(r, c, &root, rootbuf[i]);
        /* DIR and DIR/cK are made as root, then handed to the client's uid */
        wl_set_auth(c, rootid);
        wl_ensure_dir(r, c, root, r->o.dir, rootid, &top, topbuf);
        char name[32];
        snprintf(name, sizeof(name), "c%d", i);
        wl_ensure_dir(r, c, top, name, c->uid, &cdir, cbuf);
        wl_obj_add(c, WL_DIR, -1, name, &cdir);
    }
    if (!r->o.quiet)
        fprintf(stderr, "tbbt-workload: %d clients connected to %s:%s, running %ld calls (seed %ld)\n",
                (int)r->o.clients, r->url.host, r->url.export, r->o.ops, r->o.seed);
    int rc = wl_loop(r, wl_all_done);
    wl_summary(r, wl_since(&t0));
    for (int i = 0; i < r->o.clients; i++) {
        rpc_destroy_context(r->cl[i].rpc);
        free(r->cl[i].obj);
    }
    free(r->payload);
    return rc < 0 ? 1 : 0;
}
