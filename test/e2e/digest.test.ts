/**
 * The morning after: `nightshift digest` and the board's attention order
 * over a mixed night, with a real daemon, real programs, a private state
 * directory and a real webhook receiver; ACTIVE across `daemon --replace`.
 * Needs a build first (npx tsc -p tsconfig.json).
 */
import { describe, expect, it } from 'vitest';
import type { Digest } from '../../src/api/digest.js';
import { runCli } from '../helpers/cli.js';
import { testScopes } from '../helpers/daemon.js';

const scope = testScopes();
const SOON = 20_000;

const config = (url: string, digestAt: string) => `notify:\n  repage_after: 1h\n  digest_at: "${digestAt}"\n  notifiers:\n    - { kind: webhook, url: "${url}" }\n`;

describe('nightshift digest over a mixed night', () => {
  it('needs-you oldest first with the question and next commands, what ended badly with its last lines, cost; board in attention order with BLOCKED; ACTIVE kept across --replace', async (ctx) => {
    const s = scope(ctx);
    const hooks = await s.server();
    const state = s.stateDir(config(hooks.url('/hook'), '07:30'));
    const cwd = s.tempDir();
    const d1 = await s.daemon(state, ['--max-running', '8']);
    await d1.submit('fine', ['bash', '-c', 'echo all good; exit 0'], ['--cwd', cwd]);
    await d1.submit('hang', ['bash', '-c', 'echo working; sleep 600'], ['--cwd', cwd]);
    await d1.waitState('hang', 'blocked', 'hung', SOON);
    await d1.submit('ask', ['bash', '-c', 'echo deploying; read -p "Deploy to staging? [y/N] " a; exit 0'], ['--cwd', cwd]);
    await d1.submit('tests', ['bash', '-c', 'echo running tests; echo "FAIL src/a.test.ts"; echo "Error: expected 2, got 3"; exit 3'], ['--cwd', cwd]);
    await d1.waitState('ask', 'blocked', 'prompt', SOON);
    await d1.waitState('tests', 'done', undefined, SOON);
    await d1.waitState('fine', 'done', 'exit', SOON);

    const r = await d1.ns('digest', ['--json']);
    expect(r.code, r.stderr).toBe(0);
    const d = JSON.parse(r.stdout) as Digest;
    expect(d.needs_you.map((n) => n.name)).toEqual(['hang', 'ask']);
    // The commands the pages offered: both ways on the question; look, nudge or stop the hang.
    const cli = (verb: string, ...args: string[]) => ['nightshift', verb, '--state', state, ...args].join(' ');
    expect(d.needs_you[1]).toMatchObject({ question: 'Deploy to staging? [y/N]', next: [cli('answer', 'ask', 'y'), cli('answer', 'ask', 'n'), cli('show', 'ask')] });
    expect(d.needs_you[0]!.next).toEqual([cli('attach', 'hang'), cli('send', 'hang', "'<what to do>'"), cli('cancel', 'hang'), cli('show', 'hang')]);
    expect(d.needs_you[0]!.waited_ms).toBeGreaterThan(d.needs_you[1]!.waited_ms);
    expect(d.ended_badly.map((e) => [e.name, e.exit_code])).toEqual([['tests', 3]]);
    expect(d.ended_badly[0]!.last_lines.slice(-2)).toEqual(['FAIL src/a.test.ts', 'Error: expected 2, got 3']);
    expect(d.cost.map((c) => c.name).sort()).toEqual(['ask', 'fine', 'hang', 'tests']);

    const text = await d1.ns('digest', ['--since', '1h']);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.trimEnd().split('\n');
    expect(lines.every((l) => l.length <= 80)).toBe(true);
    expect(lines.filter((l) => /^[A-Z]/.test(l))).toEqual(['NEEDS YOU (2)', 'ENDED BADLY (1)', 'ANSWERED FOR YOU (0)', 'COST (4)', 'PROBES (0)']);
    expect(text.stdout).toContain('asks: Deploy to staging? [y/N]');
    expect(text.stdout).toContain('| Error: expected 2, got 3');
    const bad = await d1.ns('digest', ['--since', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^nightshift: --since "soon" is not a duration/);

    const board = await d1.boardCli();
    expect(board.map((j) => j.name)).toEqual(['hang', 'ask', 'tests', 'fine']);
    const table = (await d1.ns('board')).stdout.split('\n');
    expect(table[0]).toMatch(/^NAME\s+STATE\s+REASON\s+BLOCKED\s+AGE\s+ACTIVE\s+ID$/);
    expect(table[1]).toMatch(/^hang\s+blocked\s+hung\s+\d+s\s/);

    // ACTIVE across adoption: the hung job's last activity is the board's, not the new daemon's start.
    const before = board.find((j) => j.name === 'hang')!.last_activity;
    expect(before).not.toBeNull();
    const d2 = await s.daemon(state, ['--max-running', '8', '--replace']);
    await d1.proc.waitExit(15_000);
    await d2.waitLive('hang', SOON);
    // A job that runs 2 s under the new daemon: the budget looks (every second) would have moved it by then.
    await d2.submit('later', ['bash', '-c', 'sleep 2; exit 0'], ['--cwd', cwd]);
    await d2.waitState('later', 'done', 'exit', SOON);
    const after = (await d2.jobs()).find((j) => j.name === 'hang')!;
    expect(after.state).toBe('blocked');
    expect(after.last_activity).toBe(before);
  }, 120_000);

  it('reads notify.digest_at; a bad value stops the daemon with file:line and the value, exit 2', async (ctx) => {
    const s = scope(ctx);
    const state = s.stateDir(config('http://127.0.0.1:9/hook', '25:00'));
    const r = await runCli(['daemon', '--state', state], { ms: 20_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/config\.yaml:3: notify\.digest_at: "25:00" is not a local time of day/);
  }, 30_000);
});
