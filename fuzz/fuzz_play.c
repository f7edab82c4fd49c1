/* fuzz_play.c -- libFuzzer target: the player's per-record path, with no
 * network. The bytes are lines of the records' text form, read as the
 * player's I/O thread reads a trace; each record then goes the way
 * player/engine.c sends it: into the ordering policy (fsdep or
 * conservative: player/order.c, lib/locks.c) within a lookahead window,
 * out of it when the policy offers it (or skips it), through the name
 * checks (lib/safename.c), the request encoder (lib/nfsenc.c) with the
 * live handles and readdir cookies known so far, to an in-process
 * answerer, whose reply goes back through the reply decoder
 * (lib/nfsdec.c) and teaches the handles and cookies the engine learns,
 * and the record's end (done()) releases its locks.
 *
 * The engine's own glue (its send and receive threads, on_reply,
 * apply_event, complete) is static in engine.c and tied to sockets and
 * threads; this target repeats its decisions in a few lines, on one
 * thread (so what is fuzzed is the policy, the encoder, the decoder and
 * the checks, not the engine's threading, which the play tests and
 * ThreadSanitizer cover). The "manifest" knows every object the input
 * names but never makes; the answerer gives each new object a handle that
 * encodes its ID. The answerer answers as the trace did, except that,
 * by the XID's low bits, one call in eight gets another error (NFS3ERR_IO)
 * and one in eight no reply at all (the engine's timeout), so that
 * skipping, poisoning and the lost-reply paths run. Replies come back in
 * a varying order, up to 4 outstanding (a server that reorders).
 *
 * What must hold: no crash, no sanitizer report, no hang; every request
 * the encoder writes decodes back (tbbt_rpc_parse, tbbt_nfs_decode_call)
 * to the same XID, program, version and procedure, completely, with the
 * record's names; every record added ends (sent and answered, skipped,
 * refused, or unsendable) unless the policy reports a dependency that can
 * never be met, as the engine does ("ordering deadlock"). The first byte's
 * low bit picks the policy, its next two bits fsdep's deps mode. */
#include "fuzz_util.h"

#include "nfs_ops.h"
#include "nfsdec.h"
#include "nfsenc.h"
#include "order.h"
#include "safename.h"

#define WINDOW 16
#define MAX_OUT 4
#define FH_LEN 32 /* fits v2 (exactly 32) and v3 (up to 64) */
#define BUF (1u << 20)

enum { WAITING, SENT, DONE };

struct fz {
    struct tbbt_rec *recs;
    uint8_t *state;
    uint32_t n;
    GHashTable *fh;      /* known IDs (the manifest's, then learnt) */
    GHashTable *cookies; /* (dir, trace cookie) -> live cookie */
    const struct tbbt_sched_ops *ord;
    void *sched;
    uint64_t out[MAX_OUT + 1];
    uint8_t *replies[MAX_OUT + 1];
    size_t replen[MAX_OUT + 1];
    int nout;
    uint64_t head, added, completed;
    uint8_t *sendbuf, *rbuf;
    struct tbbt_rec dec;
    struct tbbt_fhrefs refs;
};

/* The live handle of an ID: its 8 bytes, then a fixed filler. */
static void make_fh(tbbt_id id, uint8_t fh[FH_LEN]) {
    memset(fh, 0xa5, FH_LEN);
    memcpy(fh, &id, sizeof(id));
}

static uint8_t fh_store[FH_LEN];

/* nfsenc's handle callback: known IDs only, as the engine's. */
static int enc_fh(void *ctx, tbbt_id id, const uint8_t **data, uint32_t *len) {
    struct fz *f = ctx;
    if (!g_hash_table_contains(f->fh, &id)) return -1;
    make_fh(id, fh_store);
    *data = fh_store, *len = FH_LEN;
    return 0;
}

/* The policy's "is the handle known" callback. */
static int known(void *ctx, tbbt_id id) {
    struct fz *f = ctx;
    return g_hash_table_contains(f->fh, &id);
}

/* A (directory, cookie) key for the cookie table. */
static uint64_t *ckey(tbbt_id dir, uint64_t cookie) {
    uint64_t *k = g_new(uint64_t, 2);
    k[0] = dir, k[1] = cookie;
    return k;
}

