/** The graceful way to stop a job in a PTY, as a person at the terminal would escalate. */
import type { PtyPort } from '../pty/pty-port.js';

/**
 * Interrupt (Ctrl-C through the terminal, so the whole foreground process
 * group gets it), then SIGTERM, then SIGKILL, `graceMs` apart, until the
 * child exits. Agent TUIs at their input box want Ctrl-C twice (a shell job
 * is gone after the first), hence the second one 500 ms in.
 */
export function stopLadder(pty: PtyPort, graceMs: number): void {
  const ctrlC = () => pty.write('\x03');
  const steps: Array<() => void> = [ctrlC, () => pty.kill('SIGTERM'), () => pty.kill('SIGKILL')];
  setTimeout(() => pty.running && ctrlC(), 500).unref();
  const next = () => {
    const step = steps.shift();
    if (!step || !pty.running) return;
    step();
    setTimeout(next, graceMs).unref();
  };
  next();
}
