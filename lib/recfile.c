/* recfile.c -- binary record files: varint record encoding in zstd frames
 * between a header and a trailer (layout in recfile.h). */
#include "recfile.h"

#include <errno.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>
#include <zstd_errors.h>

#include "varint.h"
#include "outfile.h"

#define SKIP_MAGIC 0x184D2A50u
#define ZSTD_MAGIC 0xFD2FB528u
#define HDR_MAGIC "TBBTREC1"
#define END_MAGIC "TBBTEND1"
#define BATCH_TARGET (256u * 1024u)
#define ZLEVEL (-3)
#define MAX_SKIP (64u << 20)  /* largest header/unknown skippable frame */
#define MAX_FRAME (64u << 20) /* largest batch: bounds a reader's memory */
#define FRAME_HDR_MAX 18      /* ZSTD_FRAMEHEADERSIZE_MAX (static-only API) */

/* ------------------------------------------------------------------ */
/* Record encoding                                                      */

/* Stores v little-endian at p (4 bytes). */
static void put_le32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Loads a little-endian 32-bit value from p. */
static uint32_t get_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Returns 1 when s is a valid slice of r's arena. */
static int str_ok(const struct tbbt_rec *r, struct tbbt_str s) {
    return (uint64_t)s.off + s.len <= r->arena_len;
}

/* The known fields r carries, as a mask over tbbt_fields[]: walking its
 * set bits visits the fields in table order, skipping the absent ones. */
static uint64_t known_fields(const struct tbbt_rec *r) {
    return TBBT_F_COUNT_ < 64 ? r->has & ((1ull << (TBBT_F_COUNT_ & 63)) - 1) : r->has;
}

/* Upper bound of r's encoded size, or 0 when a string is out of bounds. */
static size_t encoded_bound(const struct tbbt_rec *r) {
    size_t n = 128 + 2 * 40 + TBBT_MAX_GIDS * 5 + TBBT_F_COUNT_ * 10;
    for (uint64_t m = known_fields(r); m; m &= m - 1) {
        int f = __builtin_ctzll(m);
        if (tbbt_fields[f].type == TBBT_FT_STR) {
            struct tbbt_str s = *(const struct tbbt_str *)((const char *)r + tbbt_fields[f].offset);
            if (!str_ok(r, s)) return 0;
            n += s.len;
        } else if (tbbt_fields[f].type == TBBT_FT_ENTRIES) {
            for (uint32_t i = 0; i < r->nentries; i++) {
                if (!str_ok(r, r->entries[i].name)) return 0;
                n += 6 * 10 + r->entries[i].name.len;
            }
        }
    }
    return n;
}

/* Appends an endpoint; returns the bytes written or 0 if the family is
 * not 0, 4 or 6. */
static size_t put_endpoint(uint8_t *p, const struct tbbt_endpoint *e) {
    size_t n = 0;
    p[n++] = e->family;
    if (e->family == 4) {
        memcpy(p + n, e->addr, 4);
        n += 4;
    } else if (e->family == 6) {
        memcpy(p + n, e->addr, 16);
        n += 16;
    } else if (e->family == 0) {
        static const uint8_t zero[16];
        int any = memcmp(e->addr, zero, 16) != 0;
        p[n++] = (uint8_t)any;
        if (any) {
            memcpy(p + n, e->addr, 16);
            n += 16;
        }
    } else {
        return 0;
    }
    return n + tbbt_varint_put(p + n, e->port);
}

/* Appends a string or listing field's value. */
static size_t put_bulk(uint8_t *p, const struct tbbt_rec *r, const struct tbbt_field_info *fi) {
    size_t n = 0;
    if (fi->type == TBBT_FT_STR) {
        struct tbbt_str s = *(const struct tbbt_str *)((const char *)r + fi->offset);
        n = tbbt_varint_put(p, s.len);
        if (s.len) memcpy(p + n, tbbt_rec_str(r, s), s.len);
        return n + s.len;
    }
    if (fi->type != TBBT_FT_ENTRIES) return 0;
    n = tbbt_varint_put(p, r->nentries);
    for (uint32_t i = 0; i < r->nentries; i++) {
        const struct tbbt_dirent *e = &r->entries[i];
        n += tbbt_varint_put(p + n, e->fileid);
        n += tbbt_varint_put(p + n, e->cookie);
        n += tbbt_varint_put(p + n, e->id);
        n += tbbt_varint_put(p + n, e->type);
        n += tbbt_varint_put(p + n, e->size);
        n += tbbt_varint_put(p + n, e->name.len);
        if (e->name.len) memcpy(p + n, tbbt_rec_str(r, e->name), e->name.len);
        n += e->name.len;
    }
    return n;
}

