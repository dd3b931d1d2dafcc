/**
 * show's `prompt`: what the job is blocked on, as a person deciding needs
 * it — the prompt's text, the responder's decision (layer, why), and the
 * rule's answer and decline keys as choices labelled with what they choose
 * on this screen ("1. Yes", "Esc: No").
 */
import type { PromptChoice, PromptView } from '../../api/results.js';
import type { BlockedPrompt } from '../../supervisor/live-job.js';

export type LabelOf = (keys: readonly string[], screen: readonly string[]) => string;

export function promptView(live: { blockedPrompt(): BlockedPrompt | null }, episode: string | null, screen: readonly string[], labelOf: LabelOf): PromptView | null {
  const blocked = live.blockedPrompt();
  if (!blocked) return null;
  const { action: a, rule } = blocked;
  const choices: PromptChoice[] = [];
  if (rule?.answer.length) choices.push({ choice: 'answer', keys: [...rule.answer], label: labelOf(rule.answer, screen) });
  if (rule?.decline.length) choices.push({ choice: 'decline', keys: [...rule.decline], label: labelOf(rule.decline, screen) });
  return { episode, text: a.prompt ?? '', rule: a.rule, class: a.class, decision: a.kind, layer: a.layer, why: a.why, command: a.command ?? null, choices };
}
