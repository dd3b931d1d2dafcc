import { describe, expect, it } from 'vitest';
import type { TtyMode } from '../core/input-wait.js';
import { QueryReplies } from './query-replies.js';

const COOKED: TtyMode = { canonical: true, echo: true };
const RAW: TtyMode = { canonical: false, echo: false };

/** A mode reader the test settles by hand, as the exec thread's stty would, one read at a time. */
function modes() {
  const waiting: Array<(m: TtyMode | undefined) => void> = [];
  return {
    read: () => new Promise<TtyMode | undefined>((resolve) => waiting.push(resolve)),
    settle: async (m: TtyMode | undefined) => {
      waiting.shift()!(m);
      await new Promise((r) => setImmediate(r));
    },
    get reads() {
      return waiting.length;
    },
  };
}

describe('QueryReplies', () => {
  it('passes replies in raw mode, in order, those that came during a read joining one batch', async () => {
    const m = modes();
    const written: string[] = [];
    const q = new QueryReplies(m.read, (r) => written.push(r));
    q.reply('\x1b[?1;2c');
    q.reply('\x1b[>0;276;0c');
    expect(m.reads).toBe(1);
    await m.settle(RAW);
    expect(written).toEqual(['\x1b[?1;2c\x1b[>0;276;0c']);
  });

  it('drops replies in canonical mode, telling the first drop only', async () => {
    const m = modes();
    const written: string[] = [];
    const drops: string[] = [];
    const q = new QueryReplies(m.read, (r) => written.push(r), (r) => drops.push(r));
    q.reply('\x1b[?1;2c');
    await m.settle(COOKED);
    q.reply('\x1b[0n');
    await m.settle(COOKED);
    expect(written).toEqual([]);
    expect(drops).toEqual(['\x1b[?1;2c']);
    expect(q.droppedCount).toBe(2);
  });

  it('a reply that comes while a read is under way gets a read of its own once the first batch went', async () => {
    const m = modes();
    const written: string[] = [];
    const q = new QueryReplies(m.read, (r) => written.push(r));
    q.reply('a');
    await m.settle(COOKED);
    q.reply('b');
    await m.settle(RAW);
    expect(written).toEqual(['b']);
  });

  it('a mode it cannot read (or a read that fails) lets the reply go, as before', async () => {
    const written: string[] = [];
    const q = new QueryReplies(() => Promise.reject(new Error('no stty')), (r) => written.push(r));
    q.reply('\x1b[5;1R');
    await new Promise((r) => setImmediate(r));
    const m = modes();
    const q2 = new QueryReplies(m.read, (r) => written.push(r));
    q2.reply('\x1b[0n');
    await m.settle(undefined);
    expect(written).toEqual(['\x1b[5;1R', '\x1b[0n']);
  });

  it('writes nothing once disposed (the job ended while the mode was read)', async () => {
    const m = modes();
    const written: string[] = [];
    const q = new QueryReplies(m.read, (r) => written.push(r));
    q.reply('\x1b[?1;2c');
    q.dispose();
    await m.settle(RAW);
    q.reply('\x1b[0n');
    expect(written).toEqual([]);
    expect(m.reads).toBe(0);
  });
});
