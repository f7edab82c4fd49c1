/* textin.h -- records from text inputs: Ellard's nfsdump traces (through
 * pass 1, ellard.h) and the records' own text form.
 *
 * tbbt-prep takes a capture, an Ellard trace or a text-form trace; which
 * one is found from the input's first line (after decompression), or
 * forced by an option. A text input goes to the same passes 2 and 3 as
 * pass 1's records. */
#ifndef TBBT_TEXTIN_H
#define TBBT_TEXTIN_H

#include <stddef.h>
#include <stdint.h>

#include "pass1.h"
#include "record.h"

enum tbbt_input_kind {
    TBBT_IN_UNKNOWN = 0,
    TBBT_IN_CAPTURE, /* pcap or pcapng (maybe compressed) */
    TBBT_IN_ELLARD,  /* Ellard's nfsdump text */
    TBBT_IN_RECTEXT, /* the records' text form (tbbt-dump's output) */
};

/* Finds what path holds from its first bytes and first non-blank line.
 * Returns the kind (TBBT_IN_UNKNOWN for anything else, the capture
 * decoder then says why), or -1 with "FILE: ..." in err when the file
 * cannot be read. */
int tbbt_input_kind(const char *path, char *err, size_t errlen);

/* Name of a kind, for messages ("capture", "Ellard text", "record text"). */
const char *tbbt_input_kind_name(int kind);

/* Options of the Ellard import (pass 1's, and ellard.h's). */
struct tbbt_textin_opts {
    double reply_timeout, step_threshold; /* seconds */
    int max_warnings;
    int quiet;           /* no reader summary */
    int size_swap;       /* v3 setattr sizes: 0 date rule, 1 always swap, -1 never */
    int64_t swap_before; /* the date rule's cutoff (s since the epoch); 0: 2003-09-01 */
};

/* Streams the records of a text input (kind TBBT_IN_ELLARD or
 * TBBT_IN_RECTEXT) to sink, in the input's order; *n gets the count.
 * paths[0..npaths-1] are read in turn as one trace ("-": standard input,
 * named "stdin" in messages). Ellard: each line becomes the RPC message it
 * describes, fed to one pass 1 of its own for all the files (pairing,
 * handle IDs, clock repair: ellard.h); line warnings go to stderr. Returns
 * 0, or -1 with "FILE: ..." or "FILE:LINE: ..." in err. */
int tbbt_textin_run(const char *const *paths, int npaths, int kind, const struct tbbt_textin_opts *o,
                    tbbt_rec_sink sink, void *ctx, uint64_t *n, char *err, size_t errlen);

#endif
