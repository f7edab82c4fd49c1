/* split_main.c -- tbbt-split: spatial scale-down (paper 3.4.2).
 *
 *   tbbt-split [--parts K] [--select LIST] [--shared PATH]... [--force]
 *              [-o PREFIX] TRACE.tbbt [TRACE.hmap]
 *
 * Divides a prepared trace (tbbt-prep's records, with pass 3's victim
 * IDs, and its hierarchy map) into K parts made of whole groups of
 * objects accessed together (split.h says which touches join groups), and
 * writes each as PREFIX.partI.tbbt with PREFIX.partI.hmap, the map
 * restricted to the objects its records touch and their ancestors (the
 * image tbbt-init builds for it); or, with --select 0,2, the chosen parts
 * together as PREFIX.part0+2.tbbt and .hmap. Prints the number of groups
 * and each part's share. A split that breaks a dependency (a record that
 * locks an object a record of another output locks, one of them for
 * writing) is refused, naming the first such record, unless --force.
 * Nothing is written when the split is refused; files appear under their
 * final names only when complete.
 * Exit: 0 done, 1 failed (unreadable or corrupt input, fewer groups than
 * parts, a crossing dependency without --force, unwritable output),
 * 2 usage, 3 interrupted (SIGINT, SIGTERM: nothing left behind). */
#include <glib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "oom.h"
#include "recfile.h"
#include "split.h"
#include "submap.h"
#include "opttab.h"
#include "usage.h"

#define TOOL "tbbt-split"
/* The forms of the command line, for usage errors (lib/usage.h); --help has the options. */
#define SYNOPSIS                                                                                             \
    "tbbt-split [--parts K] [--select LIST] [--shared PATH]... [OPTION...] TRACE.tbbt [TRACE.hmap]"

struct split_cli {
    gint parts;
    char *select, *prefix;
    char **shared;
    gboolean force, quiet;
};

static struct split_cli cli;

/* The options, declared once (lib/opttab.h). */
static const struct tbbt_opt split_opts[] = {
    {"parts", 'k', TBBT_OPT_INT, &cli.parts, "K", "2", 2, TBBT_SPLIT_MAX_PARTS, .help = "Parts to make"},
    {"select", 's', TBBT_OPT_STRING, &cli.select, "LIST",
     .help = "Write only these parts, together as one trace (comma-separated part numbers)"},
    {"shared", 0, TBBT_OPT_LIST, &cli.shared, "PATH",
     .help =
         "Treat the directory at PATH of the map (\".\": the image root) as a shared ancestor even though "
         "records change it (those records then cross parts; repeatable)"},
    {"force", 'f', TBBT_OPT_FLAG, &cli.force, .help = "Split even when a dependency crosses parts"},
    {"output", 'o', TBBT_OPT_FILE, &cli.prefix, "PREFIX", .defhelp = "TRACE without .tbbt",
     .help = "Output prefix"},
    {"quiet", 'q', TBBT_OPT_FLAG, &cli.quiet, .help = "Print only errors"},
    TBBT_OPT_END};

static const struct tbbt_cmd split_cmd = {
    TOOL, SYNOPSIS, "TRACE.tbbt [TRACE.hmap] - divide a trace into parts that touch disjoint objects",
    "Exit: 0 done, 1 failed or refused, 2 usage, 3 interrupted.", split_opts};

static volatile sig_atomic_t interrupted;

/* SIGINT, SIGTERM: the reading loops stop, the outputs are discarded. */
static void on_signal(int sig) {
    (void)sig;
    interrupted = 1;
}

/* A usage error (lib/usage.h): the message, the synopsis, exit 2. */
#define usage(...) tbbt_usage_error(TOOL, SYNOPSIS, __VA_ARGS__)

/* Parses --select into a part mask; exits 2 on a bad list. */
static uint64_t parse_select(const char *list, int parts) {
    uint64_t mask = 0;
    char **v = g_strsplit(list, ",", -1);
    for (char **p = v; *p; p++) {
        char *end;
        long n = strtol(*p, &end, 10);
        if (!**p || *end || n < 0 || n >= parts)
            usage("--select: \"%s\" is not a part number 0..%d", *p, parts - 1);
        if (mask & (1ull << n)) usage("--select: a part is named twice");
        mask |= 1ull << n;
    }
    g_strfreev(v);
    if (!mask) usage("--select: no part named");
    return mask;
}

