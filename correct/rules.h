/* rules.h -- the table of correction rules of pass 2 (paper 3.1, Table 2).
 *
 * A replay failure is a record whose traced outcome differs from the
 * outcome the file-system model predicts for its replay. Outcomes are
 * compared as classes (success, "no such name", "exists", "not empty",
 * "stale handle", ...). Each rule is one row: the operation (or every
 * operation on a handle), the predicted class, the traced class, and the
 * corrective records to insert before the record so that its replay gets
 * the traced outcome. A row whose action is TBBT_FIX_AGREE says the pair
 * is no failure at all (the model did not know enough; the record
 * teaches). A failure that matches no row is "unexplained". */
#ifndef TBBT_RULES_H
#define TBBT_RULES_H

#include <stdint.h>

#include "fsmodel.h"
#include "record.h"

/* Outcome classes. */
enum tbbt_oc {
    TBBT_OC_ANY = 0,  /* predicted: the model does not know */
    TBBT_OC_OK,       /* success */
    TBBT_OC_OK_OTHER, /* predicted: success, but the name holds another object than the reply (a lookup's,
                         a readdirplus entry's) shows */
    TBBT_OC_OK_SHORT, /* predicted: success, but a name the listing shows is absent (readdir) */
    TBBT_OC_NOENT,
    TBBT_OC_EXIST,
    TBBT_OC_NOTEMPTY,
    TBBT_OC_STALE, /* STALE, BADHANDLE */
    TBBT_OC_NOTDIR,
    TBBT_OC_ACCES, /* ACCES, PERM: only where the model judges permission (a read, write or truncate
                      of a file; predicted: a change of names in a directory too) */
    TBBT_OC_OTHER, /* traced: an error the model does not model (ACCES, NOSPC, ...) */
    /* traced: success, and the reply shows of an object it names ... */
    TBBT_OC_OK_MODE,  /* ... permission bits no record of the trace set */
    TBBT_OC_OK_OWNER, /* ... an owner or group no record of the trace set */
    TBBT_OC_OK_SIZE,  /* ... a file smaller than the trace's records left it */
    TBBT_OC_OK_LINKS, /* ... more links to a file than the names the trace made for it */
    TBBT_OC_COUNT_
};

/* Corrective actions. */
enum tbbt_fix_act {
    TBBT_FIX_AGREE = 0,     /* not a failure: the record teaches, nothing inserted */
    TBBT_FIX_REMOVE_NAME,   /* remove (rmdir, after emptying it) what (dir, name) holds */
    TBBT_FIX_MAKE_BY_REPLY, /* create/mkdir/symlink/mknod (dir, name) as the reply's type, as newobj */
    TBBT_FIX_REPLACE,       /* REMOVE_NAME, then MAKE_BY_REPLY */
    TBBT_FIX_MAKE_FILE,     /* create a regular file at (dir, name) */
    TBBT_FIX_MAKE_DIR,      /* mkdir (dir, name) */
    TBBT_FIX_EMPTY_DIR,     /* remove every entry of the directory (dir, name) holds */
    TBBT_FIX_EMPTY_NAME2,   /* remove every entry of the directory (dir2, name2) holds */
    TBBT_FIX_REMOVE_OBJ,    /* remove every name of the record's object (obj) */
    TBBT_FIX_SET_MODE,      /* setattr (as root) of obj's mode: the traced mode, or one that gives
                               the traced outcome */
    TBBT_FIX_KEEP_OBJ,      /* before the record that removed a gone object the record uses: rename
                               that name away and make a new object under it (built by pass 2,
                               which holds that record: tbbt_fix_run returns -1) */
    TBBT_FIX_MAKE_LISTED,   /* make each name the listing shows and the model has absent, as the
                               entry's type and object (built by pass 2, which places each one
                               on its own: tbbt_fix_run returns -1) */
    TBBT_FIX_SET_ATTRS,     /* setattr (as root) of obj to the mode, owner, group and size r
                               carries (pass 2 gives r only the attributes that changed; it
                               places the record after the last one that showed the old values,
                               or, when none did, changes the initial image instead) */
    TBBT_FIX_MOVE_BY_REPLY, /* the rename that put newobj, which the model holds under one other name,
                               at (dir, name); TBBT_FIX_REPLACE when it has no such name */
    TBBT_FIX_MOVE_LISTED,   /* TBBT_FIX_MOVE_BY_REPLY for each name the listing shows holding another
                               object than the model's (built by pass 2: tbbt_fix_run returns -1) */
    TBBT_FIX_LINK_SYNTH,    /* link obj, made by the trace, under as many names ".tbbt-link-ID-K" (in
                               the directory of one of its names) as r's nlink shows more than the
                               model holds (pass 2 gives r the object and the count) */
    TBBT_FIX_MAKE_GONE,     /* make a file ".tbbt-gone-ID" in dir as obj and remove it: the replay
                               gets a handle of an object that is gone (pass 2 gives r the
                               directory, one that exists wherever the records go) */
    TBBT_FIX_SET_DIR_MODE,  /* setattr (as root) of the mode of r's directory whose mode denies r, a
                               successful change of names in it: write and search set for r's
                               caller's class */
    TBBT_FIX_REPLACE_DIR,   /* REMOVE_NAME, then MAKE_DIR: (dir, name) held a directory where the
                               model has another kind of object */
    TBBT_FIX_MAKE_DENIED,   /* make a file ".tbbt-denied-ID" in dir as obj, with the owner, group and
                               mode r carries: the replay gets a handle of an object that refuses
                               r's caller (pass 2 gives r the directory and attributes) */
    TBBT_FIX_COUNT_
};

