/* pass2.h -- tbbt-prep pass 2: pre-play the records against the file-system
 * model and insert the corrective records that make a replay reproduce
 * the traced outcomes (paper 3.1).
 *
 * Records go in one at a time in call-time order (tbbt_pass2_put is a
 * tbbt_rec_sink, so pass 1 can feed it directly) and come out through the
 * caller's sink, in order, with the inserted records among them. For each
 * record the model predicts the replay's outcome; where the trace says
 * otherwise, the row of the correction table (rules.h) for (operation,
 * predicted, traced) gives the records to insert before it. Each inserted
 * record is flagged TBBT_RF_INSERTED and gets a call time drawn (seeded)
 * from its valid range: after the last record that touched the objects it
 * touches, before the record that would fail. So that the range is not
 * just the gap before the failing record, the last `window` records are
 * held back before they go to the sink (and one more: a record is
 * pre-played when the next one arrives, so its table slots load
 * meanwhile). Some rules act on a held record instead: an object used
 * after the record that removed it is kept by renaming that name away
 * just before the removal (rules.h, TBBT_FIX_KEEP_OBJ). When a correction
 * reveals a second disagreement (the kept object's mode denies the call),
 * the rule for that pair runs too.
 *
 * Lost replies (TBBT_RF_REPLY_LOST): the model decides the call's outcome
 * where it knows (the record then carries that status, still flagged
 * lost); where it does not, the call is assumed to have succeeded and the
 * record stays unresolved until a later record shows its effect -- a later
 * successful lookup of the name a lost create/mkdir/symlink/mknod/link
 * made, or a listing that shows it, resolves it as success and fills in
 * the object it made (when the reply shows it), and a
 * later lookup failing on the name a lost remove/rmdir/rename removed
 * resolves it as success -- if the record is still in the window and no
 * other record changed that name meanwhile. A lost lookup or listing in
 * a directory whose mode the model knows denies its caller was denied;
 * a lost read or write by the user whose same call on the same object
 * was just denied (nothing changed its mode or owner since) was denied;
 * a lost lookup the model cannot judge goes out as the name was before
 * the trace: found when the model learnt it there, else "no such name"
 * (pass 3's image lacks it). A lost reply is never a replay failure
 * (there is no traced status to miss); a record whose status is an
 * RPC-level error never ran and is skipped.
 *
 * Calls the snaplen cut (cut.h): a record cut before a name, a handle or
 * attributes to set is never judged against the model and teaches only
 * what its reply shows. Where the reply shows the object (the new object,
 * or its fileid) and the model knows that object's name in the directory
 * (an earlier record with the whole name, a listing), the name is filled
 * in; where it cannot be known, the object gets a synthetic name
 * ("tbbt-cut-<ID>", flag TBBT_RF_NAME_SYNTH) that every later record
 * naming it in that directory gets too, and the model (so pass 3's map)
 * takes it; a make cut in its attributes gets them from the reply (mode;
 * unchecked create); a successful setattr cut in its attributes sets
 * the mode, owner, group and size its reply shows where they differ from
 * what the model held (or where the decoded part set them), times as
 * decoded; a successful remove or rmdir cut in its name waits for later
 * records to rule its candidates (the names the model holds in its
 * directory) out or show one gone (hold_remove, rm_evidence in
 * pass2.c). Otherwise TBBT_RF_ARGS_CUT stays set (a cut remove
 * with several candidates, a cut rename no later record resolves: the
 * reply does not show the object; a lookup that found nothing), the
 * model is not changed, and the player skips the record. A listing that
 * shows the real name of an object the model holds under a synthetic one
 * in that directory does not teach that name.
 *
 * Changes a later reply reveals (issue 21): a reply showing a mode (not a
 * regular file's: the permission rows judge those), owner, group or
 * smaller size than the model holds, which no record explains (its own
 * setattr or make, a setattr made before that reply came, a cut one, a
 * record in flight when its call was made), gets a setattr as root after
 * the last record that showed or set the old values (rules.h,
 * TBBT_FIX_SET_ATTRS); with no such record, the initial image takes the
 * new values (counted per rule). A directory's new mode, owner or group
 * goes after the last record since that used it with a permission the
 * new values deny (a lookup, even one that found nothing, needs search;
 * a make or remove, write too; a listing, read): that record ran before
 * the change. A reply showing more links to a file the trace made than
 * the names the model holds gets links under made-up names
 * (".tbbt-link-ID-K", TBBT_FIX_LINK_SYNTH), which a record that later
 * shows a real name renames to it. A handle of an object the model knows
 * nothing of, traced stale, gets the object made and removed before it
 * (".tbbt-gone-ID", TBBT_FIX_MAKE_GONE), so the replay holds a stale
 * handle; one traced refused (a read, write or truncate by a user), when
 * no record of the window after it shows the object, gets a file made
 * before it (".tbbt-denied-ID", TBBT_FIX_MAKE_DENIED: root's and 0600, or
 * the owner and mode the reply shows) that refuses the caller, renamed to
 * the real name if a later record shows one; a lost read, write or
 * truncate of a file whose make pass 2 inserted before it is judged by
 * that make's mode and owner; a name that a readdirplus shows holding another object than
 * the model's gets the rename of that object's one other name onto it
 * (TBBT_FIX_MOVE_BY_REPLY).
 *
 * Calls of several clients: two calls of different clients whose
 * call-to-reply intervals overlap may have run in either order on the
 * server. A record is pre-played once every call made before its reply
 * came has been put (or LOOKAHEAD records have); a failure in call order
 * that such a call explains -- the model predicts the traced outcome with
 * a later one applied first (on a copy of the model), or as it stood
 * before an earlier one was applied -- is no failure (counted as
 * concurrent), and the model takes that order's end state. Only a call
 * that changes the file system explains another's outcome (a listing
 * only teaches). The replay sends in the records' order, so the two go
 * out in the server's: the one that changes nothing just before or after
 * the other (at the other's call time), unless a record
 * between them acts on what it acts on (counted as reordered). A listing
 * does not teach the names an overlapping later call of another client
 * made (the server ran it first): they were not there before the trace.
 *
 * Memory: the model (objects and names the trace names: a trace that
 * keeps touching the same files does not grow it) plus the window;
 * never the trace. */
