/**
 * The CLI loads only the verb it runs: a `board` that loaded xterm, node-pty,
 * fastify, pg and SQLite took 0.67 s before it did anything; a read-only verb
 * now runs from the build's bundle (scripts/build-cli.mjs) and loads no zod.
 * The load is checked by the modules the process resolved, never by a clock.
 * Needs `npm run build` (tsc alone leaves dist/src/cli/main.js unbundled).
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { dirname, join, relative, resolve as resolvePath } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { daemonPaths } from '../../src/daemon/paths.js';
import { BIN, cleanup, ROOT, tempDir } from '../helpers/cli.js';
import { testScopes } from '../helpers/daemon.js';

const TRACE_HOOK = join(ROOT, 'test', 'helpers', 'module-trace.mjs');
const VERBS = ['run', 'drill', 'rules', 'daemon', 'submit', 'board', 'show', 'answer', 'send', 'key', 'continue', 'attach', 'cancel', 'logs', 'prune', 'ack', 'shutdown', 'resume', 'stats', 'web', 'ptyhost', 'hosts'];
/** What a call to the daemon must not load. */
const HEAVY = ['node-pty', '@xterm/headless', 'fastify', 'pg', 'better-sqlite3'];

interface Ran {
  code: number | null;
  out: string;
  err: string;
  /** Packages whose files under node_modules the process loaded. */
  packages: Set<string>;
  /** Our own files it loaded, as paths under dist/ (`src/api/commands.js`, `src/cli/bundle/run-….js`). */
  ours: string[];
  /** Every module it ran, ours and packages': the files it loaded and, for a file of the bundle, the modules in it (from its source map). */
  modules: string[];
}

const packageOf = (u: string) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(u)?.[1];

/** The modules a file of the CLI's bundle holds, as paths under dist/ or node_modules/, read from its source map; a file of tsc's output holds itself. */
function modulesIn(distPath: string): string[] {
  const file = join(ROOT, 'dist', distPath);
  let map: { sources: string[] };
  try {
    map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
  } catch {
    return [distPath];
  }
  if (!readFileSync(file, 'utf8').includes('scripts/build-cli.mjs') && !distPath.startsWith('src/cli/bundle/')) return [distPath];
  return map.sources.map((s) => {
    const abs = resolvePath(dirname(file), s);
    return abs.includes('/node_modules/') ? abs.slice(abs.lastIndexOf('/node_modules/') + 1) : relative(join(ROOT, 'dist'), abs);
  });
}

/** Whether any module of the package ran, loaded from node_modules or inside the bundle. */
const ran = (r: Ran, pkg: string) => r.modules.some((m) => m.startsWith(`node_modules/${pkg}/`)) || r.packages.has(pkg);

function nightshift(args: string[], env: Record<string, string> = {}): Promise<Ran> {
  const trace = join(tempDir('ns-cli-'), 'modules.txt');
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', TRACE_HOOK, BIN, ...args], {
      cwd: ROOT,
      env: { ...process.env, NIGHTSHIFT_BOARD: '', ...env, NIGHTSHIFT_MODULE_TRACE: trace },
    });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
    child.on('close', (code) => {
      let urls: string[] = [];
      try {
        urls = readFileSync(trace, 'utf8').split('\n');
      } catch {
        // Nothing resolved: no trace file.
      }
      const packages = new Set(urls.flatMap((u) => packageOf(u) ?? []));
      const ours = urls.flatMap((u) => /\/dist\/((?:src|bench)\/.*\.js)$/.exec(u)?.[1] ?? []);
      const modules = [...urls.filter((u) => packageOf(u)), ...ours.flatMap(modulesIn)];
      resolve({ code, out, err, packages, ours, modules });
    });
  });
}

afterEach(cleanup);

