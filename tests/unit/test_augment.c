/* test_augment.c -- synthetic augmentation of the hierarchy map: the size
 * laws (Kolmogorov-Smirnov against the requested CDF, which must also
 * reject a wrong one), the directory/file ratio, the merge and distortion
 * factors, the targets, the map's order and names, reproducibility.
 *
 * Statistics use fixed seeds and stated tolerances: KS at alpha = 0.01
 * (D < 1.63/sqrt(n)), ratios within 10 % relative, merge shares within
 * 0.05. The CDFs are computed here from the parameters, not taken from
 * the code under test. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "augment.h"
#include "fsmodel.h"
#include "hmap.h"

/* ---- a little numerics of our own (the tests do not link libm) ---- */

/* e^x by halving x until small, a Taylor series, then squaring back. */
static double t_exp(double x) {
    int k = 0;
    while (x > 0.125 || x < -0.125)
        x /= 2, k++;
    double t = 1, s = 1;
    for (int n = 1; n < 16; n++)
        t *= x / n, s += t;
    while (k--)
        s *= s;
    return s;
}

/* ln x for x > 0: scale into [1,2) by powers of 2, then 2 atanh((x-1)/(x+1)). */
static double t_log(double x) {
    int e = 0;
    while (x >= 2)
        x /= 2, e++;
    while (x < 1)
        x *= 2, e--;
    double s = (x - 1) / (x + 1), s2 = s * s, t = s, sum = 0;
    for (int n = 1; n < 80; n += 2)
        sum += t / n, t *= s2;
    return 2 * sum + e * 0.69314718055994530942;
}

/* Standard normal CDF: erf(x) = 2/sqrt(pi) e^-x^2 sum 2^n x^(2n+1) / (2n+1)!!
 * (all terms positive: no cancellation). */
static double t_phi(double z) {
    double x = z / 1.41421356237309504880;
    if (x > 6) return 1;
    if (x < -6) return 0;
    double ax = x < 0 ? -x : x, term = ax, sum = ax;
    for (int n = 1; n < 400 && term > 1e-17 * sum; n++)
        term *= 2 * ax * ax / (2 * n + 1), sum += term;
    double erf = 1.12837916709551257390 * t_exp(-ax * ax) * sum;
    return 0.5 * (1 + (x < 0 ? -erf : erf));
}

/* |x|. */
static double fabs_(double x) {
    return x < 0 ? -x : x;
}

/* The numerics against known values. */
static void test_numerics(void **state) {
    (void)state;
    assert_true(fabs_(t_phi(1.0) - 0.8413447460685429) < 1e-12);
    assert_true(fabs_(t_phi(-2.5) - 0.0062096653257761) < 1e-12);
    assert_true(fabs_(t_log(10.0) - 2.302585092994046) < 1e-13);
    assert_true(fabs_(t_exp(5.0) - 148.4131591025766) < 1e-10);
}

/* ---- inputs ---- */

/* Adds an initial entry (create 0) with owner 1000:100. */
static void add(struct tbbt_aug *a, tbbt_id id, tbbt_id parent, uint32_t type, uint64_t size,
                const char *path, char origin) {
    g_autofree char *own = g_strdup(path); /* an entry's path is char * (the reader's) */
    struct tbbt_hm_entry e = {.id = id,
                              .parent = parent,
                              .del = TBBT_HM_NEVER,
                              .type = type,
                              .size = size,
                              .mode = type == TBBT_FT_DIR ? 0755 : 0644,
                              .uid = 1000,
                              .gid = 100,
                              .origin = origin,
                              .path = own};
    e.known = TBBT_HM_MODE | TBBT_HM_UID | TBBT_HM_GID | (type == TBBT_FT_REG ? TBBT_HM_SIZE : 0);
    tbbt_aug_add(a, &e);
}

/* A small extracted tree: the root, ndirs directories (each under the
 * root or an earlier directory), nfiles files spread over them with the
 * sizes sizes[i] (NULL: 1000 + i). IDs 1 .. 1 + ndirs + nfiles. */
static struct tbbt_aug *make_input(unsigned ndirs, unsigned nfiles, const uint64_t *sizes) {
    struct tbbt_aug *a = tbbt_aug_new();
    char **paths = g_new0(char *, ndirs + 2);
    add(a, 1, 0, TBBT_FT_DIR, 4096, ".", 'r');
    paths[1] = g_strdup("");
    for (unsigned d = 0; d < ndirs; d++) {
        tbbt_id id = 2 + d, parent = d < 3 ? 1 : 2 + (d * 7 + 3) % d;
        paths[id] = g_strdup_printf("%s%sdir%u", paths[parent], *paths[parent] ? "/" : "", d);
        add(a, id, parent, TBBT_FT_DIR, 4096, paths[id], 't');
    }
    for (unsigned i = 0; i < nfiles; i++) {
        tbbt_id parent = 1 + (i * 13) % (ndirs + 1);
        char *p = g_strdup_printf("%s%sfile%u", paths[parent], *paths[parent] ? "/" : "", i);
        add(a, 2 + ndirs + i, parent, TBBT_FT_REG, sizes ? sizes[i] : 1000 + i, p, 't');
        g_free(p);
    }
    for (unsigned d = 0; d < ndirs + 2; d++)
        g_free(paths[d]);
    g_free(paths);
    return a;
}

