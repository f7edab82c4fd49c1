/* rec-fixture.h -- records for the record-format tests (test_recfile.c,
 * test_rectext.c): builders that set every field of tbbt_fields[] with
 * edge values, and a field-by-field comparison driven by the same table,
 * so a field added to the table is covered without touching the tests. */
#ifndef TBBT_REC_FIXTURE_H
#define TBBT_REC_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "record.h"

/* Names that exercise the escapes: empty, spaces and quotes, NUL, bytes
 * >= 0x80 (invalid UTF-8), valid UTF-8, backslashes. */
static const struct {
    const char *s;
    size_t len;
} fx_names[] = {
#define FX_NAME(lit)                                                                                         \
    { lit, sizeof(lit) - 1 }
    FX_NAME(""),
    FX_NAME("a b \"c\" \\d"),
    FX_NAME("nul\0inside"),
    FX_NAME("\xff\xfe\x80 latin\xe9"),
    FX_NAME("caf\xc3\xa9 \xe2\x82\xac"),
    FX_NAME("=[],:#\t\r\n"),
    FX_NAME("surrogate \xed\xa0\x80 overlong \xc0\xaf \xf4\x90\x80\x80"),
#undef FX_NAME
};
#define FX_NNAMES (sizeof(fx_names) / sizeof(fx_names[0]))

/* Sets every optional field of r from the table, with values chosen by
 * seed among edge cases (0, max, negative and sentinel times), and
 * nentries directory entries. */
static void fx_fill_fields(struct tbbt_rec *r, unsigned seed, unsigned nentries) {
    static const uint64_t u64s[] = {0, 1, 127, 128, UINT64_MAX, UINT64_MAX - 1, 0x123456789abcdefull};
    static const uint32_t u32s[] = {0, 1, UINT32_MAX, 0755, 300};
    static const int64_t times[] = {
        0, -1, -1500000000, INT64_MAX, TBBT_TIME_SERVER, INT64_MIN + 1, 1700000000123456789LL};
    for (int f = 0; f < TBBT_F_COUNT_; f++) {
        unsigned k = seed + (unsigned)f;
        switch (tbbt_fields[f].type) {
        case TBBT_FT_ID:
        case TBBT_FT_U64: tbbt_rec_set_u64(r, f, u64s[k % 7]); break;
        case TBBT_FT_U32: tbbt_rec_set_u64(r, f, u32s[k % 5]); break;
        case TBBT_FT_TIME: tbbt_rec_set_u64(r, f, (uint64_t)times[k % 7]); break;
        case TBBT_FT_STR:
            tbbt_rec_set_str(r, f, fx_names[k % FX_NNAMES].s, fx_names[k % FX_NNAMES].len);
            break;
        case TBBT_FT_ENTRIES:
            r->has |= 1ull << f;
            for (unsigned i = 0; i < nentries; i++) {
                char nm[32];
                const char *s = nm;
                size_t len = (size_t)snprintf(nm, sizeof(nm), "entry-%u", i);
                if (i % 7 == 3) s = fx_names[i % FX_NNAMES].s, len = fx_names[i % FX_NNAMES].len;
                struct tbbt_dirent *e = tbbt_rec_add_entry(r, s, len);
                e->fileid = i == 0 ? UINT64_MAX : 1000 + i;
                e->cookie = (uint64_t)i << 40 | i;
                e->id = i % 3 ? i : 0;
                e->type = (uint8_t)(i % 8);
                e->size = i == 1 ? UINT64_MAX : i * 4096ull;
            }
            break;
        }
    }
}

/* Fills the fixed header with a variant chosen by seed: IPv4, IPv6,
 * unknown hosts with and without port, lost replies, 0..16 gids. */
