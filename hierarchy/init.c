/* init.c -- tbbt-init: the image, its aged data, fillers, the manifest
 * (see init.h). */
#include "init.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib/gstdio.h>
#include <nfsc/libnfs.h>
#include <nfsc/libnfs-raw.h>

#include "aging.h"
#include "clock.h"
#include "fhslots.h"
#include "fsmodel.h"
#include "idmap.h"
#include "nfsstat.h"
#include "safename.h"
#include "hmap.h"
#include "initctx.h"
#include "manifest.h"
#include "rng.h"

#define MAX_WRITE (1u << 20)

void tbbt_init_opts_default(struct tbbt_init_opts *o) {
    memset(o, 0, sizeof(*o));
    o->run = TBBT_INIT_RUN;
    o->clones = TBBT_INIT_CLONES;
    o->scope = TBBT_INIT_SCOPE;
    o->appends_per_file = TBBT_INIT_APPENDS;
    o->fullness = -1;
    o->filler_size = TBBT_INIT_FILLER_SIZE;
    o->seed = TBBT_INIT_SEED;
    o->depth = TBBT_INIT_DEPTH;
    o->connections = TBBT_INIT_CONNECTIONS;
    o->timeout = TBBT_INIT_TIMEOUT;
}

/* One object of the initial image (one map line with create 0): kept
 * once for every clone (56 bytes and its path), its name the path's last
 * component. */
struct obj {
    tbbt_id id;
    uint64_t size;
    const char *path, *target;
    uint32_t parent; /* index + 1 of the parent's line; 0: the clone's root */
    uint32_t first;  /* index + 1 of the object's first line when this is a second path */
    uint32_t mode, uid, gid;
    uint8_t type, is_root, known; /* known: TBBT_HM_SIZE ... (hmap.h) */
};

/* The image once, and per clone only what differs: the handles made,
 * one slot an object (fhslots.h), not a struct tbbt_fh of TBBT_FH_MAX. */
struct image {
    GArray *objs; /* struct obj */
    GStringChunk *strs;
    struct tbbt_fhslots *fh; /* [clone], by object index */
    struct tbbt_fh *clone_root;
};

/* Object i's handle in clone c, for a call (the slot's bytes: they stay
 * put while calls are out, fhslots.h). */
static struct tbbt_inf_fh obj_fh(const struct image *img, int c, uint32_t i) {
    struct tbbt_inf_fh f = {NULL, 0};
    tbbt_fhslots_get(&img->fh[c], i, &f.data, &f.len);
    return f;
}

/* Object i of clone c has the handle f. */
static void set_fh(struct image *img, int c, uint32_t i, struct tbbt_inf_fh f) {
    tbbt_fhslots_set(&img->fh[c], i, f.data, f.len);
}

/* Creation of one clone: who waits for whom. */
struct pop {
    struct init *in;
    struct image *img;
    int clone;
    uint8_t *state;  /* 0 waiting, 1 issued, 2 done */
    uint32_t *whead; /* per object: first waiter (index + 1) */
    uint32_t *wnext; /* per object: next waiter on the same object */
    GArray *ready;   /* uint32_t indices whose dependencies are done */
    uint32_t cursor; /* next object not yet looked at */
    int no_owner;    /* the server refused owners: create without them */
};

/* ---- the map ---- */

/* The last component of a path. */
static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Whether the entry e must not be made: its name could leave the run
 * directory or is not one component (safename.h), or its parent was
 * refused. Refused directories are remembered so their subtrees are too. */
static int refuse_entry(const struct tbbt_hm_entry *e, const char *name, GHashTable *refused) {
    if (e->origin == TBBT_HM_ROOT) return 0;
    int bad = tbbt_name_unsafe(name, strlen(name)) != NULL ||
              (e->parent && g_hash_table_contains(refused, &e->parent));
    if (bad && e->type == TBBT_FT_DIR) {
        tbbt_id *k = g_new(tbbt_id, 1);
        *k = e->id;
        g_hash_table_add(refused, k);
    }
    return bad;
}

/* Reads the map's initial image; entries it must not make are counted in
 * *refused. Returns 0, or -1 with err. */
static int load_map(const char *path, struct image *img, uint64_t *nrefused, char *err, size_t errlen) {
    struct tbbt_hmapr *r = tbbt_hmapr_open(path, err, errlen);
    if (!r) return -1;
    img->objs = g_array_new(FALSE, TRUE, sizeof(struct obj));
    img->strs = g_string_chunk_new(1 << 16);
    struct tbbt_idmap by_id; /* TBBT-ID -> index + 1 of its first line */
    tbbt_idmap_init(&by_id);
    GHashTable *refused = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    struct tbbt_hm_entry e;
    int rc;
    while ((rc = tbbt_hmapr_next(r, &e, err, errlen)) == 1) {
        if (e.create != 0) continue;
        if (refuse_entry(&e, base_name(e.path), refused)) {
            ++*nrefused;
            continue;
        }
        struct obj o = {.id = e.id,
                        .type = (uint8_t)e.type,
                        .known = (uint8_t)e.known,
                        .mode = e.mode,
                        .uid = e.uid,
                        .gid = e.gid,
                        .size = e.known & TBBT_HM_SIZE ? e.size : 0};
        o.is_root = e.origin == TBBT_HM_ROOT;
        o.path = g_string_chunk_insert(img->strs, e.path);
        o.target = e.target ? g_string_chunk_insert(img->strs, e.target) : NULL;
        if (e.parent && !tbbt_idmap_get(&by_id, e.parent, &o.parent)) o.parent = 0;
        if (!tbbt_idmap_get(&by_id, e.id, &o.first)) {
            o.first = 0;
            tbbt_idmap_put(&by_id, e.id, img->objs->len + 1);
        }
        g_array_append_val(img->objs, o);
    }
    tbbt_idmap_free(&by_id);
    g_hash_table_destroy(refused);
    tbbt_hmapr_close(r);
    return rc;
}

/* ---- creating the objects of one clone ---- */

static void created(struct tbbt_nfsq *q, int rpc_status, void *data, void *priv);

/* The object i is done: its waiters become ready. */
static void release(struct pop *p, uint32_t i) {
    p->state[i] = 2;
    for (uint32_t w = p->whead[i]; w; w = p->wnext[w - 1])
        g_array_append_val(p->ready, (uint32_t){w - 1});
    p->whead[i] = 0;
}

