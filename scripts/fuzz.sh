#!/usr/bin/env bash
# Fuzzes the file readers: `scripts/fuzz.sh [SECONDS] [BUILD_DIR]` (default 60, build/fuzz) builds
# the libFuzzer targets (clang, ASan + UBSan + libFuzzer) and runs each for SECONDS on a scratch
# copy of its seed corpus, so the committed seeds are never written to:
#   poslab_fuzz_safetensors  tests/fuzz/corpus         the .safetensors readers and GPT-2 loader
#   poslab_fuzz_npy          tests/fuzz/npy_corpus     the .npy reader
#   poslab_fuzz_config       tests/fuzz/config_corpus  GPT-2's and GPT-NeoX's config.json readers
# A BUILD_DIR already configured with POSLAB_FUZZ=ON (the test suite's sanitizer tree) is used
# as it is; otherwise it is configured here.
# A crash, sanitizer report, leak, timeout or over-limit allocation fails it; libFuzzer then
# leaves the input as BUILD_DIR/artifacts/crash-* (or leak-, timeout-, oom-).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
dir=${2:-build/fuzz}
jobs=${POSLAB_JOBS:-2}

for tool in clang clang++; do
  command -v "$tool" >/dev/null ||
    { echo "$tool not found: run scripts/setup.sh (clang libclang-rt-14-dev)" >&2; exit 1; }
done
mkdir -p build
if ! grep -qs '^POSLAB_FUZZ:BOOL=ON' "$dir/CMakeCache.txt"; then
  echo "== fuzz: configure ($dir)"
  CC=clang CXX=clang++ cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DPOSLAB_TESTS=OFF -DPOSLAB_FUZZ=ON >"$dir.configure.log" 2>&1 ||
    { cat "$dir.configure.log"; exit 1; }
fi
echo "== fuzz: build ($dir)"
cmake --build "$dir" -j "$jobs" --target poslab_fuzz_safetensors poslab_fuzz_npy \
  poslab_fuzz_config

# fuzz TARGET SEEDS DICT MAX_LEN [MALLOC_MB]: one bounded run. The scratch corpus keeps what
# earlier runs found; the seeds are added to it each time. -rss_limit_mb/-malloc_limit_mb: a
# hostile header must not make a reader allocate more than its input warrants (1 GiB at once by
# default, 64 MiB for a config.json, which describes a model without allocating it).
fuzz() {
  local target=$1 seeds=$2 dict=$3 max_len=$4 malloc_mb=${5:-1024}
  local corpus=$dir/corpus-$target
  mkdir -p "$corpus" "$dir/artifacts"
  cp "$seeds"/* "$corpus/"
  echo "== fuzz: $target for ${seconds}s"
  ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0 UBSAN_OPTIONS=print_stacktrace=1 \
    "$dir/tests/fuzz/$target" "$corpus" -dict="$dict" \
    -max_total_time="$seconds" -rss_limit_mb=2048 -malloc_limit_mb="$malloc_mb" -timeout=10 \
    -max_len="$max_len" -print_final_stats=1 -artifact_prefix="$dir/artifacts/"
}
# Inputs up to 64 KiB reach multi-tensor safetensors headers; .npy headers are short, and so is
# config.json (a published one is under 1 KiB).
fuzz poslab_fuzz_safetensors tests/fuzz/corpus tests/fuzz/safetensors.dict 65536
fuzz poslab_fuzz_npy tests/fuzz/npy_corpus tests/fuzz/npy.dict 4096
fuzz poslab_fuzz_config tests/fuzz/config_corpus tests/fuzz/config.dict 4096 64
