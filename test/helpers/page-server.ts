/** A local HTTP receiver standing in for a pager's webhook (daemon e2e tests and the pager's own). Free of vitest, so it type-checks with the sources. */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitUntil } from './wait.js';

export interface Hit {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  status: number;
  at: number;
}

/** Records every request; answers with the statuses queued for its path, else those queued for any path, then 200, after `delayMs`. */
export class PageServer {
  readonly hits: Hit[] = [];
  /** path → statuses to answer first, in order. */
  readonly failFirst = new Map<string, number[]>();
  /** Statuses for the next requests on any path without one of its own. */
  readonly statuses: number[] = [];
  delayMs = 0;
  port = 0;
  private server: Server | null = null;

  async start(port = 0): Promise<this> {
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        const path = req.url ?? '';
        const status = this.failFirst.get(path)?.shift() ?? this.statuses.shift() ?? 200;
        this.hits.push({ path, headers: req.headers, body, status, at: Date.now() });
        const reply = () => res.writeHead(status, { 'content-type': 'text/plain' }).end(status === 200 ? 'ok' : 'boom');
        if (this.delayMs > 0) setTimeout(reply, this.delayMs);
        else reply();
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', resolve);
    });
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    return this;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  on(path: string): Hit[] {
    return this.hits.filter((h) => h.path === path);
  }

  /** Waits until `path` has at least `n` requests. */
  waitHits(path: string, n: number, ms: number): Promise<Hit[]> {
    return waitUntil(() => (this.on(path).length >= n ? this.on(path) : undefined), ms, `${n} request(s) on ${path}`, {
      every: 50,
      describe: () => `hits: ${JSON.stringify(this.hits.map((h) => ({ path: h.path, status: h.status, body: h.body.slice(0, 160) })))}`,
    });
  }

  async stop(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return;
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
}
