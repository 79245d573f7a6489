#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds everything (core, CLI, tests,
# benchmarks, CUDA targets where nvcc exists) and runs ctest twice (a Release build, then an
# ASan + UBSan build without the long tests), fuzzes the file and config.json readers, checks
# that setup brings its own Node where the system's is too old, then builds the WebAssembly
# modules, checks the committed generated files against them (npm run generate -- --check) and
# runs the vitest suites: the JS API (tests/wasm), the playground's units
# (tests/web), the npm package (tests/npm) and the browser tests (tests/e2e). Each stage prints its time.
set -uo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh # the project-local Node (.node/bin, see setup.sh) first on PATH
bash scripts/setup.sh || exit 1

jobs=$(nproc)
passed=0
failed=0
skipped=0

# stage NAME COMMAND...: runs one stage and prints how long it took.
stage() {
  local name=$1 start=$SECONDS status=0
  shift
  "$@" || status=$?
  echo "== $name: $((SECONDS - start)) s"
  return $status
}

# run_suite NAME BUILD_DIR CTEST_EXCLUDE CMAKE_ARGS...: configure, build, ctest (leaving out the
# tests whose names match CTEST_EXCLUDE, if not empty); adds to the totals.
run_suite() {
  local name=$1 dir=$2 exclude=$3
  shift 3
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
  rm -rf "$dir/gtest-shards"
  local filter=()
  [ -z "$exclude" ] || filter=(-E "$exclude")
  ctest --test-dir "$dir" -j "$jobs" --output-on-failure "${filter[@]}" 2>&1 | tee "$log"
  local total fail
  total=$(sed -n 's/.*tests failed out of \([0-9]*\).*/\1/p' "$log" | tail -n 1)
  fail=$(sed -n 's/.* \([0-9]*\) tests failed out of.*/\1/p' "$log" | tail -n 1)
  if [ -z "$total" ]; then
    failed=$((failed + 1))
    return
  fi
  # Skipped tests (the GPU tests without a GPU) count as neither passed nor failed.
  local skip
  skip=$(grep -c '(Skipped)$' "$log")
  passed=$((passed + total - fail - skip))
  failed=$((failed + fail))
  skipped=$((skipped + skip))
  count_shard_cases "$dir"
}

