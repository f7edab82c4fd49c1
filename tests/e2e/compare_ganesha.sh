#!/bin/bash
# End-to-end for scripts/tbbt-compare on two nfs-ganesha "filers" on
# loopback (two directories, two ports), with the bundled sample trace
# (traces/ganesha-libnfs-mixed.pcap.zst: 1582 calls, 822 of them WRITEs).
# When loop mounts work, server A exports an ext4 image mounted normally
# and server B one mounted -o sync (every write reaches the disk before the
# reply): B is really slower on writes. Otherwise both export plain
# directories and the known-answer checks are skipped (said so).
#   1. both healthy, --runs 4: exit 0, the report's files, 4 results per
#      server, report.csv has both servers (4 runs each);
#      known answer (loop mounts): the report finds A better on WRITE mean
#      and p50 latency, significant (beyond the run-to-run spread of 4 runs
#      each), and better on overall ops/s;
#   2. server B stopped before its run 2 (TBBT_COMPARE_HOOK): exit 1,
#      failures.txt names B and run 2, B's run 1 and A's 3 runs are in the
#      report, B's later runs were not attempted;
#   2b. server B stopped while its first replay runs: exit 1, failures.txt
#      names B, the report has A's runs and no B;
#   3. --sweep (B restarted): a table per server; every server stops for a
#      stated reason; with loop mounts A's peak is above B's.
# Usage (ctest): bash compare_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: compare_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: compare_ganesha.sh BUILD_DIR SRC_DIR}
BUILD=$(cd "$BUILD" && pwd)
SRC=$(cd "$SRC" && pwd)
CMP=$SRC/scripts/tbbt-compare
TRACE=$SRC/traces/ganesha-libnfs-mixed.pcap.zst

. "$SRC/tests/lib/ganesha.sh"

for b in "$BUILD/transform/tbbt-prep" "$BUILD/hierarchy/tbbt-init" "$BUILD/player/tbbt-play"; do
    [ -x "$b" ] || { echo "SKIP: $b not built"; exit 77; }
done
for c in perl gnuplot zstd; do
    command -v "$c" >/dev/null || { echo "SKIP: $c not installed"; exit 77; }
done
tbbt_ganesha_usable || { echo "SKIP: cannot run nfs-ganesha here"; exit 77; }

TMP=$(mktemp -d /tmp/tbbt-e2e-compare.XXXXXX)
FAILS=0
LOOP=0

