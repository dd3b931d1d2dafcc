/**
 * The package as a user gets it: the working tree copied as a fresh clone
 * would have it, packed by `npm pack` (its prepack builds), installed with
 * `npm install -g --prefix` into a private prefix, then run from a folder
 * outside the clone with HOME and the XDG folders in temp. The install
 * builds node-pty and better-sqlite3 from the npm registry: it needs the
 * network and a C++ toolchain, and takes minutes.
 *
 * The copy is packed, not this clone: prepack rebuilds dist/ from scratch,
 * which the tests running beside this one are executing.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanup, ROOT, runCli, startCli, tempDir, type CliOptions } from '../helpers/cli.js';
import { sr, testScopes, waitUntil } from '../helpers/daemon.js';

const exec = promisify(execFile);

/** npm install builds two native modules; npx installs the package a second time. */
const INSTALL_MS = 600_000;
const SOON = 15_000;

/** A version no build of the clone carries: `--version` must read it from the package. */
const VERSION = `${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}-packtest`;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command to its end, its exit code returned rather than thrown. */
async function run(file: string, args: string[], opts: { cwd: string; env?: NodeJS.ProcessEnv; ms?: number }): Promise<Run> {
  try {
    const { stdout, stderr } = await exec(file, args, { cwd: opts.cwd, env: opts.env ?? process.env, timeout: opts.ms ?? INSTALL_MS, maxBuffer: 64 << 20 });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const err = e as { code?: unknown; stdout?: string; stderr?: string };
    if (typeof err.code !== 'number') throw e;
    return { code: err.code, stdout: err.stdout ?? '', stderr: err.stderr ?? '' };
  }
}

