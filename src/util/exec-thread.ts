/**
 * execFile for the daemon's hot paths, started on a worker thread of its
 * own (exec-worker.ts). A --cpu-prof of the daemon in the 100-job scale
 * bench found 114 stalls of its event loop over 50 ms, up to 266 ms, each in
 * ChildProcess.spawn of an agent turn's `git status`: libuv's spawn waits
 * until the child has exec'd, and on two busy cores the child waits for one.
 */
import { Worker } from 'node:worker_threads';
import { workerUrl } from './worker-url.js';

export interface ExecRequest {
  id: number;
  file: string;
  args: string[];
  cwd: string;
  timeoutMs: number;
  maxBuffer: number;
  /** The child's nice value, set as it starts (background work). */
  niceness?: number;
}

export type ExecOutcome = { ok: true; stdout: string } | { ok: false; error: string };
export type ExecReply = { id: number } & ExecOutcome;

export type ExecOptions = Omit<ExecRequest, 'id' | 'file' | 'args'>;

let worker: Worker | undefined;
let nextId = 1;
const waiting = new Map<number, { resolve: (out: string) => void; reject: (e: Error) => void }>();

function thread(): Worker {
  if (worker) return worker;
  const w = new Worker(workerUrl('util/exec-worker.js'));
  w.on('message', (m: ExecReply) => {
    const p = waiting.get(m.id);
    if (!p) return;
    waiting.delete(m.id);
    if (waiting.size === 0) w.unref();
    if (m.ok) p.resolve(m.stdout);
    else p.reject(new Error(m.error));
  });
  // A thread that dies fails what it had; the next call starts another.
  w.on('error', (e) => fail(w, e));
  w.on('exit', () => fail(w, new Error('the exec thread exited')));
  worker = w;
  return w;
}

function fail(w: Worker, e: Error): void {
  if (worker !== w) return;
  worker = undefined;
  for (const p of waiting.values()) p.reject(new Error(`exec thread: ${e.message}`, { cause: e }));
  waiting.clear();
}

/** The child's stdout; rejects when it cannot start, fails, times out or prints more than maxBuffer. */
export function execFileOffThread(file: string, args: string[], o: ExecOptions): Promise<string> {
  const w = thread();
  const id = nextId++;
  return new Promise((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    // Kept alive while a child runs, as execFile's own handles would.
    w.ref();
    w.postMessage({ id, file, args, ...o } satisfies ExecRequest);
  });
}
