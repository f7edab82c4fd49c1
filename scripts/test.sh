#!/usr/bin/env bash
# scripts/test.sh -- install what is needed, build, and run the whole test
# suite (unit tests, decoder cross-checks against tshark and nfstrace, and
# end-to-end tests against a real nfs-ganesha this suite starts itself).
# Usage: scripts/test.sh [ctest args...]   (e.g. -R unit)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
scripts/install-deps.sh
build=${TBBT_BUILD_DIR:-build}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTBBT_WERROR=ON >/dev/null
cmake --build "$build" -j"$(nproc)"
cd "$build"
ctest --output-on-failure --timeout 1800 "$@"
