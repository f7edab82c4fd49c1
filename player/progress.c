/* progress.c -- the --live progress line (see engine_int.h).
 *
 * Once a second on stderr: ops/s, requests out, records done, how far
 * behind the schedule. Apart because it is output, not replay. */
#include "engine_int.h"

#include <stdio.h>

/* A live line on stderr, once a second. */
void eng_live_line(struct engine *e, int64_t now, int64_t *last, uint64_t *last_done) {
    if (!e->o->live || now - *last < 1000000000) return;
    double dt = (double)(now - *last) / 1e9;
    int64_t behind = e->held.n && e->o->speedup > 0 && e->held.v[0].t < now ? now - e->held.v[0].t : 0;
    fprintf(stderr, "\rtbbt-play: %8.0f ops/s, %5llu outstanding, %llu done, %.1f ms behind   ",
            (double)(e->completed - *last_done) / dt, (unsigned long long)e->outstanding,
            (unsigned long long)e->completed, (double)behind / 1e6);
    *last = now, *last_done = e->completed;
}
