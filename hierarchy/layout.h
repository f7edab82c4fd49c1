/* layout.h -- how aged is a file system? The on-disk layout of a directory
 * tree measured through FIEMAP (block maps) and the file system's own tools
 * (free space, inode tables), with the metrics of the TBBT paper (3.3.1) and
 * Smith and Seltzer's layout score. Used by tbbt-layout, by tbbt-init's
 * tests and by bench/init. Read-only: nothing under the measured path is
 * written (FIEMAP_FLAG_SYNC only flushes data already written).
 *
 * Units. Every block figure is in file-system blocks (statvfs f_bsize,
 * 4 KiB on ext4 by default), physical block b = FIEMAP fe_physical / bsize.
 *
 * Metric definitions (regular files only; directories serve only as the
 * parents of parent distance). For one file, take its data blocks with a
 * known physical address in logical order b_0 .. b_{n-1}, p(b) their
 * physical block numbers:
 *   - block pair: (b_{i-1}, b_i), i = 1..n-1; a file has n-1 of them.
 *   - contiguous pair: p(b_i) == p(b_{i-1}) + 1.
 *   - layout score (Smith and Seltzer 1997, 4.1): "the fraction of that
 *     file's blocks that are optimally allocated. An optimally allocated
 *     block is one that is contiguous with the preceding block of the same
 *     file. The first block of a file is not included in this calculation
 *     [...] layout score is not defined for one block files"; the aggregate
 *     score of a set of files is "the fraction of the blocks in all of the
 *     files that are optimally allocated (again ignoring the first block of
 *     each file and one block files)" = sum(contiguous pairs) / sum(pairs).
 *   - block distance of a pair (TBBT: "the number of physical blocks between
 *     two adjacent logical blocks in an object"):
 *         |p(b_i) - p(b_{i-1}) - 1|
 *     i.e. how many blocks a sequential reader skips, forwards or back, to
 *     get from the end of b_{i-1} to b_i: 0 for a contiguous pair, k when
 *     k blocks lie between them, k + 1 when b_i starts k blocks before
 *     b_{i-1} (the reader is at p(b_{i-1}) + 1).
 *   - fragment (TBBT: "a contiguous range of blocks within an object"): a
 *     maximal run of consecutive data blocks whose pairs are all contiguous.
 *     Fragment size: its blocks. Fragment distance (TBBT: "the number of
 *     physical blocks between two adjacent fragments of the same object"):
 *     the block distance of the pair that separates them.
 *   - averages, weighted as the paper says ("calculated over all
 *     fragments/blocks [...] files of different size are weighted
 *     accordingly"), over a set S of files:
 *         avg block distance    = sum of block distances / sum of pairs
 *         avg fragment size     = sum of blocks / sum of fragments
 *         avg fragment distance = sum of block distances / sum of fragment
 *                                 pairs (fragments - 1 per file)
 *     (the paper's identity avg fragment distance = avg block distance x avg
 *     fragment size then holds up to the one pair and one fragment per file
 *     set aside: exactly when pairs/fragment pairs = blocks/fragments).
 *   - inode distance (TBBT: "the number of physical blocks between an
 *     object's inode and its first data block"): |p(b_0) - i| where i is the
 *     block of the inode table holding the file's inode (ext2/3/4, from
 *     dumpe2fs on --device; XFS: the inode number decoded with the
 *     geometry xfs_db reads on --device); averaged over the files with data
 *     blocks.
 *   - parent distance ("between the first block of an object and that of its
 *     parent directory"): |p(b_0) - d_0|, d_0 = the first physical block of
 *     the directory the walk found the file in (FIEMAP on the directory,
 *     which ext4 and XFS answer; directories without blocks, such as
 *     ext4 inline-data ones, give no parent distance).
 *   Averages with nothing to average over are undefined: NaN here, null in
 *   JSON, "-" in text.
 *
 * FIEMAP extents. Holes are skipped: the first block after a hole is paired
 * with the last block before it (a sequential reader of the file skips the
 * hole too). Unwritten (preallocated) extents are allocated blocks and count
 * like written ones (and are counted apart as unwritten_blocks). Extents
 * whose address is unknown (FIEMAP_EXTENT_UNKNOWN, _DELALLOC after the sync)
 * or not a block of its own (_DATA_INLINE, _DATA_TAIL, _NOT_ALIGNED: data
 * inside metadata) are left out like holes and counted (other_extents). A
 * file with no data block left (empty, all hole, inline) is counted in files
 * but adds nothing to the block metrics. Encoded (compressed) extents count
 * by their logical length at their physical start: approximate.
 *
 * Size buckets by st_size: <=4K, <=16K, <=64K, <=256K, <=1M, <=4M, >4M
 * (K = 1024 bytes), plus the aggregate "all".
 *
 * Free space ("the average fragment size of the special free space
 * object"): for ext2/3/4, `e2freefrag DEVICE` (which on a mounted file system
 * asks the kernel through GETFSMAP, so it sees the live state); for XFS,
 * `xfs_spaceman -c "freesp -s" PATH` (GETFSMAP too, no --device needed) or,
 * without xfs_spaceman, `xfs_db -r -c "freesp -s" DEVICE` (the on-disk
 * btrees: on a mounted file system they may lag behind its log); otherwise
 * not available.
 *
 * JSON (--json FILE; tbbt_layout_report_json), one object:
 *   {"tool": "tbbt-layout VERSION", "path": P, "device": D | null,
 *    "fs_type": "ext2/ext3/ext4" | "xfs" | "btrfs" | "0x<magic>",
 *    "block_size": bytes,
 *    "dirs": directories walked, "hard_links_skipped": names of a file
 *    already measured (a file counts once), "skipped_other_fs": entries on another
 *    mount (not entered), "unreadable": files that could not be mapped,
 *    "inode_distance": {"available": bool, "why": text | null},
 *    "parent_distance": {"available": bool, "why": text | null},
 *    "all": {"label": "all", METRICS...},
 *    "buckets": [ {"label": "<=4K", "max_bytes": 4096, METRICS...}, ...,
 *                 {"label": ">4M", "max_bytes": null, METRICS...} ],
 *    "free_space": {"available": bool, "why": text | null,
 *                   "source": "e2freefrag" | "xfs_spaceman" | "xfs_db" | null,
 *                   "free_blocks": n, "free_extents": n,
 *                   "avg_free_extent_blocks": x | null,
 *                   "histogram": [ {"min_bytes": n, "max_bytes": n | null,
 *                                   "extents": n, "blocks": n}, ... ]},
 *    "per_file": [ {"path": P, "size": bytes, METRICS...}, ... ] (only with
 *                 --files)}
 *   METRICS = "files", "files_with_blocks", "bytes" (sum of st_size),
 *     "blocks", "unwritten_blocks", "other_extents", "fragments",
 *     "block_pairs", "contiguous_pairs", "fragment_pairs",
 *     "block_distance_sum", "layout_score", "avg_block_distance",
 *     "avg_fragment_size", "avg_fragment_distance", "inode_distance_files",
 *     "avg_inode_distance", "parent_distance_files", "avg_parent_distance"
 *     (averages and the score: number or null when undefined).
 *   Histogram bins are e2freefrag's power-of-two ranges [min, max) (max
 *   null for its last, open bin) or xfs_db's [from, to] block ranges
 *   converted to bytes [from x bs, (to + 1) x bs).
 *   free_blocks and free_extents are 0 and the histogram empty when not
 *   available. The figures with --device auto name the device found.
 */
