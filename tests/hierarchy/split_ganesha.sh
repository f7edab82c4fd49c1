#!/bin/bash
# End-to-end for tbbt-split (spatial scale-down, paper 3.4.2) on
# nfs-ganesha: a part of a split trace replays on its own, on an image
# built from its own map, as the whole trace does on the whole image.
#
#   1. A fresh tbbt-workload capture: its clients each work in DIR/cK, but
#      every client's set-up changes DIR itself (a SETATTR of owner and
#      mode), so DIR is written by all and joins them: tbbt-split must say
#      there is one group (exit 1, one line) and write nothing.
#   2. A capture with disjoint subtrees: three tbbt-nfsscript clients (uids
#      0, 1000, 1001) run at once, each in its own directory dK made before
#      the server starts (with files in it), creating, writing, renaming,
#      linking, removing there; all of them read the root and a common
#      file, never change them. tbbt-split -k 2 must find the three groups,
#      report no crossing dependency, and write two parts whose records add
#      up to the whole.
#   3. Replays, each on a fresh server with tbbt-init's image of the map it
#      is given, tbbt-play --order fsdep at full speed: the whole trace on
#      the whole map, then each part alone on its part's map. Each part's
#      image holds exactly its map's initial paths (init_check.pl exact),
#      lacks some of the whole image's top-level entries (a proper subset),
#      and each client's subtree is in exactly one part's image; each
#      part's share of matched records must be 100%, or at least the whole
#      trace's share.
# Usage (ctest): bash split_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: split_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: split_ganesha.sh BUILD_DIR SRC_DIR}
OPS=${TBBT_E2E_OPS:-600}
SEED=${TBBT_E2E_SEED:-5}

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"

e2e_require tcpdump perl
PREP=$BUILD/transform/tbbt-prep
INIT=$BUILD/hierarchy/tbbt-init
SPLIT=$BUILD/hierarchy/tbbt-split
PLAY=$BUILD/player/tbbt-play
DUMP=$BUILD/tools/tbbt-dump
WL=$BUILD/tests/tools/tbbt-workload
NSC=$BUILD/tests/tools/tbbt-nfsscript
ICHECK=(perl "$SRC/tests/hierarchy/init_check.pl")
for b in "$PREP" "$INIT" "$SPLIT" "$PLAY" "$DUMP" "$WL" "$NSC"; do
    [ -x "$b" ] || { echo "SKIP: $b not built"; exit 77; }
done
perl -MJSON::PP -e 1 2>/dev/null || { echo "SKIP: perl JSON::PP missing"; exit 77; }
T0=$SECONDS

e2e_begin split

# nrecs FILE: the number of records in FILE.
nrecs() {
    "$DUMP" "$1" | wc -l
}

# 1. The workload's capture: one group.
e2e_capture_workload "$TMP/wl.pcap" "$OPS" "$SEED" 65536 wl
read -r -a CAPPORTS <<<"$PORTS"
"$PREP" -q "${CAPPORTS[@]}" -o "$TMP/wl.tbbt" "$TMP/wl.pcap"
check "tbbt-prep of the workload capture" [ $? = 0 -a -s "$TMP/wl.hmap" ]
"$SPLIT" -o "$TMP/wlsplit" "$TMP/wl.tbbt" >"$TMP/wlsplit.out" 2>"$TMP/wlsplit.err"
rc=$?
cat "$TMP/wlsplit.out" "$TMP/wlsplit.err"
check "workload trace: tbbt-split exits 1" [ $rc = 1 ]
check "workload trace: one line says there is one group" \
    [ "$(wc -l <"$TMP/wlsplit.err")" = 1 -a -n "$(grep -l ': 1 group of objects accessed together: no split' "$TMP/wlsplit.err")" ]
check "workload trace: nothing written" [ -z "$(ls "$TMP" | grep '^wlsplit\.part')" ]

# 2. Disjoint subtrees, made before the server starts.
rm -rf "$TMP/srv/export"
mkdir -p "$TMP/srv/export/common" && chmod 0777 "$TMP/srv/export"
head -c 30000 /dev/urandom >"$TMP/srv/export/common/readme"
UIDS=(0 1000 1001)
for k in 0 1 2; do
    d=$TMP/srv/export/d$k
    mkdir -p "$d/old"
    head -c $((5000 + k * 1000)) /dev/urandom >"$d/base.txt"
    head -c 70000 /dev/urandom >"$d/old/x.dat"
    echo "note $k" >"$d/old/note"
    chown -R "${UIDS[$k]}:${UIDS[$k]}" "$d"
    cat >"$TMP/s$k.txt" <<EOF
stat .
ls .
read common/readme
stat d$k/base.txt
read d$k/base.txt
create d$k/new1
write d$k/new1 0 20000
append d$k/base.txt 500
mkdir d$k/sub
create d$k/sub/f 0600
write d$k/sub/f 0 5000
rename d$k/new1 d$k/sub/new1
symlink ../base.txt d$k/sub/link
readlink d$k/sub/link
chmod d$k/sub/f 0644
ls d$k
read d$k/sub/new1
read d$k/old/x.dat
truncate d$k/base.txt 100
rename d$k/old/note d$k/note2
remove d$k/sub/new1
link d$k/base.txt d$k/hard
create d$k/tmp
remove d$k/tmp
mkdir d$k/gone
rmdir d$k/gone
stat d$k/sub/f
read common/readme
ls d$k/sub
EOF
done
tbbt_ganesha_start "$TMP/srv" || { check "the server started" false; exit 1; }
tbbt_capture_start "$TMP/sub.pcap" "$(tbbt_capture_nfs_filter)" || { check "tcpdump started" false; exit 1; }
pids=()
for k in 0 1 2; do
    "$NSC" --quiet --uid "${UIDS[$k]}" --gid "${UIDS[$k]}" "$TBBT_NFS_URL" "$TMP/s$k.txt" >"$TMP/s$k.out" 2>&1 &
    pids+=($!)
