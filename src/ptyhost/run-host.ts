/** The host as a process: one per state directory, kept so by a lock, logging to DIR/ptyhost.log, gone when idle. */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { InputError } from '../util/errors.js';
import { PidLock } from '../util/pid-lock.js';
import { makeRunDir, runDirOf } from '../util/state-dir.js';
import { PTYHOST_VERSION, ptyhostSocket } from './protocol.js';
import { PtyHostServer, type HostOptions } from './server.js';

/**
 * Runs the host for a state directory until it is idle: takes the host lock
 * (a second host started in a race exits at once and its client connects to
 * the first), listens, and exits by itself. Returns false if another host
 * already runs.
 */
export async function runHost(stateDir: string, opts: HostOptions): Promise<boolean> {
  makeRunDir(stateDir);
  const lock = takeLock(join(runDirOf(stateDir), 'ptyhost.lock'));
  if (!lock) return false;
  const logFile = join(stateDir, 'ptyhost.log');
  const log = (line: string) => appendFileSync(logFile, `${new Date().toISOString()} [${process.pid}] ${line}\n`, { mode: 0o600 });
  const host = new PtyHostServer(opts, log);
  // A hang-up of whoever started us is not a reason to take every job down.
  process.on('SIGHUP', () => undefined);
  const stop = (why: string) => {
    log(`stopping: ${why}`);
    host.close();
    lock.release();
    process.exit(0);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('uncaughtException', (e) => {
    log(`internal error: ${e.stack ?? e.message}`);
    stop('internal error');
  });
  await host.listen(ptyhostSocket(stateDir));
  log(`listening on ${ptyhostSocket(stateDir)} (${PTYHOST_VERSION}, idle exit after ${opts.idleMs} ms)`);
  const every = Math.max(50, Math.min(1_000, Math.floor(opts.idleMs / 4)));
  setInterval(() => host.idle() && stop(`idle for ${opts.idleMs} ms with no client and no job`), every);
  return true;
}

/** A live owner of the lock means another host serves this directory. */
function takeLock(path: string): PidLock | undefined {
  try {
    return PidLock.acquire(path, 'PTY host');
  } catch (e) {
    if (e instanceof InputError && /already runs/.test(e.message)) return undefined;
    throw e;
  }
}
