/**
 * A job's PTY, read on a thread of its own (see pty-thread.ts): this thread
 * does nothing but read and copy the bytes into the ring it shares with the
 * main thread, so the child's output never waits for the supervisor's work.
 */
import { parentPort } from 'node:worker_threads';
import { spawn } from 'node-pty';
import { keepLastWords } from './last-words.js';
import type { PtySpawnOptions } from './host.js';
import type { FromPtyWorker, ToPtyWorker } from './pty-thread-protocol.js';
import { SharedRing } from '../util/shared-ring.js';

if (!parentPort) throw new Error('pty-worker runs as a worker thread');
const port = parentPort;

/** While the ring is full, how often the thread looks for room again (the child waits meanwhile). */
const FULL_RETRY_MS = 1;

const post = (m: FromPtyWorker) => port.postMessage(m);

port.once('message', (m: ToPtyWorker) => {
  if (m.op === 'spawn') start(m.options, new SharedRing(m.ring));
});

function start(o: PtySpawnOptions, ring: SharedRing): void {
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

  /** Output the ring had no room for, oldest first: the child is paused until it is in. */
  const waiting: Buffer[] = [];
  let retry: NodeJS.Timeout | undefined;
  /** The ring is full, or the owner holds the output: the PTY is paused while either holds. */
  let full = false;
  let held = false;
  let paused = false;
  let exited = false;
  let exitSaid: FromPtyWorker | undefined;
  const apply = (): void => {
    const want = (full || held) && !exited;
    if (want === paused) return;
    paused = want;
    if (want) pty.pause();
    else pty.resume();
  };

  /** Copies what waits into the ring; the owner is woken if it sleeps; the exit is said once all of it is in. */
  function pump(): void {
    retry = undefined;
    let wrote = false;
    while (waiting.length > 0) {
      const head = waiting[0]!;
      const n = ring.write(head);
      wrote ||= n > 0;
      if (n === head.length) waiting.shift();
      else {
        waiting[0] = head.subarray(n);
        break;
      }
    }
    if (wrote && ring.wakeNeeded()) post({ op: 'wake' });
    full = waiting.length > 0;
    apply();
    if (full) retry ??= setTimeout(pump, FULL_RETRY_MS);
    else if (exitSaid) {
      post(exitSaid);
      exitSaid = undefined;
    }
  }

  pty.onData((d) => {
    waiting.push(d as unknown as Buffer);
    if (!full) pump();
  });

  pty.onExit(({ exitCode, signal }) => {
    exited = true;
    exitSaid = { op: 'exit', exitCode, signal: signal ?? null };
    pump();
    // The thread ends on its own once node-pty has let go: ended from outside, a callback node-pty still had queued aborted the process.
    port.unref();
  });

  port.on('message', (m: ToPtyWorker) => {
    if (m.op === 'hold') {
      held = m.hold;
      return apply();
    }
    if (m.op === 'hangup') {
      // The owner has let go: nobody will read what waits.
      waiting.length = 0;
      clearTimeout(retry);
      if (exited) return;
      pty.kill('SIGHUP');
      (pty as typeof pty & { destroy?: () => void }).destroy?.();
      return;
    }
    if (exited) return;
    if (m.op === 'write') pty.write(m.data);
    else if (m.op === 'resize') pty.resize(m.cols, m.rows);
    else if (m.op === 'kill') pty.kill(m.signal);
  });

  post({ op: 'spawned', pid: pty.pid });
}
