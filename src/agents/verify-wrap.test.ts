/** Verify before accepting and the wrap-up reserve, through the monitor a live job uses; events in virtual time. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../core/agent-events.js';
import { parseProbeConfig } from '../probes/profiles-file.js';
import { AgentMonitor, type MonitorResponse } from './monitor.js';
import { HandOff } from './hand-off.js';
import { VERIFY_GATE } from './verify-gate.js';
import { WRAP_UP } from './wrap-up.js';

const file = new URL('../../rules/probes.yaml', import.meta.url);
const profile = parseProbeConfig(readFileSync(file, 'utf8'), 'rules/probes.yaml').profile();

type Call = [string, Record<string, unknown>, boolean];
let n = 0;
const id = () => `v:${++n}`;
function turn(text: string, final: string, calls: Call[] = []): AgentEvent[] {
  const evs: AgentEvent[] = [{ kind: 'turn-start', id: id(), t: n, text }];
  for (const [tool, args, ok] of calls) {
    const call = id();
    evs.push({ kind: 'tool-call', id: call, t: n, tool, args, canonical: `${tool} ${JSON.stringify(args)}` });
    evs.push({ kind: 'tool-result', id: id(), t: n, callId: call, tool, ok, fingerprint: `${n}`, errorHead: ok ? null : 'failed' });
  }
  evs.push({ kind: 'assistant-text', id: id(), t: n, text: final }, { kind: 'turn-end', id: id(), t: n, finalText: final });
  return evs;
}
const feed = (m: AgentMonitor, evs: AgentEvent[], projectCheck: string | null = 'npm test') => evs.flatMap((e) => m.observe(e, { gitChanged: true, projectCheck }));
const gate = (rs: MonitorResponse[]) => rs.filter((r) => r.verdict.probe === VERIFY_GATE);
const write: Call = ['Bash', { command: 'echo "return a + b" > sum.js' }, true];
const npmTest = (ok: boolean): Call => ['Bash', { command: 'npm test' }, ok];

describe('verify before accepting', () => {
  it('reminds twice to run the project\'s check, then accepts the claim unverified; the turns the reminders open are no fake completions', () => {
    const m = new AgentMonitor(profile);
    const first = feed(m, turn('fix the sum', 'Done: I fixed the sum function.', [write]));
    expect(gate(first).map((r) => r.kind)).toEqual(['nudge']);
    const text = gate(first)[0]!.text!;
    expect(text).toContain('Run `npm test`');
    expect(text).toContain('reminder 1 of 2');
    const second = feed(m, turn(text, 'Done: the fix is in place.'));
    expect(second.filter((r) => r.kind === 'escalate')).toEqual([]);
    expect(gate(second).map((r) => [r.kind, r.text?.includes('reminder 2 of 2')])).toEqual([['nudge', true]]);
    const third = feed(m, turn(gate(second)[0]!.text!, 'Done.'));
    expect(third.filter((r) => r.kind !== 'record')).toEqual([]);
    expect(gate(third)).toEqual([expect.objectContaining({ kind: 'record', unverified: true })]);
    expect(gate(third)[0]!.verdict.evidence).toHaveLength(3);
  });

  it('counts only a successful check after the last change: a failed test, a read, or a test before the change is none', () => {
    for (const calls of [[write, npmTest(false)], [write, ['Read', { file_path: 'sum.js' }, true] as Call], [npmTest(true), write]]) {
      const m = new AgentMonitor(profile);
      expect(gate(feed(m, turn('fix', 'Done: I fixed it.', calls))).map((r) => r.kind), JSON.stringify(calls)).toEqual(['nudge']);
    }
  });

  it('accepts a passing check after the last change, in the same turn or the one a reminder opened, and a line that writes then tests', () => {
    const same = new AgentMonitor(profile);
    expect(gate(feed(same, turn('fix', 'Done: I fixed it.', [write, npmTest(false), write, npmTest(true)])))).toEqual([]);
    const oneLine = new AgentMonitor(profile);
    expect(gate(feed(oneLine, turn('fix', 'Done: I fixed it.', [['Bash', { command: 'echo x > a.js && npm test' }, true]])))).toEqual([]);
    const later = new AgentMonitor(profile);
    const [r] = gate(feed(later, turn('fix', 'Done: I fixed it.', [write])));
    const after = feed(later, turn(r!.text!, 'Done: npm test passes.', [npmTest(true)]));
    expect(after.filter((x) => x.kind !== 'record')).toEqual([]);
    expect(gate(after)).toEqual([]);
  });

  it('asks nothing when the project names no check, the reply claims nothing, or the profile turns reminders off', () => {
    expect(gate(feed(new AgentMonitor(profile), turn('fix', 'Done: I fixed it.', [write]), null))).toEqual([]);
    expect(gate(feed(new AgentMonitor(profile), turn('fix', 'Should I also update the docs?', [write])))).toEqual([]);
    expect(gate(feed(new AgentMonitor({ ...profile, verifyReminders: 0 }), turn('fix', 'Done: I fixed it.', [write])))).toEqual([]);
  });
});

describe('the wrap-up reserve', () => {
  const call = (i: number): AgentEvent => ({ kind: 'tool-call', id: `c${i}`, t: i, tool: 'Bash', args: { command: `echo ${i}` }, canonical: `Bash echo ${i}` });
  const usage = (i: number, tokens: number): AgentEvent => ({ kind: 'usage', id: `u${i}`, t: i, inputTokens: tokens, outputTokens: 0 });
  const wraps = (rs: MonitorResponse[]) => rs.filter((r) => r.verdict.probe === WRAP_UP);

  it('asks once, at the first call past 85% of the step budget; the hard stop stays at 100%', () => {
    const m = new AgentMonitor({ ...profile, maxSteps: 10 });
    const at: Array<[number, string]> = [];
    for (let i = 1; i <= 11; i++) for (const r of m.observe(call(i), { gitChanged: null })) at.push([i, `${r.verdict.probe}/${r.kind}`]);
    const stop = m.observe({ kind: 'tool-result', id: 'r11', t: 11, callId: 'c11', tool: 'Bash', ok: true, fingerprint: 'x', errorHead: null }, { gitChanged: null });
    expect(at).toEqual([[9, 'wrap-up/nudge']]);
    expect(stop.map((r) => `${r.verdict.probe}/${r.kind}`)).toContain('budget-overrun/stop');
  });

  it('asks for the token budget on its own, once; never when off, nor again for a job adopted past its reserve', () => {
    const m = new AgentMonitor({ ...profile, maxTokens: 1000 });
    const said = [usage(1, 500), usage(2, 400), usage(3, 50)].flatMap((u) => wraps(m.observe(u, { gitChanged: null })));
    expect(said.map((r) => r.verdict.evidence)).toEqual([['u2']]);
    expect(said[0]!.text).toContain('900 tokens of its token budget of 1000 tokens');
    const off = new AgentMonitor({ ...profile, maxSteps: 2, wrapUp: null });
    expect([1, 2].flatMap((i) => wraps(off.observe(call(i), { gitChanged: null })))).toEqual([]);
    const adopted = new AgentMonitor({ ...profile, maxSteps: 10 }, { steps: 9, tokens: 0 });
    expect(wraps(adopted.observe(call(10), { gitChanged: null }))).toEqual([]);
  });

  it('keeps what the agent wrote after it was asked, from where the message reached it', () => {
    const h = new HandOff();
    h.observe({ kind: 'assistant-text', id: 'a0', t: 0, text: 'before' });
    expect(h.text).toBeNull();
    h.asked('nightshift: wrap up');
    h.observe({ kind: 'assistant-text', id: 'a1', t: 1, text: 'still answering the last call' });
    h.observe({ kind: 'turn-start', id: 's', t: 2, text: 'nightshift: wrap up' });
    h.observe({ kind: 'assistant-text', id: 'a2', t: 3, text: 'Verified: a. Not verified: b.' });
    h.observe({ kind: 'assistant-text', id: 'a3', t: 4, text: 'Next: c, in src/x.ts.' });
    expect(h.text).toBe('Verified: a. Not verified: b.\n\nNext: c, in src/x.ts.');
  });
});
