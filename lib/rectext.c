/* rectext.c -- the canonical text form of records (format and parse) and
 * their JSON-lines output; grammar in rectext.h. Both walk tbbt_fields[],
 * so a field added to the table needs no change here. */
#include "rectext.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <string.h>

/* Flag letters, in the order the text form writes them. */
static const struct {
    uint16_t bit;
    char letter;
} flag_letters[] = {
    {TBBT_RF_REPLY_LOST, 'L'}, {TBBT_RF_INSERTED, 'I'},    {TBBT_RF_TCP, 'T'},
    {TBBT_RF_CALL_TRUNC, 'C'}, {TBBT_RF_REPLY_TRUNC, 'R'}, {TBBT_RF_RETRANS, 'X'},
    {TBBT_RF_MADE_EMPTY, 'E'}, {TBBT_RF_ARGS_CUT, 'K'},    {TBBT_RF_NAME_SYNTH, 'N'},
};
#define NFLAGS (sizeof(flag_letters) / sizeof(flag_letters[0]))

/* JSON keys of the fixed header; an optional field with one of these keys
 * is written as "attr_" KEY. */
static const char *const json_header_keys[] = {
    "call_time", "reply_time", "client",     "server", "xid",    "vers", "proc", "status",
    "flags",     "inserted",   "reply_lost", "tcp",    "flavor", "uid",  "gid",  "gids",
};

/* ------------------------------------------------------------------ */
/* Formatting                                                           */

/* Appends v in decimal, at least width digits (zero-padded). Hand-rolled:
 * printf dominated the cost of dumping a trace as text. */
static void app_u64w(GString *o, uint64_t v, int width) {
    char b[24];
    int n = 0;
    do {
        b[sizeof(b) - 1 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v || n < width);
    g_string_append_len(o, b + sizeof(b) - n, n);
}

/* Contract in rectext.h. */
void tbbt_text_u64(GString *o, uint64_t v) {
    app_u64w(o, v, 1);
}

/* Contract in rectext.h. */
void tbbt_text_oct(GString *o, uint64_t v) {
    char b[24];
    int n = 0;
    do {
        b[sizeof(b) - 1 - n++] = (char)('0' + (v & 7));
        v >>= 3;
    } while (v);
    g_string_append_len(o, b + sizeof(b) - n, n);
}

/* Appends t (ns) as seconds.nanoseconds. */
void tbbt_text_time(GString *o, int64_t t) {
    uint64_t m = t < 0 ? -(uint64_t)t : (uint64_t)t;
    if (t < 0) g_string_append_c(o, '-');
    tbbt_text_u64(o, m / 1000000000u);
    g_string_append_c(o, '.');
    app_u64w(o, m % 1000000000u, 9);
}

/* Appends an endpoint; returns 0, or -1 for an unknown family. */
int tbbt_endpoint_format(GString *o, const struct tbbt_endpoint *e) {
    static const uint8_t zero[16];
    char buf[INET6_ADDRSTRLEN];
    switch (e->family) {
    case 4:
        for (int i = 0; i < 4; i++) {
            tbbt_text_u64(o, e->addr[i]);
            g_string_append_c(o, i < 3 ? '.' : ':');
        }
        tbbt_text_u64(o, e->port);
        return 0;
    case 6:
        inet_ntop(AF_INET6, e->addr, buf, sizeof(buf));
        g_string_append_printf(o, "[%s]:%u", buf, e->port);
        return 0;
    case 0:
        if (memcmp(e->addr, zero, 16) != 0) {
            g_string_append_c(o, '~');
            for (int i = 0; i < 16; i++)
                g_string_append_printf(o, "%02x", e->addr[i]);
            g_string_append_printf(o, ":%u", e->port);
        } else if (e->port) {
            g_string_append_printf(o, "-:%u", e->port);
        } else {
            g_string_append_c(o, '-');
        }
        return 0;
    }
    return -1;
}

/* Appends the flag letters ("-" for none). */
static void fmt_flags(GString *o, uint16_t flags) {
    uint16_t rest = flags;
    if (!flags) {
        g_string_append_c(o, '-');
        return;
    }
    for (size_t i = 0; i < NFLAGS; i++) {
        if (flags & flag_letters[i].bit) g_string_append_c(o, flag_letters[i].letter);
        rest &= (uint16_t)~flag_letters[i].bit;
    }
    if (rest) g_string_append_printf(o, "+%x", rest);
}

/* Appends bytes as a quoted string with \" \\ \xHH escapes. */
void tbbt_text_qstr(GString *o, const char *s, size_t len) {
    g_string_append_c(o, '"');
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            g_string_append_c(o, '\\');
            g_string_append_c(o, (char)c);
        } else if (c > 0x20 && c < 0x7f) {
            g_string_append_c(o, (char)c);
        } else {
            g_string_append_printf(o, "\\x%02x", c);
        }
    }
    g_string_append_c(o, '"');
}

