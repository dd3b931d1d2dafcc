import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { until } from '../../test/helpers/until.js';
import { PtyHost } from './host.js';
import { readsTerminal } from './tty-read.js';

const hosts: PtyHost[] = [];
afterEach(() => {
  for (const h of hosts.splice(0)) h.dispose();
});

const spawn = (script: string) => {
  const h = PtyHost.spawn({ command: 'bash', args: ['-c', script], cwd: '/tmp', env: process.env as Record<string, string>, cols: 80, rows: 24 });
  hosts.push(h);
  return h;
};
const stateOf = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]![0]!;

describe('readsTerminal (a real PTY)', () => {
  it('is true for a shell waiting at `read -p`, false for one asleep', async () => {
    const reading = spawn('read -p "Continue? [y/N] " a');
    expect(await until(() => readsTerminal(reading.pid, stateOf(reading.pid)) || undefined, 5_000, 'bash in read(2)')).toBe(true);
    const sleeping = spawn('sleep 30');
    await until(() => readFileSync(`/proc/${sleeping.pid}/cmdline`, 'utf8').startsWith('sleep') || undefined, 5_000, 'sleep to exec');
    await new Promise((r) => setTimeout(r, 200));
    expect(readsTerminal(sleeping.pid, stateOf(sleeping.pid))).toBe(false);
  });
});
