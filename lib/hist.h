/* hist.h -- latency histograms: log buckets, at most 1% relative error.
 *
 * Values (nanoseconds, or any non-negative integer) below 128 have a
 * bucket each; above, each power of two is cut into 128 buckets, so a
 * bucket is at most 1/128 of its lower bound wide and the value reported
 * for it (its middle) is within 0.4% of every value it holds. Up to 2^42
 * (73 minutes in ns); larger values land in the last bucket and are
 * counted as overflows. Fixed size (~43 KB), no allocation on add: one
 * per procedure per player is fine. Mergeable (ranks of an MPI run). */
#ifndef TBBT_HIST_H
#define TBBT_HIST_H

#include <glib.h>
#include <stdint.h>

#define TBBT_HIST_SUB_BITS 7
#define TBBT_HIST_SUB (1u << TBBT_HIST_SUB_BITS) /* buckets per power of two */
#define TBBT_HIST_EXP 42
#define TBBT_HIST_N ((TBBT_HIST_EXP - TBBT_HIST_SUB_BITS + 1) * TBBT_HIST_SUB)

struct tbbt_hist {
    uint64_t n, overflow;
    uint64_t min, max;
    double sum;
    uint64_t b[TBBT_HIST_N];
};

void tbbt_hist_init(struct tbbt_hist *h);
void tbbt_hist_add(struct tbbt_hist *h, uint64_t v);
void tbbt_hist_merge(struct tbbt_hist *into, const struct tbbt_hist *from);

/* The value at quantile q (0..1): the middle of the bucket holding it
 * (min and max exactly at 0 and 1); 0 when empty. */
uint64_t tbbt_hist_quantile(const struct tbbt_hist *h, double q);
double tbbt_hist_mean(const struct tbbt_hist *h);

/* Bucket index of v, and the bounds [lo, hi] of bucket i. */
uint32_t tbbt_hist_bucket(uint64_t v);
void tbbt_hist_bounds(uint32_t i, uint64_t *lo, uint64_t *hi);

/* Appends {"scheme":"log-linear","sub":128,"exp":42,"buckets":4608}: the
 * layout above, written into result documents ("hist_layout") so their
 * readers (TBBT::Hist) compute a bucket's bounds from it rather than from
 * a copy of this arithmetic. Bucket i < sub holds the value i; above, the
 * power of two 2^e (e = log2(sub) .. exp - 1) is cut into sub buckets. */
void tbbt_hist_layout_json(GString *out);

/* Appends {"n":..,"min":..,"max":..,"mean":..,"p50":..,"p90":..,"p99":..,
 * "p999":..,"buckets":[[index,count],...]} (non-empty buckets only). */
void tbbt_hist_json(const struct tbbt_hist *h, GString *out);

#endif
