/**
 * GET /api/v1/jobs/NAME/recording: the job's asciicast, for asciinema-player.
 * Streamed line by line (a recording can be tens of MB), each line's text
 * redacted with the job's own secrets as the evidence is.
 */
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { redactorFor, type Redactor } from '../notify/secrets.js';
import { InputError } from '../util/errors.js';
import { API, authorize, type ApiDeps } from './api.js';
import type { WebHost } from './types.js';

export function registerRecording(app: FastifyInstance, d: WebHost, deps: ApiDeps): void {
  app.get(`${API}/jobs/:job/recording`, async (req, reply) => {
    if (!(await authorize(req, reply, deps, 'viewer', 'recording'))) return reply;
    let rec;
    try {
      rec = d.board.require((req.params as { job: string }).job);
    } catch (e) {
      if (e instanceof InputError) return reply.code(404).send({ error: e.message });
      throw e;
    }
    const file = rec.paths?.recording;
    if (!file || !existsSync(file)) return reply.code(404).send({ error: `job ${rec.name} has no recording (${rec.state})` });
    return reply.type('application/x-asciicast').send(Readable.from(redactedLines(file, redactorFor(rec.env))));
  });
}

async function* redactedLines(file: string, redact: Redactor): AsyncGenerator<string> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) yield `${redactLine(line, redact)}\n`;
}

/** An event line is [time, code, text]: only its text is redacted, so the line stays valid JSON. */
function redactLine(line: string, redact: Redactor): string {
  if (!line.startsWith('[')) return line;
  try {
    const ev = JSON.parse(line) as unknown[];
    if (typeof ev[2] !== 'string') return line;
    const text = redact(ev[2]);
    return text === ev[2] ? line : JSON.stringify([ev[0], ev[1], text]);
  } catch {
    return line;
  }
}
