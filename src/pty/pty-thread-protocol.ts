/** Messages between a ThreadedPty (pty-thread.ts) and its worker (pty-worker.ts). */
import type { PtySpawnOptions } from './host.js';
import type { SharedRingMemory } from '../util/shared-ring.js';

export type ToPtyWorker =
  /** The first message: a thread may be started before its job is known (warmPtyThread). */
  | { op: 'spawn'; options: PtySpawnOptions; ring: SharedRingMemory }
  | { op: 'write'; data: string }
  | { op: 'resize'; cols: number; rows: number }
  | { op: 'kill'; signal: string }
  /** The owner lets go of a running child: SIGHUP, as a closed terminal. */
  | { op: 'hangup' }
  /** The owner's own hold on the output (ThreadedPty.pause/resume). */
  | { op: 'hold'; hold: boolean };

export type FromPtyWorker =
  | { op: 'spawned'; pid: number }
  | { op: 'failed'; message: string }
  /** Output is in the ring and its reader was asleep. */
  | { op: 'wake' }
  | { op: 'exit'; exitCode: number; signal: number | null };
