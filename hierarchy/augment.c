/* augment.c -- synthetic augmentation of a hierarchy map: the seeded
 * generator of the synthetic tree and its files, and the writer that
 * emits them between the input's initial and later entries. The random
 * numbers are aug_rng.h's, the size laws aug_dist.c's. See augment.h for
 * what the parameters mean. */
#include "augment.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aug_dist.h"
#include "aug_rng.h"
#include "fsmodel.h"
#include "pass3.h"
#include "rectext.h"

_Static_assert(TBBT_AUG_ID_BASE > TBBT_P3_FRESH_BASE, "synthetic IDs must stay above pass 3's fresh IDs");

#define AUG_NONE UINT32_MAX
#define AUG_TOP_NAME "tbbt-synthetic"

/* ==== the augmenter ==== */

/* A directory open to synthetic objects: extracted ones first (in input
 * order), then the synthetic ones in creation order. */
struct adir {
    double w;        /* fan-out weight (distortion) */
    double z;        /* size latent of the directory (distortion) */
    uint32_t parent; /* synthetic: its parent's index; extracted: AUG_NONE */
    uint32_t entry;  /* extracted: index of its input entry */
    uint32_t nsub;   /* synthetic subdirectories so far (attachment weight) */
    uint32_t depth;  /* path components below the image root */
    uint32_t level;  /* synthetic: 1 under an extracted parent, else parent's + 1; extracted: 0 */
};

struct tbbt_aug {
    GArray *in; /* struct tbbt_hm_entry, strings in chunk */
    GStringChunk *chunk;
    GString *comment;
    int ran;
    struct tbbt_aug_params par;
    struct tbbt_aug_dist *dist; /* the law used (trace resolved) */
    GHashTable *byid;           /* &entry.id -> 1 + index of the ID's first entry */
    GHashTable *names;          /* "PARENT/NAME" of input names shaped like synthetic ones */
    struct adir *dir;
    uint32_t ne, nd, root,
        top;         /* extracted and synthetic directories; indices of root and top (or AUG_NONE) */
    tbbt_id root_id; /* ID of the image root entry ("."), 0 when the map has none */
    uint32_t nf;
    tbbt_id max_id; /* the largest ID of the input */
    uint32_t *fdir; /* file -> directory index */
    uint64_t *fsize;
    uint32_t *foff, *flist, *soff, *slist; /* files and subdirectories of each directory */
    struct tbbt_aug_stats st;
};

struct tbbt_aug *tbbt_aug_new(void) {
    struct tbbt_aug *a = g_new0(struct tbbt_aug, 1);
    a->in = g_array_new(FALSE, FALSE, sizeof(struct tbbt_hm_entry));
    a->chunk = g_string_chunk_new(1 << 16);
    a->comment = g_string_new(NULL);
    a->top = AUG_NONE;
    return a;
}

void tbbt_aug_free(struct tbbt_aug *a) {
    if (!a) return;
    g_array_free(a->in, TRUE);
    g_string_chunk_free(a->chunk);
    g_string_free(a->comment, TRUE);
    tbbt_aug_dist_free(a->dist);
    if (a->byid) g_hash_table_destroy(a->byid);
    if (a->names) g_hash_table_destroy(a->names);
    g_free(a->dir);
    g_free(a->fdir);
    g_free(a->fsize);
    g_free(a->foff);
    g_free(a->flist);
    g_free(a->soff);
    g_free(a->slist);
    g_free(a);
}

void tbbt_aug_add(struct tbbt_aug *a, const struct tbbt_hm_entry *e) {
    g_return_if_fail(!a->ran); /* the run's index points into the array */
    struct tbbt_hm_entry c = *e;
    c.path = g_string_chunk_insert(a->chunk, e->path);
    c.target = e->target ? g_string_chunk_insert(a->chunk, e->target) : NULL;
    g_array_append_val(a->in, c);
}

int tbbt_aug_load(struct tbbt_aug *a, const char *path, char *err, size_t errlen) {
    struct tbbt_hmapr *r = tbbt_hmapr_open(path, err, errlen);
    if (!r) return -1;
    struct tbbt_hm_entry e;
    int rc;
    while ((rc = tbbt_hmapr_next(r, &e, err, errlen)) == 1)
        tbbt_aug_add(a, &e);
    if (rc == 0) g_string_assign(a->comment, tbbt_hmapr_comment(r));
    tbbt_hmapr_close(r);
    return rc;
}

const char *tbbt_aug_comment(const struct tbbt_aug *a) {
    return a->comment->str;
}

void tbbt_aug_params_default(struct tbbt_aug_params *p) {
    memset(p, 0, sizeof(*p));
    p->seed = 1;
    p->dir_ratio = 0.1;
    p->distortion = 0.5;
    p->merge = 0.5;
}

const struct tbbt_aug_stats *tbbt_aug_stats(const struct tbbt_aug *a) {
    return &a->st;
}

/* Input entry number i (0-based). */
static inline struct tbbt_hm_entry *in_entry(const struct tbbt_aug *a, size_t i) {
    return &g_array_index(a->in, struct tbbt_hm_entry, i);
}

