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

/* a + b, saturated to int64_t's range: the repair's sums must not
 * overflow whatever the capture's clock says. */
static int64_t sat_add(int64_t a, int64_t b) {
    int64_t r;
    if (__builtin_add_overflow(a, b, &r)) return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

/* v kept strictly inside +-TBBT_TIME_LIMIT (see timefix.h: the room later
 * sums and differences of times need). */
static int64_t clamp_time(int64_t v) {
    if (v >= TBBT_TIME_LIMIT) return TBBT_TIME_LIMIT - 1;
    if (v <= -TBBT_TIME_LIMIT) return -TBBT_TIME_LIMIT + 1;
    return v;
}

/* A step is judged against the latest repaired time, so a clock that steps
 * back twice is repaired twice, and a step back followed by a step forward
 * (a transient glitch) leaves a forward gap rather than reordering. A clock
 * that swings back and forth by years would grow the offset by each swing:
 * the sums saturate and the times are clamped (timefix.h), so a hostile
 * capture gives times that stand still at the limit, not an overflow. */
int64_t tbbt_timefix_apply(struct tbbt_timefix *tf, int64_t ts) {
    int64_t t = clamp_time(sat_add(ts, tf->offset));
    if (!tf->started) {
        tf->started = 1;
        tf->latest = t;
        return t;
    }
    if (t < sat_add(tf->latest, -tf->threshold)) {
        int64_t step = tf->latest - t; /* both inside +-TBBT_TIME_LIMIT: fits */
        tf->offset = clamp_time(sat_add(tf->offset, step));
        tf->removed = sat_add(tf->removed, step);
        tf->steps++;
        t = tf->latest;
        if (!tf->first_step_at) tf->first_step_at = t;
    }
    if (t > tf->latest) tf->latest = t;
    return t;
}

int64_t tbbt_timefix_peek(const struct tbbt_timefix *tf, int64_t ts) {
    return clamp_time(sat_add(ts, tf->offset));
}
