/* submap.h -- a hierarchy map restricted to some of its objects and their
 * ancestors: the image one part of a split trace needs (tbbt-split).
 *
 * The map is read whole (one small entry a path). Each object is wanted
 * by a set of units (bit u of a uint64_t: the outputs of tbbt-split); an
 * entry goes into unit u's map when its object is wanted by u or is an
 * ancestor of one that is: every path the object had, and every path of
 * every directory above it. Kept entries stay in the map's order, so the
 * restricted map keeps parents before children and is valid for
 * tbbt-init and the other readers of lib/hmap.h. */
#ifndef TBBT_SUBMAP_H
#define TBBT_SUBMAP_H

#include <stddef.h>
#include <stdint.h>

#include "record.h"

struct tbbt_submap;

/* Reads the map at path (checked by lib/hmap.h's reader). Returns it
 * (owned by the caller), or NULL with "FILE:LINE: ..." in err. */
struct tbbt_submap *tbbt_submap_load(const char *path, char *err, size_t errlen);
void tbbt_submap_free(struct tbbt_submap *m);

/* Number of entries, and of distinct objects, in the map. */
size_t tbbt_submap_entries(const struct tbbt_submap *m);
size_t tbbt_submap_objects(const struct tbbt_submap *m);

/* The directory at path ("." is the image root; '/'-separated as in the
 * map) at any time of the trace, or 0 when no directory had that path. */
tbbt_id tbbt_submap_dir(const struct tbbt_submap *m, const char *path);

/* Adds units to the set that wants object id. Returns 1, or 0 when the
 * map has no entry for id. */
int tbbt_submap_want(struct tbbt_submap *m, tbbt_id id, uint64_t units);

/* Writes the entries of the objects wanted by any unit in units, with
 * their ancestors, to path (a temporary name renamed at the end);
 * comment as for tbbt_hmapw_open. Sets *written to the number of
 * entries. Returns 0, or -1 with a message in err. */
int tbbt_submap_write(struct tbbt_submap *m, uint64_t units, const char *path, const char *comment,
                      uint64_t *written, char *err, size_t errlen);

#endif
