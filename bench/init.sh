#!/bin/bash
# bench/init.sh -- how fast tbbt-init builds an image on a real NFS server,
# against a plain sequential copy of the same files, and how aged the
# result is (paper 3.3 and 5.1.2).
#
# Input: a hierarchy map made here: tbbt-prep's map of
# traces/ganesha-libnfs-mixed.pcap.zst grown by tbbt-augment to
# BENCH_INIT_SIZE bytes of files (default 1280M; SPEC SFS sizes, about ten
# files a directory). Server: a private nfs-ganesha (tests/lib/ganesha.sh)
# exporting a loop-mounted ext4 (4 KiB blocks) of 1.3x the data's blocks
# plus 64 MiB (journal, inode tables), at most 2 GiB, made
# afresh (mkfs) before every timed run, so each run starts from the same
# empty file system and the layout is measured locally (tbbt-layout).
#
# Variants, each BENCH_RUNS times (default 3; medians of wall and CPU,
# peak RSS the largest, GNU time around the whole program):
#   plain   tbbt-plaincopy: one libnfs program, one connection, one file
#           after the other (CREATE, WRITEs of wtmax, at most 8 in flight
#           within the file, one COMMIT), the peer of a `cp -r` through
#           one NFS client
#   scope1  tbbt-init --scope 1 --appends-per-file A (default 8): no
#           interleaving
#   scope8192 tbbt-init --scope 8192 --appends-per-file A: appends of the
#           files within 32 MiB interleaved (aged)
#   scope1-a1 a reference, no target: tbbt-init --scope 1 with one append
#           a file (one COMMIT a file, as the plain copy): what the appends
#           cost
# Printed: MB/s = data bytes / wall, the ratio of each scope to plain with
# its target (scope 1 >= 1.0, scope 8192 >= 0.5), the calls each made,
# ganesha's CPU seconds during each run (from /proc),
# and the layout of the last run's image of each (layout score, average
# block distance, average fragment size, free-space extents).
# Then the read test of 5.1.2 on each last image: ganesha stopped, `sync;
# echo 3 > /proc/sys/vm/drop_caches`, ganesha started again, and
# tbbt-readtree (READDIRPLUS, sequential READs of every file, one after the
# other, 4 in flight) timed over the image, BENCH_RUNS times: unaged
# (scope 1) against aged (scope 8192), plain as a reference.
#
# Knobs: BENCH_RUNS, BENCH_INIT_SIZE (tbbt-augment --total-size; the image
# must stay <= 2 GiB), BENCH_INIT_APPENDS, BENCH_INIT_FULLNESS (adds
# --fullness F to the scope 8192 run: fillers, then their removal),
# BENCH_INIT_DIR (where the image file goes, default /tmp), TBBT_BUILD.
# Needs root (loop mounts, ganesha's VFS FSAL, drop_caches): exits 77 with
# the reason otherwise. Everything made is removed on exit.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$src/tests/lib/ganesha.sh"
build=${TBBT_BUILD:-$src/build}
runs=${BENCH_RUNS:-3}
size=${BENCH_INIT_SIZE:-1280M}
appends=${BENCH_INIT_APPENDS:-8}
fullness=${BENCH_INIT_FULLNESS:-}

skip() {
    echo "bench/init: skipped: $*"
    exit 77
}
[ "$(id -u)" = 0 ] || skip "needs root (loop mounts, ganesha's VFS FSAL, drop_caches)"
tbbt_ganesha_usable 2>/dev/null || skip "$(tbbt_ganesha_usable 2>&1)"
for b in mkfs.ext4 losetup e2freefrag dumpe2fs; do
    command -v "$b" >/dev/null || skip "$b not installed"
done

