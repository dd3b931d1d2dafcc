/** `nightshift submit [options] -- CMD…` — queue a job on the daemon's board. */
import { randomBytes } from 'node:crypto';
import { basename, resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { durationArg, durationHelp, intArg, offMs, offOrDuration } from './common.js';
import { wrapUpArg } from './wrap-up-arg.js';
import { addStateFlag, boardUrlOf, callDaemon, printJson, type StateFlag } from './daemon-client.js';
import { InputError } from '../util/errors.js';
import { refuseStrayWords } from './flag-traps.js';
import { hostNameSchema } from '../fleet/names.js';

/** --host pins the job on a fleet board; one daemon has no other host to choose. */
function pinnedHost(f: SubmitFlags): string {
  if (!boardUrlOf(f)) throw new InputError('--host pins a job to a fleet host: give --board postgres://… (or NIGHTSHIFT_BOARD) too');
  const r = hostNameSchema.safeParse(f.host);
  if (!r.success) throw new InputError(`--host "${f.host}" is not a valid host name: ${r.error.issues[0]!.message}`);
  return r.data;
}

interface SubmitFlags extends StateFlag {
  name?: string;
  cwd?: string;
  env: string[];
  policy?: string;
  rules?: string;
  maxWall?: number;
  maxTokens?: number;
  maxIdle?: number;
  maxSteps?: number;
  onUnanswered?: number;
  maxBlocked?: number | 'off';
  priority: number;
  agent?: string;
  profile?: string;
  wrapUp?: string;
  after: string[];
  json?: boolean;
  host?: string;
}

const collect = (v: string, prev: string[]) => [...prev, v];

function envPair(value: string, previous: string[]): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) throw new InvalidArgumentError(`--env "${value}" must look like NAME=value`);
  return [...previous, value];
}

export function registerSubmit(program: Command): void {
  addStateFlag(
    program
      .command('submit')
      .description('queue a job: it starts when a slot is free and its --after jobs succeeded')
      .argument('<command...>', 'the program and its arguments (put them after --)')
      .passThroughOptions()
      .option('--name <name>', 'unique job name (default: the command name and 4 hex digits)')
      .option('--cwd <dir>', 'working directory (default: here)')
      .option('--env <NAME=value>', 'environment variable for the job (repeatable)', envPair, [])
      .option('--policy <file>', 'auto-answer policy for this job (default: the daemon\'s)')
      .option('--max-wall <duration>', durationHelp('stop the job after this long (budget:wall)'), durationArg('--max-wall', 1))
      .option('--max-tokens <n>', 'stop when the agent reports this many tokens (budget:tokens)', intArg('--max-tokens', 1, Number.MAX_SAFE_INTEGER))
      .option('--max-idle <duration>', durationHelp('stop when nothing moves this long (budget:no-progress)'), durationArg('--max-idle', 1))
      .option('--max-steps <n>', 'stop when the agent made this many tool calls (budget:steps; default: the probe profile\'s max_steps)', intArg('--max-steps', 1, Number.MAX_SAFE_INTEGER))
      .option('--max-blocked <duration>', durationHelp('end the job unanswered when it stayed blocked this long after its first page with nobody acting, freeing its slot (paged once before); off: never; default: config.yaml jobs.max_blocked, else 2h'), offOrDuration('--max-blocked'))
      .option('--on-unanswered <duration>', durationHelp('decline a paged prompt nobody answered this long, with its rule\'s decline keys (never its answer keys); default: the policy file\'s on_unanswered'), durationArg('--on-unanswered', 1))
      .option('--agent <name>', 'claude, codex, gemini, generic or auto (default: detected from the command)')
      .option('--profile <name>', 'probe profile from rules/probes.yaml (e.g. long-task)')
      .option('--wrap-up <share>', 'at this share of any budget (steps, tokens, wall) ask the agent once to stop exploring and write its hand-off, e.g. 90%; off: never (default: the probe profile\'s wrap_up, 85%)', wrapUpArg)
      .option('--priority <n>', 'higher runs first', intArg('--priority', -1000, 1000), 0)
      .option('--after <job>', 'start only after this job succeeded (repeatable)', collect, [])
      .option('--host <name>', 'on a fleet board (--board): run it on this host only')
      .option('--json', 'print the job record as JSON'),
  ).action(async (argv: string[], f: SubmitFlags) => {
    refuseStrayWords(process.argv.slice(2), argv);
    const spec = {
      name: f.name ?? `${basename(argv[0]!).replace(/[^A-Za-z0-9._-]/g, '-')}-${randomBytes(2).toString('hex')}`,
      command: argv,
      cwd: resolve(f.cwd ?? '.'),
      // The agent, probe profile and wrap-up share travel in the job's environment (the board keeps env).
      env: {
        ...Object.fromEntries(f.env.map((p) => [p.slice(0, p.indexOf('=')), p.slice(p.indexOf('=') + 1)])),
        ...(f.agent ? { NIGHTSHIFT_AGENT: f.agent } : {}),
        ...(f.profile ? { NIGHTSHIFT_PROFILE: f.profile } : {}),
        ...(f.wrapUp ? { NIGHTSHIFT_WRAP_UP: f.wrapUp } : {}),
      },
      policy: f.policy ? resolve(f.policy) : null,
      rules: null,
      budgets: { wall_ms: f.maxWall ?? null, tokens: f.maxTokens ?? null, no_progress_ms: f.maxIdle ?? null, steps: f.maxSteps ?? null, ...(f.maxBlocked !== undefined ? { blocked_ms: offMs(f.maxBlocked) } : {}) },
      priority: f.priority,
      after: f.after,
      ...(f.onUnanswered !== undefined ? { on_unanswered: { after_ms: f.onUnanswered, do: 'decline' } } : {}),
      ...(f.host !== undefined ? { host: pinnedHost(f) } : {}),
    };
    const { job: rec, notice } = await callDaemon(f, 'submit', { spec });
    // --json keeps stdout one job record; the notice then goes to stderr.
    if (f.json) printJson(rec);
    else process.stdout.write(`submitted ${rec.name} (${rec.id}): ${notice ?? rec.state}\n`);
    if (f.json && notice) process.stderr.write(`nightshift: ${rec.name} ${notice}\n`);
  });
}