/* The fixture map tests/data/hmap-small.hmap (found through TBBT_SRC). */
static struct tbbt_aug *load_small(void) {
    const char *src = getenv("TBBT_SRC");
    char *path = g_build_filename(src ? src : ".", "tests", "data", "hmap-small.hmap", NULL);
    char err[512];
    struct tbbt_aug *a = tbbt_aug_new();
    int rc = tbbt_aug_load(a, path, err, sizeof(err));
    if (rc) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    g_free(path);
    return a;
}

/* ---- what the augmented map holds ---- */

struct got {
    tbbt_id id, parent;
    uint32_t type, mode, uid, gid, known;
    uint64_t size;
    int64_t create, del;
    char origin;
    char *path;
};

struct outmap {
    GArray *e; /* struct got, in output order */
};

/* foreach callback: keeps a copy of every entry. */
static int collect(void *ctx, const struct tbbt_hm_entry *e) {
    struct outmap *o = ctx;
    struct got g = {e->id,    e->parent, e->type,   e->mode, e->uid,    e->gid,
                    e->known, e->size,   e->create, e->del,  e->origin, g_strdup(e->path)};
    g_array_append_val(o->e, g);
    return 0;
}

/* Every entry of the augmented map, in output order. */
static struct outmap *out_of(const struct tbbt_aug *a) {
    struct outmap *o = g_new0(struct outmap, 1);
    o->e = g_array_new(FALSE, FALSE, sizeof(struct got));
    assert_int_equal(tbbt_aug_foreach(a, collect, o), 0);
    return o;
}

/* Frees an outmap and its paths. */
static void out_free(struct outmap *o) {
    for (guint i = 0; i < o->e->len; i++)
        g_free(g_array_index(o->e, struct got, i).path);
    g_array_free(o->e, TRUE);
    g_free(o);
}

#define GOT(o, i) (&g_array_index((o)->e, struct got, (i)))

/* Sizes of the synthetic files, ascending. */
static GArray *synth_sizes(const struct outmap *o) {
    GArray *s = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    for (guint i = 0; i < o->e->len; i++)
        if (GOT(o, i)->origin == 's' && GOT(o, i)->type == TBBT_FT_REG)
            g_array_append_val(s, GOT(o, i)->size);
    return s;
}

/* Runs an augmentation and checks it succeeded. */
static void run(struct tbbt_aug *a, const struct tbbt_aug_params *p) {
    char err[512];
    int rc = tbbt_aug_run(a, p, err, sizeof(err));
    if (rc) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
}

/* ---- Kolmogorov-Smirnov for integer-valued samples ----
 * cdf(v) = P(X <= v). D compares the empirical CDF with it on both sides
 * of every jump, which is exact for a discrete law and for a continuous
 * one alike. */
typedef double (*cdf_fn)(const void *law, uint64_t v);

/* qsort order of uint64_t values. */
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The KS statistic D of the sample (sorted in place) against cdf. */
static double ks_d(GArray *sizes, cdf_fn cdf, const void *law) {
    uint64_t *s = (uint64_t *)(void *)sizes->data;
    size_t n = sizes->len;
    qsort(s, n, sizeof(*s), cmp_u64);
    double d = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && s[j] == s[i]; j++)
            ;
        double below = s[i] ? cdf(law, s[i] - 1) : 0, at = cdf(law, s[i]);
        double d1 = (double)i / n - below, d2 = (double)j / n - at;
        if (d1 < 0) d1 = -d1;
        if (d2 < 0) d2 = -d2;
        if (d1 > d) d = d1;
        if (d2 > d) d = d2;
    }
    return d;
}

/* The critical D at alpha = 0.01 for n samples: 1.63 / sqrt(n). */
static double ks_crit(size_t n) {
    double x = (double)n, r = x; /* sqrt by Newton */
    for (int i = 0; i < 60; i++)
        r = 0.5 * (r + x / r);
    return 1.63 / r;
}

struct lognormal {
    double mu, sigma;
};

/* Sizes are exp(N(mu, sigma)) rounded to the nearest byte:
 * P(X <= v) = Phi((ln(v + 0.5) - mu) / sigma). */
static double lognormal_cdf(const void *law, uint64_t v) {
    const struct lognormal *l = law;
    return t_phi((t_log((double)v + 0.5) - l->mu) / l->sigma);
}

struct table {
    const uint64_t *size;
    const double *w;
    size_t n;
};

/* P(X <= v) under a weighted table (sizes may repeat). */
static double table_cdf(const void *law, uint64_t v) {
    const struct table *t = law;
    double below = 0, all = 0;
    for (size_t i = 0; i < t->n; i++) {
        all += t->w[i];
        if (t->size[i] <= v) below += t->w[i];
    }
    return below / all;
}

/* Lognormal sizes: KS accepts the requested law, with distortion 0 and
 * 0.9 (distortion moves sizes between directories, not the law), and
 * rejects a law with mu off by 0.1. */
