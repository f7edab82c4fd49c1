/* textin.c -- records from Ellard traces and the records' text form (see
 * textin.h). */
#include "textin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <glib.h>

#include "cfile.h"
#include "ellard.h"
#include "fhmap.h"
#include "timefix.h"
#include "rectext.h"

#define SNIFF_LINES 10

const char *tbbt_input_kind_name(int kind) {
    switch (kind) {
    case TBBT_IN_CAPTURE: return "capture";
    case TBBT_IN_ELLARD: return "Ellard text";
    case TBBT_IN_RECTEXT: return "record text";
    default: return "unknown";
    }
}

/* Is this the start of a pcap or pcapng file? */
static int capture_magic(const unsigned char *b, size_t n) {
    static const unsigned char m[][4] = {{0xa1, 0xb2, 0xc3, 0xd4},
                                         {0xd4, 0xc3, 0xb2, 0xa1},
                                         {0xa1, 0xb2, 0x3c, 0x4d},
                                         {0x4d, 0x3c, 0xb2, 0xa1},
                                         {0x0a, 0x0d, 0x0d, 0x0a}};
    for (size_t i = 0; n >= 4 && i < sizeof(m) / sizeof(m[0]); i++)
        if (memcmp(b, m[i], 4) == 0) return 1;
    return 0;
}

/* Does the line look like an nfsdump line: "sec.usec HOST.PORT HOST.PORT
 * U|T C3|R3|C2|R2 ..."? */
static int ellard_line(const char *line) {
    gchar **t = g_strsplit_set(line, " \t", -1);
    char *tok[6];
    int n = 0;
    for (gchar **p = t; *p && n < 6; p++)
        if (**p) tok[n++] = *p;
    int ok = n == 6 && strchr(tok[0], '.') && strspn(tok[0], "0123456789.") == strlen(tok[0]) &&
             strchr(tok[1], '.') && strchr(tok[2], '.') && (!strcmp(tok[3], "U") || !strcmp(tok[3], "T")) &&
             strlen(tok[4]) == 2 && strchr("CR", tok[4][0]) && strchr("23", tok[4][1]);
    g_strfreev(t);
    return ok;
}

/* Does the line parse as a record in the text form? */
static int rectext_line(const char *line) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    char err[128];
    int ok = tbbt_rec_parse_text(&r, line, strlen(line), err, sizeof(err)) == 0;
    tbbt_rec_free(&r);
    return ok;
}

/* The kind of the first lines of a text stream. */
static int sniff_text(FILE *f) {
    char *line = NULL;
    size_t cap = 0;
    int kind = TBBT_IN_UNKNOWN;
    for (int seen = 0; seen < SNIFF_LINES && kind == TBBT_IN_UNKNOWN;) {
        ssize_t len = getline(&line, &cap, f);
        if (len < 0) break;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            line[--len] = 0;
        if (len == 0 || line[0] == '#') continue;
        seen++;
        if (ellard_line(line))
            kind = TBBT_IN_ELLARD;
        else if (rectext_line(line))
            kind = TBBT_IN_RECTEXT;
    }
    free(line);
    return kind;
}

int tbbt_input_kind(const char *path, char *err, size_t errlen) {
    struct stat sb;
    if (strcmp(path, "-") == 0 || (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)))
        return TBBT_IN_CAPTURE; /* a stream reads once: not sniffed (--format names another kind) */
    FILE *f = tbbt_cfile_open(path, NULL, err, errlen);
    if (!f) return -1;
    unsigned char b[4];
    size_t n = fread(b, 1, sizeof(b), f);
    int kind;
    if (capture_magic(b, n)) {
        kind = TBBT_IN_CAPTURE;
    } else {
        fclose(f);
        if (!(f = tbbt_cfile_open(path, NULL, err, errlen))) return -1;
        kind = sniff_text(f);
    }
    fclose(f);
    return kind;
}

/* Reads record lines from f into sink; name says whose lines they are in
 * messages. Returns 0, or -1 with "NAME:LINE: ..." in err. */
static int read_lines(FILE *f, const char *name, tbbt_rec_sink sink, void *ctx, uint64_t *n, char *err,
                      size_t errlen) {
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    char *line = NULL, perr[200];
    size_t cap = 0;
    uint64_t lineno = 0;
    ssize_t len;
    int rc = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        lineno++;
        if (len == 0 || line[0] == '\n' || line[0] == '#') continue;
        if (tbbt_rec_parse_text(&r, line, (size_t)len, perr, sizeof(perr)) != 0) {
            g_snprintf(err, errlen, "%s:%llu: %s", name, (unsigned long long)lineno, perr);
            rc = -1;
        } else if (sink(ctx, &r) != 0) {
            g_snprintf(err, errlen, "%s: cannot write the records", name);
            rc = -1;
        } else {
            (*n)++;
        }
    }
    if (rc == 0 && ferror(f)) {
        g_snprintf(err, errlen, "%s: read error after line %llu", name, (unsigned long long)lineno);
        rc = -1;
    }
    free(line);
    tbbt_rec_free(&r);
    return rc;
}

/* Pass 1's warnings on an Ellard trace name the line (its "packet"). */
struct ellard_warn {
    const char *path;
    int max;
    uint64_t n;
};

static void ellard_warn(void *ctx, uint64_t lineno, const char *what) {
    struct ellard_warn *w = ctx;
    if (w->n++ < (uint64_t)w->max)
        fprintf(stderr, "tbbt-prep: warning: %s:%llu: %s\n", w->path, (unsigned long long)lineno, what);
}

