import { describe, expect, it } from 'vitest';
import { snapshotOf } from '../../test/helpers/snapshot.js';
import { driveWatchdog } from '../../test/helpers/watchdog-harness.js';
import { KNOWN_DIALOG_SETTLE_MS, type Signal } from './watchdog-types.js';
import { agentStateMarker, parseAgentStateMarker, type AgentState } from './agent-state.js';
import { parseMarker } from './tool-events.js';

function harness() {
  const { wd, at } = driveWatchdog({ screenQuietMs: 180_000, toolGapMs: 900_000, settleMs: 1_500, verifyMs: 5_000 });
  const screen = (text: string): Signal => ({ kind: 'screen', snapshot: snapshotOf(text, { cursor: 'below' }) });
  const agent = (state: AgentState['state'], detail: string, hint = false, source = hint ? 'claude-session' : 'claude-hook'): Signal => ({
    kind: 'agent',
    signal: { state, source, detail, hint },
  });
  const states = () => wd.history.map((h) => `${h.t}:${h.to}:${h.reason.code}${h.reason.detail ? `:${h.reason.detail}` : ''}`);
  return { wd, at, screen, agent, states };
}

// A dialog of a future version that no rule names and whose structure the detector does not know either.
const ODD = '● Bash(rm -rf build)\n\n  Claude wants to run rm -rf build\n  [ allow ]   [ deny ]\n';
const TOOL = (phase: 'start' | 'finish'): Signal => ({ kind: 'tool', event: { phase, name: 'Bash', id: 't1' } });

