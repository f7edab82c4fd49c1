/* ellard.c -- Ellard's nfsdump text lines back into RPC messages for pass 1
 * (see ellard.h). Which Ellard key goes where follows nfsdump's printers
 * (nfs_v3.c, nfs_v2.c) as scripts/tbbt-ellard's table documented them; the
 * XDR written is the inverse of lib/nfsdec.c, which reads it back. */
#include "ellard.h"

#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "nfs_ops.h"
#include "htab.h"
#include "nfsdec.h"

#define SNIFF_LINES 10                     /* a file none of whose first lines parses is not a trace */
#define NFS2_FHSIZE 32                     /* v2 fhandle */
#define NFS2_MAXDATA 8192                  /* v2 read/write data */
#define MASK_KEEP_NS (3600LL * 1000000000) /* a mask not claimed within an hour of trace time is stale */

/* ------------------------------------------------------------------ */
/* XDR writing                                                         */
/* ------------------------------------------------------------------ */

struct xbuf {
    uint8_t *p;
    size_t n, cap;
};

/* Makes room for k more bytes. */
static uint8_t *xroom(struct xbuf *b, size_t k) {
    if (b->n + k > b->cap) {
        b->cap = (b->n + k) * 2;
        b->p = g_realloc(b->p, b->cap);
    }
    uint8_t *q = b->p + b->n;
    b->n += k;
    return q;
}

static void put32(struct xbuf *b, uint32_t v) {
    uint8_t *q = xroom(b, 4);
    q[0] = (uint8_t)(v >> 24), q[1] = (uint8_t)(v >> 16), q[2] = (uint8_t)(v >> 8), q[3] = (uint8_t)v;
}

static void put64(struct xbuf *b, uint64_t v) {
    put32(b, (uint32_t)(v >> 32));
    put32(b, (uint32_t)v);
}

/* An XDR opaque<> or string: length, bytes, padding. */
static void put_opaque(struct xbuf *b, const void *p, size_t len) {
    put32(b, (uint32_t)len);
    uint8_t *q = xroom(b, (len + 3) & ~(size_t)3);
    if (len) memcpy(q, p, len);
    memset(q + len, 0, ((len + 3) & ~(size_t)3) - len);
}

/* n zero bytes (padded): v2 data nfsdump only counted. */
static void put_zeros(struct xbuf *b, size_t n) {
    memset(xroom(b, (n + 3) & ~(size_t)3), 0, (n + 3) & ~(size_t)3);
}

/* ------------------------------------------------------------------ */
/* The reader                                                          */
/* ------------------------------------------------------------------ */

struct tok {
    const char *s;
    uint32_t n;
};

/* Fields to remove from the record of (client, xid): what the trace did
 * not print but XDR had to carry. */
struct maskkey {
    struct tbbt_endpoint client;
    uint32_t xid;
};
struct maskent {
    struct maskkey k;
    uint64_t mask;
    int64_t ts;
};

struct tbbt_ellard {
    struct tbbt_ellard_opts o;
    tbbt_msg_cb cb;
    void *ctx;
    struct tbbt_ellard_stats st;
    struct xbuf x;
    struct tok *t; /* the line's tokens */
    size_t nt, tcap;
    GHashTable *masks; /* struct maskkey* -> struct maskent* (the same allocation) */
    char *sbuf;        /* a name being decoded */
    size_t scap;
    int64_t last_prune;
    uint64_t lineno;
};

/* One parsed line. */
struct line {
    int64_t ts; /* ns, raw */
    struct tbbt_endpoint src, dst;
    int tcp, call, vers, op;
    uint32_t xid, procnum, status;
    const struct tok *kv; /* name, value, name, value... */
    size_t nkv;           /* tokens in kv (even) */
    uint64_t mask;        /* fields to remove (TBBT_F_* bits) */
};

static guint mask_hash(gconstpointer p) {
    return (guint)tbbt_htab_mix(tbbt_htab_fnv1a(p, sizeof(struct maskkey), TBBT_HTAB_FNV1A_BASIS));
}

/* The key of (client, xid), its padding zero (it is hashed as bytes). */
static void mask_key(struct maskkey *k, const struct tbbt_endpoint *client, uint32_t xid) {
    memset(k, 0, sizeof(*k));
    k->client.family = client->family;
    memcpy(k->client.addr, client->addr, sizeof(k->client.addr));
    k->client.port = client->port;
    k->xid = xid;
}

static gboolean mask_equal(gconstpointer a, gconstpointer b) {
    return memcmp(a, b, sizeof(struct maskkey)) == 0;
}

struct tbbt_ellard *tbbt_ellard_new(const struct tbbt_ellard_opts *o, tbbt_msg_cb cb, void *ctx) {
    struct tbbt_ellard *e = g_new0(struct tbbt_ellard, 1);
    e->o = *o;
    if (!e->o.swap_before) e->o.swap_before = TBBT_ELLARD_SWAP_BEFORE;
    e->cb = cb;
    e->ctx = ctx;
    e->masks = g_hash_table_new_full(mask_hash, mask_equal, g_free, NULL);
    return e;
}

void tbbt_ellard_free(struct tbbt_ellard *e) {
    if (!e) return;
    g_hash_table_destroy(e->masks);
    g_free(e->x.p);
    g_free(e->t);
    g_free(e->sbuf);
    g_free(e);
}

const struct tbbt_ellard_stats *tbbt_ellard_stats(const struct tbbt_ellard *e) {
    return &e->st;
}

/* ------------------------------------------------------------------ */
/* Values                                                              */
/* ------------------------------------------------------------------ */

static int tok_is(const struct tok *t, const char *s) {
    return t->n == strlen(s) && memcmp(t->s, s, t->n) == 0;
}

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* 1..max hex digits into *v. */
static int hexnum(const struct tok *t, unsigned max, uint64_t *v) {
    if (!t || t->n < 1 || t->n > max) return -1;
    uint64_t x = 0;
    for (uint32_t i = 0; i < t->n; i++) {
        int h = hexval(t->s[i]);
        if (h < 0) return -1;
        x = x << 4 | (uint64_t)h;
    }
    *v = x;
    return 0;
}

static int hex32(const struct tok *t, uint32_t *v) {
    uint64_t x;
    if (hexnum(t, 16, &x) < 0 || x > 0xffffffffu) return -1;
    *v = (uint32_t)x;
    return 0;
}

/* "sec.usec" (1..10 and 1..6 digits; nfsdump prints the microseconds as
 * a number, so ".79027" is 79027 us) into seconds and microseconds. */
static int sec_usec(const struct tok *t, uint32_t *sec, uint32_t *usec) {
    if (!t) return -1;
    const char *dot = memchr(t->s, '.', t->n);
    if (!dot) return -1;
    size_t a = (size_t)(dot - t->s), b = t->n - a - 1;
    if (a < 1 || a > 10 || b < 1 || b > 6) return -1;
    uint64_t s = 0, u = 0;
    for (size_t i = 0; i < a; i++) {
        if (t->s[i] < '0' || t->s[i] > '9') return -1;
        s = s * 10 + (uint64_t)(t->s[i] - '0');
    }
    for (size_t i = a + 1; i < t->n; i++) {
        if (t->s[i] < '0' || t->s[i] > '9') return -1;
        u = u * 10 + (uint64_t)(t->s[i] - '0');
    }
    if (s > 0xffffffffu) return -1;
    *sec = (uint32_t)s;
    *usec = (uint32_t)u;
    return 0;
}

