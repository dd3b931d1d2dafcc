/**
 * show's `prompt`: what the job is blocked on, as a person deciding needs
 * it — the prompt's text, what it would act on (the command, file or URL),
 * its risk in the words pages use, the responder's decision (layer, why),
 * the rule's answer and decline keys as choices labelled with what they
 * choose on this screen ("1. Yes", "Esc: No"), and the dialog's own
 * numbered options (never one that widens a permission).
 */
import type { PromptChoice, PromptSubject, PromptView } from '../../api/results.js';
import { dialogChoices, riskInWords } from '../../notify/page-words.js';
import type { BlockedPrompt } from '../../supervisor/live-job.js';

export type LabelOf = (keys: readonly string[], screen: readonly string[]) => string;

export function promptView(live: { blockedPrompt(): BlockedPrompt | null }, episode: string | null, screen: readonly string[], labelOf: LabelOf): PromptView | null {
  const blocked = live.blockedPrompt();
  if (!blocked) return null;
  const { action: a, rule } = blocked;
  const choices: PromptChoice[] = [];
  if (rule?.answer.length) choices.push({ choice: 'answer', keys: [...rule.answer], label: labelOf(rule.answer, screen) });
  if (rule?.decline.length) choices.push({ choice: 'decline', keys: [...rule.decline], label: labelOf(rule.decline, screen) });
  const risk = a.risks?.map((r) => r.text) ?? [];
  // A block no rule names is a question nobody knows, as its page says.
  const cls = a.class ?? (rule ? null : 'unknown');
  return {
    episode,
    text: a.prompt ?? '',
    rule: a.rule,
    class: a.class,
    decision: a.kind,
    layer: a.layer,
    why: a.why,
    command: a.command ?? null,
    subject: subjectOf(a.command ?? null, a.prompt ?? ''),
    risk,
    risk_words: riskInWords(cls, risk),
    choices,
    options: dialogChoices(a.prompt ?? null),
  };
}

/** A file a dialog names: Claude's "make this edit to X?", the path under an "Edit file" title, or under Cursor's "Write to this file?". */
const FILE = [
  /Do you want to (?:make this edit to|create|overwrite|write to|read|delete) ([^\s?]+)\?/,
  /^\s*(?:Edit|Write|Create|Read|Update) file\n(?:\s*\n)?\s+(\S[^\n]*)/m,
  /(?:Write to|Edit|Create|Delete) this file\?\n\s*(\S[^\n]*)/,
];
const URL_RE = /\bhttps?:\/\/[^\s'"<>│]+/;

/** What is being approved: the command the rule read, else a file or a URL the prompt names. */
export function subjectOf(command: string | null, prompt: string): PromptSubject | null {
  if (command) return { kind: 'command', text: command };
  for (const re of FILE) {
    const m = re.exec(prompt);
    if (m) return { kind: 'file', text: m[1]!.trim() };
  }
  const url = URL_RE.exec(prompt);
  return url ? { kind: 'url', text: url[0] } : null;
}
