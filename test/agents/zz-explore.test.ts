import { readFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { it } from 'vitest';
import { cleanup, startCli, tempDir } from '../helpers/cli.js';
import { claudeCliPath, prepareClaudeHome } from './claude-env.js';
import { startFakeAnthropic } from './fake-anthropic.js';

it('explore', async () => {
  const server = await startFakeAnthropic(JSON.parse(process.env.SCRIPT!));
  const proj = tempDir('ns-x-proj-');
  execFileSync('git', ['init', '-q'], { cwd: proj });
  const h = prepareClaudeHome(proj, server.url, { home: tempDir('ns-x-home-') });
  const state = tempDir();
  const env = { ...h.env, ...Object.fromEntries(h.removed.map((k) => [k, undefined])), IS_SANDBOX: '1' };
  const p = startCli(['run', '--json', '--quiet', '--state', state, '--settle', '1s', '--cols', '100', '--rows', '30', '--timeout', process.env.TO ?? '40s', '--agent', 'claude', '--cwd', h.project, '--',
    process.execPath, claudeCliPath(), ...(process.env.PMODE ?? '--permission-mode bypassPermissions').split(' '), process.env.PROMPT ?? 'please do it'], { cwd: h.project, env });
  p.child.stdin!.end();
  const e = await p.waitExit(80_000);
  console.log('EXIT', e, '\n', p.stderr);
  const dir = JSON.parse(p.stderrLines[0]!).dir;
  for (const f of readdirSync(dir)) console.log('FILE', f);
  if (existsSync(join(dir, 'evidence.jsonl'))) console.log(readFileSync(join(dir, 'evidence.jsonl'), 'utf8'));
  const s = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));
  console.log(JSON.stringify(s.agent), s.state, s.reason, '\n', s.final_screen);
  console.log(readFileSync(join(dir, 'recording.cast'), 'utf8').split('\n').filter((l) => l.includes('"m"')).join('\n'));
  if (existsSync(join(dir, 'resume.json'))) console.log(readFileSync(join(dir, 'resume.json'), 'utf8'));
  console.log(JSON.stringify(server.requests.filter(r=>r.step).map((r) => [r.step, r.body.messages.at(-1)]), null, 1).slice(0, 6000));
  await server.close();
  cleanup();
}, 100_000);