static void test_ks_lognormal(void **state) {
    (void)state;
    static const double distortions[] = {0, 0.9};
    for (int k = 0; k < 2; k++) {
        struct tbbt_aug *a = make_input(3, 5, NULL);
        char err[256];
        struct tbbt_aug_dist *d = tbbt_aug_dist_parse("lognormal:8,1.5", err, sizeof(err));
        assert_non_null(d);
        struct tbbt_aug_params p;
        tbbt_aug_params_default(&p);
        p.dist = d, p.total_objects = 9 + 22000, p.distortion = distortions[k], p.seed = 11;
        run(a, &p);
        struct outmap *o = out_of(a);
        GArray *s = synth_sizes(o);
        assert_true(s->len >= 20000);
        struct lognormal right = {8, 1.5}, wrong = {8.1, 1.5};
        double dr = ks_d(s, lognormal_cdf, &right), dw = ks_d(s, lognormal_cdf, &wrong);
        printf("lognormal distortion %.1f: n %u, D %.4f (wrong law %.4f), critical %.4f\n", distortions[k],
               s->len, dr, dw, ks_crit(s->len));
        assert_true(dr < ks_crit(s->len));
        assert_true(dw > ks_crit(s->len));
        g_array_free(s, TRUE);
        out_free(o);
        tbbt_aug_dist_free(d);
        tbbt_aug_free(a);
    }
}

/* A table law: every size is one of the table's; KS accepts the table and
 * rejects the same sizes with other weights. */
static void test_ks_table(void **state) {
    (void)state;
    static const uint64_t sz[] = {1000, 5000, 20000, 1048576};
    static const double w[] = {1, 2, 3, 0.5}, w_wrong[] = {1.4, 2, 3, 0.5};
    struct tbbt_aug *a = make_input(3, 5, NULL);
    char err[256];
    struct tbbt_aug_dist *d = tbbt_aug_dist_parse("table:1000:1,5000:2,20000:3,1M:0.5", err, sizeof(err));
    assert_non_null(d);
    struct tbbt_aug_params p;
    tbbt_aug_params_default(&p);
    p.dist = d, p.total_objects = 9 + 22000, p.seed = 5;
    run(a, &p);
    struct outmap *o = out_of(a);
    GArray *s = synth_sizes(o);
    assert_true(s->len >= 20000);
    for (guint i = 0; i < s->len; i++) {
        uint64_t v = g_array_index(s, uint64_t, i);
        assert_true(v == sz[0] || v == sz[1] || v == sz[2] || v == sz[3]);
    }
    struct table right = {sz, w, 4}, wrong = {sz, w_wrong, 4};
    double dr = ks_d(s, table_cdf, &right), dw = ks_d(s, table_cdf, &wrong);
    printf("table: n %u, D %.4f (wrong weights %.4f), critical %.4f\n", s->len, dr, dw, ks_crit(s->len));
    assert_true(dr < ks_crit(s->len));
    assert_true(dw > ks_crit(s->len));
    g_array_free(s, TRUE);
    out_free(o);
    tbbt_aug_dist_free(d);
    tbbt_aug_free(a);
}

/* "trace" resamples the extracted files' sizes (KS against their
 * empirical law; a law with the top tenth of sizes replaced is rejected). */
static void test_ks_trace(void **state) {
    (void)state;
    enum { N = 200 };
    uint64_t sizes[N], wrong_sizes[N];
    double w[N];
    for (unsigned i = 0; i < N; i++) {
        sizes[i] = 1 + (uint64_t)i * i * 37 % 100000;
        wrong_sizes[i] = sizes[i] >= 90000 ? 50 : sizes[i];
        w[i] = 1;
    }
    struct tbbt_aug *a = make_input(10, N, sizes);
    struct tbbt_aug_params p;
    tbbt_aug_params_default(&p);
    p.total_objects = 1 + 10 + N + 22000, p.seed = 9;
    run(a, &p);
    assert_non_null(strstr(tbbt_aug_stats(a)->dist, "trace"));
    struct outmap *o = out_of(a);
    GArray *s = synth_sizes(o);
    assert_true(s->len >= 20000);
    struct table right = {sizes, w, N}, wrong = {wrong_sizes, w, N};
    double dr = ks_d(s, table_cdf, &right), dw = ks_d(s, table_cdf, &wrong);
    printf("trace: n %u, D %.4f (wrong law %.4f), critical %.4f\n", s->len, dr, dw, ks_crit(s->len));
    assert_true(dr < ks_crit(s->len));
    assert_true(dw > ks_crit(s->len));
    g_array_free(s, TRUE);
    out_free(o);
    tbbt_aug_free(a);
}

/* Too few extracted sizes: "trace" falls back to SPEC SFS 2.0's table
 * (sfs_c_dat.c: 33% 1 KB, 21% 2, 13% 4, 10% 8, 8% 16, 5% 32, 4% 64, 3% 128,
 * 2% 256, 1% 1024 KB), and says so. */
