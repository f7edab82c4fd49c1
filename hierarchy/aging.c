/* aging.c -- the schedule of interleaved appends (see aging.h). */
#include "aging.h"

#include <glib.h>
#include <string.h>

#include "rng.h"

/* A file being appended. */
struct active {
    uint32_t file, ncuts, next;
    uint64_t offset, blocks;
    uint64_t *cuts;
};

struct tbbt_aging {
    struct tbbt_age_opts o;
    uint64_t *sizes;
    size_t n, next_join;
    struct active *act;
    size_t nact;
    uint64_t act_blocks;
    uint64_t rng;
};

static uint64_t blocks_of(uint64_t size) {
    return (size + TBBT_AGE_BLOCK - 1) / TBBT_AGE_BLOCK;
}

uint32_t tbbt_aging_cuts(const struct tbbt_age_opts *o, uint32_t file, uint64_t size, uint64_t *lens) {
    uint64_t blocks = blocks_of(size);
    if (!blocks) return 0;
    uint32_t k = o->appends_per_file ? o->appends_per_file : 1;
    if (k > blocks) k = (uint32_t)blocks;
    /* random weights in [0.5, 1.5): parts of uneven size, at least a block each */
    uint64_t st = o->seed * 0x9e3779b97f4a7c15ull ^ ((uint64_t)file + 1) * 0xd1b54a32d192ed03ull;
    double *w = g_new(double, k), sum = 0;
    for (uint32_t i = 0; i < k; i++)
        sum += w[i] = 0.5 + (double)(tbbt_splitmix64(&st) >> 11) / 9007199254740992.0;
    uint64_t spare = blocks - k, given = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint64_t extra = i + 1 == k ? spare - given : (uint64_t)((double)spare * w[i] / sum);
        if (given + extra > spare) extra = spare - given;
        given += extra;
        lens[i] = (1 + extra) * TBBT_AGE_BLOCK;
    }
    lens[k - 1] -= blocks * TBBT_AGE_BLOCK - size; /* the last append ends at the size */
    g_free(w);
    return k;
}

struct tbbt_aging *tbbt_aging_new(const struct tbbt_age_opts *o, const uint64_t *sizes, size_t n) {
    struct tbbt_aging *a = g_new0(struct tbbt_aging, 1);
    a->o = *o;
    if (!a->o.scope) a->o.scope = 1;
    if (!a->o.appends_per_file) a->o.appends_per_file = 1;
    a->sizes = g_memdup2(sizes, n * sizeof(*sizes));
    a->n = n;
    a->act = g_new0(struct active, n ? n : 1);
    a->rng = o->seed ^ 0x5851f42d4c957f2dull;
    return a;
}

/* Lets files join the active set while the scope has room. */
static void admit(struct tbbt_aging *a) {
    while (a->next_join < a->n) {
        uint64_t b = blocks_of(a->sizes[a->next_join]);
        if (b == 0) {
            a->next_join++;
            continue;
        }
        if (a->nact && a->act_blocks + b > a->o.scope) break;
        struct active *x = &a->act[a->nact++];
        x->file = (uint32_t)a->next_join;
        x->cuts = g_new(uint64_t, a->o.appends_per_file);
        x->ncuts = tbbt_aging_cuts(&a->o, x->file, a->sizes[x->file], x->cuts);
        x->next = 0, x->offset = 0, x->blocks = b;
        a->act_blocks += b;
        a->next_join++;
    }
    /* a file that starts alone stays alone (no other fits beside it until
     * it ends): nothing is interleaved with its appends, so it is written
     * in one (one COMMIT, not one per append: scope 1 is the plain copy) */
    if (a->nact == 1 && a->act[0].next == 0 && a->act[0].ncuts > 1) {
        a->act[0].cuts[0] = a->sizes[a->act[0].file];
        a->act[0].ncuts = 1;
    }
}

int tbbt_aging_next(struct tbbt_aging *a, struct tbbt_age_step *s) {
    admit(a);
    if (!a->nact) return 0;
    size_t i = a->nact == 1 ? 0 : (size_t)(tbbt_splitmix64(&a->rng) % a->nact);
    struct active *x = &a->act[i];
    s->file = x->file;
    s->offset = x->offset;
    s->len = x->cuts[x->next];
    x->offset += s->len;
    s->last = ++x->next == x->ncuts;
    if (s->last) {
        a->act_blocks -= x->blocks;
        g_free(x->cuts);
        memmove(x, x + 1, (a->nact - i - 1) * sizeof(*x)); /* keep the join order: the picks depend on it */
        a->nact--;
    }
    return 1;
}

void tbbt_aging_free(struct tbbt_aging *a) {
    if (!a) return;
    for (size_t i = 0; i < a->nact; i++)
        g_free(a->act[i].cuts);
    g_free(a->act);
    g_free(a->sizes);
    g_free(a);
}
