/* test_hier_layout.c -- tbbt-layout's pure parts: the metrics of layout.h
 * on hand-made extent lists (each expected figure worked out by hand in
 * the comment above its assertion), FIEMAP flag handling, the size
 * buckets, and the parsers of e2freefrag, xfs_db freesp and dumpe2fs
 * reports (reports as the tools print them; the fsid expected for a UUID
 * is what a real Linux statfs printed for that file system). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "layout.h"

#define EPS 1e-9

/* Whether x is NaN (the tests do not link libm). */
static int is_nan(double x) {
    return x != x;
}

/* Asserts |a - b| < EPS. */
static void assert_near(double a, double b) {
    if (!(a - b < EPS && b - a < EPS)) fail_msg("%.12g != %.12g", a, b);
}

/* A file of size bytes made of the n extents (logical, physical, len). */
static struct tbbt_layout_file make_file(uint64_t size, const uint64_t (*x)[3], int n) {
    struct tbbt_layout_file f;
    tbbt_layout_file_init(&f, size);
    for (int i = 0; i < n; i++) {
        struct tbbt_layout_ext e = {x[i][0], x[i][1], x[i][2]};
        tbbt_layout_file_add(&f, &e);
    }
    return f;
}

/* One extent of 10 blocks: 9 pairs, all contiguous; one fragment; no
 * fragment pair, so no fragment distance. */
static void test_contiguous(void **state) {
    (void)state;
    const uint64_t x[][3] = {{0, 100, 10}};
    struct tbbt_layout_file f = make_file(40960, x, 1);
    assert_int_equal(f.s.blocks, 10);
    assert_int_equal(f.s.pairs, 9);
    assert_int_equal(f.s.contiguous, 9);
    assert_int_equal(f.s.fragments, 1);
    assert_near(tbbt_layout_score(&f.s), 1.0);
    assert_near(tbbt_layout_avg_block_distance(&f.s), 0.0);
    assert_near(tbbt_layout_avg_fragment_size(&f.s), 10.0);
    assert_true(is_nan(tbbt_layout_avg_fragment_distance(&f.s)));
}

/* Extents that FIEMAP reports apart but that touch on disk (ext4 splits at
 * 32768 blocks, written/unwritten boundaries) are one fragment. */
static void test_touching_extents(void **state) {
    (void)state;
    const uint64_t x[][3] = {{0, 100, 4}, {4, 104, 4}};
    struct tbbt_layout_file f = make_file(32768, x, 2);
    assert_int_equal(f.s.fragments, 1);
    assert_near(tbbt_layout_score(&f.s), 1.0);
}

/* The interleaving pattern: blocks at 0, 2, 4, 6. Pairs 3, none
 * contiguous; each pair skips one block, distance 1; 4 fragments of 1
 * block, 3 fragment pairs of distance 1. */
static void test_interleaved(void **state) {
    (void)state;
    const uint64_t x[][3] = {{0, 0, 1}, {1, 2, 1}, {2, 4, 1}, {3, 6, 1}};
    struct tbbt_layout_file f = make_file(16384, x, 4);
    assert_int_equal(f.s.pairs, 3);
    assert_int_equal(f.s.contiguous, 0);
    assert_near(tbbt_layout_score(&f.s), 0.0);
    assert_near(tbbt_layout_avg_block_distance(&f.s), 1.0);
    assert_int_equal(f.s.fragments, 4);
    assert_near(tbbt_layout_avg_fragment_size(&f.s), 1.0);
    assert_near(tbbt_layout_avg_fragment_distance(&f.s), 1.0);
}

/* A step backwards: blocks 100..104 then 50..52. The reader is at 105 and
 * must go back to 50: |50 - 104 - 1| = 55. Pairs 4 + 1 + 2 = 7, 6
 * contiguous. */