static guint ckey_hash(gconstpointer p) {
    const uint64_t *k = p;
    return (guint)((k[0] * 0x9e3779b97f4a7c15ull) ^ k[1]);
}

static gboolean ckey_eq(gconstpointer a, gconstpointer b) {
    return !memcmp(a, b, 2 * sizeof(uint64_t));
}

/* nfsenc's cookie callback: as the engine's (an unknown one restarts the listing). */
static int enc_cookie(void *ctx, tbbt_id dir, uint64_t trace_cookie, uint64_t *cookie, uint64_t *verf) {
    struct fz *f = ctx;
    uint64_t k[2] = {dir, trace_cookie};
    uint64_t *v = trace_cookie ? g_hash_table_lookup(f->cookies, k) : NULL;
    *cookie = v ? *v : 0;
    *verf = v ? 0x1122334455667788ull : 0;
    return 0;
}

static void learn(struct fz *f, tbbt_id id) {
    tbbt_id *k = g_new(tbbt_id, 1);
    *k = id;
    g_hash_table_add(f->fh, k);
}

/* ---- the answerer: XDR written by hand (RFC 1094, 1813) ---- */

/* A reply being written: grown as it fills (most replies are a few
 * words), up to BUF, past which the rest is cut, as a server's reply
 * would be by its buffer. */
struct xw {
    uint8_t *p;
    size_t n, cap;
};

/* Makes room for k more bytes; 0 when the reply would pass BUF. */
static int room(struct xw *w, size_t k) {
    if (w->n + k > BUF) return 0;
    if (w->n + k > w->cap) {
        while (w->n + k > w->cap)
            w->cap = w->cap < 128 ? 128 : w->cap * 2;
        if (w->cap > BUF) w->cap = BUF;
        w->p = g_realloc(w->p, w->cap);
    }
    return 1;
}

static void put32(struct xw *w, uint32_t v) {
    if (!room(w, 4)) return;
    w->p[w->n++] = (uint8_t)(v >> 24), w->p[w->n++] = (uint8_t)(v >> 16);
    w->p[w->n++] = (uint8_t)(v >> 8), w->p[w->n++] = (uint8_t)v;
}

static void put64(struct xw *w, uint64_t v) {
    put32(w, (uint32_t)(v >> 32)), put32(w, (uint32_t)v);
}

static void put_opaque(struct xw *w, const void *d, size_t len, int counted) {
    if (counted) put32(w, (uint32_t)len);
    size_t pad = (4 - len % 4) % 4;
    if (!room(w, len + pad)) return;
    memcpy(w->p + w->n, d, len);
    memset(w->p + w->n + len, 0, pad);
    w->n += len + pad;
}

/* v2 fattr: seventeen words, a regular file. */
static void put_fattr2(struct xw *w) {
    for (int i = 0; i < 17; i++)
        put32(w, i == 0 ? 1 : 0);
}

/* A handle: v2 fixed 32 bytes, v3 counted. */
static void put_fh(struct xw *w, unsigned vers, tbbt_id id) {
    uint8_t fh[FH_LEN];
    make_fh(id, fh);
    put_opaque(w, fh, FH_LEN, vers == 3);
}

/* The status the answerer gives r's call: the trace's, but one in eight
 * gets NFS3ERR_IO; -1: no reply (one in eight). */
static int answer_status(const struct tbbt_rec *r) {
    if ((r->xid & 7) == 7) return 5;
    if ((r->xid & 7) == 6) return -1;
    return r->status < 0 ? 0 : r->status;
}

