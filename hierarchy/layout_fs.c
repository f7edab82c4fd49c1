/* layout_fs.c -- what tbbt-layout learns from the file system's own tools:
 * free-space histograms (e2freefrag, xfs_db freesp) and where ext2/3/4 keep
 * their inodes (dumpe2fs). The parsers take the tools' text so they can be
 * tested on fixed reports; tbbt_layout_run_tool runs a tool. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "unconst.h"

/* Formats a message into err (printf-style). Returns -1 for the caller. */
G_GNUC_PRINTF(3, 4) static int fail(char *err, size_t errlen, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    g_vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return -1;
}

/* Parses an unsigned decimal at *p (after blanks), moving *p past it.
 * Returns 0, or -1 when there is no digit or it overflows. */
static int scan_u64(const char **p, uint64_t *v) {
    const char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s < '0' || *s > '9') return -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (errno) return -1;
    *v = x, *p = end;
    return 0;
}

/* The value after "KEY:" if line starts with KEY followed by a colon, else
 * NULL. */
static const char *field(const char *line, const char *key) {
    size_t n = strlen(key);
    if (strncmp(line, key, n) != 0 || line[n] != ':') return NULL;
    return line + n + 1;
}

/* Parses e2freefrag's "N<unit>" (unit K, M, G, ... = powers of 1024 times
 * 1 KiB) or "max" into bytes. Returns 0 or -1. */
static int scan_size(const char **p, uint64_t *bytes) {
    const char *s = *p;
    while (*s == ' ')
        s++;
    if (strncmp(s, "max", 3) == 0) {
        *bytes = UINT64_MAX, *p = s + 3;
        return 0;
    }
    uint64_t n;
    if (scan_u64(&s, &n) < 0) return -1;
    const char *units = "KMGTPE", *u = *s ? strchr(units, *s) : NULL;
    if (!u) return -1;
    *bytes = n << (10 * (u - units + 1));
    *p = s + 1;
    return 0;
}

/* Parses one histogram line "  4K...    8K-  :   N   BLOCKS   P%" into b.
 * Returns 0 or -1. */
static int parse_e2_bin(const char *line, struct tbbt_layout_freebin *b) {
    const char *p = line;
    if (scan_size(&p, &b->min_bytes) < 0 || strncmp(p, "...", 3) != 0) return -1;
    p += 3;
    if (scan_size(&p, &b->max_bytes) < 0) return -1;
    if (*p == '-') p++;
    while (*p == ' ')
        p++;
    if (*p++ != ':') return -1;
    return scan_u64(&p, &b->extents) < 0 || scan_u64(&p, &b->blocks) < 0 ? -1 : 0;
}

/* The state of the e2freefrag parser. */
struct e2_state {
    int in_hist, have_bs, have_free, have_num;
    uint64_t bs;
};

/* Parses one line of e2freefrag's report into fr. Returns 0 or -1. */
static int parse_e2_line(const char *line, struct e2_state *st, struct tbbt_layout_freesp *fr) {
    const char *v;
    uint64_t n;
    if (st->in_hist) {
        if (!*line || strstr(line, "Extent Size Range")) return 0;
        struct tbbt_layout_freebin b;
        if (parse_e2_bin(line, &b) < 0) return -1;
        g_array_append_val(fr->bins, b);
    } else if ((v = field(line, "Blocksize"))) {
        if (scan_u64(&v, &st->bs) < 0 || !st->bs) return -1;
        st->have_bs = 1;
    } else if ((v = field(line, "Free blocks"))) {
        if (scan_u64(&v, &fr->free_blocks) < 0) return -1;
        st->have_free = 1;
    } else if ((v = field(line, "Num. free extent"))) {
        if (scan_u64(&v, &n) < 0) return -1;
        fr->free_extents = n, st->have_num = 1;
    } else if (g_str_has_prefix(line, "HISTOGRAM OF FREE EXTENT SIZES")) {
        st->in_hist = 1;
    }
    return 0;
}

/* See layout.h. */
int tbbt_layout_parse_e2freefrag(const char *text, struct tbbt_layout_freesp *fr, char *err, size_t errlen) {
    memset(fr, 0, sizeof(*fr));
    fr->bins = g_array_new(FALSE, TRUE, sizeof(struct tbbt_layout_freebin));
    fr->source = "e2freefrag";
    struct e2_state st = {0};
    char **lines = g_strsplit(text, "\n", -1);
    int rc = 0;
    for (int i = 0; lines[i] && rc == 0; i++) {
        g_strchomp(lines[i]);
        if (parse_e2_line(lines[i], &st, fr) < 0)
            rc = fail(err, errlen, "e2freefrag output, line %d: cannot parse \"%s\"", i + 1, lines[i]);
    }
    g_strfreev(lines);
    if (rc == 0 && (!st.have_bs || !st.have_free))
        rc = fail(err, errlen, "e2freefrag output: no \"Blocksize:\" or \"Free blocks:\" line");
    if (rc < 0) return rc;
    if (!st.have_num) /* older versions: count the histogram */
        for (guint i = 0; i < fr->bins->len; i++)
            fr->free_extents += g_array_index(fr->bins, struct tbbt_layout_freebin, i).extents;
    fr->avg_extent_blocks = fr->free_extents ? (double)fr->free_blocks / (double)fr->free_extents : NAN;
    fr->available = 1;
    return 0;
}

