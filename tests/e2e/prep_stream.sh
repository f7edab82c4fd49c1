#!/bin/bash
# tbbt-prep reads a capture from a stream that cannot rewind: standard
# input ("-"), plain or zstd, and a FIFO. The records and the map's entries
# must equal those made from the file itself. A gzip stream and "-" without
# -o are refused with one line (exit 1 and 2).
# Usage (ctest): bash prep_stream.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: prep_stream.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: prep_stream.sh BUILD_DIR SRC_DIR}
. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"
e2e_begin prep-stream
PREP=$BUILD/transform/tbbt-prep
DUMP=$BUILD/tools/tbbt-dump
CAP=$SRC/traces/ganesha-libnfs-mixed.pcap.zst

"$PREP" -q -o "$TMP/file.tbbt" "$CAP" || check "tbbt-prep on the file" false
# same NAME: the records and the map's entries equal the file's
same() {
    cmp -s <("$DUMP" "$TMP/file.tbbt") <("$DUMP" "$TMP/$1.tbbt") &&
        cmp -s <(grep -v '^#' "$TMP/file.hmap") <(grep -v '^#' "$TMP/$1.hmap")
}
zstdcat "$CAP" >"$TMP/plain.pcap"
"$PREP" -q -o "$TMP/stdin-plain.tbbt" - <"$TMP/plain.pcap"
check "stdin, plain pcap (a regular file as stdin)" same stdin-plain
cat "$TMP/plain.pcap" | "$PREP" -q -o "$TMP/pipe-plain.tbbt" -
check "a pipe, plain pcap" same pipe-plain
cat "$CAP" | "$PREP" -q -o "$TMP/pipe-zstd.tbbt" -
check "a pipe, zstd" same pipe-zstd
mkfifo "$TMP/cap.fifo"
cat "$CAP" >"$TMP/cap.fifo" &
"$PREP" -q -o "$TMP/fifo.tbbt" "$TMP/cap.fifo"
wait
check "a FIFO, zstd" same fifo

gzip -c "$TMP/plain.pcap" | "$PREP" -q -o "$TMP/gz.tbbt" - 2>"$TMP/gz.err"
rc=$?
check "a gzip stream: exit 1, one line naming the input ($(cat "$TMP/gz.err"))" \
    eval '[ $rc = 1 ] && [ "$(wc -l <"$TMP/gz.err")" = 1 ] && grep -q "^tbbt-prep: -: .*gzip" "$TMP/gz.err"'
check "a gzip stream: no output" [ ! -e "$TMP/gz.tbbt" ]
"$PREP" - </dev/null 2>"$TMP/noout.err"
rc=$?
check "stdin without -o: exit 2, one line and the usage" \
    eval '[ $rc = 2 ] && head -1 "$TMP/noout.err" | grep -q "^tbbt-prep: .*needs -o" && sed -n 2p "$TMP/noout.err" | grep -q "^Usage: tbbt-prep"'
e2e_end