static void test_trace_fallback_specsfs(void **state) {
    (void)state;
    static const uint64_t sz[] = {1 << 10,  2 << 10,  4 << 10,   8 << 10,   16 << 10,
                                  32 << 10, 64 << 10, 128 << 10, 256 << 10, 1024 << 10};
    static const double w[] = {33, 21, 13, 10, 8, 5, 4, 3, 2, 1},
                        w_wrong[] = {28, 26, 13, 10, 8, 5, 4, 3, 2, 1};
    struct tbbt_aug *a = make_input(3, TBBT_AUG_TRACE_MIN - 1, NULL);
    struct tbbt_aug_params p;
    tbbt_aug_params_default(&p);
    p.total_objects = 4 + TBBT_AUG_TRACE_MIN - 1 + 22000;
    run(a, &p);
    assert_true(g_str_has_prefix(tbbt_aug_stats(a)->dist, "specsfs"));
    struct outmap *o = out_of(a);
    GArray *s = synth_sizes(o);
    struct table right = {sz, w, 10}, wrong = {sz, w_wrong, 10};
    double dr = ks_d(s, table_cdf, &right), dw = ks_d(s, table_cdf, &wrong);
    printf("specsfs: n %u, D %.4f (wrong weights %.4f), critical %.4f\n", s->len, dr, dw, ks_crit(s->len));
    assert_true(dr < ks_crit(s->len));
    assert_true(dw > ks_crit(s->len));
    g_array_free(s, TRUE);
    out_free(o);
    tbbt_aug_free(a);
}

/* Synthetic directories and files counted in the output. */
static void count_synth(const struct outmap *o, uint64_t *files, uint64_t *dirs) {
    *files = *dirs = 0;
    for (guint i = 0; i < o->e->len; i++)
        if (GOT(o, i)->origin == 's') {
            *files += GOT(o, i)->type == TBBT_FT_REG;
            *dirs += GOT(o, i)->type == TBBT_FT_DIR;
        }
}

/* Directories per file within 10 % of the requested ratio. */
static void test_dir_ratio(void **state) {
    (void)state;
    static const double ratios[] = {0.02, 0.1, 0.5};
    for (int k = 0; k < 3; k++) {
        struct tbbt_aug *a = make_input(5, 20, NULL);
        struct tbbt_aug_params p;
        tbbt_aug_params_default(&p);
        p.total_objects = 30000, p.dir_ratio = ratios[k], p.merge = 0.3;
        run(a, &p);
        struct outmap *o = out_of(a);
        uint64_t f, d;
        count_synth(o, &f, &d);
        double r = (double)d / (double)f;
        printf("dir ratio %.2f: %llu dirs / %llu files = %.4f\n", ratios[k], (unsigned long long)d,
               (unsigned long long)f, r);
        assert_true(r > ratios[k] * 0.9 && r < ratios[k] * 1.1);
        out_free(o);
        tbbt_aug_free(a);
    }
}

/* Per directory ID: whether it holds extracted (initial) and synthetic children. */
struct mix {
    int ext, syn;
};

/* The mix of every directory that holds initial children. Caller destroys. */
static GHashTable *mixes(const struct outmap *o) {
    GHashTable *h = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
    for (guint i = 0; i < o->e->len; i++) {
        const struct got *g = GOT(o, i);
        if (g->create != 0 || !g->parent) continue;
        struct mix *m = g_hash_table_lookup(h, &g->parent);
        if (!m) {
            tbbt_id *k = g_new(tbbt_id, 1);
            *k = g->parent;
            g_hash_table_insert(h, k, m = g_new0(struct mix, 1));
        }
        if (g->origin == 's')
            m->syn = 1;
        else
            m->ext = 1;
    }
    return h;
}

/* IDs of the extracted directories that must stay untouched in the
 * fixture: removed by the trace (14), the orphans (22), created by the
 * trace (28). */
static void assert_untouched(const struct outmap *o) {
    for (guint i = 0; i < o->e->len; i++) {
        const struct got *g = GOT(o, i);
        if (g->origin == 's') assert_true(g->parent != 14 && g->parent != 22 && g->parent != 28);
    }
}

/* Merge 0: no directory but the root holds extracted and synthetic
 * children; 1: every synthetic file is in an extracted directory; 0.5:
 * that share within 0.05. Never into directories the trace removes or
 * creates, nor the orphans. */
static void test_merge(void **state) {
    (void)state;
    static const double merges[] = {0, 0.5, 1};
    for (int k = 0; k < 3; k++) {
        struct tbbt_aug *a = load_small();
        struct tbbt_aug_params p;
        tbbt_aug_params_default(&p);
        p.total_objects = 26 + 22000, p.merge = merges[k], p.seed = 21;
        run(a, &p);
        struct outmap *o = out_of(a);
        tbbt_id maxin = 29;
        uint64_t files = 0, in_ext = 0;
        for (guint i = 0; i < o->e->len; i++) {
            const struct got *g = GOT(o, i);
            if (g->origin != 's' || g->type != TBBT_FT_REG) continue;
            files++;
            in_ext += g->parent <= maxin;
        }
        double share = (double)in_ext / (double)files;
        printf("merge %.1f: %.4f of %llu synthetic files in extracted directories\n", merges[k], share,
               (unsigned long long)files);
        assert_untouched(o);
        if (merges[k] == 0) {
            GHashTable *h = mixes(o);
            GHashTableIter it;
            gpointer key, val;
            g_hash_table_iter_init(&it, h);
            while (g_hash_table_iter_next(&it, &key, &val))
                if (*(tbbt_id *)key != 1) assert_false(((struct mix *)val)->ext && ((struct mix *)val)->syn);
            g_hash_table_destroy(h);
            assert_int_equal(in_ext, 0);
        } else if (merges[k] == 1) {
            assert_int_equal(in_ext, files);
        } else {
            assert_true(share > 0.45 && share < 0.55);
        }
        out_free(o);
        tbbt_aug_free(a);
    }
}

