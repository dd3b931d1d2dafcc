import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { claudeHookState } from './claude-hooks.js';
import { sessionHint, sessionStatusTrusted } from './claude-session.js';
import { codexNotifyState } from './codex-notify.js';
import { geminiHookState } from './gemini-hooks.js';
import { parseSignalLine } from './signal-file.js';
import { HOOK_LINE_CAP } from './hook-command.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/agent-signals/', import.meta.url));
const lines = (name: string) => readFileSync(`${FIXTURES}${name}`, 'utf8').split('\n').filter(Boolean);
const said = (states: ReturnType<typeof claudeHookState>[]) => states.map((s) => (s ? `${s.state}:${s.detail}${s.hint ? ':hint' : ''}` : '-'));

describe('Claude hooks as agent states (real 2.1.112 / 2.1.332 inputs)', () => {
  it('2.1.112: prompt and tool calls work, the dialog waits (PermissionRequest, then Notification), Stop and idle_prompt are idle', () => {
    expect(said(lines('claude-2.1.112-hooks.jsonl').map((l) => claudeHookState(parseSignalLine(l))))).toEqual([
      '-',
      'working:UserPromptSubmit',
      'working:PreToolUse',
      'waiting:PermissionRequest',
      'waiting:permission_prompt',
      'working:PostToolUse',
      'idle:Stop',
      'idle:idle_prompt',
    ]);
  });

  it('2.1.332 sends the same events; its Notification names no tool', () => {
    expect(said(lines('claude-2.1.332-hooks.jsonl').map((l) => claudeHookState(parseSignalLine(l)))).slice(3)).toEqual([
      'waiting:PermissionRequest',
      'waiting:permission_prompt',
    ]);
  });

  it.each([
    ['Claude needs your permission to use Bash', 'waiting:permission_prompt'],
    ['Claude Code needs your approval for the plan', 'waiting:permission_prompt'],
    ['Claude is waiting for your input', 'idle:idle_prompt'],
    ['Claude Code needs your input', 'waiting:elicitation_dialog'],
    ['Claude Code login successful', '-'],
  ])('an older Notification with only a message %j → %s', (message, want) => {
    expect(said([claudeHookState({ hook_event_name: 'Notification', message })])).toEqual([want]);
  });

  it('elicitation_dialog waits; auth_success, SessionStart and junk say nothing', () => {
    expect(said([
      claudeHookState({ hook_event_name: 'Notification', notification_type: 'elicitation_dialog', message: 'x' }),
      claudeHookState({ hook_event_name: 'Notification', notification_type: 'auth_success', message: 'x' }),
      claudeHookState({ hook_event_name: 'SessionStart' }),
      claudeHookState(['Stop']),
      claudeHookState(undefined),
    ])).toEqual(['waiting:elicitation_dialog', '-', '-', '-', '-']);
  });

  it('a line cut at the hook cap (a long tool output) still says its event', () => {
    const line = JSON.stringify({ session_id: 's', hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_response: { stdout: 'x'.repeat(20_000) } }).slice(0, HOOK_LINE_CAP);
    expect(said([claudeHookState(parseSignalLine(line))])).toEqual(['working:PostToolUse']);
    expect(parseSignalLine('{"nothing": ')).toBeUndefined();
  });
});

describe("Claude's session file as a hint", () => {
  it('2.1.332: idle, busy, waiting for the permission prompt, idle again — each a hint', () => {
    expect(said(lines('claude-2.1.332-session.jsonl').map(sessionHint))).toEqual([
      '-',
      'idle:idle:hint',
      'working:busy:hint',
      'waiting:waiting:permission prompt:hint',
      'idle:idle:hint',
    ]);
  });

  it('2.1.112 writes no status: nothing to read', () => {
    expect(sessionHint(lines('claude-2.1.112-session.json')[0]!)).toBeUndefined();
  });

  it('another shape, an unknown status, a version not checked, or a torn write: nothing', () => {
    const base = JSON.parse(lines('claude-2.1.332-session.jsonl')[3]!);
    expect(sessionHint(JSON.stringify({ ...base, status: 'thinking' }))).toBeUndefined();
    expect(sessionHint(JSON.stringify({ ...base, pid: 'x' }))).toBeUndefined();
    expect(sessionHint(JSON.stringify({ ...base, version: '2.2.0' }))).toBeUndefined();
    expect(sessionHint(JSON.stringify(base).slice(0, 40))).toBeUndefined();
  });

  it.each([['2.1.332', true], ['2.1.340', true], ['2.1.112', false], ['2.2.0', false], [undefined, false]])('version %s trusted: %s', (v, ok) => {
    expect(sessionStatusTrusted(v)).toBe(ok);
  });
});

describe('Codex notify and Gemini hooks as agent states', () => {
  it('Codex 0.171.0: agent-turn-complete is idle (its title thread too), anything else nothing', () => {
    expect(said(lines('codex-0.171.0-notify.jsonl').map((l) => codexNotifyState(parseSignalLine(l))))).toEqual(['idle:agent-turn-complete', 'idle:agent-turn-complete']);
    expect(codexNotifyState({ type: 'approval-requested' })).toBeUndefined();
  });

  it('Gemini (from the 0.61.0 bundle, not run): ToolPermission waits, tools and turns work, AfterAgent is idle', () => {
    const g = (hook_event_name: string, notification_type?: string) => geminiHookState({ hook_event_name, notification_type, message: 'm', details: {} });
    expect(said([g('BeforeAgent'), g('BeforeTool'), g('Notification', 'ToolPermission'), g('AfterTool'), g('AfterAgent'), g('SessionStart'), g('Notification', 'Other')])).toEqual([
      'working:BeforeAgent', 'working:BeforeTool', 'waiting:ToolPermission', 'working:AfterTool', 'idle:AfterAgent', '-', '-',
    ]);
  });
});
