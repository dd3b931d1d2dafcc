/**
 * A cast file read and parsed on a thread of its own while its events are
 * replayed: a drill of a big recording spent a quarter of its time in
 * JSON.parse and UTF-8 decoding before the first event reached the screen.
 */
import { Worker } from 'node:worker_threads';
import { InputError } from '../util/errors.js';
import { workerUrl } from '../util/worker-url.js';
import type { CastEvent, CastHeader } from './asciicast.js';

/** The reader thread's messages, in the file's order; `end` carries the last events. */
export type CastMessage =
  | { kind: 'events' | 'end'; header: CastHeader; events: CastEvent[] }
  | { kind: 'error'; input: boolean; message: string; file: string | undefined; line: number | undefined };

type Batch = Exclude<CastMessage, { kind: 'error' }>;

/** A cast whose events come in batches as they are read: consume them once. */
export interface CastSource {
  header: CastHeader;
  batches: AsyncIterable<readonly CastEvent[]>;
  /** Ends the reader thread (done with batches or not); again is harmless. */
  close(): void;
}

/** Opens `path` on a reader thread; resolves with the header, or rejects with the file's first problem. */
export async function streamCast(path: string): Promise<CastSource> {
  const worker = new Worker(workerUrl('record/cast-worker.js'), { workerData: { path } });
  const inbox = new Inbox(worker);
  let first: Batch;
  try {
    first = await inbox.next();
  } catch (e) {
    void worker.terminate();
    throw e;
  }
  return { header: first.header, batches: drain(worker, inbox, first), close: () => void worker.terminate() };
}

async function* drain(worker: Worker, inbox: Inbox, first: Batch): AsyncGenerator<readonly CastEvent[]> {
  try {
    for (let m = first; ; m = await inbox.next()) {
      if (m.kind === 'end') {
        if (m.events.length) yield m.events;
        return;
      }
      worker.postMessage(0);
      yield m.events;
    }
  } finally {
    void worker.terminate();
  }
}

/** The worker's messages, waited for one at a time; an error message or a dead thread rejects. */
class Inbox {
  private readonly queue: CastMessage[] = [];
  private waiter: { resolve: (m: Batch) => void; reject: (e: Error) => void } | undefined;
  private failure: Error | undefined;

  constructor(worker: Worker) {
    worker.on('message', (m: CastMessage) => this.push(m));
    worker.on('error', (e) => this.fail(e));
    worker.on('exit', () => this.fail(new Error('the cast reader thread exited')));
  }

  next(): Promise<Batch> {
    const m = this.queue.shift();
    if (m) return m.kind === 'error' ? Promise.reject(toError(m)) : Promise.resolve(m);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiter = { resolve, reject }));
  }

  private push(m: CastMessage): void {
    const w = this.waiter;
    this.waiter = undefined;
    if (!w) this.queue.push(m);
    else if (m.kind === 'error') w.reject(toError(m));
    else w.resolve(m);
  }

  private fail(e: Error): void {
    this.failure ??= e;
    const w = this.waiter;
    this.waiter = undefined;
    w?.reject(this.failure);
  }
}

/** The reader's problem as it would have been thrown here: a file's problem stays an InputError. */
function toError(m: Extract<CastMessage, { kind: 'error' }>): Error {
  if (!m.input) return new Error(`the cast reader failed: ${m.message}`);
  return new InputError(m.message, { ...(m.file !== undefined ? { file: m.file } : {}), ...(m.line !== undefined ? { line: m.line } : {}) });
}
