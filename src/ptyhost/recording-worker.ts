/**
 * The PTY host's recordings, written on a thread of their own (see
 * recording-thread.ts): each job's CastAppender lives here, fed by messages
 * in the order the host sent them.
 */
import { parentPort } from 'node:worker_threads';
import { niceThisThread } from '../util/thread-nice.js';
import { CastAppender } from './recording.js';
import { TAKEN, WAKE, type ToRecorder, type FromRecorder } from './recording-thread.js';

const port = parentPort;
if (!port) throw new Error('recording-worker runs as a worker thread of the PTY host');

/**
 * The recording yields its core to the threads a job waits on (its reader,
 * the kernel's tty work, the job itself): it only has to keep within
 * BEHIND_BYTES, and falling behind pauses the job rather than losing a byte.
 * On a machine whose cores a flood keeps busy, every slice this thread
 * takes from the reader is a slice the job's writes wait
 * (docs/performance.md).
 */
const RECORDING_NICE = 19;
niceThisThread(RECORDING_NICE);

const appenders = new Map<number, CastAppender>();
const reply = (m: FromRecorder) => port.postMessage(m);
let ring: SharedArrayBuffer | undefined;
let control: Int32Array | undefined;

port.on('message', (m: ToRecorder) => {
  if (m.op === 'ring') {
    ring = m.memory;
    control = new Int32Array(m.control);
    return;
  }
  if (m.op === 'adopt') {
    const problem = (e: Error) => reply({ op: 'problem', key: m.key, message: e.message, code: (e as NodeJS.ErrnoException).code ?? null });
    // The host's thread opened the file and closes it once told it is done (closed).
    appenders.set(m.key, CastAppender.adopt(m.path, m.fd, m.written, m.startMs, m.cap ?? Infinity, problem, false));
    return;
  }
  const rec = appenders.get(m.key);
  // Every batch is counted taken, so its room in the ring is freed even when its recording is gone.
  if (m.op === 'o') {
    rec?.output(m.data ? new Uint8Array(m.data, 0, m.len) : new Uint8Array(ring!, m.at, m.len), m.t);
    Atomics.add(control!, TAKEN, 1);
    if (Atomics.compareExchange(control!, WAKE, 1, 0) === 1) reply({ op: 'wake' });
    return;
  }
  if (!rec) return;
  switch (m.op) {
    case 'r':
      return rec.resize(m.cols, m.rows, m.t);
    case 'i':
      return rec.input(m.data, m.t);
    case 'm':
      return rec.marker(m.data, m.t);
    case 'suspend':
      return rec.suspend();
    case 'close':
      rec.close(m.marker, m.t);
      appenders.delete(m.key);
      reply({ op: 'closed', key: m.key });
  }
});
