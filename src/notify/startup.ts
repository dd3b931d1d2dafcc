/**
 * What the daemon says about paging when it starts: which notifiers loaded
 * (so "nobody will be paged" is never a surprise at 3 am), and every
 * `env:`/`file:` credential that cannot be resolved now. References are
 * still resolved at send time (a secret set or rotated later is picked up);
 * an unresolvable one is a warning, not a refusal, so the daemon starts.
 */
import type { Notifier, NotifyConfig } from './config.js';
import { isHttpUrl } from './deliver.js';
import { CredentialError, describeRef, resolveRef, type ValueRef } from './secret-ref.js';

export interface StartupReport {
  /** `webhook(hook1), ntfy`, or `none — nobody will be paged`. */
  notifiers: string;
  /** One line each, e.g. `notifier webhook: env:UNSET_VAR is not set`. */
  warnings: string[];
}

export function describeNotifiers(cfg: NotifyConfig): string {
  if (cfg.notifiers.length === 0) return 'none — nobody will be paged';
  return cfg.notifiers.map((n) => (n.name === n.kind ? n.kind : `${n.kind}(${n.name})`)).join(', ');
}

/** The references a notifier resolves when it sends, with what each is for. */
function refsOf(n: Notifier): Array<{ ref: ValueRef; url: boolean }> {
  switch (n.kind) {
    case 'webhook':
      return [{ ref: n.url, url: true }, ...Object.values(n.headers).map((ref) => ({ ref, url: false }))];
    case 'ntfy':
      return [{ ref: n.url, url: true }, ...(n.token ? [{ ref: n.token, url: false }] : [])];
    case 'slack':
      return [{ ref: n.url, url: true }];
    case 'command':
      return [];
  }
}

/** Why `ref` cannot be used right now, or null. Never includes the resolved value. */
async function refProblemNow(ref: ValueRef, url: boolean, env: NodeJS.ProcessEnv): Promise<string | null> {
  if ('literal' in ref) return null;
  let value: string;
  try {
    value = await resolveRef(ref, env);
  } catch (e) {
    if (!(e instanceof CredentialError)) throw e;
    if ('env' in ref) return `${describeRef(ref)} is not set`;
    return e.message;
  }
  if (url && !isHttpUrl(value)) return `${describeRef(ref)} is not an http(s) URL`;
  return null;
}

export async function credentialWarnings(cfg: NotifyConfig, env: NodeJS.ProcessEnv): Promise<string[]> {
  const out: string[] = [];
  for (const n of cfg.notifiers) {
    for (const { ref, url } of refsOf(n)) {
      const problem = await refProblemNow(ref, url, env);
      if (problem) out.push(`notifier ${n.name}: ${problem}`);
    }
  }
  return out;
}

export async function startupReport(cfg: NotifyConfig, env: NodeJS.ProcessEnv): Promise<StartupReport> {
  return { notifiers: describeNotifiers(cfg), warnings: await credentialWarnings(cfg, env) };
}
