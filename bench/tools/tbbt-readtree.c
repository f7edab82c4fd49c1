/* tbbt-readtree: reads a whole tree of an NFS export, the way `grep -r`
 * through one NFS client reads it (the read test of the TBBT paper, 5.1.2,
 * in bench/init.sh: unaged against aged images).
 *
 *   tbbt-readtree [options] SERVER:/EXPORT
 *
 * Walks DIR (--dir, a '/'-separated path below the export's root; default
 * the root) depth first in directory order: READDIRPLUS for each
 * directory, and each regular file read from offset 0 to its size (from
 * READDIRPLUS's attributes; to EOF when they are missing) in READs of the
 * server's rtmax (at most 1 MiB), at most --depth of them in flight (a
 * client's read-ahead), one file after the other; a subdirectory is
 * walked when the walk meets it. One connection.
 *
 * Prints one line: directories, files, bytes read, seconds of the walk
 * (after MOUNT and connection) and MB/s. Exit: 0 done, 1 failed (a
 * one-line message names the path), 2 usage. */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>
#include <nfsc/libnfs-raw-nfs.h>

#include "outfile.h"
#include "clock.h"
#include "nfsconn.h"
#include "nfsfh.h"
#include "unconst.h"

#define RT_MAX_READ (1u << 20)

struct rt_cli {
    char *dir, *json;
    gint depth, timeout, nfsport, mountport;
    gboolean quiet;
};

static struct rt_cli cli = {.depth = 4, .timeout = 60};

