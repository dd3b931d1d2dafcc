/**
 * A job's recording as the PTY host writes it: output and resizes are the
 * host's own (so nothing printed while no daemon is connected is lost); the
 * daemon's input events, markers and final `exit:` go to the host, which
 * puts them in order with the output. Times are the host's.
 */
import type { JobRecording } from '../record/job-recording.js';
import type { Disposable } from '../pty/pty-port.js';
import type { HostedPty } from './hosted-pty.js';

export class HostRecording implements JobRecording {
  private off = false;

  constructor(private readonly pty: HostedPty) {}

  resize(): void {}
  close(): void {}

  /** The last word: the host closes the file after it (its own exit marker is only for a client that never says this). */
  exit(_t: number, code: number): void {
    if (!this.off) this.pty.note('m', `exit:${code}`, true);
  }

  input(_t: number, data: string): void {
    if (!this.off) this.pty.note('i', data);
  }

  marker(_t: number, label: string): void {
    if (!this.off) this.pty.note('m', label);
  }

  onProblem(cb: (e: Error) => void): Disposable {
    return this.pty.onRecordingProblem(cb);
  }

  suspend(_t: number, why: string): void {
    if (this.off) return;
    this.off = true;
    this.pty.note('m', `recording-stopped:${why}`, true);
  }
}
