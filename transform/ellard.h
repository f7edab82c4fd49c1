/* ellard.h -- Ellard's nfsdump text traces as an input of pass 1.
 *
 * Each line of the Harvard EECS/CAMPUS traces (shared/formats.md section 2)
 * is one RPC message printed as text. The reader turns every call and
 * reply line back into the ONC RPC message it describes (the NFSv2/v3
 * arguments or results nfsdump printed, in XDR) and hands it to pass 1
 * like a captured message: so an Ellard trace goes through the one pairing
 * of calls and replies, the one handle-to-ID map (fhmap.h) and the one
 * clock repair (lib/timefix.h) that captures go through. What nfsdump does
 * not print (a write's verifier, readdir cookie verifiers, an exclusive
 * create's verifier, mknod's type) is sent as zero and removed from the
 * records again (tbbt_ellard_sink).
 *
 * Bad lines (fixed fields, handles or names that do not parse) are skipped
 * with a warning "FILE:LINE: what"; a file none of whose first 10 lines
 * parses is not an Ellard trace (an error). */
#ifndef TBBT_ELLARD_H
#define TBBT_ELLARD_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "capture.h"
#include "pass1.h"

/* The first call time (s since the epoch, UTC) whose v3 setattr sizes are
 * printed right: 2003-09-01, nfsdump's fix (format.txt). */
#define TBBT_ELLARD_SWAP_BEFORE 1062374400LL

struct tbbt_ellard_opts {
    int size_swap;       /* 0: date rule; 1: swap every v3 setattr size; -1: never */
    int64_t swap_before; /* the date rule's cutoff (s); 0: TBBT_ELLARD_SWAP_BEFORE */
    int max_warnings;    /* line warnings printed; the rest counted */
};

struct tbbt_ellard_stats {
    uint64_t lines;                      /* lines read */
    uint64_t calls, replies;             /* call and reply lines handed to pass 1 */
    uint64_t short_calls, short_replies; /* SHORT PACKET lines skipped */
    uint64_t malformed;                  /* lines skipped with a warning */
    uint64_t unsupported;                /* mnt, unknown procedures: skipped */
    uint64_t bad_values;                 /* values that did not parse (sent as 0) */
    uint64_t num_mismatch;               /* procedure numbers not matching the name */
    uint64_t sizes_swapped;              /* v3 setattr sizes swapped back */
    uint64_t warned;                     /* warnings printed or counted */
};

struct tbbt_ellard;

/* A reader of one trace (several files read in turn are one trace). Its
 * messages go to cb (normally tbbt_pass1_msg with the pass 1 object). */
struct tbbt_ellard *tbbt_ellard_new(const struct tbbt_ellard_opts *o, tbbt_msg_cb cb, void *ctx);
void tbbt_ellard_free(struct tbbt_ellard *e);

/* Handles one line (without its newline; line[len] may be written to).
 * Returns 0 when it was used or skipped on purpose (blank, comment, SHORT
 * PACKET, unsupported procedure), or -1 with why in why[] when it is
 * malformed (counted; the caller warns). */
int tbbt_ellard_line(struct tbbt_ellard *e, char *line, size_t len, char *why, size_t whylen);

/* Reads a whole file (already decompressed), warning on stderr as
 * "PROG: NAME:LINE: what" up to max_warnings. Returns 0, or -1 with
 * "NAME: ..." in err (not an Ellard trace, read error). */
int tbbt_ellard_read(struct tbbt_ellard *e, FILE *f, const char *name, char *err, size_t errlen);

const struct tbbt_ellard_stats *tbbt_ellard_stats(const struct tbbt_ellard *e);

/* Prints the reader's counters (one line each, "PROG: ...") on out. */
void tbbt_ellard_print_stats(const struct tbbt_ellard *e, FILE *out);

/* A record sink in front of the real one: removes the fields that came
 * from the zeros sent for what nfsdump does not print. ctx is a struct
 * tbbt_ellard_sinkctx. */
struct tbbt_ellard_sinkctx {
    struct tbbt_ellard *reader;
    tbbt_rec_sink sink;
    void *ctx;
};
int tbbt_ellard_sink(void *ctx, const struct tbbt_rec *r);

#endif