/* A quoted name ("...", \HH escapes) decoded in place into out (at most
 * t->n bytes). Returns its length, or -1. */
static int qstr(const struct tok *t, char *out) {
    if (!t || t->n < 2 || t->s[0] != '"' || t->s[t->n - 1] != '"') return -1;
    size_t n = 0;
    for (uint32_t i = 1; i + 1 < t->n; i++) {
        char c = t->s[i];
        if (c == '"') return -1;
        if (c == '\\') {
            if (i + 3 > t->n - 1) return -1;
            int h = hexval(t->s[i + 1]), l = hexval(t->s[i + 2]);
            if (h < 0 || l < 0) return -1;
            c = (char)(h << 4 | l);
            i += 2;
        }
        out[n++] = c;
    }
    return (int)n;
}

/* A handle's hex digits into bytes (at most max). Returns its length or -1. */
static int fhbytes(const struct tok *t, uint8_t *out, size_t max) {
    if (!t || t->n == 0 || t->n % 2 || t->n / 2 > max) return -1;
    for (uint32_t i = 0; i < t->n; i += 2) {
        int h = hexval(t->s[i]), l = hexval(t->s[i + 1]);
        if (h < 0 || l < 0) return -1;
        out[i / 2] = (uint8_t)(h << 4 | l);
    }
    return (int)(t->n / 2);
}

/* "HOST.PORT" in hex: 8 host digits are IPv4; any other host (the
 * anonymised traces' ids) is family 0, the id right-aligned in 16 bytes. */
static int endpoint(const struct tok *t, struct tbbt_endpoint *ep) {
    const char *dot = memchr(t->s, '.', t->n);
    if (!dot) return -1;
    struct tok h = {t->s, (uint32_t)(dot - t->s)}, p = {dot + 1, (uint32_t)(t->n - h.n - 1)};
    uint64_t port;
    if (h.n < 1 || h.n > 32 || hexnum(&p, 4, &port) < 0) return -1;
    memset(ep, 0, sizeof(*ep));
    ep->port = (uint16_t)port;
    uint8_t *a = ep->addr + (h.n == 8 ? 0 : 16 - (h.n + 1) / 2);
    ep->family = h.n == 8 ? 4 : 0;
    for (uint32_t i = 0; i < h.n; i++) {
        int v = hexval(h.s[i]);
        if (v < 0) return -1;
        uint32_t pos = i + (h.n % 2); /* digit position in a whole number of bytes */
        a[pos / 2] |= (uint8_t)(pos % 2 ? v : v << 4);
    }
    return 0;
}

/* The first value of key k among the line's pairs (from index from), or NULL. */
static const struct tok *kv(const struct line *l, const char *k) {
    for (size_t i = 0; i + 1 < l->nkv; i += 2)
        if (tok_is(&l->kv[i], k)) return &l->kv[i + 1];
    return NULL;
}

/* The first of two spellings. */
static const struct tok *kv2(const struct line *l, const char *a, const char *b) {
    const struct tok *t = kv(l, a);
    return t ? t : kv(l, b);
}

/* The reader's buffer for a decoded name of at most n bytes. */
static char *scratch(struct tbbt_ellard *e, size_t n) {
    if (n + 1 > e->scap) {
        e->scap = (n + 1) * 2;
        e->sbuf = g_realloc(e->sbuf, e->scap);
    }
    return e->sbuf;
}

/* ------------------------------------------------------------------ */
/* Calls                                                               */
/* ------------------------------------------------------------------ */

/* Writes a handle argument (v3 opaque, v2 32 bytes padded); fails the line
 * when it is absent or not a handle. */
static int put_fh(struct tbbt_ellard *e, const struct line *l, const struct tok *t, const char *key,
                  char *why, size_t wl) {
    uint8_t fh[TBBT_FH_MAX];
    int n = fhbytes(t, fh, l->vers == 3 ? TBBT_FH_MAX : NFS2_FHSIZE);
    if (n < 0) {
        if (t)
            g_snprintf(why, wl, "bad value of '%s': '%.40s'", key, t->s);
        else
            g_snprintf(why, wl, "no '%s'", key);
        return -1;
    }
    if (l->vers == 3) {
        put_opaque(&e->x, fh, (size_t)n);
    } else {
        memset(fh + n, 0, NFS2_FHSIZE - (size_t)n);
        memcpy(xroom(&e->x, NFS2_FHSIZE), fh, NFS2_FHSIZE);
    }
    return 0;
}

/* Writes a name argument; fails the line when absent or not a name. */
static int put_name(struct tbbt_ellard *e, const struct tok *t, const char *key, char *why, size_t wl) {
    char *buf = scratch(e, t ? t->n : 0);
    int n = qstr(t, buf);
    if (n < 0) {
        if (t)
            g_snprintf(why, wl, "bad value of '%s': '%.40s'", key, t->s);
        else
            g_snprintf(why, wl, "no '%s'", key);
        return -1;
    }
    put_opaque(&e->x, buf, (size_t)n);
    return 0;
}

/* A u32 argument nfsdump printed (0, and removed from the record, when not). */
static uint32_t arg32(struct tbbt_ellard *e, struct line *l, const struct tok *t, enum tbbt_field f) {
    uint32_t v;
    if (hex32(t, &v) == 0) return v;
    if (t) e->st.bad_values++;
    l->mask |= 1ull << f;
    return 0;
}

static uint64_t arg64(struct tbbt_ellard *e, struct line *l, const struct tok *t, enum tbbt_field f) {
    uint64_t v;
    if (hexnum(t, 16, &v) == 0) return v;
    if (t) e->st.bad_values++;
    l->mask |= 1ull << f;
    return 0;
}

/* One-letter codes: U/G/X create modes, U/D/F stable_how. */
static uint32_t letter(struct tbbt_ellard *e, struct line *l, const struct tok *t, const char *set,
                       enum tbbt_field f) {
    const char *c = t && t->n == 1 ? strchr(set, t->s[0]) : NULL;
    if (c && *c) return (uint32_t)(c - set);
    if (t) e->st.bad_values++;
    l->mask |= 1ull << f;
    return 0;
}

/* ACCESS3 bits: hex as recent traces print them, or the letters R L M E D
 * X of early traces ("U", bits unknown, is not a value). */
static uint32_t access_bits(struct tbbt_ellard *e, struct line *l, const struct tok *t, enum tbbt_field f) {
    static const char letters[] = "RLMEDX";
    uint32_t v = 0;
    if (t && t->n >= 1 && t->n <= 8 && strspn(t->s, "0123456789abcdef") >= t->n && hex32(t, &v) == 0)
        return v;
    for (uint32_t i = 0; t && i < t->n; i++) {
        const char *c = strchr(letters, t->s[i]);
        if (!c || !*c) {
            v = UINT32_MAX;
            break;
        }
        v |= 1u << (c - letters);
    }
    if (t && t->n && v != UINT32_MAX) return v;
    if (t) e->st.bad_values++;
    l->mask |= 1ull << f;
    return 0;
}

/* Whether this v3 setattr's size has its halves swapped (nfsdump before
 * its fix): the option, else the date rule on the line's raw time. */
static int swapped(const struct tbbt_ellard *e, const struct line *l) {
    if (e->o.size_swap) return e->o.size_swap > 0;
    return l->ts < e->o.swap_before * 1000000000LL;
}

/* An sattr time: "SERVER", or sec.usec (v2: usec 1000000 is the server's
 * clock, the Linux client's convention). Returns 0 unset, 1 server, 2 set. */