/* Returns 1 when every string of r lies inside its arena. */
static int strings_ok(const struct tbbt_rec *r) {
    for (int f = 0; f < TBBT_F_COUNT_; f++) {
        const struct tbbt_field_info *fi = &tbbt_fields[f];
        if (!tbbt_rec_has(r, f) || fi->type != TBBT_FT_STR) continue;
        const struct tbbt_str *s = (const void *)((const char *)r + fi->offset);
        if ((uint64_t)s->off + s->len > r->arena_len) return 0;
    }
    if (!tbbt_rec_has(r, TBBT_F_ENTRIES)) return 1;
    for (uint32_t i = 0; i < r->nentries; i++)
        if ((uint64_t)r->entries[i].name.off + r->entries[i].name.len > r->arena_len) return 0;
    return 1;
}

/* Appends one optional field's value in the text form. */
static void fmt_value(GString *o, const struct tbbt_rec *r, const struct tbbt_field_info *fi) {
    const char *v = (const char *)r + fi->offset;
    switch (fi->type) {
    case TBBT_FT_ID:
    case TBBT_FT_U64: tbbt_text_u64(o, *(const uint64_t *)v); break;
    case TBBT_FT_U32: tbbt_text_u64(o, *(const uint32_t *)v); break;
    case TBBT_FT_TIME:
        if (*(const int64_t *)v == TBBT_TIME_SERVER)
            g_string_append(o, "server");
        else
            tbbt_text_time(o, *(const int64_t *)v);
        break;
    case TBBT_FT_STR: {
        struct tbbt_str s = *(const struct tbbt_str *)v;
        tbbt_text_qstr(o, tbbt_rec_str(r, s), s.len);
        break;
    }
    case TBBT_FT_ENTRIES:
        g_string_append_c(o, '[');
        for (uint32_t i = 0; i < r->nentries; i++) {
            const struct tbbt_dirent *e = &r->entries[i];
            if (i) g_string_append_c(o, ',');
            const uint64_t parts[] = {e->fileid, e->cookie, e->id, e->type, e->size};
            for (size_t k = 0; k < G_N_ELEMENTS(parts); k++)
                app_u64w(o, parts[k], 1), g_string_append_c(o, ':');
            tbbt_text_qstr(o, tbbt_rec_str(r, e->name), e->name.len);
        }
        g_string_append_c(o, ']');
        break;
    }
}

/* Contract in rectext.h. */
int tbbt_rec_format_text(const struct tbbt_rec *r, GString *out) {
    size_t saved = out->len;
    if (r->op >= TBBT_OP_COUNT || r->cred.ngids > TBBT_MAX_GIDS || !strings_ok(r)) return -1;
    tbbt_text_time(out, r->call_time);
    g_string_append_c(out, ' ');
    if (r->flags & TBBT_RF_REPLY_LOST)
        g_string_append_c(out, '-');
    else
        tbbt_text_time(out, r->reply_time);
    g_string_append_c(out, ' ');
    if (tbbt_endpoint_format(out, &r->client) < 0) goto bad;
    g_string_append_c(out, ' ');
    if (tbbt_endpoint_format(out, &r->server) < 0) goto bad;
    g_string_append_printf(out, " 0x%08x v%u %s ", r->xid, r->vers, tbbt_op_info(r->op)->name);
    if (r->status == -1)
        g_string_append_c(out, '-');
    else if (r->status >= 0)
        app_u64w(out, (uint64_t)r->status, 1);
    else
        g_string_append_printf(out, "%" PRId32, r->status);
    g_string_append_c(out, ' ');
    fmt_flags(out, r->flags);
    /* by hand, not printf: these run for every record written as text */
    g_string_append(out, " cred=");
    app_u64w(out, r->cred.flavor, 1), g_string_append_c(out, ':');
    app_u64w(out, r->cred.uid, 1), g_string_append_c(out, ':');
    app_u64w(out, r->cred.gid, 1);
    for (uint32_t i = 0; i < r->cred.ngids; i++)
        g_string_append_c(out, i ? ',' : ':'), app_u64w(out, r->cred.gids[i], 1);
    for (int f = 0; f < TBBT_F_COUNT_; f++) {
        if (!tbbt_rec_has(r, f)) continue;
        g_string_append_c(out, ' ');
        g_string_append(out, tbbt_fields[f].key);
        g_string_append_c(out, '=');
        fmt_value(out, r, &tbbt_fields[f]);
    }
    return 0;
bad:
    g_string_truncate(out, saved);
    return -1;
}

