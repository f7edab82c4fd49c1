/* timefix.c -- remove backward clock steps from a timestamp stream. */
#include "timefix.h"

void tbbt_timefix_init(struct tbbt_timefix *tf, int64_t threshold) {
    tf->threshold = threshold > 0 ? threshold : TBBT_TIMEFIX_DEFAULT_THRESHOLD;
    tf->offset = 0;
    tf->latest = 0;
    tf->started = 0;
    tf->steps = 0;
    tf->removed = 0;
    tf->first_step_at = 0;
}

/* A step is judged against the latest repaired time, so a clock that steps
 * back twice is repaired twice, and a step back followed by a step forward
 * (a transient glitch) leaves a forward gap rather than reordering. */
int64_t tbbt_timefix_apply(struct tbbt_timefix *tf, int64_t ts) {
    int64_t t = ts + tf->offset;
    if (!tf->started) {
        tf->started = 1;
        tf->latest = t;
        return t;
    }
    if (t < tf->latest - tf->threshold) {
        int64_t step = tf->latest - t;
        tf->offset += step;
        tf->removed += step;
        tf->steps++;
        t = tf->latest;
        if (!tf->first_step_at) tf->first_step_at = t;
    }
    if (t > tf->latest) tf->latest = t;
    return t;
}

int64_t tbbt_timefix_peek(const struct tbbt_timefix *tf, int64_t ts) {
    return ts + tf->offset;
}
