/* pass1.c -- pairing calls with replies, handles to IDs, records in order. */
#include "pass1.h"

#include <stdlib.h>
#include <glib.h>
#include <stdio.h>
#include <string.h>

#include "fhmap.h"
#include "htab.h"
#include "memlimit.h"
#include "fsmodel.h"
#include "nfsdec.h"
#include "recentset.h"
#include "recpark.h"

enum pend_kind { PK_NFS, PK_MOUNT, PK_OTHER };

/* A call's identity: who asked whom, and the xid. */
struct pkey {
    struct tbbt_endpoint client, server;
    uint32_t xid;
};

/* A call's key with its hash (computed once per message). */
struct keyent {
    struct pkey key;
    uint64_t hash;
};

/* A handle of the call kept until the reply, for identity by fileid. */
struct callfh {
    uint8_t len, fresh;
    uint8_t data[TBBT_FH_MAX];
};

/* A call's record while it is being decoded, and the handles kept for its
 * reply: the bulk of a call in flight, given back (to a free list, hot in
 * the caches) once an answered call is parked. */
struct pbody {
    struct callfh fh_obj, fh_dir, fh_dir2;
    struct tbbt_rec rec;
    struct pbody *next_free;
};

/* One call in flight, and then its record until emitted: in its body, or,
 * answered and waiting long behind an unanswered one, packed (recpark.h). */
struct pend {
    struct keyent ke;         /* its key in the table of pending calls */
    struct pend *prev, *next; /* in the fifo */
    enum pend_kind kind;
    int done;       /* reply seen */
    int parked;     /* b given back; the record, if NFS, is in park */
    uint16_t flags; /* TBBT_RF_* to add to the parked record when emitted */
    uint32_t mount_vers, mount_proc;
    int64_t call_time; /* rec.call_time, kept here for the parked */
    struct pbody *b;
    uint8_t *park;
    size_t heap; /* rec's buffers (when parked, as they were), as counted in pend_bytes */
    struct pend *next_free;
};

/* A reply captured before its call. */
struct orphan {
    struct pkey key;
    uint64_t hash; /* pkey_hash(&key), its place in the orphans table */
    int64_t ts;
    size_t len, caplen;
    GList link;     /* in orphan_fifo (data = this), unlinked in O(1) */
    uint8_t data[]; /* caplen bytes of the message, in the same allocation */
};

#define PEND_KEEP_BYTES (64u << 10) /* record buffers kept for reuse, at most, per free body */
#define FREE_KEEP_BYTES (8u << 20)  /* and by all free bodies together */
#define PARK_NS 100000000LL         /* 100 ms: calls answered behind a head unanswered longer are parked */

struct tbbt_pass1 {
    struct tbbt_pass1_opts o;
    tbbt_rec_sink sink;
    void *ctx;
    int sink_failed;
    tbbt_warn_cb warn;
    void *warn_ctx;
    struct tbbt_timefix tf;
    struct tbbt_fhmap *fh;
    struct tbbt_fhrefs refs;
    struct tbbt_htab pending; /* struct pend* (by its ke), calls awaiting emission */
    struct pend *head, *tail; /* the fifo: pends by call time */
    size_t npend;
    size_t pend_bytes; /* buffers of the records in the fifo, together */
    struct pend *free_list;
    struct pbody *free_bodies;
    size_t free_heap;         /* record buffers the free bodies hold */
    struct tbbt_rec scratch;  /* a parked record unpacked, to be emitted */
    struct tbbt_recpark *rp;  /* where parked records are packed */
    struct tbbt_htab orphans; /* struct orphan * (by its key): found with the hash the call computed */
    GQueue orphan_fifo;
    size_t orphan_bytes;        /* their data, together (TBBT_P1_ORPHAN_BYTES at most) */
    struct tbbt_recent *recent; /* keys of the calls emitted within the retransmission span */
    GHashTable *clients; /* struct tbbt_endpoint* -> struct lossacc* (owned): its order is the report's */
    GHashTable *hosts;   /* the same per host (port 0): its transports' calls together (owned) */
    struct tbbt_htab client_index; /* the same struct lossacc*, for the lookup of every call */
    struct tbbt_client_loss *loss;
    unsigned nloss;
    int64_t now, last_emitted;
    GArray *roots; /* tbbt_id: export roots MOUNT replies named */
    struct tbbt_pass1_stats st;
};

/* Per-client xids: the loss estimate (xidseq.h), and the range of xids
 * seen, which tells a call that cannot be a retransmission. */
struct lossacc {
    struct tbbt_endpoint ep;
    struct tbbt_xidseq xs;
    uint64_t calls;
    uint32_t seen_lo[2], seen_hi[2]; /* smallest and largest xid counted: [0] as sent, [1] byte-swapped */
    struct lossacc *host;            /* its host's (port 0), or NULL for an unknown host */
    unsigned transports;             /* of a host: its transports */
    struct lossacc *first; /* of a host: its first transport, whose view is the host's while alone */
    int reported;          /* of a host, while the report is built: 0 not yet judged, 1 one counter, 2 one per
                              transport, 3 one counter and its line made */
};

void tbbt_pass1_opts_default(struct tbbt_pass1_opts *o) {
    o->reply_timeout = 30LL * 1000000000;
    o->orphan_timeout = 2LL * 1000000000;
    o->step_threshold = TBBT_TIMEFIX_DEFAULT_THRESHOLD;
    o->max_pending = 1u << 20;
    o->max_pending_bytes = (size_t)256 << 20;
    o->retrans_span = 300LL * 1000000000;
    o->retrans_max_bytes = (size_t)128 << 20;
}

/* Hashes an endpoint a word at a time: this runs several times per call,
 * so it must not walk the address byte by byte. */
static inline uint64_t ep_hash64(const struct tbbt_endpoint *e) {
    uint64_t a, b;
    memcpy(&a, e->addr, 8);
    memcpy(&b, e->addr + 8, 8);
    return tbbt_htab_mix(a ^ tbbt_htab_mix(b ^ ((uint64_t)e->port << 8 | e->family)));
}

static guint ep_hash(const struct tbbt_endpoint *e) {
    return (guint)ep_hash64(e);
}

/* Hashes a call key word by word (its padding is zero: see make_key). */
static uint64_t pkey_hash(const struct pkey *k) {
    return tbbt_htab_hash_bytes(k, sizeof(*k), 0x5bd1e995u);
}

/* Copies an endpoint field by field into a zeroed one, so that the key's
 * bytes, padding included, are a function of its value. */
static void ep_copy(struct tbbt_endpoint *dst, const struct tbbt_endpoint *src) {
    dst->family = src->family;
    memcpy(dst->addr, src->addr, 16);
    dst->port = src->port;
}

