/**
 * `nightshift resume JOB [--grant-wall D] [--grant-tokens N]` — start a new
 * job from a stopped job's resume card. The budget already spent is kept:
 * the new job gets what is left, plus what a person grants.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import type { JobRecord } from '../board/types.js';
import type { Submitted } from '../daemon/commands/jobs.js';
import type { ResumeCard } from '../supervisor/resume-card.js';
import { InputError } from '../util/errors.js';
import { durationArg, durationHelp, intArg } from './common.js';
import { addStateFlag, callDaemon, printJson, type StateFlag } from './daemon-client.js';

interface ResumeFlags extends StateFlag {
  grantWall?: number;
  grantTokens?: number;
  name?: string;
  json?: boolean;
}

export function registerResume(program: Command): void {
  addStateFlag(
    program
      .command('resume')
      .description('start a new job from a stopped job\'s resume card (the agent\'s own resume flag where it has one)')
      .argument('<job>', 'name or id of the stopped job')
      .option('--grant-wall <duration>', durationHelp('more wall-clock budget than what is left'), durationArg('--grant-wall'))
      .option('--grant-tokens <n>', 'more tokens than what is left', intArg('--grant-tokens', 1, Number.MAX_SAFE_INTEGER))
      .option('--name <name>', 'name of the new job (default: NAME-resumed-N)')
      .option('--json', 'print the new job record'),
  ).action(async (job: string, f: ResumeFlags) => {
    const board = await callDaemon<JobRecord[]>(f, 'board');
    const old = board.find((j) => j.id === job || j.name === job);
    if (!old) throw new InputError(`no job "${job}"; nightshift board lists them`);
    const card = readCard(old);
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
    };
    const { job: rec, notice } = await callDaemon<Submitted>(f, 'submit', { spec });
    if (f.json) printJson(rec);
    else process.stdout.write(`resumed ${old.name} as ${rec.name} (${rec.id}): ${spec.command.join(' ')}\n`);
    if (notice) process.stderr.write(`nightshift: ${rec.name} ${notice}\n`);
  });
}

function readCard(job: JobRecord): ResumeCard {
  const file = job.paths ? join(job.paths.dir, 'resume.json') : null;
  if (!file || !existsSync(file)) throw new InputError(`job ${job.name} has no resume card (it ${job.state === 'done' ? `ended with ${job.reason.code}` : `is ${job.state}`})`);
  return JSON.parse(readFileSync(file, 'utf8')) as ResumeCard;
}

/** The agent's own resume where it has one (Claude Code --resume <session>); else the same command again. */
export function resumeCommand(card: ResumeCard): string[] {
  if (card.agent === 'claude' && card.session) {
    const base = card.command.filter((a, i) => i === 0 || a !== card.goal);
    return [...base, '--resume', card.session, `Continue the task. It stopped (${card.stop_reason}). Goal: ${card.goal}`];
  }
  return [...card.command];
}

function remaining(old: JobRecord, card: ResumeCard, f: ResumeFlags): JobRecord['budgets'] {
  const b = old.budgets;
  const wall = b.wall_ms === null ? null : b.wall_ms - card.budget_used.wall_ms + (f.grantWall ?? 0);
  const tokens = b.tokens === null ? null : b.tokens - (card.budget_used.tokens ?? 0) + (f.grantTokens ?? 0);
  if ((wall !== null && wall <= 0) || (tokens !== null && tokens <= 0)) {
    throw new InputError(`job ${old.name} spent its budget; grant more with --grant-wall or --grant-tokens`);
  }
  return { wall_ms: wall, tokens, no_progress_ms: b.no_progress_ms };
}

function nextName(name: string, board: readonly JobRecord[]): string {
  const base = name.replace(/-resumed-\d+$/, '');
  for (let n = 1; ; n++) if (!board.some((j) => j.name === `${base}-resumed-${n}`)) return `${base}-resumed-${n}`;
}
