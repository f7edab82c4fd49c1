/* test_nfsenc.c -- replay records encoded as RPC calls (nfsenc), checked
 * by decoding the bytes back with nfsdec (tbbt_rpc_parse,
 * tbbt_nfs_decode_call) and, for the credential body, with libtirpc.
 *
 * Every NFSv2 and NFSv3 procedure: a record with every argument field set
 * (plus fields the procedure must ignore) and one with only the required
 * ones; the decoded arguments must be the record's (or the documented
 * defaults), the handles the live ones the callback gave for the right
 * IDs, the header the right xid, program, version, procedure (rpcgen's
 * constants) and credentials. Every encoding is also retried at every
 * smaller buffer size (refused, nothing written past the end) and cut by
 * one byte (the decoder must miss it: no trailing bytes). Then random
 * records, errors, WRITE payload repetition, readdir cookie translation,
 * the exclusive-create verifier. (The encode rate is measured in
 * bench/nfsenc.sh.) */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rpc/rpc.h>

#include "nfsdec.h"
#include "nfsenc.h"
#include "tbbt_nfs.h"
#include "unconst.h"

#define B(f) (1ull << (f))
#define BUFSZ 70000
#define ID0 1000 /* live IDs are ID0 .. ID0 + NLIVE - 1 */
#define NLIVE 64
#define UNKNOWN_ID 987654321ull

/* ------------------------------------------------------------------ */
/* the player's side: live handles and cookies                         */
/* ------------------------------------------------------------------ */

/* Live handles per version: v2 always 32 bytes, v3 1..64 bytes. */
static uint8_t live[2][NLIVE][64];
static uint32_t live_len[2][NLIVE];

static void live_init(void) {
    for (int v = 0; v < 2; v++)
        for (int k = 0; k < NLIVE; k++) {
            live_len[v][k] = v == 0 ? 32 : 1 + (uint32_t)(k * 13 % 64);
            for (int i = 0; i < 64; i++)
                live[v][k][i] = (uint8_t)(k * 7 + i * 31 + v * 101 + 1);
        }
}

struct player {
    int vers;
    int fh_calls;
    int cookie_calls;
    tbbt_id cookie_dir;
    uint64_t cookie_asked;
    int cookie_fail;
};

static int live_fh(void *ctx, tbbt_id id, const uint8_t **data, uint32_t *len) {
    struct player *p = ctx;
    p->fh_calls++;
    if (id < ID0 || id >= ID0 + NLIVE) return -1;
    *data = live[p->vers - 2][id - ID0];
    *len = live_len[p->vers - 2][id - ID0];
    return 0;
}

/* Live cookie = trace cookie * 3 + 1, verifier = 0xfeed0000 + trace cookie. */
static int live_cookie(void *ctx, tbbt_id dir, uint64_t trace_cookie, uint64_t *cookie, uint64_t *verf) {
    struct player *p = ctx;
    p->cookie_calls++;
    p->cookie_dir = dir;
    p->cookie_asked = trace_cookie;
    if (p->cookie_fail) return -1;
    *cookie = trace_cookie * 3 + 1;
    *verf = 0xfeed0000ull + trace_cookie;
    return 0;
}

static void ctx_init(struct tbbt_enc_ctx *c, struct player *p, int vers) {
    memset(c, 0, sizeof(*c));
    memset(p, 0, sizeof(*p));
    p->vers = vers;
    c->fh = live_fh;
    c->fh_ctx = p;
    c->create_verf = 0x0123456789abcdefull;
    c->machine = "client7.example";
}

/* ------------------------------------------------------------------ */
/* what each procedure carries (RFC 1094 2.2, RFC 1813 3.3)            */
/* ------------------------------------------------------------------ */

#define SATTR                                                                                                \
    (B(TBBT_F_SET_MODE) | B(TBBT_F_SET_UID) | B(TBBT_F_SET_GID) | B(TBBT_F_SET_SIZE) | B(TBBT_F_SET_ATIME) | \
     B(TBBT_F_SET_MTIME))
#define OBJ B(TBBT_F_OBJ)
#define DIRNAME (B(TBBT_F_DIR) | B(TBBT_F_NAME))
#define DIRNAME2 (B(TBBT_F_DIR2) | B(TBBT_F_NAME2))
#define IO (OBJ | B(TBBT_F_OFFSET) | B(TBBT_F_COUNT))

struct kase {
    int vers;
    enum tbbt_op op;
    int proc;        /* rpcgen's constant */
    uint64_t fields; /* argument fields on the wire */
    uint32_t how;    /* CREATE: createhow; MKNOD: nodetype */
};