/* Builds the key of a call from client to server with this xid. */
static void make_key(struct pkey *k, const struct tbbt_endpoint *client, const struct tbbt_endpoint *server,
                     uint32_t xid) {
    memset(k, 0, sizeof(*k));
    ep_copy(&k->client, client);
    ep_copy(&k->server, server);
    k->xid = xid;
}

static int ep_equal(const struct tbbt_endpoint *a, const struct tbbt_endpoint *b) {
    return a->port == b->port && a->family == b->family && memcmp(a->addr, b->addr, 16) == 0;
}

static gboolean pkey_equal(gconstpointer a, gconstpointer b) {
    const struct pkey *x = a, *y = b;
    return x->xid == y->xid && ep_equal(&x->client, &y->client) && ep_equal(&x->server, &y->server);
}

/* Table equality: a pend against a struct pkey. */
static int pend_eq(const void *item, const void *key) {
    return pkey_equal(&((const struct pend *)item)->ke.key, key);
}

static guint ep_ghash(gconstpointer k) {
    return ep_hash(k);
}

static gboolean ep_gequal(gconstpointer a, gconstpointer b) {
    return ep_equal(a, b);
}

/* Table equality: an orphan against a struct pkey. */
static int orphan_eq(const void *item, const void *key) {
    return pkey_equal(&((const struct orphan *)item)->key, key);
}

/* client_index equality: a loss accumulator against an endpoint. */
static int lossacc_eq(const void *item, const void *key) {
    return ep_equal(&((const struct lossacc *)item)->ep, key);
}

/* Forgets a waiting reply (paired, expired or evicted) and frees it. */
static void orphan_drop(struct tbbt_pass1 *p, struct orphan *o) {
    g_queue_unlink(&p->orphan_fifo, &o->link);
    p->orphan_bytes -= o->caplen;
    tbbt_htab_remove_item(&p->orphans, o->hash, o);
    g_free(o);
}

struct tbbt_pass1 *tbbt_pass1_new(const struct tbbt_pass1_opts *o, tbbt_rec_sink sink, void *ctx) {
    struct tbbt_pass1 *p = g_new0(struct tbbt_pass1, 1);
    p->o = *o;
    p->sink = sink;
    p->ctx = ctx;
    tbbt_timefix_init(&p->tf, o->step_threshold);
    p->fh = tbbt_fhmap_new();
    tbbt_htab_init(&p->pending, pend_eq);
    tbbt_htab_init(&p->orphans, orphan_eq);
    g_queue_init(&p->orphan_fifo);
    p->recent = tbbt_recent_new(o->retrans_span, o->retrans_max_bytes);
    p->st.retrans_span_kept = o->retrans_span;
    p->clients = g_hash_table_new_full(ep_ghash, ep_gequal, NULL, g_free);
    p->hosts = g_hash_table_new_full(ep_ghash, ep_gequal, NULL, g_free);
    tbbt_htab_init(&p->client_index, lossacc_eq);
    p->last_emitted = INT64_MIN;
    tbbt_rec_init(&p->scratch);
    p->rp = tbbt_recpark_new();
    return p;
}

/* Takes a body from the free list (keeping its record's buffers) or makes
 * one. */
static struct pbody *body_get(struct tbbt_pass1 *p) {
    struct pbody *b = p->free_bodies;
    if (b) {
        p->free_bodies = b->next_free;
        p->free_heap -= b->rec.arena_cap + (size_t)b->rec.entries_cap * sizeof(struct tbbt_dirent);
        tbbt_rec_clear(&b->rec);
    } else {
        b = g_new0(struct pbody, 1);
        tbbt_rec_init(&b->rec);
    }
    b->fh_obj.len = b->fh_dir.len = b->fh_dir2.len = 0;
    return b;
}

/* Takes a pend from the free list or makes one, with a body: no
 * allocation per call once the pipeline is warm. */
static struct pend *pend_get(struct tbbt_pass1 *p) {
    struct pend *e = p->free_list;
    if (e)
        p->free_list = e->next_free;
    else
        e = g_new0(struct pend, 1);
    e->done = 0;
    e->parked = 0;
    e->flags = 0;
    e->heap = 0;
    e->park = NULL;
    e->b = body_get(p);
    return e;
}

/* Bytes of heap a record's names and listing hold. */
static size_t rec_heap(const struct tbbt_rec *r) {
    return r->arena_cap + (size_t)r->entries_cap * sizeof(struct tbbt_dirent);
}

/* Counts the growth of e's record (decoded call or reply) in pend_bytes. */
static void pend_account(struct tbbt_pass1 *p, struct pend *e) {
    size_t h = e->b ? rec_heap(&e->b->rec) : 0;
    p->pend_bytes += h - e->heap;
    e->heap = h;
}

/* Returns a body to the free list; a record that grew big (a long
 * listing), or one over the free bodies' budget, gives its buffers back,
 * so the list keeps only small ones and its memory does not creep up with
 * the capture's length. */
static void body_put(struct tbbt_pass1 *p, struct pbody *b) {
    size_t h = rec_heap(&b->rec);
    if (h > PEND_KEEP_BYTES || p->free_heap + h > FREE_KEEP_BYTES) {
        tbbt_rec_free(&b->rec);
        tbbt_rec_init(&b->rec);
        h = 0;
    }
    p->free_heap += h;
    b->next_free = p->free_bodies;
    p->free_bodies = b;
}

/* Returns e (and its body or packed record) to the free lists. */
static void pend_put(struct tbbt_pass1 *p, struct pend *e) {
    if (e->b) body_put(p, e->b);
    e->b = NULL;
    if (e->park) tbbt_recpark_release(p->rp, e->park);
    e->park = NULL;
    e->next_free = p->free_list;
    p->free_list = e;
}

/* Hands the record of e to the sink and recycles e. */
static void emit(struct tbbt_pass1 *p, struct pend *e) {
    tbbt_htab_remove_item(&p->pending, e->ke.hash, e);
    tbbt_recent_add(p->recent, e->ke.hash, e->call_time);
    if (e->kind == PK_NFS) {
        struct tbbt_rec *r = &p->scratch;
        if (e->parked)
            tbbt_recpark_unpack(p->rp, r, e->park);
        else
            r = &e->b->rec;
        r->flags |= e->flags;
        if (!e->done) {
            r->flags |= TBBT_RF_REPLY_LOST;
            r->reply_time = r->call_time;
            r->status = -1;
            p->st.replies_lost++;
        }
        if (r->call_time < p->last_emitted)
            p->st.out_of_order++;
        else
            p->last_emitted = r->call_time;
        p->st.records++;
        if (!p->sink_failed && p->sink(p->ctx, r) != 0) p->sink_failed = 1;
    }
    pend_put(p, e);
}

