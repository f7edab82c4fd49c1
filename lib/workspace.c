/* workspace.c -- the workspace file of the current directory (see workspace.h). */
#include "workspace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "nfsconn.h"
#include "outfile.h"
#include "unconst.h"

#define WS_MAX_BYTES (1 << 20) /* a workspace file is a few lines; more is not one */

static void trace_free(gpointer p) {
    struct tbbt_ws_trace *t = p;
    g_free(t->records), g_free(t->map), g_free(t);
}

static void server_free(gpointer p) {
    struct tbbt_ws_server *s = p;
    g_free(s->trace), g_free(s->server), g_free(s->run), g_free(s->manifest), g_free(s);
}

static struct tbbt_ws *ws_new(void) {
    struct tbbt_ws *ws = g_new0(struct tbbt_ws, 1);
    ws->traces = g_ptr_array_new_with_free_func(trace_free);
    ws->servers = g_ptr_array_new_with_free_func(server_free);
    return ws;
}

/* Contract in workspace.h. */
void tbbt_ws_free(struct tbbt_ws *ws) {
    if (!ws) return;
    g_ptr_array_free(ws->traces, TRUE);
    g_ptr_array_free(ws->servers, TRUE);
    g_free(ws);
}

/* A port field's value: 0..65535, or -1. */
static int port_value(const char *v) {
    guint64 n;
    if (!g_ascii_string_to_unsigned(v, 10, 0, 65535, &n, NULL)) return -1;
    return (int)n;
}

/* One "server" line's fields (after the kind) into a new server; NULL
 * with the reason in why. */
static struct tbbt_ws_server *parse_server(char **f, char *why, size_t n) {
    struct tbbt_ws_server *s = g_new0(struct tbbt_ws_server, 1);
    for (; *f; f++) {
        char *eq = strchr(*f, '=');
        const char *v = eq ? eq + 1 : NULL;
        if (eq) *eq = 0;
        char **dst = !strcmp(*f, "trace")      ? &s->trace
                     : !strcmp(*f, "server")   ? &s->server
                     : !strcmp(*f, "run")      ? &s->run
                     : !strcmp(*f, "manifest") ? &s->manifest
                                               : NULL;
        int *port = !strcmp(*f, "nfs-port") ? &s->nfsport : !strcmp(*f, "mount-port") ? &s->mountport : NULL;
        if (!v || !*v || (!dst && !port)) {
            g_snprintf(
                why, n,
                "server line: \"%s\" is not trace=, server=, run=, manifest=, nfs-port= or mount-port=", *f);
            goto bad;
        }
        if (port && (*port = port_value(v)) < 0) {
            g_snprintf(why, n, "server line: %s=%s is not a port", *f, v);
            goto bad;
        }
        if (dst) g_free(*dst), *dst = g_strdup(v);
    }
    if (!s->trace || !s->server || !s->run || !s->manifest) {
        g_snprintf(why, n, "server line without trace=, server=, run= or manifest=");
        goto bad;
    }
    return s;
bad:
    server_free(s);
    return NULL;
}

/* One "trace" line's fields into a new trace; NULL with why. */
static struct tbbt_ws_trace *parse_trace(char **f, char *why, size_t n) {
    struct tbbt_ws_trace *t = g_new0(struct tbbt_ws_trace, 1);
    for (; *f; f++) {
        if (g_str_has_prefix(*f, "records=") && (*f)[8]) {
            g_free(t->records), t->records = g_strdup(*f + 8);
        } else if (g_str_has_prefix(*f, "map=") && (*f)[4]) {
            g_free(t->map), t->map = g_strdup(*f + 4);
        } else {
            g_snprintf(why, n, "trace line: \"%s\" is not records=PATH or map=PATH", *f);
            trace_free(t);
            return NULL;
        }
    }
    if (!t->records || !t->map) {
        g_snprintf(why, n, "trace line without records= or map=");
        trace_free(t);
        return NULL;
    }
    return t;
}

