#!/bin/bash
# tbbt-pcapdrop damages real captures the ways real sites' captures are
# damaged, and says truly what it did (--truth):
#   - the default (uniform --drop-percent, --snaplen) output is what it was
#     before (golden checksums);
#   - --gro: fewer packets, every TCP direction's payload bytes in the same
#     order, tshark finds nothing malformed, IPv4 header checksums stay right,
#     tbbt-prep decodes the same calls; with --snaplen 256 nothing is longer;
#   - --burst-percent deletes runs with lengths in [min, max];
#   - --replies-only deletes only packets from a --server-port;
#   - --start-mid starts at packet N+1 and each trimmed segment is the
#     original without its first K bytes (sequence number moved by K);
#   - --drop-frags deletes only non-first fragments;
#   - --fragment M splits the UDP datagrams over M bytes into fragments of at
#     most M that tshark and tbbt-prep reassemble into the same calls; then
#     --drop-frags deletes only non-first ones and tbbt-prep counts the
#     incomplete datagrams; DF does not keep a datagram whole (the sending
#     host fragments its own datagrams) and is cleared on the fragments;
#   - the same seed gives byte-identical output; every link type we read
#     (raw IP, SLL, SLL2, NULL, LOOP, 802.1Q) is damaged like Ethernet;
#   - bad usage exits 2 naming the option, bad input exits 1 naming the file.
# Uses tests/data/*.pcap.zst, and ../shared/captures when present (skipped
# parts say so).
# Usage (ctest): bash pcapdrop.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: pcapdrop.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: pcapdrop.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
for b in tshark capinfos zstd perl; do
    command -v $b >/dev/null || { echo "SKIP: $b not installed"; exit 77; }
done
D=$BUILD/tests/tools/tbbt-pcapdrop
PREP=$BUILD/transform/tbbt-prep
DUMP=$BUILD/tools/tbbt-dump
for b in "$D" "$PREP" "$DUMP"; do [ -x "$b" ] || { echo "SKIP: no $b"; exit 77; }; done
SHARED=$SRC/../shared/captures
e2e_begin pcapdrop

# unz NAME FILE.zst: decompresses FILE into $TMP/NAME.pcap.
unz() { zstd -dcq "$2" >"$TMP/$1.pcap"; }
# npkts FILE: prints the packet count.
npkts() { tshark -n -r "$1" 2>/dev/null | wc -l; }
# field FILE FIELD...: tshark fields, tab separated, one line per packet.
field() {
    local f=$1 a=()
    shift
    for x in "$@"; do a+=(-e "$x"); done
    tshark -n -r "$f" -o ip.defragment:FALSE -T fields "${a[@]}" 2>/dev/null
}
# streams FILE: per TCP direction, its payload bytes in capture order.
streams() {
    field "$1" ip.src ipv6.src tcp.srcport ip.dst ipv6.dst tcp.dstport tcp.payload |
        awk -F'\t' '$7 != "" {k = $1 $2 ":" $3 ">" $4 $5 ":" $6; s[k] = s[k] $7} END {for (k in s) print k, s[k]}' |
        sort
}
# bad FILE FILTER: counts packets tshark flags with FILTER.
bad() { tshark -n -r "$1" -o ip.check_checksum:TRUE -Y "$2" 2>/dev/null | wc -l; }
# calls FILE: the calls tbbt-prep (pass 1) decodes, without timestamps.
calls() {
    "$PREP" -q --no-correct --no-map -p 20490 -o "$1.tbbt" "$1" 2>/dev/null && "$DUMP" "$1.tbbt" | cut -d' ' -f3- | sort
}
# count WORD SUMMARY: the number after WORD in the summary line (dropped,
# cut, merged, into, trimmed, fragments dropped, fragmented, pieces: the
# fragments --fragment made).
count() {
    case $1 in
    into) echo "$2" | sed -n 's/.* into \([0-9]*\) .*/\1/p' ;;
    pieces) echo "$2" | sed -n 's/.* datagrams in \([0-9]*\) fragments.*/\1/p' ;;
    *) echo "$2" | tr ',' '\n' | sed -n "s/^ *$1 \([0-9]*\).*/\1/p" ;;
    esac
}

