import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallContext } from '../../api/command.js';
import type { CommandHost } from '../../api/host.js';
import type { JobRecord } from '../../board/types.js';
import { logs } from './streams.js';

const temps: string[] = [];
afterEach(() => {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** The job's record, as the command table finds it for `logs`. */
const jobOf = (log: string) => ({ id: 'j1', name: 'one', paths: { log }, reason: { code: 'exit' } }) as unknown as JobRecord;

/** Just enough of a host for `logs`: the job live when `finished` is given. */
function fakeHost(finished?: Promise<unknown>): Pick<CommandHost, 'live'> {
  return { live: (id: string) => (finished && id === 'j1' ? { finished } : undefined) } as unknown as Pick<CommandHost, 'live'>;
}

function recorder(): CallContext & { chunks: string[]; close(): void } {
  const closers: (() => void)[] = [];
  const ctx = {
    chunks: [] as string[],
    closed: false,
    stream: (data: string) => void ctx.chunks.push(data),
    onInput: () => undefined,
    onClose: (cb: () => void) => void closers.push(cb),
    close: () => ((ctx.closed = true), closers.forEach((c) => c())),
  };
  return ctx;
}

function logFile(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ns-logs-'));
  temps.push(dir);
  const file = join(dir, 'log.jsonl');
  writeFileSync(file, text);
  return file;
}

const until = async (probe: () => boolean) => {
  for (let i = 0; i < 250 && !probe(); i++) await new Promise((r) => setTimeout(r, 20));
};

describe('logs', () => {
  it('streams a log larger than one read in chunks, keeping characters split between reads whole', async () => {
    const line = `${JSON.stringify({ msg: 'é'.repeat(1000) })}\n`;
    const text = line.repeat(400);
    const ctx = recorder();
    expect(await logs(fakeHost(), jobOf(logFile(text)), false, ctx)).toEqual({ job: 'j1' });
    expect(ctx.chunks.length).toBeGreaterThan(1);
    expect(ctx.chunks.join('')).toBe(text);
  });

  it('follows by offset: what was there, then each appended line once, until the job ends', async () => {
    const file = logFile('{"msg":"a"}\n');
    let end = () => undefined as void;
    const finished = new Promise<void>((r) => (end = r));
    const ctx = recorder();
    const done = logs(fakeHost(finished), jobOf(file), true, ctx);
    await until(() => ctx.chunks.join('').includes('"a"'));
    appendFileSync(file, '{"msg":"b"}\n{"msg":');
    await until(() => ctx.chunks.join('').includes('"b"'));
    appendFileSync(file, '"c"}\n');
    end();
    await done;
    expect(ctx.chunks.join('')).toBe('{"msg":"a"}\n{"msg":"b"}\n{"msg":"c"}\n');
  });

  it('a client that leaves ends the follow', async () => {
    const ctx = recorder();
    const done = logs(fakeHost(new Promise(() => undefined)), jobOf(logFile('x\n')), true, ctx);
    await until(() => ctx.chunks.length > 0);
    ctx.close();
    expect(await done).toEqual({ job: 'j1' });
  });
});