/* What the command works on, once the options are checked. */
struct job {
    const char *trace;
    char *map, *prefix;
    uint64_t select; /* parts written together; 0 = each its own */
    int nunits, unit[TBBT_SPLIT_MAX_PARTS];
    char *out_rec[TBBT_SPLIT_MAX_PARTS], *out_map[TBBT_SPLIT_MAX_PARTS];
};

/* The name of the output of unit u: PREFIX.partI or PREFIX.partI+J. */
static char *unit_name(const struct job *j, int u, int parts) {
    GString *s = g_string_new(j->prefix);
    g_string_append(s, ".part");
    int any = 0;
    for (int p = 0; p < parts; p++)
        if (j->unit[p] == u && (!j->select || (j->select >> p) & 1))
            g_string_append_printf(s, any++ ? "+%d" : "%d", p);
    return g_string_free(s, FALSE);
}

/* Checks the options and arguments and fills j; exits 2 on bad usage. */
static void parse(int argc, char **argv, struct job *j) {
    tbbt_opt_parse(&split_cmd, &argc, &argv);
    if (argc < 2 || argc > 3) usage("expected TRACE.tbbt and optionally its map");
    j->trace = argv[1];
    struct stat sb;
    if (stat(j->trace, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        /* it is read twice (analysis, then the parts): a pipe would be empty the second time */
        fprintf(stderr, "tbbt-split: %s: not a regular file (the trace is read twice)\n", j->trace);
        exit(1);
    }
    size_t n = strlen(j->trace);
    if (n > 5 && g_str_has_suffix(j->trace, ".tbbt")) n -= 5;
    j->map = argc == 3 ? g_strdup(argv[2]) : g_strdup_printf("%.*s.hmap", (int)n, j->trace);
    j->prefix = cli.prefix ? g_strdup(cli.prefix) : g_strndup(j->trace, n);
    if (!*j->prefix) usage("--output: empty prefix");
    j->select = cli.select ? parse_select(cli.select, cli.parts) : 0;
    j->nunits = j->select ? 1 : cli.parts;
    for (int p = 0; p < cli.parts; p++)
        j->unit[p] = !j->select ? p : ((j->select >> p) & 1) ? 0 : 1;
    for (int u = 0; u < j->nunits; u++) {
        char *base = unit_name(j, u, cli.parts);
        j->out_rec[u] = g_strconcat(base, ".tbbt", NULL);
        j->out_map[u] = g_strconcat(base, ".hmap", NULL);
        g_free(base);
    }
}

/* Reads every record into the analysis. Returns 0, or -1 with the
 * reader's message printed. */
static int analyse(const struct job *j, struct tbbt_split *s) {
    char err[512];
    struct tbbt_recreader *rd = tbbt_recr_open(j->trace, err, sizeof(err));
    if (!rd) {
        fprintf(stderr, "tbbt-split: %s\n", err);
        return -1;
    }
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    int rc = 0;
    while (!interrupted && (rc = tbbt_recr_next(rd, &r)) == 1)
        tbbt_split_put(s, &r);
    if (rc < 0) fprintf(stderr, "tbbt-split: %s\n", tbbt_recr_error(rd));
    tbbt_rec_free(&r);
    tbbt_recr_close(rd);
    return rc;
}

/* Declares the --shared directories. Exits 2 on a path the map lacks. */
static void declare_shared(struct tbbt_split *s, const struct tbbt_submap *m, const char *map) {
    for (char **p = cli.shared; p && *p; p++) {
        tbbt_id id = tbbt_submap_dir(m, *p);
        if (!id) usage("--shared %s: no directory with that path in %s", *p, map);
        tbbt_split_add_shared(s, id);
    }
}

/* Refuses a split that breaks a dependency unless --force. Returns 0 to
 * go on, -1 (message printed) to stop. Sets *cross to the count. */
static int check_crossings(const struct job *j, const struct tbbt_split *s, uint64_t *cross) {
    uint64_t first = 0;
    tbbt_id obj = 0;
    *cross = tbbt_split_crossings(s, j->unit, &first, &obj);
    if (!*cross || cli.force) return 0;
    fprintf(
        stderr,
        "tbbt-split: %s: record %llu (part %u) locks object %llu, which a record of another part locks too, "
        "one of them for writing: the split breaks that order (%llu records cross; --force splits anyway)\n",
        j->trace, (unsigned long long)first, tbbt_split_part_of(s, first), (unsigned long long)obj,
        (unsigned long long)*cross);
    return -1;
}

/* Opens the record writers of every unit. Returns 0, or -1 (printed;
 * the ones opened are aborted). */
static int open_writers(const struct job *j, const char *meta, struct tbbt_recwriter **w) {
    char err[512];
    for (int u = 0; u < j->nunits; u++)
        if (!(w[u] = tbbt_recw_open(j->out_rec[u], meta, err, sizeof(err)))) {
            fprintf(stderr, "tbbt-split: %s\n", err);
            while (u-- > 0) {
                tbbt_recw_abort(w[u]);
                w[u] = NULL;
            }
            return -1;
        }
    return 0;
}

/* Copies each record of the trace to its unit's writer (a part left out
 * of --select goes nowhere). Returns 0, or -1 with the message printed. */
static int copy_records(const struct job *j, const struct tbbt_split *s, struct tbbt_recreader *rd,
                        struct tbbt_recwriter **w) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    uint64_t seq = 0, n = tbbt_split_records(s);
    int rc = 0, changed = 0;
    while (!interrupted && (rc = tbbt_recr_next(rd, &r)) == 1) {
        if (seq == n) {
            changed = 1;
            break;
        }
        unsigned p = tbbt_split_part_of(s, seq++);
        if (j->select && !((j->select >> p) & 1)) continue;
        if (tbbt_recw_put(w[j->unit[p]], &r) != 0) {
            fprintf(stderr, "tbbt-split: %s\n", tbbt_recw_error(w[j->unit[p]]));
            rc = -2;
            break;
        }
    }
    tbbt_rec_free(&r);
    if (interrupted) return -1;
    if (rc == -1) fprintf(stderr, "tbbt-split: %s\n", tbbt_recr_error(rd));
    if (rc >= 0 && (changed || seq != n))
        fprintf(stderr, "tbbt-split: %s: changed while being split (%llu records, then more or fewer)\n",
                j->trace, (unsigned long long)n);
    return rc == 0 && !changed && seq == n ? 0 : -1;
}

