#!/usr/bin/env bash
# Builds and runs the CUDA part on a GPU machine: configure + build (poslab-bench-cuda and the
# GPU tests), then the steps named on the command line, in order:
#   tests         the GPU tests (fails on any wrong result)
#   sanitize      the GPU tests under compute-sanitizer memcheck, and racecheck on the fused
#                 attention kernels (plain, T5 in-kernel, RoPE on load) at small L
#   profile       Nsight Compute of the table kernels and the fused attention kernels (plain,
#                 T5 inside, RoPE on load), one launch of each
#   bench-quick   poslab-bench-cuda --quick           bench          the full sweep
#   torch-quick   bench/cuda/torch_baseline.py --quick   torch       its full sweep
#   torch-position  only its position peers (SDPA + bias, FlexAttention, flash-attn, RoPE +
#                 SDPA flash), full sweep
#   targets       bench/cuda/targets.py on the results written so far: the issue's targets table
# The torch peers are validated against the poslab CLI built with the programs.
# Results go to $OUT (default: build/device-out) as JSON plus logs.
# Dependencies the machine lacks (Eigen, Highway, nlohmann-json, CLI11, GoogleTest) can be
# given as a prefix folder in POSLAB_DEPS (e.g. a copy of the /usr/include and cmake files).
#
# Device minutes are scarce: `scripts/cuda-device.sh prebuild` on a machine with nvcc and no
# GPU builds the two programs (sm_90 code, CUDA 13 runtime, GoogleTest linked in) and the
# poslab CLI into build/device-bin, about 21 MB; carried to the GPU machine,
# POSLAB_PREBUILT=build/device-bin skips the configure and build there (and the dependencies
# it would need).
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-build/device-out}
mkdir -p "$out"
build=build/device
# CMAKE_POLICY_VERSION_MINIMUM lets CMake 4 read older packages' config files.
args=(-DCMAKE_BUILD_TYPE=Release -DPOSLAB_TESTS=ON -DPOSLAB_CUDA=ON -DPOSLAB_CUDA_VERBOSE_PTXAS=ON
  -DCMAKE_POLICY_VERSION_MINIMUM=3.5)
if [ -n "${POSLAB_DEPS:-}" ]; then
  deps=$(cd "$POSLAB_DEPS" && pwd)
  args+=(-DCMAKE_PREFIX_PATH="$deps")  # headers and packages are found under $deps too
fi
tag=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 |
  sed 's/NVIDIA //; s/ .*//' | tr 'A-Z' 'a-z')
tag=${tag:-gpu}-$(date -u +%Y-%m-%d)

bin=${POSLAB_PREBUILT:-}
if [ -n "$bin" ]; then
  # Built where CUDA's libraries were in /usr/local/cuda/lib; a CUDA image may keep them in
  # lib64. Prebuilt programs that still miss a library are not used: the build runs instead.
  export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  if ldd "$bin/poslab_cuda_tests" "$bin/poslab-bench-cuda" "$bin/poslab" | grep "not found"; then
    echo "== prebuilt programs in $bin cannot load (above): building instead"
    bin=
  fi
fi
if [ "${1:-}" = prebuild ] || [ -z "$bin" ]; then
  echo "== configure + build ($build)"
  cmake -S . -B "$build" -G Ninja "${args[@]}" >"$out/configure.log" 2>&1 || {
    cat "$out/configure.log"
    exit 1
  }
  cmake --build "$build" -j "$(nproc)" --target poslab-bench-cuda poslab_cuda_tests poslab \
    >"$out/build.log" 2>&1 || {
    grep -E "error|FAILED" "$out/build.log" | head -n 40
    exit 1
  }
  grep -E "registers|spill" "$out/build.log" | sort | uniq -c | head -n 40
fi
if [ "${1:-}" = prebuild ]; then
  mkdir -p build/device-bin
  cp "$build/cpp/cuda/poslab-bench-cuda" "$build/tests/cuda/poslab_cuda_tests" \
    "$build/cpp/poslab" build/device-bin/
  ls -la build/device-bin
  echo "carry build/device-bin and run: POSLAB_PREBUILT=build/device-bin bash scripts/cuda-device.sh STEPS"
  exit 0
