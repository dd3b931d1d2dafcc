/** `nightshift logs JOB [-f] [--raw]` — the job's structured log, readable or as JSON lines. */
import type { Command } from 'commander';
import { addStateFlag, callDaemon, type StateFlag } from './daemon-client.js';

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

export function registerLogs(program: Command): void {
  addStateFlag(
    program
      .command('logs')
      .description('print a job\'s log')
      .argument('<job>', 'name or id')
      .option('-f, --follow', 'keep printing until the job ends')
      .option('--raw', 'the JSON lines as written'),
  ).action(async (job: string, f: StateFlag & { follow?: boolean; raw?: boolean }) => {
    let partial = '';
    const print = (chunk: string) => {
      if (f.raw) return void process.stdout.write(chunk);
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const l of lines) if (l.trim()) process.stdout.write(`${pretty(l)}\n`);
    };
    await callDaemon(f, 'logs', { job, follow: f.follow === true }, { onData: print });
  });
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