/* The time a time field is written relative to: another time field of
 * the same record when present (a file's ctime is mostly its mtime, and
 * a fresh file's mtime its atime: one byte instead of eight), else the
 * call time. Bases come earlier in field order, so a decoder has them. */
static int time_base(enum tbbt_field f) {
    switch (f) {
    case TBBT_F_MTIME: return TBBT_F_ATIME;
    case TBBT_F_CTIME: return TBBT_F_MTIME;
    case TBBT_F_PRE_CTIME: return TBBT_F_PRE_MTIME;
    case TBBT_F_DIR2_MTIME: return TBBT_F_DIR_MTIME;
    default: return -1;
    }
}

/* The base value of time field f in r (see time_base). */
static inline uint64_t time_base_value(const struct tbbt_rec *r, enum tbbt_field f) {
    int b = time_base(f);
    if (b >= 0 && tbbt_rec_has(r, b)) return *(const uint64_t *)((const char *)r + tbbt_fields[b].offset);
    return (uint64_t)r->call_time;
}

/* Appends one optional field's value. Most fields are numbers, encoded
 * here with a test or two rather than a jump through a table (a record
 * has a dozen or more fields, of types in no predictable order). */
static inline size_t put_field(uint8_t *p, const struct tbbt_rec *r, const struct tbbt_field_info *fi,
                               struct tbbt_rec_prev *prev) {
    const char *v = (const char *)r + fi->offset;
    enum tbbt_ftype t = fi->type;
    if (t > TBBT_FT_TIME) return put_bulk(p, r, fi);
    uint64_t x;
    if (t == TBBT_FT_U32) {
        x = *(const uint32_t *)v;
    } else {
        x = *(const uint64_t *)v;
        if (t == TBBT_FT_TIME) {
            x = tbbt_zigzag((int64_t)(x - time_base_value(r, fi->f)));
        } else if (fi->f == TBBT_F_FSID) {
            uint64_t fsid = x;
            x ^= prev->fsid;
            prev->fsid = fsid;
        }
    }
    return tbbt_varint_put(p, x);
}

/* Whether two credentials are the same (gids beyond ngids ignored). */
static int cred_equal(const struct tbbt_cred *a, const struct tbbt_cred *b) {
    return a->flavor == b->flavor && a->uid == b->uid && a->gid == b->gid && a->ngids == b->ngids &&
           memcmp(a->gids, b->gids, a->ngids * sizeof(a->gids[0])) == 0;
}

static int endpoint_equal(const struct tbbt_endpoint *a, const struct tbbt_endpoint *b) {
    return a->family == b->family && a->port == b->port && memcmp(a->addr, b->addr, 16) == 0;
}

/* Bits of the header's "same as the previous record" byte. */
enum { SAME_CLIENT = 1, SAME_SERVER = 2, SAME_CRED = 4 };

/* Contract in recfile.h. */
int tbbt_rec_encode(const struct tbbt_rec *r, struct tbbt_rec_prev *prev, uint8_t **buf, size_t *len,
                    size_t *cap) {
    size_t bound = encoded_bound(r);
    if (!bound || r->op >= TBBT_OP_COUNT || r->cred.ngids > TBBT_MAX_GIDS) return -1;
    if (r->has >> TBBT_F_COUNT_ && TBBT_F_COUNT_ < 64) return -1;
    if (*len + bound > *cap) {
        *cap = MAX(*cap * 2, *len + bound);
        *buf = g_realloc(*buf, *cap);
    }
    uint8_t *p = *buf + *len, *start = p;
    p += tbbt_varint_put(p, tbbt_zigzag((int64_t)((uint64_t)r->call_time - (uint64_t)prev->call_time)));
    p += tbbt_varint_put(p, r->flags);
    if (!(r->flags & TBBT_RF_REPLY_LOST))
        p += tbbt_varint_put(p, tbbt_zigzag((int64_t)((uint64_t)r->reply_time - (uint64_t)r->call_time)));
    uint8_t same = (uint8_t)((endpoint_equal(&r->client, &prev->client) ? SAME_CLIENT : 0) |
                             (endpoint_equal(&r->server, &prev->server) ? SAME_SERVER : 0) |
                             (cred_equal(&r->cred, &prev->cred) ? SAME_CRED : 0));
    *p++ = same;
    if (!(same & SAME_CLIENT)) {
        size_t n1 = put_endpoint(p, &r->client);
        if (!n1) return -1;
        p += n1;
    }
    if (!(same & SAME_SERVER)) {
        size_t n2 = put_endpoint(p, &r->server);
        if (!n2) return -1;
        p += n2;
    }
    p += tbbt_varint_put(p, r->xid);
    *p++ = r->vers;
    *p++ = r->op;
    p += tbbt_varint_put(p, tbbt_zigzag(r->status));
    if (!(same & SAME_CRED)) {
        p += tbbt_varint_put(p, r->cred.flavor);
        p += tbbt_varint_put(p, r->cred.uid);
        p += tbbt_varint_put(p, r->cred.gid);
        p += tbbt_varint_put(p, r->cred.ngids);
        for (uint32_t i = 0; i < r->cred.ngids; i++)
            p += tbbt_varint_put(p, r->cred.gids[i]);
    }
    p += tbbt_varint_put(p, r->has);
    for (uint64_t m = known_fields(r); m; m &= m - 1)
        p += put_field(p, r, &tbbt_fields[__builtin_ctzll(m)], prev);
    prev->call_time = r->call_time;
    prev->client = r->client;
    prev->server = r->server;
    prev->cred = r->cred;
    *len += (size_t)(p - start);
    return 0;
}

