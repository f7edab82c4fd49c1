#!/bin/bash
# Bad input everywhere (issue 9): every command, given a wrong argument,
# says what is wrong, prints its usage and exits 2; a corrupt record file,
# a malformed hierarchy map, a server that is not NFS and an export that
# does not exist are each said in one line, exit 1.
#
#   1. Usage, for each of the 16 commands (C: tbbt-prep, -map, -augment,
#      -split, -init, -layout, -check, -dump, -play; Perl: tbbt-ellard,
#      -anonymize, -filter, -merge, -summary, -report, -compare): an unknown
#      option, a bad option value and a missing operand (where every operand
#      is optional -- tbbt-ellard and tbbt-summary read stdin, tbbt-anonymize
#      too, but wants a key -- the missing thing is an option's value or a
#      required option). Each: exit 2, nothing on stdout, stderr's first
#      line "TOOL: what is wrong", then a line starting "Usage:", no file
#      created or changed (the working directory and the inputs' directory
#      are listed before and after), done within 30 s (no hang) and no
#      crash (a signal would give an exit above 128).
#   2. A record file of several frames with one byte flipped and one cut:
#      every command that reads records (tbbt-dump, -check, -map, -split,
#      -play --simulate, and the Perl transforms through tbbt-dump) exits 1
#      with one line naming the file and the offset of the frame that
#      fails, an offset inside the file and not past the damage (for the
#      Perl transforms that line is tbbt-dump's, nothing added); nothing
#      left under the output names.
#   3. Hierarchy maps with a bad number, a line cut short and no end line:
#      tbbt-augment, -split, -init and tbbt-anonymize --map exit 1 with one
#      line "FILE:LINE: ..." (the damaged line; for the missing end, the
#      line after the last), no output left.
#   4. Servers that are not NFS (a Perl listener that answers junk, one
#      that closes every connection, one that accepts and says nothing) and
#      a port where nothing listens: tbbt-init and tbbt-play --timeout 2
#      exit 1 by themselves (not killed by the test's 60 s watchdog; how
#      long they took is printed, not asserted: it depends on the
#      machine), one line naming the
#      server and saying "not an NFS server" / "no reply" / "cannot
#      connect", nothing on stdout.
#   5. On nfs-ganesha (skipped, not the whole test, when it cannot run
#      here): tbbt-init and tbbt-play on an export that does not exist say
#      so in one line (MOUNT's refusal; tbbt-play without a MOUNT port: not
#      the export its manifest was built on); tbbt-init with ganesha's MOUNT
#      port but a junk NFS port; tbbt-play on the corrupt record file stops
#      with its one line; and a good replay still runs (the checks do not
#      refuse a real server).
# Usage (ctest): bash bad_args.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: bad_args.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: bad_args.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
e2e_begin bad-args

PREP=$BUILD/transform/tbbt-prep MAP=$BUILD/hierarchy/tbbt-map AUG=$BUILD/hierarchy/tbbt-augment
SPLIT=$BUILD/hierarchy/tbbt-split INIT=$BUILD/hierarchy/tbbt-init LAYOUT=$BUILD/hierarchy/tbbt-layout
CHECK=$BUILD/tools/tbbt-check DUMP=$BUILD/tools/tbbt-dump PLAY=$BUILD/player/tbbt-play
S=$SRC/scripts
export TBBT_BUILD=$BUILD # the Perl transforms' tbbt-dump
CAP=$SRC/traces/ganesha-libnfs-mixed.pcap.zst
IN=$TMP/in  # inputs, listed before and after each case
RUN=$TMP/cwd # each command's working directory, which must stay empty
mkdir -p "$IN" "$RUN"

# Inputs: the bundled trace prepped, its map, its text form, a result JSON.
cp "$CAP" "$IN/cap.pcap.zst"
"$PREP" -q -o "$IN/t.tbbt" "$IN/cap.pcap.zst" || { check "tbbt-prep makes the inputs" false; e2e_end; exit 1; }
"$DUMP" -o "$IN/t.txt" "$IN/t.tbbt"
cp "$SRC/tests/data/play-A-1.json" "$IN/r.json"
root=$(awk '!/^#/ {print $1; exit}' "$IN/t.hmap")
printf '# tbbt-manifest 1\n0 %s 0102030405060708 "x"\n# end 1\n' "$root" >"$IN/t.manifest"

