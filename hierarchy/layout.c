/* layout.c -- the layout metrics of layout.h: per-file computation from
 * extent lists, the walk that FIEMAPs every regular file of a tree, and the
 * text and JSON reports. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statfs.h>

#include "layout.h"
#include "rectext.h"

#ifndef XFS_SUPER_MAGIC
#define XFS_SUPER_MAGIC 0x58465342
#endif

/* Extents asked for in one FIEMAP call. */
#define LAYOUT_BATCH 512

const uint64_t tbbt_layout_bucket_max[TBBT_LAYOUT_NBUCKETS] = {4096,     16384,    65536,     262144,
                                                               1u << 20, 4u << 20, UINT64_MAX};
const char *const tbbt_layout_bucket_label[TBBT_LAYOUT_NBUCKETS] = {"<=4K", "<=16K", "<=64K", "<=256K",
                                                                    "<=1M", "<=4M",  ">4M"};

/* Where inode numbers are located: not at all, ext2/3/4, XFS. */
enum { LAYOUT_INODE_NONE, LAYOUT_INODE_EXT2, LAYOUT_INODE_XFS };

/* One file of the per-file listing. */
struct layout_pf {
    char *path;
    uint64_t size;
    struct tbbt_layout_sums s;
};

struct tbbt_layout {
    char *path, *device;
    char fs_type[32];
    uint32_t fs_magic;
    uint64_t bs;
    dev_t dev;
    uint64_t dirs, other_fs, unreadable, links;
    char first_unreadable[512];
    GHashTable *seen; /* inode numbers of files with several links */
    struct tbbt_layout_sums all, bucket[TBBT_LAYOUT_NBUCKETS];
    int inode_kind; /* LAYOUT_INODE_*: how inode distance is known */
    char inode_why[512];
    struct tbbt_layout_ext2 e2;
    struct tbbt_layout_xfs xfs;
    struct tbbt_layout_freesp fr;
    GArray *files; /* of struct layout_pf, with --files */
};

/* See layout.h. */
int tbbt_layout_bucket(uint64_t size) {
    int i = 0;
    while (size > tbbt_layout_bucket_max[i])
        i++;
    return i;
}

/* See layout.h. */
void tbbt_layout_file_init(struct tbbt_layout_file *f, uint64_t size) {
    memset(f, 0, sizeof(*f));
    f->s.files = 1, f->s.bytes = size;
}

/* See layout.h: the pair that joins the extent to the previous block, then
 * len - 1 contiguous pairs inside it. */
void tbbt_layout_file_add(struct tbbt_layout_file *f, const struct tbbt_layout_ext *e) {
    if (!e->len) return;
    struct tbbt_layout_sums *s = &f->s;
    if (!f->have_block) {
        f->have_block = 1, f->first_phys = e->physical;
        s->files_with_blocks = 1, s->fragments = 1;
    } else {
        s->pairs++;
        if (e->physical == f->last_phys + 1) {
            s->contiguous++;
        } else {
            s->dist_sum +=
                e->physical > f->last_phys ? e->physical - f->last_phys - 1 : f->last_phys - e->physical + 1;
            s->fragments++, s->fragment_pairs++;
        }
    }
    s->pairs += e->len - 1, s->contiguous += e->len - 1;
    s->blocks += e->len;
    f->last_phys = e->physical + e->len - 1;
}

/* See layout.h. */
void tbbt_layout_file_add_fiemap(struct tbbt_layout_file *f, const struct fiemap_extent *fe, uint64_t bs) {
    const uint32_t skip = FIEMAP_EXTENT_UNKNOWN | FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_DATA_INLINE |
                          FIEMAP_EXTENT_DATA_TAIL | FIEMAP_EXTENT_NOT_ALIGNED;
    if ((fe->fe_flags & skip) || !fe->fe_length) {
        f->s.other_extents++;
        return;
    }
    struct tbbt_layout_ext e;
    e.logical = fe->fe_logical / bs;
    e.physical = fe->fe_physical / bs;
    e.len = (fe->fe_logical + fe->fe_length + bs - 1) / bs - e.logical;
    if (fe->fe_flags & FIEMAP_EXTENT_UNWRITTEN) f->s.unwritten_blocks += e.len;
    tbbt_layout_file_add(f, &e);
}

/* |a - b|. */
static uint64_t absdiff(uint64_t a, uint64_t b) {
    return a > b ? a - b : b - a;
}

/* See layout.h. */
void tbbt_layout_file_finish(struct tbbt_layout_file *f, int has_inode, uint64_t inode_block, int has_parent,
                             uint64_t parent_block) {
    if (!f->have_block) return;
    if (has_inode) f->s.inode_files = 1, f->s.inode_sum = absdiff(f->first_phys, inode_block);
    if (has_parent) f->s.parent_files = 1, f->s.parent_sum = absdiff(f->first_phys, parent_block);
}

