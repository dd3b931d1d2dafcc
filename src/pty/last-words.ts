/**
 * node-pty (1.1.0, unixTerminal.js) reports a child's exit only once its
 * socket closes, but gives up waiting after DESTROY_SOCKET_TIMEOUT_MS (200 ms,
 * for a macOS quirk) and destroys the socket. Whatever the child printed last
 * and nobody had read yet is thrown away with it: every byte, when the reader
 * was paused (a slow client, a recording behind: backpressure), and the tail,
 * when the process was not scheduled for 200 ms (a loaded machine). A job's
 * last words ("got:n", a failing test's summary) are the ones a person reads.
 *
 * keepLastWords takes them before that destroy: what the stream holds, then
 * the master fd read dry. It is non-blocking (node-pty sets O_NONBLOCK), so
 * the reads end at EIO (the session leader's exit hung the terminal up and
 * everything was read) or at worst EAGAIN; they never wait.
 *
 * The same loss has a second door. On a loaded machine the master's read()
 * can return 0 after the session leader's exit while the kernel still holds
 * output (measured on Linux 6.18: `seq 1 30000` lost its last 2-15 KB in 7 of
 * 20 runs under three busy loops). libuv takes the 0 for end-of-file, the
 * stream ends and destroys itself, often before node-pty's thread has reaped
 * the child. A destroy after that end-of-file drains too: the reads found
 * the rest every time.
 *
 * Closing the master early has a cost of its own: the kernel hangs the
 * terminal up and SIGHUPs a child that closed its end and has not exited
 * yet. So the master stays open until node-pty has reaped the child.
 */
import { readSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import type { IPty } from 'node-pty';

/** More than a pty's buffers hold: a bound, never a wait. */
const MAX_DRAIN_BYTES = 4 * 1024 * 1024;
const CHUNK = 64 * 1024;

interface PtyInternals {
  _socket?: {
    destroy: (...a: unknown[]) => unknown;
    read: () => unknown;
    emit: (event: 'data', chunk: Buffer | string) => boolean;
    readableEncoding: BufferEncoding | null;
    readableEnded: boolean;
  };
  _fd?: number;
  once?: (event: string, listener: (...a: unknown[]) => void) => void;
}

/** Call right after spawn, before any output can be lost. Throws if node-pty's internals moved (a new version): a loud start beats silent loss. */
export function keepLastWords(pty: IPty): void {
  const internals = pty as unknown as PtyInternals;
  const { _socket: socket, _fd: fd } = internals;
  if (!socket || typeof socket.destroy !== 'function' || typeof fd !== 'number' || typeof internals.once !== 'function') {
    throw new Error('node-pty internals changed (_socket, _fd, once): the last output of an exiting job could be lost; check src/pty/last-words.ts against this node-pty version');
  }
  const destroy = socket.destroy;
  let deferred = false;
  const close = (self: unknown, args: unknown[]): unknown => {
    socket.destroy = destroy;
    // Readable.read() emits 'data' for what it returns, which node-pty forwards to onData.
    while (socket.read() !== null);
    // A pty spawned with an encoding hands its listeners strings: so do the last words.
    const enc = socket.readableEncoding;
    const decoder = enc ? new StringDecoder(enc) : undefined;
    drainFd(fd, (chunk) => socket.emit('data', decoder ? decoder.write(chunk) : chunk));
    const rest = decoder?.end();
    if (rest) socket.emit('data', rest);
    return destroy.apply(self, args);
  };
  socket.destroy = function (this: unknown, ...args: unknown[]) {
    if (reaped(pty.pid)) return close(this, args);
    // A destroy while the child lives and the terminal is open (dispose of a running job) is a hang-up, not an exit: nothing to keep.
    if (!socket.readableEnded && !(args[0] instanceof Error)) {
      socket.destroy = destroy;
      return destroy.apply(this, args);
    }
    // The terminal ended (end-of-file, EIO) under a child not yet reaped: it closed its last descriptor of the terminal and
    // lives on, most often on its way out (coreutils close stdin and stdout in an atexit handler). Closing the master now
    // hangs the terminal up, and the kernel's SIGHUP kills it mid-exit: `rm -i` answered "n" was reported killed by
    // SIGHUP. The master stays open until the child is reaped.
    deferred = true;
    return this;
  };
  // node-pty hears of the reap on a thread of its own, then waits for the socket to close (once 'close'); after
  // DESTROY_SOCKET_TIMEOUT_MS it destroys it itself. A deferred close is done at once instead.
  const once = internals.once;
  internals.once = function (this: unknown, event: string, listener: (...a: unknown[]) => void) {
    once.call(this, event, listener);
    if (event === 'close' && deferred) {
      deferred = false;
      close(socket, []);
    }
  };
}

/** node-pty's own thread reaps the child before it reports the exit: a pid that is gone means the exit was seen. */
function reaped(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

function drainFd(fd: number, emit: (chunk: Buffer) => void): void {
  for (let total = 0; total < MAX_DRAIN_BYTES; ) {
    const buf = Buffer.allocUnsafe(CHUNK);
    let n: number;
    try {
      n = readSync(fd, buf, 0, CHUNK, null);
    } catch {
      // EAGAIN: nothing more now; EIO: the terminal is closed and read to its end; EBADF: closed already.
      return;
    }
    if (n <= 0) return;
    total += n;
    emit(buf.subarray(0, n));
  }
}
