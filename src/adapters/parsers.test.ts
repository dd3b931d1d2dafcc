import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentKind } from '../core/agent-events.js';
import { adapterFor } from './index.js';
import { codexOutput } from './codex.js';
import { shellParts } from './gemini.js';

const FIXTURES = fileURLToPath(new URL('../../test/fixtures/transcripts/', import.meta.url));

function parseFile(kind: AgentKind, file: string): { events: AgentEvent[]; errors: string[] } {
  const adapter = adapterFor(kind);
  const state = adapter.newState(file);
  const events: AgentEvent[] = [];
  const errors: string[] = [];
  readFileSync(FIXTURES + file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const r = adapter.parse(line, i + 1, state);
      if (Array.isArray(r)) events.push(...r);
      else errors.push(`${i + 1}: ${r.error}`);
    });
  return { events, errors };
}

/** One readable line per event, ids without the file name. */
function brief(e: AgentEvent): string {
  const id = e.id.slice(e.id.indexOf(':') + 1);
  switch (e.kind) {
    case 'turn-start':
      return `${id} turn-start ${e.text}`;
    case 'tool-call':
      return `${id} tool-call ${e.canonical}`;
    case 'tool-result':
      return `${id} tool-result ${e.tool} ${e.ok ? 'ok' : `failed ${JSON.stringify(e.errorHead)}`} <- ${e.callId.slice(e.callId.indexOf(':') + 1)}`;
    case 'assistant-text':
      return `${id} text ${e.text}`;
    case 'usage':
      return `${id} usage ${e.inputTokens}/${e.outputTokens}`;
    case 'turn-end':
      return `${id} turn-end ${e.finalText}`;
  }
}

const sequence = (kind: AgentKind, file: string) => parseFile(kind, file).events.map(brief);

