/**
 * Where the web view listens, and whether it may: loopback as it is; any
 * other address only with TLS (--tls-cert, --tls-key) or an explicit
 * --http-insecure, because tokens and session cookies cross the wire.
 */
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { InputError } from '../util/errors.js';

export interface HttpFlags {
  http: string;
  tlsCert?: string;
  tlsKey?: string;
  httpInsecure?: boolean;
}

export interface ListenPlan {
  readonly host: string;
  readonly port: number;
  readonly tls: { cert: Buffer; key: Buffer } | null;
  readonly loopback: boolean;
}

/** `HOST:PORT`, `[::1]:PORT`, or `:PORT` (loopback). */
export function parseHttpAddress(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(value.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65_535) throw new InputError(`--http ${JSON.stringify(value)}: expected HOST:PORT, such as 127.0.0.1:8080 or [::1]:8080`);
  return { host: m[1] ?? (m[2] || '127.0.0.1'), port };
}

export function isLoopback(host: string): boolean {
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

export function listenPlan(f: HttpFlags): ListenPlan {
  const { host, port } = parseHttpAddress(f.http);
  if ((f.tlsCert === undefined) !== (f.tlsKey === undefined)) {
    throw new InputError(`--tls-cert and --tls-key go together: got only ${f.tlsCert !== undefined ? '--tls-cert' : '--tls-key'}`);
  }
  const tls = f.tlsCert && f.tlsKey ? { cert: readPem(f.tlsCert, '--tls-cert'), key: readPem(f.tlsKey, '--tls-key') } : null;
  const loopback = isLoopback(host);
  if (!loopback && !tls && !f.httpInsecure) {
    throw new InputError(
      `--http ${f.http}: ${host} is not a loopback address, and tokens would cross the network in clear; give --tls-cert and --tls-key, put a TLS proxy in front and listen on 127.0.0.1, or say --http-insecure`,
    );
  }
  return { host, port, tls, loopback };
}

function readPem(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (cause) {
    throw new InputError(`${flag} ${file}: ${(cause as Error).message}`, { file, cause });
  }
}
