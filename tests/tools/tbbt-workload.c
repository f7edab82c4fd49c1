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
 * --names picks the look of new names: short (f12, d3: the default), maildir
 * (deliveries such as 1764174000.M512345P12345Q12.mailhost-07.example.org,
 * S=4321,W=4400:2,S, 60 to 150 bytes; folders cur, new, tmp, .Archive.2025
 * and long project names; renames that only change the ":2," flags or move a
 * message from new/ to cur/, as a mail client marking it seen) or mixed.
 * --umask gives each client the umask a real client applies: creates and
 * mkdirs send 0666 and 0777 less it (the default 022 gives today's 0644 and
 * 0755).
 *
 * --shared N adds the traffic of a multi-user site: client 0 makes
 * DIR/shared/s0..s(N-1) (owned by its uid) and every client also creates,
 * reads, writes, lists, renames and removes its own files there, looks up and
 * reads files the others made (learned from READDIRPLUS), and the owner of a
 * shared directory or file, or a client running as uid 0, changes its mode,
 * owner (as uid 0 only) and group with SETATTR, so that other users meet
 * ACCES where the mode forbids. The clients' views of the shared directories
 * may then be stale, and a call may meet NOENT, EXIST, ACCES or PERM that the
 * model did not foresee: the reply updates the model and the run goes on.
 * With --shared the sequence of calls depends on the seed AND on timing (the
 * interleaving of the clients); without it, on the seed alone, as above.
 * Short names then carry the client's number (f12.c1) so that two clients'
 * names never meet; maildir names are unique by their pid and counter.
 *
 * --think USEC makes each client pause before each call (uniform from 0 to
 * twice USEC, from a generator of its own, so the calls chosen are those of
 * a run without pauses): the pace of a client whose user thinks, for a
 * capture whose timing a replay at --speedup 1 should reproduce
 * (tests/play/load_fidelity.sh), instead of a closed loop at full speed.
 *
 * The summary ends with the counts of chmod, chown and chgrp (SETATTRs that
 * set mode, uid, gid) and of ACCES replies.
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
#include "opttab.h"
#include "usage.h"
#include "clock.h"
#include "rng.h"
#include "nfsstat.h"
#include "unconst.h"

#define WL_MAX_CLIENTS 64
#define WL_MAX_UIDS 16
#define WL_NPROC 22           /* NFSv3 procedures 0..21 */
#define WL_NAME 256           /* NAME_MAX + 1: maildir names with their flags fit */
#define WL_MAX_SHARED 16      /* --shared bound */
#define WL_MAX_UMASKS 16      /* --umask list length bound */
#define WL_NFOREIGN 64        /* others' entries of the shared directories a client remembers */
#define WL_NOBODY 0xfffffffeu /* uid/gid of a model object whose attributes no reply showed yet */

/* --names values */
enum wl_names { WL_NAMES_SHORT, WL_NAMES_MAILDIR, WL_NAMES_MIXED };

/* ---- options: declared once, in a table (lib/opttab.h) ------------------- */

#define TOOL "tbbt-workload"
#define SYNOPSIS "tbbt-workload [options] nfs://HOST/EXPORT?nfsport=N&mountport=M"

struct wl_opts {
    long clients, ops, seed, depth, max_io, timeout, quiet, names, shared, think;
    const char *uids, *dir, *url, *umask;
};

/* What the table parses into (opttab's types), copied into struct wl_opts. */
static gint o_clients, o_ops, o_seed, o_depth, o_max_io, o_timeout, o_shared, o_think;
static gboolean o_quiet;
static char *o_uids, *o_dir, *o_names, *o_umask;

static const struct tbbt_opt wl_options[] = {
    {"clients", 0, TBBT_OPT_INT, &o_clients, "N", "3", 1, WL_MAX_CLIENTS,
     .help = "concurrent clients, one TCP connection each"},
    {"ops", 0, TBBT_OPT_INT, &o_ops, "N", "1000", 1, 1000000000,
     .help = "NFS calls in total, shared among the clients (set-up calls not counted)"},
    {"seed", 0, TBBT_OPT_INT, &o_seed, "N", "1", 0, 0x7fffffff, .help = "seed of the call sequence"},
    {"depth", 0, TBBT_OPT_INT, &o_depth, "N", "16", 1, 256,
     .help = "outstanding data calls per client (namespace calls go one at a time)"},
    {"max-io", 0, TBBT_OPT_INT, &o_max_io, "N", "1048576", 512, 1048576,
     .help = "largest READ/WRITE count in bytes"},
    {"timeout", 0, TBBT_OPT_INT, &o_timeout, "N", "30", 1, 3600,
     .help = "seconds without any reply before giving up"},
    {"uids", 0, TBBT_OPT_STRING, &o_uids, "LIST", "0:0,1000:1000,1001:1001",
     .help = "AUTH_SYS uid:gid pairs, comma separated; client K uses pair K mod count"},
    {"dir", 0, TBBT_OPT_STRING, &o_dir, "NAME", "tbbt-workload",
     .help = "subdirectory of the export to work in (created; nothing outside it is touched)"},
    {"names", 0, TBBT_OPT_STRING, &o_names, "KIND", "short", .choices = "short|maildir|mixed",
     .help = "new names: short (f12, d3), maildir (deliveries of 60-150 bytes, cur/new/tmp, flag renames), "
             "or both"},
    {"shared", 0, TBBT_OPT_INT, &o_shared, "N", "0", 0, WL_MAX_SHARED,
     .help = "directories DIR/shared/sK every client also works in, with chmod/chown/chgrp and ACCES among "
             "the users (0: none; with N > 0 the call sequence depends on timing too)"},
    {"umask", 0, TBBT_OPT_STRING, &o_umask, "LIST", "022",
     .help = "octal umasks, comma separated; client K creates with 0666/0777 less mask K mod count"},
    {"think", 0, TBBT_OPT_INT, &o_think, "USEC", "0", 0, 10000000,
     .help = "mean pause in microseconds before each of a client's calls, drawn uniformly from 0 to twice it "
             "(seeded; the calls chosen stay the same): a client that thinks, not a closed loop (0: none)"},
    {"quiet", 0, TBBT_OPT_FLAG, &o_quiet, .help = "print only the summary"},
    TBBT_OPT_END};

static const struct tbbt_cmd wl_cmd = {TOOL, SYNOPSIS, "URL - a seeded NFSv3 workload, to capture",
                                       "Exit: 0 done, 1 connection/timeout failure, 2 bad usage.",
                                       wl_options};

