/* augment.h -- synthetic augmentation of a hierarchy map (paper 3.2, 3.3.2).
 *
 * A trace shows only the objects it touched, so the image it extracts is a
 * thin, localised slice of the real file system. Augmentation adds
 * synthetic objects (origin 's', create 0, never deleted) to the initial
 * image until the whole image (extracted + synthetic) reaches a target
 * size in bytes of regular files and/or a target number of objects
 * (distinct IDs); the first target reached stops it. Files are drawn one
 * by one until the target is met: the size is passed by less than the
 * last file drawn, the object count by at most one (a file and a
 * directory may come due together). The paper's four parameters shape
 * what is added:
 *
 * File size distribution (struct tbbt_aug_dist): "trace" resamples the
 *   sizes of the extracted files that existed before the trace (falling
 *   back to "specsfs" when there are fewer than TBBT_AUG_TRACE_MIN of
 *   them); "specsfs" is SPEC SFS 2.0's file-set table; "lognormal:MU,SIGMA"
 *   has ln(bytes) ~ N(MU, SIGMA) (rounded to the nearest byte);
 *   "table:SIZE:WEIGHT,..." is an explicit discrete law. (The trace's
 *   files are the active ones; the law of the inactive files it stands
 *   in for may differ: a known limit of "trace".)
 *
 * Directory/file ratio r: the number of synthetic directories is
 *   round(r x synthetic files) (at least 1, the synthetic top, when some
 *   file must go into a synthetic directory).
 *
 * Distortion factor d in [0,1]: the imbalance among directories.
 *   - Fan-out: every directory open to synthetic objects draws a weight
 *     w = U^-d with U uniform on (0,1]: Pareto weights of tail index 1/d,
 *     so the r-th heaviest of n directories weighs about (n/r)^d, a Zipf
 *     law of exponent d (d = 0: all weights 1). A synthetic file picks its
 *     directory (within its class, see merge) with probability
 *     proportional to w; a new synthetic directory picks its synthetic
 *     parent with probability proportional to w x (subdirectories + 2),
 *     the preferential attachment of Agrawal et al.'s generative
 *     namespace model (FAST'07, used by Impressions, FAST'09), which gives
 *     trees of realistic depth, logarithmic in the number of directories
 *     (measured for 10^5 directories, merge 0: mean depth 9, 6 and 7 and
 *     deepest 23, 12 and 8 levels at d = 0, 0.5 and 0.9) at every d. So
 *     at d = 0 all directories draw files alike (a multinomial:
 *     statistically the same fan-out); their subdirectory counts still
 *     follow that model.
 *   - Sizes: a directory draws Z ~ N(0,1); a file in it gets the latent
 *     L = sqrt(d) Z + sqrt(1-d) E (E ~ N(0,1) per file). The file sizes are
 *     drawn i.i.d. from the distribution first, then handed out in the
 *     order of the latents (smallest size to smallest L). So the sizes as
 *     a whole follow the requested law exactly at every d, and d is the
 *     share of the variance of a file's size rank (on the normal scale)
 *     that belongs to its directory: 0 = every directory's files are a
 *     random draw from the whole law; 1 = all files of a directory share
 *     one size quantile.
 *
 * Merge factor m in [0,1]: each synthetic file goes into an extracted
 *   directory with probability m, else into a synthetic one; each
 *   synthetic directory likewise hangs under an extracted directory with
 *   probability m, else under a synthetic one. Synthetic directories that
 *   do not hang under an extracted one form a tree under one synthetic top
 *   directory "tbbt-synthetic" in the image root (made when m < 1). So
 *   m = 0: no directory but the image root holds both extracted and
 *   synthetic children; m = 1: every synthetic object sits directly in an
 *   extracted directory (synthetic directories stay empty). A map without
 *   an image root entry (only placeholder tops, parent 0) gets the top at
 *   the image root's level (parent 0, path "tbbt-synthetic"); a map with
 *   no open extracted directory gets everything under the top (m = 0).
 *   Extracted directories open to synthetic objects: create 0, never
 *   deleted or renamed away by the trace (an rmdir or a rename over it
 *   must find it as empty as the trace did), origin t, r, p or s (not the
 *   'o' placeholder holding nameless objects).
 *
 * IDs and names: synthetic IDs start at TBBT_AUG_ID_BASE (or above the
 * largest ID of the input map, if that is larger): above every ID pass 1
 * and pass 3 give, so that no synthetic object takes the ID of an object
 * the records name but the map leaves out. Names are "f<N>" for files and
 * "d<N>" for directories, N the object's number among the synthetic ones
 * (1, 2, ... in map order), with ".K" appended on a clash with a name the
 * input holds in that extracted directory. Mode 0644 (files),
 * 0755 (directories); owner: the most common uid:gid among the extracted
 * initial objects, unless given.
 *
 * Output order: the input's create-0 entries in their order, then the
 * synthetic entries (depth first, grouped by directory, every parent
 * before its children), then the input's other entries in their order.
 *
 * Reproducible: the same input, parameters and seed give the same map,
 * byte for byte. Memory: about 45 bytes a synthetic object (no paths are
 * stored; they are built while the map is written); a million objects
 * take about a second and 46 MB (maximum RSS) with the map written. */
#ifndef TBBT_AUGMENT_H
#define TBBT_AUGMENT_H

#include <glib.h>
#include <stdint.h>
#include <stdio.h>

#include "hmap.h"

/* "trace" falls back to "specsfs" below this many extracted sized files. */
#define TBBT_AUG_TRACE_MIN 20

/* The first synthetic ID (2^56): pass 1 numbers objects from 1, pass 3
 * from TBBT_P3_FRESH_BASE (2^48). */