/* The object i's dependency not done yet (index + 1), or 0. */
static uint32_t blocker(struct pop *p, uint32_t i) {
    const struct obj *o = &g_array_index(p->img->objs, struct obj, i);
    if (o->parent && p->state[o->parent - 1] != 2) return o->parent;
    if (o->first && p->state[o->first - 1] != 2) return o->first;
    return 0;
}

/* Sends the call that makes object i (its dependencies done). */
static int issue_make(struct pop *p, uint32_t i) {
    struct init *in = p->in;
    const struct obj *o = &g_array_index(p->img->objs, struct obj, i);
    struct tbbt_inf_fh dir =
        o->parent ? obj_fh(p->img, p->clone, o->parent - 1) : tbbt_inf_fh(&p->img->clone_root[p->clone]);
    struct tbbt_inf_attr a = {o->known & TBBT_HM_MODE ? (int64_t)o->mode : -1,
                              !p->no_owner && (o->known & TBBT_HM_UID) ? (int64_t)o->uid : -1,
                              !p->no_owner && (o->known & TBBT_HM_GID) ? (int64_t)o->gid : -1};
    const char *name = base_name(o->path); /* in the image's strings: it lives while the call is out */
    void *priv = GUINT_TO_POINTER(i + 1);
    p->state[i] = 1;
    if (o->first)
        return tbbt_inf_link(in->q, obj_fh(p->img, p->clone, o->first - 1), dir, name, created, priv);
    switch (o->type) {
    /* a mode the trace never showed: open to all, so that a replay by the
     * trace's users does not meet a denial the trace did not */
    case TBBT_FT_DIR:
        if (a.mode < 0) a.mode = 0777;
        return tbbt_inf_mkdir(in->q, dir, name, &a, created, priv);
    case TBBT_FT_LNK: /* a target the trace never showed: a name that resolves to nothing */
        return tbbt_inf_symlink(in->q, dir, name, o->target && *o->target ? o->target : "tbbt-unknown-target",
                                &a, created, priv);
    case TBBT_FT_FIFO:
    case TBBT_FT_SOCK:
    case TBBT_FT_CHR:
    case TBBT_FT_BLK: return tbbt_inf_mknod(in->q, dir, name, o->type, &a, created, priv);
    default:
        if (a.mode < 0) a.mode = 0666;
        return tbbt_inf_create(in->q, dir, name, &a, created, priv);
    }
}

/* Which reply carries the new handle of object o. */
static enum tbbt_inf_proc make_proc(const struct obj *o) {
    if (o->first) return TBBT_INF_OTHER;
    switch (o->type) {
    case TBBT_FT_DIR: return TBBT_INF_MKDIR;
    case TBBT_FT_LNK: return TBBT_INF_SYMLINK;
    case TBBT_FT_FIFO:
    case TBBT_FT_SOCK:
    case TBBT_FT_CHR:
    case TBBT_FT_BLK: return TBBT_INF_MKNOD;
    default: return TBBT_INF_CREATE;
    }
}

/* Counts a made object by type. */
static void count_made(struct tbbt_init_stats *st, const struct obj *o) {
    st->objects++;
    if (o->first)
        st->links++;
    else if (o->type == TBBT_FT_DIR)
        st->dirs++;
    else if (o->type == TBBT_FT_LNK)
        st->symlinks++;
    else if (o->type == TBBT_FT_REG || !o->type)
        st->files++;
    else
        st->others++;
}

static void found(struct tbbt_nfsq *q, int rpc_status, void *data, void *priv);

/* Reply to a creation: keep the handle, release the waiters. A creation
 * sent again after a reconnection that meets EXIST may have been made by
 * its first sending: the name is looked up and counts as made when it is
 * the object expected (found()). */
static void created(struct tbbt_nfsq *q, int rpc_status, void *data, void *priv) {
    struct pop *p = tbbt_nfsq_user(q);
    struct init *in = p->in;
    uint32_t i = GPOINTER_TO_UINT(priv) - 1;
    const struct obj *o = &g_array_index(p->img->objs, struct obj, i);
    int s = rpc_status ? -1 : tbbt_inf_status(data);
    if (s == TBBT_NFSERR_EXIST && tbbt_nfsq_retried(q)) {
        struct tbbt_inf_fh dir =
            o->parent ? obj_fh(p->img, p->clone, o->parent - 1) : tbbt_inf_fh(&p->img->clone_root[p->clone]);
        if (tbbt_inf_lookup(in->q, dir, base_name(o->path), found, priv) == 0) return;
    }
    if (s == TBBT_NFSERR_PERM && !p->no_owner && (o->known & (TBBT_HM_UID | TBBT_HM_GID))) {
        p->no_owner = 1; /* root squashed or not root: owners cannot be given */
        in->st->owners_refused++;
        if (issue_make(p, i) == 0) return;
    }
    if (s != 0) {
        char why[128];
        if (rpc_status)
            snprintf(why, sizeof(why), "%s", data ? (const char *)data : "RPC failed");
        else
            snprintf(why, sizeof(why), "NFS status %d", s);
        if (!in->failed)
            snprintf(in->err, sizeof(in->err), "clone.%d/%s: cannot make it: %s", p->clone, o->path, why);
        in->failed = 1;
        return;
    }
    if (p->no_owner && (o->known & (TBBT_HM_UID | TBBT_HM_GID))) in->st->owners_refused++;
    struct tbbt_fh fh;
    if (o->first)
        set_fh(p->img, p->clone, i, obj_fh(p->img, p->clone, o->first - 1));
    else if (tbbt_inf_newfh(make_proc(o), data, &fh) < 0) {
        snprintf(in->err, sizeof(in->err), "clone.%d/%s: the server gave no handle", p->clone, o->path);
        in->failed = 1;
        return;
    } else
        set_fh(p->img, p->clone, i, tbbt_inf_fh(&fh));
    count_made(in->st, o);
    release(p, i);
}

/* Reply to the LOOKUP of an object whose creation, sent again, met
 * EXIST: made by the first sending when it has the type expected (a hard
 * link: the handle of its first path). Else the run fails. */
