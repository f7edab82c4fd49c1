/* rectext.h -- records as text: the canonical one-line text form (read
 * and written, round-trips exactly) and JSON lines (written only, for jq).
 *
 * Text form: one line per record, tokens separated by one space; no token
 * contains a space, so `split ' '` in Perl yields the columns.
 *
 *   line      = calltime SP replytime SP client SP server SP xid SP "v" vers
 *               SP proc SP status SP flags SP cred *(SP key "=" value)
 *   time      = ["-"] 1*DIGIT "." 9DIGIT         seconds.nanoseconds since the epoch
 *   replytime = time / "-"                       "-" exactly when flags has L
 *   endpoint  = "-"                              unknown (family 0), no port
 *             / "-:" port                        unknown host, known port
 *             / "~" 32HEXDIG ":" port            family 0 with address bytes (anonymised)
 *             / ipv4 ":" port / "[" ipv6 "]" ":" port    (ipv6 as inet_ntop writes it)
 *   xid       = "0x" 8HEXDIG                     lower case
 *   vers      = 1*DIGIT                          "v3"
 *   proc      = operation name from nfs_ops (tbbt_op_info(op)->name): getattr, fsstat, statfs ...
 *   status    = ["-"] 1*DIGIT / "-"              "-" = -1 = no reply
 *   flags     = "-" / 1*letter ["+" 1*HEXDIG]    letters in this order: L reply lost, I inserted,
 *                                                T tcp, C call truncated, R reply truncated,
 *                                                X retransmitted, E made empty, K arguments cut,
 *                                                N synthetic name; "+hex" = other bits
 *   cred      = "cred=" flavor ":" uid ":" gid [":" gid *("," gid)]   decimal; gids optional
 *   key=value = the record's optional fields, in tbbt_fields[] order, under their table key:
 *       id, u32, u64  decimal
 *       time          time as above, or "server" (TBBT_TIME_SERVER: set to the server's clock)
 *       str           DQUOTE *char DQUOTE: bytes 0x21-0x7e other than " and \ stand for
 *                     themselves; \" \\ and \xHH (two lower-case hex digits) for every other
 *                     byte, space included
 *       entries       "[" [entry *("," entry)] "]"
 *                     entry = fileid ":" cookie ":" id ":" type ":" size ":" str
 * The parser accepts runs of spaces or tabs between tokens, optional
 * fields in any order (each at most once), upper-case hex, and a trailing
 * "\n" or "\r\n"; the formatter always writes the canonical form above.
 *
 * JSON lines: one object per record with call_time, reply_time (seconds
 * as numbers with 9 decimals; reply_time null when the reply was lost),
 * client, server (the text form's endpoint strings), xid, vers, proc,
 * status (null when there is no reply), flags (the text form's letters),
 * inserted, reply_lost, tcp (booleans), flavor, uid, gid, gids (the
 * credentials), then every present optional field under its table key;
 * an optional field whose key is one of those header keys (uid, gid: the
 * object's attributes) is written as "attr_" KEY. Times are numbers,
 * "server" for TBBT_TIME_SERVER. u64 values are exact integers (beware
 * consumers that read JSON numbers as doubles). Strings: valid UTF-8 is
 * kept, control characters are \uXXXX-escaped, and every byte that is
 * not part of valid UTF-8 is written as \u00XX (so such names read back
 * as U+0080..U+00FF: lossy, JSON has no byte strings). entries is an
 * array of {"fileid","cookie","id","type","size","name"} objects. */
#ifndef TBBT_RECTEXT_H
#define TBBT_RECTEXT_H

#include <glib.h>
#include <stddef.h>

#include "record.h"

/* Appends r's text form to out (no newline). Returns 0, or -1 when r
 * cannot be represented (op out of range, unknown endpoint family, more
 * than TBBT_MAX_GIDS gids, string out of its arena); out is then left as
 * it was. */
int tbbt_rec_format_text(const struct tbbt_rec *r, GString *out);

/* Parses one text line of len bytes (a trailing newline is allowed) into
 * r (an initialised record; cleared first, its buffers reused). Returns 0,
 * or -1 with "column N: ..." naming the field that failed in err; the
 * caller adds the file name and line number. */
int tbbt_rec_parse_text(struct tbbt_rec *r, const char *line, size_t len, char *err, size_t errlen);

/* Appends r as one JSON object to out (no newline). */
void tbbt_rec_format_json(const struct tbbt_rec *r, GString *out);

/* Appends an endpoint in the text form's notation ("1.2.3.4:801",
 * "[::1]:2049", "-", ...). Returns 0, or -1 for an unknown family. */
int tbbt_endpoint_format(GString *out, const struct tbbt_endpoint *e);

/* The text form's pieces, shared with the other text formats (the
 * hierarchy map): a time as seconds.nanoseconds (negative allowed), a
 * quoted string with the escapes above, and numbers in decimal and octal
 * (without printf, which dominated the cost of writing text). */
void tbbt_text_time(GString *out, int64_t t);
void tbbt_text_qstr(GString *out, const char *s, size_t len);
void tbbt_text_u64(GString *out, uint64_t v);
void tbbt_text_oct(GString *out, uint64_t v);

/* Parses all of [b, e) as a time. Returns 0, or -1 when it is not one. */
int tbbt_text_parse_time(const char *b, const char *e, int64_t *t);

/* Decodes the quoted string at *p (before end) into out, which must have
 * room for end - *p bytes; sets *len and moves *p past the closing quote.
 * Returns 0, or -1 when it is not a well-formed quoted string. */
int tbbt_text_scan_qstr(const char **p, const char *end, char *out, size_t *len);

/* Appends len bytes of s as a JSON string literal (quotes included), with
 * the escaping rules of the JSON lines above. */
void tbbt_json_str(GString *out, const char *s, size_t len);

#endif
