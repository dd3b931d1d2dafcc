/**
 * `nightshift daemon --http HOST:PORT`: the web view and the HTTP API, on
 * fastify. Off unless asked for; loopback as it is, anything else with TLS
 * or --http-insecure (listen.ts). Every response carries a strict
 * Content-Security-Policy: the pages load only their own scripts.
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import fastifyCookie from '@fastify/cookie';
import fastifyRateLimit from '@fastify/rate-limit';
import fastifyStatic from '@fastify/static';
import fastifyWebsocket from '@fastify/websocket';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { CommandRunner } from '../api/command.js';
import { API, registerApi, type ApiDeps } from './api.js';
import { assets } from './assets.js';
import { registerRecording } from './recording.js';
import { LOGIN_LIMIT, redeem, registerSessionRoutes } from './session-routes.js';
import { runCodeAction } from './actions.js';
import { ipOf } from './identity.js';
import { registerTerminal } from './terminal.js';
import { registerCompression } from './etag.js';
import { registerPush } from './push.js';
import type { ListenPlan } from './listen.js';
import { WebRedaction } from './redact.js';
import { OpenStreams } from './streams.js';
import { BearerLimit } from './bearer-limit.js';
import type { WebConfig } from '../notify/config.js';
import type { AuthStore, WebHost } from './types.js';

export const CSP = [
  "default-src 'self'",
  // asciinema-player compiles its terminal emulator from WebAssembly: that, and no eval of scripts.
  "script-src 'self' 'wasm-unsafe-eval'",
  // xterm.js and asciinema-player set element styles at run time.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': CSP,
  'x-content-type-options': 'nosniff',
  // A login code in a URL must not leave in a Referer.
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
};

const CLOSE_MS = 2_000;
/** How often open streams are checked against their sessions' idle time and end. */
const SWEEP_MS = 60_000;

export interface WebServerDeps {
  readonly daemon: WebHost;
  readonly commands: CommandRunner;
  readonly auth: AuthStore;
  readonly now: () => number;
  readonly onError: (e: unknown) => void;
  /** config.yaml's `web:` section. */
  readonly web: WebConfig;
}

export class WebServer {
  private constructor(
    private readonly app: FastifyInstance,
    /** The address it listens on, as a base URL (port 0 resolved). */
    readonly url: string,
  ) {}

  static async start(plan: ListenPlan, deps: WebServerDeps): Promise<WebServer> {
    const app = Fastify({
      ...(plan.tls ? { https: { cert: plan.tls.cert, key: plan.tls.key } } : {}),
      // X-Forwarded-* only from the proxies config names (web.trusted_proxies): from anyone else (an agent on loopback) they would forge the address the limits and the audit use. Behind one, its X-Forwarded-Proto makes the cookie Secure.
      trustProxy: deps.web.trustedProxies.length > 0 ? [...deps.web.trustedProxies] : false,
      bodyLimit: 64 * 1024,
      logger: false,
      // A phone that stopped reading a recording must not hold the daemon's shutdown (and its lock) open.
      forceCloseConnections: true,
    });
    await registerCompression(app);
    await app.register(fastifyCookie);
    await app.register(fastifyRateLimit, { global: false });
    await app.register(fastifyWebsocket, {
      options: { maxPayload: 64 * 1024 },
      // The default closes each socket politely and waits up to 30 s for an answer a sleeping phone never sends.
      preClose: function (this: FastifyInstance, done) {
        for (const client of this.websocketServer.clients) client.terminate();
        this.websocketServer.close(() => done());
      },
    });
    app.addHook('onSend', async (req, reply) => {
      reply.headers(SECURITY_HEADERS);
      if (req.url.startsWith(API)) reply.header('cache-control', 'no-store');
    });
    const redaction = new WebRedaction(deps.daemon.board, { showEnv: deps.web.showEnv });
    const streams = new OpenStreams();
    const api: ApiDeps = { commands: deps.commands, auth: deps.auth, now: deps.now, onError: deps.onError, redaction, streams, bearerLimit: new BearerLimit() };
    const revoked = deps.auth.onAccessEnded((name) => streams.closePerson(name));
    // A session ends by itself too (idle, or past its end): its open streams end with it, within a sweep.
    const sweep = setInterval(() => streams.sweep((o) => o.sid === undefined || deps.auth.session(o.sid, deps.now(), false) !== null), SWEEP_MS).unref();
    app.addHook('onClose', async () => {
      revoked.dispose();
      clearInterval(sweep);
    });
    registerSessionRoutes(app, api);
    registerApi(app, api);
    registerTerminal(app, deps.daemon, api);
    registerRecording(app, deps.daemon, api);
    registerPush(app, deps.daemon, api);
    registerPages(app, api);
    registerCodeActions(app, deps.daemon, api);
    const address = await app.listen({ host: plan.host, port: plan.port });
    const port = new URL(address).port;
    const host = plan.host.includes(':') ? `[${plan.host}]` : plan.host;
    return new WebServer(app, `${plan.tls ? 'https' : 'http'}://${host}:${port}`);
  }

