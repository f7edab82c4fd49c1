#!/bin/bash
# The workspace (issue 22, points 1 and 4; docs/workspace.md): the quick
# start typed in an empty directory, on real nfs-ganesha servers, with the
# commands on the PATH as a user has them:
#
#   tbbt-prep trace.pcap
#   tbbt-init --scope 8192 --nfs-port P --mount-port M 127.0.0.1:/EXPORT
#   tbbt-play --order fsdep --speedup 6
#   tbbt-report                      (then, after a second server: tbbt-compare)
#
# (the ports are given to tbbt-init because the test's ganesha is on
# non-standard ports, and other servers on this machine may hold the
# portmapper's entry; tbbt-play then takes them from the workspace.)
# Checked:
#   1. every command, C and Perl, prints the same --version, the project's;
#      the C commands' --list-options and --help list the same options; a
#      bad value names the option, the value and what is allowed (exit 2);
#   2. no workspace / no trace yet: tbbt-init and tbbt-play say so (exit 2);
#   3. the four commands as typed, each saying on stderr what it took
#      (trace, map, server, ports, manifest, result file), the result in
#      tbbt-results/ named by trace, server, order, speedup and time, the
#      report made from it; tbbt-compare refuses one server;
#   4. a second server: its own manifest (the first one's kept), tbbt-play
#      with two servers names both and how to choose, tbbt-play SERVER and
#      then tbbt-compare with no argument compare the two;
#   5. explicit arguments win: tbbt-play with trace, server, manifest, port
#      and --json writes there only and takes nothing from the workspace;
#      tbbt-init --map of a map that is not the workspace's records nothing;
#   6. two traces: tbbt-init and tbbt-play name both and the option to
#      choose (exit 2); with no workspace file, the directory's one
#      NAME.tbbt with its NAME.hmap is taken (design.md), two are named;
#   7. a corrupt workspace file (bad line, binary data, another version) and
#      one naming a missing file: one line naming the file and line, exit 1,
#      for tbbt-prep, tbbt-init and tbbt-play.
# Usage (ctest): bash quickstart.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: quickstart.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: quickstart.sh BUILD_DIR SRC_DIR}
BUILD=$(cd "$BUILD" && pwd) SRC=$(cd "$SRC" && pwd)
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
e2e_require zstd perl
e2e_begin workspace
trap 'tbbt_ganesha_stop "$TMP/srvB" >/dev/null 2>&1; _e2e_cleanup' EXIT

export PATH="$BUILD/transform:$BUILD/hierarchy:$BUILD/player:$BUILD/tools:$SRC/scripts:$PATH"
export TBBT_BUILD=$BUILD
C_CMDS=(tbbt-prep tbbt-init tbbt-play tbbt-map tbbt-augment tbbt-layout tbbt-split tbbt-dump tbbt-check)
P_CMDS=(tbbt-report tbbt-compare tbbt-ellard tbbt-anonymize tbbt-filter tbbt-merge tbbt-summary tbbt-capture)
for c in "${C_CMDS[@]}"; do command -v "$c" >/dev/null || { echo "SKIP: $c not built"; exit 77; }; done

# run NAME CMD...: runs CMD (120 s at most) with stdout and stderr in
# $TMP/NAME.out and .err; the exit code in RC.
run() {
    local name=$1
    shift
    timeout 120 "$@" >"$TMP/$name.out" 2>"$TMP/$name.err"
    RC=$?
}
# has NAME REGEX: NAME's stderr has a line matching REGEX
has() { grep -Eq -- "$2" "$TMP/$1.err"; }
# one_line NAME: NAME's stderr is one line
one_line() { [ "$(wc -l <"$TMP/$1.err")" = 1 ]; }

echo "== 1. --version, the option tables, a bad value"
want=$(sed -n 's/^project(tbbt VERSION \([0-9.]*\).*/\1/p' "$SRC/CMakeLists.txt")
for c in "${C_CMDS[@]}" "${P_CMDS[@]}"; do
    v=$("$c" --version 2>&1)
    check "$c --version: '$v'" [ "$v" = "$c (tbbt) $want" ]