/* The options, declared once: parsing and --help both come from here. */
static GOptionEntry rt_entries[] = {
    {"dir", 'D', 0, G_OPTION_ARG_STRING, &cli.dir, "Path below the export's root to read (default: all)",
     "PATH"},
    {"depth", 'd', 0, G_OPTION_ARG_INT, &cli.depth, "READs in flight within one file (default 4)", "N"},
    {"nfs-port", 0, 0, G_OPTION_ARG_INT, &cli.nfsport, "NFS port (default: ask the portmapper)", "PORT"},
    {"mount-port", 0, 0, G_OPTION_ARG_INT, &cli.mountport, "MOUNT port (default: ask the portmapper)",
     "PORT"},
    {"timeout", 0, 0, G_OPTION_ARG_INT, &cli.timeout, "Seconds to wait for one reply (default 60)", "SEC"},
    {"json", 0, 0, G_OPTION_ARG_FILENAME, &cli.json, "Also write the summary as JSON to FILE", "FILE"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &cli.quiet, "Print only errors", NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

/* The walk's state: one connection, counters, the first error. */
struct rt {
    struct rpc_context *rpc;
    int inflight, failed;
    char err[600];
    const char *path; /* the object being read, for messages */
    uint32_t rmax;
    uint64_t dirs, files, bytes, reads, readdirs;
    int eof; /* a READ of the current file reached its end */
};

/* One entry of a directory, kept until the directory is walked. */
struct rt_ent {
    char *name;
    struct tbbt_fh fh;
    uint32_t type; /* ftype3, 0 when unknown */
    int has_size;
    uint64_t size;
};

/* The reply of one synchronous call. */
struct rt_reply {
    struct rt *rt;
    int done, status;
    GArray *ents; /* READDIRPLUS: entries appended here */
    uint64_t cookie;
    uint8_t verf[NFS3_COOKIEVERFSIZE];
    int eof;
    struct tbbt_fh fh;
    uint32_t rtmax;
};

/* A usage error: one line, exit 2. */
static void usage(const char *what) {
    fprintf(stderr, "tbbt-readtree: %s (try --help)\n", what);
    exit(2);
}

/* Polls until *done is set (done not NULL) or at most "most" calls are in
 * flight: 0, or -1 with rt->err on a broken connection or a silence of
 * --timeout seconds. */
static int rt_wait(struct rt *rt, const int *done, int most) {
    char why[200];
    if (tbbt_nfs_pump(rt->rpc, done, &rt->inflight, most, cli.timeout, why, sizeof(why)) == 0) return 0;
    snprintf(rt->err, sizeof(rt->err), "%s: %s", rt->path, why);
    return -1;
}

/* Callback of FSINFO, LOOKUP and READDIRPLUS: fills the rt_reply. */
static void cb_sync(struct rpc_context *rpc, int status, void *data, void *priv, int proc) {
    struct rt_reply *r = priv;
    (void)rpc;
    r->rt->inflight--;
    r->done = 1;
    r->status = status ? -1 : (int)*(const nfsstat3 *)data;
    if (r->status != 0) return;
    if (proc == NFS3_FSINFO) r->rtmax = ((FSINFO3res *)data)->FSINFO3res_u.resok.rtmax;
    if (proc == NFS3_LOOKUP && tbbt_nfs_copy_fh(&((LOOKUP3res *)data)->LOOKUP3res_u.resok.object, &r->fh) < 0)
        r->status = -2;
    if (proc != NFS3_READDIRPLUS) return;
    const READDIRPLUS3resok *ok = &((READDIRPLUS3res *)data)->READDIRPLUS3res_u.resok;
    for (const entryplus3 *e = ok->reply.entries; e; e = e->nextentry) {
        r->cookie = e->cookie;
        if (!strcmp(e->name, ".") || !strcmp(e->name, "..")) continue;
        struct rt_ent en = {0};
        if (!e->name_handle.handle_follows ||
            tbbt_nfs_copy_fh(&e->name_handle.post_op_fh3_u.handle, &en.fh) < 0)
            continue; /* no handle: cannot be read without a LOOKUP; a READDIRPLUS server always gives it */
        if (e->name_attributes.attributes_follow) {
            const fattr3 *a = &e->name_attributes.post_op_attr_u.attributes;
            en.type = (uint32_t)a->type, en.has_size = 1, en.size = a->size;
        }
        en.name = g_strdup(e->name);
        g_array_append_val(r->ents, en);
    }
    r->eof = (int)ok->reply.eof;
    memcpy(r->verf, ok->cookieverf, NFS3_COOKIEVERFSIZE);
}

/* The libnfs callbacks, one per result type. */
static void cb_fsinfo(struct rpc_context *rpc, int st, void *d, void *p) {
    cb_sync(rpc, st, d, p, NFS3_FSINFO);
}
static void cb_lookup(struct rpc_context *rpc, int st, void *d, void *p) {
    cb_sync(rpc, st, d, p, NFS3_LOOKUP);
}
static void cb_readdirplus(struct rpc_context *rpc, int st, void *d, void *p) {
    cb_sync(rpc, st, d, p, NFS3_READDIRPLUS);
}

/* Waits for the call just issued (rc its _async result) and checks its
 * status. Returns 0, or -1 with "PATH: what failed" in rt->err. */
static int rt_finish(struct rt *rt, int rc, struct rt_reply *r, const char *path, const char *what) {
    if (rc < 0) {
        snprintf(rt->err, sizeof(rt->err), "%s: %s could not be sent: %s", path, what,
                 rpc_get_error(rt->rpc));
        return -1;
    }
    rt->inflight++;
    rt->path = path;
    if (rt_wait(rt, &r->done, 0) < 0) return -1;
    if (r->status == 0) return 0;
    snprintf(rt->err, sizeof(rt->err), "%s: %s failed (%s %d)", path, what, r->status < 0 ? "RPC" : "NFS",
             r->status);
    return -1;
}

/* Callback of one READ: counts its bytes, notes EOF. */
static void cb_read(struct rpc_context *rpc, int status, void *data, void *priv) {
    struct rt *rt = priv;
    (void)rpc;
    rt->inflight--;
    int s = status ? -1 : (int)*(const nfsstat3 *)data;
    if (s != 0) {
        if (!rt->failed)
            snprintf(rt->err, sizeof(rt->err), "%s: READ failed (%s %d)", rt->path, status ? "RPC" : "NFS",
                     s);
        rt->failed = 1;
        return;
    }
    const READ3resok *ok = &((READ3res *)data)->READ3res_u.resok;
    rt->bytes += ok->count;
    if (ok->eof || ok->count == 0) rt->eof = 1;
}

/* Sends one READ of the current file. */
static int rt_read1(struct rt *rt, const struct tbbt_fh *fh, uint64_t off) {
    READ3args a;
    memset(&a, 0, sizeof(a));
    a.file = tbbt_nfs_fh3(fh), a.offset = off, a.count = rt->rmax;
    if (rpc_nfs3_read_async(rt->rpc, cb_read, &a, rt) < 0) {
        snprintf(rt->err, sizeof(rt->err), "%s: READ could not be sent", rt->path);
        return -1;
    }
    rt->inflight++, rt->reads++;
    return 0;
}

/* Reads one file from 0 to its size (or to EOF, one READ at a time, when
 * the size is unknown), at most --depth READs in flight. */
static int rt_file(struct rt *rt, const struct rt_ent *e, const char *path) {
    uint64_t off = 0;
    int depth = e->has_size ? cli.depth : 1;
    rt->path = path, rt->eof = 0, rt->files++;
    while (!rt->failed && (e->has_size ? off < e->size : !rt->eof)) {
        while (!rt->failed && rt->inflight < depth && (e->has_size ? off < e->size : !rt->eof)) {
            if (rt_read1(rt, &e->fh, off) < 0) return -1;
            off += rt->rmax;
            if (!e->has_size) break;
        }
        if (rt_wait(rt, NULL, rt->inflight - 1) < 0) return -1;
    }
    if (rt_wait(rt, NULL, 0) < 0) return -1;
    return rt->failed ? -1 : 0;
}

/* Frees the entries' names and the array. */
static void rt_free_ents(GArray *ents) {
    for (guint i = 0; i < ents->len; i++)
        g_free(g_array_index(ents, struct rt_ent, i).name);
    g_array_free(ents, TRUE);
}

/* Lists directory dir (every READDIRPLUS page) into a new array of
 * struct rt_ent; NULL with rt->err on failure. */
static GArray *rt_list(struct rt *rt, const struct tbbt_fh *dir, const char *path) {
    GArray *ents = g_array_new(FALSE, TRUE, sizeof(struct rt_ent));
    struct rt_reply r = {.rt = rt, .ents = ents};
    do {
        READDIRPLUS3args a;
        memset(&a, 0, sizeof(a));
        a.dir = tbbt_nfs_fh3(dir), a.cookie = r.cookie, a.dircount = 8192, a.maxcount = 65536;
        memcpy(a.cookieverf, r.verf, NFS3_COOKIEVERFSIZE);
        r.done = 0;
        rt->readdirs++;
        if (rt_finish(rt, rpc_nfs3_readdirplus_async(rt->rpc, cb_readdirplus, &a, &r), &r, path,
                      "READDIRPLUS") < 0) {
            rt_free_ents(ents);
            return NULL;
        }
    } while (!r.eof);
    return ents;
}

/* Walks directory dir at path: its files read and its subdirectories
 * walked, in directory order. Returns 0, or -1 with rt->err. */
static int rt_walk(struct rt *rt, const struct tbbt_fh *dir, const char *path) {
    GArray *ents = rt_list(rt, dir, path);
    if (!ents) return -1;
    rt->dirs++;
    int rc = 0;
    for (guint i = 0; rc == 0 && i < ents->len; i++) {
        const struct rt_ent *e = &g_array_index(ents, struct rt_ent, i);
        if (e->type != NF3DIR && e->type != NF3REG && e->type != 0) continue; /* symlinks, devices */
        char *sub = g_strconcat(path, "/", e->name, NULL);
        rc = e->type == NF3DIR ? rt_walk(rt, &e->fh, sub) : rt_file(rt, e, sub);
        g_free(sub);
    }
    rt_free_ents(ents);
    return rc;
}

/* LOOKUPs each component of --dir from the root into *out. */
static int rt_descend(struct rt *rt, const struct tbbt_fh *root, struct tbbt_fh *out) {
    *out = *root;
    if (!cli.dir) return 0;
    gchar **parts = g_strsplit(cli.dir, "/", -1);
    int rc = 0;
    for (gchar **p = parts; rc == 0 && *p; p++) {
        if (!**p) continue;
        LOOKUP3args a;
        memset(&a, 0, sizeof(a));
        a.what.dir = tbbt_nfs_fh3(out), a.what.name = *p;
        struct rt_reply r = {.rt = rt};
        rc = rt_finish(rt, rpc_nfs3_lookup_async(rt->rpc, cb_lookup, &a, &r), &r, cli.dir, "LOOKUP");
        if (rc == 0) *out = r.fh;
    }
    g_strfreev(parts);
    return rc;
}

/* Connects, asks rtmax and walks. *secs: the walk's own time. */
static int rt_run(const struct tbbt_nfs_server *srv, struct rt *rt, double *secs) {
    struct tbbt_fh root, top;
    if (tbbt_nfs_mount(srv, cli.timeout, &root, rt->err, sizeof(rt->err)) < 0) return -1;
    rt->rpc = tbbt_nfs_connect(srv, cli.timeout, 0, 0, rt->err, sizeof(rt->err));
    if (!rt->rpc) return -1;
    FSINFO3args fa;
    memset(&fa, 0, sizeof(fa));
    fa.fsroot = tbbt_nfs_fh3(&root);
    struct rt_reply r = {.rt = rt};
    if (rt_finish(rt, rpc_nfs3_fsinfo_async(rt->rpc, cb_fsinfo, &fa, &r), &r, ".", "FSINFO") < 0) return -1;
    rt->rmax = r.rtmax && r.rtmax < RT_MAX_READ ? r.rtmax : RT_MAX_READ;
    double t0 = tbbt_now_s();
    int rc = rt_descend(rt, &root, &top);
    if (rc == 0) rc = rt_walk(rt, &top, cli.dir ? cli.dir : ".");
    *secs = tbbt_now_s() - t0;
    return rc;
}

int main(int argc, char **argv) {
    GOptionContext *ctx = g_option_context_new("SERVER:/EXPORT - read a whole tree through NFS, timed");
    g_option_context_add_main_entries(ctx, rt_entries, NULL);
    g_option_context_set_description(ctx, "Depth first, one file after the other (grep -r through one NFS "
                                          "client). Exit: 0 done, 1 failed, 2 usage.");
    GError *ge = NULL;
    int ok = g_option_context_parse(ctx, &argc, &argv, &ge);
    g_option_context_free(ctx);
    if (!ok) {
        fprintf(stderr, "tbbt-readtree: %s (try --help)\n", ge->message);
        g_error_free(ge);
        return 2;
    }
    if (argc != 2) usage("expected one server, HOST:/EXPORT or nfs://HOST/EXPORT");
    if (cli.depth < 1 || cli.depth > 256 || cli.timeout < 1)
        usage("--depth must be 1..256, --timeout positive");
    struct tbbt_nfs_server srv;
    struct rt rt = {.path = "."};
    if (tbbt_nfs_server_parse(argv[1], cli.nfsport, cli.mountport, &srv, rt.err, sizeof(rt.err)) < 0)
        usage(rt.err);
    double secs = 0;
    int rc = rt_run(&srv, &rt, &secs);
    if (rc == 0) {
        double mbs = secs > 0 ? (double)rt.bytes / 1e6 / secs : 0;
        if (!cli.quiet)
            printf("tbbt-readtree: %" PRIu64 " dirs, %" PRIu64 " files, %" PRIu64 " bytes in %" PRIu64
                   " READs of <= %u, %.3f s, %.1f MB/s\n",
                   rt.dirs, rt.files, rt.bytes, rt.reads, rt.rmax, secs, mbs);
        gchar *j =
            g_strdup_printf("{\"tool\": \"tbbt-readtree\", \"dirs\": %" PRIu64 ", \"files\": %" PRIu64
                            ", \"bytes\": %" PRIu64 ", \"reads\": %" PRIu64 ", \"readdirs\": %" PRIu64
                            ", \"rmax\": %u, \"depth\": %d, \"seconds\": %.6f}\n",
                            rt.dirs, rt.files, rt.bytes, rt.reads, rt.readdirs, rt.rmax, cli.depth, secs);
        GError *e = NULL;
        if (cli.json && !tbbt_out_set_contents(cli.json, j, -1, &e)) {
            snprintf(rt.err, sizeof(rt.err), "%s", e->message);
            g_error_free(e);
            rc = -1;
        }
        g_free(j);
    }
    if (rc < 0) fprintf(stderr, "tbbt-readtree: %s\n", rt.err);
    if (rt.rpc) rpc_destroy_context(rt.rpc);
    return rc < 0 ? 1 : 0;
}