/* Counts the records pass 1 hands on (the Ellard sink's caller). */
struct ellard_count {
    tbbt_rec_sink sink;
    void *ctx;
    uint64_t *n;
};

static int ellard_count(void *ctx, const struct tbbt_rec *r) {
    struct ellard_count *c = ctx;
    if (c->sink(c->ctx, r) != 0) return -1;
    (*c->n)++;
    return 0;
}

/* The name of an input in messages: "stdin" for "-". */
static const char *input_name(const char *path) {
    return strcmp(path, "-") == 0 ? "stdin" : path;
}

/* Reads one file of an Ellard trace into the reader e (whose pass 1 goes
 * on across files). Returns 0, or -1 with the message in err. */
static int read_ellard_file(struct tbbt_ellard *e, const char *path, char *err, size_t errlen) {
    const char *name = input_name(path);
    FILE *f = tbbt_cfile_open(path, NULL, err, errlen);
    if (!f) return -1;
    int rc = tbbt_ellard_read(e, f, name, err, errlen);
    if (f == stdin) {
        if (rc == 0 && ferror(f)) g_snprintf(err, errlen, "%s: read error", name), rc = -1;
    } else if (fclose(f) != 0 && rc == 0) { /* a decompressor that failed late */
        g_snprintf(err, errlen, "%s: read error", name);
        rc = -1;
    }
    return rc;
}

/* Prints what pass 1 did to an Ellard trace (pairing, IDs, clock repair),
 * after the reader's counters: what the Perl importer's summary told. */
static void print_pass1(struct tbbt_pass1 *p1, FILE *out) {
    const struct tbbt_pass1_stats *s = tbbt_pass1_stats(p1);
    const struct tbbt_fhmap_stats *fs = tbbt_pass1_fhstats(p1);
    const struct tbbt_timefix *tf = tbbt_pass1_timefix(p1);
    fprintf(
        out,
        "Ellard text: pairing: %llu records, %llu calls without reply (flag L), %llu replies without call "
        "(none seen, late or to a SHORT PACKET call), %llu retransmitted calls (flag X), %llu duplicate "
        "replies, %llu records out of call-time order\n",
        (unsigned long long)s->records, (unsigned long long)s->replies_lost,
        (unsigned long long)s->replies_without_call, (unsigned long long)s->retrans_calls,
        (unsigned long long)s->dup_replies, (unsigned long long)s->out_of_order);
    fprintf(
        out,
        "Ellard text: %llu TBBT-IDs (%llu handles joined by fileid, %llu retired); %llu backward clock steps "
        "removed (%.6f s)\n",
        (unsigned long long)fs->objects, (unsigned long long)fs->aliases, (unsigned long long)fs->retired,
        (unsigned long long)tf->steps, tf->removed / 1e9);
}

/* Reads an Ellard trace (its files in turn) through ellard.h's reader
 * into pass 1, whose records (their unprinted fields removed) go to sink. */
static int run_ellard(const char *const *paths, int npaths, const struct tbbt_textin_opts *o,
                      tbbt_rec_sink sink, void *ctx, uint64_t *n, char *err, size_t errlen) {
    struct tbbt_pass1_opts po;
    tbbt_pass1_opts_default(&po);
    po.reply_timeout = (int64_t)(o->reply_timeout * 1e9);
    po.step_threshold = (int64_t)(o->step_threshold * 1e9);
    struct ellard_count cnt = {sink, ctx, n};
    struct tbbt_ellard_sinkctx sc = {NULL, ellard_count, &cnt};
    struct tbbt_pass1 *p1 = tbbt_pass1_new(&po, tbbt_ellard_sink, &sc);
    struct ellard_warn w = {NULL, o->max_warnings, 0};
    tbbt_pass1_set_warn(p1, ellard_warn, &w);
    struct tbbt_ellard_opts eo = {o->size_swap, o->swap_before, o->max_warnings};
    struct tbbt_ellard *e = tbbt_ellard_new(&eo, tbbt_pass1_msg, p1);
    sc.reader = e;
    int rc = 0;
    for (int i = 0; rc == 0 && i < npaths; i++) {
        w.path = input_name(paths[i]);
        rc = read_ellard_file(e, paths[i], err, errlen);
    }
    if (tbbt_pass1_finish(p1) != 0 && rc == 0) { /* the sink failed: its caller has the writer's error */
        *err = 0;
        rc = -1;
    }
    if (rc == 0 && !o->quiet) {
        tbbt_ellard_print_stats(e, stderr);
        print_pass1(p1, stderr);
    }
    tbbt_pass1_free(p1);
    tbbt_ellard_free(e);
    return rc;
}

int tbbt_textin_run(const char *const *paths, int npaths, int kind, const struct tbbt_textin_opts *o,
                    tbbt_rec_sink sink, void *ctx, uint64_t *n, char *err, size_t errlen) {
    *n = 0;
    if (kind == TBBT_IN_ELLARD) return run_ellard(paths, npaths, o, sink, ctx, n, err, errlen);
    int rc = 0;
    for (int i = 0; rc == 0 && i < npaths; i++) {
        FILE *f = tbbt_cfile_open(paths[i], NULL, err, errlen);
        if (!f) return -1;
        rc = read_lines(f, input_name(paths[i]), sink, ctx, n, err, errlen);
        if (f != stdin) fclose(f);
    }
    return rc;
}
