/* stats_wire.c -- a replay's figures as bytes (see stats_wire.h).
 *
 * The form: a magic word, then fixed-width fields in the order the
 * functions below write them; a histogram is its header and its non-empty
 * buckets as (index, count) pairs; a procedure is (vers, op) and its
 * figures; the series is its length and its seconds. */
#include "stats_wire.h"

#include <stdio.h>
#include <string.h>

#define WIRE_MAGIC 0x74627334u /* "tbs4": the ranks of one run are built alike */

/* The reader: a cursor over the form; ok falls to 0 at the first overrun
 * and every later read gives 0, so truncation has one exit (the end). */
struct rd {
    const uint8_t *p, *end;
    int ok;
};

static void put(GByteArray *o, const void *v, size_t n) {
    g_byte_array_append(o, v, (guint)n);
}

static void put64(GByteArray *o, uint64_t v) {
    put(o, &v, 8);
}

static void putd(GByteArray *o, double v) {
    put(o, &v, 8);
}

static void put32(GByteArray *o, uint32_t v) {
    put(o, &v, 4);
}

/* Copies n bytes into v, or zeroes v and marks the reader failed. */
static void get(struct rd *r, void *v, size_t n) {
    if (!r->ok || (size_t)(r->end - r->p) < n) {
        r->ok = 0;
        memset(v, 0, n);
        return;
    }
    memcpy(v, r->p, n);
    r->p += n;
}

static uint64_t get64(struct rd *r) {
    uint64_t v;
    get(r, &v, 8);
    return v;
}

static double getd(struct rd *r) {
    double v;
    get(r, &v, 8);
    return v;
}

static uint32_t get32(struct rd *r) {
    uint32_t v;
    get(r, &v, 4);
    return v;
}

/* A histogram: n, overflow, min, max, sum, then its non-empty buckets. */
static void pack_hist(GByteArray *o, const struct tbbt_hist *h) {
    put64(o, h->n), put64(o, h->overflow), put64(o, h->min), put64(o, h->max), putd(o, h->sum);
    uint32_t nb = 0;
    for (uint32_t i = 0; i < TBBT_HIST_N; i++)
        nb += h->b[i] != 0;
    put32(o, nb);
    for (uint32_t i = 0; i < TBBT_HIST_N; i++)
        if (h->b[i]) put32(o, i), put64(o, h->b[i]);
}

/* Reads a histogram into h (empty: tbbt_hist_init'ed). */
static void unpack_hist(struct rd *r, struct tbbt_hist *h) {
    h->n = get64(r), h->overflow = get64(r), h->min = get64(r), h->max = get64(r), h->sum = getd(r);
    uint32_t nb = get32(r);
    for (uint32_t k = 0; k < nb && r->ok; k++) {
        uint32_t i = get32(r);
        uint64_t c = get64(r);
        if (i >= TBBT_HIST_N)
            r->ok = 0;
        else
            h->b[i] = c;
    }
}

static void pack_proc(GByteArray *o, int v, int op, const struct tbbt_pstat_proc *p) {
    put32(o, (uint32_t)v), put32(o, (uint32_t)op);
    put64(o, p->count), put64(o, p->matched), put64(o, p->mismatched), put64(o, p->skipped);
    put64(o, p->timeouts);
    for (int k = 0; k < 4; k++)
        put32(o, p->top_traced[k]), put32(o, p->top_got[k]), put64(o, p->top_n[k]);
    pack_hist(o, &p->lat);
    pack_hist(o, &p->lat_sched);
    pack_hist(o, &p->trace_lat);
}

/* Reads one procedure into s's entry (made here; a procedure seen twice
 * is not a form). */
static void unpack_proc(struct rd *r, struct tbbt_play_stats *s) {
    uint32_t v = get32(r), op = get32(r);
    if (v > 1 || op >= TBBT_OP_COUNT || s->proc[v][op]) {
        r->ok = 0;
        return;
    }
    struct tbbt_pstat_proc *p = tbbt_pstats_proc(s, v ? 3 : 2, op);
    p->count = get64(r), p->matched = get64(r), p->mismatched = get64(r), p->skipped = get64(r);
    p->timeouts = get64(r);
    for (int k = 0; k < 4; k++)
        p->top_traced[k] = get32(r), p->top_got[k] = get32(r), p->top_n[k] = get64(r);
    unpack_hist(r, &p->lat);
    unpack_hist(r, &p->lat_sched);
    unpack_hist(r, &p->trace_lat);
}

/* A load's figures (stats_load.h). */
static void pack_load(GByteArray *o, const struct tbbt_load_figs *f) {
    put64(o, f->n), putd(o, f->duration_s), putd(o, f->area), putd(o, f->mean);
    put64(o, f->p99), put64(o, f->max), put32(o, f->summed);
}