unz dbench "$SRC/tests/data/dbench-nfs.cap.zst"
unz lo "$SRC/tests/data/nfstrace-lo-ipv4-tcp-nfsv3-nfsacl.pcap.zst"
unz udp "$SRC/tests/data/nfstrace-eth-ipv4-udp-nfsv3-reply-first.pcap.zst"
unz v2 "$SRC/tests/data/suricata-nfsv2-udp.pcap.zst"
GANESHA=
for g in "$SHARED/real/ganesha-libnfs-mixed.pcap.zst" "$SRC/traces/ganesha-libnfs-mixed.pcap.zst"; do
    [ -f "$g" ] && { unz ganesha "$g" && GANESHA=$TMP/ganesha.pcap; break; }
done
[ -n "$GANESHA" ] || echo "skip: no ganesha-libnfs-mixed capture (../shared absent)"

# ---- usage and bad input -----------------------------------------------------
# usage ARGS...: exit 2, first line names the option and what is allowed.
usage() {
    local want=$1
    shift
    "$D" "$@" "$TMP/dbench.pcap" "$TMP/u.pcap" >/dev/null 2>"$TMP/u.err"
    [ $? = 2 ] && head -1 "$TMP/u.err" | grep -q -- "$want" && [ ! -e "$TMP/u.pcap" ]
}
check "usage: --drop-percent 101 exits 2 saying 0..100" usage "drop-percent 101: must be a number from 0 to 100" --drop-percent 101
check "usage: --burst-min 0 exits 2 saying its bounds" usage "burst-min 0: must be an integer from 1 to" --burst-min 0
check "usage: --burst-min above --burst-max exits 2" usage "burst-min 9 is above --burst-max 3" --burst-min 9 --burst-max 3
check "usage: --server-port 2049,x exits 2" usage "server-port 2049,x: must be a comma-separated list" --server-port 2049,x
check "usage: --snaplen 8 exits 2 saying 16.." usage "snaplen 8: must be an integer from 16 to" --snaplen 8
check "usage: unknown --grow suggests --gro" usage "did you mean --gro" --grow
check "--help lists every option (and --version)" eval '"$D" --help | grep -c -- "^  --" | grep -qx 15'
head -c 30000 "$TMP/dbench.pcap" >"$TMP/trunc.pcap"
"$D" "$TMP/trunc.pcap" "$TMP/t.pcap" >/dev/null 2>"$TMP/t.err"
rc=$?
check "cut capture: exit 1, one line naming the file and packet ($(cat "$TMP/t.err"))" \
    eval '[ $rc = 1 ] && [ "$(wc -l <"$TMP/t.err")" = 1 ] && grep -q "trunc.pcap: packet [0-9]" "$TMP/t.err"'
echo "not a capture" >"$TMP/text.pcap"
"$D" "$TMP/text.pcap" "$TMP/t.pcap" >/dev/null 2>"$TMP/t.err"
rc=$?
check "not a capture: exit 1 naming the file" eval '[ $rc = 1 ] && grep -q "text.pcap" "$TMP/t.err"'

# ---- the default output is what it always was --------------------------------
check "no options: dbench copied byte for byte" eval '"$D" "$TMP/dbench.pcap" "$TMP/c.pcap" >/dev/null && cmp -s "$TMP/dbench.pcap" "$TMP/c.pcap"'
out=$("$D" --seed 7 --drop-percent 5 "$TMP/dbench.pcap" "$TMP/c.pcap")
check "--seed 7 --drop-percent 5: the same 9 packets as before ($out)" \
    eval '[ "$(md5sum <"$TMP/c.pcap" | cut -c1-32)" = 9c135e122d7ec2d2d7184a9b0c329439 ] && [ "$(echo "$out" | cut -d, -f1)" = "dropped 9 of 135 packets" ]'
