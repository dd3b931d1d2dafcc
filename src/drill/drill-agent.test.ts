import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../core/agent-events.js';
import { DEFAULT_WATCHDOG } from '../core/watchdog-types.js';
import { parseProbeConfig } from '../probes/profiles-file.js';
import type { Cast } from '../record/asciicast.js';
import { shippedRules } from '../../test/helpers/rules.js';
import { replayCast } from './replay.js';

const profile = parseProbeConfig(readFileSync(new URL('../../rules/probes.yaml', import.meta.url), 'utf8'), 'probes.yaml').profile();

/** A recording whose markers carry an agent's transcript events, as a live job writes them. */
function castOf(events: Array<[number, AgentEvent | string]>): Cast {
  return {
    header: { version: 2, width: 80, height: 24 },
    events: [
      { t: 0.1, code: 'o', data: '> working\r\n' },
      ...events.map(([t, e]) => ({ t, code: 'm', data: typeof e === 'string' ? e : `agent:${JSON.stringify(e)}` })),
    ],
  };
}

describe('drills replay the probes from agent markers', () => {
  it('an announce-then-stop turn becomes a nudge action at the moment of the turn end', async () => {
    const cast = castOf([
      [1, { kind: 'turn-start', id: 'a:1', t: 1, text: 'fix it' }],
      [2, { kind: 'tool-call', id: 'a:2', t: 2, tool: 'Read', args: { file_path: 'x' }, canonical: 'Read {"file_path":"x"}' }],
      [3, { kind: 'tool-result', id: 'a:3', t: 3, callId: 'a:2', tool: 'Read', ok: true, fingerprint: 'f1', errorHead: null }],
      [4, { kind: 'assistant-text', id: 'a:4', t: 4, text: "I'll now run the tests:" }],
      [4, 'git:a:5:false'],
      [4.5, { kind: 'turn-end', id: 'a:5', t: 4.5, finalText: "I'll now run the tests:" }],
      [10, 'exit:0'],
    ]);
    const replay = await replayCast(cast, shippedRules as never, DEFAULT_WATCHDOG, undefined, profile);
    const nudge = replay.actions.find((a) => a.kind === 'nudge');
    expect(nudge).toMatchObject({ t: 4_500, reason: 'probe:announce-then-stop', layer: 'probe', keys: ['continue', 'enter'] });
  });

  it('a claim of done with no write and git unchanged is escalated; the same claim after a git change is not', async () => {
    const turn = (git: boolean): Array<[number, AgentEvent | string]> => [
      [1, { kind: 'turn-start', id: 'b:1', t: 1, text: 'make notes' }],
      [2, { kind: 'assistant-text', id: 'b:2', t: 2, text: 'I created the file notes.md.' }],
      [2, `git:b:3:${git}`],
      [2, { kind: 'turn-end', id: 'b:3', t: 2, finalText: 'I created the file notes.md.' }],
    ];
    const fake = await replayCast(castOf(turn(false)), shippedRules as never, DEFAULT_WATCHDOG, undefined, profile);
    expect(fake.actions.map((a) => `${a.kind} ${a.reason}`)).toContain('escalate probe:fake-completion');
    const real = await replayCast(castOf(turn(true)), shippedRules as never, DEFAULT_WATCHDOG, undefined, profile);
    expect(real.actions.filter((a) => a.reason === 'probe:fake-completion')).toEqual([]);
  });
});