/* Unlinks and returns the oldest pend of the fifo (which must not be empty). */
static struct pend *fifo_pop_head(struct tbbt_pass1 *p) {
    struct pend *e = p->head;
    p->head = e->next;
    if (p->head)
        p->head->prev = NULL;
    else
        p->tail = NULL;
    p->npend--;
    p->pend_bytes -= e->heap;
    e->heap = 0;
    return e;
}

/* Queues e in call-time order, after the calls of the same time. Messages
 * arrive nearly in order (a call spanning many segments completes after
 * later small ones), so the walk back from the tail is short. */
static void fifo_insert(struct tbbt_pass1 *p, struct pend *e) {
    struct pend *l = p->tail;
    while (l && l->call_time > e->call_time)
        l = l->prev;
    e->prev = l;
    e->next = l ? l->next : p->head;
    if (e->next)
        e->next->prev = e;
    else
        p->tail = e;
    if (l)
        l->next = e;
    else
        p->head = e;
    p->npend++;
    pend_account(p, e);
}

/* Parks e, just answered (its record still in the caches): its record
 * packed, its body given back. */
static void park(struct tbbt_pass1 *p, struct pend *e) {
    size_t len;
    if (e->kind == PK_NFS) e->park = tbbt_recpark_pack(p->rp, &e->b->rec, &len);
    e->parked = 1;
    body_put(p, e->b);
    e->b = NULL;
    /* e->heap stays what the record's buffers held: max_pending_bytes
     * bounds the same quantity, parked or not, so records are forced out
     * (or not) exactly as they were before parking existed */
}

/* Emits from the head of the queue every call that is answered or whose
 * reply is overdue, and forces out the oldest when too many are waiting or
 * their records hold too much (answers waiting behind an unanswered call,
 * with a clock that never runs out the timeout). */
static void drain(struct tbbt_pass1 *p, int all) {
    struct pend *e;
    while ((e = p->head) != NULL) {
        int overdue = p->now - e->call_time > p->o.reply_timeout;
        int forced = p->npend > p->o.max_pending || p->pend_bytes > p->o.max_pending_bytes;
        if (!(e->done || overdue || all || forced)) break;
        if (forced && !e->done && !overdue && !all) p->st.forced_out++;
        fifo_pop_head(p);
        if (e->next) { /* a queue held long is cold: fetch the next ones while this one goes out */
            for (int k = 0; e->next->park && k < 5; k++) /* a packed record is about 300 bytes */
                __builtin_prefetch(e->next->park + 64 * k);
            tbbt_htab_prefetch(&p->pending, e->next->ke.hash);
            if (e->next->next) __builtin_prefetch(e->next->next);
        }
        emit(p, e);
    }
}

/* The loss accumulator of a client, or NULL before its first call. */
static struct lossacc *client_find(struct tbbt_pass1 *p, const struct tbbt_endpoint *client) {
    return tbbt_htab_find_inline(&p->client_index, ep_hash64(client), client, lossacc_eq);
}

/* Returns 1 when no call from the client (a, NULL if none yet) can have
 * carried this xid: it lies outside the range of the xids counted, in
 * either byte order. Such a call is neither pending nor recent, whatever
 * its server, so its lookups can be skipped: clients number calls in
 * sequence, and nearly every call is a new largest xid in one order. */
static int xid_unseen(const struct lossacc *a, uint32_t xid) {
    uint32_t sw = GUINT32_SWAP_LE_BE(xid);
    return !a || xid < a->seen_lo[0] || xid > a->seen_hi[0] || sw < a->seen_lo[1] || sw > a->seen_hi[1];
}

/* The accumulator of new transport t's host (its address, port 0), made on
 * first use; NULL for a host the capture does not name (Ellard's
 * anonymised). While a host has one transport its view is that
 * transport's: the host's own is started, as a copy of it, only when a
 * second transport appears, so that a call costs one estimate, not two,
 * on hosts with one connection. */
static struct lossacc *host_of(struct tbbt_pass1 *p, struct lossacc *t) {
    static const uint8_t zero[16];
    if (t->ep.family == 0 && memcmp(t->ep.addr, zero, sizeof(zero)) == 0) return NULL;
    struct tbbt_endpoint h = t->ep;
    h.port = 0;
    struct lossacc *a = g_hash_table_lookup(p->hosts, &h);
    if (!a) {
        a = g_new0(struct lossacc, 1);
        a->ep = h;
        a->first = t;
        g_hash_table_insert(p->hosts, &a->ep, a);
    } else if (a->transports == 1) {
        a->xs = a->first->xs;
        a->calls = a->first->calls;
    }
    a->transports++;
    return a;
}

/* Counts a call toward its client's xid span (a: its accumulator, or NULL
 * to make one), and toward its host's, for hosts that number every
 * transport's calls from one counter (xidseq.h). */
static void loss_count(struct tbbt_pass1 *p, struct lossacc *a, const struct tbbt_endpoint *client,
                       uint32_t xid) {
    uint32_t sx[2] = {xid, GUINT32_SWAP_LE_BE(xid)};
    if (!a) {
        a = g_new0(struct lossacc, 1);
        a->ep = *client;
        tbbt_xidseq_init(&a->xs);
        a->host = host_of(p, a);
        g_hash_table_insert(p->clients, &a->ep, a);
        tbbt_htab_put(&p->client_index, ep_hash64(client), a);
        for (int k = 0; k < 2; k++)
            a->seen_lo[k] = a->seen_hi[k] = sx[k];
    }
    for (int k = 0; k < 2; k++) {
        if (sx[k] < a->seen_lo[k]) a->seen_lo[k] = sx[k];
        if (sx[k] > a->seen_hi[k]) a->seen_hi[k] = sx[k];
    }
    tbbt_xidseq_add(&a->xs, xid);
    a->calls++;
    if (a->host && a->host->transports > 1) {
        tbbt_xidseq_add(&a->host->xs, xid);
        a->host->calls++;
    }
}

static void keep_fh(struct callfh *dst, const struct tbbt_fhref *src, int fresh) {
    dst->len = (uint8_t)src->len;
    dst->fresh = (uint8_t)fresh;
    memcpy(dst->data, src->data, src->len);
}

/* Is the live object id of a type that handle field f of operation op
 * cannot have (a file as a directory, a directory read or written)? Then
 * the server reused its inode, and the handle names a new object: the
 * remove that freed it was lost. */
