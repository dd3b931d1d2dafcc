/** The sink list's ordering guarantees (issue 12.5): evidence before keys, no record no keys, one loop in list order. */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Action } from '../core/watchdog-types.js';
import { EvidenceLog } from './evidence.js';
import type { RecordedInput } from './job-input.js';
import type { Logger } from './logger.js';
import { answerKeysSink, BlockedPromptSink, evidenceSink, JobSinks, type JobEvent } from './job-sinks.js';

const tmp = mkdtempSync(join(tmpdir(), 'ns-sinks-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const answer: Action = {
  t: 0, kind: 'answer', rule: 'npm-init', class: 'confirm', prompt: 'Is this OK?', text: 'answered', reason: 'prompt', since: 0, screen: [], layer: 'policy', why: 'safe', keys: ['y', 'enter'],
};
const errors: string[] = [];
const log = { error: (_f: object, msg: string) => errors.push(msg) } as unknown as Logger;

/** A RecordedInput that tells what the evidence file held when the keys went. */
function typedInto(file: string, sent: string[]): RecordedInput {
  return { answer: (_rule: string | null, keys: readonly string[]) => sent.push(`${keys.join('+')} after ${readFileSync(file, 'utf8').split('\n').filter(Boolean).length} record(s)`) } as unknown as RecordedInput;
}

describe('job sinks', () => {
  it('the evidence record is on disk before the answer keys are sent', () => {
    const file = join(tmp, 'evidence.jsonl');
    const evidence = new EvidenceLog(file, 'j1');
    const sent: string[] = [];
    new JobSinks([evidenceSink(evidence), answerKeysSink(evidence, typedInto(file, sent), log)]).emit({ kind: 'action', action: answer });
    expect(sent).toEqual(['y+enter after 1 record(s)']);
  });

  it('no record, no keys: a failed evidence write sends nothing', () => {
    const evidence = new EvidenceLog(join(tmp, 'no-such-dir', 'evidence.jsonl'), 'j1');
    const sent: string[] = [];
    new JobSinks([evidenceSink(evidence), answerKeysSink(evidence, typedInto('/dev/null', sent), log)]).emit({ kind: 'action', action: answer });
    expect(sent).toEqual([]);
    expect(errors).toEqual(['evidence could not be written; the answer is not sent']);
  });

  it('every event reaches every sink in list order; the blocked prompt clears when the block ends', () => {
    const seen: string[] = [];
    const tap = (name: string) => ({ event: (e: JobEvent) => seen.push(`${name}:${e.kind}`) });
    const prompt = new BlockedPromptSink();
    const sinks = new JobSinks([tap('a'), prompt, tap('b')]);
    sinks.emit({ kind: 'action', action: answer });
    expect(prompt.current).toBe(answer);
    sinks.emit({ kind: 'transition', transition: { from: 'blocked', to: 'running', reason: { code: 'answered' }, t: 1 } });
    expect(prompt.current).toBeUndefined();
    expect(seen).toEqual(['a:action', 'b:action', 'a:transition', 'b:transition']);
  });
});
