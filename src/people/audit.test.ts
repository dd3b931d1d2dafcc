import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AuditLog, scrubCredentials } from './audit.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const file = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'ns-audit-'));
  dirs.push(d);
  return join(d, 'web-audit.jsonl');
};

describe('AuditLog', () => {
  it('appends one line per entry, keeping what was there, and tightens an old file to 0600', async () => {
    const path = file();
    writeFileSync(path, '{"old":true}\n');
    chmodSync(path, 0o644);
    const log = new AuditLog(path);
    log.write({ who: 'human:ops', action: 'web-token', ok: true, detail: 'alice operator' }, 0);
    log.write({ who: 'alice', action: 'cancel', job: 'fix', ok: false, detail: 'viewer' }, 1000);
    await log.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(
      [
        '{"old":true}',
        '{"time":"1970-01-01T00:00:00.000Z","who":"human:ops","action":"web-token","ok":true,"detail":"alice operator"}',
        '{"time":"1970-01-01T00:00:01.000Z","who":"alice","action":"cancel","job":"fix","ok":false,"detail":"viewer"}',
        '',
      ].join('\n'),
    );
  });

  it('scrubs tokens, codes and session ids wherever they appear', () => {
    const text = 'nst_0123456789abcdef_AAAA-BBBB_cccc /login?code=nsc_Zz09-_abcdefgh cookie nss_abcdefghijk';
    expect(scrubCredentials(text)).toBe('nst_[redacted] /login?code=nsc_[redacted] cookie nss_[redacted]');
    expect(scrubCredentials('nst_ is a prefix')).toBe('nst_ is a prefix');
  });

  it('close twice is harmless', async () => {
    const log = new AuditLog(file());
    await log.close();
    await log.close();
  });

  it('rotates past maxBytes, keeping the newest files, every line whole and in order', async () => {
    const path = file();
    const log = new AuditLog(path, undefined, { maxBytes: 300, keep: 2 });
    for (let i = 0; i < 12; i++) log.write({ who: 'alice', action: `act-${i}`, ok: true }, i * 1000);
    await log.close();
    const lines = (f: string) => readFileSync(f, 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { action: string }).action);
    const kept = [...lines(`${path}.2`), ...lines(`${path}.1`), ...lines(path)];
    expect(kept).toEqual(kept.map((_, k) => `act-${12 - kept.length + k}`));
    expect(kept.length).toBeGreaterThanOrEqual(6);
    expect(() => statSync(`${path}.3`)).toThrow();
    for (const f of [path, `${path}.1`, `${path}.2`]) expect(statSync(f).size).toBeLessThanOrEqual(300);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});