if [ -n "$GANESHA" ]; then
    "$D" --seed 3 --drop-percent 20 --snaplen 100 "$GANESHA" "$TMP/c.pcap" >/dev/null
    check "--seed 3 --drop-percent 20 --snaplen 100 on ganesha: the output of before" \
        eval '[ "$(md5sum <"$TMP/c.pcap" | cut -c1-32)" = 587543ea2455e1edceb0de219eb54d71 ]'
fi

# ---- --gro -------------------------------------------------------------------
# gro NAME FILE MERGES: --gro keeps payload, calls and checksums; MERGES=1
# when the capture has segments to merge (fewer packets expected).
gro() {
    local name=$1 f=$2 merges=$3 out n m s d o
    out=$("$D" --gro --truth "$TMP/$name.gro.truth" "$f" "$TMP/$name.gro.pcap")
    n=$(npkts "$f") o=$(npkts "$TMP/$name.gro.pcap")
    m=$(count merged "$out") s=$(count into "$out")
    echo "$name --gro: $out"
    if [ "$merges" = 1 ]; then check "$name --gro: fewer packets ($o < $n)" [ "$o" -lt "$n" ]; fi
    check "$name --gro: $n - $m + $s = $o packets, truth agrees" eval '[ $((n - m + s)) = "$o" ] &&
        [ "$(grep -c merged-into "$TMP/$name.gro.truth")" = "$m" ] &&
        [ "$(grep -o "merged-into:[0-9]*" "$TMP/$name.gro.truth" | sort -u | wc -l)" = "$s" ]'
    check "$name --gro: every TCP direction's payload bytes, in order" cmp -s <(streams "$f") <(streams "$TMP/$name.gro.pcap")
    check "$name --gro: tshark finds no more malformed packets" [ "$(bad "$TMP/$name.gro.pcap" _ws.malformed)" = "$(bad "$f" _ws.malformed)" ]
    check "$name --gro: no more bad IPv4 header checksums" [ "$(bad "$TMP/$name.gro.pcap" ip.checksum.status==0)" = "$(bad "$f" ip.checksum.status==0)" ]
    check "$name --gro: no super-segment over 65535 IP bytes or 65000 payload bytes" eval \
        '[ "$(field "$TMP/$name.gro.pcap" ip.len ipv6.plen tcp.len | awk -F"\t" -v max="$(field "$f" tcp.len | sort -n | tail -1)" \
            "\$1 > 65535 || \$2 > 65535 || (\$3 > 65000 && \$3 > max)" | wc -l)" = 0 ]'
    calls "$f" >"$TMP/$name.calls0"
    calls "$TMP/$name.gro.pcap" >"$TMP/$name.calls1"
    check "$name --gro: tbbt-prep decodes the same $(wc -l <"$TMP/$name.calls0") calls" eval \
        '[ -s "$TMP/$name.calls0" ] && cmp -s "$TMP/$name.calls0" "$TMP/$name.calls1"'
    "$D" --gro --snaplen 256 "$f" "$TMP/$name.gs.pcap" >/dev/null
    check "$name --gro --snaplen 256: as many packets, none over 256 bytes" eval \
        '[ "$(npkts "$TMP/$name.gs.pcap")" = "$o" ] && [ "$(field "$TMP/$name.gs.pcap" frame.cap_len | sort -n | tail -1)" -le 256 ]'
}
gro dbench "$TMP/dbench.pcap" 1
gro lo "$TMP/lo.pcap" 0
[ -n "$GANESHA" ] && gro ganesha "$GANESHA" 0 # loopback: segments are 64 KiB already
if [ -f "$SHARED/public/nfstrace-2sessions-tcp-wsize32k-tcp-wsize512k.pcap.zst" ]; then
    unz 2s "$SHARED/public/nfstrace-2sessions-tcp-wsize32k-tcp-wsize512k.pcap.zst"
    gro 2sessions "$TMP/2s.pcap" 1
    rm -f "$TMP/2s.pcap" "$TMP"/2sessions.*
