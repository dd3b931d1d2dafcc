/**
 * Reaching the PTY host for a state directory: its socket, read into one
 * reused buffer, and its hello, checked for our protocol version. A host
 * that does not answer is started, detached, and waited for.
 */
import { spawn as spawnProcess } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import path from 'node:path';
import { InputError } from '../util/errors.js';
import { packagePath } from '../util/package.js';
import { FRAME, FrameDecoder, parseJson, PTYHOST_VERSION, type Frame, type Hello, ptyhostSocket } from './protocol.js';

export interface ConnectOptions {
  /** Start a host when none answers (default true). */
  start?: boolean;
  /** How long to keep trying to reach a host we started (default 5 s). */
  timeoutMs?: number;
  /** Extra arguments for a host we start, e.g. ['--idle', '1s'] in tests. */
  hostArgs?: string[];
}

/** The host at the socket speaks another protocol version. */
export class PtyHostVersionError extends Error {
  override name = 'PtyHostVersionError';
  constructor(
    readonly socket: string,
    readonly hostVersion: string,
    readonly hostPid: number,
  ) {
    super(
      `the PTY host at ${socket} (pid ${hostPid}) speaks ${JSON.stringify(hostVersion)}, this nightshift speaks ${JSON.stringify(PTYHOST_VERSION)}; ` +
        'refusing to use it. It keeps serving its jobs and exits by itself once they are done and no client is left',
    );
  }
}

/** Connects to the host for `stateDir`, starting one when none answers (unless `start: false`), and takes its hello. */
export async function dialHost(stateDir: string, o: ConnectOptions = {}): Promise<{ socket: Socket; reader: Reader; hello: Hello }> {
  const sock = ptyhostSocket(stateDir);
  const deadline = Date.now() + (o.timeoutMs ?? 5_000);
  let started = false;
  for (;;) {
    try {
      const { socket, reader } = await openSocket(sock);
      return { socket, reader, hello: await handshake(socket, reader, sock) };
    } catch (e) {
      if (!isAbsent(e)) throw e;
      if (o.start === false) throw new InputError(`no PTY host answers at ${sock}`);
      if (!started) startHost(stateDir, o.hostArgs ?? []);
      started = true;
      if (Date.now() > deadline) throw new Error(`started a PTY host for ${stateDir} but it did not answer at ${sock} within ${o.timeoutMs ?? 5_000} ms (see ${path.join(stateDir, 'ptyhost.log')})`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/** Where a socket's reads go: the handshake first, then the client. */
export interface Reader {
  to: (chunk: Buffer) => void;
}

/** Bytes one read of the host's socket may bring. */
const READ_BYTES = 64 * 1024;

/**
 * The host's socket, read into one buffer that every read fills again
 * (onread): a flood of output arrives in a few thousand reads, and a fresh
 * buffer for each was garbage V8 freed only with a full mark-compact, run
 * every ~150 ms under the external-memory pressure. Whatever keeps bytes
 * past a read copies them (FrameDecoder, the screen's HeldBytes).
 */
function openSocket(sock: string): Promise<{ socket: Socket; reader: Reader }> {
  const reader: Reader = { to: () => undefined };
  return new Promise((resolve, reject) => {
    const s = netConnect({
      path: sock,
      onread: {
        buffer: Buffer.allocUnsafeSlow(READ_BYTES),
        callback: (n, buf) => {
          reader.to((buf as Buffer).subarray(0, n));
          return true;
        },
      },
    });
    s.once('connect', () => {
      s.off('error', reject);
      resolve({ socket: s, reader });
    });
    s.once('error', reject);
  });
}

/** The host speaks first; anything but a hello of our version ends the connection. */
function handshake(socket: Socket, reader: Reader, sock: string): Promise<Hello> {
  return new Promise((resolve, reject) => {
    const decoder = new FrameDecoder();
    const fail = (e: Error) => {
      clearTimeout(timer);
      socket.destroy();
      reject(e);
    };
    const timer = setTimeout(() => fail(new Error(`the PTY host at ${sock} sent no hello within 3000 ms`)), 3_000);
    const onData = (chunk: Buffer) => {
      let frames: Frame[];
      try {
        frames = decoder.push(chunk);
      } catch (e) {
        return fail(e as Error);
      }
      if (frames.length === 0) return;
      clearTimeout(timer);
      reader.to = () => undefined;
      socket.off('close', onClose);
      socket.off('error', fail);
      const hello = frames[0]!.type === FRAME.hello ? (parseJson(frames[0]!.payload).body as Hello) : undefined;
      if (!hello) return fail(new Error(`the PTY host at ${sock} did not start with a hello (frame type ${frames[0]!.type})`));
      if (hello.version !== PTYHOST_VERSION) return fail(new PtyHostVersionError(sock, String(hello.version), hello.pid));
      // The host sends nothing unasked after its hello, so no later frame can be in this chunk.
      resolve(hello);
    };
    const onClose = () => fail(new Error(`the PTY host at ${sock} closed the connection before its hello`));
    reader.to = onData;
    socket.once('close', onClose);
    socket.on('error', fail);
  });
}

/** No socket file, or a file left by a host that died: both mean start one. */
function isAbsent(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ECONNREFUSED';
}

function startHost(stateDir: string, extra: string[]): void {
  // The host makes the run directory 0700 itself; the state directory must exist to be its cwd.
  mkdirSync(stateDir, { recursive: true, mode: 0o700 });
  // Detached: its own session and process group, so our terminal's hang-up or our death does not reach it.
  const child = spawnProcess(process.execPath, [hostEntry(), '--state', stateDir, ...extra], { detached: true, stdio: 'ignore', cwd: stateDir });
  child.on('error', () => undefined); // the connect deadline reports a host that never came up
  child.unref();
}

/**
 * dist/src/ptyhost/main.js of this package (what `nightshift ptyhost` runs,
 * without loading every other verb), found from this file whether it runs
 * from src/ (tests) or dist/src/ (built).
 */
function hostEntry(): string {
  return packagePath('dist', 'src', 'ptyhost', 'main.js');
}
