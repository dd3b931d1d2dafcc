# Sourced by install-claude.sh, install-codex.sh and install-gemini.sh:
#   npm_install_pinned PREFIX LABEL SPEC [npm flags…]
# installs SPEC (name@version) into PREFIX/node_modules, progress on stderr.
#
# A private, minimal package.json keeps npm from walking up into the repo's.
# The user's ~/.npmrc must not change the outcome (yes=false, omit-lockfile-
# registry-resolved, ignore-scripts, omit=optional, a stale global prefix …):
# an empty user config, and everything that matters on the command line. The
# global config (/etc/npmrc, proxies, CA) is kept, as a machine needs it.
npm_install_pinned() {
  local prefix=$1 label=$2 spec=$3
  shift 3
  mkdir -p "$prefix"
  [ -f "$prefix/package.json" ] || printf '{"name":"nightshift-agent-%s","private":true}\n' "$label" > "$prefix/package.json"
  local empty_rc="$prefix/.npmrc-empty"
  : > "$empty_rc"
  npm_config_userconfig="$empty_rc" npm install \
    --prefix "$prefix" \
    --no-audit --no-fund --no-update-notifier \
    --save-exact --no-package-lock --omit=dev \
    "$@" "$spec" >&2
}
