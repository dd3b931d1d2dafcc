/**
 * The PTY host end to end: real host processes (bin/nightshift.js ptyhost,
 * started by the client as the daemon will), real PTYs, private state dirs.
 * Synchronisation is by polling with deadlines. Needs a build first
 * (npx tsc -p tsconfig.json): the host and the helper client run dist/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect as netConnect, createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { PtyHostClient, PtyHostVersionError } from '../../src/ptyhost/client.js';
import { FRAME, FrameDecoder, jsonFrame, ptyhostSocket, type AttachResult, type JobExit } from '../../src/ptyhost/protocol.js';
import { InputError } from '../../src/util/errors.js';
import { ROOT, cleanup, runCli, tempDir } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

/** Generous: the CI machine has 2 cores and another test file runs beside this one. */
const SOON = 10_000;
const HELPER = join(ROOT, 'test', 'helpers', 'ptyhost-client.mjs');

const hosts = new Set<number>();
const clients = new Set<PtyHostClient>();
const children = new Set<ChildProcess>();
const servers = new Set<Server>();

afterEach(async () => {
  for (const c of clients) c.close();
  for (const c of children) c.kill('SIGKILL');
  for (const s of servers) s.close();
  // SIGTERM makes a host close its PTYs: the jobs get SIGHUP, the test leaves nothing running.
  for (const pid of hosts) signal(pid, 'SIGTERM');
  await until(() => [...hosts].every((p) => !alive(p)), SOON, 'hosts gone after the test');
  clients.clear();
  children.clear();
  servers.clear();
  hosts.clear();
  await cleanup();
});

/** A zombie counts as gone: whoever reaps it (init, after its host died) is not ours to wait for. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function signal(pid: number, sig: NodeJS.Signals): void {
  try {
    process.kill(pid, sig);
  } catch {
    /* gone already */
  }
}

async function connect(stateDir: string, hostArgs: string[] = []): Promise<PtyHostClient> {
  const c = await PtyHostClient.connect(stateDir, { hostArgs, timeoutMs: SOON });
  clients.add(c);
  hosts.add(c.hostPid);
  return c;
}

function env(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
}

function sh(id: string, script: string, cwd: string, extra: { recording?: string; cols?: number; rows?: number } = {}) {
  return { id, command: 'sh', args: ['-c', script], cwd, env: env(), cols: extra.cols ?? 80, rows: extra.rows ?? 24, ...(extra.recording ? { recording: extra.recording } : {}) };
}

/** Attaches and collects: the bytes (with the offset of the first), and the exit once it comes. */
async function collect(c: PtyHostClient, id: string, since?: number) {
  const got = {
    chunks: [] as Buffer[],
    offsets: [] as number[],
    exit: undefined as JobExit | undefined,
    result: undefined as unknown as AttachResult,
    text: () => Buffer.concat(got.chunks).toString(),
  };
  got.result = await c.attach(id, (d, off) => {
    got.chunks.push(Buffer.from(d));
    got.offsets.push(off);
  }, (e) => (got.exit = e), since);
  return got;
}

/** The "o" events of an asciicast file joined, and its other events. */
function readRecording(file: string): { header: Record<string, unknown>; output: string; others: unknown[][] } {
  const [head, ...lines] = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '');
  const events = lines.map((l) => JSON.parse(l) as [number, string, string]);
  return {
    header: JSON.parse(head!) as Record<string, unknown>,
    output: events.filter((e) => e[1] === 'o').map((e) => e[2]).join(''),
    others: events.filter((e) => e[1] !== 'o'),
  };
}

function lineNumbers(text: string): number[] {
  return [...text.matchAll(/^line (\d+)\r$/gm)].map((m) => Number(m[1]));
}

function expectConsecutive(nums: number[]): void {
  expect(nums.length).toBeGreaterThan(0);
  nums.forEach((n, i) => expect(n, `line ${i + 1} of ${nums.length}`).toBe(i + 1));
}

/** Connects, attaches to `id` and, once the reply is in, stops reading. */
async function stuckAttach(sock: string, id: string): Promise<Socket> {
  const s = netConnect(sock);
  const decoder = new FrameDecoder();
  await new Promise<void>((resolve, reject) => {
    s.on('error', reject);
    s.on('data', (chunk: Buffer) => {
      for (const f of decoder.push(chunk)) {
        if (f.type === FRAME.hello) s.write(jsonFrame(FRAME.request, { rid: 1, op: 'attach', args: { id } }));
        if (f.type === FRAME.reply) {
          s.pause();
          resolve();
        }
      }
    });
  });
  return s;
}

const PRINTER = 'i=0; while [ ! -e stop ]; do i=$((i+1)); echo "line $i"; sleep 0.02; done; exit 3';
const WAITER = 'echo waiting; while [ ! -e go ]; do sleep 0.02; done; echo bye; exit 7';

