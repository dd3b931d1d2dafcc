/**
 * The launchd agent `service install --launchd` writes, read back by
 * Python's plistlib (a strict plist parser: malformed XML or a wrong value
 * type is an error). Not run here: launchctl loading it on macOS (this is
 * Linux, with no plutil). Needs a build first.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, runCli, tempDir } from '../helpers/cli.js';

afterAll(cleanup);

/** The plist as JSON, through plistlib. */
function parsePlist(file: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const p = spawn('python3', ['-c', 'import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], "rb"))))', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Record<string, unknown>) : reject(new Error(`plistlib: ${err}`))));
  });
}

describe('service install --launchd', () => {
  it('writes a well-formed agent to ~/Library/LaunchAgents that abandons its process group and restarts after a crash', async () => {
    const home = tempDir('ns-svc-home-');
    const state = join(home, 'R&D <state>');
    const r = await runCli(['service', 'install', '--launchd', '--state', state], { env: { HOME: home } });
    expect(r.code, r.stderr).toBe(0);
    const file = join(home, 'Library', 'LaunchAgents', 'nightshift.daemon.plist');
    expect(r.stdout).toContain(`wrote ${file}\n`);
    expect(r.stdout).toContain(`launchctl bootstrap gui/$(id -u) ${file}\n`);
    const log = join(home, 'Library', 'Logs', 'nightshift.log');
    expect(await parsePlist(file)).toEqual({
      Label: 'nightshift.daemon',
      ProgramArguments: [process.execPath, BIN, 'daemon', '--state', state, '--on-signal', 'detach'],
      RunAtLoad: true,
      KeepAlive: { SuccessfulExit: false },
      AbandonProcessGroup: true,
      ExitTimeOut: 30,
      ThrottleInterval: 5,
      WorkingDirectory: home,
      EnvironmentVariables: { PATH: process.env.PATH },
      StandardOutPath: log,
      StandardErrorPath: log,
    });
  });
});
