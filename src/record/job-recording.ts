/**
 * What a job's supervisor writes to its recording, whoever writes the file:
 * the daemon itself (CastWriter) or the PTY host, which records the output
 * and exit on its own and takes the supervisor's input and markers over its
 * socket (../ptyhost/host-recording.ts).
 */
import type { Disposable } from '../util/lifecycle.js';

export interface JobRecording {
  /** Absent where the output is recorded elsewhere (the PTY host): its text is then never decoded for this. */
  output?(tMs: number, data: string): void;
  /** The same output as the terminal's bytes, taken instead of output() where present (no text decoded for it). */
  outputBytes?(tMs: number, bytes: Uint8Array): void;
  input(tMs: number, data: string): void;
  marker(tMs: number, label: string): void;
  resize(tMs: number, cols: number, rows: number): void;
  exit(tMs: number, code: number): void;
  /** Stops recording with a last marker saying why. */
  suspend(tMs: number, why: string): void;
  close(): void;
  /** A recording written elsewhere (the PTY host) says here when it could not be written. */
  onProblem?(cb: (e: Error) => void): Disposable;
}