/* Bounds-checked decoding state. */
struct dec {
    const uint8_t *p, *end;
    const char *what; /* part being decoded, for the error message */
};

/* Reads a varint into *v; returns 0 or -1 (input ended or overlong). */
static int dget(struct dec *d, const char *what, uint64_t *v) {
    d->what = what;
    return tbbt_varint_get(&d->p, d->end, v);
}

/* Reads a varint that must fit in max; returns 0 or -1. */
static int dget_max(struct dec *d, const char *what, uint64_t max, uint64_t *v) {
    if (dget(d, what, v) < 0) return -1;
    return *v <= max ? 0 : -1;
}

/* Reads n raw bytes into out; returns 0 or -1. */
static int dbytes(struct dec *d, const char *what, void *out, size_t n) {
    d->what = what;
    if ((size_t)(d->end - d->p) < n) return -1;
    memcpy(out, d->p, n);
    d->p += n;
    return 0;
}

/* Reads a length-prefixed byte string; sets *s and *n (pointing into the
 * input). Returns 0 or -1. */
static int dstr(struct dec *d, const char *what, const char **s, size_t *n) {
    uint64_t len;
    if (dget(d, what, &len) < 0 || len > (uint64_t)(d->end - d->p)) return -1;
    *s = (const char *)d->p;
    *n = (size_t)len;
    d->p += len;
    return 0;
}

/* Decodes an endpoint; returns 0 or -1. */
static int get_endpoint(struct dec *d, const char *what, struct tbbt_endpoint *e) {
    uint64_t port;
    uint8_t any = 0;
    memset(e, 0, sizeof(*e));
    if (dbytes(d, what, &e->family, 1) < 0) return -1;
    if (e->family == 4) {
        if (dbytes(d, what, e->addr, 4) < 0) return -1;
    } else if (e->family == 6) {
        if (dbytes(d, what, e->addr, 16) < 0) return -1;
    } else if (e->family == 0) {
        if (dbytes(d, what, &any, 1) < 0 || any > 1) return -1;
        if (any && dbytes(d, what, e->addr, 16) < 0) return -1;
    } else {
        return -1;
    }
    if (dget_max(d, what, UINT16_MAX, &port) < 0) return -1;
    e->port = (uint16_t)port;
    return 0;
}

/* Decodes the entries list into r; returns 0 or -1. */
static int get_entries(struct dec *d, struct tbbt_rec *r) {
    uint64_t n, type;
    if (dget(d, "entries", &n) < 0 || n > (uint64_t)(d->end - d->p)) return -1;
    for (uint64_t i = 0; i < n; i++) {
        struct tbbt_dirent tmp;
        const char *s;
        size_t len;
        if (dget(d, "entry", &tmp.fileid) < 0 || dget(d, "entry", &tmp.cookie) < 0 ||
            dget(d, "entry", &tmp.id) < 0 || dget_max(d, "entry type", UINT8_MAX, &type) < 0 ||
            dget(d, "entry", &tmp.size) < 0 || dstr(d, "entry name", &s, &len) < 0)
            return -1;
        struct tbbt_dirent *e = tbbt_rec_add_entry(r, s, len);
        e->fileid = tmp.fileid;
        e->cookie = tmp.cookie;
        e->id = tmp.id;
        e->type = (uint8_t)type;
        e->size = tmp.size;
    }
    r->has |= 1ull << TBBT_F_ENTRIES;
    return 0;
}

