#!/usr/bin/env bash
# Records the judge fixture set from the real agent CLIs offline (see
# record-judge-fixtures.ts and judge-scenarios.ts):
#
#   scripts/agents/record-judge-fixtures.sh                # every scenario
#   scripts/agents/record-judge-fixtures.sh claude-poller  # only the named ones
#
# Needs the CLIs (scripts/agents/install-{claude,codex,gemini}.sh, or
# NIGHTSHIFT_AGENT_CACHE naming where they are). Writes test/fixtures/judge/.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo '{"type":"module"}' > "$work/package.json"
"$root/node_modules/.bin/tsc" --outDir "$work" --rootDir "$root" --module nodenext --moduleResolution nodenext \
  --target es2022 --strict --skipLibCheck --types node --typeRoots "$root/node_modules/@types" \
  "$here/record-judge-fixtures.ts"
cd "$root"
node "$work/scripts/agents/record-judge-fixtures.js" "$@"
