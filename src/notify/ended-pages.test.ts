import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../board/types.js';
import { endedPage } from './ended-pages.js';

const rec = { id: 'j-1', name: 'night', env: {} } as unknown as JobRecord;

describe('endedPage: the command each page points to shows what the page is about', () => {
  it('a job that died under the daemon: its last output; one that never ran: show, which says why', () => {
    expect(endedPage(rec, 'lost', 'x', 0).answer_command).toBe('nightshift logs night --lines 40');
    expect(endedPage(rec, 'interrupted', 'x', 0).answer_command).toBe('nightshift logs night --lines 40');
    expect(endedPage(rec, 'start-failed', 'x', 0).answer_command).toBe('nightshift show night');
    expect(endedPage(rec, 'dependency-failed', 'x', 0).answer_command).toBe('nightshift show night');
  });
});
