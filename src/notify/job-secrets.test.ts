import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Board } from '../board/board.js';
import type { JobSpecInput } from '../board/types.js';
import { inheritEnv, jobRedactors, maskJob, maskShown } from './job-secrets.js';

const dirs: string[] = [];
const boards: Board[] = [];
afterEach(() => {
  for (const b of boards.splice(0)) b.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function board(): Board {
  const dir = mkdtempSync(join(tmpdir(), 'nightshift-secrets-'));
  dirs.push(dir);
  const b = Board.open(dir);
  boards.push(b);
  return b;
}

const KEY = 'k3y-v4lue-xyz';
const spec = (name: string, env: Record<string, string>): JobSpecInput => ({
  name,
  command: ['deploy', '--key', KEY],
  cwd: '/tmp/work',
  env,
  policy: null,
  rules: null,
  budgets: { wall_ms: null, tokens: null, no_progress_ms: null, steps: null, blocked_ms: null },
  priority: 0,
  after: [],
});

describe('job-secrets: what the socket hands out', () => {
  it('maskJob: secret-looking env names ***, the value redacted in the command and the reason', () => {
    const b = board();
    const rec = b.submit(spec('j', { API_KEY: KEY, MODE: 'fast' }), 1);
    const done = b.transition(rec.id, 'done', { code: 'start-failed', detail: `cannot run deploy --key ${KEY}` }, 2);
    const masked = maskJob(done);
    expect(masked.env).toEqual({ API_KEY: '***', MODE: 'fast' });
    expect(masked.command).toEqual(['deploy', '--key', '[redacted]']);
    expect(masked.reason.detail).toBe('cannot run deploy --key [redacted]');
    expect(JSON.stringify(masked)).not.toContain(KEY);
    // The board keeps the real env: the job needs it.
    expect(b.require('j').env.API_KEY).toBe(KEY);
  });

  it('maskShown: screen, evidence, pages and transitions redacted with the job\'s own values', () => {
    const b = board();
    const rec = b.submit(spec('j', { TOKEN_X: KEY }), 1);
    const shown = maskShown({
      job: rec,
      transitions: [{ job: rec.id, time: 't', state: 'done' as const, reason: { code: 'exit', detail: KEY } }],
      screen: `echo ${KEY}`,
      evidence: [{ screen: [`x ${KEY}`] }],
      pages: [{ page: { prompt: `${KEY}?` } }],
    });
    expect(shown.screen).toBe('echo [redacted]');
    expect(JSON.stringify(shown)).not.toContain(KEY);
  });

  it('jobRedactors: by job id, for the daemon log; unknown ids get none', () => {
    const b = board();
    const rec = b.submit(spec('j', { SECRET: KEY }), 1);
    const of = jobRedactors(b);
    expect(of(rec.id)!(`started with ${KEY}`)).toBe('started with [redacted]');
    expect(of('j-nope')).toBeUndefined();
  });

  it('inheritEnv: resume names the old job; its real env comes along, the spec\'s own entries win', () => {
    const b = board();
    const rec = b.submit(spec('old', { API_KEY: KEY, MODE: 'a' }), 1);
    expect(inheritEnv(b, { name: 'new', env: { MODE: 'b' }, env_of: rec.id })).toEqual({ name: 'new', env: { API_KEY: KEY, MODE: 'b' } });
    const plain = { name: 'x', env: {} };
    expect(inheritEnv(b, plain)).toBe(plain);
  });
});
