import { describe, expect, it } from 'vitest';
import { tempDirs } from '../../test/helpers/temp-dirs.js';
import { NO_STREAM } from '../api/command.js';
import { COMMAND_LIST } from '../api/commands.js';
import type { CommandHost } from '../api/host.js';
import type { JobHandle } from '../api/job-handle.js';
import { Board } from '../board/board.js';
import { WriteBehind } from '../board/write-behind.js';
import { NotFoundError } from '../util/errors.js';
import { Commands, type DaemonCommand } from './command.js';

const stateDir = tempDirs('ns-cmd-');

/** A real board with a queued, a done and a running job; only `running` is live (its handle is a stand-in: no handler runs it here). */
async function hostWithJobs() {
  const store = WriteBehind.open(stateDir(), () => undefined);
  const board = new Board(store.db);
  const spec = (name: string) => ({ name, command: ['true'], cwd: '/tmp' });
  board.submit(spec('queued'), 1_000);
  const done = board.submit(spec('done'), 1_000);
  board.transition(done.id, 'done', { code: 'cancelled' }, 2_000);
  const running = board.submit(spec('running'), 1_000);
  board.transition(running.id, 'running', { code: 'started' }, 2_000);
  const handle = { id: running.id } as JobHandle;
  const host = { board, live: (id: string) => (id === running.id ? handle : undefined), durable: () => store.durable() } as unknown as CommandHost;
  return { host, handle, close: () => store.close() };
}

/** The record `name` with a handler that only notes what it was given. */
function noting(name: string, seen: unknown[]): DaemonCommand {
  const record = COMMAND_LIST.find((c) => c.name === name)!;
  return { ...record, handler: (_h, _a, on) => (seen.push(on), { job: 'noted' }) };
}

describe('the command table finds a record\'s target before its handler runs', () => {
  it('a job target: the record is handed over; a job that is none is NotFoundError and the handler never runs', async () => {
    const { host, close } = await hostWithJobs();
    const seen: unknown[] = [];
    const table = new Commands([noting('show', seen)], () => host);
    await table.run('show', { job: 'queued' }, NO_STREAM);
    expect(seen).toEqual([{ rec: expect.objectContaining({ name: 'queued', state: 'queued' }) }]);
    await expect(table.run('show', { job: 'nope' }, NO_STREAM)).rejects.toBeInstanceOf(NotFoundError);
    expect(seen).toHaveLength(1);
    await close();
  });

  it('a live-job target: the handle is handed over; a job not live is told in the verb\'s own words and the handler never runs', async () => {
    const { host, handle, close } = await hostWithJobs();
    const seen: unknown[] = [];
    const table = new Commands([noting('send', seen), noting('attach', seen)], () => host);
    await table.run('send', { job: 'running', text: 'y' }, NO_STREAM);
    expect(seen).toEqual([{ rec: expect.objectContaining({ name: 'running' }), live: handle }]);
    await expect(table.run('send', { job: 'queued', text: 'y' }, NO_STREAM)).rejects.toThrow(/^job queued is queued \(.*\); it has not started, nothing to send to yet$/);
    await expect(table.run('attach', { job: 'done' }, NO_STREAM)).rejects.toThrow(/^job done is done \(.*\); nothing to attach to$/);
    expect(seen).toHaveLength(1);
    await close();
  });
});