#ifndef TBBT_LAYOUT_H
#define TBBT_LAYOUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <glib.h>
#include <linux/fiemap.h>

/* One extent in file-system blocks (FIEMAP's byte extents divided by the
 * block size; tbbt_layout_file_add_fiemap says how flags are handled). */
struct tbbt_layout_ext {
    uint64_t logical;  /* first logical block */
    uint64_t physical; /* first physical block */
    uint64_t len;      /* blocks, >= 1 */
};

/* Sums over a set of files (one file, a size bucket, all): every average
 * is a ratio of two of these, so sets add up exactly. */
struct tbbt_layout_sums {
    uint64_t files, files_with_blocks, bytes;
    uint64_t blocks, unwritten_blocks, other_extents;
    uint64_t fragments, pairs, contiguous, fragment_pairs;
    uint64_t dist_sum;                 /* sum of block distances */
    uint64_t inode_files, inode_sum;   /* files with an inode distance */
    uint64_t parent_files, parent_sum; /* files with a parent distance */
};

/* The state of one file while its extents are added in logical order. */
struct tbbt_layout_file {
    struct tbbt_layout_sums s; /* this file's sums (files = 1) */
    int have_block;            /* a data block was seen */
    uint64_t first_phys;       /* physical block of the first data block */
    uint64_t last_phys;        /* ... of the last one so far */
};

