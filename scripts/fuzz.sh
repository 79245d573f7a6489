#!/usr/bin/env bash
# Fuzzes the .safetensors reader: `scripts/fuzz.sh [SECONDS]` (default 60) builds only
# poslab_fuzz_safetensors in build/fuzz (clang, ASan + UBSan + libFuzzer) and runs it for that
# long on a scratch copy of tests/fuzz/corpus, so the committed seeds are never written to.
# A crash, sanitizer report, leak, timeout or over-limit allocation fails it; libFuzzer then
# leaves the input as build/fuzz/artifacts/crash-* (or leak-, timeout-, oom-).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
jobs=${POSLAB_JOBS:-2}
dir=build/fuzz

for tool in clang clang++; do
  command -v "$tool" >/dev/null ||
    { echo "$tool not found: run scripts/setup.sh (clang libclang-rt-14-dev)" >&2; exit 1; }
done
mkdir -p build
echo "== fuzz: configure and build ($dir)"
CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DPOSLAB_TESTS=OFF -DPOSLAB_FUZZ=ON >"$dir.configure.log" 2>&1 ||
  { cat "$dir.configure.log"; exit 1; }
cmake --build "$dir" -j "$jobs" --target poslab_fuzz_safetensors

# The scratch corpus keeps what earlier runs found; the seeds are added to it each time.
corpus=$dir/corpus
mkdir -p "$corpus" "$dir/artifacts"
cp tests/fuzz/corpus/* "$corpus/"
echo "== fuzz: poslab_fuzz_safetensors for ${seconds}s"
# -rss_limit_mb/-malloc_limit_mb: a hostile header must not make the reader allocate more
# than its input warrants. Inputs up to 64 KiB reach multi-tensor headers.
ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1 \
  "$dir/tests/fuzz/poslab_fuzz_safetensors" "$corpus" -dict=tests/fuzz/safetensors.dict \
  -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
  -max_len=65536 -print_final_stats=1 -artifact_prefix="$dir/artifacts/"