done
for c in "${C_CMDS[@]}"; do
    a=$("$c" --list-options | cut -f1 | sort | tr '\n' ' ')
    b=$("$c" --help | grep -oE '^  (-[a-zA-Z], )?--[a-z0-9-]+' | sed 's/.*--/--/' | grep -v '^--help-all$' | sort -u | tr '\n' ' ')
    check "$c: --list-options and --help list the same options (${a:0:60}...)" [ -n "$a" -a "$a" = "$b" ]
done
run bad1 tbbt-play --window 0 t.tbbt 127.0.0.1:/x
check "tbbt-play --window 0: exit 2, names option, value, range" \
    eval '[ $RC = 2 ] && head -1 "$TMP/bad1.err" | grep -qx "tbbt-play: --window 0: must be an integer from 1 to 268435456"'
run bad2 tbbt-init --fullness 2 --map m.hmap 127.0.0.1:/x
check "tbbt-init --fullness 2: exit 2, the allowed range" \
    eval '[ $RC = 2 ] && head -1 "$TMP/bad2.err" | grep -qx "tbbt-init: --fullness 2: must be a number from 0 to 0.99"'
run bad3 tbbt-prep --format pcap x.pcap
check "tbbt-prep --format pcap: exit 2, the allowed values" \
    eval '[ $RC = 2 ] && head -1 "$TMP/bad3.err" | grep -qx "tbbt-prep: --format pcap: must be capture, ellard, text or auto"'

echo "== 2. no workspace, no trace yet"
mkdir -p "$TMP/empty" "$TMP/none"
cd "$TMP/empty" || exit 1
run nows-init tbbt-init --scope 8192 127.0.0.1:/x
check "empty directory: tbbt-init exit 2, 'no workspace here', how to start" \
    eval '[ $RC = 2 ] && has nows-init "^tbbt-init: no trace given, and no workspace here .*tbbt-prep CAPTURE"'
run nows-play tbbt-play --order fsdep --speedup 6
check "empty directory: tbbt-play exit 2, 'no workspace here'" eval '[ $RC = 2 ] && has nows-play "no workspace here"'
check "... and nothing was written" [ -z "$(ls -A "$TMP/empty")" ]
cd "$TMP/none" || exit 1
printf '# tbbt-workspace 1\n' >tbbt-workspace
run none-init tbbt-init --scope 8192 127.0.0.1:/x
check "a workspace without a trace: tbbt-init exit 2, 'no trace yet'" \
    eval '[ $RC = 2 ] && has none-init "^tbbt-init: no trace yet in this workspace"'
run none-play tbbt-play
check "... tbbt-play too" eval '[ $RC = 2 ] && has none-play "no trace yet in this workspace"'

echo "== 3. the quick start, as typed"
tbbt_ganesha_start "$TMP/srv" >/dev/null || { check "server A started" false; e2e_end; exit 1; }
A=127.0.0.1:$TBBT_EXPORT PA=$TBBT_NFS_PORT MA=$TBBT_MNT_PORT
tbbt_ganesha_start "$TMP/srvB" >/dev/null || { check "server B started" false; e2e_end; exit 1; }
B=127.0.0.1:$TBBT_EXPORT PB=$TBBT_NFS_PORT MB=$TBBT_MNT_PORT
mkdir "$TMP/ws" && cd "$TMP/ws" || exit 1
zstd -qdc "$SRC/traces/ganesha-libnfs-mixed.pcap.zst" >trace.pcap
run prep tbbt-prep trace.pcap
check "tbbt-prep trace.pcap: exit 0, says it recorded the trace" \
    eval '[ $RC = 0 ] && has prep "^tbbt-prep: recorded trace.tbbt \(map trace.hmap\) in tbbt-workspace"'
check "... the workspace file: version line, the trace" \
    eval 'head -1 tbbt-workspace | grep -qx "# tbbt-workspace 1" && grep -qP "^trace\trecords=trace.tbbt\tmap=trace.hmap$" tbbt-workspace'
run initA tbbt-init --scope 8192 --nfs-port "$PA" --mount-port "$MA" "$A"
check "tbbt-init --scope 8192 SERVER: exit 0, took the workspace's map" \
    eval '[ $RC = 0 ] && has initA "^tbbt-init: map: trace.hmap \(the workspace.s trace trace.tbbt\)"'
