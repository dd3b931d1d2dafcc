/** The job's own writers (log, evidence, summary, job folder) with a Redactor: nothing of the job's env on disk but the recording. */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/helpers/temp-dirs.js';
import { redactorFor } from '../notify/secrets.js';
import { EvidenceLog } from './evidence.js';
import { createJobDir } from './job-dir.js';
import { jobLogger } from './logger.js';
import { JobSummary } from './summary.js';

const state = tempDirs('nightshift-redact-');

const VALUE = 'v4lue-of-the-key';
const r = redactorFor({ API_KEY: VALUE });

describe('job writers with the job\'s Redactor', () => {
  it('createJobDir: folder 0700, its files made 0600 before any writer opens them', () => {
    const p = createJobDir(state(), 'j-1');
    expect(statSync(p.dir).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(p.dir)) expect(`${f} ${(statSync(join(p.dir, f)).mode & 0o777).toString(8)}`).toBe(`${f} 600`);
  });

  it('jobLogger: fields, message and errors are redacted', () => {
    const p = createJobDir(state(), 'j-2');
    const log = jobLogger(p.log, 'j-2', r);
    log.info({ prompt: `key ${VALUE}`, nested: { args: ['x', VALUE] }, err: new Error(`boom ${VALUE}`) }, `said ${VALUE}`);
    log.flush();
    const text = readFileSync(p.log, 'utf8');
    expect(text).not.toContain(VALUE);
    const line = JSON.parse(text.trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ job: 'j-2', prompt: 'key [redacted]', nested: { args: ['x', '[redacted]'] }, msg: 'said [redacted]' });
    expect(statSync(p.log).mode & 0o777).toBe(0o600);
  });

  it('EvidenceLog and JobSummary: what came from the job is redacted; summary.json stays 0600 after rewrites', async () => {
    const p = createJobDir(state(), 'j-3');
    const ev = new EvidenceLog(p.evidence, 'j-3', r);
    ev.human('t', 'me', ['y'], `typed ${VALUE}`);
    expect(readFileSync(p.evidence, 'utf8')).toContain('typed [redacted]');
    const spec = { command: 'bash', args: ['-c', `echo ${VALUE}`], cwd: '/tmp', env: { API_KEY: VALUE }, cols: 80, rows: 24 };
    const s = new JobSummary(p, spec, 0, r);
    s.transition({ from: 'running', to: 'blocked', t: 1, reason: { code: 'prompt', detail: `asks ${VALUE}` } } as never);
    s.finish({ code: 'exit', exitCode: 0, signal: null }, 2, `screen ${VALUE}`, { final: `answer ${VALUE}` });
    await s.flushed();
    const text = readFileSync(p.summary, 'utf8');
    expect(text).not.toContain(VALUE);
    expect(JSON.parse(text)).toMatchObject({ command: ['bash', '-c', 'echo [redacted]'], final_screen: 'screen [redacted]', agent: { final: 'answer [redacted]' } });
    expect(statSync(p.summary).mode & 0o777).toBe(0o600);
  });
});
