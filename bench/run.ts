/**
 * `npm run bench [-- CASE… --smoke --out DIR]`: runs the benchmark cases
 * (bench/cases/*.ts; all of them by default) and writes, per case,
 * DIR/<case>.json (rows, details, the machine and commit), then rebuilds
 * DIR/README.md, one table of every row of every json file in DIR. DIR is
 * bench/results, or bench/results/smoke with --smoke (gitignored), so a
 * smoke run never overwrites real results.
 * Usage: npm run build && node dist/bench/run.js [cli|replay|flood|idle|scale|latency|fleet|web-stall|web …] [--smoke] [--out DIR] [--root CHECKOUT]
 */
import path from 'node:path';
import { bareReaderMBps } from './lib/machine-probe.js';
import { machineInfo, readCaseFiles, repoRoot, textTable, writeCaseFile, writeTable, type CaseFile } from './lib/results.js';
import { CASES, type BenchCase, type CaseName } from './lib/types.js';

export { CASES, type CaseName };

const LOADERS: Record<CaseName, () => Promise<{ run: BenchCase }>> = {
  cli: () => import('./cases/cli.js'),
  replay: () => import('./cases/replay.js'),
  latency: () => import('./cases/latency.js'),
  idle: () => import('./cases/idle.js'),
  flood: () => import('./cases/flood.js'),
  scale: () => import('./cases/scale.js'),
  fleet: () => import('./cases/fleet.js'),
  'web-stall': () => import('./cases/web-stall.js'),
  web: () => import('./cases/web.js'),
};

export async function loadCase(name: CaseName): Promise<BenchCase> {
  return (await LOADERS[name]()).run;
}

export interface RunOptions {
  cases: CaseName[];
  smoke: boolean;
  outDir: string;
  root: string;
  log?: (line: string) => void;
}

/** Runs the cases one after another; a case that fails keeps its old json and is reported. Returns the files written and the failures. */
export async function runBench(o: RunOptions): Promise<{ written: CaseFile[]; failed: Array<{ case: string; error: string }> }> {
  const log = o.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const written: CaseFile[] = [];
  const failed: Array<{ case: string; error: string }> = [];
  const bare = await bareReaderMBps();
  log(`machine: bare node-pty reader ${bare ?? '?'} MB/s`);
  for (const name of o.cases) {
    log(`== ${name}${o.smoke ? ' (smoke)' : ''}`);
    const t0 = performance.now();
    try {
      const result = await (await loadCase(name))({ smoke: o.smoke, root: o.root, log });
      const file: CaseFile = { ...result, case: name, machine: machineInfo(o.root, bare), smoke: o.smoke, seconds: (performance.now() - t0) / 1000 };
      writeCaseFile(o.outDir, file);
      written.push(file);
    } catch (e) {
      const error = e instanceof Error ? (e.stack ?? e.message) : String(e);
      log(`${name} failed: ${error}`);
      failed.push({ case: name, error });
    }
    writeTable(o.outDir);
  }
  return { written, failed };
}

function parseArgs(argv: string[], here: string): RunOptions {
  let root = here;
  const cases: CaseName[] = [];
  let smoke = false;
  let tableOnly = false;
  let out: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--smoke') smoke = true;
    else if (a === '--table-only') tableOnly = true;
    else if (a === '--out') out = argv[++i] ?? null;
    else if (a === '--root') root = path.resolve(argv[++i] ?? '.');
    else if (a === '--help' || a === '-h') {
      process.stdout.write(
        `usage: node dist/bench/run.js [${CASES.join('|')} …] [--smoke] [--out DIR] [--root CHECKOUT] [--table-only]\n` +
          '  --smoke  small sizes, few trials; writes to bench/results/smoke/ unless --out\n' +
          '  --out    where <case>.json and README.md go (default bench/results/)\n' +
          '  --table-only  run nothing; rebuild README.md from the json files present\n' +
          '  --root   the nightshift checkout whose bin/nightshift.js, rules/ and scenarios/ the cases use (default this one), to measure an older build\n',
      );
      process.exit(0);
    } else if ((CASES as readonly string[]).includes(a)) cases.push(a as CaseName);
    else throw new Error(`unknown case or option ${JSON.stringify(a)}; cases: ${CASES.join(', ')}`);
  }
  const outDir = path.resolve(out ?? path.join(here, 'bench', 'results', ...(smoke ? ['smoke'] : [])));
  return { cases: tableOnly ? [] : cases.length ? cases : [...CASES], smoke, outDir, root };
}

async function main(): Promise<void> {
  const root = repoRoot();
  const o = parseArgs(process.argv.slice(2), root);
  const { written, failed } = await runBench(o);
  if (o.cases.length === 0) writeTable(o.outDir);
  process.stdout.write(`${textTable(o.cases.length ? written : readCaseFiles(o.outDir))}\n\n`);
  process.stdout.write(`results: ${o.outDir}/ (${written.map((f) => `${f.case}.json`).join(', ') || 'none written'}; README.md has all ${readCaseFiles(o.outDir).length} case(s))\n`);
  if (failed.length) {
    process.stdout.write(`failed: ${failed.map((f) => f.case).join(', ')}\n`);
    process.exitCode = 1;
  }
  // Handles some libraries keep (sockets, timers) must not hold the process open.
  setTimeout(() => process.exit(), 1000).unref();
}

// Run only as the entry point, so the test can import runBench.
if (process.argv[1] && path.resolve(process.argv[1]).replace(/\.ts$/, '.js') === path.resolve(new URL(import.meta.url).pathname).replace(/\.ts$/, '.js')) {
  await main();
}