else echo "skip: --gro on 512 KiB writes (../shared absent)"; fi
if [ -f "$SHARED/public/nfstrace-eth-ipv6-tcp-nfsv3.pcap.zst" ]; then
    zstd -dcq "$SHARED/public/nfstrace-eth-ipv6-tcp-nfsv3.pcap.zst" | tshark -r - -c 15000 -F pcap -w "$TMP/v6.pcap" 2>/dev/null
    gro ipv6 "$TMP/v6.pcap" 1
    rm -f "$TMP/v6.pcap" "$TMP"/ipv6.*
else echo "skip: --gro on IPv6 (../shared absent)"; fi
check "dbench --gro: timestamps still in order" eval \
    '[ "$(field "$TMP/dbench.gro.pcap" frame.time_epoch | sort -c -g 2>&1 | wc -l)" = 0 ]'

# ---- --burst-percent -------------------------------------------------------------
# runs TRUTH: the lengths of the runs of consecutive dropped packets.
runs() { awk '$2 == "drop" {if ($1 != p + 1 && n) {print n; n = 0} n++; p = $1} END {if (n) print n}' "$1"; }
# inrange A B: every line of stdin is in [A, B], and there is one.
inrange() { awk -v a="$1" -v b="$2" '$1 < a || $1 > b {bad = 1} END {exit bad || NR == 0}'; }
BIG=${GANESHA:-$TMP/dbench.pcap}
out=$("$D" --seed 4 --burst-percent 20 --burst-min 3 --burst-max 7 --truth "$TMP/b.truth" "$BIG" "$TMP/b.pcap")
n=$(npkts "$BIG") dr=$(count dropped "$out")
check "--burst-percent 20 --burst-min 3 --burst-max 7: runs of 3..7 ($(runs "$TMP/b.truth" | sort -n | uniq -c | tr -s ' \n' ' '))" \
    eval 'runs "$TMP/b.truth" | inrange 3 7'
check "--burst-percent 20: about 20% gone ($dr of $n)" [ $((dr * 100)) -ge $((20 * n - 700)) -a $((dr * 100)) -le $((20 * n + 700)) ]
check "--burst-percent: the output lacks exactly those packets" [ $((n - dr)) = "$(npkts "$TMP/b.pcap")" ]
out=$("$D" --seed 4 --burst-percent 30 --burst-min 2 --burst-max 4 --truth "$TMP/b.truth" "$TMP/dbench.pcap" "$TMP/b.pcap")
check "dbench --burst-percent 30, runs of 2..4 ($out)" eval 'runs "$TMP/b.truth" | inrange 2 4'

