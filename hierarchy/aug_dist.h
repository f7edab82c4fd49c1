/* aug_dist.h -- the augmenter's side of the size laws (aug_dist.c; the
 * parsing is augment.h's tbbt_aug_dist_*): resolving "trace", drawing a
 * size, the mean. */
#ifndef TBBT_AUG_DIST_H
#define TBBT_AUG_DIST_H

#include <stddef.h>
#include <stdint.h>

#include "aug_rng.h"
#include "augment.h"

#define AUG_MAX_FILE_SIZE (1ull << 50) /* one sampled size never exceeds 1 PiB */

/* Resolves the size law given (NULL: "trace"): "trace" becomes the table
 * of the n extracted sizes, or SPEC SFS's when there are fewer than
 * TBBT_AUG_TRACE_MIN. Returns a new distribution (tbbt_aug_dist_free);
 * writes which it is, in words, to desc. */
struct tbbt_aug_dist *aug_dist_resolve(const struct tbbt_aug_dist *given, const uint64_t *sizes, unsigned n,
                                       char *desc, size_t desclen);

/* One size drawn from d (a table or a lognormal) with r. */
uint64_t aug_dist_sample(const struct tbbt_aug_dist *d, struct aug_rng *r);

/* The mean size under d (lognormal: unclamped). */
double aug_dist_mean(const struct tbbt_aug_dist *d);

#endif