/* See layout.h. */
void tbbt_layout_sums_add(struct tbbt_layout_sums *d, const struct tbbt_layout_sums *s) {
    d->files += s->files, d->files_with_blocks += s->files_with_blocks, d->bytes += s->bytes;
    d->blocks += s->blocks, d->unwritten_blocks += s->unwritten_blocks, d->other_extents += s->other_extents;
    d->fragments += s->fragments, d->pairs += s->pairs, d->contiguous += s->contiguous;
    d->fragment_pairs += s->fragment_pairs, d->dist_sum += s->dist_sum;
    d->inode_files += s->inode_files, d->inode_sum += s->inode_sum;
    d->parent_files += s->parent_files, d->parent_sum += s->parent_sum;
}

/* a / b, NaN when b is 0. */
static double ratio(uint64_t a, uint64_t b) {
    return b ? (double)a / (double)b : NAN;
}

/* See layout.h (all of them). */
double tbbt_layout_score(const struct tbbt_layout_sums *s) {
    return ratio(s->contiguous, s->pairs);
}
double tbbt_layout_avg_block_distance(const struct tbbt_layout_sums *s) {
    return ratio(s->dist_sum, s->pairs);
}
double tbbt_layout_avg_fragment_size(const struct tbbt_layout_sums *s) {
    return ratio(s->blocks, s->fragments);
}
double tbbt_layout_avg_fragment_distance(const struct tbbt_layout_sums *s) {
    return ratio(s->dist_sum, s->fragment_pairs);
}
double tbbt_layout_avg_inode_distance(const struct tbbt_layout_sums *s) {
    return ratio(s->inode_sum, s->inode_files);
}
double tbbt_layout_avg_parent_distance(const struct tbbt_layout_sums *s) {
    return ratio(s->parent_sum, s->parent_files);
}

/* --- the walk --- */

/* The walk's state: the measurement, a reusable FIEMAP buffer, the path of
 * the entry being looked at, and the error of a fatal failure. */
struct walker {
    struct tbbt_layout *l;
    struct fiemap *fm;
    GString *path;
    char *err;
    size_t errlen;
};

/* Maps fd's blocks into f, in batches of LAYOUT_BATCH extents, syncing the
 * file first. Returns 0, or -1 with errno set by the ioctl. */
static int map_fd(struct walker *w, int fd, struct tbbt_layout_file *f) {
    uint64_t start = 0;
    uint32_t flags = FIEMAP_FLAG_SYNC;
    for (;;) {
        memset(w->fm, 0, sizeof(*w->fm));
        w->fm->fm_start = start, w->fm->fm_length = FIEMAP_MAX_OFFSET - start;
        w->fm->fm_flags = flags, w->fm->fm_extent_count = LAYOUT_BATCH;
        if (ioctl(fd, FS_IOC_FIEMAP, w->fm) < 0) return -1;
        uint32_t n = w->fm->fm_mapped_extents;
        if (!n) return 0;
        for (uint32_t i = 0; i < n; i++)
            tbbt_layout_file_add_fiemap(f, &w->fm->fm_extents[i], w->l->bs);
        const struct fiemap_extent *last = &w->fm->fm_extents[n - 1];
        if ((last->fe_flags & FIEMAP_EXTENT_LAST) || last->fe_logical + last->fe_length <= start) return 0;
        start = last->fe_logical + last->fe_length, flags = 0;
    }
}

/* Opens name in directory dfd read-only without following a symbolic link
 * and, where allowed, without touching its access time. Returns the fd or
 * -1 (errno). */
static int open_ro(int dfd, const char *name, int extra) {
    int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOATIME | extra);
    if (fd < 0 && errno == EPERM) fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | extra);
    return fd;
}

/* Counts the current entry as unreadable (errno e), keeping the first
 * message. */
static void unreadable(struct walker *w, const char *what, int e) {
    if (!w->l->unreadable++)
        g_snprintf(w->l->first_unreadable, sizeof(w->l->first_unreadable), "%s: %s: %s", w->path->str, what,
                   g_strerror(e));
}

/* Whether errno e from FIEMAP means the file system does not do FIEMAP. */
static int no_fiemap(int e) {
    return e == EOPNOTSUPP || e == ENOTTY || e == EINVAL;
}

static int inode_block(const struct tbbt_layout *l, uint64_t ino, uint64_t *b);

/* Measures the regular file name in dfd (st its lstat), whose directory
 * starts at block parent (has_parent). Returns 0, or -1 when FIEMAP is not
 * supported at all (fatal, message in w->err). */