fi
bench=${bin:-$build/cpp/cuda}/poslab-bench-cuda
tests=${bin:-$build/tests/cuda}/poslab_cuda_tests
cli=${bin:-$build/cpp}/poslab
[ -n "$bin" ] && echo "== prebuilt: $bench, $tests"

status=0
for step in "$@"; do
  echo "== $step"
  case $step in
    tests)
      "$tests" 2>&1 | tee "$out/tests.log" | tail -n 60
      [ "${PIPESTATUS[0]}" -eq 0 ] || status=1
      ;;
    sanitize)
      # Every test but the L = 1024 one under memcheck; racecheck (much slower) on the tests
      # whose cases cover every fused variant with masks, padding and offsets: the position
      # method inside the kernel (T5's buckets) and on the tiles as they load (the rotations).
      timeout 300 compute-sanitizer --tool memcheck --error-exitcode 9 "$tests" \
        --gtest_brief=1 --gtest_filter='-AttentionFlash.MatchesCoreAtLongerLength' 2>&1 |
        tail -n 30 || status=1
      timeout 300 compute-sanitizer --tool racecheck --error-exitcode 9 "$tests" --gtest_brief=1 \
        --gtest_filter='AttentionFlash.*InsideTheKernel*:AttentionFlash.*OnLoad*' \
        2>&1 | tail -n 30 || status=1
      ;;
    profile)
      # One launch of each (past its check and warm-ups), by suite and kernel name: the table
      # kernels, then the fused attention at d = 128 fp16 plain, with T5 and with RoPE on load.
      sections=(--section SpeedOfLight --section Occupancy --section LaunchStats
        --section WarpStateStats --section MemoryWorkloadAnalysis)
      fused='flash_attention_kernel<__half, \(int\)128, .*'
      for target in "tables sinusoidal sinusoidal_kernel2" "tables alibi alibi_kernel2" \
        "attention flash ${fused}NoScoreMod.*NoRotation" "position flash-t5 ${fused}T5ScoreMod" \
        "position flash-rope ${fused}RopeRotation"; do
        read -r suite name kernel <<<"$target"
        timeout 120 ncu --kernel-name-base demangled --kernel-name "regex:$kernel" --launch-skip 3 \
          --launch-count 1 "${sections[@]}" "$bench" --quick --only "$suite" --out /dev/null 2>&1 |
          grep -vE "^(sinusoidal|alibi|t5|rope|attention) " | tee "$out/ncu-$name.txt" | grep -E \
          "Duration|DRAM Throughput|Compute \(SM\)|Registers Per|Theoretical Occ|Achieved Occ|Mem Busy|Issue Slots" || true
      done
      ;;
    bench-quick)
      "$bench" --quick --out "$out/poslab-$tag-quick.json" || status=1
      ;;
    bench)
      "$bench" --out "$out/poslab-$tag.json" || status=1
      ;;
    torch-quick)
      PYTHONUNBUFFERED=1 python3 bench/cuda/torch_baseline.py --quick --poslab "$cli" \
        --out "$out/torch-$tag-quick.json" || status=1
      ;;
    torch)
      PYTHONUNBUFFERED=1 python3 bench/cuda/torch_baseline.py --poslab "$cli" \
        --out "$out/torch-$tag.json" || status=1
      ;;
    torch-position)
      PYTHONUNBUFFERED=1 python3 bench/cuda/torch_baseline.py --only position --poslab "$cli" \
        --out "$out/torch-position-$tag.json" || status=1
      ;;
    targets)
      python3 bench/cuda/targets.py "$out"/poslab-*.json "$out"/torch-*.json | tee "$out/targets.md" ||
        status=1
      ;;
    *)
      echo "unknown step '$step'"
      status=1
      ;;
  esac
done
exit $status
