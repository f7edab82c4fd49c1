#!/bin/bash
# tests/report/make-fixtures.sh -- the results behind the decision page's
# tests (tests/data/report-fixtures.tar.zst): tbbt-compare on two local
# nfs-ganesha "filers", A an ext4 loop image mounted normally, B one
# mounted -o sync (the slow one), with the bundled sample trace looped so
# that every run lasts over 10 s:
#   runs/A-1.json .. runs/B-3.json   tbbt-compare --runs 3 --speedup 1/16
#                                    --duration 12 (timestamp mode, 439 ops/s)
#   sweep/A-xF.json, sweep/B-xF.json tbbt-compare --sweep, speedups 1/32 to 2
#                                    doubling, --duration 11, p99 from the send
# Usage: bash tests/report/make-fixtures.sh BUILD_DIR SRC_DIR OUT_DIR
# Then: tar -C OUT_DIR --zstd -cf tests/data/report-fixtures.tar.zst runs sweep
# Needs root (loop mounts, ganesha's VFS backend). Exit 77: cannot run here.
BUILD=${1:?usage: make-fixtures.sh BUILD SRC OUT}
SRC=${2:?usage: make-fixtures.sh BUILD SRC OUT}
OUT=${3:?usage: make-fixtures.sh BUILD SRC OUT}
BUILD=$(cd "$BUILD" && pwd)
. "$SRC/tests/lib/ganesha.sh"
tbbt_ganesha_usable || exit 77
command -v mkfs.ext4 >/dev/null || { echo "make-fixtures: mkfs.ext4 missing" >&2; exit 77; }
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd -P)
export TBBT_BUILD=$BUILD

# cleanup: servers stopped, images unmounted.
cleanup() {
    local s
    for s in A B; do
        tbbt_ganesha_stop "$OUT/srv/$s"
        mountpoint -q "$OUT/srv/$s/export" 2>/dev/null && umount "$OUT/srv/$s/export"
    done
    rm -f "$OUT"/srv/*.img
}
trap cleanup EXIT

# filer NAME OPTS: an ext4 loop image mounted with OPTS, exported by ganesha;
# its URL in URL_NAME.
filer() {
    mkdir -p "$OUT/srv/$1/export"
    truncate -s 512M "$OUT/srv/$1.img"
    mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$OUT/srv/$1.img" || return 1
    mount -o "loop$2" "$OUT/srv/$1.img" "$OUT/srv/$1/export" || return 77
    tbbt_ganesha_start "$OUT/srv/$1" || return 1
    eval "URL_$1=\$TBBT_NFS_URL"
}
filer A "" && filer B ",sync" || exit $?

TRACE=$SRC/traces/ganesha-libnfs-mixed.pcap.zst
CMP=$SRC/scripts/tbbt-compare
common=(--scope 256 --appends-per-file 4 --p99-from send)
"$CMP" -q --runs 3 --speedup 0.0625 --duration 12 "${common[@]}" -o "$OUT/cmp-runs" "$TRACE" "$URL_A" "$URL_B" || exit 1
"$CMP" -q --sweep --p99-limit 50 --speedups 0.03125,0.0625,0.125,0.25,0.5,1,2 --duration 11 "${common[@]}" \
    -o "$OUT/cmp-sweep" "$TRACE" "$URL_A" "$URL_B" || exit 1
mkdir -p "$OUT/runs" "$OUT/sweep"
for s in A B; do
    for n in 1 2 3; do cp "$OUT/cmp-runs/$s/run-$n.json" "$OUT/runs/$s-$n.json"; done
    for f in "$OUT/cmp-sweep/$s"/sweep-x*.json; do
        case $f in *.init.json) continue ;; esac
        cp "$f" "$OUT/sweep/$s-$(basename "$f" .json | sed 's/^sweep-//').json"
    done
done
ls "$OUT/runs" "$OUT/sweep"
