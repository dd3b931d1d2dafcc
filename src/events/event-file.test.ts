import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { appendFile, rename, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { ToolEvent } from '../core/tool-events.js';
import { EventFileSource, parseEventLine } from './event-file.js';

const tmp = mkdtempSync(join(tmpdir(), 'nightshift-events-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(tmp, `events-${++n}.jsonl`);

const open: EventFileSource[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

/** Opens a source with the safety poll off, so only chokidar can deliver. */
async function watchFile(path: string) {
  const source = await EventFileSource.open(path, { safetyPollMs: 0 });
  open.push(source);
  const events: ToolEvent[] = [];
  const problems: string[] = [];
  source.onEvent((e) => events.push(e));
  source.onProblem((m) => problems.push(m));
  return { source, events, problems };
}

async function waitFor(what: string, done: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(10);
  }
}

const line = (o: object) => `${JSON.stringify(o)}\n`;
const start = (name: string, id?: string) => line({ type: 'tool_start', name, id });
const end = (name: string, ok = true) => line({ type: 'tool_end', name, ok, ts: '2025-01-01T00:00:00Z' });

describe('parseEventLine', () => {
  it('maps the file format to tool events', () => {
    expect(parseEventLine('{"type":"tool_start","name":"Bash","id":"c1","ts":1735689600000}')).toEqual({
      phase: 'start',
      name: 'Bash',
      id: 'c1',
    });
    expect(parseEventLine('{"type":"tool_end","name":"Edit","ok":false,"extra":[1]}')).toEqual({
      phase: 'finish',
      name: 'Edit',
      ok: false,
    });
  });

  it('explains what is wrong with a bad line', () => {
    const cases: Array<[string, RegExp]> = [
      ['{"type":"tool_start"', /^invalid JSON/],
      ['[1,2]', /expected a JSON object, got an array/],
      ['{"type":"tool_begin","name":"x"}', /type "tool_begin" \(expected "tool_start" or "tool_end"\)/],
      ['{"name":"x"}', /no "type"/],
      ['{"type":"tool_end"}', /"name" must be a non-empty string, got nothing/],
      ['{"type":"tool_end","name":""}', /"name" must be a non-empty string/],
      ['{"type":"tool_end","name":"x","id":7}', /"id" must be a string, got 7/],
      ['{"type":"tool_end","name":"x","ok":"yes"}', /"ok" must be true or false/],
      ['{"type":"tool_end","name":"x","ts":"yesterday"}', /"ts" must be an ISO date string or epoch milliseconds/],
    ];
    for (const [text, want] of cases) {
      const r = parseEventLine(text);
      expect('error' in r && r.error, text).toMatch(want);
    }
  });
});

describe('EventFileSource', () => {
  it('creates a missing file and reads lines already in an existing one', async () => {
    const missing = freshPath();
    await watchFile(missing);
    expect(existsSync(missing)).toBe(true);

    const existing = freshPath();
    await writeFile(existing, start('Read') + end('Read'));
    const { events } = await watchFile(existing);
    await waitFor('2 events', () => events.length === 2);
    expect(events.map((e) => e.phase)).toEqual(['start', 'finish']);
  });

  it('delivers appended lines in order, joins a split line, and reports a bad line with its number', async () => {
    const path = freshPath();
    const { events, problems } = await watchFile(path);
    await appendFile(path, start('Bash', 'c1'));
    await waitFor('first event', () => events.length === 1);

    const split = end('Bash');
    await appendFile(path, split.slice(0, 17));
    await sleep(50); // the scenario itself: one write arriving as two, 50 ms apart
    expect(events).toHaveLength(1);
    await appendFile(path, split.slice(17));
    await appendFile(path, '{"type": "tool_start", "name": \n');
    await appendFile(path, start('Edit'));
    await waitFor('3 events', () => events.length === 3);

    expect(events).toEqual([
      { phase: 'start', name: 'Bash', id: 'c1' },
      { phase: 'finish', name: 'Bash', ok: true },
      { phase: 'start', name: 'Edit' },
    ]);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(new RegExp(`^${escape(path)}:3: invalid JSON`));
  });

  it('keeps order through many lines in one write and a burst of small writes', async () => {
    const path = freshPath();
    const { events, problems } = await watchFile(path);
    const names = Array.from({ length: 500 }, (_, i) => `t${i}`);
    await appendFile(path, names.slice(0, 300).map((x) => start(x)).join(''));
    for (const x of names.slice(300)) await appendFile(path, start(x));
    await waitFor('500 events', () => events.length === 500);
    expect(events.map((e) => e.name)).toEqual(names);
    expect(problems).toEqual([]);
  });

  it('starts over after truncation and after the file is replaced', async () => {
    const path = freshPath();
    const { events, problems } = await watchFile(path);
    await appendFile(path, start('A') + start('B') + start('C'));
    await waitFor('3 events', () => events.length === 3);

    await truncate(path, 0);
    await appendFile(path, 'not json\n');
    await waitFor('a problem', () => problems.length === 1);
    expect(problems[0]).toMatch(new RegExp(`^${escape(path)}:1: `));
    await appendFile(path, start('D'));
    await waitFor('4 events', () => events.length === 4);

    const other = `${path}.new`;
    await writeFile(other, start('E') + start('F') + start('G') + start('H') + start('I'));
    await rename(other, path);
    await waitFor('9 events', () => events.length === 9);
    expect(events.map((e) => e.name).join('')).toBe('ABCDEFGHI');
  });

  it('holds events read at open until a listener is attached, and reports listener failures', async () => {
    const path = freshPath();
    await writeFile(path, start('Early') + 'oops\n');
    const source = await EventFileSource.open(path, { safetyPollMs: 0 });
    open.push(source);
    const problems: string[] = [];
    const seen: string[] = [];
    source.onProblem((m) => problems.push(m));
    source.onEvent((e) => {
      seen.push(e.name);
      throw new Error('listener bug');
    });
    expect(seen).toEqual(['Early']);
    expect(problems[0]).toMatch(/:2: invalid JSON/);
    expect(problems[1]).toMatch(/listener failed on start Early: listener bug/);
  });

  it('reads what is already written when closed, then delivers nothing more', async () => {
    const path = freshPath();
    const { source, events } = await watchFile(path);
    await appendFile(path, start('Last') + '{"type":"tool_end","name":"Last"}');
    await source.close();
    expect(events.map((e) => `${e.phase}:${e.name}`)).toEqual(['start:Last', 'finish:Last']);

    // A second watcher on the same file is the witness that the append was observable.
    const witness = await watchFile(path);
    await waitFor('witness to read the old line', () => witness.events.length === 1);
    await appendFile(path, `\n${start('After')}`);
    await waitFor('witness to see the new line', () => witness.events.length === 3);
    expect(events).toHaveLength(2);
    await source.close();
  });

  it('delivers through the safety poll alone', async () => {
    const path = freshPath();
    const source = await EventFileSource.open(path, { safetyPollMs: 20 });
    open.push(source);
    const events: ToolEvent[] = [];
    source.onEvent((e) => events.push(e));
    await appendFile(path, start('Polled'));
    await waitFor('polled event', () => events.length === 1);
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
