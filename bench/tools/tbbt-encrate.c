/* tbbt-encrate -- how fast the player turns a record into an RPC call
 * (lib/nfsenc.h), beside its floor: the same message written straight by
 * libtirpc's xdr_callmsg and rpcgen's argument routine, with no record to
 * read and no handle callback (bench/nfsenc.sh runs both).
 *
 *   tbbt-encrate [--xdr] KIND CALLS
 *
 * KIND is one call of the mix the player sends: getattr3, lookup3,
 * write3 (8 KiB), readdirplus3, write2 (8 KiB). Encodes it CALLS times
 * (a fresh xid each) into one buffer and prints "KIND CALLS BYTES", BYTES
 * the message's length. Before timing, both ways encode the call once
 * and must give the same bytes (exit 1 otherwise): the two runs do the
 * same work. Exit 2 on a usage error. */
#include <rpc/rpc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nfsenc.h"
#include "tbbt_nfs.h"
#include "unconst.h"

#define BUFSZ 70000
#define DATA 8192 /* the WRITEs' count */

static uint8_t fh[64];     /* the one live handle every ID maps to */
static uint8_t data[DATA]; /* the WRITEs' payload */
static char name[] = "report.txt";
static gid_t gids[] = {20, 12, 61};

/* The live handle of any ID: 32 bytes for v2, 28 for v3 (Linux knfsd's). */
static int live_fh(void *ctx, tbbt_id id, const uint8_t **d, uint32_t *len) {
    (void)id;
    *d = fh;
    *len = *(const int *)ctx == 2 ? 32 : 28;
    return 0;
}

struct kind {
    const char *name;
    int vers;
    enum tbbt_op op;
    rpcproc_t proc;
};

static const struct kind kinds[] = {
    {"getattr3", 3, TBBT_OP_GETATTR, NFSPROC3_GETATTR},
    {"lookup3", 3, TBBT_OP_LOOKUP, NFSPROC3_LOOKUP},
    {"write3", 3, TBBT_OP_WRITE, NFSPROC3_WRITE},
    {"readdirplus3", 3, TBBT_OP_READDIRPLUS, NFSPROC3_READDIRPLUS},
    {"write2", 2, TBBT_OP_WRITE, NFSPROC_WRITE},
};

/* The record of kind k, every argument set as the wire call carries it. */
static void rec_of(struct tbbt_rec *r, const struct kind *k) {
    tbbt_rec_init(r);
    r->vers = (uint8_t)k->vers;
    r->op = (uint8_t)k->op;
    r->cred.flavor = AUTH_SYS;
    r->cred.uid = 501;
    r->cred.gid = 20;
    r->cred.ngids = 3;
    for (int i = 0; i < 3; i++)
        r->cred.gids[i] = (uint32_t)gids[i];
    tbbt_rec_set_u64(r, TBBT_F_OBJ, 7);
    tbbt_rec_set_u64(r, TBBT_F_DIR, 8);
    tbbt_rec_set_str(r, TBBT_F_NAME, name, strlen(name));
    tbbt_rec_set_u64(r, TBBT_F_OFFSET, 1 << 20);
    tbbt_rec_set_u64(r, TBBT_F_COUNT, DATA);
    tbbt_rec_set_u64(r, TBBT_F_STABLE, FILE_SYNC);
    tbbt_rec_set_u64(r, TBBT_F_COOKIE, 0);
    tbbt_rec_set_u64(r, TBBT_F_COOKIEVERF, 0);
    tbbt_rec_set_u64(r, TBBT_F_DIRCOUNT, 1024);
    tbbt_rec_set_u64(r, TBBT_F_MAXCOUNT, 8192);
}

/* The arguments of kind k as rpcgen's structures, and their routine. */
union args {
    GETATTR3args getattr3;
    LOOKUP3args lookup3;
    WRITE3args write3;
    READDIRPLUS3args readdirplus3;
    writeargs2 write2;
};

