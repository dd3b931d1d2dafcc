/**
 * Where a job's terminal comes from. The supervisor asks for one and gets a
 * PtyPort: a PTY of its own process (`nightshift run`, the default) or one
 * the PTY host holds (the daemon), spawned anew or adopted after a restart.
 * A terminal that records the output itself returns the recording the
 * supervisor adds its input and markers to; otherwise the supervisor writes
 * the recording (CastWriter).
 */
import type { PtySpawnOptions } from '../pty/host.js';
import { ThreadedPty } from '../pty/pty-thread.js';
import type { PtyPort } from '../pty/pty-port.js';
import type { JobRecording } from '../record/job-recording.js';

export interface TerminalRequest {
  readonly id: string;
  readonly spawn: PtySpawnOptions;
  /** The recording file, its header and cap, for a terminal that records. */
  readonly recording: { readonly path: string; readonly header: Record<string, unknown>; readonly cap: number | undefined };
}

export interface OpenedTerminal {
  readonly pty: PtyPort;
  readonly recording?: JobRecording;
  /**
   * An adopted job (a restart): its earlier output, to rebuild the screen
   * before the watchdog looks; its child is not ours to kill when the
   * supervisor lets go of it.
   */
  readonly adopted?: { readonly replay: Buffer };
}

export interface JobTerminal {
  open(r: TerminalRequest): Promise<OpenedTerminal>;
}

/** A PTY in this process, read on a thread of its own (ThreadedPty): it dies with the process. */
export const localTerminal: JobTerminal = {
  open: async (r) => ({ pty: await ThreadedPty.spawn(r.spawn) }),
};
