/* hmap.h -- the hierarchy map: every object a trace needs on the server,
 * under every path it had, with the times it was created and deleted
 * (paper 3.2). Written by tbbt-prep pass 3 (and grown by synthetic
 * augmentation), read by tbbt-init and the Perl tools.
 *
 * File form (NAME.hmap): text, one entry a line, tokens separated by one
 * space; no token contains a space, so Perl's `split ' '` yields the
 * columns. Lines starting with '#' are comments; the first line is
 * "# tbbt-hmap 1" and the last "# end N" with N the number of entries (a
 * file without it is incomplete).
 *
 *   line   = id SP parent SP create SP delete SP type SP size SP mode SP uid
 *            SP gid SP origin SP path SP target
 *   id     = TBBT-ID, decimal (the same ID in every entry of a hard-linked object):
 *            from 1 for objects the trace names by handle (pass 1), from 2^48
 *            for objects pass 3 had to give an ID, from 2^56 for synthetic ones
 *   parent = ID of the directory holding the path's last name; 0 for the image
 *            root itself (its entry has path ".") and, when the map has no
 *            root entry, for the top-level entries (placeholder tops) that
 *            sit directly in the image root
 *   create = "0" (existed before the trace: tbbt-init makes it) or the
 *            call time (seconds.nanoseconds, the records' notation) of the
 *            record that made the path
 *   delete = "-" (still there when the trace ends) or the call time of the
 *            record that removed the path (remove, rmdir, rename away or over)
 *   type   = reg dir lnk blk chr sock fifo
 *   size   = bytes at create (at the trace's start for create 0), decimal, or "-"
 *   mode   = permission bits in octal ("0644"), or "-"; uid, gid decimal or "-":
 *            as the trace last showed them before any change
 *   origin = t (named as the trace showed), r (the export root: the image
 *            root), p (a directory of the trace whose own name and parent the
 *            trace never showed: the top of a disjoint subtree, given a
 *            placeholder name), s (synthetic, added by augmentation),
 *            o (placeholder directory holding the nameless non-directories)
 *   path   = quoted ("..." with \" \\ \xHH escapes, as in the records' text
 *            form), '/'-separated, relative to the image root
 *   target = quoted symlink target, or "-"
 *
 * Order: every entry's parent is the ID of an entry on an earlier line
 * (parents before children); the entries with create 0 come first, in
 * depth-first order of the initial tree, then the others by create time. */
#ifndef TBBT_HMAP_H
#define TBBT_HMAP_H

#include <glib.h>
#include <stdint.h>

#include "record.h"

#define TBBT_HM_NEVER INT64_MAX /* delete: never deleted */

/* Which of size, mode, uid, gid are known. */
enum {
    TBBT_HM_SIZE = 1u << 0,
    TBBT_HM_MODE = 1u << 1,
    TBBT_HM_UID = 1u << 2,
    TBBT_HM_GID = 1u << 3,
};

/* Origins. */
enum {
    TBBT_HM_TRACE = 't',
    TBBT_HM_ROOT = 'r',
    TBBT_HM_PLACEHOLDER = 'p',
    TBBT_HM_SYNTH = 's',
    TBBT_HM_ORPHANS = 'o',
};

/* One entry. Strings are NUL-terminated; the path may hold any byte but
 * NUL (names from the wire are not NUL-free in theory: such a name is cut
 * at its first NUL when read back). */
struct tbbt_hm_entry {
    tbbt_id id, parent;
    int64_t create; /* ns since the epoch; 0 = before the trace */
    int64_t del;    /* ns; TBBT_HM_NEVER = never */
    uint32_t type;  /* TBBT_FT_* of fsmodel.h */
    uint32_t known; /* TBBT_HM_* */
    uint64_t size;
    uint32_t mode, uid, gid;
    char origin;  /* TBBT_HM_TRACE ... */
    char *path;   /* owned by whoever filled the entry (see the reader) */
    char *target; /* NULL when none */
};

/* Appends e as one map line (no newline). */
void tbbt_hm_format(GString *out, const struct tbbt_hm_entry *e);

/* Parses one map line of len bytes (a trailing newline allowed) into e;
 * e->path and e->target point into buf, which the call fills and grows
 * (the caller frees it with g_string_free). Returns 0, or -1 with
 * "column N: ..." in err. */
int tbbt_hm_parse(const char *line, size_t len, struct tbbt_hm_entry *e, GString *buf, char *err,
                  size_t errlen);

/* The type's map name ("reg", "dir", ...), and back (0 if unknown). */
const char *tbbt_hm_type_name(uint32_t type);
uint32_t tbbt_hm_type_parse(const char *s, size_t len);

/* --- writing: a temporary name renamed at close, so a file with the
 * final name is always complete --- */
struct tbbt_hmapw;

/* Opens path for writing; comment (may be NULL) is written as "# " lines
 * after the version line. Returns NULL with a message in err. */
struct tbbt_hmapw *tbbt_hmapw_open(const char *path, const char *comment, char *err, size_t errlen);

/* Writes one entry. Returns 0, or -1 (the error is kept for close). */
int tbbt_hmapw_put(struct tbbt_hmapw *w, const struct tbbt_hm_entry *e);

/* Writes the end line, flushes and renames into place. Returns 0, or -1
 * with a message in err (the temporary file is removed). Frees w. */
int tbbt_hmapw_close(struct tbbt_hmapw *w, char *err, size_t errlen);

/* Removes the temporary file and frees w. NULL is allowed. */
void tbbt_hmapw_abort(struct tbbt_hmapw *w);

/* --- reading: streaming, with the order checked --- */
struct tbbt_hmapr;

/* Opens a map. Returns NULL with "FILE: ..." in err. */
struct tbbt_hmapr *tbbt_hmapr_open(const char *path, char *err, size_t errlen);

/* Reads the next entry into e (its strings valid until the next call).
 * Checks that the parent was seen on an earlier line and that the file
 * ends with a matching end line. Returns 1 with an entry, 0 at a good
 * end, -1 with "FILE:LINE: ..." in err. */
int tbbt_hmapr_next(struct tbbt_hmapr *r, struct tbbt_hm_entry *e, char *err, size_t errlen);

/* The comment lines read so far (after the version line), each without
 * its "# ", joined by newlines. */
const char *tbbt_hmapr_comment(const struct tbbt_hmapr *r);

void tbbt_hmapr_close(struct tbbt_hmapr *r);

#endif
