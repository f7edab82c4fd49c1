#!/usr/bin/env bash
# dev/test.sh -- install what is needed, build, and run the whole test
# suite (unit tests, decoder cross-checks against tshark and nfstrace, and
# end-to-end tests against a real nfs-ganesha the suite starts itself).
# Usage: dev/test.sh [--sanitize|--tsan] [ctest args...]   (e.g. -R unit)
#   --sanitize  builds into build-asan with AddressSanitizer (leaks too) and
#               UndefinedBehaviorSanitizer, and runs the same suite; any
#               report fails the test that caused it.
#   --tsan      builds into build-tsan with ThreadSanitizer and runs the
#               multi-threaded parts' tests only (ctest -R 'play\.|unit\.test_play|
#               decode\.prep_threads': the player's engine and tbbt-prep's
#               pipeline of passes), but for the two fidelity matrices
#               (play.lost_state, play.damage_matrix: dozens of replays of
#               kinds the other play tests run, judged on prep's records; 500
#               of the tier's 1,080 s); a report makes the
#               reporting program exit 66 (so its test fails), and every
#               report is also kept in build-tsan/tsan-reports/ and printed,
#               failing the run even where a script ignored an exit status.
#               Suppressions (third-party code only): dev/tsan.supp.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
dev/install-deps.sh
build=${TBBT_BUILD_DIR:-build}
flags=()
if [ "${1:-}" = "--sanitize" ]; then
    shift
    build=${TBBT_BUILD_DIR:-build-asan}
    flags=(-DTBBT_SANITIZE=address,undefined)
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
    export LSAN_OPTIONS="suppressions=$top/dev/lsan.supp ${LSAN_OPTIONS:-}" # Open MPI only
elif [ "${1:-}" = "--tsan" ]; then
    shift
    build=${TBBT_BUILD_DIR:-build-tsan}
    flags=(-DTBBT_SANITIZE=thread)
    tsan_logs=$build/tsan-reports
    [[ $build = /* ]] || tsan_logs=$top/$tsan_logs
    rm -rf "$tsan_logs" && mkdir -p "$tsan_logs"
    export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1 exitcode=66 log_path=$tsan_logs/tsan suppressions=$top/dev/tsan.supp ${TSAN_OPTIONS:-}"
    [ $# = 0 ] && set -- -R 'play\.|unit\.test_play|decode\.prep_threads' -E 'play\.(lost_state|damage_matrix)$'
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTBBT_WERROR=ON "${flags[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
rc=0
ctest --output-on-failure --timeout 1800 "$@" || rc=$?
if [ -n "${tsan_logs:-}" ] && compgen -G "$tsan_logs/tsan.*" >/dev/null; then
    echo "ThreadSanitizer reports ($tsan_logs):"
    cat "$tsan_logs"/tsan.*
    rc=1
fi
exit $rc
