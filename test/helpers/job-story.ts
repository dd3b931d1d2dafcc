/**
 * What a job did, for a failure message: the last lines of its log and the
 * last of its terminal output, escapes stripped. A CI failure is often only
 * its message; "no idle state within 30 s" says nothing of what the agent
 * showed instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import stripAnsi from 'strip-ansi';
import { parseCast } from '../../src/record/cast-reader.js';

export function jobStory(dir: string, logLines = 12, outputChars = 1200): string {
  const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : '');
  const log = read('log.jsonl').split('\n').filter((l) => l !== '').slice(-logLines);
  return `\n--- ${dir}: last log lines\n${log.join('\n')}\n--- last output\n${lastOutput(read('recording.cast'), dir, outputChars)}\n---`;
}

function lastOutput(cast: string, dir: string, chars: number): string {
  if (cast === '') return '(no recording)';
  try {
    // Up to its last whole line: the job may be writing the next one.
    const { events } = parseCast(cast.slice(0, cast.lastIndexOf('\n') + 1), join(dir, 'recording.cast'));
    const output = events.filter((e) => e.code === 'o').map((e) => e.data).join('');
    return stripAnsi(output).replace(/\r/g, '').slice(-chars);
  } catch (e) {
    return `(recording unreadable: ${(e as Error).message})`;
  }
}
