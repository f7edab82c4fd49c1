/* textcols.h -- the records' text form (rectext.h) read column by column,
 * the way the Perl transforms of scripts/ read it.
 *
 * tbbt_rec_parse_text() decodes a whole record and refuses what it cannot
 * represent (an unknown procedure, a malformed endpoint or value). The
 * transforms are more lenient: they check the header columns' shapes only
 * and take every other token as it is, so a trace with a procedure or a
 * field this build does not know still passes through them. Their C
 * helpers (libexec/tbbt-xsummary, libexec/tbbt-xmerge) must accept and refuse
 * exactly what the Perl scripts do, with the same "column N: ..."
 * messages: this module is that reader, written once.
 *
 * Columns are split as Perl's `split ' '` splits: on runs of ASCII white
 * space (space, \t, \n, \v, \f, \r), leading white space ignored. Times
 * use rectext's grammar and range (tbbt_text_parse_time). */
#ifndef TBBT_TEXTCOLS_H
#define TBBT_TEXTCOLS_H

#include <glib.h>
#include <stddef.h>
#include <stdint.h>

/* One column: a slice of the line (not NUL terminated). */
struct tbbt_tc_tok {
    const char *p;
    size_t len;
};

/* What tbbt_tc_check() verifies, in this order (the Perl scripts' order). */
enum {
    TBBT_TC_EMPTY = 1u << 0,  /* no column at all: "column 1: empty line" (else "missing") */
    TBBT_TC_REPLY = 1u << 1,  /* column 2: a time or "-" */
    TBBT_TC_STATUS = 1u << 2, /* column 8: a status */
    TBBT_TC_FLAGS = 1u << 3,  /* column 9: flags */
    TBBT_TC_CRED = 1u << 4,   /* column 10: a credential */
    TBBT_TC_LOST = 1u << 5,   /* column 2 is "-" exactly when flags has L */
    TBBT_TC_FIELDS = 1u << 6, /* columns 11...: key=value */
    /* Always: at least 10 columns, column 1 a time, 5 an xid, 6 a version,
     * 7 a procedure name. */
};

/* A line split into columns, with what the checks decoded. Reused from
 * line to line: tbbt_tc_split() allocates only when a line has more
 * columns than any before. */
struct tbbt_tc {
    struct tbbt_tc_tok *col;
    size_t n, cap;
    int64_t call, reply;       /* ns; reply valid when has_reply */
    int has_reply, lost;       /* lost: flags has L (TBBT_TC_FLAGS checked) */
    struct tbbt_tc_tok flavor; /* the credential's digits (TBBT_TC_CRED checked) */
    struct tbbt_tc_tok uid;
};

/* Frees tc's column array; tc may be reused after zeroing. */
void tbbt_tc_free(struct tbbt_tc *tc);

/* Splits [line, line + len) into tc->col. Never fails. */
void tbbt_tc_split(struct tbbt_tc *tc, const char *line, size_t len);

/* Checks the split line as the flags (TBBT_TC_*) ask. Returns 0, or -1
 * with "column N: why" (the offending token's bytes included, as they
 * are) replacing err's contents. */
int tbbt_tc_check(struct tbbt_tc *tc, unsigned what, GString *err);

/* Splits a key=value column (key: 1 or more of [a-z_0-9]). Returns 0 with
 * key and value set, or -1. */
int tbbt_tc_field(struct tbbt_tc_tok t, struct tbbt_tc_tok *key, struct tbbt_tc_tok *value);

/* True when t is 1 or more ASCII digits. */
int tbbt_tc_digits(struct tbbt_tc_tok t);

/* True when t equals the NUL-terminated s. */
int tbbt_tc_eq(struct tbbt_tc_tok t, const char *s);

#endif
