/** Talking to a daemon's web view (`--http`) from a test: tokens, JSON requests, the terminal socket. */
import WebSocket from 'ws';
import { runCli } from './cli.js';
import { freePort, type DaemonProc, type Scope } from './daemon.js';
import type { PageServer } from './page-server.js';

export interface Token {
  name: string;
  token: string;
  login_url: string | null;
  role: string;
}

/** `nightshift web SUB --state DIR ARGS…` (the state flag belongs to the subcommand). */
export const web = (d: DaemonProc, sub: string, ...args: string[]) => runCli(['web', sub, '--state', d.state, ...args], { ms: 20_000 });

export async function token(d: DaemonProc, name: string, role?: string): Promise<Token> {
  const r = await web(d, 'token', name, '--json', ...(role ? ['--role', role] : []));
  if (r.code !== 0) throw new Error(`web token ${name} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as Token;
}

export const bearer = (t: Token) => ({ authorization: `Bearer ${t.token}` });

export async function api(d: DaemonProc, path: string, init: RequestInit = {}): Promise<{ status: number; body: any; text: string; headers: Headers }> {
  const res = await fetch(`${d.web}${path}`, { redirect: 'manual', ...init });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON: kept as text
  }
  return { status: res.status, body, text, headers: res.headers };
}

export const post = (t: Token | null, body: object, extra: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...(t ? bearer(t) : {}), ...extra },
  body: JSON.stringify(body),
});

export interface Frame {
  type: string;
  data?: string;
  reason?: string;
  cols?: number;
}

/** Opens the terminal socket and collects its frames (and their raw bytes). */
export function terminal(d: DaemonProc, name: string, headers: Record<string, string>) {
  const frames: Frame[] = [];
  const raw: string[] = [];
  const ws = new WebSocket(`${d.web!.replace(/^http/, 'ws')}/api/v1/jobs/${name}/terminal`, { headers });
  const closed = new Promise<number>((resolve) => ws.on('close', (code) => resolve(code)));
  const failed = new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
  ws.on('message', (m) => {
    raw.push(String(m));
    frames.push(JSON.parse(String(m)) as Frame);
  });
  ws.on('error', () => undefined);
  return { ws, frames, raw, closed, failed, text: () => frames.map((f) => f.data ?? '').join('') };
}

/** The board's news stream (GET /api/v1/events) as a client reads it: its text so far, and `ended` when the server closes it. */
export function events(d: DaemonProc, headers: Record<string, string>) {
  let text = '';
  const ac = new AbortController();
  const ended = (async () => {
    const res = await fetch(`${d.web!}/api/v1/events`, { headers, signal: ac.signal });
    if (!res.ok || !res.body) return res.status;
    const decoder = new TextDecoder();
    const reader = res.body.getReader();
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value, { stream: true });
    return 0;
  })().catch(() => -1);
  return { text: () => text, ended, abort: () => ac.abort() };
}

/** A daemon whose web view is also its `notify.public_url`, paging ntfy (a local receiver's /topic) once per block: pages carry links to it. */
export async function pagedWebDaemon(s: Scope): Promise<{ d: DaemonProc; ntfy: PageServer; base: string }> {
  const ntfy = await s.server();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const config = ['notify:', `  public_url: ${base}`, '  repage_after: off', '  notifiers:', `    - { kind: ntfy, url: "${ntfy.url('/topic')}" }`, ''].join('\n');
  const d = await s.daemon(s.stateDir(config), ['--http', `127.0.0.1:${port}`]);
  return { d, ntfy, base };
}
