/**
 * What serve-fake-anthropic.ts and serve-fake-gemini.ts share: the bash file
 * a recording script sources before it starts the CLI (`unset` for the
 * variables of this environment that would leak into the CLI, `export` for
 * the CLI's own and NIGHTSHIFT_FAKE_PROJECT), and a stop on SIGTERM/SIGINT
 * that first writes every request the fake saw.
 */
import { writeFileSync } from 'node:fs';

const quote = (v: string) => `'${v.replace(/'/g, `'\\''`)}'`;

export function writeEnvFile(path: string, h: { vars: Record<string, string>; removed: string[]; project: string }): void {
  const lines = [
    ...h.removed.filter((k) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(k)).map((k) => `unset ${k}`),
    ...Object.entries(h.vars).map(([k, v]) => `export ${k}=${quote(v)}`),
    `export NIGHTSHIFT_FAKE_PROJECT=${quote(h.project)}`,
  ];
  writeFileSync(path, `${lines.join('\n')}\n`);
}

export function stopOnSignal(server: { requests: unknown[]; close(): Promise<void> }, requestsPath: string | undefined): void {
  const stop = async () => {
    if (requestsPath) writeFileSync(requestsPath, `${JSON.stringify(server.requests, null, 1)}\n`);
    await server.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}
