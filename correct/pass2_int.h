/* pass2_int.h -- what the pieces of pass 2 share: its state (struct
 * tbbt_pass2), the types of its held and inserted records, and the
 * functions one piece calls in another. Internal to correct/: pass2.h is
 * the contract for pass 2's callers. Each function's contract is here;
 * its file is named in the comment above each group. */
#ifndef TBBT_PASS2_INT_H
#define TBBT_PASS2_INT_H

#include <glib.h>
#include <stdint.h>

#include "cut.h"
#include "fsmodel.h"
#include "u64map.h"
#include "pass2.h"
#include "pass2_obj.h"
#include "record.h"
#include "rules.h"

/* A corrective record waiting for its place: it goes out just before the
 * held record with sequence number before_seq. */
struct ins {
    struct tbbt_rec r;
    uint64_t before_seq;
    uint64_t order; /* insertion order, breaks ties */
};

/* Key of a name a plain readdir listed without its object: (directory,
 * the entry's fileid). */
struct listed_key {
    tbbt_id dir;
    uint64_t fileid;
};

/* GHashTable hash of a struct listed_key. */
static inline guint listed_hash(gconstpointer k) {
    const struct listed_key *x = k;
    return g_int64_hash(&x->dir) * 31u ^ g_int64_hash(&x->fileid);
}

/* GHashTable equality of two struct listed_key. */
static inline gboolean listed_eq(gconstpointer a, gconstpointer b) {
    const struct listed_key *x = a, *y = b;
    return x->dir == y->dir && x->fileid == y->fileid;
}

/* A held rename the snaplen cut after its source directory: its target
 * (and maybe its source name) is not known yet (tbbt_p2_hold_move). */
struct move {
    uint64_t seq; /* the held rename (or link) */
    tbbt_id dir;  /* its source directory (a link: 0) */
    tbbt_id obj;  /* the object its source named (its name known), or 0 (its name cut) */
    int link;     /* a link whose directory the snaplen cut: the object keeps its names */
    int placed; /* the record went whole to a guessed place (tbbt_p2_place_held), until a record shows another
                 */
};

/* A name a held cut remove or rmdir may have removed (struct rmcut). */
struct rmcand {
    char *name; /* owned, NUL-terminated */
    size_t len;
    tbbt_id obj;     /* the object the model held under it (0: not known) */
    int used;        /* a later record named that object */
    int left;        /* not ruled out yet */
    int remade;      /* a later record made the name again: a use of it is no proof */
    uint32_t nlink0; /* the object's link count when the removal was held (0: not known) */
    int linked;      /* a later link gave the object a name: its count is no proof */
    int kept_links;  /* ruled out by a reply showing the object kept every link */
};

/* A held successful remove or rmdir whose name the snaplen cut: the
 * names of its directory it may have removed, until later records tell
 * which (tbbt_p2_hold_remove). */
struct rmcut {
    uint64_t seq; /* the held record */
    tbbt_id dir;
    GArray *cands; /* struct rmcand */
    int picked;    /* a later record showed that the one left is gone */
    int deferred;  /* one was left, but a guessed cut rename or link may have made the name (rm_moved_here) */
};

/* A placed cut rename or link (struct move) a held cut removal may have
 * taken the target of (struct rmbind), and what later records said. */
struct bindcand {
    uint64_t mvseq;  /* the held rename or link */
    tbbt_id obj;     /* its object */
    uint32_t nlink0; /* the object's link count when the removal was held (0: not known) */
    int says;        /* 1 a later record showed it lost a name, -1 that it did not, 0 nothing yet */
    int used;        /* a later record used its object with success, or its move's name (bind_used) */
};

/* A held successful remove, rmdir or rename whose cut name no name of its
 * directory agrees with, where several placed cut renames or links may
 * have made it (bind_to_move): later records tell which (tbbt_p2_bind_evidence). */
struct rmbind {
    uint64_t seq;   /* the held record */
    int whole;      /* its name is whole: the move takes that name, the record stays as it is */
    int incomplete; /* a candidate left with nothing said of it: only a sign names one */
    int lone;       /* one candidate, left by ruling names out (rm_bind_move): it is bound when its move
                       leaves the window, unless a record said its object kept its names */
    GArray *cands;  /* struct bindcand */
};

/* Open bindings a record is checked against, at most, and candidates
 * each. A mail spool's busy delivery directory at -s 200 has 17 to 20
 * guessed moves that may have made a cut remove's name (issue 20, seed
 * 23): 16 left such removes unreplayable. Each record costs a walk of
 * RMBINDS * RMBIND_CANDS candidates (64 KB of them at most). */
#define RMBINDS 64
#define RMBIND_CANDS 32

/* Frees a held binding. */
static inline void rmbind_free(struct rmbind *b) {
    g_array_free(b->cands, TRUE);
    g_free(b);
}

/* Frees a held cut removal. */
static inline void rmcut_free(struct rmcut *c) {
    for (guint i = 0; i < c->cands->len; i++)
        g_free(g_array_index(c->cands, struct rmcand, i).name);
    g_array_free(c->cands, TRUE);
    g_free(c);
}

/* A lost chmod, chown or truncate a reply revealed, waiting until every
 * record that could have explained it has been met (tbbt_p2_settle_attrs): a
 * call made before that reply came (another client's setattr the server
 * ran first) shows the same thing. */
struct attrfix {
    uint64_t seq;        /* the record whose reply showed the change */
    int row;             /* its rule */
    int64_t reply_time;  /* when that reply came */
    uint64_t lo_seq;     /* the last record that showed the old values (0: none held) */
    int64_t lo_time;     /* its reply time */
    struct tbbt_rec set; /* the object (obj) and the new values (mode, uid, gid, size) */
};

/* Records pass 2 reads ahead of the one it pre-plays, at most: the calls
 * made before that record's reply came (another client's call the server
 * may have run first, tbbt_p2_explained_later). */
#define LOOKAHEAD 64

/* Predictions of a held record made before an overlapping earlier call
 * of another client was applied (tbbt_p2_note_alternatives): what the record
 * would get had the server run it first. */
