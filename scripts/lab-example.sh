#!/usr/bin/env bash
# Writes the Length generalisation view's example (web/src/lab/example/<method>.json): the
# Quick preset (web/src/lab/presets.js QUICK_SETTINGS) trained by the native CLI, one file per
# method holding its three seeds (`--seeds 3`: the first seed's fields, `runs`, `summary`), each
# file the CLI's result.json as written. The view shows it, labelled as an example,
# until the visitor trains or restores runs of their own. tests/web/lab-example.test.js checks
# that these files are the Quick preset's runs.
#   scripts/lab-example.sh [path/to/poslab]     (default build/release/cpp/poslab)
set -euo pipefail
cd "$(dirname "$0")/.."
poslab="${1:-build/release/cpp/poslab}"
out=web/src/lab/example
for method in learned rope alibi none; do
  "$poslab" train --task copy --position "$method" --train-len 5 --layers 2 --width 64 --heads 4 \
    --steps 1000 --embed-scale 4 --seed 0 --seeds 3 --quiet -o "$out/$method.json"
done
