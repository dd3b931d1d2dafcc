/**
 * Issue 9.6, live: a known line prompt whose program is blocked in a
 * terminal read (/proc: wchan, syscall) is escalated within 0.5 s of
 * appearing, not after the 1.5 s settle. Needs a build first.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readCast } from '../../src/record/cast-reader.js';
import { cleanup, startCli, tempDir } from '../helpers/cli.js';

afterEach(cleanup);

describe('line prompts faster (issue 9.6)', () => {
  it('`read -p "…? [y/N]"` is escalated ≤ 0.5 s after it appears, with the default settle', async () => {
    const state = tempDir();
    const p = startCli([
      'run', '--json', '--quiet', '--state', state, '--timeout', '20s', '--',
      'bash', '-c', 'echo preparing; sleep 0.5; read -p "Continue with the upgrade? [y/N] " a; echo "got:$a"',
    ]);
    const action = await p.waitForJson((o) => o.type === 'action', 10_000, 'the escalation');
    expect(action).toMatchObject({ kind: 'escalate', reason: 'prompt', rule: 'generic-yes-no' });
    const took = Date.parse(String(action.time)) - Date.parse(String(action.since));
    expect(took).toBeGreaterThanOrEqual(250);
    expect(took).toBeLessThanOrEqual(500);
    p.write('n\r');
    expect(await p.waitExit(10_000)).toEqual({ code: 0, signal: null });
    const cast = await readCast(join(String(p.jsonLines()[0]!.dir), 'recording.cast'));
    expect(cast.events.filter((e) => e.code === 'm').map((e) => e.data)).toContain('tty:read');
  }, 30_000);
});