static int set_time(struct tbbt_ellard *e, const struct line *l, const struct tok *t, uint32_t *s,
                    uint32_t *us) {
    if (!t) return 0;
    if (tok_is(t, "SERVER")) return 1;
    if (l->vers == 2 && t->n > 8 && memcmp(t->s + t->n - 8, ".1000000", 8) == 0) return 1;
    if (sec_usec(t, s, us) == 0) return 2;
    e->st.bad_values++;
    return 0;
}

/* sattr3 (v3) or sattr (v2) from mode uid gid size atime mtime. */
static void put_sattr(struct tbbt_ellard *e, struct line *l) {
    static const char *const k[4] = {"mode", "uid", "gid", "size"};
    uint64_t v[4];
    int has[4];
    for (int i = 0; i < 4; i++) {
        const struct tok *t = kv(l, k[i]);
        has[i] = t && hexnum(t, i == 3 ? 16 : 8, &v[i]) == 0 && (i == 3 || v[i] <= 0xffffffffu);
        if (t && !has[i]) e->st.bad_values++;
    }
    if (has[3] && l->vers == 3 && l->op == TBBT_OP_SETATTR && swapped(e, l)) {
        v[3] = (v[3] & 0xffffffffu) << 32 | v[3] >> 32;
        e->st.sizes_swapped++;
    }
    for (int i = 0; i < 4; i++) {
        if (l->vers == 2) {
            put32(&e->x, has[i] ? (uint32_t)v[i] : UINT32_MAX);
            continue;
        }
        put32(&e->x, (uint32_t)has[i]);
        if (has[i] && i < 3) put32(&e->x, (uint32_t)v[i]);
        if (has[i] && i == 3) put64(&e->x, v[i]);
    }
    for (int i = 0; i < 2; i++) {
        uint32_t s = 0, us = 0;
        int how = set_time(e, l, kv(l, i ? "mtime" : "atime"), &s, &us);
        if (l->vers == 2) {
            put32(&e->x, how == 0 ? UINT32_MAX : how == 1 ? 0 : s);
            put32(&e->x, how == 0 ? UINT32_MAX : how == 1 ? 1000000 : us);
            continue;
        }
        put32(&e->x, (uint32_t)how);
        if (how == 2) put32(&e->x, s), put32(&e->x, us * 1000);
    }
}

/* A rename's or link's arguments, the same in v2 and v3: the source
 * directory and name (a link: the file) and the target directory and
 * name. */
static int put_two_dirops(struct tbbt_ellard *e, struct line *l, const struct tok *fh, char *why, size_t wl) {
    if (l->op == TBBT_OP_LINK) {
        if (put_fh(e, l, fh, "fh", why, wl) < 0 || put_fh(e, l, kv(l, "fh2"), "fh2", why, wl) < 0) return -1;
        return put_name(e, kv2(l, "name", "fn"), "name", why, wl);
    }
    if (put_fh(e, l, fh, "fh", why, wl) < 0 || put_name(e, kv2(l, "name", "fn"), "name", why, wl) < 0 ||
        put_fh(e, l, kv(l, "fh2"), "fh2", why, wl) < 0)
        return -1;
    return put_name(e, kv2(l, "name2", "fn2"), "name2", why, wl);
}

/* The arguments of a v3 call. */
static int call3(struct tbbt_ellard *e, struct line *l, char *why, size_t wl) {
    struct xbuf *x = &e->x;
    const struct tok *fh = kv2(l, "fh", "file");
    uint32_t s, us;
    switch (l->op) {
    case TBBT_OP_NULL: return 0;
    case TBBT_OP_GETATTR:
    case TBBT_OP_READLINK:
    case TBBT_OP_FSSTAT:
    case TBBT_OP_FSINFO:
    case TBBT_OP_PATHCONF: return put_fh(e, l, fh, "fh", why, wl);
    case TBBT_OP_SETATTR:
        if (put_fh(e, l, fh, "fh", why, wl) < 0) return -1;
        put_sattr(e, l);
        if (sec_usec(kv(l, "ctime"), &s, &us) < 0) return put32(x, 0), 0;
        put32(x, 1), put32(x, s), put32(x, us * 1000);
        return 0;
    case TBBT_OP_LOOKUP:
    case TBBT_OP_REMOVE:
    case TBBT_OP_RMDIR:
        if (put_fh(e, l, fh, "fh", why, wl) < 0) return -1;
        return put_name(e, kv2(l, "name", "fn"), "name", why, wl);
    case TBBT_OP_ACCESS:
        if (put_fh(e, l, fh, "fh", why, wl) < 0) return -1;
        put32(x, access_bits(e, l, kv(l, "acc"), TBBT_F_ACCESS));
        return 0;
    case TBBT_OP_READ:
    case TBBT_OP_WRITE:
    case TBBT_OP_COMMIT:
        if (put_fh(e, l, fh, "fh", why, wl) < 0) return -1;
        put64(x, arg64(e, l, kv2(l, "off", "offset"), TBBT_F_OFFSET));
        put32(x, arg32(e, l, kv(l, "count"), TBBT_F_COUNT));
        if (l->op != TBBT_OP_WRITE) return 0;
        put32(x, letter(e, l, kv(l, "stable"), "UDF", TBBT_F_STABLE));
        put32(x, 0); /* data: nfsdump prints none */
        return 0;
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR:
    case TBBT_OP_SYMLINK:
    case TBBT_OP_MKNOD: {
        if (put_fh(e, l, fh, "fh", why, wl) < 0 || put_name(e, kv2(l, "name", "fn"), "name", why, wl) < 0)
            return -1;
        if (l->op == TBBT_OP_CREATE) {
            uint32_t how = letter(e, l, kv(l, "how"), "UGX", TBBT_F_CREATEHOW);
            put32(x, how);
            if (how == 2) {
                put64(x, 0); /* nfsdump prints no verifier */
                l->mask |= 1ull << TBBT_F_VERF;
                return 0;
            }
        }
        if (l->op == TBBT_OP_MKNOD) { /* nfsdump prints no type: a FIFO, its type removed */
            put32(x, TBBT_FT_FIFO);
            l->mask |= 1ull << TBBT_F_NODETYPE;
        }
        put_sattr(e, l);
        if (l->op == TBBT_OP_SYMLINK) {
            const struct tok *t = kv(l, "sdata");
            if (!t) l->mask |= 1ull << TBBT_F_TARGET;
            return t ? put_name(e, t, "sdata", why, wl) : (put32(x, 0), 0);
        }
        return 0;
    }
    case TBBT_OP_RENAME:
    case TBBT_OP_LINK: return put_two_dirops(e, l, fh, why, wl);
    case TBBT_OP_READDIR:
    case TBBT_OP_READDIRPLUS:
        if (put_fh(e, l, fh, "fh", why, wl) < 0) return -1;
        put64(x, arg64(e, l, kv(l, "cookie"), TBBT_F_COOKIE));
        put64(x, 0); /* nfsdump prints no cookie verifier */
        l->mask |= 1ull << TBBT_F_COOKIEVERF;
        if (l->op == TBBT_OP_READDIRPLUS) {
            put32(x, arg32(e, l, kv(l, "count"), TBBT_F_DIRCOUNT));
            put32(x, arg32(e, l, kv(l, "maxcnt"), TBBT_F_MAXCOUNT));
        } else {
            put32(x, arg32(e, l, kv(l, "count"), TBBT_F_MAXCOUNT));
        }
        return 0;
    default: g_snprintf(why, wl, "no v3 arguments for this procedure"); return -1;
    }
}

