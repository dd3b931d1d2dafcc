/**
 * What a client may send the daemon, checked (the daemon's side of the
 * wire, src/api/wire.ts). Apart from the wire itself because it needs zod:
 * a CLI call encodes, decodes and reads errors without loading zod.
 */
import { z } from 'zod';
import { issuesText, PROTOCOL_VERSION, type ErrorBody, type Request, type StreamInput } from './wire.js';

export * from './wire.js';

const id = z.number().int().nonnegative();
const requestSchema = z.strictObject({ v: z.number(), id, cmd: z.string(), args: z.record(z.string(), z.unknown()).optional() });
const inputSchema = z.strictObject({ v: z.number(), id, input: z.string() });

/** What a client may send, checked; anything else becomes an error reply for `id` (0 when it has none). */
export type Incoming = { ok: true; message: Request | StreamInput } | { ok: false; id: number; error: ErrorBody };

export function parseIncoming(line: string): Incoming {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    return refuse(0, 'malformed message: not JSON');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return refuse(0, 'malformed message: expected a JSON object');
  const o = raw as Record<string, unknown>;
  const replyId = id.safeParse(o.id).success ? (o.id as number) : 0;
  // The version first: a newer client's message may not fit this daemon's schemas at all.
  if (typeof o.v === 'number' && o.v !== PROTOCOL_VERSION) {
    return refuse(replyId, `protocol version ${o.v} not supported; this daemon speaks ${PROTOCOL_VERSION} (restart it after upgrading)`);
  }
  const schema = 'input' in o ? inputSchema : requestSchema;
  const parsed = schema.safeParse(o);
  if (!parsed.success) return refuse(replyId, `malformed ${'input' in o ? 'input' : 'request'}: ${issuesText(parsed.error)}`);
  const m = parsed.data;
  return { ok: true, message: 'cmd' in m ? { ...m, args: m.args ?? {} } : m };
}

const refuse = (replyId: number, message: string): Incoming => ({ ok: false, id: replyId, error: { message, kind: 'input' } });

