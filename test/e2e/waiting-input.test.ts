/**
 * Programs waiting for a person that no rule names, seen by the process and
 * the terminal under `nightshift run`: a terminal read with an idle tree and
 * a still screen is blocked in seconds with the class of what is asked, and
 * never answered; live displays stay running. Real programs from Debian
 * (sudo, vim, nano, procps's watch); with CI set a missing one fails its test.
 * Needs a build first (npm run build).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, startCli, tempDir, type JsonLine } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

afterEach(cleanup);

const installed = (bin: string) => ['/usr/bin', '/bin', '/usr/local/bin'].some((d) => existsSync(join(d, bin)));
const need = (bin: string) => !installed(bin) && !process.env.CI;
const ms = (a: JsonLine, b: JsonLine) => Date.parse(String(b.time)) - Date.parse(String(a.time));

function run(command: string[], timeout = '30s') {
  const state = tempDir();
  return startCli(['run', '--json', '--quiet', '--state', state, '--cols', '100', '--rows', '30', '--timeout', timeout, '--', ...command]);
}

/** The job's start, its first block and the action on it; then stopped, as a person would not answer. */
async function blockedOn(command: string[]) {
  const p = run(command);
  const started = await p.waitForJson((o) => o.type === 'state' && o.state === 'running', 10_000, 'running');
  const blocked = await p.waitForJson((o) => o.type === 'state' && o.state === 'blocked', 15_000, 'blocked');
  const action = await p.waitForJson((o) => o.type === 'action', 5_000, 'the escalation');
  p.child.kill('SIGTERM');
  await p.waitExit(15_000);
  const answers = p.jsonLines().filter((o) => o.type === 'action' && o.kind === 'answer');
  return { started, blocked, action, answers, after: ms(started, blocked) };
}

describe('waiting seen by the process and the terminal', () => {
  it('`read -r x` with no question text: blocked as a question within 5 s, escalated', async () => {
    const r = await blockedOn(['bash', '-c', 'read -r x; echo "got $x"']);
    expect(r.blocked).toMatchObject({ reason: 'unknown-prompt', class: 'question', detail: 'waiting-input:line' });
    expect(r.after).toBeLessThan(5_000);
    expect(r.action).toMatchObject({ kind: 'escalate' });
    expect(r.answers).toEqual([]);
  }, 40_000);

  it('getpass (echo off, no rule names it): blocked as a secret within 5 s', async () => {
    const r = await blockedOn(['python3', '-c', 'import getpass; getpass.getpass("Vault code: ")']);
    expect(r.blocked).toMatchObject({ class: 'secret' });
    expect(r.after).toBeLessThan(5_000);
    expect(r.answers).toEqual([]);
  }, 40_000);

  it.skipIf(need('sudo') || need('setpriv'))('sudo asking a password: blocked as a secret within 5 s, never answered', async () => {
    const r = await blockedOn(['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', 'sh', '-c', 'sudo -k; sudo true']);
    expect(r.blocked).toMatchObject({ class: 'secret' });
    expect(String(r.action.prompt)).toContain('password for');
    expect(r.after).toBeLessThan(5_000);
    expect(r.answers).toEqual([]);
  }, 40_000);

  it.skipIf(need('vim'))('vim on a file: blocked as an editor within 8 s, the file named', async () => {
    const file = join(tempDir(), 'COMMIT_EDITMSG');
    const r = await blockedOn(['vim', '-u', 'NONE', '-N', file]);
    expect(r.blocked).toMatchObject({ reason: 'unknown-prompt', class: 'editor' });
    expect(String(r.action.prompt)).toContain(file);
    expect(r.after).toBeLessThan(8_000);
    expect(r.answers).toEqual([]);
  }, 40_000);

  it.skipIf(need('nano'))('nano on a file: blocked as an editor within 8 s', async () => {
    const file = join(tempDir(), 'notes.txt');
    const r = await blockedOn(['nano', file]);
    expect(r.blocked).toMatchObject({ class: 'editor' });
    expect(String(r.action.prompt)).toContain(file);
    expect(r.after).toBeLessThan(8_000);
  }, 40_000);

  it.skipIf(!existsSync('/usr/sbin/sshd') && !process.env.CI)('ssh to a host whose key is unknown: blocked as trust within 5 s, never answered', async () => {
    const port = await freePort();
    const key = join(tempDir(), 'host_ed25519');
    spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', key]);
    // Debian's sshd refuses to start without its privilege separation folder, which only its service (never started here) makes.
    if (!existsSync('/run/sshd')) mkdirSync('/run/sshd', { mode: 0o755 });
    // Debian's sshd, as root, on the loopback only, with no config file but its host key.
    const sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', '/dev/null', '-h', key, '-p', String(port), '-o', 'ListenAddress=127.0.0.1', '-o', 'PidFile=none'], { stdio: ['ignore', 'ignore', 'pipe'] });
    let said = '';
    sshd.stderr!.on('data', (d: Buffer) => (said += d.toString()));
    try {
      await until(() => canConnect(port), 10_000, () => `sshd listening on ${port}; it ${sshd.exitCode === null ? 'runs' : `exited ${sshd.exitCode}`} and said: ${said.trim() || 'nothing'}`);
      const r = await blockedOn(['ssh', '-o', 'UserKnownHostsFile=/dev/null', '-o', 'StrictHostKeyChecking=ask', '-p', String(port), 'nobody@127.0.0.1', 'true']);
      expect(r.blocked).toMatchObject({ class: 'trust' });
      expect(String(r.action.prompt)).toContain('continue connecting');
      expect(r.action).toMatchObject({ kind: 'escalate', class: 'trust' });
      expect(r.after).toBeLessThan(5_000);
      expect(r.answers).toEqual([]);
    } finally {
      sshd.kill();
    }
  }, 40_000);

  it.skipIf(need('watch'))('`watch -n 0.5 date` stays running', async () => {
    const p = run(['watch', '-n', '0.5', 'date'], '12s');
    await p.waitExit(30_000);
    const states = p.jsonLines().filter((o) => o.type === 'state').map((o) => o.state);
    expect(states).not.toContain('blocked');
    expect(states.at(-1)).toBe('done');
  }, 40_000);

  it.skipIf(need('top'))('`top -d 1` stays running', async () => {
    const p = run(['top', '-d', '1'], '12s');
    await p.waitExit(30_000);
    const states = p.jsonLines().filter((o) => o.type === 'state').map((o) => o.state);
    expect(states).not.toContain('blocked');
  }, 40_000);
});

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

let reachable = false;
function canConnect(port: number): boolean {
  const s = connect(port, '127.0.0.1', () => {
    reachable = true;
    s.end();
  });
  s.on('error', () => s.destroy());
  return reachable;
}