static void found(struct tbbt_nfsq *q, int rpc_status, void *data, void *priv) {
    struct pop *p = tbbt_nfsq_user(q);
    struct init *in = p->in;
    uint32_t i = GPOINTER_TO_UINT(priv) - 1;
    const struct obj *o = &g_array_index(p->img->objs, struct obj, i);
    struct tbbt_fh fh = {0};
    int ok = !rpc_status && tbbt_inf_newfh(TBBT_INF_LOOKUP, data, &fh) == 0;
    if (ok && o->first) {
        struct tbbt_inf_fh f = obj_fh(p->img, p->clone, o->first - 1);
        ok = fh.len == f.len && !memcmp(fh.data, f.data, fh.len);
    } else if (ok) {
        uint32_t t = tbbt_inf_lookup_type(data), want = o->type ? o->type : TBBT_FT_REG;
        ok = t == want;
    }
    if (!ok) {
        if (!in->failed)
            snprintf(in->err, sizeof(in->err),
                     "clone.%d/%s: sent again after a reconnection, it met another object of the same name",
                     p->clone, o->path);
        in->failed = 1;
        return;
    }
    in->st->exist_after_retry++;
    set_fh(p->img, p->clone, i, tbbt_inf_fh(&fh));
    count_made(in->st, o);
    release(p, i);
}

/* A second path of a directory (a map made from a trace that lost some
 * of its packets can show one): directories have no hard links, so it is
 * not made; the object is its first path. Returns 1 when i was one (and
 * is now done). */
static int dir_alias(struct pop *p, uint32_t i) {
    const struct obj *o = &g_array_index(p->img->objs, struct obj, i);
    if (!o->first || o->type != TBBT_FT_DIR) return 0;
    set_fh(p->img, p->clone, i, obj_fh(p->img, p->clone, o->first - 1));
    p->in->st->dir_aliases++;
    release(p, i);
    return 1;
}

/* The next object to make: a released waiter, else the next in map order
 * whose dependencies are done (the others wait on theirs). UINT32_MAX
 * when none is ready now. */
static uint32_t next_ready(struct pop *p) {
    while (p->ready->len) {
        uint32_t i = g_array_index(p->ready, uint32_t, p->ready->len - 1);
        g_array_set_size(p->ready, p->ready->len - 1);
        uint32_t b = blocker(p, i); /* released by one dependency, it may wait for another */
        if (!b && !dir_alias(p, i)) return i;
        if (!b) continue;
        p->wnext[i] = p->whead[b - 1];
        p->whead[b - 1] = i + 1;
    }
    while (p->cursor < p->img->objs->len) {
        uint32_t i = p->cursor++;
        const struct obj *o = &g_array_index(p->img->objs, struct obj, i);
        if (o->is_root) {
            set_fh(p->img, p->clone, i, tbbt_inf_fh(&p->img->clone_root[p->clone]));
            release(p, i);
            continue;
        }
        uint32_t b = blocker(p, i);
        if (!b && !dir_alias(p, i)) return i;
        if (!b) continue;
        p->wnext[i] = p->whead[b - 1];
        p->whead[b - 1] = i + 1;
    }
    return UINT32_MAX;
}

/* Makes every object of clone c. Returns 0, or -1 with in->err. */
static int populate(struct init *in, struct image *img, int c) {
    uint32_t n = img->objs->len;
    struct pop p = {.in = in,
                    .img = img,
                    .clone = c,
                    .state = g_new0(uint8_t, n + 1),
                    .whead = g_new0(uint32_t, n + 1),
                    .wnext = g_new0(uint32_t, n + 1),
                    .ready = g_array_new(FALSE, FALSE, sizeof(uint32_t))};
    tbbt_fhslots_reserve(&img->fh[c], n); /* no growth while calls point into the slots */
    tbbt_nfsq_set_user(in->q, &p);
    int rc = 0;
    for (;;) {
        while (!in->failed && tbbt_nfsq_room(in->q)) {
            uint32_t i = next_ready(&p);
            if (i == UINT32_MAX) break;
            if (issue_make(&p, i) < 0) {
                snprintf(in->err, sizeof(in->err), "clone.%d: the call could not be sent", c);
                in->failed = 1;
            }
        }
        if (in->failed || (!tbbt_nfsq_inflight(in->q) && !p.ready->len && p.cursor >= n)) break;
        if ((rc = tbbt_init_pump(in)) < 0) break;
    }
    if (in->failed) rc = -1;
    for (uint32_t i = 0; rc == 0 && i < n; i++)
        if (p.state[i] != 2) {
            snprintf(in->err, sizeof(in->err), "clone.%d/%s: never made (its directory was not)", c,
                     g_array_index(img->objs, struct obj, i).path);
            rc = -1;
        }
    char ignore[256]; /* after a failure, the calls still out must end before p goes */
    tbbt_nfsq_drain(in->q, in->o->timeout, ignore, sizeof(ignore));
    g_free(p.state), g_free(p.whead), g_free(p.wnext);
    g_array_free(p.ready, TRUE);
    tbbt_nfsq_set_user(in->q, NULL);
    return rc;
}

/* ---- the data: interleaved appends ---- */

/* One file to fill (one a data file a clone: 72 bytes). */
struct dfile {
    struct tbbt_fh *fh; /* a filler's (its CREATE fills it in), else NULL */
    const uint8_t *fhd; /* an image file's handle: its slot (fhslots.h), fhlen bytes */
    uint64_t size;
    uint64_t a_off, a_len; /* the append out: written again if the server may have lost it */
    uint32_t phase;        /* where in the payload its byte 0 is: from its ID, the same in every clone */
    uint32_t writes_left;
    uint32_t verfs;  /* WRITE replies of the append out */
    int rewrites;    /* times its append was written again */
    uint8_t verf[8]; /* the write verifier of its first WRITE reply */
    uint8_t fhlen, filler, busy, stopped, del, write_failed, verf_changed;
};

/* The handle f's calls name. */
static struct tbbt_inf_fh dfile_fh(const struct dfile *f) {
    return f->fh ? tbbt_inf_fh(f->fh) : (struct tbbt_inf_fh){f->fhd, f->fhlen};
}

struct data {
    struct init *in;
    struct dfile *f;
    size_t n;
    char *payload;
    uint32_t wmax;
};

static void appended(struct tbbt_nfsq *q, int rpc_status, void *data, void *priv);
static int send_append(struct data *d, uint32_t file, uint64_t offset, uint64_t len);

#define MAX_REWRITES 3 /* an append written again more often: the server is unstable */

/* The COMMIT's verifier differs from its WRITEs', or they differ among
 * themselves: the server restarted while the append was out and may have
 * lost it. Writes it again (its COMMIT then follows); 1 when it did. */
