/**
 * `nightshift resume JOB [--grant-wall D] [--grant-tokens N] [--grant-steps N]`
 * — start a new job from a stopped job's resume card. The budget already
 * spent is kept: the new job gets what is left, plus what a person grants,
 * and follows the old transcript only past what the old job already judged.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { JobRecord, ResumeFrom } from '../board/types.js';
import { taskUpFront } from '../supervisor/agent-watch.js';
import { readResumeCard, type ResumeCard } from '../supervisor/resume-card.js';
import { resumePrompt } from '../supervisor/resume-prompt.js';
import { InputError } from '../util/errors.js';
import { durationArg, durationHelp, intArg } from './common.js';
import { addStateFlag, boardUrlOf, callDaemon, currentUser, printJson, type StateFlag } from './daemon-client.js';

interface ResumeFlags extends StateFlag {
  grantWall?: number;
  grantTokens?: number;
  grantSteps?: number;
  name?: string;
  json?: boolean;
}

export function registerResume(program: Command): void {
  addStateFlag(
    program
      .command('resume')
      .description('start a new job from a stopped job\'s resume card (the agent\'s own resume flag where it has one)')
      .argument('<job>', 'name or id of the stopped job')
      .option('--grant-wall <duration>', durationHelp('more wall-clock budget than what is left'), durationArg('--grant-wall', 1))
      .option('--grant-tokens <n>', 'more tokens than what is left', intArg('--grant-tokens', 1, Number.MAX_SAFE_INTEGER))
      .option('--grant-steps <n>', 'more tool calls than what is left of the step budget', intArg('--grant-steps', 1, Number.MAX_SAFE_INTEGER))
      .option('--name <name>', 'name of the new job (default: NAME-resumed-N)')
      .option('--json', 'print the new job record'),
  ).action(async (job: string, f: ResumeFlags) => {
    const { jobs: board } = await callDaemon(f, 'board', {});
    const old = board.find((j) => j.id === job || j.name === job);
    if (!old) throw new InputError(`no job "${job}"; nightshift board lists them`);
    const host = boardUrlOf(f) ? ((old as JobRecord & { host?: string | null }).host ?? null) : null;
    const card = readCard(old, host);
    const spec = {
      name: f.name ?? nextName(old.name, board),
      command: resumeCommand(card),
      cwd: card.cwd,
      // The board shows secret values masked; the daemon copies the old job's real env.
      env: {},
      env_of: old.id,
      policy: old.policy,
      rules: old.rules,
      budgets: remaining(old, card, f),
      priority: old.priority,
      after: [],
      resume_from: resumeFrom(old, card),
      on_unanswered: old.on_unanswered,
      // On a fleet the transcript and the folder are on the old job's host: the new job runs there too.
      ...(host ? { host } : {}),
    };
    const { job: rec, notice } = await callDaemon(f, 'submit', { spec });
    if (f.json) printJson(rec);
    else process.stdout.write(`resumed ${old.name} as ${rec.name} (${rec.id}): ${spec.command.join(' ')}\n`);
    if (notice) process.stderr.write(`nightshift: ${rec.name} ${notice}\n`);
  });
}

function readCard(job: JobRecord, host: string | null): ResumeCard {
  const file = job.paths ? join(job.paths.dir, 'resume.json') : null;
  if (host && file && !existsSync(file) && job.state === 'done') throw new InputError(`job ${job.name}'s resume card is on host ${host} (${file}): run resume there`);
  if (!file || !existsSync(file)) throw new InputError(`job ${job.name} has no resume card (it ${job.state === 'done' ? `ended with ${job.reason.code}` : `is ${job.state}`})`);
  return readResumeCard(file);
}

/** Where the old job stopped reading; null when it never found its transcript (nothing to skip). */
export function resumeFrom(old: JobRecord, card: ResumeCard): ResumeFrom | null {
  const t = card.transcript;
  return t ? { job: old.id, transcript: t.path, lines: t.lines, last_event: t.last_event, goal: card.goal, by: currentUser() } : null;
}

/**
 * The agent's own resume where it has one (Claude Code --resume <session>),
 * with a first message that says why the last run stopped; else the same command again.
 */
export function resumeCommand(card: ResumeCard): string[] {
  if (card.agent === 'claude' && card.session) return [...baseCommand(card), '--resume', card.session, resumePrompt(card)];
  return [...card.command];
}

/** The command without its prompt and without an earlier resume's `--resume <session>` (a card of a resumed job). */
function baseCommand(card: ResumeCard): string[] {
  const cmd = taskUpFront(card.command) || card.command.at(-1) === card.goal ? card.command.slice(0, -1) : [...card.command];
  const out: string[] = [];
  for (let i = 0; i < cmd.length; i++) {
    if (i > 0 && (cmd[i] === '--resume' || cmd[i] === '-r')) i++;
    else if (!cmd[i]!.startsWith('--resume=')) out.push(cmd[i]!);
  }
  return out;
}

/** What is left of each budget plus what is granted; the step and token budgets are the profile's unless the board set lower ones. */
export function remaining(old: JobRecord, card: ResumeCard, f: ResumeFlags): JobRecord['budgets'] {
  const b = old.budgets;
  const left = (budget: number | null, used: number, grant = 0) => (budget === null ? null : budget - used + grant);
  const wall = left(b.wall_ms, card.budget_used.wall_ms, f.grantWall);
  const tokens = left(b.tokens ?? card.token_budget, card.budget_used.tokens ?? 0, f.grantTokens);
  const steps = left(b.steps ?? card.step_budget, card.budget_used.steps, f.grantSteps);
  const spent = [wall !== null && wall <= 0 && '--grant-wall', tokens !== null && tokens <= 0 && '--grant-tokens', steps !== null && steps <= 0 && '--grant-steps'].filter(Boolean);
  if (spent.length > 0) throw new InputError(`job ${old.name} spent its budget; grant more with ${spent.join(', ')}`);
  return { wall_ms: wall, tokens, no_progress_ms: b.no_progress_ms, steps, blocked_ms: b.blocked_ms };
}

function nextName(name: string, board: readonly JobRecord[]): string {
  const base = name.replace(/-resumed-\d+$/, '');
  for (let n = 1; ; n++) if (!board.some((j) => j.name === `${base}-resumed-${n}`)) return `${base}-resumed-${n}`;
}
