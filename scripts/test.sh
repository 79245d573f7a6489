#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds everything (core, CLI, tests,
# benchmarks) and runs ctest twice: a Release build, then an ASan + UBSan build.
set -uo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh || exit 1

jobs=$(nproc)
passed=0
failed=0

# run_suite NAME BUILD_DIR CMAKE_ARGS...: configure, build, ctest; adds to the totals.
run_suite() {
  local name=$1 dir=$2
  shift 2
  echo "== $name: configure and build ($dir)"
  if ! cmake -S . -B "$dir" -G Ninja "$@" >"$dir.configure.log" 2>&1; then
    cat "$dir.configure.log"
    failed=$((failed + 1))
    return
  fi
  if ! cmake --build "$dir" -j "$jobs"; then
    failed=$((failed + 1))
    return
  fi
  echo "== $name: ctest"
  local log="$dir/ctest.log"
  ctest --test-dir "$dir" -j "$jobs" --output-on-failure 2>&1 | tee "$log"
  local total fail
  total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -n 1)
  fail=$(sed -n 's/.* \([0-9]*\) tests failed out of.*/\1/p' "$log" | tail -n 1)
  if [ -z "$total" ]; then
    failed=$((failed + 1))
    return
  fi
  passed=$((passed + total - fail))
  failed=$((failed + fail))
}

mkdir -p build
run_suite "release" build/release -DCMAKE_BUILD_TYPE=Release -DPOSLAB_TESTS=ON -DPOSLAB_BENCH=ON
# The sanitizer run leaves the benchmarks out: they only add build time there.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  run_suite "asan+ubsan" build/sanitize -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOSLAB_TESTS=ON \
  -DPOSLAB_SANITIZE=ON

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
