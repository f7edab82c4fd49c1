/* handles.c -- the replay's live handles and readdir cookies (see engine_int.h).
 *
 * The send thread maps every TBBT-ID a request names to a live handle:
 * first the manifest's (tbbt-init's image), then what replies reveal;
 * and a traced readdir cookie to the live listing's position. Apart from
 * the threads because it is state, not a step of the replay: the send
 * thread owns it (no lock), the encoder and the ordering read it through
 * callbacks. */
#include "engine_int.h"

#include <string.h>

#include "clones.h"
#include "manifest.h"

/* A live readdir position: the trace's cookie in a directory, and where
 * the live listing stands at that point. */
struct ckey {
    tbbt_id dir;
    uint64_t cookie;
};
struct cval {
    struct ckey k;
    uint64_t cookie, verf;
};

static guint ckey_hash(gconstpointer p) {
    const struct ckey *k = p;
    return g_int64_hash(&k->dir) ^ (guint)(k->cookie * 0x9e3779b97f4a7c15ull >> 32);
}

static gboolean ckey_eq(gconstpointer a, gconstpointer b) {
    const struct ckey *x = a, *y = b;
    return x->dir == y->dir && x->cookie == y->cookie;
}

/* Where id's handle would be among the manifest's: its clone's slots and
 * the index of the object (the ID without its clone, clones.h), or NULL
 * when the ID is of no clone played here. */
static struct tbbt_fhslots *mf_place(const struct engine *e, tbbt_id id, uint64_t *key) {
    uint32_t c = 0;
    *key = id;
    if (e->nclones > 1) {
        uint64_t clone = id >> 42, first = (uint64_t)e->o->clone;
        if (clone < first || clone - first >= e->nclones) return NULL;
        c = (uint32_t)(clone - first);
        *key = id & ((1ull << 42) - 1);
    }
    return e->mf_fh ? &e->mf_fh[c] : NULL;
}

/* id's live handle: 1 with *data and *len, else 0. Looked up for every
 * handle a request names (to encode it, and by fsdep to see whether it is
 * known yet): the manifest's first (most handles), then the learned. */
static int fh_find(const struct engine *e, tbbt_id id, const uint8_t **data, uint32_t *len) {
    uint64_t key;
    uint32_t i;
    const struct tbbt_fhslots *s = mf_place(e, id, &key);
    if (s && tbbt_idmap_get(&e->mf_idx, key, &i) && tbbt_fhslots_get(s, i, data, len)) return 1;
    return tbbt_idmap_get(&e->fh_idx, id, &i) && tbbt_fhslots_get(&e->fh_more, i, data, len);
}

/* Remembers id's live handle: in its manifest slot when the manifest has
 * the object in any clone, else among the learned. */
void eng_learn_fh(struct engine *e, tbbt_id id, const uint8_t *data, uint32_t len) {
    uint64_t key;
    uint32_t i;
    struct tbbt_fhslots *s = mf_place(e, id, &key);
    if (s && tbbt_idmap_get(&e->mf_idx, key, &i)) {
        tbbt_fhslots_set(s, i, data, len);
        return;
    }
    if (!tbbt_idmap_get(&e->fh_idx, id, &i)) {
        i = (uint32_t)e->fh_more.n;
        tbbt_idmap_put(&e->fh_idx, id, i);
    }
    tbbt_fhslots_set(&e->fh_more, i, data, len);
}

/* nfsenc's handle callback. */
int eng_enc_fh(void *ctx, tbbt_id id, const uint8_t **data, uint32_t *len) {
    return fh_find(ctx, id, data, len) ? 0 : -1;
}

/* sched's "is the handle known" callback. */
int eng_known(void *ctx, tbbt_id id) {
    const uint8_t *d;
    uint32_t len;
    return fh_find(ctx, id, &d, &len);
}

/* nfsenc's cookie callback: the live position for the trace's cookie; a
 * position the live listing never reached restarts the listing. */
int eng_enc_cookie(void *ctx, tbbt_id dir, uint64_t trace_cookie, uint64_t *cookie, uint64_t *verf) {
    struct engine *e = ctx;
    struct ckey k = {dir, trace_cookie};
    struct cval *v = trace_cookie ? g_hash_table_lookup(e->cookies, &k) : NULL;
    *cookie = v ? v->cookie : 0;
    *verf = v ? v->verf : 0;
    return 0;
}

