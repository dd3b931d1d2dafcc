/**
 * The files a service manager runs the daemon from: a systemd user unit, a
 * launchd agent, a pm2 ecosystem file. Pure text from options. Each keeps
 * the jobs alive across the manager's stop and restart: the jobs live in the
 * PTY host, a detached child of the daemon, and every manager's default is
 * to kill the daemon's children with it (systemd's control group, pm2's tree
 * kill, launchd's process group). The daemon runs with `--on-signal detach`,
 * so the manager's stop signal hands the jobs over instead of waiting for
 * them: the next daemon adopts them.
 */

export const MANAGERS = ['systemd', 'launchd', 'pm2'] as const;
export type Manager = (typeof MANAGERS)[number];

/** The unit's name for systemctl and pm2. */
export const SERVICE_NAME = 'nightshift';
/** The launchd job's label (also the plist's name). */
export const LAUNCHD_LABEL = 'nightshift.daemon';
/**
 * How long a stop may take before the manager kills the daemon. A detach
 * takes well under a second; the margin is for a loaded machine flushing
 * pages, and it is not a wait for jobs.
 */
export const STOP_TIMEOUT_S = 30;
/** The pause before a crashed daemon is started again. */
export const RESTART_DELAY_S = 5;

export interface ServiceSpec {
  /** Absolute path of the node that runs the daemon. */
  readonly node: string;
  /** Absolute path of this package's bin/nightshift.js. */
  readonly bin: string;
  readonly stateDir: string;
  /** PATH for the daemon and the jobs it starts: a manager's own is too bare to find the agents' CLIs. */
  readonly path: string;
  /** The person's home: the daemon's working folder. */
  readonly home: string;
  /** launchd only: where the daemon's stdout and stderr go. */
  readonly logFile: string;
}

/** The daemon's command line after the node binary. */
export function daemonArgv(s: ServiceSpec): string[] {
  return [s.bin, 'daemon', '--state', s.stateDir, '--on-signal', 'detach'];
}

/** `shutdown --detach` for the daemon of this state folder (systemd's ExecStop). */
function detachArgv(s: ServiceSpec): string[] {
  return [s.bin, 'shutdown', '--detach', '--state', s.stateDir];
}