/* Decodes one optional field into r; returns 0 or -1. */
static int get_field(struct dec *d, struct tbbt_rec *r, const struct tbbt_field_info *fi,
                     struct tbbt_rec_prev *prev) {
    uint64_t v;
    const char *s;
    size_t len;
    switch (fi->type) {
    case TBBT_FT_ID:
    case TBBT_FT_U64:
        if (dget(d, fi->key, &v) < 0) return -1;
        if (fi->f == TBBT_F_FSID) {
            v ^= prev->fsid;
            prev->fsid = v;
        }
        break;
    case TBBT_FT_U32:
        if (dget_max(d, fi->key, UINT32_MAX, &v) < 0) return -1;
        break;
    case TBBT_FT_TIME:
        if (dget(d, fi->key, &v) < 0) return -1;
        v = (uint64_t)tbbt_unzigzag(v) + time_base_value(r, fi->f);
        break;
    case TBBT_FT_STR:
        if (dstr(d, fi->key, &s, &len) < 0) return -1;
        tbbt_rec_set_str(r, fi->f, s, len);
        return 0;
    case TBBT_FT_ENTRIES: return get_entries(d, r);
    default: return -1;
    }
    tbbt_rec_set_u64(r, fi->f, v);
    return 0;
}

/* Decodes the fixed header; returns 0 or -1. */
static int get_header(struct dec *d, struct tbbt_rec *r, const struct tbbt_rec_prev *prev) {
    uint64_t v, ngids;
    uint8_t same;
    if (dget(d, "call_time", &v) < 0) return -1;
    r->call_time = (int64_t)((uint64_t)tbbt_unzigzag(v) + (uint64_t)prev->call_time);
    if (dget_max(d, "flags", UINT16_MAX, &v) < 0) return -1;
    r->flags = (uint16_t)v;
    if (!(r->flags & TBBT_RF_REPLY_LOST)) {
        if (dget(d, "reply_time", &v) < 0) return -1;
        r->reply_time = (int64_t)((uint64_t)tbbt_unzigzag(v) + (uint64_t)r->call_time);
    }
    if (dbytes(d, "same", &same, 1) < 0 || same > 7) return -1;
    if (same & SAME_CLIENT)
        r->client = prev->client;
    else if (get_endpoint(d, "client", &r->client) < 0)
        return -1;
    if (same & SAME_SERVER)
        r->server = prev->server;
    else if (get_endpoint(d, "server", &r->server) < 0)
        return -1;
    if (dget_max(d, "xid", UINT32_MAX, &v) < 0) return -1;
    r->xid = (uint32_t)v;
    if (dbytes(d, "vers", &r->vers, 1) < 0 || dbytes(d, "op", &r->op, 1) < 0 || r->op >= TBBT_OP_COUNT)
        return -1;
    if (dget(d, "status", &v) < 0) return -1;
    int64_t st = tbbt_unzigzag(v);
    if (st < INT32_MIN || st > INT32_MAX) return -1;
    r->status = (int32_t)st;
    if (same & SAME_CRED) {
        r->cred = prev->cred;
        return 0;
    }
    if (dget_max(d, "cred", UINT32_MAX, &v) < 0) return -1;
    r->cred.flavor = (uint32_t)v;
    if (dget_max(d, "cred", UINT32_MAX, &v) < 0) return -1;
    r->cred.uid = (uint32_t)v;
    if (dget_max(d, "cred", UINT32_MAX, &v) < 0) return -1;
    r->cred.gid = (uint32_t)v;
    if (dget_max(d, "cred gids", TBBT_MAX_GIDS, &ngids) < 0) return -1;
    r->cred.ngids = (uint32_t)ngids;
    for (uint32_t i = 0; i < r->cred.ngids; i++) {
        if (dget_max(d, "cred gids", UINT32_MAX, &v) < 0) return -1;
        r->cred.gids[i] = (uint32_t)v;
    }
    return 0;
}

/* Contract in recfile.h. */
int tbbt_rec_decode(struct tbbt_rec *r, struct tbbt_rec_prev *prev, const uint8_t **p, const uint8_t *end,
                    char *err, size_t errlen) {
    struct dec d = {*p, end, "record"};
    uint64_t has;
    tbbt_rec_clear(r);
    if (get_header(&d, r, prev) < 0) goto bad;
    if (dget(&d, "field mask", &has) < 0) goto bad;
    if (TBBT_F_COUNT_ < 64 && has >> TBBT_F_COUNT_) {
        d.what = "field mask (unknown field)";
        goto bad;
    }
    for (int f = 0; f < TBBT_F_COUNT_; f++)
        if ((has >> f) & 1 && get_field(&d, r, &tbbt_fields[f], prev) < 0) goto bad;
    r->has = has;
    prev->call_time = r->call_time;
    prev->client = r->client;
    prev->server = r->server;
    prev->cred = r->cred;
    *p = d.p;
    return 0;
bad:
    g_snprintf(err, errlen, "malformed record (%s)", d.what);
    return -1;
}

