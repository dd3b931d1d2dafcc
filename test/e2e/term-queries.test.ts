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
import { spawn, type IPty } from 'node-pty';
import { describe, expect, it } from 'vitest';
import { BIN, ROOT } from '../helpers/cli.js';
import { FAST, testScopes } from '../helpers/daemon.js';
import { until } from '../helpers/until.js';

const scope = testScopes();

const FIX = join(ROOT, 'test', 'fixtures', 'term-queries');
const ASKERS = [
  { name: 'da', command: ['bash', join(FIX, 'da-then-ask.sh')], question: 'Continue? [y/N]' },
  { name: 'decrqss', command: ['python3', join(FIX, 'decrqss-then-ask.py')], question: 'Delete the build folder? [y/N]' },
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