/* Parses one line of xfs_db freesp output into fr. Returns 0 or -1. */
static int parse_xfs_line(const char *line, uint64_t bs, struct tbbt_layout_freesp *fr) {
    const char *p = line;
    uint64_t from, to, n, blocks;
    while (*p == ' ')
        p++;
    if (!*p || g_str_has_prefix(p, "from") || g_str_has_prefix(p, "average free extent size")) return 0;
    if (g_str_has_prefix(p, "total free extents")) {
        p += strlen("total free extents");
        return scan_u64(&p, &fr->free_extents);
    }
    if (g_str_has_prefix(p, "total free blocks")) {
        p += strlen("total free blocks");
        return scan_u64(&p, &fr->free_blocks);
    }
    if (scan_u64(&p, &from) < 0 || scan_u64(&p, &to) < 0 || scan_u64(&p, &n) < 0 || scan_u64(&p, &blocks) < 0)
        return -1;
    struct tbbt_layout_freebin b = {from * bs, (to + 1) * bs, n, blocks};
    g_array_append_val(fr->bins, b);
    return 0;
}

/* See layout.h. */
int tbbt_layout_parse_xfs_freesp(const char *text, uint64_t bs, struct tbbt_layout_freesp *fr, char *err,
                                 size_t errlen) {
    memset(fr, 0, sizeof(*fr));
    fr->bins = g_array_new(FALSE, TRUE, sizeof(struct tbbt_layout_freebin));
    fr->source = "xfs_db"; /* the caller says xfs_spaceman when it was */
    char **lines = g_strsplit(text, "\n", -1);
    int rc = 0, totals = 0;
    for (int i = 0; lines[i] && rc == 0; i++) {
        g_strchomp(lines[i]);
        if (parse_xfs_line(lines[i], bs, fr) < 0)
            rc = fail(err, errlen, "xfs_db freesp output, line %d: cannot parse \"%s\"", i + 1, lines[i]);
        totals += g_str_has_prefix(g_strchug(lines[i]), "total free");
    }
    g_strfreev(lines);
    if (rc == 0 && totals < 2) rc = fail(err, errlen, "xfs_db freesp output: no \"total free\" lines");
    if (rc < 0) return rc;
    fr->avg_extent_blocks = fr->free_extents ? (double)fr->free_blocks / (double)fr->free_extents : NAN;
    fr->available = 1;
    return 0;
}

/* See layout.h. */
void tbbt_layout_freesp_clear(struct tbbt_layout_freesp *fr) {
    if (fr->bins) g_array_free(fr->bins, TRUE);
    fr->bins = NULL;
}

/* Parses one dumpe2fs line into e. Returns 0 or -1. */
static int parse_dumpe2fs_line(const char *line, struct tbbt_layout_ext2 *e) {
    const char *v;
    uint64_t a;
    if ((v = field(line, "Block size"))) return scan_u64(&v, &e->block_size);
    if ((v = field(line, "Inodes per group"))) return scan_u64(&v, &e->inodes_per_group);
    if ((v = field(line, "Inode size"))) return scan_u64(&v, &e->inode_size);
    if ((v = field(line, "Filesystem UUID"))) {
        while (*v == ' ' || *v == '\t')
            v++;
        g_strlcpy(e->uuid, v, sizeof(e->uuid));
        return 0;
    }
    while (*line == ' ')
        line++;
    if (g_str_has_prefix(line, "Inode table at ")) {
        v = line + strlen("Inode table at ");
        if (scan_u64(&v, &a) < 0) return -1;
        g_array_append_val(e->itable, a);
    }
    return 0;
}

/* See layout.h. */
int tbbt_layout_parse_dumpe2fs(const char *text, struct tbbt_layout_ext2 *e, char *err, size_t errlen) {
    memset(e, 0, sizeof(*e));
    e->itable = g_array_new(FALSE, TRUE, sizeof(uint64_t));
    char **lines = g_strsplit(text, "\n", -1);
    int rc = 0, groups = 0;
    for (int i = 0; lines[i] && rc == 0; i++) {
        g_strchomp(lines[i]);
        groups += g_str_has_prefix(lines[i], "Group ") && g_ascii_isdigit(lines[i][6]);
        if (parse_dumpe2fs_line(lines[i], e) < 0)
            rc = fail(err, errlen, "dumpe2fs output, line %d: cannot parse \"%s\"", i + 1, lines[i]);
    }
    g_strfreev(lines);
    if (rc < 0) return rc;
    if (!e->block_size || !e->inodes_per_group || !e->inode_size)
        return fail(err, errlen, "dumpe2fs output: no Block size, Inodes per group or Inode size");
    if (!groups || (guint)groups != e->itable->len)
        return fail(err, errlen, "dumpe2fs output: %d groups but %u inode tables", groups, e->itable->len);
    return 0;
}