# ---- --replies-only ------------------------------------------------------------
# sources CAP TRUTH: the source port of every deleted packet, sorted, counted.
sources() { awk 'NR == FNR {p[$1] = $2; next} $2 == "drop" {print p[$1]}' <(field "$1" frame.number tcp.srcport udp.srcport) "$2" | sort | uniq -c; }
"$D" --seed 5 --drop-percent 40 --replies-only --server-port 2049,855 --truth "$TMP/r.truth" "$TMP/dbench.pcap" "$TMP/r.pcap" >/dev/null
src=$(sources "$TMP/dbench.pcap" "$TMP/r.truth" | awk '{print $2}' | tr '\n' ' ')
check "dbench --replies-only --server-port 2049,855: deleted only from 2049 and 855 ($src)" [ "$src" = "2049 855 " ]
if [ -n "$GANESHA" ]; then
    "$D" --seed 5 --drop-percent 10 --burst-percent 10 --burst-min 3 --burst-max 7 --replies-only --server-port 20490 \
        --truth "$TMP/r.truth" "$GANESHA" "$TMP/r.pcap" >/dev/null
    src=$(sources "$GANESHA" "$TMP/r.truth" | awk '{print $2}' | tr '\n' ' ')
    check "ganesha --replies-only --server-port 20490: no packet from a client port deleted ($src)" [ "$src" = "20490 " ]
    # the bursts are runs among the server's packets
    "$D" --seed 5 --burst-percent 10 --burst-min 3 --burst-max 7 --replies-only --server-port 20490 \
        --truth "$TMP/rb0.truth" "$GANESHA" "$TMP/r.pcap" >/dev/null
    awk 'NR == FNR {if ($2 == 20490) k[$1] = ++n; next} $2 == "drop" {print k[$1], "drop"}' \
        <(field "$GANESHA" frame.number tcp.srcport) "$TMP/rb0.truth" >"$TMP/rb.truth"
    check "ganesha --replies-only bursts: runs of 3..7 of the server's packets" eval 'runs "$TMP/rb.truth" | inrange 3 7'
fi

# ---- --start-mid ----------------------------------------------------------------
# midcheck CAP N: --start-mid N starts at packet N+1; every trimmed segment is
# the original's payload without its first K bytes, its seq K further.
midcheck() {
    local f=$1 n=$2 out
    out=$("$D" --seed 6 --start-mid "$n" --truth "$TMP/m.truth" "$f" "$TMP/m.pcap")
    echo "--start-mid $n: $out"
    check "--start-mid $n: $n packets deleted, the first kept is packet $((n + 1))" eval \
        '[ "$(count dropped "$out")" = "$n" ] && [ "$(field "$TMP/m.pcap" frame.time_epoch | head -1)" = "$(field "$f" frame.time_epoch | sed -n "$((n + 1))p")" ]'
    check "--start-mid $n: trimmed $(count trimmed "$out") segment(s)" [ "$(count trimmed "$out")" -gt 0 ]
    field "$f" frame.number tcp.seq_raw tcp.payload >"$TMP/m.in"
    field "$TMP/m.pcap" frame.number tcp.seq_raw tcp.payload >"$TMP/m.out"
    check "--start-mid $n: each trimmed segment begins K bytes into the original, seq + K" awk -v n="$n" '
        FILENAME == ARGV[1] {if ($2 ~ /^trimmed:/) {split($2, a, ":"); k[$1] = a[2]; t++} next}
        FILENAME == ARGV[2] {if ($1 in k) {seq[$1] = $2; pay[$1] = $3} next}
        ($1 + n) in k {i = $1 + n; ok += ($2 == (seq[i] + k[i]) % 4294967296 && $3 == substr(pay[i], 2 * k[i] + 1) && k[i] > 0 && $3 != "")}
        END {exit !(t > 0 && ok == t)}' "$TMP/m.truth" "$TMP/m.in" "$TMP/m.out"
    check "--start-mid $n: tbbt-prep still reads it" eval '"$PREP" -q --no-correct --no-map -p 20490 -o "$TMP/m.tbbt" "$TMP/m.pcap" 2>/dev/null'
}
midcheck "$TMP/dbench.pcap" 3 # packet 4 carries the client's first call: it is trimmed
[ -n "$GANESHA" ] && midcheck "$GANESHA" 1000

# ---- --drop-frags -----------------------------------------------------------------
for c in udp v2; do
    out=$("$D" --drop-frags 50 "$TMP/$c.pcap" "$TMP/f.pcap")
    "$D" "$TMP/$c.pcap" "$TMP/f0.pcap" >/dev/null
    check "$c (no fragments): --drop-frags deletes nothing ($out)" eval '[ "$(count dropped "$out")" = 0 ] && cmp -s "$TMP/f0.pcap" "$TMP/f.pcap"'