# run_vitest NAME VITEST_ARGS...: one vitest run; its JSON report adds to the totals.
run_vitest() {
  local name=$1
  shift
  echo "== $name: vitest"
  local report="build/vitest-$name.json"
  rm -f "$report"
  npx vitest run "$@" --reporter=default --reporter=json --outputFile="$report"
  if [ ! -f "$report" ]; then
    failed=$((failed + 1))
    return
  fi
  local counts
  counts=$(node -e 'const r = require(process.argv[1]);
    console.log(r.numPassedTests, r.numFailedTests + (r.success || r.numFailedTests ? 0 : 1))' \
    "$PWD/$report")
  passed=$((passed + ${counts% *}))
  failed=$((failed + ${counts#* }))
}

# GoogleTest binaries that run as shards (poslab_gtest_shards in cmake/TestBuild.cmake: the
# bad-input probe, and the largest suites in the sanitizer build), one ctest test each: count
# their cases, not their shards, from each shard's XML report. A shard that left no report (a
# crash, a timeout) stays one failed test.
count_shard_cases() {
  local dir=$1 line name shard xml tests fails skips cases=0
  while read -r line; do
    name=$(sed -n 's/.*Test *#[0-9]*: \([^ ]*\)\.Shard[0-9]* .*/\1/p' <<<"$line")
    shard=$(sed -n 's/.*Test *#[0-9]*: [^ ]*\.Shard\([0-9]*\) .*/\1/p' <<<"$line")
    xml=$dir/gtest-shards/$name-$shard.xml
    [ -f "$xml" ] || continue
    read -r tests fails < <(sed -n 's/^<testsuites tests="\([0-9]*\)" failures="\([0-9]*\)".*/\1 \2/p' "$xml")
    # The root element has no skipped count; each suite's element has one.
    skips=$(grep -o '<testsuite [^>]* skipped="[0-9]*"' "$xml" | sed 's/.*skipped="\([0-9]*\)"/\1/' |
      awk '{ s += $1 } END { print s + 0 }')
    if [[ $line == *" Passed "* ]]; then
      passed=$((passed - 1))
    else
      failed=$((failed - 1))
      ((fails > 0)) || fails=1 # it failed outside a case (an exit status, a sanitizer)
    fi
    passed=$((passed + tests - fails - skips))
    failed=$((failed + fails))
    skipped=$((skipped + skips))
    cases=$((cases + tests))
  done < <(grep 'Test *#[0-9]*: [^ ]*\.Shard[0-9]* ' "$dir/ctest.log")
  echo "== $dir: $cases cases run in gtest shards"
}

mkdir -p build
# The CUDA targets are built (not run: no GPU in CI; their tests then report Skipped) wherever
# nvcc is installed, so compile errors fail the suite.
cuda=()
if command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ]; then cuda=(-DPOSLAB_CUDA=ON); fi
stage "release" run_suite "release" build/release "" -DCMAKE_BUILD_TYPE=Release -DPOSLAB_TESTS=ON \
  -DPOSLAB_BENCH=ON "${cuda[@]}"
# The sanitizer run leaves the benchmarks out (they only add build time there) and the tests
# named *LongRunning* (behaviour that does not change under a sanitizer, only slows down: the
# interrupted-write sweep, the real training runs) and the bad-input probe (*Probe*: hundreds of
# runs of the binary whose verdicts a sanitizer does not change; the release run has them, and
# the hand-written bad-input table runs in both). -O1 -g1: instrumented code at -O2 -g compiles
# 2-3 times slower (nlohmann-json and CLI11 users most) for no extra finding; line tables are
# enough for the sanitizers' stack traces. clang (the fuzzer's compiler, installed by setup.sh)
# compiles instrumented code about twice as fast as GCC (one TU: 14 s against 28 s): the stage
# took 621 s with clang where it took 919 s with GCC (one fresh-clone run each, 2-core VM), and
# clang's UBSan caught a null-pointer offset that GCC's had let pass. The same tree builds the
# fuzz targets (POSLAB_FUZZ: the core also carries libFuzzer's coverage instrumentation), which
# the fuzz stage below runs: one instrumented build of the core, not two.
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  stage "asan+ubsan" run_suite "asan+ubsan" build/sanitize "LongRunning|Probe" \
  -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -g1 -DNDEBUG" \
  -DPOSLAB_TESTS=ON -DPOSLAB_SANITIZE=ON -DPOSLAB_FUZZ=ON

# pass_fail COMMAND...: one result, passed when the command exits 0.
pass_fail() {
  if "$@"; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
}

# The .safetensors, .npy and config.json readers under libFuzzer (clang, ASan + UBSan), 20 s
# each (the stage's budget, one more target): one result, failed on any crash, sanitizer
# report or broken property. The targets were built in the sanitizer tree above.
echo "== fuzz: .safetensors, .npy and config.json readers"
POSLAB_JOBS=$jobs stage "fuzz" pass_fail bash scripts/fuzz.sh 20 build/sanitize

# setup.sh on a machine whose Node is 18 (from the npm registry, in a scratch copy): the
# suite's Node must come out >= 20.19. One result.
echo "== setup: a Node 18 machine gets its own Node"
stage "node bootstrap" pass_fail bash tests/setup/node_bootstrap_test.sh

# The WebAssembly modules (SIMD with their relaxed-SIMD twins in relaxed/, scalar, threaded),
# then the generated files checked against them and the JS suites on them; the wasm suite
# compares every build, the relaxed twins included, with the Release CLI built above.
echo "== wasm: build (build/wasm/simd, build/wasm/scalar, build/wasm/threads; relaxed/ in each SIMD one)"
if stage "wasm build" bash scripts/build-wasm.sh; then
  # The committed generated files (web/src/state/position-methods.js, ...) against what their
  # generators write from the modules just built: one result, failed when any is stale.
  echo "== generated files: npm run generate -- --check"
  stage "generated files" pass_fail node scripts/generate.mjs --check
  POSLAB_CLI=build/release/cpp/poslab stage "wasm tests" run_vitest wasm tests/wasm
  stage "web tests" run_vitest web --config tests/web/vitest.config.js
  # The npm package packed (build/npm), installed into a scratch app, used from Node and from
  # a Vite build in Chromium.
  stage "npm package" run_vitest npm --config tests/npm/vitest.config.js
  # The playground built (dist/) and driven in Debian's Chromium; screenshots, exports and
  # printed timings land in test-output/e2e/.
  stage "e2e tests" run_vitest e2e --config tests/e2e/vitest.config.js
  # The slider timings and Lighthouse's scores are reports that check nothing, so they are not
  # run here (they took 59 s): `npm run timing:e2e`, `npm run report:lighthouse`
  # (docs/benchmarks.md).
else
  failed=$((failed + 1))
fi

echo
((skipped == 0)) || echo "$skipped skipped (GPU tests without a GPU)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
