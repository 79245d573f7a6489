# shellcheck shell=bash
# Sourced (not run) by setup.sh, run.sh and test.sh: puts the project-local Node first on PATH.
# setup.sh fills .node/ (git-ignored) with an official Node build and npm from the npm
# registry when the system's Node is older than 20.19 or absent (Debian bookworm ships 18);
# with .node/bin first, node, npm, npx and whatever they start use it. When .node/ is absent
# (the system's Node is new enough) the entry is harmless and the system's Node is used.
poslab_node_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.node"
case ":$PATH:" in
  *":$poslab_node_dir/bin:"*) ;;
  *) PATH="$poslab_node_dir/bin:$PATH" ;;
esac
export PATH
