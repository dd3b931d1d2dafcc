import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { afterAll, describe, expect, it } from 'vitest';
import { parseMarker } from '../core/tool-events.js';
import { InputError } from '../util/errors.js';
import { parseCast, readCast } from './cast-reader.js';
import { CastWriter } from './cast-writer.js';

const tmp = mkdtempSync(join(tmpdir(), 'nightshift-cast-writer-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
let n = 0;
const freshPath = () => join(tmp, `rec-${++n}.cast`);
const START = 1_700_000_000_000;

describe('CastWriter', () => {
  it('round-trips every event kind through the reader', async () => {
    const path = freshPath();
    const w = CastWriter.open(
      path,
      { width: 80, height: 24, command: 'claude', title: 'job 1', env: { TERM: 'xterm-256color' }, timestamp: 1_700_000_000 },
      START,
    );
    w.output(START + 100, 'hello\r\n');
    w.input(START + 250.5, 'y\r');
    w.marker(START + 300, 'tool:Bash');
    w.resize(START + 1000, 132, 43);
    w.output(START + 1500, 'café ☃ 𝄞 \u001b[31mred\u001b[0m');
    w.exit(START + 2000, 3);
    w.close();

    const { header, events } = await readCast(path);
    expect(header).toEqual({
      version: 2,
      width: 80,
      height: 24,
      timestamp: 1_700_000_000,
      command: 'claude',
      title: 'job 1',
      env: { TERM: 'xterm-256color' },
    });
    expect(events).toEqual([
      { t: 0.1, code: 'o', data: 'hello\r\n' },
      { t: 0.2505, code: 'i', data: 'y\r' },
      { t: 0.3, code: 'm', data: 'tool:Bash' },
      { t: 1, code: 'r', data: '132x43' },
      { t: 1.5, code: 'o', data: 'café ☃ 𝄞 \u001b[31mred\u001b[0m' },
      { t: 2, code: 'm', data: 'exit:3' },
    ]);
    expect(parseMarker(events[5]?.data ?? '')).toEqual({ kind: 'exit', code: 3 });
    expect(readFileSync(path, 'utf8').split('\n')[1]).toBe('[0.100000, "o", "hello\\r\\n"]');
  });

  it('replaces what a file at its path held before, a longer older recording included', async () => {
    const path = freshPath();
    writeFileSync(path, `${'{"version": 2, "width": 9, "height": 9}\n'}${'[0.5, "o", "old output"]\n'.repeat(1000)}`);
    const w = CastWriter.open(path, { width: 80, height: 24 }, START);
    w.output(START + 100, 'new');
    w.close();
    const { header, events } = await readCast(path);
    expect(header.width).toBe(80);
    expect(events).toEqual([{ t: 0.1, code: 'o', data: 'new' }]);
    expect(readFileSync(path, 'utf8')).not.toContain('old output');
  });

  it('round-trips lone surrogates and every control character', async () => {
    const path = freshPath();
    const w = CastWriter.open(path, { width: 10, height: 5 }, 0);
    const controls = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('') + '\u007f\u2028\u2029';
    const nasty = ['\ud800', 'a\udfffb', '\udc00\ud800', controls, '"\\/', ''];
    nasty.forEach((s, i) => w.output(i, s));
    w.marker(10, '\ud83d');
    w.close();
    // The file must be valid UTF-8 even though the strings were not valid UTF-16.
    expect(readFileSync(path).toString('utf8')).not.toContain('\ufffd');
    const { events } = await readCast(path);
    expect(events.map((e) => e.data)).toEqual([...nasty, '\ud83d']);
  });

  it('leaves a complete, parseable cast on disk at every moment while open, each event in it within 10 ms', async () => {
    const path = freshPath();
    const w = CastWriter.open(path, { width: 80, height: 24 }, START);
    expect(parseCast(readFileSync(path, 'utf8'), path).events).toEqual([]);
    for (let i = 1; i <= 20; i++) {
      w.output(START + i * 10, `chunk ${i}\n`);
      // Gathered for one write: whatever is on disk is whole lines, never more than was written.
      expect(parseCast(readFileSync(path, 'utf8'), path).events.length).toBeLessThanOrEqual(i);
      await new Promise((r) => setTimeout(r, 25));
      const { events } = parseCast(readFileSync(path, 'utf8'), path);
      expect(events).toHaveLength(i);
      expect(events.at(-1)).toEqual({ t: i / 100, code: 'o', data: `chunk ${i}\n` });
    }
    w.close();
  });

  it('a flood goes to disk in batches of at most 256 KB, so a kill loses at most one batch', () => {
    const path = freshPath();
    const w = CastWriter.open(path, { width: 80, height: 24 }, START);
    const chunk = 'x'.repeat(4096);
    for (let i = 0; i < 200; i++) w.output(START + i, chunk);
    // 200 events of 4 KB: all but the last (unfilled) batch are on disk already, without waiting.
    const onDisk = parseCast(readFileSync(path, 'utf8'), path).events.length;
    expect(onDisk).toBeGreaterThanOrEqual(200 - 64);
    expect(onDisk).toBeLessThan(200);
    w.close();
    expect(parseCast(readFileSync(path, 'utf8'), path).events).toHaveLength(200);
  });

  it('never lets times decrease, even when the caller clock goes back', async () => {
    const path = freshPath();
    const w = CastWriter.open(path, { width: 80, height: 24 }, START);
    w.output(START - 500, 'before start');
    w.output(START + 2000, 'a');
    w.output(START + 1000, 'clock stepped back');
    w.output(START + 1999.9999, 'still behind');
    w.output(Number.NaN, 'no clock at all');
    w.output(START + 3000, 'b');
    w.close();
    const { events } = await readCast(path);
    expect(events.map((e) => e.t)).toEqual([0, 2, 2, 2, 2, 3]);
  });

  it('ignores writes after close and tolerates a second close', () => {
    const path = freshPath();
    const w = CastWriter.open(path, { width: 80, height: 24 }, 0);
    w.output(1, 'kept');
    w.close();
    const before = readFileSync(path, 'utf8');
    w.output(2, 'dropped');
    w.marker(3, 'dropped');
    w.exit(4, 0);
    w.close();
    expect(w.closed).toBe(true);
    expect(readFileSync(path, 'utf8')).toBe(before);
  });

  it('rejects bad sizes and an unwritable path', () => {
    expect(() => CastWriter.open(freshPath(), { width: 0, height: 24 }, 0)).toThrow(RangeError);
    const bad = join(tmp, 'missing-dir', 'x.cast');
    expect(() => CastWriter.open(bad, { width: 80, height: 24 }, 0)).toThrow(InputError);
    expect(() => CastWriter.open(bad, { width: 80, height: 24 }, 0)).toThrow(bad);
  });

  it('past its cap keeps a marker and the tail: a flood of 2 MB into a 200 KB cap stays under the cap and still parses', async () => {
    const path = freshPath();
    const w = CastWriter.open(path, { width: 80, height: 24 }, START, { maxBytes: 200_000, tailBytes: 20_000 });
    for (let i = 0; i < 20_000; i++) w.output(START + i, `line ${i} ${'x'.repeat(80)}\r\n`);
    w.exit(START + 20_001, 0);
    w.close();
    const size = readFileSync(path).length;
    expect(size).toBeLessThanOrEqual(200_000 + 500);
    const cast = await readCast(path);
    const markers = cast.events.filter((e) => e.code === 'm').map((e) => e.data);
    expect(markers[0]).toMatch(/^recording-cap:195\.3KB: output dropped from here/);
    expect(markers.at(-2)).toBe('recording-tail');
    expect(markers.at(-1)).toBe('exit:0');
    const out = cast.events.filter((e) => e.code === 'o').map((e) => e.data);
    expect(out[0]).toBe(`line 0 ${'x'.repeat(80)}\r\n`);
    expect(out.at(-1)).toBe(`line 19999 ${'x'.repeat(80)}\r\n`);
    const times = cast.events.map((e) => e.t);
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it('a last output chunk larger than the whole tail is cut to its end, not dropped', async () => {
    const path = freshPath();
    const w = CastWriter.open(path, { width: 80, height: 24 }, START, { maxBytes: 100_000, tailBytes: 10_000 });
    w.output(START + 1, 'y'.repeat(150_000));
    w.output(START + 2, `${'z'.repeat(60_000)}THE-END`);
    w.exit(START + 3, 0);
    w.close();
    const cast = await readCast(path);
    const out = cast.events.filter((e) => e.code === 'o').map((e) => e.data);
    expect(out.at(-1)!.endsWith('THE-END')).toBe(true);
    expect(cast.events.at(-1)!.data).toBe('exit:0');
    expect(readFileSync(path).length).toBeLessThanOrEqual(100_000 + 500);
  });

  it('suspend() ends the recording with a marker; later events are dropped', async () => {
    const path = freshPath();
    const w = CastWriter.open(path, { width: 80, height: 24 }, START);
    w.output(START + 1, 'before');
    w.suspend(START + 2, 'disk full');
    w.output(START + 3, 'after');
    w.close();
    const cast = await readCast(path);
    expect(cast.events.map((e) => e.data)).toEqual(['before', 'recording-stopped:disk full']);
    expect(w.recording).toBe(false);
  });

  describe('output as bytes (outputBytes)', () => {
    /** The same chunks through a decoder and output(): what the byte path must match. */
    function viaText(chunks: Buffer[]): string[] {
      const d = new StringDecoder('utf8');
      const out = chunks.map((c) => d.write(c));
      const rest = d.end();
      return [...out, rest].filter((t) => t !== '');
    }

    it('writes the lines output() writes, a character split between chunks whole in the later event', async () => {
      const text = 'café ☃ 𝄞 \u001b[31mred\u001b[0m "quoted" \\ tab\t\u0000\u007f end\r\n';
      const bytes = Buffer.from(text);
      // Cut inside the 4-byte 𝄞 and inside ☃.
      const cuts = [3, 6, 9, 12, 14, bytes.length];
      const chunks = cuts.map((end, i) => bytes.subarray(i === 0 ? 0 : cuts[i - 1], end));
      const a = freshPath();
      const b = freshPath();
      const wa = CastWriter.open(a, { width: 80, height: 24 }, START);
      const wb = CastWriter.open(b, { width: 80, height: 24 }, START);
      const texts = viaText(chunks);
      chunks.forEach((c, i) => wa.outputBytes(START + i, c));
      wa.exit(START + 10, 0);
      wa.close();
      let t = 0;
      const d = new StringDecoder('utf8');
      for (const c of chunks) {
        const s = d.write(c);
        if (s !== '') wb.output(START + t, s);
        t++;
      }
      wb.exit(START + 10, 0);
      wb.close();
      expect(readFileSync(a, 'utf8')).toBe(readFileSync(b, 'utf8'));
      const out = (await readCast(a)).events.filter((e) => e.code === 'o').map((e) => e.data);
      expect(out).toEqual(texts);
      expect(out.join('')).toBe(text);
    });

    it('a character cut off by the exit is U+FFFD, before the exit marker; invalid bytes are U+FFFD as a decoder gives them', async () => {
      const path = freshPath();
      const w = CastWriter.open(path, { width: 80, height: 24 }, START);
      w.outputBytes(START + 1, Buffer.from([0x61, 0xff, 0x62, 0xc3, 0x28]));
      w.outputBytes(START + 2, Buffer.from([0x7a, 0xe2, 0x98]));
      w.exit(START + 3, 1);
      w.close();
      const events = (await readCast(path)).events;
      expect(events.map((e) => [e.code, e.data])).toEqual([
        ['o', new TextDecoder().decode(Buffer.from([0x61, 0xff, 0x62, 0xc3, 0x28]))],
        ['o', 'z'],
        ['o', '\ufffd'],
        ['m', 'exit:1'],
      ]);
    });

    it('past its cap keeps the marker and the tail, as the text path does', async () => {
      const path = freshPath();
      const w = CastWriter.open(path, { width: 80, height: 24 }, START, { maxBytes: 200_000, tailBytes: 20_000 });
      for (let i = 0; i < 20_000; i++) w.outputBytes(START + i, Buffer.from(`line ${i} ${'é'.repeat(40)}\r\n`));
      w.exit(START + 20_001, 0);
      w.close();
      expect(readFileSync(path).length).toBeLessThanOrEqual(200_000 + 500);
      const cast = await readCast(path);
      const markers = cast.events.filter((e) => e.code === 'm').map((e) => e.data);
      expect(markers[0]).toMatch(/^recording-cap:195\.3KB: output dropped from here/);
      expect(markers.slice(-2)).toEqual(['recording-tail', 'exit:0']);
      const out = cast.events.filter((e) => e.code === 'o').map((e) => e.data);
      expect(out[0]).toBe(`line 0 ${'é'.repeat(40)}\r\n`);
      expect(out.at(-1)).toBe(`line 19999 ${'é'.repeat(40)}\r\n`);
    });
  });
});
