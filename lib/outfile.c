/* outfile.c -- output files put in place safely (see outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "interrupt.h"

/* Contract in outfile.h. lstat, not stat: a symlink is replaced by a
 * rename, so it is written through instead. */
bool tbbt_out_replaceable(const char *path) {
    struct stat sb;
    if (lstat(path, &sb) != 0) return errno == ENOENT;
    return S_ISREG(sb.st_mode);
}

/* Sets error from errno as g_file_set_contents would. */
static gboolean out_fail(const char *path, const char *what, GError **error) {
    int e = errno;
    g_set_error(error, G_FILE_ERROR, g_file_error_from_errno(e), "Failed to %s “%s”: %s", what, path,
                g_strerror(e));
    return FALSE;
}

/* Contract in outfile.h. */
gboolean tbbt_out_set_contents(const char *path, const char *data, gssize len, GError **error) {
    if (tbbt_out_replaceable(path)) return g_file_set_contents(path, data, len, error);
    size_t n = len < 0 ? strlen(data) : (size_t)len;
    FILE *f = fopen(path, "w");
    if (!f) return out_fail(path, "open file", error);
    if (fwrite(data, 1, n, f) != n) {
        out_fail(path, "write file", error);
        fclose(f);
        return FALSE;
    }
    if (fclose(f) != 0) return out_fail(path, "close file", error);
    return TRUE;
}

/* Contract in outfile.h. */
int tbbt_out_put(const char *tool, const char *path, GString *s) {
    GError *e = NULL;
    int rc = tbbt_out_set_contents(path, s->str, (gssize)s->len, &e) ? 0 : -1;
    if (rc) {
        fprintf(stderr, "%s: %s\n", tool, e->message);
        g_error_free(e);
    }
    g_string_free(s, TRUE);
    return rc;
}

/* Contract in outfile.h. */
struct tbbt_outf *tbbt_outf_open(const char *path, char *err, size_t errlen) {
    struct tbbt_outf *o = g_new0(struct tbbt_outf, 1);
    o->path = g_strdup(path);
    if (strcmp(path, "-") == 0) {
        o->f = stdout;
        return o;
    }
    if (tbbt_out_replaceable(path)) {
        o->tmp = g_strdup_printf("%s.tmp.%ld", path, (long)getpid());
        tbbt_interrupt_track(o->tmp); /* removed if the command is interrupted */
    }
    if (!(o->f = fopen(o->tmp ? o->tmp : path, "w"))) {
        g_snprintf(err, errlen, "%s: cannot create: %s", path, g_strerror(errno));
        tbbt_outf_close(o, 0, NULL, 0);
        return NULL;
    }
    return o;
}

/* Contract in outfile.h. */
int tbbt_outf_close(struct tbbt_outf *o, int ok, char *err, size_t errlen) {
    int rc = 0;
    if (o->f == stdout) {
        if (fflush(stdout) != 0) rc = -1;
    } else if (o->f) {
        /* a file under its final name must be whole on disk, not only in
         * the page cache: synced before the rename */
        if (fflush(o->f) != 0 || (ok && o->tmp && fsync(fileno(o->f)) != 0)) rc = -1;
        if (fclose(o->f) != 0) rc = -1;
    }
    if (rc < 0 && err) g_snprintf(err, errlen, "%s: write failed: %s", o->path, g_strerror(errno));
    if (ok && rc == 0 && o->tmp && rename(o->tmp, o->path) != 0) {
        if (err) g_snprintf(err, errlen, "%s: cannot rename into place: %s", o->path, g_strerror(errno));
        rc = -1;
    }
    if (o->tmp) {
        if (!ok || rc < 0) unlink(o->tmp);
        tbbt_interrupt_untrack(o->tmp);
    }
    g_free(o->path), g_free(o->tmp), g_free(o);
    return ok ? rc : -1;
}
