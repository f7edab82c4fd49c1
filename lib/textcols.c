/* textcols.c -- the records' text form read column by column, with the
 * Perl transforms' checks and messages (textcols.h). */
#include "textcols.h"

#include <string.h>

#include "rectext.h"

/* Perl's \s on a byte string: the six ASCII white-space bytes. */
static int is_ws(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static int is_digit(char c) {
    return c >= '0' && c <= '9';
}

static int is_hex(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Frees the column array (the line itself belongs to the caller). */
void tbbt_tc_free(struct tbbt_tc *tc) {
    g_free(tc->col);
    tc->col = NULL;
    tc->n = tc->cap = 0;
}

/* Appends one column, growing the array by doubling (rare once warm). */
static void push_col(struct tbbt_tc *tc, const char *p, size_t len) {
    if (tc->n == tc->cap) {
        tc->cap = tc->cap ? tc->cap * 2 : 32;
        tc->col = g_renew(struct tbbt_tc_tok, tc->col, tc->cap);
    }
    tc->col[tc->n++] = (struct tbbt_tc_tok){p, len};
}

/* Perl's split ' ': runs of white space separate, leading ones ignored. */
void tbbt_tc_split(struct tbbt_tc *tc, const char *line, size_t len) {
    const char *p = line, *e = line + len;
    tc->n = 0;
    while (p < e) {
        while (p < e && is_ws(*p))
            p++;
        const char *b = p;
        while (p < e && !is_ws(*p))
            p++;
        if (p > b) push_col(tc, b, (size_t)(p - b));
    }
}

int tbbt_tc_digits(struct tbbt_tc_tok t) {
    if (t.len == 0) return 0;
    for (size_t i = 0; i < t.len; i++)
        if (!is_digit(t.p[i])) return 0;
    return 1;
}

int tbbt_tc_eq(struct tbbt_tc_tok t, const char *s) {
    return strlen(s) == t.len && memcmp(t.p, s, t.len) == 0;
}

/* Sets err to "column N: WHAT: TOKEN" (the token's bytes as they are). */
static int fail_tok(GString *err, size_t col, const char *what, struct tbbt_tc_tok t) {
    g_string_printf(err, "column %zu: %s: ", col, what);
    g_string_append_len(err, t.p, (gssize)t.len);
    return -1;
}

/* /\A0x[0-9a-fA-F]{8}\z/ */
static int is_xid(struct tbbt_tc_tok t) {
    if (t.len != 10 || t.p[0] != '0' || t.p[1] != 'x') return 0;
    for (size_t i = 2; i < 10; i++)
        if (!is_hex(t.p[i])) return 0;
    return 1;
}

/* /\Av\d+\z/ */
static int is_vers(struct tbbt_tc_tok t) {
    return t.len >= 2 && t.p[0] == 'v' && tbbt_tc_digits((struct tbbt_tc_tok){t.p + 1, t.len - 1});
}

/* /\A[a-z][a-z0-9_]*\z/ */
static int is_proc(struct tbbt_tc_tok t) {
    if (t.len == 0 || t.p[0] < 'a' || t.p[0] > 'z') return 0;
    for (size_t i = 1; i < t.len; i++) {
        char c = t.p[i];
        if (!((c >= 'a' && c <= 'z') || is_digit(c) || c == '_')) return 0;
    }
    return 1;
}

/* /\A(-?\d+|-)\z/ */
static int is_status(struct tbbt_tc_tok t) {
    if (tbbt_tc_eq(t, "-")) return 1;
    if (t.len && t.p[0] == '-') t = (struct tbbt_tc_tok){t.p + 1, t.len - 1};
    return tbbt_tc_digits(t);
}

/* /\A(-|[A-Z]*(\+[0-9a-fA-F]+)?)\z/ and not empty; sets *lost when the
 * letters include L. */
static int is_flags(struct tbbt_tc_tok t, int *lost) {
    size_t i = 0;
    *lost = 0;
    if (t.len == 0) return 0;
    if (tbbt_tc_eq(t, "-")) return 1;
    for (; i < t.len && t.p[i] >= 'A' && t.p[i] <= 'Z'; i++)
        *lost |= t.p[i] == 'L';
    if (i == t.len) return 1;
    if (t.p[i] != '+' || i + 1 == t.len) return 0;
    for (i++; i < t.len; i++)
        if (!is_hex(t.p[i])) return 0;
    return 1;
}

/* Scans 1 or more digits at *i; returns the run. */
static struct tbbt_tc_tok scan_digits(struct tbbt_tc_tok t, size_t *i) {
    size_t b = *i;
    while (*i < t.len && is_digit(t.p[*i]))
        (*i)++;
    return (struct tbbt_tc_tok){t.p + b, *i - b};
}

/* /\Acred=(\d+):(\d+):(\d+)(:[\d,]*)?\z/; sets flavor and uid. */
static int is_cred(struct tbbt_tc_tok t, struct tbbt_tc_tok *flavor, struct tbbt_tc_tok *uid) {
    size_t i = 5;
    if (t.len < 5 || memcmp(t.p, "cred=", 5) != 0) return 0;
    *flavor = scan_digits(t, &i);
    if (!flavor->len || i == t.len || t.p[i++] != ':') return 0;
    *uid = scan_digits(t, &i);
    if (!uid->len || i == t.len || t.p[i++] != ':') return 0;
    if (!scan_digits(t, &i).len) return 0;
    if (i == t.len) return 1;
    if (t.p[i++] != ':') return 0;
    for (; i < t.len; i++)
        if (!is_digit(t.p[i]) && t.p[i] != ',') return 0;
    return 1;
}

int tbbt_tc_field(struct tbbt_tc_tok t, struct tbbt_tc_tok *key, struct tbbt_tc_tok *value) {
    size_t i = 0;
    while (i < t.len && ((t.p[i] >= 'a' && t.p[i] <= 'z') || is_digit(t.p[i]) || t.p[i] == '_'))
        i++;
    if (i == 0 || i == t.len || t.p[i] != '=') return -1;
    *key = (struct tbbt_tc_tok){t.p, i};
    *value = (struct tbbt_tc_tok){t.p + i + 1, t.len - i - 1};
    return 0;
}

/* Columns 1 and 2 (the times), the first checks of every transform. */
static int check_times(struct tbbt_tc *tc, unsigned what, GString *err) {
    struct tbbt_tc_tok c1 = tc->col[0], c2 = tc->col[1];
    if (tbbt_text_parse_time(c1.p, c1.p + c1.len, &tc->call) < 0) return fail_tok(err, 1, "not a time", c1);
    tc->has_reply = !tbbt_tc_eq(c2, "-");
    if ((what & TBBT_TC_REPLY) && tc->has_reply && tbbt_text_parse_time(c2.p, c2.p + c2.len, &tc->reply) < 0)
        return fail_tok(err, 2, "not a time", c2);
    return 0;
}

/* Columns 5 to 10 and the L rule. */
static int check_header(struct tbbt_tc *tc, unsigned what, GString *err) {
    struct tbbt_tc_tok *c = tc->col;
    if (!is_xid(c[4])) return fail_tok(err, 5, "not an xid", c[4]);
    if (!is_vers(c[5])) return fail_tok(err, 6, "not a version", c[5]);
    if (!is_proc(c[6])) return fail_tok(err, 7, "not a procedure", c[6]);
    if ((what & TBBT_TC_STATUS) && !is_status(c[7])) return fail_tok(err, 8, "not a status", c[7]);
    if ((what & TBBT_TC_FLAGS) && !is_flags(c[8], &tc->lost)) return fail_tok(err, 9, "not flags", c[8]);
    if ((what & TBBT_TC_CRED) && !is_cred(c[9], &tc->flavor, &tc->uid))
        return fail_tok(err, 10, "not a credential", c[9]);
    if ((what & TBBT_TC_LOST) && !tc->has_reply != !!tc->lost) {
        g_string_assign(err, "column 2: \"-\" exactly when flags has L");
        return -1;
    }
    return 0;
}

int tbbt_tc_check(struct tbbt_tc *tc, unsigned what, GString *err) {
    struct tbbt_tc_tok k, v;
    if (tc->n == 0 && (what & TBBT_TC_EMPTY)) {
        g_string_assign(err, "column 1: empty line");
        return -1;
    }
    if (tc->n < 10) {
        g_string_printf(err, "column %zu: missing (a record has at least 10 columns)", tc->n + 1);
        return -1;
    }
    if (check_times(tc, what, err) < 0 || check_header(tc, what, err) < 0) return -1;
    for (size_t i = 10; (what & TBBT_TC_FIELDS) && i < tc->n; i++)
        if (tbbt_tc_field(tc->col[i], &k, &v) < 0) return fail_tok(err, i + 1, "not key=value", tc->col[i]);
    return 0;
}
