#!/usr/bin/env bash
# Records the Claude Code drill scenarios with nightshift itself, from the real
# Claude Code CLI (2.1.112, and the native 2.1.332) running offline against the fake model server
# (test/agents/fake-anthropic.ts): the model asks to run a command, Claude
# shows its real permission dialog, a "person" declines with Escape after
# ~6 s (so nothing dangerous runs), then leaves Claude with Ctrl-C twice.
#
#   scripts/agents/record-claude-scenarios.sh     # -> scenarios/claude-npm-install.cast, scenarios/claude-rm-rf.cast,
#                                                 #    scenarios/claude-2.1.332-permission.cast
#   scripts/agents/record-claude-scenarios.sh claude-2.1.332-permission   # only the named ones
#
# Needs: a built nightshift (npm install / npx tsc -p tsconfig.json), and the
# CLI (scripts/agents/install-claude.sh is run; it needs the npm registry the
# first time). The expectation sidecars (*.expect.yaml) are written by hand.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
scenarios="$root/scenarios"
ns="$root/bin/nightshift.js"
[ -f "$root/dist/src/cli/main.js" ] || { echo "record-claude-scenarios: build nightshift first (npx tsc -p tsconfig.json)" >&2; exit 1; }
cli=$("$here/install-claude.sh")
# The native release runs by itself, in the default permission mode (its own
# default, auto mode, never shows the dialog).
native=$("$here/install-claude.sh" 2.1.332)
only=" $* "

work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# The fake server and the Claude home helpers are TypeScript shared with the
# tests: compile the three files for node.
js="$work/js"
mkdir -p "$js"
echo '{"type":"module"}' > "$js/package.json"
"$root/node_modules/.bin/tsc" --outDir "$js" --rootDir "$root" --module nodenext --moduleResolution nodenext \
  --target es2022 --strict --skipLibCheck --types node --typeRoots "$root/node_modules/@types" \
  "$root/scripts/agents/serve-fake-anthropic.ts"
serve="$js/scripts/agents/serve-fake-anthropic.js"

# record NAME PROMPT SCRIPT-JSON SETUP-COMMAND CHECK-COMMAND [CLI-ARGV…]
# (both commands run in the project folder; CHECK proves the command did not run;
# the CLI is 2.1.112's cli.js under node unless an argv is given)
record() {
  local name=$1 prompt=$2 script=$3 setup=$4 check=$5
  shift 5
  local argv=("$@")
  [ ${#argv[@]} -gt 0 ] || argv=(node "$cli")
  [ "$only" = "  " ] || [[ "$only" == *" $name "* ]] || return 0
  local project="$work/$name/project" state="$work/$name/state" envfile="$work/$name/env.sh"
  mkdir -p "$project" "$state"
  (cd "$project" && eval "$setup")
  rm -f "$envfile"
  node "$serve" --project "$project" --script "$script" --env-out "$envfile" \
    --home "$work/$name/home" --requests "$work/$name/requests.json" &
  server_pid=$!
  for _ in $(seq 100); do [ -s "$envfile" ] && break; sleep 0.1; done
  [ -s "$envfile" ] || { echo "record-claude-scenarios: the fake server did not start" >&2; exit 1; }
  # stdin from a process substitution: the run ends with the job, not with the
  # feeder. Escape declines the dialog; Ctrl-C twice then leaves Claude.
  ( # shellcheck disable=SC1090
    source "$envfile"
    "$ns" run --quiet --state "$state" --cols 100 --rows 30 --timeout 60s --name "$name" --cwd "$project" -- \
      "${argv[@]}" --permission-mode default "$prompt" \
      < <(sleep 6; printf '\033'; sleep 3; printf '\003'; sleep 0.5; printf '\003'; sleep 60)
  ) || true
  kill "$server_pid"; wait "$server_pid" || true; server_pid=
  (cd "$project" && eval "$check") || { echo "record-claude-scenarios: $name: the declined command ran anyway ($check failed)" >&2; exit 1; }
  local dir; dir=$(ls -td "$state"/jobs/* | head -1)
  cp "$dir/recording.cast" "$scenarios/$name.cast"
  echo "recorded $scenarios/$name.cast ($(node -e 'const r=require(process.argv[1]);console.log(r.filter(x=>x.method==="POST").length+" model requests")' "$work/$name/requests.json"))" >&2
}

# a dependency install the model wants to run
record claude-npm-install 'please add left-pad to this project' \
  '[{"tool":"Bash","command":"npm install left-pad","description":"Install left-pad"},{"text":"Installed left-pad."}]' \
  'printf "{\"name\":\"demo\",\"version\":\"1.0.0\",\"private\":true}\n" > package.json' \
  '[ ! -e node_modules ] && ! grep -q left-pad package.json'

# a destructive command the model wants to run
record claude-rm-rf 'please clean the build output' \
  '[{"tool":"Bash","command":"rm -rf build","description":"Remove the build folder"},{"text":"Removed build/."}]' \
  'mkdir -p build && echo precious > build/keep.txt' \
  '[ "$(cat build/keep.txt)" = precious ]'

# the newest release's dialog (4 options, "switch to auto mode" among them)
record claude-2.1.332-permission 'please create made.txt' \
  '[{"tool":"Bash","command":"touch made.txt","description":"Create made.txt"},{"text":"Created made.txt."}]' \
  'true' \
  '[ ! -e made.txt ]' \
  "$native"