static int wrong_type(struct tbbt_pass1 *p, tbbt_id id, enum tbbt_field f, unsigned op) {
    int want_dir = f == TBBT_F_DIR || f == TBBT_F_DIR2 ||
                   (f == TBBT_F_OBJ && (op == TBBT_OP_READDIR || op == TBBT_OP_READDIRPLUS));
    int want_file = f == TBBT_F_OBJ && (op == TBBT_OP_READ || op == TBBT_OP_WRITE);
    if (!want_dir && !want_file) return 0; /* most handles: no lookup on the per-call path */
    uint32_t t = tbbt_fhmap_type(p->fh, id);
    return t && (want_dir ? t != TBBT_FT_DIR : t == TBBT_FT_DIR);
}

/* Maps the call's handles to IDs and keeps them for the reply. */
static void call_ids(struct tbbt_pass1 *p, struct pend *e) {
    tbbt_fhmap_set_clock(p->fh, e->b->rec.call_time);
    for (uint32_t i = 0; i < p->refs.n; i++) {
        const struct tbbt_fhref *f = &p->refs.v[i];
        int fresh;
        tbbt_id id = tbbt_fhmap_lookup(p->fh, f->data, f->len, &fresh);
        if (!fresh && wrong_type(p, id, f->field, e->b->rec.op)) {
            id = tbbt_fhmap_born(p->fh, f->data, f->len, id, 0, 0, 0, 0);
            fresh = 1;
        }
        tbbt_rec_set_u64(&e->b->rec, f->field, id);
        if (f->field == TBBT_F_OBJ)
            keep_fh(&e->b->fh_obj, f, fresh);
        else if (f->field == TBBT_F_DIR)
            keep_fh(&e->b->fh_dir, f, fresh);
        else if (f->field == TBBT_F_DIR2)
            keep_fh(&e->b->fh_dir2, f, fresh);
    }
}

/* Decodes an NFS call into e's record. */
static void nfs_call(struct tbbt_pass1 *p, struct pend *e, const struct tbbt_rpc_hdr *h,
                     const struct tbbt_msg *m) {
    struct tbbt_rec *r = &e->b->rec;
    r->vers = (uint8_t)h->vers;
    r->op = (uint8_t)tbbt_op_from_wire(h->vers, h->proc);
    r->cred = h->cred;
    if (m->tcp) r->flags |= TBBT_RF_TCP;
    tbbt_fhrefs_clear(&p->refs);
    if (h->cut) { /* only xid and procedure: a record for the summary, never replayed */
        r->flags |= TBBT_RF_CALL_TRUNC | TBBT_RF_ARGS_CUT;
        p->st.call_trunc++;
        p->st.call_hdr_cut++;
        p->st.args_cut++;
        return;
    }
    int rc = tbbt_nfs_decode_call(r, m->data + h->body, m->caplen - h->body, &p->refs);
    if (rc == TBBT_DEC_TRUNC) {
        r->flags |= TBBT_RF_CALL_TRUNC;
        p->st.call_trunc++;
        if (r->flags & TBBT_RF_ARGS_CUT) p->st.args_cut++;
    } else if (rc == TBBT_DEC_BAD) {
        p->st.call_bad++;
    }
    call_ids(p, e);
}

/* What r's reply attributes show of its principal object: type, owner. */
static struct tbbt_fhmap_shown shown(const struct tbbt_rec *r) {
    struct tbbt_fhmap_shown s = {tbbt_rec_has(r, TBBT_F_TYPE) ? r->type : 0, 0, 0, 0};
    if (tbbt_rec_has(r, TBBT_F_UID) && tbbt_rec_has(r, TBBT_F_GID)) {
        s.has_owner = 1;
        s.uid = r->uid;
        s.gid = r->gid;
    }
    return s;
}

/* What tells r's principal object from another that reused its inode: its
 * shown type, and its owner unless r itself changes the owner. */
static struct tbbt_fhmap_shown shown_identity(const struct tbbt_rec *r) {
    struct tbbt_fhmap_shown s = shown(r);
    if (tbbt_rec_has(r, TBBT_F_SET_UID) || tbbt_rec_has(r, TBBT_F_SET_GID)) s.has_owner = 0;
    return s;
}

/* A handle the map had forgotten (fresh, made id) in r's reply, of an
 * object retired by a message at or after r's call: the server ran r
 * first and shows the dead object (a listing, lookup or getattr of one
 * client overlapping another's remove, decoded after it). Taken as a new
 * object, it took the fileid, and a create reusing the inode joined it,
 * so the old object's later STALE was the new one's in pass 2. Returns
 * the dead ID, forgetting id, or id. */
static tbbt_id overlapped_dead(struct tbbt_pass1 *p, const struct tbbt_rec *r, const uint8_t *fh, size_t len,
                               tbbt_id id, int fresh) {
    if (!fresh) return id;
    tbbt_id dead = tbbt_fhmap_dead_since(p->fh, fh, len, r->call_time);
    if (!dead) return id;
    tbbt_fhmap_unborn(p->fh, id);
    p->st.overlap_dead++;
    return dead;
}

/* Joins a handle of the call with the identity the reply's attributes give
 * it, re-pointing the record's field if the handle was an alias. */
static void identify(struct tbbt_pass1 *p, struct tbbt_rec *r, enum tbbt_field f, const struct callfh *c,
                     uint64_t fsid, uint64_t fileid, struct tbbt_fhmap_shown s) {
    if (!c->len) return;
    tbbt_id id = tbbt_rec_get_u64(r, f);
    tbbt_id dead = overlapped_dead(p, r, c->data, c->len, id, c->fresh || !tbbt_fhmap_live(p->fh, id));
    if (dead != id) {
        tbbt_rec_set_u64(r, f, dead);
        return;
    }
    tbbt_id nid = tbbt_fhmap_identify(p->fh, c->data, c->len, id, c->fresh, fsid, fileid, &s);
    if (nid != id) tbbt_rec_set_u64(r, f, nid);
}

#define FH_BATCH 64 /* handles of a listing hashed and prefetched at a time */
#define FH_AHEAD 3  /* how far ahead of its lookup an object is fetched */

/* Hashes the reply handles from `from` on (a batch of FH_BATCH at most)
 * into hs[] and starts loading their table slots; the lookups that follow
 * fetch each object a few handles ahead. Listings look up hundreds of
 * handles whose objects are spread over memory: this overlaps the misses. */
static void fh_prefetch(struct tbbt_pass1 *p, uint32_t from, uint64_t *hs) {
    for (uint32_t j = from; j < p->refs.n && j < from + FH_BATCH; j++) {
        hs[j % FH_BATCH] = tbbt_fhmap_hash(p->refs.v[j].data, p->refs.v[j].len);
        tbbt_fhmap_prefetch(p->fh, hs[j % FH_BATCH], 1);
    }
}