static int rewrite_if_lost(struct data *d, struct dfile *f, uint32_t file, const void *data) {
    uint8_t cv[8];
    if (tbbt_inf_commit_verf(data, cv) < 0 || (!f->verf_changed && !memcmp(cv, f->verf, sizeof cv))) return 0;
    if (++f->rewrites > MAX_REWRITES) {
        if (!d->in->failed)
            snprintf(d->in->err, sizeof(d->in->err),
                     "the server's write verifier changed %d times during one append", f->rewrites);
        d->in->failed = 1;
        return 0;
    }
    d->in->st->rewritten++;
    if (send_append(d, file, f->a_off, f->a_len) < 0) {
        snprintf(d->in->err, sizeof(d->in->err), "a write could not be sent");
        d->in->failed = 1;
        return 0;
    }
    return 1;
}

/* Reply to an append's COMMIT: the file may take its next append, unless
 * the append must be written again. */
static void committed(struct tbbt_nfsq *q, int rpc_status, void *data, void *priv) {
    struct data *d = tbbt_nfsq_user(q);
    uint32_t file = GPOINTER_TO_UINT(priv) - 1;
    struct dfile *f = &d->f[file];
    int s = rpc_status ? -1 : tbbt_inf_status(data);
    f->busy = 0;
    d->in->st->commits++;
    if (s != 0 && !f->filler && !d->in->failed) {
        snprintf(d->in->err, sizeof(d->in->err), "commit failed (%s %d)", rpc_status ? "RPC" : "NFS status",
                 s);
        d->in->failed = 1;
    }
    if (s == 0 && !d->in->failed) rewrite_if_lost(d, f, file, data);
}

/* Reply to one WRITE of an append: the last one sends the COMMIT. A
 * filler the export has no room for stops the fillers; a kept file that
 * does not fit fails the run. */
static void appended(struct tbbt_nfsq *q, int rpc_status, void *data, void *priv) {
    struct data *d = tbbt_nfsq_user(q);
    struct init *in = d->in;
    struct dfile *f = &d->f[GPOINTER_TO_UINT(priv) - 1];
    int s = rpc_status ? -1 : tbbt_inf_status(data);
    in->st->writes++;
    uint8_t v[8];
    if (s == 0 && tbbt_inf_write_verf(data, v) == 0) {
        if (f->verfs++ && memcmp(v, f->verf, sizeof v)) f->verf_changed = 1;
        if (f->verfs == 1) memcpy(f->verf, v, sizeof v);
    }
    if (s != 0) {
        f->write_failed = 1;
        if (f->filler && (s == TBBT_NFSERR_NOSPC || s == TBBT_NFSERR_DQUOT)) {
            in->st->fill_stopped = 1;
            for (size_t i = 0; i < d->n; i++)
                if (d->f[i].filler) d->f[i].stopped = 1;
        } else if (!in->failed) {
            snprintf(in->err, sizeof(in->err), "write failed (%s %d)%s", rpc_status ? "RPC" : "NFS status", s,
                     s == TBBT_NFSERR_NOSPC ? ": the image does not fit on the export" : "");
            in->failed = 1;
        }
    }
    if (--f->writes_left) return;
    if (f->write_failed || tbbt_inf_commit(in->q, dfile_fh(f), committed, priv) < 0) f->busy = 0;
}

/* Sends the WRITEs of len bytes at offset of a file, at most wmax bytes
 * each; remembers them so that they can be written again. */
static int send_append(struct data *d, uint32_t file, uint64_t offset, uint64_t len) {
    struct dfile *f = &d->f[file];
    void *priv = GUINT_TO_POINTER(file + 1);
    f->busy = 1;
    f->write_failed = 0;
    f->a_off = offset, f->a_len = len;
    f->verfs = f->verf_changed = 0;
    f->writes_left = (uint32_t)((len + d->wmax - 1) / d->wmax);
    for (uint64_t off = 0; off < len; off += d->wmax) {
        uint32_t n = (uint32_t)MIN(d->wmax, len - off);
        /* a byte's value depends on the file and its offset only, never on
         * how the appends were cut: clones are identical, files differ */
        const char *data = d->payload + (offset + off + f->phase) % d->wmax;
        if (tbbt_inf_write(d->in->q, dfile_fh(f), offset + off, n, data, appended, priv) < 0) return -1;
    }
    return 0;
}

/* Sends one append of the schedule and counts it. */
static int issue_append(struct data *d, const struct tbbt_age_step *s) {
    struct dfile *f = &d->f[s->file];
    f->rewrites = 0;
    if (send_append(d, s->file, s->offset, s->len) < 0) return -1;
    if (f->filler)
        d->in->st->fill_written += s->len;
    else
        d->in->st->image_bytes += s->len;
    d->in->st->appends++;
    return 0;
}

/* Runs the schedule of appends over the files: in its order, a step
 * waiting while its file's previous append is out. */
static int write_data(struct init *in, struct data *d) {
    const struct tbbt_init_opts *o = in->o;
    uint64_t *sizes = g_new(uint64_t, d->n ? d->n : 1);
    for (size_t i = 0; i < d->n; i++)
        sizes[i] = d->f[i].size;
    struct tbbt_age_opts ao = {o->scope, o->appends_per_file, o->seed};
    struct tbbt_aging *ag = tbbt_aging_new(&ao, sizes, d->n);
    g_free(sizes);
    tbbt_nfsq_set_user(in->q, d);
    struct tbbt_age_step step;
    int have = 0, over = 0, rc = 0;
    for (;;) {
        while (!in->failed && !over && tbbt_nfsq_room(in->q)) {
            if (!have && !(have = tbbt_aging_next(ag, &step))) over = 1;
            if (over) break;
            if (d->f[step.file].stopped) { /* a filler after the export filled */
                have = 0;
                continue;
            }
            if (d->f[step.file].busy) break;
            if (issue_append(d, &step) < 0) {
                snprintf(in->err, sizeof(in->err), "a write could not be sent");
                in->failed = 1;
            }
            have = 0;
        }
        if (in->failed || (over && !tbbt_nfsq_inflight(in->q))) break;
        if ((rc = tbbt_init_pump(in)) < 0) break;
    }
    char ignore[256];
    tbbt_nfsq_drain(in->q, o->timeout, ignore, sizeof(ignore));
    tbbt_nfsq_set_user(in->q, NULL);
    tbbt_aging_free(ag);
    return in->failed || rc < 0 ? -1 : 0;
}

/* ---- fillers ---- */

/* The fillers to write (*nkeep kept, *ndel removed at the end) so that
 * the export is near full while aging and at the fullness asked after. */