static void test_backwards(void **state) {
    (void)state;
    const uint64_t x[][3] = {{0, 100, 5}, {5, 50, 3}};
    struct tbbt_layout_file f = make_file(32768, x, 2);
    assert_int_equal(f.s.pairs, 7);
    assert_int_equal(f.s.contiguous, 6);
    assert_int_equal(f.s.dist_sum, 55);
    assert_near(tbbt_layout_avg_fragment_distance(&f.s), 55.0);
    assert_near(tbbt_layout_avg_block_distance(&f.s), 55.0 / 7);
}

/* A hole is skipped: logical 0..3 at 100..103 and 10..13 at 104..107 read
 * sequentially without a seek, so all pairs are contiguous. */
static void test_hole(void **state) {
    (void)state;
    const uint64_t x[][3] = {{0, 100, 4}, {10, 104, 4}};
    struct tbbt_layout_file f = make_file(14 * 4096, x, 2);
    assert_int_equal(f.s.blocks, 8);
    assert_near(tbbt_layout_score(&f.s), 1.0);
    assert_int_equal(f.s.fragments, 1);
}

/* The aggregate weighs by blocks and fragments: X has 101 contiguous
 * blocks (100 pairs), Y two blocks 10 apart (1 pair, distance 10). Score
 * 100/101, block distance 10/101, fragment size 103/3, fragment distance
 * 10/1 -- not the mean of the files' figures ((1 + 0)/2 and (0 + 10)/2). A
 * one-block file adds a block and a fragment but no pair. */
static void test_aggregate(void **state) {
    (void)state;
    const uint64_t x[][3] = {{0, 1000, 101}}, y[][3] = {{0, 0, 1}, {1, 11, 1}}, z[][3] = {{0, 5000, 1}};
    struct tbbt_layout_file fx = make_file(101 * 4096, x, 1), fy = make_file(8192, y, 2),
                            fz = make_file(100, z, 1);
    struct tbbt_layout_sums all = {0};
    tbbt_layout_sums_add(&all, &fx.s);
    tbbt_layout_sums_add(&all, &fy.s);
    assert_near(tbbt_layout_score(&all), 100.0 / 101);
    assert_near(tbbt_layout_avg_block_distance(&all), 10.0 / 101);
    assert_near(tbbt_layout_avg_fragment_size(&all), 103.0 / 3);
    assert_near(tbbt_layout_avg_fragment_distance(&all), 10.0);
    tbbt_layout_sums_add(&all, &fz.s);
    assert_int_equal(all.files, 3);
    assert_int_equal(all.blocks, 104);
    assert_int_equal(all.pairs, 101);
    assert_near(tbbt_layout_score(&all), 100.0 / 101);
    assert_near(tbbt_layout_avg_fragment_size(&all), 104.0 / 4);
}

/* FIEMAP extents in bytes: a partial last block counts as a block;
 * unknown, delalloc and inline extents are left out and counted;
 * unwritten ones count as data and apart. */
static void test_fiemap_flags(void **state) {
    (void)state;
    struct tbbt_layout_file f;
    tbbt_layout_file_init(&f, 3 * 4096 + 904);
    struct fiemap_extent fe[] = {
        {.fe_logical = 0, .fe_physical = 400 * 4096, .fe_length = 2 * 4096},
        {.fe_logical = 2 * 4096,
         .fe_physical = 402 * 4096,
         .fe_length = 5000,
         .fe_flags = FIEMAP_EXTENT_UNWRITTEN},
        {.fe_logical = 8 * 4096, .fe_physical = 0, .fe_length = 4096, .fe_flags = FIEMAP_EXTENT_UNKNOWN},
        {.fe_logical = 9 * 4096,
         .fe_physical = 0,
         .fe_length = 4096,
         .fe_flags = FIEMAP_EXTENT_DELALLOC | FIEMAP_EXTENT_UNKNOWN},
        {.fe_logical = 10 * 4096,
         .fe_physical = 7 * 4096 + 60,
         .fe_length = 60,
         .fe_flags = FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_NOT_ALIGNED | FIEMAP_EXTENT_LAST},
    };
    for (size_t i = 0; i < sizeof(fe) / sizeof(fe[0]); i++)
        tbbt_layout_file_add_fiemap(&f, &fe[i], 4096);
    assert_int_equal(f.s.blocks, 4);
    assert_int_equal(f.s.unwritten_blocks, 2);
    assert_int_equal(f.s.other_extents, 3);
    assert_near(tbbt_layout_score(&f.s), 1.0);
    assert_int_equal(f.first_phys, 400);
}