/* See layout.h. Inode ino (from 1) is entry (ino-1) % ipg of group
 * (ino-1) / ipg's table, inode_size bytes each. */
int tbbt_layout_ext2_inode_block(const struct tbbt_layout_ext2 *e, uint64_t ino, uint64_t *block) {
    if (ino == 0 || !e->itable || !e->inodes_per_group || !e->block_size) return -1;
    uint64_t g = (ino - 1) / e->inodes_per_group, idx = (ino - 1) % e->inodes_per_group;
    if (g >= e->itable->len) return -1;
    *block = g_array_index(e->itable, uint64_t, g) + idx * e->inode_size / e->block_size;
    return 0;
}

/* See layout.h. */
void tbbt_layout_ext2_clear(struct tbbt_layout_ext2 *e) {
    if (e->itable) g_array_free(e->itable, TRUE);
    e->itable = NULL;
}

/* See layout.h. */
int tbbt_layout_parse_xfs_sb(const char *text, struct tbbt_layout_xfs *x, char *err, size_t errlen) {
    static const char *const names[] = {"agblocks", "agblklog", "inopblog", "blocksize"};
    uint64_t *dst[] = {&x->agblocks, &x->agblklog, &x->inopblog, &x->blocksize};
    int have[4] = {0};
    memset(x, 0, sizeof(*x));
    char **lines = g_strsplit(text, "\n", -1);
    for (int i = 0; lines[i]; i++) {
        char *eq = strstr(lines[i], " = ");
        if (!eq) continue;
        *eq = 0;
        const char *v = eq + 3;
        for (int k = 0; k < 4; k++)
            if (!strcmp(g_strstrip(lines[i]), names[k]) && scan_u64(&v, dst[k]) == 0) have[k] = 1;
    }
    g_strfreev(lines);
    for (int k = 0; k < 4; k++)
        if (!have[k]) return fail(err, errlen, "xfs_db sb output: no \"%s = N\" line", names[k]);
    if (!x->agblocks || x->agblklog > 40 || x->inopblog > 16 || !x->blocksize)
        return fail(err, errlen, "xfs_db sb output: implausible geometry");
    return 0;
}

/* See layout.h. */
int tbbt_layout_xfs_inode_block(const struct tbbt_layout_xfs *x, uint64_t ino, uint64_t *block) {
    uint64_t agno = ino >> (x->agblklog + x->inopblog);
    uint64_t agbno = (ino >> x->inopblog) & ((UINT64_C(1) << x->agblklog) - 1);
    *block = agno * x->agblocks + agbno;
    return 0;
}

/* See layout.h: Linux's ext4_statfs gives le64(uuid[0..7]) ^
 * le64(uuid[8..15]), low word first. */
int tbbt_layout_ext4_fsid(const char *uuid, uint32_t fsid[2]) {
    uint8_t b[16];
    int n = 0;
    for (const char *p = uuid; *p && n < 32; p++) {
        if (*p == '-') continue;
        int d = g_ascii_xdigit_value(*p);
        if (d < 0) return -1;
        if (n % 2 == 0)
            b[n / 2] = (uint8_t)(d << 4);
        else
            b[n / 2] |= (uint8_t)d;
        n++;
    }
    if (n != 32) return -1;
    uint64_t lo = 0, hi = 0;
    for (int i = 7; i >= 0; i--)
        lo = lo << 8 | b[i], hi = hi << 8 | b[8 + i];
    uint64_t x = lo ^ hi;
    fsid[0] = (uint32_t)x, fsid[1] = (uint32_t)(x >> 32);
    return 0;
}

/* See layout.h. */
char *tbbt_layout_run_tool(const char *const *argv, char *err, size_t errlen) {
    char *out = NULL, *errout = NULL;
    int status;
    GError *ge = NULL;
    if (!g_spawn_sync(NULL, tbbt_unconst(argv), NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out, &errout, &status,
                      &ge)) {
        fail(err, errlen, "%s: %s", argv[0], ge->message);
        g_error_free(ge);
        return NULL;
    }
    if (!g_spawn_check_wait_status(status, &ge)) {
        char *first = g_strstrip(g_strdup(errout ? errout : ""));
        char *nl = strchr(first, '\n');
        if (nl) *nl = 0;
        fail(err, errlen, "%s: %s%s%s", argv[0], ge->message, *first ? ": " : "", first);
        g_free(first);
        g_error_free(ge);
        g_free(out);
        out = NULL;
    }
    g_free(errout);
    return out;
}