/* ------------------------------------------------------------------ */
/* Writer                                                               */

struct tbbt_recwriter {
    struct tbbt_outf *o; /* the file, put in place at close (outfile.h) */
    FILE *f;             /* o's stream */
    char *path;
    ZSTD_CCtx *cctx;
    uint8_t *batch, *zbuf;
    size_t blen, bcap, zcap;
    struct tbbt_rec_prev prev;
    uint64_t count;
    int failed;
    char err[512];
};

/* Records the first error of w (printf-style). */
static void G_GNUC_PRINTF(2, 3) w_fail(struct tbbt_recwriter *w, const char *fmt, ...) {
    if (w->failed) return;
    va_list ap;
    va_start(ap, fmt);
    g_vsnprintf(w->err, sizeof(w->err), fmt, ap);
    va_end(ap);
    w->failed = 1;
}

/* Writes n bytes; returns 0 or -1 (error recorded). */
static int w_write(struct tbbt_recwriter *w, const void *p, size_t n) {
    if (fwrite(p, 1, n, w->f) == n) return 0;
    w_fail(w, "%s: write failed: %s", w->path, g_strerror(errno));
    return -1;
}

/* Writes a skippable frame holding tag (8 bytes) then body. */
static int w_skippable(struct tbbt_recwriter *w, const char *tag, const uint8_t *body, size_t n) {
    uint8_t h[16];
    put_le32(h, SKIP_MAGIC);
    put_le32(h + 4, (uint32_t)(8 + n));
    memcpy(h + 8, tag, 8);
    if (w_write(w, h, 16) < 0) return -1;
    return n ? w_write(w, body, n) : 0;
}

/* Writes the header frame carrying meta. */
static int w_header(struct tbbt_recwriter *w, const char *meta) {
    size_t mlen = strlen(meta);
    if (mlen > MAX_SKIP - 64) {
        w_fail(w, "metadata too long (%zu bytes)", mlen);
        return -1;
    }
    size_t n = 12 + mlen + 4;
    uint8_t *b = g_malloc(n + 8);
    memcpy(b, HDR_MAGIC, 8);
    put_le32(b + 8, TBBT_RECFILE_VERSION);
    put_le32(b + 12, TBBT_F_COUNT_);
    put_le32(b + 16, (uint32_t)mlen);
    memcpy(b + 20, meta, mlen);
    put_le32(b + 20 + mlen, (uint32_t)crc32(0, b, (uInt)(20 + mlen)));
    int rc = w_skippable(w, HDR_MAGIC, b + 8, n);
    g_free(b);
    return rc;
}

/* Compresses and writes the pending batch as one zstd frame. */
static int w_flush(struct tbbt_recwriter *w) {
    if (!w->blen) return 0;
    size_t bound = ZSTD_compressBound(w->blen);
    if (bound > w->zcap) {
        w->zcap = bound;
        w->zbuf = g_realloc(w->zbuf, bound);
    }
    size_t z = ZSTD_compress2(w->cctx, w->zbuf, w->zcap, w->batch, w->blen);
    if (ZSTD_isError(z)) {
        w_fail(w, "%s: zstd: %s", w->path, ZSTD_getErrorName(z));
        return -1;
    }
    w->blen = 0;
    memset(&w->prev, 0, sizeof(w->prev));
    return w_write(w, w->zbuf, z);
}

/* Frees w and its buffers (its output is closed). */
static void w_free(struct tbbt_recwriter *w) {
    ZSTD_freeCCtx(w->cctx);
    g_free(w->batch);
    g_free(w->zbuf);
    g_free(w->path);
    g_free(w);
}

/* Contract in recfile.h. */
struct tbbt_recwriter *tbbt_recw_open(const char *path, const char *meta, char *err, size_t errlen) {
    struct tbbt_recwriter *w = g_new0(struct tbbt_recwriter, 1);
    w->path = g_strdup(path);
    /* "-" is stdout; a device, FIFO or symlink is written in place; a
     * file under a temporary name renamed at close (outfile.h) */
    if (!(w->o = tbbt_outf_open(path, err, errlen))) {
        w_free(w);
        return NULL;
    }
    w->f = w->o->f;
    w->cctx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, ZLEVEL);
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
    ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_contentSizeFlag, 1);
    if (w_header(w, meta ? meta : "") < 0) {
        g_snprintf(err, errlen, "%s", w->err);
        tbbt_recw_abort(w);
        return NULL;
    }
    return w;
}

