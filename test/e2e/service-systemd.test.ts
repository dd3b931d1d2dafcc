/**
 * The systemd user unit `service install --systemd` writes, checked by
 * systemd's own parser (`systemd-analyze verify --user`): it needs no
 * running systemd, only a runtime folder for the user manager it
 * simulates. Not run here: starting the unit under a real user manager
 * (a container has no systemd as PID 1). Needs a build first.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, runCli, tempDir } from '../helpers/cli.js';
import { runTool, type ToolRun } from '../helpers/run-tool.js';

const ANALYZE = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p));

afterAll(cleanup);

/** `systemd-analyze verify --user FILE`: its exit code and what it said (a misspelt key is only a warning). */
function verify(file: string, home: string): Promise<ToolRun> {
  const runtime = join(home, 'run');
  mkdirSync(runtime, { recursive: true, mode: 0o700 });
  return runTool(ANALYZE!, ['verify', '--user', file], { env: { PATH: process.env.PATH, HOME: home, XDG_RUNTIME_DIR: runtime } });
}

describe.skipIf(ANALYZE === undefined)('service install --systemd (systemd-analyze verify; skipped when systemd-analyze is absent: install Debian\'s systemd package)', () => {
  it('writes a user unit systemd accepts without a warning, pointing at this node and this nightshift', async () => {
    const home = tempDir('ns-svc-home-');
    const state = join(home, 'state');
    const r = await runCli(['service', 'install', '--systemd', '--state', state], { env: { HOME: home, XDG_CONFIG_HOME: undefined } });
    expect(r.code, r.stderr).toBe(0);
    const unit = join(home, '.config', 'systemd', 'user', 'nightshift.service');
    expect(r.stdout).toContain(`wrote ${unit}\n`);
    expect(r.stdout).toContain('systemctl --user enable --now nightshift');
    expect(r.stdout).toContain('loginctl enable-linger');
    const text = readFileSync(unit, 'utf8');
    expect(text).toContain(`ExecStart=${process.execPath} ${BIN} daemon --state ${state} --on-signal detach\n`);
    expect(text).toContain('KillMode=process\n');

    const v = await verify(unit, home);
    expect(v, 'systemd-analyze verify of the unit as written').toEqual({ code: 0, out: '' });
  });

  it('the check sees a real problem: a misspelt key, a bad value, a program that is not there', async () => {
    const home = tempDir('ns-svc-home-');
    const r = await runCli(['service', 'install', '--systemd', '--print', '--state', join(home, 'state')], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    const dir = join(home, 'units');
    mkdirSync(dir);
    const cases: Array<[string, string, RegExp]> = [
      ['KillMode=process', 'KilMode=process', /Unknown key 'KilMode'/],
      ['KillMode=process', 'KillMode=processes', /Failed to parse kill mode/],
      [`ExecStart=${process.execPath}`, `ExecStart=${join(home, 'no-node')}`, /no-node is not executable/],
    ];
    for (const [from, to, said] of cases) {
      expect(r.stdout).toContain(from);
      const file = join(dir, 'nightshift.service');
      writeFileSync(file, r.stdout.replace(from, to));
      const v = await verify(file, home);
      expect(v.out, `${to}: ${v.out}`).toMatch(said);
    }
  });
});