. "$here/lib.sh" # makes BENCH_TMP: after the checks that skip
work=$(mktemp -d "${BENCH_INIT_DIR:-/tmp}/tbbt-bench-init.XXXXXX")
gdir=$work/g
mnt=$gdir/export
img=$work/fs.img
# cleanup: the server, the mount (and its loop device), every file made.
cleanup() {
    tbbt_ganesha_stop "$gdir" >/dev/null 2>&1 || true
    mountpoint -q "$mnt" 2>/dev/null && umount "$mnt" 2>/dev/null
    rm -rf "$work" "$BENCH_TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ ! -x "$build/hierarchy/tbbt-init" ] || [ ! -x "$build/bench/tools/tbbt-plaincopy" ] ||
    [ ! -x "$build/bench/tools/tbbt-readtree" ] || [ ! -x "$build/hierarchy/tbbt-layout" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$build" -j2 --target tbbt-prep tbbt-augment tbbt-init tbbt-layout tbbt-plaincopy \
        tbbt-readtree >/dev/null
fi

# ---- the map ----
"$build/transform/tbbt-prep" -q -o "$work/small.tbbt" -m "$work/small.hmap" \
    "$src/traces/ganesha-libnfs-mixed.pcap.zst"
"$build/hierarchy/tbbt-augment" -q --total-size "$size" --size-dist specsfs -o "$work/bench.hmap" \
    "$work/small.hmap"
map=$work/bench.hmap
# data bytes (each file once, whatever its paths), the same in whole 4 KiB
# blocks, files, directories of the initial image
read -r data dblocks files dirs < <(awk '$1 !~ /^#/ && $3 == "0" {
        if ($5 == "reg" && !seen[$1]++) { f++; if ($6 != "-") { s += $6; b += int(($6 + 4095) / 4096) } }
        else if ($5 == "dir") d++ }
    END { printf "%d %d %d %d\n", s, b, f, d }' "$map")
# the file system: 1.3 x the data's blocks, plus 64 MiB for the journal and inode tables
fsbytes=$(((dblocks * 4096 * 13 / 10 + (64 << 20) + (1 << 20) - 1) / (1 << 20) * (1 << 20)))
[ "$fsbytes" -le $((2 << 30)) ] || {
    echo "bench/init: an image of $((fsbytes >> 20)) MiB for $size of data is over 2 GiB: lower BENCH_INIT_SIZE" >&2
    exit 1
}

# ---- the server on a fresh file system ----
# fresh_fs: stops the server, makes a new ext4 on the image, mounts it
# on the export and starts the server. Returns 1 when the loop mount fails.
fresh_fs() {
    tbbt_ganesha_stop "$gdir" >/dev/null 2>&1
    if mountpoint -q "$mnt"; then umount "$mnt"; fi
    rm -f "$img"
    truncate -s "$fsbytes" "$img"
    mkfs.ext4 -q -F -b 4096 "$img" >/dev/null || return 1
    mkdir -p "$mnt"
    mount -o loop "$img" "$mnt" 2>/dev/null || return 1
    server_up
}

# server_up: starts ganesha on the export and waits until MOUNT and one
# NFS call succeed (right after start-up MOUNT may still hang up).
server_up() {
    local i
    tbbt_ganesha_start "$gdir" >/dev/null || { echo "bench/init: ganesha did not start" >&2; return 1; }
    url=$TBBT_NFS_URL
    for i in $(seq 1 50); do
        "$build/bench/tools/tbbt-readtree" -q --dir lost+found --timeout 5 "$url" 2>/dev/null && return 0
        sleep 0.2
    done
    echo "bench/init: ganesha at $url does not answer MOUNT" >&2
    return 1
}

# cold: stops the server, drops every cache (the export's and the image
# file's pages), starts the server again.
cold() {
    tbbt_ganesha_stop "$gdir" >/dev/null 2>&1
    sync
    echo 3 >/proc/sys/vm/drop_caches
    server_up
}

# timed LABEL CMD...: one run under GNU time; its figures appended to
# $BENCH_TMP/LABEL.times, its output kept in $BENCH_TMP/LABEL.out.
timed() {
    local label=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$BENCH_TMP/t1" "$@" >"$BENCH_TMP/$label.out" 2>"$BENCH_TMP/$label.err" || {
        echo "bench/init: $label: command failed: $*" >&2
        tail -3 "$BENCH_TMP/$label.err" >&2
        return 1
    }
    cat "$BENCH_TMP/t1" >>"$BENCH_TMP/$label.times"
}

# medians LABEL: sets WALL CPU (medians) and RSS (largest) of LABEL's runs.
medians() {
    local t=$BENCH_TMP/$1.times
    WALL=$(awk '{print $1}' "$t" | _bench_median)
    CPU=$(awk '{print $2 + $3}' "$t" | _bench_median)
    RSS=$(awk '$4 > m {m = $4} END {print m}' "$t")
    ALL=$(awk '{printf "%s%s", (NR > 1 ? " " : ""), $1}' "$t")
}

# json FILE KEY: a number from a flat JSON object.
json() {
    perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my $v = $j->{$ARGV[0]};
        print defined $v ? $v : "-"' "$2" <"$1"
}

# layout NAME DIR: tbbt-layout of the image's DIR into
# $BENCH_TMP/NAME.layout.json, and a digest of the tree (every path with
# its type, size and mode; not a directory's size, which depends on the
# order its entries were made in) into $BENCH_TMP/NAME.tree: the variants
# must have made the same files.
layout() {
    "$build/hierarchy/tbbt-layout" "$mnt/$2" --device auto --json "$BENCH_TMP/$1.layout.json" >/dev/null
    (cd "$mnt/$2" && find . \( -type d -printf '%p d - %m\n' \) -o -printf '%p %y %s %m\n' | LC_ALL=C sort |
        md5sum | cut -c1-12) >"$BENCH_TMP/$1.tree"
}

# readtest NAME DIR: the cold read of the image's DIR, BENCH_RUNS times.
readtest() {
    local i
    for i in $(seq 1 "$runs"); do
        cold
        timed "$1.read" "$build/bench/tools/tbbt-readtree" --json "$BENCH_TMP/$1.read.json" --dir "$2" "$url"
    done
}

# srvcpu: CPU seconds (user + system) the running ganesha has used so far.
srvcpu() {
    awk -v hz="$(getconf CLK_TCK)" '{print ($14 + $15) / hz}' "/proc/$TBBT_GANESHA_PID/stat"
}

# variant NAME DIR READ CMD...: BENCH_RUNS timed runs of CMD (an argument
# @URL@ becomes the server's URL of the run: its ports change at every
# start), each on a fresh file system, with the server's CPU seconds of
# each run in $BENCH_TMP/NAME.srv; then the last image's layout and, when
# READ is 1, its cold read.
variant() {
    local name=$1 dir=$2 read=$3 i a c0
    shift 3
    cut -d' ' -f1 /proc/loadavg >"$BENCH_TMP/$name.load"
    for i in $(seq 1 "$runs"); do
        fresh_fs || return 1
        local cmd=()
        for a in "$@"; do
            if [ "$a" = @URL@ ]; then cmd+=("$url"); else cmd+=("$a"); fi
        done
        c0=$(srvcpu)
        timed "$name" "${cmd[@]}"
        awk -v a="$c0" -v b="$(srvcpu)" 'BEGIN {print b - a}' >>"$BENCH_TMP/$name.srv"
    done
    layout "$name" "$dir"
    if [ "$read" = 1 ]; then readtest "$name" "$dir"; fi
}

fresh_fs || skip "cannot make and loop-mount an ext4 image in $work"

echo "bench/init: $(nproc) cores, $(awk '/MemTotal/ {printf "%.1f GiB", $2 / 1048576}' /proc/meminfo) RAM," \
    "load $(cut -d' ' -f1-3 /proc/loadavg), kernel $(uname -r), $(ganesha.nfsd -v 2>&1 | grep -o 'Release.*' | head -1)"
echo "bench/init: image file on $(df -h --output=source,fstype "$work" | tail -1 | tr -s ' '), loop ext4 of" \
    "$((fsbytes >> 20)) MiB (4 KiB blocks), fresh mkfs before every run; medians of $runs runs"
awk -v d="$data" -v b="$dblocks" -v f="$files" -v n="$dirs" -v s="$size" -v a="$appends" 'BEGIN {
    printf "bench/init: map: %s of files asked (tbbt-augment, SPEC SFS sizes): %d files, %d dirs, %.1f MB of data (%.1f MB in whole blocks), mean file %.1f KB; %d appends a file for tbbt-init\n",
        s, f, n, d / 1e6, b * 4096 / 1e6, (f ? d / f / 1e3 : 0), a }'