done
if [ -f "$SHARED/public/nfstrace-eth-ipv4-udp-nfsv3-dup-retransm.pcap.zst" ]; then
    unz frag "$SHARED/public/nfstrace-eth-ipv4-udp-nfsv3-dup-retransm.pcap.zst"
    out=$("$D" --seed 2 --drop-frags 50 --truth "$TMP/f.truth" "$TMP/frag.pcap" "$TMP/f.pcap")
    kinds=$(awk 'NR == FNR {o[$1] = ($2 > 0 ? "later" : $3 == 1 ? "first" : "whole"); next} {print o[$1]}' \
        <(field "$TMP/frag.pcap" frame.number ip.frag_offset ip.flags.mf) "$TMP/f.truth" | sort | uniq -c | tr -s ' \n' ' ')
    check "--drop-frags 50: $(count "fragments dropped" "$out") deleted, all non-first fragments ($kinds)" eval \
        '[ "$(count "fragments dropped" "$out")" -gt 0 ] && [ "$(count dropped "$out")" = "$(count "fragments dropped" "$out")" ] && echo "$kinds" | grep -qx " *[0-9]* later *"'
    out=$("$D" --seed 2 --drop-frags 50 --replies-only "$TMP/frag.pcap" "$TMP/f.pcap")
    check "--drop-frags --replies-only: the fragments are the client's WRITE calls, none deleted" [ "$(count dropped "$out")" = 0 ]
    out=$("$D" --seed 2 --drop-frags 50 --replies-only --server-port 912 "$TMP/frag.pcap" "$TMP/f.pcap")
    check "--drop-frags --replies-only --server-port 912: a later fragment goes by its datagram's ports" [ "$(count dropped "$out")" -gt 0 ]
else echo "skip: --drop-frags on real fragments (../shared absent)"; fi