static int visit_file(struct walker *w, int dfd, const char *name, const struct stat *st, int has_parent,
                      uint64_t parent) {
    struct tbbt_layout *l = w->l;
    if (st->st_nlink > 1) { /* a hard link to a file already measured counts once */
        guint64 ino = st->st_ino;
        if (g_hash_table_contains(l->seen, &ino)) {
            l->links++;
            return 0;
        }
        g_hash_table_add(l->seen, g_memdup2(&ino, sizeof(ino)));
    }
    int fd = open_ro(dfd, name, 0);
    if (fd < 0) {
        unreadable(w, "open", errno);
        return 0;
    }
    struct tbbt_layout_file f;
    tbbt_layout_file_init(&f, (uint64_t)st->st_size);
    int rc = map_fd(w, fd, &f), e = errno;
    close(fd);
    if (rc < 0 && no_fiemap(e)) {
        g_snprintf(w->err, w->errlen, "%s: FIEMAP not supported (%s file system): %s", w->path->str,
                   l->fs_type, g_strerror(e));
        return -1;
    }
    if (rc < 0) {
        unreadable(w, "FIEMAP", e);
        return 0;
    }
    uint64_t ib = 0;
    int has_inode = inode_block(l, st->st_ino, &ib) == 0;
    tbbt_layout_file_finish(&f, has_inode, ib, has_parent, parent);
    tbbt_layout_sums_add(&l->all, &f.s);
    tbbt_layout_sums_add(&l->bucket[tbbt_layout_bucket(f.s.bytes)], &f.s);
    if (l->files) {
        struct layout_pf pf = {g_strdup(w->path->str), f.s.bytes, f.s};
        g_array_append_val(l->files, pf);
    }
    return 0;
}

static int walk_dir(struct walker *w, int dfd);

/* Looks at entry name of directory dfd (w->path names it), whose first
 * block is parent (has_parent). Returns 0 or -1 (fatal). */
static int visit(struct walker *w, int dfd, const char *name, int has_parent, uint64_t parent) {
    struct stat st;
    if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0) {
        unreadable(w, "stat", errno);
        return 0;
    }
    if (st.st_dev != w->l->dev) {
        w->l->other_fs++;
        return 0;
    }
    if (S_ISREG(st.st_mode)) return visit_file(w, dfd, name, &st, has_parent, parent);
    if (!S_ISDIR(st.st_mode)) return 0;
    int fd = open_ro(dfd, name, O_DIRECTORY);
    if (fd < 0) {
        unreadable(w, "open", errno);
        return 0;
    }
    return walk_dir(w, fd);
}

/* Walks the directory open at dfd (closed here), whose path is w->path:
 * maps its own blocks for its children's parent distance, then visits each
 * entry. Returns 0 or -1 (fatal). */
static int walk_dir(struct walker *w, int dfd) {
    struct tbbt_layout_file d;
    tbbt_layout_file_init(&d, 0);
    int has_parent = map_fd(w, dfd, &d) == 0 && d.have_block;
    w->l->dirs++;
    DIR *dir = fdopendir(dfd);
    if (!dir) {
        unreadable(w, "opendir", errno);
        close(dfd);
        return 0;
    }
    size_t len = w->path->len;
    int rc = 0;
    struct dirent *de;
    while (rc == 0 && (errno = 0, de = readdir(dir))) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
        if (w->path->len && w->path->str[w->path->len - 1] != '/') g_string_append_c(w->path, '/');
        g_string_append(w->path, de->d_name);
        rc = visit(w, dirfd(dir), de->d_name, has_parent, d.first_phys);
        g_string_truncate(w->path, len);
    }
    if (rc == 0 && errno) unreadable(w, "readdir", errno);
    closedir(dir);
    return rc;
}

/* --- the file system and its tools --- */

/* Names the file system of magic m into buf. */
static void fs_name(uint32_t m, char *buf, size_t n) {
    switch (m) {
    case EXT4_SUPER_MAGIC: g_strlcpy(buf, "ext2/ext3/ext4", n); break;
    case XFS_SUPER_MAGIC: g_strlcpy(buf, "xfs", n); break;
    case BTRFS_SUPER_MAGIC: g_strlcpy(buf, "btrfs", n); break;
    case TMPFS_MAGIC: g_strlcpy(buf, "tmpfs", n); break;
    case NFS_SUPER_MAGIC: g_strlcpy(buf, "nfs", n); break;
    default: g_snprintf(buf, n, "0x%x", m);
    }
}

/* Reads sysfs file /sys/dev/block/MAJ:MIN/rel of block device dev,
 * without its trailing newline, or NULL (g_free the result). */
static char *sysfs_block(dev_t dev, const char *rel) {
    char *p = g_strdup_printf("/sys/dev/block/%u:%u/%s", major(dev), minor(dev), rel), *text = NULL;
    if (!g_file_get_contents(p, &text, NULL, NULL)) text = NULL;
    g_free(p);
    return text ? g_strchomp(text) : NULL;
}

/* The /dev path of block device dev, from sysfs's uevent (DEVNAME=),
 * or NULL (g_free the result). */
static char *device_of(dev_t dev) {
    char *text = sysfs_block(dev, "uevent"), *found = NULL;
    char **lines = g_strsplit(text ? text : "", "\n", -1);
    for (int i = 0; lines[i] && !found; i++)
        if (g_str_has_prefix(lines[i], "DEVNAME=")) found = g_strconcat("/dev/", lines[i] + 8, NULL);
    g_strfreev(lines);
    g_free(text);
    return found;
}