opts=(--appends-per-file "$appends" --json "$BENCH_TMP/init.json")
variant plain tbbt-plain 1 "$build/bench/tools/tbbt-plaincopy" --map "$map" --json "$BENCH_TMP/plain.json" @URL@
variant scope1 tbbt-run/clone.0 1 "$build/hierarchy/tbbt-init" -q --map "$map" --scope 1 "${opts[@]}" @URL@
cp "$BENCH_TMP/init.json" "$BENCH_TMP/scope1.json"
aged=(--scope 8192)
[ -n "$fullness" ] && aged+=(--fullness "$fullness")
variant scope8192 tbbt-run/clone.0 1 "$build/hierarchy/tbbt-init" -q --map "$map" "${aged[@]}" "${opts[@]}" @URL@
cp "$BENCH_TMP/init.json" "$BENCH_TMP/scope8192.json"
# a reference, not a target: scope 1 with one append a file (one COMMIT a
# file, as the plain copy), to show what the appends cost
variant scope1-a1 tbbt-run/clone.0 0 "$build/hierarchy/tbbt-init" -q --map "$map" --scope 1 \
    --appends-per-file 1 --json "$BENCH_TMP/scope1-a1.json" @URL@

# ---- the figures ----
echo
echo "Writing the image ($(awk -v d="$data" 'BEGIN {printf "%.1f MB", d / 1e6}') of data; wall of the whole program, medians):"
printf "%-10s %9s %8s %8s %10s %9s %8s %8s  %s\n" variant MB/s wall CPU peakRSS server-CPU WRITEs COMMITs "runs (s)"
for v in plain scope1 scope8192 scope1-a1; do
    medians "$v"
    eval "${v//-/_}_wall=$WALL"
    printf "%-10s %9.1f %7.2fs %7.2fs %7d KB %8.2fs %8s %8s  %s\n" "$v" "$(awk -v d="$data" -v w="$WALL" 'BEGIN {print d / 1e6 / w}')" \
        "$WALL" "$CPU" "$RSS" "$(_bench_median <"$BENCH_TMP/$v.srv")" "$(json "$BENCH_TMP/$v.json" writes)" \
        "$(json "$BENCH_TMP/$v.json" commits)" "$ALL"
