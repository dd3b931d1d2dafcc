/**
 * A reason as a person reads it: what the job does or waits for, or why it
 * ended, in words rather than codes. The web view's pages say it; codes
 * stay in tables, logs and the API. Every code of REASONS has its words
 * (a test says so), so a new code cannot reach a page as a bare code.
 */
import { EXIT_STATUS } from './outcome.js';

/** What a reason in words is made of (a wire reason has these fields). */
export interface ReasonFacts {
  readonly code: string;
  readonly detail?: string | null;
  readonly exit_code?: number | null;
  readonly signal?: string | null;
}

export const REASON_WORDS: Readonly<Record<string, string>> = {
  submitted: 'waiting for its turn',
  started: 'running since it started',
  screen: 'working: its screen moves',
  output: 'working: it prints',
  tool: 'working: a tool call ended',
  proc: 'working: a process it started is busy',
  'prompt-cleared': 'working again: the question was answered',
  'agent-working': 'working again: the agent says so',
  continued: 'working again: a person let it go on',
  'quiet-child-busy': 'quiet, while a process it started is busy',
  'quiet-tool-in-flight': 'quiet, while a tool call runs',
  prompt: 'waiting at a question',
  'unknown-prompt': 'waiting for input no rule knows',
  'unknown-dialog': 'a dialog no rule knows waits for an answer',
  'agent-waiting': 'the agent waits for you',
  hung: 'stuck: nothing moved for too long',
  parked: 'parked: a watch mode waits for a key',
  'turn-ended': 'finished its turn',
};

/** Codes whose detail is the question itself: the page shows it in full beside these words. */
const ASKS = new Set(['prompt', 'unknown-prompt', 'unknown-dialog', 'agent-waiting', 'parked']);

const ENDED: ReadonlyMap<string, string> = new Map(EXIT_STATUS.map((r) => [r.reason, r.meaning]));
const MAX_DETAIL = 200;

/** "waiting at a question", "failed (exit code 1)", "paused by the loop check: …". */
export function reasonInWords(r: ReasonFacts): string {
  const words = headOf(r);
  const detail = ASKS.has(r.code) ? '' : (r.detail ?? '').split('\n').map((l) => l.trim()).find(Boolean) ?? '';
  if (!detail) return words;
  return `${words}: ${detail.length > MAX_DETAIL ? `${detail.slice(0, MAX_DETAIL - 1)}…` : detail}`;
}

function headOf(r: ReasonFacts): string {
  const c = r.code;
  if (c === 'exit') return r.exit_code === 0 ? 'finished (exit code 0)' : `failed (exit code ${r.exit_code ?? 'unknown'})`;
  if (c === 'signal') return `killed by ${r.signal ?? 'a signal'}`;
  if (c.startsWith('probe:')) return `paused by the ${c.slice('probe:'.length)} check`;
  if (c.startsWith('budget:')) return `its ${c.slice('budget:'.length)} budget ran out`;
  return REASON_WORDS[c] ?? ENDED.get(c) ?? c;
}