#define ALT_MAX 4
struct alt {
    uint64_t q[ALT_MAX]; /* the earlier records */
    uint8_t oc[ALT_MAX]; /* enum tbbt_oc predicted before each */
    uint8_t n;
};

/* A record the server ran after a later call (tbbt_p2_explained_later): the
 * model applies it once that call has been pre-played. */
struct deferral {
    uint64_t after; /* the later record */
    struct tbbt_rec r;
};

/* A record that goes out beside another than its neighbours in call
 * order: two overlapping calls of two clients the server ran in the
 * other order (concurrent), which a replay, sending in the records'
 * order, must run so too (tbbt_p2_reorder). */
struct reorder {
    uint64_t seq;          /* the record moved */
    uint64_t anchor;       /* it goes out just before this held record, or just after */
    int after;             /* 1: after the anchor */
    int gone;              /* before: sent already (its own turn passes) */
    int stashed;           /* after: its copy waits in stash for the anchor */
    struct tbbt_rec stash; /* after: the copy */
};

/* Frees a waiting change. */
static inline void attrfix_free(struct attrfix *f) {
    tbbt_rec_free(&f->set);
    g_free(f);
}

/* Frees a record moved out of call order. */
static inline void reorder_free(struct reorder *o) {
    tbbt_rec_free(&o->stash);
    g_free(o);
}

struct tbbt_pass2 {
    struct tbbt_pass2_opts o;
    tbbt_p2_sink sink;
    void *ctx;
    struct tbbt_fsmodel *m;
    GRand *rng;
    struct tbbt_rec *ring; /* held records; seq s lives in ring[s % cap] */
    struct alt *alts;      /* per ring slot: its predictions under another order */
    GPtrArray *deferred;   /* struct deferral *: records applied after a later call */
    uint32_t cap;          /* slots of ring and alts: grows with the call rate (make_room) */
    uint32_t cap_max;      /* ... up to this: TBBT_P2_HELD_MAX, or the record window's need */
    int64_t played_time;   /* the latest call time pre-played: the window's clock */
    uint64_t head_seq;     /* oldest held record */
    uint64_t next_seq;     /* sequence number of the next record put (from 1) */
    uint64_t played;       /* last record pre-played (one behind the last put) */
    uint64_t cut_link_end; /* one past the last link put whose arguments the snaplen cut (link_cut) */
    GPtrArray *pending;    /* struct ins *, sorted by (before_seq, call_time, order) */
    uint64_t ins_order;
    uint64_t unbound_makes; /* inserted makes with no object yet, maybe still pending (tbbt_p2_mend_made) */
    uint64_t
        unbound_lost; /* lost makes resolved without their object, maybe still held (tbbt_p2_resolve_name) */
    int64_t last_out_time; /* call time of the last record given to the sink */
    int have_out;
    int failed;
    /* the correction being built */
    GPtrArray *group; /* struct ins * */
    int64_t group_lo;
    uint64_t group_after;
    int group_rule;
    struct tbbt_rec scratch;
    struct tbbt_rec look;         /* a listed name, as the lookup that would have shown it */
    struct tbbt_u64map by_fileid; /* fileid -> TBBT-ID, of objects whose attributes a reply showed */
    GHashTable *reused;           /* TBBT-ID -> the TBBT-ID whose fileid it took (an inode reused) */
    GHashTable
        *listed_names; /* struct listed_key -> the model's entry: plain readdir (tbbt_p2_remember_listed) */
    struct tbbt_rec filtered; /* a listing without the entries of synthetically named objects */
    struct tbbt_rec unshown;  /* a record without attributes that may predate a change (stale_attrs) */
    struct tbbt_rec cut_undo; /* a cut record before a guess the model refutes (restore_failed) */
    struct tbbt_rec unmade;   /* a listing without names an overlapping later call made (made_later) */
    struct tbbt_rec early;    /* a make under a name of its own, before its object's first use
                                 (make_early_elsewhere) */
    int synth_seen; /* a synthetic name was given or met (tbbt_p2_listing_as_named, tbbt_p2_rename_to_alias)
                     */
    GHashTable *aliases;    /* "dir/name" -> the synthetic name the replay knows it by (learn_alias) */
    GHashTable *cut_infos;  /* "dir/name" -> struct tbbt_cut_info: what the capture kept of the real
                               name of an object named synthetically (tbbt_p2_note_cut_info) */
    GArray *moves;          /* struct move: held cut renames whose target is not known (tbbt_p2_hold_move) */
    GHashTable *made_attrs; /* tbbt_id -> struct tbbt_p2_made: inserted makes gone out */
    GArray *denied;       /* struct tbbt_p2_denied: held refused records on objects no record showed, in order
                                    (tbbt_p2_denied_unknown), judged as they go out */
    GPtrArray *rmcuts;    /* struct rmcut *: held cut removes whose name is not known (tbbt_p2_hold_remove) */
    GPtrArray *rm_ghosts; /* struct rmcut *: cut removals gone out unnamed (rm_drop) */
    GPtrArray *rmbinds;   /* struct rmbind *: cut removals waiting for the move they undo */
    GHashTable *rm_tainted; /* directories of ghosts forgotten: names there may be gone */
    GPtrArray *attrfixes; /* struct attrfix *: revealed changes waiting to be placed (tbbt_p2_settle_attrs) */
    GPtrArray *reorders;  /* struct reorder *: records going out out of call order (tbbt_p2_reorder) */
    struct tbbt_pass2_stats st;
    GString *listed; /* unexplained failures, text */
    uint32_t nlisted;
};

enum cut_want { CUT_ANY, CUT_FILE, CUT_DIR };

/* ---- pass2.c ---- */

/* The last held record before seq that names (dir, name) (as its name
 * or a rename's target), or 0. */
uint64_t tbbt_p2_last_named(const struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len,
                            uint64_t seq);

