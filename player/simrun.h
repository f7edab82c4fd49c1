/* simrun.h -- `tbbt-play --simulate TRACE.tbbt`: the simulator (sim.h) on
 * a record file, with its options, its report and its JSON.
 *
 * Latency per procedure: given (--sim-latency PROC=USEC,...; "default=USEC"
 * or a bare USEC for every procedure not named), else the median of the
 * trace's own call-to-reply times for that procedure (records with both),
 * else the median over all procedures. Taking them from the trace costs
 * one more pass over the file before the simulation's own. */
#ifndef TBBT_SIMRUN_H
#define TBBT_SIMRUN_H

#include <stdint.h>

#include "sim.h"

/* What tbbt-play's option table gathered (strings may be NULL: not given). */
struct tbbt_simrun_args {
    const char *order;   /* "conservative" or "fsdep" (default) */
    const char *deps;    /* "reply" (default), "send", "strict" */
    int strict;          /* --strict-deps */
    const char *latency; /* --sim-latency */
    const char *windows; /* --sim-windows: comma-separated records */
    const char *json;    /* --json FILE */
    int max_outstanding; /* 0: not given (no cap) */
    int64_t limit;       /* the first N records only (0: all) */
    double speedup;      /* must be 0: the simulation plays at full speed */
    int quiet;
};

/* Where a procedure's latency came from. */
enum { TBBT_SIMLAT_GIVEN = 1, TBBT_SIMLAT_DEFAULT, TBBT_SIMLAT_TRACE, TBBT_SIMLAT_TRACE_ALL };

/* Parses a --sim-latency spec into ns per procedure (-1: not given) and a
 * default (-1: none). Returns 0, or -1 with a one-line message in err. */
int tbbt_simrun_parse_latency(const char *spec, int64_t lat[TBBT_OP_COUNT], int64_t *dflt, char *err,
                              size_t errlen);

/* Parses a --sim-windows list into w (at most TBBT_SIM_MAX_WINDOWS, each
 * 1..TBBT_SIM_MAX_WINDOW). Returns the count, or -1 with err. */
int tbbt_simrun_parse_windows(const char *spec, uint32_t *w, char *err, size_t errlen);

/* tbbt-play's name and synopsis, for its usage errors (lib/usage.h),
 * shared by the replay and --simulate. */
#define TBBT_PLAY_TOOL "tbbt-play"
#define TBBT_PLAY_SYNOPSIS                                                                                   \
    "tbbt-play [OPTION...] [TRACE.tbbt] [SERVER:/EXPORT]\ntbbt-play --simulate [OPTION...] [TRACE.tbbt]"

/* The whole of --simulate: argv holds the program and TRACE.tbbt only.
 * Prints the report on stdout (unless quiet), writes the JSON. Returns
 * the exit code: 0 done, 1 failed (file, ordering deadlock); bad usage
 * exits 2 (lib/usage.h) before anything is read. */
int tbbt_simrun_main(int argc, char **argv, const struct tbbt_simrun_args *a);

#endif