static const struct kase cases[] = {
    {3, TBBT_OP_NULL, NFSPROC3_NULL, 0, 0},
    {3, TBBT_OP_GETATTR, NFSPROC3_GETATTR, OBJ, 0},
    {3, TBBT_OP_SETATTR, NFSPROC3_SETATTR, OBJ | SATTR | B(TBBT_F_GUARD), 0},
    {3, TBBT_OP_LOOKUP, NFSPROC3_LOOKUP, DIRNAME, 0},
    {3, TBBT_OP_ACCESS, NFSPROC3_ACCESS, OBJ | B(TBBT_F_ACCESS), 0},
    {3, TBBT_OP_READLINK, NFSPROC3_READLINK, OBJ, 0},
    {3, TBBT_OP_READ, NFSPROC3_READ, IO, 0},
    {3, TBBT_OP_WRITE, NFSPROC3_WRITE, IO | B(TBBT_F_STABLE), 0},
    {3, TBBT_OP_CREATE, NFSPROC3_CREATE, DIRNAME | B(TBBT_F_CREATEHOW) | SATTR, UNCHECKED},
    {3, TBBT_OP_CREATE, NFSPROC3_CREATE, DIRNAME | B(TBBT_F_CREATEHOW) | SATTR, GUARDED},
    {3, TBBT_OP_CREATE, NFSPROC3_CREATE, DIRNAME | B(TBBT_F_CREATEHOW) | B(TBBT_F_VERF), EXCLUSIVE},
    {3, TBBT_OP_MKDIR, NFSPROC3_MKDIR, DIRNAME | SATTR, 0},
    {3, TBBT_OP_SYMLINK, NFSPROC3_SYMLINK, DIRNAME | SATTR | B(TBBT_F_TARGET), 0},
    {3, TBBT_OP_MKNOD, NFSPROC3_MKNOD, DIRNAME | B(TBBT_F_NODETYPE) | SATTR | B(TBBT_F_RDEV), NF3CHR},
    {3, TBBT_OP_MKNOD, NFSPROC3_MKNOD, DIRNAME | B(TBBT_F_NODETYPE) | SATTR | B(TBBT_F_RDEV), NF3BLK},
    {3, TBBT_OP_MKNOD, NFSPROC3_MKNOD, DIRNAME | B(TBBT_F_NODETYPE) | SATTR, NF3SOCK},
    {3, TBBT_OP_MKNOD, NFSPROC3_MKNOD, DIRNAME | B(TBBT_F_NODETYPE) | SATTR, NF3FIFO},
    {3, TBBT_OP_MKNOD, NFSPROC3_MKNOD, DIRNAME | B(TBBT_F_NODETYPE), NF3REG},
    {3, TBBT_OP_REMOVE, NFSPROC3_REMOVE, DIRNAME, 0},
    {3, TBBT_OP_RMDIR, NFSPROC3_RMDIR, DIRNAME, 0},
    {3, TBBT_OP_RENAME, NFSPROC3_RENAME, DIRNAME | DIRNAME2, 0},
    {3, TBBT_OP_LINK, NFSPROC3_LINK, OBJ | DIRNAME, 0},
    {3, TBBT_OP_READDIR, NFSPROC3_READDIR, OBJ | B(TBBT_F_COOKIE) | B(TBBT_F_COOKIEVERF) | B(TBBT_F_MAXCOUNT),
     0},
    {3, TBBT_OP_READDIRPLUS, NFSPROC3_READDIRPLUS,
     OBJ | B(TBBT_F_COOKIE) | B(TBBT_F_COOKIEVERF) | B(TBBT_F_DIRCOUNT) | B(TBBT_F_MAXCOUNT), 0},
    {3, TBBT_OP_FSSTAT, NFSPROC3_FSSTAT, OBJ, 0},
    {3, TBBT_OP_FSINFO, NFSPROC3_FSINFO, OBJ, 0},
    {3, TBBT_OP_PATHCONF, NFSPROC3_PATHCONF, OBJ, 0},
    {3, TBBT_OP_COMMIT, NFSPROC3_COMMIT, IO, 0},
    {2, TBBT_OP_NULL, NFSPROC_NULL, 0, 0},
    {2, TBBT_OP_GETATTR, NFSPROC_GETATTR, OBJ, 0},
    {2, TBBT_OP_SETATTR, NFSPROC_SETATTR, OBJ | SATTR, 0},
    {2, TBBT_OP_ROOT, NFSPROC_ROOT, 0, 0},
    {2, TBBT_OP_LOOKUP, NFSPROC_LOOKUP, DIRNAME, 0},
    {2, TBBT_OP_READLINK, NFSPROC_READLINK, OBJ, 0},
    {2, TBBT_OP_READ, NFSPROC_READ, IO, 0},
    {2, TBBT_OP_WRITECACHE, NFSPROC_WRITECACHE, 0, 0},
    {2, TBBT_OP_WRITE, NFSPROC_WRITE, IO, 0},
    {2, TBBT_OP_CREATE, NFSPROC_CREATE, DIRNAME | SATTR, 0},
    {2, TBBT_OP_REMOVE, NFSPROC_REMOVE, DIRNAME, 0},
    {2, TBBT_OP_RENAME, NFSPROC_RENAME, DIRNAME | DIRNAME2, 0},
    {2, TBBT_OP_LINK, NFSPROC_LINK, OBJ | DIRNAME, 0},
    {2, TBBT_OP_SYMLINK, NFSPROC_SYMLINK, DIRNAME | B(TBBT_F_TARGET) | SATTR, 0},
    {2, TBBT_OP_MKDIR, NFSPROC_MKDIR, DIRNAME | SATTR, 0},
    {2, TBBT_OP_RMDIR, NFSPROC_RMDIR, DIRNAME, 0},
    {2, TBBT_OP_READDIR, NFSPROC_READDIR, OBJ | B(TBBT_F_COOKIE) | B(TBBT_F_COUNT), 0},
    {2, TBBT_OP_STATFS, NFSPROC_STATFS, OBJ, 0},
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* Argument fields that are handles (compared through the fhrefs). */
#define HANDLES (B(TBBT_F_OBJ) | B(TBBT_F_DIR) | B(TBBT_F_DIR2))

/* ------------------------------------------------------------------ */
/* records                                                             */
/* ------------------------------------------------------------------ */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1dull;
}

/* A time v2 can carry (whole microseconds) or any v3 time; sometimes the
 * server's clock. */
static int64_t rnd_time(int vers) {
    if (rnd() % 5 == 0) return TBBT_TIME_SERVER;
    int64_t s = (int64_t)(rnd() % 0xffffffffull), frac = (int64_t)(rnd() % 1000000000);
    if (vers == 2) frac -= frac % 1000;
    return s * 1000000000 + frac;
}

/* A random name of 1..max bytes without NUL or '/'. */
static void rnd_str(struct tbbt_rec *r, enum tbbt_field f, unsigned max) {
    char s[1100];
    unsigned n = 1 + (unsigned)(rnd() % max);
    for (unsigned i = 0; i < n; i++)
        s[i] = (char)(1 + rnd() % 254);
    for (unsigned i = 0; i < n; i++)
        if (s[i] == '/') s[i] = 'x';
    tbbt_rec_set_str(r, f, s, n);
}

/* Sets every argument field of r (random when rand, else fixed values),
 * with the three handle IDs distinct live IDs; values fit r->vers. Also
 * sets a few reply fields the encoder must ignore. */
static void fill_all(struct tbbt_rec *r, int rand_vals, uint32_t how) {
    int v2 = r->vers == 2;
    uint64_t big = v2 ? 0xfffffffeull : ~0ull;
#define VAL(fixed) (rand_vals ? rnd() % (big + 0ull) : (fixed))
    tbbt_rec_set_u64(r, TBBT_F_OBJ, ID0 + 3);
    tbbt_rec_set_u64(r, TBBT_F_DIR, ID0 + 17);
    tbbt_rec_set_u64(r, TBBT_F_DIR2, ID0 + 42);
    if (rand_vals) {
        unsigned a = (unsigned)(rnd() % NLIVE), b = (a + 1 + rnd() % (NLIVE - 2)) % NLIVE;
        unsigned c = (unsigned)(rnd() % NLIVE);
        while (c == a || c == b)
            c = (c + 1) % NLIVE;
        r->obj = ID0 + a;
        r->dir = ID0 + b;
        r->dir2 = ID0 + c;
        rnd_str(r, TBBT_F_NAME, v2 ? 255 : 300);
        rnd_str(r, TBBT_F_NAME2, v2 ? 255 : 300);
        rnd_str(r, TBBT_F_TARGET, v2 ? 1024 : 1100);
    } else {
        tbbt_rec_set_str(r, TBBT_F_NAME, "report.txt", 10);
        tbbt_rec_set_str(r, TBBT_F_NAME2, "report-old.txt", 14);
        tbbt_rec_set_str(r, TBBT_F_TARGET, "../lib/libfoo.so.1", 18);
    }
    tbbt_rec_set_u64(r, TBBT_F_OFFSET, v2 ? VAL(0x7654321u) : VAL(0x123456789abull));
    tbbt_rec_set_u64(r, TBBT_F_COUNT, rand_vals ? rnd() % (v2 ? 8193 : 600) : 77);
    tbbt_rec_set_u64(r, TBBT_F_STABLE, rand_vals ? rnd() % 3 : DATA_SYNC);
    tbbt_rec_set_u64(r, TBBT_F_CREATEHOW, how);
    tbbt_rec_set_u64(r, TBBT_F_VERF, 0xdeadbeefcafef00dull); /* the trace's: must not be sent */
    tbbt_rec_set_u64(r, TBBT_F_COOKIE, v2 ? VAL(0x89abcdefu) : VAL(0xfedcba9876543210ull));
    tbbt_rec_set_u64(r, TBBT_F_COOKIEVERF, VAL(0x1122334455667788ull));
    tbbt_rec_set_u64(r, TBBT_F_DIRCOUNT, rand_vals ? (uint32_t)rnd() : 2048);
    tbbt_rec_set_u64(r, TBBT_F_MAXCOUNT, rand_vals ? (uint32_t)rnd() : 32768);
    tbbt_rec_set_u64(r, TBBT_F_ACCESS, rand_vals ? (uint32_t)rnd() : 0x1f);
    tbbt_rec_set_u64(r, TBBT_F_SET_MODE, rand_vals ? (uint32_t)rnd() % 0xffffffffu : 0640);
    tbbt_rec_set_u64(r, TBBT_F_SET_UID, rand_vals ? (uint32_t)rnd() % 0xffffffffu : 1234);
    tbbt_rec_set_u64(r, TBBT_F_SET_GID, rand_vals ? (uint32_t)rnd() % 0xffffffffu : 567);
    tbbt_rec_set_u64(r, TBBT_F_SET_SIZE, v2 ? (rand_vals ? rnd() % 0xffffffffu : 4096) : VAL(1ull << 40));
    r->set_atime = rand_vals ? rnd_time(r->vers) : 1600000000ll * 1000000000 + 123456000;
    r->set_mtime = rand_vals ? rnd_time(r->vers) : TBBT_TIME_SERVER;
    r->guard = rand_vals && rnd() % 2 ? rnd_time(3) : 4000000000ll * 1000000000 + 999999999;
    if (r->guard == TBBT_TIME_SERVER) r->guard = 5;
    r->has |= B(TBBT_F_SET_ATIME) | B(TBBT_F_SET_MTIME) | B(TBBT_F_GUARD);
    tbbt_rec_set_u64(r, TBBT_F_NODETYPE, how);
    tbbt_rec_set_u64(r, TBBT_F_RDEV, rand_vals ? rnd() : (8ull << 32 | 17));
    /* reply side: ignored */
    r->status = 2;
    tbbt_rec_set_u64(r, TBBT_F_NEWOBJ, ID0 + 9);
    tbbt_rec_set_u64(r, TBBT_F_SIZE, 999);
#undef VAL
}

