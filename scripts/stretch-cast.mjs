#!/usr/bin/env node
// Lengthens a quiet gap in an asciicast v2 recording: every event after
// --after SECONDS moves later by --add SECONDS. The text stays as recorded;
// only time is stretched (scenario files record where they were stretched).
// usage: node scripts/stretch-cast.mjs FILE --after 2.5 --add 1200
import { readFileSync, writeFileSync } from 'node:fs';

const [file, ...rest] = process.argv.slice(2);
const opt = (name) => {
  const i = rest.indexOf(name);
  if (i < 0 || rest[i + 1] === undefined) throw new Error(`missing ${name}`);
  return Number(rest[i + 1]);
};
const after = opt('--after');
const add = opt('--add');
const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.trim() !== '');
const out = [lines[0]];
for (const line of lines.slice(1)) {
  const ev = JSON.parse(line);
  if (ev[0] > after) ev[0] = Math.round((ev[0] + add) * 1e6) / 1e6;
  out.push(JSON.stringify(ev));
}
writeFileSync(file, `${out.join('\n')}\n`);
console.error(`${file}: events after ${after}s moved by +${add}s`);