/* The arguments of a v2 call. */
static int call2(struct tbbt_ellard *e, struct line *l, char *why, size_t wl) {
    struct xbuf *x = &e->x;
    const struct tok *fh = kv2(l, "fh", "file");
    uint32_t n;
    switch (l->op) {
    case TBBT_OP_NULL:
    case TBBT_OP_ROOT:
    case TBBT_OP_WRITECACHE: return 0;
    case TBBT_OP_GETATTR:
    case TBBT_OP_READLINK:
    case TBBT_OP_STATFS: return put_fh(e, l, fh, "fh", why, wl);
    case TBBT_OP_SETATTR:
        if (put_fh(e, l, fh, "fh", why, wl) < 0) return -1;
        put_sattr(e, l);
        return 0;
    case TBBT_OP_LOOKUP:
    case TBBT_OP_REMOVE:
    case TBBT_OP_RMDIR:
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR:
        if (put_fh(e, l, fh, "fh", why, wl) < 0 || put_name(e, kv2(l, "name", "fn"), "name", why, wl) < 0)
            return -1;
        if (l->op == TBBT_OP_CREATE || l->op == TBBT_OP_MKDIR) put_sattr(e, l);
        return 0;
    case TBBT_OP_READ:
        if (put_fh(e, l, fh, "fh", why, wl) < 0) return -1;
        put32(x, (uint32_t)arg64(e, l, kv2(l, "off", "offset"), TBBT_F_OFFSET));
        put32(x, arg32(e, l, kv(l, "count"), TBBT_F_COUNT));
        put32(x, 0); /* totalcount */
        return 0;
    case TBBT_OP_WRITE: /* the data length is the count: v2 "tcount" (totalcount) or "count" */
        if (put_fh(e, l, fh, "fh", why, wl) < 0) return -1;
        put32(x, 0); /* beginoffset */
        put32(x, (uint32_t)arg64(e, l, kv2(l, "off", "offset"), TBBT_F_OFFSET));
        put32(x, 0);
        n = arg32(e, l, kv2(l, "count", "tcount"), TBBT_F_COUNT);
        if (n > NFS2_MAXDATA) n = 0, l->mask |= 1ull << TBBT_F_COUNT, e->st.bad_values++;
        put32(x, n);
        put_zeros(x, n);
        return 0;
    case TBBT_OP_RENAME:
    case TBBT_OP_LINK: return put_two_dirops(e, l, fh, why, wl);
    case TBBT_OP_SYMLINK:
        if (put_fh(e, l, fh, "fh", why, wl) < 0 || put_name(e, kv2(l, "name", "fn"), "name", why, wl) < 0 ||
            put_name(e, kv(l, "fn2"), "fn2", why, wl) < 0)
            return -1;
        put_sattr(e, l);
        return 0;
    case TBBT_OP_READDIR:
        if (put_fh(e, l, fh, "fh", why, wl) < 0) return -1;
        put32(x, (uint32_t)arg64(e, l, kv(l, "cookie"), TBBT_F_COOKIE));
        put32(x, arg32(e, l, kv(l, "count"), TBBT_F_COUNT));
        return 0;
    default: g_snprintf(why, wl, "no v2 arguments for this procedure"); return -1;
    }
}

/* ------------------------------------------------------------------ */
/* Replies                                                             */
/* ------------------------------------------------------------------ */

enum {
    A_FTYPE,
    A_MODE,
    A_NLINK,
    A_UID,
    A_GID,
    A_SIZE,
    A_USED,
    A_RDEV,
    A_RDEV2,
    A_BLKSIZE,
    A_BLOCKS,
    A_FSID,
    A_FILEID,
    A_ATIME,
    A_MTIME,
    A_CTIME,
    A_COUNT
};
static const char *const attr_names[A_COUNT] = {"ftype",  "mode",  "nlink", "uid",     "gid",    "size",
                                                "used",   "rdev",  "rdev2", "blksize", "blocks", "fsid",
                                                "fileid", "atime", "mtime", "ctime"};
#define GROUPS_MAX 4

/* An attribute group: the value of each attribute, NULL when not printed. */
struct group {
    const struct tok *a[A_COUNT];
};

/* What a reply line holds besides its named results. */
struct rparts {
    struct group g[GROUPS_MAX];
    int ng;
    const struct tok *pre_size, *pre_mtime, *pre_ctime;
    GArray *ent; /* struct entry, for readdir(plus) */
};

struct entry {
    const struct tok *name, *fileid, *cookie, *ftype, *size;
};

static int attr_index(const struct tok *k) {
    for (int i = 0; i < A_COUNT; i++)
        if (tok_is(k, attr_names[i])) return i;
    return -1;
}

/* "name-N" style keys of a listing: the entry's field and N. */
static int entry_key(const struct tok *k, char *field, size_t fl, unsigned long *n) {
    const char *dash = memchr(k->s, '-', k->n);
    if (!dash || dash == k->s || (size_t)(dash - k->s) >= fl || dash + 1 >= k->s + k->n) return -1;
    unsigned long v = 0;
    for (const char *p = dash + 1; p < k->s + k->n; p++) {
        if (*p < '0' || *p > '9' || v > 1000000) return -1;
        v = v * 10 + (unsigned long)(*p - '0');
    }
    memcpy(field, k->s, (size_t)(dash - k->s));
    field[dash - k->s] = 0;
    *n = v;
    return 0;
}

/* Sorts the reply's pairs into attribute groups (a new group at each ftype
 * or repeated attribute), before-attributes and listing entries. */
static void split_reply(struct tbbt_ellard *e, const struct line *l, struct rparts *rp) {
    int listing = l->op == TBBT_OP_READDIR || l->op == TBBT_OP_READDIRPLUS;
    for (size_t i = 0; i + 1 < l->nkv; i += 2) {
        const struct tok *k = &l->kv[i], *v = &l->kv[i + 1];
        int a = l->op == TBBT_OP_STATFS ? -1 : attr_index(k);
        char f[16];
        unsigned long n;
        if (a >= 0) {
            if (rp->ng == 0 || a == A_FTYPE || rp->g[rp->ng - 1].a[a]) rp->ng++;
            if (rp->ng > GROUPS_MAX) {
                rp->ng = GROUPS_MAX;
                continue;
            }
            rp->g[rp->ng - 1].a[a] = v;
        } else if (tok_is(k, "pre-size")) {
            rp->pre_size = v;
        } else if (tok_is(k, "pre-mtime")) {
            rp->pre_mtime = v;
        } else if (tok_is(k, "pre-ctime")) {
            rp->pre_ctime = v;
        } else if (listing && entry_key(k, f, sizeof(f), &n) == 0 && n < l->nkv) {
            if (n >= rp->ent->len) g_array_set_size(rp->ent, (guint)n + 1);
            struct entry *en = &g_array_index(rp->ent, struct entry, n);
            if (!strcmp(f, "name"))
                en->name = v;
            else if (!strcmp(f, "fileid"))
                en->fileid = v;
            else if (!strcmp(f, "cookie"))
                en->cookie = v;
            else if (!strcmp(f, "ftype"))
                en->ftype = v;
            else if (!strcmp(f, "size"))
                en->size = v;
        } else if (listing && entry_key(k, f, sizeof(f), &n) == 0) {
            e->st.bad_values++;
        }
    }
}

