/* manifest.c -- the init manifest's text form (see manifest.h). */
#include "manifest.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "linew.h"
#include "rectext.h"

#define MF_VERSION_LINE "# tbbt-manifest 1"

struct tbbt_mfw {
    struct tbbt_linew *w;
    GString *line;
};

struct tbbt_mfw *tbbt_mfw_open(const char *path, const char *const *header, char *err, size_t errlen) {
    struct tbbt_linew *lw = tbbt_linew_open(path, MF_VERSION_LINE, err, errlen);
    if (!lw) return NULL;
    struct tbbt_mfw *w = g_new0(struct tbbt_mfw, 1);
    w->w = lw;
    w->line = g_string_sized_new(256);
    for (const char *const *h = header; h && h[0] && h[1]; h += 2)
        tbbt_linew_comment(lw, h[0], h[1]);
    return w;
}

int tbbt_mfw_put(struct tbbt_mfw *w, const struct tbbt_mf_entry *e) {
    g_string_printf(w->line, "%u %llu ", e->clone, (unsigned long long)e->id);
    for (uint32_t i = 0; i < e->fhlen; i++)
        g_string_append_printf(w->line, "%02x", e->fh[i]);
    g_string_append_c(w->line, ' ');
    tbbt_text_qstr(w->line, e->path, strlen(e->path));
    return tbbt_linew_put(w->w, w->line);
}

int tbbt_mfw_close(struct tbbt_mfw *w, char *err, size_t errlen) {
    int rc = tbbt_linew_close(w->w, err, errlen);
    g_string_free(w->line, TRUE);
    g_free(w);
    return rc;
}

void tbbt_mfw_abort(struct tbbt_mfw *w) {
    if (!w) return;
    tbbt_linew_abort(w->w);
    g_string_free(w->line, TRUE);
    g_free(w);
}

struct tbbt_mfr {
    char *path;
    FILE *f;
    char *line;
    size_t cap;
    uint64_t lineno, n;
    GHashTable *header; /* key -> value (owned) */
    GString *pathbuf;
    int ended;
};

struct tbbt_mfr *tbbt_mfr_open(const char *path, char *err, size_t errlen) {
    FILE *f = fopen(path, "r");
    if (!f) {
        g_snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return NULL;
    }
    struct tbbt_mfr *r = g_new0(struct tbbt_mfr, 1);
    r->path = g_strdup(path);
    r->f = f;
    r->header = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    r->pathbuf = g_string_new(NULL);
    return r;
}

const char *tbbt_mfr_header(const struct tbbt_mfr *r, const char *key) {
    return g_hash_table_lookup(r->header, key);
}

static int mfail(struct tbbt_mfr *r, char *err, size_t errlen, const char *what) {
    g_snprintf(err, errlen, "%s:%llu: %s", r->path, (unsigned long long)r->lineno, what);
    return -1;
}

/* A comment line: version, end, or "# key value". 1 for the end line. */
static int mf_comment(struct tbbt_mfr *r, const char *l, char *err, size_t errlen) {
    if (r->lineno == 1)
        return strcmp(l, MF_VERSION_LINE) == 0 ? 0 : mfail(r, err, errlen, "not a tbbt-manifest 1 file");
    unsigned long long n;
    char extra;
    if (sscanf(l, "# end %llu%c", &n, &extra) == 1)
        return n == r->n ? 1 : mfail(r, err, errlen, "end line does not match the number of entries");
    const char *k = l + 1 + (l[1] == ' '), *sp = strchr(k, ' ');
    if (sp) g_hash_table_replace(r->header, g_strndup(k, (gsize)(sp - k)), g_strdup(sp + 1));
    return 0;
}

/* Parses "CLONE ID FH PATH". */
static int mf_entry(struct tbbt_mfr *r, char *l, size_t len, struct tbbt_mf_entry *e, char *err,
                    size_t errlen) {
    char *p = l, *end;
    unsigned long c = strtoul(p, &end, 10);
    if (end == p || *end != ' ' || c > UINT32_MAX) return mfail(r, err, errlen, "column 1: bad clone");
    p = end + 1;
    unsigned long long id = strtoull(p, &end, 10);
    if (end == p || *end != ' ' || id == 0) return mfail(r, err, errlen, "column 2: bad TBBT-ID");
    p = end + 1;
    size_t hex = strspn(p, "0123456789abcdef");
    if (hex == 0 || hex % 2 || hex / 2 > TBBT_FH_MAX || p[hex] != ' ')
        return mfail(r, err, errlen, "column 3: bad file handle");
    for (size_t i = 0; i < hex / 2; i++)
        e->fh[i] = (uint8_t)(g_ascii_xdigit_value(p[2 * i]) << 4 | g_ascii_xdigit_value(p[2 * i + 1]));
    e->fhlen = (uint32_t)(hex / 2);
    p += hex + 1;
    const char *q = p;
    size_t n;
    g_string_set_size(r->pathbuf, (size_t)(l + len - p) + 1);
    if (tbbt_text_scan_qstr(&q, l + len, r->pathbuf->str, &n) < 0 || q != l + len)
        return mfail(r, err, errlen, "column 4: bad quoted path");
    r->pathbuf->str[n] = 0;
    e->clone = (uint32_t)c, e->id = id, e->path = r->pathbuf->str;
    return 0;
}

int tbbt_mfr_next(struct tbbt_mfr *r, struct tbbt_mf_entry *e, char *err, size_t errlen) {
    for (;;) {
        ssize_t len = getline(&r->line, &r->cap, r->f);
        if (len < 0) {
            r->lineno++;
            return r->ended ? 0 : mfail(r, err, errlen, "incomplete manifest (no end line)");
        }
        r->lineno++;
        if (r->ended) return mfail(r, err, errlen, "data after the end line");
        if (len && r->line[len - 1] == '\n') r->line[--len] = 0;
        if (r->lineno == 1 || r->line[0] == '#') {
            int rc = mf_comment(r, r->line, err, errlen);
            if (rc < 0) return -1;
            r->ended = rc == 1;
            continue;
        }
        if (mf_entry(r, r->line, (size_t)len, e, err, errlen) < 0) return -1;
        r->n++;
        return 1;
    }
}

void tbbt_mfr_close(struct tbbt_mfr *r) {
    if (!r) return;
    fclose(r->f);
    free(r->line);
    g_hash_table_destroy(r->header);
    g_string_free(r->pathbuf, TRUE);
    g_free(r->path);
    g_free(r);
}
