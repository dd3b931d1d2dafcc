/**
 * A tiny fake of the Anthropic Messages API, enough for the real Claude Code
 * CLI (2.1.x) to run a session offline: it plays the model from a script of
 * turns, so a test decides which tool call Claude "wants" to make.
 *
 * - `HEAD /`, `HEAD /api/hello` (connectivity probes): 200.
 * - `POST /v1/messages` with tools (the main loop): pops the next script step
 *   and streams it as server-sent events (`message_start`, one content block
 *   of `text_delta`s or `input_json_delta`s, `message_delta` with
 *   `stop_reason` `tool_use` or `end_turn`, `message_stop`). An exhausted
 *   script answers `end_turn` with a short text.
 * - `POST /v1/messages` without tools (side requests: the session title, …):
 *   a text `{"title": "…"}`, streamed or plain as asked.
 * - `POST /v1/messages/count_tokens`: a token count; anything else: `{}`.
 *
 * Every request is kept in `requests` (method, path, parsed body), so a test
 * can see what Claude sent back, e.g. the `tool_result` of a Bash call.
 */
import type { ServerResponse } from 'node:http';
import { json, pieces, serveFake, type RawRequest } from './fake-http.js';

/**
 * `delayMs`: how long the "model" takes to answer this step (a real one takes seconds; default at once).
 * `use`: any tool of the CLI (Read, Edit, Grep …) with its input; `say`: the text a real model
 * writes before its call, streamed as a first block of the same message.
 */
export type ScriptStep =
  | { tool: 'Bash'; command: string; description?: string; delayMs?: number; say?: string }
  | { use: string; input: Record<string, unknown>; delayMs?: number; say?: string }
  | { text: string; delayMs?: number };

export interface RecordedRequest {
  method: string;
  /** Path with query string, e.g. `/v1/messages?beta=true`. */
  path: string;
  /** Parsed JSON body; the raw string when it is not JSON; null without a body. */
  body: any;
  /** The script step this request was answered with (main requests only). */
  step?: ScriptStep;
}

export interface FakeAnthropic {
  /** `http://127.0.0.1:PORT`, for ANTHROPIC_BASE_URL. */
  url: string;
  requests: RecordedRequest[];
  /** Main (with tools) requests answered so far. */
  readonly turns: number;
  close(): Promise<void>;
}

/** Content blocks a message carries, whatever the shape (string or array). */
export function contentBlocks(message: any): any[] {
  const c = message?.content;
  if (Array.isArray(c)) return c;
  if (typeof c === 'string') return [{ type: 'text', text: c }];
  return [];
}

/** Every `tool_result` block in the user messages of the recorded main requests, in order, without repeats. */
export function toolResults(requests: RecordedRequest[]): any[] {
  const seen = new Map<string, any>();
  for (const r of requests) {
    if (!isMainRequest(r)) continue;
    for (const m of r.body.messages ?? []) {
      if (m.role !== 'user') continue;
      for (const b of contentBlocks(m)) if (b?.type === 'tool_result' && !seen.has(b.tool_use_id)) seen.set(b.tool_use_id, b);
    }
  }
  return [...seen.values()];
}

/** The text of a tool_result block (its content may be a string or text blocks). */
export function toolResultText(block: any): string {
  const c = block?.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((b: any) => (typeof b?.text === 'string' ? b.text : '')).join('');
  return '';
}

function isMainRequest(r: RecordedRequest): boolean {
  return r.method === 'POST' && /^\/v1\/messages(\?|$)/.test(r.path) && Array.isArray(r.body?.tools) && r.body.tools.length > 0;
}

/**
 * A person's message that changes the script: when the last user text matches, this step answers instead of the next one.
 * `queued`: match the whole last user message, tool results included: text typed while a tool ran reaches the model
 * inside that tool's result ("The user sent a new message while you were working: …").
 */
export interface Reply {
  readonly when: RegExp;
  readonly step: ScriptStep;
  readonly queued?: boolean;
}

/** Every text of the last user message: its text blocks and its tool results'. */
export function lastUserMessageText(body: any): string {
  const users = (body?.messages ?? []).filter((m: any) => m.role === 'user');
  return contentBlocks(users.at(-1))
    .map((b) => (b?.type === 'tool_result' ? toolResultText(b) : b?.type === 'text' && typeof b.text === 'string' ? b.text : ''))
    .join('\n');
}

/** The last text a person (or nightshift) typed in a request: system reminders and tool results left out. */
export function lastUserText(body: any): string | undefined {
  const users = (body?.messages ?? []).filter((m: any) => m.role === 'user');
  const texts = contentBlocks(users.at(-1))
    .filter((b) => b?.type === 'text' && typeof b.text === 'string' && !b.text.startsWith('<system-reminder>'))
    .map((b) => b.text as string);
  return texts.at(-1)?.trim();
}

