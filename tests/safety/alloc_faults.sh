#!/bin/bash
# Allocation failures, the SQLite way: each C command runs once to count
# the allocations tbbt's own code makes (tests/tools/failmalloc: the
# program's and GLib's, from main on), then again with the Nth of them
# refused, for N = 1..20 and a seeded sample of the rest (every N with
# TBBT_ALLOC_ALL=1). Each time:
#   - it ends by exit code 0 or 1, never by a signal (no crash, no abort,
#     no core) and never with a sanitizer or GLib memory-error report;
#   - exit 1: its last line on stderr is its own one-line error
#     ("tbbt-prep: out of memory (...)", or what it could not do);
#   - every output that exists under its final name is complete: byte
#     for byte the output of the run that failed nothing (exit 0: all of
#     them are there);
#   - no temporary file is left.
# Commands: tbbt-prep (all three passes: records, map, summary JSON),
# tbbt-check --write (pass 2), tbbt-map (pass 3), tbbt-play --simulate
# (the player's model run: reader, policy, simulator, results JSON), on
# the bundled capture. Then, where nfs-ganesha runs, tbbt-init and a
# replay (tbbt-play) against it, fewer N (a server run each; below).
# GLib's thread primitives (GPrivate, GRWLock: gthread-posix.c) allocate
# on first use and abort on a refusal without a message through the log
# ("Unexpected error from C library during 'malloc'"), and no hook
# exists: lib/oom.c makes the ones tbbt meets first thing in main, where a
# refusal is said in one line too. A run that aborts there fails the test.
# GLib before 2.76 hands small blocks out of GSlice, whose own failure
# path aborts ("***MEMORY-ERROR***") before tbbt can say anything, and
# reads G_SLICE before main: the sweep runs with G_SLICE=always-malloc,
# which is what GLib 2.76 and later always do (lib/oom.h says so).
# Not under a sanitizer: AddressSanitizer's allocator and an LD_PRELOAD
# one do not mix (the test says so and is skipped).
#   TBBT_ALLOC_MAX   sampled N per command beyond the first 20 (default 200)
#   TBBT_ALLOC_SEED  the sample's seed (default 1)
#   TBBT_ALLOC_ALL=1 every N
# Usage (ctest): bash alloc_faults.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: alloc_faults.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: alloc_faults.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
B=$BUILD
LIB=$B/tests/tools/tbbt-failmalloc.so
[ -f "$LIB" ] || { echo "SKIP: $LIB not built"; exit 77; }
if grep -q -E '^TBBT_SANITIZE:[A-Z]*=.*(address|thread|undefined|memory)' "$B/CMakeCache.txt" 2>/dev/null ||
    ldd "$B/transform/tbbt-prep" | grep -q -E 'libasan|libtsan'; then
    echo "SKIP: a sanitizer build: its allocator and the LD_PRELOAD fault injector do not mix"
    exit 77
fi
e2e_begin alloc-faults
export G_SLICE=always-malloc
MAX=${TBBT_ALLOC_MAX:-200}
SEED=${TBBT_ALLOC_SEED:-1}
TRACE=$SRC/traces/ganesha-libnfs-mixed.pcap.zst
"$B/transform/tbbt-prep" -q -o "$TMP/in.tbbt" "$TRACE" >/dev/null &&
    "$B/transform/tbbt-prep" -q --no-map -o "$TMP/raw.tbbt" "$TRACE" >/dev/null
check "the inputs were made" [ -s "$TMP/in.tbbt" -a -s "$TMP/raw.tbbt" ]

# which K MAX FIRST: the N to try of K allocations, one a line: 1..FIRST
# and MAX of the rest (seeded)
which_n() {
    local k=$1 max=$2 first=$3
    if [ -n "${TBBT_ALLOC_ALL:-}" ] || [ "$k" -le $((first + max)) ]; then
        seq 1 "$k"
        return
    fi
    seq 1 "$first"
    awk -v k="$k" -v m="$max" -v f="$first" -v s="$SEED" 'BEGIN { srand(s); while (n < m) { x = f + 1 + int(rand() * (k - f)); if (!(x in seen)) { seen[x] = 1; n++; print x } } }' | sort -n
}

# same A B: the same output (a JSON report's own run time, CPU time and
# peak memory aside)
same() {
    case $1 in
    *.manifest) # another run's file handles: whole when it ends as the clean run's did
        [ "$(tail -1 "$1")" = "$(tail -1 "$2")" ] && [ "$(wc -l <"$1")" = "$(wc -l <"$2")" ] ;;
    */srv-*.json) # another run's figures: whole when it parses with the same keys, complete
        perl -MJSON::PP -e 'local $/; my @k = map { open my $f, "<", $_ or exit 1; my $j = eval { decode_json(<$f>) } or exit 1;
            exit 1 if exists $j->{complete} && !$j->{complete}; join ",", sort keys %$j } @ARGV; exit($k[0] ne $k[1])' "$1" "$2" ;;
    *.json) cmp -s <(sed -E 's/"(wall_s|cpu_s|maxrss_kb)": *[0-9.e+-]+//g' "$1") \
        <(sed -E 's/"(wall_s|cpu_s|maxrss_kb)": *[0-9.e+-]+//g' "$2") ;;
    *) cmp -s "$1" "$2" ;;
    esac
}