/* A file only inline or empty has no data block: counted as a file, no
 * blocks, no inode or parent distance. */
static void test_no_blocks(void **state) {
    (void)state;
    struct tbbt_layout_file f;
    tbbt_layout_file_init(&f, 60);
    struct fiemap_extent fe = {.fe_length = 60, .fe_flags = FIEMAP_EXTENT_DATA_INLINE | FIEMAP_EXTENT_LAST};
    tbbt_layout_file_add_fiemap(&f, &fe, 4096);
    tbbt_layout_file_finish(&f, 1, 45, 1, 3000);
    assert_int_equal(f.s.files, 1);
    assert_int_equal(f.s.files_with_blocks, 0);
    assert_int_equal(f.s.inode_files, 0);
    assert_int_equal(f.s.parent_files, 0);
    assert_true(is_nan(tbbt_layout_avg_fragment_size(&f.s)));
}

/* Inode and parent distance: |first data block - other|, either side. */
static void test_inode_parent(void **state) {
    (void)state;
    const uint64_t x[][3] = {{0, 2581, 3}};
    struct tbbt_layout_file f = make_file(12288, x, 1);
    tbbt_layout_file_finish(&f, 1, 45, 1, 3000);
    assert_near(tbbt_layout_avg_inode_distance(&f.s), 2536);
    assert_near(tbbt_layout_avg_parent_distance(&f.s), 419);
}

/* Size buckets: upper bounds inclusive. */
static void test_buckets(void **state) {
    (void)state;
    assert_int_equal(tbbt_layout_bucket(0), 0);
    assert_int_equal(tbbt_layout_bucket(4096), 0);
    assert_int_equal(tbbt_layout_bucket(4097), 1);
    assert_int_equal(tbbt_layout_bucket(65536), 2);
    assert_int_equal(tbbt_layout_bucket(1 << 20), 4);
    assert_int_equal(tbbt_layout_bucket(4 << 20), 5);
    assert_int_equal(tbbt_layout_bucket((4 << 20) + 1), 6);
    assert_int_equal(tbbt_layout_bucket(UINT64_MAX), 6);
    assert_string_equal(tbbt_layout_bucket_label[6], ">4M");
}

/* e2freefrag's report (e2fsprogs 1.47), with a K-to-M bin and the last
 * "max" bin. */
