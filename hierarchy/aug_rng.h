/* aug_rng.h -- the augmenter's random numbers: xoshiro256** seeded
 * through splitmix64 (lib/rng.h), one independent stream per use, so that
 * (for example) the sizes drawn do not change when only the merge factor
 * does. A sequence drawn from a seed is part of tbbt-augment's output
 * (same input and seed, same map): these functions must never change.
 * xoshiro256** is not lib/rng.h's splitmix64 (a different sequence), so it
 * stays here, with the augmenter, its only user; inline, as they are drawn
 * once or more per synthetic object. */
#ifndef TBBT_AUG_RNG_H
#define TBBT_AUG_RNG_H

#include <math.h>
#include <stdint.h>

#include "rng.h"

enum {
    AUG_STREAM_SIZE = 1,
    AUG_STREAM_TREE = 2,
    AUG_STREAM_PLACE = 3,
    AUG_STREAM_LATENT = 4,
    AUG_STREAM_EXTRACTED = 5
};

struct aug_rng {
    uint64_t s[4];
    double spare; /* the polar method's second normal */
    int has_spare;
};

/* Seeds stream number `stream` of seed. */
static inline void aug_rng_seed(struct aug_rng *r, uint64_t seed, uint64_t stream) {
    uint64_t x = seed ^ (stream * 0xd1342543de82ef95ULL);
    for (int i = 0; i < 4; i++)
        r->s[i] = tbbt_splitmix64(&x);
    r->has_spare = 0;
}

/* x rotated left by k bits (0 < k < 64). */
static inline uint64_t aug_rotl(uint64_t x, int k) {
    return (x << k) | (x >> (64 - k));
}

/* Next 64 random bits (xoshiro256**). */
static inline uint64_t aug_rng_next(struct aug_rng *r) {
    uint64_t *s = r->s;
    uint64_t out = aug_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = aug_rotl(s[3], 45);
    return out;
}

/* Uniform on [0,1). */
static inline double aug_rng_unit(struct aug_rng *r) {
    return (double)(aug_rng_next(r) >> 11) * 0x1p-53;
}

/* Uniform on (0,1]. */
static inline double aug_rng_open(struct aug_rng *r) {
    return (double)((aug_rng_next(r) >> 11) + 1) * 0x1p-53;
}

/* Standard normal (Marsaglia's polar method; the pair's second value is
 * kept for the next call). */
static inline double aug_rng_normal(struct aug_rng *r) {
    if (r->has_spare) return r->has_spare = 0, r->spare;
    double v1, v2, s;
    do {
        v1 = 2 * aug_rng_unit(r) - 1;
        v2 = 2 * aug_rng_unit(r) - 1;
        s = v1 * v1 + v2 * v2;
    } while (s >= 1 || s == 0);
    double f = sqrt(-2 * log(s) / s);
    r->spare = v2 * f, r->has_spare = 1;
    return v1 * f;
}

#endif
