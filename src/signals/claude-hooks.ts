/**
 * Claude Code's hooks as agent states. What 2.1.112 and 2.1.332 really send
 * (run here against the fake model, test/fixtures/agent-signals/):
 *   PreToolUse, then PermissionRequest as the permission dialog is drawn,
 *   Notification `permission_prompt` some 6 s later (only if nobody touched
 *   the terminal), PostToolUse after the call, Stop at the end of the turn,
 *   Notification `idle_prompt` 60 s after that. A rejection (Escape) fires
 *   nothing. Older releases send a Notification with only its `message`.
 */
import { z } from 'zod';
import type { AgentState } from '../core/agent-state.js';
import { hooksOn, saidBy, stdinLineCommand } from './hook-command.js';

export const CLAUDE_HOOK_SOURCE = 'claude-hook';
const said = saidBy(CLAUDE_HOOK_SOURCE);

/** Registered without a matcher: a Notification of a release without `notification_type` must reach us too. */
const EVENTS = ['PreToolUse', 'PermissionRequest', 'PostToolUse', 'PostToolUseFailure', 'Notification', 'UserPromptSubmit', 'Stop'] as const;

const WORKING = new Set(['PreToolUse', 'PostToolUse', 'PostToolUseFailure', 'UserPromptSubmit']);
const WAITING_TYPES = new Set(['permission_prompt', 'elicitation_dialog']);

const HookInput = z.looseObject({
  hook_event_name: z.string(),
  notification_type: z.string().optional(),
  message: z.string().optional(),
});

/** The hooks part of the job's settings: every event appends its input to `signalsFile`. */
export function claudeHooks(signalsFile: string): Record<string, unknown[]> {
  return hooksOn(EVENTS, { hooks: [{ type: 'command', command: stdinLineCommand(signalsFile) }] });
}

/** The state one hook input says, or undefined for an event that says nothing about waiting. */
export function claudeHookState(input: unknown): AgentState | undefined {
  const r = HookInput.safeParse(input);
  if (!r.success) return undefined;
  const event = r.data.hook_event_name;
  if (WORKING.has(event)) return said('working', event);
  if (event === 'Stop') return said('idle', event);
  if (event === 'PermissionRequest') return said('waiting', event);
  if (event !== 'Notification') return undefined;
  const type = r.data.notification_type ?? typeOfMessage(r.data.message ?? '');
  if (type === undefined) return undefined;
  if (WAITING_TYPES.has(type)) return said('waiting', type);
  return type === 'idle_prompt' ? said('idle', type) : undefined;
}

/** A Notification without its type (older releases): its message, as 2.1.x words them. */
function typeOfMessage(message: string): string | undefined {
  if (/needs your (?:permission|approval)|wants to enter plan mode/i.test(message)) return 'permission_prompt';
  if (/waiting for your input/i.test(message)) return 'idle_prompt';
  if (/needs your (?:input|attention)/i.test(message)) return 'elicitation_dialog';
  return undefined;
}