/* The record fields an attribute group's target fills, for the mask. */
enum target { T_OBJ, T_DIR, T_DIR2 };

/* Marks field f removed when attribute a was not printed or did not parse. */
static void amiss(struct line *l, enum target t, enum tbbt_field obj_f, enum tbbt_field dir_f,
                  enum tbbt_field dir2_f) {
    enum tbbt_field f = t == T_OBJ ? obj_f : t == T_DIR ? dir_f : dir2_f;
    if ((int)f >= 0) l->mask |= 1ull << f;
}

#define NOF ((enum tbbt_field) - 1)

/* An attribute's value (0 when absent or bad: its field is then removed). */
static uint64_t aval(struct tbbt_ellard *e, struct line *l, const struct group *g, int a, enum target t,
                     enum tbbt_field of, enum tbbt_field df, enum tbbt_field d2f) {
    uint64_t v;
    const struct tok *tk = g->a[a];
    if (hexnum(tk, 16, &v) == 0) return v;
    if (tk) e->st.bad_values++;
    amiss(l, t, of, df, d2f);
    return 0;
}

static void atime(struct tbbt_ellard *e, struct line *l, const struct group *g, int a, enum target t,
                  enum tbbt_field of, enum tbbt_field df, enum tbbt_field d2f) {
    uint32_t s = 0, us = 0;
    if (sec_usec(g->a[a], &s, &us) < 0) {
        if (g->a[a]) e->st.bad_values++;
        amiss(l, t, of, df, d2f);
        s = us = 0;
    }
    put32(&e->x, s);
    put32(&e->x, l->vers == 3 ? us * 1000 : us);
}

/* fattr3 (v3) or fattr (v2) of group g for target t. */
static void put_fattr(struct tbbt_ellard *e, struct line *l, const struct group *g, enum target t) {
    struct xbuf *x = &e->x;
    uint64_t type = aval(e, l, g, A_FTYPE, t, TBBT_F_TYPE, NOF, NOF);
    if (l->vers == 3 && (type < 1 || type > 7)) type = t == T_OBJ ? 1 : 2, amiss(l, t, TBBT_F_TYPE, NOF, NOF);
    if (l->vers == 2 && type > 8) type = 0, amiss(l, t, TBBT_F_TYPE, NOF, NOF);
    put32(x, (uint32_t)type);
    put32(x, (uint32_t)aval(e, l, g, A_MODE, t, TBBT_F_MODE, NOF, NOF));
    put32(x, (uint32_t)aval(e, l, g, A_NLINK, t, TBBT_F_NLINK, TBBT_F_DIR_NLINK, NOF));
    put32(x, (uint32_t)aval(e, l, g, A_UID, t, TBBT_F_UID, NOF, NOF));
    put32(x, (uint32_t)aval(e, l, g, A_GID, t, TBBT_F_GID, NOF, NOF));
    if (l->vers == 3) {
        put64(x, aval(e, l, g, A_SIZE, t, TBBT_F_SIZE, TBBT_F_DIR_SIZE, NOF));
        put64(x, aval(e, l, g, A_USED, t, TBBT_F_USED, NOF, NOF));
        put32(x, 0), put32(x, 0); /* rdev: not kept */
        put64(x, aval(e, l, g, A_FSID, t, TBBT_F_FSID, NOF, NOF));
        put64(x, aval(e, l, g, A_FILEID, t, TBBT_F_FILEID, TBBT_F_DIR_FILEID, TBBT_F_DIR2_FILEID));
    } else {
        put32(x, (uint32_t)aval(e, l, g, A_SIZE, t, TBBT_F_SIZE, TBBT_F_DIR_SIZE, NOF));
        put32(x, (uint32_t)aval(e, l, g, A_BLKSIZE, t, TBBT_F_USED, NOF, NOF));
        put32(x, 0); /* rdev */
        put32(x, (uint32_t)aval(e, l, g, A_BLOCKS, t, TBBT_F_USED, NOF, NOF));
        put32(x, (uint32_t)aval(e, l, g, A_FSID, t, TBBT_F_FSID, NOF, NOF));
        put32(x, (uint32_t)aval(e, l, g, A_FILEID, t, TBBT_F_FILEID, TBBT_F_DIR_FILEID, TBBT_F_DIR2_FILEID));
    }
    atime(e, l, g, A_ATIME, t, TBBT_F_ATIME, NOF, NOF);
    atime(e, l, g, A_MTIME, t, TBBT_F_MTIME, TBBT_F_DIR_MTIME, TBBT_F_DIR2_MTIME);
    atime(e, l, g, A_CTIME, t, TBBT_F_CTIME, NOF, NOF);
}

/* post_op_attr of the i-th group, absent when the line has none. */
static void post_op(struct tbbt_ellard *e, struct line *l, const struct rparts *rp, int i, enum target t) {
    put32(&e->x, i < rp->ng);
    if (i < rp->ng) put_fattr(e, l, &rp->g[i], t);
}

/* wcc_data: the object's before-attributes (when printed), then the i-th group. */
static void wcc(struct tbbt_ellard *e, struct line *l, const struct rparts *rp, int i, enum target t) {
    struct xbuf *x = &e->x;
    int pre = t == T_OBJ && (rp->pre_size || rp->pre_mtime || rp->pre_ctime);
    put32(x, (uint32_t)pre);
    if (pre) {
        struct group g = {{0}};
        g.a[A_SIZE] = rp->pre_size, g.a[A_MTIME] = rp->pre_mtime, g.a[A_CTIME] = rp->pre_ctime;
        put64(x, aval(e, l, &g, A_SIZE, T_OBJ, TBBT_F_PRE_SIZE, NOF, NOF));
        atime(e, l, &g, A_MTIME, T_OBJ, TBBT_F_PRE_MTIME, NOF, NOF);
        atime(e, l, &g, A_CTIME, T_OBJ, TBBT_F_PRE_CTIME, NOF, NOF);
    }
    post_op(e, l, rp, i, t);
}

/* A listing: the entries whose name parses, then eof. v3 READDIRPLUS
 * entries carry their type and size (nfsdump prints no handle). */
static void put_listing(struct tbbt_ellard *e, struct line *l, const struct rparts *rp) {
    struct xbuf *x = &e->x;
    unsigned kept = 0;
    for (guint i = 0; i < rp->ent->len; i++) {
        const struct entry *en = &g_array_index(rp->ent, struct entry, i);
        if (!en->name && !en->fileid && !en->cookie) continue;
        char *buf = scratch(e, en->name ? en->name->n : 0);
        int n = qstr(en->name, buf);
        uint64_t fileid = 0, cookie = 0, type = 0, size = 0;
        if (n < 0 || (en->fileid && hexnum(en->fileid, 16, &fileid) < 0) ||
            (en->cookie && hexnum(en->cookie, 16, &cookie) < 0)) {
            e->st.bad_values++;
            continue;
        }
        put32(x, 1);
        if (l->vers == 3)
            put64(x, fileid);
        else
            put32(x, (uint32_t)fileid);
        put_opaque(x, buf, (size_t)n);
        if (l->vers == 3)
            put64(x, cookie);
        else
            put32(x, (uint32_t)cookie);
        kept++;
        if (l->op != TBBT_OP_READDIRPLUS) continue;
        if (en->ftype && (hexnum(en->ftype, 16, &type) < 0 || type > 7)) type = 0;
        if (type && en->size && hexnum(en->size, 16, &size) < 0) size = 0;
        put32(x, type != 0);
        if (type) {
            put32(x, (uint32_t)type);
            for (int k = 0; k < 4; k++)
                put32(x, 0);
            put64(x, size);
            for (int k = 0; k < 14; k++)
                put32(x, 0);
        }
        put32(x, 0); /* no handle */
    }
    put32(x, 0);
    const struct tok *eof = kv(l, "eof");
    uint32_t v = 0;
    if (hex32(eof, &v) < 0) l->mask |= 1ull << TBBT_F_EOF;
    put32(x, v != 0);
    if (!kept) l->mask |= 1ull << TBBT_F_RCOUNT;
}

