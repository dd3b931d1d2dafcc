/** Handlers that stream to the client until the job ends or the client leaves: attach, logs. */
import { open, type FileHandle } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { LineTail } from '../../events/line-tail.js';
import { InputError } from '../../util/errors.js';
import type { CallContext } from '../../api/command.js';
import type { CommandHost } from '../../api/host.js';
import type { JobHandle } from '../../api/job-handle.js';
import type { JobRecord } from '../../board/types.js';

/** Live view: the current screen, then everything the job prints; input goes to the job. */
export async function attach(d: CommandHost, rec: JobRecord, job: JobHandle, ctx: CallContext, who = 'unknown') {
  ctx.stream(`\x1b[2J\x1b[H${job.view.screen.text().split('\n').join('\r\n')}`);
  const stop = job.view.watchOutput((data) => ctx.stream(data));
  ctx.onInput((data) => job.acts.input(data, who));
  await new Promise<void>((resolve) => {
    ctx.onClose(resolve);
    void job.finished.then(() => resolve());
  });
  stop();
  return { job: rec.id, state: d.board.require(rec.id).state };
}

/**
 * The job's log as it is; with follow, then what is appended until the job
 * ends or the client leaves. Read in chunks and followed by offset
 * (LineTail), never read whole or synchronously: a long log must not stall
 * the daemon for every other job.
 */
export async function logs(d: Pick<CommandHost, 'live'>, rec: JobRecord, follow: boolean, ctx: CallContext) {
  if (!rec.paths) throw new InputError(`job ${rec.name} has not started; no logs yet`);
  const job = follow ? d.live(rec.id) : undefined;
  if (job) {
    await followFile(rec.paths.log, job.finished, ctx);
    return { job: rec.id };
  }
  await streamFile(rec.paths.log, ctx);
  // The job's own log is empty when its PTY never came up; the board knows why.
  if (rec.reason.code === 'start-failed') throw new InputError(`job ${rec.name} failed to start: ${rec.reason.detail ?? 'no detail recorded'}`);
  return { job: rec.id };
}

const CHUNK = 256 * 1024;

async function streamFile(file: string, ctx: CallContext): Promise<void> {
  let fh: FileHandle;
  try {
    fh = await open(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  }
  // The decoder keeps a character split between two chunks whole.
  const text = new StringDecoder('utf8');
  try {
    const buf = Buffer.allocUnsafe(CHUNK);
    const send = (part: string) => part && ctx.stream(part);
    for (;;) {
      const { bytesRead } = await fh.read(buf, 0, CHUNK, null);
      if (bytesRead === 0) break;
      send(text.write(buf.subarray(0, bytesRead)));
    }
    send(text.end());
  } finally {
    await fh.close();
  }
}

async function followFile(file: string, finished: Promise<unknown>, ctx: CallContext): Promise<void> {
  // One message per read pass, not per line: a long backlog is a few large writes to the socket.
  let pending: string[] = [];
  const flush = () => {
    if (pending.length && !ctx.closed) ctx.stream(pending.join(''));
    pending = [];
  };
  const tail = await LineTail.open(file, {
    line: (text) => {
      if (pending.push(text, '\n') === 2) setImmediate(flush);
    },
    restart: () => undefined,
    problem: () => undefined,
  });
  await new Promise<void>((resolve) => {
    ctx.onClose(resolve);
    void finished.then(() => resolve());
  });
  await tail.close({ flushPartial: true });
  flush();
}