done
nsc_ok=1
for p in "${pids[@]}"; do wait "$p" || nsc_ok=0; done
tbbt_capture_stop
crc=$?
tbbt_ganesha_stop "$TMP/srv"
check "the three clients ran their scripts" [ $nsc_ok = 1 ]
check "the capture is complete" [ $crc = 0 ]
[ $nsc_ok = 1 ] && [ $crc = 0 ] || { cat "$TMP"/s?.out; exit 1; }
"$PREP" -q --port "$TBBT_NFS_PORT" --port "$TBBT_MNT_PORT" -o "$TMP/sub.tbbt" "$TMP/sub.pcap"
check "tbbt-prep of the subtrees capture" [ $? = 0 -a -s "$TMP/sub.hmap" ]
NALL=$(nrecs "$TMP/sub.tbbt")
echo "subtrees capture: $NALL records"

"$SPLIT" -k 2 -o "$TMP/part" "$TMP/sub.tbbt" >"$TMP/split.out" 2>"$TMP/split.err"
rc=$?
cat "$TMP/split.out" "$TMP/split.err"
check "tbbt-split -k 2 exit 0" [ $rc = 0 ]
groups=$(sed -n 's/.* \([0-9]*\) groups\{0,1\} of objects accessed together.*/\1/p' "$TMP/split.out")
check "the three subtrees are groups ($groups groups found, >= 3)" [ "${groups:-0}" -ge 3 ]
check "no crossing dependency" grep -q '^crossing dependencies: none' "$TMP/split.out"
N0=$(nrecs "$TMP/part.part0.tbbt")
N1=$(nrecs "$TMP/part.part1.tbbt")
check "the parts' records add up to the whole ($N0 + $N1 = $NALL)" [ $((N0 + N1)) = "$NALL" -a "$N0" -gt 0 -a "$N1" -gt 0 ]

# share JSON: "matched records pct" of a tbbt-play JSON document.
share() {
    perl -MJSON::PP -e 'local $/; my $t = decode_json(<STDIN>)->{totals};
        printf "%d %d %.3f\n", $t->{matched}, $t->{records}, $t->{records} ? 100 * $t->{matched} / $t->{records} : 0' <"$1"
}

# replay NAME TRACE MAP: a fresh server (export as the capture left it
# removed), tbbt-init of MAP, tbbt-play of TRACE; sets PCT. Returns 1 when
# it could not run.
replay() {
    local name=$1 trace=$2 map=$3 rc
    tbbt_ganesha_stop "$TMP/srv"
    rm -rf "$TMP/srv/export"
    tbbt_ganesha_start "$TMP/srv" || { check "$name: the server started" false; return 1; }
    local args=(-q --map "$map" --manifest "${trace%.tbbt}.manifest" --nfs-port "$TBBT_NFS_PORT"
        --mount-port "$TBBT_MNT_PORT" "127.0.0.1:$TBBT_EXPORT")
    "$INIT" "${args[@]}" 2>"$TMP/init.err" || { sleep 1; "$INIT" --replace "${args[@]}"; }
    rc=$?
    check "$name: tbbt-init built the image of $(basename "$map")" [ $rc = 0 ]
    [ $rc = 0 ] || return 1
    check "$name: the image holds exactly the map's initial paths" \
        "${ICHECK[@]}" exact "$map" "$TMP/srv/export/tbbt-run/clone.0"
    find "$TMP/srv/export/tbbt-run/clone.0" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort >"$TMP/$name.top"
    "$PLAY" -q --order fsdep --nfs-port "$TBBT_NFS_PORT" --json "$TMP/$name.json" "$trace" "127.0.0.1:$TBBT_EXPORT"
    rc=$?
    tbbt_ganesha_stop "$TMP/srv"
    check "$name: tbbt-play exit 0" [ $rc = 0 ]
    [ -s "$TMP/$name.json" ] || return 1
    local m r
    read -r m r PCT < <(share "$TMP/$name.json")
    echo "figures $name: $r records, $m matched = $PCT%"
    return 0
}

replay whole "$TMP/sub.tbbt" "$TMP/sub.hmap" || exit 1
WHOLE=$PCT
for p in 0 1; do
    replay "part$p" "$TMP/part.part$p.tbbt" "$TMP/part.part$p.hmap" || continue
    check "part $p alone: $PCT% matched, 100% or at least the whole trace's $WHOLE%" \
        awk -v p="$PCT" -v w="$WHOLE" 'BEGIN { exit !(p == 100 || p >= w) }'
    check "part $p's image lacks subtrees of the whole image ($(tr '\n' ' ' <"$TMP/part$p.top"))" \
        [ -n "$(comm -13 "$TMP/part$p.top" "$TMP/whole.top")" ]
done
# each client's subtree is in exactly one part's image
for k in 0 1 2; do
    n=$(cat "$TMP/part0.top" "$TMP/part1.top" | grep -cx "d$k")
    check "subtree d$k is in exactly one part's image (in $n)" [ "$n" = 1 ]
done
echo "runtime $((SECONDS - T0)) s"
e2e_end