# sweep NAME TOOL OUTS CMD...: as above; OUTS are the output names (comma-separated), in the run's directory
sweep() {
    local name=$1 tool=$2 outs=$3 d k n rc o last tried=0 clean=0 absorbed=0 bad=0 examples=()
    shift 3
    d=$TMP/$name
    mkdir -p "$d/ref" "$d/run"
    (cd "$d/ref" && TBBT_FAILMALLOC_COUNT="$d/count" LD_PRELOAD=$LIB exec "$@") >"$d/ref.out" 2>&1 ||
        { check "$name: runs with nothing refused ($(tail -1 "$d/ref.out"))" false; return; }
    k=$(cat "$d/count")
    for n in $(which_n "$k" "${SWEEP_MAX:-$MAX}" "${SWEEP_FIRST:-20}"); do
        rm -rf "$d/run" && mkdir "$d/run"
        (cd "$d/run" && TBBT_FAILMALLOC_N=$n LD_PRELOAD=$LIB exec timeout 120 "$@") >"$d/out" 2>"$d/err"
        rc=$?
        tried=$((tried + 1))
        last=$(tail -1 "$d/err")
        local why=
        if grep -q -F "GLib (gthread-posix.c): Unexpected error" "$d/err"; then
            why="exit $rc, aborted in GLib's thread primitives (one made lazily: lib/oom.c warm)"
        elif [ $rc != 0 ] && [ $rc != 1 ]; then
            why="exit $rc"
        elif grep -q -E 'Sanitizer|runtime error|MEMORY-ERROR|Segmentation|core dumped' "$d/err"; then
            why="report on stderr: $(grep -m1 -E 'Sanitizer|runtime error|MEMORY-ERROR|Segmentation' "$d/err")"
        elif [ $rc = 1 ] && [ "${last#"$tool: "}" = "$last" ]; then
            why="exit 1 without its own last line: $last"
        elif [ -n "$(find "$d/run" -name '*.tmp*' -o -name 'tbbt-out-*' | head -1)" ]; then
            why="temporary file left: $(find "$d/run" -name '*.tmp*' | head -1)"
        else
            for o in ${outs//,/ }; do
                if [ -e "$d/run/$o" ]; then
                same "$d/run/$o" "$d/ref/$o" || { why="$o under its final name, not complete"; break; }
                elif [ $rc = 0 ]; then
                    why="exit 0 without $o"
                    break
                fi
            done
        fi
        if [ -n "$why" ]; then
            bad=$((bad + 1))
            [ ${#examples[@]} -lt 3 ] && examples+=("N=$n: $why")
        elif [ $rc = 1 ]; then
            clean=$((clean + 1))
        else
            absorbed=$((absorbed + 1))
        fi
    done
    echo "     $name: $k allocations; $tried refused one at a time: $clean ended with one line and exit 1," \
        "$absorbed were absorbed (exit 0, outputs whole), $bad failed"
    local e
    for e in "${examples[@]}"; do echo "     $name: $e (TBBT_FAILMALLOC_N to repeat it)"; done
    check "$name: every refused allocation ended cleanly ($bad of $tried did not)" [ "$bad" = 0 ]
}

sweep prep tbbt-prep rec.tbbt,rec.hmap,sum.json \
    "$B/transform/tbbt-prep" -q -o rec.tbbt -m rec.hmap --summary-json sum.json "$TRACE"
sweep check tbbt-check out.tbbt,check.json "$B/tools/tbbt-check" -q -w out.tbbt --json check.json "$TMP/in.tbbt"
sweep map tbbt-map out.hmap,out.tbbt,map.json \
    "$B/hierarchy/tbbt-map" -q -m out.hmap -w out.tbbt --json map.json "$TMP/raw.tbbt"
sweep simulate tbbt-play sim.json "$B/player/tbbt-play" --simulate --sim-windows 100 --json sim.json "$TMP/in.tbbt"

# tbbt-init and a replay against nfs-ganesha: a server run each, so fewer N
# (TBBT_ALLOC_SERVER, default 40, after the first 5); the manifest and the
# results carry that run's handles and figures, so "whole" is: the
# manifest ends as the clean run's, the JSON parses with the same keys
# and is complete. Each init rebuilds the run directory (--replace); each
# replay plays on the image the last left (its figures do not matter).
if ! tbbt_ganesha_usable 2>/dev/null; then
    echo "     (nfs-ganesha cannot run here: tbbt-init and tbbt-play against a server not swept)"
elif ! tbbt_ganesha_start "$TMP/srv" >/dev/null 2>&1; then
    check "nfs-ganesha started" false
else
    SRV=(--nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT")
    SWEEP_MAX=${TBBT_ALLOC_SERVER:-40} SWEEP_FIRST=5 sweep init tbbt-init in.manifest,srv-init.json \
        "$B/hierarchy/tbbt-init" -q --replace "${SRV[@]}" --map "$TMP/in.hmap" --manifest in.manifest \
        --json srv-init.json "127.0.0.1:$TBBT_EXPORT"
    "$B/hierarchy/tbbt-init" -q --replace "${SRV[@]}" --map "$TMP/in.hmap" --manifest "$TMP/in.manifest" \
        "127.0.0.1:$TBBT_EXPORT"
    SWEEP_MAX=${TBBT_ALLOC_SERVER:-40} SWEEP_FIRST=5 sweep play tbbt-play srv-play.json \
        "$B/player/tbbt-play" -q "${SRV[@]}" --manifest "$TMP/in.manifest" --json srv-play.json \
        "$TMP/in.tbbt" "127.0.0.1:$TBBT_EXPORT"
    tbbt_ganesha_stop "$TMP/srv"
fi
e2e_end
