/* outfile.c -- output files put in place safely (see outfile.h). */
#include "outfile.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

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
