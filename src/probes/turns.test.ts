import { describe, expect, it } from 'vitest';
import { ev } from '../../test/fixtures/trajectories/load.js';
import { lastChar, lastSentence, sentencesOf } from './text.js';
import { turnsOf } from './turns.js';

describe('turnsOf', () => {
  it('splits at turn-start and turn-end; events outside a turn open one without a start', () => {
    const events = [
      ev.call('a', 'Read'),
      ev.end('e0', 'x'),
      ev.start('s1'),
      ev.call('b', 'Read'),
      ev.end('e1', 'y'),
      ev.usage('u', 10),
      ev.start('s2'),
      ev.call('c', 'Read'),
    ];
    const turns = turnsOf(events);
    expect(turns.map((t) => [t.id, t.start?.id ?? null, t.end?.id ?? null, t.events.map((e) => e.id)])).toEqual([
      ['a', null, 'e0', ['a']],
      ['s1', 's1', 'e1', ['b']],
      ['u', null, null, ['u']],
      ['s2', 's2', null, ['c']],
    ]);
  });

  it('closes a turn cut off by the next turn-start without an end', () => {
    const turns = turnsOf([ev.start('s1'), ev.call('a', 'Read'), ev.start('s2'), ev.end('e2')]);
    expect(turns.map((t) => [t.id, t.end?.id ?? null])).toEqual([
      ['s1', null],
      ['s2', 'e2'],
    ]);
  });

  it('is empty for an empty stream', () => {
    expect(turnsOf([])).toEqual([]);
  });
});

describe('sentences', () => {
  it('does not end a sentence at dots inside versions, file names or numbers', () => {
    expect(lastSentence('读完了。接线细节要按 v0.3.1 源码确认')).toBe('接线细节要按 v0.3.1 源码确认');
    expect(lastSentence('Read it. Now let me open config.ts and pi 3.14.')).toBe('Now let me open config.ts and pi 3.14');
  });

  it('ends sentences at CJK stops, ! ? ; … and line breaks, and drops markdown around them', () => {
    expect(sentencesOf('好的！下一步？是的；然后…\n- **Next**, I will run it.')).toEqual(['好的', '下一步', '是的', '然后', 'Next, I will run it']);
    expect(lastChar('Here is the plan: **')).toBe(':');
  });
});
