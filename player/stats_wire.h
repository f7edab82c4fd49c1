/* stats_wire.h -- a replay's figures as bytes, to carry them between
 * processes (the ranks of an MPI run send theirs to rank 0, player/mpi_ranks.c).
 *
 * Everything tbbt_pstats_merge adds travels: the counters, every histogram
 * (non-empty buckets only, so a form is a few KB), the procedures with
 * their mismatch top lists, the per-second series, wall and CPU time, the
 * share (clone) and partial flag. The metadata strings do not: the merged
 * report keeps rank 0's. Host byte order: the ranks of one run are built
 * alike. */
#ifndef TBBT_PSTATS_WIRE_H
#define TBBT_PSTATS_WIRE_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

/* Appends s's form to out. */
void tbbt_pstats_pack(const struct tbbt_play_stats *s, GByteArray *out);

/* Reads the form in buf[0..len) into s, freshly tbbt_pstats_init'ed by the
 * caller: its counters, histograms and series, its clone and partial flag
 * (then tbbt_pstats_merge adds it to a report). Returns 0, or -1 with a
 * one-line message in err when the form is truncated, has bytes left over
 * or is not one (s then holds what was read; free it as usual). */
int tbbt_pstats_unpack(struct tbbt_play_stats *s, const uint8_t *buf, size_t len, char *err, size_t errlen);

#endif
