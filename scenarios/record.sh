#!/usr/bin/env bash
# Re-records the shipped scenarios with nightshift itself, from real programs.
#   scenarios/record.sh            all of them
#   scenarios/record.sh hang npx-install-allowed   just these
# Needs: a built nightshift (npm install), network access to the npm registry
# and Debian mirrors (npx, apt scenarios), root for apt, python3, ssh-keygen.
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
cd "$work"
touch "$work/empty-npmrc"   # a ~/.npmrc with yes=false would make npx refuse without asking

# record NAME SECONDS_BEFORE_ANSWER ANSWER [run options…] -- CMD...   (ANSWER "" = a person never answers)
record() {
  local name=$1 wait=$2 answer=$3; shift 3
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  # stdin from a process substitution: the run ends with the job, not with the feeder
  "$ns" run --quiet --state "$state" --cols 100 --rows 30 --timeout "${RECORD_TIMEOUT:-40s}" --name "$name" --cwd "$work" "${opts[@]}" "$@" \
    < <(sleep "$wait"; [ -n "$answer" ] && printf '%s' "$answer"; sleep 60) || true
  local dir; dir=$(ls -td "$state"/jobs/* | head -1)
  cp "$dir/recording.cast" "$here/$name.cast"
  echo "recorded $here/$name.cast" >&2
}
stretch() { node "$root/scripts/stretch-cast.mjs" "$here/$1.cast" --after "$2" --add "$3"; }
npx_env=(env npm_config_userconfig="$work/empty-npmrc")

scenario_confirm-prompt() {   # a prompt that needs a person: ssh-keygen asks before overwriting
  ssh-keygen -q -t ed25519 -N '' -f "$work/id_demo" >/dev/null
  record confirm-prompt 6 $'n\r' -- ssh-keygen -t ed25519 -N '' -f "$work/id_demo"
}
scenario_npx-install() {      # a dependency install nobody allow-listed: escalated, a person says yes
  record npx-install 6 $'y\r' -- "${npx_env[@]}" npm_config_cache="$work/npm-cache-1" npx cowsay@1.6.0 hello
}
scenario_npx-install-allowed() {   # the same install, allow-listed: nightshift answers it live
  record npx-install-allowed 20 '' --policy "$here/policies/allow-cowsay.yaml" -- "${npx_env[@]}" npm_config_cache="$work/npm-cache-2" npx cowsay@1.6.0 hello
}
scenario_npx-install-not-allowed() {   # allow-list has cowsay, the job asks for something else
  record npx-install-not-allowed 6 $'n\r' --policy "$here/policies/allow-cowsay.yaml" -- "${npx_env[@]}" npm_config_cache="$work/npm-cache-3" npx figlet@1.7.0 hi
}
scenario_apt-remove() {       # apt-get asking to REMOVE a package: a person says no
  record apt-remove 6 $'n\r' -- apt-get remove ed
}
scenario_rm-interactive() {   # a destructive prompt: rm -i
  echo precious > "$work/notes.txt"
  record rm-interactive 6 $'n\r' -- rm -i "$work/notes.txt"
}
scenario_long-build() {       # a quiet screen while a child process burns CPU
  record long-build 30 '' -- bash -c 'echo "[build] compiling 1 target ..."; python3 -c "
import time
t = time.time()
n = 0
while time.time() - t < 8:
    n += 1
"; echo "[build] ok"'
  stretch long-build 3 1500
}
scenario_hang() {             # nothing moves, nothing is asked
  record hang 30 '' -- bash -c 'echo "connecting to the database ..."; exec sleep 6'
  stretch hang 1 1200
}
scenario_quoted-prompt() {    # prompt-looking lines printed, scrolled on, busy, done
  record quoted-prompt 30 '' -- python3 -c "
import time
print('log: npm said \"Ok to proceed? (y)\" last time; answering from config')
print('Do you want to continue? [Y/n]')
t = time.time()
while time.time() - t < 6:
    pass
print('step 2/2 done')
"
  stretch quoted-prompt 2 600
}

scenario_retry-spinner() {    # a retry loop that redraws its countdown and spinner for 17 min, no new line, no CPU to speak of
  RECORD_TIMEOUT=20m record retry-spinner 1200 '' -- python3 -c "
import sys, time
print('connecting to registry.example.invalid ...')
frames = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'
t0 = time.time()
i = 0
while time.time() - t0 < 17 * 60:
    left = 10 - int(time.time() - t0) % 10
    sys.stdout.write('\\r' + frames[i % 10] + ' Retrying in ' + str(left) + 's... ')
    sys.stdout.flush()
    i += 1
    time.sleep(0.1)
print()
print('gave up')
"
}

all=(confirm-prompt npx-install npx-install-allowed npx-install-not-allowed apt-remove rm-interactive long-build hang quoted-prompt retry-spinner)
for name in "${@:-${all[@]}}"; do "scenario_$name"; done
