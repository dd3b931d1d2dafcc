/**
 * GET /api/v1/jobs/NAME/terminal (WebSocket): the job's screen as it is now
 * (serialized escape sequences), then its live output, then `end`. JSON text
 * frames: {type:'snapshot', cols, rows, data}, {type:'output', data},
 * {type:'end', reason}. Read-only: answers go through the API's POSTs, which
 * check the role and record who.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket } from 'ws';
import { reasonText } from '../api/reason-text.js';
import { API, authorize, type ApiDeps } from './api.js';
import type { Caller } from './identity.js';
import { ownerOf } from './streams.js';
import type { WebHost } from './types.js';

/**
 * A phone on a slow link must not make the daemon hold a flood: past this
 * much unsent output the socket is cut, and the page reconnects to a fresh
 * snapshot.
 */
export const MAX_BUFFERED = 4 * 1024 * 1024;
/** A burst goes out in frames of at most this many UTF-16 units, so no single message makes the page parse megabytes at once. */
export const MAX_FRAME = 64 * 1024;

/** `data` in pieces of at most MAX_FRAME units, never splitting a surrogate pair. */
export function frames(data: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < data.length; ) {
    let end = Math.min(i + MAX_FRAME, data.length);
    const last = data.charCodeAt(end - 1);
    if (end < data.length && last >= 0xd800 && last <= 0xdbff) end--;
    out.push(data.slice(i, end));
    i = end;
  }
  return out;
}

export function registerTerminal(app: FastifyInstance, d: WebHost, deps: ApiDeps): void {
  app.get(
    `${API}/jobs/:job/terminal`,
    {
      websocket: true,
    // The cookie goes with a WebSocket from any site: a page elsewhere must not read the terminal with it.
      preValidation: async (req, reply) => {
        if (!sameOrigin(req)) return reply.code(403).send({ error: 'cross-site WebSocket refused' });
        const caller = await authorize(req, reply, deps, 'viewer', 'terminal');
        if (!caller) return reply;
        callers.set(req, caller);
        return undefined;
      },
    },
    (socket, req) => {
      const caller = callers.get(req);
      if (!caller) return void socket.terminate();
      // Revoke and logout close it: the socket never asks for anything again that could be refused.
      const tracked = deps.streams.track(ownerOf(caller), () => socket.close(1008, 'access ended: signed out or revoked'));
      socket.once('close', () => tracked.dispose());
      void stream(d, socket, (req.params as { job: string }).job, deps).catch((e: unknown) => {
        // A socket's failure is the socket's: it must never become an unhandled rejection that ends the daemon.
        deps.onError(e);
        socket.terminate();
      });
    },
  );
}

/** Who opened each socket, from its upgrade request's check to its handler. */
const callers = new WeakMap<FastifyRequest, Caller>();

async function stream(d: WebHost, ws: WebSocket, name: string, deps: ApiDeps): Promise<void> {
  const send = (m: object) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(m));
  let rec;
  try {
    rec = d.board.require(name);
  } catch (e) {
    send({ type: 'end', reason: deps.redaction.redactorOf()((e as Error).message) });
    return ws.close(1008, 'no such job');
  }
  // The job's own secrets, as in its evidence; a value split across two chunks of output is not caught (README: limits).
  const redact = deps.redaction.redactorOf(rec.id);
  const live = d.live(rec.id);
  if (!live) {
    const last = rec.state === 'done' ? d.board.get(rec.id) : rec;
    send({ type: 'snapshot', cols: 80, rows: 24, data: '' });
    send({ type: 'end', reason: redact(`${rec.name} is ${last?.state}: ${last ? reasonText(last.reason) : ''}`) });
    return ws.close(1000);
  }
  // Subscribed before the snapshot is taken: serialize() covers exactly what came before.
  const early: string[] = [];
  let ready = false;
  const forward = (data: string): void => {
    if (!ready) return void early.push(data);
    // terminate, not close: a peer too slow to read output will not answer a close frame either.
    if (ws.bufferedAmount > MAX_BUFFERED) return void ws.terminate();
    for (const piece of frames(redact(data))) send({ type: 'output', data: piece });
  };
  const stop = live.view.watchOutput(forward);
  // The job's end is awaited only while the socket is open: a page that reconnects for days leaves nothing behind.
  const gone = new Promise<'gone'>((resolve) => ws.once('close', () => resolve('gone')));
  ws.on('close', stop);
  ws.on('error', () => ws.terminate());
  const data = await live.view.screen.serialize();
  send({ type: 'snapshot', cols: live.view.screen.cols, rows: live.view.screen.rows, data: redact(data) });
  ready = true;
  for (const chunk of early.splice(0)) forward(chunk);
  if ((await Promise.race([live.finished, gone])) === 'gone') return;
  stop();
  const after = d.board.get(rec.id);
  send({ type: 'end', reason: redact(after ? `${after.state}: ${reasonText(after.reason)}` : 'ended') });
  ws.close(1000);
}

function sameOrigin(req: FastifyRequest): boolean {
  const origin = req.headers.origin;
  // Non-browser clients send no Origin; they authenticate with a bearer token or a cookie they hold themselves.
  if (origin === undefined) return true;
  try {
    return new URL(origin).host === req.headers.host;
  } catch {
    return false;
  }
}
