/** bench/results/<case>.json per case, and bench/results/README.md: one table of every row, rebuilt from the json files present. */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CASES, type CaseResult, type Row } from './types.js';

export interface Machine {
  node: string;
  cores: number;
  cpu: string;
  memGB: number;
  platform: string;
  date: string;
  commit: string | null;
  /** Whether the work tree had uncommitted changes when the case ran. */
  dirty: boolean | null;
  /** Bare node-pty reading a flood, MB/s (machine-probe.ts), taken once per bench run; absent in older files. */
  bareReaderMBps?: number | null;
}

export interface CaseFile extends CaseResult {
  machine: Machine;
  smoke: boolean;
  seconds: number;
}

/** The nightshift checkout above this file (bench/lib → root, dist/bench/lib → root). */
export function repoRoot(from = fileURLToPath(import.meta.url)): string {
  for (let dir = path.dirname(from); ; dir = path.dirname(dir)) {
    const pkg = path.join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'nightshift') return dir;
    if (path.dirname(dir) === dir) throw new Error('cannot find the nightshift package.json above this file');
  }
}

export function machineInfo(root: string, bareReaderMBps: number | null = null): Machine {
  const git = (...args: string[]): string | null => {
    try {
      return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return null;
    }
  };
  const status = git('status', '--porcelain', '--untracked-files=no');
  return {
    node: process.version,
    cores: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memGB: Math.round(totalmem() / 2 ** 30),
    platform: `${process.platform} ${process.arch}`,
    date: new Date().toISOString(),
    commit: git('rev-parse', '--short=12', 'HEAD'),
    dirty: status === null ? null : status.length > 0,
    bareReaderMBps,
  };
}

export function writeCaseFile(dir: string, file: CaseFile): string {
  mkdirSync(dir, { recursive: true });
  const out = path.join(dir, `${file.case}.json`);
  writeFileSync(out, `${JSON.stringify(file, null, 2)}\n`);
  return out;
}

const rank = (name: string): number => {
  const i = (CASES as readonly string[]).indexOf(name);
  return i < 0 ? CASES.length : i;
};

export function readCaseFiles(dir: string): CaseFile[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((f) => JSON.parse(readFileSync(path.join(dir, f), 'utf8')) as CaseFile)
    .filter((c) => typeof c.case === 'string' && Array.isArray(c.rows))
    .sort((a, b) => rank(a.case) - rank(b.case) || a.case.localeCompare(b.case));
}

/** A number to 3 significant figures (no exponent for the usual sizes). */
export function fmt(x: number | null): string {
  if (x === null || x === undefined) return '–';
  if (!Number.isFinite(x)) return String(x);
  const a = Math.abs(x);
  if (Number.isInteger(x) && a < 1e6) return String(x);
  if (a >= 100) return x.toFixed(0);
  if (a >= 10) return x.toFixed(1);
  if (a >= 1) return x.toFixed(2);
  return x.toPrecision(2);
}

const cell = (s: string) => s.replace(/\|/g, '\\|');
const passCell = (p: boolean | null) => (p === null ? '–' : p ? 'yes' : '**no**');

function rowCells(c: string, r: Row): string[] {
  const anchor = r.anchor === null ? '–' : `${fmt(r.anchor)} ${r.unit} (${r.anchorName ?? '?'})`;
  const ratio = r.ratio === null ? '–' : `${fmt(r.ratio)}×`;
  return [c, r.metric, `${fmt(r.nightshift)} ${r.unit}`, anchor, ratio, r.goal || '–', passCell(r.pass)].map(cell);
}

/** The README: one Markdown table of every row of every case file, then each case's machine and run. */
export function renderTable(files: CaseFile[]): string {
  const head = ['case', 'metric', 'nightshift', 'anchor (name)', 'ratio', 'goal', 'pass'];
  const lines = [
    '# Benchmark results',
    '',
    'Written by `npm run bench` (`bench/run.ts`); do not edit by hand. Every row gives nightshift and its anchor measured in the same run; ratio = nightshift / anchor (whether higher or lower is better is in the goal).',
    '',
    `| ${head.join(' | ')} |`,
    `| ${head.map(() => '---').join(' | ')} |`,
    ...files.flatMap((f) => f.rows.map((r) => `| ${rowCells(f.case, r).join(' | ')} |`)),
    '',
    '| case | date | commit | node | cores | cpu | bare reader MB/s | seconds | smoke |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...files.map((f) => {
      const m = f.machine;
      return `| ${[f.case, m.date, `${m.commit ?? '?'}${m.dirty ? ' (dirty)' : ''}`, m.node, String(m.cores), m.cpu, fmt(m.bareReaderMBps ?? null), f.seconds.toFixed(0), f.smoke ? 'yes' : 'no'].map(cell).join(' | ')} |`;
    }),
    '',
  ];
  return lines.join('\n');
}

/** Rebuilds DIR/README.md from every DIR/*.json. */
export function writeTable(dir: string): string {
  const out = path.join(dir, 'README.md');
  mkdirSync(dir, { recursive: true });
  writeFileSync(out, renderTable(readCaseFiles(dir)));
  return out;
}

/** A plain-text table for the terminal. */
export function textTable(files: CaseFile[]): string {
  const head = ['case', 'metric', 'nightshift', 'anchor (name)', 'ratio', 'goal', 'pass'];
  const rows = files.flatMap((f) => f.rows.map((r) => rowCells(f.case, r).map((c) => c.replace(/\\\|/g, '|').replace(/\*\*/g, ''))));
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}