/* Contract in recfile.h. */
int tbbt_recw_put(struct tbbt_recwriter *w, const struct tbbt_rec *r) {
    if (w->failed) return -1;
    size_t before = w->blen;
    struct tbbt_rec_prev saved = w->prev; /* a refused record must not move the base */
    if (tbbt_rec_encode(r, &w->prev, &w->batch, &w->blen, &w->bcap) < 0 || w->blen > MAX_FRAME) {
        w->blen = before;
        w->prev = saved;
        w_fail(w,
               "%s: record %" G_GUINT64_FORMAT ": invalid record (endpoint family, op, gids, string or size)",
               w->path, w->count + 1);
        return -1;
    }
    w->count++;
    if (w->blen >= BATCH_TARGET) return w_flush(w);
    return 0;
}

/* Contract in recfile.h. */
const char *tbbt_recw_error(const struct tbbt_recwriter *w) {
    return w->err;
}

/* Contract in recfile.h. */
uint64_t tbbt_recw_count(const struct tbbt_recwriter *w) {
    return w->count;
}

/* Writes the last batch and the trailer and makes the data durable. */
static int w_finish(struct tbbt_recwriter *w) {
    uint8_t t[8];
    if (w_flush(w) < 0) return -1;
    for (int i = 0; i < 8; i++)
        t[i] = (uint8_t)(w->count >> (8 * i));
    if (w_skippable(w, END_MAGIC, t, 8) < 0) return -1;
    if (fflush(w->f) != 0) {
        w_fail(w, "%s: write failed: %s", w->path, g_strerror(errno));
        return -1;
    }
    return 0;
}

/* Contract in recfile.h. */
int tbbt_recw_close(struct tbbt_recwriter *w, char *err, size_t errlen) {
    if (!w->failed) w_finish(w);
    char oerr[512];
    if (tbbt_outf_close(w->o, !w->failed, oerr, sizeof(oerr)) < 0 && !w->failed) w_fail(w, "%s", oerr);
    int rc = w->failed ? -1 : 0;
    if (rc < 0) g_snprintf(err, errlen, "%s", w->err);
    w_free(w);
    return rc;
}

/* Contract in recfile.h. */
void tbbt_recw_abort(struct tbbt_recwriter *w) {
    if (!w) return;
    tbbt_outf_close(w->o, 0, NULL, 0);
    w_free(w);
}

/* ------------------------------------------------------------------ */
/* Reader                                                               */

struct tbbt_recreader {
    FILE *f;
    char *path;
    uint8_t *in; /* read-ahead buffer */
    size_t in_cap, in_len, in_pos;
    uint64_t in_base; /* file offset of in[0] */
    int eof;
    ZSTD_DCtx *dctx;
    uint8_t *batch; /* the current frame's content */
    size_t batch_len, batch_cap, batch_pos;
    uint64_t frame_off, frame_rec;
    struct tbbt_rec_prev prev;
    uint64_t nread;
    char *meta;
    int state; /* 0 reading, 1 complete, -1 failed */
    char err[512];
};

/* Records an error at file offset off (the first one wins). Returns -1. */
static int G_GNUC_PRINTF(3, 4) r_fail(struct tbbt_recreader *rd, uint64_t off, const char *fmt, ...) {
    if (rd->state == -1) return -1;
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    g_vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    g_snprintf(rd->err, sizeof(rd->err), "%s: offset %" G_GUINT64_FORMAT ": %s", rd->path, off, msg);
    rd->state = -1;
    return -1;
}

/* File offset of the next unread byte. */
static uint64_t r_off(const struct tbbt_recreader *rd) {
    return rd->in_base + rd->in_pos;
}

/* Makes at least n unread bytes available if the file has them (growing
 * the buffer when n exceeds it). Returns 1 if they are, 0 at EOF, -1 on a
 * read error. */
static int r_need(struct tbbt_recreader *rd, size_t n) {
    while (rd->in_len - rd->in_pos < n) {
        if (rd->eof) return 0;
        if (rd->in_pos) {
            memmove(rd->in, rd->in + rd->in_pos, rd->in_len - rd->in_pos);
            rd->in_base += rd->in_pos;
            rd->in_len -= rd->in_pos;
            rd->in_pos = 0;
        }
        if (n > rd->in_cap) {
            rd->in_cap = n;
            rd->in = g_realloc(rd->in, n);
        }
        size_t got = fread(rd->in + rd->in_len, 1, rd->in_cap - rd->in_len, rd->f);
        rd->in_len += got;
        if (got == 0) {
            if (ferror(rd->f)) return r_fail(rd, r_off(rd), "read error: %s", g_strerror(errno));
            rd->eof = 1;
        }
    }
    return 1;
}

