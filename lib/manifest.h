/* manifest.h -- what tbbt-init built, for the player: every object that
 * exists before the trace starts, in every clone, with its file handle on
 * that server, so the player needs no lookup while it measures.
 *
 * File form (text; tbbt-init writes it in its run directory and beside
 * the map):
 *   # tbbt-manifest 1
 *   # key value            header lines: server, export, run, map, map_sha256,
 *                          params (one JSON object: the init parameters),
 *                          clones, created (ISO time)
 *   CLONE SP ID SP FH SP PATH
 *   # end N
 * CLONE is the clone's number (0..clones-1), ID the TBBT-ID (decimal), FH
 * the handle in lower-case hex, PATH the map's path quoted as in the
 * records' text form ("." for the clone's root). One line per object per
 * clone (a hard-linked object once, under its first path). */
#ifndef TBBT_MANIFEST_H
#define TBBT_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "nfsdec.h" /* TBBT_FH_MAX */
#include "record.h"

struct tbbt_mf_entry {
    uint32_t clone;
    tbbt_id id;
    uint32_t fhlen;
    uint8_t fh[TBBT_FH_MAX];
    const char *path; /* valid until the next read */
};

/* --- writing (temporary name, renamed at close) --- */
struct tbbt_mfw;

/* Opens path; header is a list of key, value pairs (NULL-terminated),
 * written as "# key value" lines. NULL with err on failure. */
struct tbbt_mfw *tbbt_mfw_open(const char *path, const char *const *header, char *err, size_t errlen);
int tbbt_mfw_put(struct tbbt_mfw *w, const struct tbbt_mf_entry *e);
/* Writes the end line and renames into place; frees w. 0 or -1 with err. */
int tbbt_mfw_close(struct tbbt_mfw *w, char *err, size_t errlen);
void tbbt_mfw_abort(struct tbbt_mfw *w);

/* --- reading --- */
struct tbbt_mfr;

/* Opens a manifest. NULL with "FILE: ..." in err. */
struct tbbt_mfr *tbbt_mfr_open(const char *path, char *err, size_t errlen);

/* The value of header key (after the lines read so far), or NULL. */
const char *tbbt_mfr_header(const struct tbbt_mfr *r, const char *key);

/* Next entry: 1, 0 at a good end (the end line matched), -1 with
 * "FILE:LINE: ..." in err. */
int tbbt_mfr_next(struct tbbt_mfr *r, struct tbbt_mf_entry *e, char *err, size_t errlen);

void tbbt_mfr_close(struct tbbt_mfr *r);

#endif
