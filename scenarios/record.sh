#!/usr/bin/env bash
# Re-records the shipped scenarios with nightshift itself, from real programs.
#   scenarios/record.sh            all of them
#   scenarios/record.sh hang npx-install-allowed   just these
# Needs: a built nightshift (npm install), network access to the npm registry
# and Debian mirrors (npx, apt, npm create scenarios), root (apt; a user with a
# password for sudo), python3, ssh-keygen, and Debian's openssh-server, sudo,
# git, vim, nano and procps (top, watch).
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
# RECORD_FEED, when set, is the person instead: a bash snippet that types with printf between sleeps.
record() {
  local name=$1 wait=$2 answer=$3; shift 3
  local opts=()
  while [ "$1" != "--" ]; do opts+=("$1"); shift; done
  # stdin from a process substitution: the run ends with the job, not with the feeder
  "$ns" run --quiet --state "$state" --cols 100 --rows 30 --timeout "${RECORD_TIMEOUT:-40s}" --name "$name" --cwd "$work" "${opts[@]}" "$@" \
    < <(if [ -n "${RECORD_FEED:-}" ]; then eval "$RECORD_FEED"; else sleep "$wait"; [ -n "$answer" ] && printf '%s' "$answer"; fi; sleep 60) || true
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

# Dialogs no rule names (issue 9.2): a person answers each after a few seconds.
scenario_whiptail-yesno() { record whiptail-yesno 6 $'\r' -- whiptail --yesno 'Deploy the new schema to staging?' 10 60; }
scenario_dialog-menu() { record dialog-menu 6 $'\r' -- dialog --menu 'Pick a target' 15 50 4 1 staging 2 production 3 local; }
scenario_fzf-picker() { record fzf-picker 6 $'\r' -- bash -c 'printf "alpha\nbeta\ngamma\n" | fzf'; }
scenario_less-end() { printf 'release notes\n- fixed the retry loop\n- faster start\n' > "$work/notes.txt"; record less-end 6 q -- less "$work/notes.txt"; }
scenario_node-blinking-menu() {   # a menu with a blinking status glyph; it gives up by itself after 8 s
  record node-blinking-menu 30 '' -- node -e "
const frames = ['●', '◌']; let i = 0;
const draw = () => process.stdout.write('\x1b[H\x1b[2J' + frames[i++ % 2] + ' deploy-tool v3\r\n? Pick a target (Use arrow keys)\r\n❯ staging\r\n  production\r\n  local');
draw(); const t = setInterval(draw, 600); setTimeout(() => { clearInterval(t); process.stdout.write('\r\nno choice made\r\n'); }, 8000);"
}
scenario_curses-reverse-menu() {   # a curses menu whose selection is reverse video only: no glyph, no buttons, no footer
  record curses-reverse-menu 6 $'\r' -- python3 -c '
import curses
def main(s):
    curses.curs_set(0)
    s.addstr(1, 2, "Select the environment")
    for i, name in enumerate(["staging", "production", "local"]):
        s.addstr(3 + i, 4, name, curses.A_REVERSE if i == 0 else curses.A_NORMAL)
    s.refresh()
    s.getch()
curses.wrapper(main)'
}
# Must not fire: a numbered plan with an advancing progress bar, an agent-like idle input box with a status line, prose quoting a menu.
scenario_plan-progress() {
  record plan-progress 30 '' -- python3 -c "
import sys, time
print('Plan:'); print('1. fetch'); print('2. build'); print('3. test')
for p in range(0, 101, 5):
    sys.stdout.write('\r[' + '#' * (p // 5) + '-' * (20 - p // 5) + '] ' + str(p) + '%'); sys.stdout.flush(); time.sleep(0.4)
print()
"
}
scenario_idle-input-box() {
  record idle-input-box 30 '' -- python3 -c "
import time
print('● Done. I created notes.md and ran the tests.'); print()
print('─' * 60); print('❯ '); print('─' * 60); print('  ? for shortcuts                      ◯ sonnet 4.6')
time.sleep(8)
"
}
scenario_prose-quotes-menu() {
  record prose-quotes-menu 30 '' -- python3 -c "
import time
lines = ['The installer shows this menu:', '? Pick a target (Use arrow keys)', '❯ staging', '  production', 'We pick staging from the config file, so nobody has to answer it.']
for l in lines: print(l); time.sleep(0.3)
for i in range(12): print('deploying service', i); time.sleep(0.5)
"
}

# Programs waiting for a person that no rule names. The person gives up (Ctrl-C, :cq, ^X, q) after
# several seconds and never answers what was asked.
scenario_ssh-new-host() {     # Debian's sshd on 127.0.0.1, a host nobody has seen: the host-key question
  local port sshd
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  ssh-keygen -q -t ed25519 -N '' -f "$work/host_key"
  printf 'Port %s\nListenAddress 127.0.0.1\nHostKey %s\nPidFile %s\nUsePAM no\n' "$port" "$work/host_key" "$work/sshd.pid" > "$work/sshd_config"
  [ "$(id -u)" != 0 ] || mkdir -p /run/sshd   # privilege separation needs it when started by root
  /usr/sbin/sshd -D -f "$work/sshd_config" -E "$work/sshd.log" & sshd=$!
  sleep 1
  record ssh-new-host 8 $'\x03' -- ssh -o UserKnownHostsFile="$work/known_hosts" -o GlobalKnownHostsFile=/dev/null -p "$port" 127.0.0.1 true
  kill "$sshd"
}
scenario_sudo-password() {    # sudo -k asks the password of a user who has one (echo off)
  id agent >/dev/null 2>&1 || { useradd -m agent && echo 'agent:drill-only-password' | chpasswd; }
  record sudo-password 8 $'\x03' --cwd / -- runuser -u agent -- sudo -k true
}
git_repo() {                  # a repository with one staged file, for a commit without -m
  local d="$work/$1"
  git init -q "$d" && git -C "$d" config user.email drill@example.invalid && git -C "$d" config user.name drill
  echo hello > "$d/notes.txt" && git -C "$d" add notes.txt
  echo "$d"
}
scenario_git-commit-vim() { local d; d=$(git_repo repo-vim); record git-commit-vim 20 $'\x1b:cq\r' -- env GIT_EDITOR=vim git -C "$d" commit; }
scenario_git-commit-nano() { local d; d=$(git_repo repo-nano); record git-commit-nano 20 $'\x18' -- env GIT_EDITOR=nano git -C "$d" commit; }
scenario_npm-create-vite() {  # the install question (a person says y), then create-vite's text input and its ●/○ select
  RECORD_FEED="sleep 8; printf 'y\r'; sleep 10; printf '\r'; sleep 8; printf '\x03'" \
    record npm-create-vite 0 '' -- "${npx_env[@]}" npm_config_cache="$work/npm-cache-4" npm create vite@latest
}
scenario_vitest-watch() {     # a test run that passes, then vitest parks in watch mode; a person presses q
  mkdir -p "$work/watched"
  echo "test('adds', () => { if (1 + 1 !== 2) throw new Error('sum') })" > "$work/watched/sum.test.js"
  record vitest-watch 20 q --cwd "$work/watched" -- env -u CI "$root/node_modules/.bin/vitest" --globals --root "$work/watched"
}
scenario_status-line-menu() { # a full-screen menu with a blinking "◆ waiting" status line under its hint footer
  record status-line-menu 12 q -- node -e "
const items = ['staging', 'production', 'local']; let on = true;
const draw = () => { process.stdout.write('\x1b[H\x1b[2J  deploy-tool v3\r\n\r\n  Pick a target\r\n\r\n' +
  items.map((x, i) => (i === 0 ? '  ❯ ' : '    ') + x).join('\r\n') + '\r\n\r\n  ↑/↓ move · enter select · q quit\r\n' +
  (on ? '  ◆ waiting' : '    waiting')); on = !on; };
process.stdout.write('\x1b[?1049h\x1b[?25l'); draw(); const t = setInterval(draw, 500);
process.stdin.setRawMode(true); process.stdin.resume();
process.stdin.on('data', (d) => { if (String(d) === 'q') { clearInterval(t); process.stdout.write('\x1b[?25h\x1b[?1049l'); process.exit(0); } });"
}
# Must not fire: live displays that keep changing while they wait for a key.
scenario_top() { record top 12 q -- top; }
scenario_watch-date() { record watch-date 10 $'\x03' -- watch -n 0.5 date; }

all=(confirm-prompt npx-install npx-install-allowed npx-install-not-allowed apt-remove rm-interactive long-build hang quoted-prompt retry-spinner whiptail-yesno dialog-menu fzf-picker less-end node-blinking-menu curses-reverse-menu plan-progress idle-input-box prose-quotes-menu
     ssh-new-host sudo-password git-commit-vim git-commit-nano npm-create-vite vitest-watch status-line-menu top watch-date)
for name in "${@:-${all[@]}}"; do "scenario_$name"; done
