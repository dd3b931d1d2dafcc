import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProbeConfig, parseProbeConfig } from '../probes/profiles-file.js';
import { packagePath } from '../util/package.js';
import { loadRules, parseRuleFile } from './load.js';
import { loadPolicy } from './policy-file.js';
import { keyOf, record, SHIPPED_TABLE, useTable, type Entry } from './shipped-yaml.js';
import { lineAt, YamlSource } from './yaml-source.js';

const RULES = packagePath('rules');

async function loadAll() {
  return {
    rules: await loadRules(RULES),
    policy: await loadPolicy(join(RULES, 'policy.yaml')),
    probes: await loadProbeConfig(join(RULES, 'probes.yaml')),
  };
}

async function recorded(): Promise<Record<string, Entry>> {
  const take = record();
  await loadAll();
  return take();
}

afterEach(() => useTable(undefined));

describe('the shipped rules, checked at build time', () => {
  it('loads the same rules, policy and probe profiles through the table as by parsing, source lines included', async () => {
    const fresh = await loadAll();
    const table = await recorded();
    expect(Object.keys(table)).toHaveLength(4);
    useTable(table);
    const viaTable = await loadAll();
    expect(viaTable.rules).toEqual(fresh.rules);
    expect(viaTable.rules.prompts.map((r) => r.source)).toEqual(fresh.rules.prompts.map((r) => r.source));
    expect(viaTable.policy).toEqual(fresh.policy);
    expect(viaTable.probes.profiles).toEqual(fresh.probes.profiles);
  });

  it('reads the table, not the file, for a text it holds; a copy each time', async () => {
    const table = await recorded();
    const prompts = readFileSync(join(RULES, 'prompts.yaml'), 'utf8');
    const entry = table[keyOf('rules', prompts)]!;
    const data = entry.data as { prompts: Array<{ id: string }> };
    const first = data.prompts[0]!.id;
    data.prompts[0]!.id = 'from-the-table';
    useTable(table);
    const a = parseRuleFile(prompts, 'prompts.yaml');
    expect(a.prompts[0]!.id).toBe('from-the-table');
    a.prompts.length = 0;
    expect(parseRuleFile(prompts, 'prompts.yaml').prompts[0]!.id).toBe('from-the-table');
    expect(first).not.toBe('from-the-table');
  });

  it('parses and checks a file edited since the build, with its errors at their lines', async () => {
    useTable(await recorded());
    const probes = readFileSync(join(RULES, 'probes.yaml'), 'utf8');
    const edited = probes.replace(/^profiles:\n/m, 'profiles:\n  extra:\n    extends: default\n');
    expect(parseProbeConfig(edited, 'probes.yaml').profiles.has('extra')).toBe(true);
    const broken = probes.replace(/^profiles:\n/m, 'profiles:\n  extra:\n    bogus_field: 1\n');
    const line = broken.split('\n').findIndex((l) => l.includes('bogus_field')) + 1;
    expect(() => parseProbeConfig(broken, 'probes.yaml')).toThrow(expect.objectContaining({ file: 'probes.yaml', line }));
  });

  it('finds by parsing a line the table does not hold', () => {
    const src = new YamlSource('x.yaml', 'a:\n  b:\n    - 1\n    - 2\n', {});
    expect(lineAt(src, ['a', 'b', 1])).toBe(4);
  });

  it('the build left a table that holds every shipped rules file as it is now', () => {
    const file = packagePath(...SHIPPED_TABLE);
    expect(existsSync(file), `${file} (npm run build writes it)`).toBe(true);
    const table = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Entry>;
    const text = (name: string) => readFileSync(join(RULES, name), 'utf8');
    for (const [kind, name] of [['rules', 'prompts.yaml'], ['rules', 'risk.yaml'], ['policy', 'policy.yaml'], ['probes', 'probes.yaml']] as const) {
      expect(table[keyOf(kind, text(name))], name).toBeDefined();
    }
  });
});
