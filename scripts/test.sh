#!/usr/bin/env bash
# scripts/test.sh -- install what is needed, build, and run the whole test
# suite (unit tests, decoder cross-checks against tshark and nfstrace, and
# end-to-end tests against a real nfs-ganesha the suite starts itself).
# Usage: scripts/test.sh [--sanitize] [ctest args...]   (e.g. -R unit)
#   --sanitize  builds into build-asan with AddressSanitizer (leaks too) and
#               UndefinedBehaviorSanitizer, and runs the same suite; any
#               report fails the test that caused it.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh
build=${TBBT_BUILD_DIR:-build}
flags=()
if [ "${1:-}" = "--sanitize" ]; then
    shift
    build=${TBBT_BUILD_DIR:-build-asan}
    flags=(-DTBBT_SANITIZE=address,undefined)
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTBBT_WERROR=ON "${flags[@]}" >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure --timeout 1800 "$@"
