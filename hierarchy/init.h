/* init.h -- tbbt-init: build a hierarchy map's initial image on an NFS
 * server, aged by interleaved appends (paper 3.2-3.3), through NFSv3 alone.
 *
 * Everything happens inside one run directory of the export, RUN (default
 * "tbbt-run"): the image of clone i is RUN/clone.i, the synthetic filler
 * files RUN/fill, the manifest RUN/manifest, and the marker RUN/.tbbt-run
 * says the directory is tbbt-init's. tbbt-init refuses a RUN it did not
 * make (no marker), and a RUN it made unless told to replace it (then it
 * empties it first: everything below RUN, nothing else). Outside RUN it
 * only looks up RUN's name, makes RUN, and asks FSSTAT/FSINFO.
 *
 * Steps: (1) the run directory; (2) every object of the map's initial
 * image (createTime 0), parents before children, with the map's mode,
 * uid and gid, many calls in flight -- hard links as LINK to the first
 * path, empty regular files; (3) the files' data in appends, each append
 * its own WRITEs then COMMIT, on the schedule of aging.h (the interleaving
 * scope and appends per file), with synthetic filler files interleaved in
 * the same scope when a fullness is asked; (4) the fillers that occupied
 * free space removed, leaving it fragmented, the rest kept so the export's
 * utilization (FSSTAT) lands on the fullness asked; (5) the manifest (every
 * initial TBBT-ID, per clone, with its path and handle) written beside the
 * map and in RUN, and the marker marked complete. */
#ifndef TBBT_INIT_H
#define TBBT_INIT_H

#include <glib.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "nfsconn.h"

struct tbbt_init_opts {
    const char *map; /* the hierarchy map */
    struct tbbt_nfs_server server;
    const char *run;           /* run directory name in the export (one component) */
    const char *manifest;      /* local manifest path (default: the map's, .hmap -> .manifest) */
    int clones;                /* >= 1 */
    int replace;               /* empty a RUN of tbbt-init's and build anew */
    uint64_t scope;            /* interleaving scope in 4 KiB blocks (1 = none) */
    uint32_t appends_per_file; /* >= 1 */
    int interleave_dirs;       /* shuffle files of all directories together */
    double fullness;           /* utilization to leave, 0..1; < 0: no fillers */
    uint64_t filler_size;      /* bytes per filler file */
    uint64_t seed;
    int depth;         /* calls in flight */
    int connections;   /* TCP connections */
    uint32_t uid, gid; /* credentials of tbbt-init's calls */
    int timeout;       /* seconds without any reply before giving up */
    int quiet;         /* no progress lines */
};

/* tbbt-init's defaults, written once: tbbt_init_opts_default sets them and
 * tbbt-init's option table (init_main.c) shows and parses them. */
#define TBBT_INIT_RUN "tbbt-run"
#define TBBT_INIT_CLONES 1
#define TBBT_INIT_SCOPE 1
#define TBBT_INIT_APPENDS 1
#define TBBT_INIT_FILLER_SIZE 1048576
#define TBBT_INIT_SEED 1
#define TBBT_INIT_DEPTH 64
#define TBBT_INIT_CONNECTIONS 1
#define TBBT_INIT_TIMEOUT 60

/* Sets o to the defaults above (no fullness: no fillers). */
void tbbt_init_opts_default(struct tbbt_init_opts *o);

struct tbbt_init_stats {
    uint64_t objects, dirs, files, symlinks, others, links; /* per clone times clones */
    uint64_t owners_refused; /* creations whose uid/gid the server refused (made without) */
    uint64_t refused;        /* map entries not made: unsafe name, or under one (safename.h) */
    uint64_t dir_aliases;    /* second paths of a directory in the map, not made */
    uint64_t image_bytes;    /* bytes of the kept files, all clones */
    uint64_t fill_written, fill_deleted, fillers, fillers_deleted;
    uint64_t appends, writes, commits;
    uint64_t rewritten; /* appends written again: the write verifier changed (the server restarted) */
    uint64_t tbytes, used_before, used_after; /* FSSTAT */
    double fullness_after;         /* 1 - fbytes/tbytes after the fillers' removal; < 0 if unknown */
    int fill_stopped;              /* the export filled up before the fillers were all written */
    double wall, create_s, data_s; /* seconds */
    uint64_t removed_before;       /* objects removed from a replaced RUN */
    uint64_t reconnects, resent;   /* connections made again (the server restarted), calls sent again */
    uint64_t exist_after_retry;    /* creations sent again that met EXIST: made by their first sending */
    int complete;                  /* the run finished: manifest written, marker "complete" */
};

/* Set (by a signal handler) to stop a run at its next wait: it fails with
 * "interrupted", the marker left saying "building". */
extern volatile sig_atomic_t tbbt_init_interrupted;

/* Runs tbbt-init. Returns 0, or -1 with a one-line message in err. */
int tbbt_init_run(const struct tbbt_init_opts *o, struct tbbt_init_stats *st, char *err, size_t errlen);

/* The summary for people, and as one JSON object ("complete": false and
 * "error" when error is not NULL: the run failed, the image is partial). */
void tbbt_init_report(const struct tbbt_init_opts *o, const struct tbbt_init_stats *st, FILE *out);
void tbbt_init_report_json(const struct tbbt_init_opts *o, const struct tbbt_init_stats *st,
                           const char *error, GString *out);

#endif
