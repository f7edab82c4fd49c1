#!/bin/bash
# bench/make-capture.sh -- the large benchmark capture, made once and cached.
#
# Starts a private nfs-ganesha, runs tbbt-workload (4 clients, 3 uids, a
# fixed seed) for BENCH_CALLS calls (default 1,000,000) under tcpdump, and
# keeps the capture in bench/cache/. The call sequence is fixed by the seed;
# the capture is remade only when the parameters or the generator change
# (the parameters and the generator's checksum are kept beside it).
# I/O is capped at 4 KiB so that a million calls fit in about a gigabyte.
# Prints the capture's path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
build=$(bench_build "$src")
calls=${BENCH_CALLS:-1000000}
cache=$here/cache
mkdir -p "$cache"
out=$cache/bench-$calls.pcap
params="calls=$calls clients=4 uids=0:0,1000:1000,1001:1001 max-io=4096 seed=1 depth=16 gen=$(md5sum <"$build/tests/tools/tbbt-workload" | cut -c1-12)"
if [ -s "$out" ] && [ "$(cat "$out.params" 2>/dev/null)" = "$params" ]; then
    echo "$out"
    exit 0
fi
. "$src/tests/lib/ganesha.sh"
. "$src/tests/lib/capture.sh"
tbbt_ganesha_usable
srv=$(mktemp -d /tmp/tbbt-bench-srv.XXXXXX)
trap 'tbbt_capture_stop >/dev/null 2>&1 || true; tbbt_ganesha_stop "$srv" || true; rm -rf "$srv"' EXIT
tbbt_ganesha_start "$srv" >&2
echo "bench: capturing $calls calls from tbbt-workload (a few minutes)..." >&2
tbbt_capture_run "$out.tmp" 0 "$(tbbt_capture_nfs_filter)" "$build/tests/tools/tbbt-workload" --quiet --clients 4 \
    --uids 0:0,1000:1000,1001:1001 --max-io 4096 --seed 1 --ops "$calls" --dir bench "$TBBT_NFS_URL" >&2
mv "$out.tmp" "$out"
echo "$params" >"$out.params"
echo "$out"
