/**
 * Command lines that used to parse into something else than what the
 * person meant: `--max-wall 6 hours` (a 6-second budget running `hours`),
 * a --state that is a file (a stack trace), a --tool-gap the watchdog never
 * waits for (silence), a budget error naming the spec's field. Real CLI
 * processes; a real daemon where the board must stay unchanged.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { call } from '../../src/daemon/client.js';
import { jobDirs, ROOT, runCli } from '../helpers/cli.js';
import { expectInputError, rawSpec, testScopes } from '../helpers/daemon.js';

const scope = testScopes();

const UNIT = (flag: string, value: string) => `nightshift: ${flag} "${value}": give a unit, e.g. 6h, 90m, 30s`;

describe('durations need a unit on the command line', () => {
  it('submit --max-wall 6 hours -- true: refused naming the flag and value, nothing queued', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    const r = await d.ns('submit', ['--max-wall', '6', 'hours', '--', 'true']);
    expectInputError(r, /--max-wall/);
    expect(r.stderrLines[0]).toBe(UNIT('--max-wall', '6'));
    expect(await d.jobs()).toEqual([]);
  }, 60_000);

  it('every CLI duration flag refuses a bare number the same way', async (ctx) => {
    const state = scope(ctx).stateDir();
    const cases: [string, string[]][] = [
      ['--timeout', ['run', '--timeout', '5', '--', 'true']],
      ['--screen-quiet', ['run', '--screen-quiet', '5', '--', 'true']],
      ['--tool-gap', ['drill', '--tool-gap', '5', 'scenarios/hang.cast']],
      ['--settle', ['run', '--settle', '1.5', '--', 'true']],
      ['--tick', ['daemon', '--tick', '1']],
      ['--max-idle', ['submit', '--max-idle', '30', '--', 'true']],
      ['--on-unanswered', ['submit', '--on-unanswered', '7200', '--', 'true']],
      ['--grant-wall', ['resume', '--grant-wall', '60', 'job']],
      ['--idle', ['ptyhost', '--idle', '10']],
    ];
    for (const [flag, [verb, ...rest]] of cases) {
      const r = await runCli([verb!, '--state', state, ...rest], { ms: 20_000 });
      expectInputError(r, /give a unit/);
      expect(r.stderrLines[0], verb).toBe(UNIT(flag, rest[rest.indexOf(flag) + 1]!));
    }
    expect(jobDirs(state)).toEqual([]);
  }, 120_000);

  it('a budget of zero names the flag, not the job spec\'s field; so does the daemon for a spec sent over its socket', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    for (const [flag, value] of [['--max-wall', '0'], ['--max-idle', '0s'], ['--on-unanswered', '0']] as const) {
      const r = await d.ns('submit', [flag, value, '--', 'true']);
      expectInputError(r, new RegExp(`^nightshift: ${flag} must be at least 1ms`));
      expect(r.stderrLines[0]).not.toMatch(/_ms|budget/);
    }
    const spec = { ...rawSpec('raw', ['true'], h.tempDir()), budgets: { wall_ms: 0, tokens: null, no_progress_ms: null, steps: null } };
    await expect(call(d.state, 'submit', { spec })).rejects.toThrow(/^--max-wall must be at least 1ms \(got 0\)$/);
    expect(await d.jobs()).toEqual([]);
  }, 60_000);
});

describe('a word before -- is not the command', () => {
  it('submit --max-wall 6h hours -- true: refused, the word and the flag before it named, nothing queued', async (ctx) => {
    const h = scope(ctx);
    const d = await h.daemon(h.stateDir());
    const r = await d.ns('submit', ['--max-wall', '6h', 'hours', '--', 'true']);
    expectInputError(r, /unexpected/);
    expect(r.stderrLines[0]).toBe('nightshift: unexpected "hours" after --max-wall 6h; the command goes after --');
    const flagOnly = await d.ns('submit', ['--json', 'two', 'words', '--', 'true']);
    expect(flagOnly.stderrLines).toEqual(['nightshift: unexpected "two words" after --json; the command goes after --']);
    expect(await d.jobs()).toEqual([]);
  }, 60_000);

  it('run: the same, and no job folder; a command with no -- at all still runs', async (ctx) => {
    const state = scope(ctx).stateDir();
    const r = await runCli(['run', '--quiet', '--state', state, '--timeout', '30s', 'hours', '--', 'true']);
    expectInputError(r, /^nightshift: unexpected "hours" after --timeout 30s; the command goes after --$/);
    expect(jobDirs(state)).toEqual([]);
    const plain = await runCli(['run', '--quiet', '--state', state, 'true']);
    expect(plain.code, plain.stderr).toBe(0);
    expect(jobDirs(state)).toHaveLength(1);
  }, 60_000);
});

describe('--state that cannot be a directory', () => {
  it('daemon, run, ptyhost, board and show: one line naming it, exit 2, no stack', async (ctx) => {
    const dir = scope(ctx).tempDir();
    const file = join(dir, 'afile');
    writeFileSync(file, 'not a folder\n');
    const cases: [string[], RegExp][] = [
      [['daemon', '--state', file], /state directory \S+afile is a file, not a directory/],
      [['daemon', '--replace', '--state', file], /state directory \S+afile is a file, not a directory/],
      [['daemon', '--state', join(file, 'sub')], /state directory \S+afile\/sub is inside a file, not a directory/],
      [['run', '--state', file, '--', 'true'], /state directory \S+afile is a file, not a directory/],
      [['ptyhost', '--state', file], /state directory \S+afile is a file, not a directory/],
      // Verbs that only look for a daemon: not "no daemon is running … start one with".
      [['board', '--state', file], /state directory \S+afile is a file, not a directory/],
      [['show', '--state', join(file, 'sub'), 'x'], /state directory \S+afile\/sub is inside a file, not a directory/],
    ];
    for (const [args, pattern] of cases) {
      const r = await runCli(args, { ms: 20_000 });
      expectInputError(r, pattern);
      expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at /);
    }
  }, 90_000);
});

describe('--tool-gap at or below --screen-quiet warns what will happen', () => {
  const WARNING = /^nightshift(?: daemon)?: warning: --tool-gap 1m is not longer than --screen-quiet 3m: a job with nothing moving is called hung at the first quiet inspection, 3m after its screen last changed, so --tool-gap does not make it sooner/;

  it('run (human and --json), drill and daemon say so on stderr; a longer gap says nothing', async (ctx) => {
    const h = scope(ctx);
    const state = h.stateDir();
    const run = await runCli(['run', '--quiet', '--state', state, '--tool-gap', '1m', '--', 'true']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderrLines.filter((l) => WARNING.test(l))).toHaveLength(1);
    const json = await runCli(['run', '--json', '--quiet', '--state', state, '--tool-gap', '1m', '--', 'true']);
    const warnings = json.stderrLines.map((l) => JSON.parse(l) as { type: string; message?: string }).filter((o) => o.type === 'warning');
    expect(warnings.map((w) => `nightshift: warning: ${w.message}`)).toEqual([expect.stringMatching(WARNING)]);
    const drill = await runCli(['drill', '--tool-gap', '1m', join(ROOT, 'scenarios', 'confirm-prompt.cast')]);
    expect(drill.stderrLines.filter((l) => WARNING.test(l)), drill.stderr).toHaveLength(1);
    const equal = await runCli(['drill', '--tool-gap', '2m', '--screen-quiet', '2m', join(ROOT, 'scenarios', 'confirm-prompt.cast')]);
    expect(equal.stderrLines.some((l) => l.includes('--tool-gap 2m is not longer than --screen-quiet 2m')), equal.stderr).toBe(true);
    const d = await h.daemon(h.stateDir(), ['--screen-quiet', '3m', '--tool-gap', '1m']);
    expect(d.proc.stderrLines.filter((l) => WARNING.test(l))).toHaveLength(1);
    const fine = await runCli(['run', '--quiet', '--state', state, '--tool-gap', '4m', '--', 'true']);
    expect(fine.code).toBe(0);
    expect(fine.stderr).not.toMatch(/warning/);
  }, 90_000);
});