static void fx_fill_header(struct tbbt_rec *r, unsigned seed) {
    static const int64_t calls[] = {1700000000123456789LL, -2500000001LL, 0, INT64_MAX, INT64_MIN, 5};
    r->call_time = calls[seed % 6];
    r->reply_time = seed % 6 == 3 ? INT64_MIN : r->call_time + 123457;
    switch (seed % 4) {
    case 0:
        r->client.family = 4;
        memcpy(r->client.addr, "\xc0\xa8\x01\x02", 4);
        r->client.port = 801;
        r->server.family = 4;
        memcpy(r->server.addr, "\x0a\x00\x00\x01", 4);
        r->server.port = 2049;
        break;
    case 1:
        r->client.family = 6;
        memcpy(r->client.addr, "\xfe\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
        r->client.port = 65535;
        r->server.family = 6;
        r->server.addr[15] = 1;
        r->server.port = 0;
        break;
    case 2:
        r->client.port = 0x801; /* anonymised: no address */
        r->server.family = 0;
        break;
    case 3:
        r->client.addr[0] = 0x31; /* anonymised host id in the address bytes */
        r->client.port = 1023;
        r->server.family = 4;
        r->server.port = 20490;
        break;
    }
    r->xid = seed % 5 == 0 ? UINT32_MAX : 0x1000u + seed;
    r->vers = seed % 3 == 0 ? 2 : 3;
    r->op = (uint8_t)(seed % TBBT_OP_COUNT);
    r->flags = (uint16_t)(seed % 64);
    if (seed % 11 == 0) r->flags |= 0x8000; /* a bit with no letter yet */
    r->status = seed % 4 == 1 ? -1 : (seed % 4 == 2 ? 70 : (seed % 4 == 3 ? INT32_MIN : 0));
    r->cred.flavor = seed % 2;
    r->cred.uid = seed % 3 == 0 ? UINT32_MAX : seed;
    r->cred.gid = 100;
    r->cred.ngids = seed % (TBBT_MAX_GIDS + 1);
    for (uint32_t i = 0; i < r->cred.ngids; i++)
        r->cred.gids[i] = i * 1000u + (i == 15 ? UINT32_MAX - 15000 : 0);
}

/* A complete record for seed: header variant, every field, nentries. */
static void fx_full(struct tbbt_rec *r, unsigned seed, unsigned nentries) {
    tbbt_rec_clear(r);
    fx_fill_header(r, seed);
    fx_fill_fields(r, seed, nentries);
}

/* Compares two records field by field (strings by content). Returns NULL
 * when equal, else a static description of the first difference. The
 * reply time is compared only when the reply was not lost. */
static const char *fx_diff(const struct tbbt_rec *a, const struct tbbt_rec *b) {
    static char msg[128];
    if (a->call_time != b->call_time) return "call_time";
    if (a->flags != b->flags) return "flags";
    if (!(a->flags & TBBT_RF_REPLY_LOST) && a->reply_time != b->reply_time) return "reply_time";
    if (memcmp(&a->client, &b->client, sizeof(a->client)) != 0) return "client";
    if (memcmp(&a->server, &b->server, sizeof(a->server)) != 0) return "server";
    if (a->xid != b->xid || a->vers != b->vers || a->op != b->op || a->status != b->status)
        return "xid/vers/op/status";
    if (a->cred.flavor != b->cred.flavor || a->cred.uid != b->cred.uid || a->cred.gid != b->cred.gid ||
        a->cred.ngids != b->cred.ngids || memcmp(a->cred.gids, b->cred.gids, a->cred.ngids * 4) != 0)
        return "cred";
    if (a->has != b->has) return "has";
    for (int f = 0; f < TBBT_F_COUNT_; f++) {
        if (!tbbt_rec_has(a, f)) continue;
        const struct tbbt_field_info *fi = &tbbt_fields[f];
        snprintf(msg, sizeof(msg), "field %s", fi->key);
        if (fi->type == TBBT_FT_STR) {
            struct tbbt_str sa = *(const struct tbbt_str *)((const char *)a + fi->offset);
            struct tbbt_str sb = *(const struct tbbt_str *)((const char *)b + fi->offset);
            if (sa.len != sb.len || memcmp(tbbt_rec_str(a, sa), tbbt_rec_str(b, sb), sa.len) != 0) return msg;
        } else if (fi->type == TBBT_FT_ENTRIES) {
            if (a->nentries != b->nentries) return msg;
            for (uint32_t i = 0; i < a->nentries; i++) {
                const struct tbbt_dirent *x = &a->entries[i], *y = &b->entries[i];
                if (x->fileid != y->fileid || x->cookie != y->cookie || x->id != y->id ||
                    x->type != y->type || x->size != y->size || x->name.len != y->name.len ||
                    memcmp(tbbt_rec_str(a, x->name), tbbt_rec_str(b, y->name), x->name.len) != 0)
                    return msg;
            }
        } else if (tbbt_rec_get_u64(a, f) != tbbt_rec_get_u64(b, f)) {
            return msg;
        }
    }
    return NULL;
}

/* The temporary directory a record test writes into, made by fx_setup
 * and removed with everything in it by fx_teardown (cmocka group
 * fixtures). */
static char fx_tmpdir[256];

static int fx_setup(void **state) {
    (void)state;
    char *d = g_dir_make_tmp("tbbt-rectest-XXXXXX", NULL);
    if (!d) return -1;
    snprintf(fx_tmpdir, sizeof(fx_tmpdir), "%s", d);
    g_free(d);
    return 0;
}

static int fx_teardown(void **state) {
    (void)state;
    char cmd[400];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx_tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

#endif