/* Gives one record to the sink. */
void tbbt_p2_out_rec(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* Time a record last touched an object: its reply when there was one. */
int64_t tbbt_p2_touch_time(const struct tbbt_rec *r);

/* Marks object id as touched at time t by record seq. */
struct tbbt_fsobj *tbbt_p2_touch(struct tbbt_pass2 *p, tbbt_id id, int64_t t, uint64_t seq);

/* The objects a record names: handle, directories, new object, and the
 * object (dir, name) holds now. */
void tbbt_p2_record_objects(const struct tbbt_fsmodel *m, const struct tbbt_rec *r, tbbt_id ids[5]);

/* Pre-plays record r (held as seq), which has its reply: predicts its
 * outcome and corrects a failure -- not on a name pass 2 made up
 * (TBBT_RF_NAME_SYNTH): the model's is the only say there -- and applies
 * it to the model. */
void tbbt_p2_judge(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq);

/* Pre-plays the held record seq. */
void tbbt_p2_preplay(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq);

/* ---- pass2_lost.c ---- */

/* Whether a lost reply waits at some name for a record that shows it:
 * its outcome (lost_unresolved) or the object it made (unbound_lost). */
int tbbt_p2_names_await(const struct tbbt_pass2 *p);

/* A record other than the lost one changed (dir, name), or a rename's
 * (dir2, name2): a lost reply waiting there can no longer be resolved by
 * a later lookup (after a rename onto a lost create's name, the lookup
 * shows the renamed object, not the one the create made). */
void tbbt_p2_forget_lost(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* Does op make or remove a name (a lost reply of it is worth resolving)? */
int tbbt_p2_names_op(unsigned op);

/* Does the mode of the directory lookup or listing r reads, as the
 * model knows it for a replay, deny r's caller (AUTH_SYS, not root)
 * search (a lookup) or read (a listing) permission? */
int tbbt_p2_search_denied(const struct tbbt_fsmodel *m, const struct tbbt_rec *r);

/* A reply-lost lookup goes out unresolved (the model did not know the
 * name when it was made, and a lookup changes nothing): the name was
 * then as it was before the trace, which the model may have learnt since
 * -- present, or else absent from the image pass 3 builds. The replay
 * gets that outcome. */
void tbbt_p2_settle_lost_lookup(struct tbbt_pass2 *p, struct tbbt_rec *r);

/* A reply-lost record: the outcome is the model's prediction where it
 * knows (with the directory's mode: tbbt_fsmodel_predict_dir_access; the
 * object's owner: tbbt_fsmodel_predict_owner),
 * else assumed success, to be confirmed by a later record. */
void tbbt_p2_lost_reply(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq);

/* A record with a reply read (dir, name) and found it present as obj (0:
 * not shown) or absent: if a lost reply's assumed effect set that name
 * and the lost record is still held, this resolves it (and gives a lost
 * make the object it made). */
void tbbt_p2_resolve_name(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len, int present,
                          tbbt_id obj);

/* A record shows obj as (dir, name): the latest inserted make of that
 * name still waiting to go out with no object (tbbt_p2_unbound_make) made it,
 * and now says so. Without it the replay makes the name but never learns
 * the object's handle, and every later use of the object fails (a file a
 * plain readdir listed before any reply showed it). The count of such
 * makes is refreshed on the way: those gone out are not counted again. */
void tbbt_p2_mend_made(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len, tbbt_id obj,
                       uint32_t type);

/* A lookup or a listing with a reply shows objects under names: inserted
 * makes that did not know them get them (tbbt_p2_mend_made). */
void tbbt_p2_bind_made(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* Inserted make x, which a listing that showed no type made a regular
 * file, is shown to have made an object of another type (a symlink, a
 * directory, a fifo or socket): it becomes the make of that type (its
 * mode that type's usual one, a symlink's target a placeholder: a
 * readlink's status does not depend on it; a fifo's or socket's mknod),
 * so that the replay's object is what later records use (a readlink of a
 * file is refused, a create over a fifo is not). */
void tbbt_p2_retype_make(struct tbbt_rec *x, uint32_t type);

/* ---- pass2_rmdir.c ---- */

/* A successful rmdir r of a name an inserted make still waiting with no
 * object made (a plain listing's name, made a file): that make was a
 * mkdir (tbbt_p2_retype_make). */
void tbbt_p2_rmdir_made(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* A lookup, or a listing, with a reply: the names it shows resolve lost
 * replies (tbbt_p2_resolve_name). */
void tbbt_p2_resolve_lost(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* ---- pass2_place.c ---- */

/* Flags mkdir x -- a corrective one, or one whose reply was lost and
 * whose object a later record just showed -- TBBT_RF_MADE_EMPTY when no
 * record taught a name in its directory as there before the trace: then
 * every name in it was made since, and the model (this pass and every
 * later one, which meet the mkdir before those records) judges a name it
 * never met there as a lost create, not as one pass 3 should place in a
 * directory that did not exist at the start. */
void tbbt_p2_mark_made_empty(const struct tbbt_fsmodel *m, struct tbbt_rec *x);

/* Is x a make (create, mkdir, symlink, mknod) that does not say the
 * object it makes? Inserted for a name a plain readdir listed before any
 * reply showed the object (tbbt_p2_make_listed), or a traced one whose reply was
 * lost: a later record that shows the object gives it (tbbt_p2_mend_made,
 * tbbt_p2_resolve_name). */
int tbbt_p2_unbound_make(const struct tbbt_rec *x);

/* fix_out.emit: notes the range the corrective record may take, applies
 * it to the model, and keeps it in the group being built. */
void tbbt_p2_group_emit(void *ctx, struct tbbt_rec *x);

/* Does r set its object's mode, owner or size: a setattr of those, a make
 * of a known object? */
int tbbt_p2_sets_attrs(const struct tbbt_rec *r);

/* Corrective make x, placed just after held record seq, made its object
 * there: that is the object's first touch when the records that touched
 * it so far come later (a lost mkdir placed before its first use that a
 * later record revealed). A lost make of a name in it, revealed later
 * still, may then go before the first use of its own object, which the
 * directory's first traced record followed (tbbt_p2_made_before_use). */
void tbbt_p2_made_first(struct tbbt_pass2 *p, const struct tbbt_rec *x, uint64_t seq);

/* Adds x to the waiting records in order. */
void tbbt_p2_pending_add(struct tbbt_pass2 *p, struct ins *x);

/* Gives the group's records their times, drawn from [lo, hi] where hi
 * is the failing record's call time, and their places among the held
 * records; moves them to the waiting list. */
void tbbt_p2_group_place(struct tbbt_pass2 *p, uint64_t seq, int64_t hi);

/* Queues corrective record x (a copy is kept) to go out just before the
 * held record seq, at time t. */
void tbbt_p2_queue_before(struct tbbt_pass2 *p, const struct tbbt_rec *x, uint64_t seq, int64_t t);

/* Change x (the values mode, uid, gid a reply revealed of object
 * x->obj), placed before held record from, was shown after the
 * corrective setattrs of that object waiting to go out before records
 * from to to (inserted since for a record the model judged without
 * it): those set x's values where they set any, so that the replay ends
 * with the values the reply showed. */
void tbbt_p2_pending_take_values(struct tbbt_pass2 *p, const struct tbbt_rec *x, uint64_t from, uint64_t to);

/* ---- pass2_keep.c ---- */

/* A directory to keep an object in: the nearest directory up the chain
 * of latest names from dir that existed before the trace and that the
 * model holds alive now, so it exists wherever in the held records the
 * keeping rename goes, and no record since depends on its entries. 0 when
 * there is none. */
tbbt_id tbbt_p2_keep_dir(const struct tbbt_fsmodel *m, tbbt_id dir);

/* Rule action TBBT_FIX_KEEP_OBJ: r uses object g that the held record
 * tbbt_pass2_obj(g)->removed_by removed. Before that record, the name it removed is renamed to
 * ".tbbt-kept-ID" (in the same directory, or its nearest ancestor the
 * model holds alive) and a new object (file, or directory) made under the
 * name, so the removal takes the new object and g lives on. The model
 * gets g's new name. The rename goes as root (the keeping directory may be
 * anyone's), the new object as the remover. Where inserted removals,
 * still pending, took g away and r shows the ctime the last traced reply
 * before them showed, they are withdrawn instead and g gets its names
 * back (counted as stale_withdrawn, taken off inserted). Returns the number of records added, or -1 when the
 * removal is no longer held (or is not a remove, rmdir or rename). */
int tbbt_p2_keep_obj(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* ---- pass2_early.c ---- */

/* Lost mkdir s, held, was found to have made its directory after a held
 * record taught names in it as there before the trace: those were made
 * since (a directory made in the trace began empty), right after s, as
 * tbbt_p2_fix_place does for an early mkdir. Returns the records added. */
int tbbt_p2_remake_names_held(struct tbbt_pass2 *p, uint64_t s);

/* The held record before which a correction that makes (r->dir, r->name)
 * as r->newobj must go, when that object was used before r revealed it:
 * its first use, if the object was never named nor made, the name never
 * met (or met absent, before that use, and not since), and the directory
 * made by the trace (so it began empty) before that use -- then the call
 * that made it was lost, and it went before the object's first use (and
 * after the record that found the name absent). Returns that record's
 * seq, or 0 (place as usual). */
uint64_t tbbt_p2_made_before_use(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq);

/* Inserted make x, waiting to go out, was just bound to the object it
 * made (tbbt_p2_mend_made), which held records used by handle before x:
 * the object existed then, so x moves to just before its first use --
 * where that record is still held, its directory existed, and no record
 * between (held, inserted or a listing without it) named the name. A
 * make for a refused remove (remove-denied-missing) that a lookup binds
 * to a file read before. Returns 1 when it moved. */
int tbbt_p2_bound_before_use(struct tbbt_pass2 *p, struct ins *x);

/* p's lookup scratch record cleared for a successful lookup as r's
 * client would send it (its server, version, credentials, transport). */
struct tbbt_rec *tbbt_p2_lookup_like(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* Builds the records of action act for record r and places them: before
 * the failing record seq, or, for a name made as an object used before r
 * revealed it, before that use (tbbt_p2_made_before_use), or under a name of its
 * own before that use when the name was absent since (make_early_elsewhere).
 * Returns the number of records, or -1 when the action cannot be built. */
int tbbt_p2_fix_place(struct tbbt_pass2 *p, enum tbbt_fix_act act, const struct tbbt_rec *r, uint64_t seq);

/* ---- pass2_listed.c ---- */

/* The object a reply showed with this fileid, while it lives: once its
 * last name is gone the server may give the fileid to a new object (a
 * file made where a directory was removed), which a plain readdir's entry
 * cannot tell apart. 0 when none. */
tbbt_id tbbt_p2_live_by_fileid(struct tbbt_pass2 *p, uint64_t fileid);

/* TBBT_FIX_MAKE_LISTED: each name listing r shows that the model has
 * absent (tbbt_fsmodel_entry_unmet) is made as the lookup that would have shown
 * it would be corrected: as the entry's object (a readdir's entries show
 * only fileids: the object a reply showed with that fileid) and type
 * (else the type the model knows for the object, else the one the
 * directory's link count tells, else a file). Returns
 * the records added, or -1. */
int tbbt_p2_make_listed(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq);

/* TBBT_FIX_MOVE_LISTED: each name readdirplus r shows holding another
 * object than the model's (tbbt_listing_entry_other) is corrected as the
 * lookup that would have shown it: the object's one other name renamed
 * onto it (TBBT_FIX_MOVE_BY_REPLY) -- unless that name is in this
 * directory and the listing shows it still: then the name was removed and
 * made a hard link of the object (TBBT_FIX_REPLACE). Returns the records
 * added, or -1. */
int tbbt_p2_move_listed(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq);

/* Does the model know nothing of object id but that records used its
 * handle (no name, no attributes, not made; taken as there before the
 * trace only for that)? */
int tbbt_p2_nameless_unknown(const struct tbbt_fsmodel *m, tbbt_id id);

/* An operation on a handle, r (held as seq), of an object the model
 * knows nothing of (tbbt_p2_nameless_unknown), traced stale: the object was made
 * and removed where the capture lost it, and the replay, which never
 * learns its handle, could not send r. It is made and removed
 * (TBBT_FIX_MAKE_GONE) in a directory that exists wherever the records
 * go: the one the records before r named last that tbbt_p2_keep_dir finds (the
 * nearest there before the trace); before r, or before the first record
 * that used it when all that did are lost replies, which get "stale" as
 * their outcome. Counted under its rule; listed when there is no such
 * directory. */
void tbbt_p2_stale_unknown(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq);

/* ---- pass2_denied.c ---- */

/* A held refused record noted by tbbt_p2_denied_unknown: its seq, and the
 * directory the records before it named last (its client's first), by
 * tbbt_p2_keep_dir then. */
struct tbbt_p2_denied {
    uint64_t seq;
    tbbt_id dir;
};

/* A read, write or truncate r (held as seq) by a user other than root, of
 * an object the model knows nothing of (tbbt_p2_nameless_unknown), traced
 * refused (ACCES, PERM): noted in p->denied and judged when r goes out
 * (tbbt_p2_denied_due). Returns 1 when it noted r, 0 when r is not such
 * a record. */
int tbbt_p2_denied_unknown(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq);

/* Record seq (the oldest held, about to go out), if tbbt_p2_denied_unknown
 * noted it: when the model still knows nothing of its object -- no record
 * of the window after it named it or showed its attributes (such a one
 * has its own rules: a lookup of a name never met makes it before its
 * first use; one there before the trace is in the initial image) -- the
 * capture lost every record that named it, and the replay would have no
 * handle for r. A file ".tbbt-denied-ID" is made as it before r
 * (TBBT_FIX_MAKE_DENIED), as root, with the owner, group and mode r's reply
 * shows, else root's and 0600 (not when those allow the caller: refused
 * for another reason), in a directory that exists wherever the records go
 * (tbbt_p2_keep_dir of one the records after r named, r's client's
 * first). Counted under rule handle-denied-unknown; listed when there is
 * no such directory. */
void tbbt_p2_denied_due(struct tbbt_pass2 *p, uint64_t seq);

/* An inserted make of an object gone out (tbbt_p2_note_made): the mode
 * and owner it gave, and the record it went before. */
struct tbbt_p2_made {
    tbbt_id id;
    uint64_t before_seq;
    struct tbbt_fsattr owner; /* uid and gid */
    uint32_t mode;
};

/* Notes in p->made_attrs inserted record x as it goes out (before record
 * x->before_seq): a make, with its mode and owner; a setattr forgets the
 * make of its object, whose mode or owner it may change. */
void tbbt_p2_note_made(struct tbbt_pass2 *p, const struct ins *x);

/* Record seq (the oldest held, about to go out), if it is a read, write or
 * truncate by a user other than root whose reply was lost and which pass 2
 * took as done or left unresolved (its object unknown when it was
 * pre-played, the make that a later record revealed inserted after): when
 * pass 2 inserted the make of its object before it (tbbt_p2_note_made) and
 * no record between changes the mode or owner, the mode and owner the
 * make gives decide it, as a traced lost make's do (pass2_lost.c):
 * refused (ACCES) where they deny the caller. Else it stays as it is. */
void tbbt_p2_lost_use_due(struct tbbt_pass2 *p, uint64_t seq);

/* ---- pass2_learn.c ---- */

/* The owner r's reply shows for object id, made by a corrective record
 * that had to guess it: the corrective record, if still waiting to go
 * out, gets it, and the mode r shows (the model's too). */
void tbbt_p2_mend_owner(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id id);

/* Notes the fileids r's reply shows -- of the object whose attributes it
 * carries (the new object's, else the handle's) and of the directories
 * whose attributes it carries -- for the objects it touches (o[k] for
 * ids[k] of tbbt_p2_preplay) whose fileid no reply showed before: a plain
 * readdir's entries have only fileids (tbbt_p2_make_listed). Not only at an
 * object's first record: that one's reply may be lost (a directory whose
 * mkdir was lost, first met by a call whose reply was lost too). */
void tbbt_p2_learn_fileids(struct tbbt_pass2 *p, const struct tbbt_rec *r, struct tbbt_fsobj *const o[4]);

/* A reply showing the owner of an object whose owner a corrective record
 * guessed (tbbt_p2_mend_owner), once any record was inserted. */
void tbbt_p2_learn_owner(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* ---- pass2_cut.c ---- */

/* A plain readdir's entries show names with fileids but no objects:
 * the model's entry of each name it holds with no object is remembered by
 * (directory, fileid), so that a call whose name the snaplen cut and
 * whose reply shows that fileid gets the name back (tbbt_p2_known_name). Called
 * after the model learnt the listing; the model owns the entries. */
void tbbt_p2_remember_listed(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* The present name of object id in directory dir the model holds (an
 * earlier record with the whole name, a listing, or a synthetic name), or
 * NULL. */
const struct tbbt_fsdent *tbbt_p2_name_in(const struct tbbt_fsmodel *m, tbbt_id dir, tbbt_id id);

/* The name of object id in dir for record r, whose reply shows it: the
 * one the model holds, else the one a plain readdir of dir listed with
 * the fileid r's reply shows, if the model still holds that name with no
 * object. NULL when neither. */
const struct tbbt_fsdent *tbbt_p2_known_name(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                             tbbt_id id);

/* Sets r's name field f (TBBT_F_NAME or TBBT_F_NAME2) to the len bytes of
 * name, flagged synthetic when it is one, and counts it. Returns 1. */
int tbbt_p2_put_name(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, const char *name,
                     size_t len);

/* Gives r's field f the synthetic name of object id in dir: the first of
 * "tbbt-cut-ID", "tbbt-cut-ID.2", ... that dir does not hold (a new name:
 * a make, link or rename target), or holds for id itself (old: a name
 * that was there). Returns 1. */
int tbbt_p2_put_synth(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, tbbt_id dir, tbbt_id id,
                      int old);

/* The key of (dir, name) in p->aliases (owned by the caller). */
char *tbbt_p2_alias_key(tbbt_id dir, const char *name, size_t len);

/* A record with whole names: names the replay knows by a synthetic name
 * get it (alias_field); a successful lookup that shows an object held
 * under a synthetic name in its directory teaches the alias. */
void tbbt_p2_rename_to_alias(struct tbbt_pass2 *p, struct tbbt_rec *r);

/* Sends held cut rename or link r (tbbt_p2_hold_move, tbbt_p2_hold_link) of known object
 * mv->obj whole to a guessed place -- a rename within its directory, a
 * link in the object's directory, under its synthetic name: the trace's
 * call succeeded and so does this one -- and the model follows. A later
 * record that shows the object elsewhere moves it there (tbbt_p2_resolve_move).
 * Without a place the record is not replayed, and the replay keeps a
 * name the trace took away, or loses one it made (a remove of the other
 * name then kills the file). */
void tbbt_p2_place_held(struct tbbt_pass2 *p, struct tbbt_rec *r, struct move *mv);

/* A directory near from (it, one above, or one of theirs) where the model
 * lets r's caller make a name, as r's field f (TBBT_F_DIR or DIR2): for a
 * cut link whose directory is not known, which the trace's server let the
 * caller make. r is left as it was. 0 when the model knows none. */
tbbt_id tbbt_p2_writable_dir(struct tbbt_pass2 *p, struct tbbt_rec *r, enum tbbt_field f, tbbt_id from);

/* A successful rename the snaplen cut after its source directory, held
 * as seq: its target is not known, nor, when it was cut too, its source
 * name. Where the source names a known object, the model takes the name
 * away and keeps the object (with no name there: the replay does not send
 * the rename unless a later record shows where the object went,
 * tbbt_p2_resolve_move). */
void tbbt_p2_hold_move(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq);

/* A successful link the snaplen cut after its object's handle, held as
 * seq: the directory it made a name in is not known. A later record that
 * shows the object in a directory where the model holds no name of it
 * tells (tbbt_p2_resolve_move); else it goes out in the object's own directory
 * (place_move). */
void tbbt_p2_hold_link(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq);

/* Held cut renames whose target no record showed and that went to no
 * guessed place either (their object was not known): a name the model
 * lacks may be theirs. */
unsigned tbbt_p2_moves_unplaced(const struct tbbt_pass2 *p);

/* Held cut rename or link r, placed by a guess (tbbt_p2_place_held), made the
 * name (dir, name) of its object (name NULL: a synthetic one), a later
 * record shows: the record and the model move it there. Returns 1. */
int tbbt_p2_replace_held(struct tbbt_pass2 *p, struct tbbt_rec *r, const struct move *mv, tbbt_id dir,
                         const char *name, size_t len);

/* Record now, whose name the snaplen cut, shows object x under the name
 * its kept bytes and length likely are, oname of directory dir, which the
 * model holds for another object; x is there as sname, the synthetic name
 * a held rename whose target name was cut gave it. So that rename took
 * oname over: it and the records since that name (dir, sname) name oname,
 * and the model moves x there, the other object losing the name. Returns
 * whether the rename was held. */
int tbbt_p2_cut_replaced(struct tbbt_pass2 *p, const struct tbbt_rec *now, tbbt_id dir, const char *oname,
                         size_t olen, tbbt_id x, const char *sname, size_t slen);

/* Handle record r failed stale where the model holds its object x alive
 * under one name, in directory d: a held rename of a non-directory whose
 * target the snaplen cut, made after x was last used -- placed by a guess
 * (tbbt_p2_place_held), or into d under a synthetic name -- took that
 * name over, when it is the only record that could have taken it away (a
 * second such rename, or a remove in d whose name was cut, could as
 * well). The rename and the model move there, x is gone
 * (tbbt_p2_replace_held, tbbt_p2_cut_replaced), and r's outcome is the
 * traced one with no record inserted. Returns whether it did. */
int tbbt_p2_moved_over(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* A record shows object x as (dir, name) (name NULL: a call whose name
 * was cut), a name the model does not hold: if x left its name by
 * a cut rename still held (move_of), that rename went there. It gets its
 * source name (if cut), its target (the shown name, else x's synthetic
 * one) and is replayable again; the model applies it now. Returns whether
 * it did. */
int tbbt_p2_resolve_move(struct tbbt_pass2 *p, tbbt_id dir, const char *name, size_t len, tbbt_id x);

/* The objects a lookup or a readdirplus with whole names shows resolve
 * the cut renames that moved them (tbbt_p2_resolve_move). */
void tbbt_p2_sightings(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* ---- pass2_cut_rm.c ---- */

/* Holds successful remove or rmdir r (held as seq), whose name the
 * snaplen cut: its candidates are the names the model holds in its
 * directory, of the right type (a directory for an rmdir, else not one).
 * Later records tell which it removed (tbbt_p2_rm_evidence); the model keeps the
 * names until then, and the record stays unreplayable unless one is
 * found (or the directory holds more than RM_CANDS names). One
 * candidate alone, of names the model holds completely, is taken at once
 * (rm_settle). */
void tbbt_p2_hold_remove(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq);

/* Does the model hold object id under one name only (so that a removed
 * name leaves it gone: a use of its handle tells)? */
int tbbt_p2_single_link(const struct tbbt_fsmodel *m, tbbt_id id);

/* Record r (held as seq, with its reply), before it is judged: what it
 * shows of the names held cut removes may have removed -- gone (a name
 * not found, a make that needs it absent or makes a new object under it,
 * a stale handle of an object with one name, a make that gets a held
 * object's handle anew: rm_pick) or still there (rm_rule_out) -- and an rmdir
 * of their directory (every name in it went) narrow their candidates;
 * a removal named so is applied to the model before r is judged. */
void tbbt_p2_rm_evidence(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq);

/* The held record seq goes out (or its directory is removed): a cut
 * removal of it with several candidates left, where the model holds every
 * name it may have removed (rm_complete), takes the only one whose object
 * no later record in the window used (counted apart); with none, or
 * several (any could be the one: a guess would remove a name the trace
 * keeps), it stays unreplayable. */
void tbbt_p2_rm_window_end(struct tbbt_pass2 *p, uint64_t seq);

/* Would correcting r's failure (predicted, traced) rest on a name a cut
 * rename may have made? While a cut rename's target is not known
 * (p->moves), a remove, rmdir, rename or link that found a name the
 * model has absent may have found that one: the judgement is withheld. */
int tbbt_p2_withheld(struct tbbt_pass2 *p, const struct tbbt_rec *r, enum tbbt_oc pred, enum tbbt_oc traced);

/* The cut name of successful lookup r: the object's name the model
 * knows in the directory (also one a cut rename of it that this lookup
 * resolves gives it there: tbbt_p2_resolve_move), else a synthetic one where the object can have
 * had a name there before the trace -- neither it nor the directory was
 * made by the trace, and it is not a directory named elsewhere -- which
 * the model then learns as initial, as pass 3 does. Returns 1 when named. */
int tbbt_p2_restore_lookup(struct tbbt_pass2 *p, struct tbbt_rec *r);

/* Restores successful make r (create, mkdir, symlink, mknod): its cut
 * name (the new object's name the model knows there, else a synthetic
 * one) and its cut attributes. Returns 1 when done. */
int tbbt_p2_restore_make(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t miss);

/* The permission bits a replay of object o has before a record, or -1
 * when the model does not know them. */
int64_t tbbt_p2_mode_before(const struct tbbt_fsobj *o);

/* Restores successful setattr r whose attributes to set the snaplen cut
 * (maybe part way) from its reply's after-attributes: each of mode, owner,
 * group and size is set to the value the reply shows where that differs
 * from what the model held before (a size: also from the reply's
 * before-size), or where the decoded part set it already; times are left
 * as decoded. Without the change a replay keeps the old permissions and
 * later calls get OK where the trace had ACCES, or the reverse. Returns
 * 1, or 0 when the reply shows no attributes. */
int tbbt_p2_restore_setattr(struct tbbt_pass2 *p, struct tbbt_rec *r);

/* ---- pass2_cut_match.c ---- */

/* Remembers what the capture kept of make or link r's real name, whose
 * object id pass 2 names synthetically in dir: a later call in dir whose
 * name was cut too is matched against it (tbbt_p2_cut_likely). */
void tbbt_p2_note_cut_info(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir, struct tbbt_str name);

/* Cut rename r moved the name (from, fname) to the synthetic (to, tname):
 * the new real name is not known, but a mail client's rename keeps the
 * old one's start (a maildir flag changed), so what the capture kept of
 * the old (or the old itself, when whole) is kept for the new, its length
 * unknown. */
void tbbt_p2_move_cut_info(struct tbbt_pass2 *p, tbbt_id from, struct tbbt_str fname,
                           const struct tbbt_rec *r, tbbt_id to, struct tbbt_str tname);

/* How well name d of directory dir matches r's cut name: by the name
 * itself, or for a synthetic one by what the capture kept of the real one
 * (tbbt_p2_note_cut_info; nothing kept: it may be any). */
enum tbbt_cut_match tbbt_p2_cut_match_dent(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                           const struct tbbt_fsdent *d);

/* The one present name of directory dir that r's cut name likely is
 * (TBBT_CUT_LIKELY: its length and at least TBBT_CUT_SURE_PFX kept bytes
 * agree), of the type wanted; NULL when none or several are. */
const struct tbbt_fsdent *tbbt_p2_cut_likely(struct tbbt_pass2 *p, const struct tbbt_rec *r, tbbt_id dir,
                                             enum cut_want want);

/* Successful remove, rmdir or rename r (held as seq), its name whole,
 * takes away a name the model holds absent in a directory the trace made:
 * a held cut rename or link whose target the snaplen cut whole made it
 * (bind_to_move). When one alone may have, it moves there under that very
 * name; several wait for the records that follow (struct rmbind). */
void tbbt_p2_bind_whole(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq);

/* Record r (held as seq) after the held bindings: what it says of their
 * candidates' objects settles them (bind_settle). */
void tbbt_p2_bind_evidence(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq);

/* Held record seq goes out: a binding held as seq stays unbound (the
 * record unreplayable) unless a sign names one now; a candidate whose
 * move it is can no longer be moved, and with nothing said of it the
 * binding is incomplete. */
void tbbt_p2_bind_window_end(struct tbbt_pass2 *p, uint64_t seq);

/* May held cut rename or link h (struct move mv) go to directory dir:
 * the trace made dir before h, the model lets h's caller write there, and
 * no record since showed the object where it was placed? */
int tbbt_p2_may_move_to(struct tbbt_pass2 *p, const struct tbbt_rec *h, const struct move *mv, tbbt_id dir);

/* The open move (struct move) of held record seq, or NULL. */
struct move *tbbt_p2_move_at(struct tbbt_pass2 *p, uint64_t seq);

/* The placed cut renames and links that may have made a name of directory
 * dir a later call takes away (struct bindcand). */
GArray *tbbt_p2_bind_cands(struct tbbt_pass2 *p, tbbt_id dir, enum cut_want want);

/* Binds held cut record r to the placed cut rename or link mv. */
void tbbt_p2_bind_now(struct tbbt_pass2 *p, struct tbbt_rec *r, const struct move *mv);

/* Restores r, whose call the snaplen cut (tbbt_cut_args), where the model
 * knows what was cut: a lookup's, make's or link's name through the
 * object its reply (or call) shows, a rename's target through the object
 * its source names, a make's or setattr's attributes from its reply. Clears
 * TBBT_RF_ARGS_CUT then and returns 1; else sets it and returns 0, with r
 * unchanged. A cut remove, rmdir, rename source, a failed or
 * unanswered call, a cut handle: unknowable. */
int tbbt_p2_restore_cut(struct tbbt_pass2 *p, struct tbbt_rec *r, uint64_t seq);

/* What record r, cut before an argument and left so, teaches: only what
 * its reply shows of an object it names by handle or reveals -- its
 * attributes (after a setattr, the mode a replay has follows: the cut
 * call explains it; with no attributes shown, the model forgets the
 * object's until a reply shows them), or that it is gone -- never a name. */
void tbbt_p2_teach_cut(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* Listing r as the model may learn it (tbbt_cut_listing_as_named), in
 * p->filtered. */
const struct tbbt_rec *tbbt_p2_listing_as_named(struct tbbt_pass2 *p, const struct tbbt_rec *r);

/* ---- pass2_reveal.c ---- */

/* The object whose attributes r's reply shows and the trace did not just
 * make: a lookup's object, or the handle of an operation on it. 0 when
 * none (a make shows the object it made; a link, the one it named). */
tbbt_id tbbt_p2_attrs_of(const struct tbbt_rec *r);

/* The change x (attrs_changed) of object o, revealed by record r (held
 * as seq) under rule row: the model's replay mode takes it now (later
 * records are judged by it); it waits for tbbt_p2_settle_attrs, to go after the
 * last record that showed the old mode or owner (a size: that touched the
 * file) -- or, when no record showed the old values (the object existed
 * before the trace and the model's values are not from a reply), to
 * change the initial image instead. */
void tbbt_p2_attrs_reveal(struct tbbt_pass2 *p, struct tbbt_fsobj *o, const struct tbbt_rec *r, uint64_t seq,
                          int row, struct tbbt_rec *x);

/* Was a record that touched o still waiting for its reply when r was
 * called? The server may have run r first: r's reply may show o as it was
 * before that record, not a change the capture lost. */
int tbbt_p2_in_flight(const struct tbbt_fsobj *o, const struct tbbt_rec *r);

/* Record r (held as seq), which has its reply: the attributes it shows of
 * an object it names, and the sizes a readdirplus shows of the files it
 * lists, against the model's (attrs_changed); a difference no record of
 * the trace explains is a lost setattr (tbbt_p2_attrs_reveal). */
void tbbt_p2_check_attrs(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq);

/* Before record q (NULL: the end) is pre-played: each waiting change
 * that q, made before its reply came, explains is dropped; each whose
 * reply came before q was made (or at the end) is inserted
 * (place_attrs). */
void tbbt_p2_settle_attrs(struct tbbt_pass2 *p, const struct tbbt_rec *q);

/* Notes that r's reply showed the attributes of the object it names, or
 * that r (a corrective record too) set them: tbbt_p2_attrs_reveal places a change
 * after the last such record. Also the mode a make gave. */
void tbbt_p2_note_shown(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t seq);

/* ---- pass2_alt.c ---- */

/* Does r, with its traced outcome, change the file system (a lost reply:
 * maybe)? */
int tbbt_p2_changes_state(const struct tbbt_rec *r);

/* Are a and b calls of two clients whose call-to-reply intervals
 * overlap (each call made before the other's reply), both whole and
 * answered, so that the server may have run either one first? */
int tbbt_p2_overlaps(const struct tbbt_rec *a, const struct tbbt_rec *b);

/* Before held record q (seq qs) is applied: each later held record of
 * another client whose call overlaps q's and that names an object q
 * names gets the model's prediction now, as if the server ran it before
 * q (explained_earlier). */
void tbbt_p2_note_alternatives(struct tbbt_pass2 *p, const struct tbbt_rec *q, uint64_t qs);

/* Record r (held as seq, v as judged), whose traced class is traced,
 * failed in call order: the first later held record of another client,
 * whose call overlaps r's and names an object r names, after which (and
 * after the overlapping ones before it) the model, on a copy, predicts
 * r's traced outcome. Returns its seq, or 0. */
uint64_t tbbt_p2_explained_later(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq,
                                 enum tbbt_oc traced);

/* Lookup or listing r (held as seq, v as judged), traced as denied
 * (ACCES, which the model judges of a lookup or listing only when its
 * reply is lost: tbbt_p2_search_denied), that the directory's mode the model
 * holds allows: the first later held record of another client, whose
 * call overlaps r's and names an object r names (a chmod or chown of the
 * directory), after which the model, on a copy, denies r. The server ran
 * that record first; sent in the records' order, r would get through.
 * Returns its seq, or 0. */
uint64_t tbbt_p2_denied_by_later(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq);

/* Record r (held as seq, v as judged) failed in call order: is the
 * failure one the server's other order of an overlapping call of
 * another client explains? Then it is no failure (counted), and the
 * model ends as that order leaves it: r applied after the later call
 * (its deferral, *defer_after gets that call), or the earlier call
 * applied again after r. */
int tbbt_p2_concurrent(struct tbbt_pass2 *p, const struct tbbt_rec *v, uint64_t seq, enum tbbt_oc traced,
                       uint64_t *defer_after, uint64_t *reapply);

/* Holds a copy of r to be applied once the held record after (a later
 * call the server ran first) has been pre-played (tbbt_p2_apply_deferred). */
void tbbt_p2_defer_apply(struct tbbt_pass2 *p, const struct tbbt_rec *r, uint64_t after);

/* After held record seq was pre-played: the records the server ran
 * after it (tbbt_p2_defer_apply) change the model now. */
void tbbt_p2_apply_deferred(struct tbbt_pass2 *p, uint64_t seq);

/* ---- pass2_reorder.c ---- */

/* The server ran held record b before the earlier held record a, both
 * calls of two clients that overlap (concurrent): the replay runs them
 * so too, b just before a, or a just after b -- the one that changes
 * nothing moved, where the records between allow it (may_pass). A record
 * moved earlier must have been pre-played when it goes out (it is, once
 * the window holds the read-ahead). A record moved already stays where
 * it goes, and an anchor is not moved (several may go beside one). */
void tbbt_p2_reorder(struct tbbt_pass2 *p, uint64_t a, uint64_t b);

/* Held record seq goes out: the records moved just before it go first,
 * in the order they were held, each at seq's call time (so the times
 * still ascend). */
void tbbt_p2_out_moved_before(struct tbbt_pass2 *p, uint64_t seq);

/* Held record seq's turn to go out: does it go out elsewhere (sent
 * already before its anchor, or kept to go after it)? */
int tbbt_p2_hold_moved(struct tbbt_pass2 *p, uint64_t seq);

/* Held record seq went out: the records moved just after it follow, at
 * its call time at least. */
void tbbt_p2_out_moved_after(struct tbbt_pass2 *p, uint64_t seq);

/* ---- pass2_report.c ---- */

/* Lists an unexplained failure with its record for the report. */
void tbbt_p2_list_failure(struct tbbt_pass2 *p, const struct tbbt_rec *r, enum tbbt_oc pred,
                          enum tbbt_oc traced, const char *what);

#endif