# listing: every file under the inputs and the working directory, with
# size and mtime (a command that wrote or touched one shows here).
listing() {
    find "$IN" "$RUN" -printf '%p %s %T@\n' | sort
}

# usage_case TOOL WHAT ARGS...: runs TOOL ARGS in $RUN (stdin /dev/null,
# 30 s at most) and checks the usage error; prints the message line.
usage_case() {
    local tool=$1 what=$2 name
    shift 2
    name=$(basename "$tool")
    listing >"$TMP/before"
    local rc
    (cd "$RUN" && timeout 30 "$tool" "$@" </dev/null >"$TMP/u.out" 2>"$TMP/u.err")
    rc=$?
    listing >"$TMP/after"
    local why=""
    [ $rc = 124 ] && why="$why killed by the 30 s watchdog;"
    [ $rc = 2 ] || why="$why exit $rc;"
    [ ! -s "$TMP/u.out" ] || why="$why stdout not empty;"
    head -1 "$TMP/u.err" | grep -q "^$name: ." || why="$why first line not '$name: ...';"
    grep -q '^Usage:' "$TMP/u.err" || why="$why no 'Usage:' line;"
    cmp -s "$TMP/before" "$TMP/after" || why="$why files created or changed: $(diff "$TMP/before" "$TMP/after" | grep '^>' | head -2 | tr '\n' ' ');"
    check "$name, $what: exit 2, '$(head -1 "$TMP/u.err")' + usage${why:+ --$why}" [ -z "$why" ]
}

SRV=127.0.0.1:/x
echo "== 1. usage errors"
usage_case "$PREP" "unknown option" --bogus "$IN/cap.pcap.zst"
usage_case "$PREP" "bad value" --port 70000 "$IN/cap.pcap.zst"
usage_case "$PREP" "no input" -o out.tbbt
usage_case "$MAP" "unknown option" --bogus "$IN/t.tbbt"
usage_case "$MAP" "bad value" --root x -m out.hmap "$IN/t.tbbt"
usage_case "$MAP" "no input" -m out.hmap
usage_case "$AUG" "unknown option" --bogus --total-objects 10 -o out.hmap "$IN/t.hmap"
usage_case "$AUG" "bad value" --total-size 12Q -o out.hmap "$IN/t.hmap"
usage_case "$AUG" "no input" --total-objects 10 -o out.hmap
usage_case "$SPLIT" "unknown option" --bogus -o out "$IN/t.tbbt"
usage_case "$SPLIT" "bad value" --parts 1 -o out "$IN/t.tbbt"
usage_case "$SPLIT" "no input" -o out
usage_case "$INIT" "unknown option" --bogus --map "$IN/t.hmap" "$SRV"
usage_case "$INIT" "bad value" --timeout soon --map "$IN/t.hmap" "$SRV"
usage_case "$INIT" "no server" --map "$IN/t.hmap"
usage_case "$LAYOUT" "unknown option" --bogus "$IN"
usage_case "$LAYOUT" "bad value (none)" "$IN" --device
usage_case "$LAYOUT" "no path" --json out.json
usage_case "$CHECK" "unknown option" --bogus "$IN/t.tbbt"
usage_case "$CHECK" "bad value" --window lots --write out.tbbt "$IN/t.tbbt"
usage_case "$CHECK" "no input" --write out.tbbt
usage_case "$DUMP" "unknown option" --bogus "$IN/t.tbbt"
usage_case "$DUMP" "bad value (none)" "$IN/t.tbbt" -o
usage_case "$DUMP" "no input" -o out.txt
usage_case "$PLAY" "unknown option" --bogus "$IN/t.tbbt" "$SRV"
usage_case "$PLAY" "bad value" --order sideways --json out.json "$IN/t.tbbt" "$SRV"
usage_case "$PLAY" "no server" --json out.json "$IN/t.tbbt"
usage_case "$PLAY" "--simulate, bad value" --simulate --sim-windows 0 "$IN/t.tbbt"
usage_case "$PLAY" "--simulate, no trace" --simulate --json out.json
usage_case "$S/tbbt-ellard" "unknown option" --bogus "$SRC/tests/data/ellard-quirks.txt"
usage_case "$S/tbbt-ellard" "bad value" --max-warnings x -o out.txt "$SRC/tests/data/ellard-quirks.txt"
usage_case "$S/tbbt-ellard" "no value" "$SRC/tests/data/ellard-quirks.txt" -o
usage_case "$S/tbbt-anonymize" "unknown option" --bogus --key-string k -o out.txt "$IN/t.txt"
usage_case "$S/tbbt-anonymize" "bad value" --key-string k --length 0 -o out.txt "$IN/t.txt"
usage_case "$S/tbbt-anonymize" "no key" -o out.txt "$IN/t.txt"
usage_case "$S/tbbt-filter" "unknown option" --bogus --raw -o out.txt "$IN/t.txt"
usage_case "$S/tbbt-filter" "bad value" --uid u --raw -o out.txt "$IN/t.txt"
usage_case "$S/tbbt-filter" "no input" --raw -o out.txt
usage_case "$S/tbbt-merge" "unknown option" --bogus -o out.txt "$IN/t.txt"
usage_case "$S/tbbt-merge" "bad value" --dup-window x -o out.txt "$IN/t.txt"
usage_case "$S/tbbt-merge" "no input" -o out.txt
usage_case "$S/tbbt-summary" "unknown option" --bogus --json out.json "$IN/t.txt"
usage_case "$S/tbbt-summary" "bad value" --interval 0 --json out.json "$IN/t.txt"
usage_case "$S/tbbt-summary" "no value" "$IN/t.txt" --json
usage_case "$S/tbbt-report" "unknown option" --bogus -o out "$IN/r.json"
usage_case "$S/tbbt-report" "bad value" --max-mismatch lots -o out "$IN/r.json"
usage_case "$S/tbbt-report" "no input" -o out
usage_case "$S/tbbt-compare" "unknown option" --bogus -o out "$IN/t.tbbt" "$SRV" 127.0.0.1:/y
usage_case "$S/tbbt-compare" "bad value" --runs 0 -o out "$IN/t.tbbt" "$SRV" 127.0.0.1:/y
usage_case "$S/tbbt-compare" "no server" -o out "$IN/t.tbbt"

