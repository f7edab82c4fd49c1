/* augment_main.c -- tbbt-augment: add synthetic objects to a hierarchy
 * map's initial image until a target size and/or object count (paper
 * 3.2, 3.3.2; augment.h says what each parameter means).
 *
 *   tbbt-augment IN.hmap [-o OUT.hmap] --total-size 10G [options]
 *
 * Exit codes as in design.md: 0 done, 1 failed (unreadable or bad map,
 * cannot write; no output file is left behind), 2 bad usage. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>

#include <glib.h>

#include "outfile.h"
#include "augment.h"
#include "rectext.h"
#include "interrupt.h"
#include "opttab.h"
#include "usage.h"
#include "clock.h"
#include "version.h"

#define TOOL "tbbt-augment"
/* The forms of the command line, for usage errors (lib/usage.h); --help has the options. */
#define SYNOPSIS "tbbt-augment [-o OUT.hmap] (--total-size BYTES | --total-objects N) [OPTION...] IN.hmap"

struct aug_opts {
    char *output;
    char *total_size;
    char *total_objects;
    char *size_dist;
    double dir_ratio;
    double distortion;
    double merge;
    gint64 seed;
    char *owner;
    char *json;
    gboolean quiet;
};

static struct aug_opts opt;

/* The options, declared once (lib/opttab.h). */
static const struct tbbt_opt aug_opts[] = {
    {"output", 'o', TBBT_OPT_FILE, &opt.output, "FILE", .defhelp = "IN with .hmap replaced by .aug.hmap",
     .help = "Augmented map to write"},
    {"total-size", 's', TBBT_OPT_STRING, &opt.total_size, "BYTES",
     .help =
         "Target bytes of regular files in the whole initial image, extracted + synthetic (k/M/G/T = powers "
         "of 1024)"},
    {"total-objects", 'n', TBBT_OPT_STRING, &opt.total_objects, "N",
     .help =
         "Target number of objects (distinct IDs) in the whole initial image; with --total-size, the first "
         "target reached stops"},
    {"size-dist", 0, TBBT_OPT_STRING, &opt.size_dist, "LAW", "trace",
     .help =
         "File size distribution: trace (resample the extracted files' sizes; specsfs when fewer than 20), "
         "specsfs (SPEC SFS 2.0's table), lognormal:MU,SIGMA (of ln bytes), table:SIZE:WEIGHT,..."},
    {"dir-ratio", 0, TBBT_OPT_DOUBLE, &opt.dir_ratio, "R", "0.1", .dlo = 0, .dhi = 1000,
     .help = "Synthetic directories per synthetic file (0.1: about ten files a directory)"},
    {"distortion", 0, TBBT_OPT_DOUBLE, &opt.distortion, "D", "0.5", .dlo = 0, .dhi = 1,
     .help = "Imbalance among directories: directory weights U^-D (Zipf exponent D) for fan-out, and D = the "
             "directory's share of the variance of its files' size ranks"},
    {"merge", 0, TBBT_OPT_DOUBLE, &opt.merge, "M", "0.5", .dlo = 0, .dhi = 1,
     .help = "Share of synthetic files (and directories) placed directly in extracted directories; 0 = "
             "extracted and synthetic never share a directory but the root"},
    {"seed", 0, TBBT_OPT_INT64, &opt.seed, "N", "1", 0, INT64_MAX,
     .help = "Random seed: same input and seed, same output"},
    {"owner", 0, TBBT_OPT_STRING, &opt.owner, "UID:GID",
     .defhelp = "the most common owner of the extracted objects", .help = "uid:gid of the synthetic objects"},
    {"json", 0, TBBT_OPT_FILE, &opt.json, "FILE", .help = "Also write the summary as JSON to FILE"},
    {"quiet", 'q', TBBT_OPT_FLAG, &opt.quiet, .help = "Print only errors"},
    TBBT_OPT_END};