/** The working tree as `git clone` would give it, uncommitted changes included: no node_modules, no dist/. */
async function freshClone(): Promise<string> {
  const dir = join(tempDir('ns-pkg-clone-'), 'nightshift');
  const { stdout } = await exec('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, maxBuffer: 64 << 20 });
  // A file deleted but not yet committed is still listed.
  const files = stdout.split('\0').filter((f) => f !== '' && existsSync(join(ROOT, f)));
  for (const f of files) cpSync(join(ROOT, f), join(dir, f));
  return dir;
}

interface Installed {
  tarball: string;
  packed: string[];
  prefix: string;
  /** Where a user runs it: outside the clone, with a home of its own. */
  opts: CliOptions & { cwd: string; env: Record<string, string | undefined> };
}

let pkg: Installed;

beforeAll(async () => {
  const clone = await freshClone();
  const manifest = JSON.parse(readFileSync(join(clone, 'package.json'), 'utf8')) as { version: string };
  writeFileSync(join(clone, 'package.json'), `${JSON.stringify({ ...manifest, version: VERSION }, null, 2)}\n`);
  // The devDependencies a clone gets from `npm install`, without installing them again.
  symlinkSync(join(ROOT, 'node_modules'), join(clone, 'node_modules'));
  const out = tempDir('ns-pkg-out-');
  const packed = await run('npm', ['pack', '--json', '--pack-destination', out], { cwd: clone });
  expect(packed.code, packed.stderr).toBe(0);
  const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as { filename: string; files: { path: string }[] }[];
  const prefix = join(out, 'prefix');
  const tarball = join(out, info!.filename);
  const installed = await run('npm', ['install', '--global', '--prefix', prefix, '--no-audit', '--no-fund', tarball], { cwd: out });
  expect(installed.code, installed.stderr).toBe(0);
  // Every dependency an installed copy resolves declares Node 20: the clone's `overrides` do not reach it.
  expect(installed.stderr).not.toContain('EBADENGINE');
  const home = tempDir('ns-pkg-home-');
  const elsewhere = join(home, 'somewhere');
  mkdirSync(elsewhere);
  pkg = {
    tarball,
    packed: info!.files.map((f) => f.path),
    prefix,
    opts: {
      cwd: elsewhere,
      exe: join(prefix, 'bin', 'nightshift'),
      env: {
        HOME: home,
        XDG_STATE_HOME: join(home, 'state'),
        XDG_CONFIG_HOME: join(home, 'config'),
        NIGHTSHIFT_STATE: undefined,
        PATH: `${join(prefix, 'bin')}:${process.env.PATH}`,
      },
    },
  };
}, INSTALL_MS * 2);

afterAll(cleanup);
const scope = testScopes();

describe('npm pack: what a user runs, nothing else', () => {
  it('bin, the built dist/src, rules, web pages, scenarios', () => {
    for (const f of ['package.json', 'bin/nightshift.js', 'dist/src/cli/main.js', 'dist/src/ptyhost/main.js', 'rules/policy.yaml', 'web/index.html', 'scenarios/hang.cast', 'scenarios/policies/allow-cowsay.yaml']) {
      expect(pkg.packed).toContain(f);
    }
  });

  it('no sources, tests, bench, compiled tests or recording scripts', () => {
    const stray = pkg.packed.filter((f) => /^(src|test|bench|docs|scripts|dist\/bench|state)\//.test(f) || /\.test\.js(\.map)?$/.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')) || f === 'scenarios/record.sh');
    expect(stray).toEqual([]);
  });
});

describe('the installed package, run from a folder outside the clone', () => {
  it('nightshift --version prints the version in the package.json', async () => {
    const r = await runCli(['--version'], { ...pkg.opts, ms: SOON });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(VERSION);
    expect(r.code).toBe(0);
  });

  it('nightshift drill with no path drills the shipped scenarios, and says where they are', async () => {
    const shipped = join(pkg.prefix, 'lib', 'node_modules', 'nightshift', 'scenarios');
    const r = await runCli(['drill', '--json'], { ...pkg.opts, ms: 120_000 });
    expect(r.stderrLines).toEqual([`nightshift: drilling the shipped scenarios in ${shipped}`]);
    const report = JSON.parse(r.stdout) as { scenarios: { file: string; passed: boolean | null }[]; errors: string[] };
    const casts = readdirSync(join(ROOT, 'scenarios')).filter((f) => f.endsWith('.cast'));
    expect(report.errors).toEqual([]);
    expect(report.scenarios).toHaveLength(casts.length);
    expect(report.scenarios.filter((s) => s.passed !== true)).toEqual([]);
    expect(r.code).toBe(0);
  }, 150_000);

  it('nightshift run: a [y/N] question is seen as blocked, answered through the run\'s stdin, and the job ends 0', async () => {
    const p = startCli(['run', '--settle', '1s', '--', 'bash', '-c', 'read -p "Proceed? [y/N] " a; echo got:$a'], pkg.opts);
    const blocked = await p.waitForLine((l) => / blocked \(/.test(l), SOON, 'a blocked line');
    expect(blocked).toMatch(/^nightshift: \S+ blocked \(prompt generic-yes-no confirm\)$/);
    p.write('y\r');
    const exit = await p.waitExit(SOON);
    expect(p.stdout).toContain('got:y');
    expect(exit.code).toBe(0);
  }, 60_000);

  it('npx --package TARBALL nightshift --version', async () => {
    // npx installs into its cache's _npx/: a cache of the test's own, so nothing is left behind in the user's.
    const cache = tempDir('ns-pkg-npx-cache-');
    const r = await run('npx', ['--yes', '--package', pkg.tarball, 'nightshift', '--version'], { cwd: pkg.opts.cwd, env: { ...process.env, npm_config_cache: cache } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe(VERSION);
  }, INSTALL_MS);
});

describe('the installed daemon: what it finds in the package', () => {
  it('its PTY host runs a job that blocks and is answered; its web view serves web/ and the vendored xterm.js', async (ctx) => {
    const s = scope(ctx);
    const d = await s.daemon(s.stateDir(), ['--http', '127.0.0.1:0'], pkg.opts.env, pkg.opts.exe);
    expect(d.web).not.toBeNull();
    const job = await d.submit('confirm', ['bash', '-c', 'read -p "Proceed? [y/N] " a; echo got:$a'], ['--cwd', pkg.opts.cwd]);
    await waitUntil(async () => (await d.jobs()).find((j) => j.id === job.id && sr(j) === 'blocked/prompt'), 30_000, 'the job blocked on its prompt');
    const answered = await d.ns('answer', ['confirm', 'y']);
    expect(answered.code, answered.stderr).toBe(0);
    await waitUntil(async () => (await d.jobs()).find((j) => j.id === job.id && sr(j) === 'done/exit'), 30_000, 'the job done');
    expect((await d.show(job.id)).screen).toContain('got:y');
    for (const [path, text] of [['/assets/index.html', '<html'], ['/vendor/xterm/xterm.js', 'Terminal']] as const) {
      const res = await fetch(`${d.web}${path}`);
      expect(res.status, path).toBe(200);
      expect(await res.text()).toContain(text);
    }
  }, 120_000);
});

describe('npm install -g . from a fresh clone', () => {
  it('ends with the supported way to install from source, not "tsc: not found"', async () => {
    const clone = await freshClone();
    const prefix = tempDir('ns-pkg-prefix-');
    const r = await run('npm', ['install', '--global', '--prefix', prefix, '.'], { cwd: clone });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('nightshift: From a clone, install with: npm install && npm link');
    expect(r.stderr).toContain(`npm uninstall -g --prefix ${prefix} nightshift`);
    expect(r.stderr).not.toContain('tsc: not found');
  }, 120_000);
});