static void plan_fillers(const struct tbbt_init_opts *o, struct tbbt_init_stats *st, uint64_t abytes,
                         uint64_t image, uint64_t *nkeep, uint64_t *ndel) {
    *nkeep = *ndel = 0;
    if (o->fullness < 0 || !st->tbytes) return;
    double t = (double)st->tbytes, used = (double)st->used_before;
    double keep = o->fullness * t - used - (double)image;
    if (keep < 0) keep = 0;
    double del = (double)abytes - (double)image - keep - 0.02 * t;
    if (del < 0) del = 0;
    *nkeep = (uint64_t)ceil(keep / (double)o->filler_size);
    *ndel = (uint64_t)floor(del / (double)o->filler_size);
}

/* Is filler j of n one of the ndel to remove (spread evenly)? */
static int filler_deleted(uint64_t j, uint64_t n, uint64_t ndel) {
    return n && (j * ndel / n) != ((j + 1) * ndel / n);
}

/* A filler's call in flight: its file and its name, which must outlive
 * the call (the queue sends it again from a shallow copy of the arguments
 * after a reconnection, nfsq.h). Freed by the reply. */
struct fcall {
    size_t j;
    char name[24];
};

/* Reply to a filler's CREATE or REMOVE. */
static void filler_done(struct tbbt_nfsq *q, int rpc_status, void *data, void *priv) {
    struct data *d = tbbt_nfsq_user(q);
    struct fcall *c = priv;
    struct dfile *f = &d->f[c->j];
    g_free(c);
    int s = rpc_status ? -1 : tbbt_inf_status(data);
    if (s == TBBT_NFSERR_NOENT && tbbt_nfsq_retried(q) && !(f->fh && !f->fh->len))
        s = 0; /* a removal sent again after a reconnection: its first sending removed it */
    if (s != 0 && !d->in->failed) {
        snprintf(
            d->in->err, sizeof(d->in->err), "filler: %s %d%s", rpc_status ? "RPC error" : "NFS status", s,
            s == TBBT_NFSERR_EXIST && tbbt_nfsq_retried(q) ? " (a creation sent again after a reconnection)"
                                                           : "");
        d->in->failed = 1;
    }
    if (s == 0 && f->fh && !f->fh->len) tbbt_inf_newfh(TBBT_INF_CREATE, data, f->fh);
}

/* Creates (create = 1) or removes the fillers whose pick says so, many at once. */
static int filler_calls(struct init *in, struct data *d, const struct tbbt_fh *dir, int create,
                        int (*pick)(const struct dfile *f, size_t j, void *ctx), void *ctx) {
    tbbt_nfsq_set_user(in->q, d);
    size_t j = 0;
    int rc = 0;
    while (rc == 0) {
        while (!in->failed && j < d->n && tbbt_nfsq_room(in->q)) {
            struct dfile *f = &d->f[j];
            if (f->filler && pick(f, j, ctx)) {
                struct fcall *c = g_new(struct fcall, 1);
                c->j = j;
                snprintf(c->name, sizeof(c->name), "f%07zu", j);
                struct tbbt_inf_attr a = {0644, -1, -1};
                int r = create ? tbbt_inf_create(in->q, tbbt_inf_fh(dir), c->name, &a, filler_done, c)
                               : tbbt_inf_remove(in->q, dir, c->name, filler_done, c);
                if (r < 0)
                    g_free(c), in->failed = 1, snprintf(in->err, sizeof(in->err), "filler: cannot send");
            }
            j++;
        }
        if (in->failed || (j >= d->n && !tbbt_nfsq_inflight(in->q))) break;
        rc = tbbt_init_pump(in);
    }
    char ignore[256];
    tbbt_nfsq_drain(in->q, in->o->timeout, ignore, sizeof(ignore));
    tbbt_nfsq_set_user(in->q, NULL);
    return in->failed || rc < 0 ? -1 : 0;
}

static int pick_all(const struct dfile *f, size_t j, void *ctx) {
    (void)f, (void)j, (void)ctx;
    return 1;
}

/* The fillers that occupied free space and go at the end. */
static int pick_deleted(const struct dfile *f, size_t j, void *ctx) {
    (void)j, (void)ctx;
    return f->del;
}

/* ---- the run ---- */

/* Whether ob is a file whose data is written (in every clone). */
static int kept_file(const struct obj *ob) {
    return !ob->first && !ob->is_root && (ob->type == TBBT_FT_REG || !ob->type) && ob->size;
}

/* The files to fill, in the order they join the scope: each kept file
 * (map order, its clones side by side), the fillers spread evenly among
 * them; all shuffled when files of different directories interleave. */
static void data_files(struct init *in, struct image *img, struct data *d, uint64_t nkeep, uint64_t ndel,
                       struct tbbt_fh *filler_fh) {
    const struct tbbt_init_opts *o = in->o;
    uint64_t nf = nkeep + ndel, k = 0;
    for (guint i = 0; i < img->objs->len; i++)
        k += kept_file(&g_array_index(img->objs, struct obj, i)) ? (uint64_t)o->clones : 0;
    d->n = (size_t)(k + nf);
    d->f = g_new0(struct dfile, d->n ? d->n : 1);
    size_t at = 0, ki = 0;
    guint oi = 0;
    int c = 0;
    for (uint64_t j = 0; j <= nf; j++) {
        uint64_t before = j < nf ? (j + 1) * k / (nf + 1) : k; /* kept files placed before filler j */
        for (; ki < before; ki++, at++) {                      /* the next kept file: object oi in clone c */
            const struct obj *ob;
            while (!kept_file(ob = &g_array_index(img->objs, struct obj, oi)))
                oi++;
            struct tbbt_inf_fh f = obj_fh(img, c, oi);
            d->f[at] = (struct dfile){.fhd = f.data,
                                      .fhlen = (uint8_t)f.len,
                                      .size = ob->size,
                                      .phase = (uint32_t)((ob->id * 0x9e3779b97f4a7c15ull) >> 40)};
            if (++c == o->clones) c = 0, oi++;
        }
        if (j == nf) break;
        filler_fh[j].len = 0;
        d->f[at++] = (struct dfile){.fh = &filler_fh[j],
                                    .size = o->filler_size,
                                    .filler = 1,
                                    .del = (uint8_t)filler_deleted(j, nf, ndel)};
    }
    if (!o->interleave_dirs) return;
    uint64_t st = o->seed ^ 0x2545f4914f6cdd1dull;
    for (size_t i = d->n; i > 1; i--) {
        size_t j = (size_t)(tbbt_splitmix64(&st) % i);
        struct dfile t = d->f[i - 1];
        d->f[i - 1] = d->f[j];
        d->f[j] = t;
    }
}

