/**
 * The shipped rules' needed texts (rules/needed-text.ts) never hide a match:
 * on every screen of the prompt corpus, of the captured agent screens and of
 * every shipped and fixture recording, matching with them gives exactly what
 * matching every rule's regex does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchPrompts, type PromptRule } from '../../src/core/prompt-match.js';
import { needsScanOf, RowNeeds } from '../../src/core/prompt-needs.js';
import { lastNonBlankRow, type ScreenSnapshot } from '../../src/core/screen-snapshot.js';
import { readCast } from '../../src/record/cast-reader.js';
import { loadRules } from '../../src/rules/load.js';
import { Screen } from '../../src/screen/screen.js';
import { CORPUS } from '../fixtures/prompt-corpus.js';
import { RULES_DIR } from '../helpers/rules.js';
import { snapshotOf } from '../helpers/snapshot.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const rules = await loadRules(RULES_DIR);
const lists: Array<[string, readonly PromptRule[]]> = [
  ['prompts', rules.prompts],
  ['questions', rules.questions],
  ['parked', rules.parked],
];

/** Every distinct screen of a recording, as a live job's screen would show it after each output event. */
async function screensOf(file: string): Promise<ScreenSnapshot[]> {
  // Some fixtures are broken on purpose (a torn last line, bad JSON): they are other tests' bad input.
  const cast = await readCast(file).catch(() => undefined);
  if (!cast) return [];
  const screen = new Screen(cast.header.width, cast.header.height);
  const out = new Map<string, ScreenSnapshot>();
  try {
    for (const ev of cast.events) {
      if (ev.code === 'r') {
        const m = /^(\d+)x(\d+)$/.exec(ev.data);
        if (m) screen.resize(Number(m[1]), Number(m[2]));
      }
      if (ev.code !== 'o') continue;
      await screen.write(ev.data);
      const snap = screen.snapshot();
      out.set(`${snap.fingerprint}:${snap.cursor.x}:${snap.cursor.y}`, snap);
    }
  } finally {
    screen.dispose();
  }
  return [...out.values()];
}

const casts = ['scenarios', 'test/fixtures/casts'].flatMap((dir) =>
  readdirSync(path.join(ROOT, dir))
    .filter((f) => f.endsWith('.cast'))
    .map((f) => path.join(ROOT, dir, f)),
);
const captured = readdirSync(path.join(ROOT, 'test/fixtures/screens')).map((f) => readFileSync(path.join(ROOT, 'test/fixtures/screens', f), 'utf8'));
/** Screens in the order a job would show them: each recording's in turn, each still screen alone. */
const sequences: ScreenSnapshot[][] = [
  ...CORPUS.map((c) => [snapshotOf(c.screen, c.cursor ? { cursor: c.cursor } : {})]),
  ...captured.map((text) => [snapshotOf(text)]),
  ...(await Promise.all(casts.map(screensOf))),
];
const screens = sequences.flat();

const withoutNeeds = (list: readonly PromptRule[]) => list.map(({ needs: _, ...rule }) => rule);

describe('prompt rules matched after a scan for their needed texts', () => {
  it('have screens to be checked on, prompts among them', () => {
    expect(screens.length).toBeGreaterThan(500);
    expect(screens.filter((s) => matchPrompts(s, rules.prompts).length > 0).length).toBeGreaterThan(100);
  });

  it('most shipped rules know a text they need', () => {
    const all = lists.flatMap(([, list]) => list);
    expect(all.filter((r) => r.needs).length).toBeGreaterThan(all.length * 0.9);
  });

  it.each(lists)('%s: every screen matches as with every regex run, looked at once and as it stays', (_name, list) => {
    const plain = withoutNeeds(list);
    const differ: string[] = [];
    let filtered = 0;
    for (const sequence of sequences) {
      const rows = new RowNeeds(needsScanOf(list));
      for (const s of sequence) {
        const want = JSON.stringify(summary(matchPrompts(s, plain)));
        // The first look at a screen may leave it to the rules; looks while it stays use the rows' texts.
        for (let look = 0; look < 12; look++) {
          if (look > 0 && rows.possible(s.rows, lastNonBlankRow(s.rows)) !== undefined) filtered++;
          if (JSON.stringify(summary(matchPrompts(s, list, rows))) !== want) differ.push(`look ${look}:\n${s.rows.join('\n')}`);
        }
      }
    }
    expect(differ).toEqual([]);
    expect(filtered).toBeGreaterThan(screens.length * 5);
  });

  it('rules out most rules on most screens', () => {
    const possible = screens.map((s) => {
      const rows = new RowNeeds(needsScanOf(rules.prompts));
      for (let look = 0; look < 11; look++) rows.possible(s.rows, lastNonBlankRow(s.rows));
      return rows.possible(s.rows, lastNonBlankRow(s.rows))!.filter(Boolean).length;
    });
    const median = possible.sort((a, b) => a - b)[possible.length >> 1]!;
    expect(median).toBeLessThan(rules.prompts.length / 3);
  });
});

function summary(ms: ReturnType<typeof matchPrompts>) {
  return ms.map((m) => ({ rule: m.rule.id, text: m.text, top: m.top, bottom: m.bottom }));
}