# one_line WHAT WANT_RC REGEX [NO_STDOUT]: the last case ($TMP/f.rc, .out,
# .err) exited WANT_RC with exactly one line on stderr matching REGEX
# (extended), and nothing on stdout when NO_STDOUT is 1.
one_line() {
    local what=$1 want=$2 re=$3 quiet=${4:-0} rc why=""
    rc=$(cat "$TMP/f.rc")
    [ "$rc" = 124 ] && why="$why killed by the 60 s watchdog;"
    [ "$rc" = "$want" ] || why="$why exit $rc;"
    [ "$(wc -l <"$TMP/f.err")" = 1 ] || why="$why $(wc -l <"$TMP/f.err") lines on stderr;"
    grep -Eq -- "$re" "$TMP/f.err" || why="$why does not match '$re';"
    [ "$quiet" = 0 ] || [ ! -s "$TMP/f.out" ] || why="$why stdout not empty;"
    check "$what: exit $want, one line '$(head -1 "$TMP/f.err")'${why:+ --$why}" [ -z "$why" ]
}
# run_f CMD...: runs CMD in $RUN (60 s at most) into $TMP/f.*
run_f() {
    (cd "$RUN" && timeout 60 "$@" </dev/null >"$TMP/f.out" 2>"$TMP/f.err")
    echo $? >"$TMP/f.rc"
}

echo "== 2. corrupt record files"
# ten copies of the trace, each 1 s after the one before (tbbt-merge wants
# call times in order): several 256 KiB frames, so the damage is not in the first
perl -e 'my @l = <STDIN>; for my $k (0 .. 9) { for (@l) { my @t = split / /, $_, 3;
    $t[$_] =~ s/^(\d+)/$1 + $k/e for 0, 1; print join " ", @t } }' <"$IN/t.txt" >"$TMP/big.txt"
