/* nfsdec_harness.h -- shared by the NFSv2 and NFSv3 decoder suites.
 *
 * Encodes a message with rpcgen's XDR routines, decodes it with nfsdec,
 * and checks the decode cut at every length: TRUNC (or OK where the
 * decoder stops early), never BAD, and a growing prefix of the whole
 * decode's fields, values, entries and handles. Include after cmocka and
 * tbbt_nfs.h, with HARNESS_VERS defined as 2 or 3. */
#ifndef TBBT_NFSDEC_HARNESS_H
#define TBBT_NFSDEC_HARNESS_H

#include <stdlib.h>
#include <string.h>

#include "nfsdec.h"

#define BUFSZ 16384
#define B(f) (1ull << (f))

struct msg {
    uint8_t b[BUFSZ];
    size_t n;
};

/* Encodes obj with an rpcgen routine. */
static void enc(struct msg *m, xdrproc_t proc, void *obj) {
    XDR x;
    xdrmem_create(&x, (char *)m->b, BUFSZ, XDR_ENCODE);
    assert_true(proc(&x, obj));
    m->n = xdr_getpos(&x);
    xdr_destroy(&x);
}

struct out {
    struct tbbt_rec r;
    struct tbbt_fhrefs fh;
    int rc;
};

static void out_init(struct out *o, enum tbbt_op op) {
    tbbt_rec_init(&o->r);
    memset(&o->fh, 0, sizeof(o->fh));
    o->r.op = (uint8_t)op;
    o->r.vers = HARNESS_VERS;
}

static void out_free(struct out *o) {
    tbbt_rec_free(&o->r);
    tbbt_fhrefs_free(&o->fh);
}

static void dec(struct out *o, enum tbbt_op op, int reply, const uint8_t *p, size_t n) {
    out_init(o, op);
    o->rc = reply ? tbbt_nfs_decode_reply(&o->r, p, n, &o->fh) : tbbt_nfs_decode_call(&o->r, p, n, &o->fh);
}

static void check_str(const struct tbbt_rec *r, enum tbbt_field f, const char *want) {
    assert_true(tbbt_rec_has(r, f));
    struct tbbt_str s = *(const struct tbbt_str *)((const char *)r + tbbt_fields[f].offset);
    assert_int_equal(s.len, strlen(want));
    assert_memory_equal(tbbt_rec_str(r, s), want, s.len);
}

static void check_u(const struct tbbt_rec *r, enum tbbt_field f, uint64_t want) {
    if (!tbbt_rec_has(r, f)) fail_msg("field %s missing", tbbt_fields[f].key);
    assert_int_equal(tbbt_rec_get_u64(r, f), want);
}

/* No field of the record is present beyond those in mask. */
static void check_only(const struct tbbt_rec *r, uint64_t mask) {
    if (r->has & ~mask) fail_msg("unexpected fields 0x%llx", (unsigned long long)(r->has & ~mask));
}

/* The record b (a decode of a prefix) holds a subset of full's fields,
 * with the same values, the same leading entries and handles. */
static void check_prefix(const struct out *b, const struct out *full) {
    const uint64_t cut = (1ull << TBBT_F_CUTNAME) | (1ull << TBBT_F_CUTLEN);
    assert_int_equal(b->r.has & ~full->r.has & ~cut, 0);
    if (b->r.has & cut) { /* a name cut inside its bytes: its length and first bytes, never the name */
        assert_true(tbbt_rec_has(&b->r, TBBT_F_CUTLEN) && tbbt_rec_has(&b->r, TBBT_F_CUTNAME));
        assert_false(tbbt_rec_has(&b->r, TBBT_F_NAME));
        assert_int_equal(b->r.cutlen, full->r.name.len);
        assert_true(b->r.cutname.len < full->r.name.len);
        assert_memory_equal(tbbt_rec_str(&b->r, b->r.cutname), tbbt_rec_str(&full->r, full->r.name),
                            b->r.cutname.len);
    }
    for (int f = 0; f < TBBT_F_COUNT_; f++) {
        if (!tbbt_rec_has(&b->r, f) || ((cut >> f) & 1)) continue;
        enum tbbt_ftype t = tbbt_fields[f].type;
        if (t == TBBT_FT_STR) {
            struct tbbt_str s1 = *(const struct tbbt_str *)((const char *)&b->r + tbbt_fields[f].offset);
            struct tbbt_str s2 = *(const struct tbbt_str *)((const char *)&full->r + tbbt_fields[f].offset);
            assert_int_equal(s1.len, s2.len);
            assert_memory_equal(tbbt_rec_str(&b->r, s1), tbbt_rec_str(&full->r, s2), s1.len);
        } else if (t != TBBT_FT_ENTRIES) {
            assert_int_equal(tbbt_rec_get_u64(&b->r, f), tbbt_rec_get_u64(&full->r, f));
        }
    }
    if (b->r.status != -1) assert_int_equal(b->r.status, full->r.status);
    assert_true(b->r.nentries <= full->r.nentries);
    for (uint32_t i = 0; i < b->r.nentries; i++) {
        const struct tbbt_dirent *e1 = &b->r.entries[i], *e2 = &full->r.entries[i];
        assert_int_equal(e1->fileid, e2->fileid);
        assert_int_equal(e1->cookie, e2->cookie);
        assert_int_equal(e1->name.len, e2->name.len);
        assert_memory_equal(tbbt_rec_str(&b->r, e1->name), tbbt_rec_str(&full->r, e2->name), e1->name.len);
        if (e1->type) {
            assert_int_equal(e1->type, e2->type);
            assert_int_equal(e1->size, e2->size);
        }
    }
    assert_true(b->fh.n <= full->fh.n);
    for (uint32_t i = 0; i < b->fh.n; i++) {
        const struct tbbt_fhref *h1 = &b->fh.v[i], *h2 = &full->fh.v[i];
        assert_int_equal(h1->field, h2->field);
        assert_int_equal(h1->entry, h2->entry);
        assert_int_equal(h1->len, h2->len);
        assert_memory_equal(h1->data, h2->data, h1->len);
    }
}