/* Parses the command line into opts (a bad option or operand is a usage
 * error, exit 2; --help exits 0). */
static void wl_parse(int argc, char **argv, struct wl_opts *opts) {
    tbbt_opt_parse(&wl_cmd, &argc, &argv);
    if (argc < 2) tbbt_usage_error(TOOL, SYNOPSIS, "no server URL given");
    if (argc > 2) tbbt_usage_error(TOOL, SYNOPSIS, "unexpected argument '%s'", argv[2]);
    *opts = (struct wl_opts){.clients = o_clients,
                             .ops = o_ops,
                             .seed = o_seed,
                             .depth = o_depth,
                             .max_io = o_max_io,
                             .timeout = o_timeout,
                             .quiet = o_quiet,
                             .shared = o_shared,
                             .think = o_think,
                             .uids = o_uids,
                             .dir = o_dir,
                             .url = argv[1],
                             .umask = o_umask};
    opts->names = !strcmp(o_names, "maildir") ? WL_NAMES_MAILDIR
                  : !strcmp(o_names, "mixed") ? WL_NAMES_MIXED
                                              : WL_NAMES_SHORT;
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

/* ---- deterministic random numbers (splitmix64, lib/rng.h) ------------------- */

/* Returns a value uniform in [0, n) (n > 0). */
static uint64_t wl_below(uint64_t *s, uint64_t n) {
    return tbbt_splitmix64(s) % n;
}

/* ---- the per-client model of its subtree ---------------------------------- */

enum wl_type { WL_FILE, WL_DIR, WL_LINK, WL_FIFO };

struct wl_obj {
    enum wl_type type;
    int live;
    int parent;              /* index of the directory holding it; -1 for the client root and shared dirs */
    int nchild;              /* live entries in it (directories) */
    int shared;              /* a shared directory DIR/shared/sK (a root of the model, like obj[0]) */
    uint32_t mode, uid, gid; /* as the last reply showed them (WL_NOBODY before any) */
    uint64_t size;
    uint32_t fhlen;
    char fh[NFS3_FHSIZE];
    char name[WL_NAME];
};

struct wl_uid {
    uint32_t uid, gid;
};

/* An entry another client made in a shared directory, as a READDIRPLUS
 * showed it: looked up and read, never written (--shared). gen changes when
 * the slot is reused, so a late reply does not touch its successor. */
struct wl_foreign {
    int live, dir; /* dir: model index of the shared directory holding it */
    unsigned gen;
    enum wl_type type;
    uint32_t mode, uid, gid;
    uint64_t size;
    uint32_t fhlen;
    char fh[NFS3_FHSIZE];
    char name[WL_NAME];
};

struct wl_stats {
    uint64_t calls[WL_NPROC], ok[WL_NPROC], err[WL_NPROC];
    uint64_t chmod, chown, chgrp; /* SETATTR calls that set mode, uid, gid (set-up not counted) */
    uint64_t acces;               /* replies with NFS3ERR_ACCES, any procedure */
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
    int names;    /* enum wl_names */
    uint32_t umask;
    unsigned pid;               /* the "P" of its maildir names, unique per client */
    int nshared;                /* obj[1..nshared] are the shared directories */
    struct wl_foreign *foreign; /* WL_NFOREIGN slots when nshared */
    int nextforeign;            /* slot the next new entry takes */
    int64_t next_ns;            /* --think: no call before this (CLOCK_MONOTONIC) */
    uint64_t trng;              /* --think: the pauses' own generator (rng picks the calls) */
    struct wl_stats st;
};

struct wl_run {
    struct wl_opts o;
    struct wl_url url;
    struct wl_client cl[WL_MAX_CLIENTS];
    struct wl_uid uids[WL_MAX_UIDS];
    int nuids;
    uint32_t umasks[WL_MAX_UMASKS];
    int numasks;
    char *payload; /* 2 MiB of seeded random bytes, write data is a slice */
    int64_t last_reply;
};

/* What a SETATTR sets, for the counts of chmod, chown and chgrp. */
enum { WL_SET_MODE = 1, WL_SET_UID = 2, WL_SET_GID = 4 };

/* One call in flight: what the reply must update in the model. */
struct wl_call {
    struct wl_client *c;
    int proc;
    int obj, obj2; /* model indices the call acts on (-1 none) */
    int newtype;   /* for create/mkdir/symlink/mknod/link: type of new entry */
    uint64_t size; /* setattr: new size (or UINT64_MAX) */
    int target;    /* model object whose attributes the reply refreshes (-1 none) */
    unsigned sets; /* setattr: WL_SET_* bits, for the summary */
    int fslot;     /* foreign entry the call acts on (-1 none), valid while its gen is fgen */
    unsigned fgen;
    char name[WL_NAME], name2[WL_NAME];
};

static struct wl_run *wl_g; /* for the reply callback's timestamp */

/* Reports an error on stderr and exits 1: used where going on is pointless. */
__attribute__((format(printf, 1, 2))) static void wl_die(const char *fmt, ...) {
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
    o->uid = o->gid = WL_NOBODY;
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

/* Returns a live object of type t (any type when t < 0), or -1; want_empty
 * restricts directories to empty ones (for rmdir); the roots (the client's
 * own, 0, and the shared directories) are skipped when skip_root.
 * Deterministic: scans from a random start. */
static int wl_pick(struct wl_client *c, int t, int want_empty, int skip_root) {
    int n = c->nobj, start = (int)wl_below(&c->rng, (uint64_t)n);
    for (int k = 0; k < n; k++) {
        int i = (start + k) % n;
        struct wl_obj *o = &c->obj[i];
        if (!o->live || (t >= 0 && (int)o->type != t) || (skip_root && o->parent < 0)) continue;
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

/* Returns the attributes a post_op_attr carries, or NULL. */
static const fattr3 *wl_post_attr(const post_op_attr *p) {
    return p->attributes_follow ? &p->post_op_attr_u.attributes : NULL;
}

/* Returns the model's type for an NFS file type. */
static enum wl_type wl_type_of(ftype3 t) {
    return t == NF3DIR ? WL_DIR : t == NF3LNK ? WL_LINK : t == NF3FIFO ? WL_FIFO : WL_FILE;
}

/* Copies mode, owner and group from a (when a reply had them) into model
 * object i, so that permission calls are chosen by what the server said. */
static void wl_obj_attrs(struct wl_client *c, int i, const fattr3 *a) {
    if (!a || i < 0) return;
    c->obj[i].mode = a->mode & 07777;
    c->obj[i].uid = a->uid;
    c->obj[i].gid = a->gid;
}

/* Applies a successful namespace call to the model. data is the decoded
 * result (owned by libnfs, valid during the callback only). */
static void wl_apply(struct wl_call *k, void *data) {
    struct wl_client *c = k->c;
    nfs_fh3 fh;
    int got = -1;
    const post_op_attr *pa = NULL; /* attributes of a new entry */
    switch (k->proc) {
    case NFS3_CREATE: {
        CREATE3resok *ok = &((CREATE3res *)data)->CREATE3res_u.resok;
        got = wl_post_fh(&ok->obj, &fh);
        pa = &ok->obj_attributes;
        break;
    }
    case NFS3_MKDIR: {
        MKDIR3resok *ok = &((MKDIR3res *)data)->MKDIR3res_u.resok;
        got = wl_post_fh(&ok->obj, &fh);
        pa = &ok->obj_attributes;
        break;
    }
    case NFS3_SYMLINK: {
        SYMLINK3resok *ok = &((SYMLINK3res *)data)->SYMLINK3res_u.resok;
        got = wl_post_fh(&ok->obj, &fh);
        pa = &ok->obj_attributes;
        break;
    }
    case NFS3_MKNOD: {
        MKNOD3resok *ok = &((MKNOD3res *)data)->MKNOD3res_u.resok;
        got = wl_post_fh(&ok->obj, &fh);
        pa = &ok->obj_attributes;
        break;
    }
    case NFS3_LINK: {
        char copy[NFS3_FHSIZE]; /* wl_obj_add may move c->obj */
        fh = wl_fh(c, k->obj2);
        memcpy(copy, fh.data.data_val, fh.data.data_len);
        fh.data.data_val = copy;
        int i = wl_obj_add(c, WL_FILE, k->obj, k->name, &fh);
        c->obj[i].mode = c->obj[k->obj2].mode;
        c->obj[i].uid = c->obj[k->obj2].uid;
        c->obj[i].gid = c->obj[k->obj2].gid;
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
    if (got == 0) {
        int i = wl_obj_add(c, (enum wl_type)k->newtype, k->obj, k->name, &fh);
        wl_obj_attrs(c, i, wl_post_attr(pa));
    }
}

/* Returns the foreign slot a new entry with handle fh takes (round robin),
 * or -1 when an entry with that handle is known already. */
static int wl_foreign_slot(struct wl_client *c, const nfs_fh3 *fh) {
    for (int i = 0; i < WL_NFOREIGN; i++) {
        const struct wl_foreign *e = &c->foreign[i];
        if (e->live && e->fhlen == fh->data.data_len && memcmp(e->fh, fh->data.data_val, e->fhlen) == 0)
            return -1;
    }
    int s = c->nextforeign;
    c->nextforeign = (s + 1) % WL_NFOREIGN;
    return s;
}

/* Remembers the entries of shared directory dir's listing that another uid
 * owns, for the lookups, reads and permission changes of others' files. */
static void wl_learn(struct wl_client *c, int dir, const READDIRPLUS3resok *ok) {
    entryplus3 ent, *e = &ent;
    for (const void *p = ok->reply.entries; p; p = ent.nextentry) {
        memcpy(&ent, p, sizeof(ent)); /* libnfs's decoder aligns the entries to 4 bytes only */
        const fattr3 *a = wl_post_attr(&e->name_attributes);
        const nfs_fh3 *fh = &e->name_handle.post_op_fh3_u.handle;
        if (!a || !e->name_handle.handle_follows || a->uid == c->uid.uid || !e->name ||
            strcmp(e->name, ".") == 0 || strcmp(e->name, "..") == 0 || strlen(e->name) >= WL_NAME ||
            fh->data.data_len > NFS3_FHSIZE)
            continue;
        int s = wl_foreign_slot(c, fh);
        if (s < 0) continue;
        struct wl_foreign *f = &c->foreign[s];
        f->live = 1;
        f->dir = dir;
        f->gen++;
        f->type = wl_type_of(a->type);
        f->mode = a->mode & 07777;
        f->uid = a->uid;
        f->gid = a->gid;
        f->size = a->size;
        f->fhlen = fh->data.data_len;
        memcpy(f->fh, fh->data.data_val, f->fhlen);
        snprintf(f->name, WL_NAME, "%s", e->name);
    }
}

/* Returns the attributes of the call's object that reply data shows, success
 * or not (NULL when none): GETATTR, SETATTR, LOOKUP, READDIRPLUS. */
static const fattr3 *wl_reply_attr(int proc, int nst, void *data) {
    switch (proc) {
    case NFS3_GETATTR:
        return nst == NFS3_OK ? &((GETATTR3res *)data)->GETATTR3res_u.resok.obj_attributes : NULL;
    case NFS3_SETATTR: {
        SETATTR3res *r = data;
        return wl_post_attr(nst == NFS3_OK ? &r->SETATTR3res_u.resok.obj_wcc.after
                                           : &r->SETATTR3res_u.resfail.obj_wcc.after);
    }
    case NFS3_LOOKUP:
        return nst == NFS3_OK ? wl_post_attr(&((LOOKUP3res *)data)->LOOKUP3res_u.resok.obj_attributes) : NULL;
    case NFS3_READDIRPLUS: {
        READDIRPLUS3res *r = data;
        return wl_post_attr(nst == NFS3_OK ? &r->READDIRPLUS3res_u.resok.dir_attributes
                                           : &r->READDIRPLUS3res_u.resfail.dir_attributes);
    }
    default: return NULL;
    }
}

/* Brings the model up to date with what any reply shows, beyond wl_apply:
 * attributes of the call's object, the entries of a shared directory's
 * listing, and what is gone (NOENT, STALE). Other clients change the shared
 * directories behind this client's back (--shared), so its model may be
 * stale; a reply it did not foresee corrects it and the run goes on. */
static void wl_refresh(struct wl_call *k, int nst, void *data) {
    struct wl_client *c = k->c;
    const fattr3 *a = wl_reply_attr(k->proc, nst, data);
    if (k->proc == NFS3_READDIRPLUS && nst == NFS3_OK && c->foreign && k->target >= 0 &&
        c->obj[k->target].shared)
        wl_learn(c, k->target, &((READDIRPLUS3res *)data)->READDIRPLUS3res_u.resok);
    if ((k->proc == NFS3_REMOVE || k->proc == NFS3_RMDIR) && nst == NFS3ERR_NOENT) wl_obj_kill(c, k->obj2);
    wl_obj_attrs(c, k->target, a);
    if (k->fslot < 0 || c->foreign[k->fslot].gen != k->fgen) return;
    struct wl_foreign *f = &c->foreign[k->fslot];
    if (nst == NFS3ERR_NOENT || nst == NFS3ERR_STALE) f->live = 0;
    if (!a) return;
    f->mode = a->mode & 07777;
    f->uid = a->uid;
    f->gid = a->gid;
}

/* The one reply callback: counts the result per procedure and status, updates
 * the model for namespace calls, frees the call. A transport error marks the
 * client failed. */
static void wl_reply(struct rpc_context *rpc, int status, void *data, void *priv) {
    struct wl_call *k = priv;
    struct wl_client *c = k->c;
    (void)rpc;
    c->inflight--;
    wl_g->last_reply = tbbt_now_ns();
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
        if (nst == NFS3ERR_ACCES) c->st.acces++;
        if (k->proc != NFS3_NULL) wl_refresh(k, nst, data);
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
    k->target = -1;
    k->fslot = -1;
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
    c->st.chmod += (k->sets & WL_SET_MODE) != 0;
    c->st.chown += (k->sets & WL_SET_UID) != 0;
    c->st.chgrp += (k->sets & WL_SET_GID) != 0;
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

/* ---- names ----------------------------------------------------------------- */

/* Returns the live entry called name in model directory dir, or -1. */
static int wl_child(struct wl_client *c, int dir, const char *name) {
    for (int i = 0; i < c->nobj; i++)
        if (c->obj[i].live && c->obj[i].parent == dir && strcmp(c->obj[i].name, name) == 0) return i;
    return -1;
}

/* Host parts of maildir names (prefix, two digits, suffix): 23 to 81 bytes,
 * which keep a whole name between 60 and 150 bytes. */
static const char *const wl_mail_hosts[][2] = {
    {"mailhost-", ".example.org"},
    {"mx-", ".mail.example-university.edu"},
    {"imap-backend-", ".storage-pool-04.mail-cluster.example.com"},
    {"delivery-agent-", ".maildir-shard-17.frankfurt-dc2.mail-infrastructure.example.org"},
};

/* Folder names of a maildir (and Maildir++ subfolders), made when the
 * directory does not have one yet. */
static const char *const wl_mail_dirs[] = {"new",   "cur",     "tmp",    ".Archive.2025",
                                           ".Sent", ".Drafts", ".Trash", ".Lists.nfs-users"};

/* Pieces of the long project-style directory names users make. */
static const char *const wl_project_words[] = {"Phoenix", "Atlas", "Kestrel", "Meridian", "Borealis"};
static const char *const wl_project_topics[] = {
    "notes",
    "quarterly-report",
    "capacity-planning-and-budget-review",
    "infrastructure-migration-working-documents-and-minutes-of-the-steering-group",
};

#define WL_NELEM(a) (sizeof(a) / sizeof((a)[0]))
#define WL_MAIL_FLAGS "DFPRST" /* maildir info flags, in the order a name lists them */
#define WL_MAIL_SEEN (1u << 4) /* S */

/* Writes the maildir flags of bit mask m (bit i: WL_MAIL_FLAGS[i]) into buf
 * (7 bytes at least). */
static void wl_mail_flags(unsigned m, char *buf) {
    int n = 0;
    for (int i = 0; i < 6; i++)
        if (m & (1u << i)) buf[n++] = WL_MAIL_FLAGS[i];
    buf[n] = '\0';
}

/* Makes a maildir message name for a new entry in directory dir, as a
 * delivery agent names it: time, microseconds, pid and a per-process counter
 * (which keep it unique across clients), host, size and lines-adjusted size;
 * outside new/ and tmp/ it has the ":2," flags a mail client adds. Each
 * random draw is its own statement: their order must not depend on the
 * compiler. */
static void wl_mail_msgname(struct wl_client *c, int dir, char *buf) {
    uint64_t t = 1764174000u + (uint64_t)c->serial * 7;
    t += wl_below(&c->rng, 7);
    uint64_t usec = wl_below(&c->rng, 1000000);
    uint64_t size = 300 + (wl_below(&c->rng, 4) ? wl_below(&c->rng, 60000) : wl_below(&c->rng, 30000000));
    const char *const *h = wl_mail_hosts[wl_below(&c->rng, WL_NELEM(wl_mail_hosts))];
    unsigned hn = (unsigned)wl_below(&c->rng, 100);
    int n = snprintf(buf, WL_NAME, "%" PRIu64 ".M%06" PRIu64 "P%uQ%ld.%s%02u%s,S=%" PRIu64 ",W=%" PRIu64, t,
                     usec, c->pid, c->serial++, h[0], hn, h[1], size, size + size / 40);
    const char *dn = c->obj[dir].name;
    if (strcmp(dn, "new") == 0 || strcmp(dn, "tmp") == 0 || n < 0 || n >= WL_NAME - 10) return;
    unsigned m = wl_below(&c->rng, 4) ? WL_MAIL_SEEN : 0;
    m |= wl_below(&c->rng, 5) == 0 ? 1u << 3 : 0;  /* R: replied */
    m |= wl_below(&c->rng, 10) == 0 ? 1u << 1 : 0; /* F: flagged */
    char fl[8];
    wl_mail_flags(m, fl);
    snprintf(buf + n, (size_t)(WL_NAME - n), ":2,%s", fl);
}

/* Makes a directory name for a maildir user in dir: a maildir folder when
 * dir has none of that name yet, else a long project-style name (unique by
 * pid and counter). */
static void wl_mail_dirname(struct wl_client *c, int dir, char *buf) {
    uint64_t k = wl_below(&c->rng, WL_NELEM(wl_mail_dirs) + 4);
    for (uint64_t j = 0; k < 8 && j < 3; j++) /* mostly, complete a maildir: new, cur, tmp */
        if (wl_child(c, dir, wl_mail_dirs[j]) < 0) {
            k = j;
            break;
        }
    if (k < WL_NELEM(wl_mail_dirs) && wl_child(c, dir, wl_mail_dirs[k]) < 0) {
        snprintf(buf, WL_NAME, "%s", wl_mail_dirs[k]);
        return;
    }
    const char *w = wl_project_words[wl_below(&c->rng, WL_NELEM(wl_project_words))];
    unsigned year = 2024 + (unsigned)wl_below(&c->rng, 3);
    unsigned q = 1 + (unsigned)wl_below(&c->rng, 4);
    const char *topic = wl_project_topics[wl_below(&c->rng, WL_NELEM(wl_project_topics))];
    snprintf(buf, WL_NAME, "Project-%s_%u-Q%u_%s_%u-%ld", w, year, q, topic, c->pid, c->serial++);
}

/* Returns where a message is delivered when d was drawn: half the time
 * into d's new/ when d is a maildir (as far as the model knows), else d. */
static int wl_mail_deliver(struct wl_client *c, int d) {
    if (c->names == WL_NAMES_SHORT || !wl_below(&c->rng, 2)) return d;
    int n = wl_child(c, d, "new");
    return n >= 0 && c->obj[n].type == WL_DIR ? n : d;
}

/* Makes a fresh name for a new entry in directory dir into buf: short names
 * are prefix p and a counter (with the client's number in the shared
 * directories' runs, where clients' names must not meet); 'd' is a
 * directory. */
static void wl_newname(struct wl_client *c, const char *p, int dir, char *buf) {
    int style = c->names;
    if (style == WL_NAMES_MIXED) style = wl_below(&c->rng, 2) ? WL_NAMES_MAILDIR : WL_NAMES_SHORT;
    if (style == WL_NAMES_MAILDIR && *p == 'd')
        wl_mail_dirname(c, dir, buf);
    else if (style == WL_NAMES_MAILDIR)
        wl_mail_msgname(c, dir, buf);
    else if (c->nshared)
        snprintf(buf, WL_NAME, "%s%ld.c%d", p, c->serial++, c->id);
    else
        snprintf(buf, WL_NAME, "%s%ld", p, c->serial++);
}

/* Returns mode less the client's umask, as a real client sends it. */
static uint32_t wl_umode(const struct wl_client *c, uint32_t mode) {
    return mode & ~c->umask;
}

/* Returns a directory to create in: the root or a live subdirectory (max two
 * levels, so trees stay shallow like home directories); with --shared, a
 * shared directory one time in three. */
static int wl_pick_dir(struct wl_client *c) {
    if (c->nshared && wl_below(&c->rng, 3) == 0) return 1 + (int)wl_below(&c->rng, (uint64_t)c->nshared);
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

/* Issues the rename a mail client makes when a message is read or flagged:
 * the unique part of the name stays and only its ":2," flags change (one
 * flag toggled, or seen added to a message without flags); a message in new/
 * moves to the sibling cur/ when the model has one. Returns 0 when issued,
 * -1 when f's name is not a maildir message's. */
static int wl_issue_flag_rename(struct wl_client *c, int f) {
    static const unsigned toggles[] = {1, 3, 4, 5}; /* F, R, S, T */
    const char *name = c->obj[f].name, *info = strstr(name, ":2,");
    if (!strstr(name, ",W=")) return -1;
    int from = c->obj[f].parent, to = from, up = c->obj[from].parent;
    unsigned m = 0;
    for (const char *p = info ? info + 3 : ""; *p; p++) {
        const char *q = strchr(WL_MAIL_FLAGS, *p);
        if (q) m |= 1u << (q - WL_MAIL_FLAGS);
    }
    if (info)
        m ^= 1u << toggles[wl_below(&c->rng, WL_NELEM(toggles))];
    else
        m |= WL_MAIL_SEEN;
    if (strcmp(c->obj[from].name, "new") == 0 && up >= 0) {
        int cur = wl_child(c, up, "cur");
        if (cur >= 0 && c->obj[cur].type == WL_DIR) {
            to = cur;
            m |= WL_MAIL_SEEN;
        }
    }
    char fl[8];
    wl_mail_flags(m, fl);
    struct wl_call *k = wl_call_new(c, NFS3_RENAME, to);
    k->obj2 = f;
    snprintf(k->name, WL_NAME, "%.*s:2,%s", (int)(info ? (size_t)(info - name) : strlen(name)), name, fl);
    snprintf(k->name2, WL_NAME, "%s", name);
    RENAME3args a;
    nfs_fh3 dfh = wl_fh(c, from);
    a.from.dir = dfh;
    a.from.name = k->name2;
    a.to.dir = wl_fh(c, to);
    a.to.name = k->name;
    wl_sent(c, k, rpc_nfs3_rename_async(c->rpc, wl_reply, &a, k), 1);
    return 0;
}

/* Returns 1 when model object i lies under a shared directory. */
static int wl_in_shared(const struct wl_client *c, int i) {
    while (c->obj[i].parent >= 0)
        i = c->obj[i].parent;
    return c->obj[i].shared;
}

/* Returns a live foreign entry of type t (any when t < 0), or -1. */
static int wl_pick_foreign(struct wl_client *c, int t) {
    int start = (int)wl_below(&c->rng, WL_NFOREIGN);
    for (int j = 0; j < WL_NFOREIGN; j++) {
        int i = (start + j) % WL_NFOREIGN;
        if (c->foreign[i].live && (t < 0 || (int)c->foreign[i].type == t)) return i;
    }
    return -1;
}

/* Fills an nfs_fh3 that points into foreign entry i. */
static nfs_fh3 wl_ffh(struct wl_client *c, int i) {
    nfs_fh3 fh;
    fh.data.data_len = c->foreign[i].fhlen;
    fh.data.data_val = c->foreign[i].fh;
    return fh;
}

/* Ties call k to foreign entry i, so that its reply updates that entry (and
 * not a later one in the same slot). */
static void wl_foreign_call(struct wl_client *c, struct wl_call *k, int i) {
    k->fslot = i;
    k->fgen = c->foreign[i].gen;
}

/* Fills *a for a chmod, chown or chgrp by c's current identity of an object
 * of type t that the model shows with mode, uid and gid, and sets k->sets.
 * As on a real system only the owner or uid 0 changes mode and group, and
 * only uid 0 the owner: returns -1 when the identity may not (as far as the
 * model knows; a stale model earns a PERM reply). */
static int wl_perm_attr(struct wl_run *r, struct wl_client *c, enum wl_type t, uint32_t mode, uint32_t uid,
                        uint32_t gid, struct wl_call *k, sattr3 *a) {
    static const uint32_t dmodes[] = {0700, 0755, 0775, 0777}, fmodes[] = {0600, 0644, 0664};
    int root = c->cur_uid == 0;
    if (!root && uid != c->cur_uid) return -1;
    uint64_t kind = wl_below(&c->rng, root ? 3 : 4); /* owner: chmod 3 in 4, else chgrp */
    if (!root) kind = kind == 3 ? 2 : 0;
    memset(a, 0, sizeof(*a));
    if (kind == 0 || r->nuids < 2) {
        const uint32_t *m = t == WL_DIR ? dmodes : fmodes;
        uint64_t n = t == WL_DIR ? WL_NELEM(dmodes) : WL_NELEM(fmodes), j = wl_below(&c->rng, n);
        *a = wl_mode_attr(m[j] == mode ? m[(j + 1) % n] : m[j]);
        k->sets = WL_SET_MODE;
    } else if (kind == 1) {
        uint64_t j = wl_below(&c->rng, (uint64_t)r->nuids);
        if (r->uids[j].uid == uid) j = (j + 1) % (uint64_t)r->nuids;
        a->uid.set_it = 1;
        a->uid.set_uid3_u.uid = r->uids[j].uid;
        k->sets = WL_SET_UID;
    } else {
        uint64_t j = wl_below(&c->rng, (uint64_t)r->nuids);
        if (r->uids[j].gid == gid) j = (j + 1) % (uint64_t)r->nuids;
        a->gid.set_it = 1; /* a user's own group when it is not it, as chgrp allows */
        a->gid.set_gid3_u.gid = !root && gid != c->cur_gid ? c->cur_gid : r->uids[j].gid;
        k->sets = WL_SET_GID;
    }
    return 0;
}

/* Issues a permission change in the shared area (--shared): of a shared
 * directory, of one of the client's own entries there, or of an entry
 * another client made. Returns 0 when issued, -1 when the object drawn is
 * none the client's identity may change (the caller falls back). */
static int wl_issue_perm(struct wl_run *r, struct wl_client *c) {
    uint64_t which = wl_below(&c->rng, 3);
    int obj = -1, fs = -1;
    if (which == 0)
        obj = 1 + (int)wl_below(&c->rng, (uint64_t)c->nshared);
    else if (which == 1)
        fs = wl_pick_foreign(c, -1);
    else if ((obj = wl_pick(c, -1, 0, 1)) >= 0 && !wl_in_shared(c, obj))
        obj = -1;
    if (obj < 0 && fs < 0) return -1;
    const struct wl_foreign *f = fs >= 0 ? &c->foreign[fs] : NULL;
    const struct wl_obj *o = obj >= 0 ? &c->obj[obj] : NULL;
    enum wl_type t = f ? f->type : o->type;
    if (t != WL_FILE && t != WL_DIR) return -1;
    struct wl_call *k = wl_call_new(c, NFS3_SETATTR, obj);
    SETATTR3args a;
    memset(&a, 0, sizeof(a));
    if (wl_perm_attr(r, c, t, f ? f->mode : o->mode, f ? f->uid : o->uid, f ? f->gid : o->gid, k,
                     &a.new_attributes) < 0) {
        free(k);
        return -1;
    }
    a.object = f ? wl_ffh(c, fs) : wl_fh(c, obj);
    k->target = obj;
    if (f) wl_foreign_call(c, k, fs);
    wl_sent(c, k, rpc_nfs3_setattr_async(c->rpc, wl_reply, &a, k), 1);
    return 0;
}

/* Issues a namespace-changing call (one at a time). Returns 0 when a call was
 * issued, -1 when the chosen kind had nothing to act on (caller falls back). */
static int wl_issue_ns(struct wl_run *r, struct wl_client *c, int proc) {
    struct wl_call *k;
    int rc = -1, d, f;
    nfs_fh3 dfh;
    switch (proc) {
    case NFS3_CREATE: {
        d = wl_mail_deliver(c, wl_pick_dir(c));
        k = wl_call_new(c, proc, d);
        wl_newname(c, "f", d, k->name);
        k->newtype = WL_FILE;
        CREATE3args a;
        memset(&a, 0, sizeof(a));
        a.where.dir = wl_fh(c, d);
        a.where.name = k->name;
        a.how.mode = wl_below(&c->rng, 4) ? UNCHECKED : GUARDED;
        a.how.createhow3_u.obj_attributes = wl_mode_attr(wl_umode(c, 0666));
        rc = rpc_nfs3_create_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_MKDIR: {
        d = wl_pick_dir(c);
        k = wl_call_new(c, proc, d);
        wl_newname(c, "d", d, k->name);
        k->newtype = WL_DIR;
        MKDIR3args a;
        memset(&a, 0, sizeof(a));
        a.where.dir = wl_fh(c, d);
        a.where.name = k->name;
        a.attributes = wl_mode_attr(wl_umode(c, 0777));
        rc = rpc_nfs3_mkdir_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_SYMLINK: {
        d = wl_pick_dir(c);
        f = wl_pick(c, WL_FILE, 0, 1);
        k = wl_call_new(c, proc, d);
        wl_newname(c, "l", d, k->name);
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
        wl_newname(c, "p", d, k->name);
        k->newtype = WL_FIFO;
        MKNOD3args a;
        memset(&a, 0, sizeof(a));
        a.where.dir = wl_fh(c, d);
        a.where.name = k->name;
        a.what.type = NF3FIFO;
        a.what.mknoddata3_u.pipe_attributes = wl_mode_attr(wl_umode(c, 0666));
        rc = rpc_nfs3_mknod_async(c->rpc, wl_reply, &a, k);
        break;
    }
    case NFS3_LINK: {
        if ((f = wl_pick(c, WL_FILE, 0, 1)) < 0) return -1;
        d = wl_pick_dir(c);
        k = wl_call_new(c, proc, d);
        k->obj2 = f;
        wl_newname(c, "h", d, k->name);
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
        if (c->names != WL_NAMES_SHORT && wl_below(&c->rng, 2) && wl_issue_flag_rename(c, f) == 0) return 0;
        int over = wl_below(&c->rng, 2) ? wl_pick(c, WL_FILE, 0, 1) : -1;
        if (over == f) over = -1;
        d = over >= 0 ? c->obj[over].parent : wl_pick_dir(c);
        k = wl_call_new(c, proc, d);
        k->obj2 = f;
        k->newtype = over; /* the entry replaced, killed on success */
        if (over >= 0)
            snprintf(k->name, WL_NAME, "%s", c->obj[over].name);
        else
            wl_newname(c, "r", d, k->name);
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
        if (c->nshared && wl_below(&c->rng, 3) && wl_issue_perm(r, c) == 0) return 0;
        if ((f = wl_pick(c, WL_FILE, 0, 1)) < 0) return -1;
        k = wl_call_new(c, proc, f);
        k->target = f;
        SETATTR3args a;
        memset(&a, 0, sizeof(a));
        a.object = wl_fh(c, f);
        if (wl_below(&c->rng, 2)) {
            a.new_attributes.size.set_it = 1;
            k->size = wl_below(&c->rng, 3) ? 0 : wl_below(&c->rng, 1 << 20);
            a.new_attributes.size.set_size3_u.size = k->size;
        } else {
            a.new_attributes = wl_mode_attr(wl_below(&c->rng, 2) ? 0600 : 0664);
            k->sets = WL_SET_MODE;
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
    int rc = -1, f, fs;
    uint32_t max = (uint32_t)r->o.max_io;
    switch (proc) {
    case NFS3_NULL:
        k = wl_call_new(c, proc, -2);
        rc = rpc_nfs3_null_async(c->rpc, wl_reply, k);
        break;
    case NFS3_GETATTR: {
        f = wl_pick(c, -1, 0, 0);
        k = wl_call_new(c, proc, -2);
        k->target = f;
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
        if (c->nshared && wl_below(&c->rng, 3) == 0 && (fs = wl_pick_foreign(c, -1)) >= 0) {
            k = wl_call_new(c, proc, -2); /* a name another client made */
            wl_foreign_call(c, k, fs);
            snprintf(k->name, WL_NAME, "%s", c->foreign[fs].name);
            LOOKUP3args a = {.what = {.dir = wl_fh(c, c->foreign[fs].dir), .name = k->name}};
            rc = rpc_nfs3_lookup_async(c->rpc, wl_reply, &a, k);
            break;
        }
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
        if (c->nshared && wl_below(&c->rng, 4) == 0 && (fs = wl_pick_foreign(c, WL_FILE)) >= 0) {
            k = wl_call_new(c, proc, -2); /* a file another client made */
            wl_foreign_call(c, k, fs);
            READ3args a = {.file = wl_ffh(c, fs), .offset = 0, .count = wl_io_size(c, max)};
            rc = rpc_nfs3_read_async(c->rpc, wl_reply, &a, k);
            break;
        }
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
        /* with --shared, half the listings are of shared directories: how
           a client learns what the others made */
        if (c->nshared && wl_below(&c->rng, 2))
            f = 1 + (int)wl_below(&c->rng, (uint64_t)c->nshared);
        else
            f = wl_pick(c, WL_DIR, 0, 0);
        k = wl_call_new(c, proc, -2);
        k->target = f;
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
        if (r->o.think && tbbt_now_ns() < c->next_ns) return; /* still thinking */
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
        if (r->o.think)
            c->next_ns = tbbt_now_ns() + (int64_t)wl_below(&c->trng, 2000u * (uint64_t)r->o.think + 1);
    }
}

/* ---- connection and event loop -------------------------------------------- */

/* Returns seconds elapsed since t (tbbt_now_ns). */
static double wl_since(int64_t t) {
    return (double)(tbbt_now_ns() - t) / 1e9;
}

/* How long the loop may wait for a socket, ms: 100, or until the first
 * thinking client (--think) may call again (rounded up). */
static int wl_wait_ms(struct wl_run *r) {
    int64_t w = 100000000, now = r->o.think ? tbbt_now_ns() : 0;
    for (int i = 0; r->o.think && i < r->o.clients; i++) {
        const struct wl_client *c = &r->cl[i];
        if (c->todo > 0 && !c->failed && c->next_ns - now < w) w = c->next_ns > now ? c->next_ns - now : 0;
    }
    return (int)((w + 999999) / 1000000);
}

/* Runs poll() over the clients until done(r) says stop, every client is idle,
 * or no reply came for --timeout seconds. Returns 0, or -1 on timeout or when
 * a client's connection failed. */
static int wl_loop(struct wl_run *r, int (*done)(struct wl_run *)) {
    int n = (int)r->o.clients;
    struct pollfd pfd[WL_MAX_CLIENTS];
    r->last_reply = tbbt_now_ns();
    while (!done(r)) {
        for (int i = 0; i < n; i++) {
            if (r->cl[i].failed) return -1;
            pfd[i].fd = rpc_get_fd(r->cl[i].rpc);
            pfd[i].events = (short)rpc_which_events(r->cl[i].rpc);
            pfd[i].revents = 0;
        }
        if (poll(pfd, (nfds_t)n, wl_wait_ms(r)) < 0 && errno != EINTR) wl_die("poll: %s", strerror(errno));
        for (int i = 0; i < n; i++) {
            if (rpc_service(r->cl[i].rpc, pfd[i].revents) < 0) {
                fprintf(stderr, "tbbt-workload: client %d: connection lost: %s\n", i,
                        rpc_get_error(r->cl[i].rpc));
                r->cl[i].failed = 1;
                return -1;
            }
        }
        if (wl_since(r->last_reply) > (double)r->o.timeout) {
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
    int64_t t0 = tbbt_now_ns();
    while (!s->done) {
        struct pollfd p = {.fd = rpc_get_fd(rpc), .events = (short)rpc_which_events(rpc)};
        if (poll(&p, 1, 100) < 0 && errno != EINTR) return -1;
        if (rpc_service(rpc, p.revents) < 0) {
            snprintf(s->err, sizeof(s->err), "%s", rpc_get_error(rpc));
            return -1;
        }
        if (wl_since(t0) > (double)r->o.timeout) {
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
        if (wl_since(r->last_reply) > (double)r->o.timeout) wl_die("client %d: %s: timed out", c->id, what);
    }
    if (s->rpcstatus != RPC_STATUS_SUCCESS) wl_die("client %d: %s failed", c->id, what);
}

/* Looks name up in dir with a set-up call; fills *s (status, handle). Dies
 * on transport failure. */
static void wl_sync_lookup(struct wl_run *r, struct wl_client *c, nfs_fh3 dir, const char *name,
                           struct wl_sync *s) {
    r->last_reply = tbbt_now_ns();
    memset(s, 0, sizeof(*s));
    s->proc = NFS3_LOOKUP;
    LOOKUP3args la = {.what = {.dir = dir, .name = tbbt_unconst(name)}};
    c->st.calls[NFS3_LOOKUP]++;
    if (rpc_nfs3_lookup_async(c->rpc, wl_sync_cb, &la, s) < 0) wl_die("client %d: cannot queue", c->id);
    wl_sync_wait(r, c, s, "LOOKUP");
    (s->nfsstatus == NFS3_OK ? c->st.ok : c->st.err)[NFS3_LOOKUP]++;
}

/* Looks up name in dir, making it a directory (mode 0777, owner u) when
 * missing. Fills *out (backed by buf). Dies when neither works. */
static void wl_ensure_dir(struct wl_run *r, struct wl_client *c, nfs_fh3 dir, const char *name,
                          struct wl_uid u, nfs_fh3 *out, char *buf) {
    struct wl_sync s;
    wl_sync_lookup(r, c, dir, name, &s);
    if (s.nfsstatus != NFS3_OK) {
        memset(&s, 0, sizeof(s));
        s.proc = NFS3_MKDIR;
        MKDIR3args ma;
        memset(&ma, 0, sizeof(ma));
        ma.where.dir = dir;
        ma.where.name = tbbt_unconst(name);
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

/* Adds the shared directories DIR/shared/sK to c's model as roots obj[1..N]
 * (--shared): client 0 makes them (owner its uid, mode 0777; DIR/shared is
 * root's, like DIR), the others look them up. Dies when that fails. */
static void wl_setup_shared(struct wl_run *r, struct wl_client *c, nfs_fh3 top) {
    static char sbuf[NFS3_FHSIZE];
    struct wl_uid rootid = {0, 0}, owner = r->cl[0].uid;
    struct wl_sync s;
    nfs_fh3 shared = {{0, NULL}}, d;
    char dbuf[NFS3_FHSIZE], name[32];
    for (int k = -1; k < r->o.shared; k++) {
        const char *what = k < 0 ? "shared" : name;
        snprintf(name, sizeof(name), "s%d", k);
        if (c->id == 0) {
            wl_ensure_dir(r, c, k < 0 ? top : shared, what, k < 0 ? rootid : owner, &d, dbuf);
        } else {
            wl_sync_lookup(r, c, k < 0 ? top : shared, what, &s);
            if (s.nfsstatus != NFS3_OK || s.fh.data.data_len == 0)
                wl_die("client %d: shared directory %s not found: %s", c->id, what,
                       tbbt_nfsstat_name(s.nfsstatus) ? tbbt_nfsstat_name(s.nfsstatus) : "no handle");
            memcpy(dbuf, s.buf, s.fh.data.data_len);
            d.data.data_len = s.fh.data.data_len;
            d.data.data_val = dbuf;
        }
        if (k < 0) {
            memcpy(sbuf, dbuf, d.data.data_len);
            shared.data.data_len = d.data.data_len;
            shared.data.data_val = sbuf;
            continue;
        }
        int i = wl_obj_add(c, WL_DIR, -1, name, &d);
        c->obj[i].shared = 1;
        c->obj[i].mode = 0777;
        c->obj[i].uid = owner.uid;
        c->obj[i].gid = owner.gid;
    }
    c->nshared = (int)r->o.shared;
    c->foreign = calloc(WL_NFOREIGN, sizeof(*c->foreign));
    if (!c->foreign) wl_die("out of memory");
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

/* Parses the --umask list (octal masks) into r->umasks. 0 or -1 with err. */
static int wl_parse_umasks(struct wl_run *r, const char *list, char *err, size_t errlen) {
    const char *p = list;
    r->numasks = 0;
    while (*p) {
        char *end;
        unsigned long m = strtoul(p, &end, 8);
        if (end == p || m > 0777 || (*end && *end != ',') || r->numasks == WL_MAX_UMASKS) goto bad;
        r->umasks[r->numasks++] = (uint32_t)m;
        p = *end ? end + 1 : end;
    }
    if (r->numasks > 0) return 0;
bad:
    snprintf(err, errlen, "--umask: '%s' is not a list of octal masks up to 0777 (at most %d)", list,
             WL_MAX_UMASKS);
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
    for (int i = 0; i < r->o.clients; i++) {
        t.chmod += r->cl[i].st.chmod;
        t.chown += r->cl[i].st.chown;
        t.chgrp += r->cl[i].st.chgrp;
        t.acces += r->cl[i].st.acces;
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
    printf("%-12s chmod %" PRIu64 " chown %" PRIu64 " chgrp %" PRIu64 ", ACCES replies %" PRIu64 "\n",
           "permissions", t.chmod, t.chown, t.chgrp, t.acces);
}

int main(int argc, char **argv) {
    static struct wl_run run;
    struct wl_run *r = &run;
    char err[512] = "";
    wl_g = r;
    wl_parse(argc, argv, &r->o);
    if (wl_parse_url(r->o.url, &r->url, err, sizeof(err)) < 0 ||
        wl_parse_uids(r, r->o.uids, err, sizeof(err)) < 0 ||
        wl_parse_umasks(r, r->o.umask, err, sizeof(err)) < 0 || strchr(r->o.dir, '/') || !*r->o.dir) {
        fprintf(stderr, "tbbt-workload: %s (--help for usage)\n", err[0] ? err : "--dir must be one name");
        return 2;
    }
    uint64_t prng = (uint64_t)r->o.seed * 0x2545f4914f6cdd1dull + 7;
    r->payload = malloc(2u << 20);
    if (!r->payload) wl_die("out of memory");
    for (size_t i = 0; i < (2u << 20) / 8; i++) {
        uint64_t v = tbbt_splitmix64(&prng);
        memcpy(r->payload + i * 8, &v, 8);
    }

    int64_t t0 = tbbt_now_ns();
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
        c->names = (int)r->o.names;
        c->umask = r->umasks[i % r->numasks];
        c->pid = 1000u + 1000u * (unsigned)i + (unsigned)(r->o.seed % 1000); /* distinct per client */
        c->trng = c->rng ^ 0x5851f42d4c957f2dull;
        wl_connect(r, c, &root, rootbuf[i]);
        /* DIR and DIR/cK are made as root, then handed to the client's uid */
        wl_set_auth(c, rootid);
        wl_ensure_dir(r, c, root, r->o.dir, rootid, &top, topbuf);
        char name[32];
        snprintf(name, sizeof(name), "c%d", i);
        wl_ensure_dir(r, c, top, name, c->uid, &cdir, cbuf);
        wl_obj_add(c, WL_DIR, -1, name, &cdir);
        c->obj[0].mode = 0777;
        c->obj[0].uid = c->uid.uid;
        c->obj[0].gid = c->uid.gid;
        if (r->o.shared) wl_setup_shared(r, c, top);
    }
    if (!r->o.quiet)
        fprintf(stderr, "tbbt-workload: %d clients connected to %s:%s, running %ld calls (seed %ld)\n",
                (int)r->o.clients, r->url.host, r->url.export, r->o.ops, r->o.seed);
    int rc = wl_loop(r, wl_all_done);
    wl_summary(r, wl_since(t0));
    for (int i = 0; i < r->o.clients; i++) {
        rpc_destroy_context(r->cl[i].rpc);
        free(r->cl[i].obj);
        free(r->cl[i].foreign);
    }
    free(r->payload);
    return rc < 0 ? 1 : 0;
}
