/* linew.c -- text files of entry lines, renamed into place (see linew.h)
 * unless the name is a device, FIFO or symlink (outfile.h). */
#include "linew.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "interrupt.h"
#include "outfile.h"

struct tbbt_linew {
    char *path, *tmp; /* tmp is NULL when written in place (see outfile.h) */
    FILE *f;
    uint64_t n;
    int failed; /* errno of the first failed write */
};

/* Frees w's memory (its file is closed). */
static void linew_free(struct tbbt_linew *w) {
    if (w->tmp) tbbt_interrupt_untrack(w->tmp);
    g_free(w->path), g_free(w->tmp), g_free(w);
}

/* Contract in linew.h. */
struct tbbt_linew *tbbt_linew_open(const char *path, const char *first, char *err, size_t errlen) {
    struct tbbt_linew *w = g_new0(struct tbbt_linew, 1);
    w->path = g_strdup(path);
    if (tbbt_out_replaceable(path)) {
        w->tmp = g_strdup_printf("%s.tmp.%ld", path, (long)getpid());
        tbbt_interrupt_track(w->tmp); /* removed if the command is interrupted */
    }
    const char *name = w->tmp ? w->tmp : path;
    if (!(w->f = fopen(name, "w"))) {
        g_snprintf(err, errlen, "%s: %s", name, strerror(errno));
        linew_free(w);
        return NULL;
    }
    fprintf(w->f, "%s\n", first);
    return w;
}

void tbbt_linew_comment(struct tbbt_linew *w, const char *key, const char *value) {
    if (fprintf(w->f, value ? "# %s %s\n" : "# %s\n", key, value) < 0 && !w->failed) w->failed = errno;
}

int tbbt_linew_put(struct tbbt_linew *w, const GString *line) {
    if ((fwrite(line->str, 1, line->len, w->f) != line->len || fputc('\n', w->f) == EOF) && !w->failed)
        w->failed = errno ? errno : EIO;
    w->n++;
    return w->failed ? -1 : 0;
}

int tbbt_linew_close(struct tbbt_linew *w, char *err, size_t errlen) {
    fprintf(w->f, "# end %llu\n", (unsigned long long)w->n);
    if (fflush(w->f) != 0 && !w->failed) w->failed = errno;
    if (fclose(w->f) != 0 && !w->failed) w->failed = errno;
    int rc = 0;
    if (w->failed || (w->tmp && rename(w->tmp, w->path) != 0)) {
        g_snprintf(err, errlen, "%s: %s", w->path, strerror(w->failed ? w->failed : errno));
        if (w->tmp) unlink(w->tmp);
        rc = -1;
    }
    linew_free(w);
    return rc;
}

void tbbt_linew_abort(struct tbbt_linew *w) {
    if (!w) return;
    fclose(w->f);
    if (w->tmp) unlink(w->tmp);
    linew_free(w);
}
