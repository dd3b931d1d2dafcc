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
});
