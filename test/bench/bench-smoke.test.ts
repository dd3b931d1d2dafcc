/**
 * The benchmark runs: every case of bench/cases in smoke mode (small sizes,
 * one or three trials), written by the runner into a temporary folder.
 * Only the shape is checked — rows with finite numbers, the json files and
 * the table; the goals live in the benchmark's `pass` column, never here.
 * Needs a build first (npx tsc -p tsconfig.json): the cases run bin/nightshift.js.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readCaseFiles, repoRoot, type CaseFile } from '../../bench/lib/results.js';
import { CASES, runBench } from '../../bench/run.js';

const root = repoRoot();
const out = mkdtempSync(join(tmpdir(), 'ns-bench-smoke-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

const finiteOrNull = (x: number | null) => x === null || Number.isFinite(x);

describe('npm run bench -- --smoke', () => {
  it('has a build to run', () => {
    expect(existsSync(join(root, 'dist', 'src', 'cli', 'main.js')), 'build first: npx tsc -p tsconfig.json').toBe(true);
  });

  for (const name of CASES) {
    it(`${name}: rows with finite numbers, ${name}.json and the table written`, async () => {
      const lines: string[] = [];
      const { written, failed } = await runBench({ cases: [name], smoke: true, outDir: out, root, log: (l) => lines.push(l) });
      expect(failed, lines.join('\n')).toEqual([]);
      const file = written[0]!;
      expect(file.case).toBe(name);
      expect(file.rows.length).toBeGreaterThan(0);
      for (const r of file.rows) {
        expect(r.metric, JSON.stringify(r)).toEqual(expect.any(String));
        expect(Number.isFinite(r.nightshift), JSON.stringify(r)).toBe(true);
        expect(finiteOrNull(r.anchor) && finiteOrNull(r.ratio), JSON.stringify(r)).toBe(true);
        expect(r.anchor === null || r.anchorName !== null, JSON.stringify(r)).toBe(true);
        expect([true, false, null]).toContain(r.pass);
      }
      const saved = JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8')) as CaseFile;
      expect(saved.rows).toEqual(file.rows);
      expect(saved.smoke).toBe(true);
      expect(saved.machine).toMatchObject({ node: process.version, cores: expect.any(Number), date: expect.any(String) });
      // The table is rebuilt from every json present: this case's rows and the earlier cases'.
      const table = readFileSync(join(out, 'README.md'), 'utf8');
      for (const f of readCaseFiles(out)) for (const r of f.rows) expect(table).toContain(`| ${f.case} | ${r.metric.replace(/\|/g, '\\|')} |`);
    }, 120_000);
  }
});
