/**
 * A program's terminal queries (device attributes, DECRQSS, the cursor
 * position) never hide its question: real programs ask them in cooked mode
 * before a `[y/N]` question, under a daemon job and under `nightshift run`
 * with a real terminal (this test plays one) answering them. The job is
 * blocked on the question, the person's `y` reaches the program as exactly
 * `y`, and a program that sets raw mode first still gets its cursor
 * position. Needs a build first (npm run build).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node-pty';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import { processAlive, testScopes, waitUntil } from '../helpers/daemon.js';

const scope = testScopes();

const FIX = join(ROOT, 'test', 'fixtures', 'term-queries');
const ASKERS = [
  { name: 'da', command: ['bash', join(FIX, 'da-then-ask.sh')], question: 'Continue? [y/N]' },
  { name: 'decrqss', command: ['python3', join(FIX, 'decrqss-then-ask.py')], question: 'Delete the build folder? [y/N]' },
  { name: 'wrapped-echo', command: ['bash', join(FIX, 'wrapped-echo-ask.sh')], question: 'Continue? [y/N]' },
] as const;
const RAW_CPR = ['python3', join(FIX, 'raw-cpr.py')];
/** `y` as the program's od/hex prints it: the answer and nothing else. */
const JUST_Y = 'answer-hex=79';

type Evidence = { type?: string; prompt?: string | null };

describe('terminal queries under a daemon job', () => {
  for (const a of ASKERS) {
    it(`${a.name} asked before a question: blocked on the question, and \`y\` reaches the program as y`, async (ctx) => {
      const s = scope(ctx);
      const d = await s.daemon(s.stateDir());
      await d.submit(a.name, a.command, ['--cwd', s.tempDir()]);
      const blocked = await d.waitState(a.name, 'blocked', undefined, 20_000);
      expect(blocked.reason).toMatchObject({ code: 'prompt', rule: 'generic-yes-no' });
      const shown = await d.show(a.name);
      const prompt = shown.evidence.find((e): e is Evidence => (e as Evidence).type === 'prompt')?.prompt ?? '';
      expect(prompt).toContain(a.question);
      expect(prompt).not.toContain('^[');
      const r = await d.ns('answer', [a.name, 'y']);
      expect(r.code, r.stderr).toBe(0);
      const done = await d.waitState(a.name, 'done', undefined, 20_000);
      expect(readFileSync(done.paths!.recording, 'utf8')).toContain(JUST_Y);
      expect(readFileSync(done.paths!.log, 'utf8')).toContain('terminal query not answered: the terminal is in canonical mode');
    }, 60_000);
  }

  it('a program in raw mode that asks the cursor position gets its reply', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir());
    await d.submit('cpr', RAW_CPR, ['--cwd', s.tempDir()]);
    const done = await d.waitState('cpr', 'done', undefined, 30_000);
    const cast = readFileSync(done.paths!.recording, 'utf8');
    expect(cast).toMatch(/CPR-OK \[\d+;\d+R/);
  }, 60_000);
});

/** What a real terminal (xterm) answers to each query, in the order the program asked. */
const TERMINAL_ANSWERS: ReadonlyArray<readonly [string, string]> = [
  ['\x1b[c', '\x1b[?64;1;2;6;9;15;18;21;22c'],
  ['\x1b[>c', '\x1b[>41;390;0c'],
  ['\x1b[6n', '\x1b[5;1R'],
  ['\x1bP$qm\x1b\\', '\x1bP1$r0m\x1b\\'],
];

/**
 * `nightshift run` in a terminal this test plays: it answers the program's
 * queries as xterm does (its replies come back on run's stdin, as a real
 * terminal's do), and types what the person would.
 */
function runInTerminal(command: readonly string[], cwd: string) {
  const state = join(cwd, 'state');
  const env = Object.fromEntries(Object.entries(process.env).filter(([k, v]) => v !== undefined && !k.startsWith('NIGHTSHIFT_'))) as Record<string, string>;
  const term = spawn(process.execPath, [BIN, 'run', '--json', '--state', state, '--screen-quiet', '1s', '--settle', '1s', '--', ...command], { cols: 100, rows: 30, cwd, env });
  let out = '';
  let seen = 0;
  let exit: number | undefined;
  term.onData((d) => {
    out += d;
    // Each query answered once, where it first appears from `seen` on.
    for (;;) {
      const next = TERMINAL_ANSWERS.map(([q, a]) => ({ at: out.indexOf(q, seen), q, a })).filter((h) => h.at >= 0).sort((x, y) => x.at - y.at)[0];
      if (!next) break;
      seen = next.at + next.q.length;
      term.write(next.a);
    }
  });
  term.onExit((e) => void (exit = e.exitCode));
  return {
    term,
    output: () => out,
    waitFor: (re: RegExp, ms: number, what: string) => waitUntil(() => re.exec(out) ?? undefined, ms, what, { describe: () => JSON.stringify(out.slice(-600)) }),
    exited: () => waitUntil(() => (exit === undefined ? undefined : { code: exit }), 20_000, 'run to exit'),
    /** Ends `run` and waits for it: it still writes its state folder as it stops, which the clean-up removes. */
    kill: async () => {
      if (exit === undefined && processAlive(term.pid)) term.kill('SIGTERM');
      await waitUntil(() => exit !== undefined || undefined, 20_000, 'run to exit after SIGTERM');
    },
  };
}

describe('terminal queries under `nightshift run`, its own terminal answering them', () => {
  for (const a of ASKERS) {
    it(`${a.name} answered by the terminal before a question: blocked on the question, and \`y\` reaches the program as y`, async (ctx) => {
      const s = scope(ctx);
      const r = runInTerminal(a.command, s.tempDir());
      try {
        const blocked = await r.waitFor(/\{"type":"state"[^\n]*"state":"blocked"[^\n]*\}/, 20_000, 'blocked');
        expect(JSON.parse(blocked[0])).toMatchObject({ reason: 'prompt', rule: 'generic-yes-no' });
        r.term.write('y\r');
        await r.waitFor(/answer-hex=\w*/, 20_000, 'the answer');
        expect(r.output()).toContain(JUST_Y);
        expect((await r.exited()).code).toBe(0);
      } finally {
        await r.kill();
      }
    }, 60_000);
  }

  it('a program in raw mode that asks the cursor position gets the terminal\'s reply', async (ctx) => {
    const s = scope(ctx);
    const r = runInTerminal(RAW_CPR, s.tempDir());
    try {
      await r.waitFor(/CPR-(?:OK|FAIL)[^\r\n]*/, 20_000, 'the CPR line');
      expect(r.output()).toMatch(/CPR-OK \[5;1R/);
    } finally {
      await r.kill();
    }
  }, 60_000);
});