  /** Connections still open after CLOSE_MS are cut: a stalled client never holds the daemon's exit. */
  async close(): Promise<void> {
    const closed = this.app.close();
    const timer = setTimeout(() => this.app.server.closeAllConnections(), CLOSE_MS);
    await closed;
    clearTimeout(timer);
  }
}

/** The board at /, a job at /jobs/NAME (with ?code=, a page's link signs in first), web/ at /assets/, the vendor builds at /vendor/. */
function registerPages(app: FastifyInstance, api: ApiDeps): void {
  const files = assets();
  void app.register(fastifyStatic, { root: files.web, prefix: '/assets/', index: false, wildcard: true });
  app.get('/', (_req, reply) => reply.sendFile('index.html'));
  // With ?code= it is a login and limited as one; a plain reload of the page is not counted.
  const codeLimit = { ...LOGIN_LIMIT, allowList: (req: FastifyRequest) => (req.query as { code?: unknown }).code === undefined };
  app.get('/jobs/:job', { config: { rateLimit: codeLimit } }, (req, reply) => {
    if ((req.query as { code?: unknown }).code !== undefined) {
      return redeem(req, reply, api, `/jobs/${encodeURIComponent((req.params as { job: string }).job)}`);
    }
    return reply.sendFile('job.html');
  });
  app.get('/vendor/*', (req, reply) => {
    const file = files.vendor.get((req.params as { '*': string })['*']);
    if (!file) return reply.code(404).send({ error: 'no such file' });
    return reply.type(file.endsWith('.css') ? 'text/css' : 'text/javascript').header('cache-control', 'public, max-age=3600').send(createReadStream(file));
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: `nothing at ${basename(req.url.split('?')[0] ?? '')}` }));
}

/**
 * POST /a/CODE: a page's one-tap action (ntfy's Decline). The single-use
 * code is the credential, so it is rate-limited like a login; what it may
 * still do is decided against the job as it is now (actions.ts).
 */
function registerCodeActions(app: FastifyInstance, d: WebHost, api: ApiDeps): void {
  app.post('/a/:code', { config: { rateLimit: LOGIN_LIMIT } }, async (req, reply) => {
    const code = (req.params as { code: string }).code;
    const got = code.length <= 256 ? api.auth.redeemCodeOf(code, 'action', api.now()) : null;
    if (got && 'other' in got) {
      api.auth.audit({ who: '-', action: 'code-action', ok: false, ip: ipOf(req), detail: 'a sign-in code, left unused' }, api.now());
      return reply.code(400).send({ error: 'this is a sign-in link, not an action: open it in a browser to sign in (it is still valid); nothing was done' });
    }
    if (!got) {
      api.auth.audit({ who: '-', action: 'code-action', ok: false, ip: ipOf(req), detail: 'unknown, used or expired code' }, api.now());
      return reply.code(401).send({ error: 'this link has expired or was used' });
    }
    const r = await runCodeAction(d, api.commands, got, { ip: ipOf(req), now: api.now() });
    return reply.code(r.status).send(r.status === 200 ? { message: r.message } : { error: r.message });
  });
}
