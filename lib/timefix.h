/* timefix.h -- timestamp repair, once, for every input.
 *
 * Capture clocks step backwards (NTP corrections; the Harvard EECS
 * collector jumps back five minutes about once a week). A step back larger
 * than the threshold is removed: every later timestamp is shifted forward
 * by the size of the step, so time continues from the latest time seen.
 * Smaller inversions (reassembly skew between messages, multi-interface
 * captures) are natural and kept. The repair is counted for the report. */
#ifndef TBBT_TIMEFIX_H
#define TBBT_TIMEFIX_H

#include <stdint.h>

#define TBBT_TIMEFIX_DEFAULT_THRESHOLD 1000000000LL /* 1 s */

/* Capture times, raw and repaired, stay strictly between -TBBT_TIME_LIMIT
 * and TBBT_TIME_LIMIT ns (years 1824 to 2116), so that the difference of
 * two and the sum of one and a timeout never overflow an int64_t, and the
 * records' sentinel times (TBBT_TIME_SERVER) are never met. The capture
 * layer skips a packet stamped outside as malformed; the repair below
 * clamps what a hostile clock would push outside (its offset grows with
 * every step back, without bound). */
#define TBBT_TIME_LIMIT ((int64_t)1 << 62)

struct tbbt_timefix {
    int64_t threshold; /* ns: a backward move larger than this is a step */
    int64_t offset;    /* ns added to every raw timestamp */
    int64_t latest;    /* latest repaired timestamp seen */
    int started;
    uint64_t steps;        /* backward steps removed */
    int64_t removed;       /* total ns of backward steps removed */
    int64_t first_step_at; /* repaired time of the first step, 0 if none */
};

/* Initialises a repairer; threshold <= 0 takes the default. */
void tbbt_timefix_init(struct tbbt_timefix *tf, int64_t threshold);

/* Returns the repaired time of raw timestamp ts (ns) and updates the state.
 * Call in input order. The result is clamped inside +-TBBT_TIME_LIMIT, and
 * so is the offset: past it, time stands at the latest repaired time. */
int64_t tbbt_timefix_apply(struct tbbt_timefix *tf, int64_t ts);

/* Returns the repaired time of ts without learning from it (for a second
 * timestamp of the same event, such as a message's last packet). */
int64_t tbbt_timefix_peek(const struct tbbt_timefix *tf, int64_t ts);

#endif
