/* tbbt-plaincopy: the plain sequential copy that tbbt-init is measured
 * against (bench/init.sh): a hierarchy map's initial image written to an
 * NFS export the way `cp -r` through one NFS client writes it.
 *
 *   tbbt-plaincopy [options] --map TRACE.hmap SERVER:/EXPORT
 *
 * Makes DIR (--dir, one name in the export's root) and under it every
 * object of the map's initial image (createTime 0), in map order (parents
 * before children), one object after the other: a directory is one MKDIR,
 * a symlink one SYMLINK, a second path of a file one LINK, a device or
 * fifo one MKNOD, a regular file CREATE, then its data from offset 0 to
 * its size in UNSTABLE WRITEs of the server's wtmax (at most 1 MiB, as
 * tbbt-init), at most --depth of them in flight, then one COMMIT; the next
 * object starts when the COMMIT has answered. Modes and owners as the map
 * gives them (as tbbt-init does). The data are the same kind of bytes as
 * tbbt-init's (seeded, incompressible). No tricks: one connection, one
 * file at a time, no call of the next file before the previous file is
 * committed.
 *
 * Prints one line: objects, files, bytes, WRITEs, COMMITs, seconds and
 * MB/s of the copy itself (after MOUNT and connection).
 * Exit: 0 done, 1 failed (a one-line message names the path), 2 usage. */
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
#include "fsmodel.h"
#include "hmap.h"
#include "nfsconn.h"
#include "nfsfh.h"
#include "rng.h"
#include "unconst.h"

#define PC_MAX_WRITE (1u << 20) /* tbbt-init's cap on wtmax */

struct pc_cli {
    char *map, *dir, *json;
    gint depth, timeout, nfsport, mountport;
    gint64 seed;
    gboolean quiet;
};

static struct pc_cli cli = {.dir = "tbbt-plain", .depth = 8, .timeout = 60, .seed = 1};

