/**
 * Sends one page through one notifier: an HTTP POST (Node's fetch) or a
 * command. Resolves on success; any failure, including a credential that
 * cannot be read, rejects with a DeliveryError whose text goes in the
 * outbox, so a person can see why nobody was paged.
 */
import { spawn } from 'node:child_process';
import { formatDuration } from '../util/duration.js';
import type { Notifier } from './config.js';
import { ntfyMessage, slackMessage, webhookMessage, type HttpMessage } from './format.js';
import { redact, type Page } from './page.js';
import { summarize } from './page-words.js';
import { CredentialError, describeRef, resolveRef, type ValueRef } from './secret-ref.js';

/** A resolved URL a notifier can POST to. */
export const isHttpUrl = (s: string): boolean => /^https?:\/\/\S+$/i.test(s);

export class DeliveryError extends Error {
  override readonly name = 'DeliveryError';
}

/** A failed send in one line for a person, redacted: a bug shows as `unexpected: …` rather than as nothing. */
export function deliveryProblem(e: unknown): string {
  return redact(e instanceof DeliveryError ? e.message : `unexpected: ${(e as Error).message ?? String(e)}`);
}

export interface DeliverContext {
  /** Where `env:` references are looked up (the daemon's environment). */
  env: NodeJS.ProcessEnv;
  httpTimeoutMs: number;
  commandTimeoutMs: number;
}

/** Kept short: error text is stored per row and shown in one line. */
const MAX_ERROR_BODY = 200;

export async function deliver(n: Notifier, page: Page, round: number, ctx: DeliverContext): Promise<void> {
  try {
    switch (n.kind) {
      case 'webhook':
        return await post(n.url, webhookMessage(page, round), await resolveAll(n.headers, ctx), ctx);
      case 'ntfy': {
        const auth: Record<string, string> = n.token ? { Authorization: `Bearer ${await resolveRef(n.token, ctx.env)}` } : {};
        return await post(n.url, ntfyMessage(page, round), auth, ctx);
      }
      case 'slack':
        return await post(n.url, slackMessage(page, round), {}, ctx);
      case 'command':
        return await runCommand(n.argv, page, ctx.commandTimeoutMs);
    }
  } catch (e) {
    if (e instanceof CredentialError) throw new DeliveryError(e.message);
    throw e;
  }
}

async function resolveAll(refs: Record<string, ValueRef>, ctx: DeliverContext): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [k, ref] of Object.entries(refs)) out[k] = await resolveRef(ref, ctx.env);
  return out;
}

async function post(urlRef: ValueRef, msg: HttpMessage, extra: Record<string, string>, ctx: DeliverContext): Promise<void> {
  const url = await resolveRef(urlRef, ctx.env);
  // The resolved URL may itself be the secret (Slack), so it never goes in an error.
  if (!isHttpUrl(url)) throw new DeliveryError(`the URL from ${describeRef(urlRef)} is not an http(s) URL`);
  let res: Response;
  try {
    res = await fetch(url, {
      method: 'POST',
      body: msg.body,
      headers: { ...msg.headers, ...extra },
      // A redirect would carry our credential headers to another place.
      redirect: 'error',
      signal: AbortSignal.timeout(ctx.httpTimeoutMs),
    });
  } catch (e) {
    throw new DeliveryError(networkError(e, ctx.httpTimeoutMs));
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) {
    const body = text.replace(/\s+/g, ' ').trim().slice(0, MAX_ERROR_BODY);
    throw new DeliveryError(`HTTP ${res.status} ${res.statusText}${body ? `: ${body}` : ''}`);
  }
}

/** fetch's "fetch failed" says nothing; the cause (ECONNREFUSED, timeout) is what a person needs. */
function networkError(e: unknown, timeoutMs: number): string {
  const err = e as Error & { cause?: { code?: string; message?: string } };
  if (err.name === 'TimeoutError') return `no answer within ${formatDuration(timeoutMs)}`;
  const cause = err.cause?.code ?? err.cause?.message;
  return cause ? `${err.message}: ${cause}` : err.message;
}

/** The page JSON on stdin, the one-line summary as the last argument. */
function runCommand(argv: string[], page: Page, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, [...argv.slice(1), summarize(page)], {
      stdio: ['pipe', 'ignore', 'pipe'],
      timeout: timeoutMs,
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      if (stderr.length < 4 * MAX_ERROR_BODY) stderr += d;
    });
    // A command that ignores stdin may exit before reading it (EPIPE): its exit code decides.
    child.stdin.on('error', () => undefined);
    child.on('error', (e) => reject(new DeliveryError(`cannot run ${argv[0]}: ${e.message}`)));
    child.on('close', (code, signal) => {
      if (code === 0) return resolve();
      const tail = stderr.replace(/\s+/g, ' ').trim().slice(-MAX_ERROR_BODY);
      const how = signal ? `killed by ${signal}${signal === 'SIGTERM' ? ` (timeout ${formatDuration(timeoutMs)}?)` : ''}` : `exit ${code}`;
      reject(new DeliveryError(`${argv[0]}: ${how}${tail ? `: ${tail}` : ''}`));
    });
    child.stdin.end(`${JSON.stringify(page)}\n`);
  });
}
