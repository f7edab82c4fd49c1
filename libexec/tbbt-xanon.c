/* tbbt-xanon.c -- the work of scripts/tbbt-anonymize (its only
 * implementation): the loop over the hierarchy map's entries and the
 * records' lines, with the keyed, injective mappings of names, uids, gids
 * and client hosts.
 *
 * Not a user command: the Perl script is the interface (options, key
 * file, input and output files, .tbbt through tbbt-dump, messages, exit
 * codes) and runs this program with everything opened:
 *
 *   tbbt-xanon --key-fd K --status-fd S [--keep-length] [--keep-ext]
 *              [--length N] [--hash-root] [--id-lo LO --id-hi HI]
 *              [--map-fd M --map-out-fd MO --map-label NAME]
 *              [--trace-label NAME [--piped]]
 *
 * The key is read from fd K to its end (never on the command line, where
 * ps would show it). The map is read from fd M and written to fd MO; the
 * records are read from stdin and written to stdout. Fd S receives
 * "map N" when the map is complete (its output closed), "trace N" when
 * the records are, "counts NAMES UIDS GIDS HOSTS CLASHES" at the end, or
 * one "fail MESSAGE" (the whole message, file and line included) or
 * "wfail map|trace STRERROR" before exiting 1.
 *
 * The rules were first written in Perl (the script's history has the
 * functions of the same names: hash_name, hash_id, anonymize_record, ...)
 * and this program matched them byte for byte, including the record
 * syntax's corner cases; tests/transforms/anonymize_golden.t holds the
 * outputs of that day as golden files. A map line is read and written by
 * lib/hmap.c. */
#include <errno.h>
#include <stdarg.h>
#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hmap.h"
#include "htab.h"
#include "oom.h"
#include "rectext.h"

#define XA_MAX_TRIES 4096
#define XA_FLUSH (1u << 20)

enum xa_kind { XA_NAME, XA_UID, XA_GID, XA_HOST, XA_KINDS };
static const char *const xa_kind_name[XA_KINDS] = {"name", "uid", "gid", "host"};

/* A byte string that is not NUL terminated (names may hold any byte). */
struct xa_str {
    const char *p;
    size_t n;
};

/* One mapping: input bytes then output bytes in b; hin and hout are
 * their hashes (the memo table is keyed by the input, the taken table by
 * the output). */
struct xa_ent {
    uint64_t hin, hout;
    uint32_t inlen, outlen;
    char b[];
};

/* The options the script passes (validated by it, checked again here). */
struct xa_opts {
    gboolean keep_length, keep_ext, hash_root, piped;
    gint length;
    gint64 lo, hi;
    gint key_fd, status_fd, map_fd, map_out_fd;
    gchar *map_label, *trace_label;
};

/* The mapping state  and the scratch buffers. */
struct xa {
    const struct xa_opts *o;
    GHmac *hmac; /* keyed, never updated: copied for each message */
    struct tbbt_htab memo[XA_KINDS], taken[XA_KINDS], keep;
    uint64_t clashes;
    int fatal; /* err comes from fatal() (no column prefix) */
    GString *err, *dom, *cand, *prefix;
    GString *hmbuf, *mpath, *mtarget, *mid; /* a map entry: lib/hmap's strings, hashed path, target, id */
    GArray *tok;                            /* struct xa_str: the line's columns */
    char *dec;                              /* decoded quoted string */
    size_t deccap;
};

/* A buffered reader of lines from an fd. */
struct xa_in {
    int fd, eof;
    char *buf;
    size_t cap, start, end;
    uint64_t lineno;
};

/* A buffered writer to an fd; err is the first write's errno. */
struct xa_out {
    int fd, err;
    GString *b;
};

/* ------------------------------------------------------------------ */
/* Hashing and the tables                                               */
/* ------------------------------------------------------------------ */

/* A 64-bit hash of bytes (FNV-1a with a final mix, so that the table's
 * low bits depend on every byte). */
static uint64_t xa_hash(const char *p, size_t n) {
    uint64_t h = tbbt_htab_fnv1a(p, n, TBBT_HTAB_FNV1A_BASIS);
    h ^= h >> 31;
    h *= 0x7fb5d329728ea185ull;
    return h ^ (h >> 27);
}

/* Memo and keep tables compare an entry's input with the key. */
static int xa_eq_in(const void *item, const void *key) {
    const struct xa_ent *e = item;
    const struct xa_str *k = key;
    return e->inlen == k->n && memcmp(e->b, k->p, k->n) == 0;
}

/* Taken tables compare an entry's output with the key. */
static int xa_eq_out(const void *item, const void *key) {
    const struct xa_ent *e = item;
    const struct xa_str *k = key;
    return e->outlen == k->n && memcmp(e->b + e->inlen, k->p, k->n) == 0;
}

/* A new entry in -> out; the caller puts it in its tables (entries live
 * until exit, for the run). */
static struct xa_ent *xa_ent_new(struct xa_str in, uint64_t hin, struct xa_str out) {
    struct xa_ent *e = g_malloc(sizeof *e + in.n + out.n + 1);
    e->hin = hin;
    e->hout = xa_hash(out.p, out.n);
    e->inlen = (uint32_t)in.n;
    e->outlen = (uint32_t)out.n;
    memcpy(e->b, in.p, in.n);
    memcpy(e->b + in.n, out.p, out.n);
    return e;
}

/* The output bytes of an entry. */
static struct xa_str xa_ent_out(const struct xa_ent *e) {
    return (struct xa_str){e->b + e->inlen, e->outlen};
}

/* ------------------------------------------------------------------ */
/* Keyed streams                  */
/* ------------------------------------------------------------------ */

/* Fills out with n bytes of HMAC(key, DOMAIN "\0" i) for i = 0, 1, ...
 * (counter mode), DOMAIN being x->dom. */
static void xa_stream(struct xa *x, guint8 *out, size_t n) {
    size_t got = 0;
    for (unsigned i = 0; got < n; i++) {
        char num[16];
        int k = snprintf(num, sizeof num, "%u", i);
        GHmac *h = g_hmac_copy(x->hmac);
        g_hmac_update(h, (const guchar *)x->dom->str, (gssize)x->dom->len);
        g_hmac_update(h, (const guchar *)"", 1);
        g_hmac_update(h, (const guchar *)num, k);
        guint8 d[32];
        gsize dl = sizeof d;
        g_hmac_get_digest(h, d, &dl);
        g_hmac_unref(h);
        size_t take = MIN(dl, n - got);
        memcpy(out + got, d, take);
        got += take;
    }
}

