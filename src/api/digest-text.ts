/**
 * The digest as a person reads it, on an 80-column terminal or in a page:
 * one heading per section, one line per item, long text cut to the width.
 * The CLI prints it; the morning page carries it.
 */
import { formatDuration } from '../util/duration.js';
import type { Digest } from './digest.js';

const WIDTH = 80;
/** Marks a line never cut: a command a person copies must be whole. */
const WHOLE = '\u0000';
const cut = (s: string, width = WIDTH): string => (s.length <= width ? s : `${s.slice(0, width - 1)}…`);
/** Whole minutes once it is a minute or more: a wait of 4m12.3s reads as 4m. */
const mins = (ms: number): string => formatDuration(ms >= 60_000 ? Math.round(ms / 60_000) * 60_000 : Math.round(ms / 1_000) * 1_000);

export function digestText(d: Digest): string[] {
  const out: string[] = [`nightshift digest since ${d.since.slice(0, 16).replace('T', ' ')} UTC`];
  section(out, 'NEEDS YOU', d.needs_you, (n) => [
    `${n.name}  blocked ${mins(n.waited_ms)}  ${n.reason}`,
    `  asks: ${n.question}`,
    ...n.next.map((c, i) => `${WHOLE}  ${i === 0 ? 'next:' : '     '} ${c}`),
  ]);
  section(out, 'ENDED BADLY', d.ended_badly, (e) => [`${e.name}  ${e.why}`, ...e.last_lines.map((l) => `  | ${l}`), `${WHOLE}  more: ${e.next[0]}`]);
  section(out, 'ANSWERED FOR YOU', d.answered, (a) => [`${a.name}  ${a.time.slice(11, 16)}  rule ${a.rule ?? '-'} (${a.class ?? '-'})`, `  ${a.what}`]);
  section(out, 'COST', d.cost, (c) => [
    `${c.name.padEnd(24)} ${c.state.padEnd(8)} wall ${(c.wall_ms === null ? '-' : formatDuration(c.wall_ms)).padEnd(8)} tokens ${String(c.tokens ?? '-').padEnd(9)} steps ${c.steps ?? '-'}`,
  ]);
  section(out, 'PROBES', d.probes, (p) => [`${p.probe.padEnd(24)} ${p.count}`]);
  return out.map((l) => (l.includes(WHOLE) ? l.replace(WHOLE, '') : cut(l)));
}

function section<T>(out: string[], title: string, items: readonly T[], lines: (t: T) => string[]): void {
  out.push('', `${title} (${items.length})`);
  if (items.length === 0) out.push('  none');
  for (const item of items) out.push(...lines(item).map((l) => `  ${l}`));
}
