#!/bin/bash
# bench/ellard.sh -- Ellard text import rate: tbbt-prep's C reader into
# pass 1 (transform/ellard.c; pass 1 only, --no-correct --no-map) and the
# tbbt-ellard front end over it (records as text), beside a floor on the
# same input in the same run: awk splitting every line into its fields
# (what any reader of the text must do at least). The Perl importer these
# replaced (2026-11-27) ran at 4,459-18,723 lines a second, the C reader at
# 91,667-187,234 (docs/prep.md). The input is the 176 real lines of
# ../shared/captures/public/ellard-raw-data.txt (else
# tests/data/ellard-quirks.txt) repeated BENCH_ELLARD_COPIES times (default
# 1000), each copy's xids moved so that its calls and replies pair among
# themselves, and every line stamped 1 ms after the one before (the sample
# is excerpts of several years: repeated as is, its steps back would add up
# beyond what records can date). Medians of BENCH_RUNS (default 3), CPU and peak RSS from
# bench/lib.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
. "$here/lib.sh"
build=${TBBT_BUILD:-$src/build}
runs=${BENCH_RUNS:-3}
copies=${BENCH_ELLARD_COPIES:-1000}
trap 'rm -rf "$BENCH_TMP"' EXIT
sample=$src/../shared/captures/public/ellard-raw-data.txt
[ -r "$sample" ] || sample=$src/tests/data/ellard-quirks.txt
perl -e '
    my ($copies, $f) = @ARGV;
    open my $in, "<", $f or die "$f: $!";
    my @l = grep { !/^#/ && /\S/ } <$in>;
    my $us = 0;
    for my $i (0 .. $copies - 1) {
        for (@l) {
            my @t = split / /, $_, 7;
            $us += 1000;
            if (@t >= 7 && $t[5] =~ /^[0-9a-f]{1,8}$/) {
                $t[0] = sprintf("%d.%06d", 1006231501 + int($us / 1e6), $us % 1e6);
                $t[5] = sprintf("%x", (hex($t[5]) + $i * 0x10001) & 0xffffffff);
                print join(" ", @t);
            } else { print }
        }
    }' "$copies" "$sample" >"$BENCH_TMP/in.txt"
lines=$(wc -l <"$BENCH_TMP/in.txt")
echo "bench/ellard: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), medians of $runs runs, $lines lines ($copies copies of $(basename "$sample"))"
row() {
    awk -v l="$1" -v n="$lines" -v s="$2" -v c="$3" -v m="$4" -v f="$5" \
        'BEGIN {printf "%-24s %8.3f s %10.0f lines/s %7.3f s CPU %8d KiB peak  %6.2fx the floor'"'"'s speed\n", l, s, n / s, c, m, (s > 0 ? f / s : 0)}'
}
bench_run floor "$runs" awk '{ n += NF } END { print n > "/dev/null" }' "$BENCH_TMP/in.txt"
fw=$BENCH_WALL
row "floor (awk, fields)" "$BENCH_WALL" "$BENCH_CPU" "$BENCH_RSS" "$fw"
bench_run c "$runs" "$build/transform/tbbt-prep" -q --no-correct --no-map -o "$BENCH_TMP/c.tbbt" "$BENCH_TMP/in.txt"
row "C tbbt-prep (pass 1)" "$BENCH_WALL" "$BENCH_CPU" "$BENCH_RSS" "$fw"
bench_run front "$runs" perl "$src/scripts/tbbt-ellard" -q -o "$BENCH_TMP/p.txt" "$BENCH_TMP/in.txt"
row "tbbt-ellard (front end)" "$BENCH_WALL" "$BENCH_CPU" "$BENCH_RSS" "$fw"
echo "records: front end $(wc -l <"$BENCH_TMP/p.txt"), tbbt-prep $("$build/tools/tbbt-dump" "$BENCH_TMP/c.tbbt" | wc -l)"
