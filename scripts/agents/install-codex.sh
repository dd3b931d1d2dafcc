#!/usr/bin/env bash
# Installs the real Codex CLI, pinned, into a cache folder for the offline
# agent tests (test/agents/), and prints the path of its launcher.
#
#   scripts/agents/install-codex.sh            # -> …/node_modules/@openai/codex/bin/codex.js
#
# @openai/codex is a small Node launcher (bin/codex.js) plus a native binary
# from a platform package (@openai/codex-linux-x64 = @openai/codex@<v>-linux-x64,
# an optional dependency; ~424 MB installed); both come from the npm registry,
# nothing is downloaded from elsewhere.
# Cache: ${NIGHTSHIFT_AGENT_CACHE:-<repo>/.cache/agents}/codex-<version>.
# Idempotent: an existing install of the right version is reused.
# Progress goes to stderr; stdout carries only the path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=npm-pinned.sh
. "$here/npm-pinned.sh"
version=0.171.0
cache=${NIGHTSHIFT_AGENT_CACHE:-$root/.cache/agents}
prefix="$cache/codex-$version"
pkg="$prefix/node_modules/@openai/codex"
cli="$pkg/bin/codex.js"

# The launcher and a native binary that runs here (`codex --version` prints the version).
installed() {
  [ -f "$cli" ] && [ -f "$pkg/package.json" ] &&
    [ "$(node -p 'require(process.argv[1]).version' "$pkg/package.json" 2>/dev/null)" = "$version" ] &&
    node "$cli" --version 2>/dev/null | grep -q "$version"
}

if ! installed; then
  echo "install-codex: installing @openai/codex@$version into $prefix" >&2
  # Optional dependencies must be installed: the native binary is one.
  npm_install_pinned "$prefix" codex "@openai/codex@$version" --include=optional --loglevel=warn
  installed || { echo "install-codex: install finished but $cli is missing, not $version, or its native binary does not run here" >&2; exit 1; }
fi
echo "$cli"
