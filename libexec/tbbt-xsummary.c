/* tbbt-xsummary: the reading and counting of scripts/tbbt-summary (its
 * only implementation). Not a command of its own: tbbt-summary runs it on
 * each input and keeps everything else -- options, usage, opening inputs
 * and tbbt-dump, the report, the tables and the JSON.
 *
 *   tbbt-xsummary --interval-ns HEXFLOAT --shown NAME  <records-text
 *
 * Reads records in their text form on stdin, checks every line
 * (lib/textcols.h) and counts it; at the end prints the counters, one per
 * line, for tbbt-summary to add into its own:
 *
 *   h BINS_PER_OCTAVE                     the latency histogram's layout
 *   n RECORDS READS WRITES BYTES_READ BYTES_WRITTEN
 *   f FIRST_CALL_NS LAST_CALL_NS          (when RECORDS > 0)
 *   p COUNT LOST PROC                     per procedure
 *   s COUNT PROC STATUS                   replies by status
 *   l N SUM MIN MAX PROC                  latency (ns), then its bins:
 *   b COUNT PROC BIN                      BIN as Perl writes the number, or z
 *   c COUNT PROC HOST / u COUNT PROC USER per client host / user
 *   t COUNT BUCKET                        rate buckets, as Perl writes the number
 *   d COUNT ID / o COUNT ID               directories / files
 *
 * The last field is the key and runs to the end of the line: it may be
 * empty ("obj="), never holds white space. The rate bucket and the latency
 * bin are written as Perl writes a number ("%.15g"), the form tbbt-summary
 * reads them back in (they were first computed in Perl, and the golden
 * files of tests/transforms/summary_golden.t hold these forms).
 *
 * Exit: 0 done; 1 a line is not a record or the input cannot be read
 * (one line on stderr, "tbbt-summary: NAME:LINE: column N: why", as
 * tbbt-summary writes it); 2 usage. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "oom.h"
#include "textcols.h"

#define PROG "tbbt-summary" /* messages carry the command's name */

/* Latency histogram resolution: bins per doubling (2^(1/32) = 2.2 % wide);
 * tbbt-summary reads it from the "h" line. */
#define BINS_PER_OCTAVE 32

/* A counted key: any bytes (a token may hold NUL), owned by its table. */
struct key {
    const char *p;
    size_t len;
};

/* Hashes a key's bytes (djb2, as g_str_hash, but length-bounded). */
static guint key_hash(gconstpointer k) {
    const struct key *x = k;
    guint h = 5381;
    for (size_t i = 0; i < x->len; i++)
        h = h * 33 + (unsigned char)x->p[i];
    return h;
}

static gboolean key_equal(gconstpointer a, gconstpointer b) {
    const struct key *x = a, *y = b;
    return x->len == y->len && memcmp(x->p, y->p, x->len) == 0;
}

/* A key and its copied bytes in one allocation, freed with g_free. */
static struct key *key_dup(const char *p, size_t len) {
    struct key *k = g_malloc(sizeof(*k) + len + 1);
    char *b = (char *)(k + 1);
    memcpy(b, p, len);
    b[len] = 0;
    k->p = b;
    k->len = len;
    return k;
}

/* A table of counters: key -> g_new0(uint64_t). */
static GHashTable *counts_new(void) {
    return g_hash_table_new_full(key_hash, key_equal, g_free, g_free);
}

/* Adds 1 to the counter of the key [p, p + len), creating it at 0. */
static void bump(GHashTable *h, const char *p, size_t len) {
    struct key probe = {p, len};
    uint64_t *c = g_hash_table_lookup(h, &probe);
    if (!c) {
        c = g_new0(uint64_t, 1);
        g_hash_table_insert(h, key_dup(p, len), c);
    }
    (*c)++;
}

/* Latency of one procedure: exact n, sum, min, max, and log bins. */
struct lat {
    int64_t n, sum, min, max;
    GHashTable *bins;
};

/* One procedure's counters (the value of struct stats' proc table). */
struct proc {
    uint64_t n, lost;
    GHashTable *status;
    struct lat *lat;
};

static void proc_free(gpointer p) {
    struct proc *x = p;
    g_hash_table_destroy(x->status);
    if (x->lat) g_hash_table_destroy(x->lat->bins);
    g_free(x->lat);
    g_free(x);
}

