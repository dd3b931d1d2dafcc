/**
 * A recording written under a flood is the flood: a real PTY host records a
 * job that prints several MB of mixed output (base64, multibyte and wide and
 * combining characters, control sequences, bytes that are not UTF-8) as fast
 * as the PTY takes it, and the file's output events, joined, are exactly the
 * bytes sent, decoded; replayed in a headless terminal of the same size they
 * leave the same screen as the text sent in one piece. The same for
 * `nightshift run`, which writes its recording itself, from the bytes its PTY
 * thread hands over. Needs a build first (the host and the CLI run dist/).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import xterm from '@xterm/headless';
import { afterEach, describe, expect, it } from 'vitest';
import { PtyHostClient } from '../../src/ptyhost/client.js';
import { jobDirs, runCli } from '../helpers/cli.js';
import { rng } from '../helpers/rng.js';
import { tempDirs } from '../helpers/temp-dirs.js';
import { until } from '../helpers/until.js';

const COLS = 100;
const ROWS = 30;
const tempDir = tempDirs('ns-flood-rec-');
const hosts: PtyHostClient[] = [];

afterEach(() => {
  for (const c of hosts.splice(0)) {
    c.close();
    try {
      process.kill(c.hostPid, 'SIGTERM');
    } catch {
      // Gone already.
    }
  }
});

/** About `bytes` of what terminals print, seeded: plain lines, escapes, UTF-8 of every length, and broken sequences. */
function floodBytes(bytes: number): Buffer {
  const next = rng(37);
  const pieces = ['\x1b[1;31m', '\x1b[0m', '\x1b[2K', '\x1b[5A', '\x1b[H', '\r\n', '\t', '"\\', 'é', '€', '😀', '中文', 'e\u0301', '\x7f', '\u2028'];
  const broken = [Buffer.from([0xff]), Buffer.from([0xc0, 0xaf]), Buffer.from([0xe2, 0x82]), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from([0xf0, 0x9f])];
  const out: Buffer[] = [];
  let size = 0;
  while (size < bytes) {
    const r = next();
    const b =
      r < 0.5
        ? Buffer.from(`${Buffer.from(Array.from({ length: 57 }, () => Math.floor(next() * 256))).toString('base64')}\r\n`)
        : r < 0.9
          ? Buffer.from(pieces[Math.floor(next() * pieces.length)]!)
          : broken[Math.floor(next() * broken.length)]!;
    out.push(b);
    size += b.length;
  }
  return Buffer.concat(out);
}

function screen(chunks: Array<string | Uint8Array>): Promise<string[]> {
  const term = new xterm.Terminal({ cols: COLS, rows: ROWS, allowProposedApi: true, scrollback: 0, logLevel: 'off' });
  for (const c of chunks) term.write(c);
  return new Promise((resolve) =>
    term.write('', () => {
      const b = term.buffer.active;
      resolve(Array.from({ length: ROWS }, (_, y) => b.getLine(b.baseY + y)?.translateToString(true) ?? ''));
      term.dispose();
    }),
  );
}

/**
 * 6 MB of flood in a file of a fresh folder, and the command that prints it: raw, so the terminal
 * passes the bytes as they are (no \n to \r\n); the sleep keeps the PTY open until all is read.
 */
function floodOnDisk(): { dir: string; flood: Buffer; command: string[] } {
  const dir = tempDir();
  const flood = floodBytes(6 * 1024 * 1024);
  const file = join(dir, 'flood.bin');
  writeFileSync(file, flood);
  return { dir, flood, command: ['sh', '-c', `stty raw -echo; cat '${file}'; sleep 1`] };
}

describe('a recording under a flood', () => {
  it('holds every byte sent, in order, and replays to the same screen', async () => {
    const { dir, flood, command } = floodOnDisk();
    const cast = join(dir, 'flood.cast');
    const client = await PtyHostClient.connect(join(dir, 'state'), { timeoutMs: 10_000 });
    hosts.push(client);
    const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
    await client.spawn({ id: 'flood', command: command[0]!, args: command.slice(1), cwd: dir, env, cols: COLS, rows: ROWS, recording: cast });
    await until(() => readFileSync(cast, 'utf8').includes('"exit:0"'), 120_000, 'the exit marker in the recording');

    await holdsTheFlood(cast, flood);
  }, 180_000);

  it('written by nightshift run itself, holds every byte sent, in order, and replays to the same screen', async () => {
    const { dir, flood, command } = floodOnDisk();
    const state = join(dir, 'state');
    const r = await runCli(['run', '--quiet', '--state', state, '--cols', String(COLS), '--rows', String(ROWS), '--', ...command], { ms: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    const [job] = jobDirs(state);
    await holdsTheFlood(join(job!, 'recording.cast'), flood);
  }, 180_000);
});

/** The file's output events, joined, are the flood decoded, its times never go back, and replayed they leave the flood's screen. */
async function holdsTheFlood(cast: string, flood: Buffer): Promise<void> {
  const [, ...lines] = readFileSync(cast, 'utf8').split('\n').filter((l) => l !== '');
  const events = lines.map((l) => JSON.parse(l) as [number, string, string]);
  const output = events.filter((e) => e[1] === 'o').map((e) => e[2]);
  const times = events.map((e) => e[0]);
  expect(times).toEqual([...times].sort((a, b) => a - b));
  expect(events.at(-1)?.[2]).toBe('exit:0');
  const sent = new TextDecoder('utf-8', { ignoreBOM: true }).decode(flood);
  const got = output.join('');
  expect(got.length).toBe(sent.length);
  expect(got === sent, 'the output events joined are the bytes sent, decoded').toBe(true);
  // Fed the text whole (xterm's own byte decoder drops a byte that is not UTF-8 where asciicast has U+FFFD): event bounds that cut an escape sequence change nothing.
  expect(await screen(output)).toEqual(await screen([sent]));
}
