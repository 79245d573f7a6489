#!/usr/bin/env bash
# Setup's Node step on a machine whose Node is too old (Debian bookworm's is 18; vitest 4 and
# Vite 8 need >= 20.19). In a scratch copy of the scripts (the real .node/ and node_modules/
# are never touched) with an official Node 18 and npm 9.2 (bookworm's npm) first on PATH, runs
# `scripts/setup.sh --node-only` twice and checks that:
#   - the first run succeeds and the node, npm and npx that the scripts then find first on PATH
#     (after the PATH line run.sh and test.sh share: scripts/env.sh) run on Node >= 20.19;
#   - run.sh and test.sh source that PATH line before calling setup.sh;
#   - the second run fetches nothing (nothing under .node/ or the npm cache changes, with the
#     registry unreachable) and still succeeds.
# Downloads (Node 18 and 20, ~45 MB each) go to an npm cache inside the run's temporary
# folder, removed at the end. Needs npm on PATH and the npm registry. Ends with
# `N passed, M failed`; exits non-zero when a check fails.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export npm_config_cache="$tmp/npm-cache" npm_config_update_notifier=false \
  npm_config_fund=false npm_config_audit=false

passed=0
failed=0
# check NAME COMMAND...: one check; COMMAND's exit status decides it.
check() {
  local name=$1
  shift
  if "$@"; then
    echo "ok:   $name"
    passed=$((passed + 1))
  else
    echo "FAIL: $name"
    failed=$((failed + 1))
  fi
}

# at_least_20_19 VERSION: true when VERSION (e.g. 20.20.2 or v20.20.2) is >= 20.19.
at_least_20_19() {
  local v=${1#v} major minor
  major=${v%%.*}
  minor=${v#*.}
  minor=${minor%%.*}
  [[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ ]] || return 1
  ((major > 20 || (major == 20 && minor >= 19)))
}

case "$(uname -m)" in
  x86_64 | amd64) arch=x64 ;;
  aarch64 | arm64) arch=arm64 ;;
  *) echo "node_bootstrap_test: no official Node build for $(uname -m)" >&2; exit 1 ;;
esac

# The old Node: official 18.20.8 and npm 9.2.0 (the npm of Debian bookworm) from the registry.
old="$tmp/node18"
if ! npm install --global --prefix "$old" --loglevel=error "node-linux-$arch@18.20.8" npm@9.2.0 \
  >"$tmp/node18.log" 2>&1; then
  cat "$tmp/node18.log" >&2
  echo "node_bootstrap_test: could not install Node 18 from the npm registry" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
old_path="$old/bin:$PATH"
check "Node 18 stands in for the system's" \
  test "$(PATH=$old_path node --version)" = v18.20.8

# Scratch copy: the scripts and the npm manifests; a node_modules stamp newer than the lock,
# so that a setup.sh which ignores --node-only skips its `npm ci` here.
scratch="$tmp/repo"
mkdir -p "$scratch/node_modules"
cp -a "$repo/scripts" "$scratch/"
cp -p "$repo/package.json" "$repo/package-lock.json" "$scratch/"
touch "$scratch/node_modules/.package-lock.json"

# in_scripts_env COMMAND...: COMMAND in the scratch copy with the old Node first on PATH, after
# the scripts' PATH line, as run.sh and test.sh run what follows their setup call.
in_scripts_env() {
  (
    cd "$scratch" || exit 1
    PATH=$old_path
    if [ -f scripts/env.sh ]; then
      # shellcheck disable=SC1091
      . scripts/env.sh
    fi
    "$@"
  )
}

# sources_env_before_setup SCRIPT: SCRIPT sources scripts/env.sh before it runs setup.sh.
sources_env_before_setup() {
  awk '/^[[:space:]]*(\.|source)[[:space:]]+("?\$[^ ]*)?scripts\/env\.sh/ && !setup { env = 1 }
       /scripts\/setup\.sh/ && !/^[[:space:]]*#/ { setup = 1 }
       END { exit !(env && setup) }' "$1"
}

echo "== first run (Node 18 first on PATH)"
(cd "$scratch" && PATH=$old_path bash scripts/setup.sh --node-only) >"$tmp/run1.log" 2>&1
rc=$?
sed 's/^/   | /' "$tmp/run1.log"
check "setup.sh --node-only succeeds" test "$rc" -eq 0

node_version=$(in_scripts_env node -p process.versions.node 2>/dev/null)
check "node first on PATH after the scripts' PATH line is >= 20.19 (got ${node_version:-none})" \
  at_least_20_19 "$node_version"

npm_node=$(in_scripts_env npm version --json 2>/dev/null |
  in_scripts_env node -e 'let s = ""; process.stdin.on("data", d => (s += d));
    process.stdin.on("end", () => console.log(JSON.parse(s).node))' 2>/dev/null)
check "npm first on PATH runs on Node >= 20.19 (got ${npm_node:-none})" at_least_20_19 "$npm_node"

where() { dirname "$(command -v "$1")"; }
npx_dir=$(in_scripts_env where npx)
npm_dir=$(in_scripts_env where npm)
node_dir=$(in_scripts_env where node)
check "npx and npm come with that node (${npx_dir:-none})" \
  test -n "$npx_dir" -a "$npx_dir" = "$npm_dir" -a "$npm_dir" = "$node_dir"

check "run.sh sources scripts/env.sh before setup.sh" sources_env_before_setup "$scratch/scripts/run.sh"
check "test.sh sources scripts/env.sh before setup.sh" sources_env_before_setup "$scratch/scripts/test.sh"

# git-ignored: asked of git in a checkout, read from .gitignore otherwise (an exported tree).
ignored() {
  if git -C "$repo" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$repo" check-ignore -q .node/bin/node
  else
    grep -qx '/\.node/' "$repo/.gitignore"
  fi
}
check ".node/ is git-ignored" ignored

echo "== second run (must fetch nothing; registry unreachable)"
touch "$tmp/before-run2"
sleep 1
(cd "$scratch" && PATH=$old_path npm_config_registry=http://127.0.0.1:9/ \
  bash scripts/setup.sh --node-only) >"$tmp/run2.log" 2>&1
rc=$?
sed 's/^/   | /' "$tmp/run2.log"
check "second run succeeds" test "$rc" -eq 0
changed=$(find "$scratch" "$npm_config_cache" -newer "$tmp/before-run2" -print 2>/dev/null |
  head -n 5)
check "second run fetches and changes nothing${changed:+ (changed: ${changed//$'\n'/, })}" \
  test -z "$changed"
check "second run's node is still >= 20.19" \
  at_least_20_19 "$(in_scripts_env node -p process.versions.node 2>/dev/null)"

echo
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