describe('Claude Code 2.1.112 transcripts (recorded from the real CLI)', () => {
  it('the turn-end carries the answer, never the narration beside a tool call or the text of an interrupted turn (issue 10.6)', () => {
    const state = adapterFor('claude').newState('t.jsonl');
    const rec = (o: object) => JSON.stringify({ timestamp: '2026-12-01T00:00:00Z', ...o });
    const assistant = (id: string, content: object[], stop: string | null = null) => rec({ type: 'assistant', message: { id, role: 'assistant', content, stop_reason: stop } });
    const lines = [
      rec({ type: 'user', message: { role: 'user', content: 'list the files' } }),
      assistant('m1', [{ type: 'text', text: 'I will list the files.' }]),
      assistant('m1', [{ type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'ls' } }], 'tool_use'),
      rec({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'a b' }] } }),
      assistant('m2', [{ type: 'text', text: 'Now I will look closer.' }]),
      assistant('m2', [{ type: 'tool_use', id: 'tu2', name: 'Bash', input: { command: 'ls -la' } }], 'tool_use'),
      rec({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] } }),
      rec({ type: 'user', message: { role: 'user', content: 'go on' } }),
      assistant('m3', [{ type: 'text', text: 'Checking once more.' }]),
      assistant('m3', [{ type: 'tool_use', id: 'tu3', name: 'Bash', input: { command: 'ls' } }], 'tool_use'),
      rec({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu3', content: 'a b' }] } }),
      assistant('m4', [{ type: 'text', text: 'There are two files, a and b.' }], 'end_turn'),
    ];
    const ends = lines.flatMap((l, i) => {
      const r = adapterFor('claude').parse(l, i + 1, state);
      return Array.isArray(r) ? r.filter((e) => e.kind === 'turn-end') : [];
    });
    expect(ends.map((e) => (e.kind === 'turn-end' ? e.finalText : ''))).toEqual(['', 'There are two files, a and b.']);
  });

  it('touch x, allowed: prompt, tool call, ok result, answer, end of turn', () => {
    expect(sequence('claude', 'claude-2.1.112-touch.jsonl')).toEqual([
      '4:0 turn-start please run touch x',
      '6:0 usage 100/20',
      '6:1 tool-call Bash {"command":"touch x","description":"Run the requested command"}',
      '7:0 tool-result Bash ok <- 6:1',
      '8:0 usage 100/20',
      '8:1 text I created x.',
      '8:2 turn-end I created x.',
    ]);
  });

  it('rm -rf build, rejected with Escape: a failed result, then the interrupted turn ends', () => {
    expect(sequence('claude', 'claude-2.1.112-reject.jsonl')).toEqual([
      '4:0 turn-start please remove the build folder',
      '6:0 usage 100/20',
      '6:1 tool-call Bash {"command":"rm -rf build","description":"Remove the build folder"}',
      `7:0 tool-result Bash failed "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a fil…" <- 6:1`,
      '8:0 turn-end ',
    ]);
  });

  it('two turns with a failing command: exit-code banner joined to the error line', () => {
    expect(sequence('claude', 'claude-2.1.112-two-turns.jsonl')).toEqual([
      '4:0 turn-start please echo hello and cat missing.txt',
      '6:0 usage 100/20',
      '6:1 tool-call Bash {"command":"echo hello","description":"Run the requested command"}',
      '7:0 tool-result Bash ok <- 6:1',
      '8:0 usage 100/20',
      '8:1 tool-call Bash {"command":"cat missing.txt","description":"Run the requested command"}',
      '9:0 tool-result Bash failed "Exit code 1: cat: missing.txt: No such file or directory" <- 8:1',
      '10:0 usage 100/20',
      '10:1 text Done: echo worked, the file is missing.',
      '10:2 turn-end Done: echo worked, the file is missing.',
      '12:0 turn-start thanks',
      '13:0 usage 100/20',
      "13:1 text You're welcome.",
      "13:2 turn-end You're welcome.",
    ]);
  });

  it('ids are stable: parsing again gives the same events', () => {
    expect(parseFile('claude', 'claude-2.1.112-two-turns.jsonl')).toEqual(parseFile('claude', 'claude-2.1.112-two-turns.jsonl'));
  });

  it('without end_turn, the last text before the next prompt ends the turn; one message in several records counts usage once', () => {
    const a = adapterFor('claude');
    const s = a.newState('x.jsonl');
    const rec = (o: object) => JSON.stringify({ timestamp: '2026-01-01T00:00:00Z', ...o });
    const msg = (content: object[]) => ({ type: 'assistant', message: { id: 'm1', content, stop_reason: null, usage: { input_tokens: 5, cache_read_input_tokens: 10, output_tokens: 2 } } });
    const lines = [
      rec({ type: 'user', message: { role: 'user', content: 'hi' } }),
      rec(msg([{ type: 'text', text: 'Hello.' }])),
      rec(msg([{ type: 'text', text: 'Anything else?' }])),
      rec({ type: 'user', isMeta: true, message: { role: 'user', content: 'Caveat: …' } }),
      rec({ type: 'user', message: { role: 'user', content: '<command-name>/clear</command-name>' } }),
      rec({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'bye' }] } }),
    ];
    const events = lines.flatMap((l, i) => a.parse(l, i + 1, s) as AgentEvent[]).map(brief);
    expect(events).toEqual([
      '1:0 turn-start hi',
      '2:0 usage 15/2',
      '2:1 text Hello.',
      '3:0 text Anything else?',
      '6:0 turn-end Anything else?',
      '6:1 turn-start bye',
    ]);
  });

  it('a bad line is an error, not an exception', () => {
    const a = adapterFor('claude');
    expect(a.parse('{"type": "assistant", "mess', 7, a.newState('x'))).toEqual({ error: expect.stringMatching(/^invalid JSON/) });
    expect(a.parse('[1, 2]', 8, a.newState('x'))).toEqual({ error: 'expected a JSON object, got an array' });
    expect(a.parse('', 9, a.newState('x'))).toEqual([]);
  });
});

describe('Codex rollout (hand-written from the documented format)', () => {
  it('exec_command and legacy shell calls, exit codes, a rejection, token totals, turn boundaries', () => {
    expect(sequence('codex', 'codex-handwritten.jsonl')).toEqual([
      '4:0 turn-start please run touch x and cat missing.txt',
      '8:0 tool-call exec_command {"cmd":"touch x","sandbox_permissions":"require_escalated"}',
      '9:0 usage 1200/30',
      '10:0 tool-result exec_command ok <- 8:0',
      '11:0 tool-call exec_command {"cmd":"cat missing.txt"}',
      '12:0 usage 1300/25',
      '13:0 tool-result exec_command failed "Exit code 1: cat: missing.txt: No such file or directory" <- 11:0',
      '14:0 usage 1400/15',
      // line 15 repeats the totals (a rate-limit update): no usage
      '16:0 text I created x; missing.txt does not exist.',
      '18:0 turn-end I created x; missing.txt does not exist.',
      '19:0 turn-start now list the files, then remove build',
      '21:0 tool-call shell {"command":["bash","-lc","ls"],"timeout_ms":120000,"workdir":"/work/demo"}',
      '22:0 tool-result shell ok <- 21:0',
      '23:0 tool-call exec_command {"cmd":"rm -rf build","sandbox_permissions":"require_escalated"}',
      '24:0 tool-result exec_command failed "exec command rejected by user" <- 23:0',
      '25:0 turn-end ',
    ]);
  });

  it('reads the three output shapes', () => {
    expect(codexOutput('{"output":"boom\\n","metadata":{"exit_code":2,"duration_seconds":0.5}}')).toEqual({ body: 'boom\n', ok: false, exitCode: 2 });
    expect(codexOutput({ content: 'fine', success: true })).toEqual({ body: 'fine', ok: true });
    expect(codexOutput('Chunk ID: ab12\nWall time: 1.0 seconds\nProcess exited with code 0\nOutput:\nhi\n')).toEqual({ body: 'hi\n', ok: true, exitCode: 0 });
  });
});

