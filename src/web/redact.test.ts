import { describe, expect, it } from 'vitest';
import { redactorFor } from '../notify/secrets.js';
import { WebRedaction } from './redact.js';

const ENV = { DATABASE_URL: 'postgres://app:hunter2pw@db/shop', REGION: 'eu-west-prod-7', API_TOKEN: 'tok-123456' };
const board = { get: (job: string) => (job === 'j' ? ({ env: ENV } as never) : undefined) };

describe('WebRedaction', () => {
  it('json: every env record masked whole, every other string redacted with the job’s own values', () => {
    const w = new WebRedaction(board, { showEnv: false });
    const r = w.redactorOf('j');
    const out = w.json({ jobs: [{ env: { ...ENV }, command: ['psql', ENV.DATABASE_URL] }], note: `in ${ENV.REGION}` }, r);
    expect(out).toEqual({ jobs: [{ env: { DATABASE_URL: '***', REGION: '***', API_TOKEN: '***' }, command: ['psql', '[redacted]'] }], note: 'in [redacted]' });
  });

  it('json with show_env: names that do not look secret keep their values; secret-looking names stay ***', () => {
    const w = new WebRedaction(board, { showEnv: true });
    expect(w.json({ env: { ...ENV } }, w.redactorOf('j')).env).toEqual({ DATABASE_URL: ENV.DATABASE_URL, REGION: ENV.REGION, API_TOKEN: '***' });
  });

  it('castLine: the header’s command and env, and an event’s text; lines stay valid JSON, clean ones unchanged', () => {
    const w = new WebRedaction(board, { showEnv: false });
    const r = w.redactorOf('j');
    const header = JSON.stringify({ version: 2, width: 80, height: 24, command: 'mysql -uapp -pcorrecthorse99 shop', env: { TERM: 'xterm' } });
    expect(JSON.parse(w.castLine(header, r))).toEqual({ version: 2, width: 80, height: 24, command: 'mysql -uapp -p[redacted] shop', env: { TERM: '***' } });
    expect(JSON.parse(w.castLine(JSON.stringify([0.5, 'o', `db ${ENV.DATABASE_URL}\r\n`]), r))).toEqual([0.5, 'o', 'db [redacted]\r\n']);
    const clean = '[1.25, "o", "hello"]';
    expect(w.castLine(clean, r)).toBe(clean);
    expect(w.castLine('not json ghp_abcdefghijklmnopqrstuvwxyz0123456789', redactorFor(undefined))).toBe('not json [redacted]');
  });
});
