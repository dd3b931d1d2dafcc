#!/usr/bin/env bash
# Installs the real Claude Code CLI, pinned, into a cache folder for the
# offline agent tests (test/agents/), and prints the path of its entry point.
#
#   scripts/agents/install-claude.sh            # -> …/node_modules/@anthropic-ai/claude-code/cli.js
#
# 2.1.112 is the last release shipped as pure JavaScript (cli.js, run with
# node); later ones are a native binary from a platform package.
# Cache: ${NIGHTSHIFT_AGENT_CACHE:-<repo>/.cache/agents}/claude-<version>.
# Idempotent: an existing install of the right version is reused.
# Progress goes to stderr; stdout carries only the path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
version=2.1.112
cache=${NIGHTSHIFT_AGENT_CACHE:-$root/.cache/agents}
prefix="$cache/claude-$version"
pkg="$prefix/node_modules/@anthropic-ai/claude-code"
cli="$pkg/cli.js"

installed() {
  [ -f "$cli" ] && [ -f "$pkg/package.json" ] &&
    [ "$(node -p 'require(process.argv[1]).version' "$pkg/package.json" 2>/dev/null)" = "$version" ]
}

if ! installed; then
  echo "install-claude: installing @anthropic-ai/claude-code@$version into $prefix" >&2
  mkdir -p "$prefix"
  # A private, minimal package.json keeps npm from walking up into the repo's.
  [ -f "$prefix/package.json" ] || printf '{"name":"nightshift-agent-claude","private":true}\n' > "$prefix/package.json"
  # The user's ~/.npmrc must not change the outcome (yes=false, omit-lockfile-
  # registry-resolved, ignore-scripts, a stale global prefix …): use an empty
  # user config and say everything that matters on the command line. The
  # global config (/etc/npmrc, proxies, CA) is kept, as a machine needs it.
  empty_rc="$prefix/.npmrc-empty"
  : > "$empty_rc"
  npm_config_userconfig="$empty_rc" npm install \
    --prefix "$prefix" \
    --no-audit --no-fund --no-update-notifier \
    --save-exact --no-package-lock \
    --ignore-scripts=false --omit=dev --loglevel=warn \
    "@anthropic-ai/claude-code@$version" >&2
  installed || { echo "install-claude: install finished but $cli is missing or not $version" >&2; exit 1; }
fi
echo "$cli"
