#!/usr/bin/env bash
# Installs the real Claude Code CLI, pinned, into a cache folder for the
# offline agent tests (test/agents/), and prints the path of its entry point.
#
#   scripts/agents/install-claude.sh            # 2.1.112 -> …/node_modules/@anthropic-ai/claude-code/cli.js (run with node)
#   scripts/agents/install-claude.sh 2.1.332    # -> …/node_modules/@anthropic-ai/claude-code-linux-x64/claude (run directly)
#
# 2.1.112 is the last release shipped as pure JavaScript (cli.js, run with
# node). Later ones are a native binary (~400 MB) from a platform package, an
# optional dependency (@anthropic-ai/claude-code-linux-x64 …); the main
# package's postinstall only copies it to bin/claude.exe. Its engines field
# says node>=22 but the binary does not use node, so the postinstall is not
# needed: the binary is taken from the platform package itself, and it must
# print its version here before the install counts.
# Cache: ${NIGHTSHIFT_AGENT_CACHE:-<repo>/.cache/agents}/claude-<version>.
# Idempotent: an existing install of the right version is reused.
# Progress goes to stderr; stdout carries only the path.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
# shellcheck source=npm-pinned.sh
. "$here/npm-pinned.sh"
version=${1:-2.1.112}
cache=${NIGHTSHIFT_AGENT_CACHE:-$root/.cache/agents}
prefix="$cache/claude-$version"
mods="$prefix/node_modules/@anthropic-ai"

# The platform package npm picks on this machine (glibc or musl, x64 or arm64).
platform() {
  local arch libc=""
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64 | arm64) arch=arm64 ;; *) arch=$(uname -m) ;; esac
  # Read ldd's banner whole: grep -q in a pipe would close it early, and
  # under pipefail ldd's SIGPIPE would read as "not glibc".
  local banner
  banner=$(ldd --version 2>&1 || true)
  if [ "$(uname -s)" = Linux ] && ! grep -qi 'glibc\|gnu libc' <<<"$banner"; then libc=-musl; fi
  echo "claude-code-$(uname -s | tr '[:upper:]' '[:lower:]')-$arch$libc"
}

if [ "$version" = 2.1.112 ] || [ "$(printf '%s\n' "$version" 2.1.112 | sort -V | tail -1)" = 2.1.112 ]; then
  pkg="$mods/claude-code"
  cli="$pkg/cli.js"
  native=false
else
  pkg="$mods/$(platform)"
  cli="$pkg/claude"
  native=true
fi

installed() {
  [ -f "$cli" ] && [ -f "$pkg/package.json" ] &&
    [ "$(node -p 'require(process.argv[1]).version' "$pkg/package.json" 2>/dev/null)" = "$version" ] &&
    { [ "$native" = false ] || "$cli" --version 2>/dev/null | grep -q "^$version"; }
}

if ! installed; then
  echo "install-claude: installing @anthropic-ai/claude-code@$version into $prefix" >&2
  # Native releases: the binary is an optional dependency, and the
  # postinstall (a copy that wants node 22) is skipped; engine-strict stays
  # off so node 20 only warns about the engines field.
  scripts=--ignore-scripts=false
  [ "$native" = true ] && scripts=--ignore-scripts=true
  npm_install_pinned "$prefix" claude "@anthropic-ai/claude-code@$version" \
    --engine-strict=false "$scripts" --include=optional --loglevel=error
  # npm keeps the binary's mode from the tarball; make sure it can run.
  [ "$native" = true ] && [ -f "$cli" ] && chmod +x "$cli"
  installed || { echo "install-claude: install finished but $cli is missing, not $version, or does not run here" >&2; exit 1; }
fi
echo "$cli"
