import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { execFile } from 'node:child_process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/helpers/temp-dirs.js';
import { InputError } from '../util/errors.js';
import type { CastEvent } from './asciicast.js';
import { readCast } from './cast-reader.js';
import { streamCast } from './cast-stream.js';

const SCENARIOS = fileURLToPath(new URL('../../scenarios/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../../test/fixtures/casts/', import.meta.url));
const run = promisify(execFile);
const tmp = tempDirs('nightshift-cast-stream-');

async function streamed(path: string): Promise<{ header: unknown; events: CastEvent[]; batches: number }> {
  const source = await streamCast(path);
  const events: CastEvent[] = [];
  let batches = 0;
  for await (const batch of source.batches) {
    events.push(...batch);
    batches++;
  }
  return { header: source.header, events, batches };
}

/** A v2 file of `mb` megabytes of output lines, in 1 KB events, with a marker every 100 events. */
function bigCast(mb: number, extra = ''): string {
  const lines = ['{"version": 2, "width": 80, "height": 24}'];
  const text = JSON.stringify(`${'x'.repeat(1000)}\u001b[1mé\u001b[0m\r\n`);
  for (let i = 0; i < mb * 1024; i++) {
    lines.push(`[${(i / 100).toFixed(6)}, "o", ${text}]`);
    if (i % 100 === 0) lines.push(`[${(i / 100).toFixed(6)}, "m", "proc:busy"]`);
  }
  return `${lines.join('\n')}\n${extra}`;
}

describe('streamCast', () => {
  it('gives the header and events readCast gives, for every shipped scenario and fixture', async () => {
    const files = [
      ...readdirSync(SCENARIOS).filter((f) => f.endsWith('.cast')).map((f) => join(SCENARIOS, f)),
      ...readdirSync(FIXTURES).filter((f) => f.endsWith('.cast') && !f.startsWith('bad')).map((f) => join(FIXTURES, f)),
    ];
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const whole = await readCast(file).catch((e: unknown) => e);
      if (whole instanceof InputError) continue;
      const s = await streamed(file);
      expect({ header: s.header, events: s.events }, file).toEqual(whole);
    }
  });

  it('hands a big file on in batches, the reader held to a few ahead, all in order', async () => {
    const file = join(tmp(), 'big.cast');
    writeFileSync(file, bigCast(12));
    const s = await streamed(file);
    expect(s.batches).toBeGreaterThan(8);
    expect(s.events).toEqual((await readCast(file)).events);
  });

  it('a bad line far into the file: the batches before it, then its file:line error', async () => {
    const file = join(tmp(), 'bad-late.cast');
    const text = bigCast(3, '[99, "o", "unterminated\n');
    writeFileSync(file, text);
    const badLine = text.split('\n').length - 1;
    const source = await streamCast(file);
    let events = 0;
    const err = await (async () => {
      for await (const batch of source.batches) events += batch.length;
    })().catch((e: unknown) => e);
    expect(events).toBeGreaterThan(0);
    expect(err).toBeInstanceOf(InputError);
    const read = (await readCast(file).catch((e: unknown) => e)) as InputError;
    expect(String(err)).toBe(String(read));
    expect((err as InputError).line).toBe(badLine);
  });

  it('a file that cannot be read or has no header rejects at once, as readCast does', async () => {
    const empty = join(tmp(), 'empty.cast');
    writeFileSync(empty, '\n\n');
    for (const file of [join(tmp(), 'missing.cast'), empty]) {
      const err = await streamCast(file).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(InputError);
      expect(String(err)).toBe(String(await readCast(file).catch((e: unknown) => e)));
    }
  });

  it('closed before its end, or left part-way, the reader thread ends: the process exits by itself', async () => {
    const file = join(tmp(), 'big.cast');
    writeFileSync(file, bigCast(8));
    const mod = pathToFileURL(fileURLToPath(new URL('../../dist/src/record/cast-stream.js', import.meta.url))).href;
    const script = `import { streamCast } from ${JSON.stringify(mod)};
      const unread = await streamCast(process.argv[2]);
      unread.close();
      const partly = await streamCast(process.argv[2]);
      for await (const batch of partly.batches) if (batch.length) break;
      console.log(partly.header.width);`;
    const main = join(tmp(), 'main.mjs');
    writeFileSync(main, script);
    const { stdout } = await run(process.execPath, [main, file]);
    expect(stdout.trim()).toBe('80');
  });
});
