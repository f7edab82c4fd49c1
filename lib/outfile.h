/* outfile.h -- how a command puts an output file in place.
 *
 * Outputs are written under a temporary name and renamed when complete,
 * so a file under the final name is always whole. That is right only for
 * a regular file (or a name that does not exist yet). Anything else that
 * already exists under the name -- /dev/null, a FIFO, a terminal, a
 * symlink -- must be written in place: renaming over it replaces the
 * device or the link with a regular file. Run as root with "--json
 * /dev/null", that turned the machine's /dev/null into a plain file and
 * broke every daemon started after it. Every writer of lib/ and every
 * "written whole" output of the commands goes through here. */
#ifndef TBBT_OUTFILE_H
#define TBBT_OUTFILE_H

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>

/* True when path may be replaced by renaming a temporary file over it:
 * it does not exist, or it is a regular file (not a symlink). */
bool tbbt_out_replaceable(const char *path);

/* g_file_set_contents() that writes in place (no temporary file, no
 * rename) when path is not replaceable. Same arguments and result. */
gboolean tbbt_out_set_contents(const char *path, const char *data, gssize len, GError **error);

/* A command's whole document (a --json report, say) into path: written
 * by tbbt_out_set_contents, s freed; on failure "tool: why" (why names
 * the file) on stderr. Returns 0, or -1. */
int tbbt_out_put(const char *tool, const char *path, GString *s);

/* A streamed output: written to PATH.tmp.PID (removed if the command is
 * interrupted, lib/interrupt.h) and renamed at the end, or written in
 * place when PATH is not replaceable. "-" is standard output. */
struct tbbt_outf {
    FILE *f;
    char *path, *tmp; /* tmp NULL: written in place */
};

/* Opens path for writing; NULL with "PATH: why" in err. */
struct tbbt_outf *tbbt_outf_open(const char *path, char *err, size_t errlen);

/* Flushes and closes; with ok, syncs a temporary file, puts it in place and returns 0, or
 * -1 with "PATH: why" in err; without ok (or on error) removes the
 * temporary file. Frees o. */
int tbbt_outf_close(struct tbbt_outf *o, int ok, char *err, size_t errlen);

#endif