/* Checks that l->device holds the file system on dev: a block device must
 * be dev itself; an image file must be the one behind dev when dev is a
 * loop device (other cases cannot be told here: ext's UUID check does).
 * Returns 0, or -1 with a message. An unreadable device is left to the
 * tools, which then say why. */
static int check_device(const struct tbbt_layout *l, char *err, size_t errlen) {
    struct stat ds, bs;
    if (stat(l->device, &ds) < 0) return 0;
    if (S_ISBLK(ds.st_mode) && ds.st_rdev != l->dev) {
        g_snprintf(err, errlen, "%s: device %u:%u, but %s is on %u:%u", l->device, major(ds.st_rdev),
                   minor(ds.st_rdev), l->path, major(l->dev), minor(l->dev));
        return -1;
    }
    if (!S_ISREG(ds.st_mode)) return 0;
    char *backing = sysfs_block(l->dev, "loop/backing_file");
    int rc = 0;
    if (backing && (stat(backing, &bs) < 0 || bs.st_dev != ds.st_dev || bs.st_ino != ds.st_ino)) {
        g_snprintf(err, errlen, "%s: not the image of %s (its loop device reads %s)", l->device, l->path,
                   backing);
        rc = -1;
    }
    g_free(backing);
    return rc;
}

/* Loads ext2/3/4's inode tables from dumpe2fs on l->device and checks that
 * the device holds the measured file system (fsid fsid). Returns 0 (inode
 * distance available or not, l->inode_why says why not), or -1 when the
 * device is another file system (message in err). */
static int load_ext2(struct tbbt_layout *l, const uint32_t fsid[2], char *err, size_t errlen) {
    char terr[512];
    const char *argv[] = {"dumpe2fs", l->device, NULL};
    char *out = tbbt_layout_run_tool(argv, terr, sizeof(terr));
    int rc = out ? tbbt_layout_parse_dumpe2fs(out, &l->e2, terr, sizeof(terr)) : -1;
    g_free(out);
    if (rc < 0) {
        g_snprintf(l->inode_why, sizeof(l->inode_why), "not available: %s", terr);
        return 0;
    }
    uint32_t want[2];
    if (tbbt_layout_ext4_fsid(l->e2.uuid, want) < 0 || want[0] != fsid[0] || want[1] != fsid[1]) {
        g_snprintf(err, errlen, "%s: not the file system of %s (UUID %s; statfs fsid %08x%08x)", l->device,
                   l->path, l->e2.uuid[0] ? l->e2.uuid : "none", fsid[0], fsid[1]);
        return -1;
    }
    if (l->e2.block_size != l->bs) {
        g_snprintf(err, errlen, "%s: block size %llu, but %s has %llu", l->device,
                   (unsigned long long)l->e2.block_size, l->path, (unsigned long long)l->bs);
        return -1;
    }
    l->inode_kind = LAYOUT_INODE_EXT2;
    g_snprintf(l->inode_why, sizeof(l->inode_why), "from dumpe2fs %s", l->device);
    return 0;
}

/* Reads XFS's geometry from xfs_db on l->device for the inode distance;
 * l->inode_why says how it went. Returns 0 or -1 (another block size:
 * message in err). */
static int load_xfs(struct tbbt_layout *l, char *err, size_t errlen) {
    char terr[512];
    const char *argv[] = {"xfs_db",  "-r", "-c", "sb 0", "-c", "p agblocks agblklog inopblog blocksize",
                          l->device, NULL};
    char *out = tbbt_layout_run_tool(argv, terr, sizeof(terr));
    int rc = out ? tbbt_layout_parse_xfs_sb(out, &l->xfs, terr, sizeof(terr)) : -1;
    g_free(out);
    if (rc < 0) {
        g_snprintf(l->inode_why, sizeof(l->inode_why), "not available: %s", terr);
        return 0;
    }
    if (l->xfs.blocksize != l->bs) {
        g_snprintf(err, errlen, "%s: block size %llu, but %s has %llu", l->device,
                   (unsigned long long)l->xfs.blocksize, l->path, (unsigned long long)l->bs);
        return -1;
    }
    l->inode_kind = LAYOUT_INODE_XFS;
    g_snprintf(l->inode_why, sizeof(l->inode_why), "from the inode numbers and xfs_db %s", l->device);
    return 0;
}

/* Runs a free-space tool (argv, source its name) and parses its report
 * into l->fr, or says in l->fr.why why not. */
static void run_free(struct tbbt_layout *l, const char *const *argv, const char *source) {
    char terr[512];
    char *out = tbbt_layout_run_tool(argv, terr, sizeof(terr));
    int rc = !out ? -1
             : !strcmp(source, "e2freefrag")
                 ? tbbt_layout_parse_e2freefrag(out, &l->fr, terr, sizeof(terr))
                 : tbbt_layout_parse_xfs_freesp(out, l->bs, &l->fr, terr, sizeof(terr));
    g_free(out);
    if (rc < 0) {
        tbbt_layout_freesp_clear(&l->fr);
        memset(&l->fr, 0, sizeof(l->fr));
        g_snprintf(l->fr.why, sizeof(l->fr.why), "not available: %s", terr);
    }
    l->fr.source = rc < 0 ? NULL : source;
}

