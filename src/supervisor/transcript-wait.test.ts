import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { NO_TRANSCRIPT_MS, TranscriptWait } from './transcript-wait.js';

const waits: TranscriptWait[] = [];
afterEach(() => {
  for (const w of waits.splice(0)) w.dispose();
});

function setup(start = 1_000) {
  const clock = new ManualClock(start);
  const said: number[] = [];
  let found = false;
  const wait = new TranscriptWait(clock, { found: () => found, warn: (ms) => said.push(ms) });
  waits.push(wait);
  return { clock, said, wait, find: () => (found = true) };
}

describe('TranscriptWait (on the job clock)', () => {
  it('warns once, 30 s after the first output of an agent job with no transcript', () => {
    const { clock, said, wait } = setup();
    wait.agent();
    clock.set(5_000);
    wait.output();
    clock.set(5_000 + NO_TRANSCRIPT_MS - 1);
    wait.check();
    expect(said).toEqual([]);
    clock.set(5_000 + NO_TRANSCRIPT_MS);
    wait.check();
    wait.output();
    clock.set(5_000 + 2 * NO_TRANSCRIPT_MS);
    wait.check();
    expect(said).toEqual([NO_TRANSCRIPT_MS]);
  });

  it('counts from the later of the first output and becoming an agent job (found in the tree)', () => {
    const { clock, said, wait } = setup();
    wait.output();
    clock.set(21_000);
    wait.agent();
    expect(wait.dueAt).toBe(21_000 + NO_TRANSCRIPT_MS);
    clock.set(21_000 + NO_TRANSCRIPT_MS);
    wait.check();
    expect(said).toEqual([NO_TRANSCRIPT_MS]);
  });

  it('says nothing when the transcript is found, or for a plain program, or before any output', () => {
    const found = setup();
    found.wait.agent();
    found.wait.output();
    found.find();
    found.clock.set(1_000 + 2 * NO_TRANSCRIPT_MS);
    found.wait.check();
    expect(found.said).toEqual([]);
    const plain = setup();
    plain.wait.output();
    plain.clock.set(1_000 + 2 * NO_TRANSCRIPT_MS);
    plain.wait.check();
    const silent = setup();
    silent.wait.agent();
    silent.clock.set(1_000 + 2 * NO_TRANSCRIPT_MS);
    silent.wait.check();
    expect([plain.said, silent.said]).toEqual([[], []]);
  });
});
