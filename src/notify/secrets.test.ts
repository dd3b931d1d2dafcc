import { describe, expect, it } from 'vitest';
import { MASK, maskEnv, redactDeep, redactorFor, secretValues } from './secrets.js';

describe('secrets: a job\'s own env values', () => {
  it('replaces every --env value literally, then the patterns run', () => {
    const r = redactorFor({ API_KEY: 'q7Wz-plain-93', DSN: 'db.internal:5432/orders' });
    expect(r('key=q7Wz-plain-93 at db.internal:5432/orders, ghp_0123456789abcdefghijABCDEFGHIJ012345')).toBe(
      'key=[redacted] at [redacted], [redacted]',
    );
    // Inside a longer word or a URL too: a substring match, not a word match.
    expect(r('https://x.example/?k=q7Wz-plain-93&z=1')).toBe('https://x.example/?k=[redacted]&z=1');
  });

  it('minimum lengths: 4 characters for secret-looking names, 6 for any other; NIGHTSHIFT_* never', () => {
    expect(secretValues({ PIN_TOKEN: 'abcd', SHORT_TOKEN: 'abc', CI: 'true', LEVEL: 'debug', MODE: 'staging', NIGHTSHIFT_AGENT: 'claude-x' })).toEqual([
      'staging',
      'abcd',
    ]);
    const r = redactorFor({ CI: 'true', PASSCODE: '9876' });
    expect(r('CI is true, code 9876')).toBe('CI is true, code [redacted]');
  });

  it('a value holding another goes whole (longest first); a value with quotes is also caught JSON-escaped', () => {
    const r = redactorFor({ A_KEY: 'abcdef', B_KEY: 'abcdef-123456' });
    expect(r('abcdef-123456 and abcdef')).toBe('[redacted] and [redacted]');
    const q = redactorFor({ SECRET: 'pa"ss\\word' });
    expect(q(JSON.stringify({ v: 'pa"ss\\word' }))).toBe('{"v":"[redacted]"}');
  });

  it('no env: the patterns alone', () => {
    expect(redactorFor(undefined)('password=hunter22')).toBe('password=[redacted]');
    expect(redactorFor({})('plain text')).toBe('plain text');
  });

  it('redactDeep walks objects, arrays and errors and leaves other values alone', () => {
    const r = redactorFor({ API_KEY: 'zzz-secret-zzz' });
    const out = redactDeep({ a: ['x zzz-secret-zzz'], n: 3, b: null, e: new Error('bad zzz-secret-zzz') }, r);
    expect(out).toEqual({ a: ['x [redacted]'], n: 3, b: null, e: expect.objectContaining({ type: 'Error', message: 'bad [redacted]' }) });
    expect(JSON.stringify(out)).not.toContain('zzz-secret-zzz');
  });

  it('maskEnv: names with KEY, TOKEN, SECRET, PASS, CREDENTIAL, AUTH (any case, anywhere) show ***', () => {
    const env = {
      API_KEY: 'a', gh_token: 'b', MY_SECRET_X: 'c', DB_PASSWORD: 'd', GOOGLE_CREDENTIALS: 'e', AuthHeader: 'f', keyboard: 'g', NODE_ENV: 'production',
    };
    expect(maskEnv(env)).toEqual({
      API_KEY: MASK, gh_token: MASK, MY_SECRET_X: MASK, DB_PASSWORD: MASK, GOOGLE_CREDENTIALS: MASK, AuthHeader: MASK, keyboard: MASK, NODE_ENV: 'production',
    });
  });
});