describe('nightshift loads the verb it runs, and only that', () => {
  it('`board` against a state dir with no daemon: the usual one-line error, and none of the heavy packages loaded', async () => {
    const r = await nightshift(['board', '--state', tempDir()]);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/^nightshift: no daemon is running/);
    expect(r.ours).toContain('src/cli/main.js');
    for (const p of HEAVY) expect(ran(r, p), p).toBe(false);
  });

  it('`board` and `cancel` load none of the daemon\'s handlers or what they need', async () => {
    for (const args of [['board'], ['cancel', 'job']]) {
      const r = await nightshift([...args, '--state', tempDir()]);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.ours, args[0]).toContain('src/cli/main.js');
      const handlers = r.modules.filter((f) => /^src\/daemon\/(?:commands?\.js|commands\/|handlers\.js)/.test(f));
      expect(handlers, args[0]).toEqual([]);
      for (const p of ['chokidar', 'yaml', 'semver', 'pino']) expect(ran(r, p), `${args[0]}: ${p}`).toBe(false);
    }
  });

  it('`answer` and `show` likewise; `run` loads the terminal but not the web server or the fleet client', async () => {
    for (const args of [['answer', 'job', 'y'], ['show', 'job']]) {
      const r = await nightshift([...args, '--state', tempDir()]);
      expect(r.code, args.join(' ')).toBe(2);
      for (const p of HEAVY) expect(ran(r, p), `${args[0]}: ${p}`).toBe(false);
    }
    const run = await nightshift(['run', '--quiet', '--state', tempDir(), '--', 'true']);
    expect(run.code).toBe(0);
    expect(run.packages.has('node-pty')).toBe(true);
    expect(run.packages.has('@xterm/headless')).toBe(true);
    for (const p of ['fastify', 'pg']) expect(ran(run, p), `run: ${p}`).toBe(false);
    expect(run.modules, 'run').toContain('src/cli/run.js');
  }, 30_000);

  it('--help lists every verb, a verb\'s own --help works, and a misspelt verb is suggested', async () => {
    const help = await nightshift(['--help']);
    expect(help.code).toBe(0);
    const listed = [...help.out.matchAll(/^ {2}(\S+)/gm)].map((m) => m[1]);
    expect(listed).toEqual(expect.arrayContaining(VERBS));
    const board = await nightshift(['board', '--help']);
    expect(board.code).toBe(0);
    expect(board.out).toMatch(/Usage: nightshift board/);
    const typo = await nightshift(['bord']);
    expect(typo.code).toBe(2);
    expect(typo.err).toMatch(/unknown command 'bord'[\s\S]*Did you mean board\?/);
  }, 30_000);

  it('`board --board URL` checks the URL before loading the PostgreSQL client', async () => {
    const r = await nightshift(['board', '--board', 'mysql://nope']);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/--board "mysql:\/\/nope" must be a postgres:\/\/ URL/);
    expect(r.packages.has('pg')).toBe(false);
  });
});

describe('a read-only verb answered by a daemon', () => {
  const scope = testScopes();

  it('`board`, `show` and `status` run from the bundle: no other file of ours, no zod, no commander from node_modules', async (ctx) => {
    const d = await scope(ctx).daemon(scope(ctx).stateDir());
    await d.submit('quick', ['true']);
    for (const [args, out] of [[['board'], /^NAME +STATE/], [['show', 'quick'], /^quick \(/], [['status'], /^daemon: +running/]] as const) {
      const r = await nightshift([...args, '--state', d.state]);
      expect(r.code, `${args[0]}: ${r.err}`).toBe(0);
      expect(r.out, args[0]).toMatch(out);
      expect(r.ours.filter((f) => !/^src\/cli\/(?:main\.js|bundle\/)/.test(f)), `${args[0]}: run \`npm run build\`, not tsc alone`).toEqual([]);
      expect(ran(r, 'zod'), `${args[0]}: zod`).toBe(false);
      expect(r.packages.has('commander'), `${args[0]}: commander from node_modules`).toBe(false);
    }
  }, 30_000);
});

/** A socket where the daemon's would be, answering every request with `result`: a reply no daemon of this build sends. */
async function fakeDaemon(result: unknown): Promise<{ state: string; server: Server }> {
  const state = tempDir();
  const { runDir, socket } = daemonPaths(state);
  mkdirSync(runDir, { recursive: true, mode: 0o700 });
  const server = createServer((conn) =>
    conn.once('data', (line) => {
      const { id } = JSON.parse(line.toString()) as { id: number };
      conn.end(`${JSON.stringify({ v: 1, id, ok: true, result })}\n`);
    }),
  );
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return { state, server };
}

describe('the reply check holds in the bundle', () => {
  const job = { id: 'j1', name: 'fix', state: 'blocked', reason: { code: 'prompt' }, command: ['bash'], cwd: '/tmp', env: {}, policy: null, rules: null,
    budgets: { wall_ms: null, tokens: null, no_progress_ms: null, steps: null }, priority: 0, after: [], resume_from: null, on_unanswered: null,
    created: '2026-01-01T00:00:00.000Z', started: null, ended: null, last_activity: null, exit: null, paths: null, tokens_used: null };

  it('a reply off its schema: exit 70, the command and the field named in zod\'s words', async () => {
    const { state, server } = await fakeDaemon({ jobs: [{ ...job, state: 'sleeping' }] });
    try {
      const r = await nightshift(['board', '--state', state]);
      expect(r.code).toBe(70);
      expect(r.err).toMatch(/^nightshift: the daemon's reply to "board" does not match its result schema \(jobs\.0\.state: /);
    } finally {
      server.close();
    }
  });

  it('a reply that matches is printed as sent: keys in its order, a key the schema does not name kept', async () => {
    const reply = { jobs: [{ later: true, ...job }] };
    const { state, server } = await fakeDaemon(reply);
    try {
      const r = await nightshift(['board', '--json', '--state', state]);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toBe(`${JSON.stringify(reply)}\n`);
      expect(r.packages.has('zod')).toBe(false);
    } finally {
      server.close();
    }
  });
});
