/* pass3.h -- tbbt-prep pass 3: the hierarchy map (paper 3.2), and the
 * object IDs of remove, rmdir and rename records.
 *
 * Records go in one at a time in call-time order, as pass 2 writes them
 * (tbbt_pass3_put is a record sink), and come out through the caller's
 * sink in the same order, unchanged but for the victim fields:
 * TBBT_F_VICTIM (the object a remove or rmdir deletes, or a rename moves)
 * and TBBT_F_VICTIM2 (the object a rename replaces), which the calls and
 * replies do not carry and the player's dependency order needs. A rename
 * of a name whose object the trace has not shown yet (clients that rename
 * without a lookup) waits, with the records after it, until a later
 * record reveals the object (a lookup of the new name) or both
 * TBBT_P3_WINDOW records and TBBT_P3_WAIT_NS of trace time have passed
 * (a count alone is a third of a second at a busy site's rate: the
 * client's lookup of the new name can come later), at most
 * TBBT_P3_HELD_MAX records held; then the object gets an ID of its own.
 *
 * The records are applied to a file-system model of lib/ (the same code
 * and the same rules as pass 2's pre-play: one derivation of the initial
 * state). Every name the trace shows becomes one entry a path: created at
 * 0 when it existed before the trace (the model learnt it as initial),
 * else at the call time of the record that made it; deleted at the call
 * time of the record that removed it, renamed it away or replaced it.
 * A record whose call time is before one already put (pass 1 repairs a
 * capture's clock, but a hand-edited file may go back) counts as made at
 * the latest call time seen, so that the map's times never go backwards.
 * Only records that change names do work beyond the model's: names the
 * trace only reads are entered at the end. An object whose name the trace
 * needs but never shows (a remove of a name never looked up) gets an ID
 * of its own, from TBBT_P3_FRESH_BASE up.
 *
 * At the end (tbbt_pass3_write_map) each entry's path is made from its
 * parent directory's path at the entry's create time. A directory whose
 * own name the trace never shows is the top of a disjoint subtree: the
 * export root learnt from MOUNT becomes the image root ("."), the others
 * get placeholder names ("subtree.<ID>"); objects that have no name and
 * no children (files only ever used by handle) go under one placeholder
 * directory ("nameless/<ID>").
 *
 * Memory: the model (objects and names) plus one small entry a path;
 * never the records. */
#ifndef TBBT_PASS3_H
#define TBBT_PASS3_H

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

#include "record.h"

#define TBBT_P3_FRESH_BASE (1ull << 48) /* first ID pass 3 gives */
#define TBBT_P3_WINDOW 4096             /* records a rename waits for its object, at least */
#define TBBT_P3_WAIT_NS 5000000000LL    /* and trace time, at least (5 s) */
#define TBBT_P3_HELD_MAX 65536u         /* records held behind it, at most (memory) */

/* Receives each record in order; returns 0, or -1 to stop. */
typedef int (*tbbt_p3_sink)(void *ctx, const struct tbbt_rec *r);

/* What the map holds, for the report. Filled by tbbt_pass3_write_map. */
struct tbbt_pass3_stats {
    uint64_t records;   /* records put */
    uint64_t victims;   /* remove/rmdir/rename records given victim IDs */
    uint64_t newobjs;   /* creates whose lost reply a later lookup revealed: object filled in */
    uint64_t fresh_ids; /* objects given an ID by pass 3 */
    uint64_t wait_cut;  /* times TBBT_P3_HELD_MAX records held ended renames' wait early */
    uint64_t entries;   /* map entries written */
    uint64_t initial;   /* of which existed before the trace (create 0) */
    uint64_t initial_dirs, initial_files, initial_symlinks, initial_other;
    uint64_t initial_bytes;   /* sum of the initial files' sizes */
    uint64_t size_from_reads; /* initial files sized by the largest offset read */
    uint64_t size_unknown;    /* initial files of unknown size (written "-") */
    uint64_t created;         /* entries made during the trace */
    uint64_t deleted;         /* entries removed during the trace */
    uint64_t renamed;         /* of which by a rename */
    uint64_t hard_linked;     /* objects with more than one initial path */
    uint64_t subtrees;        /* disjoint subtrees (tops: root and placeholders) */
    uint64_t root_known;      /* 1 when the export root came from MOUNT */
    uint64_t nameless;        /* objects under the nameless placeholder */
    uint64_t max_depth;       /* deepest initial path (components) */
    uint64_t unplaced;        /* entries left out: their directory never got a line */
};

struct tbbt_pass3;

/* Creates a pass writing to sink (may be NULL: the map only). Free with
 * tbbt_pass3_free. */
struct tbbt_pass3 *tbbt_pass3_new(tbbt_p3_sink sink, void *ctx);

/* Says that id is an export root (a MOUNT reply's handle). Any time
 * before tbbt_pass3_write_map. */
void tbbt_pass3_add_root(struct tbbt_pass3 *p, tbbt_id id);

/* Applies one record and gives it (with its victim IDs) to the sink (a
 * tbbt_rec_sink: pass the pass as ctx). Returns 0, or -1 when the sink
 * failed. */
int tbbt_pass3_put(void *p3, const struct tbbt_rec *r);

/* Gives the sink the records still held. Returns 0, or -1 when the sink
 * failed. (tbbt_pass3_write_map calls it too.) */
int tbbt_pass3_finish(struct tbbt_pass3 *p);

/* Writes the map to path (temporary name, renamed at the end); comment
 * goes into its header. Returns 0, or -1 with a message in err. Call once,
 * after the last put. */
int tbbt_pass3_write_map(struct tbbt_pass3 *p, const char *path, const char *comment, char *err,
                         size_t errlen);

/* The counts (the map's, after tbbt_pass3_write_map). */
const struct tbbt_pass3_stats *tbbt_pass3_stats(const struct tbbt_pass3 *p);

/* Writes the report as text. */
void tbbt_pass3_report(const struct tbbt_pass3 *p, FILE *out);

/* Appends the report as one JSON object to out. */
void tbbt_pass3_report_json(const struct tbbt_pass3 *p, GString *out);

void tbbt_pass3_free(struct tbbt_pass3 *p);

#endif
