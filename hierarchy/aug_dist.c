/* aug_dist.c -- the synthetic files' size laws (see augment.h for the
 * specs, aug_dist.h for the augmenter's side): parsing, SPEC SFS's table,
 * the trace's own sizes as a table, drawing a size, the mean. Apart from
 * the augmenter because a law is a value the augmenter only draws from. */
#include "aug_dist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { DIST_TRACE, DIST_SPECSFS, DIST_LOGNORMAL, DIST_TABLE };

struct tbbt_aug_dist {
    int kind;
    double mu, sigma; /* lognormal */
    size_t n;         /* table: sizes ascending, cumulative probabilities (cum[n-1] = 1) */
    uint64_t *size;
    double *cum;
    char *spec;
};

/* SPEC SFS 2.0 (SFS97, also used by SFS 3.0) file-set size distribution:
 * Default_file_size_dist[] in sfs_c_dat.c of the SPEC SFS sources, there
 * given as cumulative percentages of files per size in KB (33, 54, 67, 77,
 * 85, 90, 94, 97, 99, 100). SFS creates its files at exactly these sizes;
 * so do we (KB = 1024 bytes). Mean 26.7 KiB. */
static const struct {
    unsigned kb;
    unsigned pct;
} specsfs_table[] = {{1, 33}, {2, 21}, {4, 13},  {8, 10},  {16, 8},
                     {32, 5}, {64, 4}, {128, 3}, {256, 2}, {1024, 1}};

struct size_weight {
    uint64_t size;
    double w;
};

/* qsort order of (size, weight) pairs: by size. */
static int cmp_size_weight(const void *a, const void *b) {
    uint64_t x = ((const struct size_weight *)a)->size, y = ((const struct size_weight *)b)->size;
    return x < y ? -1 : x > y;
}

/* Turns n (size, weight) pairs into d's table: sorted, equal sizes merged,
 * zero weights dropped. Takes and sorts pw in place. Returns 0, or -1 when
 * the weights do not sum to a positive finite number. */
static int table_build(struct tbbt_aug_dist *d, struct size_weight *pw, size_t n) {
    double total = 0;
    for (size_t i = 0; i < n; i++)
        total += pw[i].w;
    if (!(total > 0) || !isfinite(total)) return -1;
    qsort(pw, n, sizeof(*pw), cmp_size_weight);
    d->size = g_new(uint64_t, n);
    d->cum = g_new(double, n);
    d->n = 0;
    double acc = 0;
    for (size_t i = 0; i < n; i++) {
        if (pw[i].w <= 0) continue;
        acc += pw[i].w;
        if (d->n && d->size[d->n - 1] == pw[i].size) {
            d->cum[d->n - 1] = acc / total;
            continue;
        }
        d->size[d->n] = pw[i].size;
        d->cum[d->n++] = acc / total;
    }
    d->cum[d->n - 1] = 1.0;
    return 0;
}

/* Fills d with the SPEC SFS table. */
static void specsfs_build(struct tbbt_aug_dist *d) {
    size_t n = sizeof(specsfs_table) / sizeof(specsfs_table[0]);
    struct size_weight pw[sizeof(specsfs_table) / sizeof(specsfs_table[0])];
    for (size_t i = 0; i < n; i++)
        pw[i] = (struct size_weight){(uint64_t)specsfs_table[i].kb * 1024, specsfs_table[i].pct};
    table_build(d, pw, n);
}

int tbbt_aug_parse_bytes(const char *s, uint64_t *out) {
    if (!s || !g_ascii_isdigit(*s)) return -1;
    char *end;
    errno = 0;
    guint64 ip = g_ascii_strtoull(s, &end, 10);
    if (errno) return -1;
    double frac = 0;
    if (*end == '.') {
        if (!g_ascii_isdigit(end[1])) return -1;
        frac = g_ascii_strtod(end, &end);
    }
    uint64_t mult = 1;
    switch (*end) {
    case 'k':
    case 'K':
        mult = 1ull << 10;
        end++;
        break;
    case 'm':
    case 'M':
        mult = 1ull << 20;
        end++;
        break;
    case 'g':
    case 'G':
        mult = 1ull << 30;
        end++;
        break;
    case 't':
    case 'T':
        mult = 1ull << 40;
        end++;
        break;
    default: break;
    }
    if (*end || ip > (UINT64_MAX - mult) / mult) return -1;
    *out = ip * mult + (uint64_t)(frac * (double)mult);
    return 0;
}

/* Parses "MU,SIGMA" into d. Returns 0 or -1. */
static int parse_lognormal(struct tbbt_aug_dist *d, const char *s) {
    char *end;
    d->mu = g_ascii_strtod(s, &end);
    if (end == s || *end != ',') return -1;
    s = end + 1;
    d->sigma = g_ascii_strtod(s, &end);
    if (end == s || *end || !isfinite(d->mu) || !isfinite(d->sigma) || d->sigma < 0) return -1;
    return 0;
}