/* Puts a manifest handle of clone offset c: its object's index shared
 * by the clones (made at its first line), the handle in c's slots. */
static void mf_put(struct engine *e, uint32_t c, uint64_t key, const uint8_t *fh, uint32_t len) {
    uint32_t i;
    if (!tbbt_idmap_get(&e->mf_idx, key, &i)) {
        i = (uint32_t)e->mf_idx.n;
        tbbt_idmap_put(&e->mf_idx, key, i);
    }
    tbbt_fhslots_set(&e->mf_fh[c], i, fh, len);
}

/* Loads the manifest's handles of our clones (namespaced when there are
 * several: clones.h). Returns 0 or -1 with err. */
int eng_load_manifest(struct engine *e, char *err, size_t errlen) {
    struct tbbt_mfr *r = tbbt_mfr_open(e->o->manifest, err, errlen);
    if (!r) return -1;
    struct tbbt_mf_entry m;
    int rc;
    uint64_t *n = g_new0(uint64_t, e->nclones); /* objects per clone */
    uint32_t first = (uint32_t)e->o->clone;
    while ((rc = tbbt_mfr_next(r, &m, err, errlen)) == 1) {
        if (m.clone < first || m.clone - first >= e->nclones) continue;
        tbbt_id id = m.id;
        if (e->nclones > 1 && tbbt_clone_id(m.clone, m.id, &id) < 0) {
            snprintf(err, errlen, "%s: TBBT-ID %llu is too large to play several clones", e->o->manifest,
                     (unsigned long long)m.id);
            rc = -1;
            break;
        }
        mf_put(e, m.clone - first, e->nclones > 1 ? id & ((1ull << 42) - 1) : id, m.fh, m.fhlen);
        n[m.clone - first]++;
        if (m.path && !strcmp(m.path, ".")) g_hash_table_add(e->roots, g_memdup2(&id, sizeof(id)));
    }
    if (rc == 0) {
        const char *v;
        if ((v = tbbt_mfr_header(r, "map_sha256"))) e->st->map_sha256 = g_strdup(v);
        if ((v = tbbt_mfr_header(r, "params"))) e->st->params = g_strdup(v);
        if ((v = tbbt_mfr_header(r, "run"))) e->st->run = g_strdup(v);
        if ((v = tbbt_mfr_header(r, "server"))) e->mf_server = g_strdup(v);
        for (uint32_t i = 0; i < e->nclones && rc == 0; i++)
            if (!n[i]) {
                snprintf(err, errlen, "%s: no object of clone %u", e->o->manifest, first + i);
                rc = -1;
            }
    }
    g_free(n);
    tbbt_mfr_close(r);
    return rc;
}

/* A readdir's reply (as traced) showed the live listing at (cookie,
 * verf) where the trace's listing of dir stood at trace_cookie. */
void eng_learn_cookie(struct engine *e, tbbt_id dir, uint64_t trace_cookie, uint64_t cookie, uint64_t verf) {
    struct cval *v = g_new(struct cval, 1);
    v->k = (struct ckey){dir, trace_cookie};
    v->cookie = cookie, v->verf = verf;
    g_hash_table_replace(e->cookies, &v->k, v);
}

/* The empty tables (setup). */
void eng_handles_init(struct engine *e) {
    tbbt_idmap_init(&e->mf_idx), tbbt_idmap_init(&e->fh_idx);
    tbbt_fhslots_init(&e->fh_more);
    e->mf_fh = g_new0(struct tbbt_fhslots, e->nclones ? e->nclones : 1);
    e->roots = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    e->cookies = g_hash_table_new_full(ckey_hash, ckey_eq, NULL, g_free);
}

/* Frees the tables (teardown). */
void eng_handles_free(struct engine *e) {
    for (uint32_t c = 0; e->mf_fh && c < (e->nclones ? e->nclones : 1); c++)
        tbbt_fhslots_free(&e->mf_fh[c]);
    g_free(e->mf_fh), e->mf_fh = NULL;
    tbbt_idmap_free(&e->mf_idx), tbbt_idmap_free(&e->fh_idx);
    tbbt_fhslots_free(&e->fh_more);
    if (e->cookies) g_hash_table_destroy(e->cookies);
    if (e->roots) g_hash_table_destroy(e->roots);
    g_free(e->mf_server);
}