/* Whether program name is in PATH. */
static int have_tool(const char *name) {
    char *p = g_find_program_in_path(name);
    int ok = p != NULL;
    g_free(p);
    return ok;
}

/* Measures free space with the file system's own tool; l->fr says what it
 * found or why not. */
static void measure_free(struct tbbt_layout *l) {
    const char *e2[] = {"e2freefrag", l->device, NULL};
    const char *spaceman[] = {"xfs_spaceman", "-c", "freesp -s", l->path, NULL};
    const char *xfsdb[] = {"xfs_db", "-r", "-c", "freesp -s", l->device, NULL};
    const char *nodev = "not available: no --device given";
    if (l->fs_magic == XFS_SUPER_MAGIC && have_tool("xfs_spaceman"))
        run_free(l, spaceman, "xfs_spaceman");
    else if (l->fs_magic == XFS_SUPER_MAGIC && l->device)
        run_free(l, xfsdb, "xfs_db");
    else if (l->fs_magic == EXT4_SUPER_MAGIC && l->device)
        run_free(l, e2, "e2freefrag");
    else if (l->fs_magic == XFS_SUPER_MAGIC || l->fs_magic == EXT4_SUPER_MAGIC)
        g_strlcpy(l->fr.why, nodev, sizeof(l->fr.why));
    else
        g_snprintf(l->fr.why, sizeof(l->fr.why), "not available: no free-space tool for %s", l->fs_type);
}

/* Reads what the file system's tools tell (inode tables, free space).
 * Returns 0 or -1 (the device is not the measured file system; message in
 * err). */
static int measure_device(struct tbbt_layout *l, const struct statfs *sf, char *err, size_t errlen) {
    uint32_t fsid[2];
    memcpy(fsid, &sf->f_fsid, sizeof(fsid));
    int rc = 0;
    if (!l->device)
        g_strlcpy(l->inode_why, "not available: no --device given", sizeof(l->inode_why));
    else if (check_device(l, err, errlen) < 0)
        return -1;
    else if (l->fs_magic == EXT4_SUPER_MAGIC)
        rc = load_ext2(l, fsid, err, errlen);
    else if (l->fs_magic == XFS_SUPER_MAGIC)
        rc = load_xfs(l, err, errlen);
    else
        g_snprintf(l->inode_why, sizeof(l->inode_why),
                   "not available: computed only for ext2/3/4 and xfs, not %s", l->fs_type);
    if (rc == 0) measure_free(l);
    return rc;
}

/* The block of inode ino in FIEMAP's unit, if known. Returns 0 or -1. */
static int inode_block(const struct tbbt_layout *l, uint64_t ino, uint64_t *b) {
    if (l->inode_kind == LAYOUT_INODE_EXT2) return tbbt_layout_ext2_inode_block(&l->e2, ino, b);
    if (l->inode_kind == LAYOUT_INODE_XFS) return tbbt_layout_xfs_inode_block(&l->xfs, ino, b);
    return -1;
}

/* Orders the per-file listing by path. */
static gint cmp_pf(gconstpointer a, gconstpointer b) {
    return strcmp(((const struct layout_pf *)a)->path, ((const struct layout_pf *)b)->path);
}

/* See layout.h. */
struct tbbt_layout *tbbt_layout_measure(const struct tbbt_layout_opts *o, char *err, size_t errlen) {
    struct statfs sf;
    struct stat st;
    if (statfs(o->path, &sf) < 0 || stat(o->path, &st) < 0) {
        g_snprintf(err, errlen, "%s: %s", o->path, g_strerror(errno));
        return NULL;
    }
    if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode)) {
        g_snprintf(err, errlen, "%s: neither a directory nor a regular file", o->path);
        return NULL;
    }
    struct tbbt_layout *l = g_new0(struct tbbt_layout, 1);
    l->path = g_strdup(o->path), l->device = g_strdup(o->device);
    l->fs_magic = (uint32_t)sf.f_type, l->bs = (uint64_t)sf.f_bsize, l->dev = st.st_dev;
    if (l->device && !strcmp(l->device, "auto")) {
        g_free(l->device);
        if (!(l->device = device_of(st.st_dev))) {
            g_snprintf(err, errlen, "%s: --device auto: no block device %u:%u in /sys/dev/block", o->path,
                       major(st.st_dev), minor(st.st_dev));
            tbbt_layout_free(l);
            return NULL;
        }
    }
    fs_name(l->fs_magic, l->fs_type, sizeof(l->fs_type));
    l->seen = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, NULL);
    if (o->per_file) l->files = g_array_new(FALSE, TRUE, sizeof(struct layout_pf));
    if (measure_device(l, &sf, err, errlen) < 0) {
        tbbt_layout_free(l);
        return NULL;
    }
    struct walker w = {l, g_malloc0(sizeof(struct fiemap) + LAYOUT_BATCH * sizeof(struct fiemap_extent)),
                       g_string_new(o->path), err, errlen};
    int rc;
    if (S_ISREG(st.st_mode)) {
        rc = visit_file(&w, AT_FDCWD, o->path, &st, 0, 0);
    } else {
        int fd = open_ro(AT_FDCWD, o->path, O_DIRECTORY);
        rc = fd < 0 ? -1 : walk_dir(&w, fd);
        if (fd < 0) g_snprintf(err, errlen, "%s: %s", o->path, g_strerror(errno));
    }
    g_free(w.fm);
    g_string_free(w.path, TRUE);
    if (rc < 0) {
        tbbt_layout_free(l);
        return NULL;
    }
    if (l->files) g_array_sort(l->files, cmp_pf);
    return l;
}

