/**
 * The environment a real agent CLI runs in, shared by claude-env.ts,
 * codex-env.ts and gemini-env.ts: this process's, minus the variables that
 * would change what the CLI does (a real key, a model, a proxy …), plus the
 * CLI's own. The names removed are returned too, so helpers that merge
 * environments can pass them as undefined.
 */
export function childEnv(vars: Record<string, string>, leaky: RegExp): { env: Record<string, string>; removed: string[] } {
  const env: Record<string, string> = {};
  const removed: string[] = [];
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue;
    if (leaky.test(k) && !(k in vars)) removed.push(k);
    else env[k] = v;
  }
  Object.assign(env, vars);
  return { env, removed };
}
