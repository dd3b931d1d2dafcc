/** Building the actions the watchdog emits: what a person (or the pty) receives. */
import type { PromptMatch } from './prompt-match.js';
import type { ScreenSnapshot } from './screen-snapshot.js';
import type { Reason } from './task-state.js';
import type { Action, PromptResponder, ResponderDecision } from './watchdog-types.js';

/** Without a responder nothing is answered: a person decides. */
export const NO_RESPONDER: PromptResponder = {
  decide: ({ match }) => ({
    kind: 'escalate',
    layer: 'policy',
    why: 'no responder configured',
    class: match.rule.class,
    keys: [],
    command: null,
    packages: [],
  }),
};

export function promptAction(
  screen: ScreenSnapshot | undefined,
  kind: Action['kind'],
  match: PromptMatch,
  since: number,
  now: number,
  d: Pick<ResponderDecision, 'layer' | 'why' | 'class'> & Partial<ResponderDecision>,
): Action {
  const lines = match.text.split('\n').map((l) => l.trim()).filter(Boolean);
  // The question, not a dialog's footer; for an agent dialog, the command it wants to run.
  const gist = d.command ? `$ ${d.command}` : ([...lines].reverse().find((l) => l.includes('?')) ?? lines.at(-1) ?? '');
  const verb = kind === 'answer' ? `answered ${JSON.stringify(d.keys ?? [])}` : 'escalated';
  return {
    t: now,
    kind,
    rule: match.rule.id,
    class: d.class,
    prompt: match.text,
    text: `${d.class} prompt (rule ${match.rule.id}) ${verb}: ${d.why} — ${gist}`,
    reason: 'prompt',
    since,
    screen: screen?.rows ?? [],
    layer: d.layer,
    why: d.why,
    ...(kind === 'answer' ? { keys: d.keys ?? [] } : {}),
    ...(d.command !== undefined ? { command: d.command } : {}),
    ...(d.packages?.length ? { packages: d.packages } : {}),
    ...(d.risks?.length ? { risks: d.risks } : {}),
  };
}

export function describeBlock(reason: Reason, prompt: string | undefined): string {
  const lastLine = prompt?.split('\n').filter((l) => l.trim()).pop()?.trim() ?? '';
  switch (reason.code) {
    case 'unknown-prompt':
      return `quiet screen ends in an unrecognised question: ${lastLine}`;
    case 'unknown-dialog':
      return `a ${reason.detail ?? 'dialog'} no rule names waits at the bottom of the screen: ${lastLine}`;
    case 'parked':
      return parkedInWords(reason.detail);
    case 'agent-waiting':
      return `the agent says it waits for a person (${reason.detail ?? 'no detail'}) and no rule names its screen: ${lastLine}`;
    default:
      return 'nothing moves: screen quiet, no tool call, no child activity';
  }
}

const BLOCK_WHY: Readonly<Record<string, string>> = {
  hung: 'nothing moves',
  'unknown-dialog': 'a dialog no rule names: escalated, never answered',
  'agent-waiting': 'the agent says it waits for a person and no rule names its screen: escalated, never answered',
  'unknown-prompt': 'unrecognised question on a quiet screen',
  parked: 'a watch mode: done with its work, it waits for keys it will never get; paged once, never answered',
};

/** What a parked job is, in words: `vitest is watching for changes and will never end by itself`. */
function parkedInWords(program: string | undefined): string {
  return `${program ?? 'the program'} is watching for changes and will never end by itself`;
}

/** The escalation of a block no rule's prompt is behind (hung, an unknown question or dialog, the agent's word). */
export function blockAction(reason: Reason, prompt: string | undefined, since: number, now: number, screen: readonly string[]): Action {
  return {
    t: now,
    kind: 'escalate',
    rule: null,
    class: reason.class ?? null,
    prompt: prompt ?? null,
    text: describeBlock(reason, prompt),
    reason: reason.code,
    since,
    screen,
    layer: 'watchdog',
    why: BLOCK_WHY[reason.code] ?? reason.code,
  };
}
