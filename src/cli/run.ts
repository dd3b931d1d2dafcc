/** `nightshift run [options] -- CMD…` — supervise one job in the foreground, no daemon. */
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import type { Transition } from '../core/task-state.js';
import type { Action } from '../core/watchdog-types.js';
import { LiveBundle } from '../rules/live-bundle.js';
import { createJobDir, jobId } from '../supervisor/job-dir.js';
import { makeStateDir } from '../util/state-dir.js';
import { exitStatus, wireReason } from '../core/outcome.js';
import { detectAgent } from '../adapters/index.js';
import { agentOption } from '../supervisor/agent-option.js';
import { redactorFor } from '../notify/secrets.js';
import { LiveJob } from '../supervisor/live-job.js';
import { warmPtyThread } from '../pty/pty-thread-warm.js';
import { addWatchdogFlags, defaultRulesPath, durationArg, durationHelp, intArg, offMs, offOrDuration, policyPathOf, RECORDING_CAP_HELP, sizeArg, STATE_HELP, stateDirFrom, watchdogConfig, type WatchdogFlags } from './common.js';
import { wrapUpArg } from './wrap-up-arg.js';
import { attachTerminal } from './terminal.js';
import { refuseStrayWords, toolGapWarning } from './flag-traps.js';

interface RunFlags extends WatchdogFlags {
  name?: string;
  cwd?: string;
  env: string[];
  state?: string;
  rules?: string;
  policy?: string;
  agent?: string;
  profile?: string;
  wrapUp?: string;
  cols?: number;
  rows?: number;
  json?: boolean;
  quiet?: boolean;
  timeout?: number;
  maxBlocked?: number | 'off';
  recordingCap?: number;
}

function envPair(value: string, previous: string[]): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(value)) throw new InvalidArgumentError(`--env "${value}" must look like NAME=value`);
  return [...previous, value];
}

export function registerRun(program: Command): void {
  const cmd = program
    .command('run')
    .description('supervise one command in a PTY in the foreground; exits with the job\'s exit status (its own code when it ended by itself, else its reason\'s: 124 timeout, 121 cancelled, …)')
    .argument('<command...>', 'the program and its arguments (put them after --)')
    .passThroughOptions()
    .option('--name <name>', 'a name for the job (used in its id)')
    .option('--cwd <dir>', 'working directory of the job (default: here)')
    .option('--env <NAME=value>', 'set an environment variable for the job (repeatable)', envPair, [])
    .option('--state <dir>', STATE_HELP)
    .option('--rules <path>', 'rules directory or file (default: the shipped rules/)')
    .option('--agent <name>', 'claude, codex, gemini, generic or auto (default: detected from the command)')
    .option('--profile <name>', 'probe profile from rules/probes.yaml (default: default)')
    .option('--wrap-up <share>', 'at this share of the step or token budget ask the agent once to stop exploring and write its hand-off, e.g. 90%; off: never (default: the probe profile\'s wrap_up, 85%)', wrapUpArg)
    .option('--policy <file>', 'auto-answer policy (default: your policy.yaml in the state or config folder, else the rules directory\'s, which answers nothing until filled in)')
    .option('--cols <n>', 'terminal columns (default: this terminal, else 120)', intArg('--cols', 10, 1000))
    .option('--rows <n>', 'terminal rows (default: this terminal, else 40)', intArg('--rows', 4, 500))
    .option('--recording-cap <size>', RECORDING_CAP_HELP, sizeArg('--recording-cap'))
    .option('--timeout <duration>', durationHelp('stop the job after this long (SIGTERM, then SIGKILL)'), durationArg('--timeout', 1))
    .option('--max-blocked <duration>', durationHelp('end the job unanswered when it stayed blocked this long after its first escalation with nobody acting (warned once before); off: never (the default for run: a person is at its terminal)'), offOrDuration('--max-blocked'))
    .option('--json', 'report state changes and actions as JSON lines on stderr')
    .option('--quiet', 'do not copy the job\'s output to stdout');
  addWatchdogFlags(cmd).action(async (command: string[], flags: RunFlags) => {
    refuseStrayWords(process.argv.slice(2), command);
    warmPtyThread();
    process.exitCode = await run(command, flags);
  });
}

async function run(argv: string[], flags: RunFlags): Promise<number> {
  const rulesPath = resolve(flags.rules ?? defaultRulesPath());
  const policyPath = policyPathOf(flags.policy, stateDirFrom(flags.state), rulesPath);
  const problem = (message: string) =>
    process.stderr.write(flags.json ? `${JSON.stringify({ type: 'problem', message })}\n` : `nightshift: ${message}\n`);
  const gap = toolGapWarning(watchdogConfig(flags));
  if (gap) process.stderr.write(flags.json ? `${JSON.stringify({ type: 'warning', message: gap, warning: 'tool-gap' })}\n` : `nightshift: warning: ${gap}\n`);
  const bundle = await LiveBundle.open(rulesPath, policyPath, {
    rejected: (p) => problem(`rules not reloaded (keeping the last good ones): ${p}`),
  });
  try {
    return await supervise(argv, flags, rulesPath, bundle, problem);
  } finally {
    await bundle.dispose();
  }
}