done
echo "  (wall, CPU: the client program under GNU time; server-CPU: ganesha's user + system seconds during the run)"
echo "  1-minute load when each variant started: $(for v in plain scope1 scope8192 scope1-a1; do
    printf "%s %s  " "$v" "$(cat "$BENCH_TMP/$v.load")"; done)"
echo "  same tree (paths, types, sizes, modes) in every image: $(for v in plain scope1 scope8192 scope1-a1; do
    cat "$BENCH_TMP/$v.tree"; done | sort -u | awk 'END {print (NR == 1 ? "yes" : "NO")}')"
for v in scope1 scope8192 scope1-a1; do
    echo "  $v: objects $(json "$BENCH_TMP/$v.json" create_s) s, data $(json "$BENCH_TMP/$v.json" data_s) s" \
        "(tbbt-init's own split, last run); image bytes $(json "$BENCH_TMP/$v.json" image_bytes)"
done
echo "  plain: $(cut -d: -f2- "$BENCH_TMP/plain.out")"
awk -v p="$plain_wall" -v a="$scope1_wall" -v b="$scope8192_wall" -v c="$scope1_a1_wall" 'BEGIN {
    printf "speed ratio scope 1 / plain:    %.2f (target >= 1.00) %s\n", p / a, (p / a >= 1 ? "met" : "NOT met")
    printf "speed ratio scope 8192 / plain: %.2f (target >= 0.50) %s\n", p / b, (p / b >= 0.5 ? "met" : "NOT met")
    printf "reference: scope 1 with 1 append a file / plain: %.2f\n", p / c }'

echo
echo "Layout of the last run's image (tbbt-layout, regular files; free space of the whole file system):"
printf "%-10s %8s %12s %10s %10s %12s %12s\n" variant score blk-dist frag-size frag-dist free-extents avg-free-ext
for v in plain scope1 scope8192 scope1-a1; do
    perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my ($a, $f) = ($j->{all}, $j->{free_space});
        my $n = sub { defined $_[0] ? sprintf($_[1], $_[0]) : "-" };
        printf "%-10s %8s %12s %10s %10s %12s %12s\n", $ARGV[0], $n->($a->{layout_score}, "%.3f"),
            $n->($a->{avg_block_distance}, "%.1f"), $n->($a->{avg_fragment_size}, "%.2f"),
            $n->($a->{avg_fragment_distance}, "%.0f"), $f->{available} ? $f->{free_extents} : "-",
            $f->{available} ? $n->($f->{avg_free_extent_blocks}, "%.1f") : "-"' "$v" <"$BENCH_TMP/$v.layout.json"
done
echo "  (score: fraction of blocks contiguous with the previous one; blk-dist: blocks skipped per block;"
echo "   frag-size, avg-free-ext: blocks; frag-dist: blocks between a file's fragments)"

echo
echo "Read test (5.1.2): the whole image through NFS, caches dropped and ganesha restarted before each run:"
printf "%-10s %8s %9s %9s  %s\n" image wall MB/s bytes "runs (s)"
for v in plain scope1 scope8192; do
    medians "$v.read"
    eval "${v}_read=$WALL"
    b=$(json "$BENCH_TMP/$v.read.json" bytes)
    printf "%-10s %7.2fs %9.1f %9s  %s\n" "$v" "$WALL" "$(awk -v d="$b" -v w="$WALL" 'BEGIN {print d / 1e6 / w}')" "$b" "$ALL"
done
awk -v u="$scope1_read" -v a="$scope8192_read" 'BEGIN {
    printf "aged / unaged read time: %.2f (the paper: the aged image reads slower on a disk)\n", a / u }'
echo "bench/init: load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