/* See layout.h. */
const struct tbbt_layout_sums *tbbt_layout_all(const struct tbbt_layout *l) {
    return &l->all;
}
const struct tbbt_layout_sums *tbbt_layout_bucket_sums(const struct tbbt_layout *l, int i) {
    return &l->bucket[i];
}
const struct tbbt_layout_freesp *tbbt_layout_free_space(const struct tbbt_layout *l) {
    return &l->fr;
}

/* See layout.h. */
void tbbt_layout_free(struct tbbt_layout *l) {
    if (!l) return;
    if (l->files) {
        for (guint i = 0; i < l->files->len; i++)
            g_free(g_array_index(l->files, struct layout_pf, i).path);
        g_array_free(l->files, TRUE);
    }
    if (l->seen) g_hash_table_destroy(l->seen);
    tbbt_layout_ext2_clear(&l->e2);
    tbbt_layout_freesp_clear(&l->fr);
    g_free(l->path);
    g_free(l->device);
    g_free(l);
}

/* --- reports --- */

/* Formats x with prec decimals into buf, "-" when undefined. */
static const char *num(char *buf, size_t n, double x, int prec) {
    if (isnan(x))
        g_strlcpy(buf, "-", n);
    else
        g_snprintf(buf, n, "%.*f", prec, x);
    return buf;
}

/* Prints one row of the metrics table. */
static void report_row(FILE *out, const char *label, const struct tbbt_layout_sums *s) {
    char a[32], b[32], c[32], d[32], e[32], f[32];
    fprintf(out, "%-8s %8llu %8llu %10llu %8llu %7s %10s %9s %10s %10s %11s\n", label,
            (unsigned long long)s->files, (unsigned long long)s->files_with_blocks,
            (unsigned long long)s->blocks, (unsigned long long)s->fragments,
            num(a, sizeof(a), tbbt_layout_score(s), 3),
            num(b, sizeof(b), tbbt_layout_avg_block_distance(s), 2),
            num(c, sizeof(c), tbbt_layout_avg_fragment_size(s), 2),
            num(d, sizeof(d), tbbt_layout_avg_fragment_distance(s), 1),
            num(e, sizeof(e), tbbt_layout_avg_inode_distance(s), 1),
            num(f, sizeof(f), tbbt_layout_avg_parent_distance(s), 1));
}

/* Formats a byte count as e2freefrag does (K, M, G, ...), or "max". */
static const char *bytes_label(char *buf, size_t n, uint64_t v) {
    const char *u = "BKMGTPE";
    if (v == UINT64_MAX) return g_strlcpy(buf, "max", n), buf;
    while (v >= 1024 && v % 1024 == 0 && u[1])
        v /= 1024, u++;
    if (*u == 'B')
        g_snprintf(buf, n, "%llu", (unsigned long long)v);
    else
        g_snprintf(buf, n, "%llu%c", (unsigned long long)v, *u);
    return buf;
}

/* Prints the free-space part of the report. */
static void report_free(const struct tbbt_layout *l, FILE *out) {
    const struct tbbt_layout_freesp *fr = &l->fr;
    if (!fr->available) {
        fprintf(out, "free space: %s\n", fr->why);
        return;
    }
    char a[32], b[32];
    fprintf(out, "free space (%s %s): %llu free blocks in %llu extents, average %s blocks\n", fr->source,
            strcmp(fr->source, "xfs_spaceman") ? l->device : l->path, (unsigned long long)fr->free_blocks,
            (unsigned long long)fr->free_extents, num(a, sizeof(a), fr->avg_extent_blocks, 1));
    fprintf(out, "  %-16s %10s %12s\n", "extent size", "extents", "blocks");
    for (guint i = 0; i < fr->bins->len; i++) {
        const struct tbbt_layout_freebin *x = &g_array_index(fr->bins, struct tbbt_layout_freebin, i);
        char r[48];
        g_snprintf(r, sizeof(r), "%s..%s", bytes_label(a, sizeof(a), x->min_bytes),
                   bytes_label(b, sizeof(b), x->max_bytes));
        fprintf(out, "  %-16s %10llu %12llu\n", r, (unsigned long long)x->extents,
                (unsigned long long)x->blocks);
    }
}

