/* tbbt-xmerge: the merge of scripts/tbbt-merge (its only implementation).
 * Not a command of its own: tbbt-merge execs it once it has checked the
 * options and opened every input (tbbt-dump pipes included) and the
 * output, so the inputs' and output's processes are this program's
 * children. It then reads and checks every line, merges, drops the
 * duplicates, and ends the run: close, rename, count line.
 *
 *   tbbt-xmerge --window-ns N [--quiet] [--out-fd FD] [--out-pid PID]
 *               [--out-path OUT] [--tmp TMP] [--partial P]  FD PID NAME...
 *
 * One FD PID NAME triple per input, in command-line order (PID 0: not a
 * pipe; NAME "-": stdin). Without --out-path the output is stdout.
 * Messages, their order and the exit code are tbbt-merge's: one line
 * "tbbt-merge: FILE:LINE: why" (the line checks of lib/textcols.h), the
 * partial output removed, exit 1. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "oom.h"
#include "textcols.h"

#define PROG "tbbt-merge" /* messages carry the command's name */

/* One input: its stream, its current line and what was read from it. */
struct input {
    FILE *f;
    pid_t pid; /* tbbt-dump feeding it, or 0 */
    const char *name, *shown;
    int index;
    size_t lineno;
    char *line; /* the current record line ("\n" ended), or NULL at the end */
    size_t cap, len;
    int64_t t;         /* its call time */
    GString *tt, *key; /* its time token; client server xid vers proc */
};

/* A written record remembered for the duplicate window. */
struct seen {
    int64_t t;
    int index;
};

/* The run's state: options, output, counters. */
struct merge {
    __int128 window;
    int quiet, out_fd;
    pid_t out_pid;
    const char *out_path, *tmp, *partial;
    FILE *out;
    GHashTable *seen; /* GString key (bytes, NUL included) -> struct seen */
    GQueue recent;    /* struct recent, write order */
    uint64_t n, dups;
    struct tbbt_tc tc; /* the line being checked */
    GString *err;
};

/* The key of a written record and its time, in write order. */
struct recent {
    int64_t t;
    GString *key; /* its own copy */
};

static struct merge M;

/* GDestroyNotify for GString keys. */
static void g_string_free_all(gpointer s) {
    g_string_free(s, TRUE);
}

/* Prints "tbbt-merge: MSG" (msg bytes as they are; NULL: nothing, it was
 * said already), stops the output's tbbt-dump so it cannot put a partial
 * file in place, removes the partial output, exits 1 (tbbt-merge's
 * fatal). */
static void fatal_len(const char *msg, size_t len) {
    if (msg) {
        fprintf(stderr, "%s: ", PROG);
        fwrite(msg, 1, len, stderr);
        fputc('\n', stderr);
    }
    if (M.out_pid > 0) {
        kill(M.out_pid, SIGTERM);
        waitpid(M.out_pid, NULL, 0);
    } else if (M.out)
        fflush(M.out); /* what was merged before the error is written */
    if (M.partial) unlink(M.partial);
    _exit(1); /* not exit(): the output's buffer would go to a closed pipe */
}

static void fatal(const char *msg) {
    fatal_len(msg, strlen(msg));
}

/* The message for a child that failed: its exit code, as the scripts word it. */
static int exit_code(int status) {
    return (status >> 8) & 0xff;
}

/* At an input's end: closes it; a failed tbbt-dump is fatal. One that
 * exited 1 has said why in one line naming the file and the offset, and
 * nothing is added to it (as scripts/lib/TBBT/Dump.pm words it). */
static void finish_input(struct input *in) {
    int status = 0, read_err = ferror(in->f);
    char msg[512];
    if (in->pid == 0 && strcmp(in->name, "-") == 0) return;
    fclose(in->f);
    if (in->pid > 0 && waitpid(in->pid, &status, 0) < 0) status = 0;
    if (!read_err && status == 0) return;
    if (!read_err && WIFEXITED(status) && WEXITSTATUS(status) == 1) fatal_len(NULL, 0);
    if (read_err)
        snprintf(msg, sizeof(msg), "%s: read error: %s", in->name, strerror(EIO));
    else
        snprintf(msg, sizeof(msg), "%s: tbbt-dump failed (exit %d)", in->name, exit_code(status));
    fatal(msg);
}

/* "FILE:LINE: " then err: a line-check failure. */
static void fatal_at(struct input *in, GString *err) {
    GString *m = g_string_new(NULL);
    g_string_printf(m, "%s:%zu: ", in->shown, in->lineno);
    g_string_append_len(m, err->str, (gssize)err->len);
    fatal_len(m->str, m->len);
}

/* Lower-cases len bytes in place (the xid: ASCII hex only). */
static void lower_inplace(char *s, size_t len) {
    for (size_t i = 0; i < len; i++)
        s[i] = g_ascii_tolower(s[i]);
}