#ifndef TBBT_PASS2_H
#define TBBT_PASS2_H

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

#include "fsmodel.h"
#include "record.h"
#include "rules.h"

/* Receives each output record in order; returns 0, or -1 to stop (the
 * same shape as pass 1's sink). */
typedef int (*tbbt_p2_sink)(void *ctx, const struct tbbt_rec *r);

/* The window holds `window` records and, at a busy call rate, as many
 * more as the last window_ns of trace time took: at 11,600 calls a second
 * 4,096 records are 0.35 s, and a correction's evidence (a use of a
 * removed object, a lookup showing what a lost create made) comes seconds
 * later. The held records' ring grows for that up to TBBT_P2_HELD_MAX
 * slots (or the record window's own size if larger), where the oldest
 * leave before their time, counted (window_cut). */
#define TBBT_P2_WINDOW_NS (5LL * 1000000000LL)
#define TBBT_P2_HELD_MAX 65536u

struct tbbt_pass2_opts {
    uint64_t seed;       /* inserted records' times (default 1) */
    uint32_t window;     /* records held back (default 4096; 0 = none) */
    int64_t window_ns;   /* and trace time held back, ns (default TBBT_P2_WINDOW_NS; 0: records only) */
    uint32_t max_listed; /* unexplained failures kept for the report (default 50) */
    int list_corrected;  /* list corrected failures too (with their rule) */
};

/* Fills o with the defaults. */
void tbbt_pass2_opts_default(struct tbbt_pass2_opts *o);