/* Sets x->dom to KIND "\0" TRY "\0" IN, the domain of candidate TRY. */
static void xa_domain(struct xa *x, enum xa_kind kind, unsigned try, struct xa_str in) {
    g_string_truncate(x->dom, 0);
    g_string_append(x->dom, xa_kind_name[kind]);
    g_string_append_c(x->dom, '\0');
    g_string_append_printf(x->dom, "%u", try);
    g_string_append_c(x->dom, '\0');
    g_string_append_len(x->dom, in.p, (gssize)in.n);
}

static const char xa_alpha[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/* Appends up to len characters of the alphabet drawn from bytes by
 * rejection (uniform), as alpha_string does (possibly fewer). */
static void xa_alpha_string(GString *out, const guint8 *bytes, size_t nbytes, size_t len) {
    size_t k = 0;
    for (size_t i = 0; i < nbytes && k < len; i++) {
        if (bytes[i] >= 248) continue;
        g_string_append_c(out, xa_alpha[bytes[i] % 62]);
        k++;
    }
}

/* ------------------------------------------------------------------ */
/* Injective mappings                                                   */
/* ------------------------------------------------------------------ */

/* How a kind's candidate TRY for IN is made, into x->cand. */
struct xa_gen {
    enum xa_kind kind;
    struct xa_str pre, ext; /* names: kept prefix and extension */
    size_t len;             /* names: hashed characters */
};

/* Appends printable(BYTES) (error messages): bytes outside 0x20-0x7e as
 * \xHH. */
static void xa_printable(GString *g, struct xa_str s) {
    for (size_t i = 0; i < s.n; i++) {
        unsigned char c = (unsigned char)s.p[i];
        if (c >= 0x20 && c <= 0x7e)
            g_string_append_c(g, (char)c);
        else
            g_string_append_printf(g, "\\x%02x", c);
    }
}

/* Makes candidate TRY of IN into x->cand (Perl: the GEN closures of
 * hash_name, hash_id, hash_host). */
static void xa_candidate(struct xa *x, const struct xa_gen *g, struct xa_str in, unsigned try) {
    g_string_truncate(x->cand, 0);
    xa_domain(x, g->kind, try, in);
    if (g->kind == XA_NAME) {
        size_t n = 4 * g->len + 64;
        guint8 *b = g_malloc(n);
        xa_stream(x, b, n);
        g_string_append_len(x->cand, g->pre.p, (gssize)g->pre.n);
        xa_alpha_string(x->cand, b, n, g->len);
        g_string_append_len(x->cand, g->ext.p, (gssize)g->ext.n);
        g_free(b);
    } else if (g->kind == XA_HOST) {
        guint8 b[3];
        xa_stream(x, b, 3);
        g_string_append_printf(x->cand, "10.%d.%d.%d", b[0], b[1], 1 + b[2] % 254);
    } else {
        guint8 b[8];
        xa_stream(x, b, 8);
        uint64_t v = 0;
        for (int i = 0; i < 8; i++)
            v = v << 8 | b[i];
        uint64_t span = (uint64_t)(x->o->hi - x->o->lo) + 1;
        g_string_append_printf(x->cand, "%" G_GUINT64_FORMAT, (guint64)x->o->lo + v % span);
    }
}

/* The memoised output of IN : a candidate already
 * taken by another input is skipped and counted as a clash. Returns the
 * entry, or NULL with a fatal message when XA_MAX_TRIES are taken. */
static const struct xa_ent *xa_injective(struct xa *x, const struct xa_gen *g, struct xa_str in) {
    uint64_t hin = xa_hash(in.p, in.n);
    struct xa_ent *e = tbbt_htab_find_inline(&x->memo[g->kind], hin, &in, xa_eq_in);
    if (e) return e;
    for (unsigned try = 0; try < XA_MAX_TRIES; try++) {
        xa_candidate(x, g, in, try);
        struct xa_str c = {x->cand->str, x->cand->len};
        if (tbbt_htab_find(&x->taken[g->kind], xa_hash(c.p, c.n), &c)) {
            x->clashes++;
            continue;
        }
        e = xa_ent_new(in, hin, c);
        tbbt_htab_put(&x->taken[g->kind], e->hout, e);
        tbbt_htab_put(&x->memo[g->kind], hin, e);
        return e;
    }
    g_string_printf(x->err, "no free %s left for '", xa_kind_name[g->kind]);
    xa_printable(x->err, in);
    g_string_append_printf(x->err, "' after %d tries (its space is exhausted)", XA_MAX_TRIES);
    x->fatal = 1;
    return NULL;
}

/* Marks name V as kept : its memo says V -> V, and V is
 * taken unless it already was. */
static void xa_reserve(struct xa *x, struct xa_str v) {
    uint64_t h = xa_hash(v.p, v.n);
    struct xa_ent *e = xa_ent_new(v, h, v);
    tbbt_htab_remove(&x->memo[XA_NAME], h, &v);
    tbbt_htab_put(&x->memo[XA_NAME], h, e);
    if (!tbbt_htab_find(&x->taken[XA_NAME], e->hout, &v)) tbbt_htab_put(&x->taken[XA_NAME], e->hout, e);
}

/* ------------------------------------------------------------------ */
/* Names, ids, hosts                                                    */
/* ------------------------------------------------------------------ */

/* Whether c is a letter or a digit (ASCII). */
static int xa_alnum(unsigned char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Splits NAME as split_name does: a leading '.' kept; with --keep-ext the
 * last '.' and 1 to 8 letters or digits after it when a stem remains. */
static void xa_split_name(const struct xa *x, struct xa_str n, struct xa_gen *g, struct xa_str *stem) {
    g->pre = (struct xa_str){n.p, 0};
    g->ext = (struct xa_str){n.p + n.n, 0};
    if (n.n && n.p[0] == '.') {
        g->pre.n = 1;
        n.p++;
        n.n--;
    }
    if (x->o->keep_ext) {
        const char *dot = NULL;
        for (size_t i = n.n; i > 0 && !dot; i--)
            if (n.p[i - 1] == '.') dot = n.p + i - 1;
        size_t after = dot ? (size_t)(n.p + n.n - dot - 1) : 0;
        int ok = dot && after >= 1 && after <= 8;
        for (size_t i = 0; ok && i < after; i++)
            ok = xa_alnum((unsigned char)dot[1 + i]);
        if (ok) {
            g->ext = (struct xa_str){dot, after + 1};
            n.n = (size_t)(dot - n.p);
        }
    }
    if (n.n == 0 && g->ext.n) { /* ".c": no stem left */
        n = (struct xa_str){g->ext.p + 1, g->ext.n - 1};
        g->ext.n = 0;
    }
    *stem = n;
}

/* NAME's anonymous name, appended to out ("." ".." and "" unchanged).
 * Returns 0, or -1 (fatal) when no name is left. */
static int xa_hash_name(struct xa *x, struct xa_str n, GString *out) {
    if ((n.n == 1 && n.p[0] == '.') || (n.n == 2 && n.p[0] == '.' && n.p[1] == '.') || n.n == 0) {
        g_string_append_len(out, n.p, (gssize)n.n);
        return 0;
    }
    uint64_t h = xa_hash(n.p, n.n);
    const struct xa_ent *e = tbbt_htab_find_inline(&x->memo[XA_NAME], h, &n, xa_eq_in);
    if (!e) {
        struct xa_gen g = {.kind = XA_NAME};
        struct xa_str stem;
        xa_split_name(x, n, &g, &stem);
        g.len = x->o->keep_length ? stem.n : (size_t)x->o->length;
        if (g.len < 1) g.len = 1;
        if (!(e = xa_injective(x, &g, n))) return -1;
    }
    struct xa_str o = xa_ent_out(e);
    g_string_append_len(out, o.p, (gssize)o.n);
    return 0;
}

/* Whether [p, p+n) is one or more ASCII digits. */
static int xa_digits(const char *p, size_t n) {
    if (!n) return 0;
    for (size_t i = 0; i < n; i++)
        if (p[i] < '0' || p[i] > '9') return 0;
    return 1;
}

/* uid or gid N (digits) mapped into [lo, hi], appended to out; 0 (any
 * number of zeros) stays as written unless --hash-root. */
static int xa_hash_id(struct xa *x, enum xa_kind kind, struct xa_str n, GString *out) {
    int zero = 1;
    for (size_t i = 0; i < n.n && zero; i++)
        zero = n.p[i] == '0';
    if (zero && !x->o->hash_root) {
        g_string_append_len(out, n.p, (gssize)n.n);
        return 0;
    }
    struct xa_gen g = {.kind = kind};
    const struct xa_ent *e = xa_injective(x, &g, n);
    if (!e) return -1;
    struct xa_str o = xa_ent_out(e);
    g_string_append_len(out, o.p, (gssize)o.n);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Quoted strings                                                       */
/* ------------------------------------------------------------------ */

/* Value of hex digit c, or -1. */
static int xa_hex(unsigned char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The body of the quoted string starting at s.p[0] == '"' (Perl's
 * "((?:[^"\\]|\\.)*)"): its end is the first unescaped quote. Returns the
 * length of the whole quoted string, or 0 when it is not closed. */
static size_t xa_qstr_len(struct xa_str s) {
    if (!s.n || s.p[0] != '"') return 0;
    for (size_t i = 1; i < s.n;) {
        if (s.p[i] == '"') return i + 1;
        i += s.p[i] == '\\' ? 2 : 1;
    }
    return 0;
}

/* Decodes BODY into x->dec as qdecode does; -1 when any backslash (even
 * an escaped one's second byte) is not followed by '"', '\' or xHH. */
static int xa_qdecode(struct xa *x, struct xa_str b, struct xa_str *out) {
    for (size_t i = 0; i < b.n; i++) {
        if (b.p[i] != '\\') continue;
        int ok = i + 1 < b.n && (b.p[i + 1] == '"' || b.p[i + 1] == '\\');
        ok = ok || (i + 3 < b.n && b.p[i + 1] == 'x' && xa_hex((unsigned char)b.p[i + 2]) >= 0 &&
                    xa_hex((unsigned char)b.p[i + 3]) >= 0);
        if (!ok) return -1;
    }
    if (x->deccap < b.n + 1) x->dec = g_realloc(x->dec, x->deccap = b.n + 1);
    size_t k = 0;
    for (size_t i = 0; i < b.n; i++) {
        if (b.p[i] == '\\' && b.p[i + 1] == 'x') {
            x->dec[k++] = (char)(xa_hex((unsigned char)b.p[i + 2]) << 4 | xa_hex((unsigned char)b.p[i + 3]));
            i += 3;
        } else if (b.p[i] == '\\') {
            x->dec[k++] = b.p[++i];
        } else {
            x->dec[k++] = b.p[i];
        }
    }
    *out = (struct xa_str){x->dec, k};
    return 0;
}

/* Decodes V when all of it is one quoted string (Perl: /^$QSTR\z/ and
 * qdecode); -1 otherwise. */
static int xa_quoted(struct xa *x, struct xa_str v, struct xa_str *out) {
    size_t q = xa_qstr_len(v);
    if (!q || q != v.n) return -1;
    return xa_qdecode(x, (struct xa_str){v.p + 1, v.n - 2}, out);
}

/* Appends T with each '/'-separated component hashed (hash_target).
 * The input must not live in x->dec... it is copied first. */
static int xa_hash_target(struct xa *x, struct xa_str t, GString *out) {
    char *copy = g_memdup2(t.p, t.n + 1);
    size_t start = 0;
    int rc = 0;
    for (size_t i = 0; i <= t.n && rc == 0; i++) {
        if (i < t.n && copy[i] != '/') continue;
        if (start) g_string_append_c(out, '/');
        rc = xa_hash_name(x, (struct xa_str){copy + start, i - start}, out);
        start = i + 1;
    }
    g_free(copy);
    return rc;
}

/* Appends the quoted form of the anonymised decoded bytes in x->dec
 * (hash_qname without the decoding). */
static int xa_put_qname(struct xa *x, struct xa_str name, GString *out) {
    g_string_truncate(x->prefix, 0);
    if (xa_hash_name(x, name, x->prefix) < 0) return -1;
    tbbt_text_qstr(out, x->prefix->str, x->prefix->len);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Records                                                              */
/* ------------------------------------------------------------------ */

/* Whether c is whitespace to Perl's split ' ' (\s on bytes). */
static int xa_space(unsigned char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Splits line into x->tok as split ' ' does. */
static void xa_split(struct xa *x, const char *p, size_t n) {
    g_array_set_size(x->tok, 0);
    size_t i = 0;
    while (i < n) {
        while (i < n && xa_space((unsigned char)p[i]))
            i++;
        if (i == n) break;
        size_t s = i;
        while (i < n && !xa_space((unsigned char)p[i]))
            i++;
        struct xa_str t = {p + s, i - s};
        g_array_append_val(x->tok, t);
    }
}

/* The i-th column. */
static struct xa_str xa_col(const struct xa *x, unsigned i) {
    return g_array_index(x->tok, struct xa_str, i);
}

/* Sets a column error . */
static int xa_fail(struct xa *x, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static int xa_fail(struct xa *x, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    g_string_vprintf(x->err, fmt, ap);
    va_end(ap);
    return -1;
}

/* Whether t is a time: ["-"] digits "." 9 digits. */
static int xa_is_time(struct xa_str t) {
    size_t i = t.n && t.p[0] == '-' ? 1 : 0, d = i;
    while (i < t.n && t.p[i] >= '0' && t.p[i] <= '9')
        i++;
    if (i == d || i >= t.n || t.p[i] != '.') return 0;
    return t.n - i - 1 == 9 && xa_digits(t.p + i + 1, 9);
}

/* Length of 1..max digits at p (before end), 0 when none. */
static size_t xa_ndigits(const char *p, const char *end, size_t max) {
    size_t k = 0;
    while (p + k < end && k < max && p[k] >= '0' && p[k] <= '9')
        k++;
    return k;
}

/* Length of the host part of a client endpoint (ipv4, [ipv6] or ~32hex)
 * when it is followed by ":" digits to the end; 0 when it is not. */
static size_t xa_host_len(struct xa_str e) {
    const char *p = e.p, *end = e.p + e.n, *h = p;
    if (p < end && *p == '[') {
        for (h = p + 1; h < end && (xa_hex((unsigned char)*h) >= 0 || *h == ':' || *h == '.'); h++) {
        }
        if (h == p + 1 || h >= end || *h != ']') return 0;
        h++;
    } else if (p < end && *p == '~') {
        for (h = p + 1; h < end && h < p + 33 && xa_hex((unsigned char)*h) >= 0; h++) {
        }
        if (h != p + 33) return 0;
    } else {
        for (int part = 0; part < 4; part++) {
            if (part && (h >= end || *h++ != '.')) return 0;
            size_t k = xa_ndigits(h, end, 3);
            if (!k) return 0;
            h += k;
        }
    }
    if (h >= end || *h != ':' || !xa_digits(h + 1, (size_t)(end - h - 1))) return 0;
    return (size_t)(h - p);
}

/* Column 3 (hash_endpoint): the host replaced, the port kept; "-" and
 * "-:port" kept. */
static int xa_endpoint(struct xa *x, struct xa_str e, GString *out) {
    if ((e.n == 1 && e.p[0] == '-') ||
        (e.n > 2 && e.p[0] == '-' && e.p[1] == ':' && xa_digits(e.p + 2, e.n - 2))) {
        g_string_append_len(out, e.p, (gssize)e.n);
        return 0;
    }
    size_t hl = xa_host_len(e);
    if (!hl) {
        g_string_assign(x->err, "column 3: bad client endpoint '");
        xa_printable(x->err, e);
        g_string_append_c(x->err, '\'');
        return -1;
    }
    char *h = g_ascii_strdown(e.p, (gssize)hl);
    struct xa_gen g = {.kind = XA_HOST};
    const struct xa_ent *ent = xa_injective(x, &g, (struct xa_str){h, hl});
    g_free(h);
    if (!ent) return -1;
    struct xa_str o = xa_ent_out(ent);
    g_string_append_len(out, o.p, (gssize)o.n);
    g_string_append_len(out, e.p + hl, (gssize)(e.n - hl));
    return 0;
}

/* Whether column 10 is cred=FL:UID:GID[:G,G...] (checked whole before
 * any id is hashed, as the script's regular expression is). */
static int xa_cred_ok(struct xa_str c) {
    const char *p = c.p + 5, *end = c.p + c.n;
    if (c.n < 5 || memcmp(c.p, "cred=", 5) != 0) return 0;
    for (size_t nf = 1;; nf++) { /* numbers separated by ':' (the first three) then ',' */
        size_t k = xa_ndigits(p, end, SIZE_MAX);
        if (!k) return 0;
        p += k;
        if (p == end) return nf >= 3;
        if (*p != (nf < 4 ? ':' : ',')) return 0;
        p++;
    }
}

/* Column 10 with its uid, gid and gids hashed; -1 with the message. */
static int xa_cred(struct xa *x, struct xa_str c, GString *out) {
    if (!xa_cred_ok(c)) return xa_fail(x, "column 10: bad cred");
    const char *p = c.p + 5, *end = c.p + c.n;
    for (size_t nf = 0; p < end; nf++) {
        size_t k = xa_ndigits(p, end, SIZE_MAX);
        struct xa_str f = {p, k};
        if (nf == 0)
            g_string_append(out, "cred=");
        else
            g_string_append_c(out, nf <= 3 ? ':' : ',');
        if (nf == 0)
            g_string_append_len(out, f.p, (gssize)f.n);
        else if (xa_hash_id(x, nf == 1 ? XA_UID : XA_GID, f, out) < 0)
            return -1;
        p += k + (p + k < end ? 1 : 0);
    }
    return 0;
}

/* A readdir listing "[e,e...]" with each entry's name hashed
 * (hash_entries). */
static int xa_entries(struct xa *x, struct xa_str v, GString *out) {
    const char *p = v.p, *end = v.p + v.n;
    if (p == end || *p != '[') return xa_fail(x, "bad entries");
    p++;
    if (end - p == 1 && *p == ']') {
        g_string_append(out, "[]");
        return 0;
    }
    g_string_append_c(out, '[');
    for (int first = 1;; first = 0) {
        const char *head = p;
        for (int i = 0; i < 5; i++) {
            size_t k = xa_ndigits(p, end, SIZE_MAX);
            if (!k || p + k >= end || p[k] != ':') return xa_fail(x, "bad entries");
            p += k + 1;
        }
        size_t q = xa_qstr_len((struct xa_str){p, (size_t)(end - p)});
        if (!q || p + q >= end || (p[q] != ',' && p[q] != ']')) return xa_fail(x, "bad entries");
        struct xa_str name;
        if (xa_qdecode(x, (struct xa_str){p + 1, q - 2}, &name) < 0) return xa_fail(x, "bad name in entries");
        if (!first) g_string_append_c(out, ',');
        g_string_append_len(out, head, (gssize)(p - head));
        if (xa_put_qname(x, name, out) < 0) return -1;
        p += q + 1;
        if (p[-1] == ']') {
            if (p != end) return xa_fail(x, "bad entries (text after ']')");
            g_string_append_c(out, ']');
            return 0;
        }
    }
}

/* The value of a key=value column, anonymised (anonymize_record's
 * eval block); -1 with the message, prefixed by the caller. */
static int xa_value(struct xa *x, struct xa_str k, struct xa_str v, GString *out) {
    struct xa_str b;
#define XA_KEY(s) (k.n == sizeof(s) - 1 && memcmp(k.p, s, k.n) == 0)
    if (XA_KEY("name") || XA_KEY("name2")) {
        if (xa_quoted(x, v, &b) < 0) return xa_fail(x, "bad quoted string in %.*s", (int)k.n, k.p);
        return xa_put_qname(x, b, out);
    }
    if (XA_KEY("target")) {
        if (xa_quoted(x, v, &b) < 0) return xa_fail(x, "bad quoted string in target");
        g_string_truncate(x->prefix, 0);
        if (xa_hash_target(x, b, x->prefix) < 0) return -1;
        tbbt_text_qstr(out, x->prefix->str, x->prefix->len);
        return 0;
    }
    if (XA_KEY("cutname")) { /* a cut name's first bytes: kept, they would tell the name */
        if (xa_quoted(x, v, &b) < 0) return xa_fail(x, "bad quoted string in cutname");
        g_string_append(out, "\"\"");
        return 0;
    }
    if (XA_KEY("entries")) return xa_entries(x, v, out);
    if (XA_KEY("uid") || XA_KEY("set_uid") || XA_KEY("gid") || XA_KEY("set_gid")) {
        if (!xa_digits(v.p, v.n)) return xa_fail(x, "bad %.*s", (int)k.n, k.p);
        return xa_hash_id(x, k.p[k.n - 3] == 'u' ? XA_UID : XA_GID, v, out);
    }
#undef XA_KEY
    g_string_append_len(out, v.p, (gssize)v.n);
    return 0;
}

/* Whether c may be in a key ([a-z_0-9]). */
static int xa_keychar(unsigned char c) {
    return (c >= 'a' && c <= 'z') || c == '_' || (c >= '0' && c <= '9');
}

/* Columns 11 and on: key=value, the value anonymised by its key. */
static int xa_kv(struct xa *x, unsigned i, GString *out) {
    struct xa_str t = xa_col(x, i);
    size_t k = 0;
    while (k < t.n && xa_keychar((unsigned char)t.p[k]))
        k++;
    if (!k || k == t.n || t.p[k] != '=') return xa_fail(x, "column %u: not key=value", i + 1);
    g_string_append_len(out, t.p, (gssize)k + 1);
    x->fatal = 0;
    if (xa_value(x, (struct xa_str){t.p, k}, (struct xa_str){t.p + k + 1, t.n - k - 1}, out) == 0) return 0;
    if (!x->fatal) {
        gchar *pre = g_strdup_printf("column %u (%.*s): ", i + 1, (int)k, t.p);
        g_string_prepend(x->err, pre);
        g_free(pre);
    }
    return -1;
}

/* Columns 1 to 10: the checks of anonymize_record, in its order, with
 * the client and the credentials hashed. */
static int xa_header(struct xa *x, GString *out) {
    struct xa_str t[10];
    for (unsigned i = 0; i < 10; i++)
        t[i] = xa_col(x, i);
    if (!xa_is_time(t[0])) return xa_fail(x, "column 1: bad call time");
    if (!(t[1].n == 1 && t[1].p[0] == '-') && !xa_is_time(t[1]))
        return xa_fail(x, "column 2: bad reply time");
    for (unsigned i = 0; i < 2; i++) {
        g_string_append_len(out, t[i].p, (gssize)t[i].n);
        g_string_append_c(out, ' ');
    }
    if (xa_endpoint(x, t[2], out) < 0) return -1;
    if (!(t[4].n == 10 && t[4].p[0] == '0' && t[4].p[1] == 'x')) return xa_fail(x, "column 5: bad xid");
    for (int i = 2; i < 10; i++)
        if (xa_hex((unsigned char)t[4].p[i]) < 0) return xa_fail(x, "column 5: bad xid");
    if (!(t[5].n >= 2 && t[5].p[0] == 'v' && xa_digits(t[5].p + 1, t[5].n - 1)))
        return xa_fail(x, "column 6: bad version");
    for (unsigned i = 3; i < 9; i++) {
        g_string_append_c(out, ' ');
        g_string_append_len(out, t[i].p, (gssize)t[i].n);
    }
    g_string_append_c(out, ' ');
    return xa_cred(x, t[9], out);
}

/* Appends the anonymised text of one record line to out (no newline);
 * -1 with the message (without file and line) in x->err. */
static int xa_record(struct xa *x, const char *line, size_t n, GString *out) {
    xa_split(x, line, n);
    if (x->tok->len < 10) return xa_fail(x, "too few columns (%u, want at least 10)", (unsigned)x->tok->len);
    if (xa_header(x, out) < 0) return -1;
    for (unsigned i = 10; i < x->tok->len; i++) {
        g_string_append_c(out, ' ');
        if (xa_kv(x, i, out) < 0) return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* The hierarchy map                                                    */
/* ------------------------------------------------------------------ */

/* Appends PATH with every component hashed except those whose prefix is
 * a kept placeholder path (hash_path). */
static int xa_hash_path(struct xa *x, struct xa_str p, GString *out) {
    char *copy = g_memdup2(p.p, p.n + 1);
    GString *prefix = g_string_new(NULL);
    size_t start = 0;
    int rc = 0;
    for (size_t i = 0; i <= p.n && rc == 0; i++) {
        if (i < p.n && copy[i] != '/') continue;
        struct xa_str c = {copy + start, i - start};
        if (prefix->len) g_string_append_c(prefix, '/');
        g_string_append_len(prefix, c.p, (gssize)c.n);
        struct xa_str pk = {prefix->str, prefix->len};
        if (start) g_string_append_c(out, '/');
        if (tbbt_htab_find(&x->keep, xa_hash(pk.p, pk.n), &pk))
            g_string_append_len(out, c.p, (gssize)c.n);
        else
            rc = xa_hash_name(x, c, out);
        start = i + 1;
    }
    g_string_free(prefix, TRUE);
    g_free(copy);
    return rc;
}

/* Records placeholder PATH (origins r, p, o) as kept, and reserves its
 * last non-empty component as a name. */
static void xa_keep_path(struct xa *x, struct xa_str p) {
    uint64_t h = xa_hash(p.p, p.n);
    if (!tbbt_htab_find(&x->keep, h, &p)) tbbt_htab_put(&x->keep, h, xa_ent_new(p, h, p));
    size_t e = p.n;
    while (e && p.p[e - 1] == '/')
        e--;
    size_t s = e;
    while (s && p.p[s - 1] != '/')
        s--;
    if (e > s) xa_reserve(x, (struct xa_str){p.p + s, e - s});
}

/* A known uid or gid of a map entry (bit of e->known) hashed in place,
 * as the records' ids are (through their decimal form). */
static int xa_map_id(struct xa *x, enum xa_kind kind, uint32_t bit, const struct tbbt_hm_entry *e,
                     uint32_t *v) {
    char digits[16];
    if (!(e->known & bit)) return 0;
    int n = g_snprintf(digits, sizeof digits, "%" G_GUINT32_FORMAT, *v);
    g_string_truncate(x->mid, 0);
    if (xa_hash_id(x, kind, (struct xa_str){digits, (size_t)n}, x->mid) < 0) return -1;
    *v = (uint32_t)g_ascii_strtoull(x->mid->str, NULL, 10); /* in [lo, hi] < 2^32, or 0 */
    return 0;
}

/* Appends the anonymised text of one map entry: read by lib/hmap's parser
 * (the map's one definition: a line it refuses is refused here, with its
 * "column N: why"), its uid, gid, path and target hashed, written back by
 * lib/hmap's formatter. Placeholder paths (origins r, p, o) are kept, and
 * the paths under them keep those components. -1 with the message in
 * x->err. */
static int xa_map_line(struct xa *x, const char *line, size_t n, GString *out) {
    struct tbbt_hm_entry e;
    char err[160];
    if (tbbt_hm_parse(line, n, &e, x->hmbuf, err, sizeof err) < 0) return xa_fail(x, "%s", err);
    if (xa_map_id(x, XA_UID, TBBT_HM_UID, &e, &e.uid) < 0 ||
        xa_map_id(x, XA_GID, TBBT_HM_GID, &e, &e.gid) < 0)
        return -1;
    struct xa_str path = {e.path, strlen(e.path)};
    if (strchr("rpo", e.origin)) xa_keep_path(x, path);
    g_string_truncate(x->mpath, 0);
    if (xa_hash_path(x, path, x->mpath) < 0) return -1;
    e.path = x->mpath->str;
    if (e.target) {
        g_string_truncate(x->mtarget, 0);
        if (xa_hash_target(x, (struct xa_str){e.target, strlen(e.target)}, x->mtarget) < 0) return -1;
        e.target = x->mtarget->str;
    }
    tbbt_hm_format(out, &e);
    return 0;
}

/* ------------------------------------------------------------------ */
/* Input and output                                                     */
/* ------------------------------------------------------------------ */

/* The next line of in (its "\r?\n" removed, as the script's
 * s/\r?\n\z//): returns 1 with *p and *n set, 0 at the end. A read error
 * ends the input as Perl's readline does. */
static int xa_getline(struct xa_in *in, const char **p, size_t *n) {
    for (;;) {
        char *nl = memchr(in->buf + in->start, '\n', in->end - in->start);
        if (nl || (in->eof && in->end > in->start)) {
            size_t len = nl ? (size_t)(nl - (in->buf + in->start)) : in->end - in->start;
            *p = in->buf + in->start;
            in->start += len + (nl ? 1 : 0);
            if (nl && len && (*p)[len - 1] == '\r') len--;
            *n = len;
            in->lineno++;
            return 1;
        }
        if (in->eof) return 0;
        if (in->start) {
            memmove(in->buf, in->buf + in->start, in->end - in->start);
            in->end -= in->start;
            in->start = 0;
        }
        if (in->end == in->cap) in->buf = g_realloc(in->buf, in->cap *= 2);
        ssize_t r = read(in->fd, in->buf + in->end, in->cap - in->end);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0)
            in->eof = 1;
        else
            in->end += (size_t)r;
    }
}

/* Writes out's buffer to its fd; remembers the first error. */
static void xa_flush(struct xa_out *o) {
    size_t off = 0;
    while (off < o->b->len && !o->err) {
        ssize_t w = write(o->fd, o->b->str + off, o->b->len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0)
            o->err = errno;
        else
            off += (size_t)w;
    }
    g_string_truncate(o->b, 0);
}

/* Writes one status line to the script. */
static void xa_status(int fd, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static void xa_status(int fd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    gchar *s = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    size_t n = strlen(s), off = 0;
    while (off < n) {
        ssize_t w = write(fd, s + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    g_free(s);
}

/* Ends the program after a failure: the lines before it are flushed (as
 * Perl's buffered print leaves them), then "fail MESSAGE". */
static G_GNUC_NORETURN void xa_die(const struct xa_opts *o, struct xa_out *out, const char *msg) {
    if (out) xa_flush(out);
    xa_status(o->status_fd, "fail %s\n", msg);
    exit(1);
}

/* xa_die with a printf-formatted message. */
static G_GNUC_NORETURN G_GNUC_PRINTF(3, 4) void xa_dief(const struct xa_opts *o, struct xa_out *out,
                                                        const char *fmt, ...) {
    char m[2048];
    va_list ap;
    va_start(ap, fmt);
    g_vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    xa_die(o, out, m);
}

/* Ends the program after a write error on the map's or the records'
 * output. */
static G_GNUC_NORETURN void xa_wfail(const struct xa_opts *o, const char *which, int err) {
    xa_status(o->status_fd, "wfail %s %s\n", which, g_strerror(err));
    exit(1);
}

/* ------------------------------------------------------------------ */
/* The two loops                                                        */
/* ------------------------------------------------------------------ */

/* Whether a record line is skipped: blank or a comment (/^\s*(#|$)/). */
static int xa_skip(const char *p, size_t n) {
    size_t i = 0;
    while (i < n && xa_space((unsigned char)p[i]))
        i++;
    return i == n || p[i] == '#';
}

/* Whether [p, p+n) is exactly PREFIX followed by one or more digits. */
static int xa_prefixed_digits(const char *p, size_t n, const char *prefix) {
    size_t k = strlen(prefix);
    return n > k && memcmp(p, prefix, k) == 0 && xa_digits(p + k, n - k);
}

/* A comment line of the map (do_map): the header (line 1) and "# end N"
 * are kept, other comments dropped. Sets *end to N's digits, a copy held
 * in *own (the previous one freed). */
static void xa_map_comment(const struct xa_opts *o, struct xa_in *in, const char *p, size_t n,
                           struct xa_out *out, struct xa_str *end, char **own) {
    if (in->lineno == 1) {
        if (!xa_prefixed_digits(p, n, "# tbbt-hmap ")) {
            xa_dief(o, out, "%s:1: not a hierarchy map (no '# tbbt-hmap' header)", o->map_label);
        }
        g_string_append_len(out->b, p, (gssize)n);
        g_string_append(out->b, "\n# anonymised by tbbt-anonymize\n");
    } else if (xa_prefixed_digits(p, n, "# end ")) {
        g_free(*own);
        *own = g_memdup2(p + 6, n - 6);
        *end = (struct xa_str){*own, n - 6};
        g_string_append_len(out->b, p, (gssize)n);
        g_string_append_c(out->b, '\n');
    }
}

/* Whether the decimal digits d equal n (leading zeros allowed), as Perl's
 * numeric ==. */
static int xa_count_is(struct xa_str d, uint64_t n) {
    while (d.n > 1 && d.p[0] == '0')
        d.p++, d.n--;
    char b[24];
    int k = snprintf(b, sizeof b, "%" G_GUINT64_FORMAT, (guint64)n);
    return d.n == (size_t)k && memcmp(d.p, b, d.n) == 0;
}

/* Anonymises the map from o->map_fd to o->map_out_fd (do_map); returns
 * its number of entries, or exits with the failure. */
static uint64_t xa_do_map(struct xa *x, const struct xa_opts *o) {
    struct xa_in in = {.fd = o->map_fd, .cap = 1 << 20};
    struct xa_out out = {.fd = o->map_out_fd, .b = g_string_sized_new(XA_FLUSH + 4096)};
    struct xa_str end = {NULL, 0};
    char *end_own = NULL; /* end's digits */
    uint64_t n = 0;
    const char *p;
    size_t len;
    in.buf = g_malloc(in.cap);
    while (xa_getline(&in, &p, &len)) {
        if (len && p[0] == '#') {
            xa_map_comment(o, &in, p, len, &out, &end, &end_own);
            continue;
        }
        if (in.lineno == 1 || end.p) {
            if (end.p && in.lineno > 1)
                xa_dief(o, &out, "%s:%" G_GUINT64_FORMAT ": entry after '# end'", o->map_label,
                        (guint64)in.lineno);
            xa_dief(o, &out, "%s:%" G_GUINT64_FORMAT ": not a hierarchy map (no '# tbbt-hmap' header)",
                    o->map_label, (guint64)in.lineno);
        }
        size_t mark = out.b->len;
        if (xa_map_line(x, p, len, out.b) < 0) {
            g_string_truncate(out.b, mark);
            xa_dief(o, &out, "%s:%" G_GUINT64_FORMAT ": %s", o->map_label, (guint64)in.lineno, x->err->str);
        }
        g_string_append_c(out.b, '\n');
        n++;
        if (out.b->len >= XA_FLUSH) xa_flush(&out);
    }
    if (!end.p) xa_dief(o, &out, "%s: incomplete map (no '# end N' line)", o->map_label);
    if (!xa_count_is(end, n))
        xa_dief(o, &out, "%s: '# end %.*s' but %" G_GUINT64_FORMAT " entries", o->map_label, (int)end.n,
                end.p, (guint64)n);
    xa_flush(&out);
    if (out.err) xa_wfail(o, "map", out.err);
    if (close(out.fd) < 0) xa_wfail(o, "map", errno);
    g_free(in.buf);
    g_free(end_own);
    return n;
}

/* Anonymises the records from stdin to stdout (do_trace); returns their
 * number, or exits with the failure (the lines before it written). */
static uint64_t xa_do_trace(struct xa *x, const struct xa_opts *o) {
    struct xa_in in = {.fd = 0, .cap = 1 << 20};
    struct xa_out out = {.fd = 1, .b = g_string_sized_new(XA_FLUSH + 4096)};
    uint64_t n = 0;
    const char *p;
    size_t len;
    in.buf = g_malloc(in.cap);
    while (xa_getline(&in, &p, &len)) {
        if (xa_skip(p, len)) continue;
        size_t mark = out.b->len;
        if (xa_record(x, p, len, out.b) < 0) {
            g_string_truncate(out.b, mark);
            xa_dief(o, &out,
                    o->piped ? "%s: record %" G_GUINT64_FORMAT ": %s" : "%s:%" G_GUINT64_FORMAT ": %s",
                    o->trace_label, (guint64)in.lineno, x->err->str);
        }
        g_string_append_c(out.b, '\n');
        n++;
        if (out.b->len >= XA_FLUSH) xa_flush(&out);
    }
    xa_flush(&out);
    if (out.err) xa_wfail(o, "trace", out.err);
    g_free(in.buf);
    return n;
}

/* ------------------------------------------------------------------ */
/* Start-up                                                             */
/* ------------------------------------------------------------------ */

/* Reads the key from fd to its end (the script checked it is not
 * empty); exits on failure. */
static GBytes *xa_read_key(const struct xa_opts *o) {
    GByteArray *k = g_byte_array_new();
    guint8 b[4096];
    for (;;) {
        ssize_t r = read(o->key_fd, b, sizeof b);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) xa_die(o, NULL, "cannot read the key from its pipe");
        if (r == 0) break;
        g_byte_array_append(k, b, (guint)r);
    }
    close(o->key_fd);
    if (!k->len) xa_die(o, NULL, "empty key");
    return g_byte_array_free_to_bytes(k);
}

/* Parses the command line (a GOptionEntry table) into o; exits 2 on bad
 * usage (only the script runs this program). */
static void xa_parse(int argc, char **argv, struct xa_opts *o) {
    *o = (struct xa_opts){
        .length = 12, .lo = 1000, .hi = 59999, .key_fd = -1, .status_fd = 2, .map_fd = -1, .map_out_fd = -1};
    GOptionEntry ent[] = {
        {"key-fd", 0, 0, G_OPTION_ARG_INT, &o->key_fd, "read the key from this fd", "FD"},
        {"status-fd", 0, 0, G_OPTION_ARG_INT, &o->status_fd, "write the status lines here", "FD"},
        {"keep-length", 0, 0, G_OPTION_ARG_NONE, &o->keep_length, "hashed names as long as the originals",
         NULL},
        {"keep-ext", 0, 0, G_OPTION_ARG_NONE, &o->keep_ext, "keep extensions", NULL},
        {"length", 0, 0, G_OPTION_ARG_INT, &o->length, "hashed name length (1..255)", "N"},
        {"hash-root", 0, 0, G_OPTION_ARG_NONE, &o->hash_root, "map uid and gid 0 too", NULL},
        {"id-lo", 0, 0, G_OPTION_ARG_INT64, &o->lo, "lowest uid or gid", "LO"},
        {"id-hi", 0, 0, G_OPTION_ARG_INT64, &o->hi, "highest uid or gid", "HI"},
        {"map-fd", 0, 0, G_OPTION_ARG_INT, &o->map_fd, "the map to read", "FD"},
        {"map-out-fd", 0, 0, G_OPTION_ARG_INT, &o->map_out_fd, "where the map goes", "FD"},
        {"map-label", 0, 0, G_OPTION_ARG_STRING, &o->map_label, "the map's name in messages", "NAME"},
        {"trace-label", 0, 0, G_OPTION_ARG_STRING, &o->trace_label, "the records' name (stdin)", "NAME"},
        {"piped", 0, 0, G_OPTION_ARG_NONE, &o->piped, "records come from tbbt-dump (record N)", NULL},
        {NULL, 0, 0, 0, NULL, NULL, NULL},
    };
    GOptionContext *ctx = g_option_context_new("- the hot path of tbbt-anonymize (run by it)");
    g_option_context_add_main_entries(ctx, ent, NULL);
    GError *err = NULL;
    int bad = !g_option_context_parse(ctx, &argc, &argv, &err) || argc != 1 || o->key_fd < 0 ||
              o->length < 1 || o->length > 255 || o->lo < 1 || o->lo > o->hi || o->hi >= ((gint64)1 << 32) ||
              (o->map_fd >= 0) != (o->map_out_fd >= 0) || (o->map_fd >= 0 && !o->map_label);
    if (bad) {
        fprintf(stderr, "tbbt-xanon: %s (run by tbbt-anonymize)\n", err ? err->message : "bad usage");
        exit(2);
    }
    g_option_context_free(ctx);
}

/* Runs the map then the records, then reports the mapping's counts. */
int main(int argc, char **argv) {
    tbbt_oom_on_failure("tbbt-anonymize"); /* a failed allocation: one line, exit 1 (lib/oom.h) */
    static struct xa_opts o;               /* its strings (GOption's copies) live until exit */
    xa_parse(argc, argv, &o);
    GBytes *key = xa_read_key(&o);
    gsize kl;
    const guchar *kp = g_bytes_get_data(key, &kl);
    /* static: the tables live until the process ends, right after (freeing
     * each entry, shared between memo and taken, would only cost time) */
    static struct xa x;
    x = (struct xa){.o = &o,
                    .err = g_string_new(NULL),
                    .dom = g_string_new(NULL),
                    .cand = g_string_new(NULL),
                    .prefix = g_string_new(NULL),
                    .hmbuf = g_string_new(NULL),
                    .mpath = g_string_new(NULL),
                    .mtarget = g_string_new(NULL),
                    .mid = g_string_new(NULL),
                    .tok = g_array_new(FALSE, FALSE, sizeof(struct xa_str))};
    x.hmac = g_hmac_new(G_CHECKSUM_SHA256, kp, kl);
    for (int k = 0; k < XA_KINDS; k++) {
        tbbt_htab_init(&x.memo[k], xa_eq_in);
        tbbt_htab_init(&x.taken[k], xa_eq_out);
    }
    tbbt_htab_init(&x.keep, xa_eq_in);
    if (o.map_fd >= 0) xa_status(o.status_fd, "map %" G_GUINT64_FORMAT "\n", (guint64)xa_do_map(&x, &o));
    if (o.trace_label) xa_status(o.status_fd, "trace %" G_GUINT64_FORMAT "\n", (guint64)xa_do_trace(&x, &o));
    xa_status(o.status_fd, "counts %zu %zu %zu %zu %" G_GUINT64_FORMAT "\n", x.memo[XA_NAME].n,
              x.memo[XA_UID].n, x.memo[XA_GID].n, x.memo[XA_HOST].n, (guint64)x.clashes);
    return 0;
}