/* ------------------------------------------------------------------ */
/* JSON                                                                 */

/* Appends bytes as a JSON string; bytes outside valid UTF-8 become
 * \u00XX of the byte. */
void tbbt_json_str(GString *o, const char *s, size_t len) {
    g_string_append_c(o, '"');
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80) {
            gunichar u = g_utf8_get_char_validated(s + i, (gssize)(len - i));
            if (u == (gunichar)-1 || u == (gunichar)-2) {
                g_string_append_printf(o, "\\u%04x", c);
                i++;
            } else {
                size_t n = (size_t)g_unichar_to_utf8(u, NULL);
                g_string_append_len(o, s + i, (gssize)n);
                i += n;
            }
            continue;
        }
        if (c == '"' || c == '\\') {
            g_string_append_c(o, '\\');
            g_string_append_c(o, (char)c);
        } else if (c < 0x20 || c == 0x7f) {
            g_string_append_printf(o, "\\u%04x", c);
        } else {
            g_string_append_c(o, (char)c);
        }
        i++;
    }
    g_string_append_c(o, '"');
}

/* Appends "key": with the attr_ prefix when key is a header key. */
static void json_key(GString *o, const char *key) {
    for (size_t i = 0; i < G_N_ELEMENTS(json_header_keys); i++) {
        if (strcmp(key, json_header_keys[i]) == 0) {
            g_string_append_printf(o, ",\"attr_%s\":", key);
            return;
        }
    }
    g_string_append_printf(o, ",\"%s\":", key);
}

/* Appends an endpoint as a JSON string (null if unrepresentable). */
static void json_endpoint(GString *o, const struct tbbt_endpoint *e) {
    GString *t = g_string_new(NULL);
    if (tbbt_endpoint_format(t, e) == 0)
        tbbt_json_str(o, t->str, t->len);
    else
        g_string_append(o, "null");
    g_string_free(t, TRUE);
}

/* Appends one optional field's value as JSON. */
static void json_value(GString *o, const struct tbbt_rec *r, const struct tbbt_field_info *fi) {
    const char *v = (const char *)r + fi->offset;
    switch (fi->type) {
    case TBBT_FT_ID:
    case TBBT_FT_U64:
    case TBBT_FT_U32:
    case TBBT_FT_TIME:
        if (fi->type == TBBT_FT_TIME && *(const int64_t *)v == TBBT_TIME_SERVER)
            g_string_append(o, "\"server\"");
        else
            fmt_value(o, r, fi);
        break;
    case TBBT_FT_STR: {
        struct tbbt_str s = *(const struct tbbt_str *)v;
        tbbt_json_str(o, tbbt_rec_str(r, s), s.len);
        break;
    }
    case TBBT_FT_ENTRIES:
        g_string_append_c(o, '[');
        for (uint32_t i = 0; i < r->nentries; i++) {
            const struct tbbt_dirent *e = &r->entries[i];
            g_string_append_printf(o,
                                   "%s{\"fileid\":%" PRIu64 ",\"cookie\":%" PRIu64 ",\"id\":%" PRIu64
                                   ",\"type\":%u,\"size\":%" PRIu64 ",\"name\":",
                                   i ? "," : "", e->fileid, e->cookie, e->id, e->type, e->size);
            tbbt_json_str(o, tbbt_rec_str(r, e->name), e->name.len);
            g_string_append_c(o, '}');
        }
        g_string_append_c(o, ']');
        break;
    }
}