/* Starts a file of size bytes. */
void tbbt_layout_file_init(struct tbbt_layout_file *f, uint64_t size);

/* Adds an extent that follows the previous ones in logical order (FIEMAP's
 * order): its blocks after the file's last block so far. */
void tbbt_layout_file_add(struct tbbt_layout_file *f, const struct tbbt_layout_ext *e);

/* Adds one FIEMAP extent of a file system with bs-byte blocks, flags
 * handled as the top comment says: unknown or inline extents are counted
 * in other_extents and otherwise skipped; unwritten ones are added and
 * counted in unwritten_blocks too. */
void tbbt_layout_file_add_fiemap(struct tbbt_layout_file *f, const struct fiemap_extent *fe, uint64_t bs);

/* Adds the file's inode and parent distances to its sums, given the
 * physical block of its inode (has_inode) and of its directory's first
 * block (has_parent); nothing when the file has no data block. */
void tbbt_layout_file_finish(struct tbbt_layout_file *f, int has_inode, uint64_t inode_block, int has_parent,
                             uint64_t parent_block);

/* dst += src. */
void tbbt_layout_sums_add(struct tbbt_layout_sums *dst, const struct tbbt_layout_sums *src);

/* The averages of a set (NaN when undefined, layout.h's top comment says
 * how each is defined). */
double tbbt_layout_score(const struct tbbt_layout_sums *s);
double tbbt_layout_avg_block_distance(const struct tbbt_layout_sums *s);
double tbbt_layout_avg_fragment_size(const struct tbbt_layout_sums *s);
double tbbt_layout_avg_fragment_distance(const struct tbbt_layout_sums *s);
double tbbt_layout_avg_inode_distance(const struct tbbt_layout_sums *s);
double tbbt_layout_avg_parent_distance(const struct tbbt_layout_sums *s);

/* The size buckets: TBBT_LAYOUT_NBUCKETS of them, bucket i holding sizes
 * up to tbbt_layout_bucket_max[i] (the last one: UINT64_MAX). */
#define TBBT_LAYOUT_NBUCKETS 7
extern const uint64_t tbbt_layout_bucket_max[TBBT_LAYOUT_NBUCKETS];
extern const char *const tbbt_layout_bucket_label[TBBT_LAYOUT_NBUCKETS];
int tbbt_layout_bucket(uint64_t size);

/* --- free space and inode tables (layout_fs.c) --- */

/* One bin of a free-extent histogram, in bytes [min, max). */
struct tbbt_layout_freebin {
    uint64_t min_bytes, max_bytes, extents, blocks;
};

/* The free-space object. available = 0 and why say when it could not be
 * measured. */
struct tbbt_layout_freesp {
    int available;
    char why[256];
    const char *source; /* "e2freefrag", "xfs_spaceman", "xfs_db", NULL */
    uint64_t free_blocks, free_extents;
    double avg_extent_blocks; /* NaN when there is no free extent */
    GArray *bins;             /* of struct tbbt_layout_freebin, owned */
};

/* Parses e2freefrag's report (block size bs bytes, to turn its KB figures
 * into blocks) into fr (bins allocated here). Returns 0, or -1 with a
 * message saying which line is wrong. */
int tbbt_layout_parse_e2freefrag(const char *text, struct tbbt_layout_freesp *fr, char *err, size_t errlen);

/* Parses `xfs_db -r -c "freesp -s"` or `xfs_spaceman -c "freesp -s"`
 * output (bs = the block size in bytes) into fr (source "xfs_db"). Returns 0 or -1 with a message. */
int tbbt_layout_parse_xfs_freesp(const char *text, uint64_t bs, struct tbbt_layout_freesp *fr, char *err,
                                 size_t errlen);

