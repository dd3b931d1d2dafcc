/** Handlers that stream to the client until the job ends or the client leaves: attach, logs. */
import { existsSync, readFileSync } from 'node:fs';
import { InputError } from '../../util/errors.js';
import type { CallContext } from '../command.js';
import type { Daemon } from '../daemon.js';
import { liveJob } from './jobs.js';

/** Live view: the current screen, then everything the job prints; input goes to the job. */
export async function attach(d: Daemon, idOrName: string, ctx: CallContext) {
  const rec = d.board.require(idOrName);
  const job = liveJob(d, rec, 'attach to');
  ctx.stream(`\x1b[2J\x1b[H${job.live.screen.text().split('\n').join('\r\n')}`);
  const stop = job.live.watchOutput((data) => ctx.stream(data));
  ctx.onInput((data) => job.live.input(data));
  await new Promise<void>((resolve) => {
    ctx.onClose(resolve);
    void job.live.finished.then(() => resolve());
  });
  stop();
  return { job: rec.id, state: d.board.require(rec.id).state };
}

export async function logs(d: Daemon, idOrName: string, follow: boolean, ctx: CallContext) {
  const rec = d.board.require(idOrName);
  if (!rec.paths) throw new InputError(`job ${rec.name} has not started; no logs yet`);
  const file = rec.paths.log;
  let offset = 0;
  const pump = () => {
    if (!existsSync(file)) return;
    const text = readFileSync(file, 'utf8');
    if (text.length > offset) {
      ctx.stream(text.slice(offset));
      offset = text.length;
    }
  };
  pump();
  // The job's own log is empty when its PTY never came up; the board knows why.
  if (rec.reason.code === 'start-failed') throw new InputError(`job ${rec.name} failed to start: ${rec.reason.detail ?? 'no detail recorded'}`);
  const job = d.jobs.get(rec.id);
  if (follow && job) {
    await new Promise<void>((resolve) => {
      const timer = setInterval(pump, 250);
      const end = () => {
        clearInterval(timer);
        pump();
        resolve();
      };
      ctx.onClose(end);
      void job.live.finished.then(end);
    });
  }
  return { job: rec.id };
}