/* Sets in->key: client server lc(xid) vers proc, one space apart. */
static void make_key(struct input *in, const struct tbbt_tc *tc) {
    g_string_truncate(in->key, 0);
    for (int c = 2; c <= 6; c++) {
        size_t at = in->key->len;
        g_string_append_len(in->key, tc->col[c].p, (gssize)tc->col[c].len);
        if (c == 4) lower_inplace(in->key->str + at, tc->col[c].len);
        if (c < 6) g_string_append_c(in->key, ' ');
    }
}

/* The "not sorted" failure, worded as tbbt-merge words it. */
static void fatal_unsorted(struct input *in, const struct tbbt_tc_tok *c0) {
    g_string_printf(M.err, "not sorted by call time: ");
    g_string_append_len(M.err, c0->p, (gssize)c0->len);
    g_string_append(M.err, " comes after ");
    g_string_append_len(M.err, in->tt->str, (gssize)in->tt->len);
    g_string_append_printf(M.err, " (line %zu); sort the input first (sort -s -k1,1n for non-negative times)",
                           in->lineno - 1);
    fatal_at(in, M.err);
}

/* Reads in's next record (advance): line, time, key; NULL line at the
 * end. A line that is not a record, or goes back in time, is fatal. */
static void advance(struct input *in) {
    ssize_t len = getline(&in->line, &in->cap, in->f);
    int had = in->lineno > 0;
    if (len < 0) {
        free(in->line);
        in->line = NULL;
        finish_input(in);
        return;
    }
    in->lineno++;
    in->len = (size_t)len;
    if (len == 0 || in->line[len - 1] != '\n') {
        if (in->len + 2 > in->cap) in->line = realloc(in->line, in->cap = in->len + 2);
        if (!in->line) fatal("out of memory");
        in->line[in->len++] = '\n';
        in->line[in->len] = 0;
    }
    tbbt_tc_split(&M.tc, in->line, in->len);
    if (tbbt_tc_check(&M.tc, 0, M.err) < 0) fatal_at(in, M.err);
    if (had && M.tc.call < in->t) fatal_unsorted(in, &M.tc.col[0]);
    in->t = M.tc.call;
    g_string_assign(in->tt, "");
    g_string_append_len(in->tt, M.tc.col[0].p, (gssize)M.tc.col[0].len);
    make_key(in, &M.tc);
}

/* Forgets written keys older than t - window (merge's @recent loop). */
static void expire(int64_t t) {
    struct recent *r;
    while ((r = g_queue_peek_head(&M.recent)) && (__int128)r->t < (__int128)t - M.window) {
        struct seen *s = g_hash_table_lookup(M.seen, r->key);
        if (s && s->t == r->t) g_hash_table_remove(M.seen, r->key);
        g_queue_pop_head(&M.recent);
        g_string_free(r->key, TRUE);
        g_free(r);
    }
}

/* Writes in's record unless it duplicates another input's recent call. */
static void take(struct input *in) {
    struct seen *s;
    expire(in->t);
    s = g_hash_table_lookup(M.seen, in->key);
    if (s && s->index != in->index && (__int128)in->t - s->t <= M.window) {
        M.dups++;
        return;
    }
    if (fwrite(in->line, 1, in->len, M.out) != in->len) {
        g_string_printf(M.err, "%s: write failed: %s", M.out_path ? M.out_path : "stdout", strerror(errno));
        fatal(M.err->str);
    }
    M.n++;
    s = g_new(struct seen, 1);
    *s = (struct seen){in->t, in->index};
    g_hash_table_replace(M.seen, g_string_new_len(in->key->str, (gssize)in->key->len), s);
    struct recent *r = g_new(struct recent, 1);
    *r = (struct recent){in->t, g_string_new_len(in->key->str, (gssize)in->key->len)};
    g_queue_push_tail(&M.recent, r);
}

/* The k-way merge: earliest call time first, ties to the earlier input. */
static void merge(struct input *in, int n) {
    for (;;) {
        struct input *min = NULL;
        for (int i = 0; i < n; i++)
            if (in[i].line && (!min || in[i].t < min->t)) min = &in[i];
        if (!min) return;
        take(min);
        advance(min);
    }
}

/* Closes the output, puts a temporary file in place, prints the count
 * line (the end of tbbt-merge's main). */
static int finish(int ninputs) {
    int status = 0, bad = fflush(M.out) != 0 || ferror(M.out);
    int err = errno;
    bad |= fclose(M.out) != 0;
    if (M.out_pid > 0) {
        if (waitpid(M.out_pid, &status, 0) < 0) status = 0;
        M.out_pid = 0;
    }
    if (M.out_path && (bad || status)) {
        g_string_printf(M.err, "%s: %s%s", M.out_path, bad ? "write failed: " : "tbbt-dump --text-in failed",
                        bad ? strerror(err) : "");
        fatal(M.err->str);
    }
    if (!M.out_path && bad) {
        g_string_printf(M.err, "stdout: write failed: %s", strerror(err));
        fatal(M.err->str);
    }
    if (M.out_path && M.tmp && rename(M.tmp, M.out_path) != 0) {
        g_string_printf(M.err, "%s: cannot rename: %s", M.out_path, strerror(errno));
        fatal(M.err->str);
    }
    M.partial = NULL;
    if (!M.quiet)
        fprintf(stderr, "%s: %" PRIu64 " records from %d inputs, %" PRIu64 " duplicate calls dropped\n", PROG,
                M.n, ninputs, M.dups);
    return 0;
}