/* See layout.h. */
void tbbt_layout_report(const struct tbbt_layout *l, FILE *out) {
    fprintf(out, "%s: %s file system, %llu-byte blocks%s%s\n", l->path, l->fs_type, (unsigned long long)l->bs,
            l->device ? ", device " : "", l->device ? l->device : "");
    fprintf(out,
            "walked %llu directories, %llu regular files (%llu with data blocks); %llu unreadable, %llu "
            "mount points not entered\n",
            (unsigned long long)l->dirs, (unsigned long long)l->all.files,
            (unsigned long long)l->all.files_with_blocks, (unsigned long long)l->unreadable,
            (unsigned long long)l->other_fs);
    if (l->unreadable) fprintf(out, "first unreadable: %s\n", l->first_unreadable);
    fprintf(out, "inode distance: %s\n", l->inode_why);
    fprintf(out, "parent distance: %s\n",
            l->all.parent_files ? "from FIEMAP of the directories"
                                : "not available: no directory had a mapped block");
    fprintf(out, "\n%-8s %8s %8s %10s %8s %7s %10s %9s %10s %10s %11s\n", "size", "files", "w/blocks",
            "blocks", "frags", "layout", "blk-dist", "frag-size", "frag-dist", "inode-dist", "parent-dist");
    for (int i = 0; i < TBBT_LAYOUT_NBUCKETS; i++)
        report_row(out, tbbt_layout_bucket_label[i], &l->bucket[i]);
    report_row(out, "all", &l->all);
    if (l->all.unwritten_blocks || l->all.other_extents)
        fprintf(out, "(%llu unwritten blocks counted as data; %llu inline or unknown extents left out)\n",
                (unsigned long long)l->all.unwritten_blocks, (unsigned long long)l->all.other_extents);
    fputc('\n', out);
    report_free(l, out);
    if (!l->files) return;
    fprintf(out, "\n%10s %8s %6s %7s %10s %10s %10s %11s  %s\n", "size", "blocks", "frags", "layout",
            "blk-dist", "frag-dist", "inode-dist", "parent-dist", "path");
    for (guint i = 0; i < l->files->len; i++) {
        const struct layout_pf *pf = &g_array_index(l->files, struct layout_pf, i);
        char a[32], b[32], c[32], d[32], e[32];
        fprintf(out, "%10llu %8llu %6llu %7s %10s %10s %10s %11s  %s\n", (unsigned long long)pf->size,
                (unsigned long long)pf->s.blocks, (unsigned long long)pf->s.fragments,
                num(a, sizeof(a), tbbt_layout_score(&pf->s), 3),
                num(b, sizeof(b), tbbt_layout_avg_block_distance(&pf->s), 2),
                num(c, sizeof(c), tbbt_layout_avg_fragment_distance(&pf->s), 1),
                num(d, sizeof(d), tbbt_layout_avg_inode_distance(&pf->s), 1),
                num(e, sizeof(e), tbbt_layout_avg_parent_distance(&pf->s), 1), pf->path);
    }
}

/* Appends "key":x, with null for NaN. */
static void json_num(GString *j, const char *key, double x) {
    if (isnan(x))
        g_string_append_printf(j, ",\"%s\":null", key);
    else
        g_string_append_printf(j, ",\"%s\":%.10g", key, x);
}

/* Appends the METRICS members of s (each preceded by a comma). */
static void json_sums(GString *j, const struct tbbt_layout_sums *s) {
    g_string_append_printf(
        j,
        ",\"files\":%llu,\"files_with_blocks\":%llu,\"bytes\":%llu,\"blocks\":%llu,\"unwritten_blocks\":%llu,"
        "\"other_extents\":%llu,\"fragments\":%llu,\"block_pairs\":%llu,\"contiguous_pairs\":%llu,"
        "\"fragment_pairs\":%llu,\"block_distance_sum\":%llu,\"inode_distance_files\":%llu,"
        "\"parent_distance_files\":%llu",
        (unsigned long long)s->files, (unsigned long long)s->files_with_blocks, (unsigned long long)s->bytes,
        (unsigned long long)s->blocks, (unsigned long long)s->unwritten_blocks,
        (unsigned long long)s->other_extents, (unsigned long long)s->fragments, (unsigned long long)s->pairs,
        (unsigned long long)s->contiguous, (unsigned long long)s->fragment_pairs,
        (unsigned long long)s->dist_sum, (unsigned long long)s->inode_files,
        (unsigned long long)s->parent_files);
    json_num(j, "layout_score", tbbt_layout_score(s));
    json_num(j, "avg_block_distance", tbbt_layout_avg_block_distance(s));
    json_num(j, "avg_fragment_size", tbbt_layout_avg_fragment_size(s));
    json_num(j, "avg_fragment_distance", tbbt_layout_avg_fragment_distance(s));
    json_num(j, "avg_inode_distance", tbbt_layout_avg_inode_distance(s));
    json_num(j, "avg_parent_distance", tbbt_layout_avg_parent_distance(s));
}