/* Everything tbbt-summary's report shows, nothing per record. */
struct stats {
    uint64_t records, reads, writes, read_bytes, write_bytes;
    int64_t first, last;
    GHashTable *proc;                           /* name -> struct proc */
    GHashTable *client, *user;                  /* "PROC KEY" -> count */
    GHashTable *buckets;                        /* Perl's number -> count */
    GHashTable *dirs, *files;                   /* id -> count */
    double interval;                            /* bucket width in ns, as Perl has it */
    int64_t interval_i;                         /* the same when it is a whole number, else 0 */
    GString *scratch, *user_key;                /* composite keys */
    struct tbbt_tc_tok obj, dir, rcount, count; /* this record's fields */
    int has_obj, has_dir, has_rcount, has_count;
};

/* The last value of the fields add_record reads (a later key=value of the
 * same key wins). */
static void pick_fields(struct stats *s, const struct tbbt_tc *tc) {
    struct tbbt_tc_tok k, v;
    s->has_obj = s->has_dir = s->has_rcount = s->has_count = 0;
    for (size_t i = 10; i < tc->n; i++) {
        if (tbbt_tc_field(tc->col[i], &k, &v) < 0) continue;
        if (tbbt_tc_eq(k, "obj"))
            s->obj = v, s->has_obj = 1;
        else if (tbbt_tc_eq(k, "dir"))
            s->dir = v, s->has_dir = 1;
        else if (tbbt_tc_eq(k, "rcount"))
            s->rcount = v, s->has_rcount = 1;
        else if (tbbt_tc_eq(k, "count"))
            s->count = v, s->has_count = 1;
    }
}

/* A digit string's value (saturating at UINT64_MAX: Perl would go to
 * floating point there; tbbt writes these fields as u32). */
static uint64_t digits_value(struct tbbt_tc_tok t) {
    uint64_t v = 0;
    for (size_t i = 0; i < t.len; i++) {
        unsigned d = (unsigned)(t.p[i] - '0');
        if (v > (UINT64_MAX - d) / 10) return UINT64_MAX;
        v = v * 10 + d;
    }
    return v;
}

/* Writes a double as Perl stringifies a number: "%.15g", "0" for both
 * zeros, Inf/-Inf/NaN. */
static void perl_num(GString *out, double v) {
    if (v == 0)
        g_string_append_c(out, '0');
    else if (isnan(v))
        g_string_append(out, "NaN");
    else if (isinf(v))
        g_string_append(out, v > 0 ? "Inf" : "-Inf");
    else
        g_string_append_printf(out, "%.15g", v);
}

/* floor(call / interval) as Perl computes it: an exact integer quotient
 * when both are whole numbers and it divides (pp_divide's integer path),
 * else the double division. */
static double bucket_of(const struct stats *s, int64_t call) {
    if (s->interval_i > 0 && call % s->interval_i == 0) return (double)(call / s->interval_i);
    return floor((double)call / s->interval);
}

/* The per-procedure entry, created at zero. */
static struct proc *proc_get(struct stats *s, struct tbbt_tc_tok name) {
    struct key probe = {name.p, name.len};
    struct proc *p = g_hash_table_lookup(s->proc, &probe);
    if (!p) {
        p = g_new0(struct proc, 1);
        p->status = counts_new();
        g_hash_table_insert(s->proc, key_dup(name.p, name.len), p);
    }
    return p;
}

/* Adds one latency to a procedure's histogram (lat_add). */
static void lat_add(struct proc *p, int64_t ns) {
    static double ln2;
    struct lat *l = p->lat;
    char bin[40];
    if (!ln2) ln2 = log(2.0);
    if (!l) {
        l = p->lat = g_new0(struct lat, 1);
        l->min = l->max = ns;
        l->bins = counts_new();
    }
    l->n++;
    l->sum += ns;
    if (ns < l->min) l->min = ns;
    if (ns > l->max) l->max = ns;
    if (ns < 1) {
        bump(l->bins, "z", 1);
        return;
    }
    snprintf(bin, sizeof(bin), "%.15g", floor(log((double)ns) / ln2 * BINS_PER_OCTAVE));
    bump(l->bins, bin, strlen(bin));
}

/* Counts "PROC KEY" in a per-client or per-user table. */
static void bump2(struct stats *s, GHashTable *h, struct tbbt_tc_tok proc, const char *k, size_t klen) {
    g_string_truncate(s->scratch, 0);
    g_string_append_len(s->scratch, proc.p, (gssize)proc.len);
    g_string_append_c(s->scratch, ' ');
    g_string_append_len(s->scratch, k, (gssize)klen);
    bump(h, s->scratch->str, s->scratch->len);
}

