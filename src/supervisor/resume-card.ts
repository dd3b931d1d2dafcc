/**
 * The resume card: what a person (or the next job) needs to pick up a job
 * that stopped for any reason other than success. Written as resume.json
 * and a short resume.md in the job's folder; `nightshift resume` reads the
 * JSON back through RESUME_CARD, so a hand-edited card is checked, not trusted.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic, writeJsonAtomic } from '../util/atomic-write.js';
import { InputError } from '../util/errors.js';

const STOP_VERDICT = z.object({
  probe: z.string(),
  severity: z.string(),
  message: z.string(),
  /** escalate (the job was blocked on it) or stop (the step budget). */
  response: z.string(),
  evidence: z.array(z.string()),
  turn: z.string().nullable(),
});

const REFUSED_CLAIM = z.object({
  /** The sentence of the final answer that claimed completion. */
  claim: z.string(),
  /** The whole final answer of that turn. */
  answer: z.string(),
  /** Why it was refused: the fake-completion verdict's message. */
  why: z.string(),
});

const READ_POSITION = z.object({
  path: z.string(),
  /** Complete lines the job read; a resumed job skips them. */
  lines: z.number().int().nonnegative(),
  last_event: z.string().nullable(),
});

// Fields added after the first cards were written default to null, so an older card still resumes.
export const RESUME_CARD = z.object({
  job: z.string(),
  name: z.string().nullable(),
  agent: z.string(),
  /** The task the job was given up front (the agent's prompt), or its command; a resumed job keeps the first job's. */
  goal: z.string(),
  stop_reason: z.string(),
  stop_detail: z.string().nullable(),
  /** The verdict that blocked or stopped the job (the last one), if a probe did. */
  stopped_by: STOP_VERDICT.nullable().default(null),
  /** A claim of completion the fake-completion probe refused, if that is what blocked the job. */
  refused_claim: REFUSED_CLAIM.nullable().default(null),
  /** What the agent wrote when asked to wrap up and hand off (at a budget's reserve); null when never asked or silent. */
  agent_handoff: z.string().nullable().default(null),
  time: z.string(),
  verified: z.array(z.string()),
  open: z.array(z.string()),
  budget_used: z.object({ wall_ms: z.number(), tokens: z.number().nullable(), steps: z.number() }),
  /** The step budget the job ran under (its tool-call cap). */
  step_budget: z.number().nullable().default(null),
  /** The token budget the job ran under (the lower of its profile's and its own cap); null on cards written before it was kept. */
  token_budget: z.number().nullable().default(null),
  /** Files changed in the working tree while the job ran; null when unknown (not a git tree). */
  artefacts: z.array(z.string()).nullable(),
  /** Actions whose outcome nobody saw: tool calls without results, unanswered prompts. */
  unknown_outcome: z.array(z.string()),
  command: z.array(z.string()),
  cwd: z.string(),
  /** The agent's own session id, when its transcript named one (for its resume flag). */
  session: z.string().nullable(),
  /** How far the job read its transcript: the resumed job follows it from there. */
  transcript: READ_POSITION.nullable().default(null),
});

export type ResumeCard = z.output<typeof RESUME_CARD>;
export type StopVerdict = z.output<typeof STOP_VERDICT>;
export type RefusedClaim = z.output<typeof REFUSED_CLAIM>;

export function writeResumeCard(dir: string, card: ResumeCard): { json: string; markdown: string } {
  const json = join(dir, 'resume.json');
  const markdown = join(dir, 'resume.md');
  writeJsonAtomic(json, card);
  writeFileAtomic(markdown, renderMarkdown(card));
  return { json, markdown };
}

/** resume.json, checked; errors name the file and the field. */
export function readResumeCard(file: string): ResumeCard {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (e) {
    throw new InputError(`${file}: not a readable resume card: ${e instanceof Error ? e.message : String(e)}`);
  }
  const parsed = RESUME_CARD.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new InputError(`${file}: field ${issue.path.join('.') || '(whole)'}: ${issue.message}`);
}

/** What is open because a probe stopped the job: the refused claim, the loop caught. */
export function openItems(stoppedBy: StopVerdict | null, refused: RefusedClaim | null): string[] {
  if (refused) return [`refused claim of completion: "${refused.claim}" — ${refused.why}`];
  return stoppedBy ? [`${stoppedBy.probe} (${stoppedBy.response}): ${stoppedBy.message}`] : [];
}

const list = (items: readonly string[] | null, none: string) =>
  items === null ? `- ${none}` : items.length ? items.map((i) => `- ${i}`).join('\n') : '- none';

function why(c: ResumeCard): string {
  if (c.refused_claim) return `\n\n**Why:** the agent claimed "${c.refused_claim.claim}"; refused: ${c.refused_claim.why}`;
  if (c.stopped_by) return `\n\n**Why:** probe ${c.stopped_by.probe} (${c.stopped_by.response}): ${c.stopped_by.message}`;
  return '';
}

export function renderMarkdown(c: ResumeCard): string {
  return `# Resume card: ${c.name ?? c.job}

**Goal:** ${c.goal}

**Stopped:** ${c.stop_reason}${c.stop_detail ? ` — ${c.stop_detail}` : ''} (${c.time})${why(c)}

**Budget used:** ${Math.round(c.budget_used.wall_ms / 1000)} s wall clock, ${c.budget_used.steps}${c.step_budget === null ? '' : `/${c.step_budget}`} tool calls${c.budget_used.tokens === null ? '' : `, ${c.budget_used.tokens}${c.token_budget === null ? '' : `/${c.token_budget}`} tokens`}

## Verified
${list(c.verified, 'nothing')}
${c.agent_handoff === null ? '' : `
## The agent's hand-off
${c.agent_handoff}
`}
## Open
${list(c.open, 'nothing')}

## Files changed
${list(c.artefacts, 'unknown (not a git work tree)')}

## Outcome unknown
${list(c.unknown_outcome, 'none')}

Resume with: \`nightshift resume ${c.name ?? c.job}\` (keeps the budget already spent; \`--grant-wall\`/\`--grant-tokens\`/\`--grant-steps\` to give more).
`;
}
