/**
 * What a daemon did during its stalls: reads a profile and its stalls
 * (profile-daemon.cjs) and prints, for each stall of at least MIN ms that
 * began at least FROM ms into the profile, how many samples fell in it (at
 * 0.5 ms each, the CPU the thread got: the rest of the stall it waited for
 * a core), the tasks they were in (the frame under the root and the first
 * nightshift frames) and the functions on top.
 *
 * Usage: node dist/bench/probes/stalls.js PROFILE [MIN_MS=40] [FROM_MS=1500]
 */
import { readFileSync } from 'node:fs';

interface Frame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface Node {
  id: number;
  callFrame: Frame;
  children?: number[];
}
interface Profile {
  nodes: Node[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const [file, minArg, fromArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node dist/bench/probes/stalls.js PROFILE [MIN_MS] [FROM_MS]\n');
  process.exit(2);
}
const minMs = Number(minArg ?? 40);
const fromMs = Number(fromArg ?? 1500);
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
const stalls = JSON.parse(readFileSync(`${file}.stalls.json`, 'utf8')) as Array<[number, number]>;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
let t = profile.startTime;
const times = profile.timeDeltas.map((d) => (t += d));
const name = (f: Frame) => `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber}`;
const top = (m: Map<string, number>, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${v} ${k}`);
const count = (m: Map<string, number>, k: string) => m.set(k, (m.get(k) ?? 0) + 1);

for (const [start, end] of stalls) {
  const at = (start - profile.startTime) / 1000;
  const ms = (end - start) / 1000;
  if (at < fromMs || ms < minMs) continue;
  const tasks = new Map<string, number>();
  const self = new Map<string, number>();
  let samples = 0;
  for (let i = 0; i < times.length; i++) {
    if (times[i]! < start || times[i]! > end) continue;
    samples++;
    const chain: Frame[] = [];
    for (let id: number | undefined = profile.samples[i]; id !== undefined; id = parent.get(id)) chain.push(byId.get(id)!.callFrame);
    chain.reverse();
    const ours = chain.filter((f) => f.url.includes('/dist/src/')).slice(0, 3);
    count(tasks, [chain[1] ?? chain[0]!, ...ours].map(name).join(' > '));
    count(self, name(chain.at(-1)!));
  }
  console.log(`stall at ${at.toFixed(0)} ms: ${ms.toFixed(1)} ms, ${samples} samples`);
  console.log(`  tasks: ${top(tasks, 8).join('\n         ')}`);
  console.log(`  on top: ${top(self, 6).join('\n          ')}`);
}