# cleanup: both servers stopped, images unmounted; TMP kept on failure.
cleanup() {
    local s
    for s in A B; do
        tbbt_ganesha_stop "$TMP/$s"
        mountpoint -q "$TMP/$s/export" 2>/dev/null && { umount "$TMP/$s/export" || umount -l "$TMP/$s/export"; }
    done
    if [ "$FAILS" = 0 ] && [ -z "${TBBT_KEEP:-}" ]; then rm -rf "$TMP"; else echo "kept $TMP"; fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

check() {
    local what=$1
    shift
    if "$@"; then echo "ok   $what"; else
        echo "FAIL $what"
        FAILS=$((FAILS + 1))
    fi
}

# loop_mount NAME OPTS: an ext4 image TMP/NAME.img mounted on TMP/NAME/export
# with OPTS; 0 when mounted. Inode tables and journal initialised by mkfs,
# not in the background while the first runs are measured.
loop_mount() {
    mkdir -p "$TMP/$1/export" &&
        truncate -s 256M "$TMP/$1.img" && mkfs.ext4 -q -F -E lazy_itable_init=0,lazy_journal_init=0 "$TMP/$1.img" >/dev/null 2>&1 &&
        mount -o "loop$2" "$TMP/$1.img" "$TMP/$1/export" 2>/dev/null
}

if command -v mkfs.ext4 >/dev/null && loop_mount A "" && loop_mount B ",sync"; then
    LOOP=1
    echo "A exports an ext4 loop image, B an ext4 loop image mounted -o sync"
else
    mountpoint -q "$TMP/A/export" 2>/dev/null && umount "$TMP/A/export"
    echo "note: loop mounts unavailable: both export plain directories, known-answer checks skipped"
fi

# start S: server S started, its URL in URL_S. The machine's rpcbind is
# shared with other tests: a server that dies within a second of its start
# (ganesha exits when a registration fails) is started again, up to 3 times.
start() {
    local i
    for i in 1 2 3; do
        if tbbt_ganesha_start "$TMP/$1" >/dev/null; then
            sleep 1
            if kill -0 "$TBBT_GANESHA_PID" 2>/dev/null &&
                timeout 3 rpcinfo -n "$TBBT_NFS_PORT" -t 127.0.0.1 100003 3 >/dev/null 2>&1; then
                eval "URL_$1=\$TBBT_NFS_URL"
                return 0
            fi
            echo "note: server $1 died after its start (attempt $i): $(tail -1 "$TMP/$1/ganesha.log")"
        fi
        tbbt_ganesha_stop "$TMP/$1"
    done
    echo "FAIL server $1 did not start"
    FAILS=$((FAILS + 1))
    exit 1
}
start A
start B

# csv FILE LABEL PROC COLUMN: the value of COLUMN in report.csv's row of
# server LABEL and procedure PROC ("all", or "write" for v3 write).
csv() {
    perl -e 'my ($f, $l, $p, $c) = @ARGV; open my $fh, "<", $f or exit 1; my @h = split /,/, scalar <$fh>; chomp $h[-1];
        my %i; @i{@h} = 0 .. $#h;
        while (<$fh>) { chomp; my @v = split /,/; next unless @v > 6;
            if ($v[$i{label}] eq $l && $v[$i{proc}] eq $p) { print $v[$i{$c}] // ""; exit 0 } } exit 1' "$@"
}

# ---- 1. both healthy, four runs each --------------------------------
t0=$SECONDS
TBBT_BUILD=$BUILD perl "$CMP" -q --runs 4 --scope 64 --appends-per-file 2 -o "$TMP/c1" "$TRACE" "$URL_A" "$URL_B" \
    >"$TMP/c1.out" 2>"$TMP/c1.err"
rc=$?
echo "figures: part 1 took $((SECONDS - t0)) s"
check "1: both healthy: exit 0 (got $rc)" [ $rc = 0 ]
check "1: the prepped trace and map are in DIR" [ -s "$TMP/c1/trace.tbbt" -a -s "$TMP/c1/trace.hmap" ]
for f in report.txt report.html report.csv cdf-all.png; do
    check "1: report/$f written" [ -s "$TMP/c1/report/$f" ]
done
check "1: no failures.txt" [ ! -e "$TMP/c1/failures.txt" ]
for s in A B; do
    n=$(ls "$TMP/c1/$s"/run-*.json 2>/dev/null | grep -vc init)
    check "1: server $s has 4 results (found $n)" [ "$n" = 4 ]
    check "1: report.csv has server $s with 4 runs" [ "$(csv "$TMP/c1/report/report.csv" $s all runs)" = 4 ]
    check "1: every record of $s's runs matched" \
        perl -MJSON::PP -e 'for (@ARGV) { local $/; open my $f, "<", $_ or exit 1; my $t = decode_json(<$f>)->{totals};
            exit 1 unless $t->{records} == 1582 && $t->{matched} == $t->{records} }' "$TMP/c1/$s"/run-[1234].json
done
check "1: progress lines on stderr are silenced by -q" [ ! -s "$TMP/c1.err" ]
for s in A B; do
    printf 'figures %s: all %s ops/s (ci95 %s); write mean %s ms (ci95 %s), p50 %s ms; commit mean %s ms\n' "$s" \
        "$(csv "$TMP/c1/report/report.csv" $s all ops_s)" "$(csv "$TMP/c1/report/report.csv" $s all ops_s_ci95)" \
        "$(csv "$TMP/c1/report/report.csv" $s write mean_ms)" "$(csv "$TMP/c1/report/report.csv" $s write mean_ms_ci95)" \
        "$(csv "$TMP/c1/report/report.csv" $s write p50_ms)" "$(csv "$TMP/c1/report/report.csv" $s commit mean_ms)"
done
if [ $LOOP = 1 ]; then
    R=$TMP/c1/report/report.csv
    check "known answer: A (normal mount) better on WRITE mean latency" [ "$(csv "$R" B write mean_ms_better)" = A ]
    check "known answer: ... significant (beyond 4 runs' spread)" [ "$(csv "$R" B write mean_ms_significant)" = yes ]
    check "known answer: A better on WRITE p50 latency, significant" \
        [ "$(csv "$R" B write p50_ms_better)/$(csv "$R" B write p50_ms_significant)" = A/yes ]
    check "known answer: A better on overall ops/s" [ "$(csv "$R" B all ops_s_better)" = A ]
    echo "figures: overall ops/s significant: $(csv "$R" B all ops_s_significant) (a full-speed run of this trace lasts 0.2 s)"
    check "known answer: the text report names A better on v3 write" \
        grep -Eq '^v3 write +[0-9.]+% +[0-9.]+( ±[0-9.]+)? +[0-9.]+( ±[0-9.]+)? +[0-9.]+ +[0-9.]+-[0-9.]+ +yes ' "$TMP/c1/report/report.txt"
    echo "figures: commit mean latency better on $(csv "$R" B commit mean_ms_better)," \
        "significant: $(csv "$R" B commit mean_ms_significant) (a sync mount has nothing left to flush at COMMIT)"
else
    echo "SKIP known answer: no loop mounts here"
fi

# ---- 2. server B stopped before its second run -----------------------
t0=$SECONDS
TBBT_BUILD=$BUILD TBBT_COMPARE_HOOK="[ \"\$TBBT_COMPARE_SERVER\" = B ] && [ \"\$TBBT_COMPARE_RUN\" = 2 ] && \
bash '$SRC/tests/lib/ganesha.sh' stop '$TMP/B'" \
    perl "$CMP" --runs 3 --scope 64 --appends-per-file 2 -o "$TMP/c2" "$TRACE" "$URL_A" "$URL_B" \
    >"$TMP/c2.out" 2>"$TMP/c2.err"
rc=$?
echo "figures: part 2 took $((SECONDS - t0)) s"
check "2: B stopped midway: exit 1 (got $rc)" [ $rc = 1 ]
check "2: failures.txt names server B at run 2/3" grep -q '^server B (.*) run 2/3 failed at .*: unreachable' "$TMP/c2/failures.txt"
check "2: failures.txt names only B" [ "$(grep -c . "$TMP/c2/failures.txt" 2>/dev/null)" = 1 ]
check "2: B's run 2 has its failure note, run 3 was not attempted" [ -s "$TMP/c2/B/run-2.failed" -a ! -e "$TMP/c2/B/run-3.json" -a ! -e "$TMP/c2/B/run-3.failed" ]
check "2: the report has A's full results (3 runs)" [ "$(csv "$TMP/c2/report/report.csv" A all runs)" = 3 ]
check "2: the report keeps B's one good run" [ "$(csv "$TMP/c2/report/report.csv" B all runs)" = 1 ]
check "2: the summary says B failed and where the report is" \
    grep -q 'B nfs://.*FAILED: run 2/3' "$TMP/c2.err"
check "2: progress lines shown (server A run 3/3 ... ops/s)" grep -Eq 'server A run 3/3: init ... play ... [0-9]+ ops/s' "$TMP/c2.err"
check "2: compare.json records B's failure and A's 3 results" \
    perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); my ($a, $b) = @{ $d->{servers} };
        exit !(@{ $a->{results} } == 3 && !$a->{failed} && $b->{failed} =~ /run 2\/3/ && @{ $b->{results} } == 1)' \
    <"$TMP/c2/compare.json"

# ---- 2b. server B stopped while its first replay runs -----------------
# A tenth of the trace's pace (a replay lasts about 2 s); the hook stops B
# 1.5 s after its run 1 begins (during tbbt-play; during tbbt-init on a slow
# machine: the same failure for the user). tbbt-play gives up on the dead
# server after its reconnection attempts (about 30 s).
start B
t0=$SECONDS
TBBT_BUILD=$BUILD TBBT_COMPARE_HOOK="[ \"\$TBBT_COMPARE_SERVER\" = B ] && [ \"\$TBBT_COMPARE_RUN\" = 1 ] && \
(sleep 1.5; bash '$SRC/tests/lib/ganesha.sh' stop '$TMP/B') >/dev/null 2>&1 &" \
    perl "$CMP" -q --runs 2 --speedup 0.1 --init-timeout 10 --scope 64 --appends-per-file 2 -o "$TMP/c2b" \
    "$TRACE" "$URL_A" "$URL_B" >"$TMP/c2b.out" 2>"$TMP/c2b.err"
rc=$?
echo "figures: part 2b took $((SECONDS - t0)) s"
check "2b: B stopped during its replay: exit 1 (got $rc)" [ $rc = 1 ]
check "2b: failures.txt names server B at run 1/2" grep -q '^server B (.*) run 1/2 failed at .*: tbbt-' "$TMP/c2b/failures.txt"
check "2b: the failure is on stderr under -q" grep -q '^tbbt-compare: server B .* failed' "$TMP/c2b.err"
check "2b: the report has A's 2 runs" [ "$(csv "$TMP/c2b/report/report.csv" A all runs)" = 2 ]
check "2b: the report has no B (its partial result left out)" [ -z "$(csv "$TMP/c2b/report/report.csv" B all runs)" ]
sed 's/^/  | /' "$TMP/c2b/failures.txt"

# ---- 3. the sweep ----------------------------------------------------
start B
t0=$SECONDS
# p99 from the actual send: from the schedule (the default), one fsync of
# A's image stalled by the shared disk holds every request that depends on
# it in fsdep order, and a single stall decides the step.
# Every step lasts 11 s or more (--duration: the trace looped), what a
# step needs to be valid and so to be a peak.
TBBT_BUILD=$BUILD perl "$CMP" --sweep --p99-limit 200 --p99-from send --speedups 0.0625,0.25,1,4 --duration 11 \
    --scope 64 --appends-per-file 2 \
    -o "$TMP/c3" "$TRACE" "$URL_A" "$URL_B" >"$TMP/c3.out" 2>"$TMP/c3.err"
rc=$?
echo "figures: part 3 took $((SECONDS - t0)) s"
check "3: sweep: exit 0 (got $rc)" [ $rc = 0 ]
sed 's/^/  | /' "$TMP/c3/sweep.txt"
for s in A B; do
    n=$(grep -c "^$s," "$TMP/c3/sweep.csv" 2>/dev/null)
    check "3: server $s swept ($n speedups)" [ "${n:-0}" -ge 1 ]
    check "3: server $s's stop is explained" \
        perl -MJSON::PP -e 'local $/; my $d = decode_json(<STDIN>); my ($s) = grep { $_->{label} eq $ARGV[0] } @{ $d->{servers} };
            exit !($s->{saturated} && $s->{saturated} =~ /grew only|fell|over the limit|rate not reached|not saturated/)' "$s" <"$TMP/c3/compare.json"
done
peak() { awk -F, -v s="$1" '$1 == s && $8 == "yes" { print int($5) }' "$TMP/c3/sweep.csv"; }
echo "figures: sweep peak A $(peak A) ops/s, B $(peak B) ops/s"
if [ $LOOP = 1 ]; then
    pa=$(peak A)
    pb=$(peak B)
    check "known answer: A's peak load above B's" [ "${pa:-0}" -gt "${pb:-0}" ]
fi

echo "$FAILS failure(s)"
[ "$FAILS" = 0 ]