mfA=$(sed -n 's/^tbbt-init: manifest: \([^ ]*\) .*/\1/p' "$TMP/initA.err")
check "... its manifest, one per server ($mfA), exists; the server recorded with run and ports" \
    eval '[ -s "$mfA" ] && grep -qP "^server\ttrace=trace.tbbt\tserver=\Q$A\E\trun=tbbt-run\tmanifest=\Q$mfA\E\tnfs-port=$PA\tmount-port=$MA$" tbbt-workspace'
run playA tbbt-play --order fsdep --speedup 6 --no-live
check "tbbt-play --order fsdep --speedup 6: exit 0" [ $RC = 0 ]
for w in "trace: trace.tbbt" "server: $A" "nfs-port: $PA" "mount-port: $MA" "manifest: $mfA" "results: tbbt-results/"; do
    check "... says what it took: $w" has playA "^tbbt-play: ${w//./\\.}"
done
res=(tbbt-results/*.json)
check "... one result file, named trace.SERVER.fsdep.x6.TIME.json (${res[0]})" \
    eval '[ ${#res[@]} = 1 ] && [[ "${res[0]}" =~ ^tbbt-results/trace\.127\.0\.0\.1-.*-p$PA\.fsdep\.x6\.[0-9]{8}-[0-9]{6}\.json$ ]]'
check "... the result is the run's: this server, fsdep, x6, whole" \
    perl -MJSON::PP -e 'local $/; open my $f, "<", $ARGV[0] or die; my $j = decode_json(<$f>); my $m = $j->{meta};
        exit !($m->{server} eq $ARGV[1] && $m->{order} eq "fsdep" && $m->{speedup} == 6 && !$m->{partial}
            && $j->{totals}{records} > 1000 && $j->{totals}{matched} > 0)' "${res[0]}" "$A"
run report tbbt-report
check "tbbt-report: exit 0, read the workspace's run, wrote tbbt-report/" \
    eval '[ $RC = 0 ] && has report "the workspace.s 1 run" && [ -s tbbt-report/report.html ] && grep -q "$A" tbbt-report/report.txt'
run cmp1 tbbt-compare
check "tbbt-compare with one server's runs: exit 2, says so" eval '[ $RC = 2 ] && has cmp1 "all on one server"'

echo "== 4. a second server"
run initB tbbt-init --scope 8192 --nfs-port "$PB" --mount-port "$MB" "$B"
mfB=$(sed -n 's/^tbbt-init: manifest: \([^ ]*\) .*/\1/p' "$TMP/initB.err")
check "tbbt-init on B: exit 0, its own manifest; A's kept" eval '[ $RC = 0 ] && [ -s "$mfB" ] && [ "$mfB" != "$mfA" ] && [ -s "$mfA" ]'
run play2 tbbt-play --order fsdep --speedup 6
check "tbbt-play with two servers: exit 2, names both and how to choose" \
    eval '[ $RC = 2 ] && has play2 "^tbbt-play: 2 servers initialised for trace.tbbt" && grep -qF "$A, $B; name one: tbbt-play" "$TMP/play2.err"'
run playB tbbt-play --order fsdep --speedup 6 --no-live "$B"
check "tbbt-play SERVER_B: exit 0, B's ports and manifest from the workspace" \
    eval '[ $RC = 0 ] && has playB "^tbbt-play: nfs-port: $PB" && has playB "^tbbt-play: manifest: ${mfB//./\\.}"'
check "... a second result file" [ "$(ls tbbt-results/*.json | wc -l)" = 2 ]
run cmp2 tbbt-compare
check "tbbt-compare: exit 0, both servers in tbbt-compare/report.txt" \
    eval '[ $RC = 0 ] && grep -qF "$A" tbbt-compare/report.txt && grep -qF "$B" tbbt-compare/report.txt'

echo "== 5. explicit arguments win"
cp tbbt-workspace "$TMP/ws.before"
run explicit tbbt-play --no-live --limit 50 --manifest "$mfA" --nfs-port "$PA" --mount-port "$MA" --json "$TMP/explicit.json" trace.tbbt "$A"
check "tbbt-play TRACE SERVER --manifest --nfs-port --mount-port --json: exit 0, wrote --json, took nothing" \
    eval '[ $RC = 0 ] && [ -s "$TMP/explicit.json" ] && ! has explicit "the workspace"'
check "... no result file added to the workspace" [ "$(ls tbbt-results/*.json | wc -l)" = 2 ]
cp trace.tbbt "$TMP/other.tbbt" && cp trace.hmap "$TMP/other.hmap"
run initX tbbt-init -q --map "$TMP/other.hmap" --run-dir other --nfs-port "$PA" --mount-port "$MA" "$A"
check "tbbt-init --map (not the workspace's): exit 0, manifest beside that map, workspace unchanged" \
    eval '[ $RC = 0 ] && [ -s "$TMP/other.manifest" ] && cmp -s tbbt-workspace "$TMP/ws.before"'
run repX tbbt-report -q -o "$TMP/rep" "$TMP/explicit.json"
check "tbbt-report FILE: exit 0, that file only" eval '[ $RC = 0 ] && ! has repX "the workspace" && grep -q explicit.json "$TMP/rep/report.txt"'

echo "== 6. two traces"
cp trace.pcap second.pcap
run prep2 tbbt-prep -q second.pcap
check "a second tbbt-prep: two trace lines" [ "$(grep -c '^trace' tbbt-workspace)" = 2 ]
run two-init tbbt-init --scope 8192 "$A"
check "tbbt-init: exit 2, names both traces and --map" \
    eval '[ $RC = 2 ] && has two-init "^tbbt-init: 2 traces in this workspace \(tbbt-workspace\): trace.tbbt, second.tbbt; name its map with --map FILE"'
run two-play tbbt-play
check "tbbt-play: exit 2, names both traces and how to choose" \
    eval '[ $RC = 2 ] && has two-play "2 traces in this workspace .*trace.tbbt, second.tbbt; name the trace: tbbt-play TRACE.tbbt"'

mkdir "$TMP/plain" && cd "$TMP/plain" && cp "$TMP/ws/trace.tbbt" "$TMP/ws/trace.hmap" . || exit 1
run plain1 tbbt-play --simulate --sim-windows 100
check "no workspace file, one NAME.tbbt with its .hmap: tbbt-play --simulate takes it, says so" \
    eval '[ $RC = 0 ] && has plain1 "^tbbt-play: trace: trace.tbbt \(the only NAME.tbbt with its .hmap here\)"'
cp trace.tbbt b.tbbt && cp trace.hmap b.hmap
run plain2 tbbt-play --simulate
check "... two of them: exit 2, names both" eval '[ $RC = 2 ] && has plain2 "2 traces in this directory: b.tbbt, trace.tbbt"'

echo "== 7. a corrupt workspace file, one naming a missing file"
mkdir "$TMP/bad" && cd "$TMP/bad" || exit 1
cp "$TMP/ws/trace.pcap" .
# bad CASE CONTENT REGEX: tbbt-prep, -init and -play in a workspace whose
# file is CONTENT: each exits 1 (no signal) with one line matching REGEX
bad() {
    local case=$1 content=$2 re=$3 c
    printf "$content" >tbbt-workspace
    for c in "tbbt-prep -q trace.pcap" "tbbt-init 127.0.0.1:/x" "tbbt-play"; do
        run "bad-$case" $c
        check "$case: ${c%% *}: exit 1, one line '$(head -c 90 "$TMP/bad-$case.err")'" \
            eval '[ $RC = 1 ] && one_line "bad-$case" && has "bad-$case" "$re"'
    done
}
bad "a cut line" '# tbbt-workspace 1\ntrace\trecords=a.tbbt\n' "^tbbt-[a-z]+: tbbt-workspace:2: trace line without records= or map="
bad "binary data" '# tbbt-workspace 1\n\001\002\000\003\n' "^tbbt-[a-z]+: tbbt-workspace: not a workspace file \(binary data\)"
bad "another version" '# tbbt-workspace 9\n' "^tbbt-[a-z]+: tbbt-workspace:1: workspace format 9; this tbbt reads format 1"
bad "not one" 'records=a.tbbt\n' "^tbbt-[a-z]+: tbbt-workspace:1: not a workspace file"
printf '# tbbt-workspace 1\ntrace\trecords=gone.tbbt\tmap=gone.hmap\n' >tbbt-workspace
for c in "tbbt-init 127.0.0.1:/x" "tbbt-play"; do
    run missing $c
    check "a missing trace: ${c%% *}: exit 1, one line naming file, line and the missing file" \
        eval '[ $RC = 1 ] && one_line missing && has missing "^tbbt-[a-z]+: tbbt-workspace:2: gone.tbbt: No such file or directory"'
done
e2e_end
