#!/bin/bash
# tbbt-augment end to end on the small hand-written map tests/data/hmap-small.hmap:
#   1. --total-objects: the image reaches the target (a file and a directory
#      may land together: at most one over), the output is a complete map
#      with every parent on an earlier line, the input's lines kept in place
#      (initial ones first, the trace's later ones last), and the summary
#      and the JSON say the counts an independent awk count of the file finds;
#   2. --total-size: reached, passed by less than the largest synthetic file;
#   3. reproducible: same seed, same bytes; another seed, other bytes;
#      the default output name is IN.aug.hmap; the output reads back as
#      input (augmenting it again works);
#   4. usage errors exit 2 with one line and the synopsis; a missing or corrupt map exits 1
#      with "FILE:LINE: what" (or "FILE: what") and leaves no output behind;
#   5. a map written by pass 3 (tbbt-prep, tbbt-map) from a real capture augments.
# (Its speed on a larger image is measured in bench/augment.sh.)
# Usage (ctest): bash augment.sh BUILD_DIR SRC_DIR
BUILD=${1:?usage: augment.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: augment.sh BUILD_DIR SRC_DIR}
AUG=$BUILD/hierarchy/tbbt-augment
IN=$SRC/tests/data/hmap-small.hmap
[ -x "$AUG" ] || { echo "SKIP: $AUG not built"; exit 77; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }

# Counts of the initial image of a map (create 0, each ID once):
# "objects files dirs symlinks bytes synthetic_objects synthetic_files synthetic_dirs synthetic_bytes maxsynth"
counts() {
    awk '!/^#/ && $3 == "0" && !seen[$1]++ {
        n++; if ($5 == "reg") { f++; b += $6 } else if ($5 == "dir") d++; else if ($5 == "lnk") l++
        if ($10 == "s") { sn++; if ($5 == "reg") { sf++; sb += $6; if ($6 > mx) mx = $6 } else if ($5 == "dir") sd++ }
    } END { printf "%d %d %d %d %.0f %d %d %d %.0f %.0f\n", n, f, d, l, b, sn, sf, sd, sb, mx }' "$1"
}