static void test_e2freefrag(void **state) {
    (void)state;
    const char *text = "Device: /dev/loop0\n"
                       "Blocksize: 4096 bytes\n"
                       "Total blocks: 24576\n"
                       "Free blocks: 21000 (85.4%)\n"
                       "\n"
                       "Min. free extent: 4 KB \n"
                       "Max. free extent: 80000 KB\n"
                       "Avg. free extent: 16800 KB\n"
                       "Num. free extent: 5\n"
                       "\n"
                       "HISTOGRAM OF FREE EXTENT SIZES:\n"
                       "Extent Size Range :  Free extents   Free Blocks  Percent\n"
                       "    4K...    8K-  :             3             3    0.01%\n"
                       "  512K... 1024K-  :             1           997    4.75%\n"
                       "   64M...  max   :             1         20000   95.24%\n";
    struct tbbt_layout_freesp fr;
    char err[256];
    assert_int_equal(tbbt_layout_parse_e2freefrag(text, &fr, err, sizeof(err)), 0);
    assert_true(fr.available);
    assert_int_equal(fr.free_blocks, 21000);
    assert_int_equal(fr.free_extents, 5);
    assert_near(fr.avg_extent_blocks, 4200);
    assert_int_equal(fr.bins->len, 3);
    struct tbbt_layout_freebin *b = (struct tbbt_layout_freebin *)(void *)fr.bins->data;
    assert_int_equal(b[0].min_bytes, 4096);
    assert_int_equal(b[0].max_bytes, 8192);
    assert_int_equal(b[0].extents, 3);
    assert_int_equal(b[1].min_bytes, 512 * 1024);
    assert_int_equal(b[1].max_bytes, 1024 * 1024);
    assert_int_equal(b[1].blocks, 997);
    assert_int_equal(b[2].min_bytes, 64 << 20);
    assert_true(b[2].max_bytes == UINT64_MAX);
    tbbt_layout_freesp_clear(&fr);

    const char *bad = "Blocksize: 4096 bytes\nFree blocks: 3\nHISTOGRAM OF FREE EXTENT SIZES:\n  4K... x\n";
    assert_int_equal(tbbt_layout_parse_e2freefrag(bad, &fr, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "line 4"));
    tbbt_layout_freesp_clear(&fr);
}

/* xfs_db -r -c "freesp -s" (xfsprogs' printhist and summary). */
static void test_xfs_freesp(void **state) {
    (void)state;
    const char *text = "   from      to extents  blocks    pct\n"
                       "      1       1       4       4   1.44\n"
                       "      4       7       1       6   2.16\n"
                       "    256     511       1     268  96.40\n"
                       "total free extents 6\n"
                       "total free blocks 278\n"
                       "average free extent size 46.3333\n";
    struct tbbt_layout_freesp fr;
    char err[256];
    assert_int_equal(tbbt_layout_parse_xfs_freesp(text, 4096, &fr, err, sizeof(err)), 0);
    assert_int_equal(fr.free_extents, 6);
    assert_int_equal(fr.free_blocks, 278);
    assert_near(fr.avg_extent_blocks, 278.0 / 6);
    assert_int_equal(fr.bins->len, 3);
    struct tbbt_layout_freebin *b = (struct tbbt_layout_freebin *)(void *)fr.bins->data;
    assert_int_equal(b[1].min_bytes, 4 * 4096);
    assert_int_equal(b[1].max_bytes, 8 * 4096);
    assert_int_equal(b[2].blocks, 268);
    tbbt_layout_freesp_clear(&fr);
    assert_int_equal(tbbt_layout_parse_xfs_freesp("from to\n", 4096, &fr, err, sizeof(err)), -1);
    tbbt_layout_freesp_clear(&fr);
}

/* dumpe2fs: two groups; inode 1 is the first entry of group 0's table,
 * inode ipg + 1 the first of group 1's; 16 256-byte inodes per 4 KiB
 * block. */