/* Whether the object a successful create-type reply shows is brand new
 * although its handle or fileid names a live object: that object is then
 * dead (its inode reused; the remove's reply, from another client, may
 * come after this one). MKDIR, SYMLINK and MKNOD succeed only on a new
 * object, as do GUARDED and EXCLUSIVE CREATE unless the name was already
 * bound to that very object (a retry). UNCHECKED CREATE of an existing
 * file returns that file: new only when the object differs in type, the
 * name was bound to another object, the object has one link, known to be
 * another name, or the name was cut and the handle is new. */
static int newobj_is_born(struct tbbt_pass1 *p, const struct tbbt_rec *r, tbbt_id id, int fresh,
                          int has_fid) {
    if (r->status != 0 || !(tbbt_op_info(r->op)->flags & TBBT_OPF_CREATES)) return 0;
    tbbt_id existing = fresh ? 0 : id;
    if (!existing && has_fid) existing = tbbt_fhmap_by_fileid(p->fh, r->fsid, r->fileid);
    if (!existing) return fresh; /* a new handle and an unknown identity: new anyway */
    if (r->op != TBBT_OP_CREATE) return 1;
    tbbt_id bound = tbbt_rec_has(r, TBBT_F_NAME)
                        ? tbbt_fhmap_resolve(p->fh, r->dir, tbbt_rec_str(r, r->name), r->name.len)
                        : 0;
    /* a create that sets no owner never gives an existing file a new one:
     * a reply showing another owner than the object had is a new file
     * under a reused handle, whatever name a listing answered first bound
     * it to */
    uint32_t uid, gid;
    if (tbbt_rec_has(r, TBBT_F_UID) && tbbt_rec_has(r, TBBT_F_GID) && !tbbt_rec_has(r, TBBT_F_SET_UID) &&
        !tbbt_rec_has(r, TBBT_F_SET_GID) && tbbt_fhmap_owner(p->fh, existing, &uid, &gid) &&
        (uid != r->uid || gid != r->gid))
        return 1;
    if (bound == existing) return 0;
    if (tbbt_fhmap_type(p->fh, existing) && tbbt_rec_has(r, TBBT_F_TYPE) &&
        tbbt_fhmap_type(p->fh, existing) != r->type)
        return 1;
    if (bound != 0 || (tbbt_rec_has(r, TBBT_F_CREATEHOW) && r->createhow != 0)) return 1;
    /* a name the snaplen cut, and a handle never seen: an existing file
     * would have come back under the handle it was known by, so its inode
     * was reused (the remove that freed it cut too) */
    if (fresh && !tbbt_rec_has(r, TBBT_F_NAME)) return 1;
    /* an unknown name: the same file only if that file could have it */
    return tbbt_rec_has(r, TBBT_F_NAME) &&
           tbbt_fhmap_named_elsewhere(p->fh, existing, r->dir, tbbt_rec_str(r, r->name), r->name.len);
}

/* Maps the reply's handles (new object, readdirplus entries) to IDs. */
static void reply_ids(struct tbbt_pass1 *p, struct pend *e) {
    struct tbbt_rec *r = &e->b->rec;
    tbbt_fhmap_set_clock(p->fh, r->reply_time);
    int has_fid = tbbt_rec_has(r, TBBT_F_FSID) && tbbt_rec_has(r, TBBT_F_FILEID);
    uint64_t hs[FH_BATCH];
    for (uint32_t i = 0; i < p->refs.n; i++) {
        const struct tbbt_fhref *f = &p->refs.v[i];
        int fresh;
        if (i % FH_BATCH == 0) fh_prefetch(p, i, hs);
        if ((i + FH_AHEAD) % FH_BATCH >= FH_AHEAD && i + FH_AHEAD < p->refs.n)
            tbbt_fhmap_prefetch(p->fh, hs[(i + FH_AHEAD) % FH_BATCH], 2);
        tbbt_id id = tbbt_fhmap_lookup_hashed(p->fh, f->data, f->len, hs[i % FH_BATCH], &fresh);
        if (f->field == TBBT_F_ENTRIES ||
            (f->field == TBBT_F_NEWOBJ && !(tbbt_op_info(r->op)->flags & TBBT_OPF_CREATES))) {
            tbbt_id dead = overlapped_dead(p, r, f->data, f->len, id, fresh);
            if (dead != id) {
                if (f->field == TBBT_F_NEWOBJ) tbbt_rec_set_u64(r, TBBT_F_NEWOBJ, dead);
                if (f->field == TBBT_F_ENTRIES && f->entry >= 0 && (uint32_t)f->entry < r->nentries)
                    r->entries[f->entry].id = dead;
                continue;
            }
        }
        if (f->field == TBBT_F_NEWOBJ) {
            if (newobj_is_born(p, r, id, fresh, has_fid))
                id = tbbt_fhmap_born(p->fh, f->data, f->len, id, fresh, has_fid, r->fsid, r->fileid);
            else if (has_fid) {
                struct tbbt_fhmap_shown s = shown_identity(r);
                id = tbbt_fhmap_identify(p->fh, f->data, f->len, id, fresh, r->fsid, r->fileid, &s);
            }
            tbbt_rec_set_u64(r, TBBT_F_NEWOBJ, id);
        } else if (f->field == TBBT_F_ENTRIES && f->entry >= 0 && (uint32_t)f->entry < r->nentries) {
            struct tbbt_dirent *d = &r->entries[f->entry];
            if (tbbt_rec_has(r, TBBT_F_FSID) && d->fileid) {
                struct tbbt_fhmap_shown s = {d->type, 0, 0, 0};
                id = tbbt_fhmap_identify(p->fh, f->data, f->len, id, fresh, r->fsid, d->fileid, &s);
            }
            d->id = id;
        }
    }
    if (!has_fid) return;
    unsigned fl = tbbt_op_info(r->op)->flags;
    if ((fl & TBBT_OPF_OBJ) && !(fl & TBBT_OPF_NEWOBJ))
        identify(p, r, TBBT_F_OBJ, &e->b->fh_obj, r->fsid, r->fileid, shown_identity(r));
    const struct tbbt_fhmap_shown dir = {TBBT_FT_DIR, 0, 0, 0};
    if (tbbt_rec_has(r, TBBT_F_DIR_FILEID))
        identify(p, r, TBBT_F_DIR, &e->b->fh_dir, r->fsid, r->dir_fileid, dir);
    if (tbbt_rec_has(r, TBBT_F_DIR2_FILEID))
        identify(p, r, TBBT_F_DIR2, &e->b->fh_dir2, r->fsid, r->dir2_fileid, dir);
}