/* Gini coefficient of n counts. */
static double gini(uint64_t *c, size_t n) {
    qsort(c, n, sizeof(*c), cmp_u64);
    double num = 0, sum = 0;
    for (size_t i = 0; i < n; i++)
        num += (2.0 * (i + 1) - n - 1) * c[i], sum += c[i];
    return sum ? num / (n * sum) : 0;
}

/* Fan-out and size imbalance among the synthetic directories of one
 * augmentation (merge 0): the Gini coefficient of files per directory, and
 * the share of the variance of ln(size) between directories. */
static void imbalance(double distortion, double *g, double *between) {
    struct tbbt_aug *a = make_input(3, 5, NULL);
    char err[256];
    struct tbbt_aug_dist *d = tbbt_aug_dist_parse("lognormal:9,2", err, sizeof(err));
    struct tbbt_aug_params p;
    tbbt_aug_params_default(&p);
    p.dist = d, p.total_objects = 9 + 33000, p.merge = 0, p.distortion = distortion, p.seed = 4;
    run(a, &p);
    struct outmap *o = out_of(a);
    GHashTable *idx = g_hash_table_new(g_int64_hash, g_int64_equal); /* synthetic dir ID -> 1 + slot */
    GArray *cnt = g_array_new(FALSE, TRUE, sizeof(uint64_t));
    GArray *sum = g_array_new(FALSE, TRUE, sizeof(double));
    double all = 0, all2 = 0;
    uint64_t n = 0;
    for (guint i = 0; i < o->e->len; i++) {
        struct got *e = GOT(o, i);
        if (e->origin == 's' && e->type == TBBT_FT_DIR) {
            g_hash_table_insert(idx, &e->id, GUINT_TO_POINTER(cnt->len + 1));
            g_array_set_size(cnt, cnt->len + 1);
            g_array_set_size(sum, sum->len + 1);
        } else if (e->origin == 's') {
            guint k = GPOINTER_TO_UINT(g_hash_table_lookup(idx, &e->parent)) - 1;
            double x = t_log((double)e->size + 1);
            g_array_index(cnt, uint64_t, k)++;
            g_array_index(sum, double, k) += x;
            all += x, all2 += x * x, n++;
        }
    }
    double mean = all / n, total = all2 - n * mean * mean, betw = 0;
    for (guint k = 0; k < cnt->len; k++) {
        uint64_t c = g_array_index(cnt, uint64_t, k);
        if (c)
            betw +=
                c * (g_array_index(sum, double, k) / c - mean) * (g_array_index(sum, double, k) / c - mean);
    }
    *between = betw / total;
    *g = gini((uint64_t *)(void *)cnt->data, cnt->len);
    g_hash_table_destroy(idx);
    g_array_free(cnt, TRUE);
    g_array_free(sum, TRUE);
    out_free(o);
    tbbt_aug_dist_free(d);
    tbbt_aug_free(a);
}

/* Distortion 0 vs 0.9: files per directory clearly more unequal (Gini),
 * sizes clearly more directory-bound (between-directory variance share). */
static void test_distortion(void **state) {
    (void)state;
    double g0, g9, b0, b9;
    imbalance(0, &g0, &b0);
    imbalance(0.9, &g9, &b9);
    printf("distortion 0: Gini %.3f, between-dir share %.3f; 0.9: Gini %.3f, share %.3f\n", g0, b0, g9, b9);
    assert_true(g0 < 0.35);
    assert_true(g9 > g0 + 0.3);
    assert_true(b0 < 0.2);
    assert_true(b9 > 0.6);
}

/* The size target is reached and passed by less than one file; with
 * both targets the first reached stops. */
