#!/usr/bin/env node
/**
 * A stand-in for Claude Code that costs almost nothing: it writes a
 * Claude-format transcript (src/adapters/claude.ts) for TURNS turns, each a
 * prompt, a Write tool call that really creates a file in the cwd, its
 * result and a final answer, PAUSE_MS apart, then exits 0. The supervisor
 * sees real turn starts and ends, so it takes real `git status` snapshots.
 *
 *   node fake-claude-turns.mjs --session-id UUID --turns N --pause MS [--delay MS] "task"
 * --delay waits before the first turn (the transcript exists at once).
 * Needs CLAUDE_CONFIG_DIR; the transcript goes to
 * $CLAUDE_CONFIG_DIR/projects/<cwd, non-alphanumerics → ->/<UUID>.jsonl.
 */
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const arg = (flag, dflt) => {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const session = arg('--session-id');
const turns = Number(arg('--turns', '3'));
const pause = Number(arg('--pause', '300'));
const delay = Number(arg('--delay', '0'));
const task = process.argv.at(-1);
const cwd = process.cwd();
const dir = join(process.env.CLAUDE_CONFIG_DIR, 'projects', cwd.replace(/[^a-zA-Z0-9]/g, '-'));
mkdirSync(dir, { recursive: true });
const transcript = join(dir, `${session}.jsonl`);
writeFileSync(transcript, '');

const base = () => ({ sessionId: session, cwd, timestamp: new Date().toISOString() });
const write = (record) => appendFileSync(transcript, `${JSON.stringify({ ...base(), ...record })}\n`);
const assistant = (id, content, stop) => write({ type: 'assistant', message: { id, role: 'assistant', content, stop_reason: stop } });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

await sleep(delay);
for (let t = 1; t <= turns; t++) {
  write({ type: 'user', message: { role: 'user', content: t === 1 ? task : `next step ${t}` } });
  await sleep(pause / 2);
  const file = `turn-${t}.txt`;
  assistant(`m${t}a`, [{ type: 'tool_use', id: `tu${t}`, name: 'Write', input: { file_path: join(cwd, file), content: 'x' } }], 'tool_use');
  writeFileSync(join(cwd, file), `turn ${t}\n`);
  write({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `tu${t}`, content: 'File created' }] } });
  assistant(`m${t}b`, [{ type: 'text', text: `Wrote ${file}.` }], 'end_turn');
  process.stdout.write(`turn ${t} done\n`);
  await sleep(pause / 2);
}
