#!/usr/bin/env bash
# dev/demo.sh -- the main job, end to end, on this machine alone.
#
# Installs what is needed, builds, then:
#   1. runs tbbt-prep on the bundled real trace (traces/) and prints its
#      summary;
#   2. starts a private nfs-ganesha (VFS backend, loopback, free
#      non-standard ports, its own config/export/pid/log under the run
#      directory), captures a fresh concurrent workload from three libnfs
#      clients with tcpdump, stops the server, and runs tbbt-prep on that
#      capture.
#   3. shows the hierarchy map of step 1 and grows its initial image with
#      synthetic objects (tbbt-augment);
#   4. starts the server again, builds the fresh capture's initial image on
#      it, aged (tbbt-init), replays the capture at full speed in fsdep
#      order (tbbt-play), rebuilds the image and replays it again in
#      conservative order at the trace's own pace, then replays the bundled
#      trace on its augmented image built aged; prints every report;
#   5. the decision itself: dev/compare-demo.sh compares two local
#      filers that really differ (ext4 images on loop devices, one mounted
#      -o sync) with tbbt-compare on the bundled trace and writes the HTML
#      report (skipped, saying why, where loop devices cannot be used).
# Everything it writes goes to build/demo/.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
dev/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j"$(nproc)" >/dev/null
out=$top/build/demo
rm -rf "$out"
mkdir -p "$out"

echo "== 1. tbbt-prep on the bundled trace traces/ganesha-libnfs-mixed.pcap.zst"
build/transform/tbbt-prep -o "$out/sample.tbbt" traces/ganesha-libnfs-mixed.pcap.zst
build/tools/tbbt-dump "$out/sample.tbbt" >"$out/sample.txt"
echo "first records ($out/sample.txt, from tbbt-dump):"
head -3 "$out/sample.txt" | cut -c1-200

echo
echo "== 2. a fresh capture from a local nfs-ganesha"
. tests/lib/ganesha.sh
. tests/lib/capture.sh
tbbt_ganesha_usable
trap 'tbbt_capture_stop >/dev/null 2>&1 || true; tbbt_ganesha_stop "$out/server" || true' EXIT
tbbt_ganesha_start "$out/server"
echo "nfs-ganesha on 127.0.0.1:$TBBT_NFS_PORT (mount $TBBT_MNT_PORT), export $TBBT_EXPORT"
tbbt_capture_run "$out/fresh.pcap" 0 "$(tbbt_capture_nfs_filter)" build/tests/tools/tbbt-workload --quiet \
    --clients 3 --uids 0:0,1000:1000,1001:1001 --ops 5000 --seed 1 --dir demo "$TBBT_NFS_URL"
tbbt_ganesha_stop "$out/server"
build/transform/tbbt-prep --port "$TBBT_NFS_PORT" -o "$out/fresh.tbbt" "$out/fresh.pcap"

echo
echo "== 3. the hierarchy map of the bundled trace, and its initial image grown to 64 MiB"
echo "first entries of $out/sample.hmap (format: lib/hmap.h):"
grep -v '^#' "$out/sample.hmap" | head -5
build/hierarchy/tbbt-augment -o "$out/sample.aug.hmap" --total-size 64M --seed 1 "$out/sample.hmap"

echo
echo "== 4. the fresh capture replayed on the server: tbbt-init, then tbbt-play"
tbbt_ganesha_start "$out/server"
srv=127.0.0.1:$TBBT_EXPORT
ports=(--nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT")
build/hierarchy/tbbt-init --map "$out/fresh.hmap" "${ports[@]}" --scope 256 --appends-per-file 4 "$srv"
echo "-- tbbt-play --order fsdep (full speed)"
build/player/tbbt-play --order fsdep --nfs-port "$TBBT_NFS_PORT" --no-live --json "$out/play-fsdep.json" \
    "$out/fresh.tbbt" "$srv"
build/hierarchy/tbbt-init -q --replace --map "$out/fresh.hmap" "${ports[@]}" --scope 256 --appends-per-file 4 "$srv"
echo "-- tbbt-play --order conservative --speedup 1 (the trace's pace)"
build/player/tbbt-play --order conservative --speedup 1 --nfs-port "$TBBT_NFS_PORT" --no-live \
    --json "$out/play-conservative.json" "$out/fresh.tbbt" "$srv"
echo "-- the bundled trace on its augmented image (64 MiB, aged: scope 8192, 8 appends a file)"
build/hierarchy/tbbt-init --replace --map "$out/sample.aug.hmap" "${ports[@]}" --scope 8192 --appends-per-file 8 "$srv"
build/player/tbbt-play --manifest "$out/sample.aug.manifest" --nfs-port "$TBBT_NFS_PORT" --no-live \
    --json "$out/play-sample.json" "$out/sample.tbbt" "$srv"
tbbt_ganesha_stop "$out/server"
scripts/tbbt-report -q -o "$out/report" "$out/play-fsdep.json" "$out/play-conservative.json" ||
    echo "(tbbt-report warns above: these two runs differ in order and timing on purpose)"
echo "report of the two replays of step 4: $out/report/report.html"

echo
echo "== 5. two filers compared: dev/compare-demo.sh"
trap - EXIT
if losetup -f >/dev/null 2>&1; then
    dev/compare-demo.sh
else
    echo "skipped: no loop device can be used here (compare-demo.sh needs two loop-mounted images)"
fi
echo
echo "done: records in $out/sample.tbbt and $out/fresh.tbbt (build/tools/tbbt-dump FILE, --jsonl for JSON lines),"
echo "      maps in $out/sample.hmap, $out/fresh.hmap and $out/sample.aug.hmap,"
echo "      replay results in $out/play-fsdep.json and $out/play-conservative.json"
