/** The CLI's side of the control socket. */
import { statSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { InputError } from '../util/errors.js';
import { encode, LineDecoder, PROTOCOL_VERSION, type Message } from '../api/wire.js';
import type { Handover } from './handover.js';
import { daemonPaths } from './paths.js';
import { stateDirProblem } from '../util/state-dir.js';

export class DaemonError extends Error {
  constructor(
    message: string,
    readonly kind: 'input' | 'internal',
  ) {
    super(message);
  }
}

export interface CallOptions {
  onData?: (data: string) => void;
  /** Lets the caller send input into the stream (attach). */
  onOpen?: (send: (input: string) => void, close: () => void) => void;
}

function noDaemon(stateDir: string): InputError {
  return new InputError(`no daemon is running for ${stateDir}; start one with: nightshift daemon --state ${stateDir}`);
}

const ownerOf = (path: string): number | undefined => {
  try {
    return statSync(path).uid;
  } catch {
    return undefined;
  }
};

/** EACCES is not "no daemon": name whose daemon it is, so the person knows which user to be. */
function permissionDenied(stateDir: string, runDir: string): InputError {
  const run = ownerOf(runDir);
  const state = ownerOf(stateDir);
  // With the state directory itself closed to us, its owner is the best we can name.
  const owner = run !== undefined ? `, the daemon belongs to uid ${run}` : state !== undefined ? `, the state directory belongs to uid ${state}` : '';
  const me = typeof process.getuid === 'function' ? ` (you are uid ${process.getuid()})` : '';
  return new InputError(`permission denied reaching the daemon's socket in ${runDir}${owner}${me}; run nightshift as that user`);
}

/** Why the socket cannot be reached, or nothing when it is there to connect to. */
function unreachable(stateDir: string, path: string, runDir: string): Error | undefined {
  try {
    statSync(path);
    return undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EACCES') return permissionDenied(stateDir, runDir);
    return stateDirProblem(stateDir) ?? new Unanswered(noDaemon(stateDir), false);
  }
}

/**
 * No daemon answered: none listens, or the connection closed before the
 * request was read (a daemon closing its socket ends only idle
 * connections). During a handover the call waits for the next daemon.
 */
class Unanswered extends Error {
  constructor(
    readonly error: Error,
    readonly connected: boolean,
  ) {
    super(error.message, { cause: error });
  }
}

/**
 * One request to the daemon of `stateDir`. While a handover is under way
 * (handover.ts) a call that finds no daemon waits for the next one, up to
 * HANDOVER_MS, instead of failing: an upgrade is no gap for a script.
 */
export async function call(stateDir: string, cmd: string, args: Record<string, unknown> = {}, o: CallOptions = {}): Promise<unknown> {
  const { runDir } = daemonPaths(stateDir);
  let lastChance = true;
  for (;;) {
    try {
      return await callOnce(stateDir, cmd, args, o);
    } catch (e) {
      if (!(e instanceof Unanswered)) throw e;
      // Loaded only when no daemon answered: its marker's schema needs zod, which a call that is answered never loads.
      const { HANDOVER_MS, liveHandover } = await import('./handover.js');
      const handover = liveHandover(runDir);
      if (handover) {
        await waitForSuccessor(stateDir, handover, HANDOVER_MS);
        continue;
      }
      // The next daemon serves its socket before it clears the marker: no marker now means look once more.
      if (e.connected || !lastChance) throw e.error;
      lastChance = false;
    }
  }
}

const POLL_MS = 50;

async function waitForSuccessor(stateDir: string, h: Handover, handoverMs: number): Promise<void> {
  if (Date.now() + POLL_MS > h.until) {
    throw new InputError(`the daemon for ${stateDir} is being handed over (${h.by}, pid ${h.pid}) and no new daemon answered within ${handoverMs / 1000} s; see ${daemonPaths(stateDir).log}`);
  }
  await new Promise((r) => setTimeout(r, POLL_MS));
}

async function callOnce(stateDir: string, cmd: string, args: Record<string, unknown>, o: CallOptions): Promise<unknown> {
  const { socket: path, runDir } = daemonPaths(stateDir);
  const why = unreachable(stateDir, path, runDir);
  if (why) throw why;
  const socket = await open(path, stateDir, runDir);
  const id = 1;
  return new Promise((resolve, reject) => {
    const decoder = new LineDecoder();
    let settled = false;
    let heard = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      socket.end();
      fn();
    };
    socket.on('data', (chunk: Buffer) => {
      heard = true;
      for (const line of decoder.push(chunk)) {
        let m: Message;
        try {
          m = JSON.parse(line) as Message;
        } catch {
          return finish(() => reject(new DaemonError('the daemon sent a malformed reply', 'internal')));
        }
        handle(m);
      }
    });
    socket.on('close', () => {
      const closed = new DaemonError('the daemon closed the connection', 'internal');
      finish(() => reject(heard ? closed : new Unanswered(closed, true)));
    });
    const handle = (m: Message) => {
      if (m.v !== PROTOCOL_VERSION) {
        return finish(() =>
          reject(new InputError(`the daemon speaks protocol version ${m.v}, this nightshift speaks ${PROTOCOL_VERSION}; restart the daemon with this version`)),
        );
      }
      if ('data' in m) o.onData?.(m.data);
      else if ('ok' in m) finish(() => (m.ok ? resolve(m.result) : reject(toError(m.error))));
    };
    socket.write(encode({ v: PROTOCOL_VERSION, id, cmd, args }));
    o.onOpen?.(
      (input) => socket.write(encode({ v: PROTOCOL_VERSION, id, input })),
      () => finish(() => resolve(null)),
    );
  });
}

function toError(e: { message: string; kind: 'input' | 'internal'; file?: string; line?: number }): Error {
  if (e.kind === 'input') return new InputError(e.message, { ...(e.file ? { file: e.file } : {}), ...(e.line ? { line: e.line } : {}) });
  return new DaemonError(e.message, e.kind);
}

function open(path: string, stateDir: string, runDir: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect(path);
    s.once('connect', () => resolve(s));
    s.once('error', (e: NodeJS.ErrnoException) => {
      // A socket file with nobody listening: the daemon died without cleaning up. A reset before the
      // connection was taken: the daemon closed its socket with it still waiting (a handover); nothing was sent.
      if (e.code === 'EACCES') reject(permissionDenied(stateDir, runDir));
      else reject(e.code === 'ECONNREFUSED' || e.code === 'ENOENT' || e.code === 'ECONNRESET' ? new Unanswered(noDaemon(stateDir), false) : e);
    });
  });
}