static void test_total_size(void **state) {
    (void)state;
    static const char *laws[] = {"specsfs", "lognormal:10,1.2"};
    static const uint64_t targets[] = {100ull << 20, 1ull << 30};
    for (int k = 0; k < 2; k++) {
        struct tbbt_aug *a = load_small();
        char err[256];
        struct tbbt_aug_dist *d = tbbt_aug_dist_parse(laws[k], err, sizeof(err));
        struct tbbt_aug_params p;
        tbbt_aug_params_default(&p);
        p.dist = d, p.total_size = targets[k], p.seed = 100 + k;
        run(a, &p);
        struct outmap *o = out_of(a);
        uint64_t total = 0, maxs = 0;
        GHashTable *seen = g_hash_table_new(g_int64_hash, g_int64_equal);
        for (guint i = 0; i < o->e->len; i++) {
            struct got *g = GOT(o, i);
            if (g->create || g->type != TBBT_FT_REG || g_hash_table_contains(seen, &g->id)) continue;
            g_hash_table_add(seen, &g->id);
            total += g->size;
            if (g->origin == 's' && g->size > maxs) maxs = g->size;
        }
        printf("%s: target %llu, total %llu (over by %llu, largest synthetic file %llu)\n", laws[k],
               (unsigned long long)targets[k], (unsigned long long)total,
               (unsigned long long)(total - targets[k]), (unsigned long long)maxs);
        assert_true(total >= targets[k]);
        assert_true(total - targets[k] < maxs);
        const struct tbbt_aug_stats *st = tbbt_aug_stats(a);
        assert_int_equal(st->extracted.bytes + st->added.bytes, total);
        assert_true(st->size_reached);
        g_hash_table_destroy(seen);
        out_free(o);
        tbbt_aug_dist_free(d);
        tbbt_aug_free(a);
    }
    /* Both targets: the object count is reached long before 1 TiB. */
    struct tbbt_aug *a = load_small();
    struct tbbt_aug_params p;
    tbbt_aug_params_default(&p);
    p.total_size = 1ull << 40, p.total_objects = 1000;
    run(a, &p);
    const struct tbbt_aug_stats *st = tbbt_aug_stats(a);
    assert_true(st->objects_reached && !st->size_reached);
    assert_true(st->extracted.objects + st->added.objects >= 1000);
    assert_true(st->extracted.objects + st->added.objects <= 1001); /* a file and a directory at once */
    tbbt_aug_free(a);
}

/* A temporary directory, removed with its files. */
static char *tmpdir(void) {
    GError *ge = NULL;
    char *d = g_dir_make_tmp("test_augment.XXXXXX", &ge);
    assert_non_null(d);
    return d;
}

/* Removes the directory d, its files, and frees d. */
static void rmtree(char *d) {
    GDir *dir = g_dir_open(d, 0, NULL);
    const char *n;
    while (dir && (n = g_dir_read_name(dir))) {
        char *p = g_build_filename(d, n, NULL);
        g_unlink(p);
        g_free(p);
    }
    if (dir) g_dir_close(dir);
    g_rmdir(d);
    g_free(d);
}

/* The written map reads back through tbbt_hmapr_next (which checks that
 * every parent is on an earlier line) with every entry; the input's
 * initial entries come first in their order and its later ones last;
 * synthetic entries are 's', create 0, never deleted, mode 0644/0755,
 * the common owner, fresh IDs, names unique in their directory and unlike
 * the input's ("f1" and "tbbt-synthetic" are taken in the fixture's root). */
static void test_written_map(void **state) {
    (void)state;
    struct tbbt_aug *a = load_small();
    struct tbbt_aug_params p;
    tbbt_aug_params_default(&p);
    p.total_objects = 5000, p.merge = 0.7, p.seed = 2;
    run(a, &p);
    char *dir = tmpdir(), *path = g_build_filename(dir, "out.hmap", NULL), err[512];
    assert_int_equal(tbbt_aug_write(a, path, "test", err, sizeof(err)), 0);
    struct outmap *o = out_of(a);
    struct tbbt_hmapr *r = tbbt_hmapr_open(path, err, sizeof(err));
    assert_non_null(r);
    struct tbbt_hm_entry e;
    guint n = 0, clashed = 0;
    int rc;
    GHashTable *names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    GHashTable *ids = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    while ((rc = tbbt_hmapr_next(r, &e, err, sizeof(err))) == 1) {
        const struct got *g = GOT(o, n);
        assert_int_equal(e.id, g->id);
        assert_string_equal(e.path, g->path);
        if (n < 27) assert_int_equal(e.origin == 's', 0);   /* the 27 initial entries of the input first */
        if (n >= o->e->len - 3) assert_true(e.create != 0); /* its 3 later ones last */
        char *base = strrchr(e.path, '/') ? strrchr(e.path, '/') + 1 : e.path;
        char *key = g_strdup_printf("%llu/%s", (unsigned long long)e.parent, base);
        if (e.create == 0 && e.parent) {
            assert_false(g_hash_table_contains(names, key)); /* unique in its directory */
            g_hash_table_add(names, key);
        } else
            g_free(key);
        if (e.origin == 's') {
            assert_true(e.id >= TBBT_AUG_ID_BASE); /* above any ID the passes give */
            clashed += strcmp(e.path, "f1.1") == 0;
            assert_false(g_hash_table_contains(ids, &e.id));
            tbbt_id *k = g_new(tbbt_id, 1);
            *k = e.id;
            g_hash_table_add(ids, k);
            assert_int_equal(e.create, 0);
            assert_true(e.del == TBBT_HM_NEVER);
            assert_int_equal(e.mode, e.type == TBBT_FT_DIR ? 0755 : 0644);
            assert_int_equal(e.uid, 1000);
            assert_int_equal(e.gid, 100);
        }
        n++;
    }
    if (rc) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    assert_int_equal(n, o->e->len);
    assert_int_equal(clashed, 1); /* the first synthetic object, a file in the root: "f1" is the input's */
    assert_int_equal(g_hash_table_size(ids), tbbt_aug_stats(a)->added.objects);
    assert_int_equal(n, 30 + tbbt_aug_stats(a)->added.objects);
    assert_string_equal(tbbt_hmapr_comment(r), "test");
    tbbt_hmapr_close(r);
    g_hash_table_destroy(names);
    g_hash_table_destroy(ids);
    out_free(o);
    g_free(path);
    rmtree(dir);
    tbbt_aug_free(a);
}

