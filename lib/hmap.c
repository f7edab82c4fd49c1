/* hmap.c -- the hierarchy map's text form: format, parse, a writer that
 * renames into place, and a streaming reader that checks the order. */
#include "hmap.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linew.h"
#include "rectext.h"

#define HMAP_VERSION_LINE "# tbbt-hmap 1"

static const char *const type_names[] = {"none", "reg", "dir", "blk", "chr", "lnk", "sock", "fifo"};

const char *tbbt_hm_type_name(uint32_t type) {
    return type < sizeof(type_names) / sizeof(type_names[0]) ? type_names[type] : "none";
}

uint32_t tbbt_hm_type_parse(const char *s, size_t len) {
    for (uint32_t t = 1; t < sizeof(type_names) / sizeof(type_names[0]); t++)
        if (strlen(type_names[t]) == len && memcmp(type_names[t], s, len) == 0) return t;
    return 0;
}

/* Appends a decimal number, or "-" when not known. */
static void fmt_opt(GString *o, int known, uint64_t v) {
    if (known)
        tbbt_text_u64(o, v);
    else
        g_string_append_c(o, '-');
}

void tbbt_hm_format(GString *o, const struct tbbt_hm_entry *e) {
    tbbt_text_u64(o, e->id);
    g_string_append_c(o, ' ');
    tbbt_text_u64(o, e->parent);
    g_string_append_c(o, ' ');
    if (e->create == 0)
        g_string_append_c(o, '0');
    else
        tbbt_text_time(o, e->create);
    g_string_append_c(o, ' ');
    if (e->del == TBBT_HM_NEVER)
        g_string_append_c(o, '-');
    else
        tbbt_text_time(o, e->del);
    g_string_append_c(o, ' ');
    g_string_append(o, tbbt_hm_type_name(e->type));
    g_string_append_c(o, ' ');
    fmt_opt(o, e->known & TBBT_HM_SIZE, e->size);
    if (e->known & TBBT_HM_MODE) {
        g_string_append(o, " 0");
        tbbt_text_oct(o, e->mode & 07777);
        g_string_append_c(o, ' ');
    } else
        g_string_append(o, " - ");
    fmt_opt(o, e->known & TBBT_HM_UID, e->uid);
    g_string_append_c(o, ' ');
    fmt_opt(o, e->known & TBBT_HM_GID, e->gid);
    g_string_append_c(o, ' ');
    g_string_append_c(o, e->origin ? e->origin : TBBT_HM_TRACE);
    g_string_append_c(o, ' ');
    tbbt_text_qstr(o, e->path, strlen(e->path));
    g_string_append_c(o, ' ');
    if (e->target)
        tbbt_text_qstr(o, e->target, strlen(e->target));
    else
        g_string_append_c(o, '-');
}

/* Parse state: the line, the current token, the column. */
struct hp {
    const char *p, *end, *tb, *te;
    int col;
    char *err;
    size_t errlen;
};

static int hfail(struct hp *c, const char *what) {
    g_snprintf(c->err, c->errlen, "column %d: %s", c->col, what);
    return -1;
}

/* The line ended where column col + 1 was expected: that column is the
 * one named (htoken counts only the columns it found). */
static int hmissing(struct hp *c) {
    c->col++;
    return hfail(c, "missing column");
}

/* Moves to the next space-separated token; returns 0 at the end. */
static int htoken(struct hp *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
        c->p++;
    if (c->p == c->end) return 0;
    c->tb = c->p;
    while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
        c->p++;
    c->te = c->p;
    c->col++;
    return 1;
}

/* Parses the whole token as a decimal u64 no larger than max. */
static int hnum(struct hp *c, uint64_t max, uint64_t *v) {
    uint64_t x = 0;
    if (c->tb == c->te) return -1;
    for (const char *q = c->tb; q < c->te; q++) {
        if (*q < '0' || *q > '9') return -1;
        unsigned d = (unsigned)(*q - '0');
        if (x > (max - d) / 10) return -1;
        x = x * 10 + d;
    }
    *v = x;
    return 0;
}

/* Optional decimal column: "-" clears bit in *known. */
static int hopt(struct hp *c, uint64_t max, uint64_t *v, uint32_t bit, uint32_t *known) {
    if (!htoken(c)) return hmissing(c);
    if (c->te - c->tb == 1 && *c->tb == '-') return 0;
    if (hnum(c, max, v) < 0) return hfail(c, "not a number");
    *known |= bit;
    return 0;
}

/* Time column: "0" (create: before the trace), "-" (delete: never) or
 * seconds.nanoseconds. A delete time of "0" is refused: it would be
 * written back as 0.000000000, which no reader takes. */
