/**
 * The normalised stream itself (src/core/agent-events.ts), one event per
 * line: what a job's recording keeps in its `agent:` markers and what the
 * trajectory fixtures are written in. A missing `t` is the line number.
 */
import { z } from 'zod';
import type { AgentEvent } from '../core/agent-events.js';
import { parseRecord } from './normalise.js';
import type { ParseResult } from './types.js';

const id = z.string().min(1);
const t = z.number().optional();

const event = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('turn-start'), id, t, text: z.string().default('') }),
  z.object({
    kind: z.literal('tool-call'),
    id,
    t,
    tool: z.string().min(1),
    args: z.record(z.string(), z.unknown()).default({}),
    canonical: z.string(),
  }),
  z.object({
    kind: z.literal('tool-result'),
    id,
    t,
    callId: z.string(),
    tool: z.string(),
    ok: z.boolean(),
    fingerprint: z.string(),
    errorHead: z.string().nullable().default(null),
  }),
  z.object({ kind: z.literal('assistant-text'), id, t, text: z.string() }),
  z.object({ kind: z.literal('usage'), id, t, inputTokens: z.number().nonnegative(), outputTokens: z.number().nonnegative() }),
  z.object({ kind: z.literal('turn-end'), id, t, finalText: z.string().default('') }),
]);

export const EVENT_KINDS: readonly string[] = ['turn-start', 'tool-call', 'tool-result', 'assistant-text', 'usage', 'turn-end'];

export function parseAgentEventLine(line: string, lineNo: number): ParseResult {
  if (line.trim() === '') return [];
  const parsed = parseRecord(line);
  if ('error' in parsed) return parsed;
  const r = event.safeParse(parsed.record);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    return { error: `${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}` };
  }
  return [{ ...r.data, t: r.data.t ?? lineNo } as AgentEvent];
}
