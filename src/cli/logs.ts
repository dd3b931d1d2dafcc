/**
 * `nightshift logs JOB [-f] [--lines N]` — what the job printed, as text;
 * `--events [--raw]` — nightshift's own log of the job instead.
 */
import { Command, InvalidArgumentError } from 'commander';
import { InputError } from '../util/errors.js';
import { addStateFlag, boardUrlOf, callDaemon, stateDirOf, type StateFlag } from './daemon-client.js';
import { printOutput } from './job-output.js';

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
/** A screenful or two: a failure's error and what led to it, where pm2's 15 or tail's 10 cut a stack trace short. */
const DEFAULT_LINES = 100;

type LogsFlags = StateFlag & { follow?: boolean; lines?: number; events?: boolean; raw?: boolean };

export function registerLogs(program: Command): void {
  addStateFlag(
    program
      .command('logs')
      .description('print what a job printed (its recording, as text)')
      .argument('<job>', 'name or id')
      .option('-f, --follow', 'keep printing until the job ends')
      .option('--lines <n>', `print the last N lines first (default ${DEFAULT_LINES}; 0: only new ones with -f)`, lineCount)
      .option('--events', 'nightshift\'s own log of the job (state changes, decisions) instead')
      .option('--raw', 'with --events: the JSON lines as written'),
  ).action(async (job: string, f: LogsFlags) => {
    // A reader that stopped reading (`| head`) ends the output, not with a stack trace.
    process.stdout.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(0);
      throw e;
    });
    if (f.raw && !f.events) throw new InputError('--raw: goes with --events (the job\'s output is always text)');
    if (f.events) {
      if (f.lines !== undefined) throw new InputError(`--lines "${f.lines}": goes with the job's output, not --events`);
      return events(job, f);
    }
    if (boardUrlOf(f)) throw new InputError('--board: a job\'s output is read from its recording on its own host; run logs there (or use --events)');
    await printOutput(stateDirOf(f), job, { lines: f.lines ?? DEFAULT_LINES, follow: f.follow === true });
  });
}

function lineCount(value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new InvalidArgumentError(`"${value}" is not a number of lines; expected e.g. 40`);
  return Number(value);
}

async function events(job: string, f: LogsFlags): Promise<void> {
  let partial = '';
  const print = (chunk: string) => {
    if (f.raw) return void process.stdout.write(chunk);
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() ?? '';
    for (const l of lines) if (l.trim()) process.stdout.write(`${pretty(l)}\n`);
  };
  await callDaemon(f, 'logs', { job, follow: f.follow === true }, { onData: print });
}

function pretty(line: string): string {
  try {
    const { time, level, msg, job: _j, pid: _p, hostname: _h, ...rest } = JSON.parse(line) as Record<string, unknown>;
    const extra = Object.keys(rest).length ? ` ${JSON.stringify(rest)}` : '';
    return `${String(time)} ${(LEVELS[level as number] ?? String(level)).padEnd(5)} ${String(msg)}${extra}`;
  } catch {
    return line;
  }
}
