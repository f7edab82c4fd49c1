/* rundir.c -- tbbt-init's run directory: made with a marker, refused
 * when foreign, emptied only when asked (see init.h). Also the set-up
 * calls that wait for their reply. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "initctx.h"
#include "nfsstat.h"

/* A waited-for call's outcome. */
struct sync {
    int done, status;
    void (*take)(void *ctx, void *data);
    void *ctx;
    char msg[256];
};

/* Callback of a waited-for call. */
static void sync_cb(struct tbbt_nfsq *q, int rpc_status, void *data, void *priv) {
    struct sync *s = priv;
    (void)q;
    s->done = 1;
    if (rpc_status != 0) {
        s->status = -1;
        snprintf(s->msg, sizeof(s->msg), "%s", data ? (const char *)data : "RPC failed");
        return;
    }
    s->status = tbbt_inf_status(data);
    if (s->take) s->take(s->ctx, data);
}

volatile sig_atomic_t tbbt_init_interrupted;

int tbbt_init_pump(struct init *in) {
    if (tbbt_init_interrupted) {
        snprintf(in->err, sizeof(in->err), "interrupted; the image in %s is partial (marker: building)",
                 in->o->run);
        return -1;
    }
    if (tbbt_nfsq_service(in->q, 100, in->err, sizeof(in->err)) < 0) return -1;
    if (tbbt_nfsq_inflight(in->q) && tbbt_nfsq_silence(in->q) > in->o->timeout) {
        snprintf(in->err, sizeof(in->err), "%s: %d calls unanswered for %d s", in->o->server.host,
                 tbbt_nfsq_inflight(in->q), in->o->timeout);
        return -1;
    }
    return in->failed ? -1 : 0;
}

int tbbt_init_sync(struct init *in, int (*issue)(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx),
                   void (*take)(void *ctx, void *data), void *ctx, const char *what) {
    struct sync s = {.take = take, .ctx = ctx};
    if (issue(in, sync_cb, &s, ctx) < 0) {
        snprintf(in->err, sizeof(in->err), "%s: the call could not be sent", what);
        return -1;
    }
    if (tbbt_nfsq_drain(in->q, in->o->timeout, in->err, sizeof(in->err)) < 0) return -1;
    if (s.status < 0) {
        snprintf(in->err, sizeof(in->err), "%s: %s", what, s.msg);
        return -1;
    }
    return s.status;
}

/* Arguments of the small set-up calls. */
struct named {
    enum tbbt_inf_proc proc;          /* which reply carries the handle */
    const struct tbbt_inf_attr *attr; /* mkdir's attributes (NULL: 0755, the server's owner) */
    const struct tbbt_fh *dir;
    const char *name;
    struct tbbt_fh *out;
    const void *data;
    uint32_t len;
    uint64_t offset;
};

static int issue_lookup(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx) {
    struct named *n = ctx;
    return tbbt_inf_lookup(in->q, tbbt_inf_fh(n->dir), n->name, cb, priv);
}

static int issue_mkdir(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx) {
    struct named *n = ctx;
    struct tbbt_inf_attr a = {0755, -1, -1};
    return tbbt_inf_mkdir(in->q, tbbt_inf_fh(n->dir), n->name, n->attr ? n->attr : &a, cb, priv);
}

static int issue_create(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx) {
    struct named *n = ctx;
    struct tbbt_inf_attr a = {0644, -1, -1};
    return tbbt_inf_create(in->q, tbbt_inf_fh(n->dir), n->name, &a, cb, priv);
}

static int issue_remove(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx) {
    struct named *n = ctx;
    return tbbt_inf_remove(in->q, n->dir, n->name, cb, priv);
}

static int issue_rmdir(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx) {
    struct named *n = ctx;
    return tbbt_inf_rmdir(in->q, n->dir, n->name, cb, priv);
}

static int issue_write(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx) {
    struct named *n = ctx;
    return tbbt_inf_write(in->q, tbbt_inf_fh(n->out), n->offset, n->len, n->data, cb, priv);
}

static int issue_commit(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx) {
    struct named *n = ctx;
    return tbbt_inf_commit(in->q, tbbt_inf_fh(n->out), cb, priv);
}

static int issue_read(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx) {
    struct named *n = ctx;
    return tbbt_inf_read(in->q, n->out, 0, n->len, cb, priv);
}

static int issue_truncate(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx) {
    struct named *n = ctx;
    return tbbt_inf_truncate(in->q, n->out, cb, priv);
}

/* take(): the handle of a lookup/mkdir/create reply into n->out. */
static void take_fh(void *ctx, void *data) {
    struct named *n = ctx;
    tbbt_inf_newfh(n->proc, data, n->out);
}

/* Looks name up in dir: 0 found (*out), TBBT_NFSERR_NOENT, other status, or -1. */
static int lookup(struct init *in, const struct tbbt_fh *dir, const char *name, struct tbbt_fh *out) {
    struct named n = {.proc = TBBT_INF_LOOKUP, .dir = dir, .name = name, .out = out};
    struct tbbt_fh tmp;
    if (!out) n.out = &tmp;
    return tbbt_init_sync(in, issue_lookup, take_fh, &n, name);
}

