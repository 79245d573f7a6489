#!/usr/bin/env bash
# The main job: installs what it needs, builds PosLab (native CLI, WebAssembly core, the
# playground), shows the CLI at work on a small demo (tables and attention written as .npy /
# CSV / JSON under build/demo), then serves the playground and prints its URL.
# POSLAB_HOST / POSLAB_PORT choose where it listens (default 127.0.0.1:4173).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh # the project-local Node (.node/bin, see setup.sh) first on PATH
bash scripts/setup.sh
cmake -S . -B build/release -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/release -j "$(nproc)" --target poslab
poslab=build/release/cpp/poslab
out=build/demo
mkdir -p "$out"

step() {
  echo "\$ poslab $*"
  "$poslab" "$@"
}
step sinusoidal --len 50 --dim 512 -o "$out/sinusoidal.npy"
step sinusoidal --len 4 --dim 8 -o "$out/sinusoidal.csv"
cat "$out/sinusoidal.csv"
step alibi --heads 4 --len 6 -o "$out/alibi.json"
step t5-buckets --qlen 6 --klen 6 --bidirectional -o "$out/t5.csv"
cat "$out/t5.csv"
step offset-matrix --dim 4 --k 3 -o "$out/offset.csv"
cat "$out/offset.csv"
step sinusoidal --len 16 --dim 8 -o "$out/x.npy"
step rope --in "$out/x.npy" --scaling yarn --factor 4 --original-len 8 -o "$out/x_rope.npy"
step similarity --in "$out/sinusoidal.npy" -o "$out/similarity.npy"
step attention --q "$out/x.npy" --k "$out/x.npy" --v "$out/x.npy" --mask causal \
  --weights "$out/weights.csv" -o "$out/attention.npy"
head -n 4 "$out/weights.csv"
echo
echo "Demo outputs are in $out. Try: $poslab --help"

bash scripts/build-wasm.sh
npx vite build
echo
echo "Serving the playground (dist/, a static folder any host can serve). Ctrl-C stops it."
exec npx vite preview --host "${POSLAB_HOST:-127.0.0.1}" --port "${POSLAB_PORT:-4173}" --strictPort
