/* hist.c -- log-bucket histograms (see hist.h). */
#include "hist.h"

#include <string.h>

void tbbt_hist_init(struct tbbt_hist *h) {
    memset(h, 0, sizeof(*h));
    h->min = UINT64_MAX;
}

uint32_t tbbt_hist_bucket(uint64_t v) {
    if (v < TBBT_HIST_SUB) return (uint32_t)v;
    unsigned e = 63 - (unsigned)__builtin_clzll(v); /* TBBT_HIST_SUB_BITS .. 63 */
    if (e >= TBBT_HIST_EXP) return TBBT_HIST_N - 1;
    uint32_t sub = (uint32_t)(v >> (e - TBBT_HIST_SUB_BITS)) & (TBBT_HIST_SUB - 1);
    return (e - TBBT_HIST_SUB_BITS + 1) * TBBT_HIST_SUB + sub;
}

void tbbt_hist_bounds(uint32_t i, uint64_t *lo, uint64_t *hi) {
    if (i < TBBT_HIST_SUB) {
        *lo = *hi = i;
        return;
    }
    unsigned e = i / TBBT_HIST_SUB + TBBT_HIST_SUB_BITS - 1, sub = i % TBBT_HIST_SUB;
    *lo = ((uint64_t)(TBBT_HIST_SUB + sub)) << (e - TBBT_HIST_SUB_BITS);
    *hi = *lo + (1ull << (e - TBBT_HIST_SUB_BITS)) - 1;
}

void tbbt_hist_add(struct tbbt_hist *h, uint64_t v) {
    uint32_t i = tbbt_hist_bucket(v);
    h->b[i]++;
    h->n++;
    if (v >> TBBT_HIST_EXP) h->overflow++;
    if (v < h->min) h->min = v;
    if (v > h->max) h->max = v;
    h->sum += (double)v;
}

void tbbt_hist_merge(struct tbbt_hist *into, const struct tbbt_hist *from) {
    for (uint32_t i = 0; i < TBBT_HIST_N; i++)
        into->b[i] += from->b[i];
    into->n += from->n, into->overflow += from->overflow, into->sum += from->sum;
    if (from->min < into->min) into->min = from->min;
    if (from->max > into->max) into->max = from->max;
}

uint64_t tbbt_hist_quantile(const struct tbbt_hist *h, double q) {
    if (!h->n) return 0;
    if (q <= 0) return h->min;
    if (q >= 1) return h->max;
    uint64_t rank = (uint64_t)(q * (double)h->n);
    if (rank >= h->n) rank = h->n - 1;
    uint64_t seen = 0;
    for (uint32_t i = 0; i < TBBT_HIST_N; i++) {
        seen += h->b[i];
        if (seen > rank) {
            uint64_t lo, hi;
            tbbt_hist_bounds(i, &lo, &hi);
            uint64_t mid = lo + (hi - lo) / 2;
            return mid < h->min ? h->min : mid > h->max ? h->max : mid;
        }
    }
    return h->max;
}

double tbbt_hist_mean(const struct tbbt_hist *h) {
    return h->n ? h->sum / (double)h->n : 0;
}

void tbbt_hist_layout_json(GString *o) {
    g_string_append_printf(o, "{\"scheme\":\"log-linear\",\"sub\":%u,\"exp\":%u,\"buckets\":%u}",
                           TBBT_HIST_SUB, (unsigned)TBBT_HIST_EXP, (unsigned)TBBT_HIST_N);
}

void tbbt_hist_json(const struct tbbt_hist *h, GString *o) {
    g_string_append_printf(
        o,
        "{\"n\":%llu,\"min\":%llu,\"max\":%llu,\"mean\":%.1f,\"p50\":%llu,\"p90\":%llu,"
        "\"p99\":%llu,\"p999\":%llu,\"overflow\":%llu,\"buckets\":[",
        (unsigned long long)h->n, (unsigned long long)(h->n ? h->min : 0), (unsigned long long)h->max,
        tbbt_hist_mean(h), (unsigned long long)tbbt_hist_quantile(h, 0.5),
        (unsigned long long)tbbt_hist_quantile(h, 0.9), (unsigned long long)tbbt_hist_quantile(h, 0.99),
        (unsigned long long)tbbt_hist_quantile(h, 0.999), (unsigned long long)h->overflow);
    int first = 1;
    for (uint32_t i = 0; i < TBBT_HIST_N; i++)
        if (h->b[i]) {
            g_string_append_printf(o, "%s[%u,%llu]", first ? "" : ",", i, (unsigned long long)h->b[i]);
            first = 0;
        }
    g_string_append(o, "]}");
}