/* The synthetic tree is a tree of realistic depth, not one flat
 * directory: with 20 000 files (2 000 directories) in synthetic
 * directories it is at least 5 levels deep; the stats' depths match the
 * paths. (A random tree of 2 000 nodes grown by preferential attachment
 * is about (2/3) ln 2000 = 5 deep on average, and its deepest branch
 * deeper.) */
static void test_depth(void **state) {
    (void)state;
    struct tbbt_aug *a = make_input(3, 5, NULL);
    struct tbbt_aug_params p;
    tbbt_aug_params_default(&p);
    p.total_objects = 9 + 22000, p.merge = 0, p.distortion = 0.5;
    run(a, &p);
    struct outmap *o = out_of(a);
    uint32_t maxd = 0, maxdir = 0;
    for (guint i = 0; i < o->e->len; i++) {
        const struct got *g = GOT(o, i);
        if (g->origin != 's') continue;
        uint32_t dd = 1;
        for (const char *c = g->path; *c; c++)
            dd += *c == '/';
        if (dd > maxd) maxd = dd;
        if (g->type == TBBT_FT_DIR && dd > maxdir) maxdir = dd;
    }
    const struct tbbt_aug_stats *st = tbbt_aug_stats(a);
    printf("depth: synthetic tree %u levels, deepest synthetic path %u components\n", st->synth_depth, maxd);
    assert_int_equal(st->added.max_depth, maxd);
    assert_int_equal(st->synth_depth, maxdir); /* merge 0: the top is in the root, at depth 1 */
    assert_true(st->synth_depth >= 5);
    out_free(o);
    tbbt_aug_free(a);
}

/* Writes one augmentation of the fixture with this seed; returns the bytes. */
static char *augmented(const char *dir, uint64_t seed, const char *name, gsize *len) {
    struct tbbt_aug *a = load_small();
    struct tbbt_aug_params p;
    tbbt_aug_params_default(&p);
    p.total_size = 50ull << 20, p.seed = seed;
    run(a, &p);
    char *path = g_build_filename(dir, name, NULL), err[512], *bytes;
    assert_int_equal(tbbt_aug_write(a, path, NULL, err, sizeof(err)), 0);
    assert_true(g_file_get_contents(path, &bytes, len, NULL));
    g_free(path);
    tbbt_aug_free(a);
    return bytes;
}

/* Same input and seed: the same bytes; another seed: other bytes. */
static void test_reproducible(void **state) {
    (void)state;
    char *dir = tmpdir();
    gsize l1, l2, l3;
    char *m1 = augmented(dir, 7, "a.hmap", &l1), *m2 = augmented(dir, 7, "b.hmap", &l2),
         *m3 = augmented(dir, 8, "c.hmap", &l3);
    assert_int_equal(l1, l2);
    assert_memory_equal(m1, m2, l1);
    assert_true(l1 != l3 || memcmp(m1, m3, l1) != 0);
    g_free(m1), g_free(m2), g_free(m3);
    rmtree(dir);
}

/* Bad parameters and maps are refused with a message; distributions and
 * byte counts parse as documented. */
static void test_errors(void **state) {
    (void)state;
    char err[256];
    static const char *bad[] = {"",           "normal",   "lognormal:1", "lognormal:1,-1", "lognormal:x,1",
                                "table:",     "table:10", "table:10:0",  "table:10:-1",    "table:1Q:1",
                                "table:10:1,"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = 0;
        assert_null(tbbt_aug_dist_parse(bad[i], err, sizeof(err)));
        assert_true(err[0] != 0 && !strchr(err, '\n'));
    }
    uint64_t v;
    assert_int_equal(tbbt_aug_parse_bytes("10G", &v), 0);
    assert_true(v == 10ull << 30);
    assert_int_equal(tbbt_aug_parse_bytes("1.5k", &v), 0);
    assert_true(v == 1536);
    assert_int_equal(tbbt_aug_parse_bytes("12", &v), 0);
    assert_true(v == 12);
    assert_int_equal(tbbt_aug_parse_bytes("2T", &v), 0);
    assert_true(v == 2ull << 40);
    static const char *badb[] = {"", "k", "10Q", "1.", "-1", "99999999999T", "1 k"};
    for (size_t i = 0; i < sizeof(badb) / sizeof(badb[0]); i++)
        assert_int_equal(tbbt_aug_parse_bytes(badb[i], &v), -1);

    struct tbbt_aug_params p;
    tbbt_aug_params_default(&p);
    struct tbbt_aug *a = make_input(2, 2, NULL);
    assert_int_equal(tbbt_aug_run(a, &p, err, sizeof(err)), -1); /* no target */
    p.total_objects = 100, p.distortion = 1.5;
    assert_int_equal(tbbt_aug_run(a, &p, err, sizeof(err)), -1);
    p.distortion = 0.5, p.merge = -0.1;
    assert_int_equal(tbbt_aug_run(a, &p, err, sizeof(err)), -1);
    tbbt_aug_free(a);

    a = tbbt_aug_new(); /* no image root */
    add(a, 2, 7, TBBT_FT_DIR, 0, "x", 't');
    p.merge = 0.5;
    assert_int_equal(tbbt_aug_run(a, &p, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "parent"));
    tbbt_aug_free(a);

    /* Too many objects for the memory guard. */
    a = make_input(2, 2, NULL);
    struct tbbt_aug_dist *d = tbbt_aug_dist_parse("table:1:1", err, sizeof(err));
    p.dist = d, p.total_objects = 0, p.total_size = 1ull << 40;
    assert_int_equal(tbbt_aug_run(a, &p, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "limit"));
    tbbt_aug_dist_free(d);
    tbbt_aug_free(a);
}