/* Follows the names a successful reply creates, moves or removes, so that
 * objects are retired when their last name goes (fileid reuse). */
static void track_names(struct tbbt_pass1 *p, struct tbbt_rec *r) {
    const char *n = tbbt_rec_str(r, r->name);
    tbbt_id principal = tbbt_rec_has(r, TBBT_F_NEWOBJ) ? r->newobj : r->obj;
    if (principal && tbbt_rec_has(r, TBBT_F_NLINK)) {
        struct tbbt_fhmap_shown s = shown(r);
        tbbt_fhmap_set_attr(p->fh, principal, &s, r->nlink);
    }
    if (r->status != 0 || !tbbt_rec_has(r, TBBT_F_DIR) || !tbbt_rec_has(r, TBBT_F_NAME)) {
        if (r->status == 0 && (r->op == TBBT_OP_READDIRPLUS) && r->obj)
            for (uint32_t i = 0; i < r->nentries; i++)
                if (r->entries[i].id)
                    tbbt_fhmap_bind(p->fh, r->obj, tbbt_rec_str(r, r->entries[i].name),
                                    r->entries[i].name.len, r->entries[i].id);
        return;
    }
    switch (r->op) {
    case TBBT_OP_LOOKUP:
    case TBBT_OP_CREATE:
    case TBBT_OP_MKDIR:
    case TBBT_OP_SYMLINK:
    case TBBT_OP_MKNOD:
        if (tbbt_rec_has(r, TBBT_F_NEWOBJ)) tbbt_fhmap_bind(p->fh, r->dir, n, r->name.len, r->newobj);
        break;
    case TBBT_OP_LINK: tbbt_fhmap_bind(p->fh, r->dir, n, r->name.len, r->obj); break;
    case TBBT_OP_REMOVE:
    case TBBT_OP_RMDIR: tbbt_fhmap_unlink(p->fh, r->dir, n, r->name.len); break;
    case TBBT_OP_RENAME:
        if (tbbt_rec_has(r, TBBT_F_DIR2) && tbbt_rec_has(r, TBBT_F_NAME2))
            tbbt_fhmap_rename(p->fh, r->dir, n, r->name.len, r->dir2, tbbt_rec_str(r, r->name2),
                              r->name2.len);
        break;
    default: break;
    }
}

/* A STALE reply: a call handle the map had forgotten (and so made a new
 * object for) names the object that was retired with it, whose removal
 * the server is telling this client about: re-points the record there,
 * so pass 2's model and the player see the dead object, not a new one.
 * So too a handle pipelined calls used before the first one's STALE
 * reply forgot the object its lookup made (the ID is no longer live). */
static void stale_ids(struct tbbt_pass1 *p, struct pend *e) {
    static const enum tbbt_field fields[3] = {TBBT_F_OBJ, TBBT_F_DIR, TBBT_F_DIR2};
    const struct callfh *fhs[3] = {&e->b->fh_obj, &e->b->fh_dir, &e->b->fh_dir2};
    struct tbbt_rec *r = &e->b->rec;
    for (int i = 0; i < 3; i++) {
        if (!fhs[i]->len || !tbbt_rec_has(r, fields[i])) continue;
        if (!fhs[i]->fresh && tbbt_fhmap_live(p->fh, tbbt_rec_get_u64(r, fields[i]))) continue;
        tbbt_id dead = tbbt_fhmap_dead(p->fh, fhs[i]->data, fhs[i]->len);
        if (!dead) continue;
        tbbt_fhmap_unborn(p->fh, tbbt_rec_get_u64(r, fields[i]));
        tbbt_rec_set_u64(r, fields[i], dead);
        p->st.stale_dead++;
    }
}

/* Decodes an NFS reply into the record of its call. */
static void nfs_reply(struct tbbt_pass1 *p, struct pend *e, const struct tbbt_rpc_hdr *h, const uint8_t *data,
                      size_t caplen, int64_t ts) {
    struct tbbt_rec *r = &e->b->rec;
    r->reply_time = ts;
    if (h->cut && h->reply_stat == 0 && h->accept_stat == UINT32_MAX) { /* cut before its status */
        r->flags |= TBBT_RF_REPLY_TRUNC;
        p->st.reply_trunc++;
        return;
    }
    if (h->reply_stat != 0 || h->accept_stat != 0) {
        r->flags |= TBBT_RF_RPC_ERROR;
        r->status = -1;
        p->st.rpc_errors++;
        return;
    }
    tbbt_fhrefs_clear(&p->refs);
    int rc = tbbt_nfs_decode_reply(r, data + h->body, caplen - h->body, &p->refs);
    if (rc == TBBT_DEC_TRUNC) {
        r->flags |= TBBT_RF_REPLY_TRUNC;
        p->st.reply_trunc++;
    } else if (rc == TBBT_DEC_BAD) {
        p->st.reply_bad++;
    }
    reply_ids(p, e);
    if (r->status == TBBT_NFSERR_STALE) stale_ids(p, e);
    track_names(p, r);
}

/* Keeps an export root's ID once (pass 3 makes it the image root). */
static void add_root(struct tbbt_pass1 *p, tbbt_id id) {
    if (!p->roots) p->roots = g_array_new(FALSE, FALSE, sizeof(tbbt_id));
    for (guint i = 0; i < p->roots->len; i++)
        if (g_array_index(p->roots, tbbt_id, i) == id) return;
    g_array_append_val(p->roots, id);
}

/* Handles the reply of any program to the call e. */
static void pair(struct tbbt_pass1 *p, struct pend *e, const struct tbbt_rpc_hdr *h, const uint8_t *data,
                 size_t caplen, int64_t ts) {
    if (e->done) {
        p->st.dup_replies++;
        return;
    }
    e->done = 1;
    if (e->kind == PK_NFS) {
        nfs_reply(p, e, h, data, caplen, ts);
    } else if (e->kind == PK_MOUNT && e->mount_proc == 1 && h->reply_stat == 0 && h->accept_stat == 0) {
        struct tbbt_fhref f;
        uint32_t status = 1;
        if (tbbt_mount_decode_mnt_reply(e->mount_vers, data + h->body, caplen - h->body, &status, &f) == 0 &&
            status == 0) {
            int fresh;
            tbbt_id id = tbbt_fhmap_lookup(p->fh, f.data, f.len, &fresh);
            p->st.roots_learnt++;
            add_root(p, id);
        }
    }
    pend_account(p, e);
    if (e != p->head && p->now - p->head->call_time > PARK_NS) park(p, e);
}

#define DUP_COPY_NS 1000000LL /* 1 ms: no client retransmits that soon */

