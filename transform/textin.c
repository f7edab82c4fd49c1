/* textin.c -- records from Ellard traces and the records' text form (see
 * textin.h). */
#include "textin.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "cfile.h"
#include "rectext.h"
#include "unconst.h"

#define SNIFF_LINES 10

const char *tbbt_input_kind_name(int kind) {
    switch (kind) {
    case TBBT_IN_CAPTURE: return "capture";
    case TBBT_IN_ELLARD: return "Ellard text";
    case TBBT_IN_RECTEXT: return "record text";
    default: return "unknown";
    }
}

/* Is this the start of a pcap or pcapng file? */
static int capture_magic(const unsigned char *b, size_t n) {
    static const unsigned char m[][4] = {{0xa1, 0xb2, 0xc3, 0xd4},
                                         {0xd4, 0xc3, 0xb2, 0xa1},
                                         {0xa1, 0xb2, 0x3c, 0x4d},
                                         {0x4d, 0x3c, 0xb2, 0xa1},
                                         {0x0a, 0x0d, 0x0d, 0x0a}};
    for (size_t i = 0; n >= 4 && i < sizeof(m) / sizeof(m[0]); i++)
        if (memcmp(b, m[i], 4) == 0) return 1;
    return 0;
}

/* Does the line look like an nfsdump line: "sec.usec HOST.PORT HOST.PORT
 * U|T C3|R3|C2|R2 ..."? */
static int ellard_line(const char *line) {
    gchar **t = g_strsplit_set(line, " \t", -1);
    char *tok[6];
    int n = 0;
    for (gchar **p = t; *p && n < 6; p++)
        if (**p) tok[n++] = *p;
    int ok = n == 6 && strchr(tok[0], '.') && strspn(tok[0], "0123456789.") == strlen(tok[0]) &&
             strchr(tok[1], '.') && strchr(tok[2], '.') && (!strcmp(tok[3], "U") || !strcmp(tok[3], "T")) &&
             strlen(tok[4]) == 2 && strchr("CR", tok[4][0]) && strchr("23", tok[4][1]);
    g_strfreev(t);
    return ok;
}

/* Does the line parse as a record in the text form? */
static int rectext_line(const char *line) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    char err[128];
    int ok = tbbt_rec_parse_text(&r, line, strlen(line), err, sizeof(err)) == 0;
    tbbt_rec_free(&r);
    return ok;
}

/* The kind of the first lines of a text stream. */
static int sniff_text(FILE *f) {
    char *line = NULL;
    size_t cap = 0;
    int kind = TBBT_IN_UNKNOWN;
    for (int seen = 0; seen < SNIFF_LINES && kind == TBBT_IN_UNKNOWN;) {
        ssize_t len = getline(&line, &cap, f);
        if (len < 0) break;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (len == 0 || line[0] == '#') continue;
        seen++;
        if (ellard_line(line))
            kind = TBBT_IN_ELLARD;
        else if (rectext_line(line))
            kind = TBBT_IN_RECTEXT;
    }
    free(line);
    return kind;
}

int tbbt_input_kind(const char *path, char *err, size_t errlen) {
    struct stat sb;
    if (strcmp(path, "-") == 0 || (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)))
        return TBBT_IN_CAPTURE; /* a stream reads once: not sniffed (--format names another kind) */
    FILE *f = tbbt_cfile_open(path, NULL, err, errlen);
    if (!f) return -1;
    unsigned char b[4];
    size_t n = fread(b, 1, sizeof(b), f);
    int kind;
    if (capture_magic(b, n)) {
        kind = TBBT_IN_CAPTURE;
    } else {
        fclose(f);
        if (!(f = tbbt_cfile_open(path, NULL, err, errlen))) return -1;
        kind = sniff_text(f);
    }
    fclose(f);
    return kind;
}

/* Reads record lines from f into sink; name says whose lines they are in
 * messages. Returns 0, or -1 with "NAME:LINE: ..." in err. */
static int read_lines(FILE *f, const char *name, tbbt_rec_sink sink, void *ctx, uint64_t *n, char *err,
                      size_t errlen) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    char *line = NULL, perr[200];
    size_t cap = 0;
    uint64_t lineno = 0;
    ssize_t len;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len == 0 || line[0] == '\n' || line[0] == '#') continue;
        if (tbbt_rec_parse_text(&r, line, (size_t)len, perr, sizeof(perr)) != 0) {
            g_snprintf(err, errlen, "%s:%llu: %s", name, (unsigned long long)lineno, perr);
            rc = -1;
        } else if (sink(ctx, &r) != 0) {
            g_snprintf(err, errlen, "%s: cannot write the records", name);
            rc = -1;
        } else {
            (*n)++;
        }
    }
    if (rc == 0 && ferror(f)) {
        g_snprintf(err, errlen, "%s: read error after line %llu", name, (unsigned long long)lineno);
        rc = -1;
    }
    free(line);
    tbbt_rec_free(&r);
    return rc;
}

