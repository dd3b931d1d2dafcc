/**
 * A page in words a person half asleep can act on: what is asked and its
 * risk in one line, and the commands that move the job on, each with what
 * it does. Pure: the pages, `show` and the digest all say it this way.
 */
import { defaultStateDir } from '../util/home.js';
import { formatDuration } from '../util/duration.js';
import type { Page } from './page.js';

/** One way on from a page: what it does, and the command that does it. */
export interface Way {
  label: string;
  command: string;
}

/** What the headline is made of: any page, or a board job with its question. */
export type AskFacts = Pick<Page, 'name' | 'kind' | 'state' | 'reason' | 'class' | 'prompt'> &
  Partial<Pick<Page, 'command' | 'risk' | 'quiet_ms'>>;

const quote = (s: string) => (/^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/** `nightshift VERB [--state DIR] ARGS…`, quoted for a POSIX shell; no `--state` for the folder a bare command finds. */
export function cliCommand(stateDir: string, verb: string, ...args: string[]): string {
  const state = defaultStateDir() === stateDir ? [] : ['--state', stateDir];
  return ['nightshift', verb, ...state, ...args].map(quote).join(' ');
}

/** A prompt class as a person reads it: why nobody answered it automatically. */
const CLASS_WORDS: Record<string, string> = {
  destructive: 'destructive',
  permission: 'needs your permission',
  outbound: 'sends data out',
  dependency: 'installs packages',
  confirm: 'asks to confirm',
  unknown: 'a question no rule knows',
  trust: 'asks you to trust a host key',
  secret: 'asks for a secret (nothing typed is shown)',
  editor: 'an editor waits for you',
  pager: 'a pager waits for you',
  question: 'asks a question',
};

/** `destructive («deploy», «production»)`: the class and the risk words the prompt hit. */
export function riskInWords(cls: string | null, risk: readonly string[] = []): string | null {
  const words = cls ? (CLASS_WORDS[cls] ?? cls) : null;
  const hits = risk.length ? ` (${risk.map((r) => `«${r}»`).join(', ')})` : '';
  return words ? `${words}${hits}` : hits ? `risky${hits}` : null;
}

/** The line of a prompt that asks: the last one with a `?`, else the last ending in a colon (`Project name:`), else the last non-blank one. */
export function questionOf(prompt: string | null): string | null {
  const lines = (prompt ?? '').split('\n').map((l) => l.trim()).filter(Boolean);
  const last = (test: (l: string) => boolean) => [...lines].reverse().find(test);
  return last((l) => l.includes('?')) ?? last((l) => /:$/.test(l)) ?? lines.at(-1) ?? null;
}

/** Words that open a question rather than name an act ("Is it…?", "Which…?"): such a question is quoted, not turned into "wants to". */
const NOT_AN_ACT = /^(?:is|are|was|were|do|does|did|can|could|will|would|should|shall|may|might|have|has|what|which|who|where|when|why|how|enter|type|press|select|choose|please)\b/i;
const WANT_PREFIX = /^(?:do you (?:really )?want to|would you like to|are you sure you want to|ok(?:ay)? to|allow (?:me|it|claude|the agent) to|shall i|should i|can i|may i)\s+/i;
/** `[y/N]`, `(y)`, `(Y)es/(N)o … [Yes]:` and the like at the end: the choice marker, not the act. */
const CHOICE_MARK = /(?:\s*\(Y\)es\/\(N\)o[^?]*|(?:\s*[[(][^\])]{0,20}[\])])+)\s*[?:]?\s*$/i;

/** "Deploy to production? [y/N]" → "deploy to production"; null when the question names no act. */
export function actOf(question: string): string | null {
  let q = question.replace(CHOICE_MARK, '').replace(/^[^\p{L}]+/u, '').trim();
  const wants = WANT_PREFIX.exec(q);
  if (wants) q = q.slice(wants[0].length);
  else if (NOT_AN_ACT.test(q)) return null;
  q = q.replace(/[?:.!\s]+$/, '');
  if (!q || q.length > 120) return null;
  return q[0]!.toLowerCase() + q.slice(1);
}

const firstLine = (s: string | null) => (s ?? '').split('\n').map((l) => l.trim()).find(Boolean) ?? '';

/**
 * The first line of every page: what is asked (or what happened) and its
 * risk in words, e.g. "deploy-ask wants to deploy to production — destructive (…)".
 */