static void rec_for(struct tbbt_rec *r, int vers, enum tbbt_op op) {
    tbbt_rec_init(r);
    r->vers = (uint8_t)vers;
    r->op = (uint8_t)op;
    r->xid = 0x55aa55aa; /* the trace's: must not be sent */
    r->status = 0;
    r->cred.flavor = 1;
    r->cred.uid = 501;
    r->cred.gid = 20;
    r->cred.ngids = 3;
    r->cred.gids[0] = 20;
    r->cred.gids[1] = 12;
    r->cred.gids[2] = 61;
}

/* ------------------------------------------------------------------ */
/* the check                                                           */
/* ------------------------------------------------------------------ */

static uint8_t buf[BUFSZ], buf2[BUFSZ];

/* The live handle of want's field f must be in fh exactly once. */
static void check_handle(const struct tbbt_fhrefs *fh, const struct tbbt_rec *want, enum tbbt_field f) {
    tbbt_id id = (tbbt_id)tbbt_rec_get_u64(want, f);
    int v = want->vers - 2, seen = 0;
    for (uint32_t i = 0; i < fh->n; i++) {
        if (fh->v[i].field != f) continue;
        seen++;
        assert_int_equal(fh->v[i].entry, -1);
        assert_int_equal(fh->v[i].len, live_len[v][id - ID0]);
        assert_memory_equal(fh->v[i].data, live[v][id - ID0], fh->v[i].len);
    }
    if (seen != 1) fail_msg("handle %s seen %d times", tbbt_fields[f].key, seen);
}

/* Every argument field of got equals want's (presence and value). */
static void check_args(const struct tbbt_rec *got, const struct tbbt_rec *want) {
    for (int f = TBBT_F_OBJ; f <= TBBT_F_RDEV; f++) {
        if (B(f) & HANDLES) {
            assert_false(tbbt_rec_has(got, f)); /* the decoder leaves IDs to its caller */
            continue;
        }
        if (tbbt_rec_has(got, f) != tbbt_rec_has(want, f))
            fail_msg("%s: field %s %s", tbbt_op_info(want->op)->name, tbbt_fields[f].key,
                     tbbt_rec_has(want, f) ? "missing" : "unexpected");
        if (!tbbt_rec_has(want, f)) continue;
        if (tbbt_fields[f].type == TBBT_FT_STR) {
            struct tbbt_str a = *(const struct tbbt_str *)((const char *)got + tbbt_fields[f].offset);
            struct tbbt_str b = *(const struct tbbt_str *)((const char *)want + tbbt_fields[f].offset);
            assert_int_equal(a.len, b.len);
            assert_memory_equal(tbbt_rec_str(got, a), tbbt_rec_str(want, b), a.len);
        } else if (tbbt_rec_get_u64(got, f) != tbbt_rec_get_u64(want, f)) {
            fail_msg("%s v%u: %s is %llu, want %llu", tbbt_op_info(want->op)->name, want->vers,
                     tbbt_fields[f].key, (unsigned long long)tbbt_rec_get_u64(got, f),
                     (unsigned long long)tbbt_rec_get_u64(want, f));
        }
    }
}

/* The RPC header: xid, call, RPC 2, NFS, version, procedure, credential
 * (parsed by nfsdec, the AUTH_SYS body also by libtirpc: stamp 0 and the
 * machine name) and an AUTH_NONE verifier. */
static void check_header(const uint8_t *p, size_t n, uint32_t xid, int vers, int proc,
                         const struct tbbt_cred *cred, const char *machine, struct tbbt_rpc_hdr *h) {
    assert_int_equal(tbbt_rpc_parse(p, n, h), 0);
    assert_int_equal(h->xid, xid);
    assert_int_equal(h->mtype, TBBT_RPC_CALL);
    assert_int_equal(h->rpcvers, 2);
    assert_int_equal(h->prog, 100003);
    assert_int_equal(h->vers, vers);
    assert_int_equal(h->proc, proc);
    uint32_t flavor = (uint32_t)p[24] << 24 | p[25] << 16 | p[26] << 8 | p[27];
    uint32_t clen = (uint32_t)p[28] << 24 | p[29] << 16 | p[30] << 8 | p[31];
    assert_int_equal(h->body, 32 + ((clen + 3) & ~3u) + 8);
    assert_memory_equal(p + h->body - 8, "\0\0\0\0\0\0\0\0", 8); /* verifier AUTH_NONE, empty */
    if (cred->flavor == 0) {
        assert_int_equal(flavor, 0);
        assert_int_equal(clen, 0);
        return;
    }
    assert_int_equal(flavor, 1);
    assert_int_equal(h->cred.flavor, 1);
    assert_int_equal(h->cred.uid, cred->uid);
    assert_int_equal(h->cred.gid, cred->gid);
    assert_int_equal(h->cred.ngids, cred->ngids);
    assert_memory_equal(h->cred.gids, cred->gids, cred->ngids * sizeof(uint32_t));
    struct authunix_parms a;
    memset(&a, 0, sizeof(a));
    XDR x;
    xdrmem_create(&x, tbbt_unconst(p + 32), clen, XDR_DECODE);
    assert_true(xdr_authunix_parms(&x, &a));
    assert_int_equal(xdr_getpos(&x), clen);
    xdr_destroy(&x);
    assert_int_equal(a.aup_time, 0);
    assert_string_equal(a.aup_machname, machine ? machine : TBBT_ENC_MACHINE);
    xdr_free((xdrproc_t)xdr_authunix_parms, (char *)&a);
}

/* Encodes in with c, decodes it back and compares with want (argument
 * fields, handles, header). caps: also every smaller buffer and the cut.
 * Returns the message length (the message is in buf). */
