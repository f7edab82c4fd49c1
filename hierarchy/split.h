/* split.h -- spatial scale-down (paper 3.4.2): the groups of objects a
 * trace accesses together, and parts made of whole groups.
 *
 * Which touches join groups. Every record's touches are the player's
 * locks (lib/locks.h, tbbt_locks_of, every handle known): obj, dir, dir2,
 * newobj, victim, victim2, each read or write.
 *   - An object that no record of the trace write-locks is read-only: it
 *     is the same from the first record to the last, so the records that
 *     read it need not go together. Read-only objects join nothing. These
 *     are the shared ancestors: the root or a top-level directory that
 *     the groups only look up names in, list, stat.
 *   - Every other object a record locks, read or write, is joined with
 *     the record's other such objects (union-find): a create joins the
 *     new object with its directory, a lookup of a name in a directory
 *     something writes joins the two, a rename joins both directories and
 *     the objects moved and replaced (so a rename across two subtrees
 *     joins them), a link the file and the directory.
 *   - A directory declared shared (tbbt_split_add_shared) joins nothing
 *     either, although records write it. Records that write it then lock
 *     it from several parts: each is a crossing dependency (below), and
 *     the caller decides whether to split anyway.
 * A group is a set of joined objects with the records that lock them. A
 * record that locks only read-only or shared objects (a getattr of the
 * root, a lookup in it that finds nothing, a read of a file nobody
 * writes, a null call) is free: it may go to any part.
 *
 * Parts: groups are dealt to parts largest first, each to the part with
 * the fewest records so far. Then the free records, in trace order: one
 * whose read-only objects a group revealed (the first record that locks
 * such an object with a group's objects, typically a lookup in the
 * group's directory, makes it the object's home; a lookup in an object
 * with a home passes it on) goes to that group's part, so that a group's
 * read-only files stay in its part's image; any other to the part with
 * the fewest records. The same input gives the same parts.
 *
 * Crossing dependency: two records in different parts (or units: see
 * tbbt_split_crossings) that lock the same object, at least one of them
 * for writing -- an order the player's fsdep policy would keep and that
 * replaying one part without the other breaks. Without declared shared
 * objects there are none, by construction.
 *
 * Use: tbbt_split_new, tbbt_split_put for every record in trace order,
 * tbbt_split_group, tbbt_split_assign, then read the results. Memory: a
 * few bytes per record (its locks as object indices) and one small entry
 * per object; never the records. */
#ifndef TBBT_SPLIT_H
#define TBBT_SPLIT_H

#include <stdint.h>

#include "record.h"

#define TBBT_SPLIT_MAX_PARTS 64 /* parts are bits of a uint64_t */

struct tbbt_split;

/* One part's share, filled by tbbt_split_assign. */
struct tbbt_split_share {
    uint64_t records, groups, objects; /* objects: those its records lock */
    uint64_t bytes_read, bytes_written;
    uint64_t by_op[TBBT_OP_COUNT]; /* records by procedure */
};

/* A new, empty analysis. Never NULL (GLib aborts on out of memory). */
struct tbbt_split *tbbt_split_new(void);
void tbbt_split_free(struct tbbt_split *s);

/* Declares directory id shared: it joins no group though records write
 * it. Call before the first put. */
void tbbt_split_add_shared(struct tbbt_split *s, tbbt_id id);

/* Notes record r (the next one in trace order): its locks, procedure and
 * bytes read or written. */
void tbbt_split_put(struct tbbt_split *s, const struct tbbt_rec *r);

/* Joins the objects (rules above) once every record is in. Returns the
 * number of groups. */
uint64_t tbbt_split_group(struct tbbt_split *s);

/* Deals the groups and free records to nparts parts (1 ..
 * TBBT_SPLIT_MAX_PARTS) and fills each part's share. Returns 0, or -1
 * when there are fewer groups than parts (a part would hold only free
 * records: no split of the image). Call after tbbt_split_group. */
int tbbt_split_assign(struct tbbt_split *s, unsigned nparts);

/* Counts after tbbt_split_group / tbbt_split_assign. */
uint64_t tbbt_split_records(const struct tbbt_split *s);
uint64_t tbbt_split_objects(const struct tbbt_split *s);  /* objects locked by any record */
uint64_t tbbt_split_readonly(const struct tbbt_split *s); /* of which read-only or shared */
uint64_t tbbt_split_free_records(const struct tbbt_split *s);
const struct tbbt_split_share *tbbt_split_share(const struct tbbt_split *s, unsigned part);

/* The part of record seq (0-based position in the trace). */
unsigned tbbt_split_part_of(const struct tbbt_split *s, uint64_t seq);

/* The group of record seq (0 .. groups-1, in order of first appearance),
 * or UINT64_MAX for a free record. */
uint64_t tbbt_split_group_of(const struct tbbt_split *s, uint64_t seq);

/* The object with index i (0 .. tbbt_split_objects-1): its ID, and the
 * parts (bit p) whose records lock it. */
tbbt_id tbbt_split_object(const struct tbbt_split *s, uint64_t i, uint64_t *parts);

/* Crossing dependencies between units, where unit[p] (>= 0) is the
 * output part p goes to: parts in one unit are replayed together, so
 * nothing crosses between them (with a selection, the parts left out can
 * all be one unit: what crosses among them is never replayed). Returns
 * the number of records that lock an object locked earlier by a record of
 * another unit, one of the two locks a write lock; the first such
 * record's position goes in *first and the object in *obj (both untouched
 * when none). */
uint64_t tbbt_split_crossings(const struct tbbt_split *s, const int *unit, uint64_t *first, tbbt_id *obj);

#endif
