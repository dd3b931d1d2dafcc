/**
 * GET /api/v1/jobs/NAME/recording: the job's asciicast, for asciinema-player.
 * Streamed line by line (a recording can be tens of MB), each line's text
 * redacted by the web's one redaction (redact.ts), header included.
 */
import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Redactor } from '../notify/secrets.js';
import { InputError } from '../util/errors.js';
import { API, authorize, type ApiDeps } from './api.js';
import type { WebRedaction } from './redact.js';
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
    return reply.type('application/x-asciicast').send(Readable.from(redactedLines(file, deps.redaction, deps.redaction.redactorOf(rec.id))));
  });
}

/** The header too: it carries the job's command line. */
async function* redactedLines(file: string, web: WebRedaction, redact: Redactor): AsyncGenerator<string> {
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) yield `${web.castLine(line, redact)}\n`;
}
