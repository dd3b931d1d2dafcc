/**
 * A tiny fake of the OpenAI Responses API, enough for the real Codex CLI
 * (0.171) to run a session offline: it plays the model from a script of
 * turns, so a test decides which tool call Codex "wants" to make.
 *
 * - `POST /v1/responses` with tools (the main loop): pops the next script
 *   step and streams it as server-sent events: `response.created`,
 *   `response.in_progress`, one output item (`response.output_item.added`,
 *   then `response.function_call_arguments.delta`/`.done` for a function call
 *   or `response.content_part.added`/`response.output_text.delta`/`.done`/
 *   `response.content_part.done` for text, then `response.output_item.done`),
 *   and `response.completed` with usage. An exhausted script answers a short text.
 * - `POST /v1/responses` without tools (side requests: titles, summaries): a short text.
 * - `GET /v1/models`: an empty list; anything else: `{}`.
 *
 * Every request is kept in `requests` (method, path, parsed body), so a test
 * can see what Codex sent back, e.g. the `function_call_output` of a command.
 */
import type { ServerResponse } from 'node:http';
import { json, pieces, serveFake, type RawRequest } from './fake-http.js';

export type ResponsesStep =
  /** A function call, e.g. `{ tool: 'exec_command', args: { cmd: 'ls' } }`. */
  | { tool: string; args: Record<string, unknown> }
  | { text: string };

export interface RecordedResponsesRequest {
  method: string;
  path: string;
  /** Parsed JSON body; the raw string when it is not JSON; null without a body. */
  body: any;
  /** Request headers (content-encoding, authorization …). */
  headers: Record<string, string | string[] | undefined>;
  /** The script step this request was answered with (main requests only). */
  step?: ResponsesStep;
}

export interface FakeOpenAI {
  /** `http://127.0.0.1:PORT/v1`, for a model provider's base_url. */
  url: string;
  requests: RecordedResponsesRequest[];
  /** Main (with tools) requests answered so far. */
  readonly turns: number;
  close(): Promise<void>;
}

export function isMainResponsesRequest(r: RecordedResponsesRequest): boolean {
  return r.method === 'POST' && /^\/v1\/responses(\?|$)/.test(r.path) && Array.isArray(r.body?.tools) && r.body.tools.length > 0;
}

/** Names of the tools a request offered the model. */
export function toolNames(r: RecordedResponsesRequest): string[] {
  return (r.body?.tools ?? []).map((t: any) => String(t?.name ?? t?.type ?? '?'));
}

/** Every `function_call_output` item of the recorded main requests, in order, without repeats. */
export function functionOutputs(requests: readonly RecordedResponsesRequest[]): any[] {
  const seen = new Map<string, any>();
  for (const r of requests) {
    if (!isMainResponsesRequest(r)) continue;
    for (const item of Array.isArray(r.body.input) ? r.body.input : []) {
      if (item?.type === 'function_call_output' && !seen.has(item.call_id)) seen.set(item.call_id, item);
    }
  }
  return [...seen.values()];
}

/** The text of the last user message of a request (the prompt or a typed follow-up). */
export function lastUserInput(r: RecordedResponsesRequest): string | undefined {
  const input = Array.isArray(r.body?.input) ? r.body.input : [];
  for (let i = input.length - 1; i >= 0; i--) {
    const m = input[i];
    if (m?.type !== undefined && m.type !== 'message') return undefined;
    if (m?.role !== 'user') continue;
    const c = m.content;
    if (typeof c === 'string') return c;
    if (Array.isArray(c)) return c.map((p: any) => (typeof p?.text === 'string' ? p.text : '')).join('');
  }
  return undefined;
}

/** A person's message that changes the script: when the last user input matches, this step answers instead of the next one. */
export interface ResponsesReply {
  readonly when: RegExp;
  readonly step: ResponsesStep;
}

export async function startFakeOpenAI(script: readonly ResponsesStep[], replies: readonly ResponsesReply[] = []): Promise<FakeOpenAI> {
  const steps = [...script];
  const requests: RecordedResponsesRequest[] = [];
  let turns = 0;
  let ids = 0;
  const nextId = (prefix: string) => `${prefix}_fake${String(++ids).padStart(6, '0')}`;

  const server = await serveFake((req, res) => {
    const rec: RecordedResponsesRequest = { method: req.method, path: req.path, headers: req.headers, body: req.body };
    requests.push(rec);
    handle(req, res, rec);
  }, (e) => ({ error: { type: 'server_error', message: String(e) } }));

  function handle(req: RawRequest, res: ServerResponse, rec: RecordedResponsesRequest): void {
    const path = req.path.split('?')[0]!;
    if (req.method === 'GET' && path === '/v1/models') {
      json(res, 200, { object: 'list', data: [], models: [] });
      return;
    }
    if (req.method === 'POST' && path === '/v1/responses') {
      const model = typeof rec.body?.model === 'string' ? rec.body.model : 'gpt-fake';
      if (isMainResponsesRequest(rec)) {
        turns++;
        const said = lastUserInput(rec);
        const step = replies.find((r) => said !== undefined && r.when.test(said))?.step ?? steps.shift() ?? { text: 'All done.' };
        rec.step = step;
        stream(res, model, step);
      } else {
        stream(res, model, { text: 'Offline session' });
      }
      return;
    }
    json(res, 200, {});
  }

  function stream(res: ServerResponse, model: string, step: ResponsesStep): void {
    const id = nextId('resp');
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    let seq = 0;
    const send = (type: string, data: object) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: seq++, ...data })}\n\n`);
    const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model, output: [] as object[] };
    send('response.created', { response: { ...base, status: 'in_progress' } });
    send('response.in_progress', { response: { ...base, status: 'in_progress' } });
    let item: Record<string, unknown>;
    if ('tool' in step) {
      const args = JSON.stringify(step.args);
      const fc = { type: 'function_call', id: nextId('fc'), call_id: nextId('call'), name: step.tool };
      send('response.output_item.added', { output_index: 0, item: { ...fc, arguments: '', status: 'in_progress' } });
      for (const piece of pieces(args, 3)) {
        send('response.function_call_arguments.delta', { item_id: fc.id, output_index: 0, delta: piece });
      }
      send('response.function_call_arguments.done', { item_id: fc.id, output_index: 0, arguments: args });
      item = { ...fc, arguments: args, status: 'completed' };
    } else {
      const msg = { type: 'message', id: nextId('msg'), role: 'assistant' };
      send('response.output_item.added', { output_index: 0, item: { ...msg, status: 'in_progress', content: [] } });
      send('response.content_part.added', { item_id: msg.id, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      for (const piece of pieces(step.text, 2)) {
        send('response.output_text.delta', { item_id: msg.id, output_index: 0, content_index: 0, delta: piece });
      }
      send('response.output_text.done', { item_id: msg.id, output_index: 0, content_index: 0, text: step.text });
      const part = { type: 'output_text', text: step.text, annotations: [] };
      send('response.content_part.done', { item_id: msg.id, output_index: 0, content_index: 0, part });
      item = { ...msg, status: 'completed', content: [part] };
    }
    send('response.output_item.done', { output_index: 0, item });
    send('response.completed', {
      response: {
        ...base,
        status: 'completed',
        output: [item],
        usage: {
          input_tokens: 100,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: 20,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: 120,
        },
      },
    });
    res.end();
  }

  const { port } = server;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    get turns() {
      return turns;
    },
    close: server.close,
  };
}
