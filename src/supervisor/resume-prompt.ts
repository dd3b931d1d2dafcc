/**
 * The first message a resumed agent gets. It must say why the last run
 * stopped in the agent's terms: an agent told only "continue" repeats the
 * refused claim or the caught loop, since its own transcript says it was fine.
 */
import type { ResumeCard } from './resume-card.js';

const LOOPS = new Set(['repeated-action', 'repeated-failure', 'alternation', 'no-progress']);

export function resumePrompt(card: ResumeCard): string {
  const parts = [`Continue the task. The supervisor stopped your last run (${card.stop_reason}).`];
  const v = card.stopped_by;
  if (card.refused_claim) {
    const r = card.refused_claim;
    parts.push(`Your claim of completion was refused: you said "${r.claim}", but ${refusedBecause(r.why)}.`);
    parts.push('Do the work for real, check it, and say it is done only when a file change or a command shows it.');
  } else if (v && LOOPS.has(v.probe)) {
    parts.push(`It caught a loop (${v.probe}): ${v.message}.`);
    parts.push('Do not repeat it: try another way, or say what blocks you.');
  } else if (v) {
    parts.push(`Probe ${v.probe}: ${v.message}.`);
  }
  parts.push(`Goal: ${card.goal}`);
  return parts.join(' ');
}

/** "the reply claims completion (…) but the turn made no successful write" → "the turn made no successful write". */
function refusedBecause(why: string): string {
  const m = /\bbut (.+)$/.exec(why);
  return (m ? m[1]! : why).replace(/[.\s]+$/, '');
}