/* Parses the header frame at the start of the file. Returns 0 or -1. */
static int r_header(struct tbbt_recreader *rd) {
    int ok = r_need(rd, 8);
    if (ok < 0) return -1;
    if (!ok || get_le32(rd->in) != SKIP_MAGIC) return r_fail(rd, 0, "not a tbbt record file (bad magic)");
    uint32_t size = get_le32(rd->in + 4);
    if (size < 24 || size > MAX_SKIP) return r_fail(rd, 0, "bad header size %u", size);
    if ((ok = r_need(rd, 8 + (size_t)size)) <= 0) return ok < 0 ? -1 : r_fail(rd, 0, "truncated header");
    const uint8_t *h = rd->in + 8;
    if (memcmp(h, HDR_MAGIC, 8) != 0) return r_fail(rd, 8, "not a tbbt record file (bad magic)");
    uint32_t vers = get_le32(h + 8), nf = get_le32(h + 12), mlen = get_le32(h + 16);
    if (mlen != size - 24) return r_fail(rd, 24, "bad header (meta length %u)", mlen);
    if (get_le32(h + 20 + mlen) != (uint32_t)crc32(0, h, 20 + mlen))
        return r_fail(rd, 0, "header checksum mismatch");
    if (vers < TBBT_RECFILE_VERSION_MIN || vers > TBBT_RECFILE_VERSION)
        return r_fail(rd, 16, "unsupported format version %u", vers);
    if (nf > TBBT_F_COUNT_)
        return r_fail(rd, 20, "written by a newer tbbt (%u fields, this one knows %d)", nf, TBBT_F_COUNT_);
    rd->meta = g_strndup((const char *)h + 20, mlen);
    rd->in_pos = 8 + size;
    return 0;
}

/* Handles a skippable frame at the current offset: the trailer ends the
 * file, others are skipped. Returns 0 or -1. */
static int r_skippable(struct tbbt_recreader *rd) {
    uint64_t off = r_off(rd);
    uint32_t size = get_le32(rd->in + rd->in_pos + 4);
    if (size > MAX_SKIP) return r_fail(rd, off, "bad skippable frame size %u", size);
    int ok = r_need(rd, 8 + (size_t)size);
    if (ok <= 0) return ok < 0 ? -1 : r_fail(rd, off, "truncated frame");
    const uint8_t *b = rd->in + rd->in_pos + 8;
    rd->in_pos += 8 + size;
    if (size < 16 || memcmp(b, END_MAGIC, 8) != 0) return 0;
    uint64_t count = 0;
    for (int i = 0; i < 8; i++)
        count |= (uint64_t)b[8 + i] << (8 * i);
    if (count != rd->nread)
        return r_fail(rd, off, "end marker says %" G_GUINT64_FORMAT " records, file has %" G_GUINT64_FORMAT,
                      count, rd->nread);
    if ((ok = r_need(rd, 1)) != 0) return ok < 0 ? -1 : r_fail(rd, r_off(rd), "data after end marker");
    rd->state = 1;
    return 0;
}

/* Decompresses the zstd frame at the current offset into rd->batch.
 * Returns 0 or -1. */