/* Contract in rectext.h. */
void tbbt_rec_format_json(const struct tbbt_rec *r, GString *out) {
    int lost = (r->flags & TBBT_RF_REPLY_LOST) != 0;
    int sok = strings_ok(r);
    g_string_append(out, "{\"call_time\":");
    tbbt_text_time(out, r->call_time);
    g_string_append(out, ",\"reply_time\":");
    if (lost)
        g_string_append(out, "null");
    else
        tbbt_text_time(out, r->reply_time);
    g_string_append(out, ",\"client\":");
    json_endpoint(out, &r->client);
    g_string_append(out, ",\"server\":");
    json_endpoint(out, &r->server);
    g_string_append_printf(out, ",\"xid\":%u,\"vers\":%u,\"proc\":", r->xid, r->vers);
    if (r->op < TBBT_OP_COUNT)
        g_string_append_printf(out, "\"%s\"", tbbt_op_info(r->op)->name);
    else
        g_string_append(out, "null");
    if (r->status == -1)
        g_string_append(out, ",\"status\":null,\"flags\":\"");
    else
        g_string_append_printf(out, ",\"status\":%" PRId32 ",\"flags\":\"", r->status);
    fmt_flags(out, r->flags);
    g_string_append_printf(out, "\",\"inserted\":%s,\"reply_lost\":%s,\"tcp\":%s",
                           r->flags & TBBT_RF_INSERTED ? "true" : "false", lost ? "true" : "false",
                           r->flags & TBBT_RF_TCP ? "true" : "false");
    g_string_append_printf(out, ",\"flavor\":%u,\"uid\":%u,\"gid\":%u,\"gids\":[", r->cred.flavor,
                           r->cred.uid, r->cred.gid);
    for (uint32_t i = 0; i < r->cred.ngids && i < TBBT_MAX_GIDS; i++)
        g_string_append_printf(out, "%s%u", i ? "," : "", r->cred.gids[i]);
    g_string_append_c(out, ']');
    for (int f = 0; f < TBBT_F_COUNT_; f++) {
        if (!tbbt_rec_has(r, f)) continue;
        json_key(out, tbbt_fields[f].key);
        if (!sok && (tbbt_fields[f].type == TBBT_FT_STR || tbbt_fields[f].type == TBBT_FT_ENTRIES))
            g_string_append(out, "null");
        else
            json_value(out, r, &tbbt_fields[f]);
    }
    g_string_append_c(out, '}');
}

/* ------------------------------------------------------------------ */
/* Parsing                                                              */

/* Parser state: the line, the current token [tb, te), a scratch buffer
 * as long as the line for decoded strings. */
struct pc {
    const char *s, *p, *end;
    const char *tb, *te;
    char *scratch;
    char *err;
    size_t errlen;
};

/* Records "column N: what" for position at. Returns -1. */
static int pfail(struct pc *c, const char *at, const char *what) {
    g_snprintf(c->err, c->errlen, "column %d: %s", (int)(at - c->s) + 1, what);
    return -1;
}

/* Moves to the next whitespace-separated token. Returns 1 if there is one,
 * 0 at the end of the line. */
static int next_token(struct pc *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t'))
        c->p++;
    c->tb = c->p;
    while (c->p < c->end && *c->p != ' ' && *c->p != '\t')
        c->p++;
    c->te = c->p;
    return c->te > c->tb;
}

/* Reads decimal digits at *p (before end) into *v. Returns 0, or -1 if
 * there are none or the value exceeds max. */
static int scan_u64(const char **p, const char *end, uint64_t max, uint64_t *v) {
    const char *q = *p;
    uint64_t x = 0;
    while (q < end && *q >= '0' && *q <= '9') {
        unsigned d = (unsigned)(*q - '0');
        if (x > (max - d) / 10) return -1;
        x = x * 10 + d;
        q++;
    }
    if (q == *p) return -1;
    *p = q;
    *v = x;
    return 0;
}

/* Parses all of [b, e) as a decimal number <= max. Returns 0 or -1. */
static int parse_u64(const char *b, const char *e, uint64_t max, uint64_t *v) {
    return scan_u64(&b, e, max, v) == 0 && b == e ? 0 : -1;
}

/* Returns the value of hex digit ch, or -1. */
static int hexval(char ch) {
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F') return ch - 'A' + 10;
    return -1;
}