# Structural checks of a map: version line, end line matching the entry
# count, 12 columns, every parent seen on an earlier line, IDs of the
# synthetic entries fresh and names unique in their directory.
check_map() {
    awk -v f="$1" '
        NR == 1 && $0 != "# tbbt-hmap 1" { print f ": bad version line"; bad = 1 }
        /^# end / { end = $3; next }
        /^#/ { next }
        { n++
          if (NF != 12) { print f ":" NR ": " NF " columns"; bad = 1 }
          if ($2 != "0" && !(($2) in seen)) { print f ":" NR ": parent " $2 " not seen before"; bad = 1 }
          seen[$1] = 1
          name = $11; sub(/.*\//, "", name); key = $2 "/" name
          if ($3 == "0" && $2 != "0" && (key in names)) { print f ":" NR ": name " key " twice"; bad = 1 }
          names[key] = 1
          if ($10 == "s" && length($1) < 17) { print f ":" NR ": synthetic ID " $1 " below 2^56"; bad = 1 } }
        END { if (end != n) { print f ": end line " end " for " n " entries"; bad = 1 }; exit bad }' "$1"
}

# 1. --total-objects, with the summary and the JSON.
out=$("$AUG" "$IN" -o "$TMP/o.hmap" --total-objects 400 --seed 3 --json "$TMP/o.json")
rc=$?
echo "$out"
[ $rc -eq 0 ] || fail "total-objects run exited $rc"
check_map "$TMP/o.hmap" && ok "map well formed, parents first, names unique" || fail "map structure"
read -r n f d l b sn sf sd sb mx <<<"$(counts "$TMP/o.hmap")"
read -r n0 f0 d0 l0 b0 _ <<<"$(counts "$IN")"
[ "$n" -ge 400 ] && [ "$n" -le 401 ] && ok "image holds $n objects (target 400)" || fail "image holds $n objects, target 400"
[ $((n - n0)) -eq "$sn" ] && [ "$f0" -eq $((f - sf)) ] || fail "extracted objects changed: $n0 -> $((n - sn))"
grep -q "^Extracted: $n0 objects: $f0 files, $d0 directories, $l0 symlinks, 0 other; $b0 bytes" <<<"$out" &&
    ok "summary: extracted figures" || fail "summary's extracted line"
grep -q "^Added:     $sn objects: $sf files, $sd directories, 0 symlinks, 0 other; $sb bytes" <<<"$out" &&
    ok "summary: added figures" || fail "summary's added line (want $sn objects, $sf files, $sd dirs, $sb bytes)"
grep -q "size distribution specsfs (trace fallback: only 17 extracted file sizes)" <<<"$out" &&
    ok "summary: trace falls back to specsfs with 17 sized files" || fail "summary's distribution"
perl -MJSON::PP -e '
    my ($file, $sn, $sf, $sd, $sb, $n0, $b0) = @ARGV;
    local $/; open my $fh, "<", $file or die; my $j = decode_json(<$fh>)->{summary};
    my $a = $j->{added}, my $e = $j->{extracted};
    exit !($a->{objects} == $sn && $a->{files} == $sf && $a->{dirs} == $sd && $a->{bytes} == $sb &&
           $e->{objects} == $n0 && $e->{bytes} == $b0 && $j->{params}{seed} == 3 &&
           $j->{params}{dir_ratio} == 0.1 && $j->{targets}{objects_reached});
' "$TMP/o.json" "$sn" "$sf" "$sd" "$sb" "$n0" "$b0" && ok "JSON summary agrees" || fail "JSON summary"
# The input's lines in place: its 27 initial entries first, its 3 later ones last.
diff <(grep -v '^#' "$IN" | awk '$3 == "0"') <(grep -v '^#' "$TMP/o.hmap" | head -27) >/dev/null &&
    diff <(grep -v '^#' "$IN" | awk '$3 != "0"') <(grep -v '^#' "$TMP/o.hmap" | tail -3) >/dev/null &&
    ok "input entries kept, in order, around the synthetic ones" || fail "input entries moved"
# Never into directories the trace removes (14) or creates (28), nor the orphans (22).
awk '!/^#/ && $10 == "s" && ($2 == 14 || $2 == 22 || $2 == 28) { bad = 1 } END { exit bad }' "$TMP/o.hmap" &&
    ok "removed, created and orphan directories untouched" || fail "synthetic object in a forbidden directory"
# Names that clash with the input's get a suffix: "tbbt-synthetic" and "f1" are taken in the root
# (the first synthetic object is a file in the root when merge > 0).
grep -q ' s "f1.1" -$' "$TMP/o.hmap" && ok "synthetic f1 renamed around the input's" || fail "f1 clash"
"$AUG" "$IN" -o "$TMP/m0.hmap" --total-objects 400 --merge 0 -q || fail "merge 0 run"
grep -q ' s "tbbt-synthetic.1" -$' "$TMP/m0.hmap" && ok "synthetic top renamed around the input's name" ||
    fail "synthetic top name"
awk '!/^#/ && $10 == "s" && $2 != 1 && $2 <= 29 { bad = 1 } END { exit bad }' "$TMP/m0.hmap" &&
    ok "merge 0: extracted directories but the root get no synthetic child" || fail "merge 0 placement"

# 2. --total-size (k/M/G suffixes are powers of 1024).
"$AUG" "$IN" -o "$TMP/s.hmap" --total-size 20M --size-dist lognormal:9,1.5 -q || fail "total-size run"
read -r n f d l b sn sf sd sb mx <<<"$(counts "$TMP/s.hmap")"
t=$((20 * 1048576))
[ "$b" -ge $t ] && [ $((b - t)) -lt "$mx" ] && ok "size $b reached, over by $((b - t)) < largest file $mx" ||
    fail "size $b for target $t (largest synthetic file $mx)"

# 3. Reproducible; default name; the output is a valid input.
"$AUG" "$IN" -o "$TMP/r1.hmap" --total-size 5M --seed 9 -q && "$AUG" "$IN" -o "$TMP/r2.hmap" --total-size 5M --seed 9 -q &&
    "$AUG" "$IN" -o "$TMP/r3.hmap" --total-size 5M --seed 10 -q || fail "reproducibility runs"
cmp -s "$TMP/r1.hmap" "$TMP/r2.hmap" && ok "same seed, same bytes" || fail "same seed, different output"
cmp -s "$TMP/r1.hmap" "$TMP/r3.hmap" && fail "different seeds, same output" || ok "another seed, other bytes"
cp "$IN" "$TMP/in.hmap"
"$AUG" "$TMP/in.hmap" --total-objects 100 -q && [ -s "$TMP/in.aug.hmap" ] && ok "default output IN.aug.hmap" ||
    fail "default output name"
"$AUG" "$TMP/in.aug.hmap" -o "$TMP/again.hmap" --total-objects 200 -q && check_map "$TMP/again.hmap" &&
    ok "an augmented map augments again" || fail "re-augmenting"

# 4. Errors.
expect() { # expect RC PATTERN -- command...
    local want=$1 pat=$2
    shift 3
    local err
    err=$("$@" 2>&1 >/dev/null)
    local got=$?
    # a usage error (2) is one line and the synopsis (lib/usage.h); any other, one line
    local says
    says=$(grep -v '^Usage: \|^   or: \|^Try ' <<<"$err")
    if [ $got -eq "$want" ] && [ "$(wc -l <<<"$says")" -eq 1 ] && grep -Eq -- "$pat" <<<"$says" &&
        { [ "$want" != 2 ] || grep -q '^Usage: tbbt-augment ' <<<"$err"; }; then
        ok "exit $got: $says"
    else
        fail "want exit $want matching '$pat', got $got: $err"
    fi
}
expect 2 "Unknown option" -- "$AUG" "$IN" --total-objects 10 --bogus
expect 2 "total-size and/or --total-objects" -- "$AUG" "$IN"
expect 2 "--total-size" -- "$AUG" "$IN" --total-size 12Q
expect 2 "--merge" -- "$AUG" "$IN" --total-objects 10 --merge 1.5
expect 2 "--distortion" -- "$AUG" "$IN" --total-objects 10 --distortion -0.1
expect 2 "bad size distribution" -- "$AUG" "$IN" --total-objects 10 --size-dist lognormal:1
expect 2 "--owner" -- "$AUG" "$IN" --total-objects 10 --owner root
expect 1 "^tbbt-augment: $TMP/none.hmap: No such file" -- "$AUG" "$TMP/none.hmap" -o "$TMP/x.hmap" --total-objects 10
grep -v '^# end' "$IN" >"$TMP/cut.hmap"
expect 1 "^tbbt-augment: $TMP/cut.hmap:[0-9]+: incomplete map" -- "$AUG" "$TMP/cut.hmap" -o "$TMP/x.hmap" --total-objects 10
sed 's/^3 2 0 - dir/3 99 0 - dir/' "$IN" >"$TMP/orphan.hmap"
expect 1 "^tbbt-augment: $TMP/orphan.hmap:[0-9]+: parent not on an earlier line" -- "$AUG" "$TMP/orphan.hmap" -o "$TMP/x.hmap" --total-objects 10
sed 's/^5 3 0 - reg 200000/5 3 0 - reg 2e5/' "$IN" >"$TMP/badnum.hmap"
expect 1 "^tbbt-augment: $TMP/badnum.hmap:[0-9]+: column 6" -- "$AUG" "$TMP/badnum.hmap" -o "$TMP/x.hmap" --total-objects 10
expect 1 "limit" -- "$AUG" "$IN" -o "$TMP/x.hmap" --total-size 1T --size-dist table:1:1
ls "$TMP" | grep -Eq '^x\.hmap' && fail "an output was left behind by a failed run" || ok "no output left by failed runs"

# 5. A map as pass 3 writes it (tests/data/dbench-nfs.cap.zst through tbbt-prep and tbbt-map:
#    placeholder tops, no "." root), when those tools are built.
PREP=$BUILD/transform/tbbt-prep
MAP=$BUILD/hierarchy/tbbt-map
if [ -x "$PREP" ] && [ -x "$MAP" ]; then
    zstd -dcq "$SRC/tests/data/dbench-nfs.cap.zst" >"$TMP/dbench.cap" &&
        "$PREP" -q "$TMP/dbench.cap" -o "$TMP/dbench.tbbt" && "$MAP" -q "$TMP/dbench.tbbt" -m "$TMP/dbench.hmap" ||
        fail "tbbt-prep/tbbt-map on the dbench capture"
    "$AUG" "$TMP/dbench.hmap" -o "$TMP/dbench.aug.hmap" --total-objects 500 -q && check_map "$TMP/dbench.aug.hmap" &&
        ok "a pass-3 map augments ($(grep -c ' s "' "$TMP/dbench.aug.hmap") synthetic entries)" ||
        fail "augmenting a pass-3 map"
else
    echo "skip: tbbt-prep or tbbt-map not built, no pass-3 map check"
fi

# A larger image (the size bench/augment.sh times): reached and well formed.
"$AUG" "$IN" -o "$TMP/big.hmap" --total-objects 200000 -q && check_map "$TMP/big.hmap" &&
    read -r n _ <<<"$(counts "$TMP/big.hmap")" && [ "$n" -ge 200000 ] && [ "$n" -le 200001 ] &&
    ok "a 200000-object image, well formed" || fail "large run"

[ $fails -eq 0 ] && echo "augment: all checks passed" || echo "augment: $fails checks failed"
exit $((fails > 0))
