#!/usr/bin/env bash
# dev/fuzz.sh -- builds the libFuzzer targets (clang, AddressSanitizer
# and UndefinedBehaviorSanitizer, into build-fuzz), builds their seed
# corpora (dev/fuzz-seeds.sh), and runs each target for a bounded time,
# one after another (one process: the CI machine has 2 shared cores).
# Fails when any target finds a crash, a leak, undefined behaviour, a hang
# (-timeout) or runs out of memory (-rss_limit_mb); the input is then in
# build-fuzz/fuzz-crashes/ (keep it as tests/fuzz/regress/TARGET/NAME once
# fixed). The corpus each run grows is kept in build-fuzz/fuzz-work/TARGET
# and reused by the next run.
# Usage: dev/fuzz.sh [TARGET...]   (default: every fuzz/fuzz_*.c)
#   FUZZ_SECONDS   seconds per target (default 60)
#   FUZZ_SEED      libFuzzer's -seed (default 1, so a CI run explores the same
#                  way each time and a change is not failed by a finding in
#                  code it did not touch; 0 = a new random seed per run, for
#                  fuzzing by hand)
#   FUZZ_BUILD     build directory (default build-fuzz)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
secs=${FUZZ_SECONDS:-60}
build=${FUZZ_BUILD:-build-fuzz}
case $secs in '' | *[!0-9]*) echo "fuzz.sh: FUZZ_SECONDS must be a number of seconds" >&2; exit 2 ;; esac
seed=${FUZZ_SEED:-1}
case $seed in '' | *[!0-9]*) echo "fuzz.sh: FUZZ_SEED must be a number (0: random)" >&2; exit 2 ;; esac
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in fuzz/fuzz_*.c; do t=$(basename "$f" .c); targets+=("${t#fuzz_}"); done
fi
for t in "${targets[@]}"; do
    [ -f "fuzz/fuzz_$t.c" ] || { echo "fuzz.sh: no target '$t' (fuzz/fuzz_$t.c)" >&2; exit 2; }
done

dev/install-deps.sh >/dev/null
CC=clang cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTBBT_WERROR=ON -DTBBT_FUZZ=ON >/dev/null
cmake --build "$build" -j"$(nproc)" --target tbbt-prep tbbt-dump fuzz-rpc-seeds "${targets[@]/#/fuzz_}" >/dev/null
dev/fuzz-seeds.sh "$build"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
mkdir -p "$build/fuzz-crashes" "$build/fuzz-logs"
failed=()
printf '%-8s %8s %10s %8s %8s %8s %s\n' target seconds execs exec/s cov ft result
for t in "${targets[@]}"; do
    work=$build/fuzz-work/$t
    log=$build/fuzz-logs/$t.log
    mkdir -p "$work"
    touch "$build/fuzz-logs/$t.start" # inputs written after it are this run's
    rc=0
    "$build/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
        -print_final_stats=1 -seed="$seed" -artifact_prefix="$build/fuzz-crashes/$t-" \
        "$work" "$build/fuzz-corpus/$t" >"$log" 2>&1 || rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    # none when the target failed while reading its corpus (set -e must not end the script)
    last=$(grep -E '^#[0-9]+.*cov: ' "$log" | tail -1) || true
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    result=ok
    if [ "$rc" != 0 ]; then
        result="FAILED (exit $rc): $(grep -m1 -E 'ERROR: |runtime error|SUMMARY' "$log" || true)"
        failed+=("$t")
    fi
    printf '%-8s %8s %10s %8s %8s %8s %s\n' "$t" "$secs" "${execs:--}" "${rate:--}" "${cov:--}" "${ft:--}" "$result"
done
if [ ${#failed[@]} -gt 0 ]; then
    for t in "${failed[@]}"; do
        echo "--- $t: $build/fuzz-logs/$t.log, input(s):" \
            $(find "$build/fuzz-crashes" -name "$t-*" -newer "$build/fuzz-logs/$t.start" | sort)
        # the harness's own message, if any, comes just before libFuzzer's
        grep -E -B4 -A25 'ERROR: |runtime error' "$build/fuzz-logs/$t.log" | head -40 || true
    done
    echo "fuzz.sh: failed: ${failed[*]}" >&2
    exit 1
fi
echo "fuzz.sh: every target ran ${secs}s with no finding"
