/**
 * What a job did, for a failure message: the last lines of its log and the
 * last of its terminal output, escapes stripped. A CI failure is often only
 * its message; "no idle state within 30 s" says nothing of what the agent
 * showed instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-_]/g;

export function jobStory(dir: string, logLines = 12, outputChars = 1200): string {
  const read = (f: string) => (existsSync(join(dir, f)) ? readFileSync(join(dir, f), 'utf8') : '');
  const log = read('log.jsonl').split('\n').filter((l) => l !== '').slice(-logLines);
  let output = '';
  for (const line of read('recording.cast').split('\n').slice(1)) {
    try {
      const [, code, data] = JSON.parse(line) as [number, string, string];
      if (code === 'o') output += data;
    } catch {
      // A torn last line while the job still writes.
    }
  }
  const text = output.replace(ESCAPES, '').replace(/\r/g, '').slice(-outputChars);
  return `\n--- ${dir}: last log lines\n${log.join('\n')}\n--- last output\n${text}\n---`;
}