# ---- --fragment ---------------------------------------------------------------------
# rpcs FILE: xid, message type and procedure of every RPC message tshark
# decodes with IP reassembly.
rpcs() { tshark -n -r "$1" -o ip.defragment:TRUE -Y rpc -T fields -e rpc.xid -e rpc.msgtyp -e rpc.procedure 2>/dev/null | sort; }
# prepsum FILE: "PACKETS INCOMPLETE" from tbbt-prep's --summary-json.
prepsum() {
    "$PREP" -q --no-correct --no-map --summary-json "$1.json" -o "$1.tbbt" "$1" 2>/dev/null
    perl -MJSON::PP -0777 -ne '$j = decode_json($_); print "$j->{packets} $j->{capture}{causes}{ip_fragments}{datagrams_incomplete}"' "$1.json"
}
# fragcheck NAME MTU: --fragment MTU on $TMP/NAME.pcap, then with --drop-frags.
fragcheck() {
    local c=$1 m=$2 f=$TMP/$1.fr.pcap out n o
    out=$("$D" --fragment "$m" --truth "$TMP/$c.fr.truth" "$TMP/$c.pcap" "$f")
    echo "$c --fragment $m: $out"
    n=$(npkts "$TMP/$c.pcap") o=$(npkts "$f")
    check "$c --fragment $m: more packets ($o > $n), $n - $(count fragmented "$out") + $(count pieces "$out"), truth agrees" eval \
        '[ "$o" -gt "$n" ] && [ $((n - $(count fragmented "$out") + $(count pieces "$out"))) = "$o" ] &&
         [ "$(grep -c " fragment-of:" "$TMP/$c.fr.truth")" = "$(count pieces "$out")" ]'
    check "$c --fragment $m: no UDP packet over $m IP bytes, non-last fragments' payload a multiple of 8" eval \
        '[ "$(field "$f" ip.proto ip.len ip.flags.mf | awk -F"\t" -v m="$m" "\$1 == 17 && (\$2 > m || (\$3 == 1 && (\$2 - 20) % 8))" | wc -l)" = 0 ]'
    check "$c --fragment $m: header checksums right, timestamps in order" eval \
        '[ "$(bad "$f" ip.checksum.status==0)" = 0 ] && [ "$(field "$f" frame.time_epoch | sort -c -g 2>&1 | wc -l)" = 0 ]'
    rpcs "$TMP/$c.pcap" >"$TMP/$c.rpc0"
    rpcs "$f" >"$TMP/$c.rpc1"
    check "$c --fragment $m: tshark reassembles the same $(wc -l <"$TMP/$c.rpc0") RPC messages, nothing malformed" eval \
        '[ -s "$TMP/$c.rpc0" ] && cmp -s "$TMP/$c.rpc0" "$TMP/$c.rpc1" && [ "$(tshark -n -r "$f" -o ip.defragment:TRUE -Y _ws.malformed 2>/dev/null | wc -l)" = 0 ]'
    calls "$TMP/$c.pcap" >"$TMP/$c.calls0"
    calls "$f" >"$TMP/$c.calls1"
    check "$c --fragment $m: tbbt-prep decodes the same $(wc -l <"$TMP/$c.calls0") records" eval \
        '[ -s "$TMP/$c.calls0" ] && cmp -s "$TMP/$c.calls0" "$TMP/$c.calls1"'
    out=$("$D" --seed 8 --fragment "$m" --drop-frags 50 --truth "$TMP/$c.frd.truth" "$TMP/$c.pcap" "$TMP/$c.frd.pcap")
    local kinds ps
    kinds=$(awk 'NR == FNR {o[$1] = ($2 > 0 ? "later" : $3 == 1 ? "first" : "whole"); next} $2 == "drop" {print o[$1]}' \
        <(field "$f" frame.number ip.frag_offset ip.flags.mf) "$TMP/$c.frd.truth" | sort | uniq -c | tr -s ' \n' ' ')
    check "$c --fragment $m --drop-frags 50: $(count dropped "$out") deleted, all non-first fragments ($kinds)" eval \
        '[ "$(count dropped "$out")" -gt 0 ] && [ "$(count dropped "$out")" = "$(count "fragments dropped" "$out")" ] && echo "$kinds" | grep -qx " *[0-9]* later *"'
    ps=$(prepsum "$TMP/$c.frd.pcap")
    check "$c --fragment $m --drop-frags 50: tbbt-prep reads $((o - $(count dropped "$out"))) packets, incomplete datagrams > 0 ($ps)" eval \
        '[ "${ps% *}" = $((o - $(count dropped "$out"))) ] && [ "${ps#* }" -gt 0 ]'
}
# the in-tree UDP captures' largest IP packets are 328 (udp) and 200 (v2)
# bytes: below --fragment's 576 of old, so MTU 128 (68 is RFC 791's least)
fragcheck udp 128
fragcheck v2 128
# DF on every IPv4 packet (Ethernet, little-endian pcap), as Linux sets it
# on a loopback capture: split all the same, DF cleared on the fragments
perl -0777 -pe 'for (my $at = 24; $at + 16 <= length; $at += 16 + unpack("V", substr($_, $at + 8, 4))) {
    substr($_, $at + 16 + 20, 1) |= "\x40" if substr($_, $at + 16 + 12, 2) eq "\x08\x00" }' "$TMP/udp.pcap" >"$TMP/df.pcap"
out=$("$D" --fragment 128 "$TMP/df.pcap" "$TMP/df.out.pcap")
check "--fragment 128 with DF set: split as without it, DF cleared ($out)" eval \
    '[ "$(count fragmented "$out")" -gt 0 ] && [ "$(echo "$out" | sed -n "s/.*(\([0-9]*\) had DF).*/\1/p")" = "$(count fragmented "$out")" ] &&
     [ "$(tshark -r "$TMP/df.out.pcap" -Y "ip.flags.df == 1 && (ip.flags.mf == 1 || ip.frag_offset > 0)" 2>/dev/null | wc -l)" = 0 ]'