static size_t roundtrip(const struct tbbt_rec *in, int proc, const struct tbbt_enc_ctx *c,
                        const struct tbbt_rec *want, int caps) {
    char err[256] = "";
    uint32_t xid = (uint32_t)rnd();
    ssize_t n = tbbt_nfs_encode_call(in, xid, c, buf, BUFSZ, err, sizeof(err));
    if (n < 0) fail_msg("%s v%u: %s", tbbt_op_info(in->op)->name, in->vers, err);
    struct tbbt_rpc_hdr h;
    check_header(buf, (size_t)n, xid, in->vers, proc, c->cred ? c->cred : &in->cred, c->machine, &h);

    struct tbbt_rec got;
    struct tbbt_fhrefs fh = {0};
    tbbt_rec_init(&got);
    got.op = in->op;
    got.vers = in->vers;
    assert_int_equal(tbbt_nfs_decode_call(&got, buf + h.body, (size_t)n - h.body, &fh), TBBT_DEC_OK);
    check_args(&got, want);
    uint32_t nh = 0;
    for (int f = TBBT_F_OBJ; f <= TBBT_F_DIR2; f++)
        if ((B(f) & HANDLES) && tbbt_rec_has(want, f)) {
            check_handle(&fh, want, f);
            nh++;
        }
    assert_int_equal(fh.n, nh);
    if ((size_t)n > h.body) { /* one byte less must not decode whole: no trailing bytes */
        tbbt_rec_clear(&got);
        got.op = in->op;
        got.vers = in->vers;
        tbbt_fhrefs_clear(&fh);
        assert_int_equal(tbbt_nfs_decode_call(&got, buf + h.body, (size_t)n - h.body - 1, &fh),
                         TBBT_DEC_TRUNC);
    }
    tbbt_rec_free(&got);
    tbbt_fhrefs_free(&fh);

    for (size_t cap = 0; caps && cap <= (size_t)n; cap++) {
        memset(buf2, 0xa5, (size_t)n + 16);
        err[0] = 0;
        /* the same xid: the bytes must be the same */
        ssize_t m = tbbt_nfs_encode_call(in, xid, c, buf2, cap, err, sizeof(err));
        if (cap == (size_t)n) {
            assert_int_equal(m, n);
            assert_memory_equal(buf2, buf, (size_t)n);
        } else {
            assert_int_equal(m, -1);
            assert_non_null(strstr(err, "too small"));
        }
        for (size_t i = cap; i < (size_t)n + 16; i++)
            if (buf2[i] != 0xa5) fail_msg("cap %zu: byte %zu written", cap, i);
    }
    return (size_t)n;
}

/* want = in restricted to the fields k carries, the verifier replaced. */
static void want_of(struct tbbt_rec *want, const struct tbbt_rec *in, const struct kase *k,
                    const struct tbbt_enc_ctx *c) {
    tbbt_rec_init(want);
    tbbt_rec_copy(want, in);
    want->has = in->has & k->fields;
    if (k->fields & B(TBBT_F_VERF)) tbbt_rec_set_u64(want, TBBT_F_VERF, c->create_verf); /* traced or not */
}

/* ------------------------------------------------------------------ */
/* tests                                                               */
/* ------------------------------------------------------------------ */

/* Every procedure, every argument field set (and the fields it must
 * ignore): the decoded arguments are the record's. */
static void test_all_fields(void **state) {
    (void)state;
    for (size_t i = 0; i < NCASES; i++) {
        const struct kase *k = &cases[i];
        struct tbbt_rec in, want;
        struct tbbt_enc_ctx c;
        struct player p;
        ctx_init(&c, &p, k->vers);
        rec_for(&in, k->vers, k->op);
        fill_all(&in, 0, k->how);
        want_of(&want, &in, k, &c);
        uint8_t payload[100];
        for (int j = 0; j < 100; j++)
            payload[j] = (uint8_t)(j * 3);
        c.payload = payload;
        c.payload_len = sizeof(payload);
        size_t n = roundtrip(&in, k->proc, &c, &want, 1);
        if (k->op == TBBT_OP_WRITE) { /* data: the payload's first count (77) bytes, padded */
            assert_memory_equal(buf + n - 80, payload, 77);
            assert_memory_equal(buf + n - 3, "\0\0\0", 3);
            assert_int_equal(buf[n - 81], 77);
        }
        tbbt_rec_free(&in);
        tbbt_rec_free(&want);
    }
}

/* Random records of every procedure, values over their whole range. */
static void test_random(void **state) {
    (void)state;
    for (int iter = 0; iter < 20000; iter++) {
        const struct kase *k = &cases[rnd() % NCASES];
        struct tbbt_rec in, want;
        struct tbbt_enc_ctx c;
        struct player p;
        ctx_init(&c, &p, k->vers);
        c.create_verf = rnd();
        struct tbbt_cred cr = {rnd() % 2, (uint32_t)rnd(), (uint32_t)rnd(), (uint32_t)(rnd() % 17), {0}};
        for (int j = 0; j < 16; j++)
            cr.gids[j] = (uint32_t)rnd();
        if (rnd() % 2) c.cred = &cr;
        rec_for(&in, k->vers, k->op);
        fill_all(&in, 1, k->how);
        /* drop random optional fields (never the required ones) */
        uint64_t required =
            HANDLES | B(TBBT_F_NAME) | B(TBBT_F_NAME2) | B(TBBT_F_TARGET) | B(TBBT_F_NODETYPE);
        uint64_t drop = rnd() & rnd() & ~required;
        in.has &= ~drop;
        want_of(&want, &in, k, &c);
        /* dropped fields take the defaults (nfsenc.h's table) */
        int v3 = k->vers == 3;
        if (k->op == TBBT_OP_READ || k->op == TBBT_OP_WRITE || k->op == TBBT_OP_COMMIT) {
            if (!tbbt_rec_has(&in, TBBT_F_OFFSET)) tbbt_rec_set_u64(&want, TBBT_F_OFFSET, 0);
            if (!tbbt_rec_has(&in, TBBT_F_COUNT)) tbbt_rec_set_u64(&want, TBBT_F_COUNT, 0);
        }
        if (k->op == TBBT_OP_WRITE && v3 && !tbbt_rec_has(&in, TBBT_F_STABLE))
            tbbt_rec_set_u64(&want, TBBT_F_STABLE, FILE_SYNC);
        if (k->op == TBBT_OP_CREATE && v3 && !tbbt_rec_has(&in, TBBT_F_CREATEHOW)) {
            tbbt_rec_set_u64(&want, TBBT_F_CREATEHOW, UNCHECKED);
            want.has = (want.has & ~B(TBBT_F_VERF)) | (in.has & SATTR);
        }
        if (k->op == TBBT_OP_ACCESS && !tbbt_rec_has(&in, TBBT_F_ACCESS))
            tbbt_rec_set_u64(&want, TBBT_F_ACCESS, TBBT_ENC_ACCESS);
        if (k->op == TBBT_OP_MKNOD && (k->how == NF3CHR || k->how == NF3BLK) &&
            !tbbt_rec_has(&in, TBBT_F_RDEV))
            tbbt_rec_set_u64(&want, TBBT_F_RDEV, 0);
        if (k->op == TBBT_OP_READDIR || k->op == TBBT_OP_READDIRPLUS) {
            if (!tbbt_rec_has(&in, TBBT_F_COOKIE)) tbbt_rec_set_u64(&want, TBBT_F_COOKIE, 0);
            if (v3 && !tbbt_rec_has(&in, TBBT_F_COOKIEVERF)) tbbt_rec_set_u64(&want, TBBT_F_COOKIEVERF, 0);
            enum tbbt_field cf = v3 ? TBBT_F_MAXCOUNT : TBBT_F_COUNT,
                            other = v3 ? TBBT_F_COUNT : TBBT_F_MAXCOUNT;
            uint32_t cnt = tbbt_rec_has(&in, cf)      ? (uint32_t)tbbt_rec_get_u64(&in, cf)
                           : tbbt_rec_has(&in, other) ? (uint32_t)tbbt_rec_get_u64(&in, other)
                                                      : TBBT_ENC_DIR_COUNT;
            tbbt_rec_set_u64(&want, cf, cnt);
            if (k->op == TBBT_OP_READDIRPLUS && !tbbt_rec_has(&in, TBBT_F_DIRCOUNT))
                tbbt_rec_set_u64(&want, TBBT_F_DIRCOUNT, cnt / 8);
        }
        uint8_t payload[64];
        for (int j = 0; j < 64; j++)
            payload[j] = (uint8_t)rnd();
        c.payload = payload;
        c.payload_len = 64;
        roundtrip(&in, k->proc, &c, &want, iter % 16 == 0);
        tbbt_rec_free(&in);
        tbbt_rec_free(&want);
    }
}