/* The client's host: the endpoint without a trailing ":DIGITS". */
static size_t host_len(struct tbbt_tc_tok c) {
    size_t i = c.len;
    while (i > 0 && c.p[i - 1] >= '0' && c.p[i - 1] <= '9')
        i--;
    return i < c.len && i > 0 && c.p[i - 1] == ':' ? i - 1 : c.len;
}

/* Per client host and per user (AUTH_SYS uid, else "flavorN"). */
static void add_who(struct stats *s, const struct tbbt_tc *tc) {
    struct tbbt_tc_tok proc = tc->col[6], fl = tc->flavor;
    bump2(s, s->client, proc, tc->col[2].p, host_len(tc->col[2]));
    while (fl.len > 1 && fl.p[0] == '0')
        fl.p++, fl.len--;
    if (tbbt_tc_eq(fl, "1")) {
        bump2(s, s->user, proc, tc->uid.p, tc->uid.len);
        return;
    }
    g_string_assign(s->user_key, "flavor");
    g_string_append_len(s->user_key, tc->flavor.p, (gssize)tc->flavor.len);
    bump2(s, s->user, proc, s->user_key->str, s->user_key->len);
}

/* Bytes, files and directories (add_record's field part). */
static void add_io(struct stats *s, const struct tbbt_tc *tc) {
    struct tbbt_tc_tok proc = tc->col[6];
    if (tbbt_tc_eq(proc, "read")) {
        s->reads++;
        if (s->has_rcount && tbbt_tc_digits(s->rcount)) s->read_bytes += digits_value(s->rcount);
        if (s->has_obj) bump(s->files, s->obj.p, s->obj.len);
    } else if (tbbt_tc_eq(proc, "write")) {
        struct tbbt_tc_tok b = s->has_rcount ? s->rcount : s->count;
        s->writes++;
        if ((s->has_rcount || s->has_count) && tbbt_tc_digits(b)) s->write_bytes += digits_value(b);
        if (s->has_obj) bump(s->files, s->obj.p, s->obj.len);
    }
    if (s->has_dir) bump(s->dirs, s->dir.p, s->dir.len);
    if (proc.len >= 7 && memcmp(proc.p, "readdir", 7) == 0 && s->has_obj) bump(s->dirs, s->obj.p, s->obj.len);
}

/* Counts one checked record (add_record). */
static void add_record(struct stats *s, const struct tbbt_tc *tc) {
    struct proc *p = proc_get(s, tc->col[6]);
    if (s->records == 0 || tc->call < s->first) s->first = tc->call;
    if (s->records == 0 || tc->call > s->last) s->last = tc->call;
    s->records++;
    p->n++;
    if (tc->lost)
        p->lost++;
    else
        bump(p->status, tc->col[7].p, tc->col[7].len);
    add_who(s, tc);
    pick_fields(s, tc);
    add_io(s, tc);
    g_string_truncate(s->scratch, 0);
    perl_num(s->scratch, bucket_of(s, tc->call));
    bump(s->buckets, s->scratch->str, s->scratch->len);
    if (tc->has_reply) lat_add(p, (int64_t)((uint64_t)tc->reply - (uint64_t)tc->call));
}

/* Prints a table of counters as "TAG COUNT KEY" lines. */
static void put_counts(FILE *out, const char *tag, const char *prefix, GHashTable *h) {
    GHashTableIter it;
    gpointer k, v;
    g_hash_table_iter_init(&it, h);
    while (g_hash_table_iter_next(&it, &k, &v)) {
        const struct key *x = k;
        fprintf(out, "%s %" PRIu64 " %s", tag, *(uint64_t *)v, prefix);
        fwrite(x->p, 1, x->len, out);
        fputc('\n', out);
    }
}

/* Prints one procedure's lines: p, its s lines, l and its b lines. */
static void put_proc(FILE *out, const struct key *name, const struct proc *p) {
    GString *pre = g_string_new_len(name->p, (gssize)name->len);
    g_string_append_c(pre, ' ');
    fprintf(out, "p %" PRIu64 " %" PRIu64 " %s\n", p->n, p->lost, name->p);
    put_counts(out, "s", pre->str, p->status);
    if (p->lat) {
        const struct lat *l = p->lat;
        fprintf(out, "l %" PRId64 " %" PRId64 " %" PRId64 " %" PRId64 " %s\n", l->n, l->sum, l->min, l->max,
                name->p);
        put_counts(out, "b", pre->str, l->bins);
    }
    g_string_free(pre, TRUE);
}

