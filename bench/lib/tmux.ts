/** A private tmux server (`tmux -L NAME -f /dev/null`), the anchor of the flood and idle cases. */
import { execFile, execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { cleanEnv } from './proc.js';

const run = promisify(execFile);

export function haveTmux(): boolean {
  try {
    execFileSync('tmux', ['-V'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export class Tmux {
  readonly socket = `ns-bench-${process.pid}-${randomBytes(3).toString('hex')}`;
  private readonly env = cleanEnv({ TERM: 'xterm-256color' });

  /** `tmux -L SOCKET -f /dev/null ARGS…` (TMUX unset: never the caller's own server). */
  async cmd(...args: string[]): Promise<string> {
    const env = { ...this.env };
    delete env.TMUX;
    return (await run('tmux', ['-L', this.socket, '-f', '/dev/null', ...args], { env, maxBuffer: 16 << 20 })).stdout;
  }

  argv(...args: string[]): string[] {
    return ['tmux', '-L', this.socket, '-f', '/dev/null', ...args];
  }

  /** A detached session NAME of COLS×ROWS running `shellCommand`. */
  newSession(name: string, shellCommand: string, cols = 120, rows = 40): Promise<string> {
    return this.cmd('new-session', '-d', '-s', name, '-x', String(cols), '-y', String(rows), shellCommand);
  }

  async serverPid(): Promise<number> {
    return Number((await this.cmd('display-message', '-p', '#{pid}')).trim());
  }

  /** Kills the server and everything in it. Never throws. */
  async kill(): Promise<void> {
    await this.cmd('kill-server').catch(() => undefined);
  }
}
