#!/bin/bash
# End-to-end: start a private nfs-ganesha, capture tbbt-workload against it
# with tcpdump, and check the capture with tshark (an independent decoder):
# every NFSv3 procedure of RFC 1813 was called and answered, lookups both
# failed and succeeded, at least 3 TCP connections carried NFS, the AUTH_SYS
# uids asked for appear, every call the workload counted is on the wire, the
# per-connection call sequence is the same for the same seed, and
# tbbt-pcapdrop's output has exactly the packets it says it kept (and cut ones
# are cut).
# Then the options of multi-user sites (--names maildir --shared 2 --umask),
# checked from tbbt-prep's records of the capture: long names in LOOKUP,
# CREATE and RENAME, SETATTRs that change mode, owner and group, several uids
# in one shared directory, ACCES replies, created modes that follow each
# client's umask. And the default run still makes the call sequence the
# generator made before those options (built here from git at OLD_WL_REV).
# Usage (ctest): bash workload_capture.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: workload_capture.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: workload_capture.sh BUILD_DIR SRC_DIR}
OPS=${TBBT_E2E_OPS:-3000}
SEED=${TBBT_E2E_SEED:-42}
# the multi-user run: 10000 calls give client 0 (uid 0) 5 to 15 chowns (3 to
# 7 in 6000 were seen: too close to none); its sequence depends on timing,
# so the checks ask for presence, not counts
MOPS=${TBBT_E2E_MULTI_OPS:-10000}
MULTI=(--names maildir --shared 2 --umask 022,002,077)
UMASKS=(022 002 077)
# The last commit of tbbt-workload.c (then tools/, now tests/tools/) before --names/--shared/--umask:
# its default run is the reference for ours.
OLD_WL_REV=affb77c

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"

e2e_require tcpdump tshark
WL=$BUILD/tests/tools/tbbt-workload
DROP=$BUILD/tests/tools/tbbt-pcapdrop
for t in "$WL" "$DROP"; do
    [ -x "$t" ] || { echo "FAIL: $t not built"; exit 1; }
done

e2e_begin workload

tbbt_ganesha_start "$TMP/srv" || { FAILS=1; echo "FAIL: ganesha did not start"; exit 1; }
echo "server on 127.0.0.1 nfs $TBBT_NFS_PORT mount $TBBT_MNT_PORT export $TBBT_EXPORT"
FILTER=$(tbbt_capture_nfs_filter)
UIDS=0:0,1000:1000,1001:1001

