import { describe, expect, it } from 'vitest';
import { ctx, defaultProfile as P, ev, pair, trajectory } from '../../test/fixtures/trajectories/load.js';
import { announcement, announceThenStop } from './announce-then-stop.js';

const rules = P.rules.announce;
const work = pair('c', 'Read', { file_path: 'a.ts' }, 'a');
const turn = (final: string, tools = true) => [ev.start('s'), ...(tools ? work : []), ev.text('t', final), ev.end('e', final)];
const fires = (final: string, tools = true) => announceThenStop(turn(final, tools), P, ctx()).length === 1;

describe('announce-then-stop', () => {
  it("fires on the seed's reply ending in a colon (v0.3.1 inside), citing the reply and the turn end", () => {
    const [v, ...rest] = announceThenStop(trajectory('announce-colon-zh.jsonl'), P, ctx());
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ severity: 'info', turn: 'c01', evidence: ['c06', 'c07'] });
  });

  it.each([
    'Let me search for the registry file.',
    'Now I need to check the Prisma schema…',
    "I'll now run the tests:",
    'Let me now update it.',
    'Next, I will update the README.',
    'Good, the config loads. Now let me check the migration in db/v0.3.1/up.sql.',
    'OK. I’ll run the linter next.',
    '- **Next**, I will run the tests.',
  ])('fires on the English announcement %j, with or without tool calls', (text) => {
    expect(fires(text, true)).toBe(true);
    expect(fires(text, false)).toBe(true);
  });

  it.each(['接下来我核对一下。', '让我先检查一下配置文件。', '现在我来运行测试', '我先把 zip 里的 nodes.py 提取出来看看。'])(
    'fires on the Chinese announcement %j only in a turn that called a tool',
    (text) => {
      expect(fires(text, true)).toBe(true);
      expect(fires(text, false)).toBe(false);
    },
  );

  it('does not fire on a Chinese trigger word in a plain answer without tool calls', () => {
    expect(fires('有三种做法可选。接下来我们看三种方案。', false)).toBe(false);
  });

  it('does not cut the last sentence at the dots of v0.3.1 (不要在 v0.3.1 处截断)', () => {
    expect(announcement('读完了源码。接下来我核对 v0.3.1 的 Load/Save 实现。', true, rules)).not.toBeNull();
    const [v] = announceThenStop(turn('读完了源码。接下来我核对 v0.3.1 的 Load/Save 实现。'), P, ctx());
    expect(v!.message).toContain('接下来我核对 v0.3.1 的 Load/Save 实现');
  });

  it('treats a long plain answer ending with "Let me now summarize." as an answer', () => {
    const long = `${'The scheduler keeps a min-heap of timers keyed by deadline and wakes the loop when the earliest one is due. '.repeat(4)}Let me now summarize.`;
    expect(long.length).toBeGreaterThan(400);
    expect(fires(long)).toBe(false);
    expect(fires('Let me now summarize.')).toBe(true);
  });

  it('still fires on a long reply ending in a colon', () => {
    expect(fires(`${'Analysis of the failure. '.repeat(30)}Here is what I will change next:`)).toBe(true);
  });

  it.each([
    'Let me know if you need anything else.',
    'Should I run the migration now?',
    "我先说一下结论。",
    'The tests pass and the docs are updated.',
    'If you want, I can also add a benchmark.',
    "I'll be happy to help with the next step.",
  ])('does not fire on %j', (text) => {
    expect(fires(text)).toBe(false);
  });

  it('does not fire when a tool call follows the announcement, or while the turn runs', () => {
    const followed = [ev.start('s'), ev.text('t', 'Let me check the schema.'), ...work, ev.end('e', 'Let me check the schema.')];
    expect(announceThenStop(followed, P, ctx())).toEqual([]);
    expect(announceThenStop([ev.start('s'), ...work, ev.text('t', 'Let me check the schema.')], P, ctx())).toEqual([]);
  });

  it('reads the whole closing paragraph: an announcement followed by other sentences still stops', () => {
    const [v, ...rest] = announceThenStop(trajectory('announce-midparagraph.jsonl'), P, ctx());
    expect(rest).toEqual([]);
    expect(v).toMatchObject({ turn: 'm01', evidence: ['m06', 'm07'] });
    expect(v!.message).toContain('"Let me try to run the program one more time with the debug flag"');
    expect(fires('Let me rerun the build. It failed on the first try because of the cache.', false)).toBe(true);
  });

  it('reads only the closing paragraph: an announcement the agent went on past is not read', () => {
    expect(fires('Let me check the schema.\n\nThe schema has the column; the tests pass and the docs are updated.')).toBe(false);
    expect(fires('The schema has the column.\n\nLet me check the migration next. It should add the index.')).toBe(true);
  });

  it('does not excuse an announced step made conditional on the agent\'s own check', () => {
    const [v] = announceThenStop(trajectory('announce-conditional.jsonl'), P, ctx());
    expect(v!.message).toContain('(announces an action in the middle of work): "We should review the changes"');
    expect(fires('If everything looks good, we can submit.')).toBe(true);
    expect(fires('Once the build passes, I will commit the change.')).toBe(true);
  });

  it('keeps the softer English to turns that called a tool', () => {
    for (const text of ['We should review the changes before the release.', 'If everything looks good, we can submit.']) expect(fires(text, false), text).toBe(false);
    expect(fires('We should upgrade to React 18.')).toBe(false);
  });

  it.each([
    'If needed, I can add a retry as well.',
    'When you are ready, I can open the pull request.',
    'Fixed it. Let me know if you want me to also update the docs.',
    'If that is fine, I can commit the change.',
  ])('still excuses courtesy and offers to the user: %j', (text) => {
    expect(fires(text)).toBe(false);
  });
});
