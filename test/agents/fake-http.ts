/**
 * What the fake model servers (fake-anthropic.ts, fake-openai.ts,
 * fake-gemini.ts) share: a loopback HTTP server that reads each request's
 * whole body as JSON (the raw string when it is not JSON, null when empty),
 * hands it to the fake, turns a throw into a 500, and closes with its
 * keep-alive connections (a CLI keeps them open).
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RawRequest {
  method: string;
  /** Path with query string. */
  path: string;
  headers: IncomingHttpHeaders;
  body: any;
}

export interface FakeHttp {
  port: number;
  close(): Promise<void>;
}

/** Listens on 127.0.0.1 (a free port); `handle` answers, `error` shapes the 500 the API would send. */
export async function serveFake(handle: (req: RawRequest, res: ServerResponse) => void, error: (e: unknown) => object): Promise<FakeHttp> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any = null;
      if (raw !== '') {
        try {
          body = JSON.parse(raw);
        } catch {
          body = raw;
        }
      }
      try {
        handle({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body }, res);
      } catch (e) {
        json(res, 500, error(e));
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function json(res: ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Splits a string into up to n pieces (the APIs stream text in fragments); never splits a surrogate pair. */
export function pieces(s: string, n: number): string[] {
  const chars = Array.from(s);
  if (chars.length === 0) return [''];
  const size = Math.ceil(chars.length / n);
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}
