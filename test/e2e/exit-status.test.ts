/**
 * Only success exits 0: a program that exits cleanly when nightshift stops it
 * (it traps the interrupt and SIGTERM and exits 0) still ends with its
 * reason's exit status (src/core/outcome.ts EXIT_STATUS): `run --timeout`
 * exits 124, a cancelled daemon job says 121, a budget 123, and `run`, the
 * board, `show`, summary.json and `--after` agree. Real daemon, real PTYs, a
 * private state dir each. Needs a build first.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EXIT_STATUS } from '../../src/core/outcome.js';
import { cleanup, startCli, tempDir, type JsonLine } from '../helpers/cli.js';
import { sr, testScopes } from '../helpers/daemon.js';

afterEach(cleanup);
const scope = testScopes();

const SOON = 15_000;
const statusOf = (reason: string) => EXIT_STATUS.find((r) => r.reason === reason)!.status;

/** A program that says it is ready, then exits 0 on an interrupt or SIGTERM: the old lie's best case. */
function politeScript(dir: string): string {
  const script = join(dir, 'polite.sh');
  writeFileSync(script, "trap 'echo bye; exit 0' INT TERM\necho ready\nwhile :; do sleep 0.2; done\n");
  return script;
}

const summaryOf = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as { state: string; reason: string; exit: { code: number; signal: string | null } };

describe('only success exits 0: a program that exits 0 when stopped', () => {
  it('run --timeout: exits 124 (as GNU timeout), not the 0 the program returned; its last state line and summary.json say 124', async () => {
    const state = tempDir();
    const work = tempDir('ns-e2e-polite-');
    const p = startCli(['run', '--json', '--quiet', '--state', state, '--timeout', '2s', '--', 'bash', politeScript(work)]);
    const exit = await p.waitExit(SOON);
    expect(exit.code).toBe(124);
    expect(statusOf('timeout')).toBe(124);
    const lines = p.jsonLines();
    const last = lines.filter((o: JsonLine) => o.type === 'state').at(-1)!;
    expect(last).toMatchObject({ state: 'done', reason: 'timeout', exit_code: 124 });
    const dir = lines[0]!.dir as string;
    expect(summaryOf(join(dir, 'summary.json'))).toMatchObject({ state: 'done', reason: 'timeout', exit: { code: 124 } });
  });

  it('cancel and a budget under the daemon: done/cancelled exit 121 and done/budget:wall exit 123 on the board, in show and summary.json; --after them is dependency-failed (117)', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir());
    const work = s.tempDir('ns-e2e-polite-');
    const script = politeScript(work);
    await d.submit('polite', ['bash', script], ['--cwd', work]);
    await d.submit('after-polite', ['echo', 'never'], ['--after', 'polite', '--cwd', work]);
    await d.submit('budget', ['bash', script], ['--cwd', work, '--max-wall', '2s']);
    await d.waitLive('polite', SOON);
    expect((await d.ns('cancel', ['polite'])).code).toBe(0);

    const cancelled = await d.waitState('polite', 'done', 'cancelled', SOON);
    expect(cancelled.exit).toEqual({ code: 121, signal: null });
    expect(cancelled.reason.exit_code).toBe(121);
    expect(summaryOf(cancelled.paths!.summary)).toMatchObject({ state: 'done', reason: 'cancelled', exit: { code: 121 } });
    expect((await d.showCli('polite')).job.exit).toEqual({ code: 121, signal: null });
    expect((await d.ns('show', ['polite'])).stdout).toMatch(/exit 121/);

    const budget = await d.waitState('budget', 'done', 'budget:wall', SOON);
    expect(budget.exit?.code).toBe(123);
    expect(summaryOf(budget.paths!.summary)).toMatchObject({ state: 'done', reason: 'budget:wall', exit: { code: 123 } });

    const dependent = await d.waitState('after-polite', 'done', 'dependency-failed', SOON);
    expect(sr(dependent)).toBe('done/dependency-failed');
    expect(dependent.exit).toEqual({ code: 117, signal: null });
  }, 60_000);
});