/* A reply's new object handle (lookup, create...): v3 post_op_fh3 unless
 * lookup (nfs_fh3), v2 fhandle. */
static int put_newfh(struct tbbt_ellard *e, struct line *l, int optional, char *why, size_t wl) {
    const struct tok *fh = kv(l, "fh");
    if (optional && l->vers == 3) {
        put32(&e->x, fh != NULL);
        if (!fh) return 0;
    }
    return put_fh(e, l, fh, "fh", why, wl);
}

static int reply3(struct tbbt_ellard *e, struct line *l, const struct rparts *rp, char *why, size_t wl) {
    struct xbuf *x = &e->x;
    int ok = l->status == 0;
    if (l->op == TBBT_OP_NULL) return 0;
    put32(x, l->status);
    switch (l->op) {
    case TBBT_OP_GETATTR:
        if (ok && rp->ng)
            put_fattr(e, l, &rp->g[0], T_OBJ);
        else if (ok)
            g_snprintf(why, wl, "getattr reply without attributes");
        return ok && !rp->ng ? -1 : 0;
    case TBBT_OP_SETATTR: wcc(e, l, rp, 0, T_OBJ); return 0;
    case TBBT_OP_LOOKUP:
        if (!ok) return post_op(e, l, rp, 0, T_DIR), 0;
        if (put_newfh(e, l, 0, why, wl) < 0) return -1;
        post_op(e, l, rp, 0, T_OBJ);
        post_op(e, l, rp, 1, T_DIR);
        return 0;
    case TBBT_OP_ACCESS:
        post_op(e, l, rp, 0, T_OBJ);
        if (ok) put32(x, access_bits(e, l, kv(l, "acc"), TBBT_F_RACCESS));
        return 0;
    case TBBT_OP_READLINK:
        post_op(e, l, rp, 0, T_OBJ);
        if (!ok) return 0;
        if (!kv2(l, "name", "fn")) return put32(x, 0), l->mask |= 1ull << TBBT_F_TARGET, 0;
        return put_name(e, kv2(l, "name", "fn"), "name", why, wl);
    case TBBT_OP_READ:
        post_op(e, l, rp, 0, T_OBJ);
        if (!ok) return 0;
        put32(x, arg32(e, l, kv(l, "count"), TBBT_F_RCOUNT));
        put32(x, arg32(e, l, kv(l, "eof"), TBBT_F_EOF) != 0);
        put32(x, 0); /* data */
        return 0;
    case TBBT_OP_WRITE:
    case TBBT_OP_COMMIT:
        wcc(e, l, rp, 0, T_OBJ);
        if (!ok) return 0;
        if (l->op == TBBT_OP_WRITE) {
            put32(x, arg32(e, l, kv(l, "count"), TBBT_F_RCOUNT));
            put32(x, letter(e, l, kv(l, "stable"), "UDF", TBBT_F_COMMITTED));
        }
        put64(x, 0); /* nfsdump prints no verifier */
        l->mask |= 1ull << TBBT_F_WVERF;
        return 0;
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR:
    case TBBT_OP_SYMLINK:
    case TBBT_OP_MKNOD:
        if (!ok) return wcc(e, l, rp, 0, T_DIR), 0;
        if (put_newfh(e, l, 1, why, wl) < 0) return -1;
        post_op(e, l, rp, 0, T_OBJ);
        wcc(e, l, rp, 1, T_DIR);
        return 0;
    case TBBT_OP_REMOVE:
    case TBBT_OP_RMDIR: wcc(e, l, rp, 0, T_DIR); return 0;
    case TBBT_OP_RENAME:
        wcc(e, l, rp, 0, T_DIR);
        wcc(e, l, rp, 1, T_DIR2);
        return 0;
    case TBBT_OP_LINK:
        post_op(e, l, rp, 0, T_OBJ);
        wcc(e, l, rp, 1, T_DIR);
        return 0;
    case TBBT_OP_READDIR:
    case TBBT_OP_READDIRPLUS:
        post_op(e, l, rp, 0, T_OBJ);
        if (!ok) return 0;
        put64(x, 0); /* nfsdump prints no cookie verifier */
        l->mask |= 1ull << TBBT_F_RCOOKIEVERF;
        put_listing(e, l, rp);
        return 0;
    case TBBT_OP_FSSTAT:
    case TBBT_OP_FSINFO:
    case TBBT_OP_PATHCONF: post_op(e, l, rp, 0, T_OBJ); return 0;
    default: g_snprintf(why, wl, "no v3 results for this procedure"); return -1;
    }
}

static int reply2(struct tbbt_ellard *e, struct line *l, const struct rparts *rp, char *why, size_t wl) {
    struct xbuf *x = &e->x;
    static const struct group none;
    const struct group *g0 = rp->ng ? &rp->g[0] : &none;
    if (l->op == TBBT_OP_NULL || l->op == TBBT_OP_ROOT || l->op == TBBT_OP_WRITECACHE) return 0;
    put32(x, l->status);
    if (l->status != 0) return 0;
    switch (l->op) {
    case TBBT_OP_GETATTR:
    case TBBT_OP_SETATTR:
    case TBBT_OP_WRITE: put_fattr(e, l, g0, T_OBJ); return 0;
    case TBBT_OP_LOOKUP:
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR:
        if (put_newfh(e, l, 0, why, wl) < 0) return -1;
        put_fattr(e, l, g0, T_OBJ);
        return 0;
    case TBBT_OP_READLINK:
        if (!kv2(l, "name", "fn")) return put32(x, 0), l->mask |= 1ull << TBBT_F_TARGET, 0;
        return put_name(e, kv2(l, "name", "fn"), "name", why, wl);
    case TBBT_OP_READ: {
        put_fattr(e, l, g0, T_OBJ);
        uint32_t n = arg32(e, l, kv(l, "count"), TBBT_F_RCOUNT);
        if (n > NFS2_MAXDATA) n = 0, l->mask |= 1ull << TBBT_F_RCOUNT, e->st.bad_values++;
        put32(x, n);
        put_zeros(x, n);
        return 0;
    }
    case TBBT_OP_READDIR: put_listing(e, l, rp); return 0;
    case TBBT_OP_REMOVE:
    case TBBT_OP_RENAME:
    case TBBT_OP_LINK:
    case TBBT_OP_SYMLINK:
    case TBBT_OP_RMDIR:
    case TBBT_OP_STATFS: return 0;
    default: g_snprintf(why, wl, "no v2 results for this procedure"); return -1;
    }
}

/* ------------------------------------------------------------------ */
/* Lines                                                               */
/* ------------------------------------------------------------------ */

/* Splits the line on runs of blanks, dropping the debugging trailer (from
 * "con =" or "status=X pl" on) and a last LONGPKT, LONGPACKET or JUMBO. */
