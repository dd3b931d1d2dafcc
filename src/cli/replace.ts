/**
 * `nightshift daemon --replace`: the upgrade path. The running daemon is
 * told to detach (its jobs stay in the PTY host) and this one starts once
 * its lock is free, to adopt them.
 */
import { daemonPaths } from '../daemon/paths.js';
import { isAlive, lockOwner } from '../daemon/lock.js';
import { startHandover } from '../daemon/handover.js';
import { callDaemon } from './daemon-client.js';

/** A detaching daemon flushes its pages (at most 1 s) and closes its board: 15 s is ample. */
const TAKEOVER_MS = 15_000;

export async function replaceRunningDaemon(stateDir: string, say: (line: string) => void): Promise<void> {
  const lock = daemonPaths(stateDir).lock;
  const owner = lockOwner(lock);
  if (owner === null || !isAlive(owner)) return;
  // From here until this daemon serves its socket, callers wait for it rather than hear "no daemon".
  startHandover(daemonPaths(stateDir).runDir, 'replace');
  const r = await callDaemon({ state: stateDir }, 'stop', { detach: true });
  say(`replacing the daemon pid ${owner}: it detached from ${r.running} job(s)`);
  const deadline = Date.now() + TAKEOVER_MS;
  while (isAlive(owner) && lockOwner(lock) === owner) {
    if (Date.now() > deadline) throw new Error(`the daemon pid ${owner} did not let go of ${lock} within ${TAKEOVER_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