/* Frees fr's bins (fr itself is the caller's). */
void tbbt_layout_freesp_clear(struct tbbt_layout_freesp *fr);

/* Where ext2/3/4 keep their inodes: from dumpe2fs's report. */
struct tbbt_layout_ext2 {
    uint64_t block_size, inodes_per_group, inode_size;
    char uuid[40];  /* "Filesystem UUID" as printed */
    GArray *itable; /* of uint64_t: each group's first inode-table block */
};

/* Parses dumpe2fs's full report (header and groups). Returns 0, or -1 with
 * a message (a field or group missing). e->itable allocated here. */
int tbbt_layout_parse_dumpe2fs(const char *text, struct tbbt_layout_ext2 *e, char *err, size_t errlen);

/* The block of the inode table holding inode ino, or -1 when ino is out
 * of the file system's range. */
int tbbt_layout_ext2_inode_block(const struct tbbt_layout_ext2 *e, uint64_t ino, uint64_t *block);

/* Frees e's table. */
void tbbt_layout_ext2_clear(struct tbbt_layout_ext2 *e);

/* Where XFS keeps its inodes: an inode number is (AG number, block in the
 * AG, inode in the block) in agblklog + inopblog low bits; FIEMAP's linear
 * block is AG number x agblocks + block in the AG. */
struct tbbt_layout_xfs {
    uint64_t agblocks, agblklog, inopblog, blocksize;
};

/* Parses xfs_db's `sb 0` `p agblocks agblklog inopblog blocksize` lines
 * ("name = value"). Returns 0, or -1 with a message naming what is
 * missing. */
int tbbt_layout_parse_xfs_sb(const char *text, struct tbbt_layout_xfs *x, char *err, size_t errlen);

/* The linear block (FIEMAP's unit) holding XFS inode ino. Returns 0. */
int tbbt_layout_xfs_inode_block(const struct tbbt_layout_xfs *x, uint64_t ino, uint64_t *block);

/* The 64-bit fsid that Linux's ext4 statfs reports for a UUID given as
 * text ("84470fd6-3ae5-..."), to check that --device holds the measured
 * file system. Returns 0, or -1 when uuid is not a UUID. */
int tbbt_layout_ext4_fsid(const char *uuid, uint32_t fsid[2]);

/* Runs argv (argv[0] looked up in PATH) and returns its standard output
 * (g_free it), or NULL with a message (not found, exit status and the
 * first line of its standard error) in err. */
char *tbbt_layout_run_tool(const char *const *argv, char *err, size_t errlen);

/* --- the measurement (layout.c) --- */

struct tbbt_layout_opts {
    const char *path;   /* the tree to measure */
    const char *device; /* its device or image, "auto" (the block device
                           PATH is on, found through sysfs), or NULL */
    int per_file;       /* keep a line per file */
};

struct tbbt_layout;

/* Walks opts->path (not crossing into other file systems, not following
 * symbolic links), maps every regular file and measures free space and
 * inode distance when opts->device allows it. Returns the measurement
 * (free with tbbt_layout_free), or NULL with a one-line message naming the
 * path in err. Files that vanish or cannot be opened during the walk are
 * counted (unreadable), not errors; a file system without FIEMAP is. */
struct tbbt_layout *tbbt_layout_measure(const struct tbbt_layout_opts *opts, char *err, size_t errlen);

/* The aggregate ("all") and bucket i's sums of a measurement. */
const struct tbbt_layout_sums *tbbt_layout_all(const struct tbbt_layout *l);
const struct tbbt_layout_sums *tbbt_layout_bucket_sums(const struct tbbt_layout *l, int i);
const struct tbbt_layout_freesp *tbbt_layout_free_space(const struct tbbt_layout *l);

/* Prints the aligned text report to out. */
void tbbt_layout_report(const struct tbbt_layout *l, FILE *out);

/* Appends the JSON object described above (without a newline). */
void tbbt_layout_report_json(const struct tbbt_layout *l, const char *tool, GString *out);

/* Frees a measurement (NULL is fine). */
void tbbt_layout_free(struct tbbt_layout *l);

#endif