/* A call: start a record, or recognise a retransmission. */
static void on_call(struct tbbt_pass1 *p, const struct tbbt_rpc_hdr *h, const struct tbbt_msg *m,
                    int64_t t0) {
    struct pkey key;
    make_key(&key, &m->src, &m->dst, h->xid);
    uint64_t hash = pkey_hash(&key);
    tbbt_htab_prefetch(&p->pending, hash); /* for the put after the decoding */
    struct lossacc *a = client_find(p, &m->src);
    /* its loss estimate's windows (1 KiB a client, cold among hundreds), fetched while the key is checked */
    if (a) {
        for (size_t k = 0; k < sizeof(a->xs); k += 64)
            __builtin_prefetch((const char *)&a->xs + k, 1);
        if (a->host && a->host->transports > 1) /* and its host's, where the host has several connections */
            for (size_t k = 0; k < sizeof(a->host->xs); k += 64)
                __builtin_prefetch((const char *)&a->host->xs + k, 1);
    }
    struct pend *e = NULL;
    if (!xid_unseen(a, h->xid)) {
        e = tbbt_htab_find_inline(&p->pending, hash, &key, pend_eq);
        if (e || tbbt_recent_has(p->recent, hash)) {
            p->st.retrans_calls++;
            /* a copy within DUP_COPY_NS is the same packet seen on a second
             * interface (captures merged), not the client sending it again */
            if (e && llabs(t0 - e->call_time) > DUP_COPY_NS) {
                if (e->parked)
                    e->flags |= TBBT_RF_RETRANS;
                else
                    e->b->rec.flags |= TBBT_RF_RETRANS;
            }
            return;
        }
    }
    loss_count(p, a, &m->src, h->xid);
    enum pend_kind kind = PK_OTHER;
    if (h->prog == TBBT_NFS_PROGRAM && (h->vers == TBBT_NFS_V2 || h->vers == TBBT_NFS_V3)) {
        if (tbbt_op_from_wire(h->vers, h->proc) < 0) {
            p->st.nfs_unknown_proc++;
        } else {
            kind = PK_NFS;
            p->st.nfs_calls++;
            if (h->vers == TBBT_NFS_V2)
                p->st.nfs_v2++;
            else
                p->st.nfs_v3++;
        }
    } else if (h->prog == TBBT_NFS_PROGRAM && h->vers == TBBT_NFS_V4) {
        p->st.nfs_v4++;
    } else if (h->prog == TBBT_MOUNT_PROGRAM) {
        kind = PK_MOUNT;
        p->st.mount_calls++;
    } else {
        p->st.other_calls++;
    }
    e = pend_get(p);
    e->ke.key = key;
    e->ke.hash = hash;
    e->kind = kind;
    e->mount_vers = h->vers;
    e->mount_proc = h->proc;
    e->call_time = t0;
    e->b->rec.call_time = t0;
    e->b->rec.reply_time = t0;
    e->b->rec.client = m->src;
    e->b->rec.server = m->dst;
    e->b->rec.xid = h->xid;
    if (kind == PK_NFS) nfs_call(p, e, h, m);
    tbbt_htab_put(&p->pending, hash, e);
    fifo_insert(p, e);
    if (tbbt_htab_size(&p->orphans)) {
        struct orphan *o = tbbt_htab_find_inline(&p->orphans, hash, &key, orphan_eq);
        if (o) {
            struct tbbt_rpc_hdr rh;
            if (tbbt_rpc_parse_prefix(o->data, o->caplen, &rh) >= 0) {
                /* the reply was stamped before the call; keep the call's
                 * time as the earlier of the two */
                if (o->ts < e->call_time) e->call_time = e->b->rec.call_time = o->ts;
                pair(p, e, &rh, o->data, o->caplen, o->ts);
                p->st.reply_first++;
            }
            orphan_drop(p, o);
        }
    }
}

/* Keeps a reply that has no call yet, for a little while: at most
 * TBBT_P1_ORPHANS_MAX of them holding TBBT_P1_ORPHAN_BYTES, however the
 * capture's clock runs (a hostile one could stamp every reply with the
 * same time, so the timeout alone bounds nothing); beyond, the oldest is
 * dropped as a reply without call, and counted. */
static void orphan_keep(struct tbbt_pass1 *p, const struct pkey *key, uint64_t hash, const struct tbbt_msg *m,
                        int64_t ts) {
    if (tbbt_htab_find_inline(&p->orphans, hash, key, orphan_eq)) {
        p->st.replies_without_call++;
        return;
    }
    struct orphan *o = g_malloc0(sizeof *o + m->caplen);
    memcpy(&o->key, key, sizeof(o->key));
    o->hash = hash;
    o->ts = ts;
    o->len = m->len;
    o->caplen = m->caplen;
    if (m->caplen) memcpy(o->data, m->data, m->caplen);
    o->link.data = o;
    tbbt_htab_put(&p->orphans, hash, o);
    g_queue_push_tail_link(&p->orphan_fifo, &o->link);
    p->orphan_bytes += o->caplen;
    while (p->orphan_fifo.length > TBBT_P1_ORPHANS_MAX || p->orphan_bytes > TBBT_P1_ORPHAN_BYTES) {
        p->st.replies_without_call++;
        p->st.orphans_evicted++;
        orphan_drop(p, g_queue_peek_head(&p->orphan_fifo));
    }
}

/* Drops replies that waited too long for their call. */
static void orphan_expire(struct tbbt_pass1 *p, int all) {
    struct orphan *o;
    while ((o = g_queue_peek_head(&p->orphan_fifo)) != NULL) {
        if (!all && p->now - o->ts <= p->o.orphan_timeout) break;
        p->st.replies_without_call++;
        orphan_drop(p, o);
    }
}

static void on_reply(struct tbbt_pass1 *p, const struct tbbt_rpc_hdr *h, const struct tbbt_msg *m,
                     int64_t t1) {
    struct pkey key;
    make_key(&key, &m->dst, &m->src, h->xid);
    uint64_t hash = pkey_hash(&key);
    struct pend *e = tbbt_htab_find_inline(&p->pending, hash, &key, pend_eq);
    if (e) {
        pair(p, e, h, m->data, m->caplen, t1);
    } else if (tbbt_recent_has(p->recent, hash))
        p->st.dup_replies++;
    else
        orphan_keep(p, &key, hash, m, t1);
}

