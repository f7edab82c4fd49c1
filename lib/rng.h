/* rng.h -- the seeded pseudo-random numbers every stage and tool draws.
 *
 * splitmix64 (Steele, Lea and Flood): a 64-bit state advanced by the
 * golden-ratio constant and a finaliser that spreads every bit over the
 * word. It is the seeded generator of tbbt-init, the aging, the augmenter's
 * seeding, the test drivers and the benchmarks; a sequence drawn from a
 * seed is part of their output (tests and benches depend on it), so these
 * functions must never change. xorshift64 (13, 7, 17) is the cheaper
 * generator that fills incompressible payloads. */
#ifndef TBBT_RNG_H
#define TBBT_RNG_H

#include <stdint.h>

/* 2^64 / the golden ratio: splitmix64's increment, also a good
 * multiplier for spreading small integers (Fibonacci hashing). */
#define TBBT_RNG_GOLDEN 0x9e3779b97f4a7c15ULL

/* splitmix64's finaliser: a bijection that mixes every bit of z into
 * every bit of the result (usable alone as a 64-bit hash). */
static inline uint64_t tbbt_rng_mix(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* splitmix64: advances the state *s and returns its next value. */
static inline uint64_t tbbt_splitmix64(uint64_t *s) {
    return tbbt_rng_mix(*s += TBBT_RNG_GOLDEN);
}

/* xorshift64 (shifts 13, 7, 17): advances *x (never 0) and returns it. */
static inline uint64_t tbbt_xorshift64(uint64_t *x) {
    *x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
    return *x;
}

#endif