export async function startFakeAnthropic(script: readonly ScriptStep[], replies: readonly Reply[] = []): Promise<FakeAnthropic> {
  const steps = [...script];
  const requests: RecordedRequest[] = [];
  let turns = 0;
  let ids = 0;
  const nextId = (prefix: string) => `${prefix}_fake${String(++ids).padStart(6, '0')}`;

  const server = await serveFake((req, res) => {
    const rec: RecordedRequest = { method: req.method, path: req.path, body: req.body };
    requests.push(rec);
    handle(req, res, rec);
  }, (e) => ({ type: 'error', error: { type: 'api_error', message: String(e) } }));

  function handle(req: RawRequest, res: ServerResponse, rec: RecordedRequest): void {
    const path = req.path.split('?')[0]!;
    if (req.method === 'HEAD' || req.method === 'GET') {
      if (req.method === 'HEAD') {
        res.writeHead(200, { 'content-type': 'application/json' }).end();
        return;
      }
      json(res, 200, {});
      return;
    }
    if (req.method === 'POST' && path === '/v1/messages/count_tokens') {
      json(res, 200, { input_tokens: 1000 });
      return;
    }
    if (req.method === 'POST' && path === '/v1/messages') {
      const model = typeof rec.body?.model === 'string' ? rec.body.model : 'claude-sonnet-4-6';
      const stream = rec.body?.stream === true;
      if (isMainRequest(rec)) {
        turns++;
        const said = lastUserText(rec.body);
        const whole = lastUserMessageText(rec.body);
        const step = replies.find((r) => (r.queued ? r.when.test(whole) : said !== undefined && r.when.test(said)))?.step ?? steps.shift() ?? { text: 'All done.' };
        rec.step = step;
        if (step.delayMs) setTimeout(() => reply(res, model, stream, step), step.delayMs);
        else reply(res, model, stream, step);
      } else {
        reply(res, model, stream, { text: sideText(rec.body) });
      }
      return;
    }
    json(res, 200, {});
  }

  function reply(res: ServerResponse, model: string, stream: boolean, step: ScriptStep): void {
    const usage = { input_tokens: 100, output_tokens: 20, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const id = nextId('msg');
    const blocks = contentOf(step, () => nextId('toolu'));
    const stopReason = 'text' in step ? 'end_turn' : 'tool_use';
    if (!stream) {
      json(res, 200, {
        id, type: 'message', role: 'assistant', model, content: blocks,
        stop_reason: stopReason, stop_sequence: null, usage,
      });
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': nextId('req'),
    });
    const send = (event: string, data: object) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    send('message_start', {
      type: 'message_start',
      message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null,
        usage: { ...usage, output_tokens: 1 } },
    });
    blocks.forEach((block, index) => {
      if (block.type === 'tool_use') {
        send('content_block_start', { type: 'content_block_start', index, content_block: { ...block, input: {} } });
        for (const piece of pieces(JSON.stringify(block.input), 3)) {
          send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } });
        }
      } else {
        send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
        for (const piece of pieces(block.text, 2)) {
          send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: piece } });
        }
      }
      send('content_block_stop', { type: 'content_block_stop', index });
    });
    send('message_delta', { type: 'message_delta', delta: { stop_reason: stopReason, stop_sequence: null }, usage: { output_tokens: usage.output_tokens } });
    send('message_stop', { type: 'message_stop' });
    res.end();
  }

  const { port } = server;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get turns() {
      return turns;
    },
    close: server.close,
  };
}

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

/** The content blocks of a step's message: its narration (if any), then its tool call; or its text. */
function contentOf(step: ScriptStep, toolId: () => string): Block[] {
  if ('text' in step) return [{ type: 'text', text: step.text }];
  const call: Block =
    'use' in step
      ? { type: 'tool_use', id: toolId(), name: step.use, input: step.input }
      : { type: 'tool_use', id: toolId(), name: step.tool, input: { command: step.command, description: step.description ?? 'Run the requested command' } };
  return step.say ? [{ type: 'text', text: step.say }, call] : [call];
}

/** The answer to a request without tools: a session title as JSON, which Claude Code asks for. */
function sideText(body: any): string {
  const words = firstUserText(body).replace(/[^\w\s.-]/g, ' ').split(/\s+/).filter(Boolean).slice(0, 4);
  const title = words.length > 0 ? words.join(' ') : 'Offline session';
  return JSON.stringify({ title });
}

function firstUserText(body: any): string {
  for (const m of body?.messages ?? []) {
    if (m.role !== 'user') continue;
    for (const b of contentBlocks(m)) if (b?.type === 'text' && typeof b.text === 'string') return b.text;
  }
  return '';
}