static void test_dumpe2fs(void **state) {
    (void)state;
    const char *text = "Filesystem UUID:          84470fd6-3ae5-47bf-9c15-2ccad6011a71\n"
                       "Block size:               4096\n"
                       "Group descriptor size:    64\n"
                       "Inodes per group:         8192\n"
                       "Inode size:\t          256\n"
                       "\n"
                       "Group 0: (Blocks 0-32767) csum 0x8408 [ITABLE_ZEROED]\n"
                       "  Primary superblock at 0, Group descriptors at 1-1\n"
                       "  Inode table at 45-556 (+45)\n"
                       "Group 1: (Blocks 32768-65535) csum 0x1234 [INODE_UNINIT]\n"
                       "  Inode table at 557-1068 (bg #0 + 557)\n";
    struct tbbt_layout_ext2 e;
    char err[256];
    uint64_t blk;
    assert_int_equal(tbbt_layout_parse_dumpe2fs(text, &e, err, sizeof(err)), 0);
    assert_string_equal(e.uuid, "84470fd6-3ae5-47bf-9c15-2ccad6011a71");
    assert_int_equal(tbbt_layout_ext2_inode_block(&e, 1, &blk), 0);
    assert_int_equal(blk, 45);
    assert_int_equal(tbbt_layout_ext2_inode_block(&e, 12, &blk), 0);
    assert_int_equal(blk, 45);
    assert_int_equal(tbbt_layout_ext2_inode_block(&e, 17, &blk), 0);
    assert_int_equal(blk, 46);
    assert_int_equal(tbbt_layout_ext2_inode_block(&e, 8193, &blk), 0);
    assert_int_equal(blk, 557);
    assert_int_equal(tbbt_layout_ext2_inode_block(&e, 2 * 8192 + 1, &blk), -1);
    assert_int_equal(tbbt_layout_ext2_inode_block(&e, 0, &blk), -1);
    tbbt_layout_ext2_clear(&e);
    /* A group without its inode table line is refused. */
    const char *bad = "Block size: 4096\nInodes per group: 8\nInode size: 256\nGroup 0: (Blocks 0-9)\n";
    assert_int_equal(tbbt_layout_parse_dumpe2fs(bad, &e, err, sizeof(err)), -1);
    tbbt_layout_ext2_clear(&e);
}

/* xfs_db's "p agblocks agblklog inopblog blocksize" of a 320 MiB image;
 * inode 132 is in AG 0, block 132 >> 3 = 16 (xfs_db "convert inode 132
 * fsblock" said 16); in AG 2 the block is 2 * agblocks + 16. */
static void test_xfs_sb(void **state) {
    (void)state;
    const char *text = "agblocks = 20480\nagblklog = 15\ninopblog = 3\nblocksize = 4096\n";
    struct tbbt_layout_xfs x;
    char err[256];
    uint64_t b;
    assert_int_equal(tbbt_layout_parse_xfs_sb(text, &x, err, sizeof(err)), 0);
    assert_int_equal(tbbt_layout_xfs_inode_block(&x, 132, &b), 0);
    assert_int_equal(b, 16);
    assert_int_equal(tbbt_layout_xfs_inode_block(&x, (UINT64_C(2) << 18) | 132, &b), 0);
    assert_int_equal(b, 2 * 20480 + 16);
    assert_int_equal(tbbt_layout_parse_xfs_sb("agblocks = 20480\n", &x, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "agblklog"));
}

/* `stat -f` on the file system of that UUID printed "ID: 1c235218ce5de4ec"
 * (f_fsid.val[0] then val[1]). */
static void test_fsid(void **state) {
    (void)state;
    uint32_t fsid[2];
    assert_int_equal(tbbt_layout_ext4_fsid("84470fd6-3ae5-47bf-9c15-2ccad6011a71", fsid), 0);
    assert_int_equal(fsid[0], 0x1c235218u);
    assert_int_equal(fsid[1], 0xce5de4ecu);
    assert_int_equal(tbbt_layout_ext4_fsid("84470fd6", fsid), -1);
    assert_int_equal(tbbt_layout_ext4_fsid("x4470fd6-3ae5-47bf-9c15-2ccad6011a71", fsid), -1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_contiguous),   cmocka_unit_test(test_touching_extents),
        cmocka_unit_test(test_interleaved),  cmocka_unit_test(test_backwards),
        cmocka_unit_test(test_hole),         cmocka_unit_test(test_aggregate),
        cmocka_unit_test(test_fiemap_flags), cmocka_unit_test(test_no_blocks),
        cmocka_unit_test(test_inode_parent), cmocka_unit_test(test_buckets),
        cmocka_unit_test(test_e2freefrag),   cmocka_unit_test(test_xfs_freesp),
        cmocka_unit_test(test_dumpe2fs),     cmocka_unit_test(test_fsid),
        cmocka_unit_test(test_xfs_sb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
