/**
 * Evidence of every prompt episode, append-only JSONL: a `prompt` record when
 * the job blocks (text, screen, decision, deciding layer, who answered, keys),
 * a `followup` when the same episode gets a second decision (an answer that
 * did not take), and an `outcome` record when it ends (cleared, new prompt,
 * exit). A record is never rewritten; each line is one synchronous append,
 * done before any key is sent.
 */
import { appendFileSync, readFileSync } from 'node:fs';
import { exitStatus } from '../core/outcome.js';
import type { Transition } from '../core/task-state.js';
import type { Action } from '../core/watchdog-types.js';
import { redactDeep, type Redactor } from '../notify/secrets.js';

export interface PromptRecord {
  type: 'prompt' | 'followup';
  episode: number;
  job: string;
  time: string;
  rule: string | null;
  class: string | null;
  reason: string;
  prompt: string | null;
  screen: readonly string[];
  decision: string;
  layer: string;
  why: string;
  answered_by: string | null;
  keys: readonly string[];
  command?: string | null;
  packages?: readonly object[];
}

export class EvidenceLog {
  private episode = 0;
  private openKey: string | undefined;

  constructor(
    readonly path: string,
    private readonly job: string,
    /** The job's Redactor: every string of a record goes through it before the append. */
    private readonly redact?: Redactor,
    /** An append failed (a full disk); the record is lost and the caller told so. */
    private readonly onProblem?: (e: Error) => void,
  ) {}

  /**
   * An adopted job (the daemon restarted): numbering goes on from the
   * file's last episode, and an episode left open stays open, so a person's
   * later answer is its followup and its outcome closes it.
   */
  resume(): void {
    const last = lastEpisode(this.path);
    if (!last) return;
    this.episode = last.episode;
    if (last.open) this.openKey = RESUMED;
  }

  /** False once an append failed: an answer must not be sent without its record. */
  ok = true;

  /** An action on a blocked episode: what was decided, by which layer, who answered. */
  action(a: Action, wallTime: (t: number) => string, answeredBy?: string): void {
    const key = `${a.reason}\n${a.rule}\n${a.since}`;
    const followup = key === this.openKey;
    if (!followup) this.episode++;
    this.openKey = key;
    const record: PromptRecord = {
      type: followup ? 'followup' : 'prompt',
      episode: this.episode,
      job: this.job,
      time: wallTime(a.t),
      rule: a.rule,
      class: a.class,
      reason: a.reason,
      prompt: a.prompt,
      screen: trimBlankTail(a.screen),
      decision: a.kind,
      layer: a.layer,
      why: a.why,
      answered_by: answeredBy ?? (a.kind === 'answer' && a.rule ? `rule:${a.rule}` : null),
      keys: a.keys ?? [],
      ...(a.command !== undefined ? { command: a.command } : {}),
      ...(a.packages ? { packages: a.packages } : {}),
    };
    this.append(record);
  }

  /**
   * A person answered (`by`: human:<user>, human:<user>@web), or a policy
   * declined for them (policy:on-unanswered): the same evidence path as an
   * automatic answer, with who it was.
   */
  human(time: string, by: string, keys: readonly string[], text: string): void {
    const policy = by.startsWith('policy:');
    const open = this.openKey !== undefined;
    if (!open) this.episode++;
    this.append({
      type: open ? 'followup' : 'prompt',
      episode: this.episode,
      job: this.job,
      time,
      decision: 'answer',
      layer: policy ? 'policy' : 'human',
      why: policy ? `nobody answered in time: ${by}` : 'answered by a person',
      answered_by: by,
      keys,
      text,
    });
  }

  /** Any other evidence (probe verdicts): appended as given, with the job. */
  record(r: object): void {
    this.append({ ...r, job: this.job });
  }

  /** Closes the open episode with what followed it. */
  transition(tr: Transition, wallTime: (t: number) => string): void {
    if (this.openKey === undefined || tr.from !== 'blocked') return;
    if (tr.to === 'blocked' && tr.reason.code === 'prompt' && tr.reason.rule === undefined) return;
    const followed = tr.to === 'done' ? `exit:${exitStatus(tr.reason)}` : tr.to === 'blocked' ? 'new-prompt' : tr.reason.code;
    this.append({ type: 'outcome', episode: this.episode, job: this.job, time: wallTime(tr.t), followed });
    this.openKey = undefined;
  }

  private append(record: object): void {
    try {
      appendFileSync(this.path, `${JSON.stringify(this.redact ? redactDeep(record, this.redact) : record)}\n`, { mode: 0o600 });
      this.ok = true;
    } catch (e) {
      this.ok = false;
      this.onProblem?.(e as Error);
    }
  }
}

/**
 * The action a previous daemon's watchdog took on an episode, as its prompt
 * record kept it: what `show` offers and `on_unanswered` waits on for an
 * adopted job still blocked on it. Undefined for a record that is not one.
 */
export function actionOf(r: Record<string, unknown>): Action | undefined {
  const t = Date.parse(String(r.time));
  const kind = r.decision;
  if (!Number.isFinite(t) || (kind !== 'escalate' && kind !== 'answer')) return undefined;
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    t,
    since: t,
    kind,
    rule: str(r.rule),
    class: str(r.class) as Action['class'],
    prompt: str(r.prompt),
    text: `${kind} ${str(r.rule) ?? str(r.reason) ?? ''}`.trim(),
    reason: str(r.reason) ?? 'prompt',
    screen: Array.isArray(r.screen) ? r.screen.map(String) : [],
    keys: Array.isArray(r.keys) ? r.keys.map(String) : [],
    layer: str(r.layer) ?? 'policy',
    why: str(r.why) ?? '',
  };
}

/** Stands for the key of an episode a previous daemon opened: no new action matches it. */
const RESUMED = '\u0000resumed';

/** The file's last episode number and whether it has no outcome yet; undefined for a file with none (or none at all). */
export function lastEpisode(file: string): { episode: number; open: boolean; prompt: Record<string, unknown> | undefined } | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  let episode = 0;
  let open = false;
  let prompt: Record<string, unknown> | undefined;
  for (const line of text.split('\n')) {
    let r: { type?: string; episode?: number };
    try {
      r = JSON.parse(line) as typeof r;
    } catch {
      continue; // a torn last line, or a blank one
    }
    if (typeof r.episode !== 'number') continue;
    if (r.type === 'prompt' && r.episode >= episode) [episode, open, prompt] = [r.episode, true, r as Record<string, unknown>];
    else if (r.type === 'outcome' && r.episode === episode) open = false;
  }
  return episode === 0 ? undefined : { episode, open, prompt };
}

function trimBlankTail(rows: readonly string[]): string[] {
  let end = rows.length;
  while (end > 0 && rows[end - 1]!.trim() === '') end--;
  return rows.slice(0, end);
}
