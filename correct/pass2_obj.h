/* pass2_obj.h -- pass 2's own state of every object and name of its model.
 *
 * The model (lib/fsmodel.h) knows no stage: it stores these as its
 * caller's extension (tbbt_fsmodel_new_ext) and never reads them. Pass 2
 * keeps here what only it interprets: which records touched an object,
 * showed its attributes or removed it, and the guesses it made of it;
 * rules.c marks an owner it guessed. One struct in the object's own
 * storage, so an access costs no lookup and the object no more memory. */
#ifndef TBBT_PASS2_OBJ_H
#define TBBT_PASS2_OBJ_H

#include <stdint.h>

#include "fsmodel.h"

/* Pass 2's flags of an object. */
enum {
    TBBT_PASS2_OWNER_GUESSED = 1u << 0, /* pass 2 made it with an owner no reply had shown yet */
    TBBT_PASS2_FILEID = 1u << 1,        /* pass 2 knows its fileid (from a reply's attributes) */
    TBBT_PASS2_CTIME = 1u << 2,         /* ctime holds the last ctime a traced reply showed */
    TBBT_PASS2_GONE_STALE = 1u << 3,    /* the inserted removals of removed_by were for a stale reply */
};

/* removed_by of an object an inserted record removed: this bit, and the
 * record's insertion order (else the sequence number of the held record
 * that removed it). */
#define TBBT_PASS2_GONE_BY_INSERTED (1ull << 63)

/* Pass 2's part of one model object. */
struct tbbt_pass2_obj {
    int64_t last_time;   /* the last record that touched it: its call time */
    uint64_t last_seq;   /* and its sequence number */
    uint64_t first_seq;  /* the first record that touched it (0: none yet) */
    uint64_t removed_by; /* the held record that removed it (see TBBT_PASS2_GONE_BY_INSERTED), 0: none */
    uint64_t shown_seq;  /* the last record that showed or set its attributes (0: none) */
    int64_t shown_time;  /* when (that record's reply) */
    int64_t ctime;       /* the last ctime a traced successful reply showed (TBBT_PASS2_CTIME) */
    uint32_t flags;      /* TBBT_PASS2_* */
    uint32_t stale_rms;  /* TBBT_PASS2_GONE_STALE: how many removals (the last removed_by) */
};

/* Pass 2's part of one model entry. */
struct tbbt_pass2_dent {
    uint64_t lost_seq; /* the lost-reply record that set its state, waiting to be shown (0: none) */
};

/* Pass 2's part of object o (a model made by tbbt_pass2_model_new). */
static inline struct tbbt_pass2_obj *tbbt_pass2_obj(const struct tbbt_fsobj *o) {
    return tbbt_fsobj_ext(o);
}

/* Pass 2's part of entry d. */
static inline struct tbbt_pass2_dent *tbbt_pass2_dent(const struct tbbt_fsdent *d) {
    return tbbt_fsdent_ext(d);
}

/* A model whose objects and entries carry pass 2's parts. */
static inline struct tbbt_fsmodel *tbbt_pass2_model_new(void) {
    return tbbt_fsmodel_new_ext(sizeof(struct tbbt_pass2_obj), sizeof(struct tbbt_pass2_dent));
}

#endif