describe('Gemini chat (hand-written from gemini-cli source)', () => {
  it('messages re-appended whole are reported once; shell exit codes; a cancelled call; turns end at the next prompt', () => {
    expect(sequence('gemini', 'gemini-handwritten.jsonl')).toEqual([
      '2:0 turn-start please run touch x and cat missing.txt',
      "4:0 text I'll create the file first.",
      '6:0 usage 900/20',
      '7:0 tool-call run_shell_command {"command":"touch x","description":"Create the file x"}',
      '7:1 tool-result run_shell_command ok <- 7:0',
      '8:0 usage 1000/9',
      '8:1 tool-call run_shell_command {"command":"cat missing.txt"}',
      '8:2 tool-result run_shell_command failed "Exit code 1: cat: missing.txt: No such file or directory" <- 8:1',
      '10:0 usage 1100/10',
      '10:1 text Created x; missing.txt does not exist.',
      '12:0 turn-end Created x; missing.txt does not exist.',
      '12:1 turn-start remove the build folder',
      '13:0 usage 1200/8',
      '13:1 tool-call run_shell_command {"command":"rm -rf build"}',
      '13:2 tool-result run_shell_command failed "[Operation Cancelled] Reason: User did not allow tool call" <- 13:1',
      '14:0 usage 1300/7',
      '14:1 text I did not remove build/.',
      '15:0 turn-end I did not remove build/.',
      '15:1 turn-start thanks',
    ]);
  });

  it('the log over (the process gone, or a stored file read to its end): its last turn ends with its last text, once', () => {
    const adapter = adapterFor('gemini');
    const state = adapter.newState('g.jsonl');
    readFileSync(FIXTURES + 'gemini-handwritten.jsonl', 'utf8').split('\n').forEach((line, i) => adapter.parse(line, i + 1, state));
    expect(adapter.finish?.(state)).toEqual([{ kind: 'turn-end', id: 'g.jsonl:end', t: expect.any(Number), finalText: '' }]);
    expect(adapter.finish?.(state)).toEqual([]);
  });

  it('shell output: keeps output and error, drops the pids', () => {
    const out = 'Command: ls\nDirectory: (root)\nOutput: a\nb: c\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: 123\nProcess Group PGID: 456';
    expect(shellParts(out)).toEqual({ body: 'a\nb: c', exitCode: 0 });
    expect(shellParts('plain text')).toEqual({ body: 'plain text' });
  });

  it('shell output of 0.61: no Command line, the output wrapped in <untrusted_context>; a failing test is still a failure', () => {
    const out = '<untrusted_context>\nOutput: > test\n> node test.js\n\nFAIL word count: expected 5, got 3\nExit Code: 1\nSignal: (none)\n</untrusted_context>';
    expect(shellParts(out)).toMatchObject({ exitCode: 1, body: expect.stringContaining('FAIL word count: expected 5, got 3') });
    // A tool's own text that happens to hold an exit code line is not a shell report.
    expect(shellParts('notes:\nExit Code: 3 is what the build returns')).toEqual({ body: 'notes:\nExit Code: 3 is what the build returns' });
  });
});

describe('generic event file', () => {
  it('tool_start/tool_end pair by id, else by name; a bad line is an error', () => {
    const { events, errors } = parseFile('generic', 'generic-events.jsonl');
    expect(events.map(brief)).toEqual([
      '1:0 tool-call Bash {"command":"make test"}',
      '2:0 tool-result Bash failed null <- 1:0',
      '3:0 tool-call Read {}',
      '4:0 tool-result Read ok <- 3:0',
    ]);
    expect(events.map((e) => e.t)).toEqual([Date.parse('2026-01-10T11:00:00Z'), Date.parse('2026-01-10T11:00:05Z'), 1799924410000, 1799924411000]);
    expect(errors).toEqual(['5: invalid JSON: Unexpected end of JSON input']);
  });
});
