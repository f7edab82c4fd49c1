#!/bin/bash
# tbbt-prep on both cores (--threads 2, the default, and 3) writes what it
# writes on one (--threads 1): the records and the map byte for byte, the
# same warnings, report and summary JSON (less its wall, CPU and memory
# figures, and the report's Speed and Footprint lines), on
#   - a real capture in the repository (tests/data/maildir3-s200),
#   - the real captures of ../shared/captures when present,
#   - a synthetic capture of 20,000 files and 100 clients (tbbt-synthcap),
#     with --max-warnings 0 and --no-correct / --no-map variants,
#   - an Ellard text trace (tests/data/ellard-quirks.txt: warnings on the
#     way);
# and a failing writer (/dev/full) or map (no such directory) stops every
# thread: exit 1, the same one-line error, no hang. Run under ThreadSanitizer by the --tsan tier.
# Usage (ctest): bash prep_threads.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: prep_threads.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: prep_threads.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
command -v zstd >/dev/null || { echo "SKIP: zstd not installed"; exit 77; }
command -v perl >/dev/null || { echo "SKIP: perl not installed"; exit 77; }
PREP=$BUILD/transform/tbbt-prep
SYNTH=$BUILD/bench/tools/tbbt-synthcap
[ -x "$PREP" ] || { echo "SKIP: no $PREP"; exit 77; }
e2e_begin prep_threads

# strip_json FILE: the summary JSON less the figures of this run's time and memory.
strip_json() {
    perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); delete @$j{qw(wall_s cpu_s maxrss_kb)};
        print JSON::PP->new->canonical->pretty->encode($j)' <"$1"
}

# run T NAME INPUT [OPTION...]: tbbt-prep --threads T in $TMP/tT/NAME (the
# same file names in each, as the map names its records file).
run() {
    local t=$1 name=$2 in=$3 d=$TMP/t$1/$2
    shift 3
    mkdir -p "$d"
    (cd "$d" && timeout 300 "$PREP" --threads "$t" --summary-json s.json -o x.tbbt -m x.hmap "$@" "$in" \
        >out.txt 2>err.txt)
    echo $? >"$d/rc"
}

# same NAME INPUT [OPTION...]: --threads 2 and 3 write what --threads 1 writes.
same() {
    local name=$1 t f
    for t in 1 2 3; do run $t "$@"; done
    local a=$TMP/t1/$name
    check "$name: --threads 1 succeeded" [ "$(cat "$a/rc")" = 0 ]
    check "$name: records written" [ -s "$a/x.tbbt" ]
    for t in 2 3; do
        local b=$TMP/t$t/$name
        check "$name: --threads $t exit status" [ "$(cat "$b/rc")" = "$(cat "$a/rc")" ]
        for f in x.tbbt x.hmap; do
            [ -e "$a/$f" ] || continue
            check "$name: --threads $t: $f byte for byte" cmp -s "$a/$f" "$b/$f"
        done
        check "$name: --threads $t: the same warnings" cmp -s "$a/err.txt" "$b/err.txt"
        check "$name: --threads $t: the same report" \
            diff -q <(grep -Ev '^(Speed|Footprint):' "$a/out.txt") <(grep -Ev '^(Speed|Footprint):' "$b/out.txt")
        check "$name: --threads $t: the same summary JSON" diff -q <(strip_json "$a/s.json") <(strip_json "$b/s.json")
    done
}

zstd -dcq "$SRC/tests/data/maildir3-s200.pcap.zst" >"$TMP/maildir.pcap"
same maildir "$TMP/maildir.pcap"
n=0
for z in "$SRC"/../shared/captures/real/*.pcap.zst "$SRC"/../shared/captures/public/nfstrace-eth-ipv4-tcp-nfsv3.pcap.zst; do
    [ -e "$z" ] || continue
    zstd -dcq "$z" >"$TMP/shared$n.pcap"
    same "shared-$(basename "$z" .pcap.zst)" "$TMP/shared$n.pcap"
    n=$((n + 1))
done
[ $n -gt 0 ] || echo "skipped: the shared captures (../shared/captures absent)"
if [ -x "$SYNTH" ]; then
    "$SYNTH" --objects 20000 --clients 100 --per-dir 500 >"$TMP/synth.pcap"
    same synth "$TMP/synth.pcap" --max-warnings 0
    same synth-no-correct "$TMP/synth.pcap" --no-correct
    same synth-no-map "$TMP/synth.pcap" --no-map
else
    echo "skipped: the synthetic capture (no $SYNTH)"
fi
same ellard "$SRC/tests/data/ellard-quirks.txt" -f ellard

# A writer that fails (no space) stops the passes before it on every thread count.
for t in 1 2 3; do
    timeout 120 "$PREP" -q --threads $t -o /dev/full -m "$TMP/full$t.hmap" "$TMP/maildir.pcap" \
        >/dev/null 2>"$TMP/full$t.err"
    echo $? >"$TMP/full$t.rc"
done
check "/dev/full: --threads 1 fails with 1" [ "$(cat "$TMP/full1.rc")" = 1 ]
check "/dev/full: one line naming the records" grep -q '/dev/full' "$TMP/full1.err"
for t in 2 3; do
    check "/dev/full: --threads $t fails with 1 (no hang)" [ "$(cat "$TMP/full$t.rc")" = 1 ]
    check "/dev/full: --threads $t: the same error" cmp -s "$TMP/full1.err" "$TMP/full$t.err"
done

# A map that cannot be written (pass 3's end, on the second thread with 2
# or 3) fails every thread count alike, and leaves no records behind.
for t in 1 2 3; do
    timeout 120 "$PREP" -q --threads $t -o "$TMP/nomap$t.tbbt" -m "$TMP/no-such-dir/x.hmap" "$TMP/maildir.pcap" \
        >/dev/null 2>"$TMP/nomap$t.err"
    echo $? >"$TMP/nomap$t.rc"
done
check "unwritable map: --threads 1 fails with 1" [ "$(cat "$TMP/nomap1.rc")" = 1 ]
check "unwritable map: one line naming the map" grep -q 'no-such-dir/x.hmap' "$TMP/nomap1.err"
for t in 1 2 3; do
    check "unwritable map: --threads $t leaves no records" [ ! -e "$TMP/nomap$t.tbbt" ]
done
for t in 2 3; do
    check "unwritable map: --threads $t fails with 1 (no hang)" [ "$(cat "$TMP/nomap$t.rc")" = 1 ]
    check "unwritable map: --threads $t: the same error" cmp -s "$TMP/nomap1.err" "$TMP/nomap$t.err"
done

# Bad usage names the option.
"$PREP" --threads 0 "$TMP/maildir.pcap" >/dev/null 2>"$TMP/bad.err"
check "--threads 0: usage error (exit 2)" [ $? = 2 ]
check "--threads 0: names the option" grep -q -- '--threads' "$TMP/bad.err"
e2e_end
