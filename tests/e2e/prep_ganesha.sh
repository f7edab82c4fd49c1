#!/bin/bash
# End-to-end for tbbt-prep pass 1: start a private nfs-ganesha, capture a
# fresh concurrent workload (3 clients, 3 uids) from tbbt-workload with
# tcpdump, stop the server, and check tbbt-prep's records against tshark's
# decode of the same capture, record by record:
#   1. the whole capture: every call equal (xid, procedure, status, name,
#      offset, count), every NFSv3 procedure present, every client seen;
#   2. the capture cut with a 200-byte snaplen, and 3. the capture with a
#      seeded 2% of its packets deleted: every record we produce equals
#      tshark's decode of the uncut capture (fields that lay beyond the cut
#      excepted, and said), and we recover at least as many calls as tshark
#      decodes from the same damaged file (the bar is the better of the
#      two decoders). A client that pipelines puts several calls in one
#      segment; with 200 bytes a packet the later ones are not in the file
#      at all, so "every call" is not recoverable by any decoder.
# Usage (ctest): bash prep_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: prep_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: prep_ganesha.sh BUILD_DIR SRC_DIR}
OPS=${TBBT_E2E_OPS:-4000}
SEED=${TBBT_E2E_SEED:-7}

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"

e2e_require tcpdump tshark
PREP=$BUILD/transform/tbbt-prep
DUMP=$BUILD/tools/tbbt-dump
WL=$BUILD/tests/tools/tbbt-workload
DROP=$BUILD/tests/tools/tbbt-pcapdrop
CMP="perl $SRC/tests/decode/tshark-compare.pl --build $BUILD"

e2e_begin prep

e2e_capture_workload "$TMP/full.pcap" "$OPS" "$SEED" 262144 prep

# 1. The whole capture. It holds every byte of every stream (a segment the
# capture missed comes again as a retransmission), so tshark may reassemble
# out of order too (--complete); the damaged copies below are compared
# against it as the truth, and against tshark's own decode of each without.
out=$($CMP $PORTS --complete --report "$TMP/full.json" "$TMP/full.pcap")
rc=$?
echo "$out"
check "whole capture: every call equals tshark's" [ $rc = 0 ]
"$PREP" -q $PORTS -o "$TMP/full.tbbt" "$TMP/full.pcap"
"$DUMP" --jsonl "$TMP/full.tbbt" >"$TMP/full.jsonl"
procs=$(perl -MJSON::PP -ne '$h{decode_json($_)->{proc}}++; END { print join(" ", sort keys %h) }' "$TMP/full.jsonl")
missing=""
for p in null getattr setattr lookup access readlink read write create mkdir symlink remove rmdir rename link \
    readdir readdirplus fsstat fsinfo pathconf commit; do
    case " $procs " in *" $p "*) ;; *) missing="$missing $p" ;; esac
done
check "every NFSv3 procedure the workload calls is in the records (missing:${missing:- none})" [ -z "$missing" ]
nclients=$(perl -MJSON::PP -ne '$h{decode_json($_)->{client}}++; END { print scalar keys %h }' "$TMP/full.jsonl")
nuids=$(perl -MJSON::PP -ne '$h{decode_json($_)->{uid}}++; END { print scalar keys %h }' "$TMP/full.jsonl")
check "records from $nclients clients (>= 3) and $nuids uids (>= 3)" [ "$nclients" -ge 3 -a "$nuids" -ge 3 ]
calls=$(perl -MJSON::PP -e 'print decode_json(<>)->{tshark}' "$TMP/full.json")

# damaged NAME WHAT: NAME.pcap against the truth, then against tshark's own
# decode of NAME.pcap.
damaged() {
    local name=$1 what=$2 out rc ours theirs
    out=$($CMP $PORTS --truth "$TMP/full.pcap" --complete --allow-missing --report "$TMP/$name.json" "$TMP/$name.pcap")
    rc=$?
    echo "$out"
    check "$what: every record produced equals tshark's decode of the uncut capture" [ $rc = 0 ]
    $CMP $PORTS --report "$TMP/$name-self.json" "$TMP/$name.pcap" >/dev/null 2>&1
    ours=$(perl -MJSON::PP -e 'print decode_json(<>)->{matched}' "$TMP/$name.json")
    theirs=$(perl -MJSON::PP -e 'print decode_json(<>)->{tshark_known}' "$TMP/$name-self.json")
    check "$what: tbbt recovers $ours of $calls calls, tshark $theirs from the same file" \
        [ "${ours:-0}" -ge "${theirs:-1}" ]
}

# 2. Cut to 200 bytes a packet: headers survive, data does not.
"$DROP" --snaplen 200 "$TMP/full.pcap" "$TMP/cut.pcap" >/dev/null
damaged cut "snaplen 200"

# 3. A seeded 2% of the packets deleted.
"$DROP" --seed 11 --drop-percent 2 "$TMP/full.pcap" "$TMP/lossy.pcap"
damaged lossy "2% of packets deleted"

e2e_end