check "usage: --fragment 67 exits 2 saying 68.." usage "fragment 67: must be an integer from 68 to" --fragment 67

# ---- determinism ------------------------------------------------------------------
ALL=(--drop-percent 5 --burst-percent 5 --burst-min 2 --burst-max 6 --start-mid 2 --gro --snaplen 300 --drop-frags 30)
for r in a:1 b:1 c:2; do "$D" --seed ${r#*:} "${ALL[@]}" --truth "$TMP/d${r%:*}.truth" "$BIG" "$TMP/d${r%:*}.pcap" >/dev/null; done
check "same seed, byte-identical output and truth" eval 'cmp -s "$TMP/da.pcap" "$TMP/db.pcap" && [ -s "$TMP/da.truth" ] && cmp -s "$TMP/da.truth" "$TMP/db.truth"'
check "another seed, another output" eval '! cmp -s "$TMP/da.pcap" "$TMP/dc.pcap"'

# ---- link types ---------------------------------------------------------------------
# relink MODE IN OUT: rewrites an Ethernet pcap (little-endian) with another
# link layer: raw, sll, sll2, null, loop or vlan (802.1Q tag 100).
relink() {
    perl -e '
        my ($mode, $in, $out) = @ARGV;
        my %lt = (raw => 101, sll => 113, sll2 => 276, null => 0, loop => 108, vlan => 1);
        open(my $i, "<:raw", $in) or die; open(my $o, ">:raw", $out) or die;
        local $/; my $d = <$i>;
        die "not a little-endian pcap\n" unless unpack("V", $d) == 0xa1b2c3d4;
        print $o substr($d, 0, 20), pack("V", $lt{$mode});
        for (my $at = 24; $at + 16 <= length $d;) {
            my ($s, $u, $cl, $l) = unpack("V4", substr($d, $at, 16));
            my $p = substr($d, $at + 16, $cl); $at += 16 + $cl;
            my ($et, $body) = (substr($p, 12, 2), substr($p, 14));
            my $h = $mode eq "raw" ? "" : $mode eq "sll" ? pack("n3", 0, 1, 6) . substr($p, 6, 6) . "\0\0" . $et
                : $mode eq "sll2" ? $et . pack("n N n C C", 0, 1, 1, 0, 6) . substr($p, 6, 6) . "\0\0"
                : $mode eq "null" ? pack("V", 2) : $mode eq "loop" ? pack("N", 2)
                : substr($p, 0, 12) . pack("n n", 0x8100, 100) . $et;
            print $o pack("V4", $s, $u, $cl - 14 + length $h, $l - 14 + length $h), $h, $body;
        }' "$@"
}
LINKARGS=(--seed 3 --gro --start-mid 3 --drop-percent 10 --burst-percent 5 --burst-min 2 --burst-max 3)
ref=$("$D" "${LINKARGS[@]}" --truth "$TMP/l.truth" "$TMP/dbench.pcap" "$TMP/l.pcap")
for m in raw sll sll2 null loop vlan; do
    relink $m "$TMP/dbench.pcap" "$TMP/$m.pcap" || { check "relink $m" false; continue; }
    out=$("$D" "${LINKARGS[@]}" --truth "$TMP/$m.truth" "$TMP/$m.pcap" "$TMP/$m.out.pcap")
    check "link $m: the same damage as on Ethernet ($out)" eval '[ "$out" = "$ref" ] && cmp -s "$TMP/l.truth" "$TMP/$m.truth"'
    check "link $m: the same payload bytes, nothing malformed" eval \
        'cmp -s <(streams "$TMP/l.pcap") <(streams "$TMP/$m.out.pcap") && [ "$(bad "$TMP/$m.out.pcap" _ws.malformed)" = 0 ]'
done
check "the Ethernet reference merged and trimmed something ($ref)" eval '[ "$(count merged "$ref")" -gt 0 ] && [ "$(count trimmed "$ref")" -gt 0 ]'

e2e_end
