/**
 * The launchd agent `service install --launchd` writes, read back by
 * Python's plistlib (a strict plist parser: malformed XML or a wrong value
 * type is an error). Not run here: launchctl loading it on macOS (this is
 * Linux, with no plutil). Needs a build first.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN, cleanup, runCli, tempDir } from '../helpers/cli.js';
import { runTool } from '../helpers/run-tool.js';

afterAll(cleanup);

/** The plist as JSON, through plistlib. */
async function parsePlist(file: string): Promise<Record<string, unknown>> {
  const r = await runTool('python3', ['-c', 'import json, plistlib, sys; print(json.dumps(plistlib.load(open(sys.argv[1], "rb"))))', file]);
  if (r.code !== 0) throw new Error(`plistlib: ${r.out}`);
  return JSON.parse(r.out) as Record<string, unknown>;
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
