/**
 * The version of the agent a job runs, read without blocking the event loop:
 * Claude Code run as `node …/cli.js` has its package.json beside cli.js;
 * an agent run by its own command answers `<cmd> --version` (a child with a
 * short timeout). Cached per executable (path and mtime), since a daemon
 * starts the same agent many times a night.
 */
import { spawn } from 'node:child_process';
import { access, constants, readFile, realpath, stat } from 'node:fs/promises';
import { basename, delimiter, dirname, isAbsolute, join, resolve } from 'node:path';

const VERSION = /\b(\d+\.\d+(?:\.\d+)?)\b/;
/** Only an agent's own command is asked; `bash --version` would give bash's. */
const AGENT_COMMANDS = /^(?:claude|codex|gemini|copilot|opencode|qwen|cursor-agent|kimi)(?:\.exe|\.cmd)?$/;
const NODE = /^(?:node|nodejs)(?:\d+(?:\.\d+)*)?(?:\.exe)?$/;
export const VERSION_TIMEOUT_MS = 5_000;

export interface ProbeContext {
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly timeoutMs?: number;
}

const cache = new Map<string, Promise<string>>();

/** The agent's version, or a rejection that says why it could not be read. */
export async function agentVersion(argv: readonly string[], ctx: ProbeContext): Promise<string> {
  const [command, ...args] = argv;
  if (command === undefined) throw new Error('no command');
  if (NODE.test(basename(command))) {
    const script = args.find((a) => !a.startsWith('-'));
    if (!script) throw new Error('node runs no script');
    return cached(resolve(ctx.cwd, script), (path) => scriptVersion(path, command, ctx));
  }
  if (!AGENT_COMMANDS.test(basename(command))) throw new Error(`${basename(command)} is not the agent's own command`);
  const file = await which(command, ctx);
  return cached(file, (path) => askVersion(path, [], ctx));
}

/** One probe per executable and mtime; a failed probe is forgotten, so the next job asks again. */
async function cached(path: string, probe: (path: string) => Promise<string>): Promise<string> {
  const real = await realpath(path);
  const key = `${real}@${(await stat(real)).mtimeMs}`;
  let p = cache.get(key);
  if (!p) {
    p = probe(real);
    cache.set(key, p);
    p.catch(() => cache.delete(key));
  }
  return p;
}

/** package.json beside the script (how npm installs Claude Code), else `node script --version`. */
async function scriptVersion(script: string, node: string, ctx: ProbeContext): Promise<string> {
  const pkg = await readFile(join(dirname(script), 'package.json'), 'utf8').catch(() => undefined);
  const version = pkg === undefined ? undefined : (JSON.parse(pkg) as { version?: unknown }).version;
  if (typeof version === 'string' && VERSION.test(version)) return VERSION.exec(version)![1]!;
  return askVersion(node, [script], ctx);
}

/** The executable's absolute path, looked up in the job's PATH like the PTY's exec would. */
async function which(command: string, ctx: ProbeContext): Promise<string> {
  if (command.includes('/')) return isAbsolute(command) ? command : resolve(ctx.cwd, command);
  for (const dir of (ctx.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const file = resolve(ctx.cwd, dir, command);
    if (await access(file, constants.X_OK).then(() => true, () => false)) return file;
  }
  throw new Error(`${command} not found in PATH`);
}

/**
 * Runs `file ...args --version` and takes the first version-looking word of
 * its first line. It is killed once it has answered (a program that then
 * waits for input must not linger) or after the timeout.
 */
function askVersion(file: string, args: string[], ctx: ProbeContext): Promise<string> {
  const timeoutMs = ctx.timeoutMs ?? VERSION_TIMEOUT_MS;
  return new Promise((done, fail) => {
    // Its own process group, so a wrapper script's children (a `sleep`) go with it.
    const child = spawn(file, [...args, '--version'], { cwd: ctx.cwd, env: ctx.env, stdio: ['ignore', 'pipe', 'ignore'], detached: true });
    let out = '';
    let settled = false;
    const finish = (err: Error | undefined, version?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdout.removeAllListeners('data');
      killGroup(child.pid);
      if (err) fail(err);
      else done(version!);
    };
    const timer = setTimeout(() => finish(new Error(`${basename(file)} --version gave no answer in ${timeoutMs} ms`)), timeoutMs);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const line = out.split('\n').find((l, i, all) => i < all.length - 1 && VERSION.test(l));
      if (line !== undefined) finish(undefined, VERSION.exec(line)![1]!);
    });
    child.on('error', (e) => finish(e));
    child.on('close', (code) => {
      const m = VERSION.exec(out);
      finish(m ? undefined : new Error(`${basename(file)} --version printed no version (exit ${code})`), m?.[1]);
    });
  });
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone with all its children.
  }
}
