import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { InputError } from '../util/errors.js';
import { parseTranscriptFormat, readTranscript, transcriptFiles } from './stored.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../test/fixtures/transcripts/${name}`, import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const temp = () => {
  const d = mkdtempSync(join(tmpdir(), 'ns-stored-'));
  dirs.push(d);
  return d;
};

describe('readTranscript', () => {
  it.each([
    ['claude-2.1.112-touch.jsonl', 'claude', 'claude'],
    ['claude-2.1.112-stream-read.jsonl', 'claude-stream', 'claude'],
    ['codex-handwritten.jsonl', 'codex', 'codex'],
    ['gemini-handwritten.jsonl', 'gemini', 'gemini'],
    ['generic-events.jsonl', 'generic', 'generic'],
  ])('detects %s as %s', async (name, format, agent) => {
    const t = await readTranscript(fixture(name));
    expect([t.format, t.agent]).toEqual([format, agent]);
  });

  it('reads a real stream-json run: the init record opens the turn, the result record ends it with the answer and the tokens the records missed', async () => {
    const t = await readTranscript(fixture('claude-2.1.112-stream-read.jsonl'));
    const kinds = t.events.map((e) => e.kind);
    expect(kinds[0]).toBe('turn-start');
    expect(kinds.at(-1)).toBe('turn-end');
    expect(kinds.filter((k) => k === 'tool-call')).toHaveLength(3);
    expect(kinds.filter((k) => k === 'tool-result')).toHaveLength(3);
    const end = t.events.at(-1)!;
    expect(end.kind === 'turn-end' && end.finalText).toBe('app.py has one line: it prints "hi" (line 1).');
    const tokens = t.events.reduce((n, e) => n + (e.kind === 'usage' ? e.inputTokens + e.outputTokens : 0), 0);
    // The result record's usage: 4 requests of 100 input and 20 output tokens.
    expect(tokens).toBe(480);
    expect(t.problems).toEqual([]);
  });

  it('reads a file as told by --agent, whatever it looks like', async () => {
    const t = await readTranscript(fixture('claude-2.1.112-stream-read.jsonl'), 'claude');
    expect(t.format).toBe('claude');
    // The session parser waits for a prompt record and an end_turn that a stream never has.
    expect(t.events.some((e) => e.kind === 'turn-end')).toBe(false);
  });

  it('refuses a file that is no transcript, naming it (and the line when it is not JSON)', async () => {
    const d = temp();
    writeFileSync(join(d, 'notes.jsonl'), '\nhello world\n');
    writeFileSync(join(d, 'labels.jsonl'), '{"file": "a.jsonl", "label": "stuck"}\n');
    writeFileSync(join(d, 'empty.jsonl'), '');
    await expect(readTranscript(join(d, 'notes.jsonl'))).rejects.toThrow(InputError);
    await expect(readTranscript(join(d, 'notes.jsonl')).catch((e: InputError) => e.toString())).resolves.toMatch(/notes\.jsonl:2: not a transcript: invalid JSON/);
    await expect(readTranscript(join(d, 'labels.jsonl')).catch((e: InputError) => e.toString())).resolves.toMatch(/labels\.jsonl: not a transcript: none of its 1 record\(s\)/);
    await expect(readTranscript(join(d, 'empty.jsonl')).catch((e: InputError) => e.toString())).resolves.toMatch(/empty\.jsonl: not a transcript: no records/);
    await expect(readTranscript(join(d, 'gone.jsonl')).catch((e: InputError) => e.toString())).resolves.toMatch(/gone\.jsonl: cannot read: ENOENT/);
  });
});

describe('transcriptFiles', () => {
  it('searches folders for *.jsonl in name order, takes files as given, and names a path that does not exist', async () => {
    const d = temp();
    mkdirSync(join(d, 'b', 'sub'), { recursive: true });
    writeFileSync(join(d, 'b', 'sub', 'z.jsonl'), '');
    writeFileSync(join(d, 'a.jsonl'), '');
    writeFileSync(join(d, 'notes.md'), '');
    writeFileSync(join(d, 'c.txt'), '');
    const { files, errors } = await transcriptFiles([d, join(d, 'c.txt'), join(d, 'missing')]);
    expect(files).toEqual([join(d, 'a.jsonl'), join(d, 'b', 'sub', 'z.jsonl'), join(d, 'c.txt')]);
    expect(errors.map(String)).toEqual([`${join(d, 'missing')}: no such file or folder`]);
  });
});

describe('parseTranscriptFormat', () => {
  it('names the value of --agent it does not know', () => {
    expect(parseTranscriptFormat(' Codex ')).toBe('codex');
    expect(() => parseTranscriptFormat('cursor')).toThrow('--agent "cursor": expected one of claude, claude-stream, codex, gemini, generic, events');
  });
});