static void pass1_msg(struct tbbt_pass1 *p, const struct tbbt_msg *m) {
    struct tbbt_rpc_hdr h;
    int64_t t0 = tbbt_timefix_apply(&p->tf, m->ts_first);
    int64_t t1 = tbbt_timefix_peek(&p->tf, m->ts_last);
    if (t1 < t0) t1 = t0;
    if (t1 > p->now) p->now = t1;
    if (tbbt_rpc_parse_prefix(m->data, m->caplen, &h) < 0) {
        p->st.bad_rpc++;
        return;
    }
    if (h.mtype == TBBT_RPC_CALL) {
        p->st.rpc_calls++;
        on_call(p, &h, m, t0);
    } else {
        p->st.rpc_replies++;
        on_reply(p, &h, m, t1);
    }
    orphan_expire(p, 0);
    drain(p, 0);
}

/* Feeds one message; with a warning callback set, tells it when this
 * message was not RPC or its NFS body was malformed (counted, record kept
 * with the fields before the fault). */
void tbbt_pass1_msg(void *pass1, const struct tbbt_msg *m) {
    struct tbbt_pass1 *p = pass1;
    tbbt_memlimit_check("pass 1"); /* the --max-memory bound (memlimit.h) */
    if (!p->warn) {
        pass1_msg(p, m);
        return;
    }
    uint64_t bad_rpc = p->st.bad_rpc, bad_nfs = p->st.call_bad + p->st.reply_bad;
    uint64_t evicted = p->st.orphans_evicted;
    pass1_msg(p, m);
    if (p->st.bad_rpc != bad_rpc) p->warn(p->warn_ctx, m->pktno, "not a well-formed RPC message, skipped");
    if (p->st.call_bad + p->st.reply_bad != bad_nfs)
        p->warn(p->warn_ctx, m->pktno, "malformed NFS arguments or results (impossible length or value)");
    if (p->st.orphans_evicted != evicted) {
        char what[160];
        snprintf(what, sizeof(what),
                 "more than %u replies (or %u MiB) wait for their calls; the oldest dropped as without call",
                 TBBT_P1_ORPHANS_MAX, TBBT_P1_ORPHAN_BYTES >> 20);
        p->warn(p->warn_ctx, m->pktno, what);
    }
}

void tbbt_pass1_set_warn(struct tbbt_pass1 *p, tbbt_warn_cb cb, void *ctx) {
    p->warn = cb;
    p->warn_ctx = ctx;
}

int tbbt_pass1_finish(struct tbbt_pass1 *p) {
    orphan_expire(p, 1);
    drain(p, 1);
    struct tbbt_recent_stats rs;
    tbbt_recent_stats(p->recent, &rs);
    p->st.retrans_span_cut = rs.span_cut;
    p->st.retrans_span_kept = rs.shortest_span;
    return p->sink_failed ? -1 : 0;
}

size_t tbbt_pass1_pending_bytes(const struct tbbt_pass1 *p) {
    return p->pend_bytes;
}

const struct tbbt_pass1_stats *tbbt_pass1_stats(const struct tbbt_pass1 *p) {
    return &p->st;
}

const struct tbbt_fhmap_stats *tbbt_pass1_fhstats(const struct tbbt_pass1 *p) {
    return tbbt_fhmap_stats(p->fh);
}

const struct tbbt_timefix *tbbt_pass1_timefix(const struct tbbt_pass1 *p) {
    return &p->tf;
}

/* Whether host h's transports share one xid counter (xidseq.h): its
 * transports' estimates against its own. */
static int host_one_counter(struct tbbt_pass1 *p, const struct lossacc *h) {
    if (!h || h->transports < 2) return 0;
    GArray *per = g_array_new(FALSE, FALSE, sizeof(struct tbbt_xs_result));
    GHashTableIter it;
    gpointer v;
    g_hash_table_iter_init(&it, p->clients);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        const struct lossacc *a = v;
        if (a->host != h) continue;
        struct tbbt_xs_result r = tbbt_xidseq_result(&a->xs);
        g_array_append_val(per, r);
    }
    struct tbbt_xs_result hr = tbbt_xidseq_result(&h->xs);
    int one = tbbt_xidseq_one_counter(&hr, (const struct tbbt_xs_result *)(void *)per->data, per->len);
    g_array_free(per, TRUE);
    return one;
}

/* Builds the per-client estimates (xidseq.h): one per transport, or one
 * per host whose transports share a counter, in the order the clients
 * were first seen. */
const struct tbbt_client_loss *tbbt_pass1_loss(struct tbbt_pass1 *p, unsigned *n) {
    GHashTableIter it;
    gpointer v;
    g_free(p->loss);
    p->nloss = 0;
    p->loss = g_new0(struct tbbt_client_loss, g_hash_table_size(p->clients) + 1);
    g_hash_table_iter_init(&it, p->hosts);
    while (g_hash_table_iter_next(&it, NULL, &v))
        ((struct lossacc *)v)->reported = 0;
    g_hash_table_iter_init(&it, p->clients);
    while (g_hash_table_iter_next(&it, NULL, &v)) {
        struct lossacc *a = v, *h = a->host;
        if (h && !h->reported) h->reported = host_one_counter(p, h) ? 1 : 2;
        if (h && h->reported == 3) continue; /* its host's line is made */
        struct tbbt_client_loss *l = &p->loss[p->nloss++];
        if (h && h->reported == 1) {
            h->reported = 3;
            a = h;
        }
        l->client = a->ep;
        l->transports = a == h ? h->transports : 1;
        l->est = tbbt_xidseq_result(&a->xs);
        l->calls = a->calls;
    }
    *n = p->nloss;
    return p->loss;
}

const tbbt_id *tbbt_pass1_roots(const struct tbbt_pass1 *p, unsigned *n) {
    *n = p->roots ? p->roots->len : 0;
    return p->roots ? (const tbbt_id *)p->roots->data : NULL;
}

void tbbt_pass1_free(struct tbbt_pass1 *p) {
    struct pend *e;
    if (!p) return;
    if (p->roots) g_array_free(p->roots, TRUE);
    while (p->head)
        pend_put(p, fifo_pop_head(p));
    while ((e = p->free_list) != NULL) {
        p->free_list = e->next_free;
        g_free(e);
    }
    struct pbody *b;
    while ((b = p->free_bodies) != NULL) {
        p->free_bodies = b->next_free;
        tbbt_rec_free(&b->rec);
        g_free(b);
    }
    tbbt_rec_free(&p->scratch);
    tbbt_recpark_free(p->rp);
    while (p->orphan_fifo.head)
        orphan_drop(p, p->orphan_fifo.head->data);
    tbbt_htab_clear(&p->orphans);
    tbbt_htab_clear(&p->pending);
    g_hash_table_destroy(p->clients);
    g_hash_table_destroy(p->hosts);
    tbbt_htab_clear(&p->client_index);
    tbbt_recent_free(p->recent);
    g_free(p->loss);
    tbbt_fhrefs_free(&p->refs);
    tbbt_fhmap_free(p->fh);
    g_free(p);
}