int tbbt_init_mkdir(struct init *in, const struct tbbt_fh *dir, const char *name,
                    const struct tbbt_inf_attr *attr, struct tbbt_fh *out) {
    struct named n = {.proc = TBBT_INF_MKDIR, .attr = attr, .dir = dir, .name = name, .out = out};
    out->len = 0;
    int s = tbbt_init_sync(in, issue_mkdir, take_fh, &n, name);
    if (s == TBBT_NFSERR_EXIST) s = lookup(in, dir, name, out);
    if (s == 0 && !out->len) s = lookup(in, dir, name, out);
    if (s > 0) snprintf(in->err, sizeof(in->err), "%s: cannot make the directory (NFS status %d)", name, s);
    return s == 0 ? 0 : -1;
}

/* Writes len bytes of data as the whole content of file fh. */
static int put_content(struct init *in, struct tbbt_fh *fh, const void *data, uint32_t len,
                       const char *what) {
    struct named n = {.out = fh, .data = data, .len = len};
    int s = tbbt_init_sync(in, issue_truncate, NULL, &n, what);
    if (s == 0 && len) s = tbbt_init_sync(in, issue_write, NULL, &n, what);
    if (s == 0) s = tbbt_init_sync(in, issue_commit, NULL, &n, what);
    if (s > 0) snprintf(in->err, sizeof(in->err), "%s: cannot write (NFS status %d)", what, s);
    return s == 0 ? 0 : -1;
}

int tbbt_init_marker(struct init *in, const char *state) {
    struct tbbt_fh fh = {0};
    struct named n = {.proc = TBBT_INF_CREATE, .dir = &in->run, .name = TBBT_INIT_MARKER, .out = &fh};
    int s = tbbt_init_sync(in, issue_create, take_fh, &n, TBBT_INIT_MARKER);
    if (s == TBBT_NFSERR_EXIST) s = lookup(in, &in->run, TBBT_INIT_MARKER, &fh);
    if (s != 0) {
        if (s > 0)
            snprintf(in->err, sizeof(in->err), "%s: cannot make the marker (NFS status %d)", in->o->run, s);
        return -1;
    }
    char *text = g_strdup_printf("{\"tool\":\"tbbt-init\",\"version\":\"" TBBT_INIT_VERSION
                                 "\",\"state\":\"%s\",\"time\":%lld}\n",
                                 state, (long long)time(NULL));
    int rc = put_content(in, &fh, text, (uint32_t)strlen(text), TBBT_INIT_MARKER);
    g_free(text);
    return rc;
}

/* A READ of a file's first bytes: the call (first, for issue_read) and
 * what came back. */
struct readctx {
    struct named n;
    GString *text;
};

/* take(): a READ reply's bytes. */
static void take_read(void *ctx, void *data) {
    struct readctx *r = ctx;
    uint32_t len;
    int eof;
    const void *p = tbbt_inf_read_data(data, &len, &eof);
    if (p) g_string_append_len(r->text, p, len);
}

/* Is the marker in RUN tbbt-init's? 1 yes, 0 no marker or not ours, -1 error. */
static int marker_ok(struct init *in) {
    struct tbbt_fh fh;
    int s = lookup(in, &in->run, TBBT_INIT_MARKER, &fh);
    if (s < 0) return -1;
    if (s != 0) return 0;
    struct readctx r = {.n = {.out = &fh, .len = 256}, .text = g_string_new(NULL)};
    s = tbbt_init_sync(in, issue_read, take_read, &r, TBBT_INIT_MARKER);
    int ok = s == 0 && g_str_has_prefix(r.text->str, "{\"tool\":\"tbbt-init\"");
    g_string_free(r.text, TRUE);
    return s < 0 ? -1 : ok;
}

/* One directory entry met while emptying RUN. */
struct dent {
    char *name;
    struct tbbt_fh fh;
    uint32_t type;
};

/* readdirplus callback: keeps the entry. */
static void keep_entry(void *ctx, const char *name, const struct tbbt_fh *fh, uint32_t type) {
    struct dent d = {g_strdup(name), *fh, type};
    g_array_append_val(ctx, d);
}

/* One READDIRPLUS page of a listing. */
struct listing {
    GArray *ents;
    uint64_t cookie;
    uint8_t verf[8];
    int eof;
    const struct tbbt_fh *dir;
};

static void take_page(void *ctx, void *data) {
    struct listing *l = ctx;
    if (tbbt_inf_status(data) != 0) return;
    l->cookie = tbbt_inf_readdirplus_each(data, keep_entry, l->ents, &l->eof, l->verf);
}

static int issue_page(struct init *in, tbbt_nfsq_cb cb, void *priv, void *ctx) {
    struct listing *l = ctx;
    return tbbt_inf_readdirplus(in->q, l->dir, l->cookie, l->verf, cb, priv);
}

