/**
 * A tiny fake of the Gemini API (generativelanguage v1beta), enough for the
 * real Gemini CLI (0.61) to run a session offline: it plays the model from a
 * script of turns, so a test decides which tool call Gemini "wants" to make.
 *
 * What 0.61 sends (paths logged from the real CLI, see README "Rules"):
 * - `POST /v1beta/models/<model>:generateContent` — side requests that want
 *   JSON: the model router (its schema asks for `complexity_score`, 1–100;
 *   a missing one makes the CLI fall back but log an error), the
 *   next-speaker check (`next_speaker`), titles and summaries. Answered
 *   from the request's own schema: JSON with every required key.
 * - `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` — the main
 *   loop: pops the next script step and streams it as server-sent events
 *   (`data: {candidates:[{content:{role:"model",parts:[…]}}]}`), a text in
 *   two chunks or one `functionCall` part, the last chunk with
 *   `finishReason: "STOP"` and `usageMetadata`. An exhausted script answers
 *   a short text.
 * - `POST …:countTokens`: a count; anything else: `{}`.
 *
 * Every request is kept in `requests` (method, path, parsed body), so a test
 * can see what Gemini sent back, e.g. the `functionResponse` of a command.
 */
import type { ServerResponse } from 'node:http';
import { json, pieces, serveFake } from './fake-http.js';

export type GeminiStep =
  /** A shell command through the CLI's `run_shell_command` tool. */
  | { shell: string; description?: string }
  /** Any other function call, e.g. `{ tool: 'write_file', args: { file_path, content } }`. */
  | { tool: string; args: Record<string, unknown> }
  | { text: string };

export interface RecordedGeminiRequest {
  method: string;
  /** Path with query string, e.g. `/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`. */
  path: string;
  /** Parsed JSON body; the raw string when it is not JSON; null without a body. */
  body: any;
  /** The script step this request was answered with (main requests only). */
  step?: GeminiStep;
}

export interface FakeGemini {
  /** `http://127.0.0.1:PORT`, for GOOGLE_GEMINI_BASE_URL. */
  url: string;
  requests: RecordedGeminiRequest[];
  /** Main (streamed) requests answered so far. */
  readonly turns: number;
  close(): Promise<void>;
}

export const isStreamRequest = (r: RecordedGeminiRequest) => r.method === 'POST' && /:streamGenerateContent(\?|$)/.test(r.path);

/** Every `functionResponse` part the CLI sent back, in order, without repeats (by id, else name + position). */
export function functionResponses(requests: readonly RecordedGeminiRequest[]): any[] {
  const seen = new Map<string, any>();
  for (const r of requests) {
    if (!isStreamRequest(r)) continue;
    (r.body?.contents ?? []).forEach((c: any, i: number) => {
      for (const p of c?.parts ?? []) {
        const fr = p?.functionResponse;
        if (fr) seen.set(String(fr.id ?? `${fr.name}#${i}`), fr);
      }
    });
  }
  return [...seen.values()];
}

export async function startFakeGemini(script: readonly GeminiStep[]): Promise<FakeGemini> {
  const steps = [...script];
  const requests: RecordedGeminiRequest[] = [];
  let turns = 0;
  let calls = 0;

  const server = await serveFake((req, res) => {
    const rec: RecordedGeminiRequest = { method: req.method, path: req.path, body: req.body };
    requests.push(rec);
    handle(res, rec);
  }, (e) => ({ error: { code: 500, message: String(e), status: 'INTERNAL' } }));

  function handle(res: ServerResponse, rec: RecordedGeminiRequest): void {
    const path = rec.path.split('?')[0]!;
    if (rec.method !== 'POST') return json(res, 200, {});
    if (path.endsWith(':countTokens')) return json(res, 200, { totalTokens: 100 });
    if (isStreamRequest(rec)) {
      turns++;
      const step = steps.shift() ?? { text: 'All done.' };
      rec.step = step;
      return stream(res, step);
    }
    if (path.endsWith(':generateContent')) return json(res, 200, response([{ text: sideJson(rec.body) }], true));
    json(res, 200, {});
  }

  function stream(res: ServerResponse, step: GeminiStep): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const send = (o: object) => res.write(`data: ${JSON.stringify(o)}\r\n\r\n`);
    if ('text' in step) {
      const parts = pieces(step.text, 2);
      parts.forEach((text, i) => send(response([{ text }], i === parts.length - 1)));
    } else {
      const name = 'shell' in step ? 'run_shell_command' : step.tool;
      const args = 'shell' in step ? { command: step.shell, description: step.description ?? 'Run the requested command' } : step.args;
      send(response([{ functionCall: { id: `call_fake${String(++calls).padStart(4, '0')}`, name, args } }], true));
    }
    res.end();
  }

  return {
    url: `http://127.0.0.1:${server.port}`,
    requests,
    get turns() {
      return turns;
    },
    close: server.close,
  };
}

/** One GenerateContentResponse; the last chunk of a stream carries finishReason and usage. */
function response(parts: object[], last: boolean): object {
  return {
    candidates: [{ content: { role: 'model', parts }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
    ...(last ? { usageMetadata: { promptTokenCount: 100, candidatesTokenCount: 20, totalTokenCount: 120 } } : {}),
    modelVersion: 'gemini-fake',
  };
}

/**
 * The answer to a side request: JSON filling the request's response schema
 * (router: complexity_score 50 → the default model; next speaker: the user,
 * so the CLI waits instead of continuing on its own), else a short text.
 */
function sideJson(body: any): string {
  const cfg = body?.generationConfig ?? body?.config ?? {};
  const schema = cfg.responseJsonSchema ?? cfg.responseSchema;
  if (!schema || typeof schema !== 'object') return 'Offline session';
  const out: Record<string, unknown> = {};
  const props = schema.properties ?? {};
  for (const key of Object.keys(props)) {
    const t = String(props[key]?.type ?? 'string').toLowerCase();
    if (key === 'complexity_score') out[key] = 50;
    else if (key === 'next_speaker') out[key] = 'user';
    else if (Array.isArray(props[key]?.enum)) out[key] = props[key].enum[0];
    else if (t === 'number' || t === 'integer') out[key] = 1;
    else if (t === 'boolean') out[key] = false;
    else if (t === 'array') out[key] = [];
    else if (t === 'object') out[key] = {};
    else out[key] = 'offline';
  }
  return JSON.stringify(out);
}
