/**
 * Connects the person's terminal to a foreground job: their keystrokes go to
 * the job (so they can answer a prompt themselves), and a resize follows.
 */
import type { LiveJob } from '../supervisor/live-job.js';

export function attachTerminal(job: LiveJob, followSize: boolean): () => void {
  const stdin = process.stdin;
  const raw = stdin.isTTY === true;
  if (raw) stdin.setRawMode(true);
  const onInput = (chunk: Buffer) => job.acts.input(chunk.toString('utf8'));
  stdin.on('data', onInput);
  stdin.resume();
  const onResize = () => {
    if (process.stdout.columns && process.stdout.rows) job.resize(process.stdout.columns, process.stdout.rows);
  };
  if (followSize && process.stdout.isTTY) process.stdout.on('resize', onResize);
  return () => {
    stdin.off('data', onInput);
    if (raw) stdin.setRawMode(false);
    stdin.pause();
    stdin.unref?.();
    process.stdout.off('resize', onResize);
  };
}