"$DUMP" --text-in -o "$IN/big.tbbt" "$TMP/big.txt"
size=$(stat -c %s "$IN/big.tbbt")
flip=$((size * 3 / 4)) cut=$((size * 3 / 5))
cp "$IN/big.tbbt" "$IN/flip.tbbt"
printf '\x5a' | dd of="$IN/flip.tbbt" bs=1 seek=$flip conv=notrunc 2>/dev/null
cmp -s "$IN/big.tbbt" "$IN/flip.tbbt" || true
head -c $cut "$IN/big.tbbt" >"$IN/cut.tbbt"
check "the damaged copies differ from the whole file" eval '! cmp -s "$IN/big.tbbt" "$IN/flip.tbbt"'
# offset_ok FILE LIMIT: the offset in the last case's line is past the
# header (a frame's) and not past LIMIT (where the damage is)
offset_ok() {
    local off
    off=$(sed -n 's/.*: offset \([0-9]*\): .*/\1/p' "$TMP/f.err")
    [ -n "$off" ] && [ "$off" -gt 0 ] && [ "$off" -le "$2" ]
}
for kind in flip cut; do
    lim=$([ $kind = flip ] && echo $flip || echo $cut)
    f=$IN/$kind.tbbt
    for c in "tbbt-dump:$DUMP -o $RUN/out.txt $f" "tbbt-check:$CHECK --write $RUN/out.tbbt $f" \
        "tbbt-map:$MAP -m $RUN/out.hmap -w $RUN/out.tbbt $f" "tbbt-split:$SPLIT -o $RUN/out $f $IN/t.hmap" \
        "tbbt-play:$PLAY --simulate --json $RUN/out.json $f" "tbbt-summary:$S/tbbt-summary --json $RUN/out.json $f" \
        "tbbt-filter:$S/tbbt-filter --raw -o $RUN/out.txt $f" "tbbt-merge:$S/tbbt-merge -o $RUN/out.txt $f" \
        "tbbt-anonymize:$S/tbbt-anonymize --key-string k -o $RUN/out.txt $f"; do
        name=${c%%:*} prog=${c%%[ :]*}
        # shellcheck disable=SC2086 # the command line is split on purpose
        run_f ${c#*:}
        # the Perl transforms read records through tbbt-dump: the one line is its own
        one_line "$kind record file, $name" 1 "^($prog|tbbt-dump): .*$kind\.tbbt: offset [0-9]+: " 0
        check "$kind record file, $name: the offset is a frame's, not past the damage ($lim)" offset_ok "$f" "$lim"
        check "$kind record file, $name: no output left" eval '[ -z "$(ls -A "$RUN")" ]'
        rm -rf "${RUN:?}"/* "$RUN"/.[!.]* 2>/dev/null
    done
done

echo "== 3. malformed hierarchy maps"
awk 'NR == 20 { $6 = "12x" } { print }' "$IN/t.hmap" >"$IN/num.hmap"
awk 'NR == 25 { NF = 5 } { print }' "$IN/t.hmap" >"$IN/short.hmap"
grep -v '^# end' "$IN/t.hmap" >"$IN/noend.hmap"
nlines=$(wc -l <"$IN/noend.hmap")
free=$(perl -MIO::Socket::INET -e 'print IO::Socket::INET->new(Listen => 1, LocalAddr => "127.0.0.1:0")->sockport')
for m in "num:20:column 6" "short:25:column 6: missing" "noend:$((nlines + 1)):incomplete"; do
    k=${m%%:*} rest=${m#*:}
    line=${rest%%:*} what=${rest#*:}
    mf=$IN/$k.hmap
    for c in "tbbt-augment:$AUG --total-objects 3000 -o $RUN/out.hmap $mf" \
        "tbbt-split:$SPLIT -o $RUN/out $IN/t.tbbt $mf" \
        "tbbt-init:$INIT --timeout 2 --nfs-port $free --mount-port $free --manifest $RUN/out.manifest --map $mf 127.0.0.1:/x"; do
        name=${c%%:*}
        # shellcheck disable=SC2086
        run_f ${c#*:}
        one_line "map $k.hmap, $name" 1 "^$name: .*$k\.hmap:$line: $what" 1
        check "map $k.hmap, $name: no output left" eval '[ -z "$(ls -A "$RUN")" ]'
        rm -rf "${RUN:?}"/* 2>/dev/null
    done
    run_f "$S/tbbt-anonymize" --key-string k --map "$mf" --map-out "$RUN/out.hmap" -o "$RUN/out.txt" "$IN/t.txt"
    if [ $k = noend ]; then # it says so at the end of the file, not at a line
        one_line "map $k.hmap, tbbt-anonymize" 1 "^tbbt-anonymize: .*$k\.hmap: incomplete map" 1
    else
        one_line "map $k.hmap, tbbt-anonymize" 1 "^tbbt-anonymize: .*$k\.hmap:$line: $what" 1
    fi
    check "map $k.hmap, tbbt-anonymize: no output left" eval '[ -z "$(ls -A "$RUN")" ]'
    rm -rf "${RUN:?}"/* "$RUN"/.[!.]* 2>/dev/null
done

echo "== 4. servers that are not NFS"
# junk_server MODE: a listener on 127.0.0.1 (junk: answers every connection
# with an HTTP error and then 'junk' for whatever comes; close: closes
# every connection; silent: accepts and says nothing). Prints its port.
junk_server() {
    perl -MIO::Socket::INET -e '
        my $mode = shift;
        my $s = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => 0, Listen => 16, ReuseAddr => 1)
          or die "listen: $!\n";
        $| = 1;
        print $s->sockport, "\n";
        $SIG{CHLD} = "IGNORE";
        while (my $c = $s->accept) {
            if ($mode eq "close") { close $c; next }
            print $c "HTTP/1.0 400 Bad Request\r\nServer: not-nfs\r\n\r\n" if $mode eq "junk";
            if (!fork) { my $b; while (sysread($c, $b, 65536)) { print $c "junk" if $mode eq "junk" } exit 0 }
            close $c;
        }' "$1" >"$TMP/port.$1" &
    echo $! >"$TMP/pid.$1"
    for _ in $(seq 50); do [ -s "$TMP/port.$1" ] && break; sleep 0.1; done
}
stop_junk() {
    local m
    for m in junk close silent; do [ -s "$TMP/pid.$m" ] && kill "$(cat "$TMP/pid.$m")" 2>/dev/null; done
}
trap 'stop_junk; _e2e_cleanup' EXIT
for m in junk close silent; do junk_server $m; done
for m in junk close silent refused; do
    if [ $m = refused ]; then p=$free; else p=$(cat "$TMP/port.$m"); fi
    case $m in
    junk | close) re='not an NFS server' ;;
    silent) re='no reply' ;;
    refused) re='cannot connect' ;;
    esac
    t0=$SECONDS
    run_f "$INIT" --timeout 2 --nfs-port "$p" --mount-port "$p" --manifest "$RUN/out.manifest" --map "$IN/t.hmap" \
        127.0.0.1:/no/nfs/here
    dt=$((SECONDS - t0))
    one_line "tbbt-init, $m port" 1 "^tbbt-init: 127\.0\.0\.1:/no/nfs/here: .*($re.*$p|$p.*$re)" 1
    check "tbbt-init, $m port: ended by itself, not by the watchdog (${dt} s)" [ "$(cat "$TMP/f.rc")" != 124 ]
    t0=$SECONDS
    run_f "$PLAY" --timeout 2 --nfs-port "$p" --manifest "$IN/t.manifest" --json "$RUN/out.json" "$IN/t.tbbt" \
        127.0.0.1:/no/nfs/here
    dt=$((SECONDS - t0))
    one_line "tbbt-play, $m port" 1 "^tbbt-play: 127\.0\.0\.1:/no/nfs/here: .*($re.*$p|$p.*$re)" 1
    check "tbbt-play, $m port: ended by itself, not by the watchdog (${dt} s)" [ "$(cat "$TMP/f.rc")" != 124 ]
    check "$m port: no output left" eval '[ -z "$(ls -A "$RUN")" ]'
    rm -rf "${RUN:?}"/* 2>/dev/null
done

echo "== 5. nfs-ganesha: an export that does not exist"
if ! tbbt_ganesha_usable; then
    echo "SKIP (this part only): nfs-ganesha cannot run here"
elif ! tbbt_ganesha_start "$TMP/srv"; then
    check "nfs-ganesha starts" false
else
    G="--nfs-port $TBBT_NFS_PORT"
    NOEXP=127.0.0.1:/no/such/export
    # shellcheck disable=SC2086
    run_f "$INIT" --timeout 2 $G --mount-port "$TBBT_MNT_PORT" --manifest "$RUN/out.manifest" --map "$IN/t.hmap" "$NOEXP"
    one_line "tbbt-init, no such export" 1 "^tbbt-init: ${NOEXP//./\\.}: .*(export|MNT3ERR)" 1
    # shellcheck disable=SC2086
    run_f "$INIT" --timeout 2 --nfs-port "$(cat "$TMP/port.junk")" \
        --mount-port "$TBBT_MNT_PORT" --manifest "$RUN/out.manifest" --map "$IN/t.hmap" "127.0.0.1:$TBBT_EXPORT"
    one_line "tbbt-init, ganesha's MOUNT but no NFS on the NFS port" 1 \
        "^tbbt-init: 127\.0\.0\.1:${TBBT_EXPORT//./\\.}: not an NFS server: .* does not answer NFS calls" 1
    check "no output left" eval '[ -z "$(ls -A "$RUN")" ]'
    rm -rf "${RUN:?}"/* 2>/dev/null
    # the real image, for tbbt-play
    cp "$IN/t.tbbt" "$IN/t.hmap" "$TMP/"
    # shellcheck disable=SC2086
    "$INIT" -q --timeout 10 $G --mount-port "$TBBT_MNT_PORT" --map "$TMP/t.hmap" "127.0.0.1:$TBBT_EXPORT" >/dev/null
    check "tbbt-init on the real export (exit 0)" [ $? = 0 ]
    # shellcheck disable=SC2086
    run_f "$PLAY" -q --timeout 5 $G --mount-port "$TBBT_MNT_PORT" --json "$TMP/good.json" "$TMP/t.tbbt" \
        "127.0.0.1:$TBBT_EXPORT/"
    check "a good server and export (trailing /) still replays: exit 0, $(grep -o '"matched":[0-9]*' "$TMP/good.json" | head -1)" \
        eval '[ "$(cat "$TMP/f.rc")" = 0 ] && grep -q "\"matched\":1582" "$TMP/good.json"'
    # shellcheck disable=SC2086
    run_f "$PLAY" --timeout 2 $G --mount-port "$TBBT_MNT_PORT" --json "$RUN/out.json" "$TMP/t.tbbt" "$NOEXP"
    one_line "tbbt-play --mount-port, no such export" 1 "^tbbt-play: ${NOEXP//./\\.}: .*(export|MNT3ERR)" 1
    # shellcheck disable=SC2086
    run_f "$PLAY" --timeout 2 $G --json "$RUN/out.json" "$TMP/t.tbbt" "$NOEXP"
    one_line "tbbt-play, no such export (no MOUNT port: the manifest's export)" 1 \
        "^tbbt-play: ${NOEXP//./\\.}: not the export the manifest .* was built on" 1
    check "no output left" eval '[ -z "$(ls -A "$RUN")" ]'
    cp "$TMP/t.manifest" "$TMP/flip.manifest"
    cp "$IN/flip.tbbt" "$TMP/flip.tbbt"
    # shellcheck disable=SC2086
    run_f "$PLAY" --timeout 2 $G --json "$RUN/out.json" "$TMP/flip.tbbt" "127.0.0.1:$TBBT_EXPORT"
    one_line "tbbt-play on the server, flipped record file" 1 "^tbbt-play: .*flip\.tbbt: offset [0-9]+: "
    check "flipped record file, tbbt-play: the offset is not past the damage" offset_ok "$TMP/flip.tbbt" "$flip"
    rm -rf "${RUN:?}"/* 2>/dev/null
    tbbt_ganesha_stop "$TMP/srv"
fi
stop_junk
e2e_end
