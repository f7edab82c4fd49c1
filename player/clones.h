/* clones.h -- spatial scale-up (paper 3.4.2): N copies of one trace in
 * one player, copy i against image clone FIRST+i (tbbt-init --clones).
 *
 * The copies are interleaved by traced time: the I/O thread reads a record
 * once and puts N copies of it in the window, one after another, so the
 * copy of trace record k for clone offset i has the window sequence number
 * k*N + i.
 *
 * Each copy has its own objects: its TBBT-IDs are namespaced by clone
 * (tbbt_clone_id), so the handle table, the readdir cookies and fsdep's
 * locks keep the clones apart with no change. TBBT-IDs come in three
 * ranges (lib/hmap.h): from 1 (named by the trace), from 2^48 (given by
 * pass 3), from 2^56 (synthetic); the namespaced ID is
 *     clone << 42 | range << 40 | offset in the range
 * so up to 2^22 clones and 2^40 IDs per range (an ID beyond is refused).
 *
 * Each copy has its own ordering: tbbt_sched_clones runs one instance of
 * the chosen policy per clone on the copy's own trace sequence (k), so
 * conservative order in clone 2 never waits for clone 1's replies, and
 * each clone's sends follow the rule a single replay follows. */
#ifndef TBBT_CLONES_H
#define TBBT_CLONES_H

#include <stdint.h>

#include "order.h"
#include "record.h"

#define TBBT_CLONE_MAX (1u << 22) /* clone numbers 0..TBBT_CLONE_MAX-1 */

/* id's namespaced form in clone (0 stays 0). Returns 0, or -1 when id is
 * past 2^40 in its range (or past 2^57) and cannot be namespaced. */
int tbbt_clone_id(uint32_t clone, tbbt_id id, tbbt_id *out);

/* Namespaces every TBBT-ID of r (object fields and listing entries) in
 * clone. Returns 0, or -1 with the offending (traced) ID in *bad. */
int tbbt_clone_rec(struct tbbt_rec *r, uint32_t clone, tbbt_id *bad);

/* The per-clone policy: o->clones instances of o->per_clone, each seeing
 * seq / clones of the records whose seq % clones is its clone offset. */
extern const struct tbbt_sched_ops tbbt_sched_clones;

#endif
