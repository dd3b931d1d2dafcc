import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../core/agent-events.js';
import { parseProbeConfig } from '../probes/profiles-file.js';
import { AgentMonitor, GUARD_FAILS_IN_A_ROW } from './monitor.js';

const file = new URL('../../rules/probes.yaml', import.meta.url);
const profile = parseProbeConfig(readFileSync(file, 'utf8'), 'rules/probes.yaml').profile();

let n = 0;
const id = () => `t:${++n}`;
const turn = (text: string, final: string, calls: Array<[string, Record<string, unknown>, boolean]> = []): AgentEvent[] => {
  const evs: AgentEvent[] = [{ kind: 'turn-start', id: id(), t: n, text }];
  for (const [tool, args, ok] of calls) {
    const call = id();
    evs.push({ kind: 'tool-call', id: call, t: n, tool, args, canonical: `${tool} ${JSON.stringify(args)}` });
    evs.push({ kind: 'tool-result', id: id(), t: n, callId: call, tool, ok, fingerprint: ok ? 'same' : 'err', errorHead: ok ? null : 'No such file' });
  }
  evs.push({ kind: 'assistant-text', id: id(), t: n, text: final }, { kind: 'turn-end', id: id(), t: n, finalText: final });
  return evs;
};

function feed(m: AgentMonitor, evs: AgentEvent[], gitChanged: boolean | null = null) {
  return evs.flatMap((e) => m.observe(e, { gitChanged }));
}

describe('AgentMonitor', () => {
  it('nudges an announce-then-stop turn, and escalates once the guard fails 3 turns in a row', () => {
    const m = new AgentMonitor(profile);
    const kinds: string[] = [];
    for (let i = 0; i < GUARD_FAILS_IN_A_ROW; i++) {
      const rs = feed(m, turn(i === 0 ? 'fix the bug' : 'continue', "I'll now run the tests:", [['Read', { file_path: `a${i}.ts` }, true]]));
      kinds.push(...rs.filter((r) => r.verdict.probe === 'announce-then-stop').map((r) => r.kind));
    }
    expect(kinds).toEqual(['nudge', 'nudge', 'escalate']);
  });

  it('escalates a loop of identical calls, citing their event ids', () => {
    const m = new AgentMonitor(profile);
    const ls: [string, Record<string, unknown>, boolean] = ['Bash', { command: 'cat missing.txt' }, false];
    const rs = feed(m, turn('go', 'still failing', [ls, ls, ls, ls]));
    const loop = rs.find((r) => r.kind === 'escalate');
    expect(loop?.verdict.probe).toMatch(/^repeated-(action|failure)$/);
    expect(loop!.verdict.evidence.length).toBeGreaterThanOrEqual(3);
  });

  it('flags a claim of done with no write and no git change; not when git changed', () => {
    const claim = (git: boolean) => feed(new AgentMonitor(profile), turn('make notes', 'I created the file notes.md.', [['Read', { file_path: 'x' }, true]]), git);
    expect(claim(false).some((r) => r.verdict.probe === 'fake-completion' && r.kind === 'escalate')).toBe(true);
    expect(claim(true).some((r) => r.verdict.probe === 'fake-completion')).toBe(false);
  });

  it('remembers earlier turns\' git facts when later events re-run the probes', () => {
    const m = new AgentMonitor(profile);
    feed(m, turn('generate', 'Done, I created the files.', [['Bash', { command: 'python3 gen.py' }, true]]), true);
    const later = feed(m, turn('and now?', 'Here is the summary.', [['Read', { file_path: 'out.txt' }, true]]), false);
    expect(later.filter((r) => r.verdict.probe === 'fake-completion')).toEqual([]);
  });
});