/* Parses all of [b, e) as 1..maxdigits hex digits. Returns 0 or -1. */
static int parse_hex(const char *b, const char *e, int maxdigits, uint64_t *v) {
    uint64_t x = 0;
    if (b == e || e - b > maxdigits) return -1;
    for (; b < e; b++) {
        int h = hexval(*b);
        if (h < 0) return -1;
        x = x << 4 | (uint64_t)h;
    }
    *v = x;
    return 0;
}

/* Parses all of [b, e) as ["-"]SECONDS.NNNNNNNNN into ns. Returns 0 or -1. */
int tbbt_text_parse_time(const char *b, const char *e, int64_t *t) {
    int neg = b < e && *b == '-';
    uint64_t sec, ns;
    if (neg) b++;
    if (scan_u64(&b, e, UINT64_MAX / 1000000000u, &sec) < 0 || b == e || *b != '.') return -1;
    b++;
    if (e - b != 9 || parse_u64(b, e, 999999999u, &ns) < 0) return -1;
    uint64_t m = sec * 1000000000u;
    if (m > UINT64_MAX - ns) return -1;
    m += ns;
    if (m > (neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX)) return -1;
    *t = neg ? (int64_t)(0 - m) : (int64_t)m;
    return 0;
}

/* Parses all of [b, e) as an endpoint. Returns 0 or -1. */
static int parse_endpoint(const char *b, const char *e, struct tbbt_endpoint *ep) {
    char buf[INET6_ADDRSTRLEN + 1];
    uint64_t port = 0, v;
    const char *colon = e;
    memset(ep, 0, sizeof(*ep));
    if (e - b == 1 && *b == '-') return 0;
    while (colon > b && colon[-1] != ':')
        colon--;
    if (colon == b || parse_u64(colon, e, UINT16_MAX, &port) < 0) return -1;
    ep->port = (uint16_t)port;
    const char *ae = colon - 1; /* end of the address part */
    if (ae - b == 1 && *b == '-') return 0;
    if (*b == '~') {
        if (ae - b != 33) return -1;
        for (int i = 0; i < 16; i++) {
            if (parse_hex(b + 1 + 2 * i, b + 3 + 2 * i, 2, &v) < 0) return -1;
            ep->addr[i] = (uint8_t)v;
        }
        static const uint8_t zero[16];
        return memcmp(ep->addr, zero, 16) ? 0 : -1; /* canonical: "-:port" */
    }
    int v6 = *b == '[';
    if (v6 && (ae - b < 3 || ae[-1] != ']')) return -1;
    const char *ab = b + v6, *aend = ae - v6;
    if ((size_t)(aend - ab) >= sizeof(buf)) return -1;
    memcpy(buf, ab, (size_t)(aend - ab));
    buf[aend - ab] = 0;
    ep->family = v6 ? 6 : 4;
    return inet_pton(v6 ? AF_INET6 : AF_INET, buf, ep->addr) == 1 ? 0 : -1;
}

/* Parses all of [b, e) as flags. Returns 0 or -1. */
static int parse_flags(const char *b, const char *e, uint16_t *flags) {
    uint64_t rest = 0;
    *flags = 0;
    if (e - b == 1 && *b == '-') return 0;
    for (; b < e && *b != '+'; b++) {
        size_t i = 0;
        while (i < NFLAGS && flag_letters[i].letter != *b)
            i++;
        if (i == NFLAGS) return -1;
        *flags |= flag_letters[i].bit;
    }
    if (b < e && parse_hex(b + 1, e, 4, &rest) < 0) return -1;
    *flags |= (uint16_t)rest;
    return 0;
}

/* Parses all of [b, e) as cred=FLAVOR:UID:GID[:g1,g2...]. Returns 0 or -1. */
static int parse_cred(const char *b, const char *e, struct tbbt_cred *cr) {
    uint64_t v[3], g;
    if (e - b < 5 || memcmp(b, "cred=", 5) != 0) return -1;
    b += 5;
    for (int i = 0; i < 3; i++) {
        if (i && (b == e || *b++ != ':')) return -1;
        if (scan_u64(&b, e, UINT32_MAX, &v[i]) < 0) return -1;
    }
    cr->flavor = (uint32_t)v[0];
    cr->uid = (uint32_t)v[1];
    cr->gid = (uint32_t)v[2];
    cr->ngids = 0;
    if (b == e) return 0;
    if (*b != ':') return -1;
    do {
        b++;
        if (cr->ngids == TBBT_MAX_GIDS || scan_u64(&b, e, UINT32_MAX, &g) < 0) return -1;
        cr->gids[cr->ngids++] = (uint32_t)g;
    } while (b < e && *b == ',');
    return b == e ? 0 : -1;
}

