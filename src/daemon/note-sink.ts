/**
 * A board job's notes (board/notes.ts), as a sink of its events: an answer
 * a rule gave, a question put to a person, a probe's verdict, and at its
 * end its last lines and cost. Written to the daemon's board, which goes to
 * disk behind it, so the digest reads one table instead of every job's files.
 */
import type { Action } from '../core/watchdog-types.js';
import type { Board } from '../board/board.js';
import type { NoteDetail } from '../board/notes.js';
import type { Redactor } from '../notify/secrets.js';
import { questionOf as promptQuestion } from '../notify/page-words.js';
import type { JobEvent, JobSink } from '../supervisor/job-events.js';

/** How many of the final screen's last non-blank lines a bad end keeps: enough to see an error and its cause. */
export const LAST_LINES = 6;

export interface NoteSinkDeps {
  readonly board: Board;
  readonly redact: Redactor;
  readonly onLog: (msg: string, fields?: object) => void;
}

export class NoteSink implements JobSink {
  readonly name = 'notes';

  constructor(
    private readonly id: string,
    private readonly deps: NoteSinkDeps,
  ) {}

  event(e: JobEvent): void {
    const note = noteOf(e, this.deps.redact);
    if (!note) return;
    try {
      this.deps.board.notes.add(this.id, new Date(note.t).toISOString(), note.note);
    } catch (err) {
      // A full disk refuses it; the job's evidence still has what happened.
      this.deps.onLog('a job note could not be written', { job: this.id, kind: note.note.kind, err: String(err) });
    }
  }
}

function noteOf(e: JobEvent, redact: Redactor): { t: number; note: NoteDetail } | undefined {
  switch (e.kind) {
    case 'action':
      return actionNote(e.action, redact);
    case 'verdict':
      return { t: e.t, note: { kind: 'verdict', probe: e.probe, response: e.response } };
    case 'finish': {
      const lines = e.screen.split('\n').map((l) => redact(l.trimEnd())).filter((l) => l.trim() !== '').slice(-LAST_LINES);
      const num = (v: unknown): number | null => (typeof v === 'number' ? v : null);
      return { t: e.t, note: { kind: 'ended', lines, steps: num(e.agent?.steps), tokens: num(e.agent?.tokens) } };
    }
    default:
      return undefined;
  }
}

/** An answer by a rule (or a policy's decline), or a question escalated to a person; a probe's nudge is its verdict's business. */
function actionNote(a: Action, redact: Redactor): { t: number; note: NoteDetail } | undefined {
  if (a.layer === 'probe') return undefined;
  if (a.kind === 'answer') return { t: a.t, note: { kind: 'answered', rule: a.rule, class: a.class, what: redact(a.text), layer: a.layer } };
  if (a.kind === 'escalate') return { t: a.t, note: { kind: 'asked', reason: a.reason, rule: a.rule, class: a.class, question: redact(questionOf(a)) } };
  return undefined;
}

/** What a block asks, in one line: the command a dialog wants to run, else the prompt's question line, else the action's words. */
function questionOf(a: Action): string {
  return a.command ? `wants to run: ${a.command}` : (promptQuestion(a.prompt ?? null) ?? a.text);
}