/* --owner replaces the most common owner. */
static void test_owner(void **state) {
    (void)state;
    struct tbbt_aug *a = load_small();
    struct tbbt_aug_params p;
    tbbt_aug_params_default(&p);
    p.total_objects = 100, p.owner_set = 1, p.uid = 42, p.gid = 43;
    run(a, &p);
    struct outmap *o = out_of(a);
    for (guint i = 0; i < o->e->len; i++)
        if (GOT(o, i)->origin == 's') assert_true(GOT(o, i)->uid == 42 && GOT(o, i)->gid == 43);
    out_free(o);
    tbbt_aug_free(a);
}

/* Writes the augmented map and reads it back through tbbt_hmapr_next
 * (parents first, end line); returns the number of entries. */
static guint write_read(const struct tbbt_aug *a) {
    char *dir = tmpdir(), *path = g_build_filename(dir, "m.hmap", NULL), err[512];
    assert_int_equal(tbbt_aug_write(a, path, NULL, err, sizeof(err)), 0);
    struct tbbt_hmapr *r = tbbt_hmapr_open(path, err, sizeof(err));
    assert_non_null(r);
    struct tbbt_hm_entry e;
    guint n = 0;
    int rc;
    while ((rc = tbbt_hmapr_next(r, &e, err, sizeof(err))) == 1)
        n++;
    if (rc) fprintf(stderr, "%s\n", err);
    assert_int_equal(rc, 0);
    tbbt_hmapr_close(r);
    g_free(path);
    rmtree(dir);
    return n;
}

/* A map as pass 3 writes it when the export root was never seen: no "."
 * entry, placeholder tops with parent 0 (one of them the orphans). The
 * synthetic top goes beside them (parent 0), its name clear of theirs;
 * merged objects go into the open tops only. With no open directory at
 * all, merge is 0 in effect: everything under the top. */
static void test_no_root(void **state) {
    (void)state;
    struct tbbt_aug *a = tbbt_aug_new();
    add(a, 5, 0, TBBT_FT_DIR, 0, "tbbt-subtree-5", 'p');
    add(a, 6, 5, TBBT_FT_REG, 10, "tbbt-subtree-5/x", 't');
    add(a, 7, 0, TBBT_FT_DIR, 0, "tbbt-synthetic", 'p'); /* a top named like ours */
    add(a, 8, 0, TBBT_FT_DIR, 0, "nameless", 'o');
    add(a, 9, 8, TBBT_FT_REG, 10, "nameless/9", 'o');
    struct tbbt_aug_params p;
    tbbt_aug_params_default(&p);
    p.total_objects = 2000, p.merge = 0.5;
    run(a, &p);
    struct outmap *o = out_of(a);
    tbbt_id top = 0;
    uint64_t in5 = 0, in7 = 0;
    for (guint i = 0; i < o->e->len; i++) {
        const struct got *g = GOT(o, i);
        if (g->origin != 's') continue;
        if (g->parent == 0) {
            assert_int_equal(top, 0); /* one synthetic top */
            assert_string_equal(g->path, "tbbt-synthetic.1");
            top = g->id;
        }
        assert_true(g->parent != 8 && g->parent != 9);
        in5 += g->parent == 5, in7 += g->parent == 7;
    }
    assert_true(top != 0 && in5 > 0 && in7 > 0);
    assert_int_equal(write_read(a), o->e->len);
    out_free(o);
    tbbt_aug_free(a);

    a = tbbt_aug_new(); /* nothing open: only the orphans */
    add(a, 8, 0, TBBT_FT_DIR, 0, "nameless", 'o');
    add(a, 9, 8, TBBT_FT_REG, 10, "nameless/9", 'o');
    run(a, &p);
    assert_true(tbbt_aug_stats(a)->merge_used == 0);
    assert_int_equal(tbbt_aug_stats(a)->merged_files, 0);
    assert_int_equal(tbbt_aug_stats(a)->extracted.objects + tbbt_aug_stats(a)->added.objects, 2000);
    o = out_of(a);
    assert_int_equal(write_read(a), o->e->len);
    out_free(o);
    tbbt_aug_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numerics),
        cmocka_unit_test(test_ks_lognormal),
        cmocka_unit_test(test_ks_table),
        cmocka_unit_test(test_ks_trace),
        cmocka_unit_test(test_trace_fallback_specsfs),
        cmocka_unit_test(test_dir_ratio),
        cmocka_unit_test(test_merge),
        cmocka_unit_test(test_distortion),
        cmocka_unit_test(test_total_size),
        cmocka_unit_test(test_written_map),
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_reproducible),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_owner),
        cmocka_unit_test(test_no_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
