/**
 * `daemon --on-signal detach`: what a service manager's stop signal means
 * under the units of `nightshift service install`. SIGTERM ends the daemon
 * at once and leaves the job running in the PTY host; the next daemon adopts
 * it. Needs a build first (npx tsc -p tsconfig.json).
 */
import { describe, expect, it } from 'vitest';
import { readJsonl, runCli } from '../helpers/cli.js';
import { expectInputError, jobPid, processAlive, testScopes } from '../helpers/daemon.js';

const scope = testScopes();
const SOON = 20_000;

describe('daemon --on-signal', () => {
  it('detach: SIGTERM ends the daemon without waiting for the running job, which the next daemon adopts', async (ctx) => {
    const s = scope(ctx);
    const state = s.stateDir();
    const d1 = await s.daemon(state, ['--on-signal', 'detach', '--screen-quiet', '10m']);
    await d1.submit('long', ['bash', '-c', 'echo working; sleep 600'], ['--cwd', s.tempDir()]);
    const shown = await d1.waitLive('long', SOON);
    const pid = jobPid(shown.job);

    d1.signal('SIGTERM');
    expect(await d1.proc.waitExit(SOON)).toEqual({ code: 0, signal: null });
    expect(d1.proc.stderrLines.filter((l) => l !== '').slice(-2)).toEqual(['nightshift daemon: SIGTERM: detaching (jobs run on in the PTY host for the next daemon)', 'nightshift daemon: stopped']);
    expect(processAlive(pid), 'the job outlived the daemon').toBe(true);

    const d2 = await s.daemon(state, ['--screen-quiet', '10m']);
    const again = await d2.waitLive('long', SOON);
    expect(again.job.state).toBe('running');
    const log = readJsonl(again.job.paths!.log).filter((l) => l.msg === 'job started' || l.msg === 'job adopted from the PTY host');
    expect(log.map((l) => `${String(l.msg)} ${String(l.pid)}`)).toEqual([`job started ${pid}`, `job adopted from the PTY host ${pid}`]);
  });

  it('refuses a mode it does not know, naming the flag', async (ctx) => {
    const s = scope(ctx);
    const r = await runCli(['daemon', '--state', s.stateDir(), '--on-signal', 'leave'], { env: { NIGHTSHIFT_STATE: undefined } });
    expectInputError(r, /option '--on-signal <mode>' argument 'leave' is invalid\. Allowed choices are drain, detach/);
  });
});