static int htime(struct hp *c, int is_delete, int64_t *t) {
    if (!htoken(c)) return hmissing(c);
    if (c->te - c->tb == 1 && *c->tb == '0' && !is_delete) return *t = 0, 0;
    if (c->te - c->tb == 1 && *c->tb == '-' && is_delete) return *t = TBBT_HM_NEVER, 0;
    if (tbbt_text_parse_time(c->tb, c->te, t) < 0 || *t <= 0) return hfail(c, "bad time");
    return 0;
}

/* Quoted string column into buf at offset *at (NUL-terminated); "-" when
 * allowed gives *at = -1. */
static int hstr(struct hp *c, GString *buf, int allow_none, gssize *at) {
    if (!htoken(c)) return hmissing(c);
    if (allow_none && c->te - c->tb == 1 && *c->tb == '-') return *at = -1, 0;
    size_t start = buf->len, n;
    g_string_set_size(buf, start + (size_t)(c->te - c->tb) + 1);
    const char *q = c->tb;
    if (tbbt_text_scan_qstr(&q, c->te, buf->str + start, &n) < 0 || q != c->te)
        return hfail(c, "bad quoted string");
    buf->str[start + n] = 0;
    g_string_set_size(buf, start + n + 1);
    *at = (gssize)start;
    return 0;
}

/* Parses the id, parent, times and type columns. */
static int parse_head(struct hp *c, struct tbbt_hm_entry *e) {
    uint64_t v;
    if (!htoken(c)) return hmissing(c);
    if (hnum(c, UINT64_MAX, &v) < 0 || v == 0) return hfail(c, "bad id");
    e->id = v;
    if (!htoken(c)) return hmissing(c);
    if (hnum(c, UINT64_MAX, &v) < 0) return hfail(c, "bad parent id");
    e->parent = v;
    if (htime(c, 0, &e->create) < 0 || htime(c, 1, &e->del) < 0) return -1;
    if (e->del != TBBT_HM_NEVER && e->del < e->create) return hfail(c, "deleted before created");
    if (!htoken(c)) return hmissing(c);
    if (!(e->type = tbbt_hm_type_parse(c->tb, (size_t)(c->te - c->tb)))) return hfail(c, "bad type");
    return 0;
}

/* Parses the mode column (octal or "-"). */
static int parse_mode(struct hp *c, struct tbbt_hm_entry *e) {
    if (!htoken(c)) return hmissing(c);
    if (c->te - c->tb == 1 && *c->tb == '-') return 0;
    uint32_t m = 0;
    for (const char *q = c->tb; q < c->te; q++) {
        if (*q < '0' || *q > '7' || m > 07777) return hfail(c, "bad mode");
        m = m * 8 + (uint32_t)(*q - '0');
    }
    if (m > 07777) return hfail(c, "bad mode");
    e->mode = m;
    e->known |= TBBT_HM_MODE;
    return 0;
}

int tbbt_hm_parse(const char *line, size_t len, struct tbbt_hm_entry *e, GString *buf, char *err,
                  size_t errlen) {
    struct hp c = {.p = line, .end = line + len, .err = err, .errlen = errlen};
    while (c.end > c.p && (c.end[-1] == '\n' || c.end[-1] == '\r'))
        c.end--;
    memset(e, 0, sizeof(*e));
    g_string_truncate(buf, 0);
    uint64_t v = 0;
    if (parse_head(&c, e) < 0 || hopt(&c, UINT64_MAX, &e->size, TBBT_HM_SIZE, &e->known) < 0 ||
        parse_mode(&c, e) < 0 || hopt(&c, UINT32_MAX, &v, TBBT_HM_UID, &e->known) < 0)
        return -1;
    e->uid = (uint32_t)v;
    v = 0;
    if (hopt(&c, UINT32_MAX, &v, TBBT_HM_GID, &e->known) < 0) return -1;
    e->gid = (uint32_t)v;
    if (!htoken(&c) || c.te - c.tb != 1 || !strchr("trpso", *c.tb)) return hfail(&c, "bad origin");
    e->origin = *c.tb;
    gssize path, target;
    if (hstr(&c, buf, 0, &path) < 0 || hstr(&c, buf, 1, &target) < 0) return -1;
    if (htoken(&c)) return hfail(&c, "unexpected column");
    e->path = buf->str + path;
    e->target = target >= 0 ? buf->str + target : NULL;
    if (buf->str[path] == 0) return c.col = 11, hfail(&c, "empty path");
    return 0;
}

/* ---- writer ---- */

struct tbbt_hmapw {
    struct tbbt_linew *w;
    GString *line;
};

struct tbbt_hmapw *tbbt_hmapw_open(const char *path, const char *comment, char *err, size_t errlen) {
    struct tbbt_linew *lw = tbbt_linew_open(path, HMAP_VERSION_LINE, err, errlen);
    if (!lw) return NULL;
    struct tbbt_hmapw *w = g_new0(struct tbbt_hmapw, 1);
    w->w = lw;
    w->line = g_string_sized_new(256);
    if (comment) {
        gchar **lines = g_strsplit(comment, "\n", -1);
        for (gchar **l = lines; *l; l++)
            if (**l) tbbt_linew_comment(lw, *l, NULL);
        g_strfreev(lines);
    }
    return w;
}

