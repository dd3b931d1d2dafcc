/**
 * Compressed and conditional answers. JSON, pages, scripts and styles go
 * out gzip- or brotli-compressed (the board is ~68 KB raw, a few KB
 * compressed); the board and a job's record carry an ETag, and a client
 * that sends it back in If-None-Match gets 304 and no body when nothing
 * changed. The API stays `no-store` (its answers hold what a job printed):
 * the page keeps the last answer itself and sends the tag (web/api.js).
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:zlib';
import fastifyCompress from '@fastify/compress';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API } from './api.js';

/** The reads a page repeats: the board and one job (not its evidence, recording or anything under it). */
const CONDITIONAL = new RegExp(`^${API}/jobs(/[^/?]+)?(\\?|$)`);

/** Brotli's default quality (11) costs tens of ms for a board; 5 is near gzip's speed and still smaller. */
const BROTLI_QUALITY = 5;

/** Registered before any route: compression hooks into each route as it is added. */
export async function registerCompression(app: FastifyInstance): Promise<void> {
  await app.register(fastifyCompress, {
    global: true,
    encodings: ['br', 'gzip'],
    threshold: 1024,
    brotliOptions: { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } },
  });
  app.addHook('onSend', conditional);
}

/** Runs before compression (an app hook runs before a route's), so the tag is of the JSON itself. */
async function conditional(req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<unknown> {
  if (req.method !== 'GET' || reply.statusCode !== 200 || typeof payload !== 'string' || !CONDITIONAL.test(req.url)) return payload;
  const tag = `"${createHash('sha1').update(payload).digest('base64url')}"`;
  reply.header('etag', tag);
  if (!matches(req.headers['if-none-match'], tag)) return payload;
  reply.code(304);
  return '';
}

function matches(given: string | undefined, tag: string): boolean {
  if (!given) return false;
  return given.split(',').some((t) => t.trim().replace(/^W\//, '') === tag);
}
