/* aging.h -- the schedule of interleaved appends that ages an image
 * (paper 3.3.2).
 *
 * Files are written in appends, each append its own write-and-commit, and
 * the appends of a set of files are interleaved: the files being appended
 * at any moment have a total size of at most the interleaving scope (in
 * 4 KiB blocks: --scope 8192 is 32 MiB). The wider the scope, the farther
 * apart a file's consecutive fragments land on an FFS-like allocator.
 * --appends-per-file sets how many appends build a file (never fewer
 * than one block each), so it tunes the fragments' size.
 *
 * The schedule is a pure function of the files, the options and the seed:
 * the same inputs give the same sequence of appends -- globally, not only
 * per file -- on any server, so two filers get the same image. Files join
 * the active set in the order given (the caller decides it: map order
 * keeps a directory's files together, a shuffle interleaves directories);
 * a file joins when the active set has room for its whole size (a file
 * larger than the scope is written alone); each step picks an active
 * file at random (seeded) and gives its next append; a file leaves the
 * set with its last append. A file that starts alone (nothing else fits
 * beside it) is written in one append: nothing can be interleaved with it,
 * and its extra COMMITs would only cost the server fsyncs. So with a
 * scope of one block, files are written one after the other, each in one
 * go: no interleaving, no aging. */
#ifndef TBBT_AGING_H
#define TBBT_AGING_H

#include <stddef.h>
#include <stdint.h>

#define TBBT_AGE_BLOCK 4096u /* the paper's block */

struct tbbt_age_opts {
    uint64_t scope;            /* interleaving scope in blocks (>= 1) */
    uint32_t appends_per_file; /* >= 1 */
    uint64_t seed;
};

/* One append: bytes [offset, offset + len) of file (an index into the
 * caller's array); last is set on the file's final append. */
struct tbbt_age_step {
    uint32_t file;
    uint64_t offset, len;
    int last;
};

struct tbbt_aging;

/* A schedule over n files of the given sizes (bytes; files of size 0 get
 * no append). sizes is copied. */
struct tbbt_aging *tbbt_aging_new(const struct tbbt_age_opts *o, const uint64_t *sizes, size_t n);

/* The next append. Returns 1 with *s filled, 0 when the schedule is
 * over. */
int tbbt_aging_next(struct tbbt_aging *a, struct tbbt_age_step *s);

/* The appends file i is cut into (the same whatever else is scheduled):
 * fills lens (room for appends_per_file) and returns their number. */
uint32_t tbbt_aging_cuts(const struct tbbt_age_opts *o, uint32_t file, uint64_t size, uint64_t *lens);

void tbbt_aging_free(struct tbbt_aging *a);

#endif