/* Writes every unit's record file. Returns 0, or -1 (printed). */
static int write_records(const struct job *j, const struct tbbt_split *s) {
    char err[512];
    struct tbbt_recreader *rd = tbbt_recr_open(j->trace, err, sizeof(err));
    if (!rd) {
        fprintf(stderr, "tbbt-split: %s\n", err);
        return -1;
    }
    struct tbbt_recwriter *w[TBBT_SPLIT_MAX_PARTS] = {0};
    int rc = open_writers(j, tbbt_recr_meta(rd), w);
    if (rc == 0) rc = copy_records(j, s, rd, w);
    tbbt_recr_close(rd);
    for (int u = 0; u < j->nunits && w[u]; u++) {
        if (rc != 0) {
            tbbt_recw_abort(w[u]);
        } else if (tbbt_recw_close(w[u], err, sizeof(err)) != 0) {
            fprintf(stderr, "tbbt-split: %s\n", err);
            rc = -1;
        }
    }
    return rc;
}

/* Marks the objects each unit's records lock in the map. Returns the
 * number of objects the map lacks. */
static uint64_t want_objects(const struct job *j, const struct tbbt_split *s, struct tbbt_submap *m) {
    uint64_t missing = 0;
    for (uint64_t i = 0; i < tbbt_split_objects(s); i++) {
        uint64_t parts, units = 0;
        tbbt_id id = tbbt_split_object(s, i, &parts);
        for (int p = 0; p < cli.parts; p++)
            if ((parts >> p) & 1 && (!j->select || (j->select >> p) & 1)) units |= 1ull << j->unit[p];
        if (units && !tbbt_submap_want(m, id, units)) missing++;
    }
    return missing;
}

/* Writes every unit's map. Returns 0, or -1 (printed). */
static int write_maps(const struct job *j, struct tbbt_submap *m, uint64_t *entries) {
    char err[512];
    for (int u = 0; u < j->nunits; u++) {
        char *base = g_path_get_basename(j->out_rec[u]), *orig = g_path_get_basename(j->trace);
        char *comment = g_strdup_printf("records %s\ntool tbbt-split\nsplit of %s", base, orig);
        int rc = tbbt_submap_write(m, 1ull << u, j->out_map[u], comment, &entries[u], err, sizeof(err));
        g_free(base), g_free(orig), g_free(comment);
        if (rc != 0) {
            fprintf(stderr, "tbbt-split: %s\n", err);
            return -1;
        }
    }
    return 0;
}