static const struct tbbt_cmd aug_cmd = {
    TOOL, SYNOPSIS, "IN.hmap - add synthetic objects to a hierarchy map",
    "Adds synthetic objects (origin s, existing before the trace, never deleted) to the map's initial "
    "image\n"
    "until --total-size and/or --total-objects is reached (the first reached stops).\n"
    "  --size-dist: the synthetic files' sizes are i.i.d. from this law whatever the other parameters.\n"
    "  --dir-ratio: synthetic directories = round(R x synthetic files); 0.1 = about ten files a "
    "directory,\n"
    "    the order of magnitude of the mean directory size in file-system content studies (Douceur and\n"
    "    Bolosky 1999, Agrawal et al. 2007); the summary shows the extracted image's own ratio.\n"
    "  --distortion D: each directory's weight is U^-D (U uniform): files choose directories, and new\n"
    "    directories their parents, in proportion to it (D = 0: all alike; D = 1: Zipf's law); D is "
    "also\n"
    "    the share of the variance of a file's size rank (normal scores) that is its directory's.\n"
    "  --merge M: each synthetic file and directory goes directly into an extracted directory with\n"
    "    probability M; the others go into a synthetic tree under <root>/tbbt-synthetic. Directories "
    "the\n"
    "    trace removes, renames away or creates, and the orphans placeholder, never get synthetic "
    "objects.\n"
    "Exit: 0 done, 1 failed (no output left behind), 2 usage.",
    aug_opts};

/* A usage error (lib/usage.h): the message, the synopsis, exit 2. */
#define usage_error(...) tbbt_usage_error(TOOL, SYNOPSIS, __VA_ARGS__)

/* Parses "UID:GID" into p. Returns 0 or -1. */
static int parse_owner(const char *s, struct tbbt_aug_params *p) {
    guint64 uid, gid;
    const char *colon = strchr(s, ':');
    if (!colon) return -1;
    char *u = g_strndup(s, (gsize)(colon - s));
    int ok = g_ascii_string_to_unsigned(u, 10, 0, UINT32_MAX, &uid, NULL) &&
             g_ascii_string_to_unsigned(colon + 1, 10, 0, UINT32_MAX, &gid, NULL);
    g_free(u);
    if (!ok) return -1;
    p->owner_set = 1, p->uid = (uint32_t)uid, p->gid = (uint32_t)gid;
    return 0;
}

/* Turns the options into parameters; exits 2 on any bad value (before a
 * file is touched). The distribution is owned by the caller. */
static void make_params(struct tbbt_aug_params *p, struct tbbt_aug_dist **distp) {
    tbbt_aug_params_default(p);
    if (opt.total_size && (tbbt_aug_parse_bytes(opt.total_size, &p->total_size) < 0 || !p->total_size))
        usage_error("--total-size %s: not a positive byte count (digits, optional k/M/G/T)", opt.total_size);
    guint64 n;
    if (opt.total_objects && (!g_ascii_string_to_unsigned(opt.total_objects, 10, 1, G_MAXUINT64, &n, NULL)))
        usage_error("--total-objects %s: not a positive number", opt.total_objects);
    p->total_objects = opt.total_objects ? n : 0;
    if (!p->total_size && !p->total_objects) usage_error("give --total-size and/or --total-objects");
    p->seed = (uint64_t)opt.seed;
    p->dir_ratio = opt.dir_ratio, p->distortion = opt.distortion, p->merge = opt.merge;
    if (opt.owner && parse_owner(opt.owner, p) < 0) usage_error("--owner %s: expected UID:GID", opt.owner);
    char err[512];
    *distp = tbbt_aug_dist_parse(opt.size_dist, err, sizeof(err));
    if (!*distp) usage_error("--size-dist %s: %s", opt.size_dist, err);
    p->dist =
        *distp; /* --dir-ratio, --distortion, --merge: the table's bounds (the library checks them too) */
}

/* Parses the command line; returns the input map's path. */
static const char *parse_args(int argc, char **argv, struct tbbt_aug_params *p,
                              struct tbbt_aug_dist **distp) {
    tbbt_opt_parse(&aug_cmd, &argc, &argv);
    if (argc < 2) usage_error("no input map given");
    if (argc > 2) usage_error("one input map only, got %d operands", argc - 1);
    make_params(p, distp);
    return argv[1];
}

