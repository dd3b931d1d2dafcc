/**
 * A handover under way: from the moment a new daemon asks the old one to
 * detach (`daemon --replace`), or a daemon detaches for a service restart,
 * until the next daemon serves its socket. The marker in the run directory
 * tells a CLI call that finds no daemon to wait for the next one instead of
 * failing; a marker whose deadline passed, or whose replacing daemon died,
 * is stale and ignored.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeJsonAtomic } from '../util/atomic-write.js';
import { isAlive } from './lock.js';

/** The longest a call waits for the next daemon. */
export const HANDOVER_MS = 30_000;

const markerSchema = z.object({
  /** replace: `pid` is the new daemon, starting; detach: `pid` is the old one, and a service manager starts the next. */
  by: z.enum(['replace', 'detach']),
  pid: z.number().int().positive(),
  /** Epoch ms past which nobody waits. */
  until: z.number(),
});

export type Handover = z.infer<typeof markerSchema>;

const markerFile = (runDir: string) => join(runDir, 'handover.json');

export function startHandover(runDir: string, by: Handover['by'], now = Date.now()): void {
  const marker: Handover = { by, pid: process.pid, until: now + HANDOVER_MS };
  writeJsonAtomic(markerFile(runDir), marker);
}

/** The new daemon serves its socket: the handover is over, whoever started it. */
export function endHandover(runDir: string): void {
  rmSync(markerFile(runDir), { force: true });
}

/** The handover a caller should wait for, or null when none is under way. */
export function liveHandover(runDir: string, now = Date.now()): Handover | null {
  let marker: Handover;
  try {
    marker = markerSchema.parse(JSON.parse(readFileSync(markerFile(runDir), 'utf8')));
  } catch {
    return null;
  }
  if (now > marker.until) return null;
  // A replacing daemon that died will never serve: nothing to wait for.
  if (marker.by === 'replace' && !isAlive(marker.pid)) return null;
  return marker;
}
