#!/usr/bin/env bash
# dev/compare-demo.sh -- "which filer is faster?" on this machine alone,
# with tbbt-compare, in a few minutes.
#
# Installs what is needed (dev/install-deps.sh), builds, then starts two
# local nfs-ganesha "filers" that really differ:
#   A  exports an ext4 image on a loop device, mounted normally;
#   B  exports an ext4 image on a loop device mounted -o sync (every write
#      reaches the disk before its reply: the handicapped one);
# and runs on them, with the bundled sample trace
# (traces/ganesha-libnfs-mixed.pcap.zst: 1582 calls, 822 WRITEs):
#   1. tbbt-compare --runs 3: prep once, then per run and per server an aged
#      image (tbbt-init) and a full-speed replay (tbbt-play), then the report
#      (tbbt-report: text, HTML page with plots, CSV);
#   2. tbbt-compare --sweep: the speedup raised step by step until each
#      filer saturates; the peak throughput with p99 latency under 200 ms.
# Then stops the servers, unmounts the images and prints where the reports
# are. Needs root (ganesha's VFS backend, loop mounts).
# Everything goes to BUILD/compare-demo (BUILD: $TBBT_BUILD, default build/).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
build=${TBBT_BUILD:-$top/build}
started=$SECONDS

dev/install-deps.sh
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" --target tbbt-prep tbbt-augment tbbt-init tbbt-play >/dev/null
export TBBT_BUILD=$build

out=$build/compare-demo
. tests/lib/ganesha.sh
tbbt_ganesha_usable

# cleanup: both servers stopped, both images unmounted (the loop devices go
# with them); the results stay.
cleanup() {
    local s
    for s in A B; do
        tbbt_ganesha_stop "$out/$s" || true
        if mountpoint -q "$out/$s/export" 2>/dev/null; then
            umount "$out/$s/export" || umount -l "$out/$s/export" || true
        fi
    done
}
trap cleanup EXIT
cleanup
rm -rf "$out"
mkdir -p "$out"

# filer NAME MOUNTOPTS: an ext4 image NAME.img (512 MiB, sparse) on a loop
# device mounted on NAME/export with MOUNTOPTS, and a ganesha exporting it;
# its URL in URL_NAME.
filer() {
    local s=$1 opts=$2
    truncate -s 512M "$out/$s.img"
    mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$out/$s.img"
    mkdir -p "$out/$s/export"
    mount -o "loop$opts" "$out/$s.img" "$out/$s/export"
    tbbt_ganesha_start "$out/$s"
    eval "URL_$s=\$TBBT_NFS_URL"
    echo "filer $s: ext4 on $(findmnt -n -o SOURCE "$out/$s/export") mounted $(findmnt -n -o OPTIONS "$out/$s/export"),"
    echo "         nfs-ganesha on 127.0.0.1:$TBBT_NFS_PORT (mount $TBBT_MNT_PORT), export $TBBT_EXPORT"
}
echo "== two filers"
filer A ""
filer B ",sync"

echo
echo "== 1. tbbt-compare --runs 3 (A, then B, three rounds; every run on a freshly built aged image)"
rc=0
scripts/tbbt-compare --runs 3 --scope 256 --appends-per-file 4 -o "$out/runs" \
    traces/ganesha-libnfs-mixed.pcap.zst "$URL_A" "$URL_B" >"$out/runs.txt" || rc=$?
# the comparison table and the summary, not every procedure of every server
sed -n '/^Comparison/,/^$/p' "$out/runs.txt" | cut -c1-160
[ "$rc" = 0 ] || echo "tbbt-compare exited $rc (see $out/runs/failures.txt)"

echo
echo "== 2. tbbt-compare --sweep (speedup 1/16 .. 16, p99 limit 200 ms)"
scripts/tbbt-compare --sweep --p99-limit 200 --speedups 0.0625,0.125,0.25,0.5,1,2,4,8,16 \
    --scope 256 --appends-per-file 4 -o "$out/sweep" \
    traces/ganesha-libnfs-mixed.pcap.zst "$URL_A" "$URL_B" >"$out/sweep.txt" || rc=$?
sed -e 's|nfs://[^ ]*||' "$out/sweep/sweep.txt"

cleanup
trap - EXIT
echo
echo "done in $((SECONDS - started)) s: servers stopped, images unmounted."
echo "  report of the runs: $out/runs/report/report.html (text report.txt, table report.csv)"
echo "  sweep:              $out/sweep/sweep.txt, and the peak runs side by side in $out/sweep/report/report.html"
echo "  everything else (trace, map, per-run results and logs): $out/runs, $out/sweep"
exit "$rc"