/** One word of an Exec line: quoted when it must be, with systemd's specifiers (%) and variables ($) escaped. */
export function systemdWord(word: string): string {
  const escaped = word.replace(/%/g, '%%').replace(/\$/g, '$$$$');
  if (/^[A-Za-z0-9_@%$+=:,./-]+$/.test(escaped)) return escaped;
  return `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function systemdLine(argv: readonly string[]): string {
  return argv.map(systemdWord).join(' ');
}

export function systemdUnit(s: ServiceSpec): string {
  return [
    '# Written by `nightshift service install --systemd`; run it again after moving node or nightshift.',
    '[Unit]',
    'Description=nightshift daemon: supervises and pages for unattended agent jobs',
    'After=network-online.target',
    'Wants=network-online.target',
    '',
    '[Service]',
    'Type=simple',
    `ExecStart=${systemdLine([s.node, ...daemonArgv(s)])}`,
    // Leading '-': a daemon already gone (crashed, or stopped by `nightshift shutdown`) is not a failed stop.
    `ExecStop=-${systemdLine([s.node, ...detachArgv(s)])}`,
    '# Stop and restart end the daemon only: its PTY host and every job run on, and the next daemon adopts them.',
    'KillMode=process',
    'Restart=on-failure',
    `RestartSec=${RESTART_DELAY_S}s`,
    `TimeoutStopSec=${STOP_TIMEOUT_S}s`,
    `Environment=${systemdWord(`PATH=${s.path}`)}`,
    'WorkingDirectory=~',
    'StandardOutput=journal',
    'StandardError=journal',
    '',
    '[Install]',
    'WantedBy=default.target',
    '',
  ].join('\n');
}

function xml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const str = (v: string) => `<string>${xml(v)}</string>`;

export function launchdPlist(s: ServiceSpec): string {
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">',
    // No double hyphen inside an XML comment: it would end the file's well-formedness.
    '<!-- Written by nightshift service install (launchd); run it again after moving node or nightshift. -->',
    '<plist version="1.0">',
    '<dict>',
    `  <key>Label</key>${str(LAUNCHD_LABEL)}`,
    '  <key>ProgramArguments</key>',
    '  <array>',
    ...[s.node, ...daemonArgv(s)].map((a) => `    ${str(a)}`),
    '  </array>',
    '  <key>RunAtLoad</key><true/>',
    '  <!-- Started again after a crash; `nightshift shutdown` (exit 0) stays stopped. -->',
    '  <key>KeepAlive</key>',
    '  <dict><key>SuccessfulExit</key><false/></dict>',
    '  <!-- launchd kills what is left of a job\'s processes when it exits: the PTY host and the jobs must outlive the daemon. -->',
    '  <key>AbandonProcessGroup</key><true/>',
    `  <key>ExitTimeOut</key><integer>${STOP_TIMEOUT_S}</integer>`,
    `  <key>ThrottleInterval</key><integer>${RESTART_DELAY_S}</integer>`,
    `  <key>WorkingDirectory</key>${str(s.home)}`,
    '  <key>EnvironmentVariables</key>',
    `  <dict><key>PATH</key>${str(s.path)}</dict>`,
    `  <key>StandardOutPath</key>${str(s.logFile)}`,
    `  <key>StandardErrorPath</key>${str(s.logFile)}`,
    '</dict>',
    '</plist>',
    '',
  ].join('\n');
}

/** The ecosystem file's one app, as pm2 reads it. */
export function pm2App(s: ServiceSpec): Record<string, unknown> {
  return {
    name: SERVICE_NAME,
    script: s.bin,
    args: daemonArgv(s).slice(1),
    interpreter: s.node,
    exec_mode: 'fork',
    cwd: s.home,
    // pm2's default kills the whole process tree on stop and restart: the PTY host and every job with it.
    treekill: false,
    kill_timeout: STOP_TIMEOUT_S * 1000,
    autorestart: true,
    // `nightshift shutdown` ends the daemon with 0: a deliberate stop, not a crash to restart.
    stop_exit_codes: [0],
    restart_delay: RESTART_DELAY_S * 1000,
    env: { PATH: s.path },
  };
}

export function pm2Ecosystem(s: ServiceSpec): string {
  return [
    '// Written by `nightshift service install --pm2`; run it again after moving node or nightshift.',
    '// treekill: false keeps the PTY host and the jobs alive across `pm2 restart` and `pm2 stop`;',
    '// the daemon detaches on pm2\'s SIGINT and the next one adopts them.',
    `module.exports = ${JSON.stringify({ apps: [pm2App(s)] }, null, 2)};`,
    '',
  ].join('\n');
}

export function renderUnit(manager: Manager, s: ServiceSpec): string {
  switch (manager) {
    case 'systemd':
      return systemdUnit(s);
    case 'launchd':
      return launchdPlist(s);
    case 'pm2':
      return pm2Ecosystem(s);
  }
}

/** What to run after the file is written. */
export function nextSteps(manager: Manager, file: string): string[] {
  switch (manager) {
    case 'systemd':
      return [
        'systemctl --user daemon-reload',
        `systemctl --user enable --now ${SERVICE_NAME}`,
        'loginctl enable-linger "$USER"    # start at boot and keep running after logout',
        `journalctl --user -u ${SERVICE_NAME} -f    # its log`,
      ];
    case 'launchd':
      return [
        `launchctl bootout gui/$(id -u)/${LAUNCHD_LABEL} 2>/dev/null    # only if an older copy is loaded`,
        `launchctl bootstrap gui/$(id -u) ${shellWord(file)}`,
        `launchctl print gui/$(id -u)/${LAUNCHD_LABEL}    # its state`,
      ];
    case 'pm2':
      return [
        `pm2 start ${shellWord(file)}`,
        'pm2 save',
        'pm2 startup    # then run the command it prints, to start pm2 at boot',
        `pm2 logs ${SERVICE_NAME}    # its log (the daemon's lines are on stderr: pm2's error log)`,
      ];
  }
}

/** A path as one shell word. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