/* Decodes a quoted string at *p (before end) into out; sets *len and
 * advances *p past the closing quote. Returns 0 or -1. */
int tbbt_text_scan_qstr(const char **p, const char *end, char *out, size_t *len) {
    const char *q = *p;
    size_t n = 0;
    if (q == end || *q++ != '"') return -1;
    while (q < end && *q != '"') {
        unsigned char c = (unsigned char)*q++;
        if (c <= 0x20 || c >= 0x7f) return -1;
        if (c == '\\') {
            if (q == end) return -1;
            c = (unsigned char)*q++;
            if (c == 'x') {
                uint64_t v;
                if (end - q < 2 || parse_hex(q, q + 2, 2, &v) < 0) return -1;
                c = (unsigned char)v;
                q += 2;
            } else if (c != '"' && c != '\\') {
                return -1;
            }
        }
        out[n++] = (char)c;
    }
    if (q == end) return -1;
    *p = q + 1;
    *len = n;
    return 0;
}

/* Parses an entries list [b, e) into r. Returns 0, or -1 with *at set to
 * the failing position. */
static int parse_entries(struct pc *c, const char *b, const char *e, struct tbbt_rec *r, const char **at) {
    uint64_t v[5];
    size_t len;
    *at = b;
    if (b == e || *b++ != '[') return -1;
    r->has |= 1ull << TBBT_F_ENTRIES;
    if (b < e && *b == ']') return b + 1 == e ? 0 : -1;
    for (;;) {
        *at = b;
        for (int i = 0; i < 5; i++) {
            if (scan_u64(&b, e, i == 3 ? UINT8_MAX : UINT64_MAX, &v[i]) < 0 || b == e || *b++ != ':')
                return -1;
        }
        if (tbbt_text_scan_qstr(&b, e, c->scratch, &len) < 0) return -1;
        struct tbbt_dirent *d = tbbt_rec_add_entry(r, c->scratch, len);
        d->fileid = v[0];
        d->cookie = v[1];
        d->id = v[2];
        d->type = (uint8_t)v[3];
        d->size = v[4];
        if (b == e) return -1;
        if (*b == ']') return b + 1 == e ? 0 : -1;
        if (*b++ != ',') return -1;
    }
}

/* Parses a value [b, e) for field fi into r. Returns 0, or -1 with *at
 * set to the failing position. */
static int parse_value(struct pc *c, const struct tbbt_field_info *fi, const char *b, const char *e,
                       struct tbbt_rec *r, const char **at) {
    uint64_t v;
    int64_t t;
    size_t len;
    *at = b;
    switch (fi->type) {
    case TBBT_FT_ID:
    case TBBT_FT_U64:
    case TBBT_FT_U32:
        if (parse_u64(b, e, fi->type == TBBT_FT_U32 ? UINT32_MAX : UINT64_MAX, &v) < 0) return -1;
        tbbt_rec_set_u64(r, fi->f, v);
        return 0;
    case TBBT_FT_TIME:
        if (e - b == 6 && memcmp(b, "server", 6) == 0)
            t = TBBT_TIME_SERVER;
        else if (tbbt_text_parse_time(b, e, &t) < 0)
            return -1;
        tbbt_rec_set_u64(r, fi->f, (uint64_t)t);
        return 0;
    case TBBT_FT_STR:
        if (tbbt_text_scan_qstr(&b, e, c->scratch, &len) < 0 || b != e) return -1;
        tbbt_rec_set_str(r, fi->f, c->scratch, len);
        return 0;
    case TBBT_FT_ENTRIES: return parse_entries(c, b, e, r, at);
    }
    return -1;
}

