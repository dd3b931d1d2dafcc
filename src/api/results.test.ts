import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../board/types.js';
import { checkResult, ResultMismatchError } from './command.js';
import { COMMAND_LIST } from './commands.js';

const command = (name: string) => COMMAND_LIST.find((c) => c.name === name)!;

const record: JobRecord = {
  id: 'j1', name: 'fix', state: 'blocked', reason: { code: 'prompt', rule: 'generic-yes-no' }, command: ['bash'], cwd: '/tmp', env: { K: '***' },
  policy: null, rules: null, budgets: { wall_ms: null, tokens: null, no_progress_ms: null, steps: null, blocked_ms: null }, priority: 0, after: [],
  resume_from: null, created: '2026-01-01T00:00:00.000Z', started: null, ended: null, last_activity: null, exit: null, paths: null, tokens_used: null, on_unanswered: null,
};

describe('result schemas at the client boundary', () => {
  it('every command has one', () => {
    for (const c of COMMAND_LIST) expect(typeof c.result?.safeParse, c.name).toBe('function');
  });

  it('hands back the reply itself, keys in the daemon\'s order and keys the schema does not name kept', () => {
    const reply = { jobs: [{ ...record, warnings: [{ code: 'no-transcript', message: 'm', time: record.created }] }], later: 1 };
    const checked = checkResult(command('board'), reply);
    expect(checked).toBe(reply);
    expect(JSON.stringify(checked)).toBe(JSON.stringify(reply));
  });

  it('a reply of the wrong shape is an error naming the command and the field', () => {
    const bad = { jobs: [{ ...record, state: 'sleeping' }] };
    expect(() => checkResult(command('board'), bad)).toThrow(ResultMismatchError);
    expect(() => checkResult(command('board'), bad)).toThrow(/reply to "board" does not match its result schema \(jobs\.0\.state: /);
    expect(() => checkResult(command('web-token'), { name: 'a', token: 't', role: 'operator' })).toThrow(/"web-token".*login_url/);
  });

  it('attach answers null when the client detached first', () => {
    expect(checkResult(command('attach'), null)).toBeNull();
  });
});

describe('who, at the command boundary', () => {
  it('a caller cannot pass itself off as a policy or pre-label itself: every act through a command is a person\'s', () => {
    const parse = (who?: string) => (command('answer').args.parse({ job: 'fix', text: 'y', ...(who === undefined ? {} : { who }) }) as { who: string }).who;
    expect(parse('policy:on-unanswered')).toBe('on-unanswered');
    expect(parse('human:alice@web')).toBe('alice@web');
    expect(parse('alice')).toBe('alice');
    expect(parse(undefined)).toBe('unknown');
    expect(parse('policy:')).toBe('unknown');
  });
});