/* Decodes m cut at every length: never BAD, TRUNC (unless the decoder
 * stops reading early: partial), fields a growing prefix of the whole. */
static void check_cuts(enum tbbt_op op, int reply, const struct msg *m, int partial) {
    struct out full, prev;
    dec(&full, op, reply, m->b, m->n);
    assert_int_equal(full.rc, TBBT_DEC_OK);
    out_init(&prev, op);
    int cut_names = 0; /* cuts inside the name: each keeps its length and first bytes */
    for (size_t cut = 0; cut < m->n; cut++) {
        struct out o;
        uint8_t *copy = malloc(cut ? cut : 1); /* exact size: over-reads show under ASan */
        memcpy(copy, m->b, cut);
        dec(&o, op, reply, copy, cut);
        free(copy);
        if (partial)
            assert_true(o.rc == TBBT_DEC_TRUNC || o.rc == TBBT_DEC_OK);
        else if (o.rc != TBBT_DEC_TRUNC)
            fail_msg("%s %s cut at %zu of %zu: rc %d", tbbt_op_info(op)->name, reply ? "reply" : "call", cut,
                     m->n, o.rc);
        check_prefix(&o, &full);
        cut_names += tbbt_rec_has(&o.r, TBBT_F_CUTLEN);
        const uint64_t cutf = (1ull << TBBT_F_CUTNAME) | (1ull << TBBT_F_CUTLEN);
        if (!reply) { /* a call missing an argument is marked cut; a whole one never */
            int whole = (o.r.has & ~cutf) == full.r.has && o.fh.n == full.fh.n,
                flag = (o.r.flags & TBBT_RF_ARGS_CUT) != 0;
            if ((!whole && !flag) || (flag && o.rc != TBBT_DEC_TRUNC))
                fail_msg("%s call cut at %zu of %zu: arguments-cut flag %d, whole %d", tbbt_op_info(op)->name,
                         cut, m->n, flag, whole);
        }
        assert_int_equal(prev.r.has & ~o.r.has & ~cutf, 0); /* monotonic (a cut name gives way to the name) */
        assert_true(prev.r.nentries <= o.r.nentries);
        assert_true(prev.fh.n <= o.fh.n);
        out_free(&prev);
        prev = o;
    }
    if (!reply && tbbt_rec_has(&full.r, TBBT_F_NAME)) /* every cut between its length and its end */
        assert_int_equal(cut_names, full.r.name.len);
    out_free(&prev);
    out_free(&full);
}

/* Decodes a call and checks it cuts cleanly. */
static void call(struct out *o, enum tbbt_op op, xdrproc_t proc, void *args) {
    static struct msg m;
    enc(&m, proc, args);
    dec(o, op, 0, m.b, m.n);
    assert_int_equal(o->rc, TBBT_DEC_OK);
    check_cuts(op, 0, &m, 0);
}

static void reply(struct out *o, enum tbbt_op op, xdrproc_t proc, void *res, int partial) {
    static struct msg m;
    enc(&m, proc, res);
    dec(o, op, 1, m.b, m.n);
    assert_int_equal(o->rc, TBBT_DEC_OK);
    check_cuts(op, 1, &m, partial);
}

#endif
