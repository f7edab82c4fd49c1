#!/bin/bash
# End-to-end for tbbt-report: two real tbbt-play results made here on
# nfs-ganesha (one capture, replayed once on each of two servers A and B by
# tests/report/make-results.sh), then
#   - tests/report/report.t on those two files: every section of the text
#     and the page, every plot, and every figure of the CSV and the HTML
#     equal to the one the test computes from the JSON on its own;
#   - tests/report/browser.t on them: the page in headless chromium renders
#     its tables and plots with no error, nothing wider than the window
#     (skipped without chromium); the screenshots stay in
#     BUILD/report-e2e/inputs-{1280x800,1920x1080}.png.
# Knobs: TBBT_E2E_OPS (workload calls, default 800).
# Usage (ctest): bash report_ganesha.sh BUILD_DIR SRC_DIR; exit 77 = skipped.
BUILD=${1:?usage: report_ganesha.sh BUILD_DIR SRC_DIR}
SRC=${2:?usage: report_ganesha.sh BUILD_DIR SRC_DIR}
BUILD=$(cd "$BUILD" && pwd)
SRC=$(cd "$SRC" && pwd)
OPS=${TBBT_E2E_OPS:-800}

. "$SRC/tests/lib/ganesha.sh"
. "$SRC/tests/lib/capture.sh"
. "$SRC/tests/lib/e2e.sh"

e2e_require tcpdump perl prove gnuplot
e2e_begin report

# Two servers, one run each, at a twentieth of the traced pace (a few
# seconds: the time series have points).
bash "$SRC/tests/report/make-results.sh" "$BUILD" "$SRC" "$TMP/res" "$OPS" 1 0.05 >"$TMP/make.log" 2>&1
rc=$?
[ $rc = 77 ] && { echo "SKIP: $(tail -1 "$TMP/make.log")"; exit 77; }
check "two tbbt-play results made on nfs-ganesha (make-results exit $rc)" \
    [ $rc = 0 -a -s "$TMP/res/play-A-1.json" -a -s "$TMP/res/play-B-1.json" ]
[ $rc = 0 ] || { tail -20 "$TMP/make.log"; e2e_end; exit 1; }
for s in A B; do
    perl -MJSON::PP -e 'local $/; my $t = decode_json(<STDIN>)->{totals};
        printf "figures %s: %d records, %d matched, %.1f ops/s over %.3f s\n", $ARGV[0], $t->{records},
            $t->{matched}, $t->{ops_per_s}, $t->{wall_s}' "$s" <"$TMP/res/play-$s-1.json"
done

inputs="$TMP/res/play-A-1.json $TMP/res/play-B-1.json"
check "report.t: every section, the CSV and HTML figures equal the JSON's" \
    env TBBT_SRC="$SRC" TBBT_BUILD="$BUILD" TBBT_REPORT_INPUTS="$inputs" TBBT_REPORT_KEEP="$TMP" \
    prove "$SRC/tests/report/report.t"
out=$(env TBBT_SRC="$SRC" TBBT_BUILD="$BUILD" TBBT_REPORT_INPUTS="$inputs" \
    TBBT_REPORT_TEST_DIR="$BUILD/report-e2e" prove -v "$SRC/tests/report/browser.t" 2>&1)
rc=$?
echo "$out" | grep -E '^(ok|not ok|#|1\.\.)' | sed 's/^/  /'
check "browser.t: the page renders in headless chromium (or is skipped without it)" [ $rc = 0 ]
e2e_end