/* Parses one key=value token into r. Returns 0 or -1 (message set). */
static int parse_field(struct pc *c, struct tbbt_rec *r) {
    const char *eq = memchr(c->tb, '=', (size_t)(c->te - c->tb));
    char msg[160];
    if (!eq) return pfail(c, c->tb, "expected key=value");
    size_t klen = (size_t)(eq - c->tb);
    for (int f = 0; f < TBBT_F_COUNT_; f++) {
        const struct tbbt_field_info *fi = &tbbt_fields[f];
        if (strlen(fi->key) != klen || memcmp(fi->key, c->tb, klen) != 0) continue;
        if (tbbt_rec_has(r, f)) {
            g_snprintf(msg, sizeof(msg), "field '%s' given twice", fi->key);
            return pfail(c, c->tb, msg);
        }
        const char *at;
        if (parse_value(c, fi, eq + 1, c->te, r, &at) == 0) return 0;
        g_snprintf(msg, sizeof(msg), "bad value for field '%s'", fi->key);
        return pfail(c, at, msg);
    }
    g_snprintf(msg, sizeof(msg), "unknown field '%.*s'", (int)MIN(klen, 40), c->tb);
    return pfail(c, c->tb, msg);
}

/* Parses the fixed columns into r. Returns 0 or -1 (message set). */
static int parse_header(struct pc *c, struct tbbt_rec *r) {
    uint64_t v;
    char name[32];
    int lost;
    if (!next_token(c) || tbbt_text_parse_time(c->tb, c->te, &r->call_time) < 0)
        return pfail(c, c->tb, "bad call time");
    if (!next_token(c)) return pfail(c, c->tb, "missing reply time");
    lost = c->te - c->tb == 1 && *c->tb == '-';
    if (!lost && tbbt_text_parse_time(c->tb, c->te, &r->reply_time) < 0)
        return pfail(c, c->tb, "bad reply time");
    if (!next_token(c) || parse_endpoint(c->tb, c->te, &r->client) < 0) return pfail(c, c->tb, "bad client");
    if (!next_token(c) || parse_endpoint(c->tb, c->te, &r->server) < 0) return pfail(c, c->tb, "bad server");
    if (!next_token(c) || c->te - c->tb < 3 || c->tb[0] != '0' || c->tb[1] != 'x' ||
        parse_hex(c->tb + 2, c->te, 8, &v) < 0)
        return pfail(c, c->tb, "bad xid");
    r->xid = (uint32_t)v;
    if (!next_token(c) || *c->tb != 'v' || parse_u64(c->tb + 1, c->te, UINT8_MAX, &v) < 0)
        return pfail(c, c->tb, "bad version");
    r->vers = (uint8_t)v;
    int op = -1;
    if (next_token(c) && (size_t)(c->te - c->tb) < sizeof(name)) {
        memcpy(name, c->tb, (size_t)(c->te - c->tb));
        name[c->te - c->tb] = 0;
        op = tbbt_op_by_name(name);
    }
    if (op < 0) return pfail(c, c->tb, "unknown procedure");
    r->op = (uint8_t)op;
    if (!next_token(c)) return pfail(c, c->tb, "missing status");
    if (c->te - c->tb == 1 && *c->tb == '-') {
        r->status = -1;
    } else {
        int neg = *c->tb == '-';
        if (parse_u64(c->tb + neg, c->te, neg ? (uint64_t)INT32_MAX + 1 : INT32_MAX, &v) < 0)
            return pfail(c, c->tb, "bad status");
        r->status = neg ? (int32_t)(0 - v) : (int32_t)v;
    }
    if (!next_token(c) || parse_flags(c->tb, c->te, &r->flags) < 0) return pfail(c, c->tb, "bad flags");
    if (lost != ((r->flags & TBBT_RF_REPLY_LOST) != 0))
        return pfail(c, c->tb, "reply time '-' and flag L must go together");
    if (!next_token(c) || parse_cred(c->tb, c->te, &r->cred) < 0) return pfail(c, c->tb, "bad cred");
    return 0;
}

/* Contract in rectext.h. */
int tbbt_rec_parse_text(struct tbbt_rec *r, const char *line, size_t len, char *err, size_t errlen) {
    if (len && line[len - 1] == '\n') len--;
    if (len && line[len - 1] == '\r') len--;
    struct pc c = {line, line, line + len, line, line, g_malloc(len + 1), err, errlen};
    int rc = -1;
    tbbt_rec_clear(r);
    const char *nl = memchr(line, '\n', len), *nul = memchr(line, 0, len);
    if (nl || nul) {
        pfail(&c, nl ? nl : nul, nl ? "newline inside the line" : "NUL byte in the line");
        goto out;
    }
    if (parse_header(&c, r) < 0) goto out;
    while (next_token(&c))
        if (parse_field(&c, r) < 0) goto out;
    rc = 0;
out:
    g_free(c.scratch);
    return rc;
}
