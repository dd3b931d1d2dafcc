import { afterEach, describe, expect, it } from 'vitest';
import type { Action } from '../core/watchdog-types.js';
import { ntfyMessage } from '../notify/format.js';
import { summarize } from '../notify/page-words.js';
import { actionPage, cliCommand, type PageBase } from './job-pages.js';

const base: PageBase = { job: 'j1', name: 'fixer', state: 'blocked', rule: null, class: null, screen: [], answer_command: '', time: '2026-12-01T00:00:00.000Z' };
const action = (o: Partial<Action>): Action => ({
  t: 0, kind: 'escalate', rule: null, class: null, prompt: null, text: '', reason: 'prompt', since: 0, screen: [], layer: 'x', why: 'y', ...o,
});
const saved = { NIGHTSHIFT_STATE: process.env.NIGHTSHIFT_STATE, XDG_STATE_HOME: process.env.XDG_STATE_HOME };
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe('job pages (issue 10.2)', () => {
  it('a probe page: the verdict, urgent, and send / continue / cancel with --state', () => {
    delete process.env.NIGHTSHIFT_STATE;
    const p = actionPage(action({ reason: 'probe:repeated-failure', text: 'repeated-failure: Bash failed 3 times in a row with "cat: <file>"' }), base, 'j1:1', '/srv/ns state', undefined);
    expect(p).toMatchObject({ kind: 'probe', urgent: true, prompt: 'repeated-failure: Bash failed 3 times in a row with "cat: <file>"' });
    expect(p.commands).toEqual([
      "nightshift send --state '/srv/ns state' fixer '<what to do instead>'",
      "nightshift continue --state '/srv/ns state' fixer",
      "nightshift cancel --state '/srv/ns state' fixer",
    ]);
    expect(p.answer_command).toBe(p.commands![0]);
    expect(ntfyMessage(p, 1).body).toContain("Go on: nightshift continue --state '/srv/ns state' fixer");
  });

  it('no --state when the reader\'s NIGHTSHIFT_STATE names the same folder', () => {
    process.env.NIGHTSHIFT_STATE = '/srv/ns';
    expect(cliCommand('/srv/ns', 'show', 'fixer')).toBe('nightshift show fixer');
    expect(cliCommand('/srv/other', 'show', 'fixer')).toBe('nightshift show --state /srv/other fixer');
  });

  it('no --state for the per-user home a bare command finds', () => {
    delete process.env.NIGHTSHIFT_STATE;
    process.env.XDG_STATE_HOME = '/srv/xdg';
    expect(cliCommand('/srv/xdg/nightshift', 'show', 'fixer')).toBe('nightshift show fixer');
    expect(cliCommand('/srv/ns', 'show', 'fixer')).toBe('nightshift show --state /srv/ns fixer');
  });

  it('a permission dialog\'s page names the command it asks to run', () => {
    const p = actionPage(action({ rule: 'claude-code-permission', class: 'permission', command: 'touch made.txt', prompt: 'Do you want to proceed?' }), base, 'j1:2', '/s', undefined);
    expect(p.command).toBe('touch made.txt');
    expect(summarize(p)).toBe('nightshift: fixer wants to run `touch made.txt` — needs your permission');
  });

  it('a parked job\'s page: what it is in words, cancel and send q, not urgent, sent once (never re-paged)', () => {
    delete process.env.NIGHTSHIFT_STATE;
    const text = 'vitest is watching for changes and will never end by itself';
    const p = actionPage(action({ reason: 'parked', text, prompt: 'PASS  Waiting for file changes...\npress h to show help, press q to quit' }), base, 'j1:3', '/s', undefined);
    expect(p).toMatchObject({ kind: 'parked', urgent: false, once: true, prompt: text });
    expect(p.commands).toEqual(['nightshift cancel --state /s fixer', 'nightshift send --state /s fixer q', 'nightshift show --state /s fixer']);
    expect(summarize(p)).toBe(`nightshift: fixer: ${text}`);
  });
});