/* Appends a JSON string or null. */
static void json_str_or_null(GString *j, const char *s) {
    if (s)
        tbbt_json_str(j, s, strlen(s));
    else
        g_string_append(j, "null");
}

/* Appends the "free_space" object. */
static void json_free(GString *j, const struct tbbt_layout_freesp *fr) {
    g_string_append_printf(j, ",\"free_space\":{\"available\":%s,\"why\":", fr->available ? "true" : "false");
    json_str_or_null(j, fr->available ? NULL : fr->why);
    g_string_append(j, ",\"source\":");
    json_str_or_null(j, fr->source);
    g_string_append_printf(j, ",\"free_blocks\":%llu,\"free_extents\":%llu",
                           (unsigned long long)fr->free_blocks, (unsigned long long)fr->free_extents);
    json_num(j, "avg_free_extent_blocks", fr->available ? fr->avg_extent_blocks : NAN);
    g_string_append(j, ",\"histogram\":[");
    for (guint i = 0; fr->bins && i < fr->bins->len; i++) {
        const struct tbbt_layout_freebin *x = &g_array_index(fr->bins, struct tbbt_layout_freebin, i);
        g_string_append_printf(j, "%s{\"min_bytes\":%llu,\"max_bytes\":", i ? "," : "",
                               (unsigned long long)x->min_bytes);
        if (x->max_bytes == UINT64_MAX)
            g_string_append(j, "null");
        else
            g_string_append_printf(j, "%llu", (unsigned long long)x->max_bytes);
        g_string_append_printf(j, ",\"extents\":%llu,\"blocks\":%llu}", (unsigned long long)x->extents,
                               (unsigned long long)x->blocks);
    }
    g_string_append(j, "]}");
}

/* Appends the "buckets" array. */
static void json_buckets(GString *j, const struct tbbt_layout *l) {
    g_string_append(j, ",\"buckets\":[");
    for (int i = 0; i < TBBT_LAYOUT_NBUCKETS; i++) {
        g_string_append_printf(j, "%s{\"label\":\"%s\",\"max_bytes\":", i ? "," : "",
                               tbbt_layout_bucket_label[i]);
        if (tbbt_layout_bucket_max[i] == UINT64_MAX)
            g_string_append(j, "null");
        else
            g_string_append_printf(j, "%llu", (unsigned long long)tbbt_layout_bucket_max[i]);
        json_sums(j, &l->bucket[i]);
        g_string_append_c(j, '}');
    }
    g_string_append_c(j, ']');
}

/* Appends the "per_file" array. */
static void json_files(GString *j, const struct tbbt_layout *l) {
    g_string_append(j, ",\"per_file\":[");
    for (guint i = 0; i < l->files->len; i++) {
        const struct layout_pf *pf = &g_array_index(l->files, struct layout_pf, i);
        g_string_append(j, i ? ",{\"path\":" : "{\"path\":");
        tbbt_json_str(j, pf->path, strlen(pf->path));
        g_string_append_printf(j, ",\"size\":%llu", (unsigned long long)pf->size);
        json_sums(j, &pf->s);
        g_string_append_c(j, '}');
    }
    g_string_append_c(j, ']');
}

/* See layout.h. */
void tbbt_layout_report_json(const struct tbbt_layout *l, const char *tool, GString *j) {
    g_string_append(j, "{\"tool\":");
    json_str_or_null(j, tool);
    g_string_append(j, ",\"path\":");
    json_str_or_null(j, l->path);
    g_string_append(j, ",\"device\":");
    json_str_or_null(j, l->device);
    g_string_append(j, ",\"fs_type\":");
    json_str_or_null(j, l->fs_type);
    g_string_append_printf(j,
                           ",\"block_size\":%llu,\"dirs\":%llu,\"hard_links_skipped\":%llu,"
                           "\"skipped_other_fs\":%llu,\"unreadable\":%llu",
                           (unsigned long long)l->bs, (unsigned long long)l->dirs,
                           (unsigned long long)l->links, (unsigned long long)l->other_fs,
                           (unsigned long long)l->unreadable);
    g_string_append_printf(
        j, ",\"inode_distance\":{\"available\":%s,\"why\":", l->inode_kind ? "true" : "false");
    json_str_or_null(j, l->inode_kind ? NULL : l->inode_why);
    g_string_append_printf(
        j, "},\"parent_distance\":{\"available\":%s,\"why\":", l->all.parent_files ? "true" : "false");
    json_str_or_null(j, l->all.parent_files ? NULL : "not available: no directory had a mapped block");
    g_string_append(j, "},\"all\":{\"label\":\"all\"");
    json_sums(j, &l->all);
    g_string_append_c(j, '}');
    json_buckets(j, l);
    json_free(j, &l->fr);
    if (l->files) json_files(j, l);
    g_string_append_c(j, '}');
}
