/** The sink list's ordering guarantees: evidence before keys, no record no keys, one loop in list order; a sink that throws is passed over. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Action } from '../core/watchdog-types.js';
import { EvidenceLog } from './evidence.js';
import type { RecordedInput } from './job-input.js';
import type { Logger } from './logger.js';
import type { JobEvent } from './job-events.js';
import { answerKeysSink, BlockedPromptSink, evidenceSink, JobSinks } from './job-sinks.js';

const tmp = mkdtempSync(join(tmpdir(), 'ns-sinks-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const answer: Action = {
  t: 0, kind: 'answer', rule: 'npm-init', class: 'confirm', prompt: 'Is this OK?', text: 'answered', reason: 'prompt', since: 0, screen: [], layer: 'policy', why: 'safe', keys: ['y', 'enter'],
};
const errors: string[] = [];
const log = { error: (_f: object, msg: string) => errors.push(msg) } as unknown as Logger;
const failures: string[] = [];
const failed = (err: unknown, e: JobEvent, sink: string) => failures.push(`${sink} on ${e.kind}: ${(err as Error).message}`);

/** A RecordedInput that tells what the evidence file held when the keys went. */
function typedInto(file: string, sent: string[]): RecordedInput {
  return { answer: (_rule: string | null, keys: readonly string[]) => sent.push(`${keys.join('+')} after ${readFileSync(file, 'utf8').split('\n').filter(Boolean).length} record(s)`) } as unknown as RecordedInput;
}

describe('job sinks', () => {
  it('the evidence record is on disk before the answer keys are sent', () => {
    const file = join(tmp, 'evidence.jsonl');
    const evidence = new EvidenceLog(file, 'j1');
    const sent: string[] = [];
    new JobSinks([evidenceSink(evidence), answerKeysSink(evidence, typedInto(file, sent), log)], failed).emit({ kind: 'action', action: answer });
    expect(sent).toEqual(['y+enter after 1 record(s)']);
  });

  it('no record, no keys: a failed evidence write sends nothing', () => {
    const evidence = new EvidenceLog(join(tmp, 'no-such-dir', 'evidence.jsonl'), 'j1');
    const sent: string[] = [];
    new JobSinks([evidenceSink(evidence), answerKeysSink(evidence, typedInto('/dev/null', sent), log)], failed).emit({ kind: 'action', action: answer });
    expect(sent).toEqual([]);
    expect(errors).toEqual(['evidence could not be written; the answer is not sent']);
  });

  it('every event reaches every sink in list order; the blocked prompt clears when the block ends', () => {
    const seen: string[] = [];
    const tap = (name: string) => ({ event: (e: JobEvent) => seen.push(`${name}:${e.kind}`) });
    const prompt = new BlockedPromptSink();
    const sinks = new JobSinks([tap('a'), prompt, tap('b')], failed);
    sinks.emit({ kind: 'action', action: answer });
    expect(prompt.current).toBe(answer);
    sinks.emit({ kind: 'transition', transition: { from: 'blocked', to: 'running', reason: { code: 'answered' }, t: 1 } });
    expect(prompt.current).toBeUndefined();
    expect(seen).toEqual(['a:action', 'b:action', 'a:transition', 'b:transition']);
  });

  it('a sink that throws is reported, and the sinks after it still get the event and the next one', () => {
    failures.length = 0;
    const seen: string[] = [];
    const sinks = new JobSinks(
      [
        { name: 'pages', event: (e) => {
          if (e.kind === 'action') throw new Error('pager refused');
        } },
        { event: () => {
          throw new Error('unnamed');
        } },
        { event: (e) => void seen.push(e.kind) },
      ],
      failed,
    );
    sinks.emit({ kind: 'action', action: answer });
    sinks.emit({ kind: 'marker', t: 1, label: 'after' });
    expect(seen).toEqual(['action', 'marker']);
    expect(failures).toEqual(['pages on action: pager refused', '#2 on action: unnamed', '#2 on marker: unnamed']);
  });

  it('a report that throws does not stop the loop either', () => {
    const seen: string[] = [];
    const sinks = new JobSinks(
      [{ event: () => { throw new Error('sink'); } }, { event: (e) => void seen.push(e.kind) }],
      () => {
        throw new Error('report');
      },
    );
    sinks.emit({ kind: 'marker', t: 1, label: 'x' });
    expect(seen).toEqual(['marker']);
  });

  it('an evidence sink that throws counts as no record: no keys', () => {
    failures.length = 0;
    errors.length = 0;
    const file = join(tmp, 'evidence-throws.jsonl');
    const evidence = new EvidenceLog(file, 'j1');
    const sent: string[] = [];
    // An action without its screen: the record cannot even be built.
    const broken = { ...answer, screen: undefined } as unknown as Action;
    new JobSinks([evidenceSink(evidence), answerKeysSink(evidence, typedInto('/dev/null', sent), log)], failed).emit({ kind: 'action', action: broken });
    expect(sent).toEqual([]);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatch(/^evidence on action: /);
    expect(errors).toEqual(['evidence could not be written; the answer is not sent']);
  });
});
