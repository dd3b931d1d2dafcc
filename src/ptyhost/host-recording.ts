/**
 * A job's recording as the PTY host writes it: output, resizes and the exit
 * marker are the host's own (so nothing printed while no daemon is connected
 * is lost); the daemon's input events and markers go to the host, which puts
 * them in order with the output. Times are the host's.
 */
import type { JobRecording } from '../record/job-recording.js';
import type { HostedPty } from './hosted-pty.js';

export class HostRecording implements JobRecording {
  private off = false;

  constructor(private readonly pty: HostedPty) {}

  output(): void {}
  resize(): void {}
  exit(): void {}
  close(): void {}

  input(_t: number, data: string): void {
    if (!this.off) this.pty.note('i', data);
  }

  marker(_t: number, label: string): void {
    if (!this.off) this.pty.note('m', label);
  }

  onProblem(cb: (e: Error) => void): void {
    this.pty.onRecordingProblem(cb);
  }

  suspend(_t: number, why: string): void {
    if (this.off) return;
    this.off = true;
    this.pty.note('m', `recording-stopped:${why}`, true);
  }
}
