/* linew.c -- text files of entry lines, renamed into place (see linew.h)
 * unless the name is a device, FIFO or symlink (outfile.h). */
#include "linew.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "outfile.h"

struct tbbt_linew {
    struct tbbt_outf *o;
    FILE *f;
    uint64_t n;
    int failed; /* errno of the first failed write */
};

/* Contract in linew.h. */
struct tbbt_linew *tbbt_linew_open(const char *path, const char *first, char *err, size_t errlen) {
    struct tbbt_outf *o = tbbt_outf_open(path, err, errlen);
    if (!o) return NULL;
    struct tbbt_linew *w = g_new0(struct tbbt_linew, 1);
    w->o = o;
    w->f = o->f;
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
    int failed = w->failed;
    if (failed) g_snprintf(err, errlen, "%s: %s", w->o->path, strerror(failed));
    int rc = tbbt_outf_close(w->o, !failed, failed ? NULL : err, errlen);
    g_free(w);
    return failed ? -1 : rc;
}

void tbbt_linew_abort(struct tbbt_linew *w) {
    if (!w) return;
    tbbt_outf_close(w->o, 0, NULL, 0);
    g_free(w);
}