#define TBBT_AUG_ID_BASE (1ull << 56)

/* Refuses to generate more synthetic objects than this (memory guard). */
#define TBBT_AUG_MAX_OBJECTS 500000000ull

/* --- file size distributions --- */
struct tbbt_aug_dist;

/* Parses "trace", "specsfs", "lognormal:MU,SIGMA" or
 * "table:SIZE:WEIGHT,SIZE:WEIGHT,..." (SIZE in bytes with an optional
 * k/M/G/T binary suffix, WEIGHT >= 0, not all 0). Returns a new
 * distribution (free with tbbt_aug_dist_free), or NULL with a one-line
 * message in err. */
struct tbbt_aug_dist *tbbt_aug_dist_parse(const char *spec, char *err, size_t errlen);

void tbbt_aug_dist_free(struct tbbt_aug_dist *d);

/* Appends the distribution in words (the spec it was parsed from). */
void tbbt_aug_dist_describe(const struct tbbt_aug_dist *d, GString *out);

/* Parses a byte count: decimal digits, an optional fraction, an optional
 * k/K, M, G or T suffix (powers of 1024). Returns 0, or -1 when s is not
 * such a number or overflows. */
int tbbt_aug_parse_bytes(const char *s, uint64_t *out);

/* --- parameters --- */
struct tbbt_aug_params {
    uint64_t total_size;              /* bytes of regular files in the whole image; 0 = no size target */
    uint64_t total_objects;           /* distinct objects (IDs) in the whole image; 0 = no object target */
    uint64_t seed;                    /* default 1 */
    const struct tbbt_aug_dist *dist; /* NULL = "trace" */
    double dir_ratio;                 /* synthetic directories per synthetic file, >= 0; default 0.1 */
    double distortion;                /* [0,1], default 0.5 */
    double merge;                     /* [0,1], default 0.5 */
    int owner_set;                    /* use uid/gid below instead of the most common owner */
    uint32_t uid, gid;
};

/* Fills p with the defaults (no target: the caller must set one). */
void tbbt_aug_params_default(struct tbbt_aug_params *p);

/* --- results --- */
struct tbbt_aug_counts {
    uint64_t objects; /* distinct IDs */
    uint64_t files, dirs, symlinks, others;
    uint64_t bytes;     /* sizes of the regular files, each ID once */
    uint32_t max_depth; /* path components below the image root */
};

struct tbbt_aug_stats {
    struct tbbt_aug_counts extracted, added; /* initial image only (create 0) */
    uint64_t eligible_dirs;                  /* extracted directories open to synthetic objects */
    uint64_t merged_files;                   /* synthetic files in extracted directories */
    uint64_t merged_dirs;                    /* synthetic directories directly under extracted ones */
    uint64_t mixed_dirs;                     /* extracted directories given synthetic children */
    double merge_used;                       /* the merge factor, or 0 when no extracted directory is open */
    uint32_t synth_depth;                    /* longest chain of synthetic directories */
    double mean_file_depth;                  /* of the synthetic files, from the image root */
    tbbt_id first_id, last_id;               /* synthetic IDs (0, 0 when none) */
    int owner_known;
    uint32_t uid, gid;
    int size_reached, objects_reached; /* which target stopped the generation */
    char dist[160];                    /* the distribution used, in words */
};

/* --- the augmenter --- */
struct tbbt_aug;

/* A new, empty augmenter. Free with tbbt_aug_free. */
struct tbbt_aug *tbbt_aug_new(void);

void tbbt_aug_free(struct tbbt_aug *a);

/* Adds one input entry (copied), in map order. Before tbbt_aug_run only. */
void tbbt_aug_add(struct tbbt_aug *a, const struct tbbt_hm_entry *e);

/* Reads a whole map with tbbt_hmapr (order checked) and adds its entries;
 * keeps its comment lines. Returns 0, or -1 with "FILE:LINE: ..." or
 * "FILE: ..." in err. */
int tbbt_aug_load(struct tbbt_aug *a, const char *path, char *err, size_t errlen);

/* The input map's comment lines (joined by newlines; "" when none). */
const char *tbbt_aug_comment(const struct tbbt_aug *a);

/* Generates the synthetic objects. Needs at least one target in p; every
 * create-0 entry's parent must be an earlier create-0 entry, or 0 (the
 * image root ".", which must then be a directory never deleted, or a
 * placeholder top). Callable once. Returns 0, or -1 with a one-line
 * message in err ("entry N (ID X): ..." for a map that breaks those rules;
 * parameters out of range, no target, too many objects). */
int tbbt_aug_run(struct tbbt_aug *a, const struct tbbt_aug_params *p, char *err, size_t errlen);

/* The figures of the last run (zeros before it). */
const struct tbbt_aug_stats *tbbt_aug_stats(const struct tbbt_aug *a);

/* Calls fn for every entry of the augmented map in output order (see
 * above); e and its strings are valid during the call only. Stops at the
 * first nonzero return of fn and returns it; 0 when all were visited. */
int tbbt_aug_foreach(const struct tbbt_aug *a, int (*fn)(void *ctx, const struct tbbt_hm_entry *e),
                     void *ctx);

/* Writes the augmented map to path (temporary name renamed at the end);
 * comment (may be NULL) goes into its "# " lines. Returns 0, or -1 with a
 * message in err and no file left behind. */
int tbbt_aug_write(const struct tbbt_aug *a, const char *path, const char *comment, char *err, size_t errlen);

/* Prints the summary (extracted, added, parameters) for people. */
void tbbt_aug_report(const struct tbbt_aug *a, FILE *out);

/* Appends the same figures as one JSON object. */
void tbbt_aug_report_json(const struct tbbt_aug *a, GString *out);

#endif
