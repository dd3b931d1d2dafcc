import { describe, expect, it } from 'vitest';
import { daemonArgv, launchdPlist, nextSteps, pm2Ecosystem, systemdUnit, systemdWord, type ServiceSpec } from './units.js';
import { unitFile } from './where.js';

const spec: ServiceSpec = {
  node: '/opt/node 20/bin/node',
  bin: '/home/ann/lib/node_modules/nightshift/bin/nightshift.js',
  stateDir: '/home/ann/.local/state/nightshift',
  path: '/home/ann/.local/bin:/usr/bin:/bin',
  home: '/home/ann',
  logFile: '/home/ann/Library/Logs/nightshift.log',
};

/** The `Key=value` lines of a unit, by key (a key may repeat). */
function keys(unit: string): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const line of unit.split('\n')) {
    const i = line.indexOf('=');
    if (i < 0 || line.startsWith('#')) continue;
    m.set(line.slice(0, i), [...(m.get(line.slice(0, i)) ?? []), line.slice(i + 1)]);
  }
  return m;
}

describe('systemd user unit', () => {
  const k = keys(systemdUnit(spec));

  it('stops the daemon only, detaching its jobs, and restarts it after a crash', () => {
    expect(k.get('KillMode')).toEqual(['process']);
    expect(k.get('ExecStart')).toEqual([`"/opt/node 20/bin/node" ${spec.bin} daemon --state ${spec.stateDir} --on-signal detach`]);
    expect(k.get('ExecStop')).toEqual([`-"/opt/node 20/bin/node" ${spec.bin} shutdown --detach --state ${spec.stateDir}`]);
    expect(k.get('Restart')).toEqual(['on-failure']);
    expect(k.get('RestartSec')).toEqual(['5s']);
    expect(k.get('TimeoutStopSec')).toEqual(['30s']);
    expect(k.get('StandardOutput')).toEqual(['journal']);
    expect(k.get('StandardError')).toEqual(['journal']);
    expect(k.get('Environment')).toEqual([`PATH=${spec.path}`]);
    expect(k.get('WantedBy')).toEqual(['default.target']);
  });

  it('escapes what systemd would expand or split in a word', () => {
    expect(systemdWord('/usr/bin/node')).toBe('/usr/bin/node');
    expect(systemdWord('/a b')).toBe('"/a b"');
    expect(systemdWord('/100%/x')).toBe('/100%%/x');
    expect(systemdWord('/a$HOME')).toBe('/a$$HOME');
    expect(systemdWord('say "hi"\\')).toBe('"say \\"hi\\"\\\\"');
  });
});

describe('launchd agent', () => {
  const plist = launchdPlist({ ...spec, stateDir: '/Users/ann/R&D <state>' });

  it('keeps the process group alive when the daemon exits, restarts it after a crash, starts at login', () => {
    expect(plist).toMatch(/<key>AbandonProcessGroup<\/key><true\/>/);
    expect(plist).toMatch(/<key>RunAtLoad<\/key><true\/>/);
    expect(plist).toMatch(/<key>KeepAlive<\/key>\s*<dict><key>SuccessfulExit<\/key><false\/><\/dict>/);
    expect(plist).toContain(`<key>StandardErrorPath</key><string>${spec.logFile}</string>`);
    expect(plist).toContain(`<key>StandardOutPath</key><string>${spec.logFile}</string>`);
  });

  it('escapes XML in the program arguments', () => {
    expect(plist).toContain('<string>/Users/ann/R&amp;D &lt;state&gt;</string>');
    expect(plist).toContain('<string>--on-signal</string>\n    <string>detach</string>');
  });
});

describe('pm2 ecosystem file', () => {
  /** The file as pm2 loads it: CommonJS. */
  function load(text: string): { apps: Record<string, unknown>[] } {
    const module = { exports: {} as unknown };
    new Function('module', text)(module);
    return module.exports as { apps: Record<string, unknown>[] };
  }

  it('one app that pm2 stops without its process tree, with node as interpreter', () => {
    const { apps } = load(pm2Ecosystem({ ...spec, stateDir: `/tmp/it's "here"` }));
    expect(apps).toHaveLength(1);
    expect(apps[0]).toMatchObject({
      name: 'nightshift',
      script: spec.bin,
      interpreter: spec.node,
      args: ['daemon', '--state', `/tmp/it's "here"`, '--on-signal', 'detach'],
      treekill: false,
      kill_timeout: 30_000,
      autorestart: true,
      stop_exit_codes: [0],
      env: { PATH: spec.path },
    });
  });
});

describe('next steps and where the files go', () => {
  it('names the commands a person runs next', () => {
    expect(nextSteps('systemd', '/x')).toEqual(expect.arrayContaining(['systemctl --user daemon-reload', 'systemctl --user enable --now nightshift', expect.stringMatching(/^loginctl enable-linger "\$USER"/)]));
    expect(nextSteps('pm2', '/a b/n.config.cjs')[0]).toBe(`pm2 start '/a b/n.config.cjs'`);
    expect(nextSteps('launchd', '/p.plist')).toContain('launchctl bootstrap gui/$(id -u) /p.plist');
  });

  it('puts each file where its manager looks', () => {
    const env = { HOME: '/home/ann' };
    expect(unitFile('systemd', env)).toBe('/home/ann/.config/systemd/user/nightshift.service');
    expect(unitFile('systemd', { ...env, XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/systemd/user/nightshift.service');
    expect(unitFile('launchd', env)).toBe('/home/ann/Library/LaunchAgents/nightshift.daemon.plist');
    expect(unitFile('pm2', env)).toBe('/home/ann/.config/nightshift/nightshift.config.cjs');
  });

  it('runs the daemon with --on-signal detach under every manager', () => {
    expect(daemonArgv(spec).slice(-2)).toEqual(['--on-signal', 'detach']);
  });
});
