/* cut.h -- records whose call the snaplen cut (TBBT_RF_ARGS_CUT), for
 * pass 2.
 *
 * The decoder never reads partial bytes: a field the snaplen cut is absent
 * from the record, and the record has TBBT_RF_CALL_TRUNC. Pass 1 marks a
 * call cut before an argument its request is rebuilt from with
 * TBBT_RF_ARGS_CUT; until every pass 1 does, a record with
 * TBBT_RF_CALL_TRUNC that lacks a field its operation needs counts the
 * same (tbbt_cut_args). Pass 2 never judges such a record against the
 * model; it restores what the model knows (a name through the object the
 * reply shows, attributes to set from the reply), gives an object whose
 * name is unknowable a synthetic name (tbbt_cut_name), and otherwise
 * leaves the flag set: the player does not replay the record. */
#ifndef TBBT_CUT_H
#define TBBT_CUT_H

#include <stddef.h>
#include <string.h>

#include "record.h"

/* Prefix of a synthetic name: "tbbt-cut-<TBBT-ID>". */
#define TBBT_CUT_PREFIX "tbbt-cut-"

/* The fields of r's operation that r lacks and its request is rebuilt
 * from (bit 1 << TBBT_F_*): its handles, names, and the arguments beside
 * them (offset, count, cookie, ...). A write's data does not count (the
 * player makes its own payload). 0 when none is missing. */
uint64_t tbbt_cut_missing(const struct tbbt_rec *r);

/* Was r's call cut before an argument its request is rebuilt from? True
 * when r has TBBT_RF_ARGS_CUT, or TBBT_RF_CALL_TRUNC and either a needed
 * field is missing (tbbt_cut_missing) or its last argument is a set of
 * attributes that may have been cut part way (setattr, create, mkdir,
 * symlink, mknod). */
int tbbt_cut_args(const struct tbbt_rec *r);

/* Writes the synthetic name of object id, plus ".N" when n > 1 (a second
 * name of the same object in one directory), into buf (NUL-terminated).
 * Returns its length. */
int tbbt_cut_name(char *buf, size_t len, tbbt_id id, unsigned n);

/* Is name (len bytes) a synthetic name? (Inline: pass 3 asks too, and
 * does not link pass 2.) */
static inline int tbbt_cut_is_synth(const char *name, size_t len) {
    size_t pl = sizeof(TBBT_CUT_PREFIX) - 1;
    return len > pl && memcmp(name, TBBT_CUT_PREFIX, pl) == 0;
}

#endif
