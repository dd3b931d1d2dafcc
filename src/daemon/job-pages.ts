/**
 * What a job's escalation page says and which commands it offers: commands
 * a person can paste as they are (`--state DIR` included unless the
 * folder is the one a bare command finds: NIGHTSHIFT_STATE, or the per-user home), the command inside a
 * permission dialog, a probe's verdict and the three ways on from it.
 */
import type { PromptRule } from '../core/prompt-match.js';
import { PROBE_BLOCK } from '../core/task-state.js';
import type { Action } from '../core/watchdog-types.js';
import type { Page, PageKind } from '../notify/page.js';
import { cliCommand, dialogChoices, hangWays, keysCommand, questionOf, type Way } from '../notify/page-words.js';

/** Blocks with no rule behind them: a person decides, as for an unknown question. */
const WAITS_FOR_PERSON: ReadonlySet<string> = new Set(['unknown-prompt', 'unknown-dialog', 'agent-waiting']);
/** A dialog (or what an agent says is one) is answered with keys (arrows, Tab, Enter): attach and press them. */
const ANSWERED_BY_KEYS: ReadonlySet<string> = new Set(['unknown-dialog', 'agent-waiting']);

export type PageBase = Omit<Page, 'kind' | 'reason' | 'prompt' | 'urgent' | 'key'>;

export { PAGE_LOG_LINES } from '../notify/ended-pages.js';

export { cliCommand };

function kindOf(reason: string): PageKind {
  if (reason === 'prompt' || reason === 'hung' || reason === 'parked') return reason;
  if (reason.startsWith(PROBE_BLOCK)) return 'probe';
  return WAITS_FOR_PERSON.has(reason) ? 'unknown-prompt' : 'other';
}

type Cli = (verb: string, ...args: string[]) => string;

/** A `[y/N]` with no rule behind it is still answered y or n. */
const YES_NO = /[[(][yY](?:es)?\/[nN]o?[\])]/;

/**
 * Both ways on from a prompt: a dialog's own choices with their keys (never
 * one that widens a permission), else the rule's answer and decline, then
 * the job's details.
 */
function promptWays(cli: Cli, name: string, prompt: string | null, rule: PromptRule | undefined): Way[] {
  const ways: Way[] = [];
  const choices = dialogChoices(prompt);
  if (choices.length >= 2) ways.push(...choices.map((c) => ({ label: `${c.key}. ${c.label}`, command: cli('answer', name, c.key) })));
  else {
    const yesNo = !rule && YES_NO.test(questionOf(prompt) ?? '');
    const yes = rule ? keysCommand(cli, name, rule.answer) : yesNo ? cli('answer', name, 'y') : null;
    const no = rule ? keysCommand(cli, name, rule.decline) : yesNo ? cli('answer', name, 'n') : null;
    ways.push({ label: 'Yes', command: yes ?? cli('answer', name, '<answer>') });
    if (no) ways.push({ label: 'No', command: no });
  }
  const decline = rule && choices.length >= 2 ? keysCommand(cli, name, rule.decline) : null;
  if (decline && !ways.some((w) => w.command === decline)) ways.push({ label: 'Decline', command: decline });
  ways.push({ label: 'Details', command: cli('show', name) });
  return ways;
}

function waysFor(kind: PageKind, a: Action, cli: Cli, name: string, rule: PromptRule | undefined): Way[] {
  if (kind === 'probe') {
    return [
      { label: 'Redirect', command: cli('send', name, '<what to do instead>') },
      { label: 'Go on', command: cli('continue', name) },
      { label: 'Stop', command: cli('cancel', name) },
    ];
  }
  if (kind === 'hung') return hangWays(cli, name);
  if (kind === 'parked') {
    return [
      { label: 'Stop it', command: cli('cancel', name) },
      { label: 'Quit the watch', command: cli('send', name, 'q') },
      { label: 'Details', command: cli('show', name) },
    ];
  }
  if (ANSWERED_BY_KEYS.has(a.reason)) return [{ label: 'Answer at the terminal', command: cli('attach', name) }, { label: 'Details', command: cli('show', name) }];
  return promptWays(cli, name, a.prompt, rule);
}

/** The page for an escalation: one per episode. */
export function actionPage(a: Action, base: PageBase, key: string, stateDir: string, rule: PromptRule | undefined): Page {
  const name = base.name;
  const kind = kindOf(a.reason);
  const cli = (verb: string, ...args: string[]) => cliCommand(stateDir, verb, ...args);
  const ways = waysFor(kind, a, cli, name, rule);
  const commands = ways.map((w) => w.command);
  return {
    ...base,
    key,
    kind,
    reason: a.reason,
    rule: a.rule,
    class: a.class,
    // A probe's page is its verdict: the repeated call or error and the count, in the probe's words.
    // A parked job's page says what it is ("vitest is watching for changes…"); its footer is in the screen.
    prompt: kind === 'probe' || kind === 'parked' ? a.text : a.prompt,
    urgent: kind === 'prompt' || kind === 'unknown-prompt' || kind === 'probe',
    answer_command: commands[0]!,
    commands,
    ways,
    ...(a.command ? { command: a.command } : {}),
    ...(a.risks?.length ? { risk: a.risks.map((r) => r.text) } : {}),
    // How long nothing moved: from the quiet's start to the verdict.
    ...(kind === 'hung' ? { quiet_ms: Math.max(0, a.t - a.since) } : {}),
    // Parked is no emergency and a reminder changes nothing: the page goes out once.
    ...(kind === 'parked' ? { once: true } : {}),
    // What a Decline button would send: only a known prompt whose rule has a safe "no".
    ...(kind === 'prompt' && rule && rule.decline.length > 0 ? { decline_keys: [...rule.decline] } : {}),
  };
}
