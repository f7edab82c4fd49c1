/* clock.h -- the time now, as the stages, tools and benchmarks read it.
 *
 * One reading of clock_gettime, in integer nanoseconds (for deadlines and
 * stamps compared with the kernel's) or in seconds as a double (for
 * elapsed times printed or compared with a timeout). tbbt_now_ns and
 * tbbt_now_s read CLOCK_MONOTONIC, which no clock adjustment moves. */
#ifndef TBBT_CLOCK_H
#define TBBT_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Clock id's time now, ns. */
static inline int64_t tbbt_clock_ns(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* Clock id's time now, seconds. */
static inline double tbbt_clock_s(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The monotonic clock, ns. */
static inline int64_t tbbt_now_ns(void) {
    return tbbt_clock_ns(CLOCK_MONOTONIC);
}

/* The monotonic clock, seconds. */
static inline double tbbt_now_s(void) {
    return tbbt_clock_s(CLOCK_MONOTONIC);
}

#endif