static void unpack_load(struct rd *r, struct tbbt_load_figs *f) {
    f->n = get64(r), f->duration_s = getd(r), f->area = getd(r), f->mean = getd(r);
    f->p99 = get64(r), f->max = get64(r), f->summed = get32(r);
}

/* The counters, in one fixed order for both directions (laid out by hand:
 * clang-format does not settle on a layout for this list). */
/* clang-format off */
#define WIRE_COUNTERS(X)                                                           \
    X(records) X(sent) X(replies) X(matched) X(mismatched) X(skipped)              \
    X(timeouts) X(no_handle) X(not_replayable) X(warmup) X(late_replies)           \
    X(unmatched_replies) X(reconnects) X(conn_lost) X(max_outstanding) X(refused)  \
    X(conns_opened) X(retransmits)
/* clang-format on */

void tbbt_pstats_pack(const struct tbbt_play_stats *s, GByteArray *o) {
    put32(o, WIRE_MAGIC);
#define PUT_COUNTER(f) put64(o, s->f);
    WIRE_COUNTERS(PUT_COUNTER)
#undef PUT_COUNTER
    putd(o, s->wall_s), putd(o, s->cpu_s), putd(o, s->trace_span_s);
    put32(o, (uint32_t)s->partial), put32(o, (uint32_t)s->clone);
    pack_hist(o, &s->issue_err);
    pack_hist(o, &s->outstanding);
    pack_hist(o, &s->trace_outstanding);
    pack_load(o, &s->load_trace), pack_load(o, &s->load_replay);
    uint32_t np = 0;
    for (int v = 0; v < 2; v++)
        for (int op = 0; op < TBBT_OP_COUNT; op++)
            np += s->proc[v][op] != NULL;
    put32(o, np);
    for (int v = 0; v < 2; v++)
        for (int op = 0; op < TBBT_OP_COUNT; op++)
            if (s->proc[v][op]) pack_proc(o, v, op, s->proc[v][op]);
    put32(o, s->series->len);
    for (guint i = 0; i < s->series->len; i++) {
        const struct tbbt_pstat_sec *c = &g_array_index(s->series, struct tbbt_pstat_sec, i);
        put64(o, c->done), put64(o, c->matched), put64(o, c->sent), put64(o, c->traced), putd(o, c->lat_sum);
        putd(o, c->outstanding_sum), put64(o, (uint64_t)c->behind_max);
        put64(o, c->timeouts), put64(o, c->conn_lost), put64(o, c->reconnects);
    }
}

int tbbt_pstats_unpack(struct tbbt_play_stats *s, const uint8_t *buf, size_t len, char *err, size_t errlen) {
    struct rd r = {buf, buf + len, 1};
    if (get32(&r) != WIRE_MAGIC) {
        snprintf(err, errlen, "not a tbbt-play figures form (%zu bytes)", len);
        return -1;
    }
#define GET_COUNTER(f) s->f = get64(&r);
    WIRE_COUNTERS(GET_COUNTER)
#undef GET_COUNTER
    s->wall_s = getd(&r), s->cpu_s = getd(&r), s->trace_span_s = getd(&r);
    s->partial = (int)get32(&r);
    s->clone = (int)get32(&r);
    unpack_hist(&r, &s->issue_err);
    unpack_hist(&r, &s->outstanding);
    unpack_hist(&r, &s->trace_outstanding);
    unpack_load(&r, &s->load_trace), unpack_load(&r, &s->load_replay);
    uint32_t np = get32(&r);
    for (uint32_t i = 0; i < np && r.ok; i++)
        unpack_proc(&r, s);
    uint32_t ns = get32(&r);
    if (r.ok && ns > (size_t)(r.end - r.p) / 80) r.ok = 0; /* a second is 80 bytes */
    if (r.ok && ns) tbbt_pstats_sec(s, (double)(ns - 1));
    for (uint32_t i = 0; i < ns && r.ok; i++) {
        struct tbbt_pstat_sec *c = &g_array_index(s->series, struct tbbt_pstat_sec, i);
        c->done = get64(&r), c->matched = get64(&r), c->sent = get64(&r), c->traced = get64(&r);
        c->lat_sum = getd(&r);
        c->outstanding_sum = getd(&r), c->behind_max = (int64_t)get64(&r);
        c->timeouts = get64(&r), c->conn_lost = get64(&r), c->reconnects = get64(&r);
    }
    if (!r.ok || r.p != r.end) {
        snprintf(err, errlen, "tbbt-play figures form: %s at byte %zu of %zu",
                 r.ok ? "trailing bytes" : "truncated", (size_t)(r.p - buf), len);
        return -1;
    }
    return 0;
}
