#!/bin/bash
# tbbt-play --list-locks: fsdep's lock table (lib/locks.c, the paper's
# Table 4 extended), printed from the table the player uses.
#
#   1. Exit 0; one row per NFS procedure (every name tbbt knows), each
#      with five cells; lookup's object marked as revealed by its reply;
#      create's new object written by its reply.
#   2. docs/locks.md is that output, byte for byte: the document cannot
#      drift from the rules (regenerate: tbbt-play --list-locks > docs/locks.md).
# Usage (ctest): bash list_locks.sh BUILD_DIR SRC_DIR
set -u
BUILD=${1:?usage: list_locks.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: list_locks.sh BUILD_DIR SRC_DIR}
PLAY=$BUILD/player/tbbt-play
work=$(mktemp -d /tmp/tbbt-list-locks.XXXXXX)
trap 'rm -rf "$work"' EXIT
fail=0
bad() {
    echo "FAIL: $*"
    fail=1
}

"$PLAY" --list-locks >"$work/out" 2>"$work/err" || bad "exit $?: $(cat "$work/err")"
[ -s "$work/err" ] && bad "stderr: $(cat "$work/err")"
procs="null getattr setattr root lookup access readlink read writecache write create mkdir symlink mknod remove rmdir rename link readdir readdirplus statfs fsstat fsinfo pathconf commit"
for p in $procs; do
    n=$(grep -c "^| $p |" "$work/out")
    [ "$n" = 1 ] || bad "$p: $n rows"
done
rows=$(grep '^| [a-z]* |' "$work/out" | grep -vc '^| procedure |')
[ "$rows" = 25 ] || bad "$rows procedure rows, want 25"
awk -F'|' '/^\| [a-z]+ \|/ && NF != 7 {print "FAIL: row with " NF - 2 " cells: " $0; exit 1}' "$work/out" || fail=1
grep -q '^| lookup | dir, newobj (1) | - | newobj (1) | - |$' "$work/out" || bad "lookup row: $(grep '^| lookup' "$work/out")"
grep -q '^| create | - | dir | newobj | newobj |$' "$work/out" || bad "create row: $(grep '^| create' "$work/out")"
if ! diff -u "$SRC/docs/locks.md" "$work/out" >"$work/diff"; then
    bad "docs/locks.md differs from tbbt-play --list-locks (regenerate it):"
    head -20 "$work/diff"
fi
[ $fail = 0 ] && echo "PASS: $rows procedures, docs/locks.md matches"
exit $fail