export function askedInWords(p: AskFacts): string {
  const n = p.name;
  if (p.kind === 'hung') return `${n} is stuck: nothing moved${p.quiet_ms ? ` for ${formatDuration(p.quiet_ms)}` : ''}`;
  if (p.kind === 'prompt' || p.kind === 'unknown-prompt') {
    const q = questionOf(p.prompt);
    const act = p.command ? `run \`${p.command}\`` : q ? actOf(q) : null;
    const asked = act ? `${n} wants to ${act}` : q ? `${n} asks "${q}"` : `${n} waits for an answer`;
    const risk = riskInWords(p.kind === 'unknown-prompt' ? (p.class ?? 'unknown') : p.class, p.risk);
    return risk ? `${asked} — ${risk}` : asked;
  }
  if (p.kind === 'probe') return `${n} was paused by ${p.reason}: ${firstLine(p.prompt)}`;
  if (p.kind === 'budget' && p.reason !== 'unanswered') return `${n} hit its budget (${p.reason})${p.prompt ? `: ${firstLine(p.prompt)}` : ''}`;
  if (p.state === 'done') return endedInWords(p);
  return p.prompt ? `${n}: ${firstLine(p.prompt)}` : `${n} is ${p.state} (${p.reason})`;
}

/** A job that is over: what ended it, in a word a person knows. */
function endedInWords(p: AskFacts): string {
  const n = p.name;
  const how: Record<string, string> = {
    interrupted: `${n} was interrupted: the daemon died under it`,
    lost: `${n} is lost: its terminal is out of reach`,
    'start-failed': `${n} could not start`,
    'dependency-failed': `${n} will not run: a job it waits for failed`,
    unanswered: `${n} ended unanswered: nobody answered in time`,
    escalated: `${n} ended escalated: its last turn was not accepted`,
    unverified: `${n} ended unverified: it claimed done with no passing check of its changes`,
  };
  const head = how[p.kind] ?? how[p.reason] ?? `${n} ended (${p.reason})`;
  const detail = firstLine(p.prompt);
  // The texts of the ended pages start with the job's name: said once.
  if (p.kind === 'failed') return detail.startsWith(n) ? detail : `${n} failed: ${detail}`;
  return detail && !detail.startsWith(n) ? `${head}: ${detail}` : head;
}

/** A dialog's numbered choices: `❯ 1. Yes`, `2. Yes, and don't ask again…`, `3. No…`. */
export interface Choice {
  key: string;
  label: string;
}

/** Choices that widen a permission beyond this once: never offered as a suggested answer. */
const WIDER = /don'?t ask again|do not ask again|always|for (?:this|the) (?:session|project)|all (?:future|edits)/i;

export function dialogChoices(prompt: string | null): Choice[] {
  const out: Choice[] = [];
  for (const line of (prompt ?? '').split('\n')) {
    const m = /^\s*[❯›>●▶→]?\s*(\d)[.)]\s+(\S.*?)\s*$/.exec(line);
    if (m && !out.some((c) => c.key === m[1])) out.push({ key: m[1]!, label: m[2]! });
  }
  return out.filter((c) => !WIDER.test(c.label));
}

/** What a rule's keys are as one command: typed text (`answer NAME y`), one named key, or nothing simple. */
export function keysCommand(cli: (verb: string, ...args: string[]) => string, name: string, keys: readonly string[]): string | null {
  const [first, second] = keys;
  if (!first) return null;
  if (first.length === 1 && (keys.length === 1 || (keys.length === 2 && second === 'enter'))) return cli('answer', name, first);
  if (keys.length === 1) return cli('key', name, first);
  return null;
}

/** The ways on from a hang: look at it, wake it, or stop it. */
export function hangWays(cli: (verb: string, ...args: string[]) => string, name: string): Way[] {
  return [
    { label: 'Look', command: cli('attach', name) },
    { label: 'Nudge', command: cli('send', name, '<what to do>') },
    { label: 'Stop', command: cli('cancel', name) },
    { label: 'Details', command: cli('show', name) },
  ];
}

/** A page's ways as text lines, `Label: command`. */
export const waysText = (ways: readonly Way[]): string[] => ways.map((w) => `${w.label}: ${w.command}`);

/** One line for a lock screen or a command notifier's last argument. */
export const summarize = (p: AskFacts): string => `nightshift: ${askedInWords(p)}`;