int tbbt_hmapw_put(struct tbbt_hmapw *w, const struct tbbt_hm_entry *e) {
    g_string_truncate(w->line, 0);
    tbbt_hm_format(w->line, e);
    return tbbt_linew_put(w->w, w->line);
}

int tbbt_hmapw_close(struct tbbt_hmapw *w, char *err, size_t errlen) {
    int rc = tbbt_linew_close(w->w, err, errlen);
    g_string_free(w->line, TRUE);
    g_free(w);
    return rc;
}

void tbbt_hmapw_abort(struct tbbt_hmapw *w) {
    if (!w) return;
    tbbt_linew_abort(w->w);
    g_string_free(w->line, TRUE);
    g_free(w);
}

/* ---- reader ---- */

struct tbbt_hmapr {
    char *path;
    FILE *f;
    char *line;
    size_t cap;
    uint64_t lineno, n;
    GString *buf, *comment;
    GHashTable *seen; /* IDs of the entries read so far */
    int ended;
};

struct tbbt_hmapr *tbbt_hmapr_open(const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        g_snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct tbbt_hmapr *r = g_new0(struct tbbt_hmapr, 1);
    r->path = g_strdup(path);
    r->f = f;
    r->buf = g_string_new(NULL);
    r->comment = g_string_new(NULL);
    r->seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    return r;
}

/* Sets "FILE:LINE: what" in err; returns -1. */
static int rfail(struct tbbt_hmapr *r, char *err, size_t errlen, const char *what) {
    g_snprintf(err, errlen, "%s:%llu: %s", r->path, (unsigned long long)r->lineno, what);
    return -1;
}

/* Handles a comment line: the version line first, the end line last,
 * others kept. Returns 0, 1 for the end line, or -1. */
static int read_comment(struct tbbt_hmapr *r, const char *l, char *err, size_t errlen) {
    if (r->lineno == 1)
        return strcmp(l, HMAP_VERSION_LINE) == 0 ? 0 : rfail(r, err, errlen, "not a tbbt-hmap 1 file");
    unsigned long long n;
    char extra;
    if (sscanf(l, "# end %llu%c", &n, &extra) == 1) {
        if (n != r->n) return rfail(r, err, errlen, "end line does not match the number of entries");
        return 1;
    }
    if (r->comment->len) g_string_append_c(r->comment, '\n');
    g_string_append(r->comment, l[1] == ' ' ? l + 2 : l + 1);
    return 0;
}

int tbbt_hmapr_next(struct tbbt_hmapr *r, struct tbbt_hm_entry *e, char *err, size_t errlen) {
    for (;;) {
        ssize_t len = getline(&r->line, &r->cap, r->f);
        if (len < 0) {
            if (ferror(r->f)) return rfail(r, err, errlen, strerror(errno));
            if (!r->ended) return r->lineno++, rfail(r, err, errlen, "incomplete map (no end line)");
            return 0;
        }
        r->lineno++;
        if (r->ended) return rfail(r, err, errlen, "data after the end line");
        if (len > 0 && r->line[len - 1] == '\n') r->line[--len] = 0;
        if (memchr(r->line, 0, (size_t)len)) return rfail(r, err, errlen, "NUL byte in a line");
        if (r->lineno == 1 || r->line[0] == '#') {
            int rc = read_comment(r, r->line, err, errlen);
            if (rc < 0) return -1;
            if (rc == 1) r->ended = 1;
            continue;
        }
        if (len == 0) continue;
        char perr[200];
        if (tbbt_hm_parse(r->line, (size_t)len, e, r->buf, perr, sizeof(perr)) < 0)
            return rfail(r, err, errlen, perr);
        if (e->parent && !g_hash_table_contains(r->seen, &e->parent))
            return rfail(r, err, errlen, "parent not on an earlier line");
        if (!g_hash_table_contains(r->seen, &e->id)) {
            tbbt_id *k = g_new(tbbt_id, 1);
            *k = e->id;
            g_hash_table_add(r->seen, k);
        }
        r->n++;
        return 1;
    }
}

const char *tbbt_hmapr_comment(const struct tbbt_hmapr *r) {
    return r->comment->str;
}

void tbbt_hmapr_close(struct tbbt_hmapr *r) {
    if (!r) return;
    fclose(r->f);
    free(r->line);
    g_string_free(r->buf, TRUE);
    g_string_free(r->comment, TRUE);
    g_hash_table_destroy(r->seen);
    g_free(r->path);
    g_free(r);
}
