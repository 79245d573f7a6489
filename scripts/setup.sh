#!/usr/bin/env bash
# Installs the Debian packages PosLab builds and tests with (Chromium drives the browser tests,
# clang with its libFuzzer runtime builds the fuzzer), and the npm packages of the playground,
# its tests and the wasm benchmark. Idempotent: installs only what is missing, runs `apt-get
# update` only when something is, and `npm ci` only when package-lock.json is newer than
# node_modules.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  cmake ninja-build g++ pkg-config
  clang libclang-rt-14-dev
  libeigen3-dev libhwy-dev libcli11-dev nlohmann-json3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-numpy
  emscripten wabt
  chromium
)
# Node may come from elsewhere (a newer release than Debian's): only add Debian's if absent.
command -v node >/dev/null || packages+=(nodejs npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# vitest 4 needs Node 20.19 or newer (Debian bookworm ships 18).
node_major=$(node -p 'process.versions.node.split(".")[0]')
if ((node_major < 20)); then
  echo "setup: warning: Node $(node --version) is too old for the wasm tests (need >= 20.19)" >&2
fi

# npm writes node_modules/.package-lock.json on every install: older than the lock = stale.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
fi
