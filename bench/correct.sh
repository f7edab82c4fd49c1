#!/bin/bash
# bench/correct.sh -- records per second through pass 2 (the pre-play and
# its corrections) on the million-call benchmark capture, beside the floor
# measured in the same run on the same records.
#
# Input: bench/cache/bench-1000000.pcap (bench/make-capture.sh), prepped
# once by pass 1 to bench/cache/bench-1000000.tbbt (redone when the pcap
# is newer). Each command runs BENCH_RUNS times (default 3); figures are
# medians of wall time, peak RSS the largest seen:
#   floor   tbbt-check --copy -w OUT IN   read and write the records, no pass
#   check   tbbt-check IN                 read and pre-play (no output)
#   pass2   tbbt-check -w OUT IN          read, pre-play and correct, write
#   tenth   the same on the first tenth of the records (peak memory against
#           the trace's length: the model holds objects and names, the
#           window a fixed number of records)
# Printed: records, seconds, records/s, peak RSS, and the ratios
#   pass2 speed / floor speed (target >= 0.5)
#   pass 2's own rate = records / (pass2 wall - floor wall) (target >= 1M/s)
# and the model's size at the end (memory follows the objects, not the
# trace: compare with the number of records).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
build=${TBBT_BUILD:-$src/build}
if [ ! -x "$build/tools/tbbt-check" ] || [ ! -x "$build/transform/tbbt-prep" ]; then
    cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
    cmake --build "$build" -j2 --target tbbt-check tbbt-prep >/dev/null
fi
runs=${BENCH_RUNS:-3}
cache=$here/cache
trap 'rm -rf "$BENCH_TMP"' EXIT

pcap=${BENCH_CORRECT_PCAP:-$cache/bench-1000000.pcap}
if [ ! -s "$pcap" ]; then
    pcap=$("$here/make-capture.sh")
fi
in=$cache/$(basename "$pcap" .pcap).tbbt
# (re)made when missing, older than the capture, or not readable by this
# build (the record format changed)
if [ ! -s "$in" ] || [ "$in" -ot "$pcap" ] || ! "$build/tools/tbbt-check" --copy -w "$BENCH_TMP/probe.tbbt" "$in" >/dev/null 2>&1; then
    echo "bench/correct: prepping $(basename "$pcap") once to $in"
    "$build/transform/tbbt-prep" -q --no-correct -o "$in" "$pcap"
fi
check=$build/tools/tbbt-check
# the first tenth of the records, for memory against the trace's length
tenth=$cache/$(basename "$in" .tbbt)-tenth.tbbt
if [ ! -s "$tenth" ] || [ "$tenth" -ot "$in" ]; then
    n=$("$build/tools/tbbt-dump" "$in" | wc -l)
    "$build/tools/tbbt-dump" "$in" | awk -v lim=$((n / 10)) 'NR <= lim' |
        "$build/tools/tbbt-dump" --text-in -o "$tenth" -
fi

echo "bench/correct: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $runs runs, input $(basename "$in")"

BENCH_WARM=$in # each run starts with its input in the page cache (lib.sh)
bench_run floor "$runs" "$check" --copy -w "$BENCH_TMP/floor.tbbt" "$in"
f_wall=$BENCH_WALL f_rss=$BENCH_RSS
records=$(awk '{print $2}' "$BENCH_OUT")

# tbbt-check exits 1 when it finds replay failures: that is a result here,
# not an error, so the check-only and pass runs are wrapped.
run_ok=(bash -c '"$@" || [ $? = 1 ]' run_ok)
bench_run check "$runs" "${run_ok[@]}" "$check" --json "$BENCH_TMP/c.json" "$in"
c_wall=$BENCH_WALL c_rss=$BENCH_RSS
bench_run pass2 "$runs" "${run_ok[@]}" "$check" --json "$BENCH_TMP/p.json" -w "$BENCH_TMP/out.tbbt" "$in"
p_wall=$BENCH_WALL p_rss=$BENCH_RSS

BENCH_WARM=$tenth
bench_run tenth "$runs" "${run_ok[@]}" "$check" --json "$BENCH_TMP/t.json" -w "$BENCH_TMP/out10.tbbt" "$tenth"
t_wall=$BENCH_WALL t_rss=$BENCH_RSS

rate() { awk -v n="$records" -v s="$1" 'BEGIN {printf "%.0f", (s > 0) ? n / s : 0}'; }
row() { printf '%-8s %10s records %8.3f s %12s records/s %9s KiB peak\n' "$1" "$records" "$2" "$(rate "$2")" "$3"; }
row floor "$f_wall" "$f_rss"
row check "$c_wall" "$c_rss"
row pass2 "$p_wall" "$p_rss"
ratio=$(awk -v f="$f_wall" -v p="$p_wall" 'BEGIN {printf "%.2f", (p > 0) ? f / p : 0}')
own=$(awk -v n="$records" -v f="$f_wall" -v p="$p_wall" 'BEGIN {d = p - f; printf "%.0f", (d > 0) ? n / d : 0}')
t_records=$(perl -MJSON::PP -e 'local $/; print decode_json(<>)->{records}' "$BENCH_TMP/t.json")
printf '%-8s %10s records %8.3f s %12s records/s %9s KiB peak  (pass2 on the first tenth)\n' tenth "$t_records" \
    "$t_wall" "$(awk -v n="$t_records" -v s="$t_wall" 'BEGIN {printf "%.0f", (s > 0) ? n / s : 0}')" "$t_rss"
echo "pass2 speed / floor speed: $ratio (target >= 0.5)"
echo "pass 2's own rate (records / (pass2 - floor)): $own records/s (target >= 1000000)"
perl -MJSON::PP -e 'local $/; my $j = decode_json(<>); my $m = $j->{model};
    printf "report: %d failures, %d corrected, %d unexplained, %d inserted (%.4f%%); model at the end: %d objects, %d names\n",
    $j->{failures}, $j->{corrected}, $j->{unexplained}, $j->{inserted}, 100 * $j->{inserted_share}, $m->{objects}, $m->{names}' \
    "$BENCH_TMP/p.json"