/* Counts, for the report. */
struct tbbt_pass2_stats {
    uint64_t records_in;             /* records put */
    uint64_t records_out;            /* records given to the sink (in + inserted) */
    uint64_t inserted;               /* corrective records */
    uint64_t failures;               /* replay failures found (traced outcome != predicted) */
    uint64_t corrected;              /* of which a rule's records fixed */
    uint64_t unexplained;            /* of which no rule could fix */
    uint64_t agreed;                 /* predicted/traced pairs a rule declares no failure (teaching) */
    uint64_t unmodelled;             /* traced errors the model does not predict (ACCES, NOSPC, ...) */
    uint64_t rpc_errors;             /* RPC-level errors: the call never ran, skipped */
    uint64_t concurrent;             /* failures in call order that an overlapping call of another
                                        client, run by the server in the other order, explains */
    uint64_t reordered;              /* of which the records go out in the server's order, not in call
                                        order (the replay sends in the records' order) */
    uint64_t lost;                   /* reply-lost records */
    uint64_t lost_by_model;          /* resolved: the model knew the outcome */
    uint64_t lost_by_later;          /* resolved by a later record */
    uint64_t lost_unresolved;        /* assumed to succeed, never confirmed */
    uint64_t late_inserts;           /* inserted records whose range was cut by the window */
    uint64_t window_cut;             /* records out before window_ns of trace time had passed: the ring
                                        was at its most (TBBT_P2_HELD_MAX) */
    uint32_t ring_slots;             /* the held records' ring at its largest (grows with the call rate) */
    uint64_t cut;                    /* records whose call the snaplen cut before an argument (cut.h) */
    uint64_t cut_restored;           /* of which the name was learnt through the object's fileid/ID */
    uint64_t cut_synth;              /* of which the object got a synthetic name */
    uint64_t cut_filled;             /* of which only attributes to set were filled from the reply
                                        (a make's, a successful setattr's) */
    uint64_t cut_unreplayable;       /* of which left TBBT_RF_ARGS_CUT: the player does not send them */
    uint64_t cut_rm_named;           /* cut removes and rmdirs named by what later records showed */
    uint64_t cut_rm_guessed;         /* ... named at the window's end: the candidate no later record used */
    uint64_t cut_matched;            /* cut names matched by the bytes and length kept (cut.h) */
    uint64_t cut_errors;             /* failed cut calls given a name that fails the same way */
    uint64_t cut_moves_placed;       /* cut renames no record placed, kept in their directory */
    uint64_t cut_bound;              /* cut renames and links placed where a later cut name showed one */
    uint64_t cut_bound_lone;         /* ... of them, the one left when replies ruled out every name held */
    uint64_t cut_guessed;            /* ... of them, the last of several no record in the window used */
    uint64_t cut_replaced;           /* cut rename targets shown to be a name they took over */
    uint64_t cut_aliased;            /* whole names renamed to the synthetic name the replay knows */
    uint64_t cut_withheld;           /* judgements withheld: a cut rename may have made the name */
    uint64_t stale_withdrawn;        /* inserted removals withdrawn: a later reply showed the object's
                                        ctime of before its stale reply (tbbt_p2_keep_obj) */
    uint64_t rule_failures[64];      /* per row of tbbt_rules: failures found */
    uint64_t rule_inserted[64];      /* per row: records inserted */
    uint64_t rule_initial[64];       /* per row: changes applied to the initial image instead */
    uint64_t attr_initial;           /* revealed changes applied to the initial image (no record) */
    struct tbbt_fsmodel_stats model; /* at the end */
};

struct tbbt_pass2;

/* Creates a pass writing to sink (may be NULL: check only, nothing is
 * written). o may be NULL for the defaults. Free with tbbt_pass2_free. */
struct tbbt_pass2 *tbbt_pass2_new(const struct tbbt_pass2_opts *o, tbbt_p2_sink sink, void *ctx);

/* Pre-plays one record (a tbbt_rec_sink: pass the pass as ctx). r is
 * copied. Returns 0, or -1 once the sink has failed. */
int tbbt_pass2_put(void *p2, const struct tbbt_rec *r);

/* Flushes the window to the sink. Returns 0, or -1 if the sink failed at
 * any point. */
int tbbt_pass2_finish(struct tbbt_pass2 *p);

/* The counts (model counts filled by finish). */
const struct tbbt_pass2_stats *tbbt_pass2_stats(const struct tbbt_pass2 *p);

/* The model (owned by the pass; valid until free): after finish, the
 * state at the end of the trace with every initial name it learnt. */
struct tbbt_fsmodel *tbbt_pass2_model(struct tbbt_pass2 *p);

/* Writes the report as text: failures per rule, records inserted and
 * their share, lost replies, and the unexplained failures with their
 * records in text form. */
void tbbt_pass2_report(const struct tbbt_pass2 *p, FILE *out);

/* Appends the report as one JSON object to out. */
void tbbt_pass2_report_json(const struct tbbt_pass2 *p, GString *out);

void tbbt_pass2_free(struct tbbt_pass2 *p);

#endif
