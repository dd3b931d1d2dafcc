import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../util/errors.js';
import { parseCast, readCast } from './cast-reader.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/casts/', import.meta.url));
const fixture = (name: string) => join(FIXTURES, name);
const tmp = mkdtempSync(join(tmpdir(), 'nightshift-cast-reader-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Asserts both entry points reject the fixture with the same located error. */
async function expectFixtureError(name: string, line: number, message: RegExp): Promise<InputError> {
  const path = fixture(name);
  const err = await readCast(path).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(InputError);
  const e = err as InputError;
  expect(e.file).toBe(path);
  expect(e.line).toBe(line);
  expect(e.message).toMatch(message);
  expect(String(e)).toContain(`${path}:${line}: `);
  expect(() => parseCast(readFileSync(path, 'utf8'), path)).toThrow(e.message);
  return e;
}

function parseError(text: string): InputError {
  try {
    parseCast(text, 'inline.cast');
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    expect(String(e)).toMatch(/^inline\.cast:\d+: /);
    return e as InputError;
  }
  throw new Error('expected parseCast to fail');
}

describe('readCast fixtures', () => {
  it('reads a v2 file with absolute times', async () => {
    const { header, events } = await readCast(fixture('basic-v2.cast'));
    expect(header).toMatchObject({ version: 2, width: 80, height: 24, timestamp: 1700000000, title: 'demo' });
    expect(header.env).toEqual({ SHELL: '/bin/bash', TERM: 'xterm-256color' });
    expect(events.map((e) => e.t)).toEqual([0.1, 0.3, 0.35, 0.6, 0.6, 1.25, 2.0]);
    expect(events[5]).toEqual({ t: 1.25, code: 'r', data: '100x30' });
    expect(events[6]?.data).toBe('\u001b[1mbold\u001b[0m café ☃\r\n');
  });

  it('gives a v3 file (intervals, comments, blank lines) the same absolute events as its v2 twin', async () => {
    const v2 = await readCast(fixture('basic-v2.cast'));
    const v3 = await readCast(fixture('basic-v3.cast'));
    expect(v3.header).toMatchObject({ version: 3, width: 80, height: 24, term: { cols: 80, rows: 24 } });
    expect(v3.events.slice(0, -1)).toEqual(v2.events);
    expect(v3.events.at(-1)).toEqual({ t: 2.5, code: 'x', data: '0' });
  });

  it('keeps unknown event codes and unknown header fields', async () => {
    const { header, events } = await readCast(fixture('unknown-code.cast'));
    expect(header['theme']).toEqual({ fg: '#ffffff', bg: '#000000' });
    expect(header['x_nightshift']).toEqual({ job: 'j1' });
    expect(events.map((e) => e.code)).toEqual(['o', 'z', 'o']);
  });

  it('reports bad JSON with its line and the JSON error', async () => {
    const e = await expectFixtureError('bad-json-line3.cast', 3, /^invalid JSON: .*JSON/);
    expect(e.cause).toBeInstanceOf(SyntaxError);
  });

  it('reports a time that goes back', async () => {
    await expectFixtureError('decreasing-time.cast', 4, /^time 3\.2 is before previous 4\.0$/);
  });

  it('reports a missing header', async () => {
    await expectFixtureError('missing-header.cast', 1, /header.*got an array/);
  });

  it('reports an empty file', async () => {
    await expectFixtureError('empty.cast', 1, /empty file/);
  });

  it('reports a negative v3 interval', async () => {
    await expectFixtureError('v3-negative-interval.cast', 4, /interval -0\.25 is negative/);
  });

  it('names the path of a file it cannot read', async () => {
    const path = join(tmp, 'nope.cast');
    await expect(readCast(path)).rejects.toThrow(InputError);
    await expect(readCast(path)).rejects.toThrow(path);
    await expect(readCast(tmp)).rejects.toThrow(tmp);
  });
});

describe('parseCast errors', () => {
  const v2 = '{"version": 2, "width": 80, "height": 24}\n';

  it('rejects a header that is not an object', () => {
    expect(parseError('"hello"\n').message).toMatch(/header.*got a string/);
    expect(parseError('{"version": 2,\n').message).toMatch(/header is not valid JSON/);
    expect(parseError('# comment\n').message).toMatch(/got a comment/);
  });

  it('rejects unsupported or missing versions', () => {
    expect(parseError('{"version": 1, "width": 80, "height": 24}').message).toMatch(/^unsupported asciicast version 1 \(expected 2 or 3\)$/);
    expect(parseError('{"width": 80, "height": 24}').message).toMatch(/no "version"/);
  });

  it('rejects sizes that are not positive integers', () => {
    expect(parseError('{"version": 2, "width": 0, "height": 24}').message).toMatch(/width must be a positive integer, got a number 0/);
    expect(parseError('{"version": 2, "width": 80, "height": 2.5}').message).toMatch(/height/);
    expect(parseError('{"version": 2, "width": 80}').message).toMatch(/height.*got nothing/);
    expect(parseError('{"version": 3, "term": {"cols": 80, "rows": -1}}').message).toMatch(/term\.rows/);
    expect(parseError('{"version": 3, "width": 80, "height": 24}').message).toMatch(/"term"/);
  });

  it('rejects events of the wrong shape, on their line', () => {
    const cases = ['[0.1, "o"]', '{"t": 1}', '["0.1", "o", "x"]', '[0.1, 5, "x"]', '[0.1, "o", 5]', '[0.1, "x", 0]', '[1e999, "o", ""]'];
    for (const bad of cases) {
      const e = parseError(`${v2}\n[0.05, "o", "fine"]\n${bad}\n`);
      expect(e.line, bad).toBe(4);
      expect(e.message, bad).toMatch(/expected an event/);
    }
  });

  it('accepts a v3 exit status as number or string; rejects a comment in v2', () => {
    const v3 = '{"version": 3, "term": {"cols": 80, "rows": 24}}\n';
    expect(parseCast(`${v3}[1, "x", 3]\n`, 'a').events).toEqual([{ t: 1, code: 'x', data: '3' }]);
    expect(parseCast(`${v3}[1, "x", "3"]\n`, 'a').events).toEqual([{ t: 1, code: 'x', data: '3' }]);
    expect(parseError(`${v2}# not in v2\n`).line).toBe(2);
  });

  it('tolerates CRLF, a BOM, a missing final newline, and drops mistyped known header fields', () => {
    const text = '\ufeff{"version": 2, "width": 80, "height": 24, "title": 7, "env": {"A": "1", "B": null}}\r\n[1, "o", "a"]';
    const { header, events } = parseCast(text, 'crlf.cast');
    expect(header.title).toBeUndefined();
    expect(header.env).toEqual({ A: '1' });
    expect(events).toEqual([{ t: 1, code: 'o', data: 'a' }]);
  });
});

describe('readCast streaming', () => {
  it('matches parseCast on a multi-megabyte file with multi-byte chars across chunk edges', async () => {
    const lines = ['{"version": 2, "width": 80, "height": 24}'];
    for (let i = 0; i < 40_000; i++) {
      lines.push(JSON.stringify([i / 1000, 'o', `line ${i} ☃ é 𝄞 ${'x'.repeat(i % 97)}\r\n`]));
    }
    const text = `${lines.join('\n')}\n`;
    const path = join(tmp, 'big.cast');
    writeFileSync(path, text);
    const streamed = await readCast(path);
    expect(streamed.events).toHaveLength(40_000);
    expect(streamed).toEqual(parseCast(text, path));
    expect(streamed.events[39_999]?.t).toBe(39.999);
  });
});