/* The last name of a path ("." for the root). */
static const char *base_name(const char *path) {
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* Path components below the image root. */
static uint32_t path_depth(const char *path) {
    if (strcmp(path, ".") == 0) return 0;
    uint32_t d = 1;
    for (const char *p = path; *p; p++)
        d += *p == '/';
    return d;
}

/* Whether an input name could equal a synthetic one ("f<digits>...",
 * "d<digits>...", "tbbt-synthetic..."): only those are remembered. */
static int may_clash(const char *name) {
    if ((name[0] == 'f' || name[0] == 'd') && g_ascii_isdigit(name[1])) return 1;
    return g_str_has_prefix(name, AUG_TOP_NAME);
}

/* The entry index of the ID's first entry, or -1. */
static gssize find_id(const struct tbbt_aug *a, tbbt_id id) {
    gpointer v = g_hash_table_lookup(a->byid, &id);
    return v ? (gssize)GPOINTER_TO_SIZE(v) - 1 : -1;
}

/* qsort order of uint64_t values. */
static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Counts one initial object (its first entry) into the extracted figures. */
static void count_extracted(struct tbbt_aug *a, const struct tbbt_hm_entry *e) {
    struct tbbt_aug_counts *c = &a->st.extracted;
    c->objects++;
    if (e->type == TBBT_FT_REG) {
        c->files++;
        if (e->known & TBBT_HM_SIZE) c->bytes += e->size;
    } else if (e->type == TBBT_FT_DIR)
        c->dirs++;
    else if (e->type == TBBT_FT_LNK)
        c->symlinks++;
    else
        c->others++;
}

/* Whether an initial directory entry is open to synthetic objects. */
static int eligible(const struct tbbt_hm_entry *e) {
    return e->type == TBBT_FT_DIR && e->create == 0 && e->del == TBBT_HM_NEVER &&
           e->origin != TBBT_HM_ORPHANS;
}

/* Checks an initial entry's place: the image root (parent 0, path ".")
 * is a directory never deleted; the tops of disjoint subtrees (parent 0,
 * another path: placeholders) sit beside the root's children; any other
 * entry's parent is an initial entry seen before. Returns 0 or -1. */
static int check_initial(struct tbbt_aug *a, size_t i, char *err, size_t errlen) {
    const struct tbbt_hm_entry *e = in_entry(a, i);
    if (e->parent == 0 && strcmp(e->path, ".") == 0) {
        if (!eligible(e)) {
            g_snprintf(err, errlen, "entry %zu (ID %llu): the image root must be a directory never deleted",
                       i + 1, (unsigned long long)e->id);
            return -1;
        }
        if (a->root == AUG_NONE) a->root = (uint32_t)i, a->root_id = e->id; /* entry index for now */
        return 0;
    }
    if (e->parent == 0) return 0;
    gssize p = find_id(a, e->parent);
    if (p < 0 || (size_t)p >= i || in_entry(a, (size_t)p)->create != 0) {
        g_snprintf(err, errlen,
                   "entry %zu (ID %llu): its parent %llu is not an earlier entry existing before the trace",
                   i + 1, (unsigned long long)e->id, (unsigned long long)e->parent);
        return -1;
    }
    return 0;
}

/* Picks the owner of the synthetic objects: the most common uid:gid of
 * the extracted objects named by the trace (ties: the smallest). */
static void pick_owner(struct tbbt_aug *a, GArray *owners) {
    if (a->par.owner_set) {
        a->st.owner_known = 1, a->st.uid = a->par.uid, a->st.gid = a->par.gid;
        return;
    }
    g_array_sort(owners, cmp_u64);
    uint64_t *o = (uint64_t *)(void *)owners->data, best = 0;
    size_t bestn = 0;
    for (size_t i = 0, j; i < owners->len; i = j) {
        for (j = i; j < owners->len && o[j] == o[i]; j++)
            ;
        if (j - i > bestn) bestn = j - i, best = o[i];
    }
    if (bestn) a->st.owner_known = 1, a->st.uid = (uint32_t)(best >> 32), a->st.gid = (uint32_t)best;
}

/* The directory ID under which names are remembered: the image root's
 * children and the placeholder tops (parent 0) share one namespace, 0. */
static tbbt_id name_space(const struct tbbt_aug *a, tbbt_id parent) {
    return parent == a->root_id ? 0 : parent;
}

/* Indexes the input: IDs, clash-prone names, the root, the extracted
 * figures, the open directories, the owner and the trace's file sizes
 * (into sizes). Returns 0 or -1. */
static int index_input(struct tbbt_aug *a, GArray *elig, GArray *sizes, char *err, size_t errlen) {
    GArray *owners = g_array_new(FALSE, FALSE, sizeof(uint64_t)),
           *all = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    a->byid = g_hash_table_new(g_int64_hash, g_int64_equal);
    a->names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    a->root = AUG_NONE;
    int rc = 0;
    for (size_t i = 0; i < a->in->len && rc == 0; i++) {
        struct tbbt_hm_entry *e = in_entry(a, i);
        int first = !g_hash_table_contains(a->byid, &e->id);
        if (first) g_hash_table_insert(a->byid, &e->id, GSIZE_TO_POINTER(i + 1));
        if (e->id > a->max_id) a->max_id = e->id;
        if ((e->parent || strcmp(e->path, ".") != 0) && may_clash(base_name(e->path)))
            g_hash_table_add(
                a->names,
                g_strdup_printf("%llu/%s", (unsigned long long)name_space(a, e->parent), base_name(e->path)));
        if (e->create != 0) continue;
        if ((rc = check_initial(a, i, err, errlen)) < 0) break;
        uint32_t depth = path_depth(e->path);
        if (depth > a->st.extracted.max_depth) a->st.extracted.max_depth = depth;
        if (!first) continue; /* another name of a hard-linked object */
        count_extracted(a, e);
        uint32_t ei = (uint32_t)i;
        if (eligible(e)) g_array_append_val(elig, ei);
        if (e->type == TBBT_FT_REG && (e->known & TBBT_HM_SIZE) && e->origin != TBBT_HM_SYNTH)
            g_array_append_val(sizes, e->size);
        uint64_t ow = (uint64_t)e->uid << 32 | e->gid;
        if ((e->known & (TBBT_HM_UID | TBBT_HM_GID)) == (TBBT_HM_UID | TBBT_HM_GID))
            g_array_append_val(e->origin == TBBT_HM_TRACE ? owners : all, ow);
    }
    if (rc == 0) pick_owner(a, owners->len ? owners : all);
    g_array_free(owners, TRUE);
    g_array_free(all, TRUE);
    return rc;
}

/* Synthetic directories needed for nf synthetic files. */
static uint64_t dirs_for(const struct tbbt_aug_params *p, uint64_t nf) {
    if (nf == 0) return 0;
    uint64_t nd = (uint64_t)(p->dir_ratio * (double)nf + 0.5);
    return nd == 0 && p->merge < 1 ? 1 : nd;
}

/* Checks that the targets can be reached within the memory guard:
 * estimates the synthetic objects each target needs. Returns 0 or -1. */
static int check_reach(const struct tbbt_aug *a, const struct tbbt_aug_params *p, char *err, size_t errlen) {
    uint64_t have = a->st.extracted.bytes, objs = a->st.extracted.objects;
    double need_objs = INFINITY, need_size = INFINITY, m = aug_dist_mean(a->dist);
    if (p->total_objects) need_objs = p->total_objects > objs ? (double)(p->total_objects - objs) : 0;
    if (p->total_size && have >= p->total_size)
        need_size = 0;
    else if (p->total_size && m > 0)
        need_size = (double)(p->total_size - have) / m * (1 + p->dir_ratio);
    double need = need_objs < need_size ? need_objs : need_size;
    if (isinf(need)) {
        g_snprintf(err, errlen, "the size distribution's mean is 0: the total size cannot be reached");
        return -1;
    }
    if (need > (double)TBBT_AUG_MAX_OBJECTS) {
        g_snprintf(err, errlen, "about %.3g synthetic objects needed: more than the limit of %llu", need,
                   (unsigned long long)TBBT_AUG_MAX_OBJECTS);
        return -1;
    }
    return 0;
}

/* Draws the synthetic files' sizes until a target is reached; returns
 * them (generation order). */
static GArray *gen_sizes(struct tbbt_aug *a, const struct tbbt_aug_params *p) {
    struct aug_rng r;
    aug_rng_seed(&r, p->seed, AUG_STREAM_SIZE);
    GArray *sz = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    uint64_t bytes = a->st.extracted.bytes, objs = a->st.extracted.objects;
    for (uint64_t nf = 0;; nf++) {
        a->st.size_reached = p->total_size && bytes >= p->total_size;
        a->st.objects_reached = p->total_objects && objs + nf + dirs_for(p, nf) >= p->total_objects;
        if (a->st.size_reached || a->st.objects_reached || nf >= TBBT_AUG_MAX_OBJECTS) break;
        uint64_t s = aug_dist_sample(a->dist, &r);
        bytes = bytes > UINT64_MAX - s ? UINT64_MAX : bytes + s;
        g_array_append_val(sz, s);
    }
    return sz;
}

/* Index of the first cumulative weight above u x total (binary search). */
static uint32_t pick_cum(const double *cum, uint32_t n, double u) {
    double t = u * cum[n - 1];
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (t < cum[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* Fenwick tree over n weights (1-based array t of n+1). */
static void fen_add(double *t, uint32_t n, uint32_t i, double v) {
    for (uint32_t k = i + 1; k <= n; k += k & -k)
        t[k] += v;
}

/* 0-based index of the element where the prefix sum first exceeds target. */
static uint32_t fen_find(const double *t, uint32_t n, double target) {
    uint32_t pos = 0, step = 1;
    while (step * 2 <= n)
        step *= 2;
    for (; step; step /= 2)
        if (pos + step <= n && t[pos + step] <= target) pos += step, target -= t[pos];
    return pos;
}

/* A new directory's weight and size latent. */
static void dir_draw(struct adir *d, struct aug_rng *r, double distortion) {
    d->w = distortion > 0 ? exp(-distortion * log(aug_rng_open(r))) : 1.0;
    d->z = aug_rng_normal(r);
}

/* The cumulative weights of n directories. Caller frees. */
static double *cum_weights(const struct adir *d, uint32_t n) {
    double *c = g_new(double, n ? n : 1), acc = 0;
    for (uint32_t i = 0; i < n; i++)
        c[i] = acc += d[i].w;
    return c;
}

/* Builds the synthetic directory tree: the top (when merge < 1), then
 * each directory under an extracted directory (probability merge, by
 * weight) or a synthetic one (by weight x (subdirectories + 2)). */
static void build_tree(struct tbbt_aug *a, const struct tbbt_aug_params *p, const double *cume) {
    struct aug_rng r;
    aug_rng_seed(&r, p->seed, AUG_STREAM_TREE);
    uint32_t ne = a->ne, nd = a->nd;
    double *fen = g_new0(double, (size_t)nd + 1), total = 0;
    for (uint32_t k = 0; k < nd; k++) {
        struct adir *d = &a->dir[ne + k];
        dir_draw(d, &r, p->distortion);
        if (k == 0 && p->merge < 1) {
            d->parent = a->root;
            a->top = ne;
        } else if (p->merge >= 1 || aug_rng_unit(&r) < p->merge) {
            d->parent = pick_cum(cume, ne, aug_rng_unit(&r));
        } else {
            uint32_t s = fen_find(fen, nd, aug_rng_unit(&r) * total);
            if (s >= k) s = k - 1; /* rounding at the very end of the range */
            d->parent = ne + s;
            a->dir[d->parent].nsub++;
            fen_add(fen, nd, s, a->dir[d->parent].w);
            total += a->dir[d->parent].w;
        }
        if (d->parent == AUG_NONE) /* the top, at the image root's level: the map has no root entry */
            d->depth = d->level = 1;
        else
            d->depth = a->dir[d->parent].depth + 1, d->level = a->dir[d->parent].level + 1;
        d->entry = AUG_NONE;
        fen_add(fen, nd, k, 2 * d->w);
        total += 2 * d->w;
    }
    g_free(fen);
}

/* Places every synthetic file: an extracted directory with probability
 * merge, else a synthetic one, by weight. */
static void place_files(struct tbbt_aug *a, const struct tbbt_aug_params *p, const double *cume) {
    struct aug_rng r;
    aug_rng_seed(&r, p->seed, AUG_STREAM_PLACE);
    double *cums = cum_weights(a->dir + a->ne, a->nd);
    for (uint32_t f = 0; f < a->nf; f++) {
        int ext = p->merge >= 1 || aug_rng_unit(&r) < p->merge;
        a->fdir[f] =
            ext ? pick_cum(cume, a->ne, aug_rng_unit(&r)) : a->ne + pick_cum(cums, a->nd, aug_rng_unit(&r));
    }
    g_free(cums);
}

struct keyed {
    double key;
    uint32_t idx;
};

/* qsort order of latents: by key, ties by file index (deterministic). */
static int cmp_keyed(const void *a, const void *b) {
    const struct keyed *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* Hands the drawn sizes to the files: in order when distortion is 0, else
 * by rank of the latent sqrt(d) Z_dir + sqrt(1-d) E. */
static void assign_sizes(struct tbbt_aug *a, const struct tbbt_aug_params *p, GArray *sizes) {
    uint64_t *s = (uint64_t *)(void *)sizes->data;
    if (p->distortion <= 0) {
        memcpy(a->fsize, s, (size_t)a->nf * sizeof(uint64_t));
        return;
    }
    struct aug_rng r;
    aug_rng_seed(&r, p->seed, AUG_STREAM_LATENT);
    double cd = sqrt(p->distortion), ce = sqrt(1 - p->distortion);
    struct keyed *k = g_new(struct keyed, a->nf ? a->nf : 1);
    for (uint32_t f = 0; f < a->nf; f++)
        k[f] = (struct keyed){cd * a->dir[a->fdir[f]].z + ce * aug_rng_normal(&r), f};
    qsort(k, a->nf, sizeof(*k), cmp_keyed);
    qsort(s, a->nf, sizeof(*s), cmp_u64);
    for (uint32_t i = 0; i < a->nf; i++)
        a->fsize[k[i].idx] = s[i];
    g_free(k);
}

/* Children lists: counting sort of items by their directory (n items,
 * of[i] their directory among nd directories, or AUG_NONE: left out). */
static void csr(uint32_t nd, const uint32_t *of, uint32_t n, uint32_t **offp, uint32_t **listp) {
    uint32_t *off = g_new0(uint32_t, (size_t)nd + 1), *list = g_new(uint32_t, n ? n : 1);
    for (uint32_t i = 0; i < n; i++)
        if (of[i] != AUG_NONE) off[of[i] + 1]++;
    for (uint32_t d = 0; d < nd; d++)
        off[d + 1] += off[d];
    uint32_t *pos = g_memdup2(off, (size_t)nd * sizeof(uint32_t));
    for (uint32_t i = 0; i < n; i++)
        if (of[i] != AUG_NONE) list[pos[of[i]]++] = i;
    g_free(pos);
    *offp = off;
    *listp = list;
}

/* The added figures, from the generated tree. */
static void count_added(struct tbbt_aug *a) {
    struct tbbt_aug_stats *st = &a->st;
    struct tbbt_aug_counts *c = &st->added;
    c->files = a->nf, c->dirs = a->nd, c->objects = (uint64_t)a->nf + a->nd;
    double depth_sum = 0;
    for (uint32_t k = 0; k < a->nd; k++) {
        const struct adir *d = &a->dir[a->ne + k];
        if (d->depth > c->max_depth) c->max_depth = d->depth;
        if (d->level > st->synth_depth) st->synth_depth = d->level;
        st->merged_dirs += d->parent < a->ne && a->ne + k != a->top;
    }
    for (uint32_t f = 0; f < a->nf; f++) {
        const struct adir *d = &a->dir[a->fdir[f]];
        c->bytes += a->fsize[f];
        depth_sum += d->depth + 1;
        if (d->depth + 1 > c->max_depth) c->max_depth = d->depth + 1;
        st->merged_files += a->fdir[f] < a->ne;
    }
    st->mean_file_depth = a->nf ? depth_sum / a->nf : 0;
    for (uint32_t d = 0; d < a->ne; d++)
        st->mixed_dirs += a->foff[d + 1] > a->foff[d] || a->soff[d + 1] > a->soff[d];
    tbbt_id base = a->max_id >= TBBT_AUG_ID_BASE ? a->max_id + 1 : TBBT_AUG_ID_BASE;
    st->first_id = c->objects ? base : 0;
    st->last_id = c->objects ? base + c->objects - 1 : 0;
}

/* Checks the parameters' ranges. Returns 0 or -1. */
static int check_params(const struct tbbt_aug_params *p, char *err, size_t errlen) {
    const char *bad = NULL;
    if (!p->total_size && !p->total_objects)
        bad = "no target: give a total size and/or a total number of objects";
    else if (!(p->dir_ratio >= 0 && p->dir_ratio <= 1000))
        bad = "the directory/file ratio must be between 0 and 1000";
    else if (!(p->distortion >= 0 && p->distortion <= 1))
        bad = "the distortion factor must be between 0 and 1";
    else if (!(p->merge >= 0 && p->merge <= 1))
        bad = "the merge factor must be between 0 and 1";
    if (bad) g_snprintf(err, errlen, "%s", bad);
    return bad ? -1 : 0;
}

/* Sets up the directory table: the open extracted directories first. */
static void init_dirs(struct tbbt_aug *a, GArray *elig, const struct tbbt_aug_params *p) {
    struct aug_rng r;
    aug_rng_seed(&r, p->seed, AUG_STREAM_EXTRACTED);
    a->ne = elig->len;
    a->st.eligible_dirs = a->ne;
    a->dir = g_new0(struct adir, (size_t)a->ne + a->nd);
    uint32_t root_entry = a->root;
    a->root = AUG_NONE;
    for (uint32_t i = 0; i < a->ne; i++) {
        struct adir *d = &a->dir[i];
        d->entry = g_array_index(elig, uint32_t, i);
        d->parent = AUG_NONE;
        d->depth = path_depth(in_entry(a, d->entry)->path);
        dir_draw(d, &r, p->distortion);
        if (d->entry == root_entry) a->root = i;
    }
}

/* Generates the tree, the placement and the sizes for the drawn sizes,
 * with the effective parameters p; fills the children lists and figures. */
static void generate(struct tbbt_aug *a, const struct tbbt_aug_params *p, GArray *elig, GArray *sizes) {
    init_dirs(a, elig, p);
    double *cume = cum_weights(a->dir, a->ne);
    build_tree(a, p, cume);
    a->fdir = g_new(uint32_t, a->nf ? a->nf : 1);
    a->fsize = g_new(uint64_t, a->nf ? a->nf : 1);
    place_files(a, p, cume);
    g_free(cume);
    assign_sizes(a, p, sizes);
    csr(a->ne + a->nd, a->fdir, a->nf, &a->foff, &a->flist);
    uint32_t *par = g_new(uint32_t, a->nd ? a->nd : 1);
    for (uint32_t k = 0; k < a->nd; k++)
        par[k] = a->dir[a->ne + k].parent;
    csr(a->ne + a->nd, par, a->nd, &a->soff, &a->slist);
    g_free(par);
    count_added(a);
}

int tbbt_aug_run(struct tbbt_aug *a, const struct tbbt_aug_params *p, char *err, size_t errlen) {
    if (a->ran) return g_snprintf(err, errlen, "augmentation already run"), -1;
    if (check_params(p, err, errlen) < 0) return -1;
    if (a->in->len >= AUG_NONE) return g_snprintf(err, errlen, "too many entries in the map"), -1;
    a->ran = 1;
    a->par = *p;
    GArray *elig = g_array_new(FALSE, FALSE, sizeof(uint32_t)),
           *sizes = g_array_new(FALSE, FALSE, sizeof(uint64_t));
    int rc = index_input(a, elig, sizes, err, errlen);
    struct tbbt_aug_params eff = *p; /* no open extracted directory: everything under the top */
    if (!elig->len) eff.merge = 0;
    a->st.merge_used = eff.merge;
    if (rc == 0)
        a->dist = aug_dist_resolve(p->dist, (const uint64_t *)(const void *)sizes->data, sizes->len,
                                   a->st.dist, sizeof(a->st.dist));
    if (rc == 0) rc = check_reach(a, &eff, err, errlen);
    g_array_free(sizes, TRUE);
    sizes = NULL;
    if (rc == 0) {
        sizes = gen_sizes(a, &eff);
        a->nf = sizes->len;
        a->nd = (uint32_t)dirs_for(&eff, a->nf);
        if (a->max_id >= UINT64_MAX - ((uint64_t)a->nf + a->nd))
            rc = -1, g_snprintf(err, errlen, "no room for synthetic IDs above the largest ID of the map");
        else if ((uint64_t)a->nf + a->nd > TBBT_AUG_MAX_OBJECTS)
            rc = -1, g_snprintf(err, errlen, "more than %llu synthetic objects needed",
                                (unsigned long long)TBBT_AUG_MAX_OBJECTS);
    }
    if (rc == 0) generate(a, &eff, elig, sizes);
    if (sizes) g_array_free(sizes, TRUE);
    g_array_free(elig, TRUE);
    return rc;
}

/* ==== emitting the augmented map ==== */

/* State of one walk over the synthetic objects. */
struct walk {
    const struct tbbt_aug *a;
    int (*fn)(void *ctx, const struct tbbt_hm_entry *e);
    void *ctx;
    GString *path, *key;
    tbbt_id next;
    struct tbbt_hm_entry e;
};

/* A frame of the depth-first walk: a directory, the next subdirectory to
 * visit, the length of its path, its ID. */
struct frame {
    uint32_t dir, cur;
    size_t plen;
    tbbt_id id;
};

/* Appends v in decimal (printf is a good part of the walk's time). */
static void append_u64(GString *s, uint64_t v) {
    char buf[24];
    int n = 0;
    do
        buf[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n)
        g_string_append_c(s, buf[--n]);
}

/* Appends the name of a new object (kind 'f' or 'd' and its number among
 * the synthetic objects, or the top) under the directory at fr to w->path,
 * avoiding names the input holds there. */
static void put_name(struct walk *w, const struct frame *fr, char kind, tbbt_id id, int top) {
    g_string_truncate(w->path, fr->plen);
    if (fr->plen) g_string_append_c(w->path, '/');
    size_t at = w->path->len;
    if (top)
        g_string_append(w->path, AUG_TOP_NAME);
    else {
        g_string_append_c(w->path, kind);
        append_u64(w->path, id - w->a->st.first_id + 1);
    }
    if (fr->dir != AUG_NONE && fr->dir >= w->a->ne) return; /* a synthetic directory: synthetic names only */
    size_t blen = w->path->len;
    for (unsigned n = 1;; n++) {
        g_string_truncate(w->key, 0);
        append_u64(w->key, name_space(w->a, fr->id));
        g_string_append_c(w->key, '/');
        g_string_append(w->key, w->path->str + at);
        if (!g_hash_table_contains(w->a->names, w->key->str)) return;
        g_string_truncate(w->path, blen);
        g_string_append_printf(w->path, ".%u", n);
    }
}

/* Emits one synthetic object under the directory at fr. */
static int emit(struct walk *w, const struct frame *fr, uint32_t type, uint64_t size, tbbt_id id, int top) {
    put_name(w, fr, type == TBBT_FT_DIR ? 'd' : 'f', id, top);
    w->e.id = id;
    w->e.parent = fr->id;
    w->e.type = type;
    w->e.size = size;
    w->e.mode = type == TBBT_FT_DIR ? 0755 : 0644;
    w->e.known = (w->e.known & ~TBBT_HM_SIZE) | (type == TBBT_FT_REG ? TBBT_HM_SIZE : 0);
    w->e.path = w->path->str;
    return w->fn(w->ctx, &w->e);
}

/* Emits the files of the directory at fr. */
static int emit_files(struct walk *w, const struct frame *fr) {
    const struct tbbt_aug *a = w->a;
    for (uint32_t i = a->foff[fr->dir]; i < a->foff[fr->dir + 1]; i++) {
        uint32_t f = a->flist[i];
        int rc = emit(w, fr, TBBT_FT_REG, a->fsize[f], w->next++, 0);
        if (rc) return rc;
    }
    return 0;
}

/* Emits everything synthetic below the directory of frame fr (already
 * emitted, its path in w->path), depth first. */
static int emit_tree(struct walk *w, struct frame fr, GArray *stack) {
    const struct tbbt_aug *a = w->a;
    g_array_set_size(stack, 0);
    g_array_append_val(stack, fr);
    int rc = emit_files(w, &fr);
    while (rc == 0 && stack->len) {
        struct frame *top = &g_array_index(stack, struct frame, stack->len - 1);
        if (top->cur == a->soff[top->dir + 1] - a->soff[top->dir]) {
            g_array_set_size(stack, stack->len - 1);
            continue;
        }
        uint32_t s = a->ne + a->slist[a->soff[top->dir] + top->cur++];
        struct frame child = {s, 0, 0, w->next++};
        if ((rc = emit(w, top, TBBT_FT_DIR, 0, child.id, s == a->top)) != 0) break;
        child.plen = w->path->len;
        g_array_append_val(stack, child);
        rc = emit_files(w, &child);
    }
    return rc;
}

/* Emits everything synthetic below extracted directory d. */
static int emit_below(struct walk *w, uint32_t d, GArray *stack) {
    const struct tbbt_hm_entry *de = in_entry(w->a, w->a->dir[d].entry);
    g_string_assign(w->path, strcmp(de->path, ".") ? de->path : "");
    struct frame fr = {d, 0, w->path->len, de->id};
    return emit_tree(w, fr, stack);
}

/* Emits the synthetic top at the image root's level (parent 0: the map
 * has no root entry) and everything below it. */
static int emit_lone_top(struct walk *w, GArray *stack) {
    struct frame level = {AUG_NONE, 0, 0, 0};
    g_string_truncate(w->path, 0);
    struct frame fr = {w->a->top, 0, 0, w->next++};
    int rc = emit(w, &level, TBBT_FT_DIR, 0, fr.id, 1);
    if (rc) return rc;
    fr.plen = w->path->len;
    return emit_tree(w, fr, stack);
}

/* Emits every synthetic object, below each open extracted directory in
 * input order. */
static int emit_synthetic(const struct tbbt_aug *a, int (*fn)(void *, const struct tbbt_hm_entry *),
                          void *ctx) {
    struct walk w = {.a = a, .fn = fn, .ctx = ctx, .next = a->st.first_id};
    w.path = g_string_sized_new(256);
    w.key = g_string_sized_new(256);
    w.e.del = TBBT_HM_NEVER;
    w.e.origin = TBBT_HM_SYNTH;
    w.e.known = TBBT_HM_MODE | (a->st.owner_known ? TBBT_HM_UID | TBBT_HM_GID : 0);
    w.e.uid = a->st.uid;
    w.e.gid = a->st.gid;
    GArray *stack = g_array_new(FALSE, FALSE, sizeof(struct frame));
    int rc = a->top != AUG_NONE && a->dir[a->top].parent == AUG_NONE ? emit_lone_top(&w, stack) : 0;
    for (uint32_t d = 0; d < a->ne && rc == 0; d++)
        if (a->foff[d + 1] > a->foff[d] || a->soff[d + 1] > a->soff[d]) rc = emit_below(&w, d, stack);
    g_array_free(stack, TRUE);
    g_string_free(w.path, TRUE);
    g_string_free(w.key, TRUE);
    return rc;
}

int tbbt_aug_foreach(const struct tbbt_aug *a, int (*fn)(void *ctx, const struct tbbt_hm_entry *e),
                     void *ctx) {
    int rc = 0;
    for (guint i = 0; i < a->in->len && rc == 0; i++)
        if (in_entry(a, i)->create == 0) rc = fn(ctx, in_entry(a, i));
    if (rc == 0 && a->ran && a->foff) rc = emit_synthetic(a, fn, ctx);
    for (guint i = 0; i < a->in->len && rc == 0; i++)
        if (in_entry(a, i)->create != 0) rc = fn(ctx, in_entry(a, i));
    return rc;
}

/* foreach callback: one map line. */
static int put_entry(void *ctx, const struct tbbt_hm_entry *e) {
    return tbbt_hmapw_put(ctx, e);
}

int tbbt_aug_write(const struct tbbt_aug *a, const char *path, const char *comment, char *err,
                   size_t errlen) {
    struct tbbt_hmapw *w = tbbt_hmapw_open(path, comment, err, errlen);
    if (!w) return -1;
    tbbt_aug_foreach(a, put_entry, w); /* a failed put is kept by the writer for close */
    return tbbt_hmapw_close(w, err, errlen);
}

/* ==== reports ==== */

/* One line of counts, with the directories per file. */
static void report_counts(FILE *out, const char *what, const struct tbbt_aug_counts *c) {
    fprintf(
        out,
        "%-10s %llu objects: %llu files, %llu directories, %llu symlinks, %llu other; %llu bytes (%.1f MiB); "
        "max depth %u; %.3f directories a file\n",
        what, (unsigned long long)c->objects, (unsigned long long)c->files, (unsigned long long)c->dirs,
        (unsigned long long)c->symlinks, (unsigned long long)c->others, (unsigned long long)c->bytes,
        c->bytes / 1048576.0, c->max_depth, c->files ? (double)c->dirs / (double)c->files : 0.0);
}

void tbbt_aug_report(const struct tbbt_aug *a, FILE *out) {
    const struct tbbt_aug_stats *s = &a->st;
    const struct tbbt_aug_params *p = &a->par;
    report_counts(out, "Extracted:", &s->extracted);
    report_counts(out, "Added:", &s->added);
    fprintf(out, "Total:     %llu objects, %llu bytes; target %s",
            (unsigned long long)(s->extracted.objects + s->added.objects),
            (unsigned long long)(s->extracted.bytes + s->added.bytes),
            s->size_reached && s->objects_reached ? "size and objects reached"
            : s->size_reached                     ? "size reached"
            : s->objects_reached                  ? "objects reached"
                                                  : "not reached");
    if (p->total_size) fprintf(out, " (size %llu bytes)", (unsigned long long)p->total_size);
    if (p->total_objects) fprintf(out, " (objects %llu)", (unsigned long long)p->total_objects);
    fprintf(out, "\nTree:      synthetic directory depth %u levels; synthetic files at mean depth %.2f\n",
            s->synth_depth, s->mean_file_depth);
    fprintf(out,
            "Merge:     %llu synthetic files (%.1f%%) and %llu directories in extracted directories; %llu of "
            "%llu "
            "open extracted directories hold synthetic objects\n",
            (unsigned long long)s->merged_files,
            s->added.files ? 100.0 * s->merged_files / s->added.files : 0.0,
            (unsigned long long)s->merged_dirs, (unsigned long long)s->mixed_dirs,
            (unsigned long long)s->eligible_dirs);
    fprintf(out,
            "Params:    size distribution %s; dir/file ratio %g; distortion %g; merge %g; seed %llu; owner ",
            s->dist, p->dir_ratio, p->distortion, p->merge, (unsigned long long)p->seed);
    if (s->owner_known)
        fprintf(out, "%u:%u (%s)", s->uid, s->gid, p->owner_set ? "given" : "most common");
    else
        fprintf(out, "unknown");
    if (s->added.objects)
        fprintf(out, "; IDs %llu-%llu\n", (unsigned long long)s->first_id, (unsigned long long)s->last_id);
    else
        fprintf(out, "; nothing added\n");
}

/* One counts object in JSON. */
static void json_counts(GString *j, const char *name, const struct tbbt_aug_counts *c) {
    g_string_append_printf(
        j,
        "\"%s\":{\"objects\":%llu,\"files\":%llu,\"dirs\":%llu,\"symlinks\":%llu,\"others\":%llu,"
        "\"bytes\":%llu,\"max_depth\":%u},",
        name, (unsigned long long)c->objects, (unsigned long long)c->files, (unsigned long long)c->dirs,
        (unsigned long long)c->symlinks, (unsigned long long)c->others, (unsigned long long)c->bytes,
        c->max_depth);
}

void tbbt_aug_report_json(const struct tbbt_aug *a, GString *j) {
    const struct tbbt_aug_stats *s = &a->st;
    const struct tbbt_aug_params *p = &a->par;
    g_string_append_c(j, '{');
    json_counts(j, "extracted", &s->extracted);
    json_counts(j, "added", &s->added);
    g_string_append_printf(j, "\"total\":{\"objects\":%llu,\"bytes\":%llu},",
                           (unsigned long long)(s->extracted.objects + s->added.objects),
                           (unsigned long long)(s->extracted.bytes + s->added.bytes));
    g_string_append_printf(j,
                           "\"targets\":{\"total_size\":%llu,\"total_objects\":%llu,\"size_reached\":%s,"
                           "\"objects_reached\":%s},",
                           (unsigned long long)p->total_size, (unsigned long long)p->total_objects,
                           s->size_reached ? "true" : "false", s->objects_reached ? "true" : "false");
    g_string_append_printf(
        j,
        "\"synth_depth\":%u,\"mean_file_depth\":%.4f,\"eligible_dirs\":%llu,\"merged_files\":%llu,"
        "\"merged_dirs\":%llu,\"mixed_dirs\":%llu,\"first_id\":%llu,\"last_id\":%llu,",
        s->synth_depth, s->mean_file_depth, (unsigned long long)s->eligible_dirs,
        (unsigned long long)s->merged_files, (unsigned long long)s->merged_dirs,
        (unsigned long long)s->mixed_dirs, (unsigned long long)s->first_id, (unsigned long long)s->last_id);
    g_string_append(j, "\"params\":{\"size_dist\":");
    tbbt_json_str(j, s->dist, strlen(s->dist));
    g_string_append_printf(j,
                           ",\"dir_ratio\":%.17g,\"distortion\":%.17g,\"merge\":%.17g,\"merge_used\":%.17g,"
                           "\"seed\":%llu,\"owner\":",
                           p->dir_ratio, p->distortion, p->merge, s->merge_used, (unsigned long long)p->seed);
    if (s->owner_known)
        g_string_append_printf(j, "\"%u:%u\"", s->uid, s->gid);
    else
        g_string_append(j, "null");
    g_string_append(j, "}}");
}