/* Parses one line (number ln) into ws. Returns 0, or -1 with why. */
static int parse_line(struct tbbt_ws *ws, char *line, int ln, char *why, size_t n) {
    if (!*line || *line == '#') return 0;
    char **f = g_strsplit(line, "\t", -1);
    int rc = 0;
    if (!strcmp(f[0], "trace")) {
        struct tbbt_ws_trace *t = parse_trace(f + 1, why, n);
        if (!t)
            rc = -1;
        else {
            t->line = ln;
            for (guint i = 0; i < ws->traces->len; i++) /* the same records twice: the later line counts */
                if (!strcmp(((struct tbbt_ws_trace *)ws->traces->pdata[i])->records, t->records))
                    g_ptr_array_remove_index(ws->traces, i--);
            g_ptr_array_add(ws->traces, t);
        }
    } else if (!strcmp(f[0], "server")) {
        struct tbbt_ws_server *s = parse_server(f + 1, why, n);
        if (!s)
            rc = -1;
        else
            s->line = ln, g_ptr_array_add(ws->servers, s);
    } else {
        g_snprintf(why, n, "\"%.40s\" is not a trace or server line", f[0]);
        rc = -1;
    }
    g_strfreev(f);
    return rc;
}

/* g_ptr_array_sort's comparison of two strings (it passes their addresses). */
static gint by_name(gconstpointer a, gconstpointer b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* No workspace file: the directory's traces as design.md has them, every
 * NAME.tbbt that has its NAME.hmap beside it, in name order. Returns ws. */
static struct tbbt_ws *scan(struct tbbt_ws *ws) {
    GDir *d = g_dir_open(".", 0, NULL);
    const char *n;
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    while (d && (n = g_dir_read_name(d)))
        if (g_str_has_suffix(n, ".tbbt") && strlen(n) > 5) g_ptr_array_add(names, g_strdup(n));
    if (d) g_dir_close(d);
    g_ptr_array_sort(names, by_name);
    for (guint i = 0; i < names->len; i++) {
        const char *name = names->pdata[i];
        char *map = g_strdup_printf("%.*s.hmap", (int)strlen(name) - 5, name);
        if (g_file_test(name, G_FILE_TEST_IS_REGULAR) && g_file_test(map, G_FILE_TEST_IS_REGULAR)) {
            struct tbbt_ws_trace *t = g_new0(struct tbbt_ws_trace, 1);
            t->records = g_strdup(name), t->map = map;
            g_ptr_array_add(ws->traces, t);
        } else {
            g_free(map);
        }
    }
    g_ptr_array_free(names, TRUE);
    return ws;
}

/* Contract in workspace.h. */
struct tbbt_ws *tbbt_ws_load(char *err, size_t errlen) {
    struct tbbt_ws *ws = ws_new();
    gchar *text = NULL;
    gsize len = 0;
    GError *ge = NULL;
    struct stat sb;
    if (stat(TBBT_WS_FILE, &sb) != 0 && errno == ENOENT) return scan(ws);
    if (stat(TBBT_WS_FILE, &sb) == 0 && (!S_ISREG(sb.st_mode) || sb.st_size > WS_MAX_BYTES)) {
        g_snprintf(err, errlen, "%s: not a workspace file (%s)", TBBT_WS_FILE,
                   S_ISREG(sb.st_mode) ? "too large" : "not a regular file");
        goto fail;
    }
    if (!g_file_get_contents(TBBT_WS_FILE, &text, &len, &ge)) {
        g_snprintf(err, errlen, "%s: cannot read: %s", TBBT_WS_FILE, ge->message);
        g_error_free(ge);
        goto fail;
    }
    ws->exists = TRUE;
    if (memchr(text, 0, len)) {
        g_snprintf(err, errlen, "%s: not a workspace file (binary data)", TBBT_WS_FILE);
        goto fail;
    }
    char **lines = g_strsplit(text, "\n", -1);
    int v = 0;
    char why[300];
    for (int i = 0; lines[i]; i++) {
        if (i == 0 && (sscanf(lines[0], "# tbbt-workspace %d", &v) != 1 || v != TBBT_WS_VERSION)) {
            if (v > 0)
                g_snprintf(err, errlen, "%s:1: workspace format %d; this tbbt reads format %d", TBBT_WS_FILE,
                           v, TBBT_WS_VERSION);
            else
                g_snprintf(err, errlen, "%s:1: not a workspace file (no \"# tbbt-workspace %d\" line)",
                           TBBT_WS_FILE, TBBT_WS_VERSION);
            g_strfreev(lines);
            goto fail;
        }
        if (i > 0 && parse_line(ws, lines[i], i + 1, why, sizeof(why)) < 0) {
            g_snprintf(err, errlen, "%s:%d: %s", TBBT_WS_FILE, i + 1, why);
            g_strfreev(lines);
            goto fail;
        }
    }
    g_strfreev(lines);
    g_free(text);
    return ws;
fail:
    g_free(text);
    tbbt_ws_free(ws);
    return NULL;
}

/* Contract in workspace.h. */
int tbbt_ws_save(const struct tbbt_ws *ws, char *err, size_t errlen) {
    GString *s = g_string_new(NULL);
    g_string_append_printf(s, "# tbbt-workspace %d\n# tbbt's memory of this directory: docs/workspace.md\n",
                           TBBT_WS_VERSION);
    for (guint i = 0; i < ws->traces->len; i++) {
        const struct tbbt_ws_trace *t = ws->traces->pdata[i];
        g_string_append_printf(s, "trace\trecords=%s\tmap=%s\n", t->records, t->map);
    }
    for (guint i = 0; i < ws->servers->len; i++) {
        const struct tbbt_ws_server *v = ws->servers->pdata[i];
        g_string_append_printf(s, "server\ttrace=%s\tserver=%s\trun=%s\tmanifest=%s", v->trace, v->server,
                               v->run, v->manifest);
        if (v->nfsport) g_string_append_printf(s, "\tnfs-port=%d", v->nfsport);
        if (v->mountport) g_string_append_printf(s, "\tmount-port=%d", v->mountport);
        g_string_append_c(s, '\n');
    }
    GError *ge = NULL;
    int rc = tbbt_out_set_contents(TBBT_WS_FILE, s->str, (gssize)s->len, &ge) ? 0 : -1;
    if (rc < 0) {
        g_snprintf(err, errlen, "%s: %s", TBBT_WS_FILE, ge->message);
        g_error_free(ge);
    }
    g_string_free(s, TRUE);
    return rc;
}

/* Contract in workspace.h. */
gboolean tbbt_ws_same_path(const char *a, const char *b) {
    char *ca = g_canonicalize_filename(a, NULL), *cb = g_canonicalize_filename(b, NULL);
    gboolean same = !strcmp(ca, cb);
    g_free(ca), g_free(cb);
    return same;
}

/* -1 with err when v cannot be a field value (a tab, a newline, empty). */
static int writable(const char *v, char *err, size_t errlen) {
    if (*v && !strpbrk(v, "\t\n\r")) return 0;
    g_snprintf(err, errlen, "%s: \"%s\": a name with a tab or a newline cannot be recorded", TBBT_WS_FILE, v);
    return -1;
}

/* Contract in workspace.h. */
int tbbt_ws_add_trace(struct tbbt_ws *ws, const char *records, const char *map, char *err, size_t errlen) {
    if (writable(records, err, errlen) < 0 || writable(map, err, errlen) < 0) return -1;
    for (guint i = 0; i < ws->traces->len; i++)
        if (tbbt_ws_same_path(((struct tbbt_ws_trace *)ws->traces->pdata[i])->records, records))
            g_ptr_array_remove_index(ws->traces, i--);
    struct tbbt_ws_trace *t = g_new0(struct tbbt_ws_trace, 1);
    t->records = g_strdup(records), t->map = g_strdup(map);
    g_ptr_array_add(ws->traces, t);
    return 0;
}

/* Contract in workspace.h. */
int tbbt_ws_add_server(struct tbbt_ws *ws, const struct tbbt_ws_server *s, char *err, size_t errlen) {
    if (writable(s->trace, err, errlen) < 0 || writable(s->server, err, errlen) < 0 ||
        writable(s->run, err, errlen) < 0 || writable(s->manifest, err, errlen) < 0)
        return -1;
    const struct tbbt_ws_server *old;
    while ((old = tbbt_ws_find_server(ws, s->trace, s->server, s->nfsport)))
        g_ptr_array_remove(ws->servers, tbbt_unconst(old));
    struct tbbt_ws_server *n = g_new0(struct tbbt_ws_server, 1);
    n->trace = g_strdup(s->trace), n->server = g_strdup(s->server), n->run = g_strdup(s->run);
    n->manifest = g_strdup(s->manifest), n->nfsport = s->nfsport, n->mountport = s->mountport;
    g_ptr_array_add(ws->servers, n);
    return 0;
}

/* Contract in workspace.h. */
const struct tbbt_ws_trace *tbbt_ws_find_trace(const struct tbbt_ws *ws, const char *path) {
    if (!ws->exists) return NULL; /* only a workspace's file makes a named trace its own */
    for (guint i = 0; i < ws->traces->len; i++) {
        const struct tbbt_ws_trace *t = ws->traces->pdata[i];
        if (tbbt_ws_same_path(t->records, path) || tbbt_ws_same_path(t->map, path)) return t;
    }
    return NULL;
}

/* Contract in workspace.h. */
const struct tbbt_ws_trace *tbbt_ws_pick_trace(const struct tbbt_ws *ws, const char *choose, char *err,
                                               size_t errlen) {
    if (ws->traces->len == 1) return ws->traces->pdata[0];
    if (!ws->exists && ws->traces->len == 0) {
        g_snprintf(err, errlen,
                   "no trace given, and no workspace here (no %s, no NAME.tbbt with its NAME.hmap in the "
                   "current directory): run tbbt-prep CAPTURE here first, or %s",
                   TBBT_WS_FILE, choose);
    } else if (ws->traces->len == 0) {
        g_snprintf(err, errlen, "no trace yet in this workspace (%s): run tbbt-prep CAPTURE first, or %s",
                   TBBT_WS_FILE, choose);
    } else {
        GString *s = g_string_new(NULL);
        for (guint i = 0; i < ws->traces->len; i++)
            g_string_append_printf(s, "%s%s", i ? ", " : "",
                                   ((struct tbbt_ws_trace *)ws->traces->pdata[i])->records);
        g_snprintf(err, errlen, "%u traces in this %s: %s; %s", ws->traces->len,
                   ws->exists ? "workspace (" TBBT_WS_FILE ")" : "directory", s->str, choose);
        g_string_free(s, TRUE);
    }
    return NULL;
}

/* Contract in workspace.h. */
int tbbt_ws_servers_of(const struct tbbt_ws *ws, const char *records, const struct tbbt_ws_server **out,
                       int max) {
    int n = 0;
    for (guint i = 0; i < ws->servers->len; i++) {
        const struct tbbt_ws_server *s = ws->servers->pdata[i];
        if (!tbbt_ws_same_path(s->trace, records)) continue;
        if (n < max) out[n] = s;
        n++;
    }
    return n;
}

/* Contract in workspace.h. */
const struct tbbt_ws_server *tbbt_ws_find_server(const struct tbbt_ws *ws, const char *records,
                                                 const char *spec, int nfsport) {
    struct tbbt_nfs_server want, have;
    char e[256];
    if (tbbt_nfs_server_parse(spec, nfsport, 0, &want, e, sizeof(e)) < 0) return NULL;
    for (guint i = 0; i < ws->servers->len; i++) {
        const struct tbbt_ws_server *s = ws->servers->pdata[i];
        if (!tbbt_ws_same_path(s->trace, records)) continue;
        if (tbbt_nfs_server_parse(s->server, s->nfsport, s->mountport, &have, e, sizeof(e)) < 0) continue;
        if (strcmp(want.host, have.host) || strcmp(want.export, have.export)) continue;
        if (want.nfsport && have.nfsport && want.nfsport != have.nfsport) continue;
        return s;
    }
    return NULL;
}

/* -1 with "tbbt-workspace:LINE: PATH: no such file (what)" unless path is
 * there. */
static int exists(const char *path, int line, const char *what, char *err, size_t errlen) {
    struct stat sb;
    if (stat(path, &sb) == 0) return 0;
    int e = errno;
    g_snprintf(err, errlen, "%s:%d: %s: %s (%s)", TBBT_WS_FILE, line, path, g_strerror(e), what);
    return -1;
}

/* Contract in workspace.h. */
int tbbt_ws_check_trace(const struct tbbt_ws_trace *t, char *err, size_t errlen) {
    const char *what = "tbbt-prep it again, or remove the line";
    if (exists(t->records, t->line, what, err, errlen) < 0) return -1;
    return exists(t->map, t->line, what, err, errlen);
}

/* Contract in workspace.h. */
int tbbt_ws_check_server(const struct tbbt_ws_server *s, char *err, size_t errlen) {
    return exists(s->manifest, s->line, "tbbt-init the server again, or remove the line", err, errlen);
}

/* Contract in workspace.h. */
char *tbbt_ws_server_tag(const char *spec, int nfsport) {
    struct tbbt_nfs_server s;
    char e[256];
    memset(&s, 0, sizeof(s));
    GString *t = g_string_new(NULL);
    if (tbbt_nfs_server_parse(spec, nfsport, 0, &s, e, sizeof(e)) == 0)
        g_string_printf(t, "%s%s", s.host, s.export);
    else
        g_string_assign(t, spec);
    for (gsize i = 0; i < t->len; i++) {
        char c = t->str[i];
        if (c == '/')
            t->str[i] = '-';
        else if (!g_ascii_isalnum(c) && c != '.' && c != '_' && c != '-')
            t->str[i] = '_';
    }
    while (t->len && t->str[t->len - 1] == '-')
        g_string_truncate(t, t->len - 1);
    if (s.nfsport) g_string_append_printf(t, "-p%d", s.nfsport);
    return g_string_free(t, FALSE);
}

/* The records' base name without .tbbt. */
static char *trace_name(const char *records) {
    char *b = g_path_get_basename(records);
    if (g_str_has_suffix(b, ".tbbt") && strlen(b) > 5) b[strlen(b) - 5] = 0;
    return b;
}

/* Contract in workspace.h. */
char *tbbt_ws_manifest_name(const char *records, const char *spec, int nfsport) {
    char *n = trace_name(records), *t = tbbt_ws_server_tag(spec, nfsport);
    char *m = g_strdup_printf("%s.%s.manifest", n, t);
    g_free(n), g_free(t);
    return m;
}

/* Contract in workspace.h. */
char *tbbt_ws_result_name(const char *records, const char *spec, int nfsport, const char *order,
                          double speedup, char *err, size_t errlen) {
    if (g_mkdir_with_parents(TBBT_WS_RESULTS, 0777) != 0) {
        g_snprintf(err, errlen, "%s: cannot make the directory: %s", TBBT_WS_RESULTS, g_strerror(errno));
        return NULL;
    }
    char *n = trace_name(records), *t = tbbt_ws_server_tag(spec, nfsport), sp[32], when[32];
    if (speedup > 0)
        g_snprintf(sp, sizeof(sp), "x%g", speedup);
    else
        g_strlcpy(sp, "full", sizeof(sp));
    time_t now = time(NULL);
    struct tm tm;
    strftime(when, sizeof(when), "%Y%m%d-%H%M%S", localtime_r(&now, &tm));
    char *base = g_strdup_printf("%s/%s.%s.%s.%s.%s", TBBT_WS_RESULTS, n, t, order, sp, when);
    char *path = g_strdup_printf("%s.json", base);
    for (int i = 2; g_file_test(path, G_FILE_TEST_EXISTS); i++) {
        g_free(path);
        path = g_strdup_printf("%s-%d.json", base, i);
    }
    g_free(n), g_free(t), g_free(base);
    return path;
}
