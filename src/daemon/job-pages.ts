/**
 * What a job's escalation page says and which commands it offers: commands
 * a person can paste as they are (`--state DIR` included unless the
 * folder is the one a bare command finds: NIGHTSHIFT_STATE, or the per-user home), the command inside a
 * permission dialog, a probe's verdict and the three ways on from it.
 */
import { defaultStateDir } from '../util/home.js';
import type { PromptRule } from '../core/prompt-match.js';
import { PROBE_BLOCK } from '../core/task-state.js';
import type { Action } from '../core/watchdog-types.js';
import type { Page, PageKind } from '../notify/page.js';

/** Blocks with no rule behind them: a person decides, as for an unknown question. */
const WAITS_FOR_PERSON: ReadonlySet<string> = new Set(['unknown-prompt', 'unknown-dialog', 'agent-waiting']);
/** A dialog (or what an agent says is one) is answered with keys (arrows, Tab, Enter): attach and press them. */
const ANSWERED_BY_KEYS: ReadonlySet<string> = new Set(['unknown-dialog', 'agent-waiting']);

export type PageBase = Omit<Page, 'kind' | 'reason' | 'prompt' | 'urgent' | 'key'>;

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

export { PAGE_LOG_LINES } from '../notify/ended-pages.js';

/** `nightshift VERB [--state DIR] ARGS…`, quoted for a POSIX shell. */
export function cliCommand(stateDir: string, verb: string, ...args: string[]): string {
  const state = defaultStateDir() === stateDir ? [] : ['--state', stateDir];
  return ['nightshift', verb, ...state, ...args].map(quote).join(' ');
}

function kindOf(reason: string): PageKind {
  if (reason === 'prompt' || reason === 'hung') return reason;
  if (reason.startsWith(PROBE_BLOCK)) return 'probe';
  return WAITS_FOR_PERSON.has(reason) ? 'unknown-prompt' : 'other';
}

/** The page for an escalation: one per episode. */
export function actionPage(a: Action, base: PageBase, key: string, stateDir: string, rule: PromptRule | undefined): Page {
  const name = base.name;
  const kind = kindOf(a.reason);
  const cli = (verb: string, ...args: string[]) => cliCommand(stateDir, verb, ...args);
  let commands: string[];
  if (kind === 'probe') commands = [cli('send', name, '<what to do instead>'), cli('continue', name), cli('cancel', name)];
  else if (kind === 'hung') commands = [cli('show', name)];
  else if (ANSWERED_BY_KEYS.has(a.reason)) commands = [cli('attach', name)];
  else commands = [cli('answer', name, rule && rule.answer[0]?.length === 1 ? rule.answer[0] : '<answer>')];
  return {
    ...base,
    key,
    kind,
    reason: a.reason,
    rule: a.rule,
    class: a.class,
    // A probe's page is its verdict: the repeated call or error and the count, in the probe's words.
    prompt: kind === 'probe' ? a.text : a.prompt,
    urgent: kind === 'prompt' || kind === 'unknown-prompt' || kind === 'probe',
    answer_command: commands[0]!,
    commands,
    ...(a.command ? { command: a.command } : {}),
    // What a Decline button would send: only a known prompt whose rule has a safe "no".
    ...(kind === 'prompt' && rule && rule.decline.length > 0 ? { decline_keys: [...rule.decline] } : {}),
  };
}
