/* cut.h -- records whose call the snaplen cut (TBBT_RF_ARGS_CUT), for
 * pass 2.
 *
 * The decoder never reads partial bytes: a field the snaplen cut is absent
 * from the record, and the record has TBBT_RF_CALL_TRUNC. Pass 1 marks a
 * call cut before an argument its request is rebuilt from with
 * TBBT_RF_ARGS_CUT; until every pass 1 does, a record with
 * TBBT_RF_CALL_TRUNC that lacks a field its operation needs counts the
 * same (tbbt_cut_args). Pass 2 never judges such a record against the
 * model; it restores what the model knows (a name through the object the
 * reply shows, attributes to set from the reply), gives an object whose
 * name is unknowable a synthetic name (tbbt_cut_name), and otherwise
 * leaves the flag set: the player does not replay the record. */
#ifndef TBBT_CUT_H
#define TBBT_CUT_H

#include <stddef.h>
#include <string.h>

#include "fsmodel.h"
#include "record.h"

/* Prefix of a synthetic name: "tbbt-cut-<TBBT-ID>". */
#define TBBT_CUT_PREFIX "tbbt-cut-"

/* The fields of r's operation that r lacks and its request is rebuilt
 * from (bit 1 << TBBT_F_*): its handles, names, and the arguments beside
 * them (offset, count, cookie, ...). A write's data does not count (the
 * player makes its own payload). 0 when none is missing. */
uint64_t tbbt_cut_missing(const struct tbbt_rec *r);

/* Was r's call cut before an argument its request is rebuilt from? True
 * when r has TBBT_RF_ARGS_CUT, or TBBT_RF_CALL_TRUNC and either a needed
 * field is missing (tbbt_cut_missing) or its last argument is a set of
 * attributes that may have been cut part way (setattr, create, mkdir,
 * symlink, mknod). */
int tbbt_cut_args(const struct tbbt_rec *r);

/* Writes the synthetic name of object id, plus ".N" when n > 1 (a second
 * name of the same object in one directory), into buf (NUL-terminated).
 * Returns its length. */
int tbbt_cut_name(char *buf, size_t len, tbbt_id id, unsigned n);

/* What the capture kept of the real name of an object pass 2 named
 * synthetically (a make whose name the snaplen cut): the name's first
 * bytes, at most TBBT_CUT_PFX of them, and its whole length. A later call
 * whose name was cut in the same directory is matched against it. */
#define TBBT_CUT_PFX 48
#define TBBT_CUT_LEN_UNKNOWN UINT32_MAX /* renamed since: its start is likely the same */
struct tbbt_cut_info {
    tbbt_id dir;
    uint32_t len;  /* the whole name's length */
    uint32_t npfx; /* bytes of pfx known */
    char pfx[TBBT_CUT_PFX];
};

/* Fills info from r's cut name (TBBT_F_CUTNAME, TBBT_F_CUTLEN) in
 * directory dir. Returns 0 when r kept nothing of it. */
int tbbt_cut_info_of(struct tbbt_cut_info *info, const struct tbbt_rec *r, tbbt_id dir);

/* How well does a name match r's cut name: TBBT_CUT_NO (the length or
 * a kept byte differs), TBBT_CUT_LIKELY (the length and every kept byte
 * agree, and at least TBBT_CUT_SURE_PFX bytes were kept: two names of a
 * directory rarely share that much and their length), TBBT_CUT_MAYBE
 * (they agree on too little to tell). The name is either real (name,
 * len) or, info non-NULL, what is known of a synthetic name's real one. */
enum tbbt_cut_match { TBBT_CUT_NO, TBBT_CUT_MAYBE, TBBT_CUT_LIKELY };
#define TBBT_CUT_SURE_PFX 8
enum tbbt_cut_match tbbt_cut_match_name(const struct tbbt_rec *r, const char *name, size_t len);
enum tbbt_cut_match tbbt_cut_match_info(const struct tbbt_rec *r, const struct tbbt_cut_info *info);

/* The same from the other side: how well does a whole name (name, len),
 * which a later record kept, match what info knows of a synthetic name's
 * real one? TBBT_CUT_NO also when info's length is unknown (a rename
 * since may have changed the name's end). */
enum tbbt_cut_match tbbt_cut_info_match_whole(const struct tbbt_cut_info *info, const char *name, size_t len);

/* Is name (len bytes) a synthetic name? (Inline: pass 3 asks too, and
 * does not link pass 2.) */
static inline int tbbt_cut_is_synth(const char *name, size_t len) {
    size_t pl = sizeof(TBBT_CUT_PREFIX) - 1;
    return len > pl && memcmp(name, TBBT_CUT_PREFIX, pl) == 0;
}

/* Does object id have a synthetic name in directory dir? (Inline, as the
 * listing filter below: pass 3 asks too.) */
static inline int tbbt_cut_synth_in(const struct tbbt_fsmodel *m, tbbt_id dir, tbbt_id id) {
    const struct tbbt_fsobj *o = id ? tbbt_fsmodel_obj(m, id) : NULL;
    for (const struct tbbt_fsdent *d = o ? o->links : NULL; d; d = d->link_next)
        if (d->dir == dir && tbbt_cut_is_synth(d->name, d->len)) return 1;
    return 0;
}

/* Listing r as a model may learn it: without the entries of objects the
 * model holds under a synthetic name in r's directory (their real name,
 * which the snaplen cut from the calls, is not the name the replay makes:
 * learnt, it would be a second name, or a create the capture "lost").
 * id_of(ctx, e) gives an entry's object, 0 when unknown. Returns r, or
 * scratch holding the filtered copy. */
static inline const struct tbbt_rec *
tbbt_cut_listing_as_named(const struct tbbt_fsmodel *m, const struct tbbt_rec *r,
                          tbbt_id (*id_of)(void *ctx, const struct tbbt_dirent *e), void *ctx,
                          struct tbbt_rec *scratch) {
    struct tbbt_rec *c = NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->nentries; i++) {
        tbbt_id id = id_of(ctx, &r->entries[i]);
        int drop = id && tbbt_cut_synth_in(m, r->obj, id);
        if (drop && !c) {
            c = scratch;
            tbbt_rec_copy(c, r);
            k = i;
        }
        if (c && !drop) c->entries[k++] = c->entries[i];
    }
    if (!c) return r;
    c->nentries = k;
    return c;
}

#endif