/* FSSTAT of the export: total, free, available. */
struct fsst {
    uint64_t t, f, a;
};

static void take_fsstat(void *ctx, void *data) {
    struct fsst *s = ctx;
    if (tbbt_inf_status(data) == 0) tbbt_inf_fsstat_sizes(data, &s->t, &s->f, &s->a);
}

static int issue_fsstat(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx) {
    (void)ctx;
    return tbbt_inf_fsstat(in->q, &in->root, cb, priv);
}

static void take_fsinfo(void *ctx, void *data) {
    *(uint32_t *)ctx = tbbt_inf_fsinfo_wtmax(data);
}

static int issue_fsinfo(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx) {
    (void)ctx;
    return tbbt_inf_fsinfo(in->q, &in->root, cb, priv);
}

/* FSSTAT now. Returns 0 or -1. */
static int fsstat(struct init *in, struct fsst *s) {
    memset(s, 0, sizeof(*s));
    int r = tbbt_init_sync(in, issue_fsstat, take_fsstat, s, "FSSTAT");
    if (r > 0) snprintf(in->err, sizeof(in->err), "FSSTAT: NFS status %d", r);
    return r == 0 ? 0 : -1;
}

/* A new connection after one broke (the server restarted): NFS is
 * stateless and the handles stay valid, so no new MOUNT is needed. */
static struct rpc_context *reconnect_one(void *ctx, char *err, size_t errlen) {
    struct init *in = ctx;
    const struct tbbt_init_opts *o = in->o;
    return tbbt_nfs_connect(&o->server, o->timeout < 5 ? o->timeout : 5, o->uid, o->gid, err, errlen);
}

/* The queue's word on a lost connection, said always (it explains a pause). */
static void say_line(void *ctx, const char *line) {
    (void)ctx;
    fprintf(stderr, "tbbt-init: %s\n", line);
}

/* Connects: MOUNT for the root handle, then the connections and the queue. */
static int connect_all(struct init *in) {
    const struct tbbt_init_opts *o = in->o;
    if (tbbt_nfs_mount(&o->server, o->timeout, &in->root, in->err, sizeof(in->err)) < 0) return -1;
    in->rpcs = g_new0(struct rpc_context *, o->connections);
    for (int i = 0; i < o->connections; i++)
        if (!(in->rpcs[i] =
                  tbbt_nfs_connect(&o->server, o->timeout, o->uid, o->gid, in->err, sizeof(in->err))))
            return -1;
    in->q = tbbt_nfsq_new(in->rpcs, o->connections, o->depth);
    tbbt_nfsq_set_reconnect(in->q, reconnect_one, say_line, in, o->timeout, 8);
    return 0;
}

/* The manifest's local path: the option, else the map's beside it. */
static char *manifest_path(const struct tbbt_init_opts *o) {
    if (o->manifest) return g_strdup(o->manifest);
    size_t n = strlen(o->map);
    if (n > 5 && g_str_has_suffix(o->map, ".hmap")) n -= 5;
    return g_strdup_printf("%.*s.manifest", (int)n, o->map);
}

/* The init parameters as one JSON object (the manifest's and results'). */
static char *params_json(const struct tbbt_init_opts *o) {
    return g_strdup_printf("{\"scope\":%llu,\"appends_per_file\":%u,\"interleave_dirs\":%s,\"fullness\":%.4f,"
                           "\"filler_size\":%llu,\"seed\":%llu,\"clones\":%d}",
                           (unsigned long long)o->scope, o->appends_per_file,
                           o->interleave_dirs ? "true" : "false", o->fullness,
                           (unsigned long long)o->filler_size, (unsigned long long)o->seed, o->clones);
}

/* The SHA-256 of a file in hex (g_free), or NULL when it cannot be read;
 * read a piece at a time, not held whole beside the image. */
static char *file_sha256(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    GChecksum *ck = g_checksum_new(G_CHECKSUM_SHA256);
    guchar buf[65536];
    for (size_t got; (got = fread(buf, 1, sizeof(buf), fp)) > 0;)
        g_checksum_update(ck, buf, got);
    char *hex = ferror(fp) ? NULL : g_strdup(g_checksum_get_string(ck));
    g_checksum_free(ck);
    fclose(fp);
    return hex;
}

/* Writes the manifest beside the map, then the same file into RUN. */
static int write_manifest(struct init *in, struct image *img) {
    const struct tbbt_init_opts *o = in->o;
    char *path = manifest_path(o), *params = params_json(o), *sha = NULL, srv[1300], clones[16], when[64];
    sha = file_sha256(o->map);
    tbbt_nfs_server_name(&o->server, srv, sizeof(srv));
    snprintf(clones, sizeof(clones), "%d", o->clones);
    time_t now = time(NULL);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    char *mapbase = g_path_get_basename(o->map);
    const char *hdr[] = {"server", srv,          "run",           o->run,   "map",
                         mapbase,  "map_sha256", sha ? sha : "-", "params", params,
                         "clones", clones,       "created",       when,     NULL};
    int rc = -1;
    struct tbbt_mfw *w = tbbt_mfw_open(path, hdr, in->err, sizeof(in->err));
    for (int c = 0; w && c < o->clones; c++)
        for (guint i = 0; i < img->objs->len; i++) {
            const struct obj *ob = &g_array_index(img->objs, struct obj, i);
            if (ob->first) continue;
            struct tbbt_mf_entry e = {
                .clone = (uint32_t)c, .id = ob->id, .path = ob->is_root ? "." : ob->path};
            struct tbbt_inf_fh f = obj_fh(img, c, i);
            e.fhlen = f.len;
            if (f.len) memcpy(e.fh, f.data, f.len);
            tbbt_mfw_put(w, &e);
        }
    if (w && tbbt_mfw_close(w, in->err, sizeof(in->err)) == 0)
        rc = tbbt_init_upload(in, &in->run, "manifest", path);
    g_free(path), g_free(params), g_free(sha), g_free(mapbase);
    return rc;
}

/* Says what is happening, unless quiet. */
static void progress(const struct init *in, const char *what) {
    if (!in->o->quiet) fprintf(stderr, "tbbt-init: %s\n", what);
}

/* The map root's mode and owner, for the clones' roots (a replay by the
 * trace's users must meet the permissions the trace met). NULL: none. */