describe('agent states in the watchdog (issue 9.3)', () => {
  it('a hook saying "waiting for permission" blocks as agent-waiting after the grace, never answered', () => {
    const h = harness();
    h.at(1_000, h.screen(ODD));
    h.at(1_100, TOOL('start'));
    h.at(1_200, h.agent('waiting', 'permission_prompt'));
    h.at(1_699);
    expect(h.wd.state).toBe('running');
    h.at(1_700);
    expect(h.states().at(-1)).toBe('1700:blocked:agent-waiting:claude-hook:permission_prompt');
    expect(h.wd.reason.class).toBe('unknown');
    expect(h.wd.actions).toHaveLength(1);
    expect(h.wd.actions[0]).toMatchObject({ kind: 'escalate', reason: 'agent-waiting', since: 1_200 });
    expect(h.wd.actions[0]!.prompt).toContain('[ allow ]');
    expect(h.wd.actions.some((a) => a.kind === 'answer')).toBe(false);
  });

  it('a rule that names the dialog wins over the hook: blocked as prompt, one escalation', () => {
    const h = harness();
    const dialog = ' Bash command\n\n   touch made.txt\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and always allow access to proj/ from this project\n   3. No\n\n Esc to cancel · Tab to amend';
    h.at(1_000, h.screen(dialog));
    h.at(1_100, h.agent('waiting', 'permission_prompt'));
    h.at(5_000);
    expect(h.wd.reason).toMatchObject({ code: 'prompt', rule: 'claude-code-permission' });
    expect(h.wd.actions).toHaveLength(1);
  });

  it('a rule\'s prompt answered (or rejected: no hook follows) takes the agent\'s waiting with it: no second block', () => {
    const h = harness();
    const dialog = ' Bash command\n\n   touch made.txt\n\n Do you want to proceed?\n ❯ 1. Yes\n   2. Yes, and always allow access to proj/ from this project\n   3. No\n\n Esc to cancel · Tab to amend';
    h.at(1_000, h.agent('waiting', 'PermissionRequest'));
    h.at(1_010, h.screen(dialog));
    h.at(3_000);
    expect(h.wd.reason).toMatchObject({ code: 'prompt', rule: 'claude-code-permission' });
    h.at(4_000, h.screen('● Bash(touch made.txt)\n  ⎿  Interrupted · What should Claude do instead?\n\n❯ '));
    h.at(60_000);
    expect(h.states().slice(1)).toEqual(['0:running:started', `${1_010 + KNOWN_DIALOG_SETTLE_MS}:blocked:prompt`, '4000:running:prompt-cleared']);
  });

  it('ends when the agent says it works again, or when its tool call finishes; a start of the asked-about call does not end it', () => {
    const h = harness();
    h.at(1_000, h.screen(ODD));
    h.at(1_200, h.agent('waiting', 'permission_prompt'));
    h.at(2_000, TOOL('start'));
    expect(h.wd.reason.code).toBe('agent-waiting');
    h.at(3_000, h.agent('working', 'PostToolUse'));
    expect(h.states().at(-1)).toBe('3000:running:agent-working:claude-hook:PostToolUse');
    h.at(60_000);
    expect(h.wd.state).toBe('running');
  });

  it('new content on screen ends it once the dialog had time to be drawn (a rejection fires no hook)', () => {
    const h = harness();
    h.at(1_000, h.agent('waiting', 'permission_prompt'));
    h.at(1_500);
    expect(h.wd.reason.code).toBe('agent-waiting');
    h.at(1_600, h.screen(ODD)); // the dialog itself, drawn after the hook
    expect(h.wd.reason.code).toBe('agent-waiting');
    h.at(4_000, h.screen(`${ODD}\n  ⎿  Interrupted · What should Claude do instead?`));
    expect(h.states().at(-1)).toBe('4000:running:screen');
  });

  it('a hint alone never blocks a screen that shows something new or a busy process', () => {
    const h = harness();
    h.at(0, h.agent('waiting', 'waiting', true));
    for (let t = 100; t <= 10_000; t += 700) h.at(t, h.screen(`${ODD}\nline ${t}`));
    expect(h.wd.state).toBe('running');
    h.at(10_100, { kind: 'proc', busy: true });
    h.at(20_000);
    expect(h.wd.state).toBe('running');
    h.at(20_100, { kind: 'proc', busy: false });
    h.at(21_599);
    expect(h.wd.state).toBe('running');
    h.at(21_600);
    expect(h.states().at(-1)).toBe('21600:blocked:agent-waiting:claude-session:waiting');
  });

  it('a hint blocks a still screen after the settle time; a blinking glyph is not new', () => {
    const h = harness();
    for (let t = 0; t <= 6_000; t += 600) h.at(t, h.screen(ODD.replace('●', t % 1_200 ? ' ' : '●')));
    h.at(6_100, h.agent('waiting', 'waiting', true));
    h.at(7_599);
    expect(h.wd.state).toBe('running');
    h.at(7_600);
    expect(h.wd.reason).toMatchObject({ code: 'agent-waiting', detail: 'claude-session:waiting' });
  });

  it('working ends a hang; idle ends only an agent-waiting block', () => {
    const h = harness();
    h.at(1_000, h.screen('$ '));
    h.at(900_000);
    h.at(901_000);
    expect(h.wd.reason.code).toBe('hung');
    h.at(902_000, h.agent('idle', 'Stop'));
    expect(h.wd.reason.code).toBe('hung');
    h.at(903_000, h.agent('working', 'PreToolUse'));
    expect(h.wd.state).toBe('running');
  });
});

describe('agent state markers', () => {
  it('round-trip through the recording marker, details with colons kept', () => {
    const s: AgentState = { state: 'waiting', source: 'codex-notify', detail: 'approval:exec', hint: false };
    expect(parseAgentStateMarker(agentStateMarker(s))).toEqual(s);
    expect(parseMarker(agentStateMarker(s))).toEqual({ kind: 'agent', state: s });
  });
  it.each(['agent-state:', 'agent-state:sleeping:said:x:y', 'agent-state:waiting:maybe:x:y', 'agent-state:waiting:said::y', 'tool:Bash'])(
    'reject %j',
    (label) => expect(parseAgentStateMarker(label)).toBeUndefined(),
  );
});
