#!/usr/bin/env bash
# Installs the real Gemini CLI, pinned, into a cache folder for the offline
# agent tests (test/agents/), and prints the path of its entry point.
#
#   scripts/agents/install-gemini.sh            # -> …/node_modules/@google/gemini-cli/bundle/gemini.js (run with node)
#
# @google/gemini-cli is pure JavaScript (one bundle, node>=20); everything
# comes from the npm registry, nothing is downloaded from elsewhere.
# Cache: ${NIGHTSHIFT_AGENT_CACHE:-<repo>/.cache/agents}/gemini-<version>.
# Idempotent: an existing install of the right version is reused.
# Progress goes to stderr; stdout carries only the path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=npm-pinned.sh
. "$here/npm-pinned.sh"
version=${1:-0.61.0}
cache=${NIGHTSHIFT_AGENT_CACHE:-$root/.cache/agents}
prefix="$cache/gemini-$version"
pkg="$prefix/node_modules/@google/gemini-cli"
cli="$pkg/bundle/gemini.js"

# The bundle and a node that can run it (`gemini --version` prints the version).
installed() {
  [ -f "$cli" ] && [ -f "$pkg/package.json" ] &&
    [ "$(node -p 'require(process.argv[1]).version' "$pkg/package.json" 2>/dev/null)" = "$version" ] &&
    HOME="$prefix" node "$cli" --version 2>/dev/null | grep -q "$version"
}

if ! installed; then
  echo "install-gemini: installing @google/gemini-cli@$version into $prefix" >&2
  npm_install_pinned "$prefix" gemini "@google/gemini-cli@$version" --ignore-scripts=false --include=optional --loglevel=error
  installed || { echo "install-gemini: install finished but $cli is missing, not $version, or does not run here" >&2; exit 1; }
fi
echo "$cli"
