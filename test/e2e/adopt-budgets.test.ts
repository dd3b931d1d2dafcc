/**
 * Budgets across a daemon restart, with real daemons and a stand-in agent
 * that writes a Claude Code transcript (the session file named by
 * --session-id) when the test says so: the daemon is killed, the agent
 * works on in its PTY host, the next daemon adopts the job and counts on
 * from the steps and tokens the first one recorded, including the calls
 * made while no daemon ran, and stops the job on the step budget. A token
 * overrun of the probe profile is budget:tokens. `resume` is refused
 * without a grant once a budget is spent.
 */
import { execSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeProjectKey } from '../../src/adapters/claude.js';
import { sr, testScopes, waitUntil, type Scope } from '../helpers/daemon.js';

const scope = testScopes();
const SOON = 20_000;

const line = (o: object) => `${JSON.stringify({ timestamp: new Date().toISOString(), ...o })}\n`;
const prompt = (text: string) => line({ type: 'user', message: { role: 'user', content: text } });
/** One tool call with its usage, then its result: a step. */
const step = (i: number, tokens: [number, number] = [400, 100]) =>
  line({ type: 'assistant', message: { id: `msg-${i}`, role: 'assistant', content: [{ type: 'tool_use', id: `tu-${i}`, name: 'Bash', input: { command: `echo step ${i}` } }], usage: { input_tokens: tokens[0], output_tokens: tokens[1] } } }) +
  line({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu-${i}`, content: `step ${i}` }] } });

/** A stand-in `claude --session-id UUID PROMPT`: appends chunk N of its transcript once the file goN exists, then waits. */
function agent(s: Scope, chunks: string[]) {
  const dir = s.tempDir('ns-adopt-agent-');
  const home = join(dir, 'home');
  const cwd = join(dir, 'project');
  mkdirSync(cwd, { recursive: true });
  const session = randomUUID();
  const projects = join(home, '.claude', 'projects', claudeProjectKey(cwd));
  mkdirSync(projects, { recursive: true });
  const transcript = join(projects, `${session}.jsonl`);
  chunks.forEach((c, i) => writeFileSync(join(dir, `chunk${i + 1}`), c));
  const script = join(dir, 'claude');
  const loop = chunks.map((_, i) => `while [ ! -e '${dir}/go${i + 1}' ]; do sleep 0.1; done; cat '${dir}/chunk${i + 1}' >> '${transcript}'; echo chunk ${i + 1}`).join('\n');
  // The daemon asks the agent its version (rules coverage): answered like Claude Code, without writing.
  writeFileSync(script, `#!/bin/bash\nif [ "$1" = --version ]; then echo "2.1.112 (Claude Code)"; exit 0; fi\necho working\n${loop}\nexec sleep 600\n`);
  chmodSync(script, 0o755);
  return {
    cwd,
    argv: [script, '--session-id', session, 'count the steps'],
    flags: ['--agent', 'claude', '--cwd', cwd, '--env', `HOME=${home}`],
    go: (n: number) => writeFileSync(join(dir, `go${n}`), ''),
  };
}

const ledger = (dir: string) => (existsSync(join(dir, 'agent.json')) ? (JSON.parse(readFileSync(join(dir, 'agent.json'), 'utf8')) as { steps: number; tokens: number }) : undefined);

describe('budgets across a daemon restart', () => {
  it('an adopted job counts on from the recorded steps and tokens, counts the calls made while no daemon ran, and stops on the step budget; resume then needs --grant-steps', async (ctx) => {
    const s = scope(ctx);
    const state = s.stateDir();
    const a = agent(s, [prompt('count the steps') + step(1) + step(2), step(3) + step(4), step(5) + step(6)]);
    const d1 = await s.daemon(state);
    const rec = await d1.submit('counted', a.argv, [...a.flags, '--max-steps', '5']);
    await d1.waitState('counted', 'running', undefined, SOON);
    a.go(1);
    const dir = (await d1.waitJob('counted', (j) => j.tokens_used === 1000, SOON, '1000 tokens')).paths!.dir;
    await waitUntil(() => ledger(dir)?.steps === 2 || undefined, SOON, 'the ledger at 2 steps', { describe: async () => JSON.stringify(ledger(dir)) + execSync('ls ' + dir + '; grep -i ledger ' + dir + '/log.jsonl || true').toString() });

    // The daemon dies; the agent goes on in the PTY host and makes two more calls.
    d1.signal('SIGKILL');
    await d1.proc.exit;
    a.go(2);
    const d2 = await s.daemon(state);
    // Calls made while no daemon ran are counted: 4 steps, 2000 tokens.
    await d2.waitJob('counted', (j) => j.tokens_used === 2000, SOON, '2000 tokens after adoption');
    await waitUntil(() => ledger(dir)?.steps === 4 || undefined, SOON, 'the ledger at 4 steps');

    // Two more: 6 of 5 steps. A daemon that counted from zero would see 2.
    a.go(3);
    const done = await d2.waitState('counted', 'done', undefined, SOON);
    expect(sr(done)).toBe('done/budget:steps');
    const card = JSON.parse(readFileSync(join(dir, 'resume.json'), 'utf8'));
    expect(card.budget_used).toMatchObject({ steps: 6, tokens: 3000 });
    expect(card.step_budget).toBe(5);
    const refused = await d2.ns('resume', ['counted']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('grant more with --grant-steps');
    expect(rec.id).toBe(done.id);
  });

  it('a probe profile\'s token overrun is budget:tokens, and resume needs --grant-tokens', async (ctx) => {
    const s = scope(ctx);
    const a = agent(s, [prompt('count the tokens') + step(1, [900_000, 30])]);
    const d = await s.daemon(s.stateDir());
    await d.submit('tokens', a.argv, [...a.flags, '--profile', 'quick']);
    await d.waitState('tokens', 'running', undefined, SOON);
    a.go(1);
    const done = await d.waitState('tokens', 'done', undefined, SOON);
    expect(sr(done)).toBe('done/budget:tokens');
    const card = JSON.parse(readFileSync(join(done.paths!.dir, 'resume.json'), 'utf8'));
    expect(card.budget_used.tokens).toBe(900_030);
    expect(card.token_budget).toBe(800_000);
    expect(readFileSync(join(done.paths!.dir, 'resume.md'), 'utf8')).toContain('900030/800000 tokens');
    const refused = await d.ns('resume', ['tokens']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('grant more with --grant-tokens');
  });
});
