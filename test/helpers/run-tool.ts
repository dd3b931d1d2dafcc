/** Runs another program a test checks nightshift against (pm2, systemd-analyze, python3) to its end. */
import { spawn } from 'node:child_process';

export interface ToolRun {
  code: number | null;
  /** stdout and stderr as they came. */
  out: string;
}

export function runTool(cmd: string, args: readonly string[], opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const p = spawn(cmd, args, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    p.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, out }));
  });
}
