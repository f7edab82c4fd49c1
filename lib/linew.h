/* linew.h -- a text file of entry lines, written whole or not at all.
 *
 * The hierarchy map and the init manifest are both: a version line,
 * "# " comment lines, one line per entry, and a last line "# end N" (N
 * the entries) so that a reader knows the file is whole. The file is
 * written under a temporary name and renamed at close: a file with the
 * final name is always complete. */
#ifndef TBBT_LINEW_H
#define TBBT_LINEW_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

struct tbbt_linew;

/* Opens path for writing and writes first (the version line). Returns
 * NULL with "FILE: why" in err. */
struct tbbt_linew *tbbt_linew_open(const char *path, const char *first, char *err, size_t errlen);

/* Writes "# key value" (value NULL: "# key"), a line at a time. */
void tbbt_linew_comment(struct tbbt_linew *w, const char *key, const char *value);

/* Writes one entry line (line has no newline). Returns 0, or -1 once a
 * write failed (the error is kept for close). */
int tbbt_linew_put(struct tbbt_linew *w, const GString *line);

/* Writes "# end N", flushes and renames into place; frees w. Returns 0,
 * or -1 with "FILE: why" in err (nothing is left behind). */
int tbbt_linew_close(struct tbbt_linew *w, char *err, size_t errlen);

/* Removes the temporary file and frees w. NULL is allowed. */
void tbbt_linew_abort(struct tbbt_linew *w);

#endif