static void tokenize(struct tbbt_ellard *e, char *s, size_t len) {
    e->nt = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i >= len) break;
        size_t j = i;
        while (j < len && s[j] != ' ' && s[j] != '\t')
            j++;
        if (e->nt == e->tcap) {
            e->tcap = e->tcap ? e->tcap * 2 : 64;
            e->t = g_renew(struct tok, e->t, e->tcap);
        }
        e->t[e->nt++] = (struct tok){s + i, (uint32_t)(j - i)};
        s[j] = 0; /* tokens are C strings too (for messages) */
        i = j + 1;
    }
    for (size_t k = 1; k + 1 < e->nt; k++) {
        const struct tok *t = &e->t[k];
        if ((tok_is(t, "con") && tok_is(&e->t[k + 1], "=")) ||
            (t->n >= 7 && !memcmp(t->s, "status=", 7) && tok_is(&e->t[k + 1], "pl"))) {
            e->nt = k;
            break;
        }
    }
    while (e->nt && (tok_is(&e->t[e->nt - 1], "LONGPKT") || tok_is(&e->t[e->nt - 1], "LONGPACKET") ||
                     tok_is(&e->t[e->nt - 1], "JUMBO")))
        e->nt--;
}

/* nfsdump's procedure name: the record name, or its abbreviations. */
static int proc_by_name(const struct tok *t) {
    if (tok_is(t, "readdirp")) return TBBT_OP_READDIRPLUS;
    if (tok_is(t, "writecach") || tok_is(t, "writecac")) return TBBT_OP_WRITECACHE;
    return tbbt_op_by_name(t->s);
}

/* Parses the fixed fields. Returns 0, 1 for a procedure that is not NFS
 * (mnt, unknown: skipped), or -1 with why. */
static int parse_fixed(struct tbbt_ellard *e, struct line *l, char *why, size_t wl) {
    const struct tok *t = e->t;
    uint32_t s, us;
    uint64_t v;
    if (e->nt < 8) return g_snprintf(why, wl, "too few fields (%zu)", e->nt), -1;
    if (sec_usec(&t[0], &s, &us) < 0) return g_snprintf(why, wl, "bad time '%.40s'", t[0].s), -1;
    l->ts = (int64_t)s * 1000000000 + (int64_t)us * 1000;
    if (!tok_is(&t[3], "T") && !tok_is(&t[3], "U"))
        return g_snprintf(why, wl, "bad transport '%.40s'", t[3].s), -1;
    l->tcp = t[3].s[0] == 'T';
    if (t[4].n != 2 || !strchr("CR", t[4].s[0]) || !strchr("23", t[4].s[1]))
        return g_snprintf(why, wl, "bad direction/version '%.40s'", t[4].s), -1;
    l->call = t[4].s[0] == 'C';
    l->vers = t[4].s[1] - '0';
    for (int i = 1; i <= 2; i++)
        if (endpoint(&t[i], i == 1 ? &l->src : &l->dst) < 0)
            return g_snprintf(why, wl, "bad endpoint '%.40s'", t[i].s), -1;
    if (hexnum(&t[5], 8, &v) < 0) return g_snprintf(why, wl, "bad xid '%.40s'", t[5].s), -1;
    l->xid = (uint32_t)v;
    if (hexnum(&t[6], 2, &v) < 0) return g_snprintf(why, wl, "bad procedure number '%.40s'", t[6].s), -1;
    l->procnum = (uint32_t)v;
    l->op = proc_by_name(&t[7]);
    if (l->op < 0) {
        if (tok_is(&t[7], "mnt") || tok_is(&t[7], "unknown") || tok_is(&t[7], "??")) return 1;
        return g_snprintf(why, wl, "bad procedure name '%.40s'", t[7].s), -1;
    }
    if (tbbt_op_to_wire(l->op, (unsigned)l->vers) < 0)
        return g_snprintf(why, wl, "%s is not an NFSv%d procedure", t[7].s, l->vers), -1;
    size_t i = 8;
    int nostatus = l->op == TBBT_OP_NULL || l->op == TBBT_OP_ROOT || l->op == TBBT_OP_WRITECACHE;
    if (!l->call && !nostatus) {
        if (i >= e->nt) return g_snprintf(why, wl, "reply without a status"), -1;
        if (tok_is(&t[i], "OK"))
            l->status = 0;
        else if (hexnum(&t[i], 8, &v) == 0 && v <= 0x7fffffff)
            l->status = (uint32_t)v;
        else
            return g_snprintf(why, wl, "bad status '%.40s'", t[i].s), -1;
        i++;
    }
    if ((e->nt - i) % 2) return g_snprintf(why, wl, "odd number of name/value tokens"), -1;
    l->kv = t + i;
    l->nkv = e->nt - i;
    return 0;
}

/* The call's credentials: AUTH_SYS when the trace has euid and egid. */
static void put_cred(struct tbbt_ellard *e, const struct line *l) {
    uint32_t uid, gid;
    if (hex32(kv(l, "euid"), &uid) == 0 && hex32(kv(l, "egid"), &gid) == 0) {
        put32(&e->x, TBBT_AUTH_SYS);
        put32(&e->x, 20);
        put32(&e->x, 0); /* stamp */
        put32(&e->x, 0); /* machine name "" */
        put32(&e->x, uid);
        put32(&e->x, gid);
        put32(&e->x, 0); /* gids */
    } else {
        put32(&e->x, TBBT_AUTH_NONE);
        put32(&e->x, 0);
    }
    put32(&e->x, TBBT_AUTH_NONE); /* verifier */
    put32(&e->x, 0);
}

/* Remembers fields to remove from the record of (client, xid). */
static void mask_add(struct tbbt_ellard *e, const struct tbbt_endpoint *client, uint32_t xid, uint64_t mask,
                     int64_t ts) {
    struct maskent *m = g_new0(struct maskent, 1);
    mask_key(&m->k, client, xid);
    struct maskent *old = g_hash_table_lookup(e->masks, &m->k);
    if (old) {
        old->mask |= mask;
        g_free(m);
        return;
    }
    m->mask = mask;
    m->ts = ts;
    g_hash_table_insert(e->masks, &m->k, m);
}

/* Drops masks no record claimed (replies without call, retransmissions
 * dropped by pass 1) once they are an hour of trace time old. */
static gboolean mask_stale(gpointer k, gpointer v, gpointer now) {
    (void)k;
    return *(const int64_t *)now - ((const struct maskent *)v)->ts > MASK_KEEP_NS;
}

/* Turns a parsed line into its RPC message and hands it over. */
static int emit(struct tbbt_ellard *e, struct line *l, char *why, size_t wl) {
    struct xbuf *x = &e->x;
    x->n = 0;
    put32(x, l->xid);
    put32(x, l->call ? TBBT_RPC_CALL : TBBT_RPC_REPLY);
    int rc;
    if (l->call) {
        put32(x, TBBT_RPC_VERSION);
        put32(x, TBBT_NFS_PROGRAM);
        put32(x, (uint32_t)l->vers);
        put32(x, (uint32_t)tbbt_op_to_wire(l->op, (unsigned)l->vers));
        put_cred(e, l);
        rc = l->vers == 3 ? call3(e, l, why, wl) : call2(e, l, why, wl);
    } else {
        put32(x, 0); /* MSG_ACCEPTED */
        put32(x, TBBT_AUTH_NONE), put32(x, 0);
        put32(x, 0); /* SUCCESS */
        struct rparts rp = {0};
        rp.ent = g_array_new(FALSE, TRUE, sizeof(struct entry));
        split_reply(e, l, &rp);
        rc = l->vers == 3 ? reply3(e, l, &rp, why, wl) : reply2(e, l, &rp, why, wl);
        g_array_free(rp.ent, TRUE);
    }
    if (rc < 0) return -1;
    const struct tbbt_endpoint *client = l->call ? &l->src : &l->dst;
    if (l->mask) mask_add(e, client, l->xid, l->mask, l->ts);
    struct tbbt_msg m = {.ts_first = l->ts,
                         .ts_last = l->ts,
                         .src = l->src,
                         .dst = l->dst,
                         .tcp = l->tcp,
                         .data = x->p,
                         .caplen = x->n,
                         .len = x->n,
                         .pktno = e->lineno};
    e->cb(e->ctx, &m);
    if (l->call)
        e->st.calls++;
    else
        e->st.replies++;
    if (l->ts - e->last_prune > MASK_KEEP_NS) {
        g_hash_table_foreach_remove(e->masks, mask_stale, &l->ts);
        e->last_prune = l->ts;
    }
    return 0;
}

