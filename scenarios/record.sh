#!/usr/bin/env bash
# Re-records the shipped scenarios with nightshift itself, from real programs.
# Needs: a built nightshift (npm install), network access to the npm registry
# (for the npx scenario), python3, ssh-keygen, coreutils.
# Each recording is the job's own flight recorder (state/jobs/*/recording.cast);
# quiet gaps are then lengthened with scripts/stretch-cast.mjs where the
# scenario needs minutes of silence (the text is never edited).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
ns="$root/bin/nightshift.js"
work=$(mktemp -d)
state="$work/state"
trap 'rm -rf "$work"' EXIT

# record NAME SECONDS_BEFORE_ANSWER ANSWER -- CMD...   (ANSWER "" = never answer)
record() {
  local name=$1 wait=$2 answer=$3; shift 4
  # stdin from a process substitution: the run ends with the job, not with the feeder
  "$ns" run --quiet --state "$state" --cols 100 --rows 30 --timeout 40s --name "$name" --cwd "$work" -- "$@" \
    < <(sleep "$wait"; [ -n "$answer" ] && printf '%s' "$answer"; sleep 60) || true
  local dir; dir=$(ls -td "$state"/jobs/* | head -1)
  cp "$dir/recording.cast" "$here/$name.cast"
  echo "recorded $here/$name.cast" >&2
}

cd "$work"

# a prompt that needs a person: ssh-keygen refusing to overwrite silently
ssh-keygen -q -t ed25519 -N '' -f "$work/id_demo" >/dev/null
record confirm-prompt 6 $'n\r' -- ssh-keygen -t ed25519 -N '' -f "$work/id_demo"

# a dependency install: npx with an empty cache asks before installing
# (an empty userconfig: a ~/.npmrc with yes=false would make npx refuse without asking)
touch "$work/empty-npmrc"
record npx-install 6 $'y\r' -- env npm_config_userconfig="$work/empty-npmrc" npm_config_cache="$work/npm-cache" npx cowsay@1.6.0 hello

# a destructive prompt: rm -i
echo precious > "$work/notes.txt"
record rm-interactive 6 $'n\r' -- rm -i "$work/notes.txt"

# a long build: a quiet screen while a child process burns CPU
record long-build 30 '' -- bash -c 'echo "[build] compiling 1 target ..."; python3 -c "
import time
t = time.time()
n = 0
while time.time() - t < 8:
    n += 1
"; echo "[build] ok"'
node "$root/scripts/stretch-cast.mjs" "$here/long-build.cast" --after 3 --add 1500

# a hang: nothing moves, nothing is asked
record hang 30 '' -- bash -c 'echo "connecting to the database ..."; exec sleep 6'
node "$root/scripts/stretch-cast.mjs" "$here/hang.cast" --after 1 --add 1200

# a prompt quoted in output that is not waiting: printed, scrolled on, busy, done
record quoted-prompt 30 '' -- python3 -c "
import time
print('log: npm said \"Ok to proceed? (y)\" last time; answering from config')
print('Do you want to continue? [Y/n]')
t = time.time()
while time.time() - t < 6:
    pass
print('step 2/2 done')
"
node "$root/scripts/stretch-cast.mjs" "$here/quoted-prompt.cast" --after 2 --add 600