async function supervise(argv: string[], flags: RunFlags, rulesPath: string, bundle: LiveBundle, problem: (m: string) => void): Promise<number> {
  const [command, ...args] = argv as [string, ...string[]];
  const agent = await agentOption(argv, rulesPath, flags.agent, flags.profile, flags.wrapUp);
  const own = Object.fromEntries(flags.env.map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]));
  const env = { ...(process.env as Record<string, string>), ...own };
  const cols = flags.cols ?? process.stdout.columns ?? 120;
  const rows = flags.rows ?? process.stdout.rows ?? 40;
  const spec = { command, args, cwd: resolve(flags.cwd ?? '.'), env, cols, rows, ...(flags.name ? { name: flags.name } : {}) };
  const stateDir = stateDirFrom(flags.state);
  makeStateDir(stateDir);
  const paths = createJobDir(stateDir, jobId(flags.name, command, new Date()));
  const report = reporter(flags.json === true, paths.id, paths.dir);
  const job = await LiveJob.start(spec, {
    paths,
    bundle,
    // The values given with --env stay out of the job's log, evidence and summary.
    redact: redactorFor(own),
    ...(agent ? { agent } : {}),
    lateAgent: (kind) => agentOption([kind], rulesPath, kind, flags.profile, flags.wrapUp),
    onWarning: (w) => process.stderr.write(flags.json ? `${JSON.stringify({ type: 'warning', message: w.message, warning: w.code })}\n` : `nightshift: ${w.message}\n`),
    agentKind: detectAgent(argv, flags.agent),
    onCoverage: (c) => {
      if (c.covered !== false) return;
      process.stderr.write(flags.json ? `${JSON.stringify({ type: 'warning', message: c.note, rules_coverage: c })}\n` : `nightshift: ${c.note}\n`);
    },
    onProblem: problem,
    onDiskProblem: (file, e) => problem(`cannot write ${file} (${e.message}); the job goes on, that file stops here`),
    ...(flags.recordingCap ? { recordingCap: flags.recordingCap } : {}),
    maxBlockedMs: offMs(flags.maxBlocked ?? 'off'),
    config: watchdogConfig(flags),
    onTransition: report.transition,
    onAction: report.action,
    answerQueries: flags.quiet === true || !process.stdout.isTTY,
    // Bytes as they came: the person's terminal joins a character split between reads, as it would reading the PTY itself.
    ...(flags.quiet ? {} : { onOutput: (d: Buffer) => process.stdout.write(d) }),
  }).catch((e: unknown) => {
    // A job that never started (bad cwd, unknown command) leaves no folder behind.
    rmSync(paths.dir, { recursive: true, force: true });
    throw e;
  });
  const detach = attachTerminal(job, flags.rows === undefined && flags.cols === undefined);
  const stopTimer = flags.timeout === undefined ? undefined : setTimeout(() => void job.stop('timeout'), flags.timeout);
  const untrap = trapSignals(job);
  await job.finished;
  clearTimeout(stopTimer);
  untrap();
  detach();
  return exitStatus(job.reason);
}

/**
 * nightshift stopped by a signal (systemd, tmux, a closed terminal) stops its
 * job the graceful way and waits for it, so the summary, recording and
 * evidence are finished rather than left mid-sentence.
 */
function trapSignals(job: LiveJob): () => void {
  const onSignal = (sig: NodeJS.Signals) => {
    job.log.warn({ signal: sig }, 'nightshift received a signal');
    void job.stop('cancelled');
  };
  const sigs: NodeJS.Signals[] = ['SIGTERM', 'SIGINT', 'SIGHUP'];
  for (const s of sigs) process.on(s, onSignal);
  return () => {
    for (const s of sigs) process.off(s, onSignal);
  };
}

function reporter(json: boolean, id: string, dir: string) {
  let introduced = false;
  const out = (line: string) => {
    // Introduce the job with its first event, so a job that never starts prints only its error.
    if (!introduced) {
      introduced = true;
      process.stderr.write(json ? `${JSON.stringify({ type: 'job', id, dir })}\n` : `nightshift: job ${id} (evidence in ${dir})\n`);
    }
    process.stderr.write(`${line}\n`);
  };
  const time = (t: number) => new Date(t).toISOString();
  return {
    transition(t: Transition) {
      const r = t.reason;
      if (json) out(JSON.stringify({ type: 'state', time: time(t.t), state: t.to, reason: r.code, ...wireDetails(r) }));
      else out(`nightshift: ${time(t.t).slice(11, 23)} ${t.to} (${describe(r)})`);
    },
    action(a: Action) {
      const { screen: _screen, t: _t, ...rest } = a;
      if (json) out(JSON.stringify({ type: 'action', ...rest, time: time(a.t), since: time(a.since) }));
      else out(`nightshift: ${a.kind.toUpperCase()} ${a.text}`);
    },
  };
}

function describe(r: Transition['reason']): string {
  const w = wireReason(r);
  // The exit status (what run exits with) and the signal that ended the process, when there was one.
  const exit = w.exit_code !== undefined && w.exit_code !== null ? `code ${w.exit_code}` : undefined;
  return [r.code, r.rule, r.class, r.detail, exit, w.signal].filter(Boolean).join(' ');
}

/** The wire reason's fields beside `reason` (its code). */
function wireDetails(r: Transition['reason']) {
  const { code: _code, ...rest } = wireReason(r);
  return rest;
}