/* The options, declared once: parsing and --help both come from here. */
static GOptionEntry pc_entries[] = {
    {"map", 'm', 0, G_OPTION_ARG_FILENAME, &cli.map, "The hierarchy map (required)", "FILE"},
    {"dir", 'D', 0, G_OPTION_ARG_STRING, &cli.dir,
     "Directory to make in the export's root and copy into (must not exist; default tbbt-plain)", "NAME"},
    {"depth", 'd', 0, G_OPTION_ARG_INT, &cli.depth, "WRITEs in flight within one file (default 8)", "N"},
    {"seed", 0, 0, G_OPTION_ARG_INT64, &cli.seed, "Seed of the data bytes (default 1)", "N"},
    {"nfs-port", 0, 0, G_OPTION_ARG_INT, &cli.nfsport, "NFS port (default: ask the portmapper)", "PORT"},
    {"mount-port", 0, 0, G_OPTION_ARG_INT, &cli.mountport, "MOUNT port (default: ask the portmapper)",
     "PORT"},
    {"timeout", 0, 0, G_OPTION_ARG_INT, &cli.timeout, "Seconds to wait for one reply (default 60)", "SEC"},
    {"json", 0, 0, G_OPTION_ARG_FILENAME, &cli.json, "Also write the summary as JSON to FILE", "FILE"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &cli.quiet, "Print only errors", NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

/* The copy's state: one connection, counters, the first error. */
struct pc {
    struct rpc_context *rpc;
    int inflight; /* calls sent and not answered */
    int failed;
    char err[600];
    char *payload;
    uint32_t wmax;
    const char *path; /* the file being written, for messages */
    uint64_t objects, dirs, files, links, symlinks, others, bytes, writes, commits;
};

/* One synchronous call's result, filled by its callback. */
struct pc_reply {
    struct pc *pc;
    int done, status;
    struct tbbt_fh fh;
    uint32_t wtmax;
};

/* A usage error: one line, exit 2. */
static void usage(const char *what) {
    fprintf(stderr, "tbbt-plaincopy: %s (try --help)\n", what);
    exit(2);
}

/* The sattr3 of a map entry: mode (or def), uid and gid where known. */
static sattr3 sattr(const struct tbbt_hm_entry *e, uint32_t def) {
    sattr3 s;
    memset(&s, 0, sizeof(s));
    s.mode.set_it = 1, s.mode.set_mode3_u.mode = (e->known & TBBT_HM_MODE) ? e->mode : def;
    if (e->known & TBBT_HM_UID) s.uid.set_it = 1, s.uid.set_uid3_u.uid = e->uid;
    if (e->known & TBBT_HM_GID) s.gid.set_it = 1, s.gid.set_gid3_u.gid = e->gid;
    return s;
}

/* Polls the connection until *done is set (done not NULL) or at most
 * "most" calls are in flight (done NULL): 0, or -1 with pc->err on a broken
 * connection or a silence of --timeout seconds. */
static int pc_wait(struct pc *pc, const int *done, int most) {
    return tbbt_nfs_pump(pc->rpc, done, &pc->inflight, most, cli.timeout, pc->err, sizeof(pc->err));
}

/* Callback of a namespace call: status and the new handle. proc says
 * which result structure data is (0 for none with a handle). */
static void on_make(struct rpc_context *rpc, int status, void *data, void *priv, int proc) {
    struct pc_reply *r = priv;
    (void)rpc;
    r->pc->inflight--;
    r->done = 1;
    r->status = status ? -1 : (int)*(const nfsstat3 *)data;
    if (r->status != 0) return;
    int rc = 0;
    switch (proc) {
    case NFS3_MKDIR: rc = tbbt_nfs_post_fh(&((MKDIR3res *)data)->MKDIR3res_u.resok.obj, &r->fh); break;
    case NFS3_CREATE: rc = tbbt_nfs_post_fh(&((CREATE3res *)data)->CREATE3res_u.resok.obj, &r->fh); break;
    case NFS3_SYMLINK: rc = tbbt_nfs_post_fh(&((SYMLINK3res *)data)->SYMLINK3res_u.resok.obj, &r->fh); break;
    case NFS3_MKNOD: rc = tbbt_nfs_post_fh(&((MKNOD3res *)data)->MKNOD3res_u.resok.obj, &r->fh); break;
    case NFS3_FSINFO: r->wtmax = ((FSINFO3res *)data)->FSINFO3res_u.resok.wtmax; break;
    default: break;
    }
    if (rc < 0) r->status = -2; /* no handle in the reply */
}

/* The libnfs callbacks, one per result type. */
static void cb_mkdir(struct rpc_context *rpc, int st, void *d, void *p) {
    on_make(rpc, st, d, p, NFS3_MKDIR);
}
static void cb_create(struct rpc_context *rpc, int st, void *d, void *p) {
    on_make(rpc, st, d, p, NFS3_CREATE);
}
static void cb_symlink(struct rpc_context *rpc, int st, void *d, void *p) {
    on_make(rpc, st, d, p, NFS3_SYMLINK);
}
static void cb_mknod(struct rpc_context *rpc, int st, void *d, void *p) {
    on_make(rpc, st, d, p, NFS3_MKNOD);
}
static void cb_plain(struct rpc_context *rpc, int st, void *d, void *p) {
    on_make(rpc, st, d, p, 0);
}
static void cb_fsinfo(struct rpc_context *rpc, int st, void *d, void *p) {
    on_make(rpc, st, d, p, NFS3_FSINFO);
}

/* Waits for the call just issued (rc its _async result) and checks its
 * status. Returns 0, or -1 with "PATH: what failed" in pc->err. */
static int pc_finish(struct pc *pc, int rc, struct pc_reply *r, const char *path, const char *what) {
    if (rc < 0) {
        snprintf(pc->err, sizeof(pc->err), "%s: %s could not be sent: %s", path, what,
                 rpc_get_error(pc->rpc));
        return -1;
    }
    pc->inflight++;
    if (pc_wait(pc, &r->done, 0) < 0) return -1;
    if (r->status == 0) return 0;
    if (r->status == -2)
        snprintf(pc->err, sizeof(pc->err), "%s: %s: the server gave no handle", path, what);
    else
        snprintf(pc->err, sizeof(pc->err), "%s: %s failed (%s %d)", path, what, r->status < 0 ? "RPC" : "NFS",
                 r->status);
    return -1;
}

/* MKDIR name in dir; *out its handle. */
static int pc_mkdir(struct pc *pc, const struct tbbt_fh *dir, const char *name, const struct tbbt_hm_entry *e,
                    const char *path, struct tbbt_fh *out) {
    MKDIR3args a;
    memset(&a, 0, sizeof(a));
    a.where.dir = tbbt_nfs_fh3(dir);
    a.where.name = tbbt_unconst(name);
    if (e)
        a.attributes = sattr(e, 0755);
    else
        a.attributes.mode.set_it = 1, a.attributes.mode.set_mode3_u.mode = 0755;
    struct pc_reply r = {.pc = pc};
    if (pc_finish(pc, rpc_nfs3_mkdir_async(pc->rpc, cb_mkdir, &a, &r), &r, path, "MKDIR") < 0) return -1;
    *out = r.fh;
    pc->dirs++;
    return 0;
}

/* Callback of one WRITE or of the COMMIT of a file. */
static void cb_data(struct rpc_context *rpc, int status, void *data, void *priv) {
    struct pc *pc = priv;
    int s = status ? -1 : (int)*(const nfsstat3 *)data;
    (void)rpc;
    pc->inflight--;
    if (s != 0 && !pc->failed) {
        snprintf(pc->err, sizeof(pc->err), "%s: %s failed (%s %d)", pc->path, "WRITE or COMMIT",
                 status ? "RPC" : "NFS", s);
        pc->failed = 1;
    }
}

/* Writes size bytes into file fh from offset 0, at most --depth WRITEs in
 * flight, then COMMITs and waits for it. Returns 0, or -1 with pc->err. */
static int pc_fill(struct pc *pc, const struct tbbt_fh *fh, uint64_t size, const char *path) {
    uint64_t off = 0;
    pc->path = path;
    while (off < size || pc->inflight > 0) {
        while (off < size && pc->inflight < cli.depth && !pc->failed) {
            WRITE3args a;
            memset(&a, 0, sizeof(a));
            uint32_t len = (uint32_t)MIN((uint64_t)pc->wmax, size - off);
            a.file = tbbt_nfs_fh3(fh), a.offset = off, a.count = len, a.stable = UNSTABLE;
            a.data.data_len = len, a.data.data_val = pc->payload;
            if (rpc_nfs3_write_async(pc->rpc, cb_data, &a, pc) < 0) {
                snprintf(pc->err, sizeof(pc->err), "%s: WRITE could not be sent", path);
                return -1;
            }
            pc->inflight++, pc->writes++, pc->bytes += len, off += len;
        }
        if (pc->failed) break;
        if (pc_wait(pc, NULL, pc->inflight - 1) < 0) return -1; /* one reply */
    }
    if (pc->failed) return pc_wait(pc, NULL, 0), -1;
    COMMIT3args c;
    memset(&c, 0, sizeof(c));
    c.file = tbbt_nfs_fh3(fh);
    if (rpc_nfs3_commit_async(pc->rpc, cb_data, &c, pc) < 0) {
        snprintf(pc->err, sizeof(pc->err), "%s: COMMIT could not be sent", path);
        return -1;
    }
    pc->inflight++, pc->commits++;
    if (pc_wait(pc, NULL, 0) < 0) return -1;
    return pc->failed ? -1 : 0;
}

/* Makes one map entry under dir: *out its handle (for directories and for
 * the first path of a file). first: the handle of the file's first path
 * when this entry is a second path, else NULL. */
static int pc_make(struct pc *pc, const struct tbbt_fh *dir, const struct tbbt_hm_entry *e,
                   const struct tbbt_fh *first, struct tbbt_fh *out) {
    const char *name = strrchr(e->path, '/') ? strrchr(e->path, '/') + 1 : e->path;
    struct pc_reply r = {.pc = pc};
    pc->objects++;
    if (first) {
        LINK3args a;
        memset(&a, 0, sizeof(a));
        a.file = tbbt_nfs_fh3(first), a.link.dir = tbbt_nfs_fh3(dir), a.link.name = tbbt_unconst(name);
        pc->links++;
        return pc_finish(pc, rpc_nfs3_link_async(pc->rpc, cb_plain, &a, &r), &r, e->path, "LINK");
    }
    switch (e->type) {
    case TBBT_FT_DIR: pc->objects--; return pc_mkdir(pc, dir, name, e, e->path, out);
    case TBBT_FT_LNK: {
        SYMLINK3args a;
        memset(&a, 0, sizeof(a));
        a.where.dir = tbbt_nfs_fh3(dir), a.where.name = tbbt_unconst(name);
        a.symlink.symlink_attributes = sattr(e, 0777);
        a.symlink.symlink_data = e->target ? e->target : "";
        pc->symlinks++;
        return pc_finish(pc, rpc_nfs3_symlink_async(pc->rpc, cb_symlink, &a, &r), &r, e->path, "SYMLINK");
    }
    case TBBT_FT_FIFO:
    case TBBT_FT_SOCK:
    case TBBT_FT_CHR:
    case TBBT_FT_BLK: {
        MKNOD3args a;
        memset(&a, 0, sizeof(a));
        a.where.dir = tbbt_nfs_fh3(dir), a.where.name = tbbt_unconst(name);
        sattr3 at = sattr(e, 0644);
        switch (e->type) { /* devices get 0:0, as tbbt-init makes them */
        case TBBT_FT_CHR: a.what.type = NF3CHR, a.what.mknoddata3_u.chr_device.dev_attributes = at; break;
        case TBBT_FT_BLK: a.what.type = NF3BLK, a.what.mknoddata3_u.blk_device.dev_attributes = at; break;
        case TBBT_FT_SOCK: a.what.type = NF3SOCK, a.what.mknoddata3_u.sock_attributes = at; break;
        default: a.what.type = NF3FIFO, a.what.mknoddata3_u.pipe_attributes = at;
        }
        pc->others++;
        return pc_finish(pc, rpc_nfs3_mknod_async(pc->rpc, cb_mknod, &a, &r), &r, e->path, "MKNOD");
    }
    default: {
        CREATE3args a;
        memset(&a, 0, sizeof(a));
        a.where.dir = tbbt_nfs_fh3(dir), a.where.name = tbbt_unconst(name);
        a.how.mode = GUARDED;
        a.how.createhow3_u.obj_attributes = sattr(e, 0644);
        pc->files++;
        if (pc_finish(pc, rpc_nfs3_create_async(pc->rpc, cb_create, &a, &r), &r, e->path, "CREATE") < 0)
            return -1;
        *out = r.fh;
        uint64_t size = (e->known & TBBT_HM_SIZE) ? e->size : 0;
        return size ? pc_fill(pc, &r.fh, size, e->path) : 0;
    }
    }
}

/* The handles made so far, by TBBT-ID (each a g_new'd struct tbbt_fh). */
static struct tbbt_fh *pc_lookup(GHashTable *fhs, tbbt_id id) {
    return g_hash_table_lookup(fhs, &id);
}

/* Copies the map's initial image under top. Returns 0, or -1 with pc->err. */
static int pc_copy(struct pc *pc, const struct tbbt_fh *top) {
    char err[512];
    struct tbbt_hmapr *r = tbbt_hmapr_open(cli.map, err, sizeof(err));
    if (!r) return snprintf(pc->err, sizeof(pc->err), "%s", err), -1;
    GHashTable *fhs = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    struct tbbt_hm_entry e;
    int rc;
    while ((rc = tbbt_hmapr_next(r, &e, err, sizeof(err))) == 1) {
        if (e.create != 0) continue;
        struct tbbt_fh *first = pc_lookup(fhs, e.id), made;
        if (e.origin == TBBT_HM_ROOT) {
            made = *top;
        } else {
            const struct tbbt_fh *dir = e.parent ? pc_lookup(fhs, e.parent) : top;
            if (!dir) dir = top; /* the map's root entry maps to top */
            if (pc_make(pc, dir, &e, first, &made) < 0) {
                rc = -2;
                break;
            }
            if (first) continue;
        }
        tbbt_id *k = g_new(tbbt_id, 1);
        *k = e.id;
        g_hash_table_insert(fhs, k, g_memdup2(&made, sizeof(made)));
    }
    if (rc == -1) snprintf(pc->err, sizeof(pc->err), "%s", err);
    g_hash_table_destroy(fhs);
    tbbt_hmapr_close(r);
    return rc < 0 ? -1 : 0;
}

/* Fills the payload with seeded incompressible bytes (splitmix64). */
static void pc_payload(struct pc *pc) {
    uint64_t s = (uint64_t)cli.seed;
    pc->payload = g_malloc(pc->wmax + 8);
    for (uint32_t i = 0; i < pc->wmax; i += 8) {
        uint64_t z = tbbt_splitmix64(&s);
        memcpy(pc->payload + i, &z, 8);
    }
}

/* Connects, asks wtmax, makes --dir and copies. Returns 0 or -1 with err;
 * *secs the copy's own time. */
static int pc_run(const struct tbbt_nfs_server *srv, struct pc *pc, double *secs) {
    struct tbbt_fh root, top;
    if (tbbt_nfs_mount(srv, cli.timeout, &root, pc->err, sizeof(pc->err)) < 0) return -1;
    pc->rpc = tbbt_nfs_connect(srv, cli.timeout, 0, 0, pc->err, sizeof(pc->err));
    if (!pc->rpc) return -1;
    FSINFO3args fa;
    memset(&fa, 0, sizeof(fa));
    fa.fsroot = tbbt_nfs_fh3(&root);
    struct pc_reply r = {.pc = pc};
    if (pc_finish(pc, rpc_nfs3_fsinfo_async(pc->rpc, cb_fsinfo, &fa, &r), &r, ".", "FSINFO") < 0) return -1;
    pc->wmax = r.wtmax && r.wtmax < PC_MAX_WRITE ? r.wtmax : PC_MAX_WRITE;
    pc_payload(pc);
    double t0 = tbbt_now_s();
    if (pc_mkdir(pc, &root, cli.dir, NULL, cli.dir, &top) < 0) return -1;
    pc->dirs--; /* DIR itself is not part of the image */
    int rc = pc_copy(pc, &top);
    *secs = tbbt_now_s() - t0;
    return rc;
}

/* The summary line, and the same as JSON into j. */
static void pc_report(const struct pc *pc, double secs, GString *j) {
    double mbs = secs > 0 ? (double)pc->bytes / 1e6 / secs : 0;
    if (!cli.quiet)
        printf("tbbt-plaincopy: %" PRIu64 " objects (%" PRIu64 " dirs, %" PRIu64 " files, %" PRIu64
               " links, %" PRIu64 " symlinks), %" PRIu64 " bytes in %" PRIu64 " WRITEs of <= %u and %" PRIu64
               " COMMITs, %.3f s, %.1f MB/s\n",
               pc->objects + pc->dirs, pc->dirs, pc->files, pc->links, pc->symlinks, pc->bytes, pc->writes,
               pc->wmax, pc->commits, secs, mbs);
    g_string_append_printf(j,
                           "{\"tool\": \"tbbt-plaincopy\", \"objects\": %" PRIu64 ", \"dirs\": %" PRIu64
                           ", \"files\": %" PRIu64 ", \"links\": %" PRIu64 ", \"symlinks\": %" PRIu64
                           ", \"others\": %" PRIu64 ", \"bytes\": %" PRIu64 ", \"writes\": %" PRIu64
                           ", \"commits\": %" PRIu64 ", \"wmax\": %u, \"depth\": %d, \"seconds\": %.6f}\n",
                           pc->objects + pc->dirs, pc->dirs, pc->files, pc->links, pc->symlinks, pc->others,
                           pc->bytes, pc->writes, pc->commits, pc->wmax, cli.depth, secs);
}

int main(int argc, char **argv) {
    GOptionContext *ctx = g_option_context_new("SERVER:/EXPORT - copy a map's initial image the plain way");
    g_option_context_add_main_entries(ctx, pc_entries, NULL);
    g_option_context_set_description(ctx, "One file after the other, each CREATE, WRITEs, COMMIT (the peer "
                                          "of tbbt-init --scope 1). Exit: 0 done, 1 failed, 2 usage.");
    GError *ge = NULL;
    int ok = g_option_context_parse(ctx, &argc, &argv, &ge);
    g_option_context_free(ctx);
    if (!ok) {
        fprintf(stderr, "tbbt-plaincopy: %s (try --help)\n", ge->message);
        g_error_free(ge);
        return 2;
    }
    if (argc != 2) usage("expected one server, HOST:/EXPORT or nfs://HOST/EXPORT");
    if (!cli.map) usage("--map is required");
    if (cli.depth < 1 || cli.depth > 256 || cli.timeout < 1)
        usage("--depth must be 1..256, --timeout positive");
    if (!*cli.dir || strchr(cli.dir, '/') || !strcmp(cli.dir, ".") || !strcmp(cli.dir, ".."))
        usage("--dir must be one plain name");
    struct tbbt_nfs_server srv;
    struct pc pc = {0};
    if (tbbt_nfs_server_parse(argv[1], cli.nfsport, cli.mountport, &srv, pc.err, sizeof(pc.err)) < 0)
        usage(pc.err);
    double secs = 0;
    int rc = pc_run(&srv, &pc, &secs);
    if (rc == 0) {
        GString *j = g_string_new(NULL);
        pc_report(&pc, secs, j);
        GError *e = NULL;
        if (cli.json && !tbbt_out_set_contents(cli.json, j->str, (gssize)j->len, &e)) {
            snprintf(pc.err, sizeof(pc.err), "%s", e->message);
            g_error_free(e);
            rc = -1;
        }
        g_string_free(j, TRUE);
    }
    if (rc < 0) fprintf(stderr, "tbbt-plaincopy: %s\n", pc.err);
    if (pc.rpc) rpc_destroy_context(pc.rpc);
    g_free(pc.payload);
    return rc < 0 ? 1 : 0;
}
