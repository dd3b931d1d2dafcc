/**
 * `nightshift rules check` as a rule author runs it: the counts, and the
 * rules whose pattern holds no fixed text (run over the whole screen at
 * every look, see docs/rules.md). Real CLI processes.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { testScopes } from '../helpers/daemon.js';

const scope = testScopes();

const RULES = `version: 1
prompts:
  - id: deploy-confirm
    class: destructive
    match: 'Deploy to production\\? \\[y/N\\]$'
    answer: [y, enter]
    decline: [n, enter]
  - id: bare-arrow
    class: unknown
    match: '^\\s*[>?]\\s*$'
    lines: 1
    answer: [enter]
`;

describe('rules check', () => {
  it('names the rules run at every look, and only those', async (ctx) => {
    const dir = scope(ctx).tempDir();
    writeFileSync(join(dir, 'mine.yaml'), RULES);
    const r = await runCli(['rules', 'check', dir]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('ok: 2 prompt rules');
    expect(r.stdout.split('\n')).toContain('run at every look (no fixed text in the pattern): bare-arrow');
  }, 30_000);

  it('says nothing of it for the shipped rules, which all hold one', async () => {
    const r = await runCli(['rules', 'check']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ok: \d+ prompt rules/);
    expect(r.stdout).not.toContain('run at every look');
  }, 30_000);
});