/* Writes the reply to r's call (xid) into w. */
static void answer(const struct tbbt_rec *r, uint32_t xid, int status, struct xw *w) {
    put32(w, xid), put32(w, 1), put32(w, 0); /* REPLY, MSG_ACCEPTED */
    put32(w, 0), put32(w, 0), put32(w, 0);   /* verifier AUTH_NONE, SUCCESS */
    put32(w, (uint32_t)status);
    if (status != 0) return;
    tbbt_id newobj = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : 0;
    int plus = r->op == TBBT_OP_READDIRPLUS;
    switch (r->op) {
    case TBBT_OP_LOOKUP:
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR:
    case TBBT_OP_SYMLINK:
    case TBBT_OP_MKNOD:
        if (r->vers == 2) {
            if (r->op == TBBT_OP_SYMLINK) return;
            put_fh(w, 2, newobj);
            put_fattr2(w);
            return;
        }
        if (r->op != TBBT_OP_LOOKUP) put32(w, newobj != 0); /* post_op_fh3 */
        if (r->op == TBBT_OP_LOOKUP || newobj) put_fh(w, 3, newobj);
        put32(w, 0), put32(w, 0); /* attributes; dir attributes or wcc before */
        if (r->op != TBBT_OP_LOOKUP) put32(w, 0);
        return;
    case TBBT_OP_READDIR:
    case TBBT_OP_READDIRPLUS:
        if (r->vers == 3) put32(w, 0), put64(w, 0x1122334455667788ull); /* dir attributes, verifier */
        for (uint32_t i = 0; i < r->nentries; i++) {
            const struct tbbt_dirent *d = &r->entries[i];
            put32(w, 1);
            if (r->vers == 2) {
                put32(w, (uint32_t)d->fileid);
                put_opaque(w, tbbt_rec_str(r, d->name), d->name.len, 1);
                put32(w, (uint32_t)d->cookie ^ 0x5a5a);
                continue;
            }
            put64(w, d->fileid);
            put_opaque(w, tbbt_rec_str(r, d->name), d->name.len, 1);
            put64(w, d->cookie ^ 0x5a5a);
            if (plus) {
                put32(w, 0);
                put32(w, d->id != 0);
                if (d->id) put_fh(w, 3, d->id);
            }
        }
        put32(w, 0), put32(w, 1); /* end of list, eof */
        return;
    default: return; /* the rest: the status alone (decoded as cut short; the engine uses the status) */
    }
}

/* ---- the engine's decisions, on one thread ---- */

/* engine.c's refused(): a name that must not reach the server. */
static int refused(const struct tbbt_rec *r) {
    if (tbbt_rec_has(r, TBBT_F_NAME)) {
        const char *n = tbbt_rec_str(r, r->name);
        int dots = tbbt_dot_name(n, r->name.len);
        if (!(r->op == TBBT_OP_LOOKUP && dots) && tbbt_name_unsafe(n, r->name.len)) return 1;
    }
    return tbbt_rec_has(r, TBBT_F_NAME2) && tbbt_name_unsafe(tbbt_rec_str(r, r->name2), r->name2.len);
}

/* engine.c's complete(): the record's end, told to the policy. status < 0: none. */
static void complete(struct fz *f, uint64_t seq, int status) {
    const struct tbbt_rec *r = &f->recs[seq];
    if (f->state[seq] == DONE) abort(); /* ended twice */
    int lost = (r->flags & TBBT_RF_REPLY_LOST) && r->status < 0;
    int matched = status >= 0 && (lost ? status == 0 : status == r->status);
    int changes = r->op < TBBT_OP_COUNT && (tbbt_op_info(r->op)->flags & TBBT_OPF_MODIFIES);
    f->ord->done(f->sched, seq,
                 matched || (r->flags & TBBT_RF_REPLY_LOST) || !changes ||
                     !tbbt_sched_diverged(r->status, status));
    f->state[seq] = DONE;
    f->completed++;
}

/* The encoded call decodes back to what was sent. */
static void check_call(struct fz *f, const struct tbbt_rec *r, uint32_t xid, const uint8_t *m, size_t n) {
    struct tbbt_rpc_hdr h;
    if (tbbt_rpc_parse(m, n, &h) != 0 || h.mtype != TBBT_RPC_CALL || h.xid != xid ||
        h.prog != TBBT_NFS_PROGRAM || h.vers != r->vers) {
        fprintf(stderr, "an encoded call does not parse back as its own RPC header\n");
        abort();
    }
    struct tbbt_rec *d = &f->dec;
    tbbt_rec_clear(d);
    tbbt_fhrefs_clear(&f->refs);
    d->op = r->op, d->vers = r->vers;
    int k = tbbt_nfs_decode_call(d, m + h.body, n - h.body, &f->refs);
    if (k != TBBT_DEC_OK) {
        fprintf(stderr, "%s v%u call encoded from a record decodes as %d\n", tbbt_op_info(r->op)->name,
                r->vers, k);
        abort();
    }
    if (tbbt_rec_has(d,
                     TBBT_F_NAME) && /* the ops that send one: the record's (a write ignores a stray one) */
        (!tbbt_rec_has(r, TBBT_F_NAME) || d->name.len != r->name.len ||
         memcmp(tbbt_rec_str(d, d->name), tbbt_rec_str(r, r->name), r->name.len))) {
        fprintf(stderr, "%s v%u: the name sent is not the record's\n", tbbt_op_info(r->op)->name, r->vers);
        abort();
    }
}

