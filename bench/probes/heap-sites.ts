/**
 * Where a daemon's allocations came from: reads a sampling heap profile
 * (heap-daemon.cjs; every allocation, collected or not) and prints the
 * sampled bytes by the function that allocated them and by the nearest
 * nightshift frame above it, biggest first.
 *
 * Usage: node dist/bench/probes/heap-sites.js PROFILE [TOP=15]
 */
import { readFileSync } from 'node:fs';

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface HeapNode {
  callFrame: Frame;
  selfSize: number;
  children: HeapNode[];
}

const [file, topArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node dist/bench/probes/heap-sites.js PROFILE [TOP]\n');
  process.exit(2);
}
const top = Number(topArg ?? 15);
const head = (JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode }).head;

const where = (f: Frame) => `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(node_modules|dist)\//, '$1/')}:${f.lineNumber + 1}`;
const ours = (f: Frame) => f.url.includes('/dist/src/');
const bySelf = new Map<string, number>();
const byOurs = new Map<string, number>();
let total = 0;
const add = (m: Map<string, number>, k: string, n: number) => m.set(k, (m.get(k) ?? 0) + n);

function walk(n: HeapNode, nearest: string): void {
  const here = ours(n.callFrame) ? where(n.callFrame) : nearest;
  if (n.selfSize > 0) {
    total += n.selfSize;
    add(bySelf, where(n.callFrame), n.selfSize);
    add(byOurs, here, n.selfSize);
  }
  for (const c of n.children) walk(c, here);
}
walk(head, '(no nightshift frame)');

const MB = 1024 * 1024;
const print = (title: string, m: Map<string, number>) => {
  process.stdout.write(`${title}\n`);
  for (const [k, n] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    process.stdout.write(`  ${(n / MB).toFixed(1).padStart(8)} MB ${((100 * n) / total).toFixed(1).padStart(5)} %  ${k}\n`);
  }
};
process.stdout.write(`sampled allocations: ${(total / MB).toFixed(1)} MB\n`);
print('by allocating function:', bySelf);
print('by nearest nightshift frame:', byOurs);
