#!/bin/bash
# tests/report/make-results.sh -- real tbbt-play results for tbbt-report:
# one capture, replayed on two nfs-ganesha "filers", RUNS times each.
#
# Usage: bash tests/report/make-results.sh BUILD_DIR SRC_DIR OUT_DIR [OPS] [RUNS] [SPEEDUP]
#   OPS      tbbt-workload calls in the capture (default 1500)
#   RUNS     replays per server (default 2)
#   SPEEDUP  tbbt-play --speedup (default 0.1: ten times slower than
#            traced, so the run lasts a few seconds and its series has
#            several points); conservative order
# Writes OUT_DIR/play-A-1.json .. play-B-RUNS.json (and the capture, the
# records and the map). Server A exports OUT_DIR/A/export, server B
# OUT_DIR/B/export: two ganesha processes (same machine, same disk), each
# restarted with an empty export and a fresh tbbt-init image (scope 64,
# 2 appends a file) before every replay. Needs root, nfs-ganesha, tcpdump.
# Exit: 0 done, 1 failed, 77 cannot run here. Used to make the fixtures
# tests/data/play-*.json and by tests/e2e/report_ganesha.sh.
BUILD=${1:?usage: make-results.sh BUILD SRC OUT [OPS] [RUNS] [SPEEDUP]}
SRC=${2:?usage: make-results.sh BUILD SRC OUT [OPS] [RUNS] [SPEEDUP]}
OUT=${3:?usage: make-results.sh BUILD SRC OUT [OPS] [RUNS] [SPEEDUP]}
OPS=${4:-1500}
RUNS=${5:-2}
SPEEDUP=${6:-0.1}

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"

PREP=$BUILD/transform/tbbt-prep
INIT=$BUILD/hierarchy/tbbt-init
PLAY=$BUILD/player/tbbt-play
WL=$BUILD/tests/tools/tbbt-workload
for b in "$PREP" "$INIT" "$PLAY" "$WL"; do
    [ -x "$b" ] || { echo "make-results: $b not built" >&2; exit 77; }
done
command -v tcpdump >/dev/null || { echo "make-results: tcpdump not installed" >&2; exit 77; }
tbbt_ganesha_usable || exit 77
mkdir -p "$OUT" || exit 1
OUT=$(cd "$OUT" && pwd -P)
trap 'tbbt_capture_stop >/dev/null 2>&1; tbbt_ganesha_stop "$OUT/A"; tbbt_ganesha_stop "$OUT/B"' EXIT

# The capture, from server A's first start.
tbbt_ganesha_start "$OUT/A" || exit 1
ports=(--port "$TBBT_NFS_PORT" --port "$TBBT_MNT_PORT")
tbbt_capture_run "$OUT/wl.pcap" 0 "$(tbbt_capture_nfs_filter)" "$WL" --quiet --clients 3 \
    --uids 0:0,1000:1000,1001:1001 --max-io 65536 --ops "$OPS" --seed 5 --dir wl "$TBBT_NFS_URL" ||
    { echo "make-results: the workload capture failed" >&2; exit 1; }
tbbt_ganesha_stop "$OUT/A"
"$PREP" -q "${ports[@]}" -o "$OUT/wl.tbbt" "$OUT/wl.pcap" || exit 1

# replay S N: a fresh server S with a fresh image, replayed once into
# OUT/play-S-N.json. 0 on success.
replay() {
    local s=$1 n=$2 i
    tbbt_ganesha_stop "$OUT/$s"
    rm -rf "$OUT/$s/export"
    tbbt_ganesha_start "$OUT/$s" || return 1
    local init=("$INIT" -q --map "$OUT/wl.hmap" --nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT"
        --scope 64 --appends-per-file 2 "127.0.0.1:$TBBT_EXPORT")
    # a just-started server may hang up the first MOUNT: one retry
    "${init[@]}" || { sleep 1 && "${init[@]}" --replace; } || return 1
    "$PLAY" -q --order conservative --speedup "$SPEEDUP" --nfs-port "$TBBT_NFS_PORT" \
        --json "$OUT/play-$s-$n.json" "$OUT/wl.tbbt" "127.0.0.1:$TBBT_EXPORT" || return 1
    tbbt_ganesha_stop "$OUT/$s"
}

for n in $(seq 1 "$RUNS"); do
    for s in A B; do
        replay "$s" "$n" || { echo "make-results: replay $s $n failed" >&2; exit 1; }
    done
done
ls "$OUT"/play-*.json
