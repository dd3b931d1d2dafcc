#!/usr/bin/env node
/**
 * Prints the table of the judge fixture set (test/fixtures/judge/): per probe,
 * how many healthy runs it interrupted (nudge, escalation or stop: a false
 * alarm) and how many stuck runs it caught (any verdict of that probe on a run
 * whose label names it), then each run with what fired.
 *
 *   node scripts/judge-table.mjs [--profile NAME] [--runs]
 *
 * Replays through test/helpers/judge-set.ts (the adapters' parsers and the
 * AgentMonitor, event by event), compiled with tsc into .cache/judge-table/.
 */
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({ options: { profile: { type: 'string', default: 'default' }, runs: { type: 'boolean', default: false } } });
const out = join(root, '.cache', 'judge-table');
execFileSync(
  join(root, 'node_modules', '.bin', 'tsc'),
  ['--outDir', out, '--rootDir', root, '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022',
    '--strict', '--skipLibCheck', '--types', 'node', join(root, 'test', 'helpers', 'judge-set.ts'), join(root, 'src', 'probes', 'profiles-file.ts')],
  { stdio: 'inherit' },
);
writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
const set = await import(pathToFileURL(join(out, 'test', 'helpers', 'judge-set.js')).href);
const { loadProbeConfig } = await import(pathToFileURL(join(out, 'src', 'probes', 'profiles-file.js')).href);
const { PROBE_NAMES } = await import(pathToFileURL(join(out, 'src', 'probes', 'index.js')).href);

const profile = (await loadProbeConfig(join(root, 'rules', 'probes.yaml'))).profile(values.profile);
const dir = join(root, 'test', 'fixtures', 'judge');
const runs = await Promise.all(set.loadLabels(dir).map(async (run) => ({ run, r: await set.replay(run, profile, dir) })));
const healthy = runs.filter((x) => x.run.label === 'healthy');
const stuck = runs.filter((x) => x.run.label === 'stuck');

const rows = [];
for (const probe of PROBE_NAMES) {
  const alarms = healthy.filter(({ r }) => r.responses.some((x) => x.probe === probe && set.INTRUSIVE.has(x.kind))).length;
  const wanted = stuck.filter(({ run }) => run.should.includes(probe));
  const caught = wanted.filter(({ run, r }) => r.responses.some((x) => x.probe === probe && x.step <= (run.byStep ?? Infinity))).length;
  const fired = stuck.filter(({ r }) => r.responses.some((x) => x.probe === probe)).length;
  rows.push(`| ${probe} | ${alarms} of ${healthy.length} | ${wanted.length ? `${caught} of ${wanted.length}` : '–'} | ${fired} |`);
}
const ok = (label) => runs.filter(({ run, r }) => run.label === label && set.judged(run, r).ok).length;
console.log(`Profile \`${values.profile}\`, ${healthy.length} healthy and ${stuck.length} stuck runs.\n`);
console.log('| probe | false alarms (healthy runs interrupted) | catches (stuck runs labelled for it) | stuck runs it fired on |');
console.log('| --- | --- | --- | --- |');
for (const row of rows) console.log(row);
console.log(`| all | ${healthy.length - ok('healthy')} of ${healthy.length} | ${ok('stuck')} of ${stuck.length} | |`);
if (values.runs) {
  console.log('\n| run | label | should | fired (probe:response@call) | as labelled |');
  console.log('| --- | --- | --- | --- | --- |');
  for (const { run, r } of runs) {
    const { ok: good, fired } = set.judged(run, r);
    console.log(`| ${run.file} | ${run.label} | ${run.should.join(', ') || '–'}${run.byStep ? ` by ${run.byStep}` : ''} | ${fired.join(', ') || 'nothing'} | ${good ? 'yes' : 'NO'} |`);
  }
}
