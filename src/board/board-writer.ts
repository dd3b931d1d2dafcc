/**
 * The board's disk writer, on a worker thread of its own (write-behind.ts
 * starts it). It replays, in order, the writes the daemon already made to
 * its in-memory board, each group of them in one transaction on
 * board.sqlite, so the daemon's thread never waits for the disk.
 *
 * Messages that queued while a transaction was on disk are taken together
 * (group commit): one fsync for many of the daemon's transactions, never a
 * part of one, since a batch only ever holds whole transactions.
 */
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { openDatabase, type Database } from './db.js';
import type { WriterReply, WriterRequest, WriteStep } from './write-protocol.js';

// A failing write (a full disk, a lock held too long) is retried, in order, no faster than this.
const RETRY_MS = [100, 250, 500, 1_000, 2_000];

const port = (workerData as { port: MessagePort }).port;
const db: Database = openDatabase((workerData as { stateDir: string }).stateDir);
const statements = new Map<string, ReturnType<Database['prepare']>>();
let queue: Extract<WriterRequest, { kind: 'write' }>[] = [];
let closing = false;
let failures = 0;
let retryTimer: NodeJS.Timeout | undefined;

port.on('message', (m: WriterRequest) => {
  take(m);
  drain();
});

function take(m: WriterRequest): void {
  if (m.kind === 'close') closing = true;
  else if (m.kind === 'abandon') abandon();
  else queue.push(m);
}

function abandon(): void {
  clearTimeout(retryTimer);
  retryTimer = undefined;
  queue = [];
  closing = true;
}

function drain(): void {
  if (retryTimer) return;
  for (let m = receiveMessageOnPort(port); m; m = receiveMessageOnPort(port)) take(m.message as WriterRequest);
  if (queue.length > 0 && !write()) return;
  if (closing) finish();
}

/** Writes the whole queue in one transaction; false when it failed and a retry is set. */
function write(): boolean {
  const batch = queue;
  try {
    db.transaction(() => {
      for (const b of batch) for (const step of b.steps) run(step);
    }).immediate();
  } catch (e) {
    const err = e as Error & { code?: string };
    reply({ kind: 'failed', seq: batch[batch.length - 1]!.seq, message: err.message, code: err.code ?? null });
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      drain();
    }, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]);
    return false;
  }
  failures = 0;
  queue = [];
  reply({ kind: 'written', seq: batch[batch.length - 1]!.seq });
  return true;
}

function run(step: WriteStep): void {
  const [sql, args] = step;
  if (args === null) return void db.exec(sql);
  let s = statements.get(sql);
  if (!s) statements.set(sql, (s = db.prepare(sql)));
  // Structured cloning turned the daemon's Buffers (the web's salts and hashes) into plain Uint8Arrays.
  const bound = args.map((a) => (a instanceof Uint8Array && !Buffer.isBuffer(a) ? Buffer.from(a.buffer, a.byteOffset, a.byteLength) : a));
  (s.run as (...a: unknown[]) => unknown).apply(s, bound);
}

function finish(): void {
  db.close();
  reply({ kind: 'closed' });
  port.close();
  parentPort?.close();
}

function reply(m: WriterReply): void {
  port.postMessage(m);
}
