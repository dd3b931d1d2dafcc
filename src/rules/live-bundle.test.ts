import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RuleBundle } from './bundle.js';
import { RULES_DIR } from '../../test/helpers/rules.js';
import { LiveBundle } from './live-bundle.js';

async function until<T>(get: () => T | undefined, ms = 5_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = get();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('LiveBundle', () => {
  let live: LiveBundle | undefined;
  afterEach(async () => live?.dispose());

  async function setup() {
    const dir = mkdtempSync(join(tmpdir(), 'ns-reload-'));
    for (const f of ['prompts.yaml', 'risk.yaml']) copyFileSync(join(RULES_DIR, f), join(dir, f));
    const policy = join(dir, 'policy.yaml');
    writeFileSync(policy, 'policy: 1\nallow: []\n');
    const applied: RuleBundle[] = [];
    const rejected: string[] = [];
    live = await LiveBundle.open(dir, policy, { applied: (b) => applied.push(b), rejected: (p) => rejected.push(p) }, 50);
    const heard: RuleBundle[] = [];
    live.subscribe((b) => heard.push(b));
    return { dir, policy, applied, rejected, heard };
  }

  it('applies a good policy edit', async () => {
    const s = await setup();
    writeFileSync(s.policy, 'policy: 1\nallow:\n  - { ecosystem: npm, name: left-pad }\n');
    const b = await until(() => s.applied[0]);
    expect(b.policy.allow).toEqual([{ ecosystem: 'npm', name: 'left-pad', range: null }]);
    expect(s.rejected).toEqual([]);
    // Subscribers get it, and a job started now would take it.
    expect(s.heard).toEqual([b]);
    expect(live!.current).toBe(b);
  });

  it('rejects a broken edit with file:line and applies nothing', async () => {
    const s = await setup();
    writeFileSync(s.policy, 'policy: 1\nallow: []\nallow_everything: true\n');
    const problem = await until(() => s.rejected[0]);
    expect(problem).toMatch(new RegExp(`^${s.policy.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:3: `));
    expect(s.applied).toEqual([]);
    expect(s.heard).toEqual([]);
    expect(live!.current.policy.allow).toEqual([]);
  });

  it('a broken rule file keeps the last good bundle too', async () => {
    const s = await setup();
    writeFileSync(join(s.dir, 'risk.yaml'), 'version: 1\nrisks:\n  - id: x\n    match: "(unclosed"\n');
    expect(await until(() => s.rejected[0])).toMatch(/risk\.yaml:4: risks\.0\.match is not a valid regular expression/);
    expect(s.applied).toEqual([]);
  });
});
