import { describe, expect, it } from 'vitest';
import { OpenStreams } from './streams.js';

describe('OpenStreams', () => {
  it('closes a session’s streams on logout and a person’s on revoke; a stream that ended by itself is not closed again', () => {
    const s = new OpenStreams();
    const closed: string[] = [];
    s.track({ person: 'ann', sid: 's1' }, () => closed.push('ann s1'));
    s.track({ person: 'ann', sid: 's2' }, () => closed.push('ann s2'));
    s.track({ person: 'ann' }, () => closed.push('ann token'));
    const ended = s.track({ person: 'bob', sid: 's3' }, () => closed.push('bob s3'));
    s.track({ person: 'bob' }, () => closed.push('bob token'));
    expect(s.closeSession('s1')).toBe(1);
    expect(closed).toEqual(['ann s1']);
    expect(s.closePerson('ann')).toBe(2);
    expect(closed).toEqual(['ann s1', 'ann s2', 'ann token']);
    ended.dispose();
    expect(s.closePerson('bob')).toBe(1);
    expect(closed).toEqual(['ann s1', 'ann s2', 'ann token', 'bob token']);
    expect(s.size).toBe(0);
  });

  it('a sweep closes the streams whose session no longer holds (idle, past its end) and leaves the rest', () => {
    const s = new OpenStreams();
    const closed: string[] = [];
    s.track({ person: 'ann', sid: 'old' }, () => closed.push('ann old'));
    s.track({ person: 'ann', sid: 'new' }, () => closed.push('ann new'));
    s.track({ person: 'bob' }, () => closed.push('bob token'));
    expect(s.sweep((o) => o.sid !== 'old')).toBe(1);
    expect(closed).toEqual(['ann old']);
    expect(s.size).toBe(2);
  });
});