/* Wildcard op of a row: every operation that names an object by handle
 * only (getattr, read, write, readdir, ...). */
#define TBBT_RULE_ANY_HANDLE_OP (-1)
/* Wildcard op of a row: every operation. */
#define TBBT_RULE_ANY_OP (-2)

/* One row of the table. */
struct tbbt_rule {
    const char *name; /* short identifier used in reports: "create-exists" */
    int op;           /* enum tbbt_op, or TBBT_RULE_ANY_HANDLE_OP */
    enum tbbt_oc predicted, traced;
    enum tbbt_fix_act fix;
    const char *why; /* one line for the report */
};

/* The table and its length. */
extern const struct tbbt_rule tbbt_rules[];
extern const unsigned tbbt_nrules;

/* Class of a traced NFS status (TBBT_OC_OTHER when not modelled). */
enum tbbt_oc tbbt_oc_of_status(int status);

/* Class of r's traced status against the model: as tbbt_oc_of_status,
 * except that a permission failure is TBBT_OC_OTHER (not modelled) where
 * the model does not judge r's permission -- but for a remove, rmdir or
 * rename of a (source) name the model has absent, refused by a directory
 * the caller may search: TBBT_OC_ACCES (the name was there; rules.c denied_shows_name). */
enum tbbt_oc tbbt_oc_traced(const struct tbbt_fsmodel *m, const struct tbbt_rec *r);

/* Class of the model's prediction for r (TBBT_OC_OK_OTHER when a lookup
 * or create would find another object than the one r's reply shows, or a
 * readdirplus entry shows one (tbbt_listing_entry_other);
 * TBBT_OC_OK_SHORT when a successful listing shows a name that
 * tbbt_fsmodel_entry_unmet() finds). */
enum tbbt_oc tbbt_oc_predict(const struct tbbt_fsmodel *m, const struct tbbt_rec *r);

/* Does entry e of readdirplus r show, under a name the model holds
 * present as a known object, another object (a rename onto the name, or
 * its removal and a new object under it, was lost)? */
int tbbt_listing_entry_other(const struct tbbt_fsmodel *m, const struct tbbt_rec *r,
                             const struct tbbt_dirent *e);

/* Name of a class ("ok", "noent", ...). */
const char *tbbt_oc_name(enum tbbt_oc c);

/* Name of an action ("remove-name", ...). */
const char *tbbt_fix_name(enum tbbt_fix_act a);

/* The row for (r's op, predicted, traced), or -1 when none matches. */
int tbbt_rule_find(int op, enum tbbt_oc predicted, enum tbbt_oc traced);

/* Where the corrective records of an action go: emit receives each one in
 * order (a record built on the failing one's client, server, version and
 * credentials, flagged TBBT_RF_INSERTED, times not yet set) and must apply
 * it to the model before returning, so the next one sees its effect. An
 * object the trace never showed is made with no newobj (the model binds
 * it when a later reply names it). */
struct tbbt_fix_out {
    struct tbbt_fsmodel *m;
    void (*emit)(void *ctx, struct tbbt_rec *ins);
    void *ctx;
    struct tbbt_rec *scratch; /* initialised record the builder may reuse */
};

/* Runs action a for failing record r. Returns the number of records
 * emitted, or -1 when the action cannot be built from what the model
 * knows (nothing was emitted then). */
int tbbt_fix_run(enum tbbt_fix_act a, const struct tbbt_rec *r, struct tbbt_fix_out *out);

#endif
