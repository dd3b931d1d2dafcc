/**
 * What a tool call does (write, read, test, list, poll, shell, other), from
 * the tool contract in rules/probes.yaml — never from the agent's reply text,
 * which is the thing being judged. Shell calls are judged by their command.
 */
import type { ToolRole } from '../core/agent-events.js';
import { commandOf, coreOf, segmentsOf } from './shell.js';
import type { ProbeRules, ToolCallEvent } from './types.js';

export interface CallInfo {
  /** The call's main role (the strongest of its commands'). */
  readonly role: ToolRole;
  /** Roles of a shell call's simple commands in order; [role] for other tools. */
  readonly steps: readonly ToolRole[];
  /** Commits, pushes, opens a PR: a real side effect that is not a file write. */
  readonly sideEffect: boolean;
}

/** Strongest first: a command line that writes and then lists is a write. */
const STRENGTH: readonly ToolRole[] = ['write', 'test', 'poll', 'list', 'read', 'shell', 'other'];
const CHECKS: ReadonlySet<ToolRole> = new Set(['read', 'test', 'list']);

export function classifyCall(tool: string, args: Readonly<Record<string, unknown>>, rules: ProbeRules): CallInfo {
  const named = rules.tools.get(tool);
  if (named === 'shell') return classifyShell(commandOf(args, rules.commandKeys), rules);
  if (named !== undefined) return { role: named, steps: [named], sideEffect: false };
  const pattern = rules.toolPatterns.find((p) => p.match.test(tool));
  if (pattern) return { role: pattern.role, steps: [pattern.role], sideEffect: pattern.sideEffect };
  return { role: 'other', steps: ['other'], sideEffect: false };
}

export function classifyShell(command: string | null, rules: ProbeRules): CallInfo {
  if (command === null) return { role: 'shell', steps: ['shell'], sideEffect: false };
  const steps: ToolRole[] = [];
  let sideEffect = false;
  for (const segment of segmentsOf(command)) {
    const core = coreOf(segment);
    if (core === null) continue;
    const rule = rules.commands.find((r) => r.match.test(core));
    steps.push(rule?.role ?? 'shell');
    sideEffect ||= rule?.sideEffect ?? false;
  }
  if (steps.length === 0) return { role: 'shell', steps: ['shell'], sideEffect };
  return { role: strongest(steps), steps, sideEffect };
}

function strongest(roles: readonly ToolRole[]): ToolRole {
  return STRENGTH.find((r) => roles.includes(r)) ?? 'other';
}

export const writes = (info: CallInfo): boolean => info.steps.includes('write');

/** A read, test or list run after the call's last write (or anywhere, if it wrote nothing). */
export function checksAfterWrite(info: CallInfo): boolean {
  const last = info.steps.lastIndexOf('write');
  return info.steps.slice(last + 1).some((r) => CHECKS.has(r));
}

export function classifyEvent(call: ToolCallEvent, rules: ProbeRules): CallInfo {
  return classifyCall(call.tool, call.args, rules);
}
