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
# (traces/ganesha-libnfs-mixed.pcap.zst: 1582 calls, 822 WRITEs, 0.23 s
# long: looped so that every run lasts 30 s or more):
#   1. tbbt-compare --runs 4: prep once, then per run and per server an aged
#      image (tbbt-init, one clone per copy of the trace) and a replay at
#      1/33 of the traced pace (about 210 ops/s), the trace looped 4 times
#      (--duration 30), then the report (tbbt-report: the verdict first,
#      text, HTML page with plots, CSV); the ranking of every round;
#   2. tbbt-compare --sweep: the load doubled step by step from 219 ops/s
#      (11 s or more a step) until each filer can no longer keep up: the
#      curve of throughput against latency, each filer's peak with p99
#      latency (from the send) under 50 ms. It starts at 219, not 439: on a
#      loaded machine the -o sync filer reached 411 of 439 asked, which
#      left it no valid point and the sweep no verdict (2026-11-27).
# Then stops the servers, unmounts the images and prints where the reports
# are. Needs root (ganesha's VFS backend, loop mounts). About 7 minutes.
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

# mean_ms FILE: the mean latency (ms, from the send) of a tbbt-play result.
mean_ms() {
    perl -MJSON::PP -e 'local $/; open(my $f, "<", $ARGV[0]) or die; my $j = decode_json(<$f>);
        my ($n, $s) = (0, 0); for (@{ $j->{procedures} }) { my $h = $_->{latency_ns}; $n += $h->{n}; $s += $h->{mean} * $h->{n} }
        printf "%.3f", $n ? $s / $n / 1e6 : 0' "$1"
}

echo
echo "== 1. tbbt-compare --runs 4 (A, then B, four rounds; every run on a freshly built aged image, 30 s or more)"
t1=$SECONDS
rc=0
scripts/tbbt-compare --runs 4 --speedup 0.0299 --duration 30 --p99-from send --scope 256 --appends-per-file 4 \
    -o "$out/runs" traces/ganesha-libnfs-mixed.pcap.zst "$URL_A" "$URL_B" >"$out/runs.txt" || rc=$?
# the verdict, as the report leads with it
sed -n "/^Verdict/,/^$/p" "$out/runs/report/report.txt"
behind=0
for n in 1 2 3 4; do
    a=$(mean_ms "$out/runs/A/run-$n.json") b=$(mean_ms "$out/runs/B/run-$n.json")
    if perl -e 'exit !($ARGV[1] > $ARGV[0])' "$a" "$b"; then
        behind=$((behind + 1)) verdict="B (-o sync) behind"
    else
        verdict="B (-o sync) NOT behind"
    fi
    echo "round $n: mean latency A $a ms, B $b ms: $verdict"
done
echo "B ranked behind A in $behind of 4 rounds ($((SECONDS - t1)) s)"
[ "$rc" = 0 ] || echo "tbbt-compare exited $rc (see $out/runs/failures.txt)"

echo
echo "== 2. tbbt-compare --sweep (load doubled from 219 to 14000 ops/s, 11 s or more a step; p99 from the send under 50 ms)"
t2=$SECONDS
scripts/tbbt-compare --sweep --p99-limit 50 --p99-from send --speedups 0.03125,0.0625,0.125,0.25,0.5,1,2 \
    --duration 11 --scope 256 --appends-per-file 4 -o "$out/sweep" \
    traces/ganesha-libnfs-mixed.pcap.zst "$URL_A" "$URL_B" >"$out/sweep.txt" || rc=$?
sed -e 's|nfs://[^ ]*||' "$out/sweep/sweep.txt"
sed -n "/^Verdict/,/^  B/p" "$out/sweep/report/report.txt"
echo "($((SECONDS - t2)) s)"

cleanup
trap - EXIT
echo
echo "done in $((SECONDS - started)) s: servers stopped, images unmounted."
echo "  report of the runs: $out/runs/report/report.html (text report.txt, table report.csv)"
echo "  sweep:              $out/sweep/report/report.html (the curve, each peak), $out/sweep/sweep.txt"
echo "  everything else (trace, map, per-run results and logs): $out/runs, $out/sweep"
exit "$rc"