/* Sends one offered record: checks, encoding, the answerer. */
static void send_one(struct fz *f, uint64_t seq) {
    struct tbbt_rec *r = &f->recs[seq];
    if (!tbbt_rec_replayable(r)) { /* never ran, or cut: not sent, not a failure */
        f->ord->done(f->sched, seq, 1);
        f->state[seq] = DONE;
        f->completed++;
        return;
    }
    if (refused(r)) {
        complete(f, seq, -6);
        return;
    }
    struct tbbt_enc_ctx c = {
        .fh = enc_fh, .fh_ctx = f, .cookie = enc_cookie, .cookie_ctx = f, .create_verf = seq};
    uint32_t xid = (uint32_t)seq + 0x1000;
    ssize_t n = tbbt_nfs_encode_call(r, xid, &c, f->sendbuf, BUF, NULL, 0);
    if (n < 0) {
        complete(f, seq, -3); /* no handle (or a value the version cannot carry) */
        return;
    }
    check_call(f, r, xid, f->sendbuf, (size_t)n);
    f->ord->sent(f->sched, seq);
    f->state[seq] = SENT;
    int status = answer_status(r);
    struct xw w = {NULL, 0, 0};
    if (status >= 0) answer(r, xid, status, &w);
    f->out[f->nout] = seq, f->replies[f->nout] = w.p, f->replen[f->nout] = status >= 0 ? w.n : 0;
    f->nout++;
}

/* One reply comes back (which one: by the XID's bits), as the receive
 * thread decodes it and the send thread applies it. */
static void receive(struct fz *f) {
    int i = (int)(f->recs[f->out[0]].xid >> 3) % f->nout;
    uint64_t seq = f->out[i];
    uint8_t *m = f->replies[i];
    size_t n = f->replen[i];
    f->out[i] = f->out[f->nout - 1], f->replies[i] = f->replies[f->nout - 1],
    f->replen[i] = f->replen[f->nout - 1];
    f->nout--;
    const struct tbbt_rec *r = &f->recs[seq];
    int status = -1; /* none: timed out */
    struct tbbt_rpc_hdr h;
    if (n && tbbt_rpc_parse(m, n, &h) == 0 && h.mtype == TBBT_RPC_REPLY && h.reply_stat == 0 &&
        h.accept_stat == 0) {
        struct tbbt_rec *d = &f->dec;
        tbbt_rec_clear(d);
        tbbt_fhrefs_clear(&f->refs);
        d->op = r->op, d->vers = r->vers;
        status = -2;
        if (tbbt_nfs_decode_reply(d, m + h.body, n - h.body, &f->refs) != TBBT_DEC_BAD) status = d->status;
        int has_fh = 0;
        for (uint32_t k = 0; k < f->refs.n; k++)
            has_fh |= f->refs.v[k].field == TBBT_F_NEWOBJ;
        if (status == 0 && has_fh && tbbt_rec_has(r, TBBT_F_NEWOBJ) && r->newobj) learn(f, r->newobj);
        if (status == 0 && (r->op == TBBT_OP_READDIR || r->op == TBBT_OP_READDIRPLUS) && d->nentries &&
            r->nentries) {
            uint64_t *v = g_new(uint64_t, 1);
            *v = d->entries[d->nentries - 1].cookie;
            g_hash_table_replace(f->cookies, ckey(r->obj, r->entries[r->nentries - 1].cookie), v);
        }
    }
    g_free(m);
    complete(f, seq, status);
}

