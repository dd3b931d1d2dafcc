import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import stripAnsi from 'strip-ansi';
import { PtyHost } from '../pty/host.js';
import { Screen } from '../screen/screen.js';
import { readdirSync } from 'node:fs';
import { claudeCommand, prepareClaudeHome, transcripts } from '../../test/agents/claude-env.js';
import { startFakeAnthropic, type ScriptStep } from '../../test/agents/fake-anthropic.js';

const OUT = '/tmp/claude-rec';
async function until(p: () => boolean, ms: number, what: string) {
  const d = Date.now() + ms;
  while (!p()) { if (Date.now() > d) throw new Error('no ' + what); await new Promise((r) => setTimeout(r, 100)); }
}
async function record(name: string, script: ScriptStep[], prompt: string, drive: (pty: PtyHost, screen: () => string, tr: () => string) => Promise<void>, extraArgs: string[] = []) {
  const server = await startFakeAnthropic(script);
  const proj = mkdtempSync(join(tmpdir(), 'ns-rec-proj-'));
  mkdirSync(join(proj, 'build')); writeFileSync(join(proj, 'build', 'keep.txt'), 'k\n');
  const h = prepareClaudeHome(proj, server.url);
  const [command, ...args] = claudeCommand();
  const pty = PtyHost.spawn({ command, args: [...args, ...extraArgs, prompt], cwd: h.project, env: h.env, cols: 100, rows: 30 });
  let raw = '';
  const scr = new Screen(100, 30);
  scr.onReply((d) => pty.write(d));
  pty.onData((d) => { raw += d; void scr.write(d); });
  const sessDir = join(h.home, '.claude', 'sessions');
  const sess: Record<string, string> = {};
  const iv = setInterval(() => { try { for (const f of readdirSync(sessDir)) sess[f] = readFileSync(join(sessDir, f), 'utf8'); } catch {} }, 100);
  const tr = () => transcripts(h).map((f) => readFileSync(f, 'utf8')).join('');
  try {
    await drive(pty, () => scr.snapshot().rows.join('\n'), tr);
    await new Promise((r) => setTimeout(r, 1500));
  } finally {
    for (let i = 0; i < 6 && pty.running; i++) { pty.write('\x03'); await new Promise((r) => setTimeout(r, 400)); }
    pty.dispose(); clearInterval(iv); console.log('pid', pty.pid, JSON.stringify(sess));
    await server.close();
  }
  mkdirSync(OUT, { recursive: true });
  const files = transcripts(h);
  console.log(name, files);
  files.forEach((f, i) => copyFileSync(f, join(OUT, `${name}${i ? '-' + i : ''}.jsonl`)));
  writeFileSync(join(OUT, `${name}.screen.txt`), stripAnsi(raw));
  writeFileSync(join(OUT, `${name}.meta.json`), JSON.stringify({ home: h.home, project: h.project, dir: h.transcriptDir }));
}

it('touch', async () => {
  await record('touch', [{ tool: 'Bash', command: 'touch x' }, { text: 'I created x.' }], 'please run touch x', async (pty, screen, tr) => {
    await until(() => screen().includes('Do you want to proceed?'), 30000, 'dialog');
    pty.write('1');
    await until(() => tr().includes('I created x.'), 20000, 'final text');
  });
}, 90000);

it('reject', async () => {
  await record('reject', [{ tool: 'Bash', command: 'rm -rf build', description: 'Remove the build folder' }, { text: 'Removed.' }], 'please remove the build folder', async (pty, screen, tr) => {
    await until(() => screen().includes('Do you want to proceed?'), 30000, 'dialog');
    pty.write('\x1b');
    await until(() => tr().includes('is_error'), 20000, 'rejection');
  });
}, 90000);

it('multi', async () => {
  await record('multi', [{ tool: 'Bash', command: 'echo hello' }, { tool: 'Bash', command: 'cat missing.txt' }, { text: 'Done: echo worked, the file is missing.' }, { text: "You're welcome." }], 'please echo hello and cat missing.txt', async (pty, screen, tr) => {
    await until(() => tr().includes('the file is missing'), 30000, 'first turn');
    await new Promise((r) => setTimeout(r, 1500));
    await pty.sendText('thanks', { enter: true, pauseMs: 300 });
    await until(() => tr().includes("You're welcome."), 20000, 'second turn');
  }, ['--session-id', '11111111-2222-4333-8444-555555555555']);
}, 90000);
