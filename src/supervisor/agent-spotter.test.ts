import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killTree } from '../../test/helpers/pty-tree.js';
import { PtyHost } from '../pty/host.js';
import { readProcessTree } from '../pty/proctree.js';
import { AgentSpotter, type SpottedAgent } from './agent-spotter.js';

const dirs: string[] = [];
const hosts: PtyHost[] = [];
afterEach(() => {
  for (const h of hosts.splice(0)) killTree(h);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** Feeds the spotter the job's tree as the sampler would, until it speaks or 10 s pass. */
async function spot(spotter: AgentSpotter, host: PtyHost, seen: SpottedAgent[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (seen.length === 0 && Date.now() < deadline) {
    spotter.observe(readProcessTree(host.pid));
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('AgentSpotter (a real process tree under a PTY)', () => {
  it('finds the agent a shell wrapper runs, with the HOME the wrapper gave it', async () => {
    const home = mkdtempSync(join(tmpdir(), 'ns-wrapped-home-'));
    dirs.push(home);
    // Not exec: the wrapper stays the job's process, the agent is its child, as with launch.sh.
    const script = `HOME=${home} bash -c 'exec -a claude sleep 30'; echo done`;
    const host = PtyHost.spawn({ command: 'sh', args: ['-c', script], cwd: tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmpdir() }, cols: 80, rows: 24 });
    hosts.push(host);
    const seen: SpottedAgent[] = [];
    const spotter = new AgentSpotter('any', (a) => seen.push(a));
    await spot(spotter, host, seen);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.kind).toBe('claude');
    expect(seen[0]!.pid).not.toBe(host.pid);
    expect(seen[0]!.vars).toEqual({ HOME: home });
    // Said once.
    spotter.observe(readProcessTree(host.pid));
    await new Promise((r) => setTimeout(r, 100));
    expect(seen).toHaveLength(1);
  });

  it('a job that names its agent waits for that one', async () => {
    const host = PtyHost.spawn({ command: 'bash', args: ['-c', `(exec -a claude sleep 30) & exec -a codex sleep 30`], cwd: tmpdir(), env: { PATH: process.env.PATH ?? '/usr/bin:/bin' }, cols: 80, rows: 24 });
    hosts.push(host);
    const seen: SpottedAgent[] = [];
    const spotter = new AgentSpotter('claude', (a) => seen.push(a));
    await spot(spotter, host, seen);
    expect(seen.map((a) => a.kind)).toEqual(['claude']);
  });
});