/* Prints all the counters (the protocol at the top of this file). */
static void put_stats(FILE *out, const struct stats *s) {
    GHashTableIter it;
    gpointer k, v;
    fprintf(out, "h %d\n", BINS_PER_OCTAVE);
    fprintf(out, "n %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", s->records, s->reads,
            s->writes, s->read_bytes, s->write_bytes);
    if (s->records) fprintf(out, "f %" PRId64 " %" PRId64 "\n", s->first, s->last);
    g_hash_table_iter_init(&it, s->proc);
    while (g_hash_table_iter_next(&it, &k, &v))
        put_proc(out, k, v);
    put_counts(out, "c", "", s->client);
    put_counts(out, "u", "", s->user);
    put_counts(out, "t", "", s->buckets);
    put_counts(out, "d", "", s->dirs);
    put_counts(out, "o", "", s->files);
}

/* Reads and counts every line of in; a bad line is fatal with
 * SHOWN:LINE, as tbbt-summary's read_input. Returns 0 or 1 (exit code). */
static int read_all(struct stats *s, FILE *in, const char *shown) {
    struct tbbt_tc tc = {0};
    GString *err = g_string_new(NULL);
    char *line = NULL;
    size_t cap = 0, lineno = 0;
    ssize_t len;
    int rc = 0;
    while ((len = getline(&line, &cap, in)) >= 0) {
        lineno++;
        tbbt_tc_split(&tc, line, (size_t)len);
        if (tbbt_tc_check(&tc, ~0u, err) < 0) {
            fprintf(stderr, "%s: %s:%zu: ", PROG, shown, lineno);
            fwrite(err->str, 1, err->len, stderr);
            fputc('\n', stderr);
            rc = 1;
            break;
        }
        add_record(s, &tc);
    }
    if (!rc && ferror(in)) {
        fprintf(stderr, "%s: %s: read error: %s\n", PROG, shown, strerror(errno));
        rc = 1;
    }
    free(line);
    tbbt_tc_free(&tc);
    g_string_free(err, TRUE);
    return rc;
}

/* Sets the bucket width from the double Perl computed ("%a"). */
static int set_interval(struct stats *s, const char *text) {
    char *end;
    s->interval = strtod(text, &end);
    if (*text == 0 || *end != 0 || !(s->interval > 0)) return -1;
    s->interval_i = 0;
    if (s->interval == floor(s->interval) && s->interval < 9223372036854775807.0)
        s->interval_i = (int64_t)s->interval;
    return 0;
}

static void stats_init(struct stats *s) {
    memset(s, 0, sizeof(*s));
    s->proc = g_hash_table_new_full(key_hash, key_equal, g_free, proc_free);
    s->client = counts_new();
    s->user = counts_new();
    s->buckets = counts_new();
    s->dirs = counts_new();
    s->files = counts_new();
    s->scratch = g_string_new(NULL);
    s->user_key = g_string_new(NULL);
}

static void stats_free(struct stats *s) {
    GHashTable *t[] = {s->proc, s->client, s->user, s->buckets, s->dirs, s->files};
    for (size_t i = 0; i < G_N_ELEMENTS(t); i++)
        g_hash_table_destroy(t[i]);
    g_string_free(s->scratch, TRUE);
    g_string_free(s->user_key, TRUE);
}

/* The options: the table parses them and writes --help. */
static char *opt_interval, *opt_shown;
static GOptionEntry opt_table[] = {
    {"interval-ns", 0, 0, G_OPTION_ARG_STRING, &opt_interval, "bucket width in ns (C99 hex float)", "X"},
    {"shown", 0, 0, G_OPTION_ARG_STRING, &opt_shown, "input name in messages", "NAME"},
    {NULL, 0, 0, 0, NULL, NULL, NULL},
};

int main(int argc, char **argv) {
    tbbt_oom_on_failure("tbbt-summary"); /* a failed allocation: one line, exit 1 (lib/oom.h) */
    GOptionContext *ctx = g_option_context_new("<RECORDS-TEXT  (tbbt-summary's helper)");
    GError *gerr = NULL;
    struct stats s;
    int rc;
    g_option_context_add_main_entries(ctx, opt_table, NULL);
    stats_init(&s);
    if (!g_option_context_parse(ctx, &argc, &argv, &gerr) || argc != 1 || !opt_shown || !opt_interval ||
        set_interval(&s, opt_interval) < 0) {
        fprintf(stderr, "tbbt-xsummary: %s\n", gerr ? gerr->message : "usage: --interval-ns X --shown NAME");
        return 2;
    }
    g_option_context_free(ctx);
    rc = read_all(&s, stdin, opt_shown);
    if (rc == 0) {
        put_stats(stdout, &s);
        if (fflush(stdout) != 0 || ferror(stdout)) rc = 1;
    }
    stats_free(&s);
    return rc;
}
