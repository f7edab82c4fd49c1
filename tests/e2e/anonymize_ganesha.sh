#!/bin/bash
# End-to-end for scripts/tbbt-anonymize: "the replay of an anonymised trace
# behaves as the original". The bundled trace (traces/ganesha-libnfs-
# mixed.pcap.zst) is prepped; its records and map are anonymised in one run
# (--keep-length --keep-ext, key from a file); then original and anonymised are each
# tbbt-init'ed on a fresh nfs-ganesha and replayed by tbbt-play
# (conservative order, full speed). Checked:
#   - the anonymised records and map hold none of the original names of 3
#     bytes or more (as whole path components);
#   - both replays replay every record, and the anonymised one matches the
#     traced status of exactly as many records as the original's, procedure
#     by procedure (the replay of the original is the reference, whatever
#     its share).
# Usage (ctest): bash anonymize_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: anonymize_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: anonymize_ganesha.sh BUILD_DIR SRC_DIR}

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"

e2e_require perl
PREP=$BUILD/transform/tbbt-prep
INIT=$BUILD/hierarchy/tbbt-init
PLAY=$BUILD/player/tbbt-play
DUMP=$BUILD/tools/tbbt-dump
ANON=(perl "$SRC/scripts/tbbt-anonymize" --build "$BUILD")
for b in "$PREP" "$INIT" "$PLAY" "$DUMP"; do
    [ -x "$b" ] || { echo "SKIP: $b not built"; exit 77; }
done
perl -MJSON::PP -e 1 2>/dev/null || { echo "SKIP: perl JSON::PP missing"; exit 77; }

e2e_begin anonymize

# jprocs FILE: "records matched" then one "vN proc count matched" line per
# procedure, from a tbbt-play JSON document.
jprocs() {
    perl -MJSON::PP -e 'local $/; my $j = decode_json(<STDIN>); my $t = $j->{totals};
        print "total $t->{records} $t->{matched}\n";
        print "v$_->{vers} $_->{proc} $_->{count} $_->{matched}\n" for sort { $a->{proc} cmp $b->{proc} } @{$j->{procedures}}' <"$1"
}

# replay NAME: a fresh server, tbbt-init of NAME.hmap, tbbt-play of
# NAME.tbbt; leaves $TMP/NAME.json.
replay() {
    local name=$1 rc
    tbbt_ganesha_stop "$TMP/srv"
    rm -rf "$TMP/srv/export"
    tbbt_ganesha_start "$TMP/srv" || { check "$name: the server started" false; return 1; }
    local args=(-q --map "$TMP/$name.hmap" --nfs-port "$TBBT_NFS_PORT" --mount-port "$TBBT_MNT_PORT"
        "127.0.0.1:$TBBT_EXPORT")
    "$INIT" "${args[@]}" 2>"$TMP/init.err" || { sleep 1; "$INIT" --replace "${args[@]}"; }
    rc=$?
    check "$name: tbbt-init built the image" [ $rc = 0 ]
    [ $rc = 0 ] || return 1
    "$PLAY" -q --order conservative --nfs-port "$TBBT_NFS_PORT" --json "$TMP/$name.json" \
        "$TMP/$name.tbbt" "127.0.0.1:$TBBT_EXPORT"
    rc=$?
    tbbt_ganesha_stop "$TMP/srv"
    check "$name: tbbt-play exit 0" [ $rc = 0 -a -s "$TMP/$name.json" ]
}

"$PREP" -q -o "$TMP/orig.tbbt" "$SRC/traces/ganesha-libnfs-mixed.pcap.zst" >/dev/null
check "tbbt-prep of the bundled trace" [ $? = 0 -a -s "$TMP/orig.hmap" ]
printf 'e2e-secret-%s\n' "$RANDOM$RANDOM" >"$TMP/key"
"${ANON[@]}" -q --key "$TMP/key" --keep-length --keep-ext --map "$TMP/orig.hmap" --map-out "$TMP/anon.hmap" \
    -o "$TMP/anon.tbbt" "$TMP/orig.tbbt"
check "tbbt-anonymize of records and map: exit 0" [ $? = 0 -a -s "$TMP/anon.tbbt" -a -s "$TMP/anon.hmap" ]

# Every original name component of 3 bytes or more (but the placeholders
# pass 3 makes), looked for as a whole component in the anonymised files.
"$DUMP" "$TMP/orig.tbbt" >"$TMP/orig.txt"
"$DUMP" "$TMP/anon.tbbt" >"$TMP/anon.txt"
left=$(perl -e '
    my (%orig, @out);
    sub comps { my @c; for my $q ($_[0] =~ /"((?:[^"\\]|\\.)*)"/g) { $q =~ s/\\(x([0-9a-f]{2})|.)/defined $2 ? chr hex $2 : $1/ge; push @c, split m{/}, $q } @c }
    open my $a, "<", $ARGV[0] or die; $orig{$_}++ for map { comps($_) } <$a>;
    open my $b, "<", $ARGV[1] or die; $orig{$_}++ for map { comps($_) } <$b>;
    my %out; for my $f (@ARGV[2, 3]) { open my $h, "<", $f or die; $out{$_}++ for map { comps($_) } <$h> }
    print join(" ", grep { length >= 3 && !/^tbbt-(subtree-\d+|nameless)$/ && $out{$_} } sort keys %orig), "\n";
    print STDERR scalar(keys %orig), " original names\n";
' "$TMP/orig.txt" "$TMP/orig.hmap" "$TMP/anon.txt" "$TMP/anon.hmap")
check "no original name of 3 bytes or more left (left: ${left:-none})" [ -z "$left" ]

replay orig && replay anon
if [ -s "$TMP/orig.json" ] && [ -s "$TMP/anon.json" ]; then
    jprocs "$TMP/orig.json" >"$TMP/orig.procs"
    jprocs "$TMP/anon.json" >"$TMP/anon.procs"
    read -r _ recs matched <"$TMP/orig.procs"
    read -r _ arecs amatched <"$TMP/anon.procs"
    echo "figures original: $matched of $recs records matched; anonymised: $amatched of $arecs"
    check "every record replayed ($recs, $arecs of $(wc -l <"$TMP/orig.txt"))" \
        [ "$recs" = "$(wc -l <"$TMP/orig.txt")" -a "$arecs" = "$recs" ]
    check "the anonymised replay matches as many statuses, procedure by procedure" \
        diff "$TMP/orig.procs" "$TMP/anon.procs"
fi

e2e_end