static const struct tbbt_inf_attr *root_attr(const struct image *img, struct tbbt_inf_attr *a) {
    for (guint i = 0; i < img->objs->len; i++) {
        const struct obj *o = &g_array_index(img->objs, struct obj, i);
        if (!o->is_root) continue;
        *a = (struct tbbt_inf_attr){o->known & TBBT_HM_MODE ? (int64_t)o->mode : 0755,
                                    o->known & TBBT_HM_UID ? (int64_t)o->uid : -1,
                                    o->known & TBBT_HM_GID ? (int64_t)o->gid : -1};
        return a;
    }
    return NULL;
}

/* The clones' roots RUN/clone.i, and every object in each. */
static int build_clones(struct init *in, struct image *img) {
    struct tbbt_inf_attr ra;
    uint32_t n = img->objs->len;
    img->fh = g_new0(struct tbbt_fhslots, in->o->clones); /* all zero: empty (tbbt_fhslots_init) */
    img->clone_root = g_new0(struct tbbt_fh, in->o->clones);
    for (int c = 0; c < in->o->clones; c++) {
        char name[32], msg[96];
        snprintf(name, sizeof(name), "clone.%d", c);
        if (tbbt_init_mkdir(in, &in->run, name, root_attr(img, &ra), &img->clone_root[c]) < 0) return -1;
        snprintf(msg, sizeof(msg), "making %u objects in %s/%s", n, in->o->run, name);
        progress(in, msg);
        if (populate(in, img, c) < 0) return -1;
    }
    return 0;
}

/* Data and fillers: plan, create the fillers, append, remove the fillers. */
static int age(struct init *in, struct image *img) {
    struct tbbt_init_stats *st = in->st;
    struct fsst fs;
    if (fsstat(in, &fs) < 0) return -1;
    uint64_t image = 0, nkeep, ndel;
    for (guint i = 0; i < img->objs->len; i++) {
        const struct obj *ob = &g_array_index(img->objs, struct obj, i);
        if (!ob->first && (ob->type == TBBT_FT_REG || !ob->type)) image += ob->size * (uint64_t)in->o->clones;
    }
    plan_fillers(in->o, st, fs.a, image, &nkeep, &ndel);
    struct tbbt_fh *ffh = g_new0(struct tbbt_fh, nkeep + ndel + 1), fill;
    struct data d = {.in = in};
    uint32_t wtmax = 0;
    if (tbbt_init_sync(in, issue_fsinfo, take_fsinfo, &wtmax, "FSINFO") < 0) return -1;
    d.wmax = wtmax && wtmax < MAX_WRITE ? wtmax : MAX_WRITE;
    d.payload = g_malloc(2 * (size_t)d.wmax); /* twice: a write starts anywhere in the first half */
    uint64_t r = in->o->seed;
    for (uint32_t i = 0; i + 8 <= d.wmax; i += 8) {
        uint64_t v = tbbt_splitmix64(&r);
        memcpy(d.payload + i, &v, 8); /* incompressible */
    }
    memcpy(d.payload + d.wmax, d.payload, d.wmax); /* periodic: byte k of the data is payload[k % wmax] */
    data_files(in, img, &d, nkeep, ndel, ffh);
    int rc = 0;
    st->fillers = nkeep + ndel;
    if (st->fillers) {
        char msg[128];
        snprintf(msg, sizeof(msg), "%llu filler files (%llu to remove at the end) in %s/fill",
                 (unsigned long long)st->fillers, (unsigned long long)ndel, in->o->run);
        progress(in, msg);
        rc = tbbt_init_mkdir(in, &in->run, "fill", NULL, &fill);
        if (rc == 0) rc = filler_calls(in, &d, &fill, 1, pick_all, NULL);
    }
    double t0 = tbbt_now_s();
    if (rc == 0) {
        char msg[160];
        snprintf(msg, sizeof(msg), "writing %.1f MB in appends (scope %llu blocks, %u appends a file)",
                 (double)image / 1e6, (unsigned long long)in->o->scope, in->o->appends_per_file);
        progress(in, msg);
        rc = write_data(in, &d);
    }
    st->data_s = tbbt_now_s() - t0;
    if (rc == 0 && ndel) {
        for (size_t j = 0; j < d.n; j++)
            if (d.f[j].del) st->fill_deleted += d.f[j].size, st->fillers_deleted++;
        rc = filler_calls(in, &d, &fill, 0, pick_deleted, NULL);
    }
    g_free(d.payload), g_free(d.f), g_free(ffh);
    return rc;
}

/* Removes the manifest beside the map: RUN is being (re)built, and an
 * older manifest would describe an image that is no longer there. */
static int remove_manifest(struct init *in) {
    char *mf = manifest_path(in->o);
    int rc = g_remove(mf) < 0 && errno != ENOENT ? -1 : 0;
    if (rc < 0)
        snprintf(in->err, sizeof(in->err), "%s: cannot remove the old manifest: %s", mf, g_strerror(errno));
    g_free(mf);
    return rc;
}

/* The steps of init.h, in order. */
static int run_steps(struct init *in, struct image *img) {
    struct tbbt_init_stats *st = in->st;
    struct fsst fs;
    if (connect_all(in) < 0 || fsstat(in, &fs) < 0) return -1;
    st->tbytes = fs.t, st->used_before = fs.t - fs.f;
    if (in->o->replace && remove_manifest(in) < 0) return -1; /* RUN is about to be emptied */
    if (tbbt_init_rundir(in) < 0 || remove_manifest(in) < 0) return -1;
    double t0 = tbbt_now_s();
    if (build_clones(in, img) < 0) return -1;
    st->create_s = tbbt_now_s() - t0;
    if (age(in, img) < 0) return -1;
    if (fsstat(in, &fs) < 0) return -1;
    st->used_after = fs.t - fs.f;
    st->fullness_after = fs.t ? 1.0 - (double)fs.f / (double)fs.t : -1;
    progress(in, "writing the manifest");
    if (write_manifest(in, img) < 0) return -1;
    if (tbbt_init_marker(in, "complete") < 0) return -1;
    st->complete = 1;
    return 0;
}

int tbbt_init_run(const struct tbbt_init_opts *o, struct tbbt_init_stats *st, char *err, size_t errlen) {
    memset(st, 0, sizeof(*st));
    st->fullness_after = -1;
    struct init in = {.o = o, .st = st};
    struct image img = {0};
    double t0 = tbbt_now_s();
    int rc = load_map(o->map, &img, &st->refused, err, errlen);
    if (rc == 0 && (rc = run_steps(&in, &img)) < 0) snprintf(err, errlen, "%s", in.err);
    st->wall = tbbt_now_s() - t0;
    if (in.q) st->reconnects = tbbt_nfsq_reconnects(in.q), st->resent = tbbt_nfsq_resent(in.q);
    if (in.q) tbbt_nfsq_free(in.q);
    for (int i = 0; in.rpcs && i < o->connections; i++)
        if (in.rpcs[i]) rpc_destroy_context(in.rpcs[i]);
    g_free(in.rpcs);
    for (int c = 0; img.fh && c < o->clones; c++)
        tbbt_fhslots_free(&img.fh[c]);
    g_free(img.fh), g_free(img.clone_root);
    if (img.objs) g_array_free(img.objs, TRUE);
    if (img.strs) g_string_chunk_free(img.strs);
    return rc;
}

