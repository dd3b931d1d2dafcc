/**
 * `nightshift drill` end to end: the built CLI replaying the shipped
 * scenarios (scenarios/*.cast with their NAME.expect.yaml sidecars) and
 * rejecting broken recordings with file:line.
 * Needs a build first (npx tsc -p tsconfig.json): bin/nightshift.js runs dist/.
 */
import { copyFileSync, existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, ROOT, runCli, tempDir } from '../helpers/cli.js';

afterEach(cleanup);

const SCENARIOS = join(ROOT, 'scenarios');
/** Every shipped scenario, as the CLI names it when given `scenarios/` from the repository root. */
const shipped = readdirSync(SCENARIOS)
  .filter((n) => n.endsWith('.cast'))
  .sort((a, b) => a.localeCompare(b))
  .map((n) => `scenarios/${n}`);

interface DrillJson {
  scenarios: Array<{
    file: string;
    passed: boolean | null;
    failures: string[];
    final: { state: string; reason: string };
    timeline: Array<{ t: number; state: string; reason: string }>;
    actions: Array<{ kind: string; reason: string }>;
    time_to_alert: number | null;
  }>;
  errors: string[];
}

/** stdout must be exactly one JSON document (one line). */
function oneJson(stdout: string): DrillJson {
  expect(stdout.endsWith('\n')).toBe(true);
  expect(stdout.slice(0, -1)).not.toContain('\n');
  return JSON.parse(stdout) as DrillJson;
}

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('nightshift drill: the shipped scenarios', () => {
  beforeAll(() => {
    expect(shipped.length).toBeGreaterThan(0);
  });

  it('every scenario has an expectation sidecar', () => {
    for (const f of shipped) expect(existsSync(join(ROOT, f.replace(/\.cast$/, '.expect.yaml'))), f).toBe(true);
  });

  it('--json: one JSON document, every scenario passes, exit 0', async () => {
    const r = await runCli(['drill', '--json', 'scenarios/']);
    const doc = oneJson(r.stdout);
    expect(doc.errors).toEqual([]);
    expect(doc.scenarios.map((s) => s.file)).toEqual(shipped);
    for (const s of doc.scenarios) {
      expect({ file: s.file, passed: s.passed, failures: s.failures }).toEqual({ file: s.file, passed: true, failures: [] });
    }
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('no path: the scenarios of the package, wherever nightshift is run from, named on stderr', async () => {
    const elsewhere = tempDir('ns-e2e-drill-cwd-');
    const r = await runCli(['drill', '--json'], { cwd: elsewhere });
    const doc = oneJson(r.stdout);
    expect(doc.errors).toEqual([]);
    expect(doc.scenarios.map((s) => s.file)).toEqual(shipped.map((f) => join(ROOT, f)));
    expect(doc.scenarios.filter((s) => s.passed !== true)).toEqual([]);
    expect(r.stderrLines).toEqual([`nightshift: drilling the shipped scenarios in ${SCENARIOS}`]);
    expect(r.code).toBe(0);
  });

  it('the human report names every file with PASS', async () => {
    const r = await runCli(['drill', 'scenarios/']);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    for (const f of shipped) expect(r.stdout).toMatch(new RegExp(`^${escapeRe(f)}\\s.*\\bPASS$`, 'm'));
    expect(r.stdout).not.toMatch(/\bFAIL\b/);
    expect(r.stdout).toContain(`${shipped.length} scenario(s): ${shipped.length} passed, 0 failed`);
  });

  it('hang.cast: blocked as hung, alerted after the default tool gap (15 min)', async () => {
    const r = await runCli(['drill', '--json', 'scenarios/hang.cast']);
    expect(r.code).toBe(0);
    const [s] = oneJson(r.stdout).scenarios;
    expect(s).toBeDefined();
    const hung = [s!.final, ...s!.timeline].find((e) => e.state === 'blocked' && e.reason === 'hung');
    expect(hung).toBeDefined();
    expect(s!.actions).toEqual([expect.objectContaining({ kind: 'escalate', reason: 'hung' })]);
    expect(s!.time_to_alert).toBeGreaterThanOrEqual(800);
    expect(s!.time_to_alert).toBeLessThanOrEqual(1000);
  });
});

describe('nightshift drill: bad recordings', () => {
  /** Exit 2 with one `nightshift: FILE:LINE: …` line on stderr, no stack. */
  async function rejects(cast: string, line: number | undefined, message: RegExp) {
    const r = await runCli(['drill', '--json', cast]);
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderrLines).toHaveLength(1);
    const where = line === undefined ? escapeRe(cast) : `${escapeRe(cast)}:${line}`;
    expect(r.stderrLines[0]).toMatch(new RegExp(`^nightshift: ${where}: `));
    expect(r.stderrLines[0]).toMatch(message);
    expect(r.stderr).not.toMatch(/^\s+at |internal error/m);
    return r;
  }

  function castFile(name: string, lines: string[]): string {
    const file = join(tempDir('ns-e2e-drill-'), name);
    writeFileSync(file, `${lines.join('\n')}\n`);
    return file;
  }

  const header = '{"version": 2, "width": 80, "height": 24}';

  it('bad JSON on line 3', async () => {
    const cast = castFile('bad-json.cast', [header, '[0.1, "o", "ok"]', '[0.2, "o", "unterminated]', '[0.3, "o", "x"]']);
    const r = await rejects(cast, 3, /invalid JSON/);
    // --json still prints its one document, with the error in it.
    const doc = oneJson(r.stdout);
    expect(doc.scenarios).toEqual([]);
    expect(doc.errors).toEqual([expect.stringContaining(`${cast}:3:`)]);
  });

  it('a time that goes backwards', async () => {
    const cast = castFile('backwards.cast', [header, '[1.0, "o", "a"]', '[4.0, "o", "b"]', '[3.2, "o", "c"]']);
    await rejects(cast, 4, /time 3\.2 is before previous 4\.0/);
  });

  it('no header', async () => {
    const cast = castFile('no-header.cast', ['[0.1, "o", "no header here"]', '[0.2, "o", "x"]']);
    await rejects(cast, 1, /header/);
  });

  it('a path that does not exist', async () => {
    const missing = join(tempDir('ns-e2e-drill-'), 'nope.cast');
    const r = await rejects(missing, undefined, /no such file or directory/);
    // --json keeps its promise of one document, with the problem in `errors`
    expect(oneJson(r.stdout)).toEqual({
      scenarios: [],
      summary: { by_class: [], must_not_fire: 0, false_blocks: 0, no_alert: 0 },
      errors: [expect.stringContaining(`${missing}: no such file or directory`)],
    });
  });

  it('good and bad together: the good one is still reported, exit 2', async () => {
    const bad = castFile('bad.cast', [header, '[0.1, "o", "ok"]', 'not json']);
    const r = await runCli(['drill', '--json', 'scenarios/rm-interactive.cast', bad]);
    expect(r.code).toBe(2);
    const doc = oneJson(r.stdout);
    expect(doc.scenarios.map((s) => [s.file, s.passed])).toEqual([['scenarios/rm-interactive.cast', true]]);
    expect(doc.errors).toEqual([expect.stringContaining(`${bad}:3:`)]);
  });

  it('a malformed sidecar names file:line', async () => {
    const dir = tempDir('ns-e2e-drill-');
    const cast = join(dir, 'rm.cast');
    copyFileSync(join(SCENARIOS, 'rm-interactive.cast'), cast);
    writeFileSync(join(dir, 'rm.expect.yaml'), 'expect:\n  reach:\n    - { state: sleeping }\n');
    const r = await runCli(['drill', '--json', cast]);
    expect(r.code).toBe(2);
    expect(r.stderrLines).toHaveLength(1);
    expect(r.stderrLines[0]).toMatch(new RegExp(`^nightshift: ${escapeRe(join(dir, 'rm.expect.yaml'))}:3: `));
  });
});

describe('nightshift drill: failed expectations', () => {
  it('an impossible expectation fails: exit 1, passed false, the failure named', async () => {
    const dir = tempDir('ns-e2e-drill-');
    const cast = join(dir, 'rm.cast');
    copyFileSync(join(SCENARIOS, 'rm-interactive.cast'), cast);
    writeFileSync(join(dir, 'rm.expect.yaml'), 'expect:\n  never:\n    - { state: running }\n');
    const r = await runCli(['drill', '--json', dir]);
    expect(r.code, r.stderr).toBe(1);
    const doc = oneJson(r.stdout);
    expect(doc.errors).toEqual([]);
    expect(doc.scenarios).toHaveLength(1);
    expect(doc.scenarios[0]).toMatchObject({ file: cast, passed: false });
    expect(doc.scenarios[0]!.failures).toEqual([expect.stringMatching(/^reached forbidden \{"state":"running"\}/)]);

    const human = await runCli(['drill', dir]);
    expect(human.code).toBe(1);
    expect(human.stdout).toMatch(new RegExp(`^${escapeRe(cast)}\\s.*\\bFAIL$`, 'm'));
    expect(human.stdout).toContain('✗ reached forbidden');
  });
});

describe('nightshift drill: what an action says', () => {
  /** rm-interactive with one action expectation; returns the drill's verdict on it. */
  async function drillSays(says: string) {
    const dir = tempDir('ns-e2e-drill-');
    const cast = join(dir, 'rm.cast');
    copyFileSync(join(SCENARIOS, 'rm-interactive.cast'), cast);
    writeFileSync(join(dir, 'rm.expect.yaml'), `expect:\n  actions:\n    - { kind: escalate, says: ${JSON.stringify(says)} }\n`);
    const r = await runCli(['drill', '--json', cast]);
    return { code: r.code, scenario: oneJson(r.stdout).scenarios[0]! };
  }

  it('says: words in the action prompt or text pass; words it does not say fail, named', async () => {
    const file = await drillSays('notes.txt');
    expect({ code: file.code, passed: file.scenario.passed }).toEqual({ code: 0, passed: true });
    const absent = await drillSays('COMMIT_EDITMSG');
    expect(absent.code).toBe(1);
    expect(absent.scenario.failures).toEqual([`no action {"kind":"escalate","says":"COMMIT_EDITMSG"}`]);
  });
});