/* Prints "N unit" with a binary prefix. */
static void print_bytes(uint64_t b) {
    if (b >= 1 << 20)
        printf("%.1f MiB", b / 1048576.0);
    else if (b >= 1 << 10)
        printf("%.1f KiB", b / 1024.0);
    else
        printf("%llu B", (unsigned long long)b);
}

/* Prints each part's share. */
static void report(const struct job *j, const struct tbbt_split *s, const uint64_t *entries, uint64_t cross) {
    uint64_t n = tbbt_split_records(s);
    for (int p = 0; p < cli.parts; p++) {
        const struct tbbt_split_share *sh = tbbt_split_share(s, (unsigned)p);
        int out = !j->select || (j->select >> p) & 1;
        printf("part %d: %llu records (%.1f%%), %llu group%s, %llu objects, ", p,
               (unsigned long long)sh->records, n ? 100.0 * sh->records / n : 0,
               (unsigned long long)sh->groups, sh->groups == 1 ? "" : "s", (unsigned long long)sh->objects);
        print_bytes(sh->bytes_read);
        printf(" read, ");
        print_bytes(sh->bytes_written);
        printf(" written -> %s\n", out ? j->out_rec[j->unit[p]] : "(not selected)");
        printf("  mix:");
        for (int op = 0; op < TBBT_OP_COUNT; op++)
            if (sh->by_op[op])
                printf(" %s %llu (%.1f%%)", tbbt_op_info(op)->name, (unsigned long long)sh->by_op[op],
                       100.0 * sh->by_op[op] / sh->records);
        printf("\n");
    }
    for (int u = 0; u < j->nunits; u++)
        printf("map %s: %llu entries\n", j->out_map[u], (unsigned long long)entries[u]);
    if (cross)
        printf("crossing dependencies: %llu records (split anyway: --force)\n", (unsigned long long)cross);
    else
        printf("crossing dependencies: none\n");
}

/* Analyses, checks, writes. Returns the exit code. */
static int run(struct job *j) {
    char err[512];
    struct tbbt_submap *m = tbbt_submap_load(j->map, err, sizeof(err));
    if (!m) {
        fprintf(stderr, "tbbt-split: %s\n", err);
        return 1;
    }
    struct tbbt_split *s = tbbt_split_new();
    declare_shared(s, m, j->map);
    int rc = 1;
    uint64_t cross = 0, entries[TBBT_SPLIT_MAX_PARTS] = {0};
    if (analyse(j, s) != 0 || interrupted) goto out;
    uint64_t groups = tbbt_split_group(s);
    if (!cli.quiet)
        printf(
            "%s: %llu records, %llu group%s of objects accessed together; %llu of %llu objects read-only or "
            "shared (join no group), %llu records touch only those\n",
            j->trace, (unsigned long long)tbbt_split_records(s), (unsigned long long)groups,
            groups == 1 ? "" : "s", (unsigned long long)tbbt_split_readonly(s),
            (unsigned long long)tbbt_split_objects(s), (unsigned long long)tbbt_split_free_records(s));
    if (tbbt_split_assign(s, (unsigned)cli.parts) != 0) {
        fprintf(stderr, "tbbt-split: %s: %llu group%s of objects accessed together: no split into %d parts\n",
                j->trace, (unsigned long long)groups, groups == 1 ? "" : "s", cli.parts);
        goto out;
    }
    if (check_crossings(j, s, &cross) != 0) goto out;
    uint64_t missing = want_objects(j, s, m);
    if (missing)
        fprintf(stderr, "tbbt-split: note: %llu objects the records lock are not in %s\n",
                (unsigned long long)missing, j->map);
    if (write_records(j, s) != 0 || interrupted || write_maps(j, m, entries) != 0) goto out;
    if (!cli.quiet) report(j, s, entries, cross);
    rc = 0;
out:
    if (interrupted && rc != 0) {
        fprintf(stderr, "tbbt-split: %s: interrupted, nothing written\n", j->trace);
        rc = 3;
    }
    tbbt_split_free(s);
    tbbt_submap_free(m);
    return rc;
}

int main(int argc, char **argv) {
    tbbt_oom_on_failure("tbbt-split"); /* a failed allocation: one line, exit 1 (lib/oom.h) */
    struct job j = {0};
    parse(argc, argv, &j);
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    int rc = run(&j);
    for (int u = 0; u < j.nunits; u++)
        g_free(j.out_rec[u]), g_free(j.out_map[u]);
    g_free(j.map), g_free(j.prefix);
    return rc;
}