/* Parses a decimal integer argument; -1 when it is not one. */
static int parse_num(const char *s, int64_t max, int64_t *v) {
    char *end;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    if (!*s || *end || errno || x < 0 || x > max) return -1;
    *v = x;
    return 0;
}

/* Opens the inputs given as FD PID NAME triples. Returns their count, or
 * -1 on a malformed list. */
static int open_inputs(char **argv, int argc, struct input **out) {
    int n = argc / 3;
    int64_t fd, pid;
    struct input *in = g_new0(struct input, n > 0 ? n : 1);
    if (n == 0 || argc % 3) return -1;
    for (int i = 0; i < n; i++) {
        if (parse_num(argv[3 * i], INT32_MAX, &fd) < 0 || parse_num(argv[3 * i + 1], INT32_MAX, &pid) < 0)
            return -1;
        in[i].f = fdopen((int)fd, "r");
        if (!in[i].f) return -1;
        in[i].pid = (pid_t)pid;
        in[i].name = argv[3 * i + 2];
        in[i].shown = strcmp(in[i].name, "-") == 0 ? "stdin" : in[i].name;
        in[i].index = i;
        in[i].tt = g_string_new(NULL);
        in[i].key = g_string_new(NULL);
    }
    *out = in;
    return n;
}

/* The window in ns, as tbbt-merge computed it (digits; larger than any
 * time difference is the same as infinite). */
static int parse_window(const char *s) {
    if (!*s) return -1;
    M.window = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return -1;
        if (M.window < ((__int128)1 << 70)) M.window = M.window * 10 + (*p - '0');
    }
    return 0;
}

static char *opt_window, *opt_out_path, *opt_tmp, *opt_partial;
static int opt_quiet, opt_out_fd = 1, opt_out_pid;
static GOptionEntry opt_table[] = {
    {"window-ns", 0, 0, G_OPTION_ARG_STRING, &opt_window, "duplicate window in ns (digits)", "N"},
    {"quiet", 'q', 0, G_OPTION_ARG_NONE, &opt_quiet, "no count line", NULL},
    {"out-fd", 0, 0, G_OPTION_ARG_INT, &opt_out_fd, "output descriptor (default 1)", "FD"},
    {"out-pid", 0, 0, G_OPTION_ARG_INT, &opt_out_pid, "tbbt-dump --text-in reading it, or 0", "PID"},
    {"out-path", 0, 0, G_OPTION_ARG_FILENAME, &opt_out_path, "the output's name (none: stdout)", "OUT"},
    {"tmp", 0, 0, G_OPTION_ARG_FILENAME, &opt_tmp, "temporary file renamed to OUT at the end", "TMP"},
    {"partial", 0, 0, G_OPTION_ARG_FILENAME, &opt_partial, "file removed when the merge fails", "P"},
    {NULL, 0, 0, 0, NULL, NULL, NULL},
};

int main(int argc, char **argv) {
    tbbt_oom_on_failure("tbbt-merge"); /* a failed allocation: one line, exit 1 (lib/oom.h) */
    GOptionContext *ctx = g_option_context_new("FD PID NAME...  (tbbt-merge's helper)");
    GError *gerr = NULL;
    struct input *in = NULL;
    int n;
    g_option_context_add_main_entries(ctx, opt_table, NULL);
    if (!g_option_context_parse(ctx, &argc, &argv, &gerr) || !opt_window || parse_window(opt_window) < 0 ||
        (n = open_inputs(argv + 1, argc - 1, &in)) < 0 || !(M.out = fdopen(opt_out_fd, "w"))) {
        fprintf(stderr, "tbbt-xmerge: %s\n", gerr ? gerr->message : "usage: see libexec/tbbt-xmerge.c");
        return 2;
    }
    g_option_context_free(ctx);
    M.quiet = opt_quiet;
    M.out_pid = opt_out_pid;
    M.out_path = opt_out_path;
    M.tmp = opt_tmp;
    M.partial = opt_partial;
    M.seen = g_hash_table_new_full((GHashFunc)g_string_hash, (GEqualFunc)g_string_equal, g_string_free_all,
                                   g_free);
    M.err = g_string_new(NULL);
    for (int i = 0; i < n; i++)
        advance(&in[i]);
    merge(in, n);
    int rc = finish(n);
    g_free(in);
    return rc;
}