/* Every ID the records name by handle but none makes: the manifest's. */
static void manifest(struct fz *f) {
    GHashTable *made = g_hash_table_new(g_int64_hash, g_int64_equal);
    for (uint32_t i = 0; i < f->n; i++)
        if (tbbt_rec_has(&f->recs[i], TBBT_F_NEWOBJ)) g_hash_table_add(made, &f->recs[i].newobj);
    for (uint32_t i = 0; i < f->n; i++) {
        tbbt_id ids[3];
        unsigned k = tbbt_nfs_call_ids(&f->recs[i], ids);
        for (unsigned j = 0; j < k; j++)
            if (!g_hash_table_contains(made, &ids[j])) learn(f, ids[j]);
    }
    g_hash_table_destroy(made);
}

/* The play loop: admit within the window, take what the policy offers,
 * answer; stop when all ended or nothing can move. */
static void play(struct fz *f) {
    for (;;) {
        while (f->added < f->n && f->added - f->head < WINDOW) {
            f->ord->add(f->sched, f->added, &f->recs[f->added]);
            f->added++;
        }
        uint64_t seq;
        int k, moved = 0;
        while (f->nout < MAX_OUT && (k = f->ord->next(f->sched, &seq)) != TBBT_SCHED_NONE) {
            if (seq >= f->added || f->state[seq] != WAITING) {
                fprintf(stderr, "the policy offered record %llu, not waiting\n", (unsigned long long)seq);
                abort();
            }
            if (k == TBBT_SCHED_SKIP)
                complete(f, seq, -4);
            else
                send_one(f, seq);
            moved = 1;
        }
        if (f->nout) {
            receive(f);
            moved = 1;
        }
        while (f->head < f->added && f->state[f->head] == DONE)
            f->head++;
        if (f->completed == f->n) return;
        if (!moved && f->added == f->n) return; /* the engine's "ordering deadlock": an error, not a crash */
        if (!moved && f->added - f->head >= WINDOW) return;
    }
}

/* One input: its parsed lines played as above. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct fz f = {0};
    GArray *recs = g_array_new(FALSE, TRUE, sizeof(struct tbbt_rec));
    struct tbbt_rec r;
    tbbt_rec_init(&r);
    size_t at = 0, len = 0;
    const char *c;
    while (recs->len < 4096 && (c = fuzz_next_line(data, size, &at, &len)) != NULL) {
        char err[256];
        if (tbbt_rec_parse_text(&r, c, len, err, sizeof(err)) == 0) {
            struct tbbt_rec copy;
            tbbt_rec_init(&copy);
            tbbt_rec_copy(&copy, &r);
            g_array_append_val(recs, copy);
        }
    }
    tbbt_rec_free(&r);
    f.n = recs->len;
    f.recs = (struct tbbt_rec *)(void *)recs->data;
    f.state = g_new0(uint8_t, f.n + 1);
    f.fh = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    f.cookies = g_hash_table_new_full(ckey_hash, ckey_eq, g_free, g_free);
    static uint8_t
        *sendbuf; /* the call's buffer: one for every input (a 1 MiB allocation each was most of the time) */
    if (!sendbuf) sendbuf = g_malloc(BUF);
    f.sendbuf = sendbuf;
    tbbt_rec_init(&f.dec);
    manifest(&f);
    unsigned sel = size ? data[0] : 0;
    f.ord = (sel & 1) ? &tbbt_sched_conservative : &tbbt_sched_fsdep;
    struct tbbt_sched_opts o = {
        .window = WINDOW, .deps = (int)((sel >> 1) & 3) % 3, .known = known, .known_ctx = &f};
    f.sched = f.ord->create(&o);
    play(&f);
    while (f.nout) { /* what was left out when the loop stopped */
        f.nout--;
        g_free(f.replies[f.nout]);
    }
    f.ord->destroy(f.sched);
    for (uint32_t i = 0; i < f.n; i++)
        tbbt_rec_free(&f.recs[i]);
    g_array_free(recs, TRUE);
    g_free(f.state);
    g_hash_table_destroy(f.fh), g_hash_table_destroy(f.cookies);
    tbbt_rec_free(&f.dec);
    tbbt_fhrefs_free(&f.refs);
    return 0;
}
