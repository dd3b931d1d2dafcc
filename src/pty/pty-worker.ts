/**
 * A job's PTY, read on a thread of its own (see pty-thread.ts): this thread
 * does nothing but read, gather and hand the bytes over, so the child's
 * output never waits for the supervisor's work on the main thread.
 */
import { parentPort } from 'node:worker_threads';
import { spawn } from 'node-pty';
import { keepLastWords } from './last-words.js';
import type { PtySpawnOptions } from './host.js';
import type { FromPtyWorker, ToPtyWorker } from './pty-thread-protocol.js';

if (!parentPort) throw new Error('pty-worker runs as a worker thread');
const port = parentPort;

/** Gathered output goes over at this size, or once the reads of this turn of the loop are done. */
const BATCH_BYTES = 256 * 1024;
/**
 * Output handed over and not yet taken: past HIGH the child waits (its PTY
 * is paused) until the owner is down to LOW. Bounds the memory a flood holds
 * between the threads when the owner's work falls behind.
 */
const HIGH_BYTES = 8 * 1024 * 1024;
const LOW_BYTES = 2 * 1024 * 1024;

const post = (m: FromPtyWorker, transfer?: ArrayBuffer[]) => port.postMessage(m, transfer);

port.once('message', (m: ToPtyWorker) => {
  if (m.op === 'spawn') start(m.options);
});

function start(o: PtySpawnOptions): void {
  let pty: ReturnType<typeof spawn>;
  try {
    // Raw Buffers: the owner decodes, so a character split between reads is joined there.
    pty = spawn(o.command, o.args, { name: o.name ?? 'xterm-256color', cols: o.cols, rows: o.rows, cwd: o.cwd, env: o.env, encoding: null });
    keepLastWords(pty);
  } catch (e) {
    // Said once, as a message: a thrown error would also reach the owner as an 'error' event nobody listens to any more.
    post({ op: 'failed', message: (e as Error).message });
    return;
  }

  let chunks: Buffer[] = [];
  let gathered = 0;
  let scheduled = false;
  let inFlight = 0;
  /** Too much handed over and not taken (HIGH/LOW), or held by the owner: the PTY is paused while either holds. */
  let behind = false;
  let held = false;
  let paused = false;
  let exited = false;
  const apply = (): void => {
    const want = (behind || held) && !exited;
    if (want === paused) return;
    paused = want;
    if (want) pty.pause();
    else pty.resume();
  };

  function flush(): void {
    scheduled = false;
    if (gathered === 0) return;
    // Memory of its own (never the shared pool), so the transfer moves it rather than copying it again.
    const batch = Buffer.allocUnsafeSlow(gathered);
    let at = 0;
    for (const c of chunks) at += c.copy(batch, at);
    chunks = [];
    inFlight += gathered;
    gathered = 0;
    const data = batch.buffer as ArrayBuffer;
    post({ op: 'o', data }, [data]);
    if (!behind && inFlight >= HIGH_BYTES) {
      behind = true;
      apply();
    }
  }

  pty.onData((d) => {
    const buf = d as unknown as Buffer;
    chunks.push(buf);
    gathered += buf.length;
    if (gathered >= BATCH_BYTES) flush();
    else if (!scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  });

  pty.onExit(({ exitCode, signal }) => {
    exited = true;
    flush();
    post({ op: 'exit', exitCode, signal: signal ?? null });
    // The thread ends on its own once node-pty has let go: ended from outside, a callback node-pty still had queued aborted the process.
    port.unref();
  });

  port.on('message', (m: ToPtyWorker) => {
    if (m.op === 'took') {
      inFlight -= m.bytes;
      if (behind && inFlight <= LOW_BYTES) {
        behind = false;
        apply();
      }
      return;
    }
    if (m.op === 'hold') {
      held = m.hold;
      return apply();
    }
    if (exited) return;
    if (m.op === 'write') pty.write(m.data);
    else if (m.op === 'resize') pty.resize(m.cols, m.rows);
    else if (m.op === 'kill') pty.kill(m.signal);
    else if (m.op === 'hangup') {
      pty.kill('SIGHUP');
      (pty as typeof pty & { destroy?: () => void }).destroy?.();
    }
  });

  post({ op: 'spawned', pid: pty.pid });
}