/* IN with its .hmap replaced by .aug.hmap (or .aug.hmap appended). */
static char *default_output(const char *in) {
    size_t n = strlen(in);
    if (g_str_has_suffix(in, ".hmap") && n > 5) return g_strdup_printf("%.*s.aug.hmap", (int)(n - 5), in);
    return g_strconcat(in, ".aug.hmap", NULL);
}

/* The output's comment: the input's, then one line saying how it grew. */
static char *make_comment(const struct tbbt_aug *a, const struct tbbt_aug_params *p, const char *in) {
    GString *c = g_string_new(tbbt_aug_comment(a));
    const struct tbbt_aug_stats *s = tbbt_aug_stats(a);
    char *base = g_path_get_basename(in);
    if (c->len) g_string_append_c(c, '\n');
    g_string_append_printf(
        c,
        "augmented by tbbt-augment " TBBT_VERSION " from %s: size-dist %s, dir-ratio %g, "
        "distortion %g, merge %g, seed %llu, total-size %llu, total-objects %llu (0: none); added %llu "
        "objects",
        base, s->dist, p->dir_ratio, p->distortion, p->merge, (unsigned long long)p->seed,
        (unsigned long long)p->total_size, (unsigned long long)p->total_objects,
        (unsigned long long)s->added.objects);
    g_free(base);
    return g_string_free(c, FALSE);
}

/* Writes the JSON summary with the run's paths, time and memory. */
static int write_json(const char *path, const struct tbbt_aug *a, const char *in, const char *out,
                      double wall, double cpu) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    GString *j = g_string_new("{\"tool\":\"tbbt-augment " TBBT_VERSION "\",\"input\":");
    tbbt_json_str(j, in, strlen(in));
    g_string_append(j, ",\"output\":");
    tbbt_json_str(j, out, strlen(out));
    g_string_append_printf(j, ",\"wall_s\":%.6f,\"cpu_s\":%.6f,\"maxrss_kb\":%ld,\"summary\":", wall, cpu,
                           ru.ru_maxrss);
    tbbt_aug_report_json(a, j);
    g_string_append(j, "}\n");
    return tbbt_out_put("tbbt-augment", path, j);
}

int main(int argc, char **argv) {
    tbbt_interrupt_on_signal("tbbt-augment"); /* SIGINT, SIGTERM: temporaries removed, exit 3 */
    struct tbbt_aug_params p;
    struct tbbt_aug_dist *dist = NULL;
    const char *in = parse_args(argc, argv, &p, &dist);
    char *out = opt.output ? g_strdup(opt.output) : default_output(in);
    char err[1024], rerr[512];
    double w0 = tbbt_now_s(), c0 = tbbt_clock_s(CLOCK_PROCESS_CPUTIME_ID);
    struct tbbt_aug *a = tbbt_aug_new();
    int rc = tbbt_aug_load(a, in, err, sizeof(err));
    if (rc == 0 && tbbt_aug_run(a, &p, rerr, sizeof(rerr)) < 0) {
        g_snprintf(err, sizeof(err), "%s: %s", in, rerr);
        rc = -1;
    }
    char *comment = rc == 0 ? make_comment(a, &p, in) : NULL;
    if (rc == 0) rc = tbbt_aug_write(a, out, comment, err, sizeof(err));
    double wall = tbbt_now_s() - w0, cpu = tbbt_clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    if (rc != 0) {
        fprintf(stderr, "tbbt-augment: %s\n", err);
    } else {
        if (!opt.quiet) {
            tbbt_aug_report(a, stdout);
            printf("Wrote %s in %.3f s (%.3f s CPU)\n", out, wall, cpu);
        }
        if (opt.json && write_json(opt.json, a, in, out, wall, cpu) != 0) rc = -1;
    }
    g_free(comment);
    g_free(out);
    tbbt_aug_free(a);
    tbbt_aug_dist_free(dist);
    return rc == 0 ? 0 : 1;
}