/* Parses "SIZE:WEIGHT,..." into d's table. Returns 0 or -1. */
static int parse_table(struct tbbt_aug_dist *d, const char *s) {
    gchar **items = g_strsplit(s, ",", -1);
    guint n = g_strv_length(items);
    struct size_weight *pw = g_new(struct size_weight, n ? n : 1);
    int rc = n ? 0 : -1;
    for (guint i = 0; i < n && rc == 0; i++) {
        char *colon = strchr(items[i], ':'), *end;
        if (!colon) {
            rc = -1;
            break;
        }
        *colon = 0;
        pw[i].w = g_ascii_strtod(colon + 1, &end);
        if (tbbt_aug_parse_bytes(items[i], &pw[i].size) < 0 || end == colon + 1 || *end ||
            !isfinite(pw[i].w) || pw[i].w < 0 || pw[i].size > AUG_MAX_FILE_SIZE)
            rc = -1;
    }
    if (rc == 0) rc = table_build(d, pw, n);
    g_free(pw);
    g_strfreev(items);
    return rc;
}

struct tbbt_aug_dist *tbbt_aug_dist_parse(const char *spec, char *err, size_t errlen) {
    struct tbbt_aug_dist *d = g_new0(struct tbbt_aug_dist, 1);
    int rc = 0;
    if (strcmp(spec, "trace") == 0)
        d->kind = DIST_TRACE;
    else if (strcmp(spec, "specsfs") == 0)
        d->kind = DIST_SPECSFS, specsfs_build(d);
    else if (g_str_has_prefix(spec, "lognormal:"))
        d->kind = DIST_LOGNORMAL, rc = parse_lognormal(d, spec + 10);
    else if (g_str_has_prefix(spec, "table:"))
        d->kind = DIST_TABLE, rc = parse_table(d, spec + 6);
    else
        rc = -1;
    if (rc < 0) {
        g_snprintf(err, errlen,
                   "bad size distribution '%s' (trace, specsfs, lognormal:MU,SIGMA with SIGMA >= 0, or "
                   "table:SIZE:WEIGHT,... with weights >= 0 not all 0)",
                   spec);
        tbbt_aug_dist_free(d);
        return NULL;
    }
    d->spec = g_strdup(spec);
    return d;
}

void tbbt_aug_dist_free(struct tbbt_aug_dist *d) {
    if (!d) return;
    g_free(d->size);
    g_free(d->cum);
    g_free(d->spec);
    g_free(d);
}

void tbbt_aug_dist_describe(const struct tbbt_aug_dist *d, GString *out) {
    g_string_append(out, d->spec ? d->spec : "trace");
}

/* One size drawn from d (a table or a lognormal). */
uint64_t aug_dist_sample(const struct tbbt_aug_dist *d, struct aug_rng *r) {
    if (d->kind == DIST_LOGNORMAL) {
        double x = exp(d->mu + d->sigma * aug_rng_normal(r)) + 0.5; /* rounded to the nearest byte */
        return x >= (double)AUG_MAX_FILE_SIZE ? AUG_MAX_FILE_SIZE : (uint64_t)x;
    }
    double u = aug_rng_unit(r);
    size_t lo = 0, hi = d->n - 1; /* first i with u < cum[i] */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (u < d->cum[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return d->size[lo];
}

/* The mean size under d (lognormal: unclamped). */
double aug_dist_mean(const struct tbbt_aug_dist *d) {
    if (d->kind == DIST_LOGNORMAL) return exp(d->mu + d->sigma * d->sigma / 2);
    double m = 0, prev = 0;
    for (size_t i = 0; i < d->n; i++) {
        m += (double)d->size[i] * (d->cum[i] - prev);
        prev = d->cum[i];
    }
    return m;
}

/* Resolves the size law: "trace" becomes the table of the n extracted
 * sizes (or SPEC SFS's when there are too few). Returns a new
 * distribution; says which in desc. */
struct tbbt_aug_dist *aug_dist_resolve(const struct tbbt_aug_dist *given, const uint64_t *sizes, unsigned n,
                                       char *desc, size_t desclen) {
    struct tbbt_aug_dist *d = g_new0(struct tbbt_aug_dist, 1);
    if (given && given->kind != DIST_TRACE) {
        *d = *given;
        d->size = given->size ? g_memdup2(given->size, given->n * sizeof(uint64_t)) : NULL;
        d->cum = given->cum ? g_memdup2(given->cum, given->n * sizeof(double)) : NULL;
        d->spec = g_strdup(given->spec);
        g_strlcpy(desc, d->spec, desclen);
    } else if (n >= TBBT_AUG_TRACE_MIN) {
        struct size_weight *pw = g_new(struct size_weight, n);
        for (unsigned i = 0; i < n; i++)
            pw[i] = (struct size_weight){sizes[i], 1.0};
        d->kind = DIST_TABLE;
        table_build(d, pw, n);
        g_free(pw);
        d->spec = g_strdup("trace");
        g_snprintf(desc, desclen, "trace (resampling %u extracted file sizes)", n);
    } else {
        d->kind = DIST_SPECSFS;
        specsfs_build(d);
        d->spec = g_strdup("specsfs");
        g_snprintf(desc, desclen, "specsfs (trace fallback: only %u extracted file sizes)", n);
    }
    return d;
}