void tbbt_init_report(const struct tbbt_init_opts *o, const struct tbbt_init_stats *st, FILE *out) {
    double mb = (double)(st->image_bytes + st->fill_written) / 1e6;
    fprintf(out,
            "Image: %llu objects in %d clone(s): %llu dirs, %llu files, %llu symlinks, %llu other, %llu hard "
            "links\n",
            (unsigned long long)st->objects, o->clones, (unsigned long long)st->dirs,
            (unsigned long long)st->files, (unsigned long long)st->symlinks, (unsigned long long)st->others,
            (unsigned long long)st->links);
    fprintf(out,
            "Data: %.1f MB of files in %llu appends (%llu writes, %llu commits); scope %llu blocks, %u "
            "appends a file%s\n",
            (double)st->image_bytes / 1e6, (unsigned long long)st->appends, (unsigned long long)st->writes,
            (unsigned long long)st->commits, (unsigned long long)o->scope, o->appends_per_file,
            o->interleave_dirs ? ", directories interleaved" : "");
    if (st->fillers)
        fprintf(out, "Fillers: %llu files, %.1f MB written, %llu files (%.1f MB) removed%s\n",
                (unsigned long long)st->fillers, (double)st->fill_written / 1e6,
                (unsigned long long)st->fillers_deleted, (double)st->fill_deleted / 1e6,
                st->fill_stopped ? "; the export filled up before all were written" : "");
    if (st->fullness_after >= 0)
        fprintf(out, "Export: %.1f MB, used %.1f MB before and %.1f MB after: fullness %.3f%s\n",
                (double)st->tbytes / 1e6, (double)st->used_before / 1e6, (double)st->used_after / 1e6,
                st->fullness_after, o->fullness >= 0 ? "" : " (no fullness asked)");
    if (o->fullness >= 0) fprintf(out, "Fullness asked %.3f, got %.3f\n", o->fullness, st->fullness_after);
    if (st->owners_refused)
        fprintf(out, "Owners: the server refused to set uid/gid; %llu objects made with tbbt-init's own\n",
                (unsigned long long)st->owners_refused);
    if (st->refused)
        fprintf(out,
                "Refused: %llu map entries whose name could leave the run directory (\"..\", \".\", '/'), "
                "with their subtrees; not made\n",
                (unsigned long long)st->refused);
    if (st->reconnects)
        fprintf(
            out,
            "Reconnections: %llu connection(s) lost and made again, %llu calls sent again, %llu creations "
            "sent again found made, %llu appends written again (write verifier changed)\n",
            (unsigned long long)st->reconnects, (unsigned long long)st->resent,
            (unsigned long long)st->exist_after_retry, (unsigned long long)st->rewritten);
    if (st->removed_before)
        fprintf(out, "Replaced: %llu objects of the previous image removed first\n",
                (unsigned long long)st->removed_before);
    fprintf(out,
            "Time: %.2f s (objects %.2f s, data %.2f s); %.1f MB/s; %.2f bytes written per byte of image\n",
            st->wall, st->create_s, st->data_s, st->data_s > 0 ? mb / st->data_s : 0,
            st->image_bytes ? (double)(st->image_bytes + st->fill_written) / (double)st->image_bytes : 0);
}

void tbbt_init_report_json(const struct tbbt_init_opts *o, const struct tbbt_init_stats *st,
                           const char *error, GString *out) {
    char *params = params_json(o);
    g_string_append_printf(out, "{\"complete\":%s,", st->complete && !error ? "true" : "false");
    if (error) {
        g_string_append(out, "\"error\":\"");
        for (const char *c = error; *c; c++)
            if (*c == '"' || *c == '\\')
                g_string_append_printf(out, "\\%c", *c);
            else if ((unsigned char)*c < 0x20)
                g_string_append_printf(out, "\\u%04x", *c);
            else
                g_string_append_c(out, *c);
        g_string_append(out, "\",");
    }
    g_string_append_printf(
        out,
        "\"reconnects\":%llu,\"resent\":%llu,\"exist_after_retry\":%llu,\"rewritten\":%llu,"
        "\"params\":%s,\"objects\":%llu,\"dirs\":%llu,\"files\":%llu,\"symlinks\":%llu,\"others\":%llu,"
        "\"links\":%llu,\"image_bytes\":%llu,\"appends\":%llu,\"writes\":%llu,\"commits\":%llu,\"fillers\":%"
        "llu,"
        "\"fill_written\":%llu,\"fillers_deleted\":%llu,\"fill_deleted\":%llu,\"fill_stopped\":%s,"
        "\"tbytes\":%llu,\"used_before\":%llu,\"used_after\":%llu,\"fullness_after\":%.6f,"
        "\"owners_refused\":%llu,\"refused\":%llu,\"removed_before\":%llu,\"wall_s\":%.6f,\"create_s\":%.6f,"
        "\"data_s\":%.6f}",
        (unsigned long long)st->reconnects, (unsigned long long)st->resent,
        (unsigned long long)st->exist_after_retry, (unsigned long long)st->rewritten, params,
        (unsigned long long)st->objects, (unsigned long long)st->dirs, (unsigned long long)st->files,
        (unsigned long long)st->symlinks, (unsigned long long)st->others, (unsigned long long)st->links,
        (unsigned long long)st->image_bytes, (unsigned long long)st->appends, (unsigned long long)st->writes,
        (unsigned long long)st->commits, (unsigned long long)st->fillers,
        (unsigned long long)st->fill_written, (unsigned long long)st->fillers_deleted,
        (unsigned long long)st->fill_deleted, st->fill_stopped ? "true" : "false",
        (unsigned long long)st->tbytes, (unsigned long long)st->used_before,
        (unsigned long long)st->used_after, st->fullness_after, (unsigned long long)st->owners_refused,
        (unsigned long long)st->refused, (unsigned long long)st->removed_before, st->wall, st->create_s,
        st->data_s);
    g_free(params);
}
