/** `nightshift judge`'s report for a person: per transcript its verdicts, then a summary line. */
import type { JudgedVerdict, Judgement, JudgeSummary, SideSummary, Tally, TranscriptReport } from '../drill/judge.js';

export function formatTranscript(r: TranscriptReport): string {
  const head = `${r.path} (${r.format}, profile ${r.profile}${r.compare ? ` compared with ${r.compare.profile}` : ''})`;
  const rows = r.compare ? compareRows(r, r.compare) : r.verdicts.map((v) => verdictRow(v, r.first_stop));
  const body = rows.length ? rows : ['  no verdicts'];
  const sums = [sideLine(r, r), ...(r.compare ? [sideLine(r.compare, r)] : [])];
  const problems = r.problems.length ? [`  ${r.problems.length} line(s) not read, the first: ${r.problems[0]}`] : [];
  return [head, ...body, ...problems, ...sums].join('\n');
}

const at = (step: number) => `step ${String(step).padStart(4)}`;
const ids = (v: JudgedVerdict) => v.evidence.join(' ');

function verdictRow(v: JudgedVerdict, first: Judgement['first_stop']): string {
  const stop = first && !v.after_stop && first.step === v.step && first.probe === v.probe && v.response === first.response;
  const mark = stop ? '  ← a live job stops here' : v.after_stop ? '  (after a stop)' : '';
  return `  ${at(v.step)}  ${v.probe.padEnd(19)} ${v.response.padEnd(8)} ${v.message}${mark}\n             evidence ${ids(v)}`;
}

/** The two profiles' verdicts side by side, matched by probe, turn and first evidence (the monitor's identity of a verdict). */
function compareRows(a: Judgement, b: Judgement): string[] {
  const key = (v: JudgedVerdict) => `${v.probe}|${v.turn ?? 'job'}|${v.evidence[0] ?? ''}`;
  const rows = new Map<string, { a?: JudgedVerdict; b?: JudgedVerdict }>();
  for (const v of a.verdicts) rows.set(key(v), { a: v });
  for (const v of b.verdicts) rows.set(key(v), { ...rows.get(key(v)), b: v });
  const side = (name: string, v?: JudgedVerdict) => `${name}: ${v ? `${v.response}${v.after_stop ? ' (after a stop)' : ''}` : '—'}`.padEnd(32);
  return [...rows.values()]
    .map((row) => ({ ...row, step: Math.min(row.a?.step ?? Infinity, row.b?.step ?? Infinity) }))
    .sort((x, y) => x.step - y.step)
    .map((row) => {
      const v = (row.a ?? row.b)!;
      return `  ${at(row.step)}  ${v.probe.padEnd(19)} ${side(a.profile, row.a)} ${side(b.profile, row.b)} ${v.message}\n             evidence ${ids(v)}`;
    });
}

function counts(t: Tally): string {
  const parts = Object.entries(t.by_probe).map(([p, n]) => `${p} ${n}`);
  return parts.length ? parts.join(', ') : 'none';
}

function sideLine(j: Judgement & Tally, r: TranscriptReport): string {
  const stop = j.first_stop ? `first stop at step ${j.first_stop.step}: ${j.first_stop.probe} (${j.first_stop.response})` : 'never stopped';
  return `  ${j.profile}: ${r.calls} calls, ${r.tokens} tokens, ${r.turns} turn(s); verdicts: ${counts(j)}; ${stop}`;
}

export function formatSummary(s: JudgeSummary): string {
  const side = (x: SideSummary) => {
    const by = Object.entries(x.stopped_by).map(([p, n]) => `${p} ${n}`).join(', ');
    return `${x.profile}: ${x.stopped} of ${s.transcripts} stopped${by ? ` (${by})` : ''}; verdicts: ${counts(x)}`;
  };
  const lines = [`judged ${s.transcripts} transcript(s), ${s.calls} calls, ${s.tokens} tokens`, `  ${side(s)}`];
  if (s.compare) lines.push(`  ${side(s.compare)}`);
  if (s.errors.length) lines.push(`  ${s.errors.length} file(s) not judged (named on stderr)`);
  return lines.join('\n');
}