static int r_frame(struct tbbt_recreader *rd) {
    uint64_t off = r_off(rd);
    int ok = r_need(rd, FRAME_HDR_MAX);
    if (ok < 0) return -1;
    size_t avail = rd->in_len - rd->in_pos;
    unsigned long long csize = ZSTD_getFrameContentSize(rd->in + rd->in_pos, avail);
    if (csize == ZSTD_CONTENTSIZE_ERROR) return r_fail(rd, off, !ok ? "truncated frame" : "bad frame header");
    if (csize == ZSTD_CONTENTSIZE_UNKNOWN || csize > MAX_FRAME)
        return r_fail(rd, off, "bad frame header (content size)");
    if (csize > rd->batch_cap) {
        rd->batch_cap = (size_t)csize;
        rd->batch = g_realloc(rd->batch, rd->batch_cap);
    }
    ZSTD_DCtx_reset(rd->dctx, ZSTD_reset_session_only);
    ZSTD_outBuffer out = {rd->batch, (size_t)csize, 0};
    for (;;) {
        ZSTD_inBuffer in = {rd->in + rd->in_pos, rd->in_len - rd->in_pos, 0};
        size_t ret = ZSTD_decompressStream(rd->dctx, &out, &in);
        rd->in_pos += in.pos;
        if (ZSTD_isError(ret)) {
            if (ZSTD_getErrorCode(ret) == ZSTD_error_checksum_wrong)
                return r_fail(rd, off, "checksum mismatch in frame");
            return r_fail(rd, off, "corrupt frame: %s", ZSTD_getErrorName(ret));
        }
        if (ret == 0) break;
        if (in.pos == 0 && in.size > 0 && out.pos == out.size)
            return r_fail(rd, off, "corrupt frame: more data than its declared size");
        if (rd->in_pos == rd->in_len) {
            if ((ok = r_need(rd, 1)) <= 0) return ok < 0 ? -1 : r_fail(rd, off, "truncated frame");
        }
    }
    if (out.pos != csize) return r_fail(rd, off, "corrupt frame: short content");
    rd->batch_len = out.pos;
    rd->batch_pos = 0;
    rd->frame_off = off;
    rd->frame_rec = 0;
    memset(&rd->prev, 0, sizeof(rd->prev));
    return 0;
}

/* Loads the next batch of records. Returns 1 when one is loaded, 0 at the
 * end of the file, -1 on error. */
static int r_load(struct tbbt_recreader *rd) {
    while (rd->state == 0) {
        uint64_t off = r_off(rd);
        int ok = r_need(rd, 8);
        if (ok < 0) return -1;
        if (!ok) {
            if (rd->in_len == rd->in_pos) return r_fail(rd, off, "truncated: end marker missing");
            return r_fail(rd, off, "truncated frame");
        }
        uint32_t magic = get_le32(rd->in + rd->in_pos);
        if ((magic & 0xFFFFFFF0u) == SKIP_MAGIC) {
            if (r_skippable(rd) < 0) return -1;
        } else if (magic == ZSTD_MAGIC) {
            if (r_frame(rd) < 0) return -1;
            if (rd->batch_len) return 1;
        } else {
            return r_fail(rd, off, "not a record frame (magic 0x%08x)", magic);
        }
    }
    return rd->state == 1 ? 0 : -1;
}

/* Contract in recfile.h. */
struct tbbt_recreader *tbbt_recr_open(const char *path, char *err, size_t errlen) {
    struct tbbt_recreader *rd = g_new0(struct tbbt_recreader, 1);
    rd->path = g_strdup(strcmp(path, "-") == 0 ? "stdin" : path);
    rd->f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!rd->f) {
        g_snprintf(err, errlen, "%s: cannot open: %s", path, g_strerror(errno));
        tbbt_recr_close(rd);
        return NULL;
    }
    rd->in_cap = ZSTD_DStreamInSize();
    rd->in = g_malloc(rd->in_cap);
    rd->dctx = ZSTD_createDCtx();
    if (r_header(rd) < 0) {
        g_snprintf(err, errlen, "%s", rd->err);
        tbbt_recr_close(rd);
        return NULL;
    }
    return rd;
}

/* Contract in recfile.h. */
int tbbt_recr_next(struct tbbt_recreader *rd, struct tbbt_rec *r) {
    if (rd->state < 0) return -1;
    if (rd->batch_pos == rd->batch_len) {
        int ok = r_load(rd);
        if (ok <= 0) return ok;
    }
    const uint8_t *p = rd->batch + rd->batch_pos;
    char msg[200];
    if (tbbt_rec_decode(r, &rd->prev, &p, rd->batch + rd->batch_len, msg, sizeof(msg)) < 0)
        return r_fail(rd, rd->frame_off, "frame record %" G_GUINT64_FORMAT ": %s", rd->frame_rec + 1, msg);
    rd->batch_pos = (size_t)(p - rd->batch);
    rd->frame_rec++;
    rd->nread++;
    return 1;
}

/* Contract in recfile.h. */
const char *tbbt_recr_meta(const struct tbbt_recreader *rd) {
    return rd->meta ? rd->meta : "";
}

/* Contract in recfile.h. */
const char *tbbt_recr_error(const struct tbbt_recreader *rd) {
    return rd->err;
}

/* Contract in recfile.h. */
void tbbt_recr_close(struct tbbt_recreader *rd) {
    if (!rd) return;
    if (rd->f && rd->f != stdin) fclose(rd->f);
    ZSTD_freeDCtx(rd->dctx);
    g_free(rd->in);
    g_free(rd->batch);
    g_free(rd->meta);
    g_free(rd->path);
    g_free(rd);
}