describe('nightshift ptyhost', () => {
  it('runs a job for a client: output, input, resize, kill, errors naming the value', async () => {
    const state = tempDir('ns-ptyhost-');
    const c = await connect(state);
    const { pid } = await c.spawn(sh('echo', 'stty size; read x; stty size; echo "got $x"; exit 5', state));
    expect(pid).toBeGreaterThan(0);
    const out = await collect(c, 'echo');
    await until(() => out.text().includes('24 80'), SOON, 'stty size of the spawn');
    await c.resize('echo', 100, 30);
    await c.write('echo', 'hello\r');
    await until(() => out.exit, SOON, 'the exit event');
    expect(out.text()).toMatch(/hello\r\n30 100\r\ngot hello\r\n$/);
    expect(out.exit).toMatchObject({ exitCode: 5, signal: null });
    expect(Date.parse(out.exit!.at)).toBeGreaterThan(0);

    await c.spawn(sh('sleeper', 'sleep 60', state));
    const sleeper = await collect(c, 'sleeper');
    await c.kill('sleeper', 'SIGKILL');
    await until(() => sleeper.exit, SOON, 'the killed job exit');
    expect(sleeper.exit!.signal).toBe('SIGKILL');

    await expect(c.write('nope', 'x')).rejects.toThrow(InputError);
    await expect(c.write('nope', 'x')).rejects.toThrow(/no job "nope" on this host; it has "echo", "sleeper"/);
    await c.spawn(sh('dup', 'sleep 60', state));
    await expect(c.spawn(sh('dup', 'true', state))).rejects.toThrow(/job "dup" already runs on this host \(pid \d+\)/);
    await c.kill('dup', 'SIGKILL');
    // An ended job's id may be started again (the daemon died between the spawn and the board's word on it).
    await expect(c.spawn(sh('sleeper', 'true', state))).resolves.toMatchObject({ pid: expect.any(Number) });
    await expect(c.kill('echo', 'SIGNOPE')).rejects.toThrow(/unknown signal "SIGNOPE"/);
    await expect(c.resize('echo', 0, 10)).rejects.toThrow(/cols/);
    await expect(c.spawn(sh('bad-cwd', 'true', join(state, 'missing')))).rejects.toThrow(/working directory ".*missing" does not exist/);
  });

  it('keeps jobs, their output and their exits while no client is connected (client kill -9)', async () => {
    const state = tempDir('ns-ptyhost-');
    const work = tempDir('ns-ptyhost-work-');
    const rec = join(work, 'printer.cast');
    const jobs = [{ id: 'printer', script: PRINTER, recording: rec }, { id: 'waiter', script: WAITER }];
    const helper = spawn(process.execPath, [HELPER, state, work, JSON.stringify(jobs)], { stdio: ['ignore', 'pipe', 'pipe'] });
    children.add(helper);
    let out = '';
    let err = '';
    helper.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    helper.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    const ready = await until(() => out.includes('\n') && (JSON.parse(out.split('\n')[0]!) as { hostPid: number; pids: Record<string, number> }), SOON, `the helper's ready line (stderr: ${err})`);
    hosts.add(ready.hostPid);

    helper.kill('SIGKILL');
    await until(() => helper.exitCode !== null || helper.signalCode !== null, SOON, 'the helper gone');
    // Output goes on with no client: the host itself appends it to the recording.
    const atKill = Math.max(...lineNumbers(readRecording(rec).output));
    await until(() => Math.max(...lineNumbers(readRecording(rec).output)) >= atKill + 10, SOON, 'lines recorded with no client');
    writeFileSync(join(work, 'go'), '');
    await until(() => !alive(ready.pids.waiter!), SOON, 'the waiter to exit with no client');

    const c = await connect(state);
    expect(c.hostPid).toBe(ready.hostPid);
    const list = await c.list();
    const byId = Object.fromEntries(list.map((j) => [j.id, j]));
    expect(byId.printer).toMatchObject({ pid: ready.pids.printer, exit: null });
    expect(byId.waiter).toMatchObject({ pid: ready.pids.waiter, exit: { exitCode: 7, signal: null } });
    expect(Date.parse(byId.waiter!.exit!.at)).toBeGreaterThan(Date.parse(byId.waiter!.startedAt));

    const waiter = await collect(c, 'waiter');
    expect(waiter.text()).toMatch(/waiting\r\n[\s\S]*bye\r\n/);
    await until(() => waiter.exit, SOON, 'the exit of a job that ended before the attach');
    expect(waiter.exit!.exitCode).toBe(7);

    const printer = await collect(c, 'printer');
    expect(printer.result.from).toBe(0);
    const replayed = printer.result.to;
    await until(() => Buffer.concat(printer.chunks).length > replayed + 50, SOON, 'live output after the replay');
    writeFileSync(join(work, 'stop'), '');
    await until(() => printer.exit, SOON, 'the printer to exit');
    expect(printer.exit!.exitCode).toBe(3);
    // Offsets run on without a gap or a repeat from the replay into the live part.
    let next = 0;
    printer.chunks.forEach((ch, i) => {
      expect(printer.offsets[i]).toBe(next);
      next += ch.length;
    });
    const text = printer.text();
    expectConsecutive(lineNumbers(text));
    expect(lineNumbers(text).length).toBeGreaterThan(atKill + 10);

    // Every byte in order, then the exit marker; written by the host, so nothing is missing from the gap.
    await until(() => readRecording(rec).others.length > 0, SOON, 'the exit marker in the recording');
    const file = readRecording(rec);
    expect(file.header).toMatchObject({ version: 2, width: 80, height: 24 });
    expect(file.output).toBe(text);
    expect(file.others).toEqual([[expect.any(Number), 'm', 'exit:3']]);
    expect(statSync(rec).mode & 0o777).toBe(0o600);

    // A client that saw up to an offset resumes exactly there, even after the exit.
    const mid = Math.floor(text.length / 2);
    const resumed = await collect(c, 'printer', mid);
    expect(resumed.result.from).toBe(mid);
    expect(resumed.exit?.exitCode).toBe(3);
    expect(resumed.text()).toBe(Buffer.from(text).subarray(mid).toString());
  });

  it('keeps only the newest output past its buffer, says where it starts, and records all of it', async () => {
    const state = tempDir('ns-ptyhost-');
    const work = tempDir('ns-ptyhost-work-');
    const rec = join(work, 'big.cast');
    const c = await connect(state, ['--buffer', '64k']);
    // 20,000 numbered lines, ~230 KB: well past a 64 KiB buffer. The job exits the moment it has written them:
    // what is still in the PTY then is read before node-pty gives up on it (src/pty/last-words.ts).
    await c.spawn(sh('big', 'i=0; while [ $i -lt 20000 ]; do i=$((i+1)); echo "line $i"; done; exit 3', work, { recording: rec }));
    await until(() => readRecording(rec).others.length > 0, SOON, 'the exit marker in the recording');
    expect(readRecording(rec).others).toContainEqual([expect.any(Number), 'm', 'exit:3']);
    const late = await collect(c, 'big');
    expect(late.result.from).toBeGreaterThan(0);
    expect(late.result.to - late.result.from).toBeGreaterThanOrEqual(64 * 1024);
    expect(late.result.to - late.result.from).toBeLessThan(64 * 1024 + 65_536);
    expect(late.text()).toMatch(/line 20000\r\n$/);
    expectConsecutive(lineNumbers(readRecording(rec).output));
    expect(lineNumbers(readRecording(rec).output)).toHaveLength(20_000);
  });

  it('stops reading a job whose client takes no output, and cuts that client off after 10 s', async () => {
    const state = tempDir('ns-ptyhost-');
    const work = tempDir('ns-ptyhost-work-');
    const c = await connect(state);
    const FLOOD = 30_000_000;
    await c.spawn(sh('flood', `while [ ! -e go ]; do sleep 0.02; done; head -c ${FLOOD} /dev/zero | tr '\\0' x; while [ ! -e stop ]; do sleep 0.02; done`, work));
    // A client that attaches and then reads nothing more: a hung daemon.
    const stuck = await stuckAttach(ptyhostSocket(state), 'flood');
    writeFileSync(join(work, 'go'), '');
    const bytes = async () => (await c.list())[0]!.outputBytes;
    const started = Date.now();
    let held = 0;
    // Without flow control the flood is read in about a second; held back, it is not read until the cut-off.
    const log = join(state, 'ptyhost.log');
    while (!readFileSync(log, 'utf8').includes('cutting off a client')) {
      if (Date.now() - started > 20_000) throw new Error('the stuck client was not cut off within 20 s');
      const n = await bytes();
      if (Date.now() - started > 5_000 && n < FLOOD) held = n;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(held, 'bytes read from the job 5 s into the flood').toBeGreaterThan(0);
    expect(held).toBeLessThan(FLOOD / 2);
    const after = Date.now();
    let n = 0;
    while ((n = await bytes()) < FLOOD) {
      if (Date.now() - after > SOON) throw new Error(`only ${n} of ${FLOOD} bytes read after the cut-off`);
      await new Promise((r) => setTimeout(r, 100));
    }
    stuck.destroy();
  }, 40_000);

  it('drops a client that sends garbage and keeps serving the others', async () => {
    const state = tempDir('ns-ptyhost-');
    const c = await connect(state);
    await c.spawn(sh('sleeper', 'sleep 60', state));
    for (const junk of [Buffer.from([0, 0, 0, 6, FRAME.request, 0, 0, 0, 1, 0x7b]), Buffer.from('GET / HTTP/1.1\r\n\r\n')]) {
      const s = netConnect(ptyhostSocket(state));
      const closed = new Promise<void>((r) => s.on('close', () => r()));
      s.on('error', () => undefined);
      s.resume(); // read (the hello), or the end would never be seen
      s.write(junk);
      await closed;
    }
    expect(readFileSync(join(state, 'ptyhost.log'), 'utf8')).toMatch(/dropping a client: [\s\S]*dropping a client: frame length/);
    expect((await c.list())[0]).toMatchObject({ id: 'sleeper', exit: null });
  });

  it('puts its socket at 0600 in a 0700 run directory', async () => {
    const state = tempDir('ns-ptyhost-');
    await connect(state);
    expect(statSync(join(state, 'run')).mode & 0o777).toBe(0o700);
    const sock = statSync(ptyhostSocket(state));
    expect(sock.isSocket()).toBe(true);
    expect(sock.mode & 0o777).toBe(0o600);
  });

  it('refuses a host of another version with a clear message', async () => {
    const state = tempDir('ns-ptyhost-');
    const sock = ptyhostSocket(state);
    mkdirSync(join(state, 'run'), { mode: 0o700 });
    // A stand-in for a host from an older nightshift: it only says hello.
    const fake = createServer((s) => s.write(jsonFrame(FRAME.hello, { version: 'nightshift-ptyhost/0', pid: 4242 })));
    servers.add(fake);
    await new Promise<void>((r) => fake.listen(sock, r));
    const err = await PtyHostClient.connect(state, { start: false }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(PtyHostVersionError);
    expect((err as Error).message).toMatch(/the PTY host at .*ptyhost\.sock \(pid 4242\) speaks "nightshift-ptyhost\/0", this nightshift speaks "nightshift-ptyhost\/2"; refusing to use it\. It keeps serving its jobs/);
  });

  it('exits by itself once it has no client, no job and no exit to hand over', async () => {
    const state = tempDir('ns-ptyhost-');
    const work = tempDir('ns-ptyhost-work-');
    const first = await connect(state, ['--idle', '1s']);
    const hostPid = first.hostPid;
    await first.spawn(sh('waiter', WAITER, work));
    const { pid } = (await first.list())[0]!;
    first.close();
    // The one fixed wait: proving the host does NOT leave takes waiting past its idle time.
    await new Promise((r) => setTimeout(r, 2_500));
    expect(alive(hostPid), 'host with a running job and no client').toBe(true);
    writeFileSync(join(work, 'go'), '');
    await until(() => !alive(pid), SOON, 'the job to end');

    // The exit is kept for the next client (the same host), which hears it; then the host goes.
    const second = await connect(state, ['--idle', '1s']);
    expect(second.hostPid).toBe(hostPid);
    expect((await second.list())[0]!.exit).toMatchObject({ exitCode: 7 });
    second.close();
    await until(() => !alive(hostPid) && !existsSync(ptyhostSocket(state)), SOON, 'the idle host to exit and remove its socket');
    expect(readFileSync(join(state, 'ptyhost.log'), 'utf8')).toMatch(/stopping: idle for 1000 ms/);
  });

  it('runs as `nightshift ptyhost`, and says so when a host already serves the directory', async () => {
    const state = tempDir('ns-ptyhost-');
    const c = await connect(state);
    const second = await runCli(['ptyhost', '--state', state]);
    expect(second.code).toBe(0);
    expect(second.stderr).toBe(`nightshift: a PTY host already runs for ${state}\n`);
    c.close();
    signal(c.hostPid, 'SIGTERM');
    await until(() => !alive(c.hostPid), SOON, 'the first host gone');
    // With no client at all it leaves after its idle time.
    const alone = await runCli(['ptyhost', '--state', state, '--idle', '300ms'], { ms: SOON });
    expect(alone).toMatchObject({ code: 0, stderr: '' });
    expect(existsSync(ptyhostSocket(state))).toBe(false);
  });

  it('ignores SIGHUP; its death hangs up its jobs', async () => {
    const state = tempDir('ns-ptyhost-');
    const c = await connect(state);
    const { pid } = await c.spawn(sh('sleeper', 'sleep 60', state));
    signal(c.hostPid, 'SIGHUP');
    expect((await c.list())[0]).toMatchObject({ pid, exit: null });
    signal(c.hostPid, 'SIGKILL');
    await until(() => !alive(pid), SOON, 'the job to get SIGHUP from the kernel when its host dies');
    // Its socket and lock are left behind; the next client starts a new host over them.
    expect(existsSync(ptyhostSocket(state))).toBe(true);
    const next = await connect(state);
    expect(next.hostPid).not.toBe(c.hostPid);
    expect(await next.list()).toEqual([]);
  });
});