/* Counts a SHORT PACKET line (skipped: its content is not trusted). */
static int short_packet(struct tbbt_ellard *e, char *s, size_t len, char *why, size_t wl) {
    tokenize(e, s, len);
    uint32_t sec, us;
    if (e->nt < 5 || sec_usec(&e->t[0], &sec, &us) < 0 || !memchr(e->t[1].s, '.', e->t[1].n))
        return g_snprintf(why, wl, "neither a call nor a reply"), -1;
    if (e->t[4].n == 2 && e->t[4].s[0] == 'C')
        e->st.short_calls++;
    else
        e->st.short_replies++;
    return 0;
}

int tbbt_ellard_line(struct tbbt_ellard *e, char *s, size_t len, char *why, size_t wl) {
    e->st.lines++;
    e->lineno++;
    size_t b = strspn(s, " \t");
    if (b >= len || s[b] == '#') return 0;
    if (g_strstr_len(s, (gssize)len, "SHORT PACKET")) return short_packet(e, s, len, why, wl);
    tokenize(e, s, len);
    struct line l = {0};
    int rc = parse_fixed(e, &l, why, wl);
    if (rc > 0) {
        e->st.unsupported++;
        return 0;
    }
    if (rc == 0) rc = emit(e, &l, why, wl);
    if (rc < 0) {
        e->st.malformed++;
        return -1;
    }
    int wire = tbbt_op_to_wire(l.op, (unsigned)l.vers);
    if ((uint32_t)wire != l.procnum) {
        e->st.num_mismatch++;
        g_snprintf(why, wl, "procedure number %x is not %s's in NFSv%d (%x); the name is used", l.procnum,
                   e->t[7].s, l.vers, (unsigned)wire);
        return 1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

/* Prints a line warning, up to max_warnings. */
static void warn(struct tbbt_ellard *e, const char *name, uint64_t lineno, const char *what) {
    if (e->st.warned++ < (uint64_t)e->o.max_warnings)
        fprintf(stderr, "tbbt-prep: warning: %s:%llu: %s\n", name, (unsigned long long)lineno, what);
}

/* Prints the warnings held while a file had shown no good line. */
static void release(struct tbbt_ellard *e, const char *name, GArray *held) {
    for (guint i = 0; i < held->len; i++) {
        char *w = g_array_index(held, char *, i);
        char *colon = strchr(w, ' ');
        warn(e, name, g_ascii_strtoull(w, NULL, 10), colon ? colon + 1 : w);
        g_free(w);
    }
    g_array_set_size(held, 0);
}

int tbbt_ellard_read(struct tbbt_ellard *e, FILE *f, const char *name, char *err, size_t errlen) {
    char *line = NULL, why[256], first[300] = "";
    size_t cap = 0;
    ssize_t len;
    uint64_t lineno = 0, content = 0, good = 0;
    int rc = 0;
    GArray *held = g_array_new(FALSE, FALSE, sizeof(char *));
    e->lineno = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        size_t b = strspn(line, " \t");
        if ((size_t)len <= b || line[b] == '#') {
            e->st.lines++, e->lineno++;
            continue;
        }
        content++;
        int r = tbbt_ellard_line(e, line, (size_t)len, why, sizeof(why));
        if (r < 0 && !*first)
            g_snprintf(first, sizeof(first), "line %llu: %s", (unsigned long long)lineno, why);
        if (r >= 0 && !good++) release(e, name, held);
        if (r != 0 && good) {
            warn(e, name, lineno, why);
        } else if (r != 0) {
            char *w = g_strdup_printf("%llu %s", (unsigned long long)lineno, why);
            g_array_append_val(held, w);
        }
        if (!good && content >= SNIFF_LINES) {
            g_snprintf(err, errlen, "%s: not an Ellard nfsdump trace (no line of the first %d parses; %s)",
                       name, SNIFF_LINES, first);
            rc = -1;
        }
    }
    if (rc == 0 && ferror(f)) {
        g_snprintf(err, errlen, "%s: read error after line %llu", name, (unsigned long long)lineno);
        rc = -1;
    }
    if (rc == 0 && !good && content) {
        g_snprintf(err, errlen, "%s: not an Ellard nfsdump trace (no line parses; %s)", name, first);
        rc = -1;
    }
    if (rc == 0) release(e, name, held);
    for (guint i = 0; i < held->len; i++)
        g_free(g_array_index(held, char *, i));
    g_array_free(held, TRUE);
    free(line);
    return rc;
}

void tbbt_ellard_print_stats(const struct tbbt_ellard *e, FILE *out) {
    const struct tbbt_ellard_stats *s = &e->st;
    fprintf(
        out,
        "Ellard text: %llu lines: %llu calls, %llu replies; SHORT PACKET lines skipped: %llu (%llu calls)\n",
        (unsigned long long)s->lines, (unsigned long long)s->calls, (unsigned long long)s->replies,
        (unsigned long long)(s->short_calls + s->short_replies), (unsigned long long)s->short_calls);
    fprintf(out,
            "Ellard text: malformed lines skipped: %llu; unsupported procedures skipped: %llu; values not "
            "parsed: "
            "%llu; procedure numbers not matching their names: %llu; setattr sizes word-swapped back: %llu\n",
            (unsigned long long)s->malformed, (unsigned long long)s->unsupported,
            (unsigned long long)s->bad_values, (unsigned long long)s->num_mismatch,
            (unsigned long long)s->sizes_swapped);
    if (s->warned > (uint64_t)e->o.max_warnings)
        fprintf(stderr, "tbbt-prep: warning: %llu more Ellard line warnings not shown (--max-warnings)\n",
                (unsigned long long)(s->warned - (uint64_t)e->o.max_warnings));
}

/* ------------------------------------------------------------------ */
/* The record sink                                                     */
/* ------------------------------------------------------------------ */

/* The masks live in the reader; the sink context points at it. */
int tbbt_ellard_sink(void *ctx, const struct tbbt_rec *r) {
    struct tbbt_ellard_sinkctx *c = ctx;
    struct tbbt_ellard *e = c->reader;
    struct maskkey k;
    mask_key(&k, &r->client, r->xid);
    struct maskent *m = g_hash_table_lookup(e->masks, &k);
    if (!m) return c->sink(c->ctx, r);
    struct tbbt_rec copy = *r; /* shallow: the arena and entries stay r's */
    copy.has &= ~m->mask;
    g_hash_table_remove(e->masks, &k);
    return c->sink(c->ctx, &copy);
}