/* Removes everything in dir (recursively; a directory's handle, never a
 * path, so nothing outside dir can be reached). keep: a name left alone. */
static int empty_dir(struct init *in, const struct tbbt_fh *dir, const char *keep, unsigned depth) {
    if (depth > 256) {
        snprintf(in->err, sizeof(in->err), "%s: directories nested too deep to remove", in->o->run);
        return -1;
    }
    struct listing l = {.ents = g_array_new(FALSE, FALSE, sizeof(struct dent)), .dir = dir};
    int rc = 0;
    while (!l.eof && rc == 0) {
        int s = tbbt_init_sync(in, issue_page, take_page, &l, "READDIRPLUS");
        if (s != 0) rc = -1;
        if (s > 0) snprintf(in->err, sizeof(in->err), "%s: cannot list (NFS status %d)", in->o->run, s);
    }
    for (guint i = 0; i < l.ents->len && rc == 0; i++) {
        struct dent *d = &g_array_index(l.ents, struct dent, i);
        if (keep && !strcmp(d->name, keep)) continue;
        struct named n = {.dir = dir, .name = d->name};
        if (d->type == TBBT_FT_DIR && (rc = empty_dir(in, &d->fh, NULL, depth + 1)) < 0) break;
        int s = tbbt_init_sync(in, d->type == TBBT_FT_DIR ? issue_rmdir : issue_remove, NULL, &n, d->name);
        if (s != 0 && s != TBBT_NFSERR_NOENT) { /* gone already */
            if (s > 0) snprintf(in->err, sizeof(in->err), "%s: cannot remove (NFS status %d)", d->name, s);
            rc = -1;
        }
        in->st->removed_before++;
    }
    for (guint i = 0; i < l.ents->len; i++)
        g_free(g_array_index(l.ents, struct dent, i).name);
    g_array_free(l.ents, TRUE);
    return rc;
}

int tbbt_init_rundir(struct init *in) {
    const char *run = in->o->run;
    int s = lookup(in, &in->root, run, &in->run);
    if (s < 0) return -1;
    if (s == TBBT_NFSERR_NOENT) { /* ours to make */
        if (tbbt_init_mkdir(in, &in->root, run, NULL, &in->run) < 0) return -1;
        return tbbt_init_marker(in, "building");
    }
    if (s != 0) {
        snprintf(in->err, sizeof(in->err), "%s: cannot look it up (NFS status %d)", run, s);
        return -1;
    }
    int ok = marker_ok(in);
    if (ok < 0) return -1;
    if (!ok) {
        snprintf(in->err, sizeof(in->err),
                 "%s exists and was not made by tbbt-init (no %s marker in it): refusing to touch it", run,
                 TBBT_INIT_MARKER);
        return -1;
    }
    if (!in->o->replace) {
        snprintf(in->err, sizeof(in->err),
                 "%s holds an image tbbt-init made; --replace removes it and builds anew", run);
        return -1;
    }
    if (tbbt_init_marker(in, "building") < 0 || empty_dir(in, &in->run, TBBT_INIT_MARKER, 0) < 0) return -1;
    return 0;
}

/* The file is sent a piece at a time, never held whole: a manifest has a
 * line per object per clone, and holding it would make the copy the
 * largest thing tbbt-init holds. */
int tbbt_init_upload(struct init *in, const struct tbbt_fh *dir, const char *name, const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) {
        snprintf(in->err, sizeof(in->err), "%s: %s", path, g_strerror(errno));
        return -1;
    }
    struct tbbt_fh fh = {0};
    struct named n = {.proc = TBBT_INF_CREATE, .dir = dir, .name = name, .out = &fh};
    int s = tbbt_init_sync(in, issue_create, take_fh, &n, name);
    if (s == TBBT_NFSERR_EXIST) s = lookup(in, dir, name, &fh);
    int rc = s == 0 ? 0 : -1;
    if (s > 0) snprintf(in->err, sizeof(in->err), "%s: cannot create (NFS status %d)", name, s);
    char *buf = g_malloc(65536);
    uint64_t off = 0;
    for (size_t got; rc == 0 && (got = fread(buf, 1, 65536, fp)) > 0; off += got) {
        struct named w = {.out = &fh, .data = buf, .len = (uint32_t)got, .offset = off};
        s = tbbt_init_sync(in, issue_write, NULL, &w, name);
        if (s != 0) rc = -1;
        if (s > 0) snprintf(in->err, sizeof(in->err), "%s: cannot write (NFS status %d)", name, s);
    }
    if (rc == 0 && ferror(fp)) {
        snprintf(in->err, sizeof(in->err), "%s: cannot read", path);
        rc = -1;
    }
    if (rc == 0 && tbbt_init_sync(in, issue_commit, NULL, &n, name) != 0) rc = -1;
    g_free(buf);
    fclose(fp);
    return rc;
}