# run_capture NAME DIR [OPTION...]: capture one workload run ($WLBIN, default
# $WL; $NOPS calls, default $OPS) into $TMP/NAME.pcap, summary in NAME.txt
run_capture() {
    local t0=$SECONDS name=$1 dir=$2 ops=${NOPS:-$OPS}
    shift 2
    tbbt_capture_run "$TMP/$name.pcap" 0 "$FILTER" "${WLBIN:-$WL}" --quiet --clients 3 --uids "$UIDS" \
        --ops "$ops" --seed "$SEED" --dir "$dir" "$@" "$TBBT_NFS_URL" >"$TMP/$name.txt"
    local rc=$?
    echo "captured $name ($ops calls) in $((SECONDS - t0)) s, workload exit $rc"
    return $rc
}
# capture_retry NAME DIR [OPTION...]: run_capture, again (in a fresh DIR,
# which gives the same sequence for the same seed) when the kernel dropped
# packets: that is a busy machine, not the workload; up to 3 tries, each said.
capture_retry() {
    local i name=$1 dir=$2
    shift 2
    for i in 1 2 3; do
        run_capture "$name" "$dir-$i" "$@" && return 0
        dropped=$(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' "$TBBT_CAPTURE_ERR" 2>/dev/null)
        [ -n "$dropped" ] && [ "$dropped" != 0 ] || return 1
        echo "NOTE: capture $1 lost $dropped packets in the kernel (machine busy): capturing again"
    done
    return 1
}
capture_retry a run-a || { FAILS=1; echo "FAIL: capture a"; exit 1; }
capture_retry b run-b || { FAILS=1; echo "FAIL: capture b"; exit 1; }
NOPS=$MOPS capture_retry m run-m "${MULTI[@]}" || { FAILS=1; echo "FAIL: capture m (${MULTI[*]})"; exit 1; }
# old_wl: build the generator of OLD_WL_REV into $TMP/old-wl; 1 when this
# source tree has no git history or it no longer builds against lib/
old_wl() {
    git -C "$SRC" show "$OLD_WL_REV:tools/tbbt-workload.c" >"$TMP/old-wl.c" 2>"$TMP/old-wl.err" &&
        "${CC:-cc}" -std=gnu11 -O2 -I"$SRC/lib" -o "$TMP/old-wl" "$TMP/old-wl.c" "$BUILD/lib/libtbbt.a" \
            -lnfs 2>"$TMP/old-wl.err"
}
OLD=0
if old_wl; then
    WLBIN=$TMP/old-wl capture_retry old run-old || { FAILS=1; echo "FAIL: capture old"; exit 1; }
    OLD=1
else
    echo "NOTE: cannot build tbbt-workload at $OLD_WL_REV here ($(head -c 200 "$TMP/old-wl.err" 2>/dev/null));" \
        "comparing the default run's call counts with those recorded at that commit instead"
fi
tbbt_ganesha_stop "$TMP/srv"

TS=(tshark -n -r "$TMP/a.pcap" -d "tcp.port==$TBBT_NFS_PORT,rpc" -d "tcp.port==$TBBT_MNT_PORT,rpc")
"${TS[@]}" -q -z rpc,srt,100003,3 2>/dev/null >"$TMP/a.srt"

# Every NFSv3 procedure (RFC 1813 section 3.3) with at least one answered call.
for p in NULL GETATTR SETATTR LOOKUP ACCESS READLINK READ WRITE CREATE MKDIR SYMLINK MKNOD \
    REMOVE RMDIR RENAME LINK READDIR READDIRPLUS FSSTAT FSINFO PATHCONF COMMIT; do
    n=$(awk -v p="$p" '$2 == p {print $3}' "$TMP/a.srt")
    check "procedure $p answered ${n:-0} times" [ "${n:-0}" -gt 0 ]
done

# fields FILTER FIELD: one value per line (multi-PDU packets are split)
fields() {
    "${TS[@]}" -Y "$1" -T fields -e "$2" 2>/dev/null | tr ',' '\n' | sed '/^$/d'
}
noent=$(fields 'rpc.msgtyp == 1 && nfs.procedure_v3 == 3 && nfs.status == 2' frame.number | wc -l)
found=$(fields 'rpc.msgtyp == 1 && nfs.procedure_v3 == 3 && nfs.status == 0' frame.number | wc -l)
check "lookups that fail with NOENT ($noent) and that succeed ($found)" [ "$noent" -gt 0 -a "$found" -gt 0 ]

streams=$(fields 'rpc.msgtyp == 0 && rpc.program == 100003' tcp.stream | sort -u | wc -l)
check "TCP connections carrying NFS calls: $streams >= 3" [ "$streams" -ge 3 ]

uids=$(fields 'rpc.msgtyp == 0 && rpc.program == 100003' rpc.auth.uid | sort -un | tr '\n' ' ')
check "AUTH_SYS uids seen: $uids(want 0 1000 1001)" [ "$uids" = "0 1000 1001 " ]

calls=$(fields 'rpc.msgtyp == 0 && rpc.program == 100003' rpc.xid | wc -l)
replies=$(fields 'rpc.msgtyp == 1 && rpc.program == 100003' rpc.xid | wc -l)
said=$(awk '$1 == "total" {print $2}' "$TMP/a.txt")
check "calls on the wire ($calls) >= calls the workload counted (${said:-none})" [ "$calls" -ge "${said:-999999999}" ]
check "every call answered ($replies replies)" [ "$calls" = "$replies" ]
big=$(fields 'rpc.msgtyp == 0 && nfs.procedure_v3 == 7 && nfs.count3 > 262144' frame.number | wc -l)
check "writes over 256 KiB present ($big)" [ "$big" -gt 0 ]

# Same seed, same sequence of procedures on each connection (order of the
# connections aside).
# sequences FILE: one line per TCP stream, its call procedures in order
sequences() {
    # Through tbbt-prep, not tshark: under load the kernel retransmits a TCP
    # segment now and then, and tshark's RPC reassembly then loses or
    # repeats a call (seen: one WRITE fewer), while tbbt-prep, checked
    # call for call against tshark on clean captures elsewhere, keeps one.
    "$BUILD/transform/tbbt-prep" -q --no-correct --port "$TBBT_NFS_PORT" -o "$1.tbbt" "$1" &&
        "$BUILD/tools/tbbt-dump" "$1.tbbt" |
        awk '{s[$3] = s[$3] " " $7} END {for (k in s) print s[k]}' | sort
}
check "same seed gives the same per-connection call sequences" cmp -s <(sequences "$TMP/a.pcap") <(sequences "$TMP/b.pcap")

# The default run is the run of before --names/--shared/--umask: the same
# per-connection call sequences as the generator of OLD_WL_REV (or, without
# git, the per-procedure counts that generator made for 3000 calls, seed 42).
if [ "$OLD" = 1 ]; then
    check "default run: same per-connection call sequences as tbbt-workload at $OLD_WL_REV" \
        cmp -s <(sequences "$TMP/a.pcap") <(sequences "$TMP/old.pcap")
elif [ "$OPS" = 3000 ] && [ "$SEED" = 42 ]; then
    want="null 12 getattr 609 setattr 64 lookup 437 access 299 readlink 45 read 379 write 418 create 178 \
mkdir 31 symlink 38 mknod 13 remove 116 rmdir 3 rename 52 link 24 readdir 55 readdirplus 98 fsstat 40 \
fsinfo 22 pathconf 23 commit 60"
    got=$(awk 'NR > 1 && $1 != "total" && $1 != "permissions" {printf "%s%s %s", (NR > 2 ? " " : ""), $1, $2}' "$TMP/a.txt")
    check "default run: per-procedure calls as recorded at $OLD_WL_REV ($got)" [ "$got" = "$want" ]
fi
# ... and its names and modes are today's: short names, 0644 files and fifos
"$BUILD/transform/tbbt-prep" -q --no-correct --port "$TBBT_NFS_PORT" -o "$TMP/a.tbbt" "$TMP/a.pcap" &&
    "$BUILD/tools/tbbt-dump" "$TMP/a.tbbt" >"$TMP/a.rec"
longest=$(grep -o ' name2\?="[^"]*"' "$TMP/a.rec" | sed 's/^ name2\?="//; s/"$//' |
    awk '{if (length($0) > m) m = length($0)} END {print m + 0}')
check "default run: short names only (longest $longest bytes)" [ "$longest" -gt 0 -a "$longest" -le 16 ]
other=$(awk '($7 == "create" || $7 == "mknod") && !/ set_mode=420 /' "$TMP/a.rec" | wc -l)
check "default run: every create and mknod sends mode 0644 ($other do not)" [ "$other" = 0 ]

# ---- the multi-user run (--names maildir --shared 2 --umask 022,002,077) ----
"$BUILD/transform/tbbt-prep" -q --no-correct --port "$TBBT_NFS_PORT" -o "$TMP/m.tbbt" "$TMP/m.pcap" &&
    "$BUILD/tools/tbbt-dump" "$TMP/m.tbbt" >"$TMP/m.rec"
check "multi-user run: tbbt-prep and tbbt-dump read the capture ($(wc -l <"$TMP/m.rec") records)" [ -s "$TMP/m.rec" ]
echo "multi-user run's summary: $(tail -1 "$TMP/m.txt")"
# facts KEY: the number (or text) the analysis below printed for KEY
perl -ne '
    my ($xid, $proc, $st, $cred) = (split / /)[4, 6, 7, 9];
    my ($uid) = $cred =~ /^cred=\d+:(\d+):/;
    my %f = / (\w+)=("[^"]*"|\S+)/g;
    for my $k (qw(name name2)) {
        next unless defined $f{$k};
        my $n = length($f{$k}) - 2;
        $long{$proc}++ if $n > 60 && $proc =~ /^(lookup|create|rename)$/;
        $max = $n if $n > $max;
        $slash++ if $f{$k} =~ m{/};
        next unless $f{$k} =~ /,W=/; # a maildir message
        $mmin = $n if !defined $mmin || $n < $mmin;
        $mmax = $n if $n > $mmax;
    }
    # a mail client marking a message: same name up to ":2,", other flags
    if ($proc eq "rename" && $st eq "0" && $f{name} =~ /,W=/) {
        my ($from, $to) = map { (my $x = $_) =~ s/:2,.*//; $x } @f{qw(name name2)};
        $flagren++ if $from eq $to;
        $tocur++ if $from eq $to && $f{dir} ne $f{dir2};
    }
    $acces{$proc}++ if $st eq "13";
    if ($proc eq "setattr" && $st eq "0" && !defined $f{set_size}) {
        # set-up calls set mode, uid and gid at once; the workload one at a time
        my $n = grep { defined $f{$_} } qw(set_mode set_uid set_gid);
        $set{$_}++ for grep { $n == 1 && defined $f{$_} } qw(set_mode set_uid set_gid);
    }
    # the shared directories: DIR/shared/sK, as MKDIR or LOOKUP found them
    $shared{$f{newobj}} = $f{name} if $proc =~ /^(mkdir|lookup)$/ && $st eq "0" && $f{name} =~ /^"s\d+"$/;
    for my $d (grep { defined } @f{qw(dir obj)}) {
        $users{$d}{$uid} = 1 if $proc =~ /^(create|lookup|readdirplus|read|rename|remove|setattr)$/;
    }
    # created modes per client (the xid says which: client K sends (K+1) << 24)
    if ($proc =~ /^(create|mkdir)$/ && $st eq "0" && $f{name} !~ /^"(c\d+|s\d+|shared|run-m-\d+)"$/) {
        $modes{$proc}{(hex($xid) >> 24) - 1}{sprintf "%04o", $f{mode}}++;
    }
    END {
        printf "long_%s %d\n", $_, $long{$_} // 0 for qw(lookup create rename);
        printf "longest %d\n", $max;
        printf "slash %d\n", $slash;
        printf "maildir_len %d-%d\n", $mmin, $mmax;
        printf "flag_renames %d\n", $flagren;
        printf "to_cur %d\n", $tocur;
        my $all = 0;
        $all += $_ for values %acces;
        printf "acces %d\n", $all;
        printf "acces_by %s\n", join(",", map { "$_:$acces{$_}" } sort keys %acces) || "-";
        printf "set_%s %d\n", $_, $set{"set_$_"} // 0 for qw(mode uid gid);
        my @u = map { my $d = $_; "$shared{$d}=" . join("+", sort { $a <=> $b } keys %{$users{$d}}) } sort keys %shared;
        printf "shared_users %s\n", join(",", @u) || "-";
        my $most = 0;
        for my $d (keys %shared) { my $n = keys %{$users{$d}}; $most = $n if $n > $most }
        printf "shared_most %d\n", $most;
        for my $p (qw(create mkdir)) {
            printf "modes_%s %s\n", $p, join(",", map { my $c = $_; "$c:" . join("+", sort keys %{$modes{$p}{$c}}) }
                sort keys %{$modes{$p}}) || "-";
        }
    }' "$TMP/m.rec" >"$TMP/m.facts"
facts() { awk -v k="$1" '$1 == k {print $2}' "$TMP/m.facts"; }
for p in lookup create rename; do
    check "multi-user: $(facts long_$p) $p records with a name over 60 bytes" [ "$(facts long_$p)" -gt 0 ]
done
check "multi-user: longest name $(facts longest) bytes, $(facts slash) with a '/'" \
    [ "$(facts longest)" -le 255 -a "$(facts slash)" = 0 ]
mlen=$(facts maildir_len)
check "multi-user: maildir message names of $mlen bytes (want within 60-150)" \
    [ "${mlen%-*}" -ge 60 -a "${mlen#*-}" -le 150 -a "${mlen#*-}" -gt "${mlen%-*}" ]
check "multi-user: renames that change only the maildir flags: $(facts flag_renames), $(facts to_cur) of them new/ to cur/" \
    [ "$(facts flag_renames)" -gt 0 ]
check "multi-user: SETATTRs that changed mode ($(facts set_mode)), owner ($(facts set_uid)), group ($(facts set_gid))" \
    [ "$(facts set_mode)" -gt 0 -a "$(facts set_uid)" -gt 0 -a "$(facts set_gid)" -gt 0 ]
check "multi-user: uids calling in each shared directory ($(facts shared_users)), 2 or more in one" \
    [ "$(facts shared_most)" -ge 2 ]
check "multi-user: ACCES replies ($(facts acces): $(facts acces_by))" [ "$(facts acces)" -gt 0 ]
# client K creates with 0666 / 0777 less umask K: one mode per client, as asked
want_c="" want_d=""
for k in 0 1 2; do
    want_c="$want_c${want_c:+,}$k:$(printf '%04o' $((0666 & ~8#${UMASKS[k]})))"
    want_d="$want_d${want_d:+,}$k:$(printf '%04o' $((0777 & ~8#${UMASKS[k]})))"
done
check "multi-user: created file modes per client $(facts modes_create) (want $want_c)" [ "$(facts modes_create)" = "$want_c" ]
check "multi-user: created directory modes per client $(facts modes_mkdir) (want $want_d)" [ "$(facts modes_mkdir)" = "$want_d" ]
said=$(awk '$1 == "permissions" {print}' "$TMP/m.txt")
check "multi-user: the summary counts chmod/chown/chgrp and ACCES ($said)" [ -n "$said" ]

# tbbt-pcapdrop: the packets it says it kept are the packets in its output.
total=$(capinfos -Mc "$TMP/a.pcap" 2>/dev/null | awk '/Number of packets/ {print $NF}')
[ -n "$total" ] || total=$("${TS[@]}" 2>/dev/null | wc -l)
out=$("$DROP" --seed 7 --drop-percent 5 "$TMP/a.pcap" "$TMP/drop.pcap")
echo "tbbt-pcapdrop: $out"
dropped=$(echo "$out" | awk '{print $2}')
left=$(tshark -n -r "$TMP/drop.pcap" 2>/dev/null | wc -l)
check "pcapdrop: $total - $dropped = $left packets" [ "$dropped" -gt 0 -a $((total - dropped)) = "$left" ]
dcalls=$(tshark -n -r "$TMP/drop.pcap" -d "tcp.port==$TBBT_NFS_PORT,rpc" -q -z rpc,srt,100003,3 2>/dev/null |
    awk '$1 ~ /^[0-9]+$/ {s += $3} END {print s + 0}')
check "pcapdrop output still decodes, fewer answered calls ($dcalls < $calls)" [ "$dcalls" -gt 0 -a "$dcalls" -lt "$calls" ]
"$DROP" --drop-percent 0 --snaplen 200 "$TMP/a.pcap" "$TMP/cut.pcap" >/dev/null
maxcap=$(tshark -n -r "$TMP/cut.pcap" -T fields -e frame.cap_len 2>/dev/null | sort -n | tail -1)
ncut=$(tshark -n -r "$TMP/cut.pcap" 2>/dev/null | wc -l)
check "pcapdrop --snaplen 200: $ncut packets, none over 200 bytes (max $maxcap)" [ "$ncut" = "$total" -a "$maxcap" -le 200 ]

e2e_end
