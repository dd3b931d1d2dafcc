/**
 * HostedPty against a real PTY host (started by the client, as the daemon
 * will start it) in a private state dir. Needs a build first
 * (npx tsc -p tsconfig.json): the host runs from dist/.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { PtyHostClient } from '../../src/ptyhost/client.js';
import { HostedPty } from '../../src/ptyhost/hosted-pty.js';
import { InputError } from '../../src/util/errors.js';
import { cleanup, tempDir } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

const SOON = 10_000;
const hosts = new Set<number>();
const clients = new Set<PtyHostClient>();

afterEach(async () => {
  for (const c of clients) c.close();
  // SIGTERM makes a host close its PTYs, which hangs up their jobs.
  for (const pid of hosts) stopHost(pid);
  await until(() => [...hosts].every(gone), SOON, 'hosts gone after the test');
  clients.clear();
  hosts.clear();
  await cleanup();
});

function stopHost(pid: number): void {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    /* gone already */
  }
}

/** A zombie is gone too: reaping it is not this test's business. */
function gone(pid: number): boolean {
  try {
    return /^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

async function connect(state: string, hostArgs: string[] = []): Promise<PtyHostClient> {
  const c = await PtyHostClient.connect(state, { timeoutMs: SOON, hostArgs });
  clients.add(c);
  hosts.add(c.hostPid);
  return c;
}

function job(script: string, cwd: string) {
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  return { command: 'sh', args: ['-c', script], cwd, env, cols: 80, rows: 24 };
}

/** Subscribes at once, as LiveJob does right after the spawn. */
function listen(pty: HostedPty): () => string {
  let text = '';
  pty.onData((d) => (text += d));
  return () => text;
}

/** PRINTER spawned through a first client, which has heard a few lines. */
async function startPrinter() {
  const state = tempDir('ns-hosted-');
  const work = tempDir('ns-hosted-work-');
  const first = await connect(state);
  const pty = await HostedPty.spawn(first, 'printer', job(PRINTER, work));
  const before = listen(pty);
  await until(() => lineNumbers(before()).length >= 3, SOON, 'output to the first client');
  return { state, work, first, pty, before };
}

function expectConsecutive(nums: number[]): void {
  expect(nums.length).toBeGreaterThan(0);
  nums.forEach((n, i) => expect(n, `line ${i + 1} of ${nums.length}`).toBe(i + 1));
}

function lineNumbers(text: string): number[] {
  return [...text.matchAll(/^line (\d+)\r$/gm)].map((m) => Number(m[1]));
}

const PRINTER = 'i=0; while [ ! -e stop ]; do i=$((i+1)); echo "line $i"; echo $i > count; sleep 0.02; done; exit 3';
const WAITER = 'echo waiting; while [ ! -e go ]; do sleep 0.02; done; echo bye; exit 7';

describe('HostedPty', () => {
  it('answers a [y/N] prompt through sendText and decodes UTF-8 split across chunks', async () => {
    const state = tempDir('ns-hosted-');
    const c = await connect(state);
    // 200,000 three-byte characters (600 KB, several frames): the host reads the PTY in pieces that cut some of them in two.
    const script = `yes € | head -n 200000 | tr -d '\\n'; echo; printf 'Delete it? [y/N] '; read a; echo "answer=$a"; exit 4`;
    const pty = await HostedPty.spawn(c, 'prompt', job(script, state));
    const out = listen(pty);
    expect(pty.pid).toBeGreaterThan(0);
    await until(() => out().includes('[y/N] '), SOON, 'the prompt');
    await pty.sendText('y', { enter: true });
    const exit = await pty.exited;
    expect(exit).toMatchObject({ exitCode: 4, signal: null });
    expect(pty.running).toBe(false);
    expect(out()).toContain('answer=y\r\n');
    expect(out()).not.toContain('\uFFFD');
    expect(out().match(/€/g)).toHaveLength(200_000);
  });

  it('hears a new job from its first byte, however much it prints before a round trip could come', async () => {
    // A 4 KB ring and 3 MB printed at once. Attaching after the spawn's reply began the replay past the
    // ring's start, mid-character, whenever the job printed more than the ring in that round trip (CI
    // saw it under load). Here the client's thread is held for 300 ms right after the spawn went out,
    // as a loaded machine holds it, so the job has printed all of it before any reply is read.
    const state = tempDir('ns-hosted-');
    const c = await connect(state, ['--buffer', '4k']);
    for (let i = 0; i < 2; i++) {
      const spawned = HostedPty.spawn(c, `burst-${i}`, job(`yes € | head -n 1000000 | tr -d '\\n'; exit 5`, state));
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
      const pty = await spawned;
      const out = listen(pty);
      expect(pty.from).toBe(0);
      expect(await pty.exited).toMatchObject({ exitCode: 5 });
      expect(out().startsWith('€')).toBe(true);
      expect(out()).not.toContain('\uFFFD');
      expect(out().match(/€/g)).toHaveLength(1_000_000);
    }
  });

  it('is adopted by a second client once the first is gone: same pid, the output printed meanwhile, then live', async () => {
    const { state, work, first, pty, before } = await startPrinter();
    first.close();
    const seenAtClose = Math.max(...lineNumbers(before()));
    const count = () => Number(readFileSync(join(work, 'count'), 'utf8'));
    await until(() => count() >= seenAtClose + 10, SOON, 'lines printed with no client');

    const second = await connect(state);
    expect(second.hostPid).toBe(first.hostPid);
    const adopted = await HostedPty.adopt(second, 'printer');
    const after = listen(adopted);
    expect(adopted.pid).toBe(pty.pid);
    expect(adopted.running).toBe(true);
    await until(() => lineNumbers(after()).length > 0, SOON, 'the replay');
    const replayed = await until(() => adopted.offset > 0 && adopted.offset, SOON, 'an offset');
    await until(() => adopted.offset > replayed + 50, SOON, 'live output after the replay');
    writeFileSync(join(work, 'stop'), '');
    expect(await adopted.exited).toMatchObject({ exitCode: 3, signal: null });
    const nums = lineNumbers(after());
    expectConsecutive(nums);
    expect(nums.length).toBeGreaterThan(seenAtClose + 10);
  });

  it('resumes from an offset with nothing missed or repeated', async () => {
    const { state, work, first, pty, before } = await startPrinter();
    pty.dispose();
    const since = pty.offset;
    const seen = before();
    first.close();

    const adopted = await HostedPty.adopt(await connect(state), 'printer', since);
    const after = listen(adopted);
    expect(adopted.from).toBe(since);
    await until(() => lineNumbers(after()).length >= 5, SOON, 'output after the offset');
    writeFileSync(join(work, 'stop'), '');
    await adopted.exited;
    expectConsecutive(lineNumbers(seen + after()));
  });

  it('gives the real exit code and time of a job that exited while no client was there; kill after it does nothing', async () => {
    const state = tempDir('ns-hosted-');
    const work = tempDir('ns-hosted-work-');
    const first = await connect(state);
    const pty = await HostedPty.spawn(first, 'waiter', job(WAITER, work));
    const startedAt = Date.now();
    first.close();
    writeFileSync(join(work, 'go'), '');
    await until(() => gone(pty.pid), SOON, 'the job to exit with no client');

    const second = await connect(state);
    const adopted = await HostedPty.adopt(second, 'waiter');
    const out = listen(adopted);
    const exit = await adopted.exited;
    expect(exit).toMatchObject({ exitCode: 7, signal: null });
    expect(Date.parse(exit.at)).toBeGreaterThanOrEqual(startedAt - 1_000);
    expect(adopted.exit).toBe(exit);
    expect(adopted.pid).toBe(pty.pid);
    expect(out()).toMatch(/waiting\r\n[\s\S]*bye\r\n$/);

    const kill = vi.spyOn(second, 'kill');
    const write = vi.spyOn(second, 'write');
    adopted.kill('SIGKILL');
    adopted.kill();
    adopted.write('late\r');
    expect(kill).not.toHaveBeenCalled();
    expect(write).not.toHaveBeenCalled();
    expect(() => adopted.kill('SIGNOPE')).toThrow(InputError);
  });

  it('rejects a bad spawn with the same InputError as PtyHost', async () => {
    const state = tempDir('ns-hosted-');
    const c = await connect(state);
    await expect(HostedPty.spawn(c, 'bad', { ...job('true', state), cwd: join(state, 'missing') })).rejects.toThrow(/working directory ".*missing" does not exist/);
    await expect(HostedPty.spawn(c, 'bad', { ...job('true', state), command: 'no-such-command-nightshift' })).rejects.toThrow(InputError);
    await expect(HostedPty.spawn(c, 'bad', { ...job('true', state), cols: 0 })).rejects.toThrow(InputError);
    // A second spawn of a running job's id is refused, and the first one's output still reaches it.
    const first = await HostedPty.spawn(c, 'twice', job(WAITER, state));
    const heard = listen(first);
    await until(() => heard().includes('waiting'), SOON, 'the first job');
    await expect(HostedPty.spawn(c, 'twice', job('true', state))).rejects.toThrow(/job "twice" already runs on this host/);
    writeFileSync(join(state, 'go'), '');
    expect(await first.exited).toMatchObject({ exitCode: 7 });
    expect(heard()).toContain('bye');
  });
});