static xdrproc_t args_of(union args *a, const struct kind *k) {
    memset(a, 0, sizeof(*a));
    nfs_fh3 h3 = {{28, (char *)fh}};
    switch (k->vers * 100 + (int)k->op) {
    case 300 + TBBT_OP_GETATTR: a->getattr3.object = h3; return (xdrproc_t)xdr_GETATTR3args;
    case 300 + TBBT_OP_LOOKUP:
        a->lookup3.what.dir = h3;
        a->lookup3.what.name = name;
        return (xdrproc_t)xdr_LOOKUP3args;
    case 300 + TBBT_OP_WRITE:
        a->write3 = (WRITE3args){h3, 1 << 20, DATA, FILE_SYNC, {DATA, (char *)data}};
        return (xdrproc_t)xdr_WRITE3args;
    case 300 + TBBT_OP_READDIRPLUS:
        a->readdirplus3.dir = h3;
        a->readdirplus3.dircount = 1024;
        a->readdirplus3.maxcount = 8192;
        return (xdrproc_t)xdr_READDIRPLUS3args;
    default: /* write2 */
        memcpy(a->write2.file.data, fh, 32);
        a->write2.beginoffset = a->write2.offset = 1 << 20;
        a->write2.totalcount = DATA;
        a->write2.data.nfsdata2_len = DATA;
        a->write2.data.nfsdata2_val = (char *)data;
        return (xdrproc_t)xdr_writeargs2;
    }
}

/* The floor: header (AUTH_SYS body encoded per call, as the player does)
 * and arguments through one xdrmem stream. Returns the length, or -1. */
static long xdr_call(const struct kind *k, uint32_t xid, union args *a, xdrproc_t proc, uint8_t *buf) {
    char body[MAX_AUTH_BYTES];
    struct authunix_parms p = {0, (char *)"client7.example", 501, 20, 3, gids};
    XDR x;
    xdrmem_create(&x, body, sizeof(body), XDR_ENCODE);
    int ok = xdr_authunix_parms(&x, &p);
    u_int blen = xdr_getpos(&x);
    xdr_destroy(&x);
    struct rpc_msg m;
    memset(&m, 0, sizeof(m));
    m.rm_xid = xid;
    m.rm_direction = CALL;
    m.rm_call.cb_rpcvers = RPC_MSG_VERSION;
    m.rm_call.cb_prog = NFS_PROGRAM;
    m.rm_call.cb_vers = (rpcvers_t)k->vers;
    m.rm_call.cb_proc = k->proc;
    m.rm_call.cb_cred = (struct opaque_auth){AUTH_SYS, body, blen};
    m.rm_call.cb_verf = (struct opaque_auth){AUTH_NONE, body, 0};
    xdrmem_create(&x, (char *)buf, BUFSZ, XDR_ENCODE);
    ok = ok && xdr_callmsg(&x, &m) && proc(&x, a);
    long n = ok ? (long)xdr_getpos(&x) : -1;
    xdr_destroy(&x);
    return n;
}

static int usage(void) {
    fprintf(stderr, "Usage: tbbt-encrate [--xdr] getattr3|lookup3|write3|readdirplus3|write2 CALLS\n");
    return 2;
}

int main(int argc, char **argv) {
    int xdr = argc > 1 && !strcmp(argv[1], "--xdr");
    if (argc != 3 + xdr) return usage();
    const struct kind *k = NULL;
    for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
        if (!strcmp(argv[1 + xdr], kinds[i].name)) k = &kinds[i];
    char *end;
    long calls = strtol(argv[2 + xdr], &end, 10);
    if (!k || *end || calls <= 0) return usage();
    for (size_t i = 0; i < sizeof(fh); i++)
        fh[i] = (uint8_t)(i * 7 + 1);
    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(i * 31);

    struct tbbt_rec r;
    rec_of(&r, k);
    struct tbbt_enc_ctx c;
    memset(&c, 0, sizeof(c));
    c.fh = live_fh;
    c.fh_ctx = tbbt_unconst(&k->vers);
    c.payload = data;
    c.payload_len = sizeof(data);
    c.machine = "client7.example";
    union args a;
    xdrproc_t proc = args_of(&a, k);
    static uint8_t buf[BUFSZ], ref[BUFSZ];
    char err[200];
    ssize_t n = tbbt_nfs_encode_call(&r, 1, &c, ref, BUFSZ, err, sizeof(err));
    if (n < 0) {
        fprintf(stderr, "tbbt-encrate: %s\n", err);
        return 1;
    }
    if (xdr_call(k, 1, &a, proc, buf) != n || memcmp(buf, ref, (size_t)n)) {
        fprintf(stderr, "tbbt-encrate: %s: nfsenc and libtirpc give different messages\n", k->name);
        return 1;
    }
    for (long i = 0; i < calls; i++)
        if ((xdr ? xdr_call(k, (uint32_t)i, &a, proc, buf)
                 : tbbt_nfs_encode_call(&r, (uint32_t)i, &c, buf, BUFSZ, err, sizeof(err))) < 0) {
            fprintf(stderr, "tbbt-encrate: %s: call %ld does not encode\n", k->name, i);
            return 1;
        }
    printf("%s %ld %ld\n", k->name, calls, (long)n);
    tbbt_rec_free(&r);
    return 0;
}
