/**
 * The resume card: what a person (or the next job) needs to pick up a job
 * that stopped for any reason other than success. Written as resume.json
 * and a short resume.md in the job's folder.
 */
import { join } from 'node:path';
import { writeFileAtomic, writeJsonAtomic } from '../util/atomic-write.js';

export interface ResumeCard {
  job: string;
  name: string | null;
  agent: string;
  /** The task the job was given up front (the agent's prompt), or its command. */
  goal: string;
  stop_reason: string;
  stop_detail: string | null;
  time: string;
  verified: string[];
  open: string[];
  budget_used: { wall_ms: number; tokens: number | null; steps: number };
  /** Files changed in the working tree while the job ran; null when unknown (not a git tree). */
  artefacts: string[] | null;
  /** Actions whose outcome nobody saw: tool calls without results, unanswered prompts. */
  unknown_outcome: string[];
  command: string[];
  cwd: string;
  /** The agent's own session id, when its transcript named one (for its resume flag). */
  session: string | null;
}

export function writeResumeCard(dir: string, card: ResumeCard): { json: string; markdown: string } {
  const json = join(dir, 'resume.json');
  const markdown = join(dir, 'resume.md');
  writeJsonAtomic(json, card);
  writeFileAtomic(markdown, renderMarkdown(card));
  return { json, markdown };
}

const list = (items: readonly string[] | null, none: string) =>
  items === null ? `- ${none}` : items.length ? items.map((i) => `- ${i}`).join('\n') : '- none';

export function renderMarkdown(c: ResumeCard): string {
  return `# Resume card: ${c.name ?? c.job}

**Goal:** ${c.goal}

**Stopped:** ${c.stop_reason}${c.stop_detail ? ` — ${c.stop_detail}` : ''} (${c.time})

**Budget used:** ${Math.round(c.budget_used.wall_ms / 1000)} s wall clock, ${c.budget_used.steps} tool calls${c.budget_used.tokens === null ? '' : `, ${c.budget_used.tokens} tokens`}

## Verified
${list(c.verified, 'nothing')}

## Open
${list(c.open, 'nothing')}

## Files changed
${list(c.artefacts, 'unknown (not a git work tree)')}

## Outcome unknown
${list(c.unknown_outcome, 'none')}

Resume with: \`nightshift resume ${c.name ?? c.job}\` (keeps the budget already spent; \`--grant-wall\`/\`--grant-tokens\` to give more).
`;
}