/* Records with only the required fields: the defaults of nfsenc.h. */
struct dflt {
    int vers;
    enum tbbt_op op;
    int proc;
    uint64_t has;  /* fields given beyond handles and names */
    uint32_t how;  /* nodetype, when given */
    uint64_t want; /* argument fields expected */
    uint32_t count, dircount, stable, access, createhow, count_in, maxcount_in;
};

static void test_defaults(void **state) {
    (void)state;
    static const struct dflt d[] = {
        /* v3 SETATTR: nothing set, no guard */
        {3, TBBT_OP_SETATTR, NFSPROC3_SETATTR, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {3, TBBT_OP_ACCESS, NFSPROC3_ACCESS, 0, 0, B(TBBT_F_ACCESS), 0, 0, 0, TBBT_ENC_ACCESS, 0, 0, 0},
        {3, TBBT_OP_READ, NFSPROC3_READ, 0, 0, B(TBBT_F_OFFSET) | B(TBBT_F_COUNT), 0, 0, 0, 0, 0, 0, 0},
        {3, TBBT_OP_WRITE, NFSPROC3_WRITE, 0, 0, B(TBBT_F_OFFSET) | B(TBBT_F_COUNT) | B(TBBT_F_STABLE), 0, 0,
         FILE_SYNC, 0, 0, 0, 0},
        {3, TBBT_OP_COMMIT, NFSPROC3_COMMIT, 0, 0, B(TBBT_F_OFFSET) | B(TBBT_F_COUNT), 0, 0, 0, 0, 0, 0, 0},
        {3, TBBT_OP_CREATE, NFSPROC3_CREATE, 0, 0, B(TBBT_F_CREATEHOW), 0, 0, 0, 0, UNCHECKED, 0, 0},
        {3, TBBT_OP_MKDIR, NFSPROC3_MKDIR, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {3, TBBT_OP_SYMLINK, NFSPROC3_SYMLINK, B(TBBT_F_TARGET), 0, B(TBBT_F_TARGET), 0, 0, 0, 0, 0, 0, 0},
        {3, TBBT_OP_MKNOD, NFSPROC3_MKNOD, B(TBBT_F_NODETYPE), NF3CHR, B(TBBT_F_NODETYPE) | B(TBBT_F_RDEV), 0,
         0, 0, 0, 0, 0, 0},
        {3, TBBT_OP_MKNOD, NFSPROC3_MKNOD, B(TBBT_F_NODETYPE), NF3FIFO, B(TBBT_F_NODETYPE), 0, 0, 0, 0, 0, 0,
         0},
        {3, TBBT_OP_READDIR, NFSPROC3_READDIR, 0, 0,
         B(TBBT_F_COOKIE) | B(TBBT_F_COOKIEVERF) | B(TBBT_F_MAXCOUNT), TBBT_ENC_DIR_COUNT, 0, 0, 0, 0, 0, 0},
        /* a v2 READDIR replayed as v3: its count becomes READDIR3's */
        {3, TBBT_OP_READDIR, NFSPROC3_READDIR, B(TBBT_F_COUNT), 0,
         B(TBBT_F_COOKIE) | B(TBBT_F_COOKIEVERF) | B(TBBT_F_MAXCOUNT), 1234, 0, 0, 0, 0, 1234, 0},
        {3, TBBT_OP_READDIRPLUS, NFSPROC3_READDIRPLUS, 0, 0,
         B(TBBT_F_COOKIE) | B(TBBT_F_COOKIEVERF) | B(TBBT_F_DIRCOUNT) | B(TBBT_F_MAXCOUNT),
         TBBT_ENC_DIR_COUNT, TBBT_ENC_DIR_COUNT / 8, 0, 0, 0, 0, 0},
        {3, TBBT_OP_READDIRPLUS, NFSPROC3_READDIRPLUS, B(TBBT_F_MAXCOUNT), 0,
         B(TBBT_F_COOKIE) | B(TBBT_F_COOKIEVERF) | B(TBBT_F_DIRCOUNT) | B(TBBT_F_MAXCOUNT), 65536, 8192, 0, 0,
         0, 0, 65536},
        {2, TBBT_OP_SETATTR, NFSPROC_SETATTR, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {2, TBBT_OP_READ, NFSPROC_READ, 0, 0, B(TBBT_F_OFFSET) | B(TBBT_F_COUNT), 0, 0, 0, 0, 0, 0, 0},
        {2, TBBT_OP_WRITE, NFSPROC_WRITE, 0, 0, B(TBBT_F_OFFSET) | B(TBBT_F_COUNT), 0, 0, 0, 0, 0, 0, 0},
        {2, TBBT_OP_CREATE, NFSPROC_CREATE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {2, TBBT_OP_MKDIR, NFSPROC_MKDIR, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0},
        {2, TBBT_OP_READDIR, NFSPROC_READDIR, 0, 0, B(TBBT_F_COOKIE) | B(TBBT_F_COUNT), TBBT_ENC_DIR_COUNT, 0,
         0, 0, 0, 0, 0},
        {2, TBBT_OP_READDIR, NFSPROC_READDIR, B(TBBT_F_MAXCOUNT), 0, B(TBBT_F_COOKIE) | B(TBBT_F_COUNT), 4000,
         0, 0, 0, 0, 0, 4000},
    };
    for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
        struct tbbt_rec in, want;
        struct tbbt_enc_ctx c;
        struct player p;
        ctx_init(&c, &p, d[i].vers);
        rec_for(&in, d[i].vers, d[i].op);
        unsigned fl = tbbt_op_info(d[i].op)->flags;
        if (fl & TBBT_OPF_OBJ) tbbt_rec_set_u64(&in, TBBT_F_OBJ, ID0 + 5);
        if (fl & TBBT_OPF_DIRNAME) {
            tbbt_rec_set_u64(&in, TBBT_F_DIR, ID0 + 6);
            tbbt_rec_set_str(&in, TBBT_F_NAME, "n", 1);
        }
        if (d[i].has & B(TBBT_F_TARGET)) tbbt_rec_set_str(&in, TBBT_F_TARGET, "t", 1);
        if (d[i].has & B(TBBT_F_NODETYPE)) tbbt_rec_set_u64(&in, TBBT_F_NODETYPE, d[i].how);
        if (d[i].has & B(TBBT_F_COUNT)) tbbt_rec_set_u64(&in, TBBT_F_COUNT, d[i].count_in);
        if (d[i].has & B(TBBT_F_MAXCOUNT)) tbbt_rec_set_u64(&in, TBBT_F_MAXCOUNT, d[i].maxcount_in);
        tbbt_rec_init(&want);
        tbbt_rec_copy(&want, &in);
        want.has = (in.has & (HANDLES | B(TBBT_F_NAME))) | d[i].want;
        /* the expected values, straight from nfsenc.h's table */
        want.offset = 0;
        want.count = d[i].op == TBBT_OP_READDIR && d[i].vers == 2 ? d[i].count : 0;
        want.maxcount = d[i].count;
        want.dircount = d[i].dircount;
        want.stable = d[i].stable;
        want.access = d[i].access;
        want.createhow = d[i].createhow;
        want.cookie = want.cookieverf = 0;
        want.rdev = 0;
        roundtrip(&in, d[i].proc, &c, &want, 1);
        tbbt_rec_free(&in);
        tbbt_rec_free(&want);
    }
}

/* Set-to-server-time in both versions, and client times. */
static void test_server_time(void **state) {
    (void)state;
    for (int vers = 2; vers <= 3; vers++) {
        for (int which = 0; which < 2; which++) {
            struct tbbt_rec in, want;
            struct tbbt_enc_ctx c;
            struct player p;
            ctx_init(&c, &p, vers);
            rec_for(&in, vers, TBBT_OP_SETATTR);
            tbbt_rec_set_u64(&in, TBBT_F_OBJ, ID0);
            in.set_atime = which ? TBBT_TIME_SERVER : 1234567890123456000ll;
            in.set_mtime = which ? 1000ll : TBBT_TIME_SERVER;
            in.has |= B(TBBT_F_SET_ATIME) | B(TBBT_F_SET_MTIME);
            tbbt_rec_init(&want);
            tbbt_rec_copy(&want, &in);
            roundtrip(&in, vers == 3 ? NFSPROC3_SETATTR : NFSPROC_SETATTR, &c, &want, 0);
            tbbt_rec_free(&in);
            tbbt_rec_free(&want);
        }
    }
}

/* The handle IDs a call needs, as the operation uses them. */
static void test_call_ids(void **state) {
    (void)state;
    for (size_t i = 0; i < NCASES; i++) {
        const struct kase *k = &cases[i];
        struct tbbt_rec r;
        rec_for(&r, k->vers, k->op);
        fill_all(&r, 0, k->how);
        tbbt_id ids[3] = {0, 0, 0}, want[3];
        unsigned nw = 0;
        if (k->fields & B(TBBT_F_OBJ)) want[nw++] = r.obj;
        if (k->fields & B(TBBT_F_DIR)) want[nw++] = r.dir;
        if (k->fields & B(TBBT_F_DIR2)) want[nw++] = r.dir2;
        unsigned n = tbbt_nfs_call_ids(&r, ids);
        assert_int_equal(n, nw);
        for (unsigned j = 0; j < n; j++)
            assert_int_equal(ids[j], want[j]);
        /* and the encoder asks for exactly those */
        struct tbbt_enc_ctx c;
        struct player p;
        ctx_init(&c, &p, k->vers);
        char err[200];
        assert_true(tbbt_nfs_encode_call(&r, 1, &c, buf, BUFSZ, err, sizeof(err)) > 0);
        assert_int_equal(p.fh_calls, (int)nw);
        tbbt_rec_free(&r);
    }
    struct tbbt_rec r;
    rec_for(&r, 3, TBBT_OP_RENAME);
    tbbt_rec_set_u64(&r, TBBT_F_DIR2, ID0 + 1);
    tbbt_id ids[3];
    assert_int_equal(tbbt_nfs_call_ids(&r, ids), 1); /* dir absent */
    assert_int_equal(ids[0], ID0 + 1);
    tbbt_rec_free(&r);
}

/* An encoding that must fail: -1, err contains each of the words, and
 * nothing written. */
static void expect_fail(const struct tbbt_rec *r, const struct tbbt_enc_ctx *c, const char *w1,
                        const char *w2) {
    char err[256] = "";
    memset(buf2, 0xa5, 64);
    assert_int_equal(tbbt_nfs_encode_call(r, 7, c, buf2, BUFSZ, err, sizeof(err)), -1);
    if (!strstr(err, w1) || (w2 && !strstr(err, w2))) fail_msg("message \"%s\" lacks %s / %s", err, w1, w2);
    assert_null(strchr(err, '\n'));
    for (int i = 0; i < 64; i++)
        assert_int_equal(buf2[i], 0xa5);
    assert_int_equal(tbbt_nfs_encode_call(r, 7, c, buf2, BUFSZ, NULL, 0), -1); /* err may be NULL */
}

static void test_unknown_handle(void **state) {
    (void)state;
    static const struct {
        int vers;
        enum tbbt_op op;
        enum tbbt_field f;
        const char *key;
    } t[] = {
        {3, TBBT_OP_GETATTR, TBBT_F_OBJ, "obj"},  {3, TBBT_OP_LOOKUP, TBBT_F_DIR, "dir"},
        {3, TBBT_OP_RENAME, TBBT_F_DIR2, "dir2"}, {3, TBBT_OP_LINK, TBBT_F_OBJ, "obj"},
        {3, TBBT_OP_LINK, TBBT_F_DIR, "dir"},     {2, TBBT_OP_RENAME, TBBT_F_DIR2, "dir2"},
        {2, TBBT_OP_READDIR, TBBT_F_OBJ, "obj"},  {3, TBBT_OP_READDIRPLUS, TBBT_F_OBJ, "obj"},
    };
    for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
        struct tbbt_rec r;
        struct tbbt_enc_ctx c;
        struct player p;
        ctx_init(&c, &p, t[i].vers);
        rec_for(&r, t[i].vers, t[i].op);
        fill_all(&r, 0, 0);
        tbbt_rec_set_u64(&r, t[i].f, UNKNOWN_ID);
        char want[64];
        snprintf(want, sizeof(want), "%s (TBBT-ID %llu)", t[i].key, UNKNOWN_ID);
        expect_fail(&r, &c, want, tbbt_op_info(t[i].op)->name);
        r.has &= ~B(t[i].f); /* absent altogether */
        snprintf(want, sizeof(want), "no %s", t[i].key);
        expect_fail(&r, &c, want, NULL);
        tbbt_rec_free(&r);
    }
}

static void test_bad_records(void **state) {
    (void)state;
    struct tbbt_rec r;
    struct tbbt_enc_ctx c;
    struct player p;
    /* v2 handle of the wrong size */
    ctx_init(&c, &p, 3); /* the callback hands out v3 handles */
    rec_for(&r, 2, TBBT_OP_GETATTR);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, ID0 + 2); /* 27 bytes in v3 */
    expect_fail(&r, &c, "32", NULL);
    tbbt_rec_free(&r);
    /* op not in the version, version unknown */
    ctx_init(&c, &p, 3);
    rec_for(&r, 2, TBBT_OP_ACCESS);
    tbbt_rec_set_u64(&r, TBBT_F_OBJ, ID0);
    expect_fail(&r, &c, "NFSv2", NULL);
    r.vers = 3;
    r.op = TBBT_OP_ROOT;
    expect_fail(&r, &c, "NFSv3", NULL);
    r.vers = 4;
    r.op = TBBT_OP_GETATTR;
    expect_fail(&r, &c, "version 4", NULL);
    tbbt_rec_free(&r);
    /* required strings and node type */
    static const struct {
        int vers;
        enum tbbt_op op;
        enum tbbt_field f;
    } req[] = {
        {3, TBBT_OP_LOOKUP, TBBT_F_NAME},    {3, TBBT_OP_RENAME, TBBT_F_NAME2},
        {3, TBBT_OP_SYMLINK, TBBT_F_TARGET}, {2, TBBT_OP_SYMLINK, TBBT_F_TARGET},
        {3, TBBT_OP_MKNOD, TBBT_F_NODETYPE},
    };
    for (size_t i = 0; i < sizeof(req) / sizeof(req[0]); i++) {
        ctx_init(&c, &p, req[i].vers);
        rec_for(&r, req[i].vers, req[i].op);
        fill_all(&r, 0, NF3FIFO);
        r.has &= ~B(req[i].f);
        expect_fail(&r, &c, tbbt_fields[req[i].f].key, NULL);
        tbbt_rec_free(&r);
    }
    /* values NFSv2 cannot carry; names too long or with NUL; bad times */
    ctx_init(&c, &p, 2);
    rec_for(&r, 2, TBBT_OP_READ);
    fill_all(&r, 0, 0);
    r.offset = 1ull << 32;
    expect_fail(&r, &c, "offset", NULL);
    r.op = TBBT_OP_WRITE;
    r.offset = 0;
    r.count = 8193;
    expect_fail(&r, &c, "8192", NULL);
    r.op = TBBT_OP_SETATTR;
    r.set_size = 0xffffffffull;
    expect_fail(&r, &c, "set_size", NULL);
    r.set_size = 1;
    r.set_atime = -1000;
    expect_fail(&r, &c, "set_atime", NULL);
    r.op = TBBT_OP_LOOKUP;
    char longname[300];
    memset(longname, 'a', sizeof(longname));
    tbbt_rec_set_str(&r, TBBT_F_NAME, longname, 256);
    expect_fail(&r, &c, "name", "255");
    tbbt_rec_set_str(&r, TBBT_F_NAME, "a\0b", 3);
    expect_fail(&r, &c, "NUL", NULL);
    tbbt_rec_free(&r);
    ctx_init(&c, &p, 3);
    rec_for(&r, 3, TBBT_OP_SETATTR);
    fill_all(&r, 0, 0);
    r.guard = (int64_t)(1ull << 32) * 1000000000;
    expect_fail(&r, &c, "guard", NULL);
    r.op = TBBT_OP_CREATE;
    r.createhow = 3;
    expect_fail(&r, &c, "createhow", NULL);
    r.op = TBBT_OP_WRITE;
    r.stable = 3;
    expect_fail(&r, &c, "stable", NULL);
    r.op = TBBT_OP_MKNOD;
    r.nodetype = 8;
    expect_fail(&r, &c, "nodetype", NULL);
    r.op = TBBT_OP_GETATTR;
    char machine[300];
    memset(machine, 'm', 299);
    machine[299] = 0;
    c.machine = machine;
    expect_fail(&r, &c, "machine", NULL);
    tbbt_rec_free(&r);
}

/* WRITE data: the payload cut to count, or repeated when shorter, or
 * zeros; the repeated form is byte for byte what a long enough payload
 * holding the repetition gives. */
static void test_write_payload(void **state) {
    (void)state;
    static const uint32_t counts[] = {0, 1, 6, 7, 8, 13, 4099, 8192, 65536};
    for (int vers = 2; vers <= 3; vers++) {
        for (size_t ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
            uint32_t count = counts[ci];
            if (vers == 2 && count > 8192) continue;
            for (int mode = 0; mode < 3; mode++) { /* short payload, long payload, none */
                struct tbbt_rec r, want;
                struct tbbt_enc_ctx c;
                struct player p;
                ctx_init(&c, &p, vers);
                rec_for(&r, vers, TBBT_OP_WRITE);
                tbbt_rec_set_u64(&r, TBBT_F_OBJ, ID0 + 1);
                tbbt_rec_set_u64(&r, TBBT_F_OFFSET, 4096);
                tbbt_rec_set_u64(&r, TBBT_F_COUNT, count);
                if (vers == 3) tbbt_rec_set_u64(&r, TBBT_F_STABLE, UNSTABLE);
                static uint8_t expect[65536 + 4], longp[70000];
                static const uint8_t shortp[7] = {'A', 'B', 'C', 'D', 'E', 'F', 'G'};
                for (uint32_t i = 0; i < count; i++)
                    expect[i] = mode == 2 ? 0 : mode == 0 ? shortp[i % 7] : (uint8_t)(i * 7 + 1);
                memcpy(longp, expect, count);
                c.payload = mode == 0 ? shortp : mode == 1 ? longp : NULL;
                c.payload_len = mode == 0 ? 7 : mode == 1 ? sizeof(longp) : 0;
                tbbt_rec_init(&want);
                tbbt_rec_copy(&want, &r);
                size_t n = roundtrip(&r, vers == 3 ? NFSPROC3_WRITE : NFSPROC_WRITE, &c, &want, count < 100);
                uint32_t pad = (4 - count % 4) % 4;
                assert_int_equal(n >= count + pad + 4, 1);
                const uint8_t *lenw = buf + n - pad - count - 4;
                assert_int_equal((uint32_t)lenw[0] << 24 | lenw[1] << 16 | lenw[2] << 8 | lenw[3], count);
                if (count) assert_memory_equal(lenw + 4, expect, count);
                for (uint32_t i = 0; i < pad; i++)
                    assert_int_equal(buf[n - pad + i], 0);
                if (mode == 0) { /* byte for byte what a payload holding the repetition gives */
                    memcpy(buf2, buf, n);
                    c.payload = expect;
                    c.payload_len = count;
                    char err[200];
                    uint32_t xid = (uint32_t)buf[0] << 24 | buf[1] << 16 | buf[2] << 8 | buf[3];
                    assert_int_equal(tbbt_nfs_encode_call(&r, xid, &c, buf, BUFSZ, err, sizeof(err)),
                                     (ssize_t)n);
                    assert_memory_equal(buf, buf2, n);
                }
                if (vers == 2) { /* beginoffset = offset, totalcount = count (Linux's values) */
                    const uint8_t *w = lenw - 12;
                    assert_memory_equal(w, "\0\0\x10\0\0\0\x10\0", 8);
                    assert_int_equal((uint32_t)w[8] << 24 | w[9] << 16 | w[10] << 8 | w[11], count);
                }
                tbbt_rec_free(&r);
                tbbt_rec_free(&want);
            }
        }
    }
}

/* READDIR and READDIRPLUS carry the callback's cookie and verifier, and
 * ask it for the record's directory and traced cookie. */
static void test_cookie_translation(void **state) {
    (void)state;
    static const struct {
        int vers;
        enum tbbt_op op;
        int proc;
    } t[] = {{3, TBBT_OP_READDIR, NFSPROC3_READDIR},
             {3, TBBT_OP_READDIRPLUS, NFSPROC3_READDIRPLUS},
             {2, TBBT_OP_READDIR, NFSPROC_READDIR}};
    for (size_t i = 0; i < 3; i++) {
        for (int has_cookie = 0; has_cookie < 2; has_cookie++) {
            struct tbbt_rec r, want;
            struct tbbt_enc_ctx c;
            struct player p;
            ctx_init(&c, &p, t[i].vers);
            c.cookie = live_cookie;
            c.cookie_ctx = &p;
            rec_for(&r, t[i].vers, t[i].op);
            fill_all(&r, 0, 0);
            uint64_t tc = has_cookie ? 1000 : 0;
            r.cookie = tc;
            if (!has_cookie) r.has &= ~B(TBBT_F_COOKIE);
            const struct kase *k = NULL;
            for (size_t j = 0; j < NCASES; j++)
                if (cases[j].vers == t[i].vers && cases[j].op == t[i].op) k = &cases[j];
            want_of(&want, &r, k, &c);
            tbbt_rec_set_u64(&want, TBBT_F_COOKIE, tc * 3 + 1);
            if (t[i].vers == 3) tbbt_rec_set_u64(&want, TBBT_F_COOKIEVERF, 0xfeed0000ull + tc);
            roundtrip(&r, t[i].proc, &c, &want, 0);
            assert_int_equal(p.cookie_calls, 1);
            assert_int_equal(p.cookie_dir, r.obj);
            assert_int_equal(p.cookie_asked, tc);
            p.cookie_fail = 1;
            expect_fail(&r, &c, "cookie", NULL);
            tbbt_rec_free(&r);
            tbbt_rec_free(&want);
        }
    }
    /* a v2 cookie must fit 32 bits */
    struct tbbt_rec r;
    struct tbbt_enc_ctx c;
    struct player p;
    ctx_init(&c, &p, 2);
    c.cookie = live_cookie;
    c.cookie_ctx = &p;
    rec_for(&r, 2, TBBT_OP_READDIR);
    fill_all(&r, 0, 0);
    r.cookie = 0x60000000;
    expect_fail(&r, &c, "cookie", "NFSv2");
    tbbt_rec_free(&r);
}

/* EXCLUSIVE create sends c->create_verf, not the trace's, and no sattr. */
static void test_exclusive_verf(void **state) {
    (void)state;
    for (int i = 0; i < 3; i++) {
        struct tbbt_rec r, want;
        struct tbbt_enc_ctx c;
        struct player p;
        ctx_init(&c, &p, 3);
        c.create_verf = i == 0 ? 0 : i == 1 ? ~0ull : 0x8000000000000001ull;
        rec_for(&r, 3, TBBT_OP_CREATE);
        fill_all(&r, 0, EXCLUSIVE);
        tbbt_rec_init(&want);
        tbbt_rec_copy(&want, &r);
        want.has = B(TBBT_F_DIR) | B(TBBT_F_NAME) | B(TBBT_F_CREATEHOW) | B(TBBT_F_VERF);
        want.verf = c.create_verf;
        assert_true(r.verf != c.create_verf);
        size_t n = roundtrip(&r, NFSPROC3_CREATE, &c, &want, 0);
        for (int b = 0; b < 8; b++) /* the last 8 bytes, big-endian */
            assert_int_equal(buf[n - 8 + b], (uint8_t)(c.create_verf >> (56 - 8 * b)));
        tbbt_rec_free(&r);
        tbbt_rec_free(&want);
    }
}

/* Credentials: the record's, c->cred's, AUTH_NONE, the default machine. */
static void test_credentials(void **state) {
    (void)state;
    struct tbbt_cred over = {1, 0, 0, TBBT_MAX_GIDS, {0}};
    for (int i = 0; i < TBBT_MAX_GIDS; i++)
        over.gids[i] = 100 + (uint32_t)i;
    struct tbbt_cred none = {0, 5, 6, 0, {0}};
    for (int i = 0; i < 5; i++) {
        struct tbbt_rec r, want;
        struct tbbt_enc_ctx c;
        struct player p;
        ctx_init(&c, &p, 3);
        rec_for(&r, 3, TBBT_OP_GETATTR);
        tbbt_rec_set_u64(&r, TBBT_F_OBJ, ID0);
        if (i == 1) c.cred = &over;
        if (i == 2) r.cred.flavor = 0; /* AUTH_NONE in the trace */
        if (i == 3) c.cred = &none;
        if (i == 4) c.machine = NULL;
        tbbt_rec_init(&want);
        tbbt_rec_copy(&want, &r);
        roundtrip(&r, NFSPROC3_GETATTR, &c, &want, 0);
        tbbt_rec_free(&r);
        tbbt_rec_free(&want);
    }
}

/* Allocation counting: malloc and friends interposed (glibc's __libc_*
 * do the work) and counted while `counting` is set. Not under ASan, whose
 * own malloc must stay in place. */
#if defined(__SANITIZE_ADDRESS__)
#define COUNT_ALLOCS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define COUNT_ALLOCS 0
#endif
#endif
#ifndef COUNT_ALLOCS
#define COUNT_ALLOCS 1
#endif
#if COUNT_ALLOCS
extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
static volatile int counting;
static volatile long nallocs;
void *malloc(size_t n) {
    if (counting) nallocs++;
    return __libc_malloc(n);
}
void *calloc(size_t n, size_t m) {
    if (counting) nallocs++;
    return __libc_calloc(n, m);
}
void *realloc(void *p, size_t n) {
    if (counting) nallocs++;
    return __libc_realloc(p, n);
}
#endif

/* Encoding allocates nothing, whatever the procedure and path (repeated
 * WRITE data, cookie callback, AUTH_SYS and AUTH_NONE, errors). */
static void test_no_alloc(void **state) {
    (void)state;
#if COUNT_ALLOCS
    static uint8_t payload[5] = {1, 2, 3, 4, 5};
    long total = 0;
    for (size_t i = 0; i < NCASES; i++) {
        struct tbbt_rec r;
        struct tbbt_enc_ctx c;
        struct player p;
        ctx_init(&c, &p, cases[i].vers);
        if (cases[i].vers == 3) c.cookie = live_cookie; /* v2's traced cookie x 3 would not fit */
        c.cookie_ctx = &p;
        c.payload = payload;
        c.payload_len = sizeof(payload);
        rec_for(&r, cases[i].vers, cases[i].op);
        fill_all(&r, 0, cases[i].how);
        char err[200];
        nallocs = 0;
        counting = 1;
        ssize_t n1 = tbbt_nfs_encode_call(&r, 1, &c, buf, BUFSZ, err, sizeof(err));
        r.cred.flavor = 0;
        ssize_t n2 = tbbt_nfs_encode_call(&r, 2, &c, buf, BUFSZ, err, sizeof(err));
        ssize_t n = tbbt_nfs_encode_call(&r, 3, &c, buf, 30, err, sizeof(err)); /* too small */
        r.obj = r.dir = UNKNOWN_ID;
        (void)tbbt_nfs_encode_call(&r, 4, &c, buf, BUFSZ, err, sizeof(err)); /* unknown handle */
        counting = 0;
        total += nallocs;
        if (nallocs)
            fail_msg("%s v%d: %ld allocations", tbbt_op_info(cases[i].op)->name, cases[i].vers, nallocs);
        assert_true(n1 > 30 && n2 > 30 && n == -1);
        tbbt_rec_free(&r);
    }
    /* the counter works */
    counting = 1;
    void *q = malloc(16);
    counting = 0;
    free(q);
    assert_int_equal(nallocs, total + 1);
#else
    skip();
#endif
}

static int setup(void **state) {
    (void)state;
    live_init();
    return 0;
}

int main(void) {
    /* clang-format off */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_fields),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_server_time),
        cmocka_unit_test(test_random),
        cmocka_unit_test(test_call_ids),
        cmocka_unit_test(test_unknown_handle),
        cmocka_unit_test(test_bad_records),
        cmocka_unit_test(test_write_payload),
        cmocka_unit_test(test_cookie_translation),
        cmocka_unit_test(test_exclusive_verf),
        cmocka_unit_test(test_credentials),
        cmocka_unit_test(test_no_alloc),
    };
    /* clang-format on */
    return cmocka_run_group_tests(tests, setup, NULL);
}
