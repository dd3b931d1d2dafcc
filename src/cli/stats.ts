/** `nightshift stats [--json]` — probe verdicts over the board's history, by probe and by agent. */
import { existsSync, readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { JobRecord } from '../board/types.js';
import { addStateFlag, boardUrlOf, callDaemon, printJson, type StateFlag } from './daemon-client.js';

interface Counts {
  jobs: number;
  verdicts: number;
  by_probe: Record<string, number>;
  by_agent: Record<string, Record<string, number>>;
  by_response: Record<string, number>;
}

export function registerStats(program: Command): void {
  addStateFlag(program.command('stats').description('count probe verdicts by probe and by agent over every job on the board').option('--json', 'one JSON document')).action(
    async (f: StateFlag & { json?: boolean }) => {
      const { jobs } = await callDaemon(f, 'board', {});
      // On a fleet each job's evidence is on its host: asked of it (evidence), a few at a time.
      const c = boardUrlOf(f) ? countVerdictsIn(jobs, await fleetEvidence(f, jobs)) : countVerdicts(jobs);
      if (f.json) return printJson(c);
      const lines = [`${c.verdicts} verdict(s) over ${c.jobs} job(s)`, 'by probe:'];
      for (const [p, n] of Object.entries(c.by_probe).sort()) lines.push(`  ${p.padEnd(22)} ${n}`);
      lines.push('by agent:');
      for (const [a, probes] of Object.entries(c.by_agent).sort()) {
        lines.push(`  ${a}: ${Object.entries(probes).map(([p, n]) => `${p} ${n}`).join(', ')}`);
      }
      lines.push(`responses: ${Object.entries(c.by_response).map(([r, n]) => `${r} ${n}`).join(', ') || 'none'}`);
      process.stdout.write(`${lines.join('\n')}\n`);
    },
  );
}

/**
 * Each verdict once: a verdict names its transcript, and probe + turn + first
 * evidence id identify it within that stream (verdictKey), so two jobs that
 * followed one session file (a resumed job) cannot count the same one twice.
 * Older records without a transcript are counted as they come.
 */
export function countVerdicts(jobs: readonly JobRecord[]): Counts {
  return countVerdictsIn(jobs, jobs.map(localVerdicts));
}

function localVerdicts(j: JobRecord): VerdictRecord[] {
  if (!j.paths || !existsSync(j.paths.evidence)) return [];
  return readFileSync(j.paths.evidence, 'utf8')
    .split('\n')
    .filter((line) => line.includes('"type":"verdict"'))
    .map((line) => JSON.parse(line) as VerdictRecord);
}

/** Every job's verdicts from its own host; a job whose host cannot answer (lost) counts none, and a line on stderr says so. */
async function fleetEvidence(f: StateFlag, jobs: readonly JobRecord[]): Promise<VerdictRecord[][]> {
  const out: VerdictRecord[][] = [];
  let missing = 0;
  for (let i = 0; i < jobs.length; i += 8) {
    const batch = jobs.slice(i, i + 8).map(async (j) => {
      try {
        const { records } = await callDaemon(f, 'evidence', { job: j.id, limit: 10_000 });
        return records.filter((r) => r.type === 'verdict') as unknown as VerdictRecord[];
      } catch {
        missing++;
        return [];
      }
    });
    out.push(...(await Promise.all(batch)));
  }
  if (missing) process.stderr.write(`nightshift: ${missing} job(s) not counted: their host did not answer (nightshift hosts)\n`);
  return out;
}

export function countVerdictsIn(jobs: readonly JobRecord[], verdicts: readonly VerdictRecord[][]): Counts {
  const c: Counts = { jobs: jobs.length, verdicts: 0, by_probe: {}, by_agent: {}, by_response: {} };
  const seen = new Set<string>();
  for (const list of verdicts) {
    for (const v of list) {
      const key = typeof v.transcript === 'string' ? `${v.transcript}|${v.probe}|${v.turn ?? 'job'}|${v.evidence?.[0] ?? ''}` : null;
      if (key !== null && seen.has(key)) continue;
      if (key !== null) seen.add(key);
      count(c, v);
    }
  }
  return c;
}

interface VerdictRecord {
  probe: string;
  agent: string;
  response: string;
  turn?: string | null;
  evidence?: string[];
  transcript?: string | null;
}

function count(c: Counts, v: VerdictRecord): void {
  c.verdicts++;
  c.by_probe[v.probe] = (c.by_probe[v.probe] ?? 0) + 1;
  const a = (c.by_agent[v.agent] ??= {});
  a[v.probe] = (a[v.probe] ?? 0) + 1;
  c.by_response[v.response] = (c.by_response[v.response] ?? 0) + 1;
}