/* The importer to run (g_free it): $TBBT_ELLARD, else tbbt-ellard beside
 * this program (installed: both in BINDIR; in a build tree CMake links the
 * sources' copy beside tbbt-prep), else the first on PATH, else the bare
 * name (the error then comes from perl). No path is compiled in, so an
 * installed tbbt-prep never reaches into a source tree. */
static char *importer(void) {
    const char *e = getenv("TBBT_ELLARD");
    if (e && *e) return g_strdup(e);
    char *self = g_file_read_link("/proc/self/exe", NULL);
    if (self) {
        char *dir = g_path_get_dirname(self);
        char *beside = g_build_filename(dir, "tbbt-ellard", NULL);
        g_free(dir);
        g_free(self);
        if (access(beside, R_OK) == 0) return beside;
        g_free(beside);
    }
    char *found = g_find_program_in_path("tbbt-ellard");
    return found ? found : g_strdup("tbbt-ellard");
}

/* The importer's last non-empty stderr line, without its program prefix. */
static void last_line(const GString *s, char *out, size_t n) {
    gchar **lines = g_strsplit(s->str, "\n", -1);
    const char *last = "";
    for (gchar **l = lines; *l; l++)
        if (**l) last = *l;
    if (g_str_has_prefix(last, "tbbt-ellard: ")) last += strlen("tbbt-ellard: ");
    g_strlcpy(out, last, n);
    g_strfreev(lines);
}

/* Drains the importer's stderr into a string while its stdout is read,
 * so that neither pipe can fill and stall the other (thread body). */
static gpointer drain_stderr(gpointer arg) {
    int fd = GPOINTER_TO_INT(arg);
    GString *msg = g_string_new(NULL);
    char buf[4096];
    ssize_t k;
    while ((k = read(fd, buf, sizeof(buf))) > 0 || (k < 0 && errno == EINTR))
        if (k > 0) g_string_append_len(msg, buf, k);
    close(fd);
    return msg;
}

/* Runs the Ellard importer on path and feeds its output to sink. */
static int run_ellard(const char *path, const struct tbbt_textin_opts *o, tbbt_rec_sink sink, void *ctx,
                      uint64_t *n, char *err, size_t errlen) {
    char rt[32], st[32], mw[32];
    g_snprintf(rt, sizeof(rt), "%g", o->reply_timeout);
    g_snprintf(st, sizeof(st), "%g", o->step_threshold);
    g_snprintf(mw, sizeof(mw), "%d", o->max_warnings);
    char *script = importer();
    const char *args[] = {"perl",           script, "--reply-timeout", rt, "--step-threshold", st,
                          "--max-warnings", mw};
    GPtrArray *argv = g_ptr_array_new();
    for (size_t i = 0; i < sizeof(args) / sizeof(args[0]); i++)
        g_ptr_array_add(argv, tbbt_unconst(args[i]));
    if (o->quiet) g_ptr_array_add(argv, "-q");
    g_ptr_array_add(argv, "--");
    g_ptr_array_add(argv, tbbt_unconst(path));
    g_ptr_array_add(argv, NULL);
    GPid pid;
    int out_fd, err_fd;
    GError *ge = NULL;
    int spawned = g_spawn_async_with_pipes(NULL, (gchar **)argv->pdata, NULL,
                                           G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_SEARCH_PATH, NULL, NULL, &pid,
                                           NULL, &out_fd, &err_fd, &ge);
    g_ptr_array_free(argv, TRUE);
    g_free(script);
    if (!spawned) {
        g_snprintf(err, errlen, "%s: cannot run the Ellard importer: %s", path, ge->message);
        g_error_free(ge);
        return -1;
    }
    GThread *drainer = g_thread_new("tbbt-stderr", drain_stderr, GINT_TO_POINTER(err_fd));
    FILE *f = fdopen(out_fd, "r");
    char name[512];
    g_snprintf(name, sizeof(name), "%s (imported)", path);
    int rc = read_lines(f, name, sink, ctx, n, err, errlen);
    if (rc != 0) kill(pid, SIGTERM);
    fclose(f);
    GString *msg = g_thread_join(drainer); /* its warnings and summary */
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    g_spawn_close_pid(pid);
    if (rc == 0 && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
        char last[400];
        last_line(msg, last, sizeof(last));
        g_snprintf(err, errlen, "%s", *last ? last : "the Ellard importer failed");
        rc = -1;
    } else if (rc == 0) {
        fputs(msg->str, stderr);
    }
    g_string_free(msg, TRUE);
    return rc;
}

int tbbt_textin_run(const char *path, int kind, const struct tbbt_textin_opts *o, tbbt_rec_sink sink,
                    void *ctx, uint64_t *n, char *err, size_t errlen) {
    *n = 0;
    if (kind == TBBT_IN_ELLARD) return run_ellard(path, o, sink, ctx, n, err, errlen);
    FILE *f = tbbt_cfile_open(path, NULL, err, errlen);
    if (!f) return -1;
    int rc = read_lines(f, path, sink, ctx, n, err, errlen);
    fclose(f);
    return rc;
}
